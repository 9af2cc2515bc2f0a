//! Paints the topology and the chunks in flight: a pure function of the layout and a frame.

use crate::i18n::Lang;
use crate::render::labels::SwitchRows;
use crate::render::layout::{Layout, Rect};
use crate::render::palette::{Palette, LIGHT};
use crate::render::surface::{Surface, Svg};
use crate::state::collectives::Focus;
use fabricscope::collective::{ChunkOp, Schedule};
use fabricscope::topology::{Topology, VertexKind};
use fabricscope::trace::{Frame, Trace};
use fabricscope::units::SimTime;

/// The colour faulted cables are marked in (red, readable on the light and the dark theme).
const FAULT_COLOUR: &str = "#d62728";

/// Link colour for a utilisation in [0, 1]: a colour-blind-safe ramp from blue through purple
/// to orange, so "how busy" reads from hue and from brightness.
/// Most moving chunks labelled with their numbers; beyond, the labels would cover the figure.
const MAX_NUMBERED: usize = 24;

pub fn utilisation_colour(u: f64) -> String {
    const STOPS: [(f64, [f64; 3]); 3] =
        [(0.0, [86.0, 180.0, 233.0]), (0.5, [124.0, 83.0, 196.0]), (1.0, [230.0, 97.0, 1.0])];
    let u = u.clamp(0.0, 1.0);
    let (a, b) = if u <= 0.5 { (STOPS[0], STOPS[1]) } else { (STOPS[1], STOPS[2]) };
    let f = (u - a.0) / (b.0 - a.0);
    let c: Vec<u8> = (0..3).map(|i| (a.1[i] + (b.1[i] - a.1[i]) * f).round() as u8).collect();
    format!("rgb({},{},{})", c[0], c[1], c[2])
}

/// What to paint.
pub struct Scene<'a> {
    pub topology: &'a Topology,
    pub schedule: &'a Schedule,
    pub layout: &'a Layout,
    pub trace: &'a Trace,
    pub frame: &'a Frame,
    /// Utilisation of every link at the frame's time.
    pub utilisation: &'a [f64],
    /// The transfer the step text describes, drawn larger and labelled.
    pub focus: Option<u32>,
    pub node_name: &'a str,
    pub lang: Lang,
    pub palette: &'a Palette,
    /// What a lesson points at: link kinds (the others are dimmed) and GPUs (ringed).
    pub pointed: &'a Focus,
    /// Steps the whole collective is ahead of the prefix this frame comes from (a steady
    /// state's repeats, `Simulation::fold`); 0 otherwise.
    pub steps_ahead: u32,
}

/// A moment of a run to paint: its time, and the step the text describes then (several steps
/// may start at one time; the page says which it stepped to).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct At {
    pub t: fabricscope::units::SimTime,
    pub step: Option<u32>,
}

impl At {
    /// `t`, with the last step started by then.
    pub fn of(sim: &fabricscope::Simulation, t: fabricscope::units::SimTime) -> At {
        At { t, step: sim.step_at(t) }
    }
}

/// Paints `sim` at `at` with `layout`: its frame there, the transfer the step text
/// follows, and what a lesson points at; returns how many GPUs were drawn. The page's canvas,
/// the SVG export and embedded figures all paint through this.
pub fn paint_at<S: Surface>(
    ctx: &S,
    sim: &fabricscope::Simulation,
    layout: &Layout,
    at: At,
    lang: Lang,
    palette: &Palette,
    pointed: &Focus,
) -> u32 {
    let t = at.t;
    let frame = sim.sample(t);
    let utilisation = sim.utilisation(&frame);
    let scene = Scene {
        topology: &sim.topology,
        schedule: &sim.schedule,
        layout,
        trace: &sim.trace,
        frame: &frame,
        utilisation: &utilisation,
        focus: at.step.and_then(|step| sim.focus_transfer(step)),
        node_name: &sim.scenario.preset().name,
        lang,
        palette,
        pointed,
        steps_ahead: sim.fold(t).1,
    };
    paint(ctx, &scene)
}

