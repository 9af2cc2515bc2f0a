//! Where everything of a topology is drawn: a pure function of the topology and the width.
//!
//! ```text
//!   ┌ node 0 · DGX H100 ─────────────────────────┐ ┌ node 1 ── ...
//!   │ ═════════════ NVSwitch ═══════════════════ │ │   (DGX-1: NVLink brackets over the GPUs)
//!   │ [GPU0][GPU1]  [GPU2][GPU3]  ...            │ │
//!   │  [PCIe sw 0]   [PCIe sw 1]  ...            │ │
//!   │        [CPU 0] ══════ UPI ══════ [CPU 1]   │ │
//!   │ [NIC0][NIC1]  [NIC2][NIC3]  ...            │ │
//!   └──↑↓────↑↓──────────────────────────────────┘ └── ...
//!   ═══════════ one switch ═══════════   or   [leaf 0] [leaf 1] ... (a row per tier)
//!                                              [spine 0] [spine 1] ...
//! ```
//!
//! Every link is a polyline; its two directions run in parallel lanes, so each direction shows
//! its own utilisation. Canvas, not SVG: later views draw thousands of GPUs, and a canvas
//! repaint costs the same whatever the element count.

use super::rack;
use fabricscope::topology::{LinkId, LinkKind, Topology, VertexId, VertexKind};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn center_x(&self) -> f64 {
        self.x + self.w / 2.0
    }
}

pub type Point = (f64, f64);

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    /// Indexed by vertex id.
    pub vertices: Vec<Rect>,
    /// Indexed by link id: the polyline from the link's source to its destination.
    pub links: Vec<Vec<Point>>,
    /// One frame per node.
    pub nodes: Vec<Rect>,
    /// Whether boxes are wide enough for their labels.
    pub labels: bool,
    /// More than `DETAILED_NODES` nodes: tiles, and at most one node in full.
    pub compact: bool,
    pub expanded: Option<u32>,
    /// Indexed by link id: the tile a link starts or ends in, if any (such a link is not drawn,
    /// `is_drawn`).
    pub tile_of_link: Vec<Option<u32>>,
    /// Compact: every node's tile, the open node's included (it stays in the grid, outlined,
    /// so a second click on it closes it). Empty otherwise.
    pub tiles: Vec<Rect>,
    /// A rack drawn in full: each compute tray's frame (its GPUs, host chips and NICs), and
    /// the NVLink Switch trays the NVSwitch bar is made of (`catalog::Trays`). Empty otherwise.
    pub trays: Vec<Rect>,
    pub switch_trays: Vec<Rect>,
}

const MARGIN: f64 = 16.0;
const NODE_GAP: f64 = 18.0;
const NODE_TOP: f64 = 26.0;
pub(super) const NVSWITCH_Y: f64 = 44.0;
pub(super) const BAR_H: f64 = 22.0;
pub(super) const GPU_Y: f64 = 112.0;
pub(super) const GPU_H: f64 = 30.0;
pub(super) const PCIE_Y: f64 = 168.0;
pub(super) const CPU_Y: f64 = 208.0;
pub(super) const SMALL_H: f64 = 18.0;
pub(super) const NIC_Y: f64 = 248.0;
pub(super) const NIC_H: f64 = 20.0;
const NODE_BOTTOM: f64 = 280.0;
const SWITCH_Y: f64 = 326.0;
/// Vertical distance between switch tiers.
const TIER_GAP: f64 = 84.0;
/// The mark of a vertex inside a node's tile: GPUs a row of blocks, the NVSwitch a line above
/// them, NICs a row of small blocks at the bottom; PCIe switches and CPUs a point at the centre.
/// A small tile (`SMALL_TILE`) is tighter throughout.
fn tile_mark(tile: Rect, kind: VertexKind, local: f64, per_node: f64, nics: f64) -> Rect {
    let small = tile.h < TILE_H;
    let (pad, gpu_y, gpu_h, nic_h) = if small { (2.0, 6.0, 7.0, 3.0) } else { (3.0, 9.0, 9.0, 4.0) };
    let inner = tile.w - 2.0 * pad;
    match kind {
        VertexKind::Gpu => {
            let w = inner / per_node;
            Rect { x: tile.x + pad + w * local, y: tile.y + gpu_y, w: (w - 1.0).max(1.0), h: gpu_h }
        }
        VertexKind::NvSwitch => Rect { x: tile.x + pad, y: tile.y + gpu_y - 5.0, w: inner, h: 2.0 },
        VertexKind::Nic => {
            let w = inner / nics.max(1.0);
            let y = tile.y + tile.h - nic_h - 2.0;
            Rect { x: tile.x + pad + w * local, y, w: (w - 1.0).max(1.0), h: nic_h }
        }
        _ => Rect { x: tile.center_x(), y: tile.y + tile.h / 2.0, w: 0.0, h: 0.0 },
    }
}

