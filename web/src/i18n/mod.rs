//! The page's words in English and Simplified Chinese, never one language alone. A fixed string
//! is a `Text`, looked up with `t(lang, text)` (the table is `text.rs`), or for the phone layout,
//! touch and access a `Ux` (`ux(lang, key)`, `ux.rs`); a sentence with figures in it is a
//! function here (`step_text`, `alpha_beta_line`, …) or, used once, a `match lang` beside its
//! use with both languages' `format!`.

pub mod bounded;
pub mod chain;
mod chunks;
pub mod cluster;
pub mod extrapolated;
mod links;
mod problems;
#[cfg(test)]
mod tests;
mod text;
mod ux;

pub use chunks::{chunk_fit_sentence, nvls_tree_chunking, rounding_sentence};
pub use links::{shared, Shared};
pub use problems::problem_text;
pub use text::{t, Text};
pub use ux::{ux, Ux};

use fabricscope::collective::{ChunkOp, Hop, Phase, SwitchRef};
use fabricscope::topology::LinkKind;
use fabricscope::units::format_bytes;
use fabricscope::StepInfo;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "zh-CN" | "zh" => Some(Lang::Zh),
            _ => None,
        }
    }
}

/// A link class in words; the network is named after the fabric's technology.
pub fn link_kind(lang: Lang, kind: LinkKind, network: &str) -> String {
    match (lang, kind) {
        (_, LinkKind::NvLink) => "NVLink".into(),
        (_, LinkKind::Pcie) => "PCIe".into(),
        (Lang::En, LinkKind::Socket) => "UPI (between CPU sockets)".into(),
        (Lang::Zh, LinkKind::Socket) => "UPI（CPU 插槽之间）".into(),
        (_, LinkKind::Network) => network.into(),
    }
}

pub fn phase(lang: Lang, phase: Phase) -> &'static str {
    match (lang, phase) {
        (_, Phase::ReduceScatter) => t(lang, Text::ReduceScatter),
        (_, Phase::AllGather) => t(lang, Text::AllGather),
        (Lang::En, Phase::Broadcast) => "broadcast",
        (Lang::Zh, Phase::Broadcast) => "广播（broadcast）",
        (Lang::En, Phase::Reduce) => "reduce",
        (Lang::Zh, Phase::Reduce) => "规约（reduce）",
        (Lang::En, Phase::AllToAll) => "all-to-all",
        (Lang::Zh, Phase::AllToAll) => "全交换（all-to-all）",
        (Lang::En, Phase::SendRecv) => "send/recv",
        (Lang::Zh, Phase::SendRecv) => "点对点收发（send/recv）",
    }
}

/// A collective's name in the picker.
pub fn collective(lang: Lang, collective: fabricscope::Collective) -> &'static str {
    use fabricscope::Collective::*;
    match (lang, collective) {
        (Lang::En, AllReduce) => "AllReduce (every GPU gets the sum)",
        (Lang::Zh, AllReduce) => "AllReduce（每块 GPU 得到总和）",
        (Lang::En, AllGather) => "AllGather (every GPU gets every part)",
        (Lang::Zh, AllGather) => "AllGather（每块 GPU 得到所有分片）",
        (Lang::En, ReduceScatter) => "ReduceScatter (each GPU gets the sum of its part)",
        (Lang::Zh, ReduceScatter) => "ReduceScatter（每块 GPU 得到自己分片的总和）",
        (Lang::En, Broadcast) => "Broadcast (from the root)",
        (Lang::Zh, Broadcast) => "Broadcast（从根节点广播）",
        (Lang::En, Reduce) => "Reduce (the sum to the root)",
        (Lang::Zh, Reduce) => "Reduce（总和汇聚到根节点）",
        (Lang::En, AllToAll) => "AllToAll (each GPU a block to each)",
        (Lang::Zh, AllToAll) => "AllToAll（两两交换数据块）",
        (Lang::En, SendRecv) => "SendRecv (each GPU to the next)",
        (Lang::Zh, SendRecv) => "SendRecv（每块 GPU 发给下一块）",
    }
}

