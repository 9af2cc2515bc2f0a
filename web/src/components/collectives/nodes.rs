//! The node count: the usual counts in a list (the scenario's own among them, a link's 300 or
//! 48), and any other typed in after "Other…", which validation checks as it checks every change
//! (a count beyond `MAX_NODES` is named and the last good scenario stays).

use super::controls::{edit, Ctx, PAGE_NODES};
use crate::components::{input_value, select_value};
use crate::i18n::{t, Text};
use crate::state::collectives::Action;
use fabricscope::limits::MAX_NODES;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NodeCountProps {
    pub ctx: Ctx,
    pub gpus_per_node: u32,
}

#[function_component(NodeCount)]
pub fn node_count(props: &NodeCountProps) -> Html {
    let typing = use_state(|| false);
    let (ctx, lang, g) = (&props.ctx, props.ctx.lang, props.gpus_per_node);
    let nodes = ctx.scenario.nodes;
    let mut counts = PAGE_NODES.to_vec();
    if !counts.contains(&nodes) {
        counts.push(nodes);
        counts.sort_unstable();
    }
    let submit = {
        let (ctx, typing) = (ctx.clone(), typing.clone());
        move |text: String| match text.trim().parse::<u32>() {
            Ok(nodes) => {
                typing.set(false);
                edit(&ctx, move |sc| sc.nodes = nodes)(ctx.scenario.clone());
            }
            Err(_) => ctx.dispatch(Action::Reject(format!("nodes: '{}' is not a whole number", text.trim()))),
        }
    };
    let on_pick = {
        let (submit, typing) = (submit.clone(), typing.clone());
        Callback::from(move |e: Event| match select_value(&e).as_str() {
            "other" => typing.set(true),
            count => submit(count.to_string()),
        })
    };
    let on_type = Callback::from(move |e: Event| submit(input_value(&e)));
    html! {
        <>
            <label>{ t(lang, Text::Nodes) }
                <select id="nodes" onchange={on_pick}>
                    { for counts.into_iter().map(|n| html! {
                        <option value={n.to_string()} selected={!*typing && n == nodes}>
                            { format!("{n} ({} GPUs)", n as u64 * g as u64) }
                        </option>
                    }) }
                    <option value="other" selected={*typing}>{ t(lang, Text::OtherNodes) }</option>
                </select>
            </label>
            if *typing {
                <label>{ t(lang, Text::NodeCount) }
                    <input id="nodes-other" type="number" min="1" max={MAX_NODES.to_string()} step="1"
                        value={nodes.to_string()} onchange={on_type} />
                </label>
            }
        </>
    }
}
