#pragma once
// Per-sample step time and step count from the platform (docs/throughput.md), for the lifecycle
// simulator: the scenario's static layout is read once; each sample's drawn figures (MFU,
// efficiencies, bandwidths, a reference step time) give that sample's step time, so the
// uncertainty of a derived step time flows through the whole lifecycle.
#include <string>

#include "trnmodel/lifecycle/simulator.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/throughput/extrapolation_error.hpp"
#include "trnmodel/throughput/step_time.hpp"

namespace trnmodel {

/// The step time of one stage from its platform (flops, analytic and extrapolated modes), or
/// the measured one passed through, per sample. Thread-safety: immutable once made, called
/// concurrently by the engine. Ownership: a value.
class throughput_model {
 public:
  /// Reads the stage's static figures once: its throughput mode, whether job.tokens sets the
  /// steps, the model's shape, the layouts, the training kind and the chip count (the profile's
  /// nodes x chips per node, else tp x cp x pp x dp); in extrapolated mode the reference
  /// configuration and its fitted log-spread.
  explicit throughput_model(const scenario& s) {
    mode_ = s.mode();
    steps_from_tokens_ = s.has(field::job_tokens);
    if (mode_ == throughput_mode::measured && !steps_from_tokens_) return;
    shape_ = s.shape();
    layout_ = s.layout();
    if (mode_ == throughput_mode::measured) return;
    kind_ = s.kind();
    by_mfu_ = s.has(field::throughput_model_flops_utilization);
    // Without a profile the layout says how many chips there are.
    chips_ = s.profile() ? static_cast<double>(s.integer(field::cluster_nodes)) *
                               static_cast<double>(s.profile()->chips_per_node)
                         : layout_.tp * layout_.cp * layout_.pp * layout_.dp;
    if (s.profile()) chips_per_domain_ = static_cast<double>(s.profile()->chips_per_domain());
    parameters_given_ = s.has(field::model_parameters);
    if (mode_ == throughput_mode::extrapolated) {
      reference_layout_ = s.layout("reference");
      reference_shape_ = s.reference_shape();
      reference_parameters_given_ = s.has_integer(field::reference_parameters);
      log_spread_ = trnmodel::extrapolation_log_spread(reference_shape_, reference_layout_,
                                                       static_cast<double>(s.integer(field::reference_nodes)), shape_,
                                                       layout_, static_cast<double>(s.integer(field::cluster_nodes)));
    }
  }

  /// Whether the step time comes from the platform (flops, analytic or extrapolated mode), not
  /// from throughput.step_time_s.
  bool derives_step_time() const { return mode_ != throughput_mode::measured; }
  /// Whether derive() sets anything: a derived step time, or the steps from job.tokens.
  bool sets_inputs() const { return derives_step_time() || steps_from_tokens_; }
  /// Extrapolated mode: the fitted spread of ln(true / extrapolated step time) for this pair of
  /// configurations (throughput/extrapolation_error.hpp); 0 in the other modes.
  double extrapolation_log_spread() const { return log_spread_; }

  /// Sets in.effective_steps (from job.tokens) and in.step_time_s (derived modes); returns
  /// whether the step time was derived, with its parts (seconds per step) in `parts`, which
  /// is left as it was in measured mode.
  bool derive(lifecycle_inputs& in, step_parts& parts) const {
    if (steps_from_tokens_) in.effective_steps = in.tokens / (layout_.global_batch * shape_.sequence_length);
    if (mode_ == throughput_mode::measured) return false;
    transformer_shape shape = shape_;
    if (parameters_given_) shape.parameters = in.parameters;
    if (mode_ == throughput_mode::flops) {
      parts = step_parts{};
      parts.compute_s = by_mfu_ ? step_time_from_mfu_s(shape, kind_, layout_, chips_, in.peak_tflops * 1e12, in.mfu)
                                : step_time_from_achieved_s(shape, kind_, layout_, chips_, in.achieved_tflops);
      in.step_time_s = parts.compute_s;
      return true;
    }
    const platform_numbers hw = platform(in);
    parts = analytic_step_time(shape, kind_, layout_, hw, in.compute_efficiency, in.dp_overlap, in.elementwise_traffic);
    if (mode_ == throughput_mode::extrapolated) {
      // Measurement is the anchor: the model only scales it to the target configuration.
      transformer_shape reference = reference_shape_;
      if (!reference_parameters_given_) reference.parameters = shape.parameters;
      const double modelled_reference_s =
          analytic_step_time(reference, kind_, reference_layout_, hw, in.compute_efficiency, in.dp_overlap,
                             in.elementwise_traffic)
              .total();
      // The model's ratio is itself uncertain: in.extrapolation_error is its fitted error factor.
      const double scale = in.reference_step_time_s / modelled_reference_s * in.extrapolation_error;
      parts.compute_s *= scale;
      parts.tp_s *= scale;
      parts.bubble_s *= scale;
      parts.pp_p2p_s *= scale;
      parts.dp_s *= scale;
    }
    in.step_time_s = parts.total();
    return true;
  }

 private:

  // The profile's figures were checked when it loaded (every draw lies in their support),
  // so check_link passes without building a string here, once per sample.
  platform_numbers platform(const lifecycle_inputs& in) const {
    using collectives::check_link;
    return {in.peak_tflops * 1e12, in.hbm_tb_s * 1e12,
            check_link("platform.intra_node_", {in.intra_latency_us * 1e-6, in.intra_gb_s * 1e9, in.intra_efficiency}),
            check_link("platform.inter_node_", {in.inter_latency_us * 1e-6, in.inter_gb_s * 1e9, in.inter_efficiency}),
            chips_per_domain_};
  }

  throughput_mode mode_ = throughput_mode::measured;
  bool steps_from_tokens_ = false, by_mfu_ = false, parameters_given_ = false, reference_parameters_given_ = false;
  double log_spread_ = 0;
  transformer_shape shape_{}, reference_shape_{};
  training_kind kind_{};
  parallel_layout layout_{}, reference_layout_{};
  double chips_ = 1, chips_per_domain_ = 1;
};

}  // namespace trnmodel
