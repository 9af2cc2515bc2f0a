//! Chunks in words: the method line's sentence on a time fitted to NCCL's NVLSTree chunks
//! (`fabricscope::ChunkFit`), the chart's note under an NVLSTree curve, and the sentence on a
//! ring run at a size rounded so that its chunks are equal (`fabricscope::Rounding`).

use super::Lang;
use fabricscope::units::{format_bytes, format_duration_ns};
use fabricscope::ChunkFit;

/// Where a ring ran at fewer elements than asked (`fabricscope::Rounding`): how many, why, and
/// how far its time may be from the asked ring's.
pub fn rounding_sentence(lang: Lang, r: &fabricscope::Rounding) -> String {
    let bound = 100.0 * fabricscope::ROUNDING_BOUND;
    let (rounded, asked, unit) = (r.rounded, r.asked, r.unit);
    match lang {
        Lang::En => format!(
            "The ring ran at {rounded} of its {asked} elements, rounded down to a multiple of ranks × channels ({unit}): the asked size cuts into chunks that differ by an element, so its steps never repeat and it is too big to run every transfer. Where both run, the two rings' times are within {bound:.0}% (tests/rounded.rs); the time and link bytes shown are the rounded ring's, the bandwidths the asked size's over that time."
        ),
        Lang::Zh => format!(
            "环以 {rounded} 个元素运行（所请求的 {asked} 个向下取整到秩数 × 通道数 {unit} 的倍数）：所请求的大小切成相差一个元素的块，其步骤永不重复，又大到无法逐个模拟每次传输。两者都能运行时，两个环的时间相差不超过 {bound:.0}%（tests/rounded.rs）；所示时间和链路字节数属于取整后的环，带宽按所请求的大小除以该时间计算。"
        ),
    }
}

/// How a run's time was fitted to NCCL's chunks (`Method::ChunkFit`), or, where the finer run
/// was beyond the engine, that it was not: `g` parts per channel, one per GPU of a node.
pub fn chunk_fit_sentence(lang: Lang, fit: &ChunkFit, g: u32) -> String {
    let (n, nccl) = (fit.nccl_chunks, format_bytes(fit.nccl_chunk_bytes));
    let (m, ours, run) = (fit.chunks, format_bytes(fit.chunk_bytes), format_duration_ns(fit.run_ns as f64));
    let (f, finer) = (fit.fine_chunks, format_bytes(fit.fine_chunk_bytes));
    let bound = 100.0 * fabricscope::CHUNK_FIT_BOUND;
    match (fit.fine_ns, fit.fitted_ns(), lang) {
        (Some(fine), Some(fitted), Lang::En) => format!(
            "NCCL cuts each of a channel's {g} NVLSTree parts into {n} chunks of {nccl}; the run shown cuts {m} of {ours} ({run}: at most {} per part keeps a tree of a thousand nodes within the engine), a second run {f} of {finer} ({}). The time is fitted to NCCL's {n} through both, as T(C) = A + B/C (the pipeline fills in one chunk's crossing): {}, within {bound:.0}% of running every chunk wherever both run (tests/chunk_fit.rs); link bytes exact.",
            fabricscope::collective::nvls_tree::MAX_CHUNKS,
            format_duration_ns(fine as f64),
            format_duration_ns(fitted as f64),
        ),
        (Some(fine), Some(fitted), Lang::Zh) => format!(
            "NCCL 把每个通道的 {g} 个 NVLSTree 分片各切成 {n} 个 {nccl} 的块；所示运行切成 {m} 个 {ours} 的块（{run}：每分片最多 {} 块，以便上千节点的树仍在引擎能力之内），第二次运行切成 {f} 个 {finer} 的块（{}）。时间由这两次运行按 T(C) = A + B/C（流水线在一个块穿过树的时间内填满）拟合到 NCCL 的 {n} 块：{}，在两者都能运行的范围内与逐块运行相差不超过 {bound:.0}%（tests/chunk_fit.rs）；链路字节数精确。",
            fabricscope::collective::nvls_tree::MAX_CHUNKS,
            format_duration_ns(fine as f64),
            format_duration_ns(fitted as f64),
        ),
        (_, _, Lang::En) => format!(
            "NCCL cuts each of a channel's {g} NVLSTree parts into {n} chunks of {nccl}; this run cuts {m} of {ours}, and the run at {f} per part that would fit the time to NCCL's chunks is beyond the engine at this scale: bigger chunks fill the tree's pipeline more slowly, so this time overstates NCCL's."
        ),
        (_, _, Lang::Zh) => format!(
            "NCCL 把每个通道的 {g} 个 NVLSTree 分片各切成 {n} 个 {nccl} 的块；本次运行切成 {m} 个 {ours} 的块，而把时间拟合到 NCCL 分块所需的每分片 {f} 块的运行在此规模下超出引擎能力：块越大，树的流水线填满得越慢，因此此时间高于 NCCL 的实际表现。"
        ),
    }
}

/// Under a chart that draws NVLSTree: how its point at `size` bytes was cut and fitted (`fit`,
/// the point's), `g` parts per channel.
pub fn nvls_tree_chunking(lang: Lang, size: u64, g: u32, fit: &ChunkFit) -> String {
    let at = format_bytes(size);
    let (n, nccl) = (fit.nccl_chunks, format_bytes(fit.nccl_chunk_bytes));
    let (m, ours, f) = (fit.chunks, format_bytes(fit.chunk_bytes), fit.fine_chunks);
    let bound = 100.0 * fabricscope::CHUNK_FIT_BOUND;
    match (fit.fine_ns.is_some(), lang) {
        (true, Lang::En) => format!(
            "NVLSTree at {at}: NCCL cuts each of a channel's {g} parts into {n} chunks of {nccl}; the model runs {m} of {ours} and {f} per part and fits the time to NCCL's {n} through both (within {bound:.0}% of running every chunk, tests/chunk_fit.rs)."
        ),
        (true, Lang::Zh) => format!(
            "{at} 时的 NVLSTree：NCCL 把每个通道的 {g} 个分片各切成 {n} 个 {nccl} 的块；模型分别以每分片 {m} 块（每块 {ours}）和 {f} 块运行，再由两者把时间拟合到 NCCL 的 {n} 块（与逐块运行相差不超过 {bound:.0}%，tests/chunk_fit.rs）。"
        ),
        (false, Lang::En) => format!(
            "NVLSTree at {at}: NCCL cuts each of a channel's {g} parts into {n} chunks of {nccl}; the model cuts {m} of {ours}, and its run at {f} per part, which would fit the time to NCCL's, is beyond the page at this scale: fewer, bigger chunks fill the tree's pipeline more slowly, so here the curve understates NCCL's."
        ),
        (false, Lang::Zh) => format!(
            "{at} 时的 NVLSTree：NCCL 把每个通道的 {g} 个分片各切成 {n} 个 {nccl} 的块；模型切成 {m} 个 {ours} 的块，而能把时间拟合到 NCCL 分块的每分片 {f} 块的运行在此规模下超出页面能力：块越少越大，树的流水线填满得越慢，因此这里的曲线低于 NCCL 的实际表现。"
        ),
    }
}
