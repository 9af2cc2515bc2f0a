//! A collective run as a steady state: the figures that extend a simulated prefix by its
//! proved period (`engine::period`), and how a time or a step of the whole collective folds
//! back into the prefix.

use crate::units::SimTime;
use serde::Serialize;

/// A collective run as a steady state (`engine::period`): the simulated prefix's state at
/// `to_ns` was its state at `from_ns` shifted by `period_steps` steps, so the run from there
/// repeats that period `repeats` more times than the prefix shows, then ends as the prefix ends.
///
/// ```text
///   time   = prefix end + repeats × (to - from)
///   bytes  = prefix bytes + repeats × bytes of the flows issued in (from, to]    (per link)
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Steady {
    /// Steps of the whole collective, and of the simulated prefix.
    pub total_steps: u32,
    pub simulated_steps: u32,
    /// Transfers of the whole collective, and of the simulated prefix.
    pub total_transfers: u64,
    pub simulated_transfers: u64,
    pub from_ns: u64,
    pub to_ns: u64,
    pub period_steps: u32,
    /// Periods the whole collective has beyond the prefix.
    pub repeats: u64,
    /// The highest step first issued at or before `to_ns`.
    pub step_at_to: u32,
    /// When the prefix ended (its trace's end).
    pub prefix_end_ns: u64,
    /// Event batches the whole collective would take, counted as the prefix's plus the repeats'.
    pub batches: u64,
}

impl Steady {
    pub fn period_ns(&self) -> u64 {
        self.to_ns - self.from_ns
    }

    /// Time the repeats add.
    pub fn shift_ns(&self) -> u64 {
        self.repeats * self.period_ns()
    }

    /// A time of the whole collective as the time of the prefix that looks the same, and the
    /// steps by which the whole collective is ahead of the prefix then.
    pub fn fold(&self, t: SimTime) -> (SimTime, u32) {
        let t = t.0;
        if t <= self.to_ns {
            (SimTime(t), 0)
        } else if t > self.to_ns + self.shift_ns() {
            (SimTime(t - self.shift_ns()), (self.repeats * self.period_steps as u64) as u32)
        } else {
            // In (to + (m-1)T, to + mT]: the prefix's (from, to], m periods on.
            let m = (t - self.to_ns).div_ceil(self.period_ns());
            (SimTime(t - m * self.period_ns()), (m * self.period_steps as u64) as u32)
        }
    }

    /// The prefix step that step `step` of the whole collective repeats, and how many periods on.
    pub fn prefix_step(&self, step: u32) -> (u32, u64) {
        if step <= self.step_at_to {
            return (step, 0);
        }
        let m = ((step - self.step_at_to).div_ceil(self.period_steps) as u64).min(self.repeats);
        (step - (m * self.period_steps as u64) as u32, m)
    }
}
