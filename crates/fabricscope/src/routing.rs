//! Routing: which links a transfer from one GPU to another crosses.
//!
//! The walking-skeleton fabrics have exactly one shortest path between any two GPUs (inside a
//! node through the NVSwitch; across nodes through each GPU's own NIC and the one switch), so a
//! breadth-first search that visits links in id order finds it. Ties, where a topology has
//! them, go to the lowest link id, which keeps routes deterministic.

use crate::topology::{LinkId, Topology, VertexId};
use std::collections::VecDeque;

/// The links of a shortest (fewest hops) path from `src` to `dst`; empty when `src == dst`.
/// Returns `None` when `dst` cannot be reached.
pub fn shortest_path(topology: &Topology, src: VertexId, dst: VertexId) -> Option<Vec<LinkId>> {
    if src == dst {
        return Some(Vec::new());
    }
    let n = topology.vertices().count();
    let mut via: Vec<Option<LinkId>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[src.0 as usize] = true;
    let mut queue = VecDeque::from([src]);
    while let Some(vertex) = queue.pop_front() {
        for link_id in topology.out_links(vertex) {
            let next = topology.link(link_id).dst;
            if seen[next.0 as usize] {
                continue;
            }
            seen[next.0 as usize] = true;
            via[next.0 as usize] = Some(link_id);
            if next == dst {
                let mut path = Vec::new();
                let mut at = dst;
                while let Some(link_id) = via[at.0 as usize] {
                    path.push(link_id);
                    at = topology.link(link_id).src;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(next);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::topology::{build, LinkKind};

    #[test]
    fn paths_inside_and_across_nodes() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 2;
        let topology = build(&scenario.validate().unwrap());
        let kinds = |src, dst| -> Vec<LinkKind> {
            shortest_path(&topology, topology.gpu(src), topology.gpu(dst))
                .unwrap()
                .iter()
                .map(|&id| topology.link(id).kind)
                .collect()
        };
        assert_eq!(kinds(0, 1), [LinkKind::NvLink, LinkKind::NvLink]);
        assert_eq!(kinds(7, 8), [LinkKind::Pcie, LinkKind::Network, LinkKind::Network, LinkKind::Pcie]);
        assert_eq!(kinds(3, 3), []);
        // Across nodes a GPU leaves through its own NIC and enters through the peer's.
        let path = shortest_path(&topology, topology.gpu(7), topology.gpu(8)).unwrap();
        assert_eq!(topology.vertex_name(topology.link(path[0]).dst), "node 0 NIC 7");
        assert_eq!(topology.vertex_name(topology.link(path[2]).dst), "node 1 NIC 0");
    }
}
