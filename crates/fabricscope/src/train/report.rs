//! What a simulated step reports (`TrainReport`): its breakdown, its collectives, memory, cost
//! and storage, and what each stage does at any time of the step (for the Gantt and the
//! animation).

use super::*;

/// What a step's time is spent on [ns]; the parts add up to the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    pub compute_ns: f64,
    /// Tensor-parallel collectives (not overlapped).
    pub tp_ns: f64,
    /// Expert-parallel AllToAlls (dispatch and combine; not overlapped).
    pub ep_ns: f64,
    /// Context parallelism's key/value passing left exposed by the attention it overlaps.
    pub cp_ns: f64,
    /// Pipeline sends on the critical path.
    pub pp_ns: f64,
    /// Data-parallel (and ZeRO) communication left exposed after overlap.
    pub dp_ns: f64,
    /// Pipeline fill and drain.
    pub bubble_ns: f64,
    pub optimizer_ns: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpKind {
    Tp,
    /// Expert parallelism's AllToAlls.
    Ep,
    /// Context parallelism's ring attention.
    Cp,
    Pp,
    Dp,
}

/// Which collective of the step an `Op` is: a closed set, so a page or a CLI names each in its
/// own words without matching English text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOp {
    /// Sequence parallelism's AllGather before a TP block.
    SequenceAllGather,
    /// Sequence parallelism's ReduceScatter after a TP block.
    SequenceReduceScatter,
    /// A TP block's AllReduce (no sequence parallelism).
    TpAllReduce,
    /// Activations forward and their gradients back between pipeline stages.
    PipelineSendRecv,
    /// ZeRO-3's gather of each layer's parameters before its forward and its backward.
    LayerParamGather,
    /// DP's gradient AllReduce after the last backward.
    GradAllReduce,
    /// ZeRO 1-2's gradient ReduceScatter.
    GradReduceScatter,
    /// ZeRO 1-2's gather of the updated parameters after the optimizer.
    UpdatedParamGather,
    /// A MoE layer's AllToAll sending each token to its experts' ranks.
    ExpertDispatch,
    /// A MoE layer's AllToAll bringing the experts' outputs back.
    ExpertCombine,
    /// The routed experts' gradient AllReduce over their DP / EP replicas.
    ExpertGradAllReduce,
    /// ZeRO 1-2: the experts' gradient ReduceScatter over their replicas.
    ExpertGradReduceScatter,
    /// ZeRO 1-2: the experts' updated parameters gathered over their replicas.
    ExpertParamGather,
    /// Ring attention: a CP rank's keys and values to the next, each step of each layer.
    ContextKvPass,
    /// Ring attention's backward: keys, values and their gradients to the next.
    ContextKvGradPass,
}

impl StepOp {
    /// Every one, in the order they are declared.
    pub const ALL: [StepOp; 15] = [
        StepOp::SequenceAllGather,
        StepOp::SequenceReduceScatter,
        StepOp::TpAllReduce,
        StepOp::PipelineSendRecv,
        StepOp::LayerParamGather,
        StepOp::GradAllReduce,
        StepOp::GradReduceScatter,
        StepOp::UpdatedParamGather,
        StepOp::ExpertDispatch,
        StepOp::ExpertCombine,
        StepOp::ExpertGradAllReduce,
        StepOp::ExpertGradReduceScatter,
        StepOp::ExpertParamGather,
        StepOp::ContextKvPass,
        StepOp::ContextKvGradPass,
    ];

    /// Its name in English (the CLI's, and the JSON's `name`).
    pub fn name(self) -> &'static str {
        match self {
            StepOp::SequenceAllGather => "AllGather (sequence parallel)",
            StepOp::SequenceReduceScatter => "ReduceScatter (sequence parallel)",
            StepOp::TpAllReduce => "AllReduce",
            StepOp::PipelineSendRecv => "Send/Recv activations and their gradients",
            StepOp::LayerParamGather => "AllGather layer parameters (ZeRO-3)",
            StepOp::GradAllReduce => "AllReduce gradients",
            StepOp::GradReduceScatter => "ReduceScatter gradients (ZeRO)",
            StepOp::UpdatedParamGather => "AllGather updated parameters (ZeRO)",
            StepOp::ExpertDispatch => "AllToAll dispatch tokens to experts",
            StepOp::ExpertCombine => "AllToAll combine experts' outputs",
            StepOp::ExpertGradAllReduce => "AllReduce expert gradients",
            StepOp::ExpertGradReduceScatter => "ReduceScatter expert gradients (ZeRO)",
            StepOp::ExpertParamGather => "AllGather updated expert parameters (ZeRO)",
            StepOp::ContextKvPass => "Send/Recv keys and values around the CP ring",
            StepOp::ContextKvGradPass => "Send/Recv keys, values and their gradients (CP)",
        }
    }
}

