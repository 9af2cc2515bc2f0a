//! Channel symmetry: running one channel for all of them, where that is exact.
//!
//! NCCL's channels of one collective are the same algorithm on different NICs and rails: on a
//! rail-optimised cluster with static routes, channel k's i-th transfer is often channel
//! (k−1)'s i-th carried onto other GPUs and other links by one permutation σ of the cluster's
//! links. `find` proves it for a schedule, or says no: it routes every transfer and checks,
//! for every channel k and position i, that the two transfers agree in step, bytes, operation,
//! hop and dependencies (taken position for position), and that σ, built link by link from
//! the paths, is one injective map that keeps every link's capacity, latency and kind
//! (channel 0's transfers are likewise the images of channel C−1's). The flows of all channels
//! are then a system σ maps onto itself, with the same dependencies and latencies; max-min fair
//! sharing has one solution, which σ therefore keeps: every image of a flow moves exactly as
//! the flow does.
//!
//! Where the channels alternate two shapes (NCCL's two trees), `find_strided` proves the same of
//! channel k and channel k + 2 instead, and channels 0 and 1 run for all, σ's order C/2 where
//! C stands below. An NVLSTree's channel is g parts, each on its own connections and its own
//! GPU's NIC; `find_strided` tries them first as lanes of their own (`Lanes::Parts`: σ a turn of
//! every node's GPUs and rails carrying part k onto part k + 1, C below counting lanes), so that
//! part 0 of channels 0 and 1 runs for all, a g-th of the channels' transfers.
//!
//! So the engine runs channel 0 alone on the links folded into their orbits under σ (`Fold`):
//! an orbit `O` becomes one link of capacity `c × |O| / C` that a flow crosses as often as its
//! path meets `O` (a link of the cluster carries `C / |O|` images of each such crossing, so
//! its constraint is the orbit's, divided through). `expand` rebuilds every channel's flows
//! from channel 0's: the same times and rates on the images of its paths. The result is the
//! whole run's, up to the order floating-point sums are taken in: `tests/symmetry.rs` compares
//! the two on a matrix of scenarios, where every time agrees to the nanosecond, every rate to
//! 1e-12, and every ring's trace bit for bit (AllToAll's rates differ in their last bits).
//!
//! Not tried: routing other than static (ECMP hashes each flow; adaptive routing sees the
//! order flows are issued in) and fabrics whose shared links lose efficiency (RoCE, TCP: the
//! loss depends on how many sources share a cluster link, which the fold does not see).

use crate::collective::Schedule;
use crate::routing::Policy;
use crate::topology::{LinkId, Topology};
use crate::trace::{FlowRecord, Trace};
use crate::units::SimTime;

pub use super::copies::CopiesSearch;
pub use super::images::ExpandedHasher;
pub use super::lanes::Lanes;
use super::lanes::Members;
pub(super) use super::linkmap::{alike, alike_kind, orbits, LinkMap};
pub use super::mirror::Mirrored;
pub use super::search::SymmetrySearch;

/// A schedule's proved channel symmetry.
#[derive(Clone, Debug)]
pub struct Symmetry {
    /// How many lanes: the schedule's channels, or channels × parts (`Lanes`).
    pub(super) n_lanes: u32,
    pub(super) lanes: Lanes,
    /// σ carries lane k onto lane k + `stride` (1, or 2 where the channels alternate two
    /// shapes, as NCCL's two trees do); lanes below it run for all.
    pub(super) stride: u32,
    /// Where lane k's i-th transfer is in the schedule.
    pub(super) members: Members,
    /// The transfers that run (lanes below `stride`), in schedule order, and where lane
    /// k's i-th is among them (`zero_pos[k][i]`, k below `stride`).
    pub(super) zero: Vec<u32>,
    pub(super) zero_pos: Vec<Vec<u32>>,
    /// σ on links (a link no flow uses maps to itself).
    pub(super) sigma: Vec<LinkId>,
    /// The routed paths of the transfers that run, in `zero`'s order (channel 0's, position
    /// for position, where the stride is 1).
    pub(super) paths: Vec<Vec<LinkId>>,
    /// Each link's orbit: its representative (the lowest id) and its size.
    pub(super) rep: Vec<LinkId>,
    pub(super) orbit: Vec<u32>,
}

