//! How a job's ranks are split into tensor- (TP), pipeline- (PP) and data-parallel (DP) groups.
//!
//! Rank `r` of `TP × PP × DP` has one coordinate per dimension. The rank order names the
//! dimensions innermost first: `tp-pp-dp` (TP innermost) gives consecutive ranks, which share a
//! node, to one TP group; `dp-pp-tp` gives them to one DP group and scatters every TP group over
//! `TP` different nodes. Megatron-LM's default is `tp-dp-pp` (TP innermost, PP outermost).
//!
//! Context parallelism (CP) sits just outside TP, as in Megatron-Core's default order
//! (`tp-cp-…`): the order's TP slot holds `TP × CP` ranks, TP innermost, so a CP group is `TP`
//! ranks apart and stays in a node as long as `TP × CP` fits one.

use serde::{Deserialize, Serialize};

/// A parallel dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dim {
    Tp,
    /// Context parallelism: the sequence split over ranks (ring attention).
    Cp,
    Pp,
    Dp,
}

/// Dimensions innermost first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RankOrder {
    #[default]
    #[serde(rename = "tp-pp-dp")]
    TpPpDp,
    #[serde(rename = "tp-dp-pp")]
    TpDpPp,
    #[serde(rename = "pp-tp-dp")]
    PpTpDp,
    #[serde(rename = "pp-dp-tp")]
    PpDpTp,
    #[serde(rename = "dp-tp-pp")]
    DpTpPp,
    #[serde(rename = "dp-pp-tp")]
    DpPpTp,
}

impl RankOrder {
    pub const ALL: [RankOrder; 6] = [
        RankOrder::TpPpDp,
        RankOrder::TpDpPp,
        RankOrder::PpTpDp,
        RankOrder::PpDpTp,
        RankOrder::DpTpPp,
        RankOrder::DpPpTp,
    ];

    /// Innermost first.
    pub fn dims(self) -> [Dim; 3] {
        use Dim::*;
        match self {
            RankOrder::TpPpDp => [Tp, Pp, Dp],
            RankOrder::TpDpPp => [Tp, Dp, Pp],
            RankOrder::PpTpDp => [Pp, Tp, Dp],
            RankOrder::PpDpTp => [Pp, Dp, Tp],
            RankOrder::DpTpPp => [Dp, Tp, Pp],
            RankOrder::DpPpTp => [Dp, Pp, Tp],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RankOrder::TpPpDp => "tp-pp-dp",
            RankOrder::TpDpPp => "tp-dp-pp",
            RankOrder::PpTpDp => "pp-tp-dp",
            RankOrder::PpDpTp => "pp-dp-tp",
            RankOrder::DpTpPp => "dp-tp-pp",
            RankOrder::DpPpTp => "dp-pp-tp",
        }
    }
}

/// Sizes of the three dimensions and their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub tp: u32,
    pub cp: u32,
    pub pp: u32,
    pub dp: u32,
    pub order: RankOrder,
}

impl Grid {
    pub fn size(&self, dim: Dim) -> u32 {
        match dim {
            Dim::Tp => self.tp,
            Dim::Cp => self.cp,
            Dim::Pp => self.pp,
            Dim::Dp => self.dp,
        }
    }

    /// Ranks in one slot of the rank order: the TP slot holds TP × CP.
    fn slot(&self, dim: Dim) -> u32 {
        match dim {
            Dim::Tp | Dim::Cp => self.tp * self.cp,
            _ => self.size(dim),
        }
    }

    pub fn ranks(&self) -> u32 {
        self.tp * self.cp * self.pp * self.dp
    }

    /// The coordinate of `rank` along `dim`.
    pub fn coord(&self, rank: u32, dim: Dim) -> u32 {
        let slot = if dim == Dim::Cp { Dim::Tp } else { dim };
        let mut stride = 1;
        for d in self.order.dims() {
            if d == slot {
                let c = rank / stride % self.slot(d);
                return match dim {
                    Dim::Tp => c % self.tp,
                    Dim::Cp => c / self.tp,
                    _ => c,
                };
            }
            stride *= self.slot(d);
        }
        unreachable!("every dimension is in the order")
    }

    /// The rank with coordinates `(tp, pp, dp)` and CP coordinate 0.
    pub fn rank(&self, tp: u32, pp: u32, dp: u32) -> u32 {
        self.rank_of(tp, 0, pp, dp)
    }

    /// The rank with coordinates `(tp, cp, pp, dp)`.
    pub fn rank_of(&self, tp: u32, cp: u32, pp: u32, dp: u32) -> u32 {
        let mut rank = 0;
        let mut stride = 1;
        for d in self.order.dims() {
            let c = match d {
                Dim::Tp | Dim::Cp => cp * self.tp + tp,
                Dim::Pp => pp,
                Dim::Dp => dp,
            };
            rank += c * stride;
            stride *= self.slot(d);
        }
        rank
    }

    /// Every group along `dim`: the ranks that differ only in that coordinate, in its order.
    pub fn groups(&self, dim: Dim) -> Vec<Vec<u32>> {
        let mut groups = Vec::new();
        for a in 0..self.ranks() {
            if self.coord(a, dim) != 0 {
                continue;
            }
            let [tp, cp, pp, dp] = [Dim::Tp, Dim::Cp, Dim::Pp, Dim::Dp].map(|d| self.coord(a, d));
            groups.push(
                (0..self.size(dim))
                    .map(|i| match dim {
                        Dim::Tp => self.rank_of(i, cp, pp, dp),
                        Dim::Cp => self.rank_of(tp, i, pp, dp),
                        Dim::Pp => self.rank_of(tp, cp, i, dp),
                        Dim::Dp => self.rank_of(tp, cp, pp, i),
                    })
                    .collect(),
            );
        }
        groups
    }

