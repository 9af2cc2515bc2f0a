//! Engine benchmarks: wall time of full simulations at growing scale, printed as figures (one
//! JSON object per line on stdout, for `cargo xtask bench` to tabulate). Not a test: nothing
//! here passes or fails on time.
//!
//! `cargo bench -p fabricscope --bench engine` (release build, one core).

use fabricscope::plan::PAGE_BUDGET;
use fabricscope::scenario::{Collective, FabricConfig, FabricTopology};
use fabricscope::train::comm::OpMethod;
use fabricscope::train::TrainScenario;
use fabricscope::{simulate, Job, Scenario};
use std::time::Instant;

/// Best wall time of `runs` runs [s], and what the last run returned. The process's peak
/// resident memory is reset first (`reset_peak`), so that `peak` after it is this row's.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    reset_peak();
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = f();
        best = best.min(start.elapsed().as_secs_f64());
        out = Some(value);
    }
    (best, out.expect("at least one run"))
}

fn report(name: &str, seconds: Option<f64>, detail: &str) {
    let seconds = seconds.map(|s| format!("{s:.6}")).unwrap_or_else(|| "null".into());
    println!("{{\"bench\": \"{name}\", \"seconds\": {seconds}, \"detail\": \"{detail}\"}}");
}

/// Ring AllReduce of 1 GiB on `nodes` DGX H100 on a rail-optimised two-tier fabric.
fn ring(nodes: u32, channels: Option<u32>) -> Scenario {
    Scenario {
        nodes,
        size_bytes: 1 << 30,
        channels,
        algorithm: Some(fabricscope::collective::Algorithm::Ring),
        protocol: Some(fabricscope::collective::Protocol::Simple),
        // Two tiers where they hold the cluster (the case), three beyond.
        fabric: FabricConfig {
            topology: if (2..=512).contains(&nodes) {
                FabricTopology::LeafSpine
            } else {
                FabricTopology::Auto
            },
            // A radix-64 3-tier fat-tree holds 65,536 NICs: the node cap's 131,072 take
            // radix-128 switches (the size of Quantum-X800's 144 ports).
            radix: (nodes > 8192).then_some(128),
            ..FabricConfig::default()
        },
        ..Scenario::default_demo()
    }
}

/// One training step timed, or the reason it does not run.
fn train(name: &str, job: &TrainScenario) {
    match job.validate() {
        Ok(valid) => {
            let (seconds, r) = time(3, || valid.run());
            let flows: u64 = r.ops.iter().map(|op| op.transfers).sum();
            let extrapolated = r.ops.iter().filter(|op| op.method != OpMethod::Exact).count();
            let detail = format!(
                "step {:.3} s simulated, {} ops ({extrapolated} extrapolated), {flows} transfers{}",
                r.step_ns / 1e9,
                r.ops.len(),
                peak()
            );
            report(name, Some(seconds), &detail);
        }
        Err(errors) => report(
            name,
            None,
            &errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ").replace('"', "'"),
        ),
    }
}

