#pragma once
// Step time from the platform (DESIGN §9): FLOPs over achieved throughput ("flops" mode), or
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

#include "trnmodel/throughput/collectives.hpp"
#include "trnmodel/throughput/flops.hpp"

namespace trnmodel {

// One sample's platform figures in SI units.
struct platform_numbers {
  double peak_flops_per_chip = 0;  // FLOP/s of the chosen precision
  double hbm_bytes_per_s = 0;      // HBM bandwidth per chip (memory-bound elementwise work)
  collectives::link_level intra;   // within a node (or UltraServer domain)
  collectives::link_level inter;   // between nodes
  double chips_per_domain = 1;
};

struct step_parts {
  double compute_s = 0;   // m micro-batches of compute on one stage
  double tp_s = 0;        // tensor-parallel all-reduces (not overlapped)
  double bubble_s = 0;    // pipeline fill and drain: (p - 1)/v micro-batch slots
  double pp_p2p_s = 0;    // activations and gradients between stages on the critical path
  double dp_s = 0;        // exposed data-parallel gradient communication
  double total() const { return compute_s + tp_s + bubble_s + pp_p2p_s + dp_s; }
};

inline double tokens_per_step(const transformer_shape& m, const parallel_layout& p) {
  return p.global_batch * m.sequence_length;
}

// flops mode, from executed TFLOPS per chip (recomputation counted).
inline double step_time_from_achieved_s(const transformer_shape& m, const training_kind& k, const parallel_layout& p,
                                        double chips, double achieved_tflops_per_chip) {
  return tokens_per_step(m, p) * hardware_flops_per_token(m, k) / (chips * achieved_tflops_per_chip * 1e12);
}

// flops mode, from model FLOPs utilization (recomputation not counted, as MFU defines it).
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

// Bytes of activations one rank moves through HBM per layer and micro-batch in one pass of
// elementwise work (layer norms, activations, dropout, softmax): Korthikanti et al.'s
// activation size s·b·h·(10 + 24/t + 5·a·s/(h·t)).
inline double elementwise_bytes_per_layer(const transformer_shape& m, const parallel_layout& p) {
  const double s = m.sequence_length, b = p.micro_batch, h = m.hidden_size, a = m.heads, t = p.tp;
  return s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
}

// analytic mode (arguments validated when the scenario and its profile load). `compute_efficiency` is achieved/peak FLOPS of the matmuls alone;
// `dp_overlap` the fraction of data-parallel communication hidden behind the backward pass;
// `elementwise_traffic` scales the memory-bound elementwise work (0: folded into the
// compute efficiency, the default).
inline step_parts analytic_step_time(const transformer_shape& m, const training_kind& k, const parallel_layout& p,
                                     const platform_numbers& hw, double compute_efficiency, double dp_overlap,
                                     double elementwise_traffic = 0) {
  step_parts parts;
  const double micro_batches = p.global_batch / (p.dp * p.micro_batch);
  const double tokens_per_micro_batch = p.micro_batch * m.sequence_length;
  const double flops_per_micro_batch_per_rank = tokens_per_micro_batch * hardware_flops_per_token(m, k) / (p.tp * p.pp);
  double micro_batch_s = flops_per_micro_batch_per_rank / (hw.peak_flops_per_chip * compute_efficiency);
  if (elementwise_traffic > 0) {
    // Memory-bound work is not matmul work: it runs at HBM bandwidth, once per pass (forward,
    // backward's two, and a recomputed forward).
    const double passes = k.recompute == recompute_kind::full ? 4 : 3;
    micro_batch_s += elementwise_traffic * passes * (m.layers / p.pp) * elementwise_bytes_per_layer(m, p) / hw.hbm_bytes_per_s;
  }
  parts.compute_s = micro_batches * micro_batch_s;
  parts.bubble_s = (p.pp - 1) / p.virtual_stages * micro_batch_s;

  const double activation_bytes = 2 * tokens_per_micro_batch * m.hidden_size;  // bf16 b·s·h
  if (p.tp > 1) {
    // 2 all-reduces forward, 2 backward per layer and micro-batch (Megatron); a full
    // recomputation repeats the forward's two.
    const double per_layer = k.recompute == recompute_kind::full ? 6 : 4;
    // A group larger than a fast domain reduces hierarchically: within each domain, then
    // across domains (a flat ring at network speed would be several times too slow).
    const double local = std::min(p.tp, hw.chips_per_domain);
    const double all_reduce_s = p.tp <= hw.chips_per_domain
                                    ? collectives::unchecked::ring_all_reduce_s(p.tp, activation_bytes, hw.intra)
                                    : collectives::unchecked::hierarchical_all_reduce_s(std::ceil(p.tp / local), local,
                                                                             activation_bytes, hw.intra, hw.inter);
    parts.tp_s = micro_batches * per_layer * (m.layers / p.pp) * all_reduce_s;
  }
  if (p.pp > 1) {
    const auto& link = detail::fits_in_domain(p.tp, p.pp, hw.chips_per_domain) ? hw.intra : hw.inter;
    // Forward activations and backward gradients cross a stage boundary for every slot of the
    // critical path of a 1F1B schedule: m + p - 2 of them in each direction. With tensor
    // parallelism each rank sends its 1/tp slice and the receiving stage all-gathers it
    // (Megatron's scatter-gather optimisation; DeepSpeed's partitioned pipeline messages).
    double transfer_s = collectives::unchecked::point_to_point_s(activation_bytes / p.tp, link);
    if (p.tp > 1) {
      const auto& tp_link = detail::fits_in_domain(1, p.tp, hw.chips_per_domain) ? hw.intra : hw.inter;
      transfer_s += collectives::unchecked::ring_all_gather_s(p.tp, activation_bytes, tp_link);
    }
    parts.pp_p2p_s = 2 * (micro_batches + p.pp - 2) * transfer_s;
  }
  if (p.dp > 1) {
    const double trainable = k.lora ? lora_parameters(m, k.lora_rank) : m.parameters;
    double bytes = 2 * trainable / (p.tp * p.pp);  // bf16 gradients of one model-parallel rank
    if (p.zero_stage >= 3) bytes *= 1.5;           // FSDP: weights all-gathered again for backward
    const double stride = p.tp * p.pp;
    const double local = std::clamp(std::floor(hw.chips_per_domain / stride), 1.0, p.dp);
    const double domains = std::ceil(p.dp / local);
    const double all_reduce_s = domains > 1 ? collectives::unchecked::hierarchical_all_reduce_s(domains, local, bytes, hw.intra, hw.inter)
                                            : collectives::unchecked::ring_all_reduce_s(local, bytes, hw.intra);
    parts.dp_s = (1 - dp_overlap) * all_reduce_s;
  }
  return parts;
}

}  // namespace trnmodel
