//! A job run at fewer elements than asked, its result given as the asked one's
//! (`Simulation::rounded`): a ring whose chunks differ by an element (`round`), and an AllToAll
//! whose blocks do not split evenly over its channels (`round_alltoall`).

use super::{Job, Mode, Plan, Stage};

impl Job {
    /// Where the big plan runs a ring of fewer elements (`big::ring_row`, `Plan::rounded`):
    /// every later stage runs that scenario, and the result is given as the one asked for.
    pub(super) fn round(&mut self) {
        if let (Stage::Search { plan: Plan { rounded: Some(count), .. }, .. }, None) =
            (&self.stage, &self.asked)
        {
            let rounded = self.scenario.with_fewer_elements(*count);
            self.asked = Some(Box::new(std::mem::replace(&mut self.scenario, rounded)));
        }
    }

    /// An AllToAll beyond the limit whole whose blocks do not split evenly over its channels
    /// runs at the count rounded down so that they do (`collective::alltoall_rounded_count`), its
    /// channel 0 then standing for all (`alltoall::beyond`), and gives its result as the asked
    /// one's (`Simulation::rounded`), as a ring's rounding does.
    pub(super) fn round_alltoall(&mut self) {
        let s = self.scenario.scenario();
        let (n, channels) = (self.scenario.n_ranks(), self.scenario.channels());
        let whole = n as u64 * (n as u64 - 1) * channels as u64;
        let beyond = matches!(self.mode, Mode::Auto | Mode::Symmetric)
            && s.collective == crate::scenario::Collective::AllToAll
            && s.algorithm.is_none_or(|a| a == crate::collective::Algorithm::Direct)
            && whole > self.tree_limit
            && n as u64 * (n as u64 - 1) <= self.copies.0;
        let rounded = crate::collective::alltoall_rounded_count(n, s.count(), channels);
        if let (true, Some(count), None) = (beyond, rounded, &self.asked) {
            let rounded = self.scenario.with_fewer_elements(count);
            self.asked = Some(Box::new(std::mem::replace(&mut self.scenario, rounded)));
        }
    }
}