/// "Step 3 / 14 — reduce-scatter: GPU 2 sends chunk 1 to GPU 3 over NVLink, which adds it …".
pub fn step_text(lang: Lang, info: &StepInfo, gpu_name: &dyn Fn(u32) -> String, network: &str) -> String {
    let (src, dst) = (gpu_name(info.src), gpu_name(info.dst));
    // After a Chinese verb: "发给节点 1 的 GPU 3", but "发给 GPU 3" (a space between Chinese and
    // Latin text, none between Chinese and Chinese).
    let to_dst = match dst.starts_with(|c: char| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
        true => dst.clone(),
        false => format!(" {dst}"),
    };
    let via = link_kind(lang, info.via, network);
    let size = format_bytes(info.bytes);
    let (step, n_steps, chunk, transfers) = (info.step + 1, info.n_steps, info.chunk, info.transfers);
    let ph = phase(lang, info.phase);
    // Through a switch that reduces (NVLS, SHARP): up to it, or down from it.
    let switch = match (lang, info.hop) {
        (Lang::En, Hop::ToSwitch(SwitchRef::Rail { rail }) | Hop::FromSwitch(SwitchRef::Rail { rail })) => {
            format!("InfiniBand switch of rail {rail} (SHARP)")
        }
        (Lang::Zh, Hop::ToSwitch(SwitchRef::Rail { rail }) | Hop::FromSwitch(SwitchRef::Rail { rail })) => {
            format!(" {rail} 号轨道的 InfiniBand 交换机（SHARP）")
        }
        (Lang::En, _) => "NVSwitch".to_string(),
        (Lang::Zh, _) => " NVSwitch ".to_string(),
    };
    match (lang, info.hop, info.op) {
        (Lang::En, Hop::ToSwitch(_), ChunkOp::Reduce) => {
            return format!("Step {step} / {n_steps} — {ph}: {src} sends its copy of chunk {chunk} ({size}) up to the {switch} over {via}; the switch adds the copies of every GPU for {dst}. {transfers} transfers run in this step.")
        }
        (Lang::En, Hop::ToSwitch(SwitchRef::NvSwitch { .. }), ChunkOp::Copy) => {
            return format!("Step {step} / {n_steps} — {ph}: {src} sends the sum of chunk {chunk} ({size}) up to the {switch} once; the switch copies it to every other GPU (multicast). {transfers} transfers run in this step.")
        }
        (Lang::En, Hop::FromSwitch(_), _) => {
            return format!("Step {step} / {n_steps} — {ph}: the {switch} sends the sum of chunk {chunk} ({size}) down to {dst} over {via}. {transfers} transfers run in this step.")
        }
        (Lang::Zh, Hop::ToSwitch(_), ChunkOp::Reduce) => {
            return format!("第 {step} / {n_steps} 步 — {ph}：{src} 经 {via} 把自己的第 {chunk} 块（{size}）送上{switch}，交换机把所有副本相加，结果归{to_dst}。本步共有 {transfers} 个传输同时进行。")
        }
        (Lang::Zh, Hop::ToSwitch(SwitchRef::NvSwitch { .. }), ChunkOp::Copy) => {
            return format!("第 {step} / {n_steps} 步 — {ph}：{src} 把第 {chunk} 块的和（{size}）只上传一次到{switch}，交换机复制给其余所有 GPU（多播）。本步共有 {transfers} 个传输同时进行。")
        }
        (Lang::Zh, Hop::FromSwitch(_), _) => {
            return format!("第 {step} / {n_steps} 步 — {ph}：{switch}经 {via} 把第 {chunk} 块的和（{size}）发给{to_dst}。本步共有 {transfers} 个传输同时进行。")
        }
        _ => {}
    }
    // A chain under LL or LL128 forwards each line as it arrives: why a chunk is on several hops.
    let streamed = match (lang, info.streamed) {
        (_, None) => String::new(),
        (Lang::En, Some(protocol)) => format!(" Under {} each GPU forwards a line (its data and its flag) as soon as it arrives, so one chunk is on several hops at once.", protocol.nccl_name()),
        (Lang::Zh, Some(protocol)) => format!("在 {} 下，每块 GPU 收到一行（数据连同标志）就立刻转发，所以同一块数据会同时出现在好几跳上。", protocol.nccl_name()),
    };
    match lang {
        Lang::En => {
            let what = match info.op {
                ChunkOp::Reduce => "adds it to its own copy",
                ChunkOp::Copy => "stores it",
            };
            format!(
                "Step {} / {} — {}: {src} sends chunk {} ({size}) to {dst} over {via}, which {what}. {} transfers run in this step.{streamed}",
                info.step + 1,
                info.n_steps,
                phase(lang, info.phase),
                info.chunk,
                info.transfers
            )
        }
        Lang::Zh => {
            let what = match info.op {
                ChunkOp::Reduce => "累加到自己的副本上",
                ChunkOp::Copy => "保存下来",
            };
            format!(
                "第 {} / {} 步 — {}：{src} 经 {via} 把第 {} 块（{size}）发给{to_dst}，后者将其{what}。本步共有 {} 个传输同时进行。{streamed}",
                info.step + 1,
                info.n_steps,
                phase(lang, info.phase),
                info.chunk,
                info.transfers
            )
        }
    }
}

