//! The words for a training op whose ring is beyond the engine, extrapolated from each group's
//! first steps (`fabricscope::train::comm::OpMethod::Extrapolated`).

use super::Lang;
use fabricscope::train::prefix::{RingPrefix, EXTRAPOLATED_BOUND};

/// The mark beside an extrapolated op's time in the table.
pub const MARK: &str = "≈";

/// The note under the table for the ops (`names`, as the table shows them) obtained so.
pub fn op_note(lang: Lang, names: &str, p: &RingPrefix) -> String {
    let bound = 100.0 * EXTRAPOLATED_BOUND;
    let (steps, total) = (p.steps, p.total_steps);
    let count = p.count;
    match (lang, p.rounded) {
        (Lang::En, rounded) => format!(
            "{MARK} {names}: extrapolated steady state (±{bound:.0}%). Its rings, every group at once, are beyond what the engine runs transfer by transfer, so each group ran the first {steps} of its {total} steps{}, and the rest are taken at the per-step time measured on them (never below the fastest the links allow). Within {bound:.0}% of every transfer simulated wherever both run (tests/train_prefix.rs).",
            if rounded { format!(", its size cut to {count} elements so that every step is alike") } else { String::new() }
        ),
        (Lang::Zh, rounded) => format!(
            "{MARK} {names}：外推稳态（±{bound:.0}%）。这些环（所有组同时运行）超出引擎逐个传输模拟的上限，因此每组只运行其 {total} 步中的前 {steps} 步{}，其余各步按在这些步上测得的每步用时计（不低于链路所允许的最快速度）。凡两者都能运行之处，与逐个模拟每次传输相差不超过 {bound:.0}%（tests/train_prefix.rs）。",
            if rounded { format!("，其大小截为 {count} 个元素，使每一步都相同") } else { String::new() }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both languages give the figures, and say what the time is within.
    #[test]
    fn the_note_gives_the_steps_and_the_bound_in_both_languages() {
        let p = RingPrefix { steps: 128, total_steps: 1023, count: 6_553_600, rounded: true, unit: 8192 };
        for lang in [Lang::En, Lang::Zh] {
            let note = op_note(lang, "DP ReduceScatter", &p);
            for figure in ["128", "1023", "6553600", "±3%", "DP ReduceScatter", "tests/train_prefix.rs"] {
                assert!(note.contains(figure), "{lang:?}: {figure} in {note}");
            }
        }
        assert!(op_note(Lang::Zh, "DP", &p).contains("外推稳态"));
        let exact_size = RingPrefix { rounded: false, ..p };
        assert!(!op_note(Lang::En, "DP", &exact_size).contains("6553600"));
    }
}
