//! The 1F1B pipeline schedule (Narayanan et al. 2021, §2.2.1, "PipeDream-Flush"): stage `i`
//! of `p` runs `p - i - 1` warm-up forwards, then alternates one forward and one backward, then
//! drains its remaining backwards. A forward of micro-batch `j` on stage `i` needs that
//! micro-batch's forward on stage `i - 1`; a backward needs the backward on stage `i + 1`
//! (the last stage's backward follows its own forward).
//!
//! Interleaved 1F1B (Narayanan et al. 2021, §2.2.2; Megatron-LM's
//! `forward_backward_pipelining_with_interleaving`): each stage holds `v` model chunks, chunk k
//! of stage i being virtual stage `k·p + i`, so a micro-batch passes the pipeline `v` times.
//! Stage i runs `2(p - i - 1) + (v - 1)·p` warm-up forwards (at most `v·m`), then alternates,
//! taking micro-batches in groups of `p`: forward number f is chunk `(f / p) mod v` of
//! micro-batch `(f / (p·v))·p + f mod p`; backwards walk the chunks from the last.
//!
//! `run` places every block at the earliest time its stage is free and its input is there, so
//! the makespan and the idle gaps (the bubble) come out of the schedule rather than a formula;
//! with equal stages it equals `(m + p - 1) × (t_f + t_b)`, interleaved
//! `(m + (p - 1)/v) × (t_f + t_b)`: a bubble of `(p - 1)/(v·m)` (tested).

use serde::{Deserialize, Serialize};

/// What a stage does in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Forward,
    Backward,
}

/// One forward or backward of one micro-batch on one stage, with its parts [ns from the step's start].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub stage: u32,
    pub micro_batch: u32,
    /// The model chunk (0 unless interleaved).
    pub chunk: u32,
    pub phase: Phase,
    pub start_ns: f64,
    pub end_ns: f64,
}

/// Per-stage durations of one micro-batch's forward and backward through one model chunk [ns].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageTimes {
    pub forward_ns: f64,
    pub backward_ns: f64,
}

/// The (interleaved, with `chunks` > 1) 1F1B order of one stage's blocks: (phase, micro-batch, chunk).
fn order(stage: u32, stages: u32, micro_batches: u32, chunks: u32) -> Vec<(Phase, u32, u32)> {
    let (p, v, m) = (stages, chunks, micro_batches);
    let total = m * v;
    let warmup = if v == 1 { p - stage - 1 } else { 2 * (p - stage - 1) + (v - 1) * p }.min(total);
    // The f-th forward (or backward) of this stage: its micro-batch and chunk.
    let nth = |f: u32, backward: bool| {
        let group = p * v;
        let chunk = f % group / p;
        let micro_batch = f / group * p + f % p;
        (micro_batch, if backward { v - 1 - chunk } else { chunk })
    };
    let nth = |f: u32, backward: bool| if v == 1 { (f, 0) } else { nth(f, backward) };
    let mut list = Vec::with_capacity(2 * total as usize);
    let (mut f, mut b) = (0, 0);
    for _ in 0..warmup {
        let (j, k) = nth(f, false);
        list.push((Phase::Forward, j, k));
        f += 1;
    }
    while b < total {
        if f < total {
            let (j, k) = nth(f, false);
            list.push((Phase::Forward, j, k));
            f += 1;
        }
        let (j, k) = nth(b, true);
        list.push((Phase::Backward, j, k));
        b += 1;
    }
    list
}

