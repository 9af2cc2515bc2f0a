//! The collectives view's controls: hardware, fabric, collective, algorithm, protocol, size
//! and channels, and A/B compare. Every change goes through `Action::SetScenario`, which
//! validates it; text that does not parse is rejected with the field named.

use super::custom::{default_custom, CustomControls};
use super::faults::FaultControls;
use super::nodes::NodeCount;
use crate::components::{input_value, select_value};
use crate::i18n::{self, t, Lang, Text};
use crate::state::collectives::{Action, AppState};
use crate::state::Shared;
use fabricscope::catalog::NODE_PRESETS;
use fabricscope::scenario::LatencyModel;
use fabricscope::units::format_bytes;
use fabricscope::Scenario;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// What the controls show: they re-render when one of these changes.
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub dispatch: UseReducerDispatcher<AppState>,
    /// The scenario the controls edit: the one last asked for (`AppState::requested`), which
    /// is still simulating while a long run is pending.
    pub scenario: Scenario,
    pub lang: Lang,
    /// Comparing A and B, and which one these controls edit.
    #[prop_or_default]
    pub comparing: bool,
    #[prop_or_default]
    pub editing_b: bool,
    /// The simulation shown, for the figures derived from it.
    pub sim: Shared<fabricscope::Simulation>,
}

/// What the controls read and where they send a change: the props, and the reducer's
/// dispatcher. Cloned into each control's callback.
#[derive(Clone, PartialEq)]
pub struct Ctx {
    dispatcher: UseReducerDispatcher<AppState>,
    pub scenario: Scenario,
    pub lang: Lang,
    pub sim: Shared<fabricscope::Simulation>,
}

impl Ctx {
    pub fn of(props: &ControlsProps) -> Ctx {
        Ctx {
            dispatcher: props.dispatch.clone(),
            scenario: props.scenario.clone(),
            lang: props.lang,
            sim: props.sim.clone(),
        }
    }

    pub fn dispatch(&self, action: Action) {
        self.dispatcher.dispatch(action);
    }
}

type State = Ctx;

/// Applies `change` to a copy of the current scenario and submits it.
pub(super) fn edit(state: &State, change: impl Fn(&mut Scenario) + 'static) -> impl Fn(Scenario) {
    let s = state.clone();
    move |mut scenario: Scenario| {
        change(&mut scenario);
        s.dispatch(Action::SetScenario(Box::new(scenario)));
    }
}

