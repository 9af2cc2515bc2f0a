//! The 1F1B pipeline schedule (Narayanan et al. 2021, §2.2.1, "PipeDream-Flush"): stage `i`
//! of `p` runs `p - i - 1` warm-up forwards, then alternates one forward and one backward, then
//! drains its remaining backwards. A forward of micro-batch `j` on stage `i` needs that
//! micro-batch's forward on stage `i - 1`; a backward needs the backward on stage `i + 1`
//! (the last stage's backward follows its own forward).
//!
//! `run` places every block at the earliest time its stage is free and its input is there, so
//! the makespan and the idle gaps (the bubble) come out of the schedule rather than a formula;
//! with equal stages it equals `(m + p - 1) × (t_f + t_b)` (tested).

use serde::Serialize;

/// What a stage does in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Phase {
    Forward,
    Backward,
}

/// One forward or backward of one micro-batch on one stage, with its parts [ns from the step's start].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    pub stage: u32,
    pub micro_batch: u32,
    pub phase: Phase,
    pub start_ns: f64,
    pub end_ns: f64,
}

/// Per-stage durations of one micro-batch's forward and backward [ns].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StageTimes {
    pub forward_ns: f64,
    pub backward_ns: f64,
}

/// The 1F1B order of one stage's blocks.
fn order(stage: u32, stages: u32, micro_batches: u32) -> Vec<(Phase, u32)> {
    let warmup = (stages - stage - 1).min(micro_batches);
    let mut list = Vec::with_capacity(2 * micro_batches as usize);
    let (mut f, mut b) = (0, 0);
    for _ in 0..warmup {
        list.push((Phase::Forward, f));
        f += 1;
    }
    while b < micro_batches {
        if f < micro_batches {
            list.push((Phase::Forward, f));
            f += 1;
        }
        list.push((Phase::Backward, b));
        b += 1;
    }
    list
}

/// Places every block; returns them (stage by stage, in order) and the makespan.
pub fn run(times: &[StageTimes], micro_batches: u32) -> (Vec<Block>, f64) {
    let p = times.len() as u32;
    let m = micro_batches as usize;
    let orders: Vec<Vec<(Phase, u32)>> = (0..p).map(|i| order(i, p, micro_batches)).collect();
    let mut next = vec![0usize; p as usize];
    let mut free = vec![0.0f64; p as usize];
    let mut f_end = vec![vec![f64::NAN; m]; p as usize];
    let mut b_end = vec![vec![f64::NAN; m]; p as usize];
    let mut blocks = Vec::with_capacity(2 * m * p as usize);
    // Sweep until every stage has placed its list; each pass places what is ready.
    let total: usize = orders.iter().map(Vec::len).sum();
    while blocks.len() < total {
        let mut progressed = false;
        for i in 0..p as usize {
            while let Some(&(phase, j)) = orders[i].get(next[i]) {
                let j = j as usize;
                let ready = match phase {
                    Phase::Forward if i == 0 => Some(0.0),
                    Phase::Forward => Some(f_end[i - 1][j]).filter(|t| !t.is_nan()),
                    Phase::Backward if i + 1 == p as usize => Some(f_end[i][j]).filter(|t| !t.is_nan()),
                    Phase::Backward => Some(b_end[i + 1][j]).filter(|t| !t.is_nan()),
                };
                let Some(ready) = ready else { break };
                let start = ready.max(free[i]);
                let length = match phase {
                    Phase::Forward => times[i].forward_ns,
                    Phase::Backward => times[i].backward_ns,
                };
                let end = start + length;
                match phase {
                    Phase::Forward => f_end[i][j] = end,
                    Phase::Backward => b_end[i][j] = end,
                }
                free[i] = end;
                blocks.push(Block {
                    stage: i as u32,
                    micro_batch: j as u32,
                    phase,
                    start_ns: start,
                    end_ns: end,
                });
                next[i] += 1;
                progressed = true;
            }
        }
        assert!(
            progressed,
            "1F1B never deadlocks: each stage's next block's input comes from a block placed earlier"
        );
    }
    blocks.sort_by(|a, b| (a.stage, a.start_ns).partial_cmp(&(b.stage, b.start_ns)).expect("finite times"));
    let makespan = free.iter().copied().fold(0.0, f64::max);
    (blocks, makespan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_stages_take_m_plus_p_minus_one_slots() {
        for (p, m) in [(1, 1), (1, 8), (4, 4), (4, 16), (8, 3), (16, 64)] {
            let times = vec![StageTimes { forward_ns: 10.0, backward_ns: 20.0 }; p];
            let (blocks, makespan) = run(&times, m);
            assert_eq!(blocks.len(), 2 * p * m as usize);
            assert!((makespan - (m as f64 + p as f64 - 1.0) * 30.0).abs() < 1e-9, "p={p} m={m}: {makespan}");
        }
    }

    #[test]
    fn a_slow_last_stage_paces_the_pipeline() {
        let mut times = vec![StageTimes { forward_ns: 10.0, backward_ns: 20.0 }; 4];
        times[3] = StageTimes { forward_ns: 15.0, backward_ns: 30.0 };
        let (_, makespan) = run(&times, 16);
        // The slow stage's own work (16 × 45), after the first forward reaches it (3 × 10) and
        // before the last backward returns through the others (3 × 20): more than the 19 × 30
        // that equal stages take.
        assert!(makespan >= 16.0 * 45.0 + 3.0 * 10.0 + 3.0 * 20.0, "{makespan}");
    }

    #[test]
    fn blocks_respect_their_inputs() {
        let times = vec![StageTimes { forward_ns: 3.0, backward_ns: 7.0 }; 5];
        let (blocks, _) = run(&times, 6);
        let end = |s: u32, j: u32, phase: Phase| {
            blocks.iter().find(|b| b.stage == s && b.micro_batch == j && b.phase == phase).unwrap().end_ns
        };
        for b in &blocks {
            match b.phase {
                Phase::Forward if b.stage > 0 => {
                    assert!(b.start_ns >= end(b.stage - 1, b.micro_batch, Phase::Forward))
                }
                Phase::Backward if b.stage < 4 => {
                    assert!(b.start_ns >= end(b.stage + 1, b.micro_batch, Phase::Backward))
                }
                _ => {}
            }
        }
    }
}
