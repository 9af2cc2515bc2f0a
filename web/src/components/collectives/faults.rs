//! The scenario's faults as controls: each a kind, where it is and the rate left, added and
//! removed one at a time. Every change goes through `Action::SetScenario`, whose validation
//! names a fault the cluster has no place for (`faults[1].index`) and keeps the last good run.

use super::controls::{id_of, parse_id, Ctx};
use crate::components::input_value;
use crate::i18n::cluster::{w, Words};
use crate::state::collectives::Action;
use fabricscope::scenario::{Fault, FaultKind};
use yew::prelude::*;

const KINDS: [(FaultKind, Words); 5] = [
    (FaultKind::Nic, Words::KindNic),
    (FaultKind::Nvlink, Words::KindNvlink),
    (FaultKind::Gpu, Words::KindGpu),
    (FaultKind::LeafUplink, Words::KindLeafUplink),
    (FaultKind::Spine, Words::KindSpine),
];

/// The rates the page offers (the CLI and scenario files take any in [0, 1]).
const RATES: [f64; 6] = [0.75, 0.5, 0.25, 0.1, 0.0, 1.0];

#[derive(Properties, PartialEq)]
pub struct FaultProps {
    pub ctx: Ctx,
}

/// The list of faults and a button to add one.
#[function_component(FaultControls)]
pub fn fault_controls(props: &FaultProps) -> Html {
    let ctx = &props.ctx;
    let lang = ctx.lang;
    let faults = &ctx.scenario.faults;
    // Edits fault `i` of a copy of the scenario and submits it.
    let edit = |i: usize, apply: fn(&mut Fault, &str) -> Result<(), String>| {
        let s = ctx.clone();
        Callback::from(move |e: Event| {
            let value = match e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                Some(select) => select.value(),
                None => input_value(&e),
            };
            let mut scenario = s.scenario.clone();
            let Some(fault) = scenario.faults.get_mut(i) else { return };
            match apply(fault, value.trim()) {
                Ok(()) => s.dispatch(Action::SetScenario(Box::new(scenario))),
                Err(message) => s.dispatch(Action::Reject(format!("faults[{i}].{message}"))),
            }
        })
    };
    let add = {
        let s = ctx.clone();
        Callback::from(move |_| {
            let mut scenario = s.scenario.clone();
            scenario.faults.push(Fault { kind: FaultKind::Nic, node: 0, leaf: 0, index: 0, rate: 0.5 });
            s.dispatch(Action::SetScenario(Box::new(scenario)));
        })
    };
    html! {
        <div class="faults">
            <p class="hint">{ w(lang, Words::FaultsHelp) }</p>
            { for faults.iter().enumerate().map(|(i, fault)| {
                let remove = {
                    let s = ctx.clone();
                    Callback::from(move |_| {
                        let mut scenario = s.scenario.clone();
                        if i < scenario.faults.len() {
                            scenario.faults.remove(i);
                        }
                        s.dispatch(Action::SetScenario(Box::new(scenario)));
                    })
                };
                let on_node = edit(i, |f, v| v.parse().map(|n| f.node = n).map_err(|_| format!("node: '{v}' is not a whole number")));
                let on_leaf = edit(i, |f, v| v.parse().map(|n| f.leaf = n).map_err(|_| format!("leaf: '{v}' is not a whole number")));
                let on_index = edit(i, |f, v| v.parse().map(|n| f.index = n).map_err(|_| format!("index: '{v}' is not a whole number")));
                html! {
                    <fieldset class="fault" id={format!("fault-{i}")}>
                        <select class="fault-kind" aria-label={w(lang, Words::Faults)} onchange={edit(i, |f, v| {
                            parse_id(v).map(|k| f.kind = k).ok_or_else(|| format!("kind: '{v}' is not a kind"))
                        })}>
                            { for KINDS.iter().map(|&(kind, words)| html! {
                                <option value={id_of(&kind)} selected={kind == fault.kind}>{ w(lang, words) }</option>
                            }) }
                        </select>
                        if matches!(fault.kind, FaultKind::Nic | FaultKind::Nvlink | FaultKind::Gpu) {
                            <label>{ w(lang, Words::Node) }
                                <input class="fault-node" type="number" min="0" step="1" value={fault.node.to_string()} onchange={on_node} />
                            </label>
                        }
                        if fault.kind == FaultKind::LeafUplink {
                            <label>{ w(lang, Words::Leaf) }
                                <input class="fault-leaf" type="number" min="0" step="1" value={fault.leaf.to_string()} onchange={on_leaf} />
                            </label>
                        }
                        <label>{ w(lang, Words::Which) }
                            <input class="fault-index" type="number" min="0" step="1" value={fault.index.to_string()} onchange={on_index} />
                        </label>
                        <label>{ w(lang, Words::RateLeft) }
                            <select class="fault-rate" onchange={edit(i, |f, v| {
                                v.parse().map(|r| f.rate = r).map_err(|_| format!("rate: '{v}' is not a number"))
                            })}>
                                { for RATES.iter().chain((!RATES.contains(&fault.rate)).then_some(&fault.rate)).map(|&r| html! {
                                    <option value={r.to_string()} selected={r == fault.rate}>{
                                        if r == 0.0 { w(lang, Words::Down).to_string() } else { format!("{:.0}%", 100.0 * r) }
                                    }</option>
                                }) }
                            </select>
                        </label>
                        <button class="fault-remove" onclick={remove}>{ w(lang, Words::Remove) }</button>
                    </fieldset>
                }
            }) }
            <button id="add-fault" onclick={add}>{ w(lang, Words::AddFault) }</button>
        </div>
    }
}