/// An optional number field: empty means "the preset's value"; anything else must parse.
fn number_field(
    state: &State,
    field: &'static str,
    raw: String,
    apply: impl Fn(&mut Scenario, Option<f64>) + 'static,
) {
    let text = raw.trim().to_string();
    let value = if text.is_empty() {
        None
    } else {
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                state.dispatch(Action::Reject(format!("{field}: '{text}' is not a number")));
                return;
            }
        }
    };
    let mut scenario = state.scenario.clone();
    apply(&mut scenario, value);
    state.dispatch(Action::SetScenario(Box::new(scenario)));
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let state = &Ctx::of(props);
    let lang = state.lang;
    let scenario = &state.scenario;
    let preset = state.sim.scenario.preset();

    let on_preset = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            edit(&s, move |sc| {
                sc.preset = id.clone();
                sc.custom = (id == "custom").then(|| sc.custom.clone().unwrap_or_else(default_custom));
                sc.imported = sc.imported.take().filter(|_| id == "imported");
            })(s.scenario.clone());
        })
    };
    let on_size = {
        let s = state.clone();
        Callback::from(move |e: InputEvent| {
            let text = e.target_unchecked_into::<HtmlInputElement>().value();
            match text.parse::<u32>() {
                Ok(exp) if exp < 40 => edit(&s, move |sc| sc.size_bytes = 1u64 << exp)(s.scenario.clone()),
                _ => s.dispatch(Action::Reject(format!("size_bytes: '{text}' is not a size"))),
            }
        })
    };
    let on_channels = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let text = select_value(&e);
            let channels = text.parse::<u32>().ok();
            edit(&s, move |sc| sc.channels = channels)(s.scenario.clone());
        })
    };
    let on_nvlink = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            number_field(&s, "links.nvlink.bandwidth_gbyte_per_s", input_value(&e), |sc, v| {
                sc.links.nvlink.bandwidth_gbyte_per_s = v
            })
        })
    };
    let on_nic = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            // The page takes Gb/s, as NICs are sold; the scenario stores GB/s.
            number_field(&s, "links.nic.bandwidth_gbyte_per_s", input_value(&e), |sc, v| {
                sc.links.nic.bandwidth_gbyte_per_s = v.map(|gbit| gbit / 8.0)
            })
        })
    };
    let on_nic_latency = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let raw = input_value(&e);
            let text = raw.trim().to_string();
            if text.is_empty() {
                return edit(&s, |sc| sc.links.nic.latency_ns = None)(s.scenario.clone());
            }
            match text.parse::<u64>() {
                Ok(ns) => edit(&s, move |sc| sc.links.nic.latency_ns = Some(ns))(s.scenario.clone()),
                Err(_) => s.dispatch(Action::Reject(format!(
                    "links.nic.latency_ns: '{text}' is not a whole number of ns"
                ))),
            }
        })
    };

    let fabric = &scenario.fabric;
    let size_exp = 63 - scenario.size_bytes.max(1).leading_zeros();
    // The figures the engine runs at (the NIC's latency is the fabric technology's, not the part's).
    let figures = state.sim.scenario.link_figures();
    let nvlink_value = figures.nvlink.line_rate.gbyte_per_s();
    let nic_value = figures.nic.line_rate.gbyte_per_s() * 8.0;
    let nic_latency = figures.nic.latency_ns;
    let compare = {
        let s = state.clone();
        let on = !props.comparing;
        Callback::from(move |_| s.dispatch(Action::Compare(on)))
    };
    let edit_side = |b: bool| {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::EditB(b)))
    };
    // A select the reader changed keeps showing that choice whatever the render says (the
    // `selected` attribute sets only its default): after every render each shows the option
    // the scenario selects, so a cancelled or refused change does not stay on screen.
    use_effect(show_selected_options);
    html! {
        <>
            <div class="compare-bar">
                <button id="compare" aria-pressed={props.comparing.to_string()} onclick={compare}>
                    { if props.comparing { t(lang, Text::StopComparing) } else { t(lang, Text::CompareAB) } }
                </button>
                if props.comparing {
                    <div class="segmented" role="group" aria-label={t(lang, Text::WhichToEdit)}>
                        <button id="edit-a" aria-pressed={(!props.editing_b).to_string()} onclick={edit_side(false)}>{ t(lang, Text::EditA) }</button>
                        <button id="edit-b" aria-pressed={props.editing_b.to_string()} onclick={edit_side(true)}>{ t(lang, Text::EditB) }</button>
                    </div>
                }
            </div>
            <h2>{ t(lang, Text::Hardware) }</h2>
            <label>{ t(lang, Text::Preset) }
                <select id="preset" onchange={on_preset}>
                    { for NODE_PRESETS.iter().map(|p| html! {
                        <option value={p.id} selected={p.id == scenario.preset}>
                            { format!("{} — {}× {}, {}× {}", p.name, p.gpus_per_node, p.gpu.name, p.nics_per_node, p.nic.name) }
                        </option>
                    }) }
                    <option value="custom" selected={scenario.preset == "custom"}>{ t(lang, Text::CustomNode) }</option>
                    if scenario.imported.is_some() {
                        <option value="imported" selected={scenario.preset == "imported"}>
                            { format!("{}: {}", crate::i18n::cluster::w(lang, crate::i18n::cluster::Words::Imported), preset.name) }
                        </option>
                    }
                </select>
            </label>
            if let Some(custom) = &scenario.custom {
                <CustomControls ctx={state.clone()} custom={custom.clone()} />
            }
            <NodeCount ctx={state.clone()} gpus_per_node={preset.gpus_per_node} />
            <label>{ t(lang, Text::NvlinkBandwidth) }
                <input id="nvlink-bw" type="number" min="1" step="any" value={format!("{nvlink_value}")} onchange={on_nvlink} />
            </label>
            <label>{ t(lang, Text::NicPart) }
                <select id="nic-part" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let name = select_value(&e);
                    let rate = fabricscope::catalog::NICS.iter().find(|n| n.name == name).map(|n| n.line_rate_gbyte_per_s);
                    edit(&s, move |sc| sc.links.nic.bandwidth_gbyte_per_s = rate)(s.scenario.clone());
                }) }>
                    <option value="preset" selected={scenario.links.nic.bandwidth_gbyte_per_s.is_none()}>
                        { format!("{} ({})", t(lang, Text::Default), preset.nic.name) }
                    </option>
                    { for fabricscope::catalog::NICS.iter().map(|n| html! {
                        <option value={n.name} selected={scenario.links.nic.bandwidth_gbyte_per_s == Some(n.line_rate_gbyte_per_s)}>{ n.name }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::NicBandwidth) }
                <input id="nic-bw" type="number" min="1" step="any" value={format!("{nic_value}")} onchange={on_nic} />
            </label>
            <label>{ t(lang, Text::NicLatency) }
                <input id="nic-latency" type="number" min="0" step="1" value={nic_latency.to_string()} onchange={on_nic_latency} />
            </label>
            <label>{ t(lang, Text::NicsUsed) }
                <select id="nics-used" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let used = select_value(&e).parse::<u32>().ok();
                    edit(&s, move |sc| sc.nics_used = used)(s.scenario.clone());
                }) }>
                    <option value="all" selected={scenario.nics_used.is_none()}>{ format!("{} ({})", t(lang, Text::Default), preset.nics_per_node) }</option>
                    { for (1..=preset.nics_per_node).rev().map(|k| html! {
                        <option value={k.to_string()} selected={scenario.nics_used == Some(k)}>{ k.to_string() }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::Pinning) }
                <select id="pinning" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let pinning = parse_id(&select_value(&e)).unwrap_or_default();
                    edit(&s, move |sc| sc.pinning = pinning)(s.scenario.clone());
                }) }>
                    { for ["aligned", "misaligned"].iter().map(|&c| html! {
                        <option value={c} selected={id_of(&scenario.pinning) == c}>{ i18n::choice(lang, c) }</option>
                    }) }
                </select>
            </label>
            <label class="check">
                <input id="virtualized" type="checkbox" checked={scenario.virtualized} onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let on = e.target_unchecked_into::<HtmlInputElement>().checked();
                    edit(&s, move |sc| sc.virtualized = on)(s.scenario.clone());
                }) } />
                { t(lang, Text::Virtualized) }
            </label>
            <h2>{ t(lang, Text::Fabric) }</h2>
            { fabric_select(state, "technology", t(lang, Text::Technology), &["infiniband", "roce", "tcp", "efa"], &id_of(&fabric.technology), false,
                |f, v| f.technology = parse_id(v).unwrap_or_default()) }
            { fabric_select(state, "fabric-topology", t(lang, Text::FabricShape), &["auto", "single_switch", "leaf_spine", "fat_tree"], &id_of(&fabric.topology), false,
                |f, v| f.topology = parse_id(v).unwrap_or_default()) }
            { fabric_select(state, "wiring", t(lang, Text::Wiring), &["rail", "node"], &id_of(&fabric.wiring), false,
                |f, v| f.wiring = parse_id(v).unwrap_or_default()) }
            { fabric_select(state, "routing", t(lang, Text::Routing), &["static", "ecmp", "adaptive"], &fabric.routing.map(|r| id_of(&r)).unwrap_or_default(), true,
                |f, v| f.routing = parse_id(v)) }
            <label>{ t(lang, Text::Oversubscription) }
                <select id="oversubscription" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let text = select_value(&e);
                    match text.parse::<f64>() {
                        Ok(r) => edit(&s, move |sc| sc.fabric.oversubscription = r)(s.scenario.clone()),
                        Err(_) => s.dispatch(Action::Reject(format!("fabric.oversubscription: '{text}' is not a number"))),
                    }
                }) }>
                    { for [1.0f64, 2.0, 3.0, 4.0].iter().map(|&r| html! {
                        <option value={r.to_string()} selected={fabric.oversubscription == r}>{ format!("{r}:1") }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::Radix) }
                <select id="radix" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let radix = select_value(&e).parse::<u32>().ok();
                    edit(&s, move |sc| sc.fabric.radix = radix)(s.scenario.clone());
                }) }>
                    <option value="default" selected={fabric.radix.is_none()}>{ format!("{} ({})", t(lang, Text::Default), preset.switch_radix) }</option>
                    { for [8u32, 16, 32, 40, 64, 128].iter().map(|&k| html! {
                        <option value={k.to_string()} selected={fabric.radix == Some(k)}>{ k.to_string() }</option>
                    }) }
                </select>
            </label>
            <p id="fabric-summary" class="formula">{ fabric_line(state) }</p>
            <h2>{ crate::i18n::cluster::w(lang, crate::i18n::cluster::Words::Faults) }</h2>
            <FaultControls ctx={state.clone()} />
            <h2>{ t(lang, Text::Collective) }</h2>
            <label>
                <select id="collective" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let collective = parse_id(&select_value(&e)).unwrap_or(fabricscope::Collective::AllReduce);
                    edit(&s, move |sc| {
                        sc.collective = collective;
                        if collective != fabricscope::Collective::AllReduce {
                            sc.algorithm = None;
                        }
                    })(s.scenario.clone());
                }) }>
                    { for fabricscope::Collective::ALL.iter().map(|&c| html! {
                        <option value={id_of(&c)} selected={c == scenario.collective}>{ i18n::collective(lang, c) }</option>
                    }) }
                </select>
            </label>
            if scenario.collective == fabricscope::Collective::AllReduce {
                <label>{ t(lang, Text::Algorithm) }
                    <select id="algorithm" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                        let algorithm = parse_id(&select_value(&e));
                        edit(&s, move |sc| sc.algorithm = algorithm)(s.scenario.clone());
                    }) }>
                        <option value="auto" selected={scenario.algorithm.is_none()}>
                            { format!("{} ({})", t(lang, Text::TunerChoice), state.sim.tuning.choice().algorithm.nccl_name()) }
                        </option>
                        // The algorithms the tuner weighed on this hardware (NVLS where the
                        // NVSwitch reduces, Hierarchical across nodes).
                        { for algorithms_of(&state.sim.tuning).into_iter().map(|a| html! {
                            <option value={id_of(&a)} selected={scenario.algorithm == Some(a)}>{ a.nccl_name() }</option>
                        }) }
                    </select>
                </label>
                // NVLS where the node's NVSwitch reduces (NCCL_NVLS_ENABLE, on by default: NVLS
                // on one node, NVLSTree across nodes); CollNet where the InfiniBand switches do
                // (NCCL_COLLNET_ENABLE, off by default).
                if state.sim.scenario.nvls_supported() || state.sim.scenario.nvls_tree_supported() {
                    <label class="check">
                        <input id="nvls" type="checkbox" checked={scenario.nvls} onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
                            edit(&s, move |sc| sc.nvls = on)(s.scenario.clone());
                        }) } />
                        { t(lang, Text::InNetworkReductionNVLSIn) }
                    </label>
                }
                if state.sim.scenario.sharp_supported() {
                    <label class="check">
                        <input id="in-network" type="checkbox" checked={scenario.collnet} onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
                            edit(&s, move |sc| sc.collnet = on)(s.scenario.clone());
                        }) } />
                        { t(lang, Text::InNetworkReductionSHARPIn) }
                    </label>
                }
            }
            <label>{ t(lang, Text::Protocol) }
                <select id="protocol" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let protocol = parse_id(&select_value(&e));
                    edit(&s, move |sc| sc.protocol = protocol)(s.scenario.clone());
                }) }>
                    <option value="auto" selected={scenario.protocol.is_none()}>
                        { format!("{} ({})", t(lang, Text::TunerChoice), state.sim.tuning.choice().protocol.nccl_name()) }
                    </option>
                    { for fabricscope::collective::Protocol::ALL.iter().map(|&p| html! {
                        <option value={id_of(&p)} selected={scenario.protocol == Some(p)}>{ p.nccl_name() }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::LatencyModelLabel) }
                <select id="latency" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let latency = parse_id(&select_value(&e)).unwrap_or_default();
                    edit(&s, move |sc| sc.latency = latency)(s.scenario.clone());
                }) }>
                    { for [LatencyModel::Nccl, LatencyModel::Links].iter().map(|&m| html! {
                        <option value={id_of(&m)} selected={scenario.latency == m}>{ i18n::choice(lang, &id_of(&m)) }</option>
                    }) }
                </select>
            </label>
            <p class="algo">{ format!("{} · {} · {}", scenario.collective.nccl_name(), state.sim.schedule.algorithm.nccl_name(), state.sim.schedule.protocol.nccl_name()) }<br />
                <code>{ format!("NCCL_ALGO={} NCCL_PROTO={}", state.sim.schedule.algorithm.nccl_name(), state.sim.schedule.protocol.nccl_name()) }</code></p>
            <label>{ t(lang, Text::MessageSize) }{ ": " }<output id="size-label">{ format_bytes(scenario.size_bytes) }</output>
                <input id="size" type="range" min="10" max="32" step="1" value={size_exp.to_string()} oninput={on_size}
                    aria-valuetext={format_bytes(scenario.size_bytes)} />
            </label>
            <label>{ t(lang, Text::Channels) }
                <select id="channels" onchange={on_channels}>
                    <option value="auto" selected={scenario.channels.is_none()}>
                        { format!("{} ({})", t(lang, Text::Auto), state.sim.scenario.channels()) }
                    </option>
                    { for [1u32, 2, 4, 8, 16].iter().map(|&c| html! {
                        <option value={c.to_string()} selected={scenario.channels == Some(c)}>{ c.to_string() }</option>
                    }) }
                </select>
            </label>
        </>
    }
}

