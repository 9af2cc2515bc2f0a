//! The sweep's table, as nccl-tests prints it: its run header, device list, column header,
//! rows with out-of-place and in-place figures (the same: the model has no copy cost) and
//! footer, byte for byte (`fabricscope::logs::write`), so tools that read nccl-tests logs by
//! column position read ours. What is ours (the cluster, the NCCL environment, each size's
//! algorithm, protocol, tuner prediction and trace hash) is in `#` lines around it.

use super::Report;
use fabricscope::logs::write::{device_list, footer, row_body, row_preamble, run_header, table_header};
use fabricscope::ValidScenario;
use serde::Serialize;

/// Ranks the device list names one by one; beyond, a line says how many more.
const LISTED_RANKS: u32 = 1024;

pub fn table(scenario: &ValidScenario, report: &Report) -> String {
    let s = scenario.scenario();
    let preset = scenario.preset();
    let binary = s.collective.perf_binary();
    let mut out = String::new();
    out.push_str(&format!(
        "# fabricscope {binary} (simulated): {} GPUs = {} × {}, {} {:?}, NCCL_ALGO={} NCCL_PROTO={}, {} channels\n",
        report.n_ranks,
        s.nodes,
        preset.name,
        s.fabric.technology.spec().name,
        scenario.fabric_plan().kind,
        report.algorithm,
        report.protocol,
        report.channels
    ));
    out.push_str(&format!("# NCCL environment: {}\n", scenario.nccl_env().join(" ")));
    if s.latency == fabricscope::scenario::LatencyModel::Links {
        out.push_str(
            "# latency: the links' alone, no NCCL launch or protocol latency (the textbook α-β model)\n",
        );
    }
    out.push_str("# in-place figures equal out-of-place ones: the model has no copy cost\n");
    let sizes: Vec<u64> = report.rows.iter().map(|r| r.size_bytes).collect();
    let (min, max) = (sizes.first().copied().unwrap_or(0), sizes.last().copied().unwrap_or(0));
    let factor = match sizes.as_slice() {
        [a, b, ..] if *a > 0 => b / a,
        _ => 2,
    };
    out.push_str(&run_header(binary, report.n_ranks, min, max, factor));
    // The device list, each node a host, its GPUs named as CUDA names them.
    let g = preset.gpus_per_node;
    let listed_nodes = (LISTED_RANKS / g.max(1)).max(1).min(s.nodes);
    out.push_str(&device_list(g, listed_nodes, &format!("NVIDIA {}", preset.gpu.name)));
    if listed_nodes < s.nodes {
        out.push_str(&format!(
            "#  … and {} more ranks on {} more nodes\n",
            (s.nodes - listed_nodes) * g,
            s.nodes - listed_nodes
        ));
    }
    out.push_str(&table_header());
    for row in &report.rows {
        let body = row_body(row.time_us, row.algbw_gbyte_per_s, row.busbw_gbyte_per_s, row.wrong);
        out.push_str(&row_preamble(row.size_bytes, row.count, row.data_type, row.redop, row.root as i64));
        out.push_str(&body);
        out.push_str(&body);
        out.push('\n');
    }
    out.push_str(&footer(report.avg_busbw_gbyte_per_s, binary));
    // Ours, per size. The page prints the same trace hash under its results.
    out.push_str("# fabricscope per size: the algorithm and protocol it ran with (the tuner's choice unless forced), how the row was obtained (exact: every transfer simulated; exact by symmetry: channel 0 simulated (channels 0 and 1 where they alternate NCCL's two trees, of an NVLSTree part 0 of each, the others parts images under a turn of the node's GPUs; of a ring that turns by whole nodes, a few nodes' share of it), the others its proved images; steady state: a simulated prefix and its proved period; extrapolated steady state (±3%): a simulated prefix and a per-step time measured on a longer one, within 3% of every transfer simulated; fitted to NCCL's chunks (±1%): NVLSTree run at the model's 16 chunks per part and at 32, its time fitted to NCCL's chunk count as A + B/chunks, within 1% of running every chunk; max-min bound: no engine run, an AllToAll too big even from channel 0, every pair of channel 0 routed and its time the earliest max-min sharing allows, the busiest link's bytes from its first flow's start, with the latest it allows beside it; extrapolated chain (±1%): a Broadcast's or Reduce's chain too big to run whole, run on fewer nodes, every transfer simulated, and the rest extrapolated from the paces of its wave's head and tail, within 1% of every transfer simulated, its link bytes every hop's routed), NCCL's model's prediction, the trace hash\n");
    for row in &report.rows {
        let instead = match (row.tuner_pick_not_run, row.tuner_pick_time_us) {
            (Some(pick), Some(model)) => format!(
                " (the tuner picks {pick}, NCCL's model {model:.2} us for it, too big to simulate here: the best ring row ran)"
            ),
            _ => String::new(),
        };
        let alltoall = scenario.scenario().collective == fabricscope::Collective::AllToAll;
        let rounded = row
            .rounded_count
            .map(|r| rounded_words(r, row.count, (report.n_ranks, report.channels), alltoall));
        let bounded = row.upper_bound_us.map(|upper| {
            format!(
                " (the exact run ends between {:.2} and {upper:.2} us, at most {:+.3}%)",
                row.time_us,
                100.0 * (upper / row.time_us - 1.0)
            )
        });
        let chain = row.chain.map(|run| {
            format!(
                " (the chain ran on {} nodes in {:.2} us; beyond them its head moves {:.2} us a node and its tail falls behind {:.3} us a node more)",
                run.nodes_run,
                run.run_ns as f64 / 1e3,
                run.front_ns_per_node / 1e3,
                run.lag_ns_per_node / 1e3
            )
        });
        let notes = row.chunk_fit.map(chunk_words).unwrap_or_default()
            + &bounded.unwrap_or_default()
            + &chain.unwrap_or_default()
            + &rounded.unwrap_or_default();
        let trace = match (row.trace_hash.as_str(), row.chain) {
            ("", Some(_)) => "none (the whole chain is not run)",
            ("", None) => "none (no engine run)",
            (hash, _) => hash,
        };
        out.push_str(&format!(
            "# fabricscope size {:>12} B: {} {}{instead}, {}{notes}, tuner {:.2} us, trace {trace}\n",
            row.size_bytes, row.algorithm, row.protocol, row.method, row.tuner_time_us
        ));
    }
    for f in &report.faults {
        let state = match f.rate {
            0.0 => "down (routed around)".to_string(),
            rate => format!("at {:.0}%", 100.0 * rate),
        };
        out.push_str(&format!("# fabricscope fault: {} {state}, {} transfers over it", f.link, f.transfers));
        match f.step {
            Some(step) => out.push_str(&format!(
                "; at {} B {} of {} steps wait on it, step {} longest: rank {} → {} takes {:.1} us, the step's other transfers of its kind {:.1} us (median)\n",
                f.size_bytes, f.steps_waiting, f.steps, step + 1, f.src, f.dst, f.slow_us, f.others_us
            )),
            None => out.push_str(&format!(" at {} B\n", f.size_bytes)),
        }
    }
    out
}

