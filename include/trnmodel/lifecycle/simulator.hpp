#pragma once
// The lifecycle simulator: docs/lifecycle.md, rule by rule, for one Monte Carlo sample, and the
// block model that runs it on the engine.
//
// Cost per sample grows with the number of failures, never with the number of steps or
// segments: the time to the next failure is drawn once per failure (a renewal process:
// exponential or Weibull times between failures, renewed at each failure), and every run of
// failure-free segments is skipped in one step (floor(time to failure / segment duration)
// segments complete). With exponential times this is exactly the memoryless process of
// docs/lifecycle.md; with Weibull times it is the renewal process docs/lifecycle.md asks for.
//
// Accounting: a wall clock advances with every interval; each interval is also attributed
// to exactly one phase. The clock is reported as wall_h, so "the phases sum to wall_h" is a
// check of the attribution (tested), not a definition.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/lifecycle/inputs.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

// The uncertain fields of the scenario and the lifecycle_inputs member each is drawn into, in
// the field table's order (scenario/fields.hpp).
inline const std::vector<const field_spec*>& lifecycle_input_fields() {
  static const std::vector<const field_spec*> fields = [] {
    std::vector<const field_spec*> out;
    for (const auto& f : scenario_fields())
      if (f.slot != nullptr) out.push_back(&f);
    return out;
  }();
  return fields;
}

// The settings of a scenario that are not uncertain.
struct lifecycle_config {
  long long nodes = 1;
  long long keep_last = 1;
  bool queue_billed = false;
  bool final_save = true;
  bool during_recovery = true;
  bool weibull = false;

  static lifecycle_config of(const scenario& s) {
    lifecycle_config c;
    c.nodes = s.integer(field::cluster_nodes);
    c.keep_last = s.integer(field::checkpoint_keep_last);
    c.queue_billed = s.flag(field::startup_queue_billed);
    c.final_save = s.flag(field::checkpoint_final);
    c.during_recovery = s.flag(field::failures_during_recovery);
    c.weibull = s.text(field::failures_distribution) == "weibull";
    return c;
  }
};

// Aleatory randomness of one sample: failures, cache draws and the quality gate, each on its
// own stream, draws numbered per sample. `chance_index` is normally the sample index; a
// sensitivity design may remap it to resample luck independently of the inputs.
struct chance_draws {
  std::uint64_t seed;
  std::uint64_t chance_index;
  std::uint32_t failure_draws = 0, cache_draws = 0;

  static constexpr std::uint32_t failure_stream = stream_id("chance.failures");
  static constexpr std::uint32_t cache_stream = stream_id("chance.cache");
  static constexpr std::uint32_t quality_stream = stream_id("chance.quality");

  double failure() { return uniform(seed, chance_index, failure_stream, failure_draws++); }
  double cache() { return uniform(seed, chance_index, cache_stream, cache_draws++); }
  double quality() const { return uniform(seed, chance_index, quality_stream, 0); }
};

// Refuses a sample whose failure rate leaves no realistic chance to finish (bounded time
// instead of an endless loop), saying why and what to change.
inline constexpr double max_expected_failures_per_attempt = 1e4;
inline constexpr double max_failures_per_sample = 1e7;

