//! Channels that are copies of one another: one channel running for all on the same links.
//!
//! NCCL's AllToAll moves a slice of every block on each channel, over the same connections:
//! channel c's transfers are channel 0's (same ranks, step and bytes, where the block splits
//! evenly), as a SendRecv's pipeline on each channel is channel 0's, and with static routes and
//! every connection on its GPU's own NIC they take the same paths
//! (`Router::channels_route_alike`). The flows of all channels are then a system that swapping
//! channels maps onto itself with every link left where it is: σ is the identity
//! on links, and max-min fair sharing, which has one solution, gives every copy of a flow the
//! flow's own rates. So channel 0 runs alone on links of a C-th of their capacity (every orbit
//! one link: `Symmetry::fold`), and its flows stand for every channel's (`Simulation::images`,
//! the whole's hash streamed from them, `ExpandedHasher`) without building the other channels:
//! the whole's n(n-1)·C transfers are never listed. `tests/copies.rs` holds it to the run of
//! every transfer: the same times, link bytes and trace hash.
//!
//! Not for fabrics whose shared links lose efficiency (RoCE, TCP): the loss depends on how many
//! sources share a link, which the fold does not see.

use super::lanes::{Lanes, Members};
use super::symmetry::Symmetry;
use crate::collective::Schedule;
use crate::routing::{Policy, Router, RouterState};
use crate::topology::{LinkId, Topology};

/// The proof that a channel stands for its copies, its paths routed a number at a time
/// (`advance`), for a caller that must stay responsive.
pub struct CopiesSearch {
    router: Option<RouterState>,
    paths: Vec<Vec<LinkId>>,
    run: usize,
}

impl CopiesSearch {
    /// The proof for `zero`, channel 0 of a schedule of `zero.n_channels` channels whose
    /// transfers take turns in runs of `run` (an AllToAll's: each step's n transfers, channel by
    /// channel; a SendRecv's channels one after another, `run` all of channel 0's): the caller
    /// vouches that channel c's transfers are channel 0's on channel c, with the same bytes and
    /// dependencies among its own (`collective::alltoall_channel_zero`, a block that splits
    /// evenly over the channels; `sendrecv_channel_zero`); this checks that they are channel 0's
    /// and route alike on every channel, on a lossless fabric. `None` otherwise. A copy's
    /// dependencies are its channel's copies of the flow's, which end when the flow's do, so
    /// every copy is issued with the flow and shares its rates.
    pub fn start(topology: &Topology, zero: &Schedule, policy: Policy, run: usize) -> Option<CopiesSearch> {
        let (per, channels) = (zero.transfers.len(), zero.n_channels as usize);
        let shape = channels >= 2 && run > 0 && per > 0 && per % run == 0;
        let zero_only = zero.transfers.iter().all(|t| t.channel == 0);
        if !shape || !zero_only || topology.congested_efficiency != 1.0 {
            return None;
        }
        let router = Router::for_transfers(topology, policy, &zero.transfers);
        if !router.channels_route_alike() {
            return None;
        }
        Some(CopiesSearch { router: Some(router.into_state()), paths: Vec::with_capacity(per), run })
    }

    /// Routes up to `routes` more of `zero`'s transfers; true once all are.
    pub fn advance(&mut self, topology: &Topology, zero: &Schedule, routes: usize) -> bool {
        let Some(state) = self.router.take() else { return true };
        let mut router = Router::resume(topology, state);
        let load: [u32; 0] = [];
        let end = self.paths.len().saturating_add(routes).min(zero.transfers.len());
        for t in &zero.transfers[self.paths.len()..end] {
            self.paths.push(router.route_transfer(t, &load));
        }
        let done = self.paths.len() == zero.transfers.len();
        if !done {
            self.router = Some(router.into_state());
        }
        done
    }

    /// The proof, once `advance` said so: σ the identity on `topology`'s links, of order the
    /// channel count; lane k channel k, `zero` its lane 0.
    pub fn finish(self, topology: &Topology, zero: &Schedule) -> Symmetry {
        let (per, channels) = (zero.transfers.len(), zero.n_channels as usize);
        let members = Members::Interleaved { per, lanes: channels, run: self.run };
        let n_links = topology.n_links();
        let identity: Vec<LinkId> = (0..n_links as u32).map(LinkId).collect();
        Symmetry {
            n_lanes: channels as u32,
            lanes: Lanes::Channels,
            stride: 1,
            zero: members.lane(0).collect(),
            members,
            zero_pos: vec![(0..per as u32).collect()],
            sigma: identity.clone(),
            paths: self.paths,
            rep: identity,
            orbit: vec![1; n_links],
        }
    }
}

impl Symmetry {
    /// `CopiesSearch` in one go.
    pub fn copies(topology: &Topology, zero: &Schedule, policy: Policy, run: usize) -> Option<Symmetry> {
        let mut search = CopiesSearch::start(topology, zero, policy, run)?;
        while !search.advance(topology, zero, usize::MAX) {}
        Some(search.finish(topology, zero))
    }
}
