//! Transformer models: their shapes, and the parameters and FLOPs that follow from them.
//!
//! Parameters are computed from the shape, never typed in (so a custom model is as exact as a
//! preset). Per layer:
//!
//! ```text
//!   attention  h·(h + 2·kv) + h·h          Q, K, V (kv = h · kv_heads / heads: grouped-query) and output
//!   MLP        2·h·f  (GELU)  or 3·h·f (SwiGLU: gate, up, down)
//!   norms      2·h (weights only; biases are left out, as in Llama)
//! ```
//!
//! plus the embedding `V·h` and, when not tied to it, the output head `V·h`. GPT-3 175B
//! (Brown et al. 2020, Table 2.1) comes to 174.6 B, Llama-2 7B (Touvron et al. 2023) to 6.74 B.
//!
//! Heads may be narrower or wider than `h / heads` (`head_dim`: Qwen3's 64 heads of 128 on a
//! hidden size of 4096), and attention may be multi-head latent attention (`Mla`, DeepSeek-V2
//! and V3: queries and keys/values pass through low-rank latents, keys carry a shared RoPE part):
//!
//! ```text
//!   MLA  h·q_lora + q_lora·heads·(nope + rope)        queries (h·heads·(nope + rope) without a latent)
//!        h·(kv_lora + rope) + kv_lora·heads·(nope + v) keys and values
//!        heads·v·h                                     output        (+ the latents' norms)
//! ```
//!
//! A mixture-of-experts layer (`Moe`) replaces the MLP with `experts` routed experts and
//! `shared` always-on ones, each a (gated) MLP of inner size `expert_ffn`, plus the router's
//! `experts × h`; each token runs its `top_k` routed experts and the shared ones. The first
//! `dense_layers` layers keep a dense MLP. Parameters count every expert; FLOPs count the
//! experts a token runs (its *active* parameters). Mixtral 8×7B comes to 46.7 B (12.9 B active),
//! DeepSeek-V3 to 671 B (37.5 B active; its multi-token-prediction module, 14 B more on the
//! published checkpoint, is not trained here), Qwen3-235B-A22B to 235.1 B (22.2 B active).
//!
//! FLOPs of one forward pass over `tokens` tokens of sequence length `s` (Narayanan et al. 2021,
//! "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", §5.1:
//! 2 FLOPs per multiply-add): `2 · tokens · (layer params)` for every matrix multiply, plus
//! `4 · tokens · s · h` per layer for attention scores and their weighted sum, plus
//! `2 · tokens · h · V` for the logits. A backward pass costs twice the forward.

use serde::{Deserialize, Serialize};

/// A decoder-only transformer's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelShape {
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    /// Key/value heads (grouped-query attention); equal to `heads` for multi-head attention.
    pub kv_heads: u32,
    /// MLP inner size.
    pub ffn: u32,
    /// Gated MLP (SwiGLU: three matrices) rather than two.
    pub gated_mlp: bool,
    pub seq_len: u32,
    pub vocab: u32,
    /// Output head shares the embedding's weights.
    pub tied_embeddings: bool,
    /// Width of each attention head; absent: `hidden / heads`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_dim: Option<u32>,
    /// Multi-head latent attention in place of the Q, K and V projections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<Mla>,
    /// Mixture-of-experts MLPs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe: Option<Moe>,
}

/// Multi-head latent attention (DeepSeek-AI 2024, "DeepSeek-V2", §2.1): the latent ranks and
/// each head's widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mla {
    /// Query latent rank (0: queries projected directly).
    pub q_lora_rank: u32,
    /// Key/value latent rank.
    pub kv_lora_rank: u32,
    /// Per head: the key and query width without and with rotary embedding, and the value width.
    pub qk_nope_head_dim: u32,
    pub qk_rope_head_dim: u32,
    pub v_head_dim: u32,
}

