//! The words of the "your cluster" parts of the page: faults, a node read from a file, a
//! measured log against the model. Fixed strings are `Words` (looked up with `w`); sentences
//! with figures are functions.

use super::Lang;
use fabricscope::compare::Comparison;
use fabricscope::units::format_duration_ns;
use fabricscope::FaultWait;

/// A fixed string of the cluster parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    Faults,
    FaultsHelp,
    AddFault,
    Remove,
    Node,
    Leaf,
    Which,
    RateLeft,
    Down,
    KindNic,
    KindNvlink,
    KindGpu,
    KindLeafUplink,
    KindSpine,
    YourCluster,
    YourClusterHelp,
    Paste,
    OpenFile,
    Read,
    GpuModel,
    FromFile,
    NicGbit,
    Imported,
    Notes,
    Size,
    Measured,
    Model,
    Fitted,
    Ratio,
    BoundBy,
    Latency,
    Bandwidth,
    OpenFitted,
    Stop,
    NotAFile,
}

/// Looks a `Words` up.
pub fn w(lang: Lang, words: Words) -> &'static str {
    use Words::*;
    match (lang, words) {
        (Lang::En, Faults) => "Faults",
        (Lang::Zh, Faults) => "故障",
        (Lang::En, FaultsHelp) => "A NIC, a GPU's NVLinks or a whole GPU at part of its rate slows every ring through it; a leaf up-link or a spine can go down, and routing goes around it.",
        (Lang::Zh, FaultsHelp) => "网卡、GPU 的 NVLink 或整块 GPU 降速时，经过它的每个环都会变慢；叶交换机上行链路或脊交换机可以断开，路由会绕开它。",
        (Lang::En, AddFault) => "Add a fault",
        (Lang::Zh, AddFault) => "添加故障",
        (Lang::En, Remove) => "Remove",
        (Lang::Zh, Remove) => "移除",
        (Lang::En, Node) => "Node",
        (Lang::Zh, Node) => "节点",
        (Lang::En, Leaf) => "Leaf",
        (Lang::Zh, Leaf) => "叶交换机",
        (Lang::En, Which) => "Index",
        (Lang::Zh, Which) => "编号",
        (Lang::En, RateLeft) => "Rate left",
        (Lang::Zh, RateLeft) => "剩余速率",
        (Lang::En, Down) => "down",
        (Lang::Zh, Down) => "断开",
        (Lang::En, KindNic) => "NIC port",
        (Lang::Zh, KindNic) => "网卡端口",
        (Lang::En, KindNvlink) => "A GPU's NVLinks",
        (Lang::Zh, KindNvlink) => "GPU 的 NVLink",
        (Lang::En, KindGpu) => "Slow GPU (all its links)",
        (Lang::Zh, KindGpu) => "慢 GPU（其全部链路）",
        (Lang::En, KindLeafUplink) => "Leaf up-link",
        (Lang::Zh, KindLeafUplink) => "叶交换机上行链路",
        (Lang::En, KindSpine) => "Spine switch",
        (Lang::Zh, KindSpine) => "脊交换机",
        (Lang::En, YourCluster) => "Your cluster",
        (Lang::Zh, YourCluster) => "你的集群",
        (Lang::En, YourClusterHelp) => "Paste or open the output of nvidia-smi topo -m, or the XML NCCL writes with NCCL_TOPO_DUMP_FILE, to simulate your node; or an nccl-tests log to compare it with the model. The file is read here: nothing leaves the page.",
        (Lang::Zh, YourClusterHelp) => "粘贴或打开 nvidia-smi topo -m 的输出，或 NCCL 用 NCCL_TOPO_DUMP_FILE 导出的 XML，即可在你的节点上模拟；粘贴 nccl-tests 日志，即可与模型对比。文件只在本页读取，不会发出。",
        (Lang::En, Paste) => "nvidia-smi topo -m, NCCL topology XML or an nccl-tests log",
        (Lang::Zh, Paste) => "nvidia-smi topo -m、NCCL 拓扑 XML 或 nccl-tests 日志",
        (Lang::En, OpenFile) => "Open a file",
        (Lang::Zh, OpenFile) => "打开文件",
        (Lang::En, Read) => "Read",
        (Lang::Zh, Read) => "读取",
        (Lang::En, GpuModel) => "GPU model",
        (Lang::Zh, GpuModel) => "GPU 型号",
        (Lang::En, FromFile) => "as the file says",
        (Lang::Zh, FromFile) => "按文件",
        (Lang::En, NicGbit) => "NIC port (Gb/s)",
        (Lang::Zh, NicGbit) => "网卡端口 (Gb/s)",
        (Lang::En, Imported) => "Imported node",
        (Lang::Zh, Imported) => "导入的节点",
        (Lang::En, Notes) => "What the file did not say",
        (Lang::Zh, Notes) => "文件未写明的部分",
        (Lang::En, Size) => "Size",
        (Lang::Zh, Size) => "大小",
        (Lang::En, Measured) => "measured",
        (Lang::Zh, Measured) => "实测",
        (Lang::En, Model) => "model",
        (Lang::Zh, Model) => "模型",
        (Lang::En, Fitted) => "fitted",
        (Lang::Zh, Fitted) => "拟合后",
        (Lang::En, Ratio) => "measured / model",
        (Lang::Zh, Ratio) => "实测 / 模型",
        (Lang::En, BoundBy) => "bound by",
        (Lang::Zh, BoundBy) => "瓶颈",
        (Lang::En, Latency) => "latency",
        (Lang::Zh, Latency) => "时延",
        (Lang::En, Bandwidth) => "bandwidth",
        (Lang::Zh, Bandwidth) => "带宽",
        (Lang::En, OpenFitted) => "Simulate the fitted cluster",
        (Lang::Zh, OpenFitted) => "模拟拟合后的集群",
        (Lang::En, Stop) => "Stop",
        (Lang::Zh, Stop) => "停止",
        (Lang::En, NotAFile) => "Neither a topology nor an nccl-tests log with rows",
        (Lang::Zh, NotAFile) => "既不是拓扑文件，也不是含数据行的 nccl-tests 日志",
    }
}

