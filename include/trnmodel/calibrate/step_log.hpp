#pragma once
// What a training log holds about its steps (docs/importing.md): the logged points in the
// order the log holds them, each with the optimizer step it follows and, when the log has
// them, the clock reading and the step time it states. Every importer (MLflow runs, the
// Hugging Face Trainer's state, a CSV, a console log: log_*.hpp) reads its format into a
// step_log; log_step_times.hpp turns its points into a step-time series.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"

namespace trnmodel::calibrate {

/// One logged point: the optimizer step it was logged after, and what the log says about it.
/// A plain value: copyable, owns its members; concurrent reads are safe.
struct log_point {
  std::int64_t step = 0;  ///< optimizer step (global step) the point was logged after, ≥ 0
  double wall_time_s = std::numeric_limits<double>::quiet_NaN();  ///< seconds since 1970-01-01T00:00:00Z when
                                                                  ///< logged; NaN when the log has no clock
  double step_time_s = std::numeric_limits<double>::quiet_NaN();  ///< seconds per step the log states (a step
                                                                  ///< time, or batch ÷ throughput); NaN when none
  std::size_t part = 0;  ///< which file (or run, or relaunch) of the log it came from, in order: a new part is a restart
};

/// A training log's steps as its format holds them. A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct step_log {
  log_format format = log_format::csv;  ///< which kind of log it was read from
  std::string source;  ///< what was read (a path, a run id), for messages and the journal's notes
  std::vector<log_point> points;  ///< in the order the log holds them (within a part, the order written)
  /// A clock reading before the first step, seconds since 1970 (MLflow's run start_time); NaN
  /// when the log has none.
  double started_wall_time_s = std::numeric_limits<double>::quiet_NaN();
  /// The stated step times are moving averages over this many steps (NxD's throughput: 10); 1 when
  /// each is one step's (or one logging interval's) own.
  std::int64_t averaged_over_steps = 1;
  /// Only a mean is known (the Trainer's train_runtime over its steps): mean_step_time_s over
  /// mean_over_steps steps, and no points. NaN / 0 otherwise.
  double mean_step_time_s = std::numeric_limits<double>::quiet_NaN();
  std::int64_t mean_over_steps = 0;  ///< steps the mean is over (0 when there is no mean)
  /// What the reader did or could not do, in words (each becomes a line of the journal's notes
  /// and an import warning), e.g. "throughput is a 10-step moving average: ...".
  std::vector<std::string> notes;

  /// Parts (files, runs or relaunches) the points come from: 0 without points.
  std::size_t parts() const { return points.empty() ? 0 : points.back().part + 1; }
};

/// What a logged metric's values are, and what turns them into step times: only its clock
/// (`clock`: the values are anything, the log's timestamps give the step times), step times in
/// seconds, or a throughput in sequences per second (step time = global batch ÷ throughput),
/// averaged by the logger over its last `throughput_window_steps` steps (NxD: 10). A plain value.
struct value_meaning {
  metric_meaning meaning = metric_meaning::clock;  ///< what the values are
  std::int64_t global_batch = 0;  ///< sequences per optimizer step; needed for a throughput (0 = not known)
  std::int64_t throughput_window_steps = 10;  ///< steps a throughput averages (its logger's moving window)
};

