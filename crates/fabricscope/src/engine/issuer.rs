//! Issuing a flow: its route (kept per connection where the load does not choose it), its
//! latency, and the flows in flight per link that adaptive routing reads.

use super::schedule_flow_latency_ns;
use crate::collective::{Hop, Schedule, Transfer};
use crate::routing::Router;
use crate::topology::{LinkId, Topology};

/// What issuing a flow needs: the router and the flows in flight per link.
pub(super) struct Issuer<'a, 't> {
    pub router: &'a mut Router<'t>,
    pub schedule: &'a Schedule,
    pub topology: &'a Topology,
    pub load: Vec<u32>,
    /// A folded run's link representatives.
    pub rep: Option<&'a [LinkId]>,
    /// The routes issued so far, as the flows take them (folded) with their latency, where they
    /// do not depend on the load.
    pub routes: Option<Routes>,
}

/// (src, dst, channel, hop) → a flow's links (its representatives, folded) and latency [ns]: a
/// route that ignores the load depends on these alone (`Router::route_transfer`). NVLSTree at
/// 1,024 GPUs routes each connection once rather than once per chunk, 16 or 32 times.
pub(super) type Routes =
    std::collections::HashMap<(u32, u32, u32, Hop), (Vec<LinkId>, u64), crate::hash::FixedState>;

/// Most routes a run keeps: emptied when full, so that a schedule of distinct connections
/// (an AllToAll) costs no memory, as `plan::Bound` does.
const KEPT_ROUTES: usize = 65_536;

impl Issuer<'_, '_> {
    /// The path a transfer takes, as the flow records it, and its latency.
    pub fn route(&mut self, transfer: &Transfer) -> (Vec<LinkId>, u64) {
        let (router, topology, schedule, rep, load) =
            (&mut *self.router, self.topology, self.schedule, self.rep, &self.load);
        let mut fresh = || {
            let path = router.route_transfer(transfer, load);
            let latency = schedule_flow_latency_ns(topology, &path, schedule);
            let path = match rep {
                Some(rep) => path.iter().map(|link| rep[link.index()]).collect(),
                None => path,
            };
            (path, latency)
        };
        let Some(routes) = &mut self.routes else {
            return fresh();
        };
        if routes.len() >= KEPT_ROUTES {
            routes.clear();
        }
        routes
            .entry((transfer.src, transfer.dst, transfer.channel, transfer.hop))
            .or_insert_with(fresh)
            .clone()
    }
}
