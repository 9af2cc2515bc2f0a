//! `cargo xtask bench`: the engine natively, the page in headless Chromium, and the download,
//! printed as one table with the performance issue's targets beside them.

use crate::{
    clean_chromium_temp, cmd, dist_sized, ensure_browser, ensure_build_tools, root, serve_static, Result,
    CHROMIUM,
};
use std::net::TcpListener;
use std::process::Command;

/// One figure a benchmark printed: `{"bench": name, ...}` per line.
fn figures(output: &str) -> Vec<serde_json::Value> {
    output
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v.get("bench").is_some())
        .collect()
}

fn find<'a>(figures: &'a [serde_json::Value], name: &str) -> Option<&'a serde_json::Value> {
    figures.iter().find(|f| f["bench"] == name)
}

/// `cargo xtask bench`: the engine natively (release), the page in headless Chromium, and the
/// download, printed as one table with the targets of the performance issue beside them.
pub fn bench() -> Result<()> {
    ensure_build_tools()?;
    ensure_browser()?;
    eprintln!("xtask: native engine benchmarks (release build)");
    let native = Command::new("cargo")
        .args(["bench", "-q", "-p", "fabricscope", "--bench", "engine"])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cargo bench: {e}"))?;
    if !native.status.success() {
        return Err(format!("cargo bench failed:\n{}", String::from_utf8_lossy(&native.stderr)));
    }
    let native = figures(&String::from_utf8_lossy(&native.stdout));
    let (dist, gzip) = dist_sized()?;
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen on loopback: {e}"))?;
    let url = format!("http://{}/", listener.local_addr().map_err(|e| e.to_string())?);
    std::thread::spawn(move || serve_static(listener, dist));
    eprintln!("xtask: browser benchmarks (headless Chromium)");
    let browser = cmd("node")
        .arg("tests/e2e/bench.mjs")
        .arg(&url)
        .env("CHROMIUM_BIN", CHROMIUM)
        .output()
        .map_err(|e| format!("node: {e}"))?;
    clean_chromium_temp();
    if !browser.status.success() {
        return Err(format!("browser benchmark failed:\n{}", String::from_utf8_lossy(&browser.stderr)));
    }
    let browser = figures(&String::from_utf8_lossy(&browser.stdout));
    let secs = |name: &str| find(&native, name).and_then(|f| f["seconds"].as_f64());
    let detail =
        |name: &str| find(&native, name).and_then(|f| f["detail"].as_str()).unwrap_or("").to_string();
    let ms = |name: &str, field: &str| {
        browser
            .iter()
            .filter(|f| f["bench"] == name)
            .filter_map(|f| f[field].as_f64())
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))))
    };
    let show = |s: Option<f64>| s.map(|s| format!("{:.3} s", s)).unwrap_or_else(|| "not run".into());
    // A distribution's p95 and p50 (frame gaps, paint costs) as "p95 … ms, p50 … ms".
    let p95_p50 = |name: &str| {
        format!(
            "p95 {:.1} ms, p50 {:.1} ms",
            ms(name, "p95_ms").unwrap_or(f64::NAN),
            ms(name, "p50_ms").unwrap_or(f64::NAN)
        )
    };
    // Gaps between animation frames after the first second of playing, and that second's p95.
    let frames = |name: &str| {
        format!(
            "{} between frames after the first second (its p95 {:.1} ms)",
            p95_p50(name),
            ms(name, "first_p95_ms").unwrap_or(f64::NAN)
        )
    };
    let mut rows: Vec<(String, String, String)> = Vec::new();
    rows.push((
        "ring AllReduce 1 GiB, 8 GPUs, native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("ring-1GiB-8-gpus")), detail("ring-1GiB-8-gpus")),
    ));
    rows.push((
        "ring AllReduce 1 GiB, 64 GPUs, native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("ring-1GiB-64-gpus")), detail("ring-1GiB-64-gpus")),
    ));
    rows.push((
        "ring AllReduce 1 GiB, 128 GPUs, NCCL's 8 channels, native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("ring-1GiB-128-gpus")), detail("ring-1GiB-128-gpus")),
    ));
    rows.push((
        "ring AllReduce 1 GiB, 512 GPUs, 1 channel, native".into(),
        "(reference)".into(),
        format!(
            "{} ({})",
            show(secs("ring-1GiB-512-gpus-1-channel")),
            detail("ring-1GiB-512-gpus-1-channel")
        ),
    ));
    rows.push((
        "ring AllReduce 1 GiB, 1,024 GPUs, native".into(),
        "<= 0.2 s, <= 256 MB peak".into(),
        format!("{} ({})", show(secs("ring-1GiB-1024-gpus")), detail("ring-1GiB-1024-gpus")),
    ));
    // NCCL's defaults include the tuner's choice: at 1 GiB on H100 nodes, NVLSTree.
    rows.push((
        "AllReduce 1 GiB, 1,024 GPUs, the tuner's pick, a sweep's row (hashed), native".into(),
        "<= 0.2 s, <= 256 MB peak".into(),
        format!("{} ({})", show(secs("tuner-pick-1GiB-1024-gpus")), detail("tuner-pick-1GiB-1024-gpus")),
    ));
    // A page run against its native twin, the page's own job (`Job::admitted` under
    // `PAGE_BUDGET`, its trace hashed as the page hashes it, which `simulate` above does not):
    // the simulation alone, then with layout and redraw.
    let wasm = |page: &str, native: &str| match (ms(page, "ms"), ms(page, "sim_ms"), secs(native)) {
        (Some(w), Some(s), Some(n)) => format!(
            "simulation {:.3} s ({:.1}x the page's job natively, {:.3} s); {:.3} s with layout and redraw",
            s / 1e3,
            s / 1e3 / n,
            n,
            w / 1e3
        ),
        _ => "not run".into(),
    };
    // The first run after the page loads runs partly as V8's baseline code; the warm runs as
    // optimised code, the engine's speed (`tests/e2e/bench.mjs`). Both are printed.
    let warm = match (ms("wasm-ring-1GiB-64-gpus-warm", "sim_ms"), secs("page-ring-1GiB-64-gpus")) {
        (Some(s), Some(n)) => format!(
            "warm {:.3} s ({:.1}x the page's job natively; median of 3, {:.3}-{:.3} s); the first run after the page loads: ",
            s / 1e3,
            s / 1e3 / n,
            ms("wasm-ring-1GiB-64-gpus-warm", "low_ms").unwrap_or(s) / 1e3,
            ms("wasm-ring-1GiB-64-gpus-warm", "high_ms").unwrap_or(s) / 1e3,
        ),
        _ => String::new(),
    };
    rows.push((
        "the same in the browser (WASM), 64 GPUs".into(),
        "<= 2x native".into(),
        format!("{warm}{}", wasm("wasm-ring-1GiB-64-gpus", "page-ring-1GiB-64-gpus")),
    ));
    rows.push((
        "the same at 1 channel (steady state), native".into(),
        "(reference)".into(),
        format!(
            "{} ({})",
            show(secs("ring-1GiB-1024-gpus-1-channel")),
            detail("ring-1GiB-1024-gpus-1-channel")
        ),
    ));
    rows.push((
        "the same at 2 channels (steady state), native".into(),
        "(reference)".into(),
        format!(
            "{} ({})",
            show(secs("ring-1GiB-1024-gpus-2-channels")),
            detail("ring-1GiB-1024-gpus-2-channels")
        ),
    ));
    rows.push((
        "the same at 1 channel in the browser (WASM)".into(),
        "<= 2x native".into(),
        wasm("wasm-ring-1GiB-1024-gpus-1-channel", "page-ring-1GiB-1024-gpus-1-channel"),
    ));
    rows.push((
        "the same at NCCL's 8 channels in the browser (WASM), extrapolated".into(),
        "<= 2x native".into(),
        wasm("wasm-ring-1GiB-1024-gpus-8-channels", "page-ring-1GiB-1024-gpus"),
    ));
    rows.push((
        "longest freeze, 1 -> 8 channels at 1,024 GPUs, headless Chromium".into(),
        "<= 50 ms".into(),
        ms("freeze-1024-gpus-8-channels", "ms")
            .map_or("not run".into(), |m| format!("{m:.0} ms between frames")),
    ));
    rows.push((
        "the tuner's pick at 1,024 GPUs in the browser (NVLSTree shown from its first channels, fitted)"
            .into(),
        "first result <= 1 s; <= 2x native".into(),
        wasm("wasm-nvlstree-1GiB-1024-gpus", "page-nvlstree-1GiB-1024-gpus"),
    ));
    rows.push((
        "  longest freeze meanwhile; animation frame while it plays".into(),
        "<= 50 ms; p95 <= 16 ms".into(),
        format!(
            "{:.0} ms between frames; {} (sampling + painting p95 {:.1} ms)",
            ms("freeze-1024-gpus-nvlstree", "ms").unwrap_or(f64::NAN),
            frames("frame-1024-gpus-nvlstree"),
            ms("paint-1024-gpus-nvlstree", "p95_ms").unwrap_or(f64::NAN)
        ),
    ));
    rows.push((
        "ring AllReduce 1 GiB, 16,384 GPUs, native".into(),
        "<= 5 s, <= 1 GB peak".into(),
        format!("{} ({})", show(secs("ring-1GiB-16384-gpus")), detail("ring-1GiB-16384-gpus")),
    ));
    rows.push((
        "the same at 1 channel, native".into(),
        "(reference)".into(),
        format!(
            "{} ({})",
            show(secs("ring-1GiB-16384-gpus-1-channel")),
            detail("ring-1GiB-16384-gpus-1-channel")
        ),
    ));
    rows.push((
        "AllReduce 1 GiB, 16,384 GPUs, the tuner's pick, a sweep's row (hashed), native".into(),
        "<= 5 s, <= 1 GB peak".into(),
        format!("{} ({})", show(secs("tuner-pick-1GiB-16384-gpus")), detail("tuner-pick-1GiB-16384-gpus")),
    ));
    rows.push((
        "Broadcast 1 GiB, 16,384 GPUs (its chain run on 128 nodes, the rest extrapolated), a sweep's row, native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("broadcast-1GiB-16384-gpus")), detail("broadcast-1GiB-16384-gpus")),
    ));
    rows.push((
        "AllToAll 1 GiB, 1,024 GPUs (channel 0 for all 8), a sweep's row (hashed), native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("alltoall-1GiB-1024-gpus")), detail("alltoall-1GiB-1024-gpus")),
    ));
    rows.push((
        "AllToAll 1 GiB, 16,384 GPUs (bounded by max-min sharing, no run), a sweep's row, native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("alltoall-1GiB-16384-gpus")), detail("alltoall-1GiB-16384-gpus")),
    ));
    rows.push((
        "SendRecv 1 GiB, 16,384 GPUs (a few nodes' sources of channel 0 for all), a sweep's row (hashed), native".into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("sendrecv-1GiB-16384-gpus")), detail("sendrecv-1GiB-16384-gpus")),
    ));
    rows.push((
        "SendRecv 1 GiB, 131,072 GPUs (the node cap, radix-128 fabric), a sweep's row (hashed), native"
            .into(),
        "(reference)".into(),
        format!("{} ({})", show(secs("sendrecv-1GiB-131072-gpus")), detail("sendrecv-1GiB-131072-gpus")),
    ));
    rows.push((
        "ring AllReduce 1 GiB, 131,072 GPUs (the node cap, radix-128 fabric), native".into(),
        "<= 30 s, <= 4 GB peak".into(),
        format!("{} ({})", show(secs("ring-1GiB-131072-gpus")), detail("ring-1GiB-131072-gpus")),
    ));
    rows.push((
        "GPT-3 175B training step, 1,024 GPUs, native".into(),
        "<= 1 s".into(),
        format!("{} ({})", show(secs("train-gpt3-1024-gpus")), detail("train-gpt3-1024-gpus")),
    ));
    rows.push((
        "GPT-3 175B training step, 16,384 GPUs, native".into(),
        "<= 2 s".into(),
        format!("{} ({})", show(secs("train-gpt3-16384-gpus")), detail("train-gpt3-16384-gpus")),
    ));
    rows.push((
        "Llama 2 7B training step, pure DP on 1,024 GPUs (DP rings extrapolated), native".into(),
        "(reference)".into(),
        format!(
            "{} ({})",
            show(secs("train-llama2-7b-dp-1024-gpus")),
            detail("train-llama2-7b-dp-1024-gpus")
        ),
    ));
    rows.push((
        "animation frame, 64 GPUs (every node in full, the busbw chart filled), headless Chromium".into(),
        "(reference)".into(),
        format!("{} between frames", p95_p50("frame-64-gpus")),
    ));
    rows.push((
        "animation frame, 1,024 GPUs (compact view, steady state, the busbw chart filled), headless Chromium"
            .into(),
        "p95 <= 16 ms".into(),
        frames("frame-1024-gpus"),
    ));
    rows.push((
        "  of which sampling the trace + painting the canvas".into(),
        "".into(),
        p95_p50("paint-1024-gpus"),
    ));
    // The same in the first seconds after the change, while the chart's workers may take every
    // core of a 2-core machine: the page's drawing costs the same, but a frame can wait for a
    // core (p95 33 ms in three of four runs here before the row above waited for the chart).
    rows.push((
        "  the same while the busbw chart fills (its workers on both cores)".into(),
        "(reference)".into(),
        format!(
            "{} (sampling + painting p95 {:.1} ms)",
            frames("frame-1024-gpus-filling"),
            ms("paint-1024-gpus-filling", "p95_ms").unwrap_or(f64::NAN)
        ),
    ));
    rows.push((
        "longest freeze while a change simulates (gap between frames)".into(),
        "<= 100 ms".into(),
        format!(
            "1 -> 8 nodes (64,512 transfers, sliced): {:.0} ms; 8 -> 128 nodes at 1 channel (steady state): {:.0} ms; training view, GPT-3 on 256 GPUs, micro-batch 1 -> 2 (its step and four fabrics, in workers): {:.0} ms",
            ms("freeze-8-nodes", "ms").unwrap_or(f64::NAN),
            ms("freeze-1024-gpus", "ms").unwrap_or(f64::NAN),
            ms("freeze-train-change", "ms").unwrap_or(f64::NAN)
        ),
    ));
    rows.push((
        "training view by link, Llama 2 7B at DP 512 on 64 DGX H100 (DP rings extrapolated): longest main-thread task after start-up".into(),
        "<= 50 ms".into(),
        match (ms("train-link-dp-512", "ms"), ms("train-link-dp-512", "longest_task_ms")) {
            (Some(shown), Some(task)) => format!(
                "{task:.0} ms, shown after {shown:.0} ms; TP 1 -> 2: {:.0} ms, shown after {:.0} ms",
                ms("train-link-dp-512", "change_task_ms").unwrap_or(f64::NAN),
                ms("train-link-dp-512", "change_ms").unwrap_or(f64::NAN)
            ),
            _ => "not run".into(),
        },
    ));
    let chart = |nodes: u32| {
        let name = format!("chart-{nodes}-nodes");
        let range = (ms(&name, "min_ms").unwrap_or(f64::NAN), ms(&name, "max_ms").unwrap_or(f64::NAN));
        match (ms(&name, "ms"), ms(&name, "longest_task_ms"), ms(&name, "workers"), ms(&name, "points")) {
            (Some(filled), Some(task), Some(workers), Some(points)) => format!(
                "{:.1} s (median of 3, {:.1}-{:.1} s) for {points} points on {workers} worker{}; longest main-thread task after the first result {task:.0} ms",
                filled / 1e3,
                range.0 / 1e3,
                range.1 / 1e3,
                if workers == 1.0 { "" } else { "s" }
            ),
            _ => "not run".into(),
        }
    };
    rows.push((
        "busbw chart from a link, 8 DGX H100 at NCCL's defaults, headless Chromium".into(),
        "filled <= 2 s".into(),
        chart(8),
    ));
    rows.push(("the same at 128 nodes (1,024 GPUs)".into(), "filled <= 5 s".into(), chart(128)));
    // The page shows the tuner's NVLSTree there from its first channels, on its main thread in
    // slices, while the workers fill the chart.
    rows.push((
        "  the tuner's pick in the results (NVLSTree at 1 GiB, shown from its first channels)".into(),
        "(reference)".into(),
        ms("chart-128-nodes", "pick_ms").filter(|ms| ms.is_finite()).map_or("not shown".into(), |ms| {
            format!("{:.1} s after the link opened (median of 3)", ms / 1e3)
        }),
    ));
    // An AllToAll beyond the page's runs, bounded rather than simulated (`Method::Bounded`).
    rows.push((
        "AllToAll 1 GiB, 1,024 GPUs in the page from a link (bounded by max-min sharing, no run)".into(),
        "first result <= 1 s".into(),
        match (ms("alltoall-bounded-1024-gpus", "shown_ms"), ms("alltoall-bounded-1024-gpus", "filled_ms")) {
            (Some(shown), Some(filled)) => format!(
                "{:.1} s after the link opened, the busbw chart filled at {:.1} s (median of 3)",
                shown / 1e3,
                filled / 1e3
            ),
            _ => "not shown".into(),
        },
    ));
    // A Broadcast's chain beyond the page's runs, run on fewer nodes in the page's slices.
    rows.push((
        "Broadcast 4 MiB, 4,096 GPUs in the page from a link (its chain run on fewer nodes, extrapolated)"
            .into(),
        "longest freeze <= 50 ms".into(),
        match (ms("chain-4096-gpus", "shown_ms"), ms("chain-4096-gpus", "longest_task_ms")) {
            (Some(shown), Some(task)) => format!(
                "longest main-thread task {task:.0} ms (of 3 runs, the link to the chart filled); shown {:.1} s after the link (median of 3)",
                shown / 1e3
            ),
            _ => "not shown".into(),
        },
    ));
    rows.push((
        "download: wasm + js + css, gzip -9".into(),
        "<= 600 KB".into(),
        format!("{:.0} KB", gzip as f64 / 1e3),
    ));
    rows.push((
        "first interactive render, default scenario".into(),
        "<= 1.5 s".into(),
        format!("{:.0} ms (best of 3)", ms("first-render", "ms").unwrap_or(f64::NAN)),
    ));
    rows.push((
        "first paint on a throttled phone (1.6 Mbit/s, 150 ms RTT, 4x CPU)".into(),
        "something to read at once".into(),
        format!(
            "title, lessons and sketch at {:.0} ms; the app's figure at {:.0} ms",
            ms("first-paint-throttled", "fcp_ms").unwrap_or(f64::NAN),
            ms("first-paint-throttled", "interactive_ms").unwrap_or(f64::NAN)
        ),
    ));
    rows.push((
        "training view: GPT-3 on 256 GPUs, simulate + draw (WASM)".into(),
        "(reference)".into(),
        format!("{:.0} ms", ms("wasm-train-gpt3-256-gpus", "ms").unwrap_or(f64::NAN)),
    ));
    let peak = find(&native, "peak-memory").and_then(|f| f["kib"].as_f64());
    rows.push((
        "peak memory of the native runs above".into(),
        "say it; bounded".into(),
        peak.map(|k| format!("{:.0} MB", k * 1024.0 / 1e6)).unwrap_or_else(|| "unknown".into()),
    ));
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    println!("{:<w0$}  {:<w1$}  measured", "what", "target");
    for (what, target, measured) in &rows {
        println!("{what:<w0$}  {target:<w1$}  {measured}");
    }
    Ok(())
}