// The cost ledger of docs/metrics.md from a sample's inputs and its time metrics. NaN inputs
// (unknown) propagate to exactly the costs that need them.
inline void fill_costs(const lifecycle_inputs& in, const lifecycle_config& config, double* out) {
  const double wall = out[metric::wall_h];
  const double nodes = static_cast<double>(config.nodes);
  out[metric::cost_compute_usd] = out[metric::node_h] * in.node_hour_usd;
  out[metric::cost_storage_usd] =
      (in.dataset_gb + in.size_gb * static_cast<double>(config.keep_last)) * in.storage_gb_month_usd * wall / 730;
  out[metric::cost_transfer_usd] = in.transfer_gb * in.transfer_gb_usd;
  out[metric::cost_logs_usd] = in.logs_gb_per_hour * wall * in.logs_gb_usd;
  out[metric::run_cost_usd] = out[metric::cost_compute_usd] + out[metric::cost_storage_usd] +
                              out[metric::cost_transfer_usd] + out[metric::cost_logs_usd];
  out[metric::adaptation_usd] = in.adaptation_h * in.rate_usd_per_h;
  out[metric::total_cost_usd] = out[metric::run_cost_usd] + out[metric::adaptation_usd];
  out[metric::useful_step_cost_usd] = nodes * in.step_time_s * in.node_hour_usd / 3600;
  out[metric::lifecycle_cost_per_step_usd] = out[metric::run_cost_usd] / std::max(1.0, std::ceil(in.effective_steps));
  // Like the wall time, a figure beyond the largest double is refused rather than reported as
  // inf. (NaN means unknown, and stays.)
  if (std::isinf(out[metric::node_h]))
    fail("cluster.nodes",
         "a sample's node-hours are beyond the largest number (about 1.8e308); check the magnitudes "
         "of cluster.nodes and the durations");
  if (std::isinf(out[metric::total_cost_usd]) || std::isinf(out[metric::useful_step_cost_usd]))
    fail("prices",
         "a sample's cost is beyond the largest number (about 1.8e308 USD); check the magnitudes of the "
         "prices, data.* sizes, checkpoint.size_gb and engineering.* hours");
}

namespace detail {

class lifecycle_sample {
 public:
  lifecycle_sample(const lifecycle_inputs& in, const lifecycle_config& config, chance_draws& chance)
      : in_(in), config_(config), chance_(chance) {
    steps_ = std::max(1.0, std::ceil(in.effective_steps));
    t_eff_ = in.step_time_s / (1 - in.data_stall_fraction);
    eval_per_step_ = in.eval_every_steps > 0 ? in.eval_time_s / in.eval_every_steps : 0.0;
    every_ = std::round(in.every_steps);
    save_ = in.save_s + in.verify_s;
    rate_per_s_ = std::isfinite(in.node_mtbf_h) ? static_cast<double>(config.nodes) / (in.node_mtbf_h * 3600) : 0.0;
    if (rate_per_s_ > 0 && config.weibull) {
      // Weibull with the given shape and mean 1/rate.
      weibull_scale_s_ = 1 / (rate_per_s_ * std::tgamma(1 + 1 / in.weibull_shape));
    }
  }

  void run(double* out) {
    double phase[metric::count] = {};
    phase_ = phase;
    // 1. Start (not exposed to failures).
    spend(metric::queue_h, in_.queue_wait_s);
    spend(metric::setup_h, in_.env_prep_s);
    spend(metric::compile_h, in_.initial_s);
    spend(metric::warmup_h, in_.data_load_s);
    // 2-5. Segments, failures, recoveries.
    time_to_failure_s_ = draw_time_to_failure();
    run_steps(steps_, false);
    // 6. Planned graph changes: one full recompile each (not exposed).
    const double changes = std::round(in_.planned_changes);
    spend(metric::compile_h, changes * in_.recompile_s);
    recompiles_ += changes;
    // 7. Quality gate: one check; a failed check redoes part of the steps, whose result is accepted.
    if (chance_.quality() < in_.rerun_prob) {
      const double redo = std::ceil(in_.rerun_fraction * steps_);
      if (redo >= 1) run_steps(redo, true);
    }
    // 8. End.
    spend(metric::eval_h, in_.eval_final_s);

    if (!std::isfinite(clock_s_))
      fail("scenario",
           "a sample's wall time is beyond the largest number (about 1.8e308 s); check the magnitudes of "
           "job.effective_steps, throughput.step_time_s and the other durations");
    for (const metric::id m : phase_metrics) out[m] = phase[m] / 3600;
    const double wall = clock_s_ / 3600;
    out[metric::wall_h] = wall;
    out[metric::billed_h] = config_.queue_billed ? wall : wall - phase[metric::queue_h] / 3600;
    out[metric::node_h] = static_cast<double>(config_.nodes) * out[metric::billed_h];
    out[metric::goodput] = wall > 0 ? out[metric::useful_h] / wall : 0.0;
    out[metric::failures] = failures_;
    out[metric::recompiles] = recompiles_;
    fill_costs(in_, config_, out);
  }