/// The links folded into their orbits, for the engine (`Run::new_folded`).
#[derive(Clone, Debug)]
pub struct Fold {
    /// Each link's orbit representative.
    pub rep: Vec<LinkId>,
    /// Each representative's capacity: its links' capacity × orbit size / σ's order [B/ns].
    pub capacity: Vec<f64>,
}

impl Symmetry {
    /// The proof for `schedule` on `topology` under `policy`, if its channels are images of one
    /// another (see the module's documentation); `None` otherwise.
    pub fn find(topology: &Topology, schedule: &Schedule, policy: Policy) -> Option<Symmetry> {
        SymmetrySearch::channels().run(topology, schedule, policy)
    }

    /// `find`, or else the proof that every other channel is an image of the one two before
    /// (NCCL's trees alternate two shapes between channels: channels 0 and 1 then run for all).
    /// An NVLSTree's parts are tried as lanes first (`Lanes::Parts`: an eighth of the channels'
    /// transfers run on DGX H100). `SymmetrySearch` does it a number of routes at a time.
    pub fn find_strided(topology: &Topology, schedule: &Schedule, policy: Policy) -> Option<Symmetry> {
        SymmetrySearch::strided(schedule).run(topology, schedule, policy)
    }

    /// Channels the engine runs for all: 1 (channel 0), or 2 (channels 0 and 1) for a schedule
    /// whose channels alternate two shapes (`find_strided`); of each, part 0 alone where the
    /// parts are lanes (`parts`).
    pub fn stride(&self) -> u32 {
        self.stride
    }

    /// Whether σ leaves every link where it is: the lanes are copies of one another on the same
    /// links (`copies`: an AllToAll's or a SendRecv's channels on their GPUs' own NICs), not
    /// images on links of their own.
    pub fn copies_on_same_links(&self) -> bool {
        self.sigma.iter().enumerate().all(|(i, link)| link.index() == i)
    }

    /// The parts of a channel that are lanes of their own (`Lanes::Parts`), of which part 0
    /// runs for all; 1 where whole channels are.
    pub fn parts(&self) -> u32 {
        self.lanes.per_channel()
    }

    /// How many transfers of the whole each that runs stands for: σ's order.
    pub fn share(&self) -> u64 {
        (self.n_lanes / self.stride) as u64
    }

    /// σ's order: how many lanes each lane that runs stands for.
    pub(super) fn order(&self) -> f64 {
        self.share() as f64
    }

    /// This proof's σ and orbits for other lanes: `members`, the transfers that run and where
    /// each lane's are among them, and their paths (the rest cloned, not the lanes replaced).
    fn with_lanes(
        &self,
        members: Members,
        (zero, zero_pos): (Vec<u32>, Vec<Vec<u32>>),
        paths: Vec<Vec<LinkId>>,
    ) -> Symmetry {
        Symmetry {
            n_lanes: self.n_lanes,
            lanes: self.lanes,
            stride: self.stride,
            members,
            zero,
            zero_pos,
            sigma: self.sigma.clone(),
            paths,
            rep: self.rep.clone(),
            orbit: self.orbit.clone(),
        }
    }

    /// The proof for a schedule made of `steps` copies of the proved one, each numbered after
    /// the one before, with the same connections, bytes and dependencies shifted by whole
    /// copies (a ring's prefix of its identical first step, `collective::ring_prefix`): every
    /// transfer of copy s is channel k's image of channel 0's, as in copy 0. The caller vouches
    /// for the shape; `simulation` uses it for ring prefixes, whose golden traces hold it to
    /// `find` on the whole prefix. A proof of stride 1 (`find`'s).
    pub fn repeated(&self, steps: u32) -> Symmetry {
        debug_assert_eq!(self.stride, 1, "a ring's channels are all alike");
        let unit = self.members.total() as u32;
        let members: Vec<Vec<u32>> = (0..self.members.lanes())
            .map(|k| (0..steps).flat_map(|copy| self.members.lane(k).map(move |i| copy * unit + i)).collect())
            .collect();
        let paths = (0..steps).flat_map(|_| self.paths.iter().cloned()).collect();
        let zero = members[0].clone();
        let members = Members::list(members);
        let zero_pos = vec![(0..zero.len() as u32).collect()];
        self.with_lanes(members, (zero, zero_pos), paths)
    }