fn main() {
    // The 1,024-GPU row first, then the others smallest first; each row's peak memory is its own
    // (`reset_peak`).
    for (name, nodes, channels, runs) in [
        ("ring-1GiB-1024-gpus", 128, None, 3),
        ("ring-1GiB-8-gpus", 1, None, 5),
        ("ring-1GiB-64-gpus", 8, None, 3),
        ("ring-1GiB-128-gpus", 16, None, 1),
        ("ring-1GiB-512-gpus-1-channel", 64, Some(1), 1),
        ("ring-1GiB-1024-gpus-1-channel", 128, Some(1), 3),
        ("ring-1GiB-1024-gpus-2-channels", 128, Some(2), 3),
        ("ring-1GiB-16384-gpus", 2048, None, 1),
        ("ring-1GiB-16384-gpus-1-channel", 2048, Some(1), 1),
        ("ring-1GiB-131072-gpus", 16384, None, 1),
    ] {
        match ring(nodes, channels).validate() {
            Ok(valid) => {
                let (seconds, sim) = time(runs, || simulate(&valid));
                match sim {
                    Ok(sim) => {
                        let how = match &sim.steady {
                            Some(s) if sim.summary.method == fabricscope::Method::Extrapolated => format!(
                                "extrapolated steady state (within {:.0}%): {} of {} steps simulated ({} flows), then {} ns per step measured on up to {} more{}, {} steps extrapolated",
                                100.0 * fabricscope::EXTRAPOLATION_BOUND,
                                s.simulated_steps, s.total_steps, s.simulated_transfers, s.period_ns(), fabricscope::MEASURED_STEPS,
                                s.measured_nodes.map_or(String::new(), |m| format!(" (channel 0 of {m} of {nodes} nodes, exact by rotation)")),
                                s.repeats
                            ),
                            Some(s) => format!(
                                "steady state: {} of {} steps simulated ({} flows), period {} step(s) of {} ns proved at step {}, repeated {} times",
                                s.simulated_steps, s.total_steps, s.simulated_transfers, s.period_steps, s.period_ns(), s.step_at_to, s.repeats
                            ),
                            None if sim.summary.method == fabricscope::Method::Symmetric => format!(
                                "exact by symmetry: channel 0's {} flows simulated for {} channels",
                                sim.trace.flows.len() as u64 / sim.schedule.n_channels.max(1) as u64,
                                sim.schedule.n_channels
                            ),
                            None => format!("{} flows simulated", sim.trace.flows.len()),
                        };
                        let peak = peak();
                        let detail = format!(
                            "{} GPUs, {} transfers, {} event batches, busbw {:.1} GB/s; {how}{peak}",
                            valid.n_ranks(),
                            sim.n_transfers(),
                            sim.batches(),
                            sim.summary.busbw_gbyte_per_s
                        );
                        report(name, Some(seconds), &detail);
                    }
                    Err(error) => report(name, None, &error.to_string().replace('"', "'")),
                }
            }
            Err(errors) => report(
                name,
                None,
                &errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ").replace('"', "'"),
            ),
        }
    }
    // The tuner's own pick at 1,024 and 16,384 GPUs as `fabricscope allreduce --nodes N -b 1G
    // -e 1G` makes its row: NVLSTree from part 0 of channels 0 and 1, the whole trace's hash
    // streamed.
    // And AllToAll on 1,024 GPUs as `fabricscope alltoall --nodes 128 -b 1G -e 1G` makes its row:
    // channel 0 of 8 (1,047,552 of 8,380,416 transfers) for all, the whole trace's hash streamed;
    // its tuner's time is the model's own (NCCL has none for P2P). On 16,384 GPUs, beyond even
    // channel 0, the row is bounded by max-min sharing from channel 0's pairs counted in parts:
    // no engine run, no hash.
    // And SendRecv on 16,384 and 131,072 GPUs, beyond even channel 0: a few nodes' sources of
    // channel 0 for all, where the ranks turn by whole nodes, the whole trace's hash streamed.
    let alltoall = |nodes| Scenario { nodes, collective: Collective::AllToAll, ..Scenario::default_demo() };
    let sendrecv = |nodes| Scenario {
        collective: Collective::SendRecv,
        algorithm: None,
        protocol: None,
        ..ring(nodes, None)
    };
    let tuners = |nodes| Scenario { nodes, ..Scenario::default_demo() };
    // And Broadcast on 16,384 GPUs: its chain run on 128 nodes, every transfer, the rest
    // extrapolated (`Method::Chain`), every hop routed for the link bytes; no hash.
    let broadcast = |nodes| Scenario { nodes, collective: Collective::Broadcast, ..Scenario::default_demo() };
    for (name, scenario, runs, model) in [
        ("tuner-pick-1GiB-1024-gpus", tuners(128), 3, "NCCL's model"),
        ("tuner-pick-1GiB-16384-gpus", tuners(2048), 1, "NCCL's model"),
        ("alltoall-1GiB-1024-gpus", alltoall(128), 1, "the tuner's bound"),
        ("alltoall-1GiB-16384-gpus", alltoall(2048), 3, "the tuner's bound"),
        ("sendrecv-1GiB-16384-gpus", sendrecv(2048), 3, "the tuner's bound"),
        ("sendrecv-1GiB-131072-gpus", sendrecv(16384), 1, "the tuner's bound"),
        ("broadcast-1GiB-16384-gpus", broadcast(2048), 1, "NCCL's model"),
    ] {
        let sized = Scenario { size_bytes: 1 << 30, ..scenario };
        match sized.validate().map(|valid| time(runs, || fabricscope::sweep_size(&valid, 1 << 30, true))) {
            Ok((seconds, Ok(row))) => {
                let peak = peak();
                // NVLSTree's chunks: fitted to NCCL's, or the run at the model's alone, said so.
                let chunks = match row.chunk_fit {
                    Some(fit) if fit.fine_ns.is_some() => format!(
                        " from {} and {} chunks per part to NCCL's {}",
                        fit.chunks, fit.fine_chunks, fit.nccl_chunks
                    ),
                    Some(fit) => format!(
                        " at {} chunks per part, not fitted to NCCL's {} (the run at {} is beyond the engine)",
                        fit.chunks, fit.nccl_chunks, fit.fine_chunks
                    ),
                    None => String::new(),
                };
                let (bounds, how) = match (row.upper_bound_us, row.chain) {
                    (Some(upper), _) => (format!(" to {upper:.0}"), "bounded".to_string()),
                    (None, Some(run)) => {
                        (String::new(), format!("extrapolated from {} nodes run", run.nodes_run))
                    }
                    (None, None) => (String::new(), "simulated".to_string()),
                };
                let detail = format!(
                    "{} {}, {}{chunks}: {:.0}{bounds} us {how}, busbw {:.1} GB/s; {model} {:.0} us; trace {}{peak}",
                    row.algorithm.nccl_name(),
                    row.protocol.nccl_name(),
                    row.method.name(),
                    row.time_us,
                    row.busbw_gbyte_per_s,
                    row.tuner_time_us,
                    match (row.trace_hash.as_str(), row.chain) {
                        ("", Some(_)) => "none (the whole chain is not run)",
                        ("", None) => "none (no engine run)",
                        (hash, _) => hash,
                    }
                );
                report(name, Some(seconds), &detail);
            }
            Ok((_, Err(errors))) | Err(errors) => report(
                name,
                None,
                &errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ").replace('"', "'"),
            ),
        }
    }
    // The page's own jobs, natively: the browser rows' twins (`Job::admitted` under the page's
    // budget, the trace hashed before the result as the page does).
    // And the tuner's choice at 1,024 GPUs: NVLSTree shown from its first channels.
    let tuners = Scenario { algorithm: None, protocol: None, ..ring(128, None) };
    for (name, scenario) in [
        ("page-ring-1GiB-64-gpus", ring(8, None)),
        ("page-ring-1GiB-1024-gpus-1-channel", ring(128, Some(1))),
        ("page-ring-1GiB-1024-gpus", ring(128, None)),
        ("page-nvlstree-1GiB-1024-gpus", tuners),
    ] {
        let Ok(valid) = scenario.validate() else {
            report(name, None, "does not validate");
            continue;
        };
        let job = |valid| Job::admitted(valid, PAGE_BUDGET).map(|job| job.showing_images().hashed().run());
        let (seconds, sim) = time(3, || job(&valid));
        match sim {
            Ok(Ok(sim)) => report(name, Some(seconds), &format!("trace hash {}", sim.hash_hex())),
            Ok(Err(error)) => report(name, None, &error.to_string().replace('"', "'")),
            Err(transfers) => report(name, None, &format!("{transfers} transfers: beyond the page")),
        }
    }
    // A GPT-3 175B training step on 1,024 and 16,384 GPUs (TP 8 × PP 16 × DP 8 or 128): every
    // collective kind through the engine with all its groups at once.
    for (name, nodes, dp) in [("train-gpt3-1024-gpus", 128, 8), ("train-gpt3-16384-gpus", 2048, 128)] {
        let job = TrainScenario {
            cluster: Scenario { nodes, ..Scenario::default_demo() },
            dp,
            global_batch: 64 * dp,
            ..TrainScenario::default_demo()
        };
        train(name, &job);
    }
    // Llama 2 7B on 1,024 GPUs at DP 1,024 (TP 1, PP 1): its DP rings beyond the engine,
    // extrapolated from their first 128 steps (`train::prefix`).
    let job = TrainScenario {
        cluster: Scenario { nodes: 128, ..Scenario::default_demo() },
        model: "llama2-7b".into(),
        tp: 1,
        pp: 1,
        dp: 1024,
        global_batch: 1024,
        ..TrainScenario::default_demo()
    };
    train("train-llama2-7b-dp-1024-gpus", &job);
    // Peak memory of this process over all of the above: the largest row's.
    let most = MOST_KIB.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "{{\"bench\": \"peak-memory\", \"kib\": {}}}",
        if most == 0 { "null".into() } else { most.to_string() }
    );
}

/// The largest peak of the rows so far [KiB].
static MOST_KIB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Resets this process's peak resident memory to what it holds now (Linux's `clear_refs` 5), so
/// that the next `peak` is the row's own: at most what the row needed above what earlier rows
/// left held (the allocator keeps some of what they freed), which `peak` says too.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    START_KIB.store(resident_kib("VmRSS:").unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
}

/// The resident memory at the last `reset_peak` [KiB].
static START_KIB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// "; peak memory N MB (M MB held at its start)": this row's peak since `reset_peak`.
fn peak() -> String {
    let Some(kib) = resident_kib("VmHWM:") else { return String::new() };
    MOST_KIB.fetch_max(kib, std::sync::atomic::Ordering::Relaxed);
    let start = START_KIB.load(std::sync::atomic::Ordering::Relaxed);
    format!("; peak memory {} MB ({} MB held at its start)", kib * 1024 / 1_000_000, start * 1024 / 1_000_000)
}

/// A line of this process's `/proc/self/status` [KiB]: `VmHWM:` its peak resident memory since
/// the last `reset_peak`, `VmRSS:` what it holds now (Linux).
fn resident_kib(field: &str) -> Option<u64> {
    std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    })
}
