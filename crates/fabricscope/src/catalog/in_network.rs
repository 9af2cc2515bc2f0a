//! In-network reduction: what a switch that adds and multicasts chunks costs a byte, and what a
//! cloud VM's virtual NIC costs. Figures only; the schedules that use them are in
//! `collective::nvls` and `collective::hierarchical`.

/// Fraction of the NVLink bandwidth an NVLS hop achieves. A link-level model of NVLS AllReduce
/// (`collective::nvls`) gives 8 H100s a busbw of `2 (n-1)/(n+1)` × 370.8 GB/s = 577 GB/s;
/// nccl-tests measures about 480 GB/s with NVLS on (nccl-tests#212, reference/interconnects.md),
/// so a switch hop moves its bytes at 480 / 577 = 0.83 of the link (the multimem loads and
/// stores and the switch's arithmetic cost what this model does not otherwise see).
pub const NVLS_EFFICIENCY: f64 = 0.83;

/// The same for NVLink 5's switch (Blackwell, NVSwitch generation 4): the link-level model gives
/// 8 B300s `14/9` × 18 × 40.1 GB/s = 1,123 GB/s, NVIDIA/nccl#2140 measured ~845 GB/s with NVLS
/// on (and ~695 off, which the ring model meets unfitted): 845 / 1,123 = 0.75. Like the H100
/// figure it is fitted to the one published measurement, and the calibration report says so.
pub const NVLS_EFFICIENCY_NVLINK5: f64 = 0.75;

/// The NVLS hop efficiency of an NVSwitch of `generation` (3: Hopper, 4: Blackwell).
pub fn nvls_efficiency(generation: u8) -> f64 {
    if generation >= 4 {
        NVLS_EFFICIENCY_NVLINK5
    } else {
        NVLS_EFFICIENCY
    }
}

/// Fraction of a NIC's bandwidth a hop through an InfiniBand SHARP aggregation switch achieves:
/// NCCL's own CollNet bandwidth factor (0.9, NVIDIA/nccl `src/graph/tuning.cc`).
pub const SHARP_EFFICIENCY: f64 = 0.9;

/// SR-IOV: a virtual function costs some of the NIC's bandwidth and adds latency. Cloud
/// providers publish "near bare-metal" figures; the model assumes 3% and 400 ns per NIC hop.
pub const SRIOV_EFFICIENCY: f64 = 0.97;
/// SR-IOV's added latency per NIC hop [ns] (assumed, as above).
pub const SRIOV_LATENCY_NS: u64 = 400;