/// Mixture-of-experts MLPs (Shazeer et al. 2017; Fedus et al. 2021, "Switch Transformers").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moe {
    /// Routed experts per layer.
    pub experts: u32,
    /// Experts every token runs besides its routed ones.
    #[serde(default)]
    pub shared_experts: u32,
    /// Routed experts each token runs.
    pub top_k: u32,
    /// Inner size of one expert's MLP.
    pub expert_ffn: u32,
    /// Leading layers that keep a dense MLP (of inner size `ffn`).
    #[serde(default)]
    pub dense_layers: u32,
    /// Slots per expert over its even share of tokens (Switch Transformers' capacity factor):
    /// tokens are dispatched and computed padded to it. 1: no padding.
    #[serde(default = "one")]
    pub capacity_factor: f64,
    /// Node-limited routing (DeepSeek-V3's M): each token goes to at most this many nodes,
    /// crossing the network once per node and fanning out over NVLink there
    /// (`comm::node_limited_traffic`). None: a plain AllToAll, one copy per expert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_limit: Option<u32>,
}

fn one() -> f64 {
    1.0
}

/// A named model.
#[derive(Clone, Copy, Debug)]
pub struct ModelPreset {
    pub id: &'static str,
    pub name: &'static str,
    pub shape: fn() -> ModelShape,
    pub source: &'static str,
}

fn gpt3_175b() -> ModelShape {
    ModelShape {
        layers: 96,
        hidden: 12288,
        heads: 96,
        kv_heads: 96,
        ffn: 4 * 12288,
        gated_mlp: false,
        seq_len: 2048,
        vocab: 50257,
        tied_embeddings: true,
        ..dense()
    }
}

/// The optional parts of a shape, all absent: a dense model with `hidden / heads` wide heads.
fn dense() -> ModelShape {
    ModelShape {
        layers: 1,
        hidden: 8,
        heads: 1,
        kv_heads: 1,
        ffn: 8,
        gated_mlp: false,
        seq_len: 1,
        vocab: 1,
        tied_embeddings: false,
        head_dim: None,
        mla: None,
        moe: None,
    }
}

fn llama2_7b() -> ModelShape {
    ModelShape {
        layers: 32,
        hidden: 4096,
        heads: 32,
        kv_heads: 32,
        ffn: 11008,
        gated_mlp: true,
        seq_len: 4096,
        vocab: 32000,
        tied_embeddings: false,
        ..dense()
    }
}

fn llama2_70b() -> ModelShape {
    ModelShape {
        layers: 80,
        hidden: 8192,
        heads: 64,
        kv_heads: 8,
        ffn: 28672,
        gated_mlp: true,
        seq_len: 4096,
        vocab: 32000,
        tied_embeddings: false,
        ..dense()
    }
}

fn llama3_405b() -> ModelShape {
    ModelShape {
        layers: 126,
        hidden: 16384,
        heads: 128,
        kv_heads: 8,
        ffn: 53248,
        gated_mlp: true,
        seq_len: 8192,
        vocab: 128256,
        tied_embeddings: false,
        ..dense()
    }
}

fn gpt2_small() -> ModelShape {
    ModelShape {
        layers: 12,
        hidden: 768,
        heads: 12,
        kv_heads: 12,
        ffn: 3072,
        gated_mlp: false,
        seq_len: 1024,
        vocab: 50257,
        tied_embeddings: true,
        ..dense()
    }
}

fn mixtral_8x7b() -> ModelShape {
    ModelShape {
        layers: 32,
        hidden: 4096,
        heads: 32,
        kv_heads: 8,
        ffn: 14336,
        gated_mlp: true,
        seq_len: 4096,
        vocab: 32000,
        tied_embeddings: false,
        moe: Some(Moe {
            experts: 8,
            shared_experts: 0,
            top_k: 2,
            expert_ffn: 14336,
            dense_layers: 0,
            capacity_factor: 1.0,
            node_limit: None,
        }),
        ..dense()
    }
}

fn deepseek_v3() -> ModelShape {
    ModelShape {
        layers: 61,
        hidden: 7168,
        heads: 128,
        kv_heads: 128,
        ffn: 18432,
        gated_mlp: true,
        seq_len: 4096,
        vocab: 129280,
        tied_embeddings: false,
        head_dim: None,
        mla: Some(Mla {
            q_lora_rank: 1536,
            kv_lora_rank: 512,
            qk_nope_head_dim: 128,
            qk_rope_head_dim: 64,
            v_head_dim: 128,
        }),
        moe: Some(Moe {
            experts: 256,
            shared_experts: 1,
            top_k: 8,
            expert_ffn: 2048,
            dense_layers: 3,
            capacity_factor: 1.0,
            node_limit: Some(4),
        }),
    }
}

