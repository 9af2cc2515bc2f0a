//! The fabric plan: how many switches of each tier, and which leaf port every NIC uses.
//!
//! Three shapes, all built from one switch model of `radix` ports:
//!
//! ```text
//!  single switch          leaf-spine (2-tier Clos)              3-tier fat-tree (k-ary, k = radix)
//!  ┌──────────┐         spine0 spine1 ... spine(up-1)          core (up × k/2)
//!  │  switch  │          │  \   /  │                            │ one link to agg j of every pod
//!  └┬─┬─┬─┬─┬─┘         leaf0  leaf1 ... (one cable per        agg (up per pod) ── edge (k/2 per pod)
//!   NICs (≤ radix)       │││      │││      leaf-spine pair)     │││ down NICs per edge
//! ```
//!
//! A leaf has `down` ports to NICs and `up` ports to the tier above, `down:up` being the
//! oversubscription ratio `r`: `up = floor(radix / (r + 1))`, `down = floor(up × r)`. Spines
//! and aggregation/core switches are non-blocking. Wiring decides which leaf a NIC plugs into:
//! rail-optimised puts NIC i of every node on the leaves of rail i; node wiring puts all of a
//! node's NICs on one leaf.
//!
//! Closed forms the tests check (k = radix, r = 1): a leaf-spine holds k²/2 NICs with k/2
//! spines and k leaves; a 3-tier fat-tree holds k³/4 NICs with 5k²/4 switches; bisection is half
//! the NICs' bandwidth when non-blocking and `1/r` of it when oversubscribed.

use crate::scenario::{FabricConfig, FabricTopology, Wiring};
use serde::Serialize;

/// Largest radix a scenario may ask for.
pub const MAX_RADIX: u32 = 1024;
/// Largest oversubscription ratio.
pub const MAX_OVERSUBSCRIPTION: f64 = 16.0;

/// The resolved shape of a fabric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FabricPlan {
    pub kind: FabricTopology,
    pub wiring: Wiring,
    pub radix: u32,
    pub nodes: u32,
    pub nics_per_node: u32,
    /// NIC ports per leaf and uplinks per leaf.
    pub down: u32,
    pub up: u32,
    pub leaves: u32,
    /// Leaves per pod (3-tier) or all leaves (otherwise).
    pub leaves_per_pod: u32,
    pub pods: u32,
    /// Second-tier switches: spines (2-tier) or aggregation switches, all pods (3-tier).
    pub spines: u32,
    pub cores: u32,
}

impl FabricPlan {
    /// Plans the fabric for `nodes` nodes of `nics_per_node` NICs, or says why it cannot be built.
    pub fn new(
        config: &FabricConfig,
        default_radix: u32,
        nodes: u32,
        nics_per_node: u32,
    ) -> Result<FabricPlan, (String, String)> {
        let radix = config.radix.unwrap_or(default_radix);
        if !(4..=MAX_RADIX).contains(&radix) || radix % 2 != 0 {
            return Err((
                "fabric.radix".into(),
                format!("{radix} is not allowed: use an even number from 4 to {MAX_RADIX}"),
            ));
        }
        let r = config.oversubscription;
        if !(1.0..=MAX_OVERSUBSCRIPTION).contains(&r) {
            return Err((
                "fabric.oversubscription".into(),
                format!("{r} is not allowed: use 1 (non-blocking) to {MAX_OVERSUBSCRIPTION} (down-links per up-link)"),
            ));
        }
        let nics = nodes as u64 * nics_per_node as u64;
        let candidates: &[FabricTopology] = match config.topology {
            FabricTopology::Auto => {
                &[FabricTopology::SingleSwitch, FabricTopology::LeafSpine, FabricTopology::FatTree]
            }
            FabricTopology::SingleSwitch => &[FabricTopology::SingleSwitch],
            FabricTopology::LeafSpine => &[FabricTopology::LeafSpine],
            FabricTopology::FatTree => &[FabricTopology::FatTree],
        };
        let mut last = String::new();
        for &kind in candidates {
            match plan(kind, config.wiring, radix, r, nodes, nics_per_node) {
                Ok(plan) => return Ok(plan),
                Err(why) => last = why,
            }
        }
        let field = if config.topology == FabricTopology::Auto { "nodes" } else { "fabric.topology" };
        Err((field.into(), format!("{nodes} nodes × {nics_per_node} NICs = {nics} NICs: {last}")))
    }