/// The topology at `playhead` as an SVG document, painted like the canvas (light theme).
pub fn topology_svg(
    sim: &fabricscope::Simulation,
    width: f64,
    expanded: Option<u32>,
    playhead: SimTime,
    lang: Lang,
    pointed: &Focus,
) -> String {
    let layout = Layout::with_expanded(&sim.topology, width, expanded);
    let svg = Svg::new();
    paint_at(&svg, sim, &layout, At::of(sim, playhead), lang, &LIGHT, pointed);
    svg.finish(layout.width, layout.height)
}

/// Paints the scene; returns how many GPUs were drawn.
pub fn paint<S: Surface>(ctx: &S, scene: &Scene) -> u32 {
    let (layout, palette, topology) = (scene.layout, scene.palette, scene.topology);
    ctx.set_fill_style_str(palette.background);
    ctx.fill_rect(0.0, 0.0, layout.width, layout.height);

    // In a compact cluster a tile stands for a whole node: no link that starts or ends in a tile
    // is drawn. The tile's tint shows how busy its busiest NVLink or PCIe link is, and each NIC
    // mark is coloured by the load on its cables; the switches show theirs.
    let mut heat = vec![0.0f64; layout.nodes.len()];
    let mut vertex_heat = vec![0.0f64; layout.vertices.len()];
    if layout.compact {
        for (i, &u) in scene.utilisation.iter().enumerate().filter(|&(_, &u)| u > 1e-9) {
            let link = topology.link(fabricscope::topology::LinkId(i as u32));
            if link.kind == fabricscope::topology::LinkKind::Network {
                for v in [link.src, link.dst] {
                    vertex_heat[v.0 as usize] = vertex_heat[v.0 as usize].max(u);
                }
            } else if let Some(node) = layout.tile_of_link[i] {
                heat[node as usize] = heat[node as usize].max(u);
            }
        }
    }

    // The open node's place in the grid: an outlined, empty tile.
    if let Some(open) = layout.expanded {
        if let Some(rect) = layout.tiles.get(open as usize) {
            rounded(ctx, rect, 4.0);
            ctx.set_stroke_style_str(palette.text);
            ctx.set_line_width(2.0);
            ctx.stroke();
            ctx.set_fill_style_str(palette.text);
            ctx.set_font("9px system-ui, sans-serif");
            ctx.set_text_align("left");
            ctx.set_text_baseline("alphabetic");
            ctx.fill_text(&open.to_string(), rect.x + 3.0, rect.y + rect.h - 8.0);
        }
    }

    tiles(ctx, layout, palette, &heat);
    // Node frames.
    ctx.set_font("600 12px system-ui, sans-serif");
    ctx.set_text_align("left");
    ctx.set_text_baseline("alphabetic");
    for (node, rect) in layout.nodes.iter().enumerate().filter(|&(node, _)| !layout.is_tile(node as u32)) {
        rounded(ctx, rect, 8.0);
        ctx.set_fill_style_str(palette.node_fill);
        ctx.fill();
        ctx.set_stroke_style_str(if layout.expanded == Some(node as u32) {
            palette.text
        } else {
            palette.node_stroke
        });
        ctx.set_line_width(1.0);
        ctx.stroke();
        ctx.set_fill_style_str(palette.muted);
        // A rack says what it is built of.
        let racked = topology.trays.filter(|_| !layout.trays.is_empty()).map(|t| {
            let compute = topology.gpus_per_node() / t.gpus_per_tray.max(1);
            match scene.lang {
                Lang::En => format!(
                    " · {compute} compute trays of {} GPUs, {} NVLink Switch trays: every GPU one hop from every other",
                    t.gpus_per_tray, t.switch_trays
                ),
                Lang::Zh => format!(
                    " · {compute} 个计算托盘（每个 {} 块 GPU），{} 个 NVLink 交换托盘：任意两块 GPU 之间一跳",
                    t.gpus_per_tray, t.switch_trays
                ),
            }
        });
        let racked = racked.unwrap_or_default();
        let label = match (scene.lang, layout.compact) {
            (Lang::En, false) => format!("node {node} · {}{racked}", scene.node_name),
            (Lang::Zh, false) => format!("节点 {node} · {}{racked}", scene.node_name),
            (Lang::En, true) => format!(
                "node {node} · {} · click its outlined tile (or this frame) to close it",
                scene.node_name
            ),
            (Lang::Zh, true) => {
                format!("节点 {node} · {} · 再次点击其方块（或本框）即可收起", scene.node_name)
            }
        };
        ctx.fill_text(&label, rect.x + 8.0, rect.y + 14.0);
    }
    // Each tile's number, in one font (set twice per tile, 256 font changes a frame at 128 nodes).
    let small = layout.small_tiles();
    ctx.set_font(if small { "8px system-ui, sans-serif" } else { "9px system-ui, sans-serif" });
    ctx.set_fill_style_str(palette.muted);
    let (dx, above_bottom) = if small { (2.0, 6.5) } else { (3.0, 8.0) };
    for (node, rect) in layout.nodes.iter().enumerate().filter(|&(node, _)| layout.is_tile(node as u32)) {
        ctx.fill_text(&node.to_string(), rect.x + dx, rect.y + rect.h - above_bottom);
    }
    // A rack's compute trays: each frames its GPUs, host chips and NICs.
    ctx.set_line_width(1.0);
    for (k, tray) in layout.trays.iter().enumerate() {
        rounded(ctx, tray, 4.0);
        ctx.set_stroke_style_str(palette.node_stroke);
        ctx.stroke();
        if tray.w >= 40.0 {
            ctx.set_fill_style_str(palette.muted);
            let label = match scene.lang {
                Lang::En => format!("tray {}", k + 1),
                Lang::Zh => format!("托盘 {}", k + 1),
            };
            ctx.fill_text(&label, tray.x + 3.0, tray.y + tray.h + 10.0);
        }
    }

    // Links: the idle ones first, in one path per style (a compact cluster's thousands of
    // idle cables were a stroke each: 2,300 strokes a frame at 1,024 GPUs, now about 150), then the busy ones, least
    // busy first so the busiest draw on top.
    let drawn: Vec<usize> = (0..layout.links.len()).filter(|&i| layout.is_drawn(i)).collect();
    let dimmed = |i: usize| {
        !scene.pointed.kinds.is_empty()
            && !scene.pointed.kinds.contains(&topology.link(fabricscope::topology::LinkId(i as u32)).kind)
    };
    // A compact cluster has thousands of cables: thin, and the idle ones faint.
    let (busy_width, idle_width, idle_alpha) =
        if layout.compact { (1.0, 0.8, 0.35) } else { (2.0, 1.5, 1.0) };
    ctx.set_line_cap("round");
    ctx.set_stroke_style_str(palette.idle_link);
    ctx.set_line_width(idle_width);
    for dim in [false, true] {
        let mut idle = drawn.iter().filter(|&&i| scene.utilisation[i] <= 1e-9 && dimmed(i) == dim).peekable();
        if idle.peek().is_none() {
            continue;
        }
        ctx.set_global_alpha(if dim { 0.2 } else { idle_alpha });
        ctx.begin_path();
        for &i in idle {
            line_along(ctx, &layout.links[i]);
        }
        ctx.stroke();
    }
    let mut busy: Vec<usize> = drawn.into_iter().filter(|&i| scene.utilisation[i] > 1e-9).collect();
    fabricscope::sort::by(&mut busy, &mut |&a, &b| scene.utilisation[a].total_cmp(&scene.utilisation[b]));
    // Links of one load and dimming in a row are one path and one stroke, of the same colour and
    // width: a link's mean load is often its peers' (Broadcast on 4,096 GPUs, shown by its mean
    // loads, stroked thousands of cables one at a time, 50 ms of its first paint).
    let style = |i: usize| (scene.utilisation[i].to_bits(), dimmed(i));
    let mut from = 0;
    while let Some(&first) = busy.get(from) {
        let run = busy[from..].iter().take_while(|&&i| style(i) == style(first)).count();
        let u = scene.utilisation[first];
        ctx.begin_path();
        for &i in &busy[from..from + run] {
            line_along(ctx, &layout.links[i]);
        }
        ctx.set_global_alpha(if dimmed(first) { 0.2 } else { 1.0 });
        ctx.set_stroke_style_str(&utilisation_colour(u));
        ctx.set_line_width(busy_width + if layout.compact { 2.0 } else { 3.0 } * u);
        ctx.stroke();
        from += run;
    }
    ctx.set_global_alpha(1.0);
    // Faulted cables: a red line over their colour, marked with what is left (× when down).
    ctx.set_stroke_style_str(FAULT_COLOUR);
    ctx.set_fill_style_str(FAULT_COLOUR);
    ctx.set_line_width(if layout.compact { 1.0 } else { 1.5 });
    for &(id, rate) in &topology.faults {
        let i = [id, id.reverse()].into_iter().map(|l| l.index()).find(|&i| layout.is_drawn(i));
        let Some(line) = i.map(|i| &layout.links[i]) else { continue };
        ctx.begin_path();
        line_along(ctx, line);
        ctx.stroke();
        if let (Some(first), Some(last)) = (line.first(), line.last()) {
            let label = if rate == 0.0 { "×".to_string() } else { format!("{:.0}%", 100.0 * rate) };
            ctx.fill_text(&label, (first.0 + last.0) / 2.0 + 4.0, (first.1 + last.1) / 2.0);
        }
    }

    // Vertices.
    let switch_rows = SwitchRows::of(topology);
    let mut gpus = 0;
    let mut last_fill: Option<(VertexKind, u64, String)> = None;
    ctx.set_text_align("center");
    ctx.set_text_baseline("middle");
    for (id, vertex) in topology.vertices() {
        let rect = layout.vertex(id);
        if rect.w <= 0.0 {
            continue; // A tile's PCIe switches and CPUs are not drawn.
        }
        let fill = match vertex.kind {
            VertexKind::Gpu => palette.gpu,
            VertexKind::Nic => palette.nic,
            VertexKind::NvSwitch | VertexKind::Leaf | VertexKind::Spine | VertexKind::Core => palette.switch,
            VertexKind::PcieSwitch => palette.pcie,
            VertexKind::Cpu => palette.cpu,
        };
        if vertex.kind == VertexKind::Gpu {
            gpus += 1;
        }
        let tile = vertex.node.is_some_and(|n| layout.is_tile(n));
        let busy = vertex_heat[id.0 as usize];
        if tile {
            // Marks of one colour go out in runs: the canvas keeps its fill style, and a load's
            // colour is worked out once for a run of equal loads.
            if last_fill
                .as_ref()
                .is_none_or(|(kind, load, _)| *kind != vertex.kind || *load != busy.to_bits())
            {
                let colour = if busy > 1e-9 { utilisation_colour(busy) } else { fill.to_string() };
                if last_fill.as_ref().is_none_or(|(_, _, last)| *last != colour) {
                    ctx.set_fill_style_str(&colour);
                }
                last_fill = Some((vertex.kind, busy.to_bits(), colour));
            }
            ctx.fill_rect(rect.x, rect.y, rect.w, rect.h);
            continue;
        }
        last_fill = None;
        let label = match vertex.kind {
            VertexKind::Gpu => format!("GPU {}", vertex.local),
            VertexKind::Nic => match scene.lang {
                Lang::En => format!("NIC {}", vertex.local),
                Lang::Zh => format!("网卡 {}", vertex.local),
            },
            VertexKind::NvSwitch => "NVSwitch".to_string(),
            VertexKind::PcieSwitch => "PCIe".to_string(),
            VertexKind::Cpu => format!("CPU {}", vertex.local),
            VertexKind::Leaf | VertexKind::Spine | VertexKind::Core => {
                crate::i18n::vertex_name(scene.lang, topology, id)
            }
        };
        // A rack's NVSwitch is its NVLink Switch trays: the bar drawn as its trays.
        let segments: Vec<&Rect> = if vertex.kind == VertexKind::NvSwitch {
            layout.switch_trays.iter().filter(|t| (t.y - rect.y).abs() < 0.5 && t.x >= rect.x - 0.5).collect()
        } else {
            Vec::new()
        };
        ctx.set_fill_style_str(fill);
        // A compact cluster's switches are marks a few pixels wide, hundreds to a row: a plain
        // rectangle each (a rounded one is ten canvas calls: 1,280 switches at 4,096 GPUs).
        let mark = layout.compact && vertex.kind.is_fabric_switch() && rect.w.min(rect.h) < 12.0;
        if mark {
            ctx.fill_rect(rect.x, rect.y, rect.w, rect.h);
        } else if segments.is_empty() {
            rounded(ctx, &rect, 5.0);
            ctx.fill();
        } else {
            for segment in &segments {
                rounded(ctx, segment, 4.0);
                ctx.fill();
            }
        }
        // Each switch tray its own label, where it fits.
        if !segments.is_empty() {
            ctx.set_fill_style_str("#ffffff");
            ctx.set_font("11px system-ui, sans-serif");
            for (k, segment) in segments.iter().enumerate() {
                if segment.w >= 64.0 {
                    let name = match scene.lang {
                        Lang::En => format!("switch tray {}", k + 1),
                        Lang::Zh => format!("交换托盘 {}", k + 1),
                    };
                    ctx.fill_text(&name, segment.center_x(), segment.y + segment.h / 2.0 + 0.5);
                }
            }
            continue;
        }
        if layout.compact && vertex.kind.is_fabric_switch() && busy > 1e-9 {
            ctx.set_stroke_style_str(&utilisation_colour(busy));
            ctx.set_line_width(2.5);
            match mark {
                true => ctx.stroke_rect(rect.x, rect.y, rect.w, rect.h),
                false => ctx.stroke(),
            }
        }
        // A GPU or NIC too narrow for "GPU 3" (a phone, or many GPUs a node) keeps a shorter
        // name while one fits: "3", "N3".
        let short_label = match vertex.kind {
            VertexKind::Gpu => vertex.local.to_string(),
            _ => format!("N{}", vertex.local),
        };
        let short = !layout.labels && rect.w >= 8.0 * short_label.len() as f64 + 2.0;
        let label = match vertex.kind {
            VertexKind::Gpu | VertexKind::Nic if short => short_label,
            _ => label,
        };
        let (label, switch_fits) = match switch_rows.label(ctx, (scene.lang, topology), id, &rect, &label) {
            Some(name) => (name, true),
            None => (label, false),
        };
        let show = match vertex.kind {
            VertexKind::NvSwitch => true,
            VertexKind::PcieSwitch | VertexKind::Cpu => rect.w >= 34.0,
            kind if kind.is_fabric_switch() => switch_fits,
            _ => layout.labels || short,
        };
        if show {
            ctx.set_fill_style_str("#ffffff");
            ctx.set_font(if vertex.kind == VertexKind::Gpu {
                "600 12px system-ui, sans-serif"
            } else {
                "11px system-ui, sans-serif"
            });
            ctx.fill_text(&label, rect.center_x(), rect.y + rect.h / 2.0 + 0.5);
        }
    }

    // The GPUs a lesson points at: a ring around each.
    for (id, vertex) in topology.vertices() {
        let rank = vertex.node.map(|node| node * topology.gpus_per_node() + vertex.local);
        if vertex.kind != VertexKind::Gpu || !rank.is_some_and(|r| scene.pointed.ranks.contains(&r)) {
            continue;
        }
        let rect = layout.vertex(id);
        let ring = Rect { x: rect.x - 4.0, y: rect.y - 4.0, w: rect.w + 8.0, h: rect.h + 8.0 };
        rounded(ctx, &ring, 8.0);
        ctx.set_stroke_style_str(palette.text);
        ctx.set_line_width(2.5);
        ctx.stroke();
    }

    // Chunks in flight: a dot per transfer, orange while reducing, blue while copying; filled
    // while its data moves, a ring while it waits. Channel 0 is the ring the step text follows;
    // the other channels move the same way on their own rings, drawn small and faint (and not
    // while they wait) so the one ring stays readable. Dots of one style are one canvas path,
    // so a frame with thousands of chunks costs a handful of canvas calls per style.
    let mut groups: [Vec<(f64, f64, f64)>; 6] = Default::default();
    // Channel 0's moving chunks, each labelled with its number when few enough to read.
    let mut numbered: Vec<(f64, f64, u32)> = Vec::new();
    let mut focused_dot = None;
    for chunk in &scene.frame.in_flight {
        let transfer = &scene.schedule.transfers[chunk.transfer as usize];
        let followed = transfer.channel == 0;
        if !followed && !chunk.moving {
            continue;
        }
        let path = &scene.trace.flows[chunk.transfer as usize].path;
        // In a compact cluster a chunk is drawn where its whole path is (inside the open node,
        // between switches); one that starts or ends in a tile has no line to ride, and
        // thousands of them would hide the cluster. The followed one is always drawn.
        if layout.compact
            && scene.focus != Some(chunk.transfer)
            && !path.iter().all(|l| layout.is_drawn(l.index()))
        {
            continue;
        }
        let (x, y) = layout.point_on_path(path, chunk.progress);
        // Ahead of the prefix, a ring's step is later: its phase says add or copy, and every
        // position handles the chunk `steps_ahead` further back.
        let (reduce, chunk_index) = match scene.steps_ahead {
            0 => (transfer.op == ChunkOp::Reduce, transfer.chunk),
            ahead => {
                let n = scene.schedule.n_ranks.max(1);
                let phase = scene.schedule.phase(transfer.step + ahead);
                (phase == fabricscope::collective::Phase::ReduceScatter, (transfer.chunk + n - ahead % n) % n)
            }
        };
        if scene.focus == Some(chunk.transfer) {
            focused_dot = Some((x, y, reduce, chunk.moving, chunk_index));
            continue;
        }
        let group = match (followed, chunk.moving, reduce) {
            (false, _, true) => 0,
            (false, _, false) => 1,
            (true, true, true) => 2,
            (true, true, false) => 3,
            (true, false, true) => 4,
            (true, false, false) => 5,
        };
        let radius = match (followed, layout.compact) {
            (true, false) => 5.0,
            (false, false) | (true, true) => 2.5,
            (false, true) => 1.5,
        };
        groups[group].push((x, y, radius));
        if followed && chunk.moving && !layout.compact {
            numbered.push((x, y, chunk_index));
        }
    }
    for (group, dots) in groups.iter().enumerate().filter(|(_, dots)| !dots.is_empty()) {
        let colour = if group % 2 == 0 { palette.reduce } else { palette.copy };
        ctx.set_global_alpha(if group < 2 { 0.35 } else { 1.0 });
        ctx.begin_path();
        for &(x, y, r) in dots {
            ctx.circle(x, y, r);
        }
        if group < 4 {
            ctx.set_fill_style_str(colour);
            ctx.fill();
            ctx.set_stroke_style_str(palette.background);
            ctx.set_line_width(1.5);
        } else {
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(2.0);
        }
        ctx.stroke();
    }
    ctx.set_global_alpha(1.0);
    if numbered.len() <= MAX_NUMBERED {
        ctx.set_font("600 10px system-ui, sans-serif");
        ctx.set_text_align("left");
        for &(x, y, chunk) in &numbered {
            let label = chunk.to_string();
            let w = ctx.text_width(&label) + 4.0;
            ctx.set_fill_style_str(palette.background);
            ctx.fill_rect(x + 5.0, y - 14.0, w, 12.0);
            ctx.set_fill_style_str(palette.text);
            ctx.fill_text(&label, x + 7.0, y - 8.0);
        }
        ctx.set_text_align("center");
    }
    if let Some((x, y, reduce, moving, chunk)) = focused_dot {
        let colour = if reduce { palette.reduce } else { palette.copy };
        let radius = 8.0;
        ctx.begin_path();
        ctx.circle(x, y, radius);
        if moving {
            ctx.set_fill_style_str(colour);
            ctx.fill();
        } else {
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(2.0);
            ctx.stroke();
        }
        ctx.begin_path();
        ctx.circle(x, y, radius + 4.0);
        ctx.set_stroke_style_str(palette.text);
        ctx.set_line_width(2.0);
        ctx.stroke();
        ctx.set_fill_style_str(palette.text);
        ctx.set_font("600 12px system-ui, sans-serif");
        ctx.set_text_align("left");
        let label = match scene.lang {
            Lang::En => format!("chunk {chunk}"),
            Lang::Zh => format!("第 {chunk} 块"),
        };
        ctx.fill_text(&label, x + radius + 7.0, y);
        ctx.set_text_align("center");
    }

    super::legend::legend(ctx, scene);
    gpus
}

