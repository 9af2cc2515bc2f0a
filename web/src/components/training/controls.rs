//! The training view's controls: model, cluster, fabric, layout (TP × PP × DP), batch, memory
//! savers and cost. Every change goes through `TrainAction::SetJob`, which validates it.

use crate::components::{input_value, select_value};
use crate::i18n::{t, Lang, Text};
use crate::state::training::{TrainAction, TrainState, MAX_PAGE_GPUS};
use crate::state::Shared;
use fabricscope::catalog::{Technology, NODE_PRESETS};
use fabricscope::train::layout::RankOrder;
use fabricscope::train::model::MODEL_PRESETS;
use fabricscope::train::{default_gpu_hour_usd, Recompute, TrainScenario, ValidTrain};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub dispatch: UseReducerDispatcher<TrainState>,
    /// The controls re-render only when the job (or the language) changes.
    pub job: TrainScenario,
    pub lang: Lang,
    /// The job validated, for the figures the controls show from it.
    pub valid: Shared<ValidTrain>,
}

/// What the controls read and where they send a change: the props, and the reducer's
/// dispatcher. Cloned into each control's callback.
#[derive(Clone)]
struct Ctx {
    dispatcher: UseReducerDispatcher<TrainState>,
    job: TrainScenario,
    lang: Lang,
    valid: Shared<ValidTrain>,
}

impl Ctx {
    fn of(props: &ControlsProps) -> Ctx {
        Ctx {
            dispatcher: props.dispatch.clone(),
            job: props.job.clone(),
            lang: props.lang,
            valid: props.valid.clone(),
        }
    }

    fn dispatch(&self, action: TrainAction) {
        self.dispatcher.dispatch(action);
    }
}

type State = Ctx;

/// Submits the current job changed by `change`.
fn edit(s: &State, change: impl FnOnce(&mut TrainScenario)) {
    let mut job = s.job.clone();
    change(&mut job);
    s.dispatch(TrainAction::SetJob(Box::new(job)));
}

/// A number typed into a field, or a rejection naming the field.
fn number(s: &State, field: &str, text: &str) -> Option<f64> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Some(v),
        _ => {
            s.dispatch(TrainAction::Reject(format!("{field}: '{}' is not a number", text.trim())));
            None
        }
    }
}