 private:
  void spend(metric::id phase, double seconds) {
    phase_[phase] += seconds;
    clock_s_ += seconds;
  }

  double draw_time_to_failure() {
    if (rate_per_s_ <= 0) return std::numeric_limits<double>::infinity();
    // A backstop for the rare sample whose luck the expectation check cannot see coming.
    if (failures_ >= max_failures_per_sample)
      fail(path_of(field::failures_node_mtbf_h),
           "a sample reached " + format_number(max_failures_per_sample) +
               " failures without finishing; checkpoint more often or check the failure inputs");
    const double e = -std::log1p(-chance_.failure());  // standard exponential
    return config_.weibull ? weibull_scale_s_ * std::pow(e, 1 / in_.weibull_shape) : e / rate_per_s_;
  }

  // Expected failures before an attempt of `attempt_s` completes: 1/P(no failure) − 1, with
  // P = e^{−λD} (exponential) or e^{−(D/scale)^k} (Weibull, a fresh renewal).
  double expected_failures(double attempt_s) const {
    const double exponent =
        config_.weibull ? std::pow(attempt_s / weibull_scale_s_, in_.weibull_shape) : rate_per_s_ * attempt_s;
    return std::expm1(exponent);
  }

  std::string failure_rate_text() const {
    return "with " + std::to_string(config_.nodes) + " nodes and a node MTBF of " + format_number(in_.node_mtbf_h) +
           " h, the job fails every " + format_approx(1 / rate_per_s_ / 3600) + " h";
  }

  // `parts()` says what makes the attempt long, built only when refusing: the MTBF is not
  // blamed for a step time typed in milliseconds.
  template <class Parts> void check_finishable(double attempt_s, const char* what, const Parts& parts) const {
    const double expected = expected_failures(attempt_s);
    if (expected > max_expected_failures_per_attempt) {
      fail(path_of(field::failures_node_mtbf_h),
           failure_rate_text() + ", but a " + what + " takes " + format_approx(attempt_s / 3600) + " h (" + parts() +
               "): about " + format_approx(expected) +
               " failures are expected before one completes, so the job would never finish; "
               "checkpoint more often (checkpoint.every_steps), shorten recoveries, or check the MTBF" +
               (in_.step_time_s > 600
                    ? "; a step time of " + format_number(in_.step_time_s) +
                          " s is long: if it is in milliseconds, it is " + format_approx(in_.step_time_s / 1000) + " s"
                    : std::string()));
    }
  }

  // Each segment may be finishable and the job still too long for its failure rate (10^18
  // steps): refused before the work, with the expected count, instead of met by the backstop.
  void check_failure_budget(double segments, double segment_s) const {
    const double per_segment = expected_failures(segment_s);
    const double expected = failures_ + segments * per_segment;
    if (expected > max_failures_per_sample) {
      fail(path_of(field::failures_node_mtbf_h),
           failure_rate_text() + "; its " + format_approx(segments) + " segments of " +
               format_approx(segment_s / 3600) + " h expect about " + format_approx(per_segment) +
               " failures each, about " + format_approx(expected) + " in all, more than the " +
               format_approx(max_failures_per_sample) +
               " a sample may simulate; check job.effective_steps and the failure inputs");
    }
  }

  // Rules 2-5 for `steps` steps cut into segments of `every_` steps.
  void run_steps(double steps, bool rerun) {
    const double per_step = t_eff_ + eval_per_step_;
    double full = 0, last_steps = steps;  // `full` segments of every_ steps, then the last one
    if (every_ > 0 && every_ < steps) {
      full = std::ceil(steps / every_) - 1;
      last_steps = steps - full * every_;
    }
    if (full > 0) run_segments(full, every_, every_ * per_step + save_, rerun, save_);
    const double last_save = config_.final_save ? save_ : 0.0;
    run_segments(1, last_steps, last_steps * per_step + last_save, rerun, last_save);
  }

