//! `fabricscope compare LOG`: a measured nccl-tests log against the model of the same cluster,
//! and the model's figures fitted to it (`fabricscope::compare`).

use super::{apply_hardware, choice, read_file, HardwareArgs};
use clap::Args;
use fabricscope::compare::cluster_of;
use fabricscope::logs::parse;
use fabricscope::{Scenario, ScenarioError};

#[derive(Args)]
pub struct CompareArgs {
    /// The nccl-tests output (any *_perf binary's, with or without mpirun's rank prefixes).
    log: String,
    /// Which run of the log (1 = the first).
    #[arg(long, default_value_t = 1)]
    run: usize,
    /// The collective, when the log does not say (all_reduce, all_gather, …).
    #[arg(long)]
    collective: Option<String>,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// The cluster: inferred from the log's device list (GPU model, hosts, ranks per host) unless
    /// a scenario or flags say otherwise.
    #[command(flatten)]
    hardware: HardwareArgs,
}

fn error(field: &str, problem: String) -> Vec<ScenarioError> {
    vec![ScenarioError { field: field.into(), problem }]
}

pub fn compare(args: &CompareArgs) -> Result<String, Vec<ScenarioError>> {
    let text = std::fs::read(&args.log)
        .map_err(|e| error("log", format!("cannot read {}: {e}", args.log)))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())?;
    let log = parse(&text);
    for problem in &log.problems {
        eprintln!("warning: {}:{}: {}", args.log, problem.line, problem.problem);
    }
    let run = log.runs.get(args.run.wrapping_sub(1)).ok_or_else(|| {
        error(
            "--run",
            format!(
                "{} has {} runs with rows; run {} is not one of them",
                args.log,
                log.runs.len(),
                args.run
            ),
        )
    })?;
    // The cluster: a scenario file, else what the device list says, then the flags on top.
    let mut inferred = "";
    let mut scenario = match &args.hardware.scenario {
        Some(path) => Scenario::from_json(&read_file(path)?).map_err(|e| vec![e])?,
        // A preset flag overrides the list's GPUs; its hosts still count the nodes.
        None if args.hardware.preset.is_some() || args.hardware.import.is_some() => {
            Scenario { nodes: run.hosts().0.len().max(1) as u32, ..Scenario::default_demo() }
        }
        None => match cluster_of(run, &Scenario::default_demo()) {
            Ok(Some(scenario)) => {
                inferred = " (from the log's device list)";
                scenario
            }
            Ok(None) => Scenario::default_demo(),
            Err(mut errors) => {
                for e in &mut errors {
                    e.problem.push_str(": pass --preset, --import or --scenario");
                }
                return Err(errors);
            }
        },
    };
    let mut errors = apply_hardware(&args.hardware, &mut scenario);
    scenario.collective = match (&args.collective, run.collective) {
        (Some(name), _) => choice("--collective", "collective", name).map_err(|e| vec![e])?,
        (None, Some(collective)) => collective,
        (None, None) => {
            return Err(error(
                "--collective",
                "the log does not say which collective it measured: pass --collective".into(),
            ))
        }
    };
    scenario.size_bytes = run.rows.iter().map(|r| r.size_bytes).find(|&s| s >= 4 && s % 4 == 0).unwrap_or(4);
    let valid = match scenario.validate() {
        Ok(valid) if errors.is_empty() => valid,
        Ok(_) => return Err(errors),
        Err(more) => {
            errors.extend(more);
            return Err(errors);
        }
    };
    if !run.devices.is_empty() && run.devices.len() as u32 != valid.n_ranks() {
        return Err(error(
            "nodes",
            format!(
                "the log has {} ranks and the cluster {}: pass --nodes or --scenario to match",
                run.devices.len(),
                valid.n_ranks()
            ),
        ));
    }
    let comparison = fabricscope::compare::compare(run, &valid)?;
    if args.json {
        return Ok(serde_json::to_string_pretty(&comparison).expect("the comparison serialises") + "\n");
    }
    let s = valid.scenario();
    let mut out = format!(
        "# fabricscope compare: {} run {}, {} on {} GPUs = {} × {}{inferred}\n",
        args.log,
        args.run,
        s.collective.perf_binary(),
        valid.n_ranks(),
        s.nodes,
        valid.preset().name
    );
    out.push_str("#         size  measured busbw  model busbw  measured/model  bound      time: fitted model (measured)\n");
    out.push_str("#          (B)          (GB/s)       (GB/s)                             (us)\n");
    for r in &comparison.rows {
        out.push_str(&format!(
            "{:>14}  {:>14.2}  {:>11.2}  {:>14.3}  {:<9}  {:>9.2} ({:.2})\n",
            r.size_bytes,
            r.measured_busbw_gbyte_per_s,
            r.model_busbw_gbyte_per_s,
            r.ratio,
            if r.latency_bound { "latency" } else { "bandwidth" },
            r.fitted_time_us,
            r.measured_time_us
        ));
    }
    let share = |ratio: Option<f64>| ratio.map(|r| format!("{r:.2}")).unwrap_or_else(|| "–".into());
    out.push_str(&format!(
        "# where the gap is: latency-bound sizes run at {} of the model, bandwidth-bound ones at {}\n",
        share(comparison.latency_ratio),
        share(comparison.bandwidth_ratio)
    ));
    out.push_str(&format!(
        "# fit (Levenberg-Marquardt on ln time over {} sizes): rms {:.4} -> {:.4}\n",
        comparison.rows.len(),
        comparison.rms_before,
        comparison.rms_after
    ));
    for p in &comparison.params {
        out.push_str(&format!("#   {}: {} -> {}\n", p.field, round(p.before), round(p.after)));
    }
    if let Some(p) = comparison.params.first() {
        out.push_str(&format!(
            "# the fabric delivers {:.0}% of the bandwidth the model assumed for those links\n",
            100.0 * p.after / p.before
        ));
    }
    let json = serde_json::to_string(&comparison.fitted).expect("a scenario serialises");
    out.push_str(&format!("# fitted scenario (--scenario FILE with this): {json}\n"));
    out.push_str(&format!("# on the page: #s={}\n", percent_encode(&json)));
    Ok(out)
}

fn round(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.4}")
    }
}

/// What JavaScript's encodeURIComponent leaves alone, and %XX for every other byte.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'!'
            | b'~'
            | b'*'
            | b'\''
            | b'('
            | b')' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
