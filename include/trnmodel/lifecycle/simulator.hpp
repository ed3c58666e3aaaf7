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
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/scenario/inputs.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {
namespace detail {

/// The uncertain fields of the scenario and the lifecycle_inputs member each is drawn into, in
/// the field table's order (scenario/fields.hpp).
inline const std::vector<const field_spec*>& lifecycle_input_fields() {
  static const std::vector<const field_spec*> fields = [] {
    std::vector<const field_spec*> out;
    for (const auto& f : scenario_fields())
      if (f.slot != nullptr) out.push_back(&f);
    return out;
  }();
  return fields;
}

/// The settings of a scenario (or of one stage) that are not uncertain.
struct lifecycle_config {
  long long nodes = 1;
  long long keep_last = 1;
  bool queue_billed = false;
  bool final_save = true;
  bool during_recovery = true;
  bool weibull = false;
  bool precompiled = false;
  purchase_mode purchase = purchase_mode::on_demand;
  long long block_hours = 0;  // capacity_block: the block's length

  static detail::lifecycle_config of(const scenario& s) {
    detail::lifecycle_config c;
    c.nodes = s.integer(field::cluster_nodes);
    c.keep_last = s.integer(field::checkpoint_keep_last);
    c.queue_billed = s.flag(field::startup_queue_billed);
    c.final_save = s.flag(field::checkpoint_final);
    c.during_recovery = s.flag(field::failures_during_recovery);
    c.weibull = s.choice<failure_distribution>(field::failures_distribution) == failure_distribution::weibull;
    c.precompiled = s.flag(field::compile_precompiled);
    c.purchase = s.purchase();
    if (c.purchase == purchase_mode::capacity_block) c.block_hours = s.integer(field::prices_block_hours);
    return c;
  }
};

/// The streams of a sample's aleatory draws. The events of a platform (its nodes failing, its
/// spot market, its compile cache) are drawn on streams keyed by the platform's name, so two
/// platforms' events are independent while two runs on one platform share them; the job's own
/// events (the quality gate, a restore check of its storage) are shared by every platform
/// (docs/sensitivity.md, "What two scenarios share").
struct chance_streams {
  std::uint32_t failure = stream_id("chance.failures@");
  std::uint32_t cache = stream_id("chance.cache@");
  std::uint32_t spot = stream_id("chance.spot@");
  std::uint32_t quality = stream_id("chance.quality");
  std::uint32_t restore = stream_id("chance.restore");

  /// The streams of a job on `platform` (the scenario's cluster.platform; "" when unnamed).
  static chance_streams of(const std::string& platform) {
    chance_streams s;
    s.failure = stream_id("chance.failures@" + platform);
    s.cache = stream_id("chance.cache@" + platform);
    s.spot = stream_id("chance.spot@" + platform);
    return s;
  }
};

/// Aleatory randomness of one sample: failures, cache draws, restore checks and the quality
/// gate, each on its own stream, draws numbered per sample. `chance_index` is normally the
/// sample index; a sensitivity design may remap it to resample luck independently of the inputs.
struct chance_draws {
  std::uint64_t seed;
  std::uint64_t chance_index;
  chance_streams streams;
  std::uint32_t failure_draws = 0, cache_draws = 0, restore_draws = 0, spot_draws = 0;

  double failure() { return detail::uniform(seed, chance_index, streams.failure, failure_draws++); }
  double cache() { return detail::uniform(seed, chance_index, streams.cache, cache_draws++); }
  double restore() { return detail::uniform(seed, chance_index, streams.restore, restore_draws++); }
  double spot() { return detail::uniform(seed, chance_index, streams.spot, spot_draws++); }
  // The quality gate of stage `stage` (0 for a job without stages).
  double quality(std::uint32_t stage = 0) const { return detail::uniform(seed, chance_index, streams.quality, stage); }
};

/// Refuses a sample whose failure rate leaves no realistic chance to finish (bounded time
/// instead of an endless loop), saying why and what to change.
inline constexpr double max_expected_failures_per_attempt = 1e4;
/// The most failures one sample may take before it is refused the same way.
inline constexpr double max_failures_per_sample = 1e7;

/// The cost ledger of docs/metrics.md from a sample's inputs and its time metrics, into
/// out[metric::block_idle_usd .. metric::lifecycle_cost_per_step_usd]. NaN inputs (unknown)
/// propagate to exactly the costs that need them. `In` is lifecycle_inputs or any type with its
/// cost members (the common path reads them from columns, lanes.hpp); `Out` indexes metrics.
/// A capacity block costs its fee plus the on-demand node-hours after its window
/// (`overflow_node_h`, costing `overflow_usd`), the idle hours' share of the fee being
/// `block_idle_usd`; spot node-hours cost the spot price.
// Always inlined: the common path's loop over samples (lanes.hpp) vectorises only with no call
// in it.
template <class In, class Out>
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
inline void cost_ledger(const In& in, const detail::lifecycle_config& config, Out& out, double overflow_node_h) {
  const double wall = out[metric::wall_h];
  const double nodes = static_cast<double>(config.nodes);
  // Selects, not branches, so that the common path's loop over samples vectorises (lanes.hpp).
  const bool block = config.purchase == purchase_mode::capacity_block;
  const bool spot = config.purchase == purchase_mode::spot;
  // A block's fee buys every hour of the block alike, so the idle hours cost their share of it;
  // the overflow is billed on demand. Both are parts of the compute cost, not additions.
  const double block_hours = static_cast<double>(config.block_hours);
  out[metric::block_idle_usd] = block ? in.block_usd * out[metric::block_idle_h] / block_hours : 0.0;
  out[metric::overflow_usd] = block ? overflow_node_h * in.node_hour_usd : 0.0;
  // The price of a node-hour: on demand, spot's, or (for a useful step's share of a block) the
  // fee per node-hour of the block.
  const double node_hour_usd =
      block ? in.block_usd / (block_hours * nodes) : (spot ? in.spot_node_hour_usd : in.node_hour_usd);
  out[metric::cost_compute_usd] =
      block ? in.block_usd + out[metric::overflow_usd] : out[metric::node_h] * node_hour_usd;
  out[metric::cost_storage_usd] =
      (in.dataset_gb + in.size_gb * static_cast<double>(config.keep_last)) * in.storage_gb_month_usd * wall / 730;
  out[metric::cost_transfer_usd] = in.transfer_gb * in.transfer_gb_usd;
  out[metric::cost_logs_usd] = in.logs_gb_per_hour * wall * in.logs_gb_usd;
  out[metric::run_cost_usd] = out[metric::cost_compute_usd] + out[metric::cost_storage_usd] +
                              out[metric::cost_transfer_usd] + out[metric::cost_logs_usd];
  out[metric::adaptation_usd] = in.adaptation_h * in.rate_usd_per_h;
  out[metric::total_cost_usd] = out[metric::run_cost_usd] + out[metric::adaptation_usd];
  out[metric::useful_step_cost_usd] = nodes * in.step_time_s * node_hour_usd / 3600;
  const double effective = std::ceil(in.effective_steps);
  out[metric::lifecycle_cost_per_step_usd] = out[metric::run_cost_usd] / (1.0 < effective ? effective : 1.0);
}

/// Whether a sample's node-hours or costs are beyond the largest double (refused, like the wall
/// time, rather than reported as inf; NaN means unknown, and stays).
inline bool costs_refused(const double* out) {
  return std::isinf(out[metric::node_h]) || std::isinf(out[metric::total_cost_usd]) ||
         std::isinf(out[metric::useful_step_cost_usd]);
}

/// The cost ledger (cost_ledger) of one sample, refused (input_error) when beyond the largest
/// double.
inline void fill_costs(const lifecycle_inputs& in, const detail::lifecycle_config& config, double* out,
                       double overflow_node_h = 0) {
  cost_ledger(in, config, out, overflow_node_h);
  if (!costs_refused(out)) return;
  if (std::isinf(out[metric::node_h]))
    detail::fail(path_of(field::cluster_nodes),
                 "a sample's node-hours are beyond the largest number (about 1.8e308); check the magnitudes "
                 "of cluster.nodes and the durations");
  detail::fail("prices",
               "a sample's cost is beyond the largest number (about 1.8e308 USD); check the magnitudes of the "
               "prices, data.* sizes, checkpoint.size_gb and engineering.* hours");
}

// The positions of a stage's kept checkpoints, oldest first: the newest `limit` saves, less
// those dropped (always the newest). Allocates only when restore checks are on.
class kept_checkpoints {
 public:
  void clear() { positions_.clear(), first_ = 0; }
  bool empty() const { return first_ == positions_.size(); }
  double back() const { return positions_.back(); }
  void pop_back() { positions_.pop_back(); }
  void push_back(double position, std::size_t limit) {
    positions_.push_back(position);
    if (positions_.size() - first_ > limit) ++first_;
    if (first_ > 64 && first_ * 2 > positions_.size()) {  // keep the storage to about 2 · limit
      positions_.erase(positions_.begin(), positions_.begin() + static_cast<std::ptrdiff_t>(first_));
      first_ = 0;
    }
  }

 private:
  std::vector<double> positions_;
  std::size_t first_ = 0;
};

// One sample of a job of one or more stages (docs/lifecycle.md): the start once, then each
// stage (a transition before each later one), its segments, failures, recoveries, restore
// checks, planned changes and quality gate, then the final evaluation.
class lifecycle_sample {
 public:
  lifecycle_sample(const lifecycle_inputs* in, const detail::lifecycle_config* config, std::size_t stages,
                   detail::chance_draws& chance)
      : ins_(in), configs_(config), stages_(stages), chance_(chance) {}

  // Fills out[0 .. metric::count) and, when given, stage_out[k * stage_metrics.size() + j]
  // with metric stage_metrics[j] of stage k.
  void run(double* out, double* stage_out = nullptr) {
    double phase[metric::count] = {};
    phase_ = phase;
    double node_h = 0, steps = 0;
    double clock0 = 0, failures0 = 0, fallbacks0 = 0, overflow0 = 0, reacquire0 = 0, phase0[metric::count] = {};
    const bool block = configs_[0].purchase == purchase_mode::capacity_block;
    for (std::size_t k = 0; k < stages_; ++k) {
      if (k == 0) {
        enter_stage(0);
        // 1. Start (not exposed to failures). A capacity block's lead time is the job's queue,
        // and its window opens when the block starts.
        spend(metric::queue_h, block ? in_->block_lead_s : in_->queue_wait_s);
        if (block) open_window();
        time_to_interruption_s_ = draw_time_to_interruption();
        if (block && in_->env_prep_s + in_->initial_s + in_->data_load_s > window_left()) {
          // The window ends before the first step: its time is lost, the start is done on demand.
          spend(metric::lost_h, window_left());
          end_window();
        }
        spend(metric::setup_h, in_->env_prep_s);
        spend(metric::compile_h, in_->initial_s);
        spend(metric::warmup_h, in_->data_load_s);
        time_to_failure_s_ = draw_time_to_failure();
      } else {
        const failure_hazard before = hazard();
        enter_stage(k);
        carry_failure_clock(before);  // at the new stage's failure rate
        if (rate_spot_per_s_ > 0) time_to_interruption_s_ = draw_time_to_interruption();  // and interruption rate
        transition();
      }
      run_stage(static_cast<std::uint32_t>(k));
      // 8. End: the final evaluation, once.
      if (k + 1 == stages_) spend(metric::eval_h, in_->eval_final_s);
      steps += steps_;
      if (stage_out != nullptr || stages_ > 1) {
        // The stage's share: from the end of the previous stage (the first holds the start).
        const double wall = (clock_s_ - clock0) / 3600;
        double billed = configs_[0].queue_billed || k > 0 ? wall : wall - phase[metric::queue_h] / 3600;
        // A later stage's own waits (an on-demand queue after a block, spot's wait for capacity)
        // are not billed either.
        if (k > 0 && !configs_[0].queue_billed) billed -= (phase[metric::queue_h] - phase0[metric::queue_h]) / 3600;
        if (configs_[0].queue_billed) billed -= (reacquire_s_ - reacquire0) / 3600;
        const double stage_node_h = static_cast<double>(config_->nodes) * billed;
        node_h += stage_node_h;
        double* row = stage_out == nullptr ? nullptr : stage_out + k * stage_metrics.size();
        for (std::size_t j = 0; row != nullptr && j < stage_metrics.size(); ++j) {
          const metric::id m = stage_metrics[j];
          double v = (phase[m] - phase0[m]) / 3600;
          if (m == metric::wall_h) v = wall;
          if (m == metric::billed_h) v = billed;
          if (m == metric::node_h) v = stage_node_h;
          if (m == metric::failures) v = failures_ - failures0;
          if (m == metric::restore_fallbacks) v = restore_fallbacks_ - fallbacks0;
          if (m == metric::cost_compute_usd) v = stage_compute_usd(k, stage_node_h, overflow_node_s_ - overflow0);
          if (m == metric::step_time_s) v = in_->step_time_s;
          row[j] = v;
        }
        clock0 = clock_s_;
        failures0 = failures_;
        fallbacks0 = restore_fallbacks_;
        overflow0 = overflow_node_s_;
        reacquire0 = reacquire_s_;
        std::copy(phase, phase + metric::count, phase0);
      }
    }

    if (!std::isfinite(clock_s_))
      detail::fail("scenario",
                   "a sample's wall time is beyond the largest number (about 1.8e308 s); check the magnitudes of "
                   "job.effective_steps, throughput.step_time_s and the other durations");
    for (const metric::id m : phase_metrics) out[m] = phase[m] / 3600;
    const double wall = clock_s_ / 3600;
    out[metric::wall_h] = wall;
    out[metric::billed_h] = configs_[0].queue_billed ? wall : wall - phase[metric::queue_h] / 3600;
    if (reacquire_s_ > 0 && configs_[0].queue_billed) out[metric::billed_h] -= reacquire_s_ / 3600;  // never billed
    out[metric::node_h] = stages_ > 1 ? node_h : static_cast<double>(configs_[0].nodes) * out[metric::billed_h];
    out[metric::goodput] = wall > 0 ? out[metric::useful_h] / wall : 0.0;
    out[metric::failures] = failures_;
    out[metric::recompiles] = recompiles_;
    out[metric::restore_fallbacks] = restore_fallbacks_;
    out[metric::interruptions] = interruptions_;
    if (block) {
      // Hours the job ran in the block: from its start to the job's end or the window's end.
      const double ran_s = std::min(clock_s_, deadline_s_) - window_start_s_;
      out[metric::block_fit] = clock_s_ <= deadline_s_ ? 1.0 : 0.0;
      out[metric::block_idle_h] = static_cast<double>(configs_[0].block_hours) - ran_s / 3600;
      out[metric::overflow_h] = std::max(0.0, clock_s_ - deadline_s_) / 3600;
    } else {
      out[metric::block_fit] = std::numeric_limits<double>::quiet_NaN();  // not a block
      out[metric::block_idle_h] = out[metric::overflow_h] = 0;
    }
    if (stages_ > 1) {
      lifecycle_inputs job = ins_[0];
      job.effective_steps = steps;  // the cost per step is over every stage's steps
      detail::fill_costs(job, configs_[0], out, overflow_node_s_ / 3600);
    } else {
      detail::fill_costs(ins_[0], configs_[0], out, overflow_node_s_ / 3600);
    }
  }

 private:
  // A stage's compute cost: a block's fee (with the first stage) and the on-demand node-hours
  // after its window, the spot price, or the on-demand price.
  double stage_compute_usd(std::size_t k, double stage_node_h, double overflow_node_s) const {
    switch (configs_[0].purchase) {
      case purchase_mode::capacity_block:
        return (k == 0 ? ins_[0].block_usd : 0.0) + overflow_node_s / 3600 * ins_[0].node_hour_usd;
      case purchase_mode::spot: return stage_node_h * ins_[0].spot_node_hour_usd;
      case purchase_mode::on_demand: break;
    }
    return stage_node_h * in_->node_hour_usd;
  }

  // One segment run: `count` identical segments of `steps` steps taking `duration_s` each
  // (`save_s` of it the checkpoint save, which leaves a checkpoint when `saves`).
  struct segment_run {
    double count, steps, duration_s, save_s;
    bool rerun, saves;
    bool checked = false;
  };

  void enter_stage(std::size_t k) {
    stage_ = k;
    in_ = &ins_[k];
    config_ = &configs_[k];
    steps_ = std::max(1.0, std::ceil(in_->effective_steps));
    t_eff_ = in_->step_time_s / (1 - in_->data_stall_fraction);
    eval_per_step_ = in_->eval_every_steps > 0 ? in_->eval_time_s / in_->eval_every_steps : 0.0;
    every_ = std::round(in_->every_steps);
    save_ = in_->save_s + in_->verify_s;
    rate_per_s_ =
        std::isfinite(in_->node_mtbf_h) ? static_cast<double>(config_->nodes) / (in_->node_mtbf_h * 3600) : 0.0;
    rate_spot_per_s_ = config_->purchase == purchase_mode::spot
                           ? static_cast<double>(config_->nodes) * in_->interruptions_per_node_h / 3600
                           : 0.0;
    weibull_scale_s_ = 0;
    if (rate_per_s_ > 0 && config_->weibull) {
      // Weibull with the given shape and mean 1/rate.
      weibull_scale_s_ = 1 / (rate_per_s_ * std::tgamma(1 + 1 / in_->weibull_shape));
    }
    run_count_ = 0;
    kept_.clear();
    position_ = high_ = 0;
    // Only the restore checks read the kept checkpoints: tracking them costs nothing otherwise.
    track_ = in_->restore_fail_prob > 0
                 ? static_cast<std::size_t>(std::min<long long>(config_->keep_last, max_tracked_checkpoints))
                 : 0;
  }

  // Rules 2-7 of one stage.
  void run_stage(std::uint32_t k) {
    add_runs(steps_, false);
    run_to(end_position());
    // 6. Planned graph changes: one full recompile each (not exposed).
    const double changes = std::round(in_->planned_changes);
    spend(metric::compile_h, changes * in_->recompile_s);
    recompiles_ += changes;
    // 7. Quality gate: one check; a failed check redoes part of the steps, whose result is accepted.
    if (chance_.quality(k) < in_->rerun_prob) {
      const double redo = std::ceil(in_->rerun_fraction * steps_);
      if (redo >= 1) {
        add_runs(redo, true);
        run_to(end_position());
      }
    }
  }

  // A transition into a later stage: relaunch, the stage's graphs, checkpoint load, data
  // pipeline; exposed like a recovery, and started again from its beginning when interrupted.
  void transition() {
    const double relaunch_s = std::isnan(in_->transition_s) ? in_->restart_s : in_->transition_s;
    const double compile_s = config_->precompiled ? in_->cache_load_s : in_->initial_s;
    const double duration_s = relaunch_s + compile_s + in_->load_s + in_->data_load_s;
    if (config_->purchase != purchase_mode::on_demand) {
      purchased_transition(duration_s);
    } else if (config_->during_recovery && rate_per_s_ > 0) {
      check_finishable(duration_s, "stage transition", [&] {
        return "transition_s " + detail::format_approx(relaunch_s) + " s + compile " +
               detail::format_approx(compile_s) + " s + checkpoint.load_s " + detail::format_approx(in_->load_s) +
               " s + startup.data_load_s " + detail::format_approx(in_->data_load_s) + " s";
      });
      while (time_to_failure_s_ < duration_s) {
        spend(metric::lost_h, time_to_failure_s_);
        ++failures_;
        time_to_failure_s_ = draw_time_to_failure();
      }
      time_to_failure_s_ -= duration_s;
    }
    spend(metric::transition_h, relaunch_s + in_->load_s);
    spend(metric::compile_h, compile_s);
    spend(metric::warmup_h, in_->data_load_s);
  }

  // A transition with a block's window or spot interruptions: each event restarts it from its
  // beginning (the window's end after an on-demand queue, an interruption after the wait for
  // capacity).
  void purchased_transition(double duration_s) {
    const bool exposed = config_->during_recovery;
    for (;;) {
      const double failure = exposed ? time_to_failure_s_ : inf, interruption = exposed ? time_to_interruption_s_ : inf;
      const double window = window_left();
      const double until = std::min(std::min(failure, interruption), window);
      if (until >= duration_s) break;
      spend(metric::lost_h, until);
      if (exposed) time_to_failure_s_ -= until, time_to_interruption_s_ -= until;
      if (window <= std::min(failure, interruption)) {
        end_window();
      } else if (interruption < failure) {
        interrupted();
      } else {
        ++failures_;
        time_to_failure_s_ = draw_time_to_failure();
      }
    }
    if (exposed) time_to_failure_s_ -= duration_s, time_to_interruption_s_ -= duration_s;
  }

  void spend(metric::id phase, double seconds) {
    phase_[phase] += seconds;
    advance(seconds, phase != metric::queue_h || configs_[0].queue_billed);
  }

  // The clock moves on; with a block, node-seconds after the window's end are bought on demand.
  void advance(double seconds, bool billed) {
    if (block_open_ || block_ended_) {
      const double past_s = clock_s_ + seconds - std::max(clock_s_, deadline_s_);
      if (billed && past_s > 0) overflow_node_s_ += static_cast<double>(config_->nodes) * past_s;
    }
    clock_s_ += seconds;
  }

  static constexpr double inf = std::numeric_limits<double>::infinity();

  // Capacity block: the usable window runs from the block's start for block_hours − margin.
  void open_window() {
    block_open_ = true;
    window_start_s_ = clock_s_;
    deadline_s_ = clock_s_ + (static_cast<double>(config_->block_hours) - in_->block_end_margin_h) * 3600;
  }
  // Seconds until the window ends; +inf without a block or once it has ended. 0 when work that
  // no event interrupts (planned recompiles, the final evaluation) ran past its end: the next
  // exposed work meets the window's end at once.
  double window_left() const { return block_open_ ? std::max(0.0, deadline_s_ - clock_s_) : inf; }
  // The window has ended: the job waits in the on-demand queue (a recovery follows).
  void end_window() {
    block_open_ = false;
    block_ended_ = true;
    spend(metric::queue_h, in_->queue_wait_s);
  }

  // Spot: an interruption (its save, when kept, is the caller's): the wait for capacity (a queue,
  // never billed), and a fresh time to the next interruption. A recovery follows.
  void interrupted() {
    ++interruptions_;
    phase_[metric::queue_h] += in_->reacquire_s;
    clock_s_ += in_->reacquire_s;
    reacquire_s_ += in_->reacquire_s;
    time_to_interruption_s_ = draw_time_to_interruption();
  }

  double draw_time_to_interruption() {
    if (rate_spot_per_s_ <= 0) return inf;
    if (interruptions_ >= detail::max_failures_per_sample)
      detail::fail(path_of(field::spot_interruptions_per_node_h),
                   "a sample reached " + detail::format_number(detail::max_failures_per_sample) +
                       " spot interruptions without finishing; checkpoint more often or check the interruption rate");
    return -dist::detail::lane_log1p(-chance_.spot()) / rate_spot_per_s_;
  }

  double draw_time_to_failure() {
    if (rate_per_s_ <= 0) return std::numeric_limits<double>::infinity();
    // A backstop for the rare sample whose luck the expectation check cannot see coming.
    if (failures_ >= detail::max_failures_per_sample)
      detail::fail(path_of(field::failures_node_mtbf_h),
                   "a sample reached " + detail::format_number(detail::max_failures_per_sample) +
                       " failures without finishing; checkpoint more often or check the failure inputs");
    const double e = -dist::detail::lane_log1p(-chance_.failure());  // standard exponential
    failure_budget_ = e;
    failure_drawn_s_ = config_->weibull ? weibull_scale_s_ * std::pow(e, 1 / in_->weibull_shape) : e / rate_per_s_;
    return failure_drawn_s_;
  }

  // The failure clock at a stage boundary (docs/lifecycle.md, "Stages"). A boundary is not a
  // failure, so the renewal process goes on: the exposed time since the last failure keeps its
  // age, and the new stage's hazard applies from that age on. The standard exponential drawn at
  // the last failure is a budget of cumulative hazard; what the old stage left of it is spent
  // at the new stage's hazard. With exponential times on both sides that is a fresh draw
  // (memoryless), and a fresh draw is what is made.
  struct failure_hazard {
    double rate_per_s, weibull_scale_s, shape;
    bool weibull;
  };
  failure_hazard hazard() const {
    return {rate_per_s_, weibull_scale_s_, config_->weibull ? in_->weibull_shape : 1.0, config_->weibull};
  }
  static double cumulative_hazard(const failure_hazard& h, double age_s) {
    return h.weibull ? std::pow(age_s / h.weibull_scale_s, h.shape) : h.rate_per_s * age_s;
  }
  static double age_at_hazard(const failure_hazard& h, double hazard) {
    return h.weibull ? h.weibull_scale_s * std::pow(hazard, 1 / h.shape) : hazard / h.rate_per_s;
  }
  void carry_failure_clock(const failure_hazard& before) {
    const failure_hazard now = hazard();
    if ((!before.weibull && !now.weibull) || before.rate_per_s <= 0 || now.rate_per_s <= 0) {
      time_to_failure_s_ = draw_time_to_failure();
      return;
    }
    const double age_s = std::max(0.0, failure_drawn_s_ - time_to_failure_s_);
    const double left = std::max(0.0, failure_budget_ - cumulative_hazard(before, age_s));
    failure_budget_ = cumulative_hazard(now, age_s) + left;
    failure_drawn_s_ = age_at_hazard(now, failure_budget_);
    time_to_failure_s_ = std::max(0.0, failure_drawn_s_ - age_s);
  }

  // Expected failures before an attempt of `attempt_s` completes: 1/P(no failure) − 1, with
  // P = e^{−λD} (exponential) or e^{−(D/scale)^k} (Weibull, a fresh renewal).
  double expected_failures(double attempt_s) const {
    const double exponent =
        config_->weibull ? std::pow(attempt_s / weibull_scale_s_, in_->weibull_shape) : rate_per_s_ * attempt_s;
    return std::expm1(exponent);
  }

  std::string failure_rate_text() const {
    return "with " + std::to_string(config_->nodes) + " nodes and a node MTBF of " +
           detail::format_number(in_->node_mtbf_h) + " h, the job fails every " +
           detail::format_approx(1 / rate_per_s_ / 3600) + " h";
  }

  // `parts()` says what makes the attempt long, built only when refusing: the MTBF is not
  // blamed for a step time typed in milliseconds.
  template <class Parts> void check_finishable(double attempt_s, const char* what, const Parts& parts) const {
    const double expected = expected_failures(attempt_s);
    if (expected > detail::max_expected_failures_per_attempt) {
      detail::fail(path_of(field::failures_node_mtbf_h),
                   failure_rate_text() + ", but a " + what + " takes " + detail::format_approx(attempt_s / 3600) +
                       " h (" + parts() + "): about " + detail::format_approx(expected) +
                       " failures are expected before one completes, so the job would never finish; "
                       "checkpoint more often (checkpoint.every_steps), shorten recoveries, or check the MTBF" +
                       (in_->step_time_s > 600 ? "; a step time of " + detail::format_number(in_->step_time_s) +
                                                     " s is long: if it is in milliseconds, it is " +
                                                     detail::format_approx(in_->step_time_s / 1000) + " s"
                                               : std::string()));
    }
  }

  // Each segment may be finishable and the job still too long for its failure rate (10^18
  // steps): refused before the work, with the expected count, instead of met by the backstop.
  void check_failure_budget(double segments, double segment_s) const {
    const double per_segment = expected_failures(segment_s);
    const double expected = failures_ + segments * per_segment;
    if (expected > detail::max_failures_per_sample) {
      detail::fail(path_of(field::failures_node_mtbf_h),
                   failure_rate_text() + "; its " + detail::format_approx(segments) + " segments of " +
                       detail::format_approx(segment_s / 3600) + " h expect about " +
                       detail::format_approx(per_segment) + " failures each, about " + detail::format_approx(expected) +
                       " in all, more than the " + detail::format_approx(detail::max_failures_per_sample) +
                       " a sample may simulate; check job.effective_steps and the failure inputs");
    }
  }

  // Rule 2: `steps` steps cut into segments of `every_` steps, appended to the stage's sequence.
  void add_runs(double steps, bool rerun) {
    const double per_step = t_eff_ + eval_per_step_;
    double full = 0, last_steps = steps;  // `full` segments of every_ steps, then the last one
    if (every_ > 0 && every_ < steps) {
      full = std::ceil(steps / every_) - 1;
      last_steps = steps - full * every_;
    }
    if (full > 0) runs_[run_count_++] = {full, every_, every_ * per_step + save_, save_, rerun, true};
    const double last_save = config_->final_save ? save_ : 0.0;
    runs_[run_count_++] = {1, last_steps, last_steps * per_step + last_save, last_save, rerun, config_->final_save};
  }

  double end_position() const {
    double total = 0;
    for (std::size_t r = 0; r < run_count_; ++r) total += runs_[r].count;
    return total;
  }

  // Rules 3-5 up to segment position `target` of the stage's sequence: each pass completes the
  // failure-free segments of one run at once, then meets the next failure. Segments below the
  // high-water mark are done again after a restore fallback: their time is lost.
  void run_to(double target) {
    while (position_ < target) {
      double first = 0;
      std::size_t r = 0;
      while (first + runs_[r].count <= position_) first += runs_[r++].count;
      segment_run& run = runs_[r];
      double count = std::min(first + run.count, target) - position_;
      const bool redo = position_ < high_;
      if (redo) count = std::min(count, high_ - position_);
      if (rate_per_s_ > 0 && !run.checked) {
        run.checked = true;
        check_finishable(run.duration_s, "checkpoint segment", [&] {
          return detail::format_approx(run.steps) + " steps (checkpoint.every_steps) × " +
                 detail::format_approx(t_eff_ + eval_per_step_) +
                 " s per step (throughput.step_time_s with stalls and evaluations) + " +
                 detail::format_approx(run.save_s) + " s of checkpoint save";
        });
        check_failure_budget(count, run.duration_s);
      }
      if (carry_s_ > 0)
        resume(run, redo);
      else
        attempt(count, run, redo);
    }
  }

  // `count` segments of `run` until the next failure, then that failure and its recovery.
  // The next event is the first of a failure, a spot interruption and a block window's end;
  // without spot or block the last two are +inf and this is the failure alone.
  void attempt(double count, const segment_run& run, bool redo) {
    const double duration_s = run.duration_s;
    const double window = window_left();
    const double failure = time_to_failure_s_, interruption = time_to_interruption_s_;
    const double until = std::min(std::min(failure, interruption), window);
    // Segments that end before the next event complete in one step.
    double done = until >= count * duration_s ? count : std::floor(until / duration_s);
    done = std::min(done, count);
    if (done < count) done = std::min(done, count - 1);
    complete(done, run, redo);
    time_to_failure_s_ -= done * duration_s;
    time_to_interruption_s_ -= done * duration_s;
    if (done == count) return;
    if (window <= failure && window <= interruption) {
      block_window_ends(window - done * duration_s);
      return;
    }
    if (time_to_interruption_s_ < time_to_failure_s_) {
      spot_interruption(std::max(0.0, time_to_interruption_s_));
      return;
    }
    // A failure in the next attempt: everything since the segment began is lost.
    spend(metric::lost_h, std::max(0.0, time_to_failure_s_));
    time_to_interruption_s_ -= std::max(0.0, time_to_failure_s_);
    ++failures_;
    recover();
  }

  // The block's window ends `elapsed_s` into an attempt: the work since the last checkpoint is
  // lost, then the on-demand queue and a recovery.
  void block_window_ends(double elapsed_s) {
    elapsed_s = std::max(0.0, elapsed_s);
    spend(metric::lost_h, elapsed_s);
    time_to_failure_s_ -= elapsed_s;
    end_window();
    recover();
  }

  // A spot interruption `elapsed_s` into an attempt: with a save that fits in the notice the work
  // is kept (the segment resumes where it stopped, its time attributed when it completes);
  // otherwise it is lost as at a failure. Then the wait for capacity and a recovery.
  void spot_interruption(double elapsed_s) {
    time_to_failure_s_ -= elapsed_s;
    if (in_->save_s <= in_->notice_s) {
      clock_s_ += elapsed_s;
      carry_s_ += elapsed_s;
      spend(metric::checkpoint_h, in_->save_s);
    } else {
      spend(metric::lost_h, elapsed_s);
    }
    interrupted();
    recover();
  }

  // The rest of a segment that an interruption saved part of (`carry_s_` done).
  void resume(const segment_run& run, bool redo) {
    const double rest_s = run.duration_s - carry_s_;
    const double failure = time_to_failure_s_, interruption = time_to_interruption_s_;
    const double until = std::min(failure, interruption);
    if (until >= rest_s) {
      time_to_failure_s_ -= rest_s, time_to_interruption_s_ -= rest_s;
      const double already_s = carry_s_;
      carry_s_ = 0;
      complete(1, run, redo, already_s);
      return;
    }
    time_to_interruption_s_ -= until;
    if (interruption < failure) {
      spot_interruption(until);
      return;
    }
    spend(metric::lost_h, until);
    time_to_failure_s_ -= until;
    ++failures_;
    recover();
  }

  // `already_s` of the first segment is already on the clock (kept at an interruption).
  void complete(double segments, const segment_run& run, bool redo, double already_s = 0) {
    if (segments <= 0) return;
    if (track_ > 0 && run.saves) {
      for (double p = std::max(position_ + 1, position_ + segments - static_cast<double>(track_) + 1);
           p <= position_ + segments; ++p)
        kept_.push_back(p, track_);
    }
    position_ += segments;
    if (redo) {
      // Done again after a restore fallback: compute, stalls, evaluations and saves are lost.
      phase_[metric::lost_h] += segments * run.duration_s;
      advance(segments * run.duration_s - already_s, true);
      return;
    }
    high_ = position_;
    const double n_steps = segments * run.steps;
    if (run.rerun) {
      phase_[metric::rerun_h] += n_steps * (t_eff_ + eval_per_step_);
    } else {
      phase_[metric::useful_h] += n_steps * in_->step_time_s;
      phase_[metric::stall_h] += n_steps * (t_eff_ - in_->step_time_s);
      phase_[metric::eval_h] += n_steps * eval_per_step_;
    }
    phase_[metric::checkpoint_h] += segments * run.save_s;
    advance(segments * run.duration_s - already_s, true);
  }

  // Rule 5: restart, compile (cache hit or miss, drawn per attempt), checkpoint load,
  // warm-up. An interrupted recovery is lost and starts again from scratch.
  void recover() {
    if (track_ > 0 && !kept_.empty()) {
      recover_with_checks();
      return;
    }
    for (;;) {
      time_to_failure_s_ = draw_time_to_failure();  // renewal at the failure
      const bool hit = chance_.cache() < in_->cache_hit_prob;
      const double compile_s = hit ? in_->cache_load_s : in_->recompile_s;
      const double duration_s = in_->restart_s + compile_s + in_->load_s + in_->warmup_s;
      if (config_->during_recovery) check_recovery(duration_s, compile_s);
      if (interrupts_recovery(duration_s)) continue;
      if (config_->during_recovery) time_to_failure_s_ -= duration_s, time_to_interruption_s_ -= duration_s;
      spend(metric::recovery_h, in_->restart_s + in_->load_s);
      spend(metric::compile_h, compile_s);
      spend(metric::warmup_h, in_->warmup_s);
      if (!hit) ++recompiles_;
      return;
    }
  }

  // Whether an event ends a recovery of `duration_s` before it completes: a failure or an
  // interruption (when recoveries are exposed) or the block's window end. Its time is lost and
  // the recovery starts again (after the on-demand queue or the wait for capacity).
  bool interrupts_recovery(double duration_s) {
    const bool exposed = config_->during_recovery;
    const double failure = exposed ? time_to_failure_s_ : inf, interruption = exposed ? time_to_interruption_s_ : inf;
    const double window = window_left();
    const double until = std::min(std::min(failure, interruption), window);
    if (until >= duration_s) return false;
    spend(metric::lost_h, until);
    if (window <= std::min(failure, interruption)) {
      time_to_interruption_s_ -= until;
      end_window();
    } else if (interruption < failure) {
      interrupted();
    } else {
      time_to_interruption_s_ -= until;
      ++failures_;
    }
    return true;
  }

  void check_recovery(double duration_s, double compile_s) const {
    check_finishable(duration_s, "recovery", [&] {
      return "failures.restart_s " + detail::format_approx(in_->restart_s) + " s + compile " +
             detail::format_approx(compile_s) + " s + checkpoint.load_s " + detail::format_approx(in_->load_s) +
             " s + failures.warmup_s " + detail::format_approx(in_->warmup_s) + " s";
    });
  }

  // Rule 5 with restore checks (docs/lifecycle.md, "Restore fidelity"): each load of a kept
  // checkpoint is checked; a failed check drops it and loads the next older one; with none
  // left the stage starts over (the first stage from scratch, a later one from the previous
  // stage's last checkpoint, one load without a check). The segments after the checkpoint
  // that passes are done again.
  void recover_with_checks() {
    for (;;) {
      time_to_failure_s_ = draw_time_to_failure();  // renewal at the failure
      const bool hit = chance_.cache() < in_->cache_hit_prob;
      const double compile_s = hit ? in_->cache_load_s : in_->recompile_s;
      if (config_->during_recovery) check_recovery(in_->restart_s + compile_s + in_->load_s + in_->warmup_s, compile_s);
      const bool exposed = config_->during_recovery;
      double elapsed_s = in_->restart_s + compile_s, loads = 0, resume = 0;
      bool interrupted = false;
      for (;;) {
        if (kept_.empty() && stage_ == 0) break;  // from scratch: nothing to load
        elapsed_s += in_->load_s;
        ++loads;
        if (exposed && time_to_failure_s_ < elapsed_s) {
          interrupted = true;
          break;
        }
        if (kept_.empty()) break;  // the previous stage's last checkpoint: it passed the transition
        if (chance_.restore() >= in_->restore_fail_prob) {
          resume = kept_.back();
          break;
        }
        kept_.pop_back();  // dropped for good
        ++restore_fallbacks_;
      }
      elapsed_s += in_->warmup_s;
      if (exposed && (interrupted || time_to_failure_s_ < elapsed_s) &&
          time_to_failure_s_ <= std::min(time_to_interruption_s_, window_left())) {
        spend(metric::lost_h, time_to_failure_s_);
        time_to_interruption_s_ -= time_to_failure_s_;
        ++failures_;
        continue;
      }
      if (interrupts_recovery(elapsed_s)) continue;
      if (exposed) time_to_failure_s_ -= elapsed_s, time_to_interruption_s_ -= elapsed_s;
      spend(metric::recovery_h, in_->restart_s + loads * in_->load_s);
      spend(metric::compile_h, compile_s);
      spend(metric::warmup_h, in_->warmup_s);
      if (!hit) ++recompiles_;
      if (carry_s_ > 0 && resume != position_) {
        phase_[metric::lost_h] += carry_s_;  // a spot save after a checkpoint that was dropped
        carry_s_ = 0;
      }
      position_ = resume;
      return;
    }
  }

  // The restore checks look back through at most this many kept checkpoints.
  static constexpr long long max_tracked_checkpoints = 1 << 16;

  const lifecycle_inputs* ins_;
  const detail::lifecycle_config* configs_;
  std::size_t stages_, stage_ = 0, track_ = 0;
  detail::chance_draws& chance_;
  const lifecycle_inputs* in_ = nullptr;
  const detail::lifecycle_config* config_ = nullptr;
  double* phase_ = nullptr;
  // A stage's sequence: its segments of every_ steps and its last one, then the same for a
  // quality-gate rerun (fixed storage: a sample allocates nothing).
  std::array<segment_run, 4> runs_{};
  std::size_t run_count_ = 0;
  kept_checkpoints kept_;
  double position_ = 0, high_ = 0;  // segments of the stage done now, and ever
  double steps_ = 0, t_eff_ = 0, eval_per_step_ = 0, every_ = 0, save_ = 0, rate_per_s_ = 0, weibull_scale_s_ = 0;
  double clock_s_ = 0, time_to_failure_s_ = 0, failures_ = 0, recompiles_ = 0, restore_fallbacks_ = 0;
  // The last draw of the failure clock: its standard exponential and the time it gave.
  double failure_budget_ = 0, failure_drawn_s_ = 0;
  // Spot: the interruption rate, the time to the next interruption, the part of the current
  // segment kept at an interruption, the time waited for capacity.
  double rate_spot_per_s_ = 0, time_to_interruption_s_ = inf, interruptions_ = 0, carry_s_ = 0, reacquire_s_ = 0;
  // Capacity block: the window's start and end on the clock; node-seconds bought on demand.
  double window_start_s_ = 0, deadline_s_ = inf, overflow_node_s_ = 0;
  bool block_open_ = false, block_ended_ = false;
};

/// Runs one sample of a job without stages: fills out[0 .. metric::count).
inline void simulate_sample(const lifecycle_inputs& in, const detail::lifecycle_config& config,
                            detail::chance_draws& chance, double* out) {
  detail::lifecycle_sample(&in, &config, 1, chance).run(out);
}

/// Runs one sample of a job of `stages` stages; stage_out (when given) receives
/// stage_metrics.size() values per stage.
inline void simulate_stages(const lifecycle_inputs* in, const detail::lifecycle_config* config, std::size_t stages,
                            detail::chance_draws& chance, double* out, double* stage_out) {
  detail::lifecycle_sample(in, config, stages, chance).run(out, stage_out);
}

}  // namespace detail
}  // namespace trnmodel
