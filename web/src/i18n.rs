//! The page's words in English and Simplified Chinese. Every string a user reads lives here,
//! or, in the training view, beside its use as a `pick(lang, english, chinese)` pair: never one
//! language alone.

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

/// One of a pair of strings, by language.
pub fn pick(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// A fixed string of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text {
    Tagline,
    Preset,
    Nodes,
    MessageSize,
    Channels,
    Auto,
    NvlinkBandwidth,
    NicBandwidth,
    NicLatency,
    Play,
    Pause,
    StepBack,
    StepForward,
    ToStart,
    ToEnd,
    Speed,
    Time,
    AlgBw,
    BusBw,
    Bottleneck,
    AlphaBeta,
    ChartCaption,
    ChartX,
    ChartY,
    Hardware,
    Collective,
    Results,
    KeyboardHint,
    Legend,
    ReduceScatter,
    AllGather,
    LegendReduce,
    LegendCopy,
    Theme,
    Done,
    DismissError,
    Fabric,
    Technology,
    FabricShape,
    Wiring,
    Oversubscription,
    Routing,
    Radix,
    Default,
    NicsUsed,
    NicPart,
    HeatCaption,
    Crossover,
    Algorithm,
    Protocol,
    TunerChoice,
    TunerCaption,
    Launch,
    StepLatencies,
    BusBandwidth,
    DataTerm,
    Predicted,
    CustomNode,
    Shape,
    GpusPerNode,
    LinkBandwidth,
    LinkLatency,
    Pinning,
    Virtualized,
    InvalidInput,
    RestoredScenario,
    UseDefault,
    TraceHash,
    TraceHashHelp,
}

