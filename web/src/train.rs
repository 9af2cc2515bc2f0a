//! The training view: pick a model and a TP × PP × DP layout on the cluster and see one step
//! simulated: what it is spent on, the 1F1B schedule, where every rank sits and what crosses
//! the nodes, the collectives with their engine times, memory, cost on every fabric, scaling.

use crate::app::{Handle, Mode, TopBar};
use crate::i18n::{pick, Lang};
use crate::render::palette::TrainPalette;
use crate::render::training::{self as train_paint, Placement, PlacementScene};
use crate::services::download::{download, export_canvas_png};
use crate::services::{location, storage};
use crate::state::training::{TrainAction, TrainState, MAX_PAGE_NODES};
use fabricscope::catalog::{Technology, NODE_PRESETS};
use fabricscope::train::layout::{Dim, RankOrder};
use fabricscope::train::model::MODEL_PRESETS;
use fabricscope::train::{OpKind, Recompute, TrainScenario};
use fabricscope::units::{format_bytes, format_duration_ns};
use std::rc::Rc;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

type State = UseReducerHandle<TrainState>;

#[derive(Properties, PartialEq)]
struct ControlsProps {
    /// The controls re-render only when the job (or the language) changes.
    handle: Handle<TrainState>,
    job: TrainScenario,
    lang: Lang,
    /// The report's identity, for the figures the controls show from it.
    report: usize,
}

/// The last job run in this browser, or the default.
pub fn initial_job_stored() -> TrainScenario {
    storage::stored_job().unwrap_or_else(TrainScenario::default_demo)
}

/// The job the view opens on: the link's, else the last one run here, else the default.
pub fn initial_job() -> (TrainScenario, Option<String>) {
    let hash = location::hash();
    match crate::services::url::decode_train(&hash) {
        Ok(Some(job)) if job.cluster.nodes <= MAX_PAGE_NODES => (job, None),
        Ok(Some(_)) => {
            (initial_job_stored(), Some(format!("the page simulates up to {MAX_PAGE_NODES} nodes")))
        }
        Ok(None) => (initial_job_stored(), None),
        Err(message) => (initial_job_stored(), Some(message)),
    }
}

#[derive(Properties, PartialEq)]
pub struct TrainLabProps {
    pub lang: Lang,
    pub dark: bool,
    pub on_mode: Callback<Mode>,
    /// A lesson step's job, which the view opens on instead of the URL's.
    #[prop_or_default]
    pub job: Option<TrainScenario>,
    pub on_lang: Callback<Lang>,
    /// The lesson bar, shown under the top bar.
    #[prop_or_default]
    pub lesson_bar: Html,
}

#[function_component(TrainLab)]
pub fn train_lab(props: &TrainLabProps) -> Html {
    let (lang, dark, lesson_job) = (props.lang, props.dark, props.job.clone());
    let state = use_reducer(move || {
        let (job, problem) = match lesson_job {
            Some(job) => (job, None),
            None => initial_job(),
        };
        let mut state = TrainState::new(job, lang, dark).unwrap_or_else(|_| {
            TrainState::new(TrainScenario::default_demo(), lang, dark).expect("the default job is valid")
        });
        if let Some(problem) = problem {
            state.error = Some(match lang {
                Lang::En => {
                    format!("The link's training job could not be used ({problem}); showing another.")
                }
                Lang::Zh => format!("链接中的训练作业无法使用（{problem}），已显示其他作业。"),
            });
        }
        state
    });

    crate::app::use_theme(state.lang, state.dark);
    {
        let on_lang = props.on_lang.clone();
        use_effect_with(state.lang, move |&lang| on_lang.emit(lang));
    }
    // The URL and this browser follow the job.
    {
        let job = state.job.clone();
        use_effect_with(job, move |job| {
            let fragment = crate::services::url::encode_train(job);
            location::replace(&fragment);
            storage::store_job(job);
        });
    }
    // Animation frames while playing.
    {
        let s = state.clone();
        use_effect_with(
            (state.playing, state.playhead.to_bits(), state.last_frame_ms.map(f64::to_bits)),
            move |&(playing, _, _)| {
                let frame = playing.then(|| {
                    gloo::render::request_animation_frame(move |now_ms| {
                        s.dispatch(TrainAction::Frame { now_ms })
                    })
                });
                move || drop(frame)
            },
        );
    }
    // The comparisons, one simulation per idle tick so the page stays responsive.
    {
        let s = state.clone();
        let pending = state.extras_pending();
        let key = (Rc::as_ptr(&state.fabrics) as usize, state.scaling.len(), state.scaling_todo.len());
        use_effect_with(key, move |_| {
            let timer = pending
                .then(|| gloo::timers::callback::Timeout::new(30, move || s.dispatch(TrainAction::Extra)));
            move || drop(timer)
        });
    }

    let lang = state.lang;
    let on_lang = {
        let s = state.clone();
        Callback::from(move |l: Lang| s.dispatch(TrainAction::SetLang(l)))
    };
    let on_dark = {
        let s = state.clone();
        Callback::from(move |d: bool| s.dispatch(TrainAction::SetDark(d)))
    };
    html! {
        <div class="lab train">
            <TopBar lang={lang} dark={state.dark} mode={Mode::Training} on_lang={on_lang} on_dark={on_dark} on_mode={props.on_mode.clone()} />
            { props.lesson_bar.clone() }
            if let Some(message) = &state.error {
                <div id="error" class="banner error" role="alert">
                    <strong>{ message.clone() }</strong>
                    <span>{ " " }{ pick(lang, "That change was not applied; the last valid job is still shown.", "该修改未生效，页面仍显示上一个有效作业。") }</span>
                    <button onclick={ let s = state.clone(); move |_| s.dispatch(TrainAction::DismissError) }>{ pick(lang, "Dismiss", "关闭") }</button>
                </div>
            }
            <div class="columns">
                <aside class="panel controls">
                    <TrainControls handle={Handle(state.clone())} job={state.job.clone()} lang={state.lang} report={Rc::as_ptr(&state.report) as usize} />
                </aside>
                <div class="main">
                    <section class="panel"><Figures state={state.clone()} /></section>
                    <section class="panel"><Gantt state={state.clone()} /></section>
                    <section class="panel"><PlacementView state={state.clone()} /></section>
                    <div class="lower">
                        <section class="panel"><Ops state={state.clone()} /></section>
                        <section class="panel"><CostPanel state={state.clone()} /></section>
                    </div>
                </div>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct Props {
    state: State,
}

fn select_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlSelectElement>().value()
}

fn input_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlInputElement>().value()
}

