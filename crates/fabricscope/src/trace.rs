//! Trace: what the engine recorded, sampled at any time `t` for the animation, and summarised.
//!
//! Per flow the trace keeps when it was issued, started moving and finished, and its rate as a
//! piecewise-constant function of time. That is enough to answer, for any `t`, how fast every
//! link is running and how far along every chunk is (`Trace::sample`), without storing frames.

use crate::topology::{LinkId, Topology};
use crate::units::SimTime;
use serde::Serialize;

/// One transfer as the engine ran it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRecord {
    /// Index of the transfer in the schedule.
    pub transfer: u32,
    pub path: Vec<LinkId>,
    pub bytes: u64,
    /// Dependencies done; latency starts.
    pub issued: SimTime,
    /// Latency paid; data starts to move.
    pub started: SimTime,
    pub finished: SimTime,
    /// (from time, rate [B/ns], bytes done at that time); the last segment has rate 0.
    pub segments: Vec<Segment>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Segment {
    pub from: SimTime,
    pub rate_bytes_per_ns: f64,
    pub done_bytes: f64,
}

impl FlowRecord {
    pub(crate) fn new(transfer: u32, path: Vec<LinkId>, bytes: u64) -> FlowRecord {
        FlowRecord {
            transfer,
            path,
            bytes,
            issued: SimTime::ZERO,
            started: SimTime::ZERO,
            finished: SimTime::ZERO,
            segments: Vec::new(),
        }
    }

    /// Records that from `at` on the flow moves at `rate`.
    pub(crate) fn set_rate(&mut self, at: SimTime, rate: f64) {
        let done = self.done_at(at);
        if let Some(last) = self.segments.last_mut() {
            if last.from == at {
                last.rate_bytes_per_ns = rate;
                return;
            }
        }
        self.segments.push(Segment { from: at, rate_bytes_per_ns: rate, done_bytes: done });
    }

    /// Bytes moved by time `t`.
    pub fn done_at(&self, t: SimTime) -> f64 {
        if t >= self.finished && self.finished > SimTime::ZERO && !self.segments.is_empty() {
            return self.bytes as f64;
        }
        let index = self.segments.partition_point(|segment| segment.from <= t);
        if index == 0 {
            return 0.0;
        }
        let segment = &self.segments[index - 1];
        let moved = segment.done_bytes + segment.rate_bytes_per_ns * (t.0 - segment.from.0) as f64;
        moved.min(self.bytes as f64)
    }

    /// The rate at time `t` [B/ns].
    pub fn rate_at(&self, t: SimTime) -> f64 {
        if t < self.started || t >= self.finished {
            return 0.0;
        }
        let index = self.segments.partition_point(|segment| segment.from <= t);
        if index == 0 {
            0.0
        } else {
            self.segments[index - 1].rate_bytes_per_ns
        }
    }
}

/// Everything the engine recorded for one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trace {
    /// One per transfer, in schedule order.
    pub flows: Vec<FlowRecord>,
    pub end: SimTime,
    /// Bytes each link carried over the whole run.
    pub link_bytes: Vec<f64>,
    /// Highest total rate each link carried at any time [B/ns].
    pub link_peak: Vec<f64>,
    /// Event batches the engine handled.
    pub batches: u64,
}

/// A chunk in flight at the sampled time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InFlight {
    /// Index of the transfer (and flow).
    pub transfer: u32,
    /// Bytes done / bytes, in [0, 1].
    pub progress: f64,
    /// False while the flow still pays its latency.
    pub moving: bool,
}

/// The state of the whole cluster at one time: what the page draws.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frame {
    pub t: SimTime,
    /// Total rate on every link [B/ns], indexed by link id.
    pub link_rate: Vec<f64>,
    pub in_flight: Vec<InFlight>,
}

impl Trace {
    pub(crate) fn new(flows: Vec<FlowRecord>, end: SimTime, link_bytes: Vec<f64>, link_peak: Vec<f64>, batches: u64) -> Trace {
        Trace { flows, end, link_bytes, link_peak, batches }
    }

    /// The cluster at time `t`: link rates and the chunks in flight.
    pub fn sample(&self, t: SimTime) -> Frame {
        let mut link_rate = vec![0.0; self.link_bytes.len()];
        let mut in_flight = Vec::new();
        for flow in &self.flows {
            if t < flow.issued || t >= flow.finished {
                continue;
            }
            let moving = t >= flow.started;
            let rate = flow.rate_at(t);
            for &link in &flow.path {
                link_rate[link.index()] += rate;
            }
            let progress = if flow.bytes == 0 { 0.0 } else { flow.done_at(t) / flow.bytes as f64 };
            in_flight.push(InFlight { transfer: flow.transfer, progress: progress.clamp(0.0, 1.0), moving });
        }
        Frame { t, link_rate, in_flight }
    }

    /// Utilisation of every link at time `t`, in [0, 1].
    pub fn utilisation(&self, topology: &Topology, frame: &Frame) -> Vec<f64> {
        topology.links().map(|(id, link)| frame.link_rate[id.index()] / link.capacity().bytes_per_ns()).collect()
    }

    /// Mean utilisation of every link over the whole run, in [0, 1].
    pub fn mean_utilisation(&self, topology: &Topology) -> Vec<f64> {
        let span = self.end.0.max(1) as f64;
        topology.links().map(|(id, link)| self.link_bytes[id.index()] / (link.capacity().bytes_per_ns() * span)).collect()
    }
}
