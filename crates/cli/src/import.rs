//! `--import FILE`: a node read from `nvidia-smi topo -m` or NCCL's topology XML
//! (`fabricscope::import`), for every command that takes the hardware flags.

use super::HardwareArgs;
use fabricscope::import::{import, ImportOptions};
use fabricscope::{Scenario, ScenarioError};

/// Reads `args.import` into `scenario` (preset "imported"); what the reader chose that the file
/// did not say goes to stderr as notes. Returns the problems, each naming the file's line.
pub fn apply(args: &HardwareArgs, scenario: &mut Scenario) -> Vec<ScenarioError> {
    let Some(path) = &args.import else {
        if args.gpu.is_some() || args.nic_gbit.is_some() {
            return vec![ScenarioError {
                field: "--gpu".into(),
                problem: "--gpu and --nic-gbit describe an imported node: use them with --import FILE".into(),
            }];
        }
        return Vec::new();
    };
    let error = |problem: String| vec![ScenarioError { field: "--import".into(), problem }];
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return error(format!("cannot read {path}: {e}")),
    };
    let options = ImportOptions { gpu: args.gpu.clone(), nic_gbit_per_s: args.nic_gbit };
    match import(&text, &options) {
        Ok(imported) => {
            for note in &imported.notes {
                eprintln!("note: {path}: {note}");
            }
            scenario.preset = "imported".into();
            scenario.custom = None;
            scenario.imported = Some(imported.node);
            Vec::new()
        }
        Err(problems) => problems
            .into_iter()
            .map(|p| ScenarioError {
                field: "--import".into(),
                problem: match p.line {
                    0 => format!("{path}: {}", p.problem),
                    line => format!("{path}:{line}: {}", p.problem),
                },
            })
            .collect(),
    }
}

/// One line on the node: its GPUs, how they are joined, its PCIe tree and NICs.
pub fn describe(node: &fabricscope::catalog::NodeSpec) -> String {
    use fabricscope::catalog::NodeFabric;
    let gpus = match &node.gpu_fabric {
        NodeFabric::NvSwitch { generation: 0 } => "one switch".to_string(),
        NodeFabric::NvSwitch { generation } => {
            format!("NVSwitch gen {generation}, {} × {}", node.gpu.nvlink_links, node.nvlink.name)
        }
        NodeFabric::Mesh(pairs) if pairs.is_empty() => "no NVLink".to_string(),
        NodeFabric::Mesh(pairs) => {
            let links: u32 = pairs.iter().map(|p| p.2).sum();
            format!("{} {} links over {} GPU pairs", links, node.nvlink.name, pairs.len())
        }
        NodeFabric::Pcie => "no NVLink".to_string(),
    };
    format!(
        "node         {} × {} ({gpus}); {} PCIe switches ({}) on {} sockets; {} NICs of {:.0} Gb/s\n",
        node.gpus_per_node,
        node.gpu.name,
        node.pcie_switches,
        node.pcie.name,
        node.sockets,
        node.nics_per_node,
        node.nic.line_rate_gbyte_per_s * 8.0
    )
}
