//! `fabricscope train`: one training step of a model laid out TP × PP × DP on the cluster.

use crate::{apply_hardware, choice, read_file, HardwareArgs};
use clap::Args;
use fabricscope::scenario::ScenarioError;
use fabricscope::train::comm::OpMethod;
use fabricscope::train::prefix::EXTRAPOLATED_BOUND;
use fabricscope::train::{scaling_of, scaling_run, OpKind, TrainReport, TrainScenario, ValidTrain};
use fabricscope::units::{format_bytes, format_duration_ns};

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    hardware: HardwareArgs,
    /// A training scenario file (JSON: {"cluster": {...}, "model": ..., "tp": ...}); flags override it.
    #[arg(long, value_name = "FILE")]
    job: Option<String>,
    /// gpt3-175b, llama2-7b, llama2-70b, llama3-405b, gpt2-small, or with experts
    /// mixtral-8x7b, deepseek-v3, qwen3-235b-a22b.
    #[arg(long)]
    model: Option<String>,
    /// Tensor-parallel size.
    #[arg(long)]
    tp: Option<u32>,
    /// Context-parallel size: each sequence split over CP ranks (ring attention).
    #[arg(long)]
    cp: Option<u32>,
    /// Pipeline-parallel size.
    #[arg(long)]
    pp: Option<u32>,
    /// Data-parallel size; default: the GPUs left over by TP × PP.
    #[arg(long)]
    dp: Option<u32>,
    /// Expert-parallel size: each MoE layer's experts split over EP ranks of the DP dimension.
    #[arg(long)]
    ep: Option<u32>,
    /// Model chunks per pipeline stage: 2 or more is interleaved 1F1B.
    #[arg(long, value_name = "V")]
    virtual_stages: Option<u32>,
    /// Sequence length to train at, in place of the model's own (e.g. 131072).
    #[arg(long, value_name = "TOKENS")]
    seq_len: Option<u32>,
    /// Sequences per micro-batch.
    #[arg(long)]
    micro_batch: Option<u32>,
    /// Sequences per step over all replicas.
    #[arg(long)]
    global_batch: Option<u32>,
    /// Sequence parallelism: true or false.
    #[arg(long, value_name = "BOOL")]
    sp: Option<bool>,
    /// ZeRO stage 0-3 (3 = FSDP).
    #[arg(long)]
    zero: Option<u8>,
    /// Rank order, innermost first: tp-pp-dp, tp-dp-pp, pp-tp-dp, pp-dp-tp, dp-tp-pp, dp-pp-tp.
    #[arg(long)]
    order: Option<String>,
    /// Activation recomputation: none, selective or full.
    #[arg(long)]
    recompute: Option<String>,
    /// Fraction of peak BF16 the kernels reach (0-1].
    #[arg(long)]
    efficiency: Option<f64>,
    /// Price of a GPU-hour [USD]; default: an assumed price for the fabric.
    #[arg(long, value_name = "USD")]
    gpu_hour_usd: Option<f64>,
    /// Reserved or committed-use discount (0-1).
    #[arg(long)]
    discount: Option<f64>,
    /// Tokens to train on (e.g. 300e9).
    #[arg(long)]
    tokens: Option<f64>,
    /// Checkpoint file system bandwidth [GB/s].
    #[arg(long, value_name = "GB/S")]
    fs_bandwidth: Option<f64>,
    /// Minutes between checkpoints.
    #[arg(long, value_name = "MIN")]
    checkpoint_interval: Option<f64>,
    /// Also run the step at these DP sizes (e.g. 1,2,4) and print the scaling efficiency.
    #[arg(long, value_name = "DPS", value_delimiter = ',')]
    scaling: Vec<u32>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn job_from(args: &TrainArgs) -> Result<ValidTrain, Vec<ScenarioError>> {
    let mut job = match &args.job {
        Some(path) => TrainScenario::from_json(&read_file(path)?).map_err(|e| {
            vec![ScenarioError { field: e.field, problem: format!("{} (in {path})", e.problem) }]
        })?,
        None => TrainScenario::default_demo(),
    };
    if let Some(path) = &args.hardware.scenario {
        job.cluster = fabricscope::Scenario::from_json(&read_file(path)?).map_err(|e| {
            vec![ScenarioError {
                field: format!("cluster.{}", e.field),
                problem: format!("{} (in {path})", e.problem),
            }]
        })?;
    }
    let mut errors: Vec<ScenarioError> = apply_hardware(&args.hardware, &mut job.cluster)
        .into_iter()
        .map(|e| ScenarioError { field: format!("cluster.{}", e.field), ..e })
        .collect();
    if let Some(model) = &args.model {
        job.model = model.clone();
        job.custom_model = None;
    }
    let explicit_dp = args.dp.or(args.job.as_ref().map(|_| job.dp));
    job.tp = args.tp.unwrap_or(job.tp);
    job.cp = args.cp.unwrap_or(job.cp);
    job.pp = args.pp.unwrap_or(job.pp);
    job.seq_len = args.seq_len.or(job.seq_len);
    job.micro_batch = args.micro_batch.unwrap_or(job.micro_batch);
    job.ep = args.ep.unwrap_or(job.ep);
    job.virtual_stages = args.virtual_stages.unwrap_or(job.virtual_stages);
    job.dp = match explicit_dp {
        Some(dp) => dp,
        None => {
            // The GPUs left over by TP × CP × PP, keeping the micro-batches per pipeline.
            let gpus = job.cluster.validate_fabric().map(|v| v.n_ranks()).unwrap_or(0);
            let dp = (gpus / (job.tp * job.cp * job.pp).max(1)).max(1);
            if args.global_batch.is_none() {
                job.global_batch = job.global_batch / job.dp.max(1) * dp;
            }
            dp
        }
    };
    job.global_batch = args.global_batch.unwrap_or(job.global_batch);
    job.sequence_parallel = args.sp.unwrap_or(job.sequence_parallel);
    job.zero = args.zero.unwrap_or(job.zero);
    if let Some(order) = &args.order {
        choice("--order", "order", order).map(|v| job.order = v).unwrap_or_else(|e| errors.push(e));
    }
    if let Some(recompute) = &args.recompute {
        choice("--recompute", "recompute", recompute)
            .map(|v| job.recompute = v)
            .unwrap_or_else(|e| errors.push(e));
    }
    job.compute_efficiency = args.efficiency.unwrap_or(job.compute_efficiency);
    if args.gpu_hour_usd.is_some() {
        job.cost.gpu_hour_usd = args.gpu_hour_usd;
    }
    job.cost.discount = args.discount.unwrap_or(job.cost.discount);
    job.cost.tokens = args.tokens.unwrap_or(job.cost.tokens);
    job.storage.write_gbyte_per_s = args.fs_bandwidth.unwrap_or(job.storage.write_gbyte_per_s);
    job.storage.interval_min = args.checkpoint_interval.unwrap_or(job.storage.interval_min);
    match job.validate() {
        Ok(valid) if errors.is_empty() => Ok(valid),
        Ok(_) => Err(errors),
        Err(more) => {
            errors.extend(more);
            Err(errors)
        }
    }
}

