//! Admission: how a collective runs within a budget of transfers, one rule for the core's
//! validation (`ENGINE_BUDGET`) and for the page's (a smaller budget it picks).
//!
//! ```text
//!   transfers ≤ budget.transfers                           → Whole   (every transfer simulated;
//!                                                                      a big ring may still settle)
//!   more than STEADY_ABOVE transfers as a ring, no in-network reduction to weigh, and either
//!     a ring whose steps look alike, no adaptive routing, whose prefixes fit
//!     (`ring_prefixes_fit`: the search's, or a short one shown and channel 0's measured, or
//!      a short one shown and measured on a few nodes where the ring turns, `engine::rotation`)
//!                                                          (a proved period, or extrapolated)
//!     or an AllReduce the tuner may run as a Tree within budget.transfers, whole or from
//!     its channels 0 and 1 standing for all (`tree_fits`)
//!                                                          → Steady  (`simulation`'s big plan)
//!   a forced Tree or NVLSTree whose channels 0 and 1 stand for all and fit budget.transfers
//!                                                          → Channels (a sweep's point only)
//!   an AllToAll on static routes and a lossless fabric:
//!     blocks that split (or round) over the channels, channel 0's n(n-1) within budget.copies
//!                                                          → Copies  (channel 0 runs for all)
//!     otherwise, where budget.bounded allows any           → Bounded (bounded, no trace)
//!   a SendRecv on static routes and a lossless fabric whose count splits over the channels,
//!     channel 0 within budget.transfers                    → Copies  (channel 0 runs for all)
//!     or, where budget.copies allows any, one node's sources of channel 0 within it
//!                                                          → Copies  (a sweep's row: a few nodes'
//!                                                             sources for all, where they turn)
//!   a Broadcast's or Reduce's ring chain, no fault, routes that do not follow the load, whose
//!     chain on fewer nodes (`chain_nodes_run`, at least `CHAIN_LEAST_NODES`) fits
//!     min(budget.transfers, CHAIN_RUN_TRANSFERS)       → Chain   (run on fewer nodes, the rest
//!                                                             extrapolated: `simulation::chain`)
//!   otherwise                                              → Refused { transfers }
//! ```

use crate::catalog::Routing;
use crate::collective::{
    ring_rounded_count, ring_steady_steps, transfer_count, transfer_count_with, NCCL_STEPS,
};
use crate::limits::{
    MAX_BOUNDED_ROUTES, MAX_MEASURED_TRANSFERS, MAX_SHOWN_EXPANDED, MAX_STEADY_PREFIX, MAX_TRANSFERS,
};
use crate::scenario::{Algorithm, Collective, Protocol, Scenario};

/// Collectives with more transfers than this run as a steady state where they can: a prefix of
/// their steps is simulated until the run provably repeats (`engine::period`), and the rest is
/// that repetition. Below it every transfer is simulated.
pub const STEADY_ABOVE: u64 = 250_000;

/// Steps of a ring the first steady-state attempt simulates; doubled while no steady state is
/// found, up to `MAX_STEADY_PREFIX` transfers.
pub const STEADY_FIRST_STEPS: u32 = 3 * NCCL_STEPS;

/// Steps of the prefix a steady state is looked for in: rings that settle do so within about
/// 16 steps (`tests/steady.rs`); ones that have not by then are not waited for.
pub const STEADY_SEARCH_STEPS: u32 = 4 * NCCL_STEPS;

/// What a caller lets one collective cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most transfers simulated one by one.
    pub transfers: u64,
    /// Most transfers of a steady state's search prefix.
    pub steady_prefix: u64,
    /// Most flows of a shown prefix expanded from a run folded by its channels and a rotation
    /// by whole nodes (`engine::rotation`), beyond `steady_prefix` (0: none).
    pub shown_expanded: u64,
    /// Most transfers of the run that measures an extrapolated ring's per-step time
    /// (`simulation::fluid`): a few nodes' positions of channel 0 where the ring turns by whole
    /// nodes, else every position's, at least `LEAST_MEASURED_STEPS` steps of them (a leaf
    /// group or pod cut short: what this bounds).
    pub measured: u64,
    /// Most transfers of an AllToAll's channel 0 run for every channel where the whole is beyond
    /// `transfers` (`Admission::Copies`; 0: none). Every flow of an AllToAll starts at once, so
    /// the run's first poll issues them all and each event batch moves them all: its polls grow
    /// with channel 0, not with `transfers`. A SendRecv's channel 0 runs so within `transfers`:
    /// its chunks follow one another on each connection, so a batch moves a chunk per connection
    /// at most; beyond, where this is not 0, a sweep's row runs a few nodes' sources of it for
    /// all (`simulation::turned`).
    pub copies: u64,
    /// Most routes of an AllToAll bounded rather than simulated, where even its channel 0 is
    /// beyond `copies` (`Admission::Bounded`: channel 0's pairs counted in parts,
    /// `routing::PairCount::routes`, which the job checks once the fabric is built; 0: none).
    /// A sweep's row, or the page's run shown as its bounds and link bytes: there is no trace.
    pub bounded: u64,
}