/// "node 1 GPU 3" / "节点 1 GPU 3".
pub fn gpu_name(lang: Lang, node: Option<u32>, local: u32, multi_node: bool) -> String {
    match (lang, node, multi_node) {
        (Lang::En, Some(node), true) => format!("node {node} GPU {local}"),
        (Lang::Zh, Some(node), true) => format!("节点 {node} 的 GPU {local}"),
        _ => format!("GPU {local}"),
    }
}

/// The busbw chart's caption: the collective and the GPUs its curve is of (the cluster asked
/// for, which while a change simulates is not yet the one drawn above it).
pub fn chart_caption(lang: Lang, collective: fabricscope::Collective, gpus: u32) -> String {
    let name = collective.nccl_name();
    match (lang, gpus) {
        (Lang::En, 0) => format!("{name} busbw vs message size"),
        (Lang::En, 1) => format!("{name} busbw vs message size on 1 GPU"),
        (Lang::En, _) => format!("{name} busbw vs message size on {gpus} GPUs"),
        (Lang::Zh, 0) => format!("{name} 的 busbw 随消息大小的变化"),
        (Lang::Zh, _) => format!("{name} 在 {gpus} 个 GPU 上 busbw 随消息大小的变化"),
    }
}

/// Under a complete busbw chart: the sizes each curve leaves off, beyond what the page
/// simulates at this scale (runs of (curve, first, last, up to the largest size): `Curve::left_off`).
pub fn chart_left_off<'a>(lang: Lang, gaps: impl IntoIterator<Item = (&'a str, u64, u64, bool)>) -> String {
    use fabricscope::units::format_bytes;
    let runs: Vec<String> = gaps
        .into_iter()
        .map(|(name, first, last, open)| {
            let (a, b) = (format_bytes(first), format_bytes(last));
            match (lang, open, first == last) {
                (Lang::En, true, _) => format!("{name} from {a}"),
                (Lang::Zh, true, _) => format!("{name} 从 {a} 起"),
                (_, false, true) => format!("{name} {a}"),
                (_, false, false) => format!("{name} {a}–{b}"),
            }
        })
        .collect();
    match lang {
        Lang::En => {
            format!("Left off the chart, beyond what the page simulates at this scale: {}.", runs.join("; "))
        }
        Lang::Zh => format!("超出页面在此规模下可模拟的范围，未画出：{}。", runs.join("；")),
    }
}

/// A method's short name (`Method::name` in English): the embedded figure's caption, the
/// tuner's pick simulated for the chart.
pub fn method_name(lang: Lang, method: fabricscope::Method) -> &'static str {
    use fabricscope::Method;
    match (lang, method) {
        (Lang::En, _) => method.name(),
        (Lang::Zh, Method::Exact) => "精确模拟",
        (Lang::Zh, Method::SteadyState) => "已证明的稳态",
        (Lang::Zh, Method::Symmetric) => "利用通道对称的精确模拟",
        (Lang::Zh, Method::Extrapolated) => "外推稳态（±3%）",
        (Lang::Zh, Method::ChunkFit) => "拟合到 NCCL 的分块（±1%）",
        (Lang::Zh, Method::Bounded) => "最大最小公平共享的界",
        (Lang::Zh, Method::Chain) => "外推的链（±1%）",
    }
}

