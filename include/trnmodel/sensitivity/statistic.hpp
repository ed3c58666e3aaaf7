#pragma once
// The statistic a tornado, a comparison or a break-even looks at (the mean, or a quantile such
// as the P90 a budget is signed off on), and the engine model that runs one metric of a
// scenario (so that only that metric's samples are kept).
#include <cstdint>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/scratch.hpp"
#include "trnmodel/sensitivity/output.hpp"

namespace trnmodel::sensitivity {

/// The mean, or a quantile at a probability, of a metric. A plain value: copyable, owns its
/// members; concurrent reads are safe.
struct statistic {
  double probability = -1;  ///< < 0: the mean; else the quantile at this probability

  /// The mean.
  static statistic mean() { return {}; }
  /// The quantile at probability p; input_error ("statistic") unless p is in [0, 1].
  static statistic quantile(double p) {
    if (!(p >= 0 && p <= 1))
      trnmodel::detail::fail("statistic",
                             "a quantile's probability must be in [0, 1], got " + trnmodel::detail::format_number(p));
    return {p};
  }
  /// Whether this is the mean (probability < 0).
  bool is_mean() const { return probability < 0; }
  /// "mean", or "quantile <p>", for messages and tables.
  std::string name() const { return is_mean() ? "mean" : "quantile " + trnmodel::detail::format_number(probability); }
  /// Its value for output `output` of `r`: the mean over non-NaN values, or the quantile. Needs
  /// kept samples for a quantile to be exact (else the histogram's, within its accuracy).
  double of(const run_result& r, std::size_t output = 0) const {
    return is_mean() ? r.stats(output).mean : r.quantiles(output, {probability}).front();
  }
};

/// One metric of a lifecycle model (a job total or a stage's) as an engine model with one output.
/// Thread-safety: immutable once made; the engine calls it concurrently. Ownership: a value
/// holding its own copy of the model.
class one_metric {
 public:
  /// Job metric m of `model`.
  one_metric(lifecycle_model model, metric::id m) : one_metric(std::move(model), output_of(m)) {}
  /// Output `output` of `model` (a job metric or a stage's, from output_named).
  one_metric(lifecycle_model model, output_column output) : model_(std::move(model)), output_(output) {}
  /// The engine's call: runs the whole model on the block and keeps the one column in out.col(0).
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    thread_local trnmodel::detail::scratch_slot slot;  // every column of the block (scratch.hpp)
    trnmodel::detail::padded_scratch lent(slot, block.size, output_.columns(model_));
    auto all = lent.array();
    model_(block, all);
    out.col(0) = all.col(output_.column);
  }
  /// The lifecycle model it runs.
  const lifecycle_model& model() const { return model_; }
  /// What another process rebuilds it from (run_request.hpp): {"kind": "one_metric", "model",
  /// "column", "metric"}.
  ordered_json request() const {
    return {{"kind", "one_metric"},
            {"model", model_.request()},
            {"column", output_.column},
            {"metric", metric_names()[output_.metric]}};
  }

 private:
  lifecycle_model model_;
  output_column output_;
};

/// The statistic of an output of a model over options.samples samples (kept, so quantiles are exact).
inline double metric_statistic(const lifecycle_model& model, output_column output, statistic stat,
                               run_options options) {
  options.keep_samples = !stat.is_mean();
  return stat.of(
      run(one_metric(model, output), {model.output_names()[static_cast<std::size_t>(output.column)]}, options));
}
/// The same for a job metric.
inline double metric_statistic(const lifecycle_model& model, metric::id m, statistic stat, run_options options) {
  return metric_statistic(model, output_of(m), stat, std::move(options));
}

}  // namespace trnmodel::sensitivity