/// The engine's own limits, which `validate` enforces.
pub const ENGINE_BUDGET: Budget = Budget {
    transfers: MAX_TRANSFERS,
    steady_prefix: MAX_STEADY_PREFIX,
    shown_expanded: MAX_SHOWN_EXPANDED,
    measured: MAX_TRANSFERS,
    copies: MAX_TRANSFERS,
    bounded: MAX_BOUNDED_ROUTES,
};

/// Most transfers the page simulates one by one (about 2 s in WebAssembly here), enough for a
/// GB200 NVL72 rack at NCCL's 32 channels (a 327,168-transfer ring); a ring that settles into
/// a steady state (`Steady`) runs at any size whose search prefix is within it.
pub const PAGE_MAX_TRANSFERS: u64 = 400_000;

/// What the page lets one collective cost: `PAGE_MAX_TRANSFERS` one by one, or a steady state's
/// search prefix of as many, no shown prefix expanded beyond it, and a measuring run of
/// `MAX_MEASURED_TRANSFERS`. Here, not in the page, so
/// that the benchmarks time the page's own job natively beside it.
pub const PAGE_BUDGET: Budget = Budget {
    transfers: PAGE_MAX_TRANSFERS,
    steady_prefix: PAGE_MAX_TRANSFERS,
    shown_expanded: 0,
    measured: MAX_MEASURED_TRANSFERS,
    // The page runs an AllToAll whole or bounds it: its whole runs already move up to 49,952
    // flows a batch (channel 0 of 28 DGX H100 at 8 channels, 399,616 transfers), 20-40 ms
    // natively a poll, and channel 0 of 32 nodes took 40-50 ms.
    copies: 0,
    bounded: PAGE_BOUNDED_ROUTES,
};

/// Most routes of an AllToAll the page bounds (`Budget::bounded`): 2,048 DGX H100 on radix-64
/// switches take about 1.2 million (0.24 s and 47 MB natively, in polls of `ROUTED_PER_POLL`
/// routes); a bigger one is the command line's, up to `MAX_BOUNDED_ROUTES`.
pub const PAGE_BOUNDED_ROUTES: u64 = 1 << 23;

/// How a collective fits a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Within the budget transfer by transfer (a big ring may still run as a steady state).
    Whole,
    /// Too big transfer by transfer, but a ring that may settle, whose search prefix fits.
    Steady,
    /// Too big whole, but a forced tree (Tree, NVLSTree) whose channels alternate NCCL's two
    /// trees, so that channels 0 and 1 stand for all and fit (`tree_channels_provable`): a
    /// sweep's point only (`simulation::tree_channels::tree_point`), never a run to show. The
    /// tree's transfer count whole.
    Channels { transfers: u64 },
    /// Too big whole, but an AllToAll or a SendRecv whose channels may be copies of one another,
    /// so that channel 0 stands for all and fits (`alltoall_copies_provable`,
    /// `sendrecv_copies_fit`): run from channel 0,
    /// shown from it or a sweep's point (`simulation::alltoall`). The whole's transfer count.
    Copies { transfers: u64 },
    /// Too big even from channel 0 (or its slices differ), but an AllToAll on static routes and
    /// a lossless fabric, where `Budget::bounded` allows any: a sweep's row or the page's run,
    /// bounded by max-min sharing rather than simulated (`simulation::bounded`). The whole's
    /// transfer count.
    Bounded { transfers: u64 },
    /// Too big whole, but a Broadcast's or Reduce's chain that runs on fewer nodes
    /// (`chain_nodes_run`) and is extrapolated to the rest (`simulation::chain`): a sweep's
    /// row or the page's run, shown as its figures and link bytes, with no trace. The whole's
    /// transfer count.
    Chain { transfers: u64 },
    /// None of these: the collective's transfer count.
    Refused { transfers: u64 },
}

