#pragma once
// The checkpoint interval that minimises a statistic of a metric, found by simulation on common
// random numbers, beside Young's and Daly's closed forms (docs/sensitivity.md). Python's
// tm.checkpoint_interval calls this.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/lifecycle/theory.hpp"
#include "trnmodel/montecarlo/run_options.hpp"
#include "trnmodel/montecarlo/run_result.hpp"
#include "trnmodel/montecarlo/summary_row.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/sensitivity/statistic.hpp"
#include "trnmodel/sensitivity/sweep.hpp"

namespace trnmodel::detail {

// NumPy's pairwise summation (what np.mean sums a contiguous float64 array with): eight
// running sums over blocks of up to 128 values, halves above that. The seconds per step are
// averaged this way so that the interval has the bits Python has always computed.
inline double pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

// The mean of a quantity, or `absent` when the scenario has none (no default either).
inline double mean_or(const scenario& s, field f, double absent) {
  const quantity* q = s.find(f);
  return q == nullptr ? absent : q->mean();
}

}  // namespace trnmodel::detail

namespace trnmodel::sensitivity {

/// What checkpoint_interval() searches: the candidates, the metric and its statistic.
/// A plain value.
struct checkpoint_interval_options {
  /// Candidate checkpoint.every_steps (any order, duplicates ignored); empty: 25 values
  /// spaced geometrically from Daly's interval / 4 to 4 × Daly's. Young's and Daly's
  /// intervals in steps are always added.
  std::vector<long long> every_steps;
  /// The metric minimised.
  metric::id output = metric::wall_h;
  /// Its statistic: the mean, or a summary quantile (P10, P50, P80, P90 or P99, which a
  /// sweep streams).
  statistic stat = statistic::mean();
  /// Samples of the pilot run that measures the mean seconds per step.
  std::uint64_t pilot_samples = 2000;
};

/// The simulated best checkpoint interval beside Young's and Daly's, and the sweep behind it.
/// A plain value (it owns its runs).
struct checkpoint_interval_result {
  double step_s;  ///< mean seconds per step: step time with stalls, plus eval time per step
  double checkpoint_s;  ///< δ: mean checkpoint.save_s + checkpoint.verify_s
  double mtbf_s;  ///< M: the job's MTBF, mean failures.node_mtbf_h × 3600 / cluster.nodes
  double young_s;  ///< Young's interval √(2δM), compute seconds between checkpoints
  double daly_s;  ///< Daly's interval
  long long young_steps;  ///< Young's interval in steps (rounded half to even, at least 1)
  long long daly_steps;  ///< Daly's interval in steps
  long long best_steps;  ///< the candidate with the lowest statistic (the smallest on a tie)
  std::vector<long long> candidates;  ///< the every_steps swept, ascending
  std::vector<double> values;  ///< the statistic of the output at each candidate
  run_result pilot;  ///< the pilot run (every metric, samples kept)
  std::vector<sweep_point> sweep;  ///< one point per candidate, in candidates' order