/// Where the page ran another algorithm than the tuner's pick (`Simulation::tuner_pick_not_run`):
/// the pick's own figures, from the chart's point of that algorithm forced at this size
/// (`point`), which a worker simulated from the channels that stand for all.
pub fn tuner_pick_figures(
    lang: Lang,
    sim: &fabricscope::Simulation,
    point: &fabricscope::SweepPoint,
) -> String {
    let pick = format!("{} / {}", point.algorithm.nccl_name(), point.protocol.nccl_name());
    let shown = format!("{} / {}", sim.schedule.algorithm.nccl_name(), sim.schedule.protocol.nccl_name());
    let time = fabricscope::units::format_duration_ns(point.time_us * 1e3);
    let model = fabricscope::units::format_duration_ns(point.tuner_time_us * 1e3);
    let method = method_name(lang, point.method);
    match lang {
        Lang::En => format!(
            "NCCL's pick here, {pick}: {time} · algbw {:.1} GB/s · busbw {:.1} GB/s — {method}, simulated for the chart; NCCL's model: {model}. The figures above and the animation are {shown}'s, which the page can draw at this scale.",
            point.algbw_gbyte_per_s, point.busbw_gbyte_per_s
        ),
        Lang::Zh => format!(
            "NCCL 在此选择 {pick}：{time} · algbw {:.1} GB/s · busbw {:.1} GB/s——{method}，为图表模拟；NCCL 模型预测：{model}。上方数字与动画属于页面在此规模下能绘制的 {shown}。",
            point.algbw_gbyte_per_s, point.busbw_gbyte_per_s
        ),
    }
}

/// How a run's figures were obtained (`Summary::method`), with its transfer counts, and the
/// tuner's pick where the engine ran another (`Simulation::tuner_pick_not_run`): where the chart
/// simulated the pick at this size (`pick_point`), the results show its figures
/// (`tuner_pick_figures`) and this line says so rather than sending the reader to the CLI.
pub fn method_line(lang: Lang, sim: &fabricscope::Simulation, pick_point: bool) -> String {
    let mut line = method_sentence(lang, sim);
    if let Some(fit) = &sim.chunk_fit {
        let g = sim.schedule.n_ranks / sim.scenario.scenario().nodes.max(1);
        line = format!("{line} {}", chunk_fit_sentence(lang, fit, g));
    }
    if let Some(rounding) = sim.rounding() {
        line = format!("{line} {}", rounding_sentence(lang, &rounding));
    }
    let size = sim.scenario.scenario().size_bytes;
    let command = format!("fabricscope {} --scenario FILE -b {size} -e {size}", sweep_command(sim));
    // With NCCL's own model's time for the pick: the tuner's prediction, said to be one.
    let (pick, model) = match (sim.tuner_pick_not_run(), sim.tuner_pick_predicted_ns()) {
        (Some(pick), Some(ns)) => (Some(pick), fabricscope::units::format_duration_ns(ns)),
        _ => (None, String::new()),
    };
    match (pick, lang) {
        (None, _) => line,
        (Some(pick), Lang::En) if pick_point => format!(
            "{line} The tuner picks {} here (NCCL's model: {model}), too big to draw at this scale: the best ring row ran to be shown, and the chart simulated the pick itself (its figures above).",
            pick.nccl_name()
        ),
        (Some(pick), Lang::Zh) if pick_point => format!(
            "{line} 调优器在此选择 {}（NCCL 模型预测：{model}），在此规模下无法绘制：为展示运行了最佳的环形方案，而图表模拟了该选择本身（数字见上方）。",
            pick.nccl_name()
        ),
        (Some(pick), Lang::En) if sim.tuner_pick_may_run_natively() => format!(
            "{line} The tuner picks {} here (NCCL's model: {model}), too big for the page at this scale: the best ring row ran instead. The command line may run it, whole or from the channels that stand for all: save this scenario, then `{command}`.",
            pick.nccl_name()
        ),
        (Some(pick), Lang::Zh) if sim.tuner_pick_may_run_natively() => format!(
            "{line} 调优器在此选择 {}（NCCL 模型预测：{model}），但在此规模下对页面过大：改为运行最佳的环形方案。命令行或可运行它（完整运行，或只运行代表全部通道的那几个通道）：保存此场景后运行 `{command}`。",
            pick.nccl_name()
        ),
        (Some(pick), Lang::En) => format!(
            "{line} The tuner picks {} here (NCCL's model: {model}), too big to simulate at this scale: the best ring row ran instead.",
            pick.nccl_name()
        ),
        (Some(pick), Lang::Zh) => format!(
            "{line} 调优器在此选择 {}（NCCL 模型预测：{model}），但在此规模下过大无法模拟：改为运行最佳的环形方案。",
            pick.nccl_name()
        ),
    }
}