    pub fn n_nics(&self) -> u32 {
        self.nodes * self.nics_per_node
    }

    /// (leaf, port) of NIC `local` of `node`.
    pub fn attach(&self, node: u32, local: u32) -> (u32, u32) {
        let nics = self.nics_per_node;
        match (self.kind, self.wiring) {
            (FabricTopology::SingleSwitch, _) | (FabricTopology::Auto, _) => (0, node * nics + local),
            (FabricTopology::LeafSpine, Wiring::Rail) => {
                let per_rail = self.nodes.div_ceil(self.down);
                (local * per_rail + node / self.down, node % self.down)
            }
            (FabricTopology::LeafSpine, Wiring::Node) | (FabricTopology::FatTree, Wiring::Node) => {
                let per_leaf = self.down / nics;
                (node / per_leaf, (node % per_leaf) * nics + local)
            }
            (FabricTopology::FatTree, Wiring::Rail) => {
                let leaves_per_rail = self.leaves_per_pod / nics;
                let per_pod = leaves_per_rail * self.down;
                let (pod, n) = (node / per_pod, node % per_pod);
                (pod * self.leaves_per_pod + local * leaves_per_rail + n / self.down, n % self.down)
            }
        }
    }

    /// Pod of a leaf (0 unless 3-tier).
    pub fn pod_of_leaf(&self, leaf: u32) -> u32 {
        leaf / self.leaves_per_pod.max(1)
    }

    pub fn switches(&self) -> u32 {
        self.leaves + self.spines + self.cores
    }

    /// Switch hops on the longest shortest path between two NICs.
    pub fn diameter(&self) -> u32 {
        match self.kind {
            FabricTopology::FatTree if self.pods > 1 => 5,
            FabricTopology::FatTree | FabricTopology::LeafSpine if self.leaves > 1 => 3,
            _ => 1,
        }
    }
}

