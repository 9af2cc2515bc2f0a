//! The lanes a symmetry carries onto one another (`Lanes`: channels, or an NVLSTree's channels'
//! parts) and where each lane's transfers are in the schedule (`Members`).

/// What σ carries onto one another: whole channels, or (NVLSTree) the parts of every channel,
/// each a lane of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Lane k is channel k.
    Channels,
    /// A channel's `parts` parts (`Transfer::chunk`, NVLSTree's local GPU in charge of it) are
    /// images of one another under a turn of the node's GPUs and rails: part k of channel c is
    /// lane `c % s + s·(k + parts·(c / s))`, s the stride, so that σ carries part k onto part
    /// k + 1 and the last part of channel c onto part 0 of channel c + s (the same turn, where
    /// channel c + s uses the same links as channel c: the proof finds out).
    Parts { parts: u32 },
}

impl Lanes {
    /// The lane of a transfer of `channel` and part `part`, at `stride`.
    pub(super) fn of(self, channel: u32, part: u32, stride: u32) -> u32 {
        match self {
            Lanes::Channels => channel,
            Lanes::Parts { parts } => channel % stride + stride * (part + parts * (channel / stride)),
        }
    }

    /// Lanes per channel.
    pub fn per_channel(self) -> u32 {
        match self {
            Lanes::Channels => 1,
            Lanes::Parts { parts } => parts,
        }
    }
}

/// Where each lane's transfers are in the schedule, every lane `per` of them: listed, or (a
/// schedule built lane by lane, `Symmetry::first_channels`) each lane a block of consecutive
/// indices, so that a whole of 40 million transfers is not a list of them.
#[derive(Clone, Debug)]
pub(super) enum Members {
    /// Lane k's i-th transfer is `index[k * per + i]`.
    List { per: usize, index: Vec<u32> },
    /// Lane k's i-th transfer is `starts[k] + i`.
    Blocks { per: usize, starts: Vec<u32> },
    /// Every lane's transfers in runs of `run` taking turns, lane by lane (an AllToAll's: a
    /// step holds each channel's n transfers in turn): lane k's i-th transfer is the
    /// (i mod `run`)-th of lane k's (i / `run`)-th run.
    Interleaved { per: usize, lanes: usize, run: usize },
}

impl Members {
    /// From each lane's list (all of one length).
    pub fn list(lanes: Vec<Vec<u32>>) -> Members {
        let per = lanes.first().map_or(0, Vec::len);
        Members::List { per, index: lanes.into_iter().flatten().collect() }
    }

    pub fn blocks(starts: Vec<u32>, per: usize) -> Members {
        Members::Blocks { per, starts }
    }

    fn per(&self) -> usize {
        match self {
            Members::List { per, .. } | Members::Blocks { per, .. } | Members::Interleaved { per, .. } => {
                *per
            }
        }
    }

    /// How many lanes.
    pub fn lanes(&self) -> usize {
        match self {
            Members::List { per, index } => index.len() / (*per).max(1),
            Members::Blocks { starts, .. } => starts.len(),
            Members::Interleaved { lanes, .. } => *lanes,
        }
    }

    /// Transfers in all lanes.
    pub fn total(&self) -> usize {
        self.lanes() * self.per()
    }

    /// Lane k's i-th transfer.
    pub fn index(&self, k: usize, i: usize) -> u32 {
        match self {
            Members::List { per, index } => index[k * per + i],
            Members::Blocks { starts, .. } => starts[k] + i as u32,
            Members::Interleaved { lanes, run, .. } => ((i / run * lanes + k) * run + i % run) as u32,
        }
    }

    /// Lane k's transfers, in order.
    pub fn lane(&self, k: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.per()).map(move |i| self.index(k, i))
    }

    /// Each transfer's lane and place in it, by its index in the schedule.
    pub fn owners(&self) -> Owners {
        let per = self.per();
        if let Members::Interleaved { lanes, run, .. } = *self {
            return Owners::Interleaved { lanes, run };
        }
        if let Members::Blocks { starts, .. } = self {
            let mut order: Vec<usize> = (0..starts.len()).collect();
            order.sort_unstable_by_key(|&k| starts[k]);
            // Blocks that tile the schedule: the block an index falls in, no list of owners.
            if order.iter().enumerate().all(|(b, &k)| starts[k] as usize == b * per) {
                return Owners::Tiled { per, lane: order };
            }
        }
        let mut owner = vec![(0u32, 0u32); self.total()];
        for k in 0..self.lanes() {
            for (i, index) in self.lane(k).enumerate() {
                owner[index as usize] = (k as u32, i as u32);
            }
        }
        Owners::Listed(owner)
    }
}

/// Each transfer's lane and place in it (`Members::owners`).
pub(super) enum Owners {
    /// Lanes in blocks of `per` that tile the schedule: block b is lane `lane[b]`.
    Tiled {
        per: usize,
        lane: Vec<usize>,
    },
    Listed(Vec<(u32, u32)>),
    /// `Members::Interleaved`'s, worked out.
    Interleaved {
        lanes: usize,
        run: usize,
    },
}

impl Owners {
    /// Lane k and place i of the schedule's transfer `index`.
    pub fn of(&self, index: usize) -> (usize, usize) {
        match self {
            Owners::Tiled { per, lane } => (lane[index / per], index % per),
            Owners::Listed(owner) => (owner[index].0 as usize, owner[index].1 as usize),
            Owners::Interleaved { lanes, run } => {
                let turn = index / run;
                (turn % lanes, turn / lanes * run + index % run)
            }
        }
    }
}