/// The CLI's subcommand for the simulation's collective (`fabricscope allreduce`, ...).
fn sweep_command(sim: &fabricscope::Simulation) -> &'static str {
    use fabricscope::Collective::*;
    match sim.scenario.scenario().collective {
        AllReduce => "allreduce",
        AllGather => "allgather",
        ReduceScatter => "reducescatter",
        Broadcast => "broadcast",
        Reduce => "reduce",
        AllToAll => "alltoall",
        SendRecv => "sendrecv",
    }
}

/// "node 0" or "the first m of N nodes" (a rotation's class, `Simulation::rotated`).
pub fn first_nodes_en(m: u32, nodes: u32) -> String {
    match m {
        1 => "node 0".into(),
        m => format!("the first {m} of {nodes} nodes"),
    }
}

/// "one node" or "m nodes".
pub fn nodes_en(m: u32) -> String {
    match m {
        1 => "one node".into(),
        m => format!("{m} nodes"),
    }
}

/// `first_nodes_en` in Chinese (a figure is set off by spaces, so "节点 0 " ends with one).
pub fn first_nodes_zh(m: u32, nodes: u32) -> String {
    match m {
        1 => "节点 0 ".into(),
        m => format!("前 {m} 个节点（共 {nodes} 个）"),
    }
}