/// Pipeline depths offered: the layers' divisors and the powers of two (stages then take
/// ⌈L/PP⌉ or ⌊L/PP⌋ layers), up to the layers and the GPUs.
fn pp_choices(layers: u32, gpus: u32) -> Vec<u32> {
    (1..=layers.min(gpus).min(128)).filter(|&d| layers % d == 0 || d.is_power_of_two()).collect()
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Layout sizes that divide `total`, up to `max`.
fn divisors(total: u32, max: u32) -> Vec<u32> {
    (1..=total.min(max)).filter(|&d| total % d == 0).collect()
}

/// TP degrees to offer: powers of two dividing the GPUs, and any degree up to a 72-GPU domain
/// that divides both the GPUs and the heads (TP 24 of GPT-3's 96 heads on an NVL72 rack), each
/// inside one NVLink domain or whole domains (`domain` GPUs); the job's own always.
fn tp_choices(gpus: u32, heads: u32, domain: u32, current: u32) -> Vec<u32> {
    let mut list: Vec<u32> = divisors(gpus, 72)
        .into_iter()
        .filter(|&d| (d.is_power_of_two() && d <= 64) || heads % d == 0)
        .filter(|&d| domain % d == 0 || d % domain == 0)
        .chain(std::iter::once(current))
        .collect();
    list.sort_unstable();
    list.dedup();
    list
}

#[function_component(TrainControls)]
pub fn train_controls(props: &ControlsProps) -> Html {
    let s = &Ctx::of(props);
    let lang = s.lang;
    let job = &s.job;
    let valid = &s.valid;
    let gpus = valid.cluster().n_ranks();
    let shape = valid.shape();
    // Changing TP or PP keeps the micro-batches per pipeline and gives DP the rest of the GPUs.
    let relayout = |s: &State, tp: u32, cp: u32, pp: u32, nodes: u32| {
        let g = s.valid.cluster().preset().gpus_per_node;
        let gpus = nodes * g;
        let dp = (gpus / (tp * cp * pp).max(1)).max(1);
        let m = (s.job.global_batch / (s.job.micro_batch * s.job.dp).max(1)).max(1);
        let layers = s.valid.shape().layers;
        edit(s, |j| {
            j.tp = tp;
            j.cp = cp;
            j.pp = pp;
            j.dp = dp;
            j.cluster.nodes = nodes;
            j.global_batch = m * j.micro_batch * dp;
            // EP stays if it still divides DP; interleaving if the chunks still cut evenly.
            if dp % j.ep != 0 {
                j.ep = 1;
            }
            if pp == 1 || layers % (pp * j.virtual_stages) != 0 {
                j.virtual_stages = 1;
            }
        });
    };
    let on_model = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            let experts = MODEL_PRESETS
                .iter()
                .find(|m| m.id == id)
                .and_then(|m| (m.shape)().moe)
                .map_or(1, |moe| moe.experts);
            edit(&s, |j| {
                j.model = id;
                // Experts need a mixture-of-experts model; a chunk count, layers it cuts evenly.
                if experts % j.ep != 0 {
                    j.ep = 1;
                }
                j.virtual_stages = 1;
            })
        })
    };
    let on_preset = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            // The same GPUs in nodes of the new kind where they divide (72 B200s as one NVL72
            // rack or 9 HGX B200 boxes), the layout kept; else the node count stays.
            let gpus = s.valid.cluster().n_ranks();
            let nodes = NODE_PRESETS
                .iter()
                .find(|p| p.id == id)
                .map(|p| p.gpus_per_node)
                .filter(|&g| g > 0 && gpus % g == 0 && gpus <= MAX_PAGE_GPUS)
                .map(|g| gpus / g);
            edit(&s, |j| {
                j.cluster.preset = id;
                j.cluster.nodes = nodes.unwrap_or(j.cluster.nodes);
            })
        })
    };
    let on_nodes = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = select_value(&e);
            match text.parse::<u32>() {
                Ok(nodes) => relayout(&s, s.job.tp, s.job.cp, s.job.pp, nodes),
                Err(_) => {
                    s.dispatch(TrainAction::Reject(format!("cluster.nodes: '{text}' is not a whole number")))
                }
            }
        })
    };
    let on_fabric = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            match serde_json::from_value::<Technology>(serde_json::Value::String(id.clone())) {
                Ok(t) => edit(&s, |j| {
                    j.cluster.fabric.technology = t;
                    j.cluster.fabric.routing = None;
                }),
                Err(_) => s.dispatch(TrainAction::Reject(format!(
                    "cluster.fabric.technology: '{id}' is not a fabric"
                ))),
            }
        })
    };
    let on_nic = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = input_value(&e);
            if text.trim().is_empty() {
                edit(&s, |j| j.cluster.links.nic.bandwidth_gbyte_per_s = None);
            } else if let Some(gbit) = number(&s, "cluster.links.nic.bandwidth_gbyte_per_s", &text) {
                edit(&s, |j| j.cluster.links.nic.bandwidth_gbyte_per_s = Some(gbit / 8.0));
            }
        })
    };
    let on_tp = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            if let Ok(tp) = select_value(&e).parse::<u32>() {
                relayout(&s, tp, s.job.cp, s.job.pp, s.job.cluster.nodes)
            }
        })
    };
    let on_pp = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            if let Ok(pp) = select_value(&e).parse::<u32>() {
                relayout(&s, s.job.tp, s.job.cp, pp, s.job.cluster.nodes)
            }
        })
    };
    let on_cp = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            if let Ok(cp) = select_value(&e).parse::<u32>() {
                relayout(&s, s.job.tp, cp, s.job.pp, s.job.cluster.nodes)
            }
        })
    };
    let on_seq = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = input_value(&e);
            if text.trim().is_empty() {
                edit(&s, |j| j.seq_len = None);
            } else {
                match text.trim().parse::<u32>() {
                    Ok(v) => edit(&s, |j| j.seq_len = Some(v)),
                    Err(_) => s.dispatch(TrainAction::Reject(format!(
                        "seq_len: '{}' is not a whole number",
                        text.trim()
                    ))),
                }
            }
        })
    };
    let int_select = |field: &'static str, apply: fn(&mut TrainScenario, u32)| {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = select_value(&e);
            match text.parse::<u32>() {
                Ok(v) => edit(&s, |j| apply(j, v)),
                Err(_) => s.dispatch(TrainAction::Reject(format!("{field}: '{text}' is not a whole number"))),
            }
        })
    };
    let on_micro = int_select("micro_batch", |j, v| {
        let m = (j.global_batch / (j.micro_batch * j.dp).max(1)).max(1);
        j.micro_batch = v;
        j.global_batch = m * v * j.dp;
    });
    let on_global = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = input_value(&e);
            match text.trim().parse::<u32>() {
                Ok(v) => edit(&s, |j| j.global_batch = v),
                Err(_) => s.dispatch(TrainAction::Reject(format!(
                    "global_batch: '{}' is not a whole number",
                    text.trim()
                ))),
            }
        })
    };
    let on_zero = int_select("zero", |j, v| j.zero = v as u8);
    let on_ep = int_select("ep", |j, v| j.ep = v);
    let on_virtual = int_select("virtual_stages", |j, v| j.virtual_stages = v);
    let on_sp = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            edit(&s, |j| j.sequence_parallel = on)
        })
    };
    let on_order = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let name = select_value(&e);
            if let Some(order) = RankOrder::ALL.into_iter().find(|o| o.name() == name) {
                edit(&s, |j| j.order = order)
            }
        })
    };
    let on_recompute = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let v = match select_value(&e).as_str() {
                "none" => Recompute::None,
                "full" => Recompute::Full,
                _ => Recompute::Selective,
            };
            edit(&s, |j| j.recompute = v)
        })
    };
    let float_field = |field: &'static str, scale: f64, apply: fn(&mut TrainScenario, f64)| {
        let s = s.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = number(&s, field, &input_value(&e)) {
                edit(&s, |j| apply(j, v * scale))
            }
        })
    };
    let on_efficiency = float_field("compute_efficiency", 0.01, |j, v| j.compute_efficiency = v);
    let on_price = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = input_value(&e);
            if text.trim().is_empty() {
                edit(&s, |j| j.cost.gpu_hour_usd = None);
            } else if let Some(v) = number(&s, "cost.gpu_hour_usd", &text) {
                edit(&s, |j| j.cost.gpu_hour_usd = Some(v));
            }
        })
    };
    let on_discount = float_field("cost.discount", 0.01, |j, v| j.cost.discount = v);
    let on_tokens = float_field("cost.tokens", 1e9, |j, v| j.cost.tokens = v);
    let on_fs = float_field("storage.write_gbyte_per_s", 1.0, |j, v| j.storage.write_gbyte_per_s = v);
    let on_interval = float_field("storage.interval_min", 1.0, |j, v| j.storage.interval_min = v);

    let nic_gbit = valid.cluster().link_figures().nic.line_rate.gbyte_per_s() * 8.0;
    let options = |values: Vec<u32>, current: u32| -> Html {
        values
            .into_iter()
            .map(|v| html! { <option value={v.to_string()} selected={v == current}>{ v }</option> })
            .collect()
    };
    html! {
        <>
            <h2>{ t(lang, Text::Model) }</h2>
            <label>{ t(lang, Text::Model) }
                <select id="model" onchange={on_model}>
                    { for MODEL_PRESETS.iter().map(|m| html! { <option value={m.id} selected={m.id == job.model}>{ m.name }</option> }) }
                </select>
            </label>
            <p class="hint" id="model-shape">{ match (lang, shape.moe) {
                (Lang::En, None) => format!("{:.1} B parameters · {} layers · hidden {} · {} heads · sequence {}", shape.params() as f64 / 1e9, shape.layers, shape.hidden, shape.heads, shape.seq_len),
                (Lang::Zh, None) => format!("{:.1} B 参数 · {} 层 · 隐藏维度 {} · {} 个注意力头 · 序列长度 {}", shape.params() as f64 / 1e9, shape.layers, shape.hidden, shape.heads, shape.seq_len),
                (Lang::En, Some(moe)) => format!("{:.1} B parameters, {:.1} B active per token · {} layers ({} with experts) · {} experts, top-{}{} · hidden {} · sequence {}", shape.params() as f64 / 1e9, shape.active_params() as f64 / 1e9, shape.layers, shape.moe_layers(), moe.experts, moe.top_k, if moe.shared_experts > 0 { format!(" + {} shared", moe.shared_experts) } else { String::new() }, shape.hidden, shape.seq_len),
                (Lang::Zh, Some(moe)) => format!("{:.1} B 参数，每个 token 激活 {:.1} B · {} 层（{} 层含专家）· {} 个专家，top-{}{} · 隐藏维度 {} · 序列长度 {}", shape.params() as f64 / 1e9, shape.active_params() as f64 / 1e9, shape.layers, shape.moe_layers(), moe.experts, moe.top_k, if moe.shared_experts > 0 { format!(" + {} 个共享专家", moe.shared_experts) } else { String::new() }, shape.hidden, shape.seq_len),
            } }</p>
            <h2>{ t(lang, Text::Cluster) }</h2>
            <label>{ t(lang, Text::Node) }
                <select id="train-preset" onchange={on_preset}>
                    { for NODE_PRESETS.iter().map(|p| html! { <option value={p.id} selected={p.id == job.cluster.preset}>{ p.name }</option> }) }
                </select>
            </label>
            <label>{ t(lang, Text::Nodes) }
                <select id="train-nodes" onchange={on_nodes}>{ options(node_counts(job.cluster.nodes, valid.cluster().preset().gpus_per_node), job.cluster.nodes) }</select>
            </label>
            <label>{ t(lang, Text::FabricTitle) }
                <select id="train-fabric" onchange={on_fabric}>
                    { for [(Technology::Infiniband, "infiniband"), (Technology::Roce, "roce"), (Technology::Efa, "efa"), (Technology::Tcp, "tcp")].into_iter().map(|(t, id)| html! {
                        <option value={id} selected={t == job.cluster.fabric.technology}>{ t.spec().name }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::NICLineRateGbS) }
                <input id="train-nic" type="number" min="1" step="any" value={format!("{nic_gbit}")} onchange={on_nic} />
            </label>
            <h2>{ t(lang, Text::Layout) }</h2>
            <label>{ t(lang, Text::TensorParallelTP) }
                <select id="tp" onchange={on_tp}>{ options(tp_choices(gpus, shape.heads, valid.cluster().preset().gpus_per_node, job.tp), job.tp) }</select>
            </label>
            <label>{ t(lang, Text::ContextParallelCP) }
                <select id="cp" onchange={on_cp}>{ options([1, 2, 4, 8, 16].into_iter().filter(|&c| c == 1 || (shape.seq_len % (2 * c) == 0 && gpus % (job.tp * c * job.pp) == 0)).collect(), job.cp) }</select>
            </label>
            <label>{ t(lang, Text::PipelineParallelPP) }
                <select id="pp" onchange={on_pp}>{ options(pp_choices(shape.layers, gpus), job.pp) }</select>
            </label>
            if let Some(moe) = shape.moe {
                <label>{ t(lang, Text::ExpertParallelEP) }
                    <select id="ep" onchange={on_ep}>{ options(divisors(gcd(moe.experts, job.dp), 1024), job.ep) }</select>
                </label>
            }
            if job.pp > 1 {
                <label>{ t(lang, Text::ModelChunksPerStage) }
                    <select id="virtual-stages" onchange={on_virtual}>{ options((1..=8).filter(|&v| v == 1 || shape.layers % (job.pp * v) == 0).collect(), job.virtual_stages) }</select>
                </label>
            }
            <p class="hint" id="dp">{ if job.cp > 1 {
                format!("{} = {} / ({} × {} × {}) = {}", t(lang, Text::DataParallelDP), gpus, job.tp, job.cp, job.pp, job.dp)
            } else {
                format!("{} = {} / ({} × {}) = {}", t(lang, Text::DataParallelDP), gpus, job.tp, job.pp, job.dp)
            } }</p>
            <label>{ t(lang, Text::RankOrderInnermostFirst) }
                <select id="order" onchange={on_order}>
                    { for RankOrder::ALL.iter().map(|o| html! { <option value={o.name()} selected={*o == job.order}>{ o.name() }</option> }) }
                </select>
            </label>
            <label>{ t(lang, Text::SequenceLengthTokens) }
                <input id="seq-len" type="number" min="1" step="1" placeholder={(MODEL_PRESETS.iter().find(|m| m.id == job.model).map_or(shape.seq_len, |m| (m.shape)().seq_len)).to_string()}
                    value={job.seq_len.map(|v| v.to_string()).unwrap_or_default()} onchange={on_seq} />
            </label>
            <label>{ t(lang, Text::MicroBatchSequences) }
                <select id="micro-batch" onchange={on_micro}>{ options(vec![1, 2, 4, 8], job.micro_batch) }</select>
            </label>
            <label>{ t(lang, Text::GlobalBatchSequences) }
                <input id="global-batch" type="number" min="1" value={job.global_batch.to_string()} onchange={on_global} />
            </label>
            <label class="check"><input id="sp" type="checkbox" checked={job.sequence_parallel} onchange={on_sp} />{ t(lang, Text::SequenceParallelism) }</label>
            <label>{ "ZeRO" }
                <select id="zero" onchange={on_zero}>{ options(vec![0, 1, 2, 3], job.zero as u32) }</select>
            </label>
            <label>{ t(lang, Text::ActivationRecomputation) }
                <select id="recompute" onchange={on_recompute}>
                    <option value="none" selected={job.recompute == Recompute::None}>{ t(lang, Text::RecomputeNone) }</option>
                    <option value="selective" selected={job.recompute == Recompute::Selective}>{ t(lang, Text::SelectiveAttention) }</option>
                    <option value="full" selected={job.recompute == Recompute::Full}>{ t(lang, Text::RecomputeFull) }</option>
                </select>
            </label>
            <label>{ t(lang, Text::KernelEfficiencyOfPeakBF16) }
                <input id="efficiency" type="number" min="1" max="100" step="any" value={format!("{:.4}", job.compute_efficiency * 100.0).trim_end_matches('0').trim_end_matches('.').to_string()} onchange={on_efficiency} />
            </label>
            <h2>{ t(lang, Text::CostAndStorageAssumptions) }</h2>
            <label>{ t(lang, Text::GPUHourUSDEmptyAssumed) }
                <input id="price" type="number" min="0" step="any" placeholder={format!("{:.2}", default_gpu_hour_usd(job.cluster.fabric.technology))}
                    value={job.cost.gpu_hour_usd.map(|p| p.to_string()).unwrap_or_default()} onchange={on_price} />
            </label>
            <label>{ t(lang, Text::ReservedCommittedDiscount) }
                <input id="discount" type="number" min="0" max="99" step="any" value={format!("{:.4}", job.cost.discount * 100.0).trim_end_matches('0').trim_end_matches('.').to_string()} onchange={on_discount} />
            </label>
            <label>{ t(lang, Text::TokensToTrainBillions) }
                <input id="tokens" type="number" min="0" step="any" value={format!("{}", job.cost.tokens / 1e9)} onchange={on_tokens} />
            </label>
            <label>{ t(lang, Text::FileSystemWriteGBS) }
                <input id="fs" type="number" min="0" step="any" value={format!("{}", job.storage.write_gbyte_per_s)} onchange={on_fs} />
            </label>
            <label>{ t(lang, Text::CheckpointEveryMin) }
                <input id="interval" type="number" min="1" step="any" value={format!("{}", job.storage.interval_min)} onchange={on_interval} />
            </label>
        </>
    }
}

/// The node counts offered: powers of two whose GPUs the page simulates (`MAX_PAGE_GPUS`), and
/// the job's own when it is another (9 boxes of 8 for 72 GPUs).
fn node_counts(current: u32, gpus_per_node: u32) -> Vec<u32> {
    let mut counts: Vec<u32> = (0..=14)
        .map(|k| 1u32 << k)
        .filter(|&n| n.saturating_mul(gpus_per_node.max(1)) <= MAX_PAGE_GPUS)
        .collect();
    if !counts.contains(&current) {
        counts.push(current);
        counts.sort_unstable();
    }
    counts
}