fn qwen3_235b_a22b() -> ModelShape {
    ModelShape {
        layers: 94,
        hidden: 4096,
        heads: 64,
        kv_heads: 4,
        ffn: 12288,
        gated_mlp: true,
        seq_len: 4096,
        vocab: 151936,
        tied_embeddings: false,
        head_dim: Some(128),
        mla: None,
        moe: Some(Moe {
            experts: 128,
            shared_experts: 0,
            top_k: 8,
            expert_ffn: 1536,
            dense_layers: 0,
            capacity_factor: 1.0,
            node_limit: None,
        }),
    }
}

/// The model presets.
pub const MODEL_PRESETS: &[ModelPreset] = &[
    ModelPreset { id: "gpt3-175b", name: "GPT-3 175B", shape: gpt3_175b, source: "Brown et al. 2020, Table 2.1 (96 layers, d_model 12288, 96 heads, context 2048)" },
    ModelPreset { id: "llama2-7b", name: "Llama-2 7B", shape: llama2_7b, source: "Touvron et al. 2023; Hugging Face config.json (32 layers, 4096, FFN 11008, 4k context)" },
    ModelPreset { id: "llama2-70b", name: "Llama-2 70B", shape: llama2_70b, source: "Touvron et al. 2023; config.json (80 layers, 8192, 8 KV heads, FFN 28672)" },
    ModelPreset { id: "llama3-405b", name: "Llama-3 405B", shape: llama3_405b, source: "Llama Team 2024, Table 3 (126 layers, 16384, 128 heads, 8 KV heads, FFN 53248, 8k pre-training context)" },
    ModelPreset { id: "gpt2-small", name: "GPT-2 small (124M)", shape: gpt2_small, source: "Radford et al. 2019 (12 layers, 768, 12 heads, context 1024)" },
    ModelPreset { id: "mixtral-8x7b", name: "Mixtral 8×7B", shape: mixtral_8x7b, source: "Jiang et al. 2024, \"Mixtral of Experts\" (32 layers, 4096, 8 KV heads, 8 experts of FFN 14336, top-2; 46.7 B total, 12.9 B active); config.json" },
    ModelPreset { id: "deepseek-v3", name: "DeepSeek-V3", shape: deepseek_v3, source: "DeepSeek-AI 2024, \"DeepSeek-V3 Technical Report\", §4.2 (61 layers, 7168, 128 heads of MLA with KV rank 512 and Q rank 1536, first 3 layers dense, 1 shared + 256 routed experts of 2048, top-8, node-limited routing to at most 4 nodes (§2.1.2, §3.2.2); 671 B total, 37 B active); config.json" },
    ModelPreset { id: "qwen3-235b-a22b", name: "Qwen3-235B-A22B", shape: qwen3_235b_a22b, source: "Qwen Team 2025, \"Qwen3 Technical Report\", Table 2 (94 layers, 64 Q and 4 KV heads of 128, 128 experts of 1536, top-8; 235 B total, 22 B active); config.json" },
];

impl ModelPreset {
    pub fn by_id(id: &str) -> Option<&'static ModelPreset> {
        MODEL_PRESETS.iter().find(|preset| preset.id == id)
    }
}

impl ModelShape {
    /// Width of one attention head.
    pub fn head_dim(&self) -> u64 {
        self.head_dim.map_or(self.hidden as u64 / self.heads.max(1) as u64, u64::from)
    }

    /// Width of the key and value projections.
    pub fn kv_dim(&self) -> u64 {
        self.kv_heads as u64 * self.head_dim()
    }

