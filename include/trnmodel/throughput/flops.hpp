#pragma once
// FLOPs and memory of a transformer training step (docs/throughput.md).
//
// FLOPs per token (Chowdhery et al., PaLM, appendix B): a forward pass costs 2N for the
// weight matmuls plus 4·L·H·Q·T for attention (QKᵀ and AV, T the sequence length); the
// backward pass costs twice the forward. Hence
//   full training:  6N + 12·L·H·Q·T
//   LoRA:          ~4N + 12·L·H·Q·T   (no weight gradients for the frozen weights; the
//                  adapter's own FLOPs, 6·N_lora, are added)
//   recomputation:  full adds one forward pass (2N + 4LHQT); selective (Korthikanti et al.
//                  2022, "Reducing activation recomputation") adds the attention core's
//                  forward only (4LHQT).
// "Model FLOPs" exclude recomputation (what MFU counts); "hardware FLOPs" include it (what
// the chips execute).
//
// Memory per device (Rajbhandari et al. 2020, ZeRO; Korthikanti et al. 2022): weights,
// gradients and Adam state (fp32 master, m, v: 12 bytes/parameter) of the device's share of
// the model, divided by dp where the ZeRO stage shards them; activations per layer per
// micro-batch s·b·h·(10 + 24/t + 5·a·s/(h·t)) bytes without recomputation, s·b·h·34/t with
// selective recomputation, 2·s·b·h with full recomputation, times the layers of a stage and
// the micro-batches a 1F1B pipeline keeps in flight on its first stage (p).
#include <cmath>
#include <string>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"

namespace trnmodel {

// Activation recomputation (job.recompute, recompute_kind in choices.hpp): none, selective (the
// attention core's forward, Korthikanti et al. 2022) or full (one more forward pass per step).

/// A decoder-only transformer's shape (parameters, layers, hidden size, heads, ...). A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct transformer_shape {
  double parameters;  ///< N (all parameters)
  double layers;  ///< L
  double hidden_size;  ///< h = H·Q
  double heads;  ///< a
  double sequence_length;  ///< T
  double ffn_size = 0;  ///< MLP inner size; 0: 4h (GPT)
  double kv_heads = 0;  ///< key/value heads (grouped-query attention); 0: as many as heads
  /// The MLP inner size: ffn_size, or 4h when it is 0.
  double ffn() const { return ffn_size > 0 ? ffn_size : 4 * hidden_size; }
  /// The width of the keys (and of the values): h · kv_heads / heads; h when either is 0.
  double kv_size() const { return kv_heads > 0 && heads > 0 ? hidden_size * kv_heads / heads : hidden_size; }
};

/// Full training or LoRA (with its rank), and activation recomputation. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct training_kind {
  bool lora = false;  ///< true: LoRA (frozen weights, a trainable adapter); false: full training
  double lora_rank = 0;  ///< adapter rank r (LoRA on the attention and MLP projections)
  recompute_kind recompute = recompute_kind::none;  ///< activation recomputation of the backward pass
};

/// Trainable adapter parameters of LoRA with rank r on the four attention projections (h×h)
/// and three MLP projections (h×ffn, gated MLP) of every layer: r·(in + out) each.
inline double lora_parameters(const transformer_shape& m, double rank) {
  const double h = m.hidden_size;
  return m.layers * rank * (4 * (h + h) + 3 * (h + m.ffn()));
}

/// Attention-score FLOPs per token (12·L·h·T for a forward and backward pass).
inline double attention_flops_per_token(const transformer_shape& m) {
  return 4 * m.layers * m.hidden_size * m.sequence_length;  // forward QKᵀ and AV
}

/// Model FLOPs per token of one training step (what MFU counts).
inline double model_flops_per_token(const transformer_shape& m, const training_kind& k) {
  const double attention_forward = attention_flops_per_token(m);
  if (!k.lora) return 6 * m.parameters + 3 * attention_forward;
  return 4 * m.parameters + 3 * attention_forward + 6 * lora_parameters(m, k.lora_rank);
}

/// Hardware FLOPs per token: model FLOPs plus recomputation.
inline double hardware_flops_per_token(const transformer_shape& m, const training_kind& k) {
  const double attention_forward = attention_flops_per_token(m);
  switch (k.recompute) {
    case recompute_kind::full: return model_flops_per_token(m, k) + 2 * m.parameters + attention_forward;
    case recompute_kind::selective: return model_flops_per_token(m, k) + attention_forward;
    default: return model_flops_per_token(m, k);
  }
}

