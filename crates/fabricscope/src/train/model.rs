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
    }
}

/// The model presets.
pub const MODEL_PRESETS: &[ModelPreset] = &[
    ModelPreset { id: "gpt3-175b", name: "GPT-3 175B", shape: gpt3_175b, source: "Brown et al. 2020, Table 2.1 (96 layers, d_model 12288, 96 heads, context 2048)" },
    ModelPreset { id: "llama2-7b", name: "Llama-2 7B", shape: llama2_7b, source: "Touvron et al. 2023; Hugging Face config.json (32 layers, 4096, FFN 11008, 4k context)" },
    ModelPreset { id: "llama2-70b", name: "Llama-2 70B", shape: llama2_70b, source: "Touvron et al. 2023; config.json (80 layers, 8192, 8 KV heads, FFN 28672)" },
    ModelPreset { id: "llama3-405b", name: "Llama-3 405B", shape: llama3_405b, source: "Llama Team 2024, Table 3 (126 layers, 16384, 128 heads, 8 KV heads, FFN 53248, 8k pre-training context)" },
    ModelPreset { id: "gpt2-small", name: "GPT-2 small (124M)", shape: gpt2_small, source: "Radford et al. 2019 (12 layers, 768, 12 heads, context 1024)" },
];

impl ModelPreset {
    pub fn by_id(id: &str) -> Option<&'static ModelPreset> {
        MODEL_PRESETS.iter().find(|preset| preset.id == id)
    }
}

impl ModelShape {
    /// Width of the key and value projections.
    pub fn kv_dim(&self) -> u64 {
        self.hidden as u64 * self.kv_heads as u64 / self.heads as u64
    }

    /// Parameters of one transformer layer.
    pub fn layer_params(&self) -> u64 {
        let h = self.hidden as u64;
        let attention = h * (h + 2 * self.kv_dim()) + h * h;
        let mlp = if self.gated_mlp { 3 } else { 2 } * h * self.ffn as u64;
        attention + mlp + 2 * h
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
        self.layers as u64 * self.layer_params() + self.embedding_params() + self.hidden as u64
    }

    /// Forward FLOPs of one layer over `tokens` tokens.
    pub fn layer_forward_flops(&self, tokens: f64) -> f64 {
        2.0 * tokens * self.layer_params() as f64 + 4.0 * tokens * self.seq_len as f64 * self.hidden as f64
    }

    /// Forward FLOPs of the attention scores and weighted sum alone (what selective
    /// recomputation recomputes).
    pub fn attention_core_flops(&self, tokens: f64) -> f64 {
        4.0 * tokens * self.seq_len as f64 * self.hidden as f64
    }

    /// Forward FLOPs of the logits.
    pub fn logits_forward_flops(&self, tokens: f64) -> f64 {
        2.0 * tokens * self.hidden as f64 * self.vocab as f64
    }

    /// FLOPs of a training pass (forward and backward, no recomputation) over `tokens` tokens:
    /// what model FLOPs utilisation (MFU) counts.
    pub fn model_flops(&self, tokens: f64) -> f64 {
        3.0 * (self.layers as f64 * self.layer_forward_flops(tokens) + self.logits_forward_flops(tokens))
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
    fn model_flops_are_about_six_per_parameter_per_token() {
        // 6·N·T plus attention: for GPT-3 at 2048 context the attention adds s/(6h) ≈ 2.8%.
        let shape = gpt3_175b();
        let ratio = shape.model_flops(1.0) / (6.0 * shape.params() as f64);
        assert!(ratio > 1.02 && ratio < 1.06, "{ratio}");
    }
}