/// Serialised as its English name, as reports always were.
impl Serialize for StepOp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// Read from its English name (a worker's report, back on the page).
impl<'de> Deserialize<'de> for StepOp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<StepOp, D::Error> {
        let name = String::deserialize(deserializer)?;
        StepOp::ALL
            .into_iter()
            .find(|op| op.name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("no step op is named {name:?}")))
    }
}

/// One kind of collective in the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Op {
    pub kind: OpKind,
    /// Which one (serialised as `name`, its English name).
    #[serde(rename = "name")]
    pub op: StepOp,
    /// Groups doing it at once, and ranks in each (2 for a send).
    pub groups: usize,
    pub group_size: u32,
    /// Bytes per call, nccl-tests' convention.
    pub bytes: u64,
    /// Calls per step (per GPU).
    pub calls: f64,
    /// One call, every group at once, through the engine [ns].
    pub time_ns: u64,
    /// The whole operation's transfers, every group's.
    pub transfers: u64,
    pub crosses_nodes: bool,
    /// How `time_ns` was obtained: every transfer, or a ring's prefix extrapolated.
    pub method: comm::OpMethod,
}

impl Op {
    pub(super) fn new(
        kind: OpKind,
        op: StepOp,
        groups: usize,
        group_size: u32,
        bytes: u64,
        calls: f64,
        timing: &comm::OpTiming,
    ) -> Op {
        Op {
            kind,
            op,
            groups,
            group_size,
            bytes,
            calls,
            time_ns: timing.time_ns,
            transfers: timing.transfers,
            crosses_nodes: timing.crosses_nodes,
            method: timing.method,
        }
    }
}

/// Memory per GPU on the most loaded stage [B].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub weights: f64,
    pub grads: f64,
    pub optimizer: f64,
    pub activations: f64,
    pub total: f64,
    /// The GPU's HBM.
    pub capacity: f64,
    pub fits: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub gpu_hour_usd: f64,
    pub discount: f64,
    pub tokens: f64,
    pub days: f64,
    pub gpu_hours: f64,
    pub usd: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Storage {
    pub checkpoint_bytes: f64,
    pub write_s: f64,
    pub interval_min: f64,
    /// Fraction of training time spent writing checkpoints.
    pub overhead: f64,
}

/// One micro-batch on the slowest stage, by part [ns]: a forward is `compute_f + tp_f + ep_f +
/// zero_f + v·p2p` (v model chunks each receive their input), a backward the same with `_b`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MicroBatch {
    pub compute_f: f64,
    pub compute_b: f64,
    pub tp_f: f64,
    pub tp_b: f64,
    /// Expert AllToAlls (dispatch and combine) of the stage's MoE layers.
    pub ep_f: f64,
    pub ep_b: f64,
    /// Ring attention's key/value passing the attention did not hide.
    pub cp_f: f64,
    pub cp_b: f64,
    pub p2p: f64,
    pub zero_f: f64,
    pub zero_b: f64,
}

/// One training step, simulated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    pub micro: MicroBatch,
    /// The same for every stage (stages differ in layers, logits and embeddings).
    pub stages: Vec<MicroBatch>,
    /// The stage `micro` describes (the slowest), and model chunks per stage.
    pub slowest_stage: u32,
    pub virtual_stages: u32,
    /// Layers of each stage (as even as they go; the first `L mod PP` take one more).
    pub stage_layers: Vec<u32>,
    /// The 1F1B schedule: every forward and backward of every stage (and model chunk).
    pub blocks: Vec<pipeline::Block>,
    /// The pipeline's makespan; DP exposed and the optimizer follow it.
    pub pipeline_ns: f64,
    pub dp_exposed_ns: f64,
    pub model_name: String,
    pub params: u64,
    /// Parameters each token runs through (all of them in a dense model).
    pub active_params: u64,
    pub gpus: u32,
    pub micro_batches: u64,
    pub step_ns: f64,
    pub breakdown: Breakdown,
    /// Exposed communication over the step.
    pub comm_exposed_share: f64,
    /// All communication, overlapped or not [ns].
    pub comm_total_ns: f64,
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation of the whole step.
    pub mfu: f64,
    pub memory: Memory,
    pub ops: Vec<Op>,
    /// Where kinds of traffic share links and how much it slows each (`contention`): empty
    /// without expert parallelism.
    pub contention: Vec<Contention>,
    pub cost: Cost,
    pub storage: Storage,
}