/// How `scenario`'s collective on `n_ranks` ranks over `channels` channels fits `budget`, on
/// nodes whose NVSwitch reduces (`switch_reduces`: the tuner may pick NVLSTree) or not.
pub fn admit(
    scenario: &Scenario,
    n_ranks: u32,
    channels: u32,
    budget: Budget,
    switch_reduces: bool,
) -> Admission {
    let count = scenario.count();
    let g = n_ranks / scenario.nodes.max(1);
    let transfers =
        transfer_count_with(scenario.collective, scenario.algorithm, scenario.nodes, g, count, channels);
    if transfers <= budget.transfers {
        return Admission::Whole;
    }
    // An AllToAll's channel 0: every ordered pair of ranks.
    let zero = n_ranks as u64 * (n_ranks as u64).saturating_sub(1);
    let ring = runs_steady(scenario, n_ranks, channels, count).is_some()
        && ring_prefixes_fit(n_ranks, channels, budget);
    let tree = runs_big(scenario, n_ranks, channels, count, switch_reduces).is_some()
        && tree_fits(scenario, n_ranks, channels, budget.transfers, switch_reduces);
    if ring || tree {
        Admission::Steady
    } else if let Some(tree) = forced_tree_beyond(scenario, n_ranks, channels, budget) {
        Admission::Channels { transfers: tree }
    } else if (alltoall_copies_provable(scenario, n_ranks, channels)
        && zero <= budget.copies.min(budget.transfers))
        || sendrecv_copies_fit(scenario, n_ranks, channels, budget)
    {
        Admission::Copies { transfers }
    } else if alltoall_bounded_provable(scenario, n_ranks) && budget.bounded > 0 {
        Admission::Bounded { transfers }
    } else if chain_nodes_run(scenario, n_ranks, channels, budget.transfers).is_ok() {
        Admission::Chain { transfers }
    } else {
        Admission::Refused { transfers }
    }
}

/// Most transfers of the run on fewer nodes a chain too big to run whole is extrapolated from
/// (`chain_nodes_run`): about 2.5 s natively at 128 chunks a channel.
pub const CHAIN_RUN_TRANSFERS: u64 = 1 << 20;

/// Fewest nodes a chain is run on to be extrapolated (`chain_nodes_run`): fewer would measure
/// its wave while it still forms (`simulation::chain`).
pub const CHAIN_LEAST_NODES: u32 = 128;

/// Most times its length a chain run on fewer nodes is extrapolated to (`chain_nodes_run`): the
/// longest `tests/chain.rs` holds within its bound.
pub const CHAIN_MOST_RATIO: u32 = 32;