pub fn t(lang: Lang, text: Text) -> &'static str {
    use Text::*;
    match (lang, text) {
        (Lang::En, Tagline) => "How a GPU cluster moves data: NVLink and NVSwitch inside a node, InfiniBand or Ethernet between nodes, NCCL collectives chunk by chunk.",
        (Lang::Zh, Tagline) => "GPU 集群如何搬运数据：节点内走 NVLink 与 NVSwitch，节点间走 InfiniBand 或以太网，逐块演示 NCCL 集合通信。",
        (Lang::En, Preset) => "Node",
        (Lang::Zh, Preset) => "节点型号",
        (Lang::En, Nodes) => "Nodes",
        (Lang::Zh, Nodes) => "节点数",
        (Lang::En, MessageSize) => "Message size",
        (Lang::Zh, MessageSize) => "消息大小",
        (Lang::En, Channels) => "Channels (rings)",
        (Lang::Zh, Channels) => "通道数（环）",
        (Lang::En, Auto) => "auto",
        (Lang::Zh, Auto) => "自动",
        (Lang::En, NvlinkBandwidth) => "NVLink per GPU (GB/s, each direction)",
        (Lang::Zh, NvlinkBandwidth) => "每卡 NVLink 带宽（GB/s，单向）",
        (Lang::En, NicBandwidth) => "NIC line rate (Gb/s)",
        (Lang::Zh, NicBandwidth) => "网卡线速（Gb/s）",
        (Lang::En, NicLatency) => "NIC ↔ switch latency (ns)",
        (Lang::Zh, NicLatency) => "网卡 ↔ 交换机时延（ns）",
        (Lang::En, Play) => "Play",
        (Lang::Zh, Play) => "播放",
        (Lang::En, Pause) => "Pause",
        (Lang::Zh, Pause) => "暂停",
        (Lang::En, StepBack) => "Previous step",
        (Lang::Zh, StepBack) => "上一步",
        (Lang::En, StepForward) => "Next step",
        (Lang::Zh, StepForward) => "下一步",
        (Lang::En, ToStart) => "To start",
        (Lang::Zh, ToStart) => "回到开头",
        (Lang::En, ToEnd) => "To end",
        (Lang::Zh, ToEnd) => "跳到结尾",
        (Lang::En, Speed) => "Speed",
        (Lang::Zh, Speed) => "速度",
        (Lang::En, Time) => "Time",
        (Lang::Zh, Time) => "耗时",
        (Lang::En, AlgBw) => "algbw",
        (Lang::Zh, AlgBw) => "算法带宽 algbw",
        (Lang::En, BusBw) => "busbw",
        (Lang::Zh, BusBw) => "总线带宽 busbw",
        (Lang::En, Bottleneck) => "Bottleneck link",
        (Lang::Zh, Bottleneck) => "瓶颈链路",
        (Lang::En, AlphaBeta) => "α-β model",
        (Lang::Zh, AlphaBeta) => "α-β 模型",
        (Lang::En, ChartCaption) => "busbw vs message size on this cluster",
        (Lang::Zh, ChartCaption) => "在当前集群上 busbw 随消息大小的变化",
        (Lang::En, ChartX) => "message size (bytes)",
        (Lang::Zh, ChartX) => "消息大小（字节）",
        (Lang::En, ChartY) => "busbw (GB/s)",
        (Lang::Zh, ChartY) => "busbw（GB/s）",
        (Lang::En, Hardware) => "Hardware",
        (Lang::Zh, Hardware) => "硬件",
        (Lang::En, Collective) => "Collective",
        (Lang::Zh, Collective) => "集合通信",
        (Lang::En, Results) => "Results",
        (Lang::Zh, Results) => "结果",
        (Lang::En, KeyboardHint) => "Keys: space play/pause · ← → step · Home/End",
        (Lang::Zh, KeyboardHint) => "快捷键：空格 播放/暂停 · ← → 单步 · Home/End",
        (Lang::En, Legend) => "link utilisation",
        (Lang::Zh, Legend) => "链路利用率",
        (Lang::En, ReduceScatter) => "reduce-scatter",
        (Lang::En, LegendReduce) => "chunk being added (reduce)",
        (Lang::Zh, LegendReduce) => "累加中的数据块（reduce）",
        (Lang::En, LegendCopy) => "chunk being copied",
        (Lang::Zh, LegendCopy) => "复制中的数据块（copy）",
        (Lang::Zh, ReduceScatter) => "规约散发（reduce-scatter）",
        (Lang::En, AllGather) => "all-gather",
        (Lang::Zh, AllGather) => "全收集（all-gather）",
        (Lang::En, Theme) => "Dark theme",
        (Lang::Zh, Theme) => "深色主题",
        (Lang::En, Done) => "Done: every GPU now holds the complete sum.",
        (Lang::Zh, Done) => "完成：每块 GPU 都已得到完整的求和结果。",
        (Lang::En, Fabric) => "Fabric between nodes",
        (Lang::Zh, Fabric) => "节点间网络",
        (Lang::En, Technology) => "Technology",
        (Lang::Zh, Technology) => "网络技术",
        (Lang::En, FabricShape) => "Topology",
        (Lang::Zh, FabricShape) => "组网拓扑",
        (Lang::En, Wiring) => "Wiring",
        (Lang::Zh, Wiring) => "布线方式",
        (Lang::En, Oversubscription) => "Leaf oversubscription (down:up)",
        (Lang::Zh, Oversubscription) => "叶交换机收敛比（下行:上行）",
        (Lang::En, Routing) => "Routing / load balancing",
        (Lang::Zh, Routing) => "路由 / 负载均衡",
        (Lang::En, Radix) => "Switch radix (ports)",
        (Lang::Zh, Radix) => "交换机端口数",
        (Lang::En, NicPart) => "NIC part (sets the line rate)",
        (Lang::Zh, NicPart) => "网卡型号（设定线速）",
        (Lang::En, HeatCaption) => "Tuner over message size: ✓ its pick; otherwise time ÷ the pick's",
        (Lang::Zh, HeatCaption) => "不同消息大小下的调优结果：✓ 为所选方案，其余为耗时与所选方案之比",
        (Lang::En, Crossover) => "Tree → Ring crossover",
        (Lang::Zh, Crossover) => "Tree → Ring 交叉点",
        (Lang::En, Algorithm) => "Algorithm (NCCL_ALGO)",
        (Lang::Zh, Algorithm) => "算法（NCCL_ALGO）",
        (Lang::En, Protocol) => "Protocol (NCCL_PROTO)",
        (Lang::Zh, Protocol) => "协议（NCCL_PROTO）",
        (Lang::En, TunerChoice) => "auto: the tuner's choice",
        (Lang::Zh, TunerChoice) => "自动：调优器的选择",
        (Lang::En, TunerCaption) => "NCCL-style tuner: predicted time per protocol (NCCL 2.30.7 tuning model)",
        (Lang::Zh, TunerCaption) => "NCCL 式调优器：各协议的预测耗时（NCCL 2.30.7 调优模型）",
        (Lang::En, Launch) => "launch",
        (Lang::Zh, Launch) => "启动",
        (Lang::En, StepLatencies) => "step latencies (intra + inter)",
        (Lang::Zh, StepLatencies) => "步骤时延（节点内 + 跨节点）",
        (Lang::En, BusBandwidth) => "bus bandwidth",
        (Lang::Zh, BusBandwidth) => "总线带宽",
        (Lang::En, DataTerm) => "data",
        (Lang::Zh, DataTerm) => "数据传输",
        (Lang::En, Predicted) => "predicted",
        (Lang::Zh, Predicted) => "预测耗时",
        (Lang::En, CustomNode) => "Custom node (ring, star, full mesh)",
        (Lang::Zh, CustomNode) => "自定义节点（环、星形、全互联）",
        (Lang::En, Shape) => "Shape",
        (Lang::Zh, Shape) => "形状",
        (Lang::En, GpusPerNode) => "GPUs per node",
        (Lang::Zh, GpusPerNode) => "每节点 GPU 数",
        (Lang::En, LinkBandwidth) => "Link bandwidth (GB/s, each direction)",
        (Lang::Zh, LinkBandwidth) => "链路带宽（GB/s，单向）",
        (Lang::En, LinkLatency) => "Link latency (ns)",
        (Lang::Zh, LinkLatency) => "链路时延（ns）",
        (Lang::En, NicsUsed) => "NICs the job uses (NCCL_IB_HCA)",
        (Lang::Zh, NicsUsed) => "作业使用的网卡数（NCCL_IB_HCA）",
        (Lang::En, Pinning) => "Process pinning (GPU ↔ NIC)",
        (Lang::Zh, Pinning) => "进程绑定（GPU ↔ 网卡）",
        (Lang::En, Virtualized) => "Cloud VM: NICs virtualised with SR-IOV",
        (Lang::Zh, Virtualized) => "云虚拟机：网卡经 SR-IOV 虚拟化",
        (Lang::En, Default) => "default",
        (Lang::Zh, Default) => "默认",
        (Lang::En, DismissError) => "Dismiss",
        (Lang::Zh, DismissError) => "关闭",
        (Lang::En, RestoredScenario) => "Restored the last scenario you ran in this browser.",
        (Lang::Zh, RestoredScenario) => "已恢复你在此浏览器中最近运行的场景。",
        (Lang::En, UseDefault) => "Default scenario",
        (Lang::Zh, UseDefault) => "默认场景",
        (Lang::En, TraceHash) => "Trace hash",
        (Lang::Zh, TraceHash) => "轨迹哈希",
        (Lang::En, TraceHashHelp) => "A fingerprint of every simulated time and rate: the CLI prints the same one for the same scenario (`fabricscope allreduce --scenario FILE`), bit for bit.",
        (Lang::Zh, TraceHashHelp) => "所有模拟时刻与速率的指纹：同一场景下命令行（`fabricscope allreduce --scenario FILE`）输出完全相同的值。",
        (Lang::En, InvalidInput) => "That change was not applied; the last valid scenario is still shown.",
        (Lang::Zh, InvalidInput) => "该修改未生效，页面仍显示上一个有效场景。",
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
            return format!("第 {step} / {n_steps} 步 — {ph}：{src} 经 {via} 把自己的第 {chunk} 块（{size}）送上{switch}，交换机把所有副本相加，结果归 {dst}。本步共有 {transfers} 个传输同时进行。")
        }
        (Lang::Zh, Hop::ToSwitch(SwitchRef::NvSwitch { .. }), ChunkOp::Copy) => {
            return format!("第 {step} / {n_steps} 步 — {ph}：{src} 把第 {chunk} 块的和（{size}）只上传一次到{switch}，交换机复制给其余所有 GPU（多播）。本步共有 {transfers} 个传输同时进行。")
        }
        (Lang::Zh, Hop::FromSwitch(_), _) => {
            return format!("第 {step} / {n_steps} 步 — {ph}：{switch}经 {via} 把第 {chunk} 块的和（{size}）发给 {dst}。本步共有 {transfers} 个传输同时进行。")
        }
        _ => {}
    }
    match lang {
        Lang::En => {
            let what = match info.op {
                ChunkOp::Reduce => "adds it to its own copy",
                ChunkOp::Copy => "stores it",
            };
            format!(
                "Step {} / {} — {}: {src} sends chunk {} ({size}) to {dst} over {via}, which {what}. {} transfers run in this step.",
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
                "第 {} / {} 步 — {}：{src} 经 {via} 把第 {} 块（{size}）发给 {dst}，后者将其{what}。本步共有 {} 个传输同时进行。",
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
