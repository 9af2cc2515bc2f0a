//! nccl-tests logs: reading what `*_perf` binaries print, as people paste it, and writing it
//! byte for byte as they do (`write`).
//!
//! A log is a sequence of runs. Each run has a device list (`#  Rank  0 Group  0 Pid … on
//! node-000 device  0 [0000:07:00] NVIDIA H100 80GB HBM3`), a table header, rows
//!
//! ```text
//!   size  count  type  redop  root  | time algbw busbw #wrong | time algbw busbw #wrong
//!                                     out-of-place              in-place
//! ```
//!
//! and a footer (`# Avg bus bandwidth : 123.4`, `# Collective test concluded: all_reduce_perf`).
//! The reader takes lines with or without MPI's rank prefixes (`[1,0]<stdout>:`) or srun's
//! (`0: `), `#wrong` or older `error` columns, `N/A`, per-iteration columns, timestamps, several
//! runs in one file and truncated files: a line it cannot read becomes a `LineProblem` with its
//! number, and everything else is kept. It never fails and never allocates beyond its input's
//! size (`MAX_LOG_BYTES` caps that).

pub mod write;

use crate::scenario::Collective;
use serde::Serialize;

/// Largest log the reader takes [B] (a sweep of nccl-tests output is a few kB per run).
pub const MAX_LOG_BYTES: usize = 16 << 20;

/// What a log holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NcclTestsLog {
    pub runs: Vec<LogRun>,
    /// Lines that looked like rows or device entries but did not read, with why.
    pub problems: Vec<LineProblem>,
}

/// One run of a `*_perf` binary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LogRun {
    /// The collective, from the footer (`Collective test concluded: all_reduce_perf`) or our own
    /// header; `None` when the log does not say.
    pub collective: Option<Collective>,
    pub devices: Vec<Device>,
    pub rows: Vec<LogRow>,
    /// The footer's average bus bandwidth [GB/s].
    pub avg_busbw_gbyte_per_s: Option<f64>,
    /// The line (1-based) the run starts on.
    pub line: usize,
}

/// A rank of the device list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Device {
    pub rank: u32,
    pub host: String,
    pub device: u32,
    /// The GPU's name as CUDA reports it ("NVIDIA H100 80GB HBM3").
    pub name: String,
}

/// One size of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogRow {
    /// The line (1-based).
    pub line: usize,
    pub size_bytes: u64,
    pub count: u64,
    pub data_type: String,
    pub redop: String,
    pub root: i64,
    pub out_of_place: Measured,
    pub in_place: Option<Measured>,
}

/// One measurement: time, algbw, busbw and the wrong-element count (`None`: N/A).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Measured {
    pub time_us: f64,
    pub algbw_gbyte_per_s: f64,
    pub busbw_gbyte_per_s: f64,
    pub wrong: Option<f64>,
}

/// A line the reader could not take, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineProblem {
    /// 1-based.
    pub line: usize,
    pub problem: String,
}

impl LogRun {
    /// Hosts in the order their first rank appears, and ranks per host (`None` unless every
    /// host has the same number).
    pub fn hosts(&self) -> (Vec<&str>, Option<u32>) {
        let mut hosts: Vec<&str> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for device in &self.devices {
            match hosts.iter().position(|&h| h == device.host) {
                Some(i) => counts[i] += 1,
                None => {
                    hosts.push(&device.host);
                    counts.push(1);
                }
            }
        }
        let same = counts.first().copied().filter(|&c| counts.iter().all(|&x| x == c));
        (hosts, same)
    }
}

/// The node preset a CUDA device name most likely sits in ("NVIDIA H100 80GB HBM3" → DGX H100),
/// `None` for a GPU no preset has.
pub fn preset_for_device(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_uppercase();
    let has = |part: &str| name.contains(part);
    Some(if has("B300") {
        "hgx-b300"
    } else if has("B200") {
        "hgx-b200"
    } else if has("H800") {
        "hgx-h800"
    } else if has("H20") && !has("H200") {
        "hgx-h20"
    } else if has("H100") && (has("PCIE") || has("NVL")) {
        "pcie-h100"
    } else if has("H100") || has("H200") {
        "dgx-h100"
    } else if has("A100") || has("A800") {
        "dgx-a100"
    } else if has("V100") {
        "dgx-1"
    } else {
        return None;
    })
}

/// The collective a `*_perf` binary's name measures.
pub fn collective_of_binary(name: &str) -> Option<Collective> {
    let name = name.trim().trim_end_matches(".cu");
    let base = name.rsplit('/').next().unwrap_or(name);
    Collective::ALL.into_iter().find(|c| c.perf_binary() == base)
}