fn method_sentence(lang: Lang, sim: &fabricscope::Simulation) -> String {
    if let Some(bounds) = &sim.bounded {
        let of = (sim.schedule.n_ranks, sim.schedule.n_channels, sim.n_transfers());
        return bounded::method_sentence(lang, bounds, of);
    }
    if let Some(run) = &sim.chain {
        return chain::method_sentence(lang, sim, run);
    }
    // A time fitted to NCCL's chunks: how the run shown was obtained (`chunk_fit_sentence` says
    // the rest).
    let method = sim.chunk_fit.map_or(sim.summary.method, |fit| fit.runs);
    if method == fabricscope::Method::Symmetric {
        let channels = sim.schedule.n_channels;
        let one = sim.n_transfers() / channels.max(1) as u64;
        if let Some(m) = sim.rotated {
            let nodes = sim.scenario.scenario().nodes;
            let few = one * m as u64 / nodes.max(1) as u64;
            return match lang {
                Lang::En => format!(
                    "Obtained by exact simulation with the cluster's symmetry: of channel 0, {}'s {few} transfers through the engine; turning the ring by {} maps the routes onto themselves, and the other {} channels are channel 0's images on their own NICs and links, so every other transfer is a proved image (all {} transfers: every time the same, to the nanosecond, as simulating each).",
                    first_nodes_en(m, nodes),
                    nodes_en(m),
                    channels - 1,
                    sim.n_transfers()
                ),
                Lang::Zh => format!(
                    "获得方式：利用集群对称性的精确模拟——引擎只模拟通道 0 中{}的 {few} 个传输；把环转过 {m} 个节点，路由映射到自身，其余 {} 个通道又是通道 0 在各自网卡和链路上的映像，因此其余每个传输都是经证明的映像（共 {} 个传输：每个时间都与逐个模拟相同，精确到纳秒）。",
                    first_nodes_zh(m, nodes),
                    channels - 1,
                    sim.n_transfers()
                ),
            };
        }
        if sim.stride == 2 && sim.parts > 1 {
            let (parts, lanes) = (sim.parts, sim.parts as u64 * channels as u64);
            return match lang {
                Lang::En => format!(
                    "Obtained by exact simulation with the channels' symmetry: NCCL's channels alternate two trees, and each channel's {parts} parts (one per GPU of a node, each crossing the network on its GPU's own NIC) are images of one another under a turn of the node's GPUs, so part 0 of channels 0 and 1, {} transfers, went through the engine and each of the other {} parts is a proved image of one of them on its own GPUs, NICs and links (all {} transfers: every time the same, to the nanosecond, as simulating each).",
                    2 * one / parts as u64,
                    lanes - 2,
                    sim.n_transfers()
                ),
                Lang::Zh => format!(
                    "获得方式：利用通道对称的精确模拟——NCCL 的通道轮流使用两棵树，每个通道的 {parts} 个分片（节点内每块 GPU 一个，各经该 GPU 自己的网卡跨网络）在节点内 GPU 的轮换下互为映像，因此引擎模拟通道 0 和 1 的分片 0，共 {} 个传输，其余 {} 个分片各是其中之一在自身 GPU、网卡和链路上经证明的映像（共 {} 个传输：每个时间都与逐个模拟相同，精确到纳秒）。",
                    2 * one / parts as u64,
                    lanes - 2,
                    sim.n_transfers()
                ),
            };
        }
        if sim.stride == 2 {
            return match lang {
                Lang::En => format!(
                    "Obtained by exact simulation with the channels' symmetry: NCCL's channels alternate two trees, so channels 0 and 1's {} transfers went through the engine and each of the other {} channels is a proved image of the one two before it, on its own NICs and links (all {} transfers: every time the same, to the nanosecond, as simulating each).",
                    2 * one,
                    channels - 2,
                    sim.n_transfers()
                ),
                Lang::Zh => format!(
                    "获得方式：利用通道对称的精确模拟——NCCL 的通道轮流使用两棵树，因此引擎模拟通道 0 和 1 的 {} 个传输，其余 {} 个通道各是其前两个通道在自身网卡和链路上经证明的映像（共 {} 个传输：每个时间都与逐个模拟相同，精确到纳秒）。",
                    2 * one,
                    channels - 2,
                    sim.n_transfers()
                ),
            };
        }
        // Channel 0's images on links of their own, or its copies on the same links.
        let (others_en, others_zh) = match sim.copies {
            true => (
                "its proved copies on the same NICs and links, which share each link's capacity alike",
                "是它在相同网卡和链路上经证明的副本，各链路的带宽由它们均分",
            ),
            false => ("its proved images on their own NICs and links", "是它在各自网卡和链路上经证明的映像"),
        };
        return match lang {
            Lang::En => format!(
                "Obtained by exact simulation with the channels' symmetry: channel 0's {one} transfers through the engine, the other {} channels {others_en} (all {} transfers: every time the same, to the nanosecond, as simulating each).",
                channels - 1,
                sim.n_transfers()
            ),
            Lang::Zh => format!(
                "获得方式：利用通道对称的精确模拟——引擎模拟通道 0 的 {one} 个传输，其余 {} 个通道{others_zh}（共 {} 个传输：每个时间都与逐个模拟相同，精确到纳秒）。",
                channels - 1,
                sim.n_transfers()
            ),
        };
    }
    if let (fabricscope::Method::Extrapolated, Some(s)) = (sim.summary.method, sim.steady) {
        let bound = 100.0 * fabricscope::EXTRAPOLATION_BOUND;
        return match lang {
            Lang::En => format!(
                "Obtained as an extrapolated steady state: {} of the {} transfers simulated; with NCCL's {} channels sharing links the run never repeats exactly, so the time of each further step was measured on a longer simulated prefix (below). Within {bound:.0}% of simulating every transfer wherever both run (tests/fidelity.rs); link bytes exact.",
                s.simulated_transfers, s.total_transfers, sim.schedule.n_channels
            ),
            Lang::Zh => format!(
                "获得方式：外推稳态——模拟了 {} 个传输中的 {} 个；NCCL 的 {} 个通道共享链路，运行永不精确重复，因此其余每一步的时间由一段更长的模拟前缀测得（见下）。在两者都能运行的范围内与逐个模拟全部传输相差不超过 {bound:.0}%（tests/fidelity.rs）；链路字节数精确。",
                s.total_transfers, s.simulated_transfers, sim.schedule.n_channels
            ),
        };
    }
    match (sim.steady, lang) {
        (None, Lang::En) => format!(
            "Obtained by exact simulation: every one of the {} transfers through the engine.",
            sim.n_transfers()
        ),
        (None, Lang::Zh) => format!("获得方式：精确模拟——引擎逐个模拟全部 {} 个传输。", sim.n_transfers()),
        (Some(s), Lang::En) => format!(
            "Obtained as a steady state: {} of the {} transfers simulated, the rest their proved repetition (below); the same, bit for bit, as simulating all of them.",
            s.simulated_transfers, s.total_transfers
        ),
        (Some(s), Lang::Zh) => format!(
            "获得方式：稳态——模拟了 {} 个传输中的 {} 个，其余为已证明的周期重复（见下）；与逐个模拟全部传输逐位相同。",
            s.total_transfers, s.simulated_transfers
        ),
    }
}

