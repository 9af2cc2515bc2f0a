//! Where everything of a topology is drawn: a pure function of the topology and the width.
//!
//! ```text
//!   ┌ node 0 · DGX H100 ───────────────┐ ┌ node 1 ──────────── ...
//!   │ ═════════ NVSwitch ═════════════ │ │ ═══════════════
//!   │  ↑↓   ↑↓   ↑↓                    │ │
//!   │ [GPU0][GPU1][GPU2] ...           │ │ [GPU0] ...
//!   │  ↑↓   ↑↓   ↑↓      PCIe          │ │
//!   │ [NIC0][NIC1][NIC2] ...           │ │ [NIC0] ...
//!   └──↑↓───↑↓───↑↓────────────────────┘ └──↑↓──── ...
//!   ═══════════ one switch ═══════════   or   [leaf 0] [leaf 1] ... (a row per tier)
//!                                              [spine 0] [spine 1] ...
//! ```
//!
//! Every link is a vertical pair of lines: the upward direction on the left, the downward on
//! the right, so each direction shows its own utilisation. Canvas, not SVG: later views draw
//! thousands of GPUs, and a canvas repaint costs the same whatever the element count.

use fabricscope::topology::{LinkId, Topology, VertexId, VertexKind};

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
    /// Indexed by link id: where the link leaves its source and reaches its destination.
    pub links: Vec<(Point, Point)>,
    /// One frame per node.
    pub nodes: Vec<Rect>,
    /// Whether boxes are wide enough for their labels.
    pub labels: bool,
}

const MARGIN: f64 = 16.0;
const NODE_GAP: f64 = 18.0;
const NODE_TOP: f64 = 26.0;
const NVSWITCH_Y: f64 = 44.0;
const BAR_H: f64 = 22.0;
const GPU_Y: f64 = 116.0;
const GPU_H: f64 = 34.0;
const NIC_Y: f64 = 196.0;
const NIC_H: f64 = 22.0;
const NODE_BOTTOM: f64 = 236.0;
const SWITCH_Y: f64 = 280.0;
/// Vertical distance between switch tiers.
const TIER_GAP: f64 = 84.0;
/// Offset of each direction's line from the link's centre line.
const LANE: f64 = 3.5;
/// Room under the last tier for the legend.
const LEGEND_H: f64 = 60.0;