pub fn train(args: &TrainArgs) -> Result<String, Vec<ScenarioError>> {
    let job = job_from(args)?;
    let report = run_saying_so(&job);
    // The scaling points are independent runs: side by side on every core.
    use rayon::prelude::*;
    let runs: Vec<(u32, f64)> =
        args.scaling.par_iter().map(|&dp| scaling_run(job.scenario(), dp)).collect::<Result<_, _>>()?;
    let curve = scaling_of(&runs);
    if args.json {
        let value = serde_json::json!({ "job": job.scenario(), "report": report, "scaling": curve.iter().map(|&(gpus, tps, eff)| serde_json::json!({"gpus": gpus, "tokens_per_s": tps, "efficiency": eff})).collect::<Vec<_>>() });
        return Ok(serde_json::to_string_pretty(&value).expect("serialises") + "\n");
    }
    Ok(table(&job, &report, &curve))
}

/// The step on every core, saying on stderr how far it has got every `EVERY` once it has taken
/// that long (a big step over RoCE takes a minute and more, its largest runs first: GPT-3 on 512
/// DGX H100 over RoCE, two runs of 1.57 million transfers in one max-min component, about 2 min).
fn run_saying_so(job: &fabricscope::train::ValidTrain) -> fabricscope::train::TrainReport {
    use std::sync::{Condvar, Mutex};
    const EVERY: std::time::Duration = std::time::Duration::from_secs(10);
    let start = std::time::Instant::now();
    // The latest progress, and whether the step is done.
    let state = (Mutex::new((None::<fabricscope::train::StepProgress>, false)), Condvar::new());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let (lock, wake) = &state;
            let Ok(mut guard) = lock.lock() else { return };
            // Done before this thread first looks: nothing to wait for.
            while !guard.1 {
                let Ok((next, waited)) = wake.wait_timeout(guard, EVERY) else { return };
                guard = next;
                if let (Some(p), false, true) = (guard.0, guard.1, waited.timed_out()) {
                    eprintln!(
                        "fabricscope train: simulating the step ({:.0} s): pass {}, {} of its {} engine runs done ({} transfers in all)",
                        start.elapsed().as_secs_f64(),
                        p.pass,
                        p.runs_done,
                        p.runs,
                        p.transfers
                    );
                }
            }
        });
        let report = job.run_reporting(&|p| {
            if let Ok(mut guard) = state.0.lock() {
                guard.0 = Some(p);
            }
        });
        if let Ok(mut guard) = state.0.lock() {
            guard.1 = true;
        }
        state.1.notify_all();
        report
    })
}

