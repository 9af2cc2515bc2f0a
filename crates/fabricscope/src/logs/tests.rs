//! The reader on the shapes nccl-tests logs come in (`tests/fixtures/logs/`), and the writer's
//! output read back.

use super::write::{device_list, footer, row_body, row_preamble, run_header, table_header};
use super::*;

const MPIRUN: &str = include_str!("../../../../tests/fixtures/logs/all_reduce_2x8_h100_mpirun.log");
const OLD: &str = include_str!("../../../../tests/fixtures/logs/all_gather_8x_a100_old_truncated.log");
const TWO: &str = include_str!("../../../../tests/fixtures/logs/two_runs_srun_labels.log");

#[test]
fn an_mpirun_log_with_rank_prefixes() {
    let log = parse(MPIRUN);
    assert_eq!(log.problems, []);
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.collective, Some(Collective::AllReduce));
    assert_eq!(run.devices.len(), 16);
    assert_eq!(run.hosts(), (vec!["dgx-000", "dgx-001"], Some(8)));
    assert_eq!(preset_for_device(&run.devices[0].name), Some("dgx-h100"));
    assert_eq!(run.rows.len(), 14);
    let last = run.rows.last().unwrap();
    assert_eq!((last.size_bytes, last.count, last.redop.as_str(), last.root), (1 << 29, 1 << 27, "sum", -1));
    assert!(last.in_place.is_some() && last.out_of_place.wrong == Some(0.0));
    assert!((run.avg_busbw_gbyte_per_s.unwrap() - 89.5898).abs() < 1e-9);
}

#[test]
fn an_old_log_with_error_columns_cut_off_mid_row() {
    let log = parse(OLD);
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    // No footer: the collective is not named; the device list says A100, 8 on one host.
    assert_eq!(run.collective, None);
    assert_eq!(run.hosts(), (vec!["a100-01"], Some(8)));
    assert_eq!(preset_for_device(&run.devices[0].name), Some("dgx-a100"));
    // Six whole rows kept; the cut one named by its line.
    assert_eq!(run.rows.len(), 6);
    assert_eq!(run.rows[0].out_of_place.wrong, Some(0.0));
    assert_eq!(log.problems.len(), 1);
    assert_eq!(log.problems[0].line, 22);
    assert!(log.problems[0].problem.contains("this one has 6"), "{:?}", log.problems);
}

#[test]
fn two_runs_with_srun_labels_and_unchecked_results() {
    let log = parse(TWO);
    assert_eq!(log.problems, []);
    let collectives: Vec<_> = log.runs.iter().map(|r| r.collective).collect();
    assert_eq!(collectives, [Some(Collective::ReduceScatter), Some(Collective::AllToAll)]);
    for run in &log.runs {
        assert_eq!(run.rows.len(), 3);
        assert_eq!(run.hosts().1, Some(1), "one GPU on each of 4 hosts");
        assert!(run.rows.iter().all(|r| r.out_of_place.wrong.is_none()));
    }
}

#[test]
fn what_the_writer_prints_reads_back() {
    let mut text = run_header("all_reduce_perf", 16, 8, 1 << 20, 2);
    text += &device_list(8, 2, "NVIDIA H100 80GB HBM3");
    text += &table_header();
    for (size, time) in [(8u64, 23.4), (1 << 20, 123456.0)] {
        let body = row_body(time, 0.5, 0.9, Some(0));
        text += &format!("{}{body}{body}\n", row_preamble(size, size / 4, "float", "sum", -1));
    }
    text += &footer(0.45, "all_reduce_perf");
    let log = parse(&text);
    assert_eq!(log.problems, []);
    let run = &log.runs[0];
    assert_eq!((run.collective, run.devices.len(), run.rows.len()), (Some(Collective::AllReduce), 16, 2));
    assert_eq!(run.rows[1].out_of_place.time_us, 123456.0);
    assert_eq!(run.avg_busbw_gbyte_per_s, Some(0.45));
}

#[test]
fn bad_lines_are_named_and_the_rest_kept() {
    let text = "  1024  256 float sum -1  1.0  1.0  1.0  0  1.0  1.0  1.0  0\n  2048  512 float sum -1  x  1.0  1.0  0\n";
    let log = parse(text);
    assert_eq!(log.runs[0].rows.len(), 1);
    assert_eq!(log.problems, [LineProblem { line: 2, problem: "time 'x' is not a number".into() }]);
    // Nothing at all, or prose: no runs, no problems.
    assert_eq!(parse(""), NcclTestsLog::default());
    assert_eq!(parse("hello\nworld"), NcclTestsLog::default());
}