/// Node counts the page lists (`nodes::NodeCount`; any other is typed in, as the CLI takes any
/// the fabric holds). Up to 8 nodes every node is drawn in full; beyond, the cluster is drawn
/// compact. What the page simulates is bounded by `plan::PAGE_BUDGET` (rings that settle run as
/// a steady state at any of these sizes).
pub(crate) const PAGE_NODES: [u32; 11] = [1, 2, 3, 4, 6, 8, 16, 32, 64, 128, 256];

/// The tuner's algorithms, each once, in its table's order.
fn algorithms_of(tuning: &fabricscope::plan::Tuning) -> Vec<fabricscope::collective::Algorithm> {
    let mut list = Vec::new();
    for row in &tuning.rows {
        if !list.contains(&row.algorithm) {
            list.push(row.algorithm);
        }
    }
    list
}

/// The serde name of an enum value ("roce", "leaf_spine").
pub fn id_of<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The enum value of a serde name.
pub fn parse_id<T: serde::de::DeserializeOwned>(id: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(id.to_string())).ok()
}

/// Sets each of the controls' selects to the option marked `selected`.
fn show_selected_options() {
    let Ok(selects) = gloo::utils::document().query_selector_all("#controls select") else { return };
    for i in 0..selects.length() {
        let Some(select) =
            selects.item(i).and_then(|node| node.dyn_into::<web_sys::HtmlSelectElement>().ok())
        else {
            continue;
        };
        let marked = select.query_selector("option[selected]").ok().flatten();
        if let Some(value) = marked.and_then(|option| option.get_attribute("value")) {
            if select.value() != value {
                select.set_value(&value);
            }
        }
    }
}

