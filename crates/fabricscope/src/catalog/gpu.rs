//! GPUs: compute, memory and NVLink figures per model, each from the vendor's datasheet.

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
    /// NVLink generation (2 = V100, 3 = A100, 4 = H100/H200, 5 = B200); 0 = none.
    pub nvlink_generation: u8,
    /// NVLink links per GPU.
    pub nvlink_links: u32,
}

/// NVIDIA V100 SXM2 32GB datasheet: 125 TFLOP/s FP16 tensor (no BF16; FP16 stands in),
/// 900 GB/s HBM2, 6 NVLink 2 links (300 GB/s bidirectional).
pub const V100: Gpu = Gpu {
    name: "V100 SXM2 32GB",
    bf16_dense_tflops: 125.0,
    hbm_gbyte: 32.0,
    hbm_gbyte_per_s: 900.0,
    nvlink_generation: 2,
    nvlink_links: 6,
};

/// NVIDIA A100 datasheet (SXM4 80GB): 312 TFLOP/s BF16 dense, 2,039 GB/s HBM2e,
/// 12 third-generation NVLinks (600 GB/s bidirectional; seeds 003).
pub const A100: Gpu = Gpu {
    name: "A100 SXM4 80GB",
    bf16_dense_tflops: 312.0,
    hbm_gbyte: 80.0,
    hbm_gbyte_per_s: 2039.0,
    nvlink_generation: 3,
    nvlink_links: 12,
};

/// A800: the export A100 with 8 NVLinks (400 GB/s bidirectional; SimAI `calbusbw.h`, nccl-tests#149).
pub const A800: Gpu = Gpu { name: "A800 SXM4 80GB", nvlink_links: 8, ..A100 };

/// NVIDIA H100 datasheet (SXM5): 989 TFLOP/s BF16 dense (1,979 with sparsity), 80 GB HBM3 at
/// 3.35 TB/s, 18 fourth-generation NVLinks (900 GB/s bidirectional; seeds 003).
pub const H100: Gpu = Gpu {
    name: "H100 SXM5 80GB",
    bf16_dense_tflops: 989.0,
    hbm_gbyte: 80.0,
    hbm_gbyte_per_s: 3350.0,
    nvlink_generation: 4,
    nvlink_links: 18,
};

/// H800: the export H100 with 8 NVLinks (400 GB/s bidirectional; SimAI `calbusbw.h`).
pub const H800: Gpu = Gpu { name: "H800 SXM5 80GB", nvlink_links: 8, ..H100 };

/// NVIDIA H200 datasheet (SXM): H100's compute, 141 GB HBM3e at 4.8 TB/s, NVLink 4 × 18.
pub const H200: Gpu = Gpu { name: "H200 SXM 141GB", hbm_gbyte: 141.0, hbm_gbyte_per_s: 4800.0, ..H100 };

/// NVIDIA H100 PCIe datasheet: 756 TFLOP/s BF16 dense, 80 GB HBM2e at 2.0 TB/s; no NVLink in
/// the 8-GPU PCIe server modelled here (bridges join pairs at most).
pub const H100_PCIE: Gpu = Gpu {
    name: "H100 PCIe 80GB",
    bf16_dense_tflops: 756.0,
    hbm_gbyte: 80.0,
    hbm_gbyte_per_s: 2000.0,
    nvlink_generation: 0,
    nvlink_links: 0,
};

/// H100 PCIe with an NVLink bridge to one other card: NVIDIA H100 PCIe product brief
/// (PB-11133-001): the bridge gives 600 GB/s bidirectional, 12 fourth-generation NVLinks.
pub const H100_PCIE_BRIDGED: Gpu =
    Gpu { name: "H100 PCIe 80GB (NVLink bridge)", nvlink_generation: 4, nvlink_links: 12, ..H100_PCIE };
/// NVIDIA H20 (HGX H20, the export Hopper part; NVIDIA product brief, as reported by vendors):
/// 148 TFLOP/s BF16 dense, 96 GB HBM3 at 4.0 TB/s, and the full 18 NVLinks of NVLink 4 (900 GB/s
/// bidirectional): little compute, full communication.
pub const H20: Gpu = Gpu {
    name: "H20 96GB",
    bf16_dense_tflops: 148.0,
    hbm_gbyte: 96.0,
    hbm_gbyte_per_s: 4000.0,
    nvlink_generation: 4,
    nvlink_links: 18,
};
/// NVIDIA HGX B300 datasheet, per GPU (Blackwell Ultra): BF16 dense as B200's (2.25 PFLOP/s;
/// 36 PFLOP/s sparse per 8-GPU board), 288 GB HBM3e at 8 TB/s, 18 fifth-generation NVLinks
/// (1.8 TB/s bidirectional).
pub const B300: Gpu = Gpu { name: "B300 288GB", hbm_gbyte: 288.0, hbm_gbyte_per_s: 8000.0, ..B200 };
/// NVIDIA HGX B200 datasheet, per GPU: 2.25 PFLOP/s BF16 dense (4.5 sparse), 180 GB HBM3e at
/// 7.7 TB/s, 18 fifth-generation NVLinks (1.8 TB/s bidirectional).
pub const B200: Gpu = Gpu {
    name: "B200 180GB",
    bf16_dense_tflops: 2250.0,
    hbm_gbyte: 180.0,
    hbm_gbyte_per_s: 7700.0,
    nvlink_generation: 5,
    nvlink_links: 18,
};

/// The B200 of a GB200 superchip (NVIDIA GB200 NVL72 product page, per rack: 180 PFLOP/s
/// FP16/BF16 dense (360 with sparsity), HBM3e at 576 TB/s; shared/reference/interconnects.md:
/// 192 GB per GPU): 2.5 PFLOP/s dense and 8 TB/s per GPU of 72; NVLink 5 × 18 as B200's.
pub const GB200_B200: Gpu = Gpu {
    name: "B200 (GB200) 192GB",
    bf16_dense_tflops: 2500.0,
    hbm_gbyte: 192.0,
    hbm_gbyte_per_s: 8000.0,
    ..B200
};

/// Every GPU in the catalog.
pub const GPUS: &[Gpu] =
    &[V100, A100, A800, H100, H800, H200, H20, H100_PCIE, H100_PCIE_BRIDGED, B200, GB200_B200, B300];

/// The catalog's GPUs by the ids scenarios use (an imported node's `gpu`, the CLI's `--gpu`),
/// with the PCIe generation of each one's host link (datasheets: V100 gen3, A100 gen4, Hopper
/// and B200 gen5, B300 gen6) for files that do not say it.
pub const GPU_IDS: &[(&str, Gpu, u32)] = &[
    ("v100", V100, 3),
    ("a100", A100, 4),
    ("a800", A800, 4),
    ("h100", H100, 5),
    ("h800", H800, 5),
    ("h200", H200, 5),
    ("h20", H20, 5),
    ("h100-pcie", H100_PCIE, 5),
    ("b200", B200, 5),
    ("gb200", GB200_B200, 5),
    ("b300", B300, 6),
];

/// A GPU by its id ("h100"), with its host link's PCIe generation.
pub fn gpu_by_id(id: &str) -> Option<(Gpu, u32)> {
    GPU_IDS.iter().find(|(name, ..)| name.eq_ignore_ascii_case(id)).map(|&(_, gpu, pcie)| (gpu, pcie))
}
