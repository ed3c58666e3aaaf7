#pragma once
// From a journal's step-time series to the steady-state step time (docs/journal.md,
// "Warm-up detection" and "Steady-state step time"): the series is cut into its contiguous
// segments (the start, and the part after each restart), MSER-5 removes each segment's
// warm-up, and the steady steps of all segments are pooled into one batch-means interval.
// The warm-up steps' excess over the steady mean is time the scenario charges elsewhere:
// the first segment's to startup.data_load_s, the others' to failures.warmup_s.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/calibrate/statistics.hpp"

namespace trnmodel::calibrate {

/// A run of steps between two interruptions of a step-time series. A plain value: copyable, owns
/// its members; concurrent reads are safe.
struct series_segment {
  std::size_t first = 0,  ///< index of its first value in the series
      values = 0;  ///< its length, in values
  std::size_t warmup_values = 0;  ///< values MSER-5 removed from its start
  double warmup_excess_s = 0;  ///< Σ (t − steady mean) over those values, × steps_per_value
  bool steady_state_found = true;  ///< false when the truncation reached half the segment
};

/// A journal's step-time series analysed: segments, warm-up, steady state, stalls. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct step_analysis {
  std::vector<series_segment> segments;  ///< the contiguous segments, in series order
  std::size_t steady_values = 0;  ///< values left after each segment's warm-up was removed, pooled
  double steady_mean_s = 0;  ///< t̄_eff: includes data-loader and synchronisation waits
  double ci_lo_s = 0,  ///< 95 % batch-means interval of t̄_eff, lower end (equal to the mean with < 4 values)
      ci_hi_s = 0;  ///< its upper end
  double lag1_autocorrelation = 0;  ///< of the batch means (0 with < 4 values); above 0.2 the interval is too narrow
  double data_wait_fraction = 0;  ///< the journal's utilisation.data_wait_fraction (0 when it has none)
  double step_time_s = 0;  ///< the scenario's t = t̄_eff · (1 − data_wait_fraction)
  std::vector<std::string> warnings;  ///< each prefixed with the experiment id

  /// Seconds the first segment's warm-up took beyond steady steps (the scenario charges it to startup.data_load_s).
  double startup_warmup_s() const { return segments.empty() ? 0.0 : segments.front().warmup_excess_s; }
  /// The warm-up excess after each restart, seconds, one per later segment (charged to failures.warmup_s).
  std::vector<double> restart_warmups_s() const {
    std::vector<double> out;
    for (std::size_t k = 1; k < segments.size(); ++k) out.push_back(segments[k].warmup_excess_s);
    return out;
  }
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

// Lengths (in values) of the contiguous segments: from the step numbers when the journal has
// them (a segment ends where the step number goes back), else from the interruptions.
inline std::vector<std::size_t> segment_lengths(const calibrate::journal& j) {
  const std::size_t n = j.step_times_s.size();
  std::vector<std::size_t> lengths;
  if (!j.step_numbers.empty() && j.steps_per_value == 1) {
    std::size_t start = 0;
    for (std::size_t i = 1; i <= n; ++i)
      if (i == n || j.step_numbers[i] <= j.step_numbers[i - 1]) {
        lengths.push_back(i - start);
        start = i;
      }
    return lengths;
  }
  std::int64_t resumed_from = 0;  ///< the step after which the current segment started
  const auto values = [&](std::int64_t steps) {
    return static_cast<std::size_t>((std::max<std::int64_t>(steps, 0) + j.steps_per_value - 1) / j.steps_per_value);
  };
  for (const auto& x : j.interruptions) {
    lengths.push_back(values(x.step - resumed_from));
    if (!x.recovered) break;
    resumed_from = x.restored_from_step;
  }
  if (j.interruptions.empty() || j.interruptions.back().recovered)
    lengths.push_back(values(j.training.steps_completed - resumed_from));
  std::size_t total = 0;
  for (auto l : lengths) total += l;
  if (total != n) return {n};  // the series does not follow the interruptions: one segment
  lengths.erase(std::remove(lengths.begin(), lengths.end(), std::size_t{0}), lengths.end());
  return lengths;
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// Analyses the journal's step-time series: segments, MSER-5 warm-up per segment, the pooled steady mean and its
/// batch-means interval, and the step time net of data-loader waits.
/// Segments shorter than `min_values_for_mser` (20) are not truncated: five batches of five
/// would decide nothing.
inline step_analysis analyze_steps(const journal& j, std::size_t min_values_for_mser = 20) {
  step_analysis a;
  const auto& t = j.step_times_s;
  const auto lengths = detail::segment_lengths(j);
  if (lengths.size() == 1 && !j.interruptions.empty() && j.step_numbers.empty())
    a.warnings.push_back(j.experiment_id +
                         ": the step series does not follow the interruptions; analysed as one segment");
  std::vector<double> steady;
  std::size_t first = 0;
  for (const std::size_t length : lengths) {
    series_segment s;
    s.first = first;
    s.values = length;
    if (length >= min_values_for_mser) {
      const std::vector<double> part(t.begin() + static_cast<std::ptrdiff_t>(first),
                                     t.begin() + static_cast<std::ptrdiff_t>(first + length));
      const auto m = mser_warmup(part, 5, "step_times");
      s.warmup_values = m.truncation;
      s.steady_state_found = !m.at_search_limit;
      if (!s.steady_state_found)
        a.warnings.push_back(j.experiment_id + ": no steady state found in the segment starting at value " +
                             std::to_string(first + 1) + " (MSER-5 truncated half of it)");
    }
    steady.insert(steady.end(), t.begin() + static_cast<std::ptrdiff_t>(first + s.warmup_values),
                  t.begin() + static_cast<std::ptrdiff_t>(first + length));
    a.segments.push_back(s);
    first += length;
  }
  a.steady_values = steady.size();
  if (steady.size() >= 4) {
    const std::size_t batches = std::min<std::size_t>(20, steady.size() / 2);
    const auto bm = batch_means(steady, batches, 0.95, "step_times");
    a.steady_mean_s = bm.mean;
    a.ci_lo_s = bm.lo();
    a.ci_hi_s = bm.hi();
    a.lag1_autocorrelation = bm.lag1_autocorrelation;
    if (bm.lag1_autocorrelation > 0.2)
      a.warnings.push_back(j.experiment_id + ": the batch means are autocorrelated (lag 1: " +
                           detail::format_approx(bm.lag1_autocorrelation, 2) +
                           "), so the step-time interval is too narrow");
  } else {
    for (double x : steady) a.steady_mean_s += x / static_cast<double>(steady.size());
    a.ci_lo_s = a.ci_hi_s = a.steady_mean_s;
  }
  for (auto& s : a.segments) {
    double excess = 0;
    for (std::size_t i = s.first; i < s.first + s.warmup_values; ++i) excess += t[i] - a.steady_mean_s;
    s.warmup_excess_s = std::max(0.0, excess) * static_cast<double>(j.steps_per_value);
  }
  a.data_wait_fraction = j.utilisation ? j.utilisation->data_wait_fraction : 0.0;
  a.step_time_s = a.steady_mean_s * (1 - a.data_wait_fraction);
  return a;
}

}  // namespace trnmodel::calibrate