/// ", run at 268434432 of its 268435456 elements (…)": a ring run at fewer elements, whose steps
/// are alike (`fabricscope::Rounding`), or an AllToAll whose channels are then copies of one
/// another (`collective::alltoall_rounded_count`), and the bound on its time.
fn rounded_words(rounded: u64, asked: u64, (n_ranks, channels): (u32, u32), alltoall: bool) -> String {
    let bound = 100.0 * fabricscope::ROUNDING_BOUND;
    match alltoall {
        false => format!(
            ", run at {rounded} of its {asked} elements (rounded down to a multiple of {n_ranks} ranks × {channels} channels: chunks that differ by an element never repeat; within {bound:.0}% of the asked ring where both run)"
        ),
        true => format!(
            ", run at {rounded} of its {asked} elements (rounded down to a multiple of {n_ranks} ranks × {channels} channels: slices that differ by an element keep channel 0 from standing for the others; within {bound:.0}% of the asked AllToAll where both run)"
        ),
    }
}

/// ", from 16 and 32 chunks per part, both exact by symmetry (6575.78 and 6132.44 us), to NCCL's
/// 256 of 64 KiB", or
/// where the finer run was beyond the engine, that the row's time is the model's chunks'.
fn chunk_words(fit: fabricscope::ChunkFit) -> String {
    let nccl = format!("NCCL's {} of {} KiB", fit.nccl_chunks, fit.nccl_chunk_bytes >> 10);
    match fit.fine_ns {
        Some(fine) => format!(
            ", from {} and {} chunks per part, both {} ({:.2} and {:.2} us), to {nccl}",
            fit.chunks,
            fit.fine_chunks,
            fit.runs.name(),
            fit.run_ns as f64 / 1e3,
            fine as f64 / 1e3
        ),
        None => format!(
            ", {} chunks per part where {nccl} (the run at {} that would fit it is beyond the engine: this time overstates NCCL's)",
            fit.chunks, fit.fine_chunks
        ),
    }
}

/// A faulted link and the step that waits on it (`Simulation::fault_waits`), at one size.
#[derive(Serialize)]
pub struct FaultRow {
    link: String,
    rate: f64,
    size_bytes: u64,
    transfers: u32,
    steps_waiting: u32,
    /// 0-based; absent when no transfer crossed the link.
    step: Option<u32>,
    steps: u32,
    src: u32,
    dst: u32,
    slow_us: f64,
    others_us: f64,
}

/// What each faulted link of `sim` holds up.
pub fn fault_rows(sim: &fabricscope::Simulation) -> Vec<FaultRow> {
    let size_bytes = sim.summary.size_bytes;
    let steps = sim.steady.map_or(sim.schedule.n_steps, |steady| steady.total_steps);
    sim.fault_waits()
        .into_iter()
        .map(|w| {
            let link = sim.topology.link(w.link);
            let name = |v| sim.topology.vertex_name(v);
            FaultRow {
                link: format!("{} ↔ {}", name(link.src), name(link.dst)),
                rate: w.rate,
                size_bytes,
                transfers: w.transfers,
                steps_waiting: w.steps_waiting,
                step: w.worst.as_ref().map(|x| x.step),
                steps,
                src: w.worst.as_ref().map_or(0, |x| x.src),
                dst: w.worst.as_ref().map_or(0, |x| x.dst),
                slow_us: w.worst.as_ref().map_or(0.0, |x| x.slow_ns as f64 / 1e3),
                others_us: w.worst.as_ref().map_or(0.0, |x| x.others_ns as f64 / 1e3),
            }
        })
        .collect()
}