/// Offset of each direction's line from the link's centre line.
const LANE: f64 = 3.0;
/// Room under the last tier for the legend.
const LEGEND_H: f64 = 60.0;

/// Clusters of more nodes than this are drawn compact: every node a small tile (its GPUs and
/// NICs as marks), the switches below, and one node expanded on request.
pub const DETAILED_NODES: u32 = 8;

const TILE_H: f64 = 34.0;
const TILE_GAP: f64 = 6.0;
/// Where tiles of the usual size would stack taller than the figure is wide (128 nodes on a
/// phone: 13 rows, the switches pushed below the screen), they are drawn small: narrower and
/// shorter, their number in a smaller font, so the fabric stays in view.
const SMALL_TILE: (f64, f64, f64) = (18.0, 26.0, 4.0);

/// Lines of 16 px the compact view's note under the figure takes at `width` (the longer of its
/// two languages is about 1,200 px of 12 px text): 2 on a laptop, 4 on a phone.
fn note_lines(width: f64) -> u32 {
    ((1200.0 / (width - 32.0).max(100.0)).ceil() as u32).clamp(2, 12)
}

/// Where a node is drawn: in full (left edge, width, and how far below the first row its
/// rows are), or as a tile.
#[derive(Clone, Copy)]
enum Place {
    Full { x: f64, w: f64, dy: f64 },
    Tile(Rect),
}

impl Layout {
    #[cfg(test)]
    pub fn new(topology: &Topology, width: f64) -> Layout {
        Layout::with_expanded(topology, width, None)
    }

