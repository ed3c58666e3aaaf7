#pragma once
// The journal's cross-field rules (docs/journal.md, "Validation"): what no single field can
// say, checked once every field has loaded. A broken rule is an error naming the field; what
// is odd but leaves the data usable becomes a warning kept in journal_record::warnings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "trnmodel/calibrate/journal_record.hpp"
#include "trnmodel/check.hpp"
#include "trnmodel/detail/problems.hpp"

namespace trnmodel::detail {

inline bool within_tolerance(double actual, double expected, double absolute, double relative) {
  return std::fabs(actual - expected) <= std::max(absolute, relative * std::fabs(expected));
}

// `previous` is the latest `at` of the list so far (−∞ before the first).
inline void check_event_time(const calibrate::journal_record& j, const std::string& path,
                             const std::optional<double>& at, double& previous, problem_list& problems) {
  using k = calibrate::journal_key;
  if (!at) return;
  if (j.known(k::started_at) && j.known(k::ended_at) && (*at < j.started_at_s || *at > j.ended_at_s))
    problems.add(path, "must lie between started_at and ended_at");
  if (!(*at > previous)) problems.add(path, "must be later than the previous entry's at (entries are in time order)");
  previous = *at;
}

// With step numbers, the series must run 1, 2, … and restart at restored_from_step + 1
// after each interruption.
inline void check_step_column(calibrate::journal_record& j) {
  const auto warn = [&](const std::string& message) { j.warnings.push_back(message); };
  const auto& step_numbers = j.step_numbers;
  const auto& interruptions = j.interruptions;
  const auto& steps_per_value = j.steps_per_value;
  if (step_numbers.empty() || steps_per_value != 1) return;
  std::size_t next_interruption = 0;
  std::int64_t expected = 1;
  for (std::size_t i = 0; i < step_numbers.size(); ++i) {
    if (step_numbers[i] != expected && next_interruption < interruptions.size() &&
        step_numbers[i] == interruptions[next_interruption].restored_from_step + 1) {
      expected = step_numbers[i];
      ++next_interruption;
    }
    if (step_numbers[i] != expected) {
      warn("step_times.step_column: row " + std::to_string(i + 1) + " is step " + std::to_string(step_numbers[i]) +
           ", expected " + std::to_string(expected));
      return;
    }
    ++expected;
  }
}

inline void check_journal_warnings(calibrate::journal_record& j, std::int64_t redone_total) {
  using k = calibrate::journal_key;
  const auto warn = [&](const std::string& message) { j.warnings.push_back(message); };
  const bool clock_known = j.known(k::started_at) && j.known(k::ended_at);
  const bool split_known = j.known(k::phases_queue_s) && j.known(k::phases_setup_s) && j.known(k::phases_compile_s) &&
                           j.known(k::phases_data_load_s);
  const bool phases_known = (j.phases.before_first_step_s || split_known) && j.known(k::phases_training_s) &&
                            j.known(k::phases_final_eval_s);
  const bool recoveries_known = j.known(k::interruption_detection_s) && j.known(k::interruption_recovery_s);
  const auto& interruptions = j.interruptions;
  const auto& checkpoints = j.checkpoints;
  const auto& evaluations = j.evaluations;
  const auto& phases = j.phases;
  const auto& billed = j.billed;
  const auto& utilisation = j.utilisation;
  const auto& quality = j.quality;
  const auto& instance = j.instance;
  const auto& training = j.training;
  const auto& step_times_s = j.step_times_s;
  const auto& steps_per_value = j.steps_per_value;
  const double wall_s = j.duration_s();
  if (clock_known && phases_known && !within_tolerance(phases.sum_s(), wall_s, 60, 0.01))
    warn("phases: the phases sum to " + detail::format_approx(phases.sum_s(), 6) + " s, but ended_at − started_at is " +
         detail::format_approx(wall_s, 6) + " s");
  double accounted = 0;
  for (double t : step_times_s) accounted += t * static_cast<double>(steps_per_value);
  for (const auto& c : checkpoints) accounted += c.save_s + c.verify_s;
  for (const auto& e : evaluations) accounted += e.time_s;
  for (const auto& x : interruptions) accounted += x.detection_s + x.recovery_s;
  const double remainder = phases.training_s - accounted;
  if (j.known(k::phases_training_s) && j.known(k::checkpoints) && recoveries_known &&
      (remainder < -std::max(1.0, 0.001 * phases.training_s) || remainder > std::max(60.0, 0.02 * phases.training_s)))
    warn("phases.training_s: " + detail::format_number(phases.training_s) +
         " s, but the steps, saves, evaluations and recoveries "
         "listed account for " +
         detail::format_approx(accounted, 6) + " s");
  const std::int64_t executed = training.steps_completed + redone_total;
  const auto expected_values = static_cast<std::size_t>((executed + steps_per_value - 1) / steps_per_value);
  if (step_times_s.size() != expected_values)
    warn("step_times: " + std::to_string(step_times_s.size()) +
         " values, expected ⌈(steps_completed + redone steps) / "
         "steps_per_value⌉ = " +
         std::to_string(expected_values));
  check_step_column(j);
  const double billed_h = (wall_s - (billed.queue_billed ? 0.0 : phases.queue_s)) / 3600.0;
  const double expected_node_h = static_cast<double>(instance.nodes) * billed_h;
  if (j.known(k::billed) && clock_known && (billed.queue_billed || j.known(k::phases_queue_s)) &&
      !within_tolerance(billed.node_hours, expected_node_h, 0.02, 0.02))
    warn("billed.node_hours: " + detail::format_number(billed.node_hours) + ", but nodes × billed time is " +
         detail::format_approx(expected_node_h, 6));
  if (billed.usd && billed.node_hour_usd &&
      !within_tolerance(*billed.usd, billed.node_hours * *billed.node_hour_usd, 0.01, 0.01))
    warn("billed.usd: " + detail::format_number(*billed.usd) + ", but node_hours × node_hour_usd is " +
         detail::format_approx(billed.node_hours * *billed.node_hour_usd, 6));
  if (!utilisation) {
    warn("utilisation: absent, so the data-loader stall cannot be calibrated");
  } else if (utilisation->accelerator_busy_fraction + utilisation->data_wait_fraction +
                 utilisation->sync_wait_fraction >
             1 + 1e-9) {
    warn("utilisation: the busy, data-wait and sync-wait shares sum above 1");
  }
  if (!quality) {
    warn("quality: absent, so the quality outcome is unknown");
  } else {
    const bool reached =
        quality->better == quality_direction::lower ? quality->achieved <= quality->target : quality->achieved >= quality->target;
    if (reached != quality->passed)
      warn("quality.passed: " + std::string(quality->passed ? "true" : "false") + ", but achieved " +
           detail::format_number(quality->achieved) + " against target " + detail::format_number(quality->target) +
           " (" + name_of_choice(quality->better) + " is better) says otherwise");
  }
  if (instance.ranks_per_node && training.tp * training.pp * training.dp != instance.nodes * *instance.ranks_per_node)
    warn("training: tp × pp × dp = " + std::to_string(training.tp * training.pp * training.dp) +
         ", but nodes × ranks_per_node = " + std::to_string(instance.nodes * *instance.ranks_per_node));
  const bool ended_by_interruption = !interruptions.empty() && !interruptions.back().recovered;
  if (j.known(k::training_effective_steps_planned) && training.steps_completed < training.effective_steps_planned &&
      !ended_by_interruption)
    warn("training.steps_completed: " + std::to_string(training.steps_completed) + " of " +
         std::to_string(training.effective_steps_planned) + " planned, with no unrecovered interruption to say why");
  if (j.known(k::checkpoints) && training.steps_completed > 0 && checkpoints.empty()) warn("checkpoints: none, although steps were completed");
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// Every rule on `j`: the errors first (in document order; all of them in one input_error), then
/// the warnings. A rule that reads a field the journal lists as unknown is not checked.
inline void check_journal_rules(journal_record& j) {
  using k = journal_key;
  const auto warn = [&](const std::string& message) { j.warnings.push_back(message); };
  detail::problem_list problems;
  const auto& interruptions = j.interruptions;
  const auto& checkpoints = j.checkpoints;
  const auto& evaluations = j.evaluations;
  const auto& training = j.training;
  if (j.known(k::started_at) && j.known(k::ended_at) && !(j.ended_at_s > j.started_at_s))
    problems.add("ended_at", "must be later than started_at");
  const std::int64_t completed = training.steps_completed;
  const auto check_step = [&](const std::string& path, std::int64_t step) {
    if (step > completed)
      problems.add(path, "must be ≤ training.steps_completed (" + std::to_string(completed) + "), got " +
                             std::to_string(step));
  };
  const double none = -std::numeric_limits<double>::infinity();
  double previous = none;
  for (std::size_t i = 0; i < checkpoints.size(); ++i) {
    const std::string path = "checkpoints[" + std::to_string(i) + "]";
    check_step(path + ".step", checkpoints[i].step);
    detail::check_event_time(j, path + ".at", checkpoints[i].at_s, previous, problems);
    if (i > 0 && checkpoints[i].step <= checkpoints[i - 1].step) {
      // Allowed only when an interruption rolled training back below this step.
      const bool rolled_back = std::any_of(interruptions.begin(), interruptions.end(), [&](const auto& x) {
        return x.restored_from_step < checkpoints[i].step && x.step >= checkpoints[i - 1].step;
      });
      if (!rolled_back)
        problems.add(path + ".step", "must be above the previous checkpoint's step (" +
                                         std::to_string(checkpoints[i - 1].step) +
                                         ") unless an interruption restored an earlier one, got " +
                                         std::to_string(checkpoints[i].step));
    }
  }
  previous = none;
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const std::string path = "evaluations[" + std::to_string(i) + "]";
    check_step(path + ".step", evaluations[i].step);
    detail::check_event_time(j, path + ".at", evaluations[i].at_s, previous, problems);
  }
  previous = none;
  std::int64_t redone_total = 0;
  const bool at_known = j.known(k::interruption_at), cause_known = j.known(k::interruption_cause);
  for (std::size_t i = 0; i < interruptions.size(); ++i) {
    const auto& x = interruptions[i];
    const std::string path = "interruptions[" + std::to_string(i) + "]";
    check_step(path + ".step", x.step);
    if (at_known) detail::check_event_time(j, path + ".at", x.at_s, previous, problems);
    if (x.redone_steps > x.step)
      problems.add(path + ".redone_steps",
                   "must be ≤ its step (" + std::to_string(x.step) + "), got " + std::to_string(x.redone_steps));
    if (x.restored_from_step > x.step)
      problems.add(path + ".restored_from_step",
                   "must be ≤ its step (" + std::to_string(x.step) + "), got " + std::to_string(x.restored_from_step));
    if (x.restored_from_step > 0 && j.known(k::checkpoints)) {
      const bool listed = std::any_of(checkpoints.begin(), checkpoints.end(), [&](const auto& c) {
        return c.step == x.restored_from_step && (!c.at_s || !at_known || *c.at_s < x.at_s);
      });
      if (!listed)
        problems.add(path + ".restored_from_step",
                     "names no checkpoint listed before the interruption, got " + std::to_string(x.restored_from_step));
    }
    if (!x.recovered && i + 1 != interruptions.size())
      problems.add(path + ".recovered", "only the last interruption can be unrecovered (the run ended with it)");
    if (!x.recovered && x.redone_steps > 0)
      problems.add(path + ".redone_steps",
                   "must be 0 for an unrecovered interruption, got " + std::to_string(x.redone_steps));
    if (x.recovered && x.redone_steps != x.step - x.restored_from_step)
      warn(path + ".redone_steps: expected step − restored_from_step = " +
           std::to_string(x.step - x.restored_from_step) + ", got " + std::to_string(x.redone_steps));
    const double parts = x.restart_s.value_or(0) + x.compile_s.value_or(0) + x.load_s.value_or(0);
    if (j.known(k::interruption_recovery_s) && parts > x.recovery_s * (1 + 1e-9) + 1e-9)
      warn(path + ": restart_s + compile_s + load_s = " + detail::format_approx(parts, 6) + " s exceed recovery_s (" +
           detail::format_number(x.recovery_s) + " s)");
    if (cause_known && x.cause == interruption_cause::other && x.detail.empty())
      warn(path + ".cause: \"other\" without a detail");
    redone_total += x.redone_steps;
  }
  problems.throw_if_any();
  detail::check_journal_warnings(j, redone_total);
}

}  // namespace trnmodel::calibrate