/// Submits the current job changed by `change`.
fn edit(s: &State, change: impl FnOnce(&mut TrainScenario)) {
    let mut job = s.job.clone();
    change(&mut job);
    s.dispatch(TrainAction::SetJob(job));
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

/// Layout sizes that divide `total`, up to `max`.
fn divisors(total: u32, max: u32) -> Vec<u32> {
    (1..=total.min(max)).filter(|d| total % d == 0).collect()
}

#[function_component(TrainControls)]
fn train_controls(props: &ControlsProps) -> Html {
    let s = &props.handle.0;
    let lang = s.lang;
    let job = &s.job;
    let valid = &s.valid;
    let gpus = valid.cluster().n_ranks();
    let shape = valid.shape();
    // Changing TP or PP keeps the micro-batches per pipeline and gives DP the rest of the GPUs.
    let relayout = |s: &State, tp: u32, pp: u32, nodes: u32| {
        let g = s.valid.cluster().preset().gpus_per_node;
        let gpus = nodes * g;
        let dp = (gpus / (tp * pp).max(1)).max(1);
        let m = (s.job.global_batch / (s.job.micro_batch * s.job.dp).max(1)).max(1);
        edit(s, |j| {
            j.tp = tp;
            j.pp = pp;
            j.dp = dp;
            j.cluster.nodes = nodes;
            j.global_batch = m * j.micro_batch * dp;
        });
    };
    let on_model = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            edit(&s, |j| j.model = id)
        })
    };
    let on_preset = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            edit(&s, |j| j.cluster.preset = id)
        })
    };
    let on_nodes = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let text = select_value(&e);
            match text.parse::<u32>() {
                Ok(nodes) => relayout(&s, s.job.tp, s.job.pp, nodes),
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
                relayout(&s, tp, s.job.pp, s.job.cluster.nodes)
            }
        })
    };
    let on_pp = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            if let Ok(pp) = select_value(&e).parse::<u32>() {
                relayout(&s, s.job.tp, pp, s.job.cluster.nodes)
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

    let preset = valid.cluster().preset();
    let nic_gbit =
        job.cluster.links.nic.bandwidth_gbyte_per_s.unwrap_or(preset.nic.line_rate_gbyte_per_s) * 8.0;
    let options = |values: Vec<u32>, current: u32| -> Html {
        values
            .into_iter()
            .map(|v| html! { <option value={v.to_string()} selected={v == current}>{ v }</option> })
            .collect()
    };
    html! {
        <>
            <h2>{ pick(lang, "Model", "模型") }</h2>
            <label>{ pick(lang, "Model", "模型") }
                <select id="model" onchange={on_model}>
                    { for MODEL_PRESETS.iter().map(|m| html! { <option value={m.id} selected={m.id == job.model}>{ m.name }</option> }) }
                </select>
            </label>
            <p class="hint" id="model-shape">{ match lang {
                Lang::En => format!("{:.1} B parameters · {} layers · hidden {} · {} heads · sequence {}", shape.params() as f64 / 1e9, shape.layers, shape.hidden, shape.heads, shape.seq_len),
                Lang::Zh => format!("{:.1} B 参数 · {} 层 · 隐藏维度 {} · {} 个注意力头 · 序列长度 {}", shape.params() as f64 / 1e9, shape.layers, shape.hidden, shape.heads, shape.seq_len),
            } }</p>
            <h2>{ pick(lang, "Cluster", "集群") }</h2>
            <label>{ pick(lang, "Node", "节点") }
                <select id="train-preset" onchange={on_preset}>
                    { for NODE_PRESETS.iter().map(|p| html! { <option value={p.id} selected={p.id == job.cluster.preset}>{ p.name }</option> }) }
                </select>
            </label>
            <label>{ pick(lang, "Nodes", "节点数") }
                <select id="train-nodes" onchange={on_nodes}>{ options(vec![1, 2, 4, 8, 16, 32, 64], job.cluster.nodes) }</select>
            </label>
            <label>{ pick(lang, "Fabric", "网络") }
                <select id="train-fabric" onchange={on_fabric}>
                    { for [(Technology::Infiniband, "infiniband"), (Technology::Roce, "roce"), (Technology::Efa, "efa"), (Technology::Tcp, "tcp")].into_iter().map(|(t, id)| html! {
                        <option value={id} selected={t == job.cluster.fabric.technology}>{ t.spec().name }</option>
                    }) }
                </select>
            </label>
            <label>{ pick(lang, "NIC line rate [Gb/s]", "网卡速率 [Gb/s]") }
                <input id="train-nic" type="number" min="1" step="any" value={format!("{nic_gbit}")} onchange={on_nic} />
            </label>
            <h2>{ pick(lang, "Layout", "并行布局") }</h2>
            <label>{ pick(lang, "Tensor parallel (TP)", "张量并行 TP") }
                <select id="tp" onchange={on_tp}>{ options(divisors(gpus, 64).into_iter().filter(|d| d.is_power_of_two()).collect(), job.tp) }</select>
            </label>
            <label>{ pick(lang, "Pipeline parallel (PP)", "流水线并行 PP") }
                <select id="pp" onchange={on_pp}>{ options(divisors(shape.layers, 128).into_iter().filter(|&d| d <= gpus).collect(), job.pp) }</select>
            </label>
            <p class="hint" id="dp">{ format!("{} = {} / ({} × {}) = {}", pick(lang, "Data parallel (DP)", "数据并行 DP"), gpus, job.tp, job.pp, job.dp) }</p>
            <label>{ pick(lang, "Rank order (innermost first)", "rank 顺序（最内层在前）") }
                <select id="order" onchange={on_order}>
                    { for RankOrder::ALL.iter().map(|o| html! { <option value={o.name()} selected={*o == job.order}>{ o.name() }</option> }) }
                </select>
            </label>
            <label>{ pick(lang, "Micro-batch (sequences)", "微批大小（序列数）") }
                <select id="micro-batch" onchange={on_micro}>{ options(vec![1, 2, 4, 8], job.micro_batch) }</select>
            </label>
            <label>{ pick(lang, "Global batch (sequences)", "全局批大小（序列数）") }
                <input id="global-batch" type="number" min="1" value={job.global_batch.to_string()} onchange={on_global} />
            </label>
            <label class="check"><input id="sp" type="checkbox" checked={job.sequence_parallel} onchange={on_sp} />{ pick(lang, " Sequence parallelism", " 序列并行") }</label>
            <label>{ "ZeRO" }
                <select id="zero" onchange={on_zero}>{ options(vec![0, 1, 2, 3], job.zero as u32) }</select>
            </label>
            <label>{ pick(lang, "Activation recomputation", "激活重计算") }
                <select id="recompute" onchange={on_recompute}>
                    <option value="none" selected={job.recompute == Recompute::None}>{ pick(lang, "none", "不重算") }</option>
                    <option value="selective" selected={job.recompute == Recompute::Selective}>{ pick(lang, "selective (attention)", "选择性（注意力）") }</option>
                    <option value="full" selected={job.recompute == Recompute::Full}>{ pick(lang, "full", "全部") }</option>
                </select>
            </label>
            <label>{ pick(lang, "Kernel efficiency [% of peak BF16]", "算子效率 [峰值 BF16 的 %]") }
                <input id="efficiency" type="number" min="1" max="100" step="any" value={format!("{:.4}", job.compute_efficiency * 100.0).trim_end_matches('0').trim_end_matches('.').to_string()} onchange={on_efficiency} />
            </label>
            <h2>{ pick(lang, "Cost and storage (assumptions)", "成本与存储（假设值）") }</h2>
            <label>{ pick(lang, "GPU-hour [USD] (empty: assumed for the fabric)", "每 GPU 小时 [美元]（留空：按网络假设）") }
                <input id="price" type="number" min="0" step="any" placeholder={format!("{:.2}", s.report.cost.gpu_hour_usd)}
                    value={job.cost.gpu_hour_usd.map(|p| p.to_string()).unwrap_or_default()} onchange={on_price} />
            </label>
            <label>{ pick(lang, "Reserved / committed discount [%]", "预留 / 承诺折扣 [%]") }
                <input id="discount" type="number" min="0" max="99" step="any" value={format!("{:.4}", job.cost.discount * 100.0).trim_end_matches('0').trim_end_matches('.').to_string()} onchange={on_discount} />
            </label>
            <label>{ pick(lang, "Tokens to train [billions]", "训练 token 数 [十亿]") }
                <input id="tokens" type="number" min="0" step="any" value={format!("{}", job.cost.tokens / 1e9)} onchange={on_tokens} />
            </label>
            <label>{ pick(lang, "File system write [GB/s]", "文件系统写带宽 [GB/s]") }
                <input id="fs" type="number" min="0" step="any" value={format!("{}", job.storage.write_gbyte_per_s)} onchange={on_fs} />
            </label>
            <label>{ pick(lang, "Checkpoint every [min]", "检查点间隔 [分钟]") }
                <input id="interval" type="number" min="1" step="any" value={format!("{}", job.storage.interval_min)} onchange={on_interval} />
            </label>
        </>
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

#[function_component(Figures)]
fn figures(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &s.report;
    let b = &r.breakdown;
    let parts: [(&str, &str, &str, f64); 6] = [
        ("compute", pick(lang, "compute", "计算"), "part-compute", b.compute_ns),
        ("tp", pick(lang, "TP collectives", "TP 集合通信"), "part-tp", b.tp_ns),
        ("pp", pick(lang, "PP sends", "PP 点对点"), "part-pp", b.pp_ns),
        ("dp", pick(lang, "DP / ZeRO exposed", "DP / ZeRO 未重叠部分"), "part-dp", b.dp_ns),
        ("bubble", pick(lang, "pipeline bubble", "流水线气泡"), "part-bubble", b.bubble_ns),
        ("optimizer", pick(lang, "optimizer", "优化器"), "part-optimizer", b.optimizer_ns),
    ];
    let tp_op = r.ops.iter().find(|o| o.kind == OpKind::Tp);
    let tp_note = match (tp_op, lang) {
        (Some(op), Lang::En) => format!(
            "TP collectives take {} of the step: {} GPUs per group, {} ({}).",
            pct(b.tp_ns / r.step_ns),
            op.group_size,
            if op.crosses_nodes { "across nodes, through the NICs" } else { "inside each node, over NVLink" },
            format!("{} per call of {}", format_duration_ns(op.time_ns as f64), format_bytes(op.bytes))
        ),
        (Some(op), Lang::Zh) => format!(
            "TP 集合通信占单步 {}：每组 {} 块 GPU，{}（每次 {}，{}）。",
            pct(b.tp_ns / r.step_ns),
            op.group_size,
            if op.crosses_nodes { "跨节点、经网卡" } else { "在节点内、走 NVLink" },
            format_bytes(op.bytes),
            format_duration_ns(op.time_ns as f64)
        ),
        (None, _) => pick(lang, "No tensor parallelism: TP = 1.", "未使用张量并行：TP = 1。").to_string(),
    };
    let m = &r.memory;
    html! {
        <>
            <h2>{ pick(lang, "One training step", "一个训练步") }</h2>
            <dl class="figures">
                <div><dt>{ pick(lang, "Step", "单步时间") }</dt><dd id="step-time">{ format_duration_ns(r.step_ns) }</dd></div>
                <div><dt>{ "tokens/s" }</dt><dd id="tokens-per-s">{ format!("{:.0}", r.tokens_per_s) }</dd></div>
                <div><dt>{ "MFU" }</dt><dd id="mfu">{ pct(r.mfu) }</dd></div>
                <div><dt>{ pick(lang, "Exposed communication", "暴露的通信") }</dt><dd id="comm-share">{ pct(r.comm_exposed_share) }</dd></div>
                <div><dt>{ pick(lang, "Memory per GPU", "每 GPU 显存") }</dt>
                    <dd id="memory" class={classes!((!m.fits).then_some("bad"))}>{ format!("{:.1} / {:.0} GB", m.total / 1e9, m.capacity / 1e9) }</dd></div>
            </dl>
            <div class="stack" id="breakdown" role="img" aria-label={pick(lang, "Step breakdown", "单步时间构成")}>
                { for parts.iter().filter(|p| p.3 > 0.0).map(|(key, _, class, ns)| html! {
                    <div class={classes!("part", *class)} data-part={*key} style={format!("width: {:.3}%", 100.0 * ns / r.step_ns)}></div>
                }) }
            </div>
            <ul class="legend">
                { for parts.iter().map(|(key, name, class, ns)| html! {
                    <li data-part={*key}><span class={classes!("swatch", *class)}></span>{ format!("{name} {} ({})", format_duration_ns(*ns), pct(ns / r.step_ns)) }</li>
                }) }
            </ul>
            <p id="tp-note" class="formula">{ tp_note }</p>
            <div class="buttons">
                <button id="export-train" onclick={ let h = s.clone(); Callback::from(move |_| {
                    let value = serde_json::json!({ "job": h.job, "report": *h.report, "fabrics": *h.fabrics, "scaling": *h.scaling });
                    download("fabricscope-training.json", "application/json", &serde_json::to_string_pretty(&value).unwrap_or_default());
                }) }>{ pick(lang, "Export JSON", "导出 JSON") }</button>
                <button id="export-gantt" onclick={ Callback::from(|_| export_canvas_png("gantt", "fabricscope-1f1b.png")) }>{ pick(lang, "1F1B chart PNG", "1F1B 图 PNG") }</button>
                <button id="export-gantt-svg" onclick={ let h = s.clone(); Callback::from(move |_| download("fabricscope-1f1b.svg", "image/svg+xml", &gantt_svg(&h))) }>{ pick(lang, "1F1B chart SVG", "1F1B 图 SVG") }</button>
                <button id="export-placement" onclick={ Callback::from(|_| export_canvas_png("placement", "fabricscope-placement.png")) }>{ pick(lang, "Placement PNG", "放置图 PNG") }</button>
                <button id="export-placement-svg" onclick={ let h = s.clone(); Callback::from(move |_| download("fabricscope-placement.svg", "image/svg+xml", &placement_svg(&h))) }>{ pick(lang, "Placement SVG", "放置图 SVG") }</button>
                <button id="pin-a" aria-pressed={s.pinned.is_some().to_string()} onclick={ let h = s.clone(); let on = s.pinned.is_none(); Callback::from(move |_| h.dispatch(TrainAction::Pin(on))) }>
                    { if s.pinned.is_some() { pick(lang, "Forget A", "清除 A") } else { pick(lang, "Keep this job as A, to compare", "把此作业记为 A，用于对比") } }
                </button>
            </div>
            if let Some(pinned) = &s.pinned {
                <p id="ab-train" class="formula">{ train_difference(lang, &pinned.0, &pinned.1, &s.job, r) }</p>
            }
            if !m.fits {
                <p class="bad" id="memory-warning">{ match lang {
                    Lang::En => format!("Does not fit: {:.1} GB needed per GPU (weights {:.1}, gradients {:.1}, optimizer {:.1}, activations {:.1}) but the GPU has {:.0} GB. More PP or TP, ZeRO or recomputation shrink it.", m.total / 1e9, m.weights / 1e9, m.grads / 1e9, m.optimizer / 1e9, m.activations / 1e9, m.capacity / 1e9),
                    Lang::Zh => format!("放不下：每 GPU 需要 {:.1} GB（权重 {:.1}、梯度 {:.1}、优化器 {:.1}、激活 {:.1}），而 GPU 只有 {:.0} GB。增大 PP 或 TP、使用 ZeRO 或重计算可以减少。", m.total / 1e9, m.weights / 1e9, m.grads / 1e9, m.optimizer / 1e9, m.activations / 1e9, m.capacity / 1e9),
                } }</p>
            }
        </>
    }
}

/// A/B for training jobs in words: how much slower or faster this job's step is than A's, in
/// which part most, and whether TP left (or came back into) the nodes.
fn train_difference(
    lang: Lang,
    a_job: &TrainScenario,
    a: &fabricscope::train::TrainReport,
    b_job: &TrainScenario,
    b: &fabricscope::train::TrainReport,
) -> String {
    let d = fabricscope::train::difference(a, b);
    let part = match (lang, d.part) {
        (Lang::En, "compute") => "compute",
        (Lang::En, "tp") => "the TP collectives",
        (Lang::En, "pp") => "the pipeline sends",
        (Lang::En, "dp") => "DP / ZeRO communication",
        (Lang::En, "bubble") => "the pipeline bubble",
        (Lang::En, _) => "the optimizer",
        (Lang::Zh, "compute") => "计算",
        (Lang::Zh, "tp") => "TP 集合通信",
        (Lang::Zh, "pp") => "流水线发送",
        (Lang::Zh, "dp") => "DP / ZeRO 通信",
        (Lang::Zh, "bubble") => "流水线气泡",
        (Lang::Zh, _) => "优化器",
    };
    let layout = |j: &TrainScenario| format!("TP {} × PP {} × DP {}", j.tp, j.pp, j.dp);
    let tp = match (lang, d.tp_crosses) {
        (Lang::En, (false, true)) => " Its TP collectives cross the NICs; A's stay inside the nodes.",
        (Lang::En, (true, false)) => " Its TP collectives stay inside the nodes; A's cross the NICs.",
        (Lang::Zh, (false, true)) => " 它的 TP 集合通信要经过网卡，而 A 的留在节点内。",
        (Lang::Zh, (true, false)) => " 它的 TP 集合通信留在节点内，而 A 的要经过网卡。",
        _ => "",
    };
    let pct = format!("{:.1}%", 100.0 * d.step_change.abs());
    match lang {
        Lang::En => format!(
            "This job ({}) takes {} {} per step than A ({}): {} vs {}. Most of the change is {}: {} vs {}.{tp}",
            layout(b_job), pct, if d.step_change >= 0.0 { "longer" } else { "less" }, layout(a_job),
            format_duration_ns(b.step_ns), format_duration_ns(a.step_ns), part, format_duration_ns(d.part_b_ns), format_duration_ns(d.part_a_ns)
        ),
        Lang::Zh => format!(
            "此作业（{}）每步比 A（{}）{} {}：{} 对 {}。变化主要来自{}：{} 对 {}。{tp}",
            layout(b_job), layout(a_job), if d.step_change >= 0.0 { "慢" } else { "快" }, pct,
            format_duration_ns(b.step_ns), format_duration_ns(a.step_ns), part, format_duration_ns(d.part_b_ns), format_duration_ns(d.part_a_ns)
        ),
    }
}

fn canvas_width(node: &NodeRef) -> f64 {
    node.cast::<HtmlCanvasElement>()
        .and_then(|c| c.parent_element())
        .map(|p| p.client_width() as f64)
        .unwrap_or(900.0)
        .max(320.0)
}

fn context(canvas: &HtmlCanvasElement, width: f64, height: f64) -> Option<web_sys::CanvasRenderingContext2d> {
    use wasm_bindgen::JsCast;
    let ratio = gloo::utils::window().device_pixel_ratio().max(1.0);
    canvas.set_width((width * ratio) as u32);
    canvas.set_height((height * ratio) as u32);
    let _ = canvas.set_attribute("style", &format!("width: {width}px; height: {height}px"));
    let ctx = canvas.get_context("2d").ok()??.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()?;
    let _ = ctx.scale(ratio, ratio);
    Some(ctx)
}

/// The width a training canvas is drawn at, from the page (960 px where there is none).
fn drawn_width(id: &str) -> f64 {
    gloo::utils::document()
        .get_element_by_id(id)
        .and_then(|e| e.parent_element())
        .map(|p| p.client_width() as f64)
        .unwrap_or(960.0)
        .max(320.0)
}

/// The 1F1B chart as SVG, as the canvas shows it now (light theme).
pub fn gantt_svg(s: &TrainState) -> String {
    let width = drawn_width("gantt");
    let stages = s.report.blocks.iter().map(|b| b.stage + 1).max().unwrap_or(1);
    let svg = crate::render::surface::Svg::new();
    train_paint::paint_gantt(
        &svg,
        width,
        &s.report,
        s.valid.shape().layers / s.job.pp,
        s.playhead,
        s.lang,
        TrainPalette::of(false),
    );
    svg.finish(width, train_paint::gantt_height(stages))
}

/// The placement grid as SVG, as the canvas shows it now (light theme).
pub fn placement_svg(s: &TrainState) -> String {
    let width = drawn_width("placement");
    let nodes = s.valid.cluster().scenario().nodes;
    let place = Placement::new(width, nodes, s.valid.cluster().preset().gpus_per_node);
    let svg = crate::render::surface::Svg::new();
    let layers = s.valid.shape().layers / s.valid.grid().pp;
    let scene = PlacementScene {
        place: &place,
        grid: s.valid.grid(),
        nodes,
        report: &s.report,
        layers,
        t: s.playhead,
        groups: s.groups,
        lang: s.lang,
        palette: TrainPalette::of(false),
    };
    train_paint::paint_placement(&svg, &scene);
    svg.finish(place.width, place.height)
}

#[function_component(Gantt)]
fn gantt(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let (report, playhead, dark, layers) =
            (s.report.clone(), s.playhead, s.dark, s.valid.shape().layers / s.job.pp);
        use_effect_with((Rc::as_ptr(&report) as usize, playhead.to_bits(), dark, lang), move |_| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                let width = canvas_width(&canvas);
                let stages = report.blocks.iter().map(|b| b.stage + 1).max().unwrap_or(1);
                if let Some(ctx) = context(&element, width, train_paint::gantt_height(stages)) {
                    train_paint::paint_gantt(
                        &ctx,
                        width,
                        &report,
                        layers,
                        playhead,
                        lang,
                        TrainPalette::of(dark),
                    );
                }
            }
        });
    }
    let on_play = {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(TrainAction::TogglePlay))
    };
    let on_scrub = {
        let s = s.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(v) = e.target_unchecked_into::<HtmlInputElement>().value().parse::<f64>() {
                s.dispatch(TrainAction::Seek(v));
            }
        })
    };
    let r = &s.report;
    let parts = [
        ("part-compute", pick(lang, "forward", "前向")),
        ("part-backward", pick(lang, "backward", "反向")),
        ("part-tp", pick(lang, "TP collective", "TP 集合通信")),
        ("part-pp", pick(lang, "PP send/receive", "PP 发送/接收")),
        ("part-dp", pick(lang, "DP / ZeRO", "DP / ZeRO")),
        ("part-optimizer", pick(lang, "optimizer", "优化器")),
    ];
    html! {
        <>
            <h2>{ pick(lang, "Pipeline schedule (1F1B), one row per stage", "流水线调度（1F1B），每行一个阶段") }</h2>
            <div class="canvas-wrap"><canvas id="gantt" ref={canvas} data-stages={s.job.pp.to_string()}></canvas></div>
            <div class="transport">
                <button id="train-play" class="primary" onclick={on_play}>{ if s.playing { pick(lang, "Pause", "暂停") } else { pick(lang, "Play", "播放") } }</button>
                <input id="train-scrub" type="range" min="0" max={format!("{}", r.step_ns.floor())} step="any" value={format!("{}", s.playhead)} oninput={on_scrub}
                    aria-label={pick(lang, "Time in the step", "步内时间")} />
                <span id="train-clock">{ format!("{} / {}", format_duration_ns(s.playhead), format_duration_ns(r.step_ns)) }</span>
            </div>
            <ul class="legend">
                { for parts.iter().map(|(class, name)| html! { <li><span class={classes!("swatch", *class)}></span>{ *name }</li> }) }
                <li><span class="swatch part-idle"></span>{ pick(lang, "idle: the bubble", "空闲：气泡") }</li>
            </ul>
            <p class="formula">{ match lang {
                Lang::En => format!("{} micro-batches through {} stages: the first stage waits for nothing, the last starts after {} forwards; (p − 1) / (m + p − 1) = {} of the pipeline is bubble when stages are equal.", r.micro_batches, s.job.pp, s.job.pp.saturating_sub(1), pct((s.job.pp as f64 - 1.0) / (r.micro_batches as f64 + s.job.pp as f64 - 1.0))),
                Lang::Zh => format!("{} 个微批经过 {} 个阶段：第一阶段立即开始，最后一阶段要等 {} 次前向；各阶段相同时，气泡占流水线的 (p − 1) / (m + p − 1) = {}。", r.micro_batches, s.job.pp, s.job.pp.saturating_sub(1), pct((s.job.pp as f64 - 1.0) / (r.micro_batches as f64 + s.job.pp as f64 - 1.0))),
            } }</p>
        </>
    }
}

