//! Paints the training view's two canvases from the core's report: the 1F1B schedule as a
//! Gantt chart (one row per pipeline stage) and the placement of ranks on the cluster, each GPU
//! coloured by what its stage does at the playhead, with the traffic between nodes drawn as
//! arrows coloured by kind. Pure functions of the report, the layout and the time.

use crate::i18n::Lang;
use crate::render::palette::TrainPalette;
use crate::render::surface::Surface;
use fabricscope::train::layout::{Dim, Grid};
use fabricscope::train::pipeline::Phase;
use fabricscope::train::{Activity, TrainReport};

pub fn activity_colour(palette: &TrainPalette, activity: Activity) -> &'static str {
    match activity {
        Activity::Idle => palette.idle,
        Activity::Compute(Phase::Forward) => palette.forward,
        Activity::Compute(Phase::Backward) => palette.backward,
        Activity::Tp => palette.tp,
        Activity::Expert => palette.ep,
        Activity::Context => palette.cp,
        Activity::PipelineSend => palette.pp,
        Activity::DataParallel => palette.dp,
        Activity::Optimizer => palette.optimizer,
    }
}

/// Gantt rows drawn at most: a deeper pipeline shows its first and last stages.
pub const MAX_ROWS: u32 = 32;
const ROW_H: f64 = 16.0;
const LEFT: f64 = 64.0;

/// The stages drawn, in order (all of them, or the first and last `MAX_ROWS / 2`).
pub fn gantt_rows(stages: u32) -> Vec<u32> {
    if stages <= MAX_ROWS {
        (0..stages).collect()
    } else {
        (0..MAX_ROWS / 2).chain(stages - MAX_ROWS / 2..stages).collect()
    }
}

pub fn gantt_height(stages: u32) -> f64 {
    gantt_rows(stages).len() as f64 * ROW_H + 34.0
}

/// The 1F1B Gantt: every block split into its parts, DP and the optimizer after the pipeline,
/// the idle time left as background (the bubble), and the playhead.
pub fn paint_gantt<S: Surface>(
    ctx: &S,
    width: f64,
    report: &TrainReport,
    playhead: f64,
    lang: Lang,
    palette: &TrainPalette,
) {
    let stages = report.blocks.iter().map(|b| b.stage + 1).max().unwrap_or(1);
    let rows = gantt_rows(stages);
    let height = gantt_height(stages);
    ctx.set_fill_style_str(palette.background);
    ctx.fill_rect(0.0, 0.0, width, height);
    let step = report.step_ns().max(1.0);
    let x_of = |t: f64| LEFT + (width - LEFT - 8.0) * t / step;
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    for (row, &stage) in rows.iter().enumerate() {
        let y = 4.0 + row as f64 * ROW_H;
        ctx.set_fill_style_str(palette.idle);
        ctx.fill_rect(LEFT, y, width - LEFT - 8.0, ROW_H - 3.0);
        ctx.set_fill_style_str(palette.muted);
        ctx.set_text_align("right");
        let label = match lang {
            Lang::En => format!("stage {stage}"),
            Lang::Zh => format!("阶段 {stage}"),
        };
        ctx.fill_text(&label, LEFT - 6.0, y + ROW_H / 2.0 - 1.0);
        if rows.len() < stages as usize && row + 1 == rows.len() / 2 {
            ctx.set_fill_style_str(palette.muted);
            ctx.set_text_align("left");
            ctx.fill_text("⋮", 8.0, y + ROW_H);
        }
        // Few enough blocks to draw one by one: each with its parts summed (compute, TP, the
        // experts' AllToAlls, sends), so a part too thin to show per layer still shows.
        let plot = width - LEFT - 8.0;
        let per_row = report.blocks.len() as f64 / stages as f64;
        if per_row <= plot / 2.0 {
            for block in report.blocks.iter().filter(|b| b.stage == stage) {
                let mut from = block.start_ns;
                for (kind, ns) in report.block_parts(block) {
                    if ns > 0.0 {
                        ctx.set_fill_style_str(activity_colour(palette, kind));
                        ctx.fill_rect(x_of(from), y, (x_of(from + ns) - x_of(from)).max(0.5), ROW_H - 3.0);
                    }
                    from += ns;
                }
            }
            let after = [
                (Activity::DataParallel, report.pipeline_ns, report.dp_exposed_ns),
                (Activity::Optimizer, report.pipeline_ns + report.dp_exposed_ns, step),
            ];
            for (kind, from, to) in after {
                let to = if kind == Activity::DataParallel { from + to } else { to };
                if to > from {
                    ctx.set_fill_style_str(activity_colour(palette, kind));
                    ctx.fill_rect(x_of(from), y, x_of(to) - x_of(from), ROW_H - 3.0);
                }
            }
            continue;
        }
        // Otherwise sample the stage's activity along the row, one sample per pixel column:
        // the parts of a block at their true proportions. Runs of one activity are painted as
        // one rectangle.
        let end_x = x_of(step).floor();
        let mut run: Option<(f64, Activity)> = None;
        let mut x = LEFT;
        while x <= end_x {
            let t = (x - LEFT) / (width - LEFT - 8.0) * step;
            let activity = if x < end_x { Some(report.activity(stage, t)) } else { None };
            if run.map(|r| Some(r.1)) != Some(activity) {
                if let Some((from, kind)) = run.filter(|r| r.1 != Activity::Idle) {
                    ctx.set_fill_style_str(activity_colour(palette, kind));
                    ctx.fill_rect(from, y, x - from, ROW_H - 3.0);
                }
                run = activity.map(|a| (x, a));
            }
            x += 1.0;
        }
    }
    // Time axis and the playhead.
    let axis_y = 4.0 + rows.len() as f64 * ROW_H + 12.0;
    ctx.set_fill_style_str(palette.muted);
    ctx.set_text_align("left");
    ctx.fill_text("0", LEFT, axis_y);
    ctx.set_text_align("right");
    ctx.fill_text(&fabricscope::units::format_duration_ns(step), width - 8.0, axis_y);
    let px = x_of(playhead.min(step));
    ctx.set_stroke_style_str(palette.text);
    ctx.set_line_width(1.5);
    ctx.begin_path();
    ctx.move_to(px, 0.0);
    ctx.line_to(px, axis_y - 8.0);
    ctx.stroke();
}