/// The nodes a Broadcast's or Reduce's ring chain beyond the engine runs on before it is
/// extrapolated to the rest (`simulation::chain`): the most whose chain, in the protocol's chunks
/// that cut it finest (or the forced one's), fits `limit` and `CHAIN_RUN_TRANSFERS`, fewer than
/// the scenario's. Why not where it is not such a chain, its protocol is Simple (a stored and
/// forwarded chain's wave settles too slowly to extrapolate: `tests/chain.rs`), a fault is set (it breaks the likeness of
/// one node's hops to the next's), routes follow the load (a link's bytes then depend on the
/// run), fewer than `CHAIN_LEAST_NODES` fit, or the chain is more than `CHAIN_MOST_RATIO` times
/// as long as the one that fits.
pub fn chain_nodes_run(scenario: &Scenario, n_ranks: u32, channels: u32, limit: u64) -> Result<u32, String> {
    let chain = matches!(scenario.collective, Collective::Broadcast | Collective::Reduce)
        && matches!(scenario.algorithm, None | Some(Algorithm::Ring));
    if !chain {
        return Err("not a Broadcast's or Reduce's ring chain".into());
    }
    if scenario.protocol == Some(Protocol::Simple) {
        return Err("under Simple each GPU stores a chunk whole before it forwards it, and the chain's wave then settles too slowly to be extrapolated: run on fewer nodes, it was off by up to 6.6% (tests/chain.rs); use fewer nodes, or NCCL_PROTO=LL or LL128, whose lines are forwarded as they arrive".into());
    }
    if !scenario.faults.is_empty() {
        return Err("a fault makes one node's hops unlike the next's, so the chain is not extrapolated from fewer nodes: use fewer nodes, or no fault".into());
    }
    let routing = scenario.fabric.routing.unwrap_or(scenario.fabric.technology.spec().default_routing);
    if routing == Routing::Adaptive {
        return Err("adaptive routes follow the load, so the chain's link bytes are not known without running it whole: use fewer nodes, or static or ECMP routes".into());
    }
    let g = (n_ranks / scenario.nodes.max(1)) as u64;
    let per_channel = scenario.count().div_ceil(channels.max(1) as u64);
    let chunks = crate::collective::chain_chunks_counted(scenario.protocol, per_channel) as u64;
    let per_node = g * channels as u64 * chunks;
    let limit = limit.min(CHAIN_RUN_TRANSFERS);
    let most = (limit / per_node.max(1)).min(scenario.nodes.saturating_sub(1) as u64) as u32;
    if most < CHAIN_LEAST_NODES {
        return Err(format!("even its chain on {CHAIN_LEAST_NODES} nodes, to extrapolate from, is beyond {limit} transfers: use fewer channels or a smaller size_bytes"));
    }
    if scenario.nodes > most.saturating_mul(CHAIN_MOST_RATIO) {
        let most_nodes = most * CHAIN_MOST_RATIO;
        return Err(format!("its chain on {most} nodes, the most within {limit} transfers, would be extrapolated more than {CHAIN_MOST_RATIO} times its length, beyond what is validated: use at most {most_nodes} nodes, or a smaller size_bytes (fewer chunks, more nodes run)"));
    }
    Ok(most)
}

/// The largest message of `scenario`'s pipeline (a Broadcast's or Reduce's chain, a SendRecv)
/// that `admit` runs within `budget` on the same nodes and channels, below its own size: NCCL
/// cuts these pipelines into chunks of a fixed size (`collective::chain_chunk_bytes`), so a
/// smaller message is fewer transfers. Tried as `channels × k` chunks of each protocol's size
/// the count may be cut in (all three for a chain, Simple's for a SendRecv), the most k by
/// bisection on `admit` itself, which grows with k. `None` for any other collective,
/// or where even one chunk a channel is beyond the budget.
pub fn most_pipeline_bytes(
    scenario: &Scenario,
    n_ranks: u32,
    channels: u32,
    budget: Budget,
    switch_reduces: bool,
) -> Option<u64> {
    let protocols: Vec<Protocol> = match scenario.collective {
        Collective::SendRecv => vec![Protocol::Simple],
        // A chain's count is the finest protocol's even where one is forced (`transfer_count`).
        Collective::Broadcast | Collective::Reduce => Protocol::ALL.to_vec(),
        _ => return None,
    };
    let runs = |size_bytes: u64| {
        let smaller = Scenario { size_bytes, ..scenario.clone() };
        !matches!(admit(&smaller, n_ranks, channels, budget, switch_reduces), Admission::Refused { .. })
    };
    let most_of = |chunk: u64| {
        let size = |k: u64| channels.max(1) as u64 * k * chunk;
        let (mut low, mut high) = (0u64, crate::collective::MAX_CHAIN_CHUNKS as u64);
        while low < high {
            let k = (low + high).div_ceil(2);
            match size(k) < scenario.size_bytes && runs(size(k)) {
                true => low = k,
                false => high = k - 1,
            }
        }
        (low > 0).then(|| size(low))
    };
    protocols.into_iter().filter_map(|p| most_of(crate::collective::chain_chunk_bytes(p))).max()
}

/// The transfers of the tree `scenario` forces (Tree, NVLSTree), whole, where they are beyond
/// `budget` but channels 0 and 1 may stand for all within it (`tree_channels_provable`): the
/// tree's own count, not the ring's (a forced tree's sweep point weighs nothing else).
fn forced_tree_beyond(scenario: &Scenario, n_ranks: u32, channels: u32, budget: Budget) -> Option<u64> {
    let across = scenario.collective == Collective::AllReduce && scenario.nodes > 1;
    let algorithm = scenario.algorithm?;
    let whole =
        tree_algorithm_transfers(scenario, n_ranks, channels, (algorithm, None)).filter(|_| across)?;
    let first = first_channels_fit(scenario, n_ranks, channels, (algorithm, whole), budget.transfers);
    (whole > budget.transfers && first).then_some(whole)
}