    /// The proof for a schedule of which only the channels that run are built (`built`, or the
    /// whole, channel-major, numbered as `channel_zero` numbers the whole's: a tree's first channels,
    /// `collective::FirstChannels`), from this proof on `small`, the same algorithm at one chunk
    /// per channel (and part). Where every channel of the whole has the same length, chunk q of
    /// channel k is built as chunk 0 is, on the same connections (the routes of a static policy
    /// depend on a transfer's ends, channel and hop alone), so σ carries channel k onto channel
    /// k + stride chunk by chunk as it does in `small`. The caller vouches for the shape (equal
    /// channels); `tests/symmetry.rs` holds runs so proved to `Mode::Exact`, and
    /// `tests/tree_channels.rs` a run of the first channels alone to the whole built and folded.
    /// `None` if a transfer of `built` has no counterpart in `small`.
    pub fn first_channels(&self, small: &Schedule, built: &Schedule) -> Option<Symmetry> {
        type Key = (u32, u32, u32, crate::collective::Hop);
        let key = |t: &crate::collective::Transfer| -> Key { (t.src, t.dst, t.channel, t.hop) };
        let mut routes: std::collections::HashMap<Key, u32, crate::hash::FixedState> =
            std::collections::HashMap::with_hasher(crate::hash::FixedState);
        for (z, &index) in self.zero.iter().enumerate() {
            routes.entry(key(small.transfers.get(index as usize)?)).or_insert(z as u32);
        }
        // The channels built: those that run (`stride`; of each, part 0 alone where parts are
        // lanes), or all of them (a whole schedule), in blocks of one lane each: channel-major,
        // part-major within a channel.
        let stride = self.stride as usize;
        let parts = self.lanes.per_channel() as usize;
        let n_channels = self.n_lanes as usize / parts;
        let channels = built.transfers.last().map_or(0, |t| t.channel as usize + 1);
        let blocks = match channels {
            _ if built.n_channels as usize != n_channels => return None,
            c if c == n_channels => n_channels * parts,
            c if c == stride => stride,
            _ => return None,
        };
        let per = built.transfers.len() / blocks;
        // Block b of what is built: its channel and part.
        let block = |b: usize| if blocks == stride { (b, 0) } else { (b / parts, b % parts) };
        let in_blocks = per > 0
            && built.transfers.len() == per * blocks
            && built.transfers.iter().enumerate().all(|(i, t)| {
                let (channel, part) = block(i / per);
                t.channel as usize == channel && (parts == 1 || t.chunk as usize == part)
            });
        if !in_blocks {
            return None;
        }
        // Lane k's channel and part, and its transfers as the whole numbers them.
        let whole_block = |k: usize| -> std::ops::Range<u32> {
            let (channel, part) = match self.lanes {
                Lanes::Channels => (k, 0),
                Lanes::Parts { .. } => {
                    let rest = k / stride;
                    ((rest / parts) * stride + k % stride, rest % parts)
                }
            };
            let b = channel * parts + part;
            (b * per) as u32..((b + 1) * per) as u32
        };
        let zero: Vec<u32> = match blocks == stride {
            true => (0..(per * stride) as u32).collect(),
            false => (0..stride).flat_map(whole_block).collect(),
        };
        let paths = zero
            .iter()
            .map(|&i| routes.get(&key(&built.transfers[i as usize])).map(|&z| self.paths[z as usize].clone()))
            .collect::<Option<Vec<_>>>()?;
        let run = |k: usize| (k * per) as u32..((k + 1) * per) as u32;
        let members =
            Members::blocks((0..self.n_lanes as usize).map(|k| whole_block(k).start).collect(), per);
        Some(self.with_lanes(members, (zero, (0..stride).map(|k| run(k).collect()).collect()), paths))
    }

    /// Channel 0's routed paths, position for position (`channel_zero`'s numbering): for a ring
    /// prefix, its first step's are the first `n` (`rotation`).
    pub fn channel_zero_paths(&self) -> &[Vec<LinkId>] {
        &self.paths
    }

    /// Each link's bytes over the whole schedule, from `zero[l]`, link l's bytes over the
    /// transfers that run alone: channel k + j·stride is σ^j's image of channel k, so link l
    /// carries what σ^-j(l) carries in them, summed over j below σ's order; over l's orbit
    /// (of size o) that is order / o times the orbit's bytes, in integers: the whole's, to the
    /// byte (a tuner's bound from the channels that run, `plan::Bound::of_paths`).
    pub fn whole_link_bytes(&self, zero: &[u64]) -> Vec<u64> {
        let mut orbit_bytes = vec![0u64; zero.len()];
        for (l, &bytes) in zero.iter().enumerate() {
            orbit_bytes[self.rep[l].index()] += bytes;
        }
        let order = self.share();
        (0..zero.len()).map(|l| orbit_bytes[self.rep[l].index()] * (order / self.orbit[l] as u64)).collect()
    }

