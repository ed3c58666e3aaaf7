#pragma once
// Backtest: where did a finished trial run fall in the distribution the scenario predicts
// for that trial? The scenario is reduced to the trial (its completed steps, its checkpoint
// and evaluation cadence, its own final evaluation, no planned graph changes or quality reruns, a warm start when the
// journal's compile came from the cache), simulated, and each observed figure placed in the
// predicted distribution as a percentile (mid-rank for ties). Over several runs these
// percentiles are probability integral transform (PIT) values: uniform on (0, 1) when the
// predictions are calibrated (Dawid 1984; Gneiting, Balabdaoui & Raftery 2007).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/calibrate/statistics.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel::calibrate {

/// One metric of a backtest: where the observation fell in the predicted distribution. A plain
/// value: copyable, owns its members; concurrent reads are safe.
struct backtest_row {
  std::string metric;  ///< the simulator's metric name
  std::string observed_from;  ///< the journal fields it was computed from
  double observed =
      0;  ///< the trial's figure, in the metric's unit (hours for *_h, USD for *_usd, a count of failures)
  double predicted_p10 = 0,  ///< 10th percentile of the predicted samples, in the metric's unit
      predicted_p50 = 0,  ///< median of the predicted samples
      predicted_p90 = 0;  ///< 90th percentile of the predicted samples
  double percentile = 0;  ///< share of predicted samples below the observation (ties count half)
};

/// A backtest of a scenario against trial journals, one row per metric observed. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct backtest_result {
  std::string experiment_id;  ///< the journal's experiment_id
  std::vector<backtest_row> rows;  ///< one per metric the journal observes and the scenario predicts
  std::vector<std::string> notes;  ///< how the scenario was reduced to the trial

  /// The row of `metric` (a simulator metric name); throws trnmodel::input_error at path "metric" when there is none.
  const backtest_row& row(const std::string& metric) const {
    for (const auto& r : rows)
      if (r.metric == metric) return r;
    detail::fail("metric", "the backtest has no row " + metric);
  }
};

/// The scenario reduced to the journal's trial run: its completed steps, checkpoint and evaluation cadence (from the
/// first checkpoint's and evaluation's step), a final checkpoint when the last one holds the last step, no planned
/// recompiles or quality reruns, the journal's queue billing, its final evaluation (unless the journal's quality
/// scope is job) and a cache load for the initial compile on a cache hit. Each change is described in `notes`, when
/// given. Throws trnmodel::input_error at training.steps_completed when the trial completed no step, and at
/// instance.nodes when the scenario names another cluster size.
inline scenario trial_scenario(const scenario& s, const journal& j, std::vector<std::string>* notes = nullptr) {
  const auto note = [&](const std::string& text) {
    if (notes) notes->push_back(text);
  };
  if (j.training.steps_completed < 1)
    detail::fail("training.steps_completed", "must be ≥ 1 to backtest " + j.experiment_id + ", got 0");
  if (s.has_integer(field::cluster_nodes) && s.integer(field::cluster_nodes) != j.instance.nodes)
    detail::fail("instance.nodes", j.experiment_id + " ran on " + std::to_string(j.instance.nodes) +
                                       " node(s), the scenario on " + std::to_string(s.integer(field::cluster_nodes)) +
                                       "; a backtest needs the same cluster");
  using key = journal_key;
  std::vector<std::pair<std::string, ordered_json>> changes{
      {path_of(field::job_effective_steps), static_cast<double>(j.training.steps_completed)},
      {path_of(field::compile_planned_changes), 0},
      {path_of(field::quality_rerun_prob), 0}};
  note("job.effective_steps = " + std::to_string(j.training.steps_completed) +
       " (the steps the trial completed); no "
       "planned recompiles; no quality rerun");
  if (j.known(key::billed)) changes.emplace_back(path_of(field::startup_queue_billed), j.billed.queue_billed);
  const std::int64_t eval_every = j.evaluations.empty() ? 0 : j.evaluations.front().step;
  changes.emplace_back(path_of(field::eval_every_steps), static_cast<double>(eval_every));
  if (j.known(key::checkpoints)) {
    const std::int64_t every = j.checkpoints.empty() ? 0 : j.checkpoints.front().step;
    changes.emplace_back(path_of(field::checkpoint_every_steps), static_cast<double>(every));
    changes.emplace_back(path_of(field::checkpoint_final),
                         !j.checkpoints.empty() && j.checkpoints.back().step == j.training.steps_completed);
    note("checkpoint every " + std::to_string(every) + " steps and evaluation every " + std::to_string(eval_every) +
         " steps, as in the trial");
  } else {
    note("evaluation every " + std::to_string(eval_every) +
         " steps, as in the trial; its checkpoints are not recorded, so the scenario's cadence is kept");
  }
  // The job's final evaluation is not part of a trial, whose own is a proxy with its own time.
  if ((!j.quality || j.quality->scope == quality_scope::trial) && j.known(key::phases_final_eval_s)) {
    changes.emplace_back(path_of(field::eval_final_s), j.phases.final_eval_s);
    note("eval.final_s = " + detail::format_number(j.phases.final_eval_s) + " s, the trial's own final evaluation");
  }
  if (j.known(key::phases_compile_cache_hit) && j.phases.compile_cache_hit) {
    const quantity* load = s.find(field::compile_cache_load_s);
    changes.emplace_back(path_of(field::compile_initial_s), load ? quantity_to_json(*load) : ordered_json(0));
    note("the trial started from the compile cache: compile.initial_s = compile.cache_load_s");
  }
  return s.updated(changes);
}

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