/// The α-β line with every term: "14 × 3.900 µs + 1.750 × 256 MiB / 370.8 GB/s = 1.321 ms".
pub fn alpha_beta_line(
    lang: Lang,
    collective: fabricscope::Collective,
    n: u32,
    size: u64,
    ab: &fabricscope::AlphaBeta,
    engine_ns: f64,
) -> String {
    use fabricscope::units::format_duration_ns as d;
    let factor = collective.busbw_factor(n.max(1));
    let steps = if collective == fabricscope::Collective::AllReduce { "2(n−1)" } else { "(n−1)" };
    let mut latency = format!("{} × {}", ab.intra_steps, d(ab.alpha_intra_ns));
    if ab.inter_steps > 0 {
        latency.push_str(&format!(" + {} × {}", ab.inter_steps, d(ab.alpha_inter_ns)));
    }
    let body = format!(
        "{steps}·α + {steps}/n·S/B = {latency} + {factor:.3} × {} / {:.1} GB/s = {}",
        format_bytes(size),
        ab.bandwidth_bytes_per_ns,
        d(ab.predicted_ns)
    );
    let overlap = ab.inter_steps > 0 && engine_ns < ab.predicted_ns - 1.0;
    match (lang, overlap) {
        (Lang::En, false) => format!("{body}. α: one step's latency; B: the slowest hop per GPU."),
        (Lang::En, true) => format!(
            "{body}. The engine's {} is lower: it overlaps network latency with other steps' data.",
            d(engine_ns)
        ),
        (Lang::Zh, false) => format!("{body}。α：单步时延；B：每块 GPU 最慢一跳的带宽。"),
        (Lang::Zh, true) => {
            format!("{body}。引擎结果 {} 更短：网络时延与其他步骤的数据传输相互重叠。", d(engine_ns))
        }
    }
}

/// Names of the fabric choices, as the page lists them.
pub fn choice(lang: Lang, id: &str) -> &'static str {
    match (lang, id) {
        (_, "infiniband") => "InfiniBand",
        (Lang::En, "roce") => "RoCEv2 (RDMA over Ethernet)",
        (Lang::Zh, "roce") => "RoCEv2（以太网 RDMA）",
        (Lang::En, "tcp") => "TCP/IP Ethernet (NCCL sockets)",
        (Lang::Zh, "tcp") => "TCP/IP 以太网（NCCL socket）",
        (_, "efa") => "AWS EFA (SRD)",
        (Lang::En, "auto") => "smallest that fits",
        (Lang::Zh, "auto") => "自动（能容纳的最小规模）",
        (Lang::En, "single_switch") => "one switch",
        (Lang::Zh, "single_switch") => "单台交换机",
        (Lang::En, "leaf_spine") => "leaf-spine (2 tiers)",
        (Lang::Zh, "leaf_spine") => "叶脊（两层）",
        (Lang::En, "fat_tree") => "fat-tree (3 tiers)",
        (Lang::Zh, "fat_tree") => "胖树（三层）",
        (Lang::En, "rail") => "rail-optimised (NIC i → rail i)",
        (Lang::Zh, "rail") => "轨道优化（第 i 张网卡接第 i 条轨道）",
        (Lang::En, "node") => "per node (top of rack)",
        (Lang::Zh, "node") => "按节点（机架顶交换机）",
        (Lang::En, "static") => "static, D-mod-K (InfiniBand subnet manager)",
        (Lang::Zh, "static") => "静态 D-mod-K（InfiniBand 子网管理器）",
        (Lang::En, "ecmp") => "ECMP hash (Ethernet)",
        (Lang::Zh, "ecmp") => "ECMP 哈希（以太网）",
        (Lang::En, "adaptive") => "adaptive (least-loaded up-link)",
        (Lang::Zh, "adaptive") => "自适应（选择负载最低的上行链路）",
        (Lang::En, "ring") => "ring (GPU i ↔ GPU i+1)",
        (Lang::Zh, "ring") => "环形（GPU i ↔ GPU i+1）",
        (Lang::En, "star") => "star (all GPUs on one switch)",
        (Lang::Zh, "star") => "星形（所有 GPU 接一台交换机）",
        (Lang::En, "full_mesh") => "full mesh (a link per pair)",
        (Lang::Zh, "full_mesh") => "全互联（每对 GPU 一条链路）",
        (Lang::En, "aligned") => "aligned (each GPU's nearest NIC)",
        (Lang::Zh, "aligned") => "对齐（每块 GPU 使用最近的网卡）",
        (Lang::En, "misaligned") => "misaligned (a NIC on the other CPU socket)",
        (Lang::Zh, "misaligned") => "错位（使用另一个 CPU 插槽上的网卡）",
        (Lang::En, "nccl") => "NCCL's (launch + protocol latency per step)",
        (Lang::Zh, "nccl") => "NCCL 的（启动时延 + 每步协议时延）",
        (Lang::En, "links") => "links only (the textbook α-β)",
        (Lang::Zh, "links") => "仅链路时延（教科书 α-β）",
        _ => "?",
    }
}