/// The points of values a caller decoded itself (TensorBoard's events, a user's pattern), one per
/// logged record, read by the rules the readers follow: `parts[i]` the file (or run) of record i,
/// `where[i]` its place for messages; a step at or below the last one is a restart (a new part)
/// when `restart_starts_part`, and an error otherwise. A plain value.
struct logged_values {
  std::vector<std::int64_t> steps;  ///< per record: the optimizer step
  std::vector<double> wall_time_s;  ///< per record: seconds since 1970, NaN without a clock
  std::vector<double> values;  ///< per record: the metric's value (its meaning: value_meaning)
  std::vector<std::size_t> parts;  ///< per record: its file or run, in order
  std::vector<std::string> where;  ///< per record: the file and record or line, for messages
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

// The stated step time of one logged value (NaN for a clock metric); `where` names the record.
inline double stated_step_time_s(double value, const calibrate::value_meaning& m, const std::string& where) {
  switch (m.meaning) {
    case metric_meaning::clock: return std::numeric_limits<double>::quiet_NaN();
    case metric_meaning::step_time_s:
      if (!(std::isfinite(value) && value > 0))
        detail::fail(where, "a step time must be a number of seconds > 0, got " + detail::format_number(value));
      return value;
    case metric_meaning::throughput:
      if (!(std::isfinite(value) && value > 0))
        detail::fail(where, "a throughput must be a number of sequences/s > 0, got " + detail::format_number(value));
      if (m.global_batch <= 0)
        detail::fail("global_batch", "required: the log states throughput (sequences/s), not step times (" + where +
                                         "); the step time is global_batch / throughput");
      return static_cast<double>(m.global_batch) / value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// What reading values of meaning `m` did, said in the log: a throughput's moving window.
inline void note_meaning(calibrate::step_log& log, const calibrate::value_meaning& m) {
  if (m.throughput_window_steps < 1)
    detail::fail("throughput_window_steps", "must be ≥ 1, got " + std::to_string(m.throughput_window_steps));
  if (m.meaning != metric_meaning::throughput) return;
  log.averaged_over_steps = m.throughput_window_steps;
  log.notes.push_back("throughput is a " + std::to_string(m.throughput_window_steps) +
                      "-step moving average: step time = global batch " + std::to_string(m.global_batch) +
                      " / throughput, each the mean of the " + std::to_string(m.throughput_window_steps) +
                      " steps up to its step");
}

// The whole of `text` as a finite number (leading and trailing blanks allowed), or nothing.
inline std::optional<double> parse_finite(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return std::nullopt;
  const auto last = text.find_last_not_of(" \t\r");
  const std::string core = text.substr(first, last - first + 1);
  char* end = nullptr;
  const double x = std::strtod(core.c_str(), &end);
  if (end != core.c_str() + core.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// A step number from text: a whole number in [0, 2^53] (a logger may write 12.0), or nothing.
inline std::optional<std::int64_t> parse_step_number(const std::string& text) {
  const auto x = parse_finite(text);
  if (!x || *x < 0 || *x > max_whole_number || std::floor(*x) != *x) return std::nullopt;
  return static_cast<std::int64_t>(*x);
}

// Appends `p` to `log`'s current part, or starts a new one. A step at or below the last one is a
// restart when `restart_starts_part` (a log the relaunched job appends to: it goes on from its
// checkpoint's step), and an error otherwise (`where`: the file and line). A clock that goes back
// within a part is an error.
inline void append_point(calibrate::step_log& log, calibrate::log_point p, bool restart_starts_part,
                         const std::string& where) {
  if (!log.points.empty()) {
    const calibrate::log_point& last = log.points.back();
    p.part = std::max(p.part, last.part);
    if (p.part == last.part && p.step <= last.step) {
      if (!restart_starts_part)
        detail::fail(where, "steps must increase within a file: step " + std::to_string(p.step) + " after step " +
                                std::to_string(last.step));
      ++p.part;
    }
    if (p.part == last.part && p.wall_time_s < last.wall_time_s)
      detail::fail(where, "the clock goes back within a run: " + detail::format_number(p.wall_time_s) +
                              " s after " + detail::format_number(last.wall_time_s) + " s");
  }
  log.points.push_back(p);
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// A step_log of values a caller decoded itself (TensorBoard's events, a user's pattern), read
/// by the readers' rules (logged_values); `meaning` says what the values are.
inline step_log step_log_of_values(log_format format, const std::string& source, const logged_values& records,
                                   const value_meaning& meaning, bool restart_starts_part) {
  const std::size_t n = records.steps.size();
  if (records.wall_time_s.size() != n || records.values.size() != n || records.parts.size() != n ||
      records.where.size() != n)
    detail::fail(source, "the logged values' columns differ in length");
  step_log log;
  log.format = format;
  log.source = source;
  std::size_t restarts = 0;  // parts the restarts added: a record's part is its given part plus these
  for (std::size_t i = 0; i < n; ++i) {
    if (records.steps[i] < 0)
      detail::fail(records.where[i], "the step must be ≥ 0, got " + std::to_string(records.steps[i]));
    if (!std::isnan(records.wall_time_s[i]) && !std::isfinite(records.wall_time_s[i]))
      detail::fail(records.where[i], "the clock must be finite, got " + detail::format_number(records.wall_time_s[i]));
    if (i == 0 ? records.parts[0] != 0
               : records.parts[i] != records.parts[i - 1] && records.parts[i] != records.parts[i - 1] + 1)
      detail::fail(records.where[i], "the parts must count 0, 1, 2, ... in order, each the one before or the next");
    log_point p;
    p.step = records.steps[i];
    p.wall_time_s = records.wall_time_s[i];
    p.step_time_s = detail::stated_step_time_s(records.values[i], meaning, records.where[i]);
    p.part = records.parts[i] + restarts;
    const std::size_t part_before = log.points.empty() ? 0 : log.points.back().part;
    detail::append_point(log, p, restart_starts_part, records.where[i]);
    if (i > 0 && records.parts[i] == records.parts[i - 1] && log.points.back().part > part_before) ++restarts;
  }
  detail::note_meaning(log, meaning);
  if (restarts > 0)
    log.notes.push_back(std::to_string(restarts) + " restart(s): a step at or below the one before, read as a new part");
  return log;
}

}  // namespace trnmodel::calibrate
