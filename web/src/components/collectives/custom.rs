//! The controls of a custom node: its shape, GPU count and link.

use super::controls::{id_of, parse_id, Ctx};
use crate::i18n::{self, t, Text};
use crate::state::collectives::Action;
use fabricscope::scenario::{CustomLink, CustomNode, CustomShape};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The custom node a switch to "custom" starts from.
pub fn default_custom() -> CustomNode {
    CustomNode {
        shape: CustomShape::Ring,
        gpus: 8,
        link: CustomLink { bandwidth_gbyte_per_s: 100.0, latency_ns: 250, efficiency: 1.0 },
    }
}

#[derive(Properties, PartialEq)]
pub struct CustomProps {
    /// The controls' context (its scenario is the one last asked for: `AppState::requested`).
    pub ctx: Ctx,
    pub custom: CustomNode,
}

/// Shape, GPU count and link of a custom node.
#[function_component(CustomControls)]
pub fn custom_controls(props: &CustomProps) -> Html {
    let (state, custom) = (&props.ctx, &props.custom);
    let lang = state.lang;
    let change = |apply: fn(&mut CustomNode, &str) -> Result<(), String>| {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<HtmlInputElement>().value();
            let mut scenario = s.scenario.clone();
            let Some(custom) = scenario.custom.as_mut() else { return };
            match apply(custom, value.trim()) {
                Ok(()) => s.dispatch(Action::SetScenario(Box::new(scenario))),
                Err(message) => s.dispatch(Action::Reject(message)),
            }
        })
    };
    let on_shape = change(|c, v| {
        parse_id(v).map(|shape| c.shape = shape).ok_or_else(|| format!("custom.shape: '{v}' is not a shape"))
    });
    let on_gpus = change(|c, v| {
        v.parse().map(|n| c.gpus = n).map_err(|_| format!("custom.gpus: '{v}' is not a whole number"))
    });
    let on_bandwidth = change(|c, v| {
        v.parse()
            .map(|b| c.link.bandwidth_gbyte_per_s = b)
            .map_err(|_| format!("custom.link.bandwidth_gbyte_per_s: '{v}' is not a number"))
    });
    let on_latency = change(|c, v| {
        v.parse()
            .map(|l| c.link.latency_ns = l)
            .map_err(|_| format!("custom.link.latency_ns: '{v}' is not a whole number"))
    });
    html! {
        <div class="custom">
            <label>{ t(lang, Text::Shape) }
                <select id="custom-shape" onchange={on_shape}>
                    { for ["ring", "star", "full_mesh"].iter().map(|&c| html! {
                        <option value={c} selected={id_of(&custom.shape) == c}>{ i18n::choice(lang, c) }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::GpusPerNode) }
                <input id="custom-gpus" type="number" min="1" max="64" step="1" value={custom.gpus.to_string()} onchange={on_gpus} />
            </label>
            <label>{ t(lang, Text::LinkBandwidth) }
                <input id="custom-bw" type="number" min="1" step="any" value={custom.link.bandwidth_gbyte_per_s.to_string()} onchange={on_bandwidth} />
            </label>
            <label>{ t(lang, Text::LinkLatency) }
                <input id="custom-latency" type="number" min="0" step="1" value={custom.link.latency_ns.to_string()} onchange={on_latency} />
            </label>
        </div>
    }
}
