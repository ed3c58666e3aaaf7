#pragma once
// Step time from the platform (docs/throughput.md): FLOPs over achieved throughput ("flops" mode), or
// an analytic model of compute, tensor-parallel all-reduces, the pipeline bubble and its
// point-to-point transfers, and exposed data-parallel communication ("analytic" mode). A
// measured step time at a reference configuration is extrapolated by the ratio of modelled
// times ("extrapolated"), so measurement stays the anchor.
//
// Rank layout: tensor-parallel ranks are innermost (adjacent chips), then pipeline stages,
// then data-parallel replicas. A group whose span (stride × size) fits in one fast domain
// (a node, or an UltraServer) talks over the intra-node fabric, else over the network; the
// data-parallel all-reduce is hierarchical when several replicas share a domain.
#include <algorithm>
#include <cmath>
#include <string>

#include "trnmodel/throughput/collectives.hpp"
#include "trnmodel/throughput/flops.hpp"

namespace trnmodel {

/// One sample's platform figures in SI units. The links are checked when they are built
/// (collectives::check_link), so the model below does no checks of its own.
struct platform_numbers {
  double peak_flops_per_chip;  ///< FLOP/s of the chosen precision
  double hbm_bytes_per_s;  ///< HBM bandwidth per chip (memory-bound elementwise work)
  collectives::checked_link intra;  ///< within a node (or UltraServer domain)
  collectives::checked_link inter;  ///< between nodes
  double chips_per_domain;  ///< chips in one fast domain: a group whose span fits uses `intra`
};

/// A step's time by part: compute, tensor-, pipeline- and data-parallel communication. A plain
/// value: copyable, owns its members; concurrent reads are safe.
struct step_parts {
  double compute_s = 0;  ///< m micro-batches of compute on one stage
  double tp_s = 0;  ///< tensor-parallel all-reduces (not overlapped)
  double bubble_s = 0;  ///< pipeline fill and drain: (p - 1)/v micro-batch slots
  double pp_p2p_s = 0;  ///< activations and gradients between stages on the critical path
  double dp_s = 0;  ///< exposed data-parallel gradient communication
  double cp_s = 0;  ///< context parallelism: keys and values gathered across the sequence (not overlapped)
  /// Seconds per step: the sum of the parts.
  double total() const { return compute_s + tp_s + bubble_s + pp_p2p_s + dp_s + cp_s; }
};

/// Tokens in one optimizer step: global batch × sequence length.
inline double tokens_per_step(const transformer_shape& m, const parallel_layout& p) {
  return p.global_batch * m.sequence_length;
}

/// flops mode, from executed TFLOPS per chip (recomputation counted).
inline double step_time_from_achieved_s(const transformer_shape& m, const training_kind& k, const parallel_layout& p,
                                        double chips, double achieved_tflops_per_chip) {
  return tokens_per_step(m, p) * hardware_flops_per_token(m, k) / (chips * achieved_tflops_per_chip * 1e12);
}

/// flops mode, from model FLOPs utilization (recomputation not counted, as MFU defines it).
inline double step_time_from_mfu_s(const transformer_shape& m, const training_kind& k, const parallel_layout& p,
                                   double chips, double peak_flops_per_chip, double mfu) {
  return tokens_per_step(m, p) * model_flops_per_token(m, k) / (chips * peak_flops_per_chip * mfu);
}

namespace detail {
// A collective group of `size` ranks spaced `stride` apart: intra-domain when it fits.
inline bool fits_in_domain(double stride, double size, double chips_per_domain) {
  return stride * size <= chips_per_domain;
}
}  // namespace detail

/// Bytes of activations one rank moves through HBM per layer and micro-batch in one pass of
/// elementwise work (layer norms, activations, dropout, softmax): Korthikanti et al.'s
/// activation size, the one memory_per_device keeps without recomputation.
inline double elementwise_bytes_per_layer(const transformer_shape& m, const parallel_layout& p) {
  return activation_bytes_per_layer(m, p);
}

/// analytic mode (arguments validated when the scenario and its profile load, or by
/// check_step_time_arguments). `compute_efficiency` is achieved/peak FLOPS of the matmuls alone;
/// `dp_overlap` the fraction of data-parallel communication hidden behind the backward pass;
/// `elementwise_traffic` scales the memory-bound elementwise work (0: folded into the
/// compute efficiency, the default).
inline step_parts analytic_step_time(const transformer_shape& m, const training_kind& k, const parallel_layout& p,
                                     const platform_numbers& hw, double compute_efficiency, double dp_overlap,
                                     double elementwise_traffic = 0) {
  step_parts parts;
  const double micro_batches = p.global_batch / (p.dp * p.micro_batch);
  // With context parallelism each rank holds 1/cp of every sequence (and does 1/cp of its work).
  const double tokens_per_micro_batch = p.micro_batch * m.sequence_length / p.cp;
  const double flops_per_micro_batch_per_rank = tokens_per_micro_batch * hardware_flops_per_token(m, k) / (p.tp * p.pp);
  double micro_batch_s = flops_per_micro_batch_per_rank / (hw.peak_flops_per_chip * compute_efficiency);
  if (elementwise_traffic > 0) {
    // Memory-bound work is not matmul work: it runs at HBM bandwidth, once per pass (forward,
    // backward's two, and a recomputed forward).
    const double passes = k.recompute == recompute_kind::full ? 4 : 3;
    micro_batch_s += elementwise_traffic * passes * (m.layers / p.pp) * elementwise_bytes_per_layer(m, p) / p.cp /
                     hw.hbm_bytes_per_s;
  }
  parts.compute_s = micro_batches * micro_batch_s;
  parts.bubble_s = (p.pp - 1) / p.virtual_stages * micro_batch_s;

  const double activation_bytes = 2 * tokens_per_micro_batch * m.hidden_size;  // bf16 b·s·h (of this rank's s/cp)
  if (p.tp > 1) {
    // 2 all-reduces forward, 2 backward per layer and micro-batch (Megatron); a full
    // recomputation repeats the forward's two.
    const double per_layer = k.recompute == recompute_kind::full ? 6 : 4;
    // A group larger than a fast domain reduces hierarchically: within each domain, then
    // across domains (a flat ring at network speed would be several times too slow).
    const double local = std::min(p.tp, hw.chips_per_domain);
    const double all_reduce_s = p.tp <= hw.chips_per_domain
                                    ? collectives::ring_all_reduce_s(p.tp, activation_bytes, hw.intra)
                                    : collectives::hierarchical_all_reduce_s(std::ceil(p.tp / local), local,
                                                                             activation_bytes, hw.intra, hw.inter);
    parts.tp_s = micro_batches * per_layer * (m.layers / p.pp) * all_reduce_s;
  }
  if (p.cp > 1) {
    // Each layer's attention needs the keys and values of the whole sequence: an all-gather
    // of the cp chunks forward, a reduce-scatter of their gradients backward (the same
    // bytes), a second all-gather when the forward is recomputed (Llama 3's all-gather
    // context parallelism, arXiv:2407.21783 sec. 3.3.2). The group is the cp ranks spaced tp
    // apart; each gathers the keys and values of its tensor-parallel slice.
    const auto& link = detail::fits_in_domain(p.tp, p.cp, hw.chips_per_domain) ? hw.intra : hw.inter;
    const double kv_bytes = 2 * 2 * p.micro_batch * m.sequence_length * m.kv_size() / p.tp;  // bf16 K and V
    const double per_layer = k.recompute == recompute_kind::full ? 3 : 2;
    parts.cp_s = micro_batches * per_layer * (m.layers / p.pp) * collectives::ring_all_gather_s(p.cp, kv_bytes, link);
  }
  if (p.pp > 1) {
    const auto& link = detail::fits_in_domain(p.tp * p.cp, p.pp, hw.chips_per_domain) ? hw.intra : hw.inter;
    // Forward activations and backward gradients cross a stage boundary for every slot of the
    // critical path of a 1F1B schedule: m + p - 2 of them in each direction. With tensor
    // parallelism each rank sends its 1/tp slice and the receiving stage all-gathers it
    // (Megatron's scatter-gather optimisation; DeepSpeed's partitioned pipeline messages).
    double transfer_s = collectives::point_to_point_s(activation_bytes / p.tp, link);
    if (p.tp > 1) {
      const auto& tp_link = detail::fits_in_domain(1, p.tp, hw.chips_per_domain) ? hw.intra : hw.inter;
      transfer_s += collectives::ring_all_gather_s(p.tp, activation_bytes, tp_link);
    }
    parts.pp_p2p_s = 2 * (micro_batches + p.pp - 2) * transfer_s;
  }
  if (p.dp > 1) {
    const double trainable = k.lora ? lora_parameters(m, k.lora_rank) : m.parameters;
    double bytes = 2 * trainable / (p.tp * p.pp);  // bf16 gradients of one model-parallel rank
    if (p.zero_stage >= 3) bytes *= 1.5;  // FSDP: weights all-gathered again for backward
    // The cp ranks of a replica hold the same weights: gradients are reduced over dp · cp ranks.
    const double replicas = p.dp * p.cp;
    const double stride = p.tp * p.pp;
    const double local = std::clamp(std::floor(hw.chips_per_domain / stride), 1.0, replicas);
    const double domains = std::ceil(replicas / local);
    const double all_reduce_s = domains > 1
                                    ? collectives::hierarchical_all_reduce_s(domains, local, bytes, hw.intra, hw.inter)
                                    : collectives::ring_all_reduce_s(local, bytes, hw.intra);
    parts.dp_s = (1 - dp_overlap) * all_reduce_s;
  }
  return parts;
}

/// The analytic step time's inputs in the units a user states them (the Python binding's
/// keyword arguments, docs/throughput.md): each field is checked by name in
/// check_step_time_arguments.
struct step_time_arguments {
  // model
  /// \var parameters
  /// Parameter count N.
  /// \var layers
  /// Transformer layers L.
  /// \var hidden_size
  /// Hidden size h.
  /// \var heads
  /// Attention heads a.
  /// \var sequence_length
  /// Tokens per sequence T.
  double parameters = 0, layers = 0, hidden_size = 0, heads = 0, sequence_length = 0;
  double ffn_size = 0;  ///< 0: 4 × hidden_size
  double kv_heads = 0;  ///< 0: as many as heads
  bool lora = false;  ///< true: LoRA (only the adapter's gradients are reduced across dp)
  double lora_rank = 0;  ///< LoRA adapter rank r
  std::string recompute = "none";  ///< none, selective, full
  // layout
  /// \var tp
  /// Tensor-parallel degree.
  /// \var pp
  /// Pipeline-parallel degree.
  /// \var dp
  /// Data-parallel degree.
  /// \var micro_batch
  /// Sequences per micro-batch.
  /// \var global_batch
  /// Sequences per optimizer step.
  /// \var virtual_stages
  /// Model chunks per pipeline rank (interleaved schedule).
  double tp = 1, pp = 1, dp = 1, micro_batch = 1, global_batch = 1, virtual_stages = 1;
  int zero_stage = 0;  ///< ZeRO/FSDP stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights
  double cp = 1;  ///< context-parallel degree: each sequence split across cp chips
  // platform
  double peak_tflops = 0;  ///< peak TFLOPS per chip at the precision used
  /// \var intra_gb_s
  /// Nominal bandwidth of one chip inside its fast domain, GB/s per direction.
  /// \var intra_latency_us
  /// Latency per message step inside the fast domain, microseconds.
  /// \var intra_efficiency
  /// Achieved / nominal bandwidth inside the fast domain, in (0, 1].
  double intra_gb_s = 0, intra_latency_us = 0, intra_efficiency = 1;
  /// \var inter_gb_s
  /// Nominal bandwidth of one chip across nodes, GB/s per direction.
  /// \var inter_latency_us
  /// Latency per message step across nodes, microseconds.
  /// \var inter_efficiency
  /// Achieved / nominal bandwidth across nodes, in (0, 1].
  double inter_gb_s = 0, inter_latency_us = 0, inter_efficiency = 1;
  double chips_per_domain = 1;  ///< chips in one fast domain (a node, or an UltraServer)
  double hbm_tb_s = 0;  ///< needed only when elementwise_traffic > 0
  // model parameters
  /// \var compute_efficiency
  /// Achieved / peak FLOPS of the matmuls alone, in (0, 1].
  /// \var dp_overlap
  /// Fraction of the data-parallel communication hidden behind the backward pass, in [0, 1].
  /// \var elementwise_traffic
  /// Multiple of the activations that memory-bound elementwise work moves through HBM per pass
  /// (0: folded into compute_efficiency).
  double compute_efficiency = 0, dp_overlap = 0, elementwise_traffic = 0;
};

/// What analytic_step_time and memory_per_device take, in SI units, checked.
/// A plain value: copyable, owns its members; its links are checked_link, so they passed the checks.
struct step_time_inputs {
  transformer_shape shape;  ///< the model
  training_kind kind;  ///< full or LoRA, and the recomputation
  parallel_layout layout;  ///< the parallel degrees and batches
  platform_numbers platform;  ///< the platform's figures in SI units (FLOP/s, bytes/s, seconds)
  /// \var compute_efficiency
  /// Achieved / peak FLOPS of the matmuls alone, in (0, 1].
  /// \var dp_overlap
  /// Fraction of the data-parallel communication hidden behind the backward pass, in [0, 1].
  /// \var elementwise_traffic
  /// Multiple of the activations moved through HBM per pass by elementwise work (0: none modelled).
  double compute_efficiency, dp_overlap, elementwise_traffic;

