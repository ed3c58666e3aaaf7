#pragma once
// The time from a failure to resumed training, as the lifecycle model sees it (docs/lifecycle.md,
// "Recovery"): restart, then the graphs (a cache hit loads them, a miss recompiles), the
// checkpoint load and the warm-up; when failures can interrupt a recovery, an interrupted one is
// lost and starts again. A job card states the longest such time it accepts
// (card.max_error_to_restart_h); `job_card_checks` compares it with the model's P90.
//
// Each sample draws the scenario's inputs on their own streams, like `simulate`, and one
// recovery on the "chance.*" streams: the figure is the distribution of one recovery, over the
// uncertainty of the inputs and the luck of the cache and the failures. In a job with stages,
// each stage recovers with its own inputs; a sample's figure is the longest of them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

namespace detail {

// One recovery in seconds, started again from scratch at every failure that interrupts it.
inline double restart_time_s(const lifecycle_inputs& in, const detail::lifecycle_config& config,
                             detail::chance_draws& chance) {
  // An unknown MTBF (NaN) is not "no failures": whether failures interrupt the recovery is unknown.
  if (config.during_recovery && std::isnan(in.node_mtbf_h)) return std::numeric_limits<double>::quiet_NaN();
  const double rate_per_s =
      std::isfinite(in.node_mtbf_h) ? static_cast<double>(config.nodes) / (in.node_mtbf_h * 3600) : 0.0;
  const bool exposed = config.during_recovery && rate_per_s > 0;
  const double weibull_scale_s =
      exposed && config.weibull ? 1 / (rate_per_s * std::tgamma(1 + 1 / in.weibull_shape)) : 0.0;
  double total_s = 0;
  for (double attempt = 0;; ++attempt) {
    const double compile_s = chance.cache() < in.cache_hit_prob ? in.cache_load_s : in.recompile_s;
    const double duration_s = in.restart_s + compile_s + in.load_s + in.warmup_s;
    if (!std::isfinite(duration_s)) return std::numeric_limits<double>::quiet_NaN();  // an unknown input
    if (!exposed) return total_s + duration_s;
    const double e = -dist::detail::lane_log1p(-chance.failure());  // standard exponential, as the simulator draws it
    const double to_failure_s = config.weibull ? weibull_scale_s * std::pow(e, 1 / in.weibull_shape) : e / rate_per_s;
    if (to_failure_s >= duration_s) return total_s + duration_s;
    total_s += to_failure_s;
    if (attempt >= detail::max_expected_failures_per_attempt)
      detail::fail(path_of(field::failures_node_mtbf_h),
                   "a recovery was interrupted " + detail::format_approx(attempt) +
                       " times without completing; shorten recoveries or check the failure inputs");
  }
}

}  // namespace detail

/// The model of one recovery: output "restart_h", the hours from a failure to resumed training.
/// Thread-safety: immutable once made; the engine calls it concurrently. Ownership: a value.
class restart_time_model {
 public:
  /// Reads the scenario's inputs as simulate() does (the same input streams, stage by stage).
  explicit restart_time_model(const scenario& s) : lifecycle_(s) {}
  /// What another process rebuilds it from (run_request.hpp): {"kind": "restart_time", "model"}.
  ordered_json request() const { return {{"kind", "restart_time"}, {"model", lifecycle_.request()}}; }

  /// The engine's call: out(i, 0) is the hours of one recovery of sample block.first + i (the
  /// slowest stage's in a staged job), NaN when an input of the recovery is unknown. Throws
  /// trnmodel::input_error (failures.node_mtbf_h) when failures keep interrupting a recovery.
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    Eigen::ArrayXXd x(block.size, static_cast<Eigen::Index>(lifecycle_.input_count()));
    for (std::size_t j = 0; j < lifecycle_.input_count(); ++j)
      block.uniforms(lifecycle_.input_stream(j), x.col(static_cast<Eigen::Index>(j)).data());
    lifecycle_.to_values(x);
    std::vector<lifecycle_inputs> stages;
    for (Eigen::Index i = 0; i < block.size; ++i) {
      lifecycle_.inputs_at(x, i, stages);
      detail::chance_draws chance{block.seed, block.first + static_cast<std::uint64_t>(i), lifecycle_.chance_streams()};
      // A promise about every failure: in a staged job, the slowest stage's recovery.
      double longest_s = 0;
      for (std::size_t k = 0; k < stages.size(); ++k) {
        const double stage_s = detail::restart_time_s(stages[k], lifecycle_.stage_config(k), chance);
        longest_s = std::isnan(stage_s) ? stage_s : std::max(longest_s, stage_s);  // unknown stays unknown
        if (std::isnan(longest_s)) break;
      }
      out(i, 0) = longest_s / 3600;
    }
  }

 private:
  lifecycle_model lifecycle_;
};

/// The distribution of the time from a failure to resumed training, in hours.
inline run_result restart_time(const scenario& s, const run_options& options) {
  return run(restart_time_model(s), {"restart_h"}, options);
}

/// What the job card promises that the model does not support, one sentence each. Today:
/// card.max_error_to_restart_h against the P90 of `restart_time` (10,000 samples, seed 0, so the
/// check reads the same every time it is shown).
inline std::vector<std::string> job_card_checks(const scenario& s) {
  std::vector<std::string> out;
  if (!s.has_number(field::card_max_error_to_restart_h)) return out;
  const double limit_h = s.number(field::card_max_error_to_restart_h);
  run_options options;
  options.samples = 10'000;
  options.seed = 0;
  const double p90_h = restart_time(s, options).quantiles(0, {0.9})[0];
  const std::string parts =
      "failures.restart_s, the compile of a recovery (compile.cache_hit_prob of compile.cache_load_s, "
      "else compile.recompile_s), checkpoint.load_s and failures.warmup_s, and failures.node_mtbf_h when failures "
      "can interrupt a recovery";
  if (std::isnan(p90_h)) {
    out.push_back(path_of(field::card_max_error_to_restart_h) + " (" + detail::format_number(limit_h) +
                  " h) cannot be checked: an input of the recovery is unknown (" + parts + ")");
  } else if (p90_h > limit_h) {
    out.push_back(path_of(field::card_max_error_to_restart_h) + " is " + detail::format_number(limit_h) +
                  " h, but the modelled time from a failure to resumed training is " + detail::format_approx(p90_h) +
                  " h at P90 (" + parts + "): the job card's restart promise does not hold");
  }
  return out;
}

}  // namespace trnmodel
