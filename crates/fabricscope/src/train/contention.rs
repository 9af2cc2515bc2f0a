//! Where a step's kinds of traffic share links: expert parallelism's AllToAlls beside the
//! pipeline's sends and the data-parallel gradient buckets.
//!
//! Each kind is first run alone, every group at once (`comm`). Where two kinds can be on the
//! wire at the same moment they are also run *together* in one engine run, so that on every
//! link they share they share its capacity by max-min fairness, and each one's finish time is
//! read from that run. How often they meet is first order, from the step's times alone:
//!
//! - an AllToAll meets a neighbour stage's send for the share of the stage's time that sends
//!   arrive (`2·v·send / (forward + backward)` per micro-batch), and a send meets the
//!   neighbour's AllToAlls for the share of its time they take;
//! - with the gradient reduction overlapped, the buckets are on the wire during the last
//!   micro-batch's backward: of the AllToAlls, that backward's (`ep_b / (ep_f + ep_b)` of one
//!   micro-batch's, one of `m`) meet them for `min(1, reduce / backward)` of it; the reduction
//!   meets AllToAlls for their share of the time it takes (`ep_b / max(backward, reduce)`: what
//!   outlasts the backward meets none). Without overlap they never meet.
//!
//! The gradient bucket's ring meets the AllToAll as its per-link bytes (`Traffic::coarsened`):
//! the ring keeps its time alone and gains what the AllToAll adds to moving those bytes (within
//! 4% of running the ring's every step beside it, `tests.rs`: -3.4% with EP on NVLink, at a
//! thousandth of the cost).
//!
//! A call's mean time is then `alone + share × (together − alone)`: what the step uses.

use super::runs::Runs;
use super::{comm, OpKind};
use serde::{Deserialize, Serialize};

/// One kind of traffic slowed by another on the links they share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contention {
    /// The traffic slowed (its `Op`s: EP's dispatch and combine, PP's sends, DP's reduction).
    pub op: OpKind,
    /// The traffic on the wire with it.
    pub with: OpKind,
    /// One call alone, every group at once [ns].
    pub alone_ns: u64,
    /// One call with the other kind on the wire too, launched together [ns].
    pub together_ns: u64,
    /// Share of its calls' time that meets the other kind, in [0, 1].
    pub share: f64,
}

impl Contention {
    /// What meeting the other kind adds to a call on average [ns].
    pub fn mean_extra_ns(&self) -> f64 {
        self.share * (self.together_ns as f64 - self.alone_ns as f64)
    }
}

/// The step's times that say how often kinds meet, per micro-batch of the slowest stage [ns].
pub(super) struct Meeting {
    /// Forward and backward of one micro-batch, everything included.
    pub forward_ns: f64,
    pub backward_ns: f64,
    /// Of those, the AllToAlls' (forward and backward).
    pub ep_ns: f64,
    pub ep_backward_ns: f64,
    /// One pipeline send and how many a stage receives per micro-batch (`2·v`).
    pub send_ns: f64,
    pub sends: f64,
    pub micro_batches: f64,
    /// The whole gradient reduction, when it overlaps the backward.
    pub overlapped_reduce_ns: Option<f64>,
}

/// The traffic a step could run together: each kind's transfers, every group at once.
pub(super) struct Kinds<'a> {
    pub ep: &'a comm::Traffic,
    pub pp: Option<&'a comm::Traffic>,
    /// One gradient bucket of every DP group.
    pub bucket: Option<&'a comm::Traffic>,
}

/// Each pair that meets, run together; the EP AllToAll's alone time is `ep_alone_ns`.
pub(super) fn measure(
    runs: &mut Runs,
    kinds: &Kinds,
    ep_alone_ns: u64,
    meeting: &Meeting,
) -> Vec<Contention> {
    let mut found = Vec::new();
    let stage = meeting.forward_ns + meeting.backward_ns;
    if let Some(pp) = kinds.pp {
        let times = runs.together(&[kinds.ep, pp]);
        found.push(Contention {
            op: OpKind::Ep,
            with: OpKind::Pp,
            alone_ns: ep_alone_ns,
            together_ns: times[0],
            share: (meeting.sends * meeting.send_ns / stage).min(1.0),
        });
        found.push(Contention {
            op: OpKind::Pp,
            with: OpKind::Ep,
            alone_ns: meeting.send_ns.round() as u64,
            together_ns: times[1],
            share: (meeting.ep_ns / stage).min(1.0),
        });
    }
    if let (Some(bucket), Some(reduce)) = (kinds.bucket, meeting.overlapped_reduce_ns) {
        // The bucket's ring runs beside the AllToAll as its per-link bytes (`coarsened`): its
        // thousands of steps would each re-share every AllToAll flow's links. The ring keeps
        // its own time alone and gains what the AllToAll adds to moving those bytes.
        let alone = runs.timing(bucket).time_ns;
        let coarse = bucket.coarsened();
        let coarse_alone = runs.together(&[&coarse])[0];
        let times = runs.together(&[kinds.ep, &coarse]);
        let slowed = alone + times[1].saturating_sub(coarse_alone);
        found.push(Contention {
            op: OpKind::Ep,
            with: OpKind::Dp,
            alone_ns: ep_alone_ns,
            together_ns: times[0],
            share: (reduce / meeting.backward_ns).min(1.0) * meeting.ep_backward_ns
                / meeting.ep_ns.max(f64::MIN_POSITIVE)
                / meeting.micro_batches,
        });
        found.push(Contention {
            op: OpKind::Dp,
            with: OpKind::Ep,
            alone_ns: alone,
            together_ns: slowed,
            share: (meeting.ep_backward_ns / meeting.backward_ns.max(reduce)).min(1.0),
        });
    }
    found
}

/// The mean time of one call of `op` that is `alone_ns` alone.
pub(super) fn mean_ns(found: &[Contention], op: OpKind, alone_ns: f64) -> f64 {
    alone_ns + found.iter().filter(|c| c.op == op).map(Contention::mean_extra_ns).sum::<f64>()
}
