//! A rack-scale NVLink domain drawn in full (`catalog::Trays`, a GB200 NVL72 rack): its GPUs in
//! their compute trays with a gap between trays, each tray's PCIe switches, Grace CPUs and NICs
//! under the GPUs they serve, a frame around each tray, and the NVSwitch bar cut into its NVLink
//! Switch trays. A part of `layout`, which places everything else.

use super::layout::{Rect, BAR_H, CPU_Y, GPU_H, GPU_Y, NIC_H, NIC_Y, NVSWITCH_Y, PCIE_Y, SMALL_H};
use fabricscope::catalog::Trays;
use fabricscope::topology::VertexKind;

/// Space between two compute trays [px].
const TRAY_GAP: f64 = 6.0;
/// Space between two switch trays [px].
const SWITCH_GAP: f64 = 4.0;

/// What one node holds, per kind.
#[derive(Clone, Copy)]
pub struct Counts {
    pub gpus: f64,
    pub switches: f64,
    pub cpus: f64,
    pub nics: f64,
}

/// One rack's geometry across a node frame `w` wide from `x`.
pub struct Rack {
    trays: Trays,
    counts: Counts,
    x: f64,
    w: f64,
    tray_w: f64,
}

impl Rack {
    pub fn new(trays: Trays, counts: Counts, x: f64, w: f64) -> Rack {
        let n_trays = (counts.gpus / trays.gpus_per_tray.max(1) as f64).max(1.0);
        let tray_w = (w - (n_trays - 1.0) * TRAY_GAP) / n_trays;
        Rack { trays, counts, x, w, tray_w }
    }

    fn per_tray(&self) -> f64 {
        self.trays.gpus_per_tray.max(1) as f64
    }

    /// The centre of GPU `i`.
    fn gpu_cx(&self, i: f64) -> f64 {
        let slot = self.tray_w / self.per_tray();
        self.x + (i / self.per_tray()).floor() * (self.tray_w + TRAY_GAP) + slot * (i % self.per_tray() + 0.5)
    }

    /// The middle of `count` GPUs from `first`: where the host part that serves them sits.
    fn over(&self, first: f64, count: f64) -> f64 {
        (self.gpu_cx(first) + self.gpu_cx(first + count - 1.0)) / 2.0
    }

    /// Where vertex `kind` number `local` of this rack is drawn, `dy` below the first band.
    pub fn vertex(&self, kind: VertexKind, local: f64, dy: f64) -> Rect {
        let slot = self.tray_w / self.per_tray();
        let box_w = (slot * 0.78).min(64.0);
        let c = self.counts;
        let centred = |cx: f64, w: f64, y: f64, h: f64| Rect { x: cx - w / 2.0, y: y + dy, w, h };
        match kind {
            VertexKind::NvSwitch => Rect { x: self.x + 8.0, y: NVSWITCH_Y + dy, w: self.w - 16.0, h: BAR_H },
            VertexKind::Gpu => centred(self.gpu_cx(local), box_w, GPU_Y, GPU_H),
            VertexKind::PcieSwitch => {
                let span = c.gpus / c.switches;
                centred(self.over(local * span, span), (span * slot - 4.0).max(4.0), PCIE_Y, SMALL_H)
            }
            VertexKind::Cpu => {
                let span = c.gpus / c.cpus;
                centred(self.over(local * span, span), (span * slot - 4.0).max(4.0), CPU_Y, SMALL_H)
            }
            VertexKind::Nic => {
                let span = c.gpus / c.nics;
                centred(self.over(local * span, span), (box_w * 0.8).max(4.0), NIC_Y, NIC_H)
            }
            _ => Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 },
        }
    }

    /// Each compute tray's frame: its GPUs down to its NICs.
    pub fn frames(&self, dy: f64) -> Vec<Rect> {
        let n_trays = (self.counts.gpus / self.per_tray()) as u32;
        (0..n_trays)
            .map(|k| Rect {
                x: self.x + k as f64 * (self.tray_w + TRAY_GAP),
                y: GPU_Y + dy - 6.0,
                w: self.tray_w,
                h: NIC_Y + NIC_H + 6.0 - GPU_Y,
            })
            .collect()
    }

    /// The NVLink Switch trays the NVSwitch bar is made of.
    pub fn switch_trays(&self, dy: f64) -> Vec<Rect> {
        let n = self.trays.switch_trays.max(1);
        let bar_w = (self.w - 16.0 - (n as f64 - 1.0) * SWITCH_GAP) / n as f64;
        (0..n)
            .map(|k| Rect {
                x: self.x + 8.0 + k as f64 * (bar_w + SWITCH_GAP),
                y: NVSWITCH_Y + dy,
                w: bar_w,
                h: BAR_H,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::render::layout::Layout;
    use fabricscope::topology::VertexKind;
    use fabricscope::Scenario;

    #[test]
    fn an_nvl72_rack_draws_18_compute_trays_around_their_gpus_and_9_switch_trays() {
        let scenario = Scenario { preset: "gb200-nvl72".into(), ..Scenario::default_demo() };
        let topology = scenario.validate().unwrap().topology();
        let layout = Layout::new(&topology, 1400.0);
        assert_eq!(layout.trays.len(), 18);
        assert_eq!(layout.switch_trays.len(), 9);
        let inside = |r: &super::Rect, frame: &super::Rect| {
            r.x >= frame.x
                && r.x + r.w <= frame.x + frame.w
                && r.y >= frame.y
                && r.y + r.h <= frame.y + frame.h
        };
        for (id, vertex) in topology.vertices() {
            let rect = layout.vertex(id);
            match vertex.kind {
                // GPU i and NIC i sit in tray i / 4; so does the PCIe switch or CPU of GPUs 2s, 2s+1.
                VertexKind::Gpu | VertexKind::Nic => {
                    assert!(inside(&rect, &layout.trays[vertex.local as usize / 4]), "{vertex:?} {rect:?}")
                }
                VertexKind::PcieSwitch | VertexKind::Cpu => {
                    assert!(inside(&rect, &layout.trays[vertex.local as usize / 2]), "{vertex:?} {rect:?}")
                }
                _ => {}
            }
        }
        // The switch trays tile the NVSwitch bar.
        let bar = layout.vertex(topology.vertices().find(|(_, v)| v.kind == VertexKind::NvSwitch).unwrap().0);
        let (first, last) = (layout.switch_trays[0], layout.switch_trays[8]);
        assert!((first.x - bar.x).abs() < 1e-9 && (last.x + last.w - bar.x - bar.w).abs() < 1e-9);
        // A server has no trays.
        let dgx = Scenario::default_demo().validate().unwrap().topology();
        assert!(Layout::new(&dgx, 1400.0).trays.is_empty());
    }
}