    /// The transfers that run alone (channel 0's, or channels 0 and 1's), their dependencies
    /// renumbered: what the engine runs.
    pub fn channel_zero(&self, schedule: &Schedule) -> Schedule {
        let mut position = vec![u32::MAX; schedule.transfers.len()];
        for (i, &index) in self.zero.iter().enumerate() {
            position[index as usize] = i as u32;
        }
        let transfers = self
            .zero
            .iter()
            .map(|&index| {
                let mut t = schedule.transfers[index as usize].clone();
                for dep in &mut t.deps {
                    *dep = position[*dep as usize];
                }
                t.after = t.after.map(|a| position[a as usize]);
                t
            })
            .collect();
        schedule.with_transfers(transfers)
    }

    /// Each transfer of the whole schedule given its counterpart's `value` among those that run
    /// (indexed as `channel_zero`'s transfers).
    pub fn spread<T: Copy>(&self, zero: &[T]) -> Vec<T> {
        let mut all = vec![zero[0]; self.members.total()];
        for k in 0..self.members.lanes() {
            let runs = &self.zero_pos[k % self.stride as usize];
            for (i, index) in self.members.lane(k).enumerate() {
                all[index as usize] = zero[runs[i] as usize];
            }
        }
        all
    }

    /// The folded links for the engine.
    pub fn fold(&self, topology: &Topology) -> Fold {
        let capacity = (0..self.rep.len())
            .map(|l| {
                let link = topology.link(LinkId(l as u32));
                link.capacity().bytes_per_ns() * self.orbit[l] as f64 / self.order()
            })
            .collect();
        Fold { rep: self.rep.clone(), capacity }
    }

    /// The whole run's trace from the folded run of channel 0 (`channel_zero`, `fold`): every
    /// channel's flows with channel 0's times and rates on the images of its paths.
    pub fn expand(&self, folded: Trace, schedule: &Schedule) -> Trace {
        let mut expansion = self.expansion(folded, schedule);
        while !self.expand_channel(&mut expansion) {}
        self.expanded(expansion)
    }

    /// `expand` a channel at a time (`expand_channel`), for a caller that must stay responsive.
    pub fn expansion(&self, folded: Trace, schedule: &Schedule) -> Expansion {
        Expansion { folded, flows: vec![None; schedule.transfers.len()], next: 0 }
    }

    /// Expands the next lane of `expansion` (a channel, or a channel's part); true once every
    /// lane is expanded.
    pub fn expand_channel(&self, expansion: &mut Expansion) -> bool {
        let k = expansion.next;
        if k >= self.members.lanes() {
            return true;
        }
        let flows = &mut expansion.flows;
        let runs = &self.zero_pos[k % self.stride as usize];
        for (i, index) in self.members.lane(k).enumerate() {
            // Lane k's path is σ of lane k − stride's.
            let path = match k.checked_sub(self.stride as usize) {
                None => self.paths[runs[i] as usize].clone(),
                Some(before) => {
                    let previous = flows[self.members.index(before, i) as usize].as_ref();
                    let previous = previous.expect("channel k - stride is expanded before channel k");
                    previous.path.iter().map(|l| self.sigma[l.index()]).collect()
                }
            };
            let source = &expansion.folded.flows[runs[i] as usize];
            flows[index as usize] = Some(FlowRecord {
                transfer: index,
                path,
                bytes: source.bytes,
                issued: source.issued,
                started: source.started,
                finished: source.finished,
                segments: source.segments.clone(),
            });
        }
        expansion.next += 1;
        expansion.next == self.members.lanes()
    }

    /// The whole run's trace once `expand_channel` expanded every channel.
    pub fn expanded(&self, expansion: Expansion) -> Trace {
        let Expansion { folded, flows, .. } = expansion;
        let flows: Vec<FlowRecord> =
            flows.into_iter().map(|f| f.expect("every transfer has a channel")).collect();
        // A link carries its orbit's folded load times channels / orbit size (a link no flow
        // uses is its own orbit, with no load).
        let link_peak = self.link_peak(&folded);
        Trace::of_flows(flows, self.rep.len(), link_peak, folded.batches)
    }
}