/// What a stage is doing at one time of the step (for the animation and the Gantt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activity {
    /// Waiting: the pipeline bubble, or done before the others.
    Idle,
    Compute(pipeline::Phase),
    /// A tensor-parallel collective inside the TP group.
    Tp,
    /// An expert-parallel AllToAll (a MoE layer's dispatch or combine).
    Expert,
    /// Ring attention's key/value passing between CP ranks, where the attention does not hide it.
    Context,
    /// Receiving or sending activations (or their gradients) to a neighbouring stage.
    PipelineSend,
    /// ZeRO-3 parameter gathers and the gradient reduction after the pipeline.
    DataParallel,
    Optimizer,
}

impl TrainReport {
    pub fn step_ns(&self) -> f64 {
        self.step_ns
    }

    /// A block's parts in the order they run, each with its length [ns]: the input arriving
    /// (half the send), the ZeRO-3 gathers, the compute, the TP collectives, the experts'
    /// AllToAlls, the output leaving (the other half). `activity` interleaves the middle four
    /// layer by layer; a chart too coarse to show a layer draws them summed, like this.
    pub fn block_parts(&self, block: &pipeline::Block) -> [(Activity, f64); 7] {
        let (zero, cp, compute, tp, ep, p2p) = self.parts_of(block);
        [
            (Activity::PipelineSend, p2p / 2.0),
            (Activity::DataParallel, zero),
            (Activity::Context, cp),
            (Activity::Compute(block.phase), compute),
            (Activity::Tp, tp),
            (Activity::Expert, ep),
            (Activity::PipelineSend, p2p / 2.0),
        ]
    }

    /// A block's ZeRO-3, CP, compute, TP, EP and send times [ns], from its stage's parts.
    fn parts_of(&self, block: &pipeline::Block) -> (f64, f64, f64, f64, f64, f64) {
        let m = self.stages.get(block.stage as usize).unwrap_or(&self.micro);
        let v = self.virtual_stages.max(1) as f64;
        let forward = block.phase == pipeline::Phase::Forward;
        let (zero, cp, tp, ep) =
            if forward { (m.zero_f, m.cp_f, m.tp_f, m.ep_f) } else { (m.zero_b, m.cp_b, m.tp_b, m.ep_b) };
        let (zero, cp, tp, ep) = (zero / v, cp / v, tp / v, ep / v);
        let compute = (block.end_ns - block.start_ns - zero - cp - tp - ep - m.p2p).max(0.0);
        (zero, cp, compute, tp, ep, m.p2p)
    }

    /// What stage `stage` does at `t` [ns from the step's start]. Inside a block (one model
    /// chunk's forward or backward) the parts run in their order: the activations arrive (half
    /// the send time), then layer by layer the ZeRO-3 gather, the compute, the TP collectives
    /// and the experts' AllToAlls, then the send onwards.
    pub fn activity(&self, stage: u32, t: f64) -> Activity {
        if t >= self.pipeline_ns {
            return if t < self.pipeline_ns + self.dp_exposed_ns {
                Activity::DataParallel
            } else if t < self.step_ns {
                Activity::Optimizer
            } else {
                Activity::Idle
            };
        }
        let from = self.blocks.partition_point(|b| (b.stage, b.end_ns) <= (stage, t));
        let Some(block) = self.blocks.get(from).filter(|b| b.stage == stage && b.start_ns <= t) else {
            return Activity::Idle;
        };
        let v = self.virtual_stages.max(1) as f64;
        // This stage's compute (the last stage's includes the logits): the rest of the block.
        let (zero, cp, compute, tp, ep, p2p) = self.parts_of(block);
        let mut x = t - block.start_ns;
        if x < p2p / 2.0 {
            return Activity::PipelineSend;
        }
        x -= p2p / 2.0;
        let layers = (self.stage_layers.get(stage as usize).copied().unwrap_or(1) as f64 / v).max(1.0);
        let per_layer = (zero + cp + compute + tp + ep) / layers;
        if x < per_layer * layers && per_layer > 0.0 {
            let y = x % per_layer;
            return if y < zero / layers {
                Activity::DataParallel
            } else if y < (zero + cp) / layers {
                Activity::Context
            } else if y < (zero + cp + compute) / layers {
                Activity::Compute(block.phase)
            } else if y < (zero + cp + compute + tp) / layers {
                Activity::Tp
            } else {
                Activity::Expert
            };
        }
        Activity::PipelineSend
    }
}