/// Where the placement view draws each node and GPU.
pub struct Placement {
    pub width: f64,
    pub height: f64,
    pub cols: u32,
    pub node_w: f64,
    pub node_h: f64,
    pub gpus_per_node: u32,
    /// Nodes as small tiles without labels, their GPUs stripes (`COMPACT_ABOVE`).
    pub compact: bool,
    gap: f64,
}

const GAP: f64 = 10.0;
const CELL_H: f64 = 22.0;

/// Beyond this many nodes the placement is compact: each node a tile of the widest of
/// `COMPACT_WIDTHS` that fits every node in about `COMPACT_HEIGHT` (2,048 nodes in 1,400 px are
/// tiles of 16 px, 38 rows), its GPUs stripes underlined in their groups' colours, no labels or
/// arrows.
pub const COMPACT_ABOVE: u32 = 64;
const COMPACT_WIDTHS: [f64; 6] = [48.0, 32.0, 24.0, 16.0, 12.0, 8.0];
const COMPACT_HEIGHT: f64 = 720.0;
const COMPACT_GAP: f64 = 2.0;
const COMPACT_H: f64 = 14.0;

impl Placement {
    pub fn new(width: f64, nodes: u32, gpus_per_node: u32) -> Placement {
        if nodes > COMPACT_ABOVE {
            return Placement::compact(width, nodes, gpus_per_node);
        }
        let node_w = (gpus_per_node as f64 * 22.0 + 16.0).max(120.0);
        let cols = (((width - GAP) / (node_w + GAP)).floor() as u32).clamp(1, nodes.max(1));
        let node_w = (width - GAP) / cols as f64 - GAP;
        let rows = nodes.div_ceil(cols);
        let node_h = CELL_H + 30.0;
        Placement {
            width,
            height: GAP + rows as f64 * (node_h + GAP) + 4.0,
            cols,
            node_w,
            node_h,
            gpus_per_node,
            compact: false,
            gap: GAP,
        }
    }

    /// `COMPACT_ABOVE`'s layout.
    fn compact(width: f64, nodes: u32, gpus_per_node: u32) -> Placement {
        let gap = COMPACT_GAP;
        let shape = |w: f64| {
            let cols = (((width - gap) / (w + gap)).floor() as u32).clamp(1, nodes.max(1));
            (cols, nodes.div_ceil(cols))
        };
        let height_of = |rows: u32| gap + rows as f64 * (COMPACT_H + gap);
        let fits = |w: &&f64| height_of(shape(**w).1) <= COMPACT_HEIGHT;
        let node_w = *COMPACT_WIDTHS.iter().find(fits).unwrap_or(&COMPACT_WIDTHS[COMPACT_WIDTHS.len() - 1]);
        let (cols, rows) = shape(node_w);
        Placement {
            width,
            height: height_of(rows) + 4.0,
            cols,
            node_w: (width - gap) / cols as f64 - gap,
            node_h: COMPACT_H,
            gpus_per_node,
            compact: true,
            gap,
        }
    }