impl Layout {
    pub fn new(topology: &Topology, width: f64) -> Layout {
        let nodes = topology.n_nodes().max(1) as f64;
        let per_node = topology.gpus_per_node().max(1) as f64;
        let node_w = ((width - 2.0 * MARGIN - (nodes - 1.0) * NODE_GAP) / nodes).max(8.0);
        let slot = node_w / per_node;
        let box_w = (slot * 0.78).min(64.0);
        let mut vertices = vec![Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 }; topology.vertices().count()];
        let node_x = |node: u32| MARGIN + node as f64 * (node_w + NODE_GAP);
        let count = |kind| topology.vertices().filter(|(_, v)| v.kind == kind).count() as f64;
        let tiers = [(VertexKind::Leaf, count(VertexKind::Leaf)), (VertexKind::Spine, count(VertexKind::Spine)), (VertexKind::Core, count(VertexKind::Core))];
        let n_tiers = tiers.iter().filter(|t| t.1 > 0.0).count().max(1) as f64;
        // A tier of one switch is a bar across the page; otherwise a row of boxes.
        let tier_rect = |kind: VertexKind, index: u32| -> Rect {
            let level = tiers.iter().position(|t| t.0 == kind).unwrap_or(0) as f64;
            let n = tiers.iter().find(|t| t.0 == kind).map(|t| t.1).unwrap_or(1.0);
            let y = SWITCH_Y + level * TIER_GAP;
            if n <= 1.0 {
                return Rect { x: MARGIN, y, w: width - 2.0 * MARGIN, h: BAR_H };
            }
            let slot = (width - 2.0 * MARGIN) / n;
            let w = (slot * 0.8).min(72.0);
            Rect { x: MARGIN + slot * (index as f64 + 0.5) - w / 2.0, y, w, h: BAR_H }
        };
        for (id, vertex) in topology.vertices() {
            let rect = match (vertex.kind, vertex.node) {
                (kind, _) if kind.is_fabric_switch() => tier_rect(kind, vertex.local),
                (VertexKind::NvSwitch, Some(node)) => {
                    Rect { x: node_x(node) + 8.0, y: NVSWITCH_Y, w: node_w - 16.0, h: BAR_H }
                }
                (kind, Some(node)) => {
                    let cx = node_x(node) + slot * (vertex.local as f64 + 0.5);
                    let (y, h, w) = match kind {
                        VertexKind::Gpu => (GPU_Y, GPU_H, box_w),
                        _ => (NIC_Y, NIC_H, box_w * 0.8),
                    };
                    Rect { x: cx - w / 2.0, y, w, h }
                }
                (_, None) => Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 },
            };
            vertices[id.0 as usize] = rect;
        }
        let mut links = vec![((0.0, 0.0), (0.0, 0.0)); topology.n_links()];
        for (id, link) in topology.links() {
            let (src, dst) = (vertices[link.src.0 as usize], vertices[link.dst.0 as usize]);
            let going_up = src.y > dst.y;
            let (y0, y1) = if going_up { (src.y, dst.y + dst.h) } else { (src.y + src.h, dst.y) };
            let lane = if going_up { -LANE } else { LANE };
            // Into a bar (the NVSwitch, a lone switch) the link drops straight from the box;
            // between two boxes it runs centre to centre.
            let (x0, x1) = if dst.w > 3.0 * src.w {
                (src.center_x(), src.center_x())
            } else if src.w > 3.0 * dst.w {
                (dst.center_x(), dst.center_x())
            } else {
                (src.center_x(), dst.center_x())
            };
            links[id.index()] = ((x0 + lane, y0), (x1 + lane, y1));
        }
        let node_frames = (0..topology.n_nodes())
            .map(|node| Rect { x: node_x(node), y: NODE_TOP, w: node_w, h: NODE_BOTTOM - NODE_TOP })
            .collect();
        let height = SWITCH_Y + (n_tiers - 1.0) * TIER_GAP + BAR_H + LEGEND_H;
        Layout { width, height, vertices, links, nodes: node_frames, labels: box_w >= 40.0 }
    }

    pub fn vertex(&self, id: VertexId) -> Rect {
        self.vertices[id.0 as usize]
    }

    /// The polyline a chunk follows along `path`: each link, joined through the boxes between.
    pub fn polyline(&self, path: &[LinkId]) -> Vec<Point> {
        let mut points = Vec::with_capacity(path.len() * 2);
        for link in path {
            let (a, b) = self.links[link.index()];
            points.push(a);
            points.push(b);
        }
        points
    }

    /// The point at `fraction` (0..=1) of the polyline's length.
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
                return (segment[0].0 + (segment[1].0 - segment[0].0) * f, segment[0].1 + (segment[1].1 - segment[0].1) * f);
            }
            left -= length;
        }
        *points.last().unwrap_or(&first)
    }

    /// The link under the pointer, if one is within 6 px.
    pub fn link_at(&self, x: f64, y: f64) -> Option<LinkId> {
        self.links
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| (i, distance_to_segment((x, y), a, b)))
            .filter(|&(_, d)| d <= 6.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| LinkId(i as u32))
    }
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
mod tests {
    use super::*;
    use fabricscope::topology::build;
    use fabricscope::Scenario;

    #[test]
    fn two_nodes_sit_side_by_side_and_links_pair_up() {
        let scenario = Scenario { nodes: 2, ..Scenario::default_demo() }.validate().unwrap();
        let topology = build(&scenario);
        let layout = Layout::new(&topology, 1200.0);
        assert_eq!(layout.nodes.len(), 2);
        assert!(layout.nodes[0].x + layout.nodes[0].w < layout.nodes[1].x);
        for (id, _) in topology.links() {
            let (a, b) = layout.links[id.index()];
            let (c, d) = layout.links[id.reverse().index()];
            assert_eq!((a.1, b.1), (d.1, c.1), "the two directions span the same rows");
            assert!((a.0 - c.0).abs() > 5.0, "and sit in separate lanes");
        }
        let (a, _) = layout.links[0];
        assert_eq!(layout.link_at(a.0, a.1 - 10.0), Some(LinkId(0)));
        assert!(layout.labels);
    }

    #[test]
    fn points_along_a_polyline() {
        let points = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0)];
        assert_eq!(Layout::point_along(&points, 0.0), (0.0, 0.0));
        assert_eq!(Layout::point_along(&points, 0.5), (0.0, 10.0));
        assert_eq!(Layout::point_along(&points, 1.0), (10.0, 10.0));
    }
}
