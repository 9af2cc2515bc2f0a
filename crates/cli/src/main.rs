//! `fabricscope`: the core's model on the command line. The only crate that touches files.

use clap::{Args, Parser, Subcommand};
use fabricscope::collective::{schedule_with, verify, VerifyError, ELEM_BYTES};
use fabricscope::units::parse_size;
use fabricscope::{sweep_sizes, Collective, Scenario, ScenarioError, SweepPoint, ValidScenario};
use serde::Serialize;
use std::process::ExitCode;

use choice::choice;

mod calibrate;
mod choice;
mod compare;
mod import;
mod table;
mod train;

#[derive(Parser)]
#[command(
    name = "fabricscope",
    version,
    about = "Simulate GPU cluster collectives (NVLink, NVSwitch, InfiniBand) the way nccl-tests measures them.",
    after_long_help = SCENARIO_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const SCENARIO_HELP: &str = "\
Scenario files (--scenario FILE) are JSON; flags override their fields. Examples:

  {\"preset\": \"dgx-h100\", \"nodes\": 2, \"collective\": \"all_reduce\", \"size_bytes\": 268435456,
   \"fabric\": {\"technology\": \"roce\", \"topology\": \"leaf_spine\", \"wiring\": \"node\", \"routing\": \"ecmp\"}}

  {\"preset\": \"custom\", \"custom\": {\"shape\": \"ring\", \"gpus\": 8,
   \"link\": {\"bandwidth_gbyte_per_s\": 100, \"latency_ns\": 500}},
   \"nodes\": 1, \"collective\": \"all_reduce\", \"size_bytes\": 268435456}

Presets: dgx-h100, dgx-a100, hgx-b200, hgx-b300, gb200-nvl72, gb200-nvl36, hgx-h800, hgx-h20, dgx-1, pcie-h100,
pcie-h100-nvlink, custom (shape ring, star or full_mesh), imported (--import FILE: a node read
from nvidia-smi topo -m, with --gpu and --nic-gbit, or from NCCL's topology XML). Every field and its range: tests/fixtures/README.md and crates/fabricscope/src/scenario/mod.rs.";

#[derive(Subcommand)]
enum Command {
    /// AllReduce over a size sweep, printed like nccl-tests' all_reduce_perf.
    #[command(alias = "all_reduce_perf")]
    Allreduce(SweepArgs),
    /// AllGather, like all_gather_perf (size: the gathered buffer).
    #[command(alias = "all_gather_perf")]
    Allgather(SweepArgs),
    /// ReduceScatter, like reduce_scatter_perf (size: the input buffer).
    #[command(alias = "reduce_scatter_perf")]
    Reducescatter(SweepArgs),
    /// Broadcast from --root, like broadcast_perf.
    #[command(alias = "broadcast_perf")]
    Broadcast(SweepArgs),
    /// Reduce to --root, like reduce_perf.
    #[command(alias = "reduce_perf")]
    Reduce(SweepArgs),
    /// AllToAll, like alltoall_perf (size: each rank's buffer).
    #[command(alias = "alltoall_perf")]
    Alltoall(SweepArgs),
    /// Each rank sends to the next, like sendrecv_perf.
    #[command(alias = "sendrecv_perf")]
    Sendrecv(SweepArgs),
    /// Build the cluster and print its fabric: switches, cables, bisection, diameter; or DOT.
    Topo(TopoArgs),
    /// One training step of a model laid out TP × PP × DP: breakdown, memory, cost, checkpoints.
    Train(train::TrainArgs),
    /// Every published figure in FILE through the model: a markdown table of model, published,
    /// ratio and source; fails naming each figure that drifts beyond its tolerance.
    Calibrate {
        /// The figures (JSON), e.g. tests/calibration.json.
        #[arg(default_value = "tests/calibration.json")]
        file: String,
    },
    /// A measured nccl-tests log against the model of the same cluster: per-size ratio, whether
    /// the gap is latency or bandwidth, and the link figures fitted to the measurement.
    Compare(compare::CompareArgs),
}

/// Hardware and fabric, shared by every command.
#[derive(Args)]
pub struct HardwareArgs {
    /// A scenario file (JSON); the flags below override its fields.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<String>,
    /// A node read from `nvidia-smi topo -m` output or NCCL's topology XML
    /// (NCCL_TOPO_DUMP_FILE); every node of the cluster is this one.
    #[arg(long, value_name = "FILE")]
    pub import: Option<String>,
    /// The GPU model of an imported node (h100, a100, v100, b200, …): the matrix does not say it.
    #[arg(long, value_name = "ID")]
    pub gpu: Option<String>,
    /// Each NIC port's line rate of an imported node [Gb/s] (400 for NDR): the matrix does not say it.
    #[arg(long, value_name = "GBIT")]
    pub nic_gbit: Option<f64>,
    /// Node preset: dgx-h100, dgx-a100, hgx-b200, hgx-b300, gb200-nvl72, gb200-nvl36 (a rack:
    /// one NVLink domain), hgx-h800, hgx-h20, dgx-1, pcie-h100 or pcie-h100-nvlink (2 cards,
    /// NVLink bridge); a custom node: --scenario.
    #[arg(long)]
    preset: Option<String>,
    /// Number of nodes.
    #[arg(long)]
    nodes: Option<u32>,
    /// Fabric technology: infiniband, roce, tcp or efa.
    #[arg(long, value_name = "TECH")]
    fabric: Option<String>,
    /// Fabric shape: auto, single_switch, leaf_spine or fat_tree.
    #[arg(long, value_name = "SHAPE")]
    topology: Option<String>,
    /// Ports per switch.
    #[arg(long)]
    radix: Option<u32>,
    /// Leaf down:up ratio (1 = non-blocking).
    #[arg(long)]
    oversubscription: Option<f64>,
    /// rail (NIC i to rail i) or node (all of a node's NICs on one leaf).
    #[arg(long)]
    wiring: Option<String>,
    /// static (D-mod-K), ecmp or adaptive.
    #[arg(long)]
    routing: Option<String>,
    /// Seed of ECMP hashing.
    #[arg(long)]
    seed: Option<u64>,
    /// A GPU's NVLink bandwidth into the NVSwitch, per direction [GB/s].
    #[arg(long, value_name = "GB/S")]
    nvlink_bandwidth: Option<f64>,
    /// One NIC's line rate per direction [GB/s] (NDR 400 Gb/s = 50).
    #[arg(long, value_name = "GB/S")]
    nic_bandwidth: Option<f64>,
    /// Latency of one NIC ↔ switch hop [ns].
    #[arg(long, value_name = "NS")]
    nic_latency: Option<u64>,
    /// NICs per node the job may use, the first ones (NCCL_IB_HCA); default: all.
    #[arg(long, value_name = "N")]
    nics_used: Option<u32>,
    /// A link below its rate or down, repeatable: nic:NODE:NIC:RATE, nvlink:NODE:GPU:RATE,
    /// leaf_uplink:LEAF:UPLINK:RATE or spine:SPINE:RATE (RATE 1 healthy, 0.5 half, 0 down); or
    /// a slow GPU, gpu:NODE:GPU:RATE (all its links at RATE).
    #[arg(long, value_name = "KIND:…:RATE")]
    fault: Vec<String>,
    /// Let the tuner use CollNet, SHARP in InfiniBand switches (NCCL_COLLNET_ENABLE=1; off by
    /// default, as in NCCL, which needs its SHARP plugin for it).
    #[arg(long, visible_alias = "in-network")]
    collnet: bool,
    /// Keep the tuner off NVLS, the reduction in a gen3+ NVSwitch (NCCL_NVLS_ENABLE=0; NVLS is
    /// on by default where the NVSwitch has it, as in NCCL).
    #[arg(long)]
    no_nvls: bool,
    /// What a transfer's latency is made of: nccl (NCCL's launch and protocol latencies, which
    /// count the wire of NCCL's own hardware, plus what slower links add; the default) or links
    /// (the links' alone: the textbook α-β model).
    #[arg(long, value_name = "nccl|links")]
    latency: Option<String>,
}

#[derive(Args)]
struct TopoArgs {
    #[command(flatten)]
    hardware: HardwareArgs,
    /// Print the graph as Graphviz DOT.
    #[arg(long)]
    dot: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SweepArgs {
    #[command(flatten)]
    hardware: HardwareArgs,
    /// Parallel rings (NCCL channels); default: one per NIC.
    #[arg(long)]
    channels: Option<u32>,
    /// Root rank of broadcast and reduce, like nccl-tests -r.
    #[arg(short = 'r', long)]
    root: Option<u32>,
    /// Force a protocol as NCCL_PROTO does: LL, LL128 or Simple; default: the tuner's choice.
    #[arg(long, value_name = "PROTO")]
    proto: Option<String>,
    /// Force an algorithm as NCCL_ALGO does: Ring; Tree, NVLS, NVLSTree or CollNet (AllReduce);
    /// PAT (AllGather, ReduceScatter at one GPU per node); P2P (AllToAll, SendRecv). For
    /// comparison, never the tuner's pick: Hierarchical (AllReduce), HalvingDoubling and
    /// AllPairs (AllReduce, AllGather, ReduceScatter), Bruck (AllToAll). Default: the tuner's choice.
    #[arg(long, value_name = "ALGO")]
    algo: Option<String>,
    /// Smallest size, like nccl-tests -b (suffixes K, M, G).
    #[arg(short = 'b', long = "min", default_value = "8", value_parser = parse_size)]
    min: u64,
    /// Largest size, like nccl-tests -e.
    #[arg(short = 'e', long = "max", default_value = "128M", value_parser = parse_size)]
    max: u64,
    /// Multiply the size by this factor each row, like nccl-tests -f.
    #[arg(short = 'f', long, default_value_t = 2)]
    factor: u64,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Allreduce(args) => sweep_command(Collective::AllReduce, &args),
        Command::Allgather(args) => sweep_command(Collective::AllGather, &args),
        Command::Reducescatter(args) => sweep_command(Collective::ReduceScatter, &args),
        Command::Broadcast(args) => sweep_command(Collective::Broadcast, &args),
        Command::Reduce(args) => sweep_command(Collective::Reduce, &args),
        Command::Alltoall(args) => sweep_command(Collective::AllToAll, &args),
        Command::Sendrecv(args) => sweep_command(Collective::SendRecv, &args),
        Command::Topo(args) => topo(&args),
        Command::Train(args) => train::train(&args),
        Command::Calibrate { file } => calibrate::calibrate(&file),
        Command::Compare(args) => compare::compare(&args),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(errors) => {
            for error in errors {
                eprintln!("error: {error}");
            }
            ExitCode::from(2)
        }
    }
}

/// `--fault KIND:…:RATE`.
fn parse_fault(text: &str) -> Result<fabricscope::scenario::Fault, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let kind: fabricscope::scenario::FaultKind =
        serde_json::from_value(serde_json::Value::String(parts[0].into()))
            .map_err(|_| "the kind is nic, nvlink, gpu, leaf_uplink or spine".to_string())?;
    let number = |s: &str| s.parse::<u32>().map_err(|_| format!("'{s}' is not an index"));
    let rate =
        parts.last().and_then(|r| r.parse::<f64>().ok()).ok_or("the last field is the rate, 0 to 1")?;
    let mut fault = fabricscope::scenario::Fault { kind, node: 0, leaf: 0, index: 0, rate };
    match (kind, parts.len()) {
        (fabricscope::scenario::FaultKind::Spine, 3) => fault.index = number(parts[1])?,
        (fabricscope::scenario::FaultKind::LeafUplink, 4) => {
            (fault.leaf, fault.index) = (number(parts[1])?, number(parts[2])?)
        }
        (
            fabricscope::scenario::FaultKind::Nic
            | fabricscope::scenario::FaultKind::Nvlink
            | fabricscope::scenario::FaultKind::Gpu,
            4,
        ) => {
            (fault.node, fault.index) = (number(parts[1])?, number(parts[2])?)
        }
        _ => return Err(
            "use nic:NODE:NIC:RATE, nvlink:NODE:GPU:RATE, gpu:NODE:GPU:RATE, leaf_uplink:LEAF:UPLINK:RATE or spine:SPINE:RATE"
                .into(),
        ),
    }
    Ok(fault)
}

fn read_file(path: &str) -> Result<String, Vec<ScenarioError>> {
    std::fs::read_to_string(path).map_err(|error| {
        vec![ScenarioError { field: "--scenario".into(), problem: format!("cannot read {path}: {error}") }]
    })
}

fn scenario_from(
    args: &HardwareArgs,
    size_bytes: u64,
    channels: Option<u32>,
    engine: bool,
) -> Result<ValidScenario, Vec<ScenarioError>> {
    let mut scenario = match &args.scenario {
        Some(path) => Scenario::from_json(&read_file(path)?).map_err(|error| {
            vec![ScenarioError { field: error.field, problem: format!("{} (in {path})", error.problem) }]
        })?,
        None => Scenario::default_demo(),
    };
    let mut errors = apply_hardware(args, &mut scenario);
    if channels.is_some() {
        scenario.channels = channels;
    }
    scenario.size_bytes = fabricscope::units::round_to_elements(size_bytes);
    let checked = if engine { scenario.validate() } else { scenario.validate_fabric() };
    match checked {
        Ok(valid) if errors.is_empty() => Ok(valid),
        Ok(_) => Err(errors),
        Err(more) => {
            errors.extend(more);
            Err(errors)
        }
    }
}

/// The hardware flags over a scenario; returns the flags' own problems.
fn apply_hardware(args: &HardwareArgs, scenario: &mut Scenario) -> Vec<ScenarioError> {
    let mut errors = import::apply(args, scenario);
    if let Some(preset) = &args.preset {
        scenario.preset = preset.clone();
    }
    if let Some(nodes) = args.nodes {
        scenario.nodes = nodes;
    }
    let fabric = &mut scenario.fabric;
    if let Some(value) = &args.fabric {
        choice("--fabric", "fabric.technology", value)
            .map(|v| fabric.technology = v)
            .unwrap_or_else(|e| errors.push(e));
    }
    if let Some(value) = &args.topology {
        choice("--topology", "fabric.topology", value)
            .map(|v| fabric.topology = v)
            .unwrap_or_else(|e| errors.push(e));
    }
    if let Some(value) = &args.wiring {
        choice("--wiring", "fabric.wiring", value)
            .map(|v| fabric.wiring = v)
            .unwrap_or_else(|e| errors.push(e));
    }
    if let Some(value) = &args.routing {
        choice("--routing", "fabric.routing", value)
            .map(|v| fabric.routing = Some(v))
            .unwrap_or_else(|e| errors.push(e));
    }
    if args.radix.is_some() {
        fabric.radix = args.radix;
    }
    if let Some(r) = args.oversubscription {
        fabric.oversubscription = r;
    }
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if args.nvlink_bandwidth.is_some() {
        scenario.links.nvlink.bandwidth_gbyte_per_s = args.nvlink_bandwidth;
    }
    if args.nic_bandwidth.is_some() {
        scenario.links.nic.bandwidth_gbyte_per_s = args.nic_bandwidth;
    }
    if args.nic_latency.is_some() {
        scenario.links.nic.latency_ns = args.nic_latency;
    }
    if args.nics_used.is_some() {
        scenario.nics_used = args.nics_used;
    }
    for text in &args.fault {
        match parse_fault(text) {
            Ok(fault) => scenario.faults.push(fault),
            Err(problem) => {
                errors.push(ScenarioError { field: "--fault".into(), problem: format!("{text}: {problem}") })
            }
        }
    }
    if args.collnet {
        scenario.collnet = true;
    }
    if args.no_nvls {
        scenario.nvls = false;
    }
    if let Some(value) = &args.latency {
        choice("--latency", "latency", value)
            .map(|v| scenario.latency = v)
            .unwrap_or_else(|e| errors.push(e));
    }
    errors
}

fn topo(args: &TopoArgs) -> Result<String, Vec<ScenarioError>> {
    let scenario = scenario_from(&args.hardware, ELEM_BYTES, Some(1), false)?;
    let topology = scenario.topology();
    let summary = topology.fabric_summary();
    if args.dot {
        return Ok(dot(&topology));
    }
    if args.json {
        let plan = scenario.fabric_plan();
        return Ok(serde_json::to_string_pretty(&serde_json::json!({ "summary": summary, "plan": plan }))
            .expect("serialises")
            + "\n");
    }
    let plan = scenario.fabric_plan();
    let tech = scenario.scenario().fabric.technology.spec();
    let mut out = String::new();
    out.push_str(&format!(
        "{} nodes × {} ({} GPUs, {} NICs) on {} {:?}, {:?} wiring, radix {}, {}:1 at the leaf\n",
        scenario.scenario().nodes,
        scenario.preset().name,
        topology.n_gpus(),
        summary.nics,
        tech.name,
        plan.kind,
        plan.wiring,
        plan.radix,
        scenario.scenario().fabric.oversubscription
    ));
    out.push_str(&import::describe(scenario.preset()));
    out.push_str(&format!(
        "switches     {} ({} leaves, {} spines or aggregation, {} cores)\n",
        summary.switches, plan.leaves, plan.spines, plan.cores
    ));
    out.push_str(&format!("cables       {} (NIC to leaf and between switches)\n", summary.cables));
    out.push_str(&format!(
        "bisection    {:.0} GB/s per direction at line rate\n",
        summary.bisection_gbyte_per_s
    ));
    out.push_str(&format!("diameter     {} switch hops\n", summary.diameter));
    out.push_str(&format!(
        "routing      {}; NIC latency {} ns, switch hop {} ns, NIC efficiency {}, congested-link efficiency {}\n",
        scenario.routing().name(),
        tech.nic_latency_ns,
        tech.switch_hop_latency_ns,
        tech.nic_efficiency,
        topology.congested_efficiency
    ));
    Ok(out)
}

/// The topology as Graphviz DOT: one undirected edge per cable, labelled with its line rate.
fn dot(topology: &fabricscope::topology::Topology) -> String {
    let mut out = String::from("graph fabricscope {\n  node [shape=box, fontsize=10];\n");
    for (id, _) in topology.vertices() {
        out.push_str(&format!("  v{} [label=\"{}\"];\n", id.0, topology.vertex_name(id)));
    }
    for (id, link) in topology.links() {
        if id.0 % 2 == 0 {
            out.push_str(&format!(
                "  v{} -- v{} [label=\"{} {:.0} GB/s\"];\n",
                link.src.0,
                link.dst.0,
                link.kind.name(),
                link.line_rate.gbyte_per_s()
            ));
        }
    }
    out.push_str("}\n");
    out
}

#[derive(Serialize)]
pub(crate) struct Row {
    size_bytes: u64,
    count: u64,
    #[serde(rename = "type")]
    data_type: &'static str,
    redop: &'static str,
    root: i32,
    time_us: f64,
    algbw_gbyte_per_s: f64,
    busbw_gbyte_per_s: f64,
    /// Wrong elements when the schedule ran on data; `None` when too large to execute.
    wrong: Option<u64>,
    /// The algorithm and protocol the row ran with (the tuner's choice unless forced).
    algorithm: &'static str,
    /// The tuner's pick where the engine ran another (a Tree too big to simulate here).
    #[serde(skip_serializing_if = "Option::is_none")]
    tuner_pick_not_run: Option<&'static str>,
    /// NCCL's model's time for that pick [us]: the tuner's prediction, not simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    tuner_pick_time_us: Option<f64>,
    protocol: &'static str,
    /// The tuner's predicted time [us], beside the engine's.
    tuner_time_us: f64,
    /// Fingerprint of the simulated trace (the page shows the same for the same scenario).
    trace_hash: String,
    /// How the row was obtained: "exact" (every transfer) or "steady state" (a proved period).
    method: &'static str,
    /// NVLSTree cut into fewer chunks than NCCL cuts: both runs and the fit to NCCL's chunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    chunk_fit: Option<fabricscope::ChunkFit>,
    /// A ring too big to run every transfer whose chunks differ by an element: the elements it
    /// ran, rounded down to a multiple of ranks × channels (its time within `fabricscope::ROUNDING_BOUND`).
    #[serde(skip_serializing_if = "Option::is_none")]
    rounded_count: Option<u64>,
    /// No engine run (method "max-min bound"): the exact run's proved latest end [us]; the
    /// row's time is the proved earliest.
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_bound_us: Option<f64>,
    /// A chain run on fewer nodes and extrapolated (method "extrapolated chain (±1%)"): that
    /// run and the paces measured on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    chain: Option<fabricscope::ChainRun>,
}

#[derive(Serialize)]
pub(crate) struct Report<'a> {
    scenario: &'a Scenario,
    n_ranks: u32,
    channels: u32,
    algorithm: &'static str,
    protocol: &'static str,
    rows: Vec<Row>,
    avg_busbw_gbyte_per_s: f64,
    /// At the largest size, each faulted link and the step that waits on it longest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    faults: Vec<table::FaultRow>,
}

fn sweep_command(collective: Collective, args: &SweepArgs) -> Result<String, Vec<ScenarioError>> {
    if args.max < args.min {
        return Err(vec![ScenarioError { field: "--max".into(), problem: "must be at least --min".into() }]);
    }
    let hardware = &args.hardware;
    let scenario = scenario_from(hardware, args.min, args.channels, false)?;
    let mut scenario = scenario.scenario().clone();
    scenario.collective = collective;
    if let Some(root) = args.root {
        scenario.root = root;
    }
    if let Some(proto) = &args.proto {
        scenario.protocol = Some(choice("--proto", "protocol", proto).map_err(|e| vec![e])?);
    }
    if let Some(algo) = &args.algo {
        scenario.algorithm = Some(choice("--algo", "algorithm", algo).map_err(|e| vec![e])?);
    }
    let scenario = scenario.validate()?;
    let sizes = sweep_sizes(args.min, args.max, args.factor);
    let s = scenario.scenario();
    // With faults, the largest size's simulation also says which steps wait on each faulted link
    // (not an AllToAll run from channel 0, whose trace is never expanded, or bounded without a
    // run: its sends are all posted at once, no step waiting on another).
    let expands = |size: u64| {
        let admitted = scenario.with_size(size).map(|s| s.admit(fabricscope::plan::ENGINE_BUDGET));
        !matches!(
            admitted,
            Ok(fabricscope::plan::Admission::Copies { .. }
                | fabricscope::plan::Admission::Bounded { .. }
                | fabricscope::plan::Admission::Chain { .. })
        )
    };
    let (points, faults) = match sizes.split_last() {
        Some((&largest, rest)) if !s.faults.is_empty() && expands(largest) => {
            let mut points = sweep_on_all_cores(&scenario, rest)?;
            let sim = fabricscope::simulate(&scenario.with_size(largest)?).map_err(|e| vec![e])?;
            points.push(fabricscope::sweep_point(&sim, true));
            (points, table::fault_rows(&sim))
        }
        _ => (sweep_on_all_cores(&scenario, &sizes)?, Vec::new()),
    };
    let rows: Vec<Row> = points
        .iter()
        .map(|point| Row {
            size_bytes: point.size_bytes,
            count: point.count,
            data_type: "float",
            redop: if matches!(
                s.collective,
                Collective::AllReduce | Collective::ReduceScatter | Collective::Reduce
            ) {
                "sum"
            } else {
                "none"
            },
            root: if s.collective.has_root() { s.root as i32 } else { -1 },
            algorithm: point.algorithm.nccl_name(),
            tuner_pick_not_run: point.tuner_pick_not_run.map(|a| a.nccl_name()),
            tuner_pick_time_us: point.tuner_pick_time_us,
            protocol: point.protocol.nccl_name(),
            tuner_time_us: point.tuner_time_us,
            trace_hash: point.trace_hash.clone(),
            method: point.method.name(),
            chunk_fit: point.chunk_fit,
            rounded_count: point.rounded_count,
            upper_bound_us: point.upper_bound_us,
            chain: point.chain,
            time_us: point.time_us,
            algbw_gbyte_per_s: point.algbw_gbyte_per_s,
            busbw_gbyte_per_s: point.busbw_gbyte_per_s,
            // A schedule too big to build (a ring run as a steady state) is not checked, as
            // nccl-tests prints N/A when it does not check.
            wrong: if fabricscope::collective::transfer_count(
                s.collective,
                (s.nodes, scenario.n_ranks() / s.nodes.max(1)),
                point.count,
                scenario.channels(),
                Some(point.protocol),
            ) > fabricscope::limits::MAX_TRANSFERS
            {
                None
            } else {
                match verify(&schedule_with(
                    s.collective,
                    (point.algorithm, point.protocol),
                    s.nodes,
                    &scenario.preset().rings,
                    point.count,
                    scenario.channels(),
                    s.root,
                )) {
                    Ok(()) => Some(0),
                    Err(VerifyError::TooLarge { .. }) => None,
                    Err(VerifyError::Wrong { wrong, .. }) => Some(wrong),
                    Err(_) => Some(point.count * scenario.n_ranks() as u64),
                }
            },
        })
        .collect();
    let avg = rows.iter().map(|row| row.busbw_gbyte_per_s).sum::<f64>() / rows.len().max(1) as f64;
    let report = Report {
        scenario: s,
        n_ranks: scenario.n_ranks(),
        channels: scenario.channels(),
        algorithm: match s.algorithm {
            Some(a) => a.nccl_name(),
            None if matches!(s.collective, Collective::AllToAll | Collective::SendRecv) => "P2P",
            None => "auto (the tuner's choice per size)",
        },
        protocol: match s.protocol {
            Some(p) => p.nccl_name(),
            None => "auto (the tuner's choice per size)",
        },
        rows,
        avg_busbw_gbyte_per_s: avg,
        faults,
    };
    if args.json {
        return Ok(serde_json::to_string_pretty(&report).expect("the report serialises") + "\n");
    }
    Ok(table::table(&scenario, &report))
}

/// `fabricscope::sweep` on every core: each size is its own deterministic run, so the rows are
/// the same as one after another, only sooner, and so is the error. The largest sizes, the
/// longest runs, start first.
fn sweep_on_all_cores(
    scenario: &ValidScenario,
    sizes: &[u64],
) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    use rayon::prelude::*;
    let mut points: Vec<Result<SweepPoint, Vec<ScenarioError>>> =
        sizes.par_iter().rev().map(|&size| fabricscope::sweep_size(scenario, size, true)).collect();
    points.reverse();
    // The smallest size's problem, as one run after another would have stopped at.
    points.into_iter().collect()
}