/// A folded run's trace being expanded a channel at a time (`Symmetry::expansion`).
pub struct Expansion {
    folded: Trace,
    flows: Vec<Option<FlowRecord>>,
    next: usize,
}

/// Each transfer's finish time in `run`'s trace, found by running channel 0 alone on the
/// folded links where `symmetry` proves the channels images of one another (the same times to
/// the nanosecond, `tests/symmetry.rs`), by `run` otherwise.
pub fn finish_times(topology: &Topology, schedule: Schedule, policy: Policy) -> Vec<SimTime> {
    let mut run = FinishRun::start(schedule, policy);
    while !run.advance(topology, u64::MAX) {}
    run.finish(topology)
}

/// `finish_times` as a run to advance a number of event batches at a time, its channel
/// symmetry searched first `SEARCH_ROUTES` routes per `advance` (a data-parallel ring over 512
/// GPUs routes 524,288 transfers: 105-140 ms natively in one go).
pub struct FinishRun {
    policy: Policy,
    stage: FinishStage,
}

/// Routes of the symmetry search per `FinishRun::advance` (about 10 ms natively).
const SEARCH_ROUTES: usize = 32_768;

enum FinishStage {
    Searching(Schedule, Box<SymmetrySearch>),
    /// The search's end: the proof, or none.
    Found(Schedule, Option<Box<Symmetry>>),
    /// What the engine runs: channel 0 where the channels fold, else the whole schedule.
    Running {
        schedule: Schedule,
        run: Box<super::Run>,
        symmetry: Option<Symmetry>,
    },
    /// Between the two.
    Moving,
}

impl FinishRun {
    /// `schedule` to run, folded where `Symmetry::find` proves it (searched by `advance`).
    pub fn start(schedule: Schedule, policy: Policy) -> FinishRun {
        FinishRun { policy, stage: FinishStage::Searching(schedule, Box::new(SymmetrySearch::channels())) }
    }

    /// Handles up to `batches` event batches (while the symmetry is searched, `SEARCH_ROUTES`
    /// routes, or all of them for `u64::MAX`; then the run set up in a call of its own, then
    /// its batches); true once the run is over.
    pub fn advance(&mut self, topology: &Topology, batches: u64) -> bool {
        let policy = self.policy;
        let found = match &mut self.stage {
            FinishStage::Searching(schedule, search) => {
                let budget = if batches == u64::MAX { usize::MAX } else { SEARCH_ROUTES };
                match search.advance(topology, schedule, policy, budget) {
                    None => return false,
                    found => found,
                }
            }
            FinishStage::Found(..) => None,
            FinishStage::Running { schedule, run, .. } => return run.advance(topology, schedule, batches),
            FinishStage::Moving => unreachable!("between stages"),
        };
        self.stage = match (found, std::mem::replace(&mut self.stage, FinishStage::Moving)) {
            // The search's end, and the run set up in the next call.
            (Some(found), FinishStage::Searching(schedule, _)) => {
                FinishStage::Found(schedule, found.map(Box::new))
            }
            (_, FinishStage::Found(schedule, found)) => {
                Self::set_up(topology, schedule, found.map(|s| *s), policy)
            }
            _ => unreachable!("searching or found"),
        };
        batches == u64::MAX && self.advance(topology, batches)
    }

    /// The run of `schedule`, folded by `found` where it holds.
    fn set_up(
        topology: &Topology,
        schedule: Schedule,
        found: Option<Symmetry>,
        policy: Policy,
    ) -> FinishStage {
        match found {
            Some(symmetry) => {
                let zero = symmetry.channel_zero(&schedule);
                let run = super::Run::new_folded(topology, &zero, policy, symmetry.fold(topology));
                FinishStage::Running { schedule: zero, run: Box::new(run), symmetry: Some(symmetry) }
            }
            None => {
                let run = super::Run::new(topology, &schedule, policy, None);
                FinishStage::Running { schedule, run: Box::new(run), symmetry: None }
            }
        }
    }

    /// Each transfer's finish time, once `advance` said the run is over.
    pub fn finish(self, topology: &Topology) -> Vec<SimTime> {
        let FinishStage::Running { run, symmetry, .. } = self.stage else {
            unreachable!("finish follows the run's end")
        };
        let finished: Vec<SimTime> = run.finish(topology).0.flows.iter().map(|f| f.finished).collect();
        match symmetry {
            Some(symmetry) => symmetry.spread(&finished),
            None => finished,
        }
    }
}