  /// The statistic at a candidate; input_error for a value that was not swept.
  double value_at(long long every_steps) const {
    const auto it = std::lower_bound(candidates.begin(), candidates.end(), every_steps);
    if (it == candidates.end() || *it != every_steps)
      trnmodel::detail::fail("every_steps", "was not swept, got " + std::to_string(every_steps));
    return values[static_cast<std::size_t>(it - candidates.begin())];
  }
  /// The best candidate's interval in compute seconds (best_steps × step_s).
  double best_interval_s() const { return static_cast<double>(best_steps) * step_s; }
};

/// The simulated optimal checkpoint.every_steps of `s` beside Young's (1974) and Daly's (2006)
/// intervals. The closed forms take the inputs' means: δ = save_s + verify_s and the job's MTBF
/// M = node_mtbf_h · 3600 / nodes; a pilot run (`pilot_samples`, seed and threads of `options`)
/// gives the mean seconds per step, which converts them to steps. The candidates are swept on
/// common random numbers (sweep(), `options` at every point) and the one with the lowest
/// statistic of the output wins. Refuses a scenario without a failure model and (as simulate
/// does) unknown inputs. Progress is one count over the pilot and the sweep (its total exact
/// once the pilot has run); cancellation as in sweep(). Thread-safe as simulate.
inline checkpoint_interval_result checkpoint_interval(const scenario& s, const run_options& options,
                                                      const checkpoint_interval_options& search = {}) {
  if (s.find(field::failures_node_mtbf_h) == nullptr)
    trnmodel::detail::fail(path_of(field::failures_node_mtbf_h), "checkpoint_interval needs a failure model (it is absent)");
  double summary_p = -1;  // the sweep streams its quantiles: only a summary column is exact
  if (!search.stat.is_mean()) {
    for (const double p : summary_probabilities())
      if (std::abs(search.stat.probability - p) < 5e-7) summary_p = p;
    if (summary_p < 0)
      trnmodel::detail::fail(
          "statistic", "checkpoint_interval supports mean, p10, p50, p80, p90 and p99, got " + search.stat.name());
  }
  if (search.pilot_samples == 0) trnmodel::detail::fail("pilot_samples", "must be ≥ 1, got 0");

  const double nodes = static_cast<double>(s.integer(field::cluster_nodes));
  const double checkpoint_s = trnmodel::detail::mean_or(s, field::checkpoint_save_s, 0.0) +
                              trnmodel::detail::mean_or(s, field::checkpoint_verify_s, 0.0);
  const double mtbf_s = trnmodel::detail::mean_or(s, field::failures_node_mtbf_h, HUGE_VAL) * 3600 / nodes;

  // Most default grids have 25 candidates and the two closed forms: the total until it is known.
  const std::uint64_t guess = search.every_steps.empty() ? 27 : search.every_steps.size() + 2;
  run_options pilot_options = options;
  pilot_options.samples = search.pilot_samples;
  pilot_options.keep_samples = true;
  if (options.progress)
    pilot_options.progress = [&](std::uint64_t done, std::uint64_t) {
      options.progress(done, search.pilot_samples + guess * options.samples);
    };
  run_result pilot = simulate(s, pilot_options);

  // Seconds per step: the step time with its stalls, plus the periodic eval per step.
  const auto step = pilot.values(metric::step_time_s), stall = pilot.values(metric::stall_h),
             useful = pilot.values(metric::useful_h);
  std::vector<double> per_step(static_cast<std::size_t>(step.size()));
  for (Eigen::Index i = 0; i < step.size(); ++i)
    per_step[static_cast<std::size_t>(i)] = step(i) * (1 + stall(i) / std::max(useful(i), 1e-300));
  double step_s =
      trnmodel::detail::pairwise_sum(per_step.data(), per_step.size()) / static_cast<double>(per_step.size());
  const double eval_every = trnmodel::detail::mean_or(s, field::eval_every_steps, 0.0);
  step_s += eval_every > 0 ? trnmodel::detail::mean_or(s, field::eval_time_s, 0.0) / eval_every : 0.0;

  checkpoint_interval_result r{step_s,
                               checkpoint_s,
                               mtbf_s,
                               theory::young_interval_s(checkpoint_s, mtbf_s),
                               theory::daly_interval_s(checkpoint_s, mtbf_s),
                               0,
                               0,
                               0,
                               {},
                               {},
                               std::move(pilot),
                               {}};
  // Python's round(): half to even, which nearbyint does in the default rounding mode.
  const auto steps_of = [](double x) { return std::max(1LL, static_cast<long long>(std::nearbyint(x))); };
  r.young_steps = steps_of(r.young_s / step_s);
  r.daly_steps = steps_of(r.daly_s / step_s);
  std::set<long long> grid(search.every_steps.begin(), search.every_steps.end());
  if (search.every_steps.empty())
    for (int k = -12; k <= 12; ++k)
      grid.insert(steps_of(static_cast<double>(r.daly_steps) * std::pow(4.0, static_cast<double>(k) / 12)));
  grid.insert(r.young_steps);
  grid.insert(r.daly_steps);
  r.candidates.assign(grid.begin(), grid.end());

  sweep_axis axis{path_of(field::checkpoint_every_steps), {}};
  for (const long long steps : r.candidates) axis.values.emplace_back(steps);
  run_options sweep_options = options;
  sweep_options.keep_samples = false;  // streamed, as Python's sweep: the quantiles are the histogram's
  if (options.progress)
    sweep_options.progress = [&](std::uint64_t done, std::uint64_t total) {
      options.progress(search.pilot_samples + done, search.pilot_samples + total);
    };
  r.sweep = sweep(s, {axis}, sweep_options);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < r.sweep.size(); ++k) {
    const run_result& point = r.sweep[k].result;
    const auto column = static_cast<std::size_t>(search.output);
    const double value = summary_p < 0 ? point.stats(column).mean : point.quantile(column, summary_p);
    r.values.push_back(value);
    if (k == 0 || value < best) {
      best = value;
      r.best_steps = r.candidates[k];
    }
  }
  return r;
}

}  // namespace trnmodel::sensitivity