    fn node_origin(&self, node: u32) -> (f64, f64) {
        let (r, c) = (node / self.cols, node % self.cols);
        (self.gap + c as f64 * (self.node_w + self.gap), self.gap + r as f64 * (self.node_h + self.gap))
    }

    fn node_centre(&self, node: u32) -> (f64, f64) {
        let (x, y) = self.node_origin(node);
        (x + self.node_w / 2.0, y + self.node_h / 2.0)
    }

    /// GPU `rank`'s cell (compact: a stripe of its node's tile).
    pub fn cell(&self, rank: u32) -> (f64, f64, f64, f64) {
        let node = rank / self.gpus_per_node;
        let local = rank % self.gpus_per_node;
        let (x, y) = self.node_origin(node);
        if self.compact {
            let slot = self.node_w / self.gpus_per_node as f64;
            return (x + local as f64 * slot, y, slot, self.node_h);
        }
        let slot = (self.node_w - 12.0) / self.gpus_per_node as f64;
        (x + 6.0 + local as f64 * slot + 1.0, y + 20.0, slot - 2.0, CELL_H)
    }
}

/// A hue for group `i` of `n`, spread around the wheel.
fn group_colour(i: u32, n: u32) -> String {
    let hue = (i as f64 * 360.0 / n.max(1) as f64 + 200.0) % 360.0;
    format!("hsl({hue:.0}, 70%, 50%)")
}

/// Each rank's group along `dim` (its index among `grid.groups(dim)`), and each group's colour.
fn group_colours(grid: Grid, dim: Dim) -> (Vec<u32>, Vec<String>) {
    let all_groups = grid.groups(dim);
    let mut group_of = vec![0u32; grid.ranks() as usize];
    for (i, members) in all_groups.iter().enumerate() {
        for &r in members {
            group_of[r as usize] = i as u32;
        }
    }
    let n = all_groups.len() as u32;
    (group_of, (0..n).map(|i| group_colour(i, n)).collect())
}

/// What the placement view paints.
pub struct PlacementScene<'a> {
    pub place: &'a Placement,
    pub grid: Grid,
    pub nodes: u32,
    pub report: &'a TrainReport,
    /// Expert-parallel size (1: no experts, or no EP).
    pub ep: u32,
    /// Time in the step [ns].
    pub t: f64,
    /// The dimension whose groups are underlined.
    pub groups: Dim,
    pub lang: Lang,
    pub palette: &'a TrainPalette,
}

