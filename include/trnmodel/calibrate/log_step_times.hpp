#pragma once
// From a training log's points to a step-time series (docs/importing.md, "From points to step
// times"): each value the mean seconds per step over `steps_per_value` steps, the form a
// journal's step_times holds. The rule depends on what the log states:
//   a clock      value = (wall time − the previous point's) / (step − the previous point's),
//                within a part; a part's first point has no value (the time before it is the
//                start's or the restart's, not a step's);
//   step times   value = the stated time, the mean over the steps since the previous point;
//                a part's first point is taken as the mean of the usual interval up to it;
//   a moving     (NxD's throughput over the last w steps) only the points whose windows do not
//   average      overlap: the first at the part's w-th logged step, then every w steps.
// One interval is kept: the most common step difference; points logged at another interval are
// dropped and counted in the notes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trnmodel/calibrate/step_log.hpp"

namespace trnmodel::calibrate {

/// A log's step times at one resolution. A plain value: copyable, owns its members; concurrent
/// reads are safe.
struct log_step_times {
  std::vector<double> step_times_s;  ///< per value: mean seconds per step over its steps_per_value steps
  std::vector<std::int64_t> steps;  ///< per value: the last step it covers
  std::vector<std::size_t> parts;  ///< per value: the part (run or restart) it comes from
  std::int64_t steps_per_value = 1;  ///< steps each value averages (the logging interval, or the moving window)
  std::string rule;  ///< how the values were derived, in words
  std::vector<std::string> notes;  ///< what was dropped or assumed
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

// The most common step difference between consecutive points of a part (the smallest on a tie);
// 0 when no part has two points.
inline std::int64_t usual_interval(const std::vector<calibrate::log_point>& points) {
  std::map<std::int64_t, std::size_t> counts;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (points[i].part == points[i - 1].part) ++counts[points[i].step - points[i - 1].step];
  std::int64_t best = 0;
  std::size_t most = 0;
  for (const auto& [interval, n] : counts)
    if (n > most) best = interval, most = n;
  return best;
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// The step-time series of `log`. Refused when the log holds only a mean (the Trainer's state)
/// or too few points to give a value.
inline log_step_times step_times_of(const step_log& log) {
  const auto& points = log.points;
  if (points.empty())
    detail::fail(log.source, std::isnan(log.mean_step_time_s)
                                 ? std::string("the log has no points")
                                 : "the log holds only a mean step time (" +
                                       detail::format_number(log.mean_step_time_s) + " s over " +
                                       std::to_string(log.mean_over_steps) + " steps), no series");
  bool stated = true, clocked = true;
  for (const auto& p : points) stated = stated && !std::isnan(p.step_time_s), clocked = clocked && !std::isnan(p.wall_time_s);
  if (!stated && !clocked) detail::fail(log.source, "some points have neither a clock nor a stated step time");
  log_step_times out;
  std::size_t dropped = 0;
  const auto keep = [&](const log_point& p, double value) {
    out.step_times_s.push_back(value);
    out.steps.push_back(p.step);
    out.parts.push_back(p.part);
  };
  if (stated && log.averaged_over_steps > 1) {
    const std::int64_t w = log.averaged_over_steps;
    out.steps_per_value = w;
    out.rule = "the stated " + std::to_string(w) + "-step moving averages whose windows do not overlap";
    std::int64_t last_kept = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const bool starts_part = i == 0 || points[i].part != points[i - 1].part;
      if (starts_part) last_kept = points[i].step - 1;  // the part's first logged step opens its first window
      if (points[i].step - last_kept >= w) {
        keep(points[i], points[i].step_time_s);
        last_kept = points[i].step;
      } else {
        ++dropped;
      }
    }
    if (dropped > 0)
      out.notes.push_back(std::to_string(dropped) + " points whose windows overlap a kept one (or open a part) not used");
  } else {
    const std::int64_t d = std::max<std::int64_t>(detail::usual_interval(points), 1);
    out.steps_per_value = d;
    std::size_t first_points = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const bool starts_part = i == 0 || points[i].part != points[i - 1].part;
      if (stated) {
        if (starts_part || points[i].step - points[i - 1].step == d) {
          keep(points[i], points[i].step_time_s);
        } else {
          ++dropped;
        }
      } else if (starts_part) {
        ++first_points;
      } else if (points[i].step - points[i - 1].step == d) {
        keep(points[i], (points[i].wall_time_s - points[i - 1].wall_time_s) / static_cast<double>(d));
      } else {
        ++dropped;
      }
    }
    out.rule = stated ? "the stated step times, each the mean over the " + std::to_string(d) +
                            " step(s) since the point before (a part's first point taken as the same)"
                      : "clock differences over step differences of " + std::to_string(d) + " step(s)";
    if (first_points > 0)
      out.notes.push_back("each part's first point (" + std::to_string(first_points) +
                          ") gives no value: the time before it is the start's or the restart's, not a step's");
    if (dropped > 0)
      out.notes.push_back(std::to_string(dropped) + " points logged at an interval other than " + std::to_string(d) +
                          " step(s) not used");
  }
  if (out.step_times_s.empty()) detail::fail(log.source, "too few points for a step time (" + out.rule + ")");
  for (std::size_t i = 0; i < out.step_times_s.size(); ++i)
    if (!(out.step_times_s[i] > 0))
      detail::fail(log.source, "step " + std::to_string(out.steps[i]) + ": the step time is " +
                                   detail::format_number(out.step_times_s[i]) +
                                   " s (two points logged at the same clock reading?); it must be > 0");
  return out;
}

}  // namespace trnmodel::calibrate
