//! Every cap the core puts on its input, in one table, so that no input can make the engine
//! hang, run out of memory or overflow time. Validation (`plan::validate`, `train`) checks them
//! and names the field; the docs (`scenario.rs`, README) quote them.
//!
//! | what | cap | why |
//! | --- | --- | --- |
//! | nodes | 1 ..= `MAX_NODES` (16,384: 131,072 GPUs of 8) | the fabric builders' and the seeds' scale |
//! | GPUs of a custom node | 1 ..= `MAX_CUSTOM_GPUS` (64) | a node, not a cluster (one GPU per node is what NCCL's PAT needs) |
//! | an imported node | GPUs and NIC ports 1 ..= `MAX_CUSTOM_GPUS` (64) each, PCIe switches ≤ 128, sockets ≤ `MAX_SOCKETS` (8); its file ≤ `import::MAX_IMPORT_BYTES` (1 MiB) | one server |
//! | ranks of an all-pairs AllReduce | ≤ `MAX_ALL_PAIRS_RANKS` (64) | each all-gather send waits for the n-1 sends into its rank: n³ dependencies |
//! | message size | 4 B ..= `MAX_SIZE_BYTES` (16 GiB), a multiple of 4 | nccl-tests' float elements |
//! | channels | 1 ..= `MAX_CHANNELS` (32) | NCCL's MAXCHANNELS on most builds |
//! | switch radix | even, 4 ..= `MAX_RADIX` (1,024) | the largest switch ASICs have 512 ports |
//! | oversubscription | 1 ..= `MAX_OVERSUBSCRIPTION` (16) | |
//! | link bandwidth | > 0, ≤ `MAX_BANDWIDTH_GBYTE_PER_S` (100,000 GB/s) | |
//! | link latency | ≤ `MAX_LATENCY_NS` (10 s) | |
//! | transfers of one collective | ≤ `MAX_TRANSFERS` (2,000,000), or a steady state whose prefix is ≤ `MAX_STEADY_PREFIX` (600,000) (or, where its channels fold and the ring turns by whole nodes, whose two shown steps expand to ≤ `MAX_SHOWN_EXPANDED`, 2,097,152 flows), extrapolated from a measuring run of ≤ `MAX_TRANSFERS` (on the page `MAX_MEASURED_TRANSFERS`, 1,000,000: `plan::Budget::measured`); for a SendRecv's sweep row beyond its channel 0, the first few nodes' sources of channel 0 ≤ `MAX_TRANSFERS`, where the ranks turn by whole nodes (`simulation::turned`); for a sweep's row, a tree whose channels fold, whose channels that run for all (of an NVLSTree whose parts fold, part 0 of each) are ≤ `MAX_TRANSFERS` (`simulation::tree_channels`) | engine time and memory (about 1.5 s and 600 MB natively) |
//! | routes of an AllToAll bounded rather than simulated | ≤ `MAX_BOUNDED_ROUTES` (2^26): each GPU's ways in and out, and the fabric from every leaf of a rail to each NIC (`routing::PairCount::routes`; 131,072 GPUs on radix-128 switches take 35.6 million) | about 0.2 µs a route (`simulation::bounded`) |
//! | simulated time | ≤ `HORIZON_NS` (2^61 ns, 73 years), bounded up front from the slowest link | no time sum can overflow |
//! | elements `verify` executes | ≤ `MAX_VERIFY_ELEMENTS` (2^22) | 32 MiB of i64s |
//! | custom model | layers ≤ 1,024, hidden ≤ 131,072, sequence ≤ 2^20, vocabulary ≤ 2^21, routed experts ≤ `MAX_EXPERTS` (4,096) | |
//! | faults of a scenario | ≤ `MAX_FAULTS` (256) | a few broken links, not a map of the fabric |
//! | an nccl-tests log | ≤ `logs::MAX_LOG_BYTES` (16 MiB) read; the rest reported | a run is a few kB |
//! | sizes a comparison simulates | ≤ `compare::MAX_COMPARED_SIZES` (32), evenly picked | the fit simulates each size a few dozen times |
//! | micro-batches per pipeline | ≤ `MAX_MICRO_BATCHES` (4,096) | the 1F1B schedule keeps every block |