/// Chunks per part NVLSTree's run from its channels that stand for all cuts within `limit`
/// transfers: the model's `MAX_CHUNKS` (16) where they fit, else the most of 8, 4 and 2 that do
/// (`MAX_CHUNKS` where none does, so that the least transfers are still beyond the limit; one
/// chunk a part would not pipeline at all). Where fewer than `MAX_CHUNKS`, the run at twice the
/// model's that would fit the time to NCCL's chunks is beyond the limit too, so the time
/// overstates NCCL's, as the result says (`simulation::chunk_fit::capped`). Any other algorithm:
/// `MAX_CHUNKS`, which its chunking ignores.
pub fn tree_cap(
    scenario: &Scenario,
    (n_ranks, channels): (u32, u32),
    algorithm: Algorithm,
    limit: u64,
) -> u64 {
    use crate::collective::nvls_tree::MAX_CHUNKS;
    if algorithm != Algorithm::NvlsTree {
        return MAX_CHUNKS;
    }
    let parts = tree_parts(scenario, n_ranks, channels, algorithm);
    let least =
        |cap| tree_least_run(nvls_tree_transfers_at(scenario, (n_ranks, channels), cap), channels, parts);
    [MAX_CHUNKS, 8, 4, 2].into_iter().find(|&cap| least(cap) <= limit).unwrap_or(MAX_CHUNKS)
}

/// Transfers of NVLSTree's whole AllReduce on `n_ranks` ranks over `channels` channels at most
/// `cap` chunks per part (`collective::nvls_tree::transfer_count_at`).
pub fn nvls_tree_transfers_at(scenario: &Scenario, (n_ranks, channels): (u32, u32), cap: u64) -> u64 {
    let g = n_ranks / scenario.nodes.max(1);
    crate::collective::nvls_tree::transfer_count_at(scenario.nodes, g, scenario.count(), channels, cap)
}

/// Whether `algorithm`'s tree of `whole` transfers may run from its channels 0 and 1 standing
/// for all (of NVLSTree, part 0 of each, in `tree_cap`'s chunks where the tuner picks it) within
/// `limit` transfers: they fit (`tree_least_run`) and the channels fold
/// (`tree_channels_provable`).
fn first_channels_fit(
    scenario: &Scenario,
    n_ranks: u32,
    channels: u32,
    (algorithm, whole): (Algorithm, u64),
    limit: u64,
) -> bool {
    let parts = tree_parts(scenario, n_ranks, channels, algorithm);
    // The tuner's NVLSTree in fewer chunks per part where the model's do not fit (`tree_cap`);
    // a forced one's sweep points (the busbw chart's) keep the model's.
    let cap = match scenario.algorithm {
        None => tree_cap(scenario, (n_ranks, channels), algorithm, limit),
        Some(_) => crate::collective::nvls_tree::MAX_CHUNKS,
    };
    let whole = match cap < crate::collective::nvls_tree::MAX_CHUNKS {
        true => nvls_tree_transfers_at(scenario, (n_ranks, channels), cap),
        false => whole,
    };
    tree_least_run(whole, channels, parts) <= limit && tree_channels_provable(scenario, channels)
}

/// Transfers of `algorithm`'s whole tree AllReduce: Tree's where the tuner may run it
/// (`tree_transfers`, in `protocol`'s chunks), NVLSTree's as built; `None` for any other algorithm.
pub fn tree_algorithm_transfers(
    scenario: &Scenario,
    n_ranks: u32,
    channels: u32,
    (algorithm, protocol): (Algorithm, Option<Protocol>),
) -> Option<u64> {
    let count = scenario.count();
    match algorithm {
        Algorithm::Tree => tree_transfers(scenario, (n_ranks, channels), count, protocol),
        Algorithm::NvlsTree => {
            let g = n_ranks / scenario.nodes.max(1);
            Some(transfer_count_with(
                scenario.collective,
                Some(algorithm),
                scenario.nodes,
                g,
                count,
                channels,
            ))
        }
        _ => None,
    }
}

