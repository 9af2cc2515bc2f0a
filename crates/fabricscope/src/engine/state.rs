//! The engine's event state between batches (`State`): flows paying their latency, the moving
//! flows' projected finishes and progress, each link's moving flows, and what a steady state's
//! snapshot reads.

use super::{finishes, period, stream, Issuer};
use crate::topology::LinkId;
use crate::trace::FlowRecord;
use crate::units::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(super) struct State {
    pub(super) now: u64,
    /// Flows paying their latency, by (start time, issue sequence).
    pub(super) starts: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// Projected finishes of the moving flows, by (time, flow).
    pub(super) finishes: finishes::Finishes,
    pub(super) seq: u64,
    /// Moving flows on each link.
    pub(super) on_link: Vec<Vec<u32>>,
    /// The batch each link last shed its finished flows in (`advance`).
    pub(super) swept: Vec<u64>,
    /// Bytes left as of `updated`.
    pub(super) remaining: Vec<f64>,
    pub(super) rate: Vec<f64>,
    /// When `remaining` was last brought up to date (at the last rate change).
    pub(super) updated: Vec<u64>,
    pub(super) link_peak: Vec<f64>,
    pub(super) batches: u64,
    /// Flows whose data has all moved.
    pub(super) moved: Vec<bool>,
    /// A flow whose latency is paid but whose connection is still busy with this flow's data.
    pub(super) parked: Vec<Option<u32>>,
    /// What each flow is doing, and when one paying its latency starts to move (for `period`).
    pub(super) stage: Vec<period::Stage>,
    pub(super) start_at: Vec<u64>,
    /// The highest step issued so far, and whether this batch raised it.
    pub(super) max_step: Option<u32>,
    pub(super) max_step_changed: bool,
    /// A streamed schedule's flows that began to move this batch (`stream`), whose dependents
    /// are released then.
    pub(super) began: Vec<u32>,
    /// A streamed schedule's gates (`stream`): cut-through hops; `None` for any other.
    pub(super) gates: Option<stream::Gates>,
}

impl State {
    /// Data starts to move at `t`: the flow joins its links (or finishes at once if empty).
    pub(super) fn begin_moving(
        &mut self,
        flows: &mut [FlowRecord],
        f: u32,
        t: u64,
        done: &mut Vec<u32>,
        touched: &mut Vec<LinkId>,
    ) {
        let fi = f as usize;
        self.stage[fi] = period::Stage::Moving;
        flows[fi].started = SimTime(t);
        if self.gates.is_some() {
            self.began.push(f);
        }
        self.remaining[fi] = flows[fi].bytes as f64;
        self.updated[fi] = t;
        if flows[fi].bytes == 0 || flows[fi].path.is_empty() {
            self.moved[fi] = true;
            done.push(f);
        } else {
            for &link in &flows[fi].path {
                self.on_link[link.index()].push(f);
                touched.push(link);
            }
        }
    }

    /// The latency flow `f` paid after it was issued.
    pub(super) fn latency(&self, flows: &[FlowRecord], f: u32) -> u64 {
        self.start_at[f as usize] - flows[f as usize].issued.0
    }

    /// A dependency of streamed flow `f` finished at `t` (`stream`): a held `f` whose gate that
    /// opens finishes when it opens.
    pub(super) fn open_gate(&mut self, flows: &[FlowRecord], f: u32, t: u64) {
        let held = (self.stage[f as usize] == period::Stage::Held).then(|| self.latency(flows, f));
        let Some(gates) = self.gates.as_mut() else { return };
        gates.open(f, t);
        if let Some(at) = held.and_then(|latency| gates.at(f, latency)) {
            self.finishes.set(f, at);
        }
    }

    /// Streamed flow `f`'s data has all moved at `now` but its gate is closed (`stream`): it
    /// leaves its links and is held until `gate`, or until its dependencies finish.
    pub(super) fn hold(
        &mut self,
        flows: &mut [FlowRecord],
        f: u32,
        gate: Option<u64>,
        traced: bool,
        touched: &mut Vec<LinkId>,
    ) {
        let fi = f as usize;
        self.stage[fi] = period::Stage::Held;
        self.remaining[fi] = 0.0;
        self.rate[fi] = 0.0;
        if traced {
            flows[fi].set_rate(SimTime(self.now), 0.0);
        }
        touched.extend_from_slice(&flows[fi].path);
        if let Some(at) = gate {
            self.finishes.set(f, at);
        }
    }

    /// Issues the flows released at one time in a canonical order (step, channel, chunk, source,
    /// destination), not the order they were listed or released in, so adaptive routing, which
    /// sees the flows issued before, gives the same paths for any order of the same schedule.
    pub(super) fn issue_all(
        &mut self,
        flows: &mut [FlowRecord],
        issuer: &mut Issuer,
        released: &mut Vec<u32>,
    ) {
        let transfers = &issuer.schedule.transfers;
        released.sort_unstable_by_key(|&f| {
            let t = &transfers[f as usize];
            (t.step, t.channel, t.chunk, t.src, t.dst, t.offset, f)
        });
        for &f in released.iter() {
            self.issue(flows, issuer, f);
        }
        released.clear();
    }

    pub(super) fn issue(&mut self, flows: &mut [FlowRecord], issuer: &mut Issuer, f: u32) {
        let transfer = &issuer.schedule.transfers[f as usize];
        let (path, latency) = issuer.route(transfer);
        let flow = &mut flows[f as usize];
        flow.path = path;
        for &link in &flow.path {
            issuer.load[link.index()] += 1;
        }
        flow.issued = SimTime(self.now);
        self.starts.push(Reverse((self.now + latency, self.seq, f)));
        self.seq += 1;
        self.stage[f as usize] = period::Stage::Latency;
        self.start_at[f as usize] = self.now + latency;
        if self.max_step.is_none_or(|step| transfer.step > step) {
            self.max_step = Some(transfer.step);
            self.max_step_changed = true;
        }
    }

    /// The state of flows `base..end` at `t` (`period`): every flow below `base` has finished
    /// and every flow from `end` on is untouched.
    pub(super) fn snapshot(
        &self,
        t: u64,
        step: u32,
        (base, end): (u32, usize),
        (flows, deps_left): (&[FlowRecord], &[u32]),
    ) -> period::Snapshot {
        use period::{FlowState, Stage};
        let states: Vec<FlowState> = (base as usize..end.max(base as usize))
            .map(|i| {
                let stage = self.stage[i];
                let (ticks, remaining_bits, rate_bits) = match stage {
                    Stage::Waiting => (deps_left[i] as u64, 0, 0),
                    Stage::Latency => (self.start_at[i] - t, 0, 0),
                    Stage::Moving => {
                        (t - self.updated[i], self.remaining[i].to_bits(), self.rate[i].to_bits())
                    }
                    Stage::Held => {
                        let latency = self.latency(flows, i as u32);
                        let (ticks, open) =
                            self.gates.as_ref().map_or((0, 0), |g| g.ticks(i as u32, latency, t));
                        (ticks, open, 0)
                    }
                    Stage::Parked | Stage::Done => (0, 0, 0),
                };
                let path = if matches!(stage, Stage::Waiting | Stage::Done) {
                    Vec::new()
                } else {
                    flows[i].path.clone()
                };
                FlowState { stage, ticks, remaining_bits, rate_bits, path }
            })
            .collect();
        period::Snapshot {
            t,
            step,
            base,
            batches: self.batches,
            hash: period::Snapshot::hash_of(&states),
            flows: states,
        }
    }
}