/// Most nodes: 16,384 nodes of 8 GPUs is 131,072 GPUs.
pub const MAX_NODES: u32 = 16_384;
/// Most GPUs a custom node may have.
pub const MAX_CUSTOM_GPUS: u32 = 64;
/// Most CPU sockets (NUMA nodes) an imported node may have.
pub const MAX_SOCKETS: u32 = 8;
/// Most faults a scenario may list.
pub const MAX_FAULTS: usize = 256;
/// Most ranks of an all-pairs AllReduce (`collective::textbook::all_pairs`).
pub const MAX_ALL_PAIRS_RANKS: u32 = 64;
/// Largest message a scenario may move [B].
pub const MAX_SIZE_BYTES: u64 = 16 << 30;
/// Most channels (parallel rings) a scenario may ask for.
pub const MAX_CHANNELS: u32 = 32;
/// Largest radix a scenario may ask for.
pub const MAX_RADIX: u32 = 1024;
/// Largest oversubscription ratio.
pub const MAX_OVERSUBSCRIPTION: f64 = 16.0;
/// Largest link bandwidth a scenario may set [GB/s].
pub const MAX_BANDWIDTH_GBYTE_PER_S: f64 = 100_000.0;
/// Largest link latency a scenario may set [ns] (10 s).
pub const MAX_LATENCY_NS: u64 = 10_000_000_000;
/// Most routes an AllToAll's bound takes (`simulation::bounded`, `routing::PairCount::routes`):
/// about 15 s natively.
pub const MAX_BOUNDED_ROUTES: u64 = 1 << 26;
/// Most transfers one simulated collective may have (a ring AllReduce has 2(n-1)·n·channels).
pub const MAX_TRANSFERS: u64 = 2_000_000;
/// Most transfers of the prefix a ring runs as a steady state (`simulation::Steady`): a ring
/// whose steps all look alike may have more than `MAX_TRANSFERS`, as long as this many cover the
/// steps the engine looks for a repeat in (`plan::STEADY_SEARCH_STEPS`). It bounds the search's
/// time and memory (about 1.5 s and 600 MB natively).
pub const MAX_STEADY_PREFIX: u64 = 600_000;
/// Most transfers the page's run that measures an extrapolated ring's per-step time simulates
/// (`simulation::fluid`; natively `MAX_TRANSFERS`, `plan::Budget::measured`): channel 0's where
/// the channels fold, of it a few nodes' where the ring turns by whole nodes
/// (`engine::rotation`); it records no trace (`engine::Run::untraced`), its finishes alone read.
pub const MAX_MEASURED_TRANSFERS: u64 = MAX_TRANSFERS / 2;
/// Most flows of an extrapolated ring's shown prefix expanded from a run folded by its channels
/// and a rotation by whole nodes, where its steps are beyond `MAX_STEADY_PREFIX`: two steps of
/// 131,072 ranks over 8 channels (the engine runs a few nodes' of channel 0; the expanded trace
/// is about 0.7 GB natively).
pub const MAX_SHOWN_EXPANDED: u64 = 1 << 21;
/// The engine's time horizon [ns] (about 73 years): a scenario that could run longer is
/// rejected, so that no time sum can overflow.
pub const HORIZON_NS: u64 = 1 << 61;
/// Largest `n_ranks × count` that `collective::verify` executes (32 MiB of i64s).
pub const MAX_VERIFY_ELEMENTS: u64 = 1 << 22;
/// Caps on a custom model's shape.
pub const MAX_LAYERS: u32 = 1024;
pub const MAX_HIDDEN: u32 = 131_072;
pub const MAX_SEQ: u32 = 1 << 20;
pub const MAX_VOCAB: u32 = 1 << 21;
pub const MAX_EXPERTS: u32 = 4096;
/// Micro-batches per pipeline per step (the 1F1B schedule keeps every block).
pub const MAX_MICRO_BATCHES: u64 = 4096;