/// The fewest transfers a tree of `whole` transfers over `channels` runs from its first
/// channels: NCCL's trees alternate two shapes, so channels 0 and 1 run for all; of each, part 0
/// alone where its `parts` fold too (`tree_parts`).
pub fn tree_least_run(whole: u64, channels: u32, parts: u32) -> u64 {
    whole / ((channels / 2).max(1) as u64 * parts.max(1) as u64)
}

/// The parts of each channel that may run as images of part 0 (`engine::symmetry::Lanes::Parts`):
/// NVLSTree's g, one per local GPU, where every channel's slice splits into g equal parts; 1
/// otherwise.
pub fn tree_parts(scenario: &Scenario, n_ranks: u32, channels: u32, algorithm: Algorithm) -> u32 {
    let g = n_ranks / scenario.nodes.max(1);
    let per_channel = scenario.count() / channels.max(1) as u64;
    let even = scenario.count() % channels.max(1) as u64 == 0 && per_channel % g.max(1) as u64 == 0;
    match algorithm {
        Algorithm::NvlsTree if g >= 2 && even => g,
        _ => 1,
    }
}

/// Whether a tree's channels 0 and 1 may stand for all: an even number of channels (4 or more)
/// of equal length, so that they alternate NCCL's two trees; static routes on a lossless fabric
/// (the technology's or the scenario's own congested efficiency), no fault: what
/// `Symmetry::find_strided` proves the channels' symmetry under. The run still proves it, and
/// says so by name where a setting this does not see breaks it.
pub fn tree_channels_provable(scenario: &Scenario, channels: u32) -> bool {
    let folds = channels >= 4 && channels % 2 == 0 && scenario.count() % channels as u64 == 0;
    let technology = scenario.fabric.technology.spec();
    let efficiency = scenario.fabric.congested_efficiency.unwrap_or(technology.congested_efficiency);
    folds
        && scenario.fabric.routing.unwrap_or(technology.default_routing) == Routing::Static
        && efficiency == 1.0
        && scenario.faults.is_empty()
}

/// Whether `scenario`'s routes are static and its fabric lossless (the technology's or the
/// scenario's own congested efficiency): where channels that route alike may be copies of one
/// another, and max-min sharing alone sets every rate.
fn static_and_lossless(scenario: &Scenario) -> bool {
    let technology = scenario.fabric.technology.spec();
    let efficiency = scenario.fabric.congested_efficiency.unwrap_or(technology.congested_efficiency);
    scenario.fabric.routing.unwrap_or(technology.default_routing) == Routing::Static && efficiency == 1.0
}

/// Whether an AllToAll's channels may be copies of one another, channel 0 standing for all
/// (`engine::symmetry::Symmetry::copies`): one it may bound (`alltoall_bounded_provable`) of two
/// channels or more, each block split evenly over them (or a count rounded down so that it
/// does, `collective::alltoall_rounded_count`). The run still proves it (every connection on its
/// GPU's own NIC, too), and says so by name where a setting this does not see breaks it.
pub fn alltoall_copies_provable(scenario: &Scenario, n_ranks: u32, channels: u32) -> bool {
    alltoall_bounded_provable(scenario, n_ranks)
        && channels >= 2
        && ((scenario.count() / n_ranks as u64) % channels as u64 == 0
            || crate::collective::alltoall_rounded_count(n_ranks, scenario.count(), channels).is_some())
}

/// Whether `scenario` is a SendRecv whose channel 0 may run for every channel within
/// `budget.transfers` (`simulation::alltoall`, `engine::copies`): each channel's pipeline the
/// same chunks (a count that splits evenly over the channels), static routes, a lossless fabric.
/// Beyond, where `budget.copies` is not 0, a sweep's row runs one node's sources of channel 0 or
/// a few for all, where its ranks turn by whole nodes (`simulation::turned`, which proves it and
/// refuses by name where they do not): their transfers within `budget.transfers`.
fn sendrecv_copies_fit(scenario: &Scenario, n_ranks: u32, channels: u32, budget: Budget) -> bool {
    let count = scenario.count();
    let chunks = crate::collective::sendrecv_chunks(count, channels);
    let sources = match budget.copies > 0 {
        true => n_ranks / scenario.nodes.max(1),
        false => n_ranks,
    };
    scenario.collective == Collective::SendRecv
        && n_ranks >= 2
        && channels >= 2
        && count % channels as u64 == 0
        && sources as u64 * chunks as u64 <= budget.transfers
        && static_and_lossless(scenario)
}