/// tp, pp, dp, cp, micro-batch and global batch of a job. A plain value: copyable, owns its
/// members; concurrent reads are safe.
struct parallel_layout {
  /// \var tp
  /// Tensor-parallel degree (ranks that split each layer's matmuls).
  /// \var pp
  /// Pipeline-parallel degree (stages, each holding layers / pp layers).
  /// \var dp
  /// Data-parallel degree (model replicas).
  double tp = 1, pp = 1, dp = 1;
  /// \var micro_batch
  /// Sequences per micro-batch.
  /// \var global_batch
  /// Sequences per optimizer step (over every replica): global_batch / (dp x micro_batch)
  /// micro-batches per replica and step.
  double micro_batch = 1, global_batch = 1;
  double virtual_stages = 1;  ///< interleaved schedule: model chunks per pipeline rank
  int zero_stage = 0;  ///< 0: none; 1: optimizer state; 2: + gradients; 3: + weights (FSDP)
  double cp = 1;  ///< context parallelism: each sequence split across cp chips
};

/// Per-device memory of a layout, by part (weights, gradients, optimizer, activations), in bytes.
/// A plain value: copyable, owns its members; concurrent reads are safe.
struct device_memory {
  /// \var weights_bytes
  /// bf16 weights of the device's share (divided by dp at ZeRO stage 3), plus a LoRA adapter's.
  /// \var gradients_bytes
  /// bf16 gradients of the trainable parameters (divided by dp from ZeRO stage 2).
  /// \var optimizer_bytes
  /// Adam state, 12 bytes per trainable parameter (fp32 master, m, v; divided by dp from ZeRO stage 1).
  /// \var activations_bytes
  /// Activations kept for the backward pass: per layer x layers of a stage x micro-batches in flight / cp.
  double weights_bytes, gradients_bytes, optimizer_bytes, activations_bytes;
  /// The sum of the four parts, bytes.
  double total() const { return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes; }
};

/// Bytes of activations per layer and micro-batch on one tensor-parallel rank, kept for the
/// backward pass without recomputation (Korthikanti et al. 2022, eq. 2 divided by t):
/// s·b·h·(10 + 24/t + 5·a·s/(h·t)). The step-time model also takes it as the bytes that
/// memory-bound elementwise work moves through HBM in one pass.
inline double activation_bytes_per_layer(const transformer_shape& m, const parallel_layout& p) {
  const double s = m.sequence_length, b = p.micro_batch, h = m.hidden_size, a = m.heads, t = p.tp;
  return s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
}

/// Bytes per device for a bf16 model trained with Adam in mixed precision.
inline device_memory memory_per_device(const transformer_shape& m, const training_kind& k, const parallel_layout& p) {
  const double share = m.parameters / (p.tp * p.pp);  // parameters held by one model-parallel rank
  const double trainable = k.lora ? lora_parameters(m, k.lora_rank) / (p.tp * p.pp) : share;
  device_memory mem{};
  mem.weights_bytes = 2 * share / (p.zero_stage >= 3 ? p.dp : 1) + (k.lora ? 2 * trainable : 0);
  mem.gradients_bytes = 2 * trainable / (p.zero_stage >= 2 ? p.dp : 1);
  mem.optimizer_bytes = 12 * trainable / (p.zero_stage >= 1 ? p.dp : 1);
  const double s = m.sequence_length, b = p.micro_batch, h = m.hidden_size, t = p.tp;
  double per_layer = 0;
  switch (k.recompute) {
    case recompute_kind::none: per_layer = activation_bytes_per_layer(m, p); break;
    case recompute_kind::selective: per_layer = s * b * h * 34 / t; break;
    case recompute_kind::full: per_layer = 2 * s * b * h; break;
  }
  const double layers_per_stage = m.layers / p.pp;
  const double in_flight = std::min(p.pp, p.global_batch / (p.dp * p.micro_batch));
  // Context parallelism splits every activation along the sequence.
  mem.activations_bytes = per_layer * layers_per_stage * in_flight / p.cp;
  return mem;
}

}  // namespace trnmodel