#[function_component(PlacementView)]
fn placement_view(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let (report, valid, playhead, dark, groups) =
            (s.report.clone(), s.valid.clone(), s.playhead, s.dark, s.groups);
        use_effect_with((Rc::as_ptr(&report) as usize, playhead.to_bits(), dark, lang, groups), move |_| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                let width = canvas_width(&canvas);
                let nodes = valid.cluster().scenario().nodes;
                let place = Placement::new(width, nodes, valid.cluster().preset().gpus_per_node);
                if let Some(ctx) = context(&element, width, place.height) {
                    let layers = valid.shape().layers / valid.grid().pp;
                    let scene = PlacementScene {
                        place: &place,
                        grid: valid.grid(),
                        nodes,
                        report: &report,
                        layers,
                        t: playhead,
                        groups,
                        lang,
                        palette: TrainPalette::of(dark),
                    };
                    train_paint::paint_placement(&ctx, &scene);
                }
            }
        });
    }
    let set = |dim: Dim| {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(TrainAction::SetGroups(dim)))
    };
    let grid = s.valid.grid();
    let nodes_of = |dim: Dim| {
        let g = s.valid.cluster().preset().gpus_per_node;
        let group = &grid.groups(dim)[0];
        let mut nodes: Vec<u32> = group.iter().map(|r| r / g).collect();
        nodes.dedup();
        nodes.len()
    };
    let span = |dim: Dim, name: &str| match lang {
        Lang::En => format!("each {name} group spans {} node(s)", nodes_of(dim)),
        Lang::Zh => format!("每个 {name} 组跨 {} 个节点", nodes_of(dim)),
    };
    html! {
        <>
            <h2>{ pick(lang, "Where the ranks sit, and what crosses the nodes now", "rank 的放置，以及此刻跨节点的流量") }</h2>
            <div class="segmented" role="group" aria-label={pick(lang, "Groups to colour", "着色的分组")}>
                { for [(Dim::Tp, "TP"), (Dim::Pp, "PP"), (Dim::Dp, "DP")].into_iter().map(|(dim, name)| html! {
                    <button id={format!("groups-{}", name.to_lowercase())} aria-pressed={(s.groups == dim).to_string()} onclick={set(dim)}>{ name }</button>
                }) }
            </div>
            <p class="hint" id="group-span">{ format!("{}; {}; {}.", span(Dim::Tp, "TP"), span(Dim::Pp, "PP"), span(Dim::Dp, "DP")) }</p>
            <div class="canvas-wrap"><canvas id="placement" ref={canvas} data-gpus={grid.ranks().to_string()}></canvas></div>
            <p class="hint">{ pick(lang,
                "Each GPU is filled with what its pipeline stage does at the playhead and underlined in its group's colour (the number is its index in that group); arrows are traffic between nodes right now: PP sends (pink), DP reduction (blue), TP collectives that span nodes (amber).",
                "每块 GPU 的填充色表示其流水线阶段在播放头时刻的工作，下划线颜色表示所属分组（数字为组内序号）；箭头是此刻跨节点的流量：PP 发送（粉）、DP 归约（蓝）、跨节点的 TP 集合通信（橙）。") }</p>
        </>
    }
}