/// "30 of 30 steps wait on it; step 1: rank 10 → 3 takes 349.5 µs, the step's other NIC
/// transfers 174.8 µs".
pub fn fault_wait(lang: Lang, wait: &FaultWait, steps: u32) -> String {
    let Some(worst) = &wait.worst else {
        return match lang {
            Lang::En => "no transfer crosses it".into(),
            Lang::Zh => "没有传输经过它".into(),
        };
    };
    let (slow, others) =
        (format_duration_ns(worst.slow_ns as f64), format_duration_ns(worst.others_ns as f64));
    match lang {
        Lang::En => format!(
            "{} of {steps} steps wait on it; step {}: rank {} → {} takes {slow} where the step's other transfers of that kind take {others}",
            wait.steps_waiting,
            worst.step + 1,
            worst.src,
            worst.dst
        ),
        Lang::Zh => format!(
            "{steps} 步中有 {} 步在等它；第 {} 步：rank {} → {} 用时 {slow}，而该步同类的其他传输只需 {others}",
            wait.steps_waiting,
            worst.step + 1,
            worst.src,
            worst.dst
        ),
    }
}

/// Where the gap between a measured run and the model is, and what the fit found.
pub fn comparison_summary(lang: Lang, c: &Comparison) -> String {
    let ratio = |r: Option<f64>| r.map_or("—".to_string(), |r| format!("{r:.2}"));
    let (eff, lat) = (&c.params[0], &c.params[1]);
    let share = 100.0 * eff.after / eff.before.max(f64::MIN_POSITIVE);
    match lang {
        Lang::En => format!(
            "Latency-bound sizes run at {} of the model, bandwidth-bound ones at {}. Fitted by least squares over {} sizes (rms of ln(model/measured) {:.3} → {:.3}): {} {:.3} → {:.3}, {} {:.0} → {:.0} ns. Your fabric delivers {share:.0}% of the bandwidth the model assumed for those links.",
            ratio(c.latency_ratio), ratio(c.bandwidth_ratio), c.rows.len(), c.rms_before, c.rms_after,
            eff.field, eff.before, eff.after, lat.field, lat.before, lat.after
        ),
        Lang::Zh => format!(
            "时延受限的大小跑出模型的 {}，带宽受限的跑出 {}。对 {} 个大小做最小二乘拟合（ln(模型/实测) 的均方根 {:.3} → {:.3}）：{} {:.3} → {:.3}，{} {:.0} → {:.0} ns。你的网络达到了模型为这些链路假设带宽的 {share:.0}%。",
            ratio(c.latency_ratio), ratio(c.bandwidth_ratio), c.rows.len(), c.rms_before, c.rms_after,
            eff.field, eff.before, eff.after, lat.field, lat.before, lat.after
        ),
    }
}