    /// Parameters of one layer's attention block.
    pub fn attention_params(&self) -> u64 {
        let (h, heads) = (self.hidden as u64, self.heads as u64);
        match self.mla {
            Some(m) => {
                let (q, kv) = (m.q_lora_rank as u64, m.kv_lora_rank as u64);
                let qk = (m.qk_nope_head_dim + m.qk_rope_head_dim) as u64;
                let queries = if q == 0 { h * heads * qk } else { h * q + q + q * heads * qk };
                let keys_values = h * (kv + m.qk_rope_head_dim as u64)
                    + kv
                    + kv * heads * (m.qk_nope_head_dim + m.v_head_dim) as u64;
                queries + keys_values + heads * m.v_head_dim as u64 * h
            }
            None => {
                let q = heads * self.head_dim();
                h * q + 2 * h * self.kv_dim() + q * h
            }
        }
    }

    /// Parameters of one MLP of inner size `inner`.
    fn mlp_params(&self, inner: u32) -> u64 {
        (if self.gated_mlp { 3 } else { 2 }) * self.hidden as u64 * inner as u64
    }

    /// Layers with a mixture of experts, and with a dense MLP.
    pub fn moe_layers(&self) -> u32 {
        self.moe.map_or(0, |m| self.layers.saturating_sub(m.dense_layers))
    }

    /// Parameters of one routed (or shared) expert.
    pub fn expert_params(&self) -> u64 {
        self.moe.map_or(0, |m| self.mlp_params(m.expert_ffn))
    }

    /// Parameters of a layer, dense (`moe` false) or with experts, counting `routed(moe)` of its
    /// routed experts, the shared ones and the router.
    fn layer_params_counting(&self, moe: bool, routed: fn(&Moe) -> u32) -> u64 {
        let h = self.hidden as u64;
        let mlp = match (moe, &self.moe) {
            (true, Some(m)) => {
                (routed(m) + m.shared_experts) as u64 * self.expert_params() + m.experts as u64 * h
            }
            _ => self.mlp_params(self.ffn),
        };
        self.attention_params() + mlp + 2 * h
    }

    /// Parameters of a layer: dense (`moe` false) or with experts, every expert counted.
    pub fn layer_params_of(&self, moe: bool) -> u64 {
        self.layer_params_counting(moe, |m| m.experts)
    }

    /// Parameters a token runs through in a layer: the attention, and the dense MLP or its
    /// `top_k` routed and the shared experts (and the router).
    pub fn layer_active_params(&self, moe: bool) -> u64 {
        self.layer_params_counting(moe, |m| m.top_k)
    }

    /// `per_layer` summed over the layers: the MoE layers' (`true`) and the dense ones'.
    fn over_layers(&self, per_layer: impl Fn(bool) -> u64) -> u64 {
        let moe = self.moe_layers() as u64;
        moe * per_layer(true) + (self.layers as u64 - moe) * per_layer(false)
    }

    /// Parameters of one transformer layer, averaged over the layers (all alike in a dense model).
    pub fn layer_params(&self) -> u64 {
        self.over_layers(|moe| self.layer_params_of(moe)) / self.layers.max(1) as u64
    }

    /// Parameters a token runs through, over the whole model (what "active" counts).
    pub fn active_params(&self) -> u64 {
        self.over_layers(|moe| self.layer_active_params(moe)) + self.embedding_params() + self.hidden as u64
    }

    /// Embedding (and output head, if untied) parameters.
    pub fn embedding_params(&self) -> u64 {
        let table = self.vocab as u64 * self.hidden as u64;
        if self.tied_embeddings {
            table
        } else {
            2 * table
        }
    }

    /// Every parameter.
    pub fn params(&self) -> u64 {
        self.over_layers(|moe| self.layer_params_of(moe)) + self.embedding_params() + self.hidden as u64
    }

    /// Forward FLOPs of one layer (dense, or with experts) over `tokens` tokens: its active
    /// parameters, the routed experts' at the capacity factor's padding.
    pub fn layer_forward_flops_of(&self, moe: bool, tokens: f64) -> f64 {
        let padding = match (moe, self.moe) {
            (true, Some(m)) => (m.capacity_factor - 1.0) * m.top_k as f64 * self.expert_params() as f64,
            _ => 0.0,
        };
        2.0 * tokens * (self.layer_active_params(moe) as f64 + padding) + self.attention_core_flops(tokens)
    }

    /// Forward FLOPs of one layer over `tokens` tokens, averaged over the layers.
    pub fn layer_forward_flops(&self, tokens: f64) -> f64 {
        let moe = self.moe_layers() as f64;
        let dense = self.layers as f64 - moe;
        (moe * self.layer_forward_flops_of(true, tokens) + dense * self.layer_forward_flops_of(false, tokens))
            / self.layers.max(1) as f64
    }