fn secs(ns: f64) -> String {
    format_duration_ns(ns)
}

fn table(job: &ValidTrain, r: &TrainReport, curve: &[(u32, f64, f64)]) -> String {
    let s = job.scenario();
    let cluster = job.cluster();
    let tech = cluster.scenario().fabric.technology.spec();
    let mut out = String::new();
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let active = if r.active_params < r.params {
        format!(", {:.1} B active", r.active_params as f64 / 1e9)
    } else {
        String::new()
    };
    out.push_str(&format!(
        "# fabricscope train (simulated): {} ({:.1} B parameters{active}) on {} GPUs = {} × {}, {} {:?}\n",
        r.model_name,
        r.params as f64 / 1e9,
        r.gpus,
        cluster.scenario().nodes,
        cluster.preset().name,
        tech.name,
        cluster.fabric_plan().kind
    ));
    out.push_str(&format!(
        "# layout: TP {} × PP {} × DP {}{}{}{} (order {}), micro-batch {}, global batch {} = {} micro-batches per pipeline; sequence parallel {}, ZeRO-{}, recomputation {:?}, kernels at {:.0}% of peak\n#\n",
        s.tp,
        s.pp,
        s.dp,
        if s.ep > 1 { format!(" (EP {} inside DP)", s.ep) } else { String::new() },
        if s.cp > 1 {
            format!(", CP {} (ring attention over {} tokens)", s.cp, job.shape().seq_len)
        } else {
            String::new()
        },
        if s.virtual_stages > 1 {
            format!(", interleaved 1F1B with {} model chunks per stage", s.virtual_stages)
        } else {
            String::new()
        },
        s.order.name(),
        s.micro_batch,
        s.global_batch,
        r.micro_batches,
        if s.sequence_parallel { "on" } else { "off" },
        s.zero,
        s.recompute,
        100.0 * s.compute_efficiency
    ));
    out.push_str(&format!(
        "step            {:>10}   tokens/s {:.0}   MFU {}\n",
        secs(r.step_ns),
        r.tokens_per_s,
        pct(r.mfu)
    ));
    let b = &r.breakdown;
    let experts = job.shape().moe.is_some();
    for (name, ns) in [
        ("compute", Some(b.compute_ns)),
        ("TP exposed", Some(b.tp_ns)),
        // A dense model has no EP row, a job without CP no CP row.
        ("EP exposed", experts.then_some(b.ep_ns)),
        ("CP exposed", (s.cp > 1).then_some(b.cp_ns)),
        ("PP exposed", Some(b.pp_ns)),
        ("DP/ZeRO exposed", Some(b.dp_ns)),
        ("pipeline bubble", Some(b.bubble_ns)),
        ("optimizer", Some(b.optimizer_ns)),
    ] {
        let Some(ns) = ns else { continue };
        out.push_str(&format!("  {name:<16}{:>10}   {:>6}\n", secs(ns), pct(ns / r.step_ns)));
    }
    out.push_str(&format!(
        "communication   {} of the step exposed; {} in all, overlapped or not\n#\n",
        pct(r.comm_exposed_share),
        secs(r.comm_total_ns)
    ));
    out.push_str("# collectives of one step, each simulated once with every group at once:\n");
    out.push_str("# kind  operation                                   groups × ranks  bytes/call   calls/step  time/call  network\n");
    for op in &r.ops {
        let kind = kind_name(op.kind);
        out.push_str(&format!(
            "  {kind:<4}  {:<42}  {:>6} × {:<5}  {:>10}  {:>10.0}  {:>9}  {}\n",
            op.op.name(),
            op.groups,
            op.group_size,
            format_bytes(op.bytes),
            op.calls,
            secs(op.time_ns as f64),
            if op.crosses_nodes { "crosses nodes" } else { "inside nodes" }
        ));
    }
    for op in &r.ops {
        if let OpMethod::Extrapolated(p) = op.method {
            let rounded = if p.rounded {
                format!(", cut as {} elements (steps alike)", p.count)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "# {} {}: extrapolated steady state (±{:.0}%): each group's first {} of {} steps simulated{rounded}, the rest at the per-step time measured on them\n",
                kind_name(op.kind),
                op.op.name(),
                100.0 * EXTRAPOLATED_BOUND,
                p.steps,
                p.total_steps
            ));
        }
    }
    if !r.contention.is_empty() {
        out.push_str("# where kinds of traffic share links (run together through the engine; how often they meet, from the step's times):
");
        for c in &r.contention {
            out.push_str(&format!(
                "  {:<4}  with {:<4}  {:>9} alone, {:>9} together (+{:.0}%), {} of its time: {} per {} on average
",
                kind_name(c.op),
                kind_name(c.with),
                secs(c.alone_ns as f64),
                secs(c.together_ns as f64),
                100.0 * (c.together_ns as f64 / c.alone_ns.max(1) as f64 - 1.0),
                pct(c.share),
                secs(c.alone_ns as f64 + c.mean_extra_ns()),
                if c.op == OpKind::Dp { "bucket" } else { "call" }
            ));
        }
    }
    let m = &r.memory;
    let gb = |x: f64| format!("{:.1} GB", x / 1e9);
    out.push_str(&format!(
        "#\nmemory per GPU  weights {} + gradients {} + optimizer {} + activations {} = {} of {}: {}\n",
        gb(m.weights),
        gb(m.grads),
        gb(m.optimizer),
        gb(m.activations),
        gb(m.total),
        gb(m.capacity),
        if m.fits { "fits" } else { "DOES NOT FIT" }
    ));
    let c = &r.cost;
    out.push_str(&format!(
        "cost            {:.0} B tokens: {:.1} days, {:.0} GPU-hours at ${:.2}{} − {:.0}% = ${:.0}\n",
        c.tokens / 1e9,
        c.days,
        c.gpu_hours,
        c.gpu_hour_usd,
        if s.cost.gpu_hour_usd.is_none() { " (assumed for this fabric; --gpu-hour-usd)" } else { "" },
        100.0 * c.discount,
        c.usd
    ));
    let st = &r.storage;
    out.push_str(&format!(
        "checkpoints     {:.2} TB each, {:.0} s at {} GB/s, every {} min: {} of training time\n",
        st.checkpoint_bytes / 1e12,
        st.write_s,
        s.storage.write_gbyte_per_s,
        st.interval_min,
        pct(st.overhead)
    ));
    if !curve.is_empty() {
        out.push_str("#\n# scaling (DP grows with the nodes; micro-batches per pipeline stay):\n#   GPUs   tokens/s   efficiency\n");
        for &(gpus, tps, eff) in curve {
            out.push_str(&format!("  {gpus:>6} {tps:>10.0}   {}\n", pct(eff)));
        }
    }
    out
}

/// A kind of traffic's short name.
fn kind_name(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Tp => "TP",
        OpKind::Ep => "EP",
        OpKind::Cp => "CP",
        OpKind::Pp => "PP",
        OpKind::Dp => "DP",
    }
}