/// The cluster's ranks: each GPU filled with its stage's activity at `t`, underlined in its
/// group's colour (groups along `groups`), and arrows between nodes for the traffic that
/// crosses them at `t` (pipeline sends, data-parallel reduction, TP collectives that span nodes).
pub fn paint_placement<S: Surface>(ctx: &S, scene: &PlacementScene) {
    let PlacementScene { place, grid, nodes, report, ep, t, groups, lang, palette } = *scene;
    ctx.set_fill_style_str(palette.background);
    ctx.fill_rect(0.0, 0.0, place.width, place.height);
    if place.compact {
        return paint_compact(ctx, scene);
    }
    ctx.set_font("600 11px system-ui, sans-serif");
    ctx.set_text_baseline("alphabetic");
    ctx.set_text_align("left");
    for node in 0..nodes {
        let (x, y) = place.node_origin(node);
        ctx.set_stroke_style_str(palette.frame);
        ctx.set_line_width(1.0);
        ctx.stroke_rect(x, y, place.node_w, place.node_h);
        ctx.set_fill_style_str(palette.muted);
        let label = match lang {
            Lang::En => format!("node {node}"),
            Lang::Zh => format!("节点 {node}"),
        };
        ctx.fill_text(&label, x + 6.0, y + 13.0);
    }
    let (group_of, colours) = group_colours(grid, groups);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_text_align("center");
    let stage_activity: Vec<Activity> = (0..grid.pp).map(|s| report.activity(s, t)).collect();
    for rank in 0..grid.ranks() {
        let (x, y, w, h) = place.cell(rank);
        let stage = grid.coord(rank, Dim::Pp);
        let activity = stage_activity[stage as usize];
        ctx.set_fill_style_str(activity_colour(palette, activity));
        ctx.fill_rect(x, y, w, h - 5.0);
        ctx.set_fill_style_str(&colours[group_of[rank as usize] as usize]);
        ctx.fill_rect(x, y + h - 4.0, w, 4.0);
        if w >= 18.0 {
            ctx.set_fill_style_str(palette.text);
            ctx.fill_text(&format!("{}", grid.coord(rank, groups)), x + w / 2.0, y + h / 2.0 + 1.0);
        }
    }
    // Traffic between nodes at t, at node level (one arrow per pair of nodes and kind).
    let g = place.gpus_per_node;
    let mut arrows: Vec<(u32, u32, &'static str)> = Vec::new();
    let mut add = |a: u32, b: u32, colour: &'static str| {
        let (na, nb) = (a / g, b / g);
        if na != nb && !arrows.contains(&(na, nb, colour)) {
            arrows.push((na, nb, colour));
        }
    };
    // Each rank's next member in its expert-parallel group: where its AllToAll traffic goes.
    let next_in = |groups: Vec<Vec<u32>>| {
        let mut next: Vec<u32> = (0..grid.ranks()).collect();
        for members in groups {
            for (i, &r) in members.iter().enumerate() {
                next[r as usize] = members[(i + 1) % members.len()];
            }
        }
        next
    };
    let next_expert = next_in(grid.expert_groups(ep).0);
    let next_context = next_in(grid.groups(Dim::Cp));
    for rank in 0..grid.ranks() {
        let stage = grid.coord(rank, Dim::Pp);
        let (tp, dp) = (grid.coord(rank, Dim::Tp), grid.coord(rank, Dim::Dp));
        match stage_activity[stage as usize] {
            Activity::PipelineSend if stage + 1 < grid.pp => {
                add(rank, grid.rank(tp, stage + 1, dp), palette.pp)
            }
            Activity::DataParallel if grid.dp > 1 => {
                add(rank, grid.rank(tp, stage, (dp + 1) % grid.dp), palette.dp)
            }
            Activity::Tp if grid.tp > 1 => add(rank, grid.rank((tp + 1) % grid.tp, stage, dp), palette.tp),
            Activity::Expert => add(rank, next_expert[rank as usize], palette.ep),
            Activity::Context => add(rank, next_context[rank as usize], palette.cp),
            _ => {}
        }
    }
    ctx.set_line_width(2.0);
    for (a, b, colour) in arrows {
        let ((x0, y0), (x1, y1)) = (place.node_centre(a), place.node_centre(b));
        ctx.set_stroke_style_str(colour);
        ctx.set_fill_style_str(colour);
        ctx.begin_path();
        // A slight curve, so a→b and b→a do not overlap.
        let (mx, my) = ((x0 + x1) / 2.0 - (y1 - y0) * 0.15, (y0 + y1) / 2.0 + (x1 - x0) * 0.15);
        ctx.move_to(x0, y0);
        ctx.quadratic_curve_to(mx, my, x1, y1);
        ctx.stroke();
        let angle = (y1 - my).atan2(x1 - mx);
        ctx.begin_path();
        ctx.move_to(x1, y1);
        ctx.line_to(x1 - 8.0 * (angle - 0.4).cos(), y1 - 8.0 * (angle - 0.4).sin());
        ctx.line_to(x1 - 8.0 * (angle + 0.4).cos(), y1 - 8.0 * (angle + 0.4).sin());
        ctx.close_path();
        ctx.fill();
    }
}

/// The compact placement (`COMPACT_ABOVE`): each GPU a stripe of its node's tile, filled with its
/// stage's activity at the playhead and underlined in its group's colour (groups along
/// `groups`), as the full placement does; a node's neighbouring GPUs that look the same drawn as
/// one rect (a node of one stage is one, a node that is one TP group one underline), so 2,048
/// GPUs take at most 2 × 2,048 rects a frame.
fn paint_compact<S: Surface>(ctx: &S, scene: &PlacementScene) {
    let PlacementScene { place, grid, report, t, groups, palette, .. } = *scene;
    let stage_activity: Vec<Activity> = (0..grid.pp).map(|s| report.activity(s, t)).collect();
    let (group_of, colours) = group_colours(grid, groups);
    let line = COMPACT_UNDERLINE;
    let activity = |rank: u32| activity_colour(palette, stage_activity[grid.coord(rank, Dim::Pp) as usize]);
    paint_runs(ctx, place, grid.ranks(), activity, (0.0, place.node_h - line - 1.0));
    let group = |rank: u32| colours[group_of[rank as usize] as usize].as_str();
    paint_runs(ctx, place, grid.ranks(), group, (place.node_h - line, line));
}