/// Whether `scenario` is an AllToAll that a sweep's row may bound by max-min sharing
/// (`simulation::bounded`): static routes on a lossless fabric, at any size (its channels' slices
/// may differ by an element). Its channels must also route alike, which the router checks.
pub fn alltoall_bounded_provable(scenario: &Scenario, n_ranks: u32) -> bool {
    scenario.collective == Collective::AllToAll && n_ranks >= 2 && static_and_lossless(scenario)
}

/// Steps of a ring's measuring run, at least (`simulation::fluid`): fewer measure too little.
pub const LEAST_MEASURED_STEPS: u32 = 48;

/// Transfers of the shortest run that measures a ring of `n` ranks with every position of
/// channel 0 (`simulation::fluid`, where the ring does not turn by whole nodes): what
/// `Budget::measured` must hold for it.
pub fn least_measured_transfers(n: u64) -> u64 {
    LEAST_MEASURED_STEPS as u64 * n
}
/// Steps of the shown prefix of a ring too big for the search's, at least (its middle step is
/// the one the extrapolation repeats).
pub const LEAST_SHOWN_STEPS: u32 = 2;

/// Whether a ring of `n` ranks over `channels` channels fits `budget` as a steady state: the
/// search's prefix of `STEADY_SEARCH_STEPS` steps within `steady_prefix`; or, if its channels
/// fold (which the run finds out, and refuses by name if not), a shown prefix of
/// `LEAST_SHOWN_STEPS` within it and channel 0's `LEAST_MEASURED_STEPS` within the budget's
/// `measured`; or, if they fold and the ring turns by whole nodes or channel 0's steps fit
/// `measured` (likewise found out), a shown prefix of `LEAST_SHOWN_STEPS` whose expanded flows
/// are within `shown_expanded`.
pub fn ring_prefixes_fit(n: u32, channels: u32, budget: Budget) -> bool {
    let step = n as u64 * channels as u64;
    STEADY_SEARCH_STEPS as u64 * step <= budget.steady_prefix
        || (LEAST_SHOWN_STEPS as u64 * step <= budget.steady_prefix
            && least_measured_transfers(n as u64) <= budget.measured)
        || LEAST_SHOWN_STEPS as u64 * step <= budget.shown_expanded
}

/// The most ranks whose ring prefixes fit (`ring_prefixes_fit`) at `channels` channels.
pub fn most_ring_ranks(channels: u32, budget: Budget) -> u64 {
    let c = channels.max(1) as u64;
    let search = budget.steady_prefix / (STEADY_SEARCH_STEPS as u64 * c);
    let shown = (budget.steady_prefix / (LEAST_SHOWN_STEPS as u64 * c))
        .min(budget.measured / LEAST_MEASURED_STEPS as u64);
    let turned = budget.shown_expanded / (LEAST_SHOWN_STEPS as u64 * c);
    search.max(shown).max(turned)
}

/// Transfers of `scenario`'s AllReduce as NCCL's Tree (`collective::tree_transfer_count`), where
/// the tuner may pick it (several nodes, no other algorithm forced), in the chunks of the
/// protocol given (`simulation::big`'s, the tuner's pick), else forced, else of the protocol
/// that cuts them finest (admission does not know the pick).
pub fn tree_transfers(
    scenario: &Scenario,
    (n_ranks, channels): (u32, u32),
    count: u64,
    protocol: Option<Protocol>,
) -> Option<u64> {
    let may = scenario.collective == Collective::AllReduce
        && scenario.nodes > 1
        && scenario.algorithm.is_none_or(|a| a == Algorithm::Tree);
    let (nodes, g) = (scenario.nodes, n_ranks / scenario.nodes.max(1));
    let protocol = protocol.or(scenario.protocol);
    may.then(|| crate::collective::tree_transfer_count(nodes, g, count, channels, protocol))
}

