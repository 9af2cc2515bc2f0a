//! The tuner's predictions over message size × algorithm/protocol, as a table of ratios.

use super::Props;
use crate::i18n::{t, Text};
use fabricscope::units::{format_bytes, format_duration_ns};
use yew::prelude::*;

/// Sizes the heat map shows: 1 KiB to 1 GiB, ×16.
const HEAT_SIZES: [u64; 6] = [1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20, 1 << 30];

/// The tuner's predictions over message size × algorithm/protocol: each cell's time as a
/// multiple of the column's best, shaded, the tuner's pick marked.
#[function_component(HeatMap)]
pub fn heat_map(props: &Props) -> Html {
    let state = &props.state;
    let (lang, sim) = (state.lang, &state.sim);
    let tunings: Vec<_> = HEAT_SIZES.iter().map(|&size| sim.tuning_at(size)).collect();
    let rows = tunings.first().map(|t| t.rows.len()).unwrap_or(0);
    html! {
        <div class="table-scroll">
        <table id="heatmap" class="heatmap">
            <caption>{ t(lang, Text::HeatCaption) }</caption>
            <thead><tr>
                <th>{ "NCCL_ALGO / PROTO" }</th>
                { for HEAT_SIZES.iter().map(|&size| html! { <th>{ format_bytes(size) }</th> }) }
            </tr></thead>
            <tbody>
                { for (0..rows).map(|r| {
                    let row = tunings[0].rows[r];
                    html! {
                        <tr>
                            <td>{ format!("{} / {}", row.algorithm.nccl_name(), row.protocol.nccl_name()) }</td>
                            { for tunings.iter().map(|tuning| {
                                let best = tuning.choice().predicted_ns;
                                let ratio = tuning.rows[r].predicted_ns / best;
                                // Shades: the pick darkest, 2× the best or worse lightest.
                                let shade = ((ratio - 1.0).clamp(0.0, 1.0) * 4.0).round() as u32;
                                let chosen = tuning.chosen == r;
                                html! {
                                    <td class={classes!(format!("heat{shade}"), chosen.then_some("chosen"))}
                                        title={format_duration_ns(tuning.rows[r].predicted_ns)}>
                                        { if chosen { "✓".to_string() } else { format!("{ratio:.2}×") } }
                                    </td>
                                }
                            }) }
                        </tr>
                    }
                }) }
            </tbody>
        </table>
        </div>
    }
}