/// A compact cluster's tiles, each a node: filled as one path, each load's tint one path over
/// them (the tile's busiest NVLink or PCIe link, `heat`), then stroked as one path (512 tiles at
/// 4,096 GPUs were a dozen canvas calls each, 6,600 in all; now about 1,100).
fn tiles<S: Surface>(ctx: &S, layout: &Layout, palette: &Palette, heat: &[f64]) {
    let tiles: Vec<usize> = (0..layout.nodes.len()).filter(|&node| layout.is_tile(node as u32)).collect();
    if tiles.is_empty() {
        return;
    }
    let outline = |nodes: &[usize]| {
        ctx.begin_path();
        for &node in nodes {
            rounded_along(ctx, &layout.nodes[node], 4.0);
        }
    };
    outline(&tiles);
    ctx.set_fill_style_str(palette.node_fill);
    ctx.fill();
    let mut hot: Vec<usize> = tiles.iter().copied().filter(|&node| heat[node] > 1e-9).collect();
    fabricscope::sort::by(&mut hot, &mut |&a, &b| heat[a].total_cmp(&heat[b]));
    for run in hot.chunk_by(|&a, &b| heat[a].to_bits() == heat[b].to_bits()) {
        let u = heat[run[0]];
        outline(run);
        ctx.set_global_alpha(0.25 + 0.5 * u);
        ctx.set_fill_style_str(&utilisation_colour(u));
        ctx.fill();
    }
    ctx.set_global_alpha(1.0);
    outline(&tiles);
    ctx.set_stroke_style_str(palette.node_stroke);
    ctx.set_line_width(1.0);
    ctx.stroke();
}

/// `line`'s points added to the current path, as a piece of its own.
fn line_along<S: Surface>(ctx: &S, line: &[(f64, f64)]) {
    for (k, &(x, y)) in line.iter().enumerate() {
        if k == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
}

/// A new path of `rect` with corners of `radius` (at most half its width and height).
fn rounded<S: Surface>(ctx: &S, rect: &Rect, radius: f64) {
    ctx.begin_path();
    rounded_along(ctx, rect, radius);
}

/// `rect` with corners of `radius` added to the current path, as a piece of its own.
fn rounded_along<S: Surface>(ctx: &S, rect: &Rect, radius: f64) {
    let r = radius.min(rect.w / 2.0).min(rect.h / 2.0).max(0.0);
    ctx.rounded_rect(rect.x, rect.y, rect.w, rect.h, r);
}