inline double percentile_of(const Eigen::Ref<const Eigen::ArrayXd>& values, double observed) {
  double below = 0, ties = 0, count = 0;
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    const double x = values(i);
    if (std::isnan(x)) continue;
    count += 1;
    if (x < observed)
      below += 1;
    else if (x == observed)
      ties += 1;
  }
  return count > 0 ? (below + 0.5 * ties) / count : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// Simulates the trial (samples kept; at least 1,000) and places the journal's figures.
/// Teardown is not a phase of scenario v1, so it is taken off the observed wall time,
/// node-hours and cost.
inline backtest_result backtest(const scenario& s, const journal& j, run_options options) {
  if (options.samples < 1000)
    detail::fail("samples", "must be ≥ 1000 for a backtest, got " + std::to_string(options.samples));
  backtest_result result;
  result.experiment_id = j.experiment_id;
  const scenario trial = trial_scenario(s, j, &result.notes);
  options.keep_samples = true;
  const run_result run = simulate(trial, options, /*allow_unknown=*/true);
  using key = journal_key;
  const double nodes = static_cast<double>(j.instance.nodes);
  const double teardown_node_h = nodes * j.phases.teardown_s / 3600;
  // Each figure with the journal fields it is computed from: one the trial did not record is
  // not observed, and the notes say so.
  struct figure {
    metric::id id;
    std::string from;
    double value;
    std::vector<key> needs;
  };
  double recovery_compile_s = 0, saves_s = 0, evals_s = j.phases.final_eval_s;
  for (const auto& x : j.interruptions) recovery_compile_s += x.compile_s.value_or(0);
  for (const auto& c : j.checkpoints) saves_s += c.save_s + c.verify_s;
  for (const auto& e : j.evaluations) evals_s += e.time_s;
  std::vector<figure> observed{
      {metric::wall_h, "ended_at − started_at − phases.teardown_s", (j.duration_s() - j.phases.teardown_s) / 3600,
       {key::started_at, key::ended_at}},
      {metric::node_h, "billed.node_hours − nodes × teardown", j.billed.node_hours - teardown_node_h, {key::billed}},
      {metric::queue_h, "phases.queue_s", j.phases.queue_s / 3600, {key::phases_queue_s}},
      {metric::setup_h, "phases.setup_s", j.phases.setup_s / 3600, {key::phases_setup_s}},
      {metric::compile_h, "phases.compile_s + interruptions' compile_s", (j.phases.compile_s + recovery_compile_s) / 3600,
       {key::phases_compile_s}},
      {metric::checkpoint_h, "checkpoints' save_s + verify_s", saves_s / 3600, {key::checkpoints}},
      {metric::eval_h, "evaluations' time_s + phases.final_eval_s", evals_s / 3600, {key::phases_final_eval_s}}};
  if (j.billed.usd && j.billed.node_hours > 0)
    observed.push_back({metric::cost_compute_usd, "billed.usd − the teardown's share",
                        *j.billed.usd * (1 - teardown_node_h / j.billed.node_hours), {key::billed}});
  observed.push_back({metric::failures, "node-failure interruptions", static_cast<double>(j.node_failures()),
                      {j.interruptions.empty() ? key::training_steps_completed : key::interruption_cause}});
  for (const auto& [id, from, value, needs] : observed) {
    const auto missing = std::find_if(needs.begin(), needs.end(), [&](key k) { return !j.known(k); });
    if (missing != needs.end()) {
      result.notes.push_back(std::string(metric_names()[id]) + " is not observed: " + j.experiment_id +
                             " did not record " + journal_path(*missing));
      continue;
    }
    const auto column = run.values(static_cast<std::size_t>(id));
    if (std::isnan(column(0))) {
      result.notes.push_back(std::string(metric_names()[id]) + " is not predicted (an unknown input)");
      continue;
    }
    backtest_row row;
    row.metric = metric_names()[id];
    row.observed_from = from;
    row.observed = value;
    const auto q = run.quantiles(static_cast<std::size_t>(id), {0.1, 0.5, 0.9});
    row.predicted_p10 = q[0];
    row.predicted_p50 = q[1];
    row.predicted_p90 = q[2];
    row.percentile = detail::percentile_of(column, value);
    result.rows.push_back(row);
  }
  return result;
}

/// Whether the backtest's percentiles look uniform (a calibrated model's should). A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct pit_uniformity {
  std::size_t runs = 0;  ///< PIT values tested
  double ks_d = 0;  ///< Kolmogorov–Smirnov statistic: largest gap between their empirical CDF and the uniform's
  double p_value = 1;  ///< asymptotic, with Stephens' small-sample correction
};

/// Kolmogorov–Smirnov test of PIT values against the uniform distribution on (0, 1).
inline pit_uniformity test_pit_uniformity(const std::vector<double>& pit) {
  detail::check_series("pit", pit);
  for (std::size_t i = 0; i < pit.size(); ++i) detail::check_probability(detail::series_element("pit", i), pit[i]);
  pit_uniformity r;
  r.runs = pit.size();
  r.ks_d = ks_statistic(pit, [](double u) { return u; });
  r.p_value = ks_p_value_asymptotic(r.ks_d, pit.size());
  return r;
}

}  // namespace trnmodel::calibrate