  // `count` identical segments of `steps` steps and duration `duration_s` (save included).
  void run_segments(double count, double steps, double duration_s, bool rerun, double save_s) {
    if (rate_per_s_ > 0) {
      check_finishable(duration_s, "checkpoint segment", [&] {
        return format_approx(steps) + " steps (checkpoint.every_steps) × " + format_approx(t_eff_ + eval_per_step_) +
               " s per step (throughput.step_time_s with stalls and evaluations) + " + format_approx(save_s) +
               " s of checkpoint save";
      });
      check_failure_budget(count, duration_s);
    }
    while (count > 0) {
      // Segments that end before the next failure complete in one step.
      double done = time_to_failure_s_ >= count * duration_s ? count : std::floor(time_to_failure_s_ / duration_s);
      done = std::min(done, count);
      if (done < count) done = std::min(done, count - 1);
      complete(done, steps, duration_s, rerun, save_s);
      count -= done;
      time_to_failure_s_ -= done * duration_s;
      if (count == 0) break;
      // A failure in the next attempt: everything since the segment began is lost.
      spend(metric::lost_h, std::max(0.0, time_to_failure_s_));
      ++failures_;
      recover();
    }
  }

  void complete(double segments, double steps, double duration_s, bool rerun, double save_s) {
    if (segments <= 0) return;
    const double n_steps = segments * steps;
    if (rerun) {
      phase_[metric::rerun_h] += n_steps * (t_eff_ + eval_per_step_);
    } else {
      phase_[metric::useful_h] += n_steps * in_.step_time_s;
      phase_[metric::stall_h] += n_steps * (t_eff_ - in_.step_time_s);
      phase_[metric::eval_h] += n_steps * eval_per_step_;
    }
    phase_[metric::checkpoint_h] += segments * save_s;
    clock_s_ += segments * duration_s;
  }

  // Rule 5: restart, compile (cache hit or miss, drawn per attempt), checkpoint load,
  // warm-up. An interrupted recovery is lost and starts again from scratch.
  void recover() {
    for (;;) {
      time_to_failure_s_ = draw_time_to_failure();  // renewal at the failure
      const bool hit = chance_.cache() < in_.cache_hit_prob;
      const double compile_s = hit ? in_.cache_load_s : in_.recompile_s;
      const double duration_s = in_.restart_s + compile_s + in_.load_s + in_.warmup_s;
      if (config_.during_recovery) {
        check_finishable(duration_s, "recovery", [&] {
          return "failures.restart_s " + format_approx(in_.restart_s) + " s + compile " + format_approx(compile_s) +
                 " s + checkpoint.load_s " + format_approx(in_.load_s) + " s + failures.warmup_s " +
                 format_approx(in_.warmup_s) + " s";
        });
        if (time_to_failure_s_ < duration_s) {
          spend(metric::lost_h, time_to_failure_s_);
          ++failures_;
          continue;
        }
        time_to_failure_s_ -= duration_s;
      }
      spend(metric::recovery_h, in_.restart_s + in_.load_s);
      spend(metric::compile_h, compile_s);
      spend(metric::warmup_h, in_.warmup_s);
      if (!hit) ++recompiles_;
      return;
    }
  }

  const lifecycle_inputs& in_;
  const lifecycle_config& config_;
  chance_draws& chance_;
  double* phase_ = nullptr;
  double steps_, t_eff_, eval_per_step_, every_, save_, rate_per_s_, weibull_scale_s_ = 0;
  double clock_s_ = 0, time_to_failure_s_ = 0, failures_ = 0, recompiles_ = 0;
};

}  // namespace detail

// Runs one sample: fills out[0 .. metric::count).
inline void simulate_sample(const lifecycle_inputs& in, const lifecycle_config& config, chance_draws& chance,
                            double* out) {
  detail::lifecycle_sample(in, config, chance).run(out);
}

}  // namespace trnmodel