    /// The ranks that hold the same weights and reduce their gradients together: the DP
    /// groups, merged over CP (each CP rank saw part of every sequence).
    pub fn gradient_groups(&self) -> Vec<Vec<u32>> {
        if self.cp == 1 {
            return self.groups(Dim::Dp);
        }
        self.groups(Dim::Dp)
            .into_iter()
            .filter(|group| self.coord(group[0], Dim::Cp) == 0)
            .map(|group| {
                group
                    .iter()
                    .flat_map(|&r| {
                        let [tp, pp, dp] = [Dim::Tp, Dim::Pp, Dim::Dp].map(|d| self.coord(r, d));
                        (0..self.cp).map(move |c| (tp, c, pp, dp))
                    })
                    .map(|(tp, c, pp, dp)| self.rank_of(tp, c, pp, dp))
                    .collect()
            })
            .collect()
    }

    /// Expert-parallel groups of size `ep` (Megatron-Core's convention: EP splits each DP group
    /// into `dp / ep` blocks of `ep` consecutive DP coordinates), and the expert-data-parallel
    /// groups that hold the same experts: in each DP group, the ranks `ep` DP coordinates apart.
    pub fn expert_groups(&self, ep: u32) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let (mut expert, mut replicas) = (Vec::new(), Vec::new());
        for group in self.groups(Dim::Dp) {
            for block in group.chunks(ep.max(1) as usize) {
                expert.push(block.to_vec());
            }
            for first in 0..ep.max(1) as usize {
                replicas.push(group.iter().skip(first).step_by(ep.max(1) as usize).copied().collect());
            }
        }
        (expert, replicas)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tp_innermost_keeps_tp_groups_on_consecutive_ranks() {
        let grid = Grid { tp: 8, cp: 1, pp: 2, dp: 4, order: RankOrder::TpPpDp };
        let tp = grid.groups(Dim::Tp);
        assert_eq!(tp.len(), 8);
        assert_eq!(tp[0], (0..8).collect::<Vec<_>>());
        assert_eq!(grid.groups(Dim::Pp)[0], [0, 8]);
        assert_eq!(grid.groups(Dim::Dp)[0], [0, 16, 32, 48]);
    }

    #[test]
    fn cp_sits_just_outside_tp() {
        // TP 2 × CP 2 × PP 1 × DP 2, TP innermost: ranks 0,1 are TP; 0,2 are CP; 0,4 are DP.
        let grid = Grid { tp: 2, cp: 2, pp: 1, dp: 2, order: RankOrder::TpDpPp };
        assert_eq!(grid.ranks(), 8);
        assert_eq!(grid.groups(Dim::Tp)[0], [0, 1]);
        assert_eq!(grid.groups(Dim::Cp)[0], [0, 2]);
        assert_eq!(grid.groups(Dim::Dp)[0], [0, 4]);
        let mut gradients = grid.gradient_groups()[0].clone();
        gradients.sort_unstable();
        assert_eq!(gradients, [0, 2, 4, 6]);
        assert_eq!(grid.gradient_groups().len(), 2);
        for r in 0..8 {
            let [t, c, p, d] = [Dim::Tp, Dim::Cp, Dim::Pp, Dim::Dp].map(|dim| grid.coord(r, dim));
            assert_eq!(grid.rank_of(t, c, p, d), r);
        }
    }

    #[test]
    fn expert_groups_split_each_dp_group() {
        // TP 2 × PP 1 × DP 8, TP innermost: DP group 0 is ranks 0, 2, …, 14.
        let grid = Grid { tp: 2, cp: 1, pp: 1, dp: 8, order: RankOrder::TpPpDp };
        let (expert, replicas) = grid.expert_groups(4);
        assert_eq!(expert.len(), 4);
        assert_eq!(expert[0], [0, 2, 4, 6]);
        assert_eq!(expert[1], [8, 10, 12, 14]);
        assert_eq!(replicas[0], [0, 8]);
        assert_eq!(replicas.len(), 8);
        let (all, _) = grid.expert_groups(1);
        assert!(all.iter().all(|g| g.len() == 1));
    }

    #[test]
    fn every_order_partitions_the_ranks_and_round_trips() {
        for order in RankOrder::ALL {
            let grid = Grid { tp: 4, cp: 1, pp: 3, dp: 2, order };
            for r in 0..grid.ranks() {
                assert_eq!(
                    grid.rank(grid.coord(r, Dim::Tp), grid.coord(r, Dim::Pp), grid.coord(r, Dim::Dp)),
                    r
                );
            }
            for dim in [Dim::Tp, Dim::Pp, Dim::Dp] {
                let mut all: Vec<u32> = grid.groups(dim).into_iter().flatten().collect();
                all.sort_unstable();
                assert_eq!(all, (0..24).collect::<Vec<_>>(), "{order:?} {dim:?}");
            }
        }
        // DP innermost scatters a TP group: its members are DP × PP ranks apart.
        let grid = Grid { tp: 4, cp: 1, pp: 3, dp: 2, order: RankOrder::DpPpTp };
        assert_eq!(grid.groups(Dim::Tp)[0], [0, 6, 12, 18]);
    }
}