#[function_component(Ops)]
fn ops(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &s.report;
    html! {
        <>
            <h2>{ pick(lang, "Collectives of one step (each simulated with every group at once)", "单步中的集合通信（每种都让所有组同时在引擎中运行）") }</h2>
            <table class="ops" id="ops">
                <thead><tr>
                    <th>{ pick(lang, "kind", "类型") }</th><th>{ pick(lang, "operation", "操作") }</th><th>{ pick(lang, "groups × ranks", "组数 × 组大小") }</th>
                    <th>{ pick(lang, "bytes", "字节") }</th><th>{ pick(lang, "calls/step", "每步次数") }</th><th>{ pick(lang, "time/call", "每次耗时") }</th><th>{ pick(lang, "where", "位置") }</th>
                </tr></thead>
                <tbody>
                    { for r.ops.iter().map(|op| html! {
                        <tr data-kind={format!("{:?}", op.kind)}>
                            <td>{ format!("{:?}", op.kind).to_uppercase() }</td>
                            <td>{ op_name(lang, op.name) }</td>
                            <td>{ format!("{} × {}", op.groups, op.group_size) }</td>
                            <td>{ format_bytes(op.bytes) }</td>
                            <td>{ format!("{:.0}", op.calls) }</td>
                            <td>{ format_duration_ns(op.time_ns as f64) }</td>
                            <td class={classes!(op.crosses_nodes.then_some("crosses"))}>{ if op.crosses_nodes { pick(lang, "crosses nodes", "跨节点") } else { pick(lang, "inside nodes", "节点内") } }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <h2>{ pick(lang, "Scaling: more nodes for DP", "扩展：增加节点做数据并行") }</h2>
            <table class="ops" id="scaling">
                <thead><tr><th>{ "GPUs" }</th><th>{ "tokens/s" }</th><th>{ pick(lang, "efficiency per GPU", "每 GPU 效率") }</th></tr></thead>
                <tbody>
                    { for s.scaling.iter().map(|&(gpus, tps, eff)| html! {
                        <tr><td>{ gpus }</td><td>{ format!("{tps:.0}") }</td>
                            <td><span class="bar" style={format!("width: {:.1}px", 80.0 * eff.min(1.2))}></span>{ " " }{ pct(eff) }</td></tr>
                    }) }
                    if !s.scaling_todo.is_empty() {
                        <tr><td colspan="3" class="hint">{ pick(lang, "simulating…", "模拟中…") }</td></tr>
                    }
                </tbody>
            </table>
        </>
    }
}

/// The core names its operations in English; the page's Chinese for each.
fn op_name(lang: Lang, name: &'static str) -> &'static str {
    if lang == Lang::En {
        return name;
    }
    match name {
        "AllGather (sequence parallel)" => "AllGather（序列并行）",
        "ReduceScatter (sequence parallel)" => "ReduceScatter（序列并行）",
        "AllReduce" => "AllReduce",
        "Send/Recv activations and their gradients" => "发送/接收激活及其梯度",
        "AllGather layer parameters (ZeRO-3)" => "AllGather 层参数（ZeRO-3）",
        "AllReduce gradients" => "AllReduce 梯度",
        "ReduceScatter gradients (ZeRO)" => "ReduceScatter 梯度（ZeRO）",
        "AllGather updated parameters (ZeRO)" => "AllGather 更新后的参数（ZeRO）",
        other => other,
    }
}

#[function_component(CostPanel)]
fn cost_panel(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &s.report;
    let c = &r.cost;
    let st = &r.storage;
    let assumed = s.job.cost.gpu_hour_usd.is_none();
    let fabrics = match s.fabrics.as_ref() {
        None => {
            html! { <p class="hint">{ pick(lang, "simulating the other fabrics…", "正在模拟其他网络…") }</p> }
        }
        Some(Err(message)) => html! { <p class="bad">{ message.clone() }</p> },
        Some(Ok(rows)) => {
            let tcp = rows.iter().find(|row| row.technology == Technology::Tcp).cloned();
            let ib = rows.iter().find(|row| row.technology == Technology::Infiniband).cloned();
            html! {
                <>
                    <table class="ops" id="fabrics">
                        <thead><tr><th>{ pick(lang, "fabric", "网络") }</th><th>{ pick(lang, "step", "单步") }</th><th>{ pick(lang, "exposed comm", "暴露通信") }</th>
                            <th>{ pick(lang, "days", "天数") }</th><th>{ "$/GPU-h" }</th><th>{ pick(lang, "cost", "费用") }</th></tr></thead>
                        <tbody>
                            { for rows.iter().map(|row| html! {
                                <tr class={classes!((row.technology == s.job.cluster.fabric.technology).then_some("current"))}>
                                    <td>{ row.technology.spec().name }</td><td>{ format_duration_ns(row.step_ns) }</td><td>{ pct(row.comm_exposed_share) }</td>
                                    <td>{ format!("{:.1}", row.days) }</td><td>{ format!("{:.2}", row.gpu_hour_usd) }</td><td>{ format!("${:.0}", row.usd) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                    if let (Some(ib), Some(tcp)) = (ib, tcp) {
                        <p class="formula" id="fabric-verdict">{ {
                            let time = 1.0 - ib.days / tcp.days;
                            let money = 1.0 - ib.usd / tcp.usd;
                            let ratio = format!("{:.2}", ib.gpu_hour_usd / tcp.gpu_hour_usd);
                            let (en, zh) = if money >= 0.0 { ("less", "少") } else { ("more", "多") };
                            match lang {
                                Lang::En => format!("InfiniBand against TCP Ethernet here: {} less time and {} {en} money ({ratio}× the price per GPU-hour). The seed article's claim, 40% less time for about 25% less money, is the case 0.6 × 1.25 = 0.75: it holds where communication is a large share of the step.", pct(time), pct(money.abs())),
                                Lang::Zh => format!("此处 InfiniBand 相比 TCP 以太网：时间少 {}，费用{zh} {}（每 GPU 小时价格为 {ratio} 倍）。原文“时间减少 40%、总成本下降约 25%”即 0.6 × 1.25 = 0.75 的情形：只有通信在单步中占比很大时才成立。", pct(time), pct(money.abs())),
                            }
                        } }</p>
                    }
                </>
            }
        }
    };
    html! {
        <>
            <h2>{ pick(lang, "Cost and checkpoints", "成本与检查点") }</h2>
            <dl class="figures">
                <div><dt>{ pick(lang, "Days", "天数") }</dt><dd id="days">{ format!("{:.1}", c.days) }</dd></div>
                <div><dt>{ pick(lang, "GPU-hours", "GPU 小时") }</dt><dd>{ format!("{:.0}", c.gpu_hours) }</dd></div>
                <div><dt>{ pick(lang, "Cost", "费用") }</dt><dd id="cost">{ format!("${:.0}", c.usd) }</dd></div>
            </dl>
            <p class="hint">{ match lang {
                Lang::En => format!("{:.0} B tokens at {:.0} tokens/s; ${:.2} per GPU-hour{} less {}.", c.tokens / 1e9, r.tokens_per_s, c.gpu_hour_usd, if assumed { " (an assumption for this fabric: edit it)" } else { "" }, pct(c.discount)),
                Lang::Zh => format!("{:.0} B token，每秒 {:.0} token；每 GPU 小时 {:.2} 美元{}，折扣 {}。", c.tokens / 1e9, r.tokens_per_s, c.gpu_hour_usd, if assumed { "（按此网络的假设值，可修改）" } else { "" }, pct(c.discount)),
            } }</p>
            <p id="checkpoint">{ match lang {
                Lang::En => format!("Checkpoint: {:.2} TB (14 B per parameter), {:.0} s to write at {} GB/s; every {} min that is {} of training time.", st.checkpoint_bytes / 1e12, st.write_s, s.job.storage.write_gbyte_per_s, st.interval_min, pct(st.overhead)),
                Lang::Zh => format!("检查点：{:.2} TB（每参数 14 字节），以 {} GB/s 写入需 {:.0} 秒；每 {} 分钟一次，占训练时间的 {}。", st.checkpoint_bytes / 1e12, s.job.storage.write_gbyte_per_s, st.write_s, st.interval_min, pct(st.overhead)),
            } }</p>
            <h2>{ pick(lang, "The same job on every fabric", "同一作业在各种网络上") }</h2>
            { fabrics }
        </>
    }
}