/// Places every block of `chunks` model chunks per stage (1: plain 1F1B); `times` are one
/// chunk's. Returns the blocks (stage by stage, in order) and the makespan.
pub fn run(times: &[StageTimes], micro_batches: u32, chunks: u32) -> (Vec<Block>, f64) {
    let p = times.len();
    let (m, v) = (micro_batches as usize, chunks.max(1) as usize);
    let orders: Vec<Vec<(Phase, u32, u32)>> =
        (0..p as u32).map(|i| order(i, p as u32, micro_batches, v as u32)).collect();
    let mut next = vec![0usize; p];
    let mut free = vec![0.0f64; p];
    // End of each (virtual stage, micro-batch)'s forward and backward; virtual stage k·p + i.
    let mut f_end = vec![vec![f64::NAN; m]; p * v];
    let mut b_end = vec![vec![f64::NAN; m]; p * v];
    let mut blocks = Vec::with_capacity(2 * m * p * v);
    let known = |t: f64| Some(t).filter(|t| !t.is_nan());
    // Sweep until every stage has placed its list; each pass places what is ready.
    let total: usize = orders.iter().map(Vec::len).sum();
    while blocks.len() < total {
        let mut progressed = false;
        for i in 0..p {
            while let Some(&(phase, j, k)) = orders[i].get(next[i]) {
                let (j, vs) = (j as usize, k as usize * p + i);
                let ready = match phase {
                    Phase::Forward if vs == 0 => Some(0.0),
                    Phase::Forward => known(f_end[vs - 1][j]),
                    Phase::Backward if vs + 1 == p * v => known(f_end[vs][j]),
                    Phase::Backward => known(b_end[vs + 1][j]),
                };
                let Some(ready) = ready else { break };
                let start = ready.max(free[i]);
                let length = match phase {
                    Phase::Forward => times[i].forward_ns,
                    Phase::Backward => times[i].backward_ns,
                };
                let end = start + length;
                match phase {
                    Phase::Forward => f_end[vs][j] = end,
                    Phase::Backward => b_end[vs][j] = end,
                }
                free[i] = end;
                blocks.push(Block {
                    stage: i as u32,
                    micro_batch: j as u32,
                    chunk: k,
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
    crate::sort::by(&mut blocks, &mut |a, b| {
        (a.stage, a.start_ns).partial_cmp(&(b.stage, b.start_ns)).expect("finite times")
    });
    let makespan = free.iter().copied().fold(0.0, f64::max);
    (blocks, makespan)
}

/// The most micro-batches' activations stage `stage` holds at once, in whole stages' worth
/// (a chunk's forward holds 1/v of the stage's layers until its backward).
pub fn peak_in_flight(blocks: &[Block], stage: u32, chunks: u32) -> f64 {
    let (mut held, mut peak) = (0i64, 0i64);
    for block in blocks.iter().filter(|b| b.stage == stage) {
        match block.phase {
            Phase::Forward => held += 1,
            Phase::Backward => held -= 1,
        }
        peak = peak.max(held);
    }
    peak as f64 / chunks.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_stages_take_m_plus_p_minus_one_slots() {
        for (p, m) in [(1, 1), (1, 8), (4, 4), (4, 16), (8, 3), (16, 64)] {
            let times = vec![StageTimes { forward_ns: 10.0, backward_ns: 20.0 }; p];
            let (blocks, makespan) = run(&times, m, 1);
            assert_eq!(blocks.len(), 2 * p * m as usize);
            assert!((makespan - (m as f64 + p as f64 - 1.0) * 30.0).abs() < 1e-9, "p={p} m={m}: {makespan}");
        }
    }

    #[test]
    fn a_slow_last_stage_paces_the_pipeline() {
        let mut times = vec![StageTimes { forward_ns: 10.0, backward_ns: 20.0 }; 4];
        times[3] = StageTimes { forward_ns: 15.0, backward_ns: 30.0 };
        let (_, makespan) = run(&times, 16, 1);
        // The slow stage's own work (16 × 45), after the first forward reaches it (3 × 10) and
        // before the last backward returns through the others (3 × 20): more than the 19 × 30
        // that equal stages take.
        assert!(makespan >= 16.0 * 45.0 + 3.0 * 10.0 + 3.0 * 20.0, "{makespan}");
    }

    #[test]
    fn blocks_respect_their_inputs() {
        let times = vec![StageTimes { forward_ns: 3.0, backward_ns: 7.0 }; 5];
        let (blocks, _) = run(&times, 6, 1);
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

    #[test]
    fn interleaving_shrinks_the_bubble_to_p_minus_1_over_v_m() {
        // A stage's forward and backward (10 and 20) split over v chunks: the ideal is m × 30.
        for (p, v, m) in [(4, 2, 8), (4, 4, 8), (8, 2, 16), (2, 3, 4), (16, 2, 32)] {
            let chunk = StageTimes { forward_ns: 10.0 / v as f64, backward_ns: 20.0 / v as f64 };
            let (blocks, makespan) = run(&vec![chunk; p], m, v);
            assert_eq!(blocks.len(), 2 * p * (m * v) as usize);
            let bubble = (makespan - m as f64 * 30.0) / (m as f64 * 30.0);
            let expected = (p as f64 - 1.0) / (v as f64 * m as f64);
            assert!((bubble - expected).abs() < 1e-9, "p={p} v={v} m={m}: bubble {bubble} vs {expected}");
        }
    }

    #[test]
    fn one_f_one_b_holds_p_minus_i_micro_batches() {
        let times = vec![StageTimes { forward_ns: 1.0, backward_ns: 2.0 }; 4];
        let (blocks, _) = run(&times, 8, 1);
        assert_eq!(peak_in_flight(&blocks, 0, 1), 4.0);
        assert_eq!(peak_in_flight(&blocks, 3, 1), 1.0);
    }
}
