//! Exports of a simulation: every link and every transfer as CSV, and its fingerprint.

use super::Simulation;
use crate::engine::symmetry::ExpandedHasher;
use crate::hash::Fnv;
use crate::trace::TraceHasher;

/// A simulation's trace hash worked out a number of flows at a time (`Job::hashed`): its
/// trace's, or, for a run shown as the lanes that stand for all (`Simulation::images`), the
/// whole expanded trace's, as a sweep's row streams it (`Symmetry::expanded_hash`).
pub(super) enum SimHasher {
    Trace(TraceHasher),
    Images(Box<ExpandedHasher>),
}

impl SimHasher {
    /// Takes up to `flows` more flows in; the hash once all of them are.
    pub fn feed(&mut self, sim: &Simulation, flows: usize) -> Option<u64> {
        match (self, &sim.images) {
            (SimHasher::Images(hasher), Some(images)) => hasher.feed(images, flows),
            (SimHasher::Trace(hasher), _) => hasher.feed(&sim.trace, flows),
            (SimHasher::Images(_), None) => {
                unreachable!("an images hasher is made for a run shown by symmetry")
            }
        }
    }

    /// The share of the flows in, in [0, 1].
    pub fn progress(&self, sim: &Simulation) -> f64 {
        let (done, all) = match self {
            SimHasher::Trace(hasher) => (hasher.done(), sim.trace.flows.len()),
            SimHasher::Images(hasher) => hasher.done(),
        };
        done as f64 / all.max(1) as f64
    }
}

impl Simulation {
    /// The hasher of this simulation's trace (`SimHasher`).
    pub(super) fn hasher(&self) -> SimHasher {
        match &self.images {
            Some(images) => SimHasher::Images(Box::new(ExpandedHasher::new(
                images,
                &self.trace.flows,
                self.trace.link_peak.clone(),
                self.trace.batches,
            ))),
            None => SimHasher::Trace(TraceHasher::new(&self.trace)),
        }
    }

    /// The run's fingerprint: the trace's hash, and for a steady state also the figures that
    /// extend it (`Trace::hash`); for a run shown by symmetry, the whole trace's.
    pub fn hash_hex(&self) -> String {
        let trace_hash = *self.trace_hash.get_or_init(|| {
            let mut hasher = self.hasher();
            loop {
                if let Some(hash) = hasher.feed(self, usize::MAX) {
                    break hash;
                }
            }
        });
        match &self.steady {
            None => format!("{trace_hash:016x}"),
            Some(steady) => {
                let mut h = Fnv(trace_hash);
                for value in [
                    steady.total_steps as u64,
                    steady.from_ns,
                    steady.to_ns,
                    steady.period_steps as u64,
                    steady.repeats,
                ] {
                    h.word(value);
                }
                for &bytes in &self.link_bytes {
                    h.word(bytes.to_bits());
                }
                h.hex()
            }
        }
    }

    /// Every link as CSV: what it joins, its kind and capacity, the bytes it carried, its mean
    /// and peak utilisation over the run.
    pub fn links_csv(&self) -> String {
        let mut out = String::from(
            "link,from,to,kind,capacity_gbyte_per_s,latency_ns,bytes,mean_utilisation,peak_utilisation\n",
        );
        let mean = self.mean_utilisation();
        for (id, link) in self.topology.links() {
            let capacity = link.capacity().bytes_per_ns();
            out.push_str(&format!(
                "{},{},{},{:?},{:.3},{},{:.0},{:.6},{:.6}\n",
                id.index(),
                self.topology.vertex_name(link.src),
                self.topology.vertex_name(link.dst),
                link.kind,
                capacity,
                link.latency_ns,
                self.link_bytes[id.index()],
                mean[id.index()],
                self.trace.link_peak[id.index()] / capacity
            ));
        }
        out
    }

    /// Every transfer as CSV, sorted by sending rank then time: each rank's timeline of sends
    /// (issued: dependencies done; started: data moving; finished) with what it moved. For a
    /// steady state, the simulated prefix's transfers (the rest repeat them, `Steady`); for a
    /// run shown by symmetry, the lanes that ran (the rest are their images, `images`).
    pub fn transfers_csv(&self) -> String {
        let mut out =
            String::from("rank,peer,step,channel,chunk,op,bytes,issued_ns,started_ns,finished_ns,links\n");
        let mut order: Vec<usize> = (0..self.schedule.transfers.len()).collect();
        crate::sort::by_key(&mut order, |&i| (self.schedule.transfers[i].src, self.trace.flows[i].issued, i));
        for i in order {
            let (t, f) = (&self.schedule.transfers[i], &self.trace.flows[i]);
            out.push_str(&format!(
                "{},{},{},{},{},{:?},{},{},{},{},{}\n",
                t.src,
                t.dst,
                t.step,
                t.channel,
                t.chunk,
                t.op,
                t.bytes(),
                f.issued.0,
                f.started.0,
                f.finished.0,
                f.path.len()
            ));
        }
        out
    }
}
