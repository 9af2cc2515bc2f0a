//! The topology figure's key: a compact cluster's note on what a tile is, the load ramp and
//! the chunks' colours.

use super::surface::Surface;
use super::topology::{utilisation_colour, Scene};
use crate::i18n::{t, Lang, Text};

/// Paints the key along the figure's foot (`Layout::height` leaves room for it).
pub(super) fn legend<S: Surface>(ctx: &S, scene: &Scene) {
    let palette = scene.palette;
    if scene.layout.compact {
        ctx.set_font("12px system-ui, sans-serif");
        ctx.set_text_align("left");
        ctx.set_text_baseline("middle");
        ctx.set_fill_style_str(palette.muted);
        let note = match scene.lang {
            Lang::En => "Each tile is a node: its GPUs in green, its NICs as the small marks below, coloured by the load on their cables; the tile's tint is its busiest link inside (NVLink or PCIe). Click a tile to open it.",
            Lang::Zh => "每个方块是一个节点：绿色为其 GPU，下方小块为其网卡，颜色表示网卡线缆的负载；方块底色表示其内部最忙的链路（NVLink 或 PCIe）。点击方块展开该节点。",
        };
        // Wrapped to the canvas, its last line where the layout left room for it
        // (`layout::note_lines`: two on a laptop, more on a phone).
        let fits = |text: &str| ctx.text_width(text) <= scene.layout.width - 32.0;
        let separator = if scene.lang == Lang::Zh { "" } else { " " };
        let words: Vec<String> = if scene.lang == Lang::Zh {
            note.chars().map(String::from).collect()
        } else {
            note.split(' ').map(String::from).collect()
        };
        let mut lines = vec![String::new()];
        for word in words {
            let line = lines.last_mut().expect("one line at least");
            let candidate = if line.is_empty() { word.clone() } else { format!("{line}{separator}{word}") };
            if line.is_empty() || fits(&candidate) {
                *line = candidate;
            } else {
                lines.push(word);
            }
        }
        for (k, line) in lines.iter().rev().enumerate() {
            ctx.fill_text(line, 16.0, scene.layout.height - 60.0 - 16.0 * k as f64);
        }
    }
    let y = scene.layout.height - 22.0;
    let x = 16.0;
    ctx.set_font("12px system-ui, sans-serif");
    ctx.set_text_align("left");
    ctx.set_text_baseline("middle");
    ctx.set_fill_style_str(palette.muted);
    let label = t(scene.lang, Text::Legend);
    ctx.fill_text(label, x, y);
    let bar_x = x + 8.0 + ctx.text_width(label);
    for i in 0..=40 {
        let u = i as f64 / 40.0;
        ctx.set_fill_style_str(&utilisation_colour(u));
        ctx.fill_rect(bar_x + i as f64 * 3.0, y - 5.0, 3.0, 10.0);
    }
    ctx.set_fill_style_str(palette.muted);
    ctx.fill_text("0%", bar_x - 2.0 + 0.0, y + 15.0);
    ctx.fill_text("100%", bar_x + 108.0, y + 15.0);
    let mut x = bar_x + 150.0;
    let mut y = y;
    for (colour, text) in [(palette.reduce, Text::LegendReduce), (palette.copy, Text::LegendCopy)] {
        let label = t(scene.lang, text);
        let width = 10.0 + ctx.text_width(label);
        // A narrow view (A/B side by side) wraps the chunk keys onto the line above.
        if x + width > scene.layout.width - 8.0 && y == scene.layout.height - 22.0 {
            (x, y) = (bar_x + 150.0, y - 20.0);
            if x + width > scene.layout.width - 8.0 {
                x = 16.0 + 5.0;
            }
        }
        ctx.begin_path();
        ctx.circle(x, y, 5.0);
        ctx.set_fill_style_str(colour);
        ctx.fill();
        ctx.set_fill_style_str(palette.muted);
        ctx.fill_text(label, x + 10.0, y);
        x += 14.0 + width;
    }
}