/// Whether the tuner may run `scenario`'s AllReduce as a Tree (`tree_transfers`), or as NVLSTree
/// where the NVSwitch reduces and NVLS is on, within `limit` transfers: whole, or, the tuner's
/// choice, from its channels 0 and 1 standing for all (of NVLSTree, part 0 of each:
/// `tree_channels_provable`, `tree_least_run`), as the big plan runs a tree it picks beyond its
/// limit (`simulation::tree_channels`). So a size that is not a multiple of ranks × channels elements,
/// whose ring runs as no steady state, still runs at cluster scale where the tuner picks a tree;
/// where it picks the ring after all, the run says why it cannot (`simulation::big::ring_row`).
fn tree_fits(scenario: &Scenario, n_ranks: u32, channels: u32, limit: u64, switch_reduces: bool) -> bool {
    // A forced tree beyond the limit whole runs as a sweep's point only (`forced_tree_beyond`).
    let tuned = scenario.algorithm.is_none();
    let fits = |algorithm: Algorithm, whole: u64| {
        whole <= limit
            || (tuned && first_channels_fit(scenario, n_ranks, channels, (algorithm, whole), limit))
    };
    // `tree_transfers` is `None` but for an AllReduce across nodes the tuner may run as a Tree.
    let tree = tree_transfers(scenario, (n_ranks, channels), scenario.count(), None)
        .is_some_and(|whole| fits(Algorithm::Tree, whole));
    let across = scenario.collective == Collective::AllReduce && scenario.nodes > 1;
    let nvls_tree = across
        && switch_reduces
        && scenario.nvls
        && tuned
        && tree_algorithm_transfers(scenario, n_ranks, channels, (Algorithm::NvlsTree, None))
            .is_some_and(|whole| fits(Algorithm::NvlsTree, whole));
    tree || nvls_tree
}

/// Whether `scenario` runs by `simulation`'s plan for collectives too big to simulate as a
/// ring (more than `STEADY_ABOVE` transfers that way, no CollNet to weigh): a ring whose steps
/// look alike as a steady state (`runs_steady`), or an AllReduce the tuner may run as a Tree
/// (`tree_fits`), its ring weighed from one step. Returns the ring's transfer count.
pub fn runs_big(
    scenario: &Scenario,
    n_ranks: u32,
    channels: u32,
    count: u64,
    switch_reduces: bool,
) -> Option<u64> {
    let transfers = ring_transfers(scenario.collective, n_ranks, count, channels);
    let tree = tree_fits(scenario, n_ranks, channels, MAX_TRANSFERS, switch_reduces);
    let big = transfers > STEADY_ABOVE && !scenario.collnet;
    (big && (tree || runs_steady(scenario, n_ranks, channels, count).is_some())).then_some(transfers)
}

/// Whether `scenario` runs as a steady state (`simulation::Steady`): a ring collective with more
/// than `STEADY_ABOVE` transfers, regular steps, routing that does not depend on the order flows
/// are issued in (not adaptive) and no CollNet to weigh (NVLS runs on one node, never this big). Returns the whole
/// collective's transfer count.
pub fn runs_steady(scenario: &Scenario, n_ranks: u32, channels: u32, count: u64) -> Option<u64> {
    let ring = scenario.collective != Collective::AllReduce
        || scenario.algorithm.is_none_or(|a| a == Algorithm::Ring);
    // Steps that differ by an element per chunk run as the ring of a count rounded to steps
    // alike (`ring_rounded_count`), which says so.
    let alike = ring_steady_steps(scenario.collective, n_ranks, count, channels).is_some()
        || ring_rounded_count(scenario.collective, n_ranks, count, channels).is_some();
    let transfers = ring_transfers(scenario.collective, n_ranks, count, channels);
    let adaptive = scenario.fabric.routing == Some(Routing::Adaptive);
    // In-network reduction (NVLS, CollNet) may win the tuner's choice: weighed only exactly.
    (ring && alike && !adaptive && !scenario.collnet && transfers > STEADY_ABOVE).then_some(transfers)
}

/// Transfers of `collective` run as a ring: (n-1) steps of n per channel, twice for AllReduce.
pub fn ring_transfers(collective: Collective, n: u32, count: u64, channels: u32) -> u64 {
    transfer_count(Collective::AllGather, (1, n), count, channels, None)
        * if collective == Collective::AllReduce { 2 } else { 1 }
}
