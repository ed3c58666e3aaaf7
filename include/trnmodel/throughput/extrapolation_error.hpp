#pragma once
// The error of extrapolated mode (docs/throughput.md, docs/validation.md "Extrapolation error"):
// a step time measured at a reference configuration, scaled by the ratio of the analytic model's
// times at the target and the reference, is off by a factor whose log has the spread
//
//   sigma = base + per_log_node_ratio·|ln(nodes_target / nodes_reference)|
//         + per_changed_degree·(changed among tp, pp, dp, cp, micro-batch, sequence length)
//         + model_changed·(the reference is another model size)
//
// Fitted by bench/extrapolation_error.py (run 2026-12-01) on the 109 measured Megatron-DeepSpeed
// iteration times of bench/data/vtrain_ground_truth_multi.csv (VIA-Research/vTrain, commit
// f8dda847): every pair of even-indexed rows fits, every pair of odd-indexed rows is held out.
// The data never changes the GPU count within one model size, so the node term is measured only
// together with a model change; sequence length never changes there and is counted as a degree.
#include <cmath>

#include "trnmodel/throughput/flops.hpp"

namespace trnmodel {

// Every pair of distinct configurations in the data differs in something, so the base is the spread of
// one layout change at the same GPU count and model; a changed degree beyond that added nothing (the
// fit puts it at 0). Nodes: the data's GPUs / 8, the same ratio.
/// Log-spread of the extrapolation error of one layout change at the same chip count and model.
inline constexpr double extrapolation_sigma_base = 0.1640;
/// Added log-spread per unit of |ln(target nodes / trial nodes)|.
inline constexpr double extrapolation_sigma_per_log_node_ratio = 0.0566;
/// Added log-spread per degree, micro-batch or sequence length that differs (the fit puts it at 0).
inline constexpr double extrapolation_sigma_per_changed_degree = 0.0000;
/// Added log-spread when the model itself changes between trial and target.
inline constexpr double extrapolation_sigma_model_changed = 0.0113;

/// Whether the reference is a different model (size or architecture).
inline bool model_differs(const transformer_shape& reference, const transformer_shape& target) {
  return reference.parameters != target.parameters || reference.layers != target.layers ||
         reference.hidden_size != target.hidden_size || reference.heads != target.heads;
}

/// Standard deviation of ln(true / extrapolated step time) for a (reference, target) pair.
inline double extrapolation_log_spread(const transformer_shape& reference_shape, const parallel_layout& reference,
                                       double reference_nodes, const transformer_shape& target_shape,
                                       const parallel_layout& target, double target_nodes) {
  const int changed = (reference.tp != target.tp) + (reference.pp != target.pp) + (reference.dp != target.dp) +
                      (reference.cp != target.cp) + (reference.micro_batch != target.micro_batch) +
                      (reference_shape.sequence_length != target_shape.sequence_length);
  return extrapolation_sigma_base +
         extrapolation_sigma_per_log_node_ratio * std::fabs(std::log(target_nodes / reference_nodes)) +
         extrapolation_sigma_per_changed_degree * changed +
         (model_differs(reference_shape, target_shape) ? extrapolation_sigma_model_changed : 0.0);
}

}  // namespace trnmodel