    /// The layout with node `expanded` drawn in full when the cluster is compact.
    pub fn with_expanded(topology: &Topology, width: f64, expanded: Option<u32>) -> Layout {
        let n_nodes = topology.n_nodes().max(1);
        let nodes = n_nodes as f64;
        let per_node = topology.gpus_per_node().max(1) as f64;
        let compact = n_nodes > DETAILED_NODES;
        let expanded = expanded.filter(|&e| compact && e < n_nodes);
        // Compact: tiles in rows, then the expanded node across the page, then the switches.
        let grid = |(min_w, tile_h, gap): (f64, f64, f64)| {
            let tile_w = ((width - 2.0 * MARGIN) / nodes - gap).clamp(min_w, 64.0);
            let columns = (((width - 2.0 * MARGIN + gap) / (tile_w + gap)).floor() as u32).max(1);
            (tile_w, tile_h, gap, columns, n_nodes.div_ceil(columns))
        };
        let usual = grid((26.0, TILE_H, TILE_GAP));
        let too_tall = usual.4 as f64 * (TILE_H + TILE_GAP) > width - 2.0 * MARGIN;
        let (tile_w, tile_h, tile_gap, columns, rows) = if too_tall {
            // Small tiles, widened to fill their rows.
            let (_, h, gap, columns, rows) = grid(SMALL_TILE);
            ((width - 2.0 * MARGIN + gap) / columns as f64 - gap, h, gap, columns, rows)
        } else {
            usual
        };
        let tiles_bottom = NODE_TOP + rows as f64 * (tile_h + tile_gap);
        let expanded_dy = tiles_bottom + 10.0 - NODE_TOP;
        let band_bottom = match (compact, expanded) {
            (false, _) => NODE_BOTTOM,
            (true, Some(_)) => NODE_BOTTOM + expanded_dy,
            (true, None) => tiles_bottom,
        };
        let switch_y = band_bottom + (SWITCH_Y - NODE_BOTTOM);
        let full_w = ((width - 2.0 * MARGIN - (nodes - 1.0) * NODE_GAP) / nodes).max(8.0);
        let tile = |node: u32| -> Rect {
            let (row, column) = (node / columns, node % columns);
            Rect {
                x: MARGIN + column as f64 * (tile_w + tile_gap),
                y: NODE_TOP + row as f64 * (tile_h + tile_gap),
                w: tile_w,
                h: tile_h,
            }
        };
        let place = |node: u32| -> Place {
            if !compact {
                return Place::Full { x: MARGIN + node as f64 * (full_w + NODE_GAP), w: full_w, dy: 0.0 };
            }
            if expanded == Some(node) {
                return Place::Full { x: MARGIN, w: width - 2.0 * MARGIN, dy: expanded_dy };
            }
            Place::Tile(tile(node))
        };
        let count = |kind| topology.vertices().filter(|(_, v)| v.kind == kind).count() as f64;
        let tiers = [
            (VertexKind::Leaf, count(VertexKind::Leaf)),
            (VertexKind::Spine, count(VertexKind::Spine)),
            (VertexKind::Core, count(VertexKind::Core)),
        ];
        let n_tiers = tiers.iter().filter(|t| t.1 > 0.0).count().max(1) as f64;
        let per = |kind| (count(kind) / nodes).max(1.0);
        let (switches, cpus, nics) =
            (per(VertexKind::PcieSwitch), per(VertexKind::Cpu), per(VertexKind::Nic));
        // A tier of one switch is a bar across the page; otherwise a row of boxes.
        let tier_rect = |kind: VertexKind, index: u32| -> Rect {
            let level = tiers.iter().position(|t| t.0 == kind).unwrap_or(0) as f64;
            let n = tiers.iter().find(|t| t.0 == kind).map(|t| t.1).unwrap_or(1.0);
            let y = switch_y + level * TIER_GAP;
            if n <= 1.0 {
                return Rect { x: MARGIN, y, w: width - 2.0 * MARGIN, h: BAR_H };
            }
            let slot = (width - 2.0 * MARGIN) / n;
            let w = (slot * 0.8).min(72.0);
            Rect { x: MARGIN + slot * (index as f64 + 0.5) - w / 2.0, y, w, h: BAR_H }
        };
        // PCIe switch s spans its share of GPU slots; CPUs sit under their switches; NICs spread
        // evenly under their switch.
        let switch_span = per_node / switches;
        let trays =
            topology.trays.filter(|t| t.gpus_per_tray > 0 && topology.gpus_per_node() % t.gpus_per_tray == 0);
        let counts = rack::Counts { gpus: per_node, switches, cpus, nics };
        let mut vertices = vec![Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 }; topology.vertices().count()];
        for (id, vertex) in topology.vertices() {
            let local = vertex.local as f64;
            let rect = match (vertex.node.map(place), trays) {
                _ if vertex.kind.is_fabric_switch() => tier_rect(vertex.kind, vertex.local),
                (Some(Place::Tile(tile)), _) => tile_mark(tile, vertex.kind, local, per_node, nics),
                (Some(Place::Full { x, w, dy }), Some(t)) => {
                    rack::Rack::new(t, counts, x, w).vertex(vertex.kind, local, dy)
                }
                (Some(Place::Full { x: node_x, w: node_w, dy }), None) => {
                    let slot = node_w / per_node;
                    let box_w = (slot * 0.78).min(64.0);
                    let slot_x = |i: f64| node_x + slot * (i + 0.5);
                    match vertex.kind {
                        VertexKind::NvSwitch => {
                            Rect { x: node_x + 8.0, y: NVSWITCH_Y + dy, w: node_w - 16.0, h: BAR_H }
                        }
                        VertexKind::Gpu => {
                            Rect { x: slot_x(local) - box_w / 2.0, y: GPU_Y + dy, w: box_w, h: GPU_H }
                        }
                        VertexKind::PcieSwitch => {
                            let w = (switch_span * slot - 10.0).max(6.0);
                            let cx = node_x + slot * switch_span * (local + 0.5);
                            Rect { x: cx - w / 2.0, y: PCIE_Y + dy, w, h: SMALL_H }
                        }
                        VertexKind::Cpu => {
                            let w = (node_w / cpus * 0.3).min(70.0);
                            let cx = node_x + node_w / cpus * (local + 0.5);
                            Rect { x: cx - w / 2.0, y: CPU_Y + dy, w, h: SMALL_H }
                        }
                        VertexKind::Nic => {
                            let per_switch = (nics / switches).max(1.0);
                            let s = (local / per_switch).floor();
                            let span = switch_span * slot;
                            let cx = node_x + span * s + span / per_switch * (local - s * per_switch + 0.5);
                            let w = (box_w * 0.8).min(span / per_switch * 0.8);
                            Rect { x: cx - w / 2.0, y: NIC_Y + dy, w, h: NIC_H }
                        }
                        _ => Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 },
                    }
                }
                (None, _) => Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 },
            };
            vertices[id.0 as usize] = rect;
        }
        let full_dy = |node: u32| match place(node) {
            Place::Full { dy, .. } => Some(dy),
            Place::Tile(_) => None,
        };
        let brackets = mesh_brackets(topology, &vertices, full_dy);
        let mut links = vec![Vec::new(); topology.n_links()];
        for (id, link) in topology.links() {
            let (src, dst) = (vertices[link.src.0 as usize], vertices[link.dst.0 as usize]);
            let centre = if let Some(&(xa, xb, top)) = brackets.get(&(id.0 & !1)) {
                // An NVLink mesh: a bracket over the GPU row.
                let (x0, x1) = if id.0 % 2 == 0 { (xa, xb) } else { (xb, xa) };
                vec![(x0, src.y), (x0, top), (x1, top), (x1, dst.y)]
            } else if (src.y - dst.y).abs() < 1.0 {
                // Side by side (the CPUs): edge to edge.
                let (a, b) = if src.x < dst.x { (src.x + src.w, dst.x) } else { (src.x, dst.x + dst.w) };
                vec![(a, src.y + src.h / 2.0), (b, dst.y + dst.h / 2.0)]
            } else {
                let going_up = src.y > dst.y;
                let (y0, y1) = if going_up { (src.y, dst.y + dst.h) } else { (src.y + src.h, dst.y) };
                // Into a bar (the NVSwitch, a lone switch) the link drops straight from the box;
                // between two boxes it runs centre to centre. (Compact: a bar is what spans the
                // other end's centre; a tile's marks are too small to tell otherwise.)
                let within = |bar: &Rect, x: f64| !compact || (bar.x <= x && x <= bar.x + bar.w);
                let (x0, x1) = if dst.w > 3.0 * src.w && within(&dst, src.center_x()) {
                    (src.center_x(), src.center_x())
                } else if src.w > 3.0 * dst.w && within(&src, dst.center_x()) {
                    (dst.center_x(), dst.center_x())
                } else {
                    (src.center_x(), dst.center_x())
                };
                vec![(x0, y0), (x1, y1)]
            };
            // Compact tiles are too small for two lanes.
            let lane = if compact
                && (topology.vertex(link.src).node.is_some_and(|n| full_dy(n).is_none())
                    && topology.vertex(link.dst).node.is_some_and(|n| full_dy(n).is_none()))
            {
                0.0
            } else {
                LANE
            };
            links[id.index()] = if lane > 0.0 { offset(&centre, lane) } else { centre };
        }
        let node_frames = (0..topology.n_nodes())
            .map(|node| match place(node) {
                Place::Full { x, w, dy } => Rect { x, y: NODE_TOP + dy, w, h: NODE_BOTTOM - NODE_TOP },
                Place::Tile(tile) => tile,
            })
            .collect();
        // Compact: a line more under the legend says what a tile is.
        let note = if compact { 36.0 + 16.0 * (note_lines(width) - 2) as f64 } else { 0.0 };
        let height = switch_y + (n_tiers - 1.0) * TIER_GAP + BAR_H + LEGEND_H + note;
        let labels = match (compact, expanded) {
            (false, _) => (full_w / per_node * 0.78).min(64.0) >= 40.0,
            (true, Some(_)) => ((width - 2.0 * MARGIN) / per_node * 0.78).min(64.0) >= 40.0,
            (true, None) => false,
        };
        let tiles = if compact { (0..n_nodes).map(tile).collect() } else { Vec::new() };
        // Trays of every rack drawn in full: compute trays around their GPUs and host chips,
        // the NVSwitch bar cut into its switch trays.
        let (mut tray_frames, mut switch_trays) = (Vec::new(), Vec::new());
        for node in 0..n_nodes {
            let (Place::Full { x, w, dy }, Some(t)) = (place(node), trays) else { continue };
            let rack = rack::Rack::new(t, counts, x, w);
            tray_frames.extend(rack.frames(dy));
            switch_trays.extend(rack.switch_trays(dy));
        }
        let tile_of_link = topology
            .links()
            .map(|(_, link)| {
                [link.src, link.dst]
                    .into_iter()
                    .filter_map(|v| topology.vertex(v).node)
                    .find(|&n| full_dy(n).is_none())
            })
            .collect();
        Layout {
            width,
            height,
            vertices,
            links,
            nodes: node_frames,
            labels,
            compact,
            expanded,
            tiles,
            tile_of_link,
            trays: tray_frames,
            switch_trays,
        }
    }

    /// Whether the tiles are drawn small (`SMALL_TILE`), their number in a smaller font.
    pub fn small_tiles(&self) -> bool {
        self.tiles.first().is_some_and(|tile| tile.h < TILE_H)
    }

    /// Whether link `link` is drawn: not one that starts or ends in a tile.
    pub fn is_drawn(&self, link: usize) -> bool {
        self.tile_of_link[link].is_none()
    }

    /// Whether `node` is drawn as a tile.
    pub fn is_tile(&self, node: u32) -> bool {
        self.compact && self.expanded != Some(node)
    }

    /// The node whose tile (compact) or frame is under the pointer.
    pub fn node_at(&self, x: f64, y: f64) -> Option<u32> {
        let inside = |r: &Rect| r.x <= x && x <= r.x + r.w && r.y <= y && y <= r.y + r.h;
        self.tiles.iter().position(inside).or_else(|| self.nodes.iter().position(inside)).map(|n| n as u32)
    }

    pub fn vertex(&self, id: VertexId) -> Rect {
        self.vertices[id.0 as usize]
    }

    /// The polyline a chunk follows along `path`: each link's, one after the other.
    /// A path's links' polylines, one after the other (the reference `point_on_path` is tested against).
    #[cfg(test)]
    pub fn polyline(&self, path: &[LinkId]) -> Vec<Point> {
        path.iter().flat_map(|link| self.links[link.index()].iter().copied()).collect()
    }

    /// The point at `fraction` (0..=1) of a path's polyline, without building the polyline:
    /// what `point_along(&polyline(path), fraction)` gives, for every chunk of every frame.
    pub fn point_on_path(&self, path: &[LinkId], fraction: f64) -> Point {
        let points = || path.iter().flat_map(|link| self.links[link.index()].iter().copied());
        let mut previous: Option<Point> = None;
        let mut total = 0.0;
        for p in points() {
            if let Some(q) = previous {
                total += distance(q, p);
            }
            previous = Some(p);
        }
        let Some(first) = points().next() else { return (0.0, 0.0) };
        if total <= 0.0 {
            return first;
        }
        let mut left = fraction.clamp(0.0, 1.0) * total;
        let mut previous = first;
        for p in points().skip(1) {
            let length = distance(previous, p);
            if left <= length {
                let f = if length > 0.0 { left / length } else { 0.0 };
                return (previous.0 + (p.0 - previous.0) * f, previous.1 + (p.1 - previous.1) * f);
            }
            left -= length;
            previous = p;
        }
        previous
    }

    /// The point at `fraction` (0..=1) of the polyline's length.
    #[cfg(test)]
    pub fn point_along(points: &[Point], fraction: f64) -> Point {
        let lengths: Vec<f64> = points.windows(2).map(|w| distance(w[0], w[1])).collect();
        let total: f64 = lengths.iter().sum();
        let Some(&first) = points.first() else { return (0.0, 0.0) };
        if total <= 0.0 {
            return first;
        }
        let mut left = fraction.clamp(0.0, 1.0) * total;
        for (segment, length) in points.windows(2).zip(&lengths) {
            if left <= *length {
                let f = if *length > 0.0 { left / length } else { 0.0 };
                return (
                    segment[0].0 + (segment[1].0 - segment[0].0) * f,
                    segment[0].1 + (segment[1].1 - segment[0].1) * f,
                );
            }
            left -= length;
        }
        *points.last().unwrap_or(&first)
    }

    /// The link under the pointer, if one is within 6 px.
    pub fn link_at(&self, x: f64, y: f64) -> Option<LinkId> {
        self.link_near(x, y, 6.0)
    }

    /// The drawn link nearest (x, y) within `reach` CSS pixels: a fingertip needs more than a
    /// mouse's 6.
    pub fn link_near(&self, x: f64, y: f64, reach: f64) -> Option<LinkId> {
        self.links
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.is_drawn(i))
            .map(|(i, line)| {
                let d = line
                    .windows(2)
                    .map(|w| distance_to_segment((x, y), w[0], w[1]))
                    .fold(f64::INFINITY, f64::min);
                (i, d)
            })
            .filter(|&(_, d)| d <= reach)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| LinkId(i as u32))
    }
}