  /// The analytic step time of these inputs, by part (seconds per step).
  step_parts step_time() const {
    return analytic_step_time(shape, kind, layout, platform, compute_efficiency, dp_overlap, elementwise_traffic);
  }
  /// The memory per device of these inputs, by part (bytes).
  device_memory memory() const { return memory_per_device(shape, kind, layout); }
};

/// Checks every field of `a` (errors name the field: "intra_efficiency: must be in (0, 1], got
/// 77"; counts such as tp or global_batch must be whole, the batch a multiple of dp x
/// micro_batch) and converts to SI units.
inline step_time_inputs check_step_time_arguments(const step_time_arguments& a) {
  const training_kind kind{a.lora, a.lora_rank, parse_choice<recompute_kind>("recompute", a.recompute)};
  // The layout's counts: each > 0, then (below) whole, since a fractional degree or batch would
  // give the step time of no layout.
  const std::pair<const char*, double> counts[] = {{"tp", a.tp},
                                                   {"pp", a.pp},
                                                   {"dp", a.dp},
                                                   {"cp", a.cp},
                                                   {"micro_batch", a.micro_batch},
                                                   {"global_batch", a.global_batch},
                                                   {"virtual_stages", a.virtual_stages},
                                                   {"chips_per_domain", a.chips_per_domain}};
  for (const auto& [name, value] : {std::pair<const char*, double>{"peak_tflops", a.peak_tflops},
                                    {"intra_gb_s", a.intra_gb_s},
                                    {"inter_gb_s", a.inter_gb_s}})
    detail::check_positive(name, value);
  for (const auto& [name, value] : counts) detail::check_positive(name, value);
  detail::check_positive("compute_efficiency", a.compute_efficiency);
  for (const auto& [name, value] : {std::pair<const char*, double>{"intra_efficiency", a.intra_efficiency},
                                    {"inter_efficiency", a.inter_efficiency},
                                    {"compute_efficiency", a.compute_efficiency}})
    if (!(value > 0 && value <= 1)) detail::fail(name, "must be in (0, 1], got " + detail::format_number(value));
  detail::check_nonnegative("intra_latency_us", a.intra_latency_us);
  detail::check_nonnegative("inter_latency_us", a.inter_latency_us);
  detail::check_probability("dp_overlap", a.dp_overlap);
  if (a.elementwise_traffic > 0) detail::check_positive("hbm_tb_s", a.hbm_tb_s);
  const platform_numbers platform{
      a.peak_tflops * 1e12, a.hbm_tb_s * 1e12,
      collectives::check_link("intra_", {a.intra_latency_us * 1e-6, a.intra_gb_s * 1e9, a.intra_efficiency}),
      collectives::check_link("inter_", {a.inter_latency_us * 1e-6, a.inter_gb_s * 1e9, a.inter_efficiency}),
      a.chips_per_domain};
  detail::check_nonnegative("kv_heads", a.kv_heads);
  for (const auto& [name, value] : {std::pair<const char*, double>{"parameters", a.parameters},
                                    {"layers", a.layers},
                                    {"hidden_size", a.hidden_size},
                                    {"heads", a.heads},
                                    {"sequence_length", a.sequence_length}})
    detail::check_positive(name, value);
  detail::check_nonnegative("ffn_size", a.ffn_size);
  detail::check_nonnegative("elementwise_traffic", a.elementwise_traffic);
  if (a.lora) detail::check_positive("lora_rank", a.lora_rank);
  detail::whole_number("layers", a.layers, 1);
  detail::whole_number("heads", a.heads, 1);
  for (const auto& [name, value] : counts) detail::whole_number(name, value, 1);
  detail::whole_number("zero_stage", a.zero_stage, 0, 3);
  if (std::fmod(a.global_batch, a.dp * a.micro_batch) != 0)
    detail::fail("global_batch",
                 "must be a multiple of dp x micro_batch = " + detail::format_number(a.dp * a.micro_batch) + ", got " +
                     detail::format_number(a.global_batch));
  return {{a.parameters, a.layers, a.hidden_size, a.heads, a.sequence_length, a.ffn_size, a.kv_heads},
          kind,
          {a.tp, a.pp, a.dp, a.micro_batch, a.global_batch, a.virtual_stages, a.zero_stage, a.cp},
          platform,
          a.compute_efficiency,
          a.dp_overlap,
          a.elementwise_traffic};
}

}  // namespace trnmodel
