//! GPUs: compute, memory and NVLink figures per model.

/// One GPU model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gpu {
    pub name: &'static str,
    /// Peak dense BF16 tensor throughput [TFLOP/s].
    pub bf16_dense_tflops: f64,
    /// HBM capacity [GB].
    pub hbm_gbyte: f64,
    /// HBM bandwidth [GB/s].
    pub hbm_gbyte_per_s: f64,
    /// NVLink generation (2 = V100, 3 = A100, 4 = H100, 5 = B200).
    pub nvlink_generation: u8,
    /// NVLink links per GPU.
    pub nvlink_links: u32,
}

/// The GPUs the node presets use.
pub const GPUS: &[Gpu] = &[
    // NVIDIA A100 datasheet (SXM4 80GB): 312 TFLOP/s BF16 dense, 2,039 GB/s HBM2e,
    // 12 third-generation NVLinks (600 GB/s bidirectional; seeds 003).
    Gpu {
        name: "A100 SXM4 80GB",
        bf16_dense_tflops: 312.0,
        hbm_gbyte: 80.0,
        hbm_gbyte_per_s: 2039.0,
        nvlink_generation: 3,
        nvlink_links: 12,
    },
    // NVIDIA H100 datasheet (SXM5): 989 TFLOP/s BF16 dense (1,979 with sparsity), 80 GB HBM3
    // at 3.35 TB/s, 18 fourth-generation NVLinks (900 GB/s bidirectional; seeds 003).
    Gpu {
        name: "H100 SXM5 80GB",
        bf16_dense_tflops: 989.0,
        hbm_gbyte: 80.0,
        hbm_gbyte_per_s: 3350.0,
        nvlink_generation: 4,
        nvlink_links: 18,
    },
];
