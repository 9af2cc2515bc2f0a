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
    /// The flows alive in each of `TIME_BUCKETS` equal slices of [0, end]: `sample` looks only
    /// at the slice that holds `t`, not at every flow. Derived from `flows`, the first time a
    /// sample needs it.
    #[serde(skip)]
    buckets: TimeIndex,
}

/// `Trace::buckets`, built on first use: a run whose figures and hash alone are read (a sweep's
/// row) never samples, and AllToAll's channel 0 on 1,024 GPUs is a million flows each alive in
/// up to all 256 slices (13% of the CLI's row, and most of its peak memory, went into them).
/// Derived from the flows, so two traces with the same flows are equal whether or not either
/// was sampled.
#[derive(Clone, Debug, Default)]
struct TimeIndex(std::sync::OnceLock<Vec<Vec<u32>>>);

impl PartialEq for TimeIndex {
    fn eq(&self, _: &TimeIndex) -> bool {
        true
    }
}

/// Slices of the run `Trace::sample` indexes flows by.
const TIME_BUCKETS: u64 = 256;

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
    pub(crate) fn new(
        flows: Vec<FlowRecord>,
        end: SimTime,
        link_bytes: Vec<f64>,
        link_peak: Vec<f64>,
        batches: u64,
    ) -> Trace {
        Trace { flows, end, link_bytes, link_peak, batches, buckets: TimeIndex::default() }
    }

    /// The flows alive in each of `TIME_BUCKETS` equal slices of [0, end] (`buckets`).
    fn time_buckets(&self) -> Vec<Vec<u32>> {
        let mut buckets = vec![Vec::new(); TIME_BUCKETS as usize];
        let width = (self.end.0 / TIME_BUCKETS).max(1);
        let last = TIME_BUCKETS as usize - 1;
        for (i, flow) in self.flows.iter().enumerate() {
            if flow.finished <= flow.issued {
                continue; // Alive at no time.
            }
            let (a, b) = ((flow.issued.0 / width) as usize, ((flow.finished.0 - 1) / width) as usize);
            for bucket in &mut buckets[a.min(last)..=b.min(last)] {
                bucket.push(i as u32);
            }
        }
        buckets
    }

    /// The trace of finished `flows` on `n_links` links: every byte of a flow crosses every
    /// link of its path (exact integer totals, in no particular order, so they do not depend on
    /// the order flows finished in), and the run ends when its last flow does.
    pub(crate) fn of_flows(
        flows: Vec<FlowRecord>,
        n_links: usize,
        link_peak: Vec<f64>,
        batches: u64,
    ) -> Trace {
        let mut link_bytes = vec![0u64; n_links];
        for flow in &flows {
            for &link in &flow.path {
                link_bytes[link.index()] += flow.bytes;
            }
        }
        let end = flows.iter().map(|flow| flow.finished).max().unwrap_or(SimTime::ZERO);
        Trace::new(flows, end, link_bytes.into_iter().map(|b| b as f64).collect(), link_peak, batches)
    }

    /// Indices of the flows that may be alive at `t` (a superset; check `issued <= t < finished`).
    fn alive_near(&self, t: SimTime) -> &[u32] {
        let width = (self.end.0 / TIME_BUCKETS).max(1);
        let bucket = ((t.0 / width) as usize).min(TIME_BUCKETS as usize - 1);
        self.buckets.0.get_or_init(|| self.time_buckets()).get(bucket).map(Vec::as_slice).unwrap_or(&[])
    }

    /// A 64-bit fingerprint of everything recorded (FNV-1a over every time, path, byte count and
    /// the exact bits of every rate): equal traces hash equal on every target, so the page (WASM)
    /// and the CLI (native) can show that they computed the same thing.
    pub fn hash(&self) -> u64 {
        let mut hasher = TraceHasher::new(self);
        loop {
            if let Some(hash) = hasher.feed(self, usize::MAX) {
                return hash;
            }
        }
    }

    /// `hash` as the 16 hex digits the CLI and the page print.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash())
    }

    /// The engine's invariants, checked from the record alone: time never goes backwards (issued
    /// ≤ started ≤ every rate change ≤ finished ≤ end), every flow finishes, every flow's rate
    /// integrates to its bytes (to within the one-ns rounding of its finish), link totals are the
    /// bytes of the flows that crossed them, and at no time does any link carry more than its
    /// capacity. Returns the first violation found.
    pub fn check(&self, topology: &Topology) -> Result<(), String> {
        const TOLERANCE: f64 = 1e-9;
        let n_links = topology.n_links();
        if self.link_bytes.len() != n_links || self.link_peak.len() != n_links {
            return Err(format!("{} link totals for {n_links} links", self.link_bytes.len()));
        }
        let mut link_total = vec![0u64; n_links];
        // Per link: intervals [from, to) at a constant rate.
        let mut intervals: Vec<Vec<(u64, u64, f64)>> = vec![Vec::new(); n_links];
        for flow in &self.flows {
            let id = flow.transfer;
            if !(flow.issued <= flow.started && flow.started <= flow.finished && flow.finished <= self.end) {
                return Err(format!(
                    "flow {id}: issued {} started {} finished {} end {} are out of order",
                    flow.issued.0, flow.started.0, flow.finished.0, self.end.0
                ));
            }
            let Some(last) = flow.segments.last() else {
                return Err(format!("flow {id} never finished"));
            };
            if last.from != flow.finished || last.rate_bytes_per_ns != 0.0 {
                return Err(format!("flow {id}: its last rate change is not a stop at its finish"));
            }
            let mut moved = 0.0;
            let mut max_rate: f64 = 0.0;
            for pair in flow.segments.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if a.from > b.from || a.from < flow.started {
                    return Err(format!("flow {id}: a rate change at {} is out of order", a.from.0));
                }
                if !(a.rate_bytes_per_ns >= 0.0 && a.rate_bytes_per_ns.is_finite()) {
                    return Err(format!("flow {id}: rate {} at {}", a.rate_bytes_per_ns, a.from.0));
                }
                moved += a.rate_bytes_per_ns * (b.from.0 - a.from.0) as f64;
                max_rate = max_rate.max(a.rate_bytes_per_ns);
                if a.rate_bytes_per_ns > 0.0 {
                    for link in &flow.path {
                        intervals[link.index()].push((a.from.0, b.from.0, a.rate_bytes_per_ns));
                    }
                }
            }
            let bytes = flow.bytes as f64;
            let has_path = !flow.path.is_empty();
            if has_path
                && (moved < bytes * (1.0 - TOLERANCE) - 1e-6
                    || moved > bytes * (1.0 + TOLERANCE) + max_rate + 1e-6)
            {
                return Err(format!("flow {id}: its rates move {moved} B, not its {} B", flow.bytes));
            }
            for link in &flow.path {
                link_total[link.index()] += flow.bytes;
            }
        }
        for (l, list) in intervals.iter_mut().enumerate() {
            if link_total[l] as f64 != self.link_bytes[l] {
                return Err(format!(
                    "link {l}: carried {} B, its flows {} B",
                    self.link_bytes[l], link_total[l]
                ));
            }
            let capacity = topology.link(LinkId(l as u32)).capacity().bytes_per_ns();
            list.sort_unstable_by_key(|&(from, _, _)| from);
            let mut active: Vec<(u64, f64)> = Vec::new();
            for (i, &(from, to, rate)) in list.iter().enumerate() {
                active.retain(|&(end, _)| end > from);
                active.push((to, rate));
                // Sum once all the intervals starting at this time are in.
                if list.get(i + 1).is_some_and(|next| next.0 == from) {
                    continue;
                }
                let load: f64 = active.iter().map(|&(_, r)| r).sum();
                if load > capacity * (1.0 + TOLERANCE) {
                    return Err(format!(
                        "link {l}: {load} B/ns at {from} ns, above its capacity {capacity} B/ns"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The cluster at time `t`: link rates and the chunks in flight.
    pub fn sample(&self, t: SimTime) -> Frame {
        let mut link_rate = vec![0.0; self.link_bytes.len()];
        let mut in_flight = Vec::new();
        for &i in self.alive_near(t) {
            let flow = &self.flows[i as usize];
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
        topology
            .links()
            .map(|(id, link)| frame.link_rate[id.index()] / link.capacity().bytes_per_ns())
            .collect()
    }

    /// Mean utilisation of every link over the whole run, in [0, 1].
    pub fn mean_utilisation(&self, topology: &Topology) -> Vec<f64> {
        mean_utilisation(topology, self.end, &self.link_bytes)
    }
}

/// Mean utilisation of every link that carried `link_bytes` over `[0, end]`, in [0, 1].
pub fn mean_utilisation(topology: &Topology, end: SimTime, link_bytes: &[f64]) -> Vec<f64> {
    let span = end.0.max(1) as f64;
    topology
        .links()
        .map(|(id, link)| link_bytes[id.index()] / (link.capacity().bytes_per_ns() * span))
        .collect()
}

/// `Trace::hash` a number of flows at a time, for a caller that must not wait for a large
/// trace's whole hash (the page's job, `simulation::Job::hashed`): the same value.
#[derive(Clone, Debug)]
pub struct TraceHasher {
    hash: crate::hash::Fnv,
    next: usize,
}

impl TraceHasher {
    pub fn new(trace: &Trace) -> TraceHasher {
        let mut hash = crate::hash::Fnv::default();
        hash.word_rotated(trace.flows.len() as u64);
        TraceHasher { hash, next: 0 }
    }

    /// How many of `trace`'s flows are in.
    pub fn done(&self) -> usize {
        self.next
    }

    /// Takes up to `flows` more of `trace`'s flows in; the hash once all of them are.
    pub fn feed(&mut self, trace: &Trace, flows: usize) -> Option<u64> {
        let end = self.next.saturating_add(flows).min(trace.flows.len());
        for flow in &trace.flows[self.next..end] {
            hash_flow(&mut self.hash, flow.transfer, flow.path.iter().copied(), record_hash(flow));
        }
        self.next = end;
        if end < trace.flows.len() {
            return None;
        }
        Some(hash_tail(
            self.hash,
            trace.end,
            trace.link_bytes.iter().copied(),
            &trace.link_peak,
            trace.batches,
        ))
    }
}

/// One flow's part of `Trace::hash`: its number `transfer`, its `path`, and its record's own
/// hash (`record_hash`), as the flow numbered `transfer` on `path` (an image of the flow that
/// ran, `Symmetry::expanded_hash`, whose record it shares, or the flow itself).
pub(crate) fn hash_flow(
    h: &mut crate::hash::Fnv,
    transfer: u32,
    path: impl ExactSizeIterator<Item = LinkId>,
    record: u64,
) {
    h.word_rotated(transfer as u64);
    h.word_rotated(path.len() as u64);
    for link in path {
        h.word_rotated(link.index() as u64);
    }
    h.word_rotated(record);
}

/// A flow's bytes, times and rates (every segment's start, the exact bits of its rate and of
/// the bytes it had done), hashed on their own: what the images of one flow share.
pub(crate) fn record_hash(flow: &FlowRecord) -> u64 {
    let mut d = crate::hash::Fnv::default();
    for value in [flow.bytes, flow.issued.0, flow.started.0, flow.finished.0, flow.segments.len() as u64] {
        d.word_rotated(value);
    }
    for segment in &flow.segments {
        d.word_rotated(segment.from.0);
        d.word_rotated(segment.rate_bytes_per_ns.to_bits());
        d.word_rotated(segment.done_bytes.to_bits());
    }
    d.0
}

/// What `Trace::hash` takes in after the flows: the end, each link's bytes and peak, the batches.
pub(crate) fn hash_tail(
    mut h: crate::hash::Fnv,
    end: SimTime,
    link_bytes: impl Iterator<Item = f64>,
    link_peak: &[f64],
    batches: u64,
) -> u64 {
    h.word_rotated(end.0);
    for value in link_bytes.chain(link_peak.iter().copied()) {
        h.word_rotated(value.to_bits());
    }
    h.word_rotated(batches);
    h.0
}