/// A select over one fabric field; `with_default` adds a "default" choice stored as `None`.
fn fabric_select(
    state: &State,
    id: &'static str,
    label: &'static str,
    choices: &'static [&'static str],
    current: &str,
    with_default: bool,
    apply: fn(&mut fabricscope::scenario::FabricConfig, &str),
) -> Html {
    let lang = state.lang;
    let s = state.clone();
    let onchange = Callback::from(move |e: Event| {
        let value = select_value(&e);
        let mut scenario = s.scenario.clone();
        apply(&mut scenario.fabric, &value);
        s.dispatch(Action::SetScenario(Box::new(scenario)));
    });
    let default_name = if with_default {
        let routing = state.sim.scenario.scenario().fabric.technology.spec().default_routing;
        Some(format!("{} ({})", t(lang, Text::Default), i18n::choice(lang, &id_of(&routing))))
    } else {
        None
    };
    html! {
        <label>{ label }
            <select id={id} {onchange}>
                if let Some(name) = default_name {
                    <option value="default" selected={current.is_empty()}>{ name }</option>
                }
                { for choices.iter().map(|&c| html! { <option value={c} selected={c == current}>{ i18n::choice(lang, c) }</option> }) }
            </select>
        </label>
    }
}

/// "leaf-spine: 8 leaves, 32 spines · 72 cables · bisection 3.2 TB/s · diameter 3".
fn fabric_line(state: &Ctx) -> String {
    let summary = state.sim.topology.fabric_summary();
    let plan = state.sim.scenario.fabric_plan();
    let tech = state.sim.scenario.scenario().fabric.technology.spec();
    match state.lang {
        Lang::En => format!(
            "{} leaves, {} spines, {} cores · {} switches, {} cables · bisection {:.0} GB/s · diameter {} switch hops · {}, {} ns NIC, {} ns per switch",
            plan.leaves, plan.spines, plan.cores, summary.switches, summary.cables, summary.bisection_gbyte_per_s, summary.diameter,
            tech.flow_control, tech.nic_latency_ns, tech.switch_hop_latency_ns
        ),
        Lang::Zh => format!(
            "{} 台叶交换机、{} 台脊交换机、{} 台核心交换机 · 共 {} 台交换机、{} 根线缆 · 对分带宽 {:.0} GB/s · 直径 {} 跳 · {}，网卡时延 {} ns，每跳 {} ns",
            plan.leaves, plan.spines, plan.cores, summary.switches, summary.cables, summary.bisection_gbyte_per_s, summary.diameter,
            i18n::flow_control(Lang::Zh, tech.technology), tech.nic_latency_ns, tech.switch_hop_latency_ns
        ),
    }
}