/// Brackets for GPU-to-GPU NVLink cables (DGX-1's mesh), keyed by the cable's forward link id:
/// (x at its first GPU, x at its second, height of its top). Each GPU's cables leave from
/// separate points of its box, and cables whose spans overlap get separate heights (greedy
/// interval colouring, shortest first), so no two brackets share a line.
fn mesh_brackets(
    topology: &Topology,
    vertices: &[Rect],
    full_dy: impl Fn(u32) -> Option<f64>,
) -> std::collections::BTreeMap<u32, (f64, f64, f64)> {
    let mut cables: Vec<(u32, VertexId, VertexId)> = topology
        .links()
        .filter(|(id, link)| {
            id.0 % 2 == 0
                && link.kind == LinkKind::NvLink
                && topology.vertex(link.src).kind == VertexKind::Gpu
                && topology.vertex(link.dst).kind == VertexKind::Gpu
                && topology.vertex(link.src).node.and_then(&full_dy).is_some()
        })
        .map(|(id, link)| (id.0, link.src, link.dst))
        .collect();
    // Attachment points: a GPU's partners in order of x, spread across its box.
    let mut partners: std::collections::BTreeMap<VertexId, Vec<(f64, u32)>> = Default::default();
    for &(id, a, b) in &cables {
        partners.entry(a).or_default().push((vertices[b.0 as usize].center_x(), id));
        partners.entry(b).or_default().push((vertices[a.0 as usize].center_x(), id));
    }
    let attach = |gpu: VertexId, id: u32| -> f64 {
        let list = &partners[&gpu];
        let mut sorted = list.clone();
        fabricscope::sort::by(&mut sorted, &mut |p, q| p.0.total_cmp(&q.0));
        let k = sorted.iter().position(|p| p.1 == id).unwrap_or(0) as f64;
        let r = vertices[gpu.0 as usize];
        r.x + r.w * (k + 1.0) / (sorted.len() as f64 + 1.0)
    };
    fabricscope::sort::by(&mut cables, &mut |p, q| {
        let span = |c: &(u32, VertexId, VertexId)| {
            (vertices[c.1 .0 as usize].center_x() - vertices[c.2 .0 as usize].center_x()).abs()
        };
        span(p).total_cmp(&span(q)).then(p.0.cmp(&q.0))
    });
    let mut placed: Vec<(f64, f64, u32)> = Vec::new();
    let mut levels = Vec::new();
    for &(id, a, b) in &cables {
        let (xa, xb) = (attach(a, id), attach(b, id));
        let (lo, hi) = (xa.min(xb) - 4.0, xa.max(xb) + 4.0);
        let level = (0..)
            .find(|&l| !placed.iter().any(|&(plo, phi, pl)| pl == l && plo < hi && lo < phi))
            .unwrap_or(0);
        placed.push((lo, hi, level));
        levels.push((id, xa, xb, level));
    }
    // Fit every level between the GPU row and the node label.
    let top_level = levels.iter().map(|l| l.3).max().unwrap_or(0) as f64;
    let spacing = ((GPU_Y - NODE_TOP - 30.0) / (top_level + 1.0)).min(9.0);
    levels
        .into_iter()
        .map(|(id, xa, xb, level)| {
            let dy = topology
                .vertex(topology.link(fabricscope::topology::LinkId(id)).src)
                .node
                .and_then(&full_dy)
                .unwrap_or(0.0);
            (id, (xa, xb, GPU_Y + dy - 8.0 - spacing * level as f64))
        })
        .collect()
}

/// The polyline moved `by` to the right of its direction of travel, so a link's two
/// directions (which run opposite ways) land in separate lanes.
fn offset(points: &[Point], by: f64) -> Vec<Point> {
    let normal = |a: Point, b: Point| {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        (-dy / len * by, dx / len * by)
    };
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = if i + 1 < n { (points[i], points[i + 1]) } else { (points[i - 1], points[i]) };
            let (ox, oy) = normal(a, b);
            if i > 0 && i + 1 < n {
                // A corner: shift along both segments' normals.
                let (px, py) = normal(points[i - 1], points[i]);
                (points[i].0 + ox + px, points[i].1 + oy + py)
            } else {
                (points[i].0 + ox, points[i].1 + oy)
            }
        })
        .collect()
}

fn distance(a: Point, b: Point) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

fn distance_to_segment(p: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length2 = dx * dx + dy * dy;
    if length2 == 0.0 {
        return distance(p, a);
    }
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / length2).clamp(0.0, 1.0);
    distance(p, (a.0 + t * dx, a.1 + t * dy))
}

#[cfg(test)]
mod tests;