    /// Forward FLOPs of the attention scores and weighted sum alone (what selective
    /// recomputation recomputes): `2·s` per query and key width and per value width, per head.
    pub fn attention_core_flops(&self, tokens: f64) -> f64 {
        let heads = self.heads as f64;
        let (qk, v) = match self.mla {
            Some(m) => ((m.qk_nope_head_dim + m.qk_rope_head_dim) as f64, m.v_head_dim as f64),
            None => (self.head_dim() as f64, self.head_dim() as f64),
        };
        2.0 * tokens * self.seq_len as f64 * heads * (qk + v)
    }

    /// Forward FLOPs of the logits.
    pub fn logits_forward_flops(&self, tokens: f64) -> f64 {
        2.0 * tokens * self.hidden as f64 * self.vocab as f64
    }

    /// FLOPs of a training pass (forward and backward, no recomputation, no padding) over
    /// `tokens` tokens: what model FLOPs utilisation (MFU) counts.
    pub fn model_flops(&self, tokens: f64) -> f64 {
        let unpadded =
            ModelShape { moe: self.moe.map(|m| Moe { capacity_factor: 1.0, ..m }), ..self.clone() };
        3.0 * (self.layers as f64 * unpadded.layer_forward_flops(tokens) + self.logits_forward_flops(tokens))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_counts_match_the_papers() {
        let count = |id: &str| (ModelPreset::by_id(id).unwrap().shape)().params() as f64 / 1e9;
        // GPT-3 "175B": 174.6 B from the shape (Brown et al. round it).
        assert!((count("gpt3-175b") - 174.6).abs() < 0.2, "{}", count("gpt3-175b"));
        assert!((count("llama2-7b") - 6.74).abs() < 0.01, "{}", count("llama2-7b"));
        assert!((count("llama2-70b") - 68.98).abs() < 0.1, "{}", count("llama2-70b"));
        assert!((count("llama3-405b") - 405.8).abs() < 1.0, "{}", count("llama3-405b"));
        assert!((count("gpt2-small") - 0.124).abs() < 0.002, "{}", count("gpt2-small"));
    }

    #[test]
    fn mixture_of_experts_totals_and_active_parameters_match_the_published_ones() {
        // (id, published total, published active) [B]: within 1% of each.
        for (id, total, active) in
            [("mixtral-8x7b", 46.7, 12.9), ("deepseek-v3", 671.0, 37.0), ("qwen3-235b-a22b", 235.0, 22.0)]
        {
            let shape = (ModelPreset::by_id(id).unwrap().shape)();
            let (t, a) = (shape.params() as f64 / 1e9, shape.active_params() as f64 / 1e9);
            assert!((t / total - 1.0).abs() < 0.01, "{id}: {t:.2} B total, published {total}");
            // DeepSeek's 37 B is rounded down from 37.5 B (the shape's own count); 1.5% for it.
            let tolerance = if id == "deepseek-v3" { 0.015 } else { 0.01 };
            assert!((a / active - 1.0).abs() < tolerance, "{id}: {a:.2} B active, published {active}");
        }
    }

    #[test]
    fn a_dense_model_is_unchanged_by_the_optional_parts() {
        let shape = gpt3_175b();
        assert_eq!(shape.head_dim(), 128);
        assert_eq!(shape.active_params(), shape.params());
        assert_eq!(shape.layer_params_of(true), shape.layer_params());
        // 4·s·h per token for attention when heads are h/heads wide.
        let core = shape.attention_core_flops(1.0);
        assert_eq!(core, 4.0 * 2048.0 * 12288.0);
    }

    #[test]
    fn model_flops_are_about_six_per_parameter_per_token() {
        // 6·N·T plus attention: for GPT-3 at 2048 context the attention adds s/(6h) ≈ 2.8%.
        let shape = gpt3_175b();
        let ratio = shape.model_flops(1.0) / (6.0 * shape.params() as f64);
        assert!(ratio > 1.02 && ratio < 1.06, "{ratio}");
    }
}