/// A vertex's name in the page's language: "node 1 GPU 3" / "节点 1 的 GPU 3", "leaf 2" / "叶交换机 2".
pub fn vertex_name(
    lang: Lang,
    topology: &fabricscope::topology::Topology,
    id: fabricscope::topology::VertexId,
) -> String {
    use fabricscope::topology::VertexKind;
    if lang == Lang::En {
        return topology.vertex_name(id);
    }
    let vertex = topology.vertex(id);
    let prefix = match (vertex.node, topology.n_nodes() > 1) {
        (Some(node), true) => format!("节点 {node} 的 "),
        _ => String::new(),
    };
    let single = topology.fabric.leaves.len() == 1;
    let three_tier = topology.fabric.mid_up.iter().any(|up| !up.is_empty());
    match vertex.kind {
        VertexKind::Gpu => format!("{prefix}GPU {}", vertex.local),
        VertexKind::NvSwitch => format!("{prefix}NVSwitch"),
        VertexKind::PcieSwitch => format!("{prefix}PCIe 交换芯片 {}", vertex.local),
        VertexKind::Cpu => format!("{prefix}CPU {}", vertex.local),
        VertexKind::Nic => format!("{prefix}网卡 {}", vertex.local),
        VertexKind::Leaf if single => "交换机".to_string(),
        VertexKind::Leaf => format!("叶交换机 {}", vertex.local),
        VertexKind::Spine if three_tier => format!("汇聚交换机 {}", vertex.local),
        VertexKind::Spine => format!("脊交换机 {}", vertex.local),
        VertexKind::Core => format!("核心交换机 {}", vertex.local),
    }
}

/// A fabric switch's name where its full one does not fit its box: "L12", "S3", "A3", "C2" /
/// "叶12", "脊3", "汇聚3", "核心2" (the figure's rows say which tier).
pub fn switch_short_name(
    lang: Lang,
    topology: &fabricscope::topology::Topology,
    id: fabricscope::topology::VertexId,
) -> String {
    use fabricscope::topology::VertexKind;
    let vertex = topology.vertex(id);
    let three_tier = topology.fabric.mid_up.iter().any(|up| !up.is_empty());
    let tier = match (lang, vertex.kind, three_tier) {
        (Lang::En, VertexKind::Leaf, _) => "L",
        (Lang::En, VertexKind::Spine, false) => "S",
        (Lang::En, VertexKind::Spine, true) => "A",
        (Lang::En, _, _) => "C",
        (Lang::Zh, VertexKind::Leaf, _) => "叶",
        (Lang::Zh, VertexKind::Spine, false) => "脊",
        (Lang::Zh, VertexKind::Spine, true) => "汇聚",
        (Lang::Zh, _, _) => "核心",
    };
    format!("{tier}{}", vertex.local)
}

/// How a technology keeps the network from dropping data, in words.
pub fn flow_control(lang: Lang, technology: fabricscope::catalog::Technology) -> &'static str {
    use fabricscope::catalog::Technology::*;
    match (lang, technology) {
        (Lang::En, t) => t.spec().flow_control,
        (Lang::Zh, Infiniband) => "基于信用的流控，无损",
        (Lang::Zh, Roce) => "PFC + ECN（DCQCN）",
        (Lang::Zh, Tcp) => "TCP 拥塞控制（有损）",
        (Lang::Zh, Efa) => "SRD：多路径喷洒，硬件重传",
    }
}