/// Strips a launcher's prefix: MPI's `[1,0]<stdout>:` or srun's `12: `.
fn strip_prefix(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix('[') {
        if let Some(end) = rest.find(">:") {
            if rest[..end].contains("]<std") {
                return &rest[end + 2..];
            }
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 6 && (line[digits..].starts_with(": ") || &line[digits..] == ":") {
        return line[digits + 1..].trim_start();
    }
    line
}

/// Reads a log (at most `MAX_LOG_BYTES`; the rest is reported, not read).
pub fn parse(text: &str) -> NcclTestsLog {
    let mut log = NcclTestsLog::default();
    let mut text = text;
    if text.len() > MAX_LOG_BYTES {
        let mut end = MAX_LOG_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let lines = text[..end].lines().count();
        log.problems.push(LineProblem {
            line: lines + 1,
            problem: format!("the log is longer than {MAX_LOG_BYTES} bytes; the rest is not read"),
        });
        text = &text[..end];
    }
    // A run is open from its device list or first row to its footer's last line.
    let mut current: Option<LogRun> = None;
    let mut closed = false;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = strip_prefix(raw.trim_end()).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let comment = comment.trim();
            if let Some(name) = comment.strip_prefix("Collective test starting:") {
                // nccl-tests 2.19: the run's first line names it.
                log.runs.extend(current.take());
                closed = false;
                let collective = collective_of_binary(name);
                current = Some(LogRun { line: number, collective, ..LogRun::default() });
            } else if comment.starts_with("Using devices") || comment.starts_with("nThread") {
                // A new run begins (after a finished one, or a header repeated).
                if closed || current.as_ref().is_some_and(|r| !r.rows.is_empty()) {
                    log.runs.extend(current.take());
                }
                closed = false;
                current.get_or_insert_with(|| LogRun { line: number, ..LogRun::default() });
            } else if comment.starts_with("Rank") {
                match parse_device(comment) {
                    Some(device) => current
                        .get_or_insert_with(|| LogRun { line: number, ..LogRun::default() })
                        .devices
                        .push(device),
                    None => log.problems.push(LineProblem {
                        line: number,
                        problem: "a device line reads \"Rank R Group G Pid P on HOST device D [BUS] NAME\""
                            .into(),
                    }),
                }
            } else if let Some(value) = comment.strip_prefix("Avg bus bandwidth") {
                let value =
                    value.trim_start().trim_start_matches(':').split_whitespace().next().unwrap_or("");
                if let Some(run) = current.as_mut() {
                    run.avg_busbw_gbyte_per_s = value.parse().ok().filter(|v: &f64| v.is_finite());
                }
            } else if let Some(name) = comment.strip_prefix("Collective test concluded:") {
                if let Some(run) = current.as_mut() {
                    run.collective = collective_of_binary(name);
                }
                closed = true;
            } else if let Some(collective) = comment
                .strip_prefix("fabricscope ")
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(collective_of_binary)
            {
                // Our own header: "# fabricscope all_reduce_perf (simulated): …".
                if closed || current.as_ref().is_some_and(|r| !r.rows.is_empty()) {
                    log.runs.extend(current.take());
                }
                closed = false;
                current.get_or_insert_with(|| LogRun { line: number, ..LogRun::default() }).collective =
                    Some(collective);
            }
            continue;
        }
        // Not a comment: a row, or something else printed between rows (warnings), which only
        // counts as a problem when it starts like a row.
        if !line.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if closed {
            log.runs.extend(current.take());
            closed = false;
        }
        match parse_row(line, number) {
            Ok(row) => {
                current.get_or_insert_with(|| LogRun { line: number, ..LogRun::default() }).rows.push(row)
            }
            Err(problem) => log.problems.push(LineProblem { line: number, problem }),
        }
    }
    log.runs.extend(current);
    log.runs.retain(|run| !run.rows.is_empty() || !run.devices.is_empty());
    log
}

/// `Rank  0 Group  0 Pid  12345 on   node-000 device  0 [0000:07:00] NVIDIA H100 80GB HBM3`.
fn parse_device(text: &str) -> Option<Device> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let at = |i: usize| tokens.get(i).copied();
    if at(0)? != "Rank" || at(2)? != "Group" || at(4)? != "Pid" || at(6)? != "on" || at(8)? != "device" {
        return None;
    }
    let rank = at(1)?.parse().ok()?;
    let host = at(7)?.to_string();
    let device = at(9)?.parse().ok()?;
    // The name follows the bus id in brackets (older versions print "[0x07]").
    let name_at = text.find(']').map(|i| i + 1).unwrap_or(text.len());
    let name = text[name_at..].trim().to_string();
    (!name.is_empty()).then_some(Device { rank, host, device, name })
}

/// One row: 5 leading fields, then 4 per measurement (out-of-place, in-place), or 8 with
/// per-iteration statistics; a trailing timestamp is ignored.
fn parse_row(line: &str, number: usize) -> Result<LogRow, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let n = tokens.len();
    // 9 or 13 fields (one or both measurements), 21 with per-iteration statistics; each may
    // end with a two-word timestamp.
    let stride = match n {
        9 | 11 | 13 | 15 => 4,
        21 | 23 => 8,
        _ => {
            return Err(format!(
                "a row has 5 fields and 4 per measurement (out-of-place, in-place), or 8 with per-iteration timing; this one has {n}"
            ))
        }
    };
    let number_at = |i: usize, what: &str| -> Result<f64, String> {
        tokens[i]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("{what} '{}' is not a number", tokens[i]))
    };
    let integer_at = |i: usize, what: &str| -> Result<u64, String> {
        tokens[i].parse::<u64>().map_err(|_| format!("{what} '{}' is not a whole number", tokens[i]))
    };
    let measured = |at: usize| -> Result<Measured, String> {
        let wrong = match tokens[at + 3] {
            "N/A" => None,
            text => Some(
                text.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| format!("#wrong '{text}' is neither a count nor N/A"))?,
            ),
        };
        Ok(Measured {
            time_us: number_at(at, "time")?,
            algbw_gbyte_per_s: number_at(at + 1, "algbw")?,
            busbw_gbyte_per_s: number_at(at + 2, "busbw")?,
            wrong,
        })
    };
    let root = tokens[4].parse::<i64>().map_err(|_| format!("root '{}' is not a number", tokens[4]))?;
    let out_of_place = measured(5)?;
    let in_place = if n >= 5 + 2 * stride && tokens[5 + stride].parse::<f64>().is_ok() {
        Some(measured(5 + stride)?)
    } else {
        None
    };
    Ok(LogRow {
        line: number,
        size_bytes: integer_at(0, "size")?,
        count: integer_at(1, "count")?,
        data_type: tokens[2].to_string(),
        redop: tokens[3].to_string(),
        root,
        out_of_place,
        in_place,
    })
}

#[cfg(test)]
mod tests;
