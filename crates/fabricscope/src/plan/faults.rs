//! The scenario's faults checked against its cluster: each names a link that exists, with a rate
//! in [0, 1], down only where the fabric routes around it, and never so many down that two
//! leaves share no working spine (`Scenario::faults`).

use crate::catalog::NodeSpec;
use crate::limits::MAX_FAULTS;
use crate::scenario::{FabricTopology, FaultKind, Scenario};
use crate::topology::FabricPlan;

/// Every problem with `s.faults`, as (field, problem).
pub fn fault_problems(s: &Scenario, preset: &NodeSpec, plan: &FabricPlan) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    if s.faults.len() > MAX_FAULTS {
        problems.push(("faults".into(), format!("{} faults: use at most {MAX_FAULTS}", s.faults.len())));
        return problems;
    }
    let leaf_spine = plan.kind == FabricTopology::LeafSpine;
    let (leaves, ups) = (plan.leaves, plan.up.max(if leaf_spine { plan.spines } else { 0 }));
    for (i, fault) in s.faults.iter().enumerate() {
        let mut problem = |field: &str, why: String| problems.push((format!("faults[{i}].{field}"), why));
        if !(0.0..=1.0).contains(&fault.rate) {
            problem("rate", format!("{} is out of range: use 0 (down) to 1 (healthy)", fault.rate));
            continue;
        }
        let down = fault.rate == 0.0;
        match fault.kind {
            FaultKind::Nic | FaultKind::Nvlink | FaultKind::Gpu => {
                if fault.node >= s.nodes {
                    problem(
                        "node",
                        format!("{} is out of range: nodes are 0 to {}", fault.node, s.nodes - 1),
                    );
                }
                let (what, count) = match fault.kind {
                    FaultKind::Nic => ("NICs", preset.nics_per_node),
                    _ => ("GPUs", preset.gpus_per_node),
                };
                if fault.index >= count {
                    problem(
                        "index",
                        format!(
                            "{} is out of range: a {} node has {what} 0 to {}",
                            fault.index,
                            preset.name,
                            count.saturating_sub(1)
                        ),
                    );
                }
                if fault.kind == FaultKind::Nvlink && preset.gpu_fabric == crate::catalog::NodeFabric::Pcie {
                    problem("kind", format!("{} has no NVLink", preset.name));
                }
                if down {
                    problem("rate", "0 takes a GPU, its NIC or its NVLink down, which NCCL does not route around (the job fails): give a rate above 0".into());
                }
            }
            FaultKind::LeafUplink => {
                if leaves < 2 || ups == 0 {
                    problem(
                        "kind",
                        "a leaf up-link needs a fabric of several leaves (leaf_spine or fat_tree)".into(),
                    );
                } else {
                    if fault.leaf >= leaves {
                        problem(
                            "leaf",
                            format!("{} is out of range: leaves are 0 to {}", fault.leaf, leaves - 1),
                        );
                    }
                    if fault.index >= ups {
                        problem(
                            "index",
                            format!("{} is out of range: a leaf has up-links 0 to {}", fault.index, ups - 1),
                        );
                    }
                    if down && !leaf_spine {
                        problem("rate", "0 (down) is routed around on a leaf-spine only: on a fat-tree give a rate above 0".into());
                    }
                }
            }
            FaultKind::Spine => {
                if !leaf_spine {
                    problem("kind", "a spine fault needs a leaf_spine fabric".into());
                } else if fault.index >= plan.spines {
                    problem(
                        "index",
                        format!("{} is out of range: spines are 0 to {}", fault.index, plan.spines - 1),
                    );
                }
            }
        }
    }
    if problems.is_empty() && leaf_spine && s.faults.iter().any(|f| f.rate == 0.0) {
        // Which spines each leaf still reaches; every two leaves must share one.
        let spines = plan.spines as usize;
        let mut live = vec![vec![true; spines]; leaves as usize];
        for fault in s.faults.iter().filter(|f| f.rate == 0.0) {
            match fault.kind {
                FaultKind::Spine => live.iter_mut().for_each(|l| l[fault.index as usize] = false),
                FaultKind::LeafUplink => live[fault.leaf as usize][fault.index as usize] = false,
                _ => {}
            }
        }
        'pairs: for a in 0..live.len() {
            for b in a + 1..live.len() {
                if !(0..spines).any(|j| live[a][j] && live[b][j]) {
                    problems.push((
                        "faults".into(),
                        format!("leaf {a} and leaf {b} share no working spine: the fabric cannot route between them"),
                    ));
                    break 'pairs;
                }
            }
        }
    }
    problems
}