fn plan(
    kind: FabricTopology,
    wiring: Wiring,
    radix: u32,
    r: f64,
    nodes: u32,
    nics_per_node: u32,
) -> Result<FabricPlan, String> {
    let nics = nodes * nics_per_node;
    let up = (radix as f64 / (r + 1.0)).floor() as u32;
    let down = (up as f64 * r).floor() as u32;
    let base = FabricPlan {
        kind,
        wiring,
        radix,
        nodes,
        nics_per_node,
        down,
        up,
        leaves: 1,
        leaves_per_pod: 1,
        pods: 1,
        spines: 0,
        cores: 0,
    };
    match kind {
        FabricTopology::SingleSwitch | FabricTopology::Auto => {
            if nics > radix {
                return Err(format!("one {radix}-port switch is too small"));
            }
            Ok(FabricPlan { kind: FabricTopology::SingleSwitch, down: radix, up: 0, ..base })
        }
        FabricTopology::LeafSpine => {
            if up == 0 || down == 0 {
                return Err(format!("a {radix}-port leaf has no ports left at {r}:1"));
            }
            let leaves = match wiring {
                Wiring::Rail => nics_per_node * nodes.div_ceil(down),
                Wiring::Node => {
                    if down < nics_per_node {
                        return Err(format!(
                            "a leaf's {down} down-links cannot hold one node's {nics_per_node} NICs"
                        ));
                    }
                    nodes.div_ceil(down / nics_per_node)
                }
            };
            // Every spine has one port per leaf.
            if leaves > radix {
                return Err(format!(
                    "a 2-tier leaf-spine of radix {radix} holds at most {radix} leaves, this needs {leaves}"
                ));
            }
            Ok(FabricPlan { leaves, leaves_per_pod: leaves, spines: up, ..base })
        }
        FabricTopology::FatTree => {
            let per_pod = radix / 2;
            let nodes_per_pod = match wiring {
                Wiring::Rail => {
                    if per_pod < nics_per_node {
                        return Err(format!(
                            "a pod's {per_pod} leaves cannot give each of {nics_per_node} rails one"
                        ));
                    }
                    (per_pod / nics_per_node) * down
                }
                Wiring::Node => {
                    if down < nics_per_node {
                        return Err(format!(
                            "a leaf's {down} down-links cannot hold one node's {nics_per_node} NICs"
                        ));
                    }
                    per_pod * (down / nics_per_node)
                }
            };
            if up == 0 || nodes_per_pod == 0 {
                return Err(format!("a {radix}-port leaf has no ports left at {r}:1"));
            }
            let pods = nodes.div_ceil(nodes_per_pod);
            // Every core has one port per pod.
            if pods > radix {
                return Err(format!(
                    "a 3-tier fat-tree of radix {radix} holds at most {radix} pods, this needs {pods}"
                ));
            }
            Ok(FabricPlan {
                leaves: pods * per_pod,
                leaves_per_pod: per_pod,
                pods,
                spines: pods * up,
                cores: up * (radix / 2),
                ..base
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(topology: FabricTopology, wiring: Wiring, radix: u32, oversubscription: f64) -> FabricConfig {
        FabricConfig { topology, wiring, radix: Some(radix), oversubscription, ..FabricConfig::default() }
    }

    #[test]
    fn full_leaf_spine_and_fat_tree_match_closed_forms() {
        for k in [8u32, 16, 64] {
            // k²/2 NICs on a full 2-tier Clos: k leaves, k/2 spines.
            let nics = k * k / 2;
            let plan =
                FabricPlan::new(&config(FabricTopology::LeafSpine, Wiring::Node, k, 1.0), 0, nics / 2, 2)
                    .unwrap();
            assert_eq!((plan.leaves, plan.spines, plan.switches()), (k, k / 2, 3 * k / 2));
            assert_eq!(plan.diameter(), 3);
            // k³/4 NICs on a full 3-tier fat-tree: 5k²/4 switches.
            let nics = k * k * k / 4;
            let plan =
                FabricPlan::new(&config(FabricTopology::FatTree, Wiring::Node, k, 1.0), 0, nics / 2, 2)
                    .unwrap();
            assert_eq!(plan.pods, k);
            assert_eq!(plan.switches(), 5 * k * k / 4);
            assert_eq!(plan.diameter(), 5);
        }
    }

    #[test]
    fn oversubscription_splits_the_leaf() {
        let plan =
            FabricPlan::new(&config(FabricTopology::LeafSpine, Wiring::Node, 64, 2.0), 0, 16, 8).unwrap();
        assert_eq!((plan.down, plan.up), (42, 21));
        let plan =
            FabricPlan::new(&config(FabricTopology::LeafSpine, Wiring::Node, 64, 3.0), 0, 16, 8).unwrap();
        assert_eq!((plan.down, plan.up), (48, 16));
    }

    #[test]
    fn rail_wiring_puts_each_rail_on_its_own_leaves() {
        let plan =
            FabricPlan::new(&config(FabricTopology::LeafSpine, Wiring::Rail, 64, 1.0), 0, 40, 8).unwrap();
        // 40 nodes, 32 down-links per leaf: 2 leaves per rail, 16 leaves.
        assert_eq!(plan.leaves, 16);
        assert_eq!(plan.attach(0, 0), (0, 0));
        assert_eq!(plan.attach(33, 0), (1, 1));
        assert_eq!(plan.attach(5, 3), (6, 5));
        let mut seen = std::collections::BTreeSet::new();
        for node in 0..40 {
            for nic in 0..8 {
                assert!(seen.insert(plan.attach(node, nic)), "every port is used once");
            }
        }
    }

    #[test]
    fn auto_picks_the_smallest_fabric_that_fits() {
        let auto = FabricConfig::default();
        assert_eq!(FabricPlan::new(&auto, 64, 8, 8).unwrap().kind, FabricTopology::SingleSwitch);
        assert_eq!(FabricPlan::new(&auto, 64, 9, 8).unwrap().kind, FabricTopology::LeafSpine);
        assert_eq!(FabricPlan::new(&auto, 64, 300, 8).unwrap().kind, FabricTopology::FatTree);
        // 100,000+ GPUs: 12,800 DGX nodes on a radix-64 fat-tree (65,536 NICs) do not fit…
        let (field, problem) = FabricPlan::new(&auto, 64, 12_800, 8).unwrap_err();
        assert_eq!(field, "nodes");
        assert!(problem.contains("at most 64 pods"), "{problem}");
        // …on radix 128 they do.
        let big = FabricConfig { radix: Some(128), ..FabricConfig::default() };
        assert_eq!(FabricPlan::new(&big, 64, 12_800, 8).unwrap().kind, FabricTopology::FatTree);
    }
}