/// Height of a compact tile's group underline [px].
const COMPACT_UNDERLINE: f64 = 3.0;

/// Each of `ranks` GPUs' stripe in the band `(top, height)` of its cell, in `colour_of(rank)`,
/// a node's neighbouring GPUs of one colour as one rect.
fn paint_runs<'c, S: Surface>(
    ctx: &S,
    place: &Placement,
    ranks: u32,
    colour_of: impl Fn(u32) -> &'c str,
    (top, height): (f64, f64),
) {
    let g = place.gpus_per_node.max(1);
    let paint = |(first, colour, count): (u32, &str, u32)| {
        let (x, y, w, _) = place.cell(first);
        ctx.set_fill_style_str(colour);
        ctx.fill_rect(x, y + top, w * count as f64, height);
    };
    let mut run: Option<(u32, &str, u32)> = None;
    for rank in 0..ranks {
        let colour = colour_of(rank);
        run = match run {
            Some((first, c, count)) if c == colour && first / g == rank / g => Some((first, c, count + 1)),
            Some(done) => {
                paint(done);
                Some((rank, colour, 1))
            }
            None => Some((rank, colour, 1)),
        };
    }
    if let Some(done) = run {
        paint(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2,048 GPUs are 256 tiles in about a screen's height, every GPU a stripe inside its node's
    /// tile; a node of one pipeline stage is one rect, so the frame paints a rect a node, and
    /// its GPUs' underlines in their groups' colours, a rect per run of one group.
    #[test]
    fn a_large_cluster_is_placed_compact_a_rect_a_node_and_its_groups_underlined() {
        let job = fabricscope::train::TrainScenario {
            cluster: fabricscope::Scenario { nodes: 256, ..fabricscope::Scenario::default_demo() },
            dp: 16,
            global_batch: 1024,
            ..fabricscope::train::TrainScenario::default_demo()
        };
        let valid = job.validate().unwrap();
        let report = valid.run();
        let place = Placement::new(1400.0, 256, 8);
        assert!(place.compact && place.height <= COMPACT_HEIGHT + 4.0, "{} px", place.height);
        for rank in 0..2048 {
            let (x, y, w, h) = place.cell(rank);
            let (nx, ny) = place.node_origin(rank / 8);
            assert!(x >= nx - 1e-9 && x + w <= nx + place.node_w + 1e-9 && y == ny && h == place.node_h);
            assert!(x + w <= place.width && y + h <= place.height);
        }
        // Underlined by group: a DP group is GPU i of every 16th node (8 underlines a node, 128
        // colours); a TP group is a node (one underline a node, 256 colours).
        for (dim, underlines, colours) in [(Dim::Dp, 8 * 256, 128), (Dim::Tp, 256, 256)] {
            let svg = crate::render::surface::Svg::new();
            let scene = PlacementScene {
                place: &place,
                grid: valid.grid(),
                nodes: 256,
                report: &report,
                ep: 1,
                t: report.step_ns / 3.0,
                groups: dim,
                lang: Lang::En,
                palette: TrainPalette::of(false),
            };
            paint_placement(&svg, &scene);
            let drawn = svg.finish(place.width, place.height);
            let rects: Vec<&str> = drawn.lines().filter(|l| l.starts_with("<rect")).collect();
            assert_eq!(
                rects.len(),
                1 + 256 + underlines,
                "{dim:?}: the background, a rect a node, the underlines"
            );
            let fill =
                |l: &str| l.split("fill=\"").nth(1).and_then(|f| f.split('"').next()).map(str::to_owned);
            let hues: std::collections::BTreeSet<String> =
                rects.iter().filter_map(|l| fill(l)).filter(|f| f.starts_with("hsl(")).collect();
            assert_eq!(hues.len(), colours, "{dim:?}: a colour a group");
            // GPU 0 of nodes 0 and 16 are in one DP group, in two TP groups: underlined alike or not.
            let underline = |rank: u32| {
                let (x, y, _, _) = place.cell(rank);
                let at = format!("<rect x=\"{x:.2}\" y=\"{:.2}\"", y + place.node_h - COMPACT_UNDERLINE);
                rects.iter().find(|l| l.starts_with(&at)).and_then(|l| fill(l)).expect("an underline")
            };
            assert_eq!(underline(0) == underline(128), dim == Dim::Dp, "{dim:?}");
        }
        // Up to 64 nodes, every node framed and labelled as before.
        let small = Placement::new(1400.0, 64, 8);
        assert!(!small.compact && small.cell(0).2 >= 18.0);
    }
}
