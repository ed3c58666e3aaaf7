#pragma once
// A one-number trial (format "trnmodel.trial-summary/1", docs/journal.md, "A trial summary"):
// what a team keeps when it kept no log — where the trial ran, the model and its layout, and
// the step time as a mean ± standard deviation over a count of steps. Calibrating a scenario
// from it does what a journal's step time does: the scenario's step time when the trial ran the
// scenario's configuration, else the reference (reference.*) that extrapolated mode carries to
// the scenario's. Every other input stays the base's.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/calibrate/calibrate.hpp"
#include "trnmodel/calibrate/json_reader.hpp"
#include "trnmodel/calibrate/trial_configuration.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/detail/problems.hpp"
#include "trnmodel/detail/series_file.hpp"

namespace trnmodel::calibrate {

/// The format name a trial summary's "schema" holds.
inline constexpr const char* trial_summary_schema = "trnmodel.trial-summary/1";

/// A trial known only by its mean step time. A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct trial_summary {
  std::string experiment_id;  ///< the trial's id, cited by every input it measures
  journal_instance instance;  ///< type (the hardware profile's name) and nodes; chips_per_node when given
  std::string model;  ///< model id (e.g. meta-llama/Meta-Llama-3-70B)
  journal_training training;  ///< kind, lora_rank, batch, sequence length, tp, pp, dp, precision
  double step_time_mean_s = 0;  ///< mean seconds per optimizer step over the steps counted, warm-up excluded
  double step_time_sd_s = 0;  ///< standard deviation of the single steps' times, seconds
  std::int64_t steps = 0;  ///< steps the mean and the standard deviation were taken over, ≥ 2
  std::string notes;  ///< free text; "" when not given

  /// Reads a parsed summary document; every problem is listed at once, each "<path>: <rule>".
  /// Throws trnmodel::input_error.
  static trial_summary from_json(const ordered_json& document) {
    detail::check_json_depth(document, "summary");
    detail::problem_list problems;
    trial_summary s;
    if (!document.is_object()) detail::fail("summary", "must be an object, got " + detail::describe_json(document));
    detail::json_reader top(document, "");
    problems.attempt([&] {
      const std::string schema = top.text("schema");
      if (schema != trial_summary_schema)
        detail::fail("schema", std::string("must be \"") + trial_summary_schema + "\", got \"" + schema + "\"");
    });
    problems.attempt([&] {
      s.experiment_id = top.text("experiment_id");
      static const std::regex id_pattern(R"([A-Za-z0-9][A-Za-z0-9._:/-]{0,127})");
      if (!std::regex_match(s.experiment_id, id_pattern))
        detail::fail("experiment_id", "must be 1–128 of letters, digits and ._:/- starting with a letter or digit, "
                                      "got \"" + s.experiment_id + "\"");
    });
    problems.attempt([&] { s.model = top.text("model"); });
    problems.attempt([&] { s.notes = top.optional_text("notes"); });
    problems.attempt([&] {
      detail::json_reader r(top.required("instance"), "instance");
      problems.attempt([&] { s.instance.type = r.text("type"); });
      problems.attempt([&] { s.instance.nodes = r.integer("nodes", 1); });
      problems.attempt([&] { s.instance.chips_per_node = r.optional_integer("chips_per_node", 1); });
      problems.attempt([&] { r.finish(); });
    });
    problems.attempt([&] {
      detail::json_reader r(top.required("training"), "training");
      auto& t = s.training;
      problems.attempt([&] { t.kind = parse_choice<job_kind>("training.kind", r.text("kind")); });
      problems.attempt([&] { t.lora_rank = r.optional_integer("lora_rank", 1); });
      problems.attempt([&] { t.global_batch = r.integer("global_batch", 1); });
      problems.attempt([&] { t.micro_batch = r.integer("micro_batch", 1); });
      problems.attempt([&] { t.sequence_length = r.integer("sequence_length", 1); });
      problems.attempt([&] { t.tp = r.integer("tp", 1); });
      problems.attempt([&] { t.pp = r.integer("pp", 1); });
      problems.attempt([&] { t.dp = r.integer("dp", 1); });
      problems.attempt([&] {
        t.precision = parse_choice<compute_precision>("training.precision", r.text("precision"));
      });
      problems.attempt([&] { r.finish(); });
      if (t.kind == job_kind::lora && !t.lora_rank)
        problems.add("training.lora_rank", "required key is missing (training.kind is lora)");
    });
    problems.attempt([&] {
      detail::json_reader r(top.required("step_time_s"), "step_time_s");
      problems.attempt([&] { s.step_time_mean_s = r.number("mean", detail::number_rule::positive); });
      problems.attempt([&] { s.step_time_sd_s = r.number("sd", detail::number_rule::nonnegative); });
      problems.attempt([&] { s.steps = r.integer("steps", 2); });
      problems.attempt([&] { r.finish(); });
    });
    problems.attempt([&] { top.finish(); });
    problems.throw_if_any();
    return s;
  }

  /// Parses summary text with the strict JSON reader (duplicate keys refused), then reads it as from_json does.
  static trial_summary from_text(const std::string& text) {
    return from_json(detail::parse_strict_json(text, "summary"));
  }

  /// Reads a summary file. Throws trnmodel::input_error when it cannot be read or breaks a rule.
  static trial_summary from_file(const std::filesystem::path& file) {
    return from_text(detail::read_file_bytes(file, file.string()));
  }
};

/// Calibrates `base` from a trial summary: its step time becomes the scenario's (the trial ran the
/// scenario's configuration) or the reference of extrapolated mode (another node count, batch,
/// sequence or layout), as a normal for the mean with standard error sd / √steps. That error
/// treats the steps as independent: a summary cannot show their correlation, warm-up or
/// restarts, so the calibration says so. Throws trnmodel::input_error when the summary ran
/// another platform than the scenario, or the scenario cannot take the reference.
inline calibration_result calibrate(const trial_summary& s, const scenario& base) {
  calibration_result result;
  if (base.has_text(field::cluster_platform) && base.text(field::cluster_platform) != s.instance.type)
    detail::fail("instance.type", "the trial ran on " + s.instance.type + ", the scenario is on " +
                                      base.text(field::cluster_platform) +
                                      "; calibrate a scenario of the platform the trial ran on");
  const layout_in_chips layout = chip_layout(s.instance, s.training, s.experiment_id, base, "training.tp");
  const std::string differences = configuration_differences(base, s.instance.nodes, s.training, layout);
  const bool matches = differences.empty();
  const std::string path = path_of(matches ? field::throughput_step_time_s : field::reference_step_time_s);
  const double se = s.step_time_sd_s / std::sqrt(static_cast<double>(s.steps));
  quantity q = se > 0 ? make_normal(s.step_time_mean_s, se, 0.0, dist::infinity, path) : make_fixed(s.step_time_mean_s);
  const std::string figures = detail::format_approx(s.step_time_mean_s, 4) + " s ± " +
                              detail::format_approx(s.step_time_sd_s, 3) + " s (sd) over " +
                              std::to_string(s.steps) + " steps";
  calibrated_input in;
  in.path = path;
  in.status = "measured";
  in.method = "summary: mean, sd / √steps";
  in.values = {s.step_time_mean_s};
  in.experiments = {s.experiment_id};
  q.prov().source = "measured";
  q.prov().note = "measured: a trial summary, " + figures + ", at " + std::to_string(s.instance.nodes) +
                  " node(s); the mean's standard error sd / √steps (" + detail::format_approx(se, 3) +
                  " s) as its uncertainty" +
                  (matches ? std::string() : "; extrapolated to the scenario's configuration (" + differences + ")") +
                  " (" + s.experiment_id + ")";
  in.note = q.prov().note;
  in.quantity = quantity_to_json(q);
  result.inputs.push_back(in);

  std::vector<std::pair<std::string, ordered_json>> changes;
  if (matches) {
    if (base.mode() != throughput_mode::measured)
      changes.emplace_back(path_of(field::throughput_mode), name_of_choice(throughput_mode::measured));
  } else {
    changes = reference_changes(base, s.instance.nodes, s.training, layout);
    result.warnings.push_back(extrapolation_warning(differences, layout));
  }
  changes.emplace_back(path, in.quantity);
  result.warnings.push_back(
      s.experiment_id + ": a trial summary: the mean's uncertainty sd / √steps treats the " + std::to_string(s.steps) +
      " steps as independent; a summary cannot show their correlation, a warm-up or a restart (a log or a journal "
      "does), and every input but the step time stays the base's");
  for (const auto& [p, given] : base.quantities())
    if (p != path && !given.is_fixed()) result.unmeasured.push_back(p);

  std::string caveats;
  for (const auto& w : result.warnings) caveats += (caveats.empty() ? "" : "; ") + w;
  const std::string description = base.has_text("description") ? base.text("description") + " " : std::string();
  changes.emplace_back("description", description + "Calibrated from a trial summary: " + s.experiment_id +
                                          " (the step time only). Calibration caveats: " + caveats + ".");
  try {
    result.calibrated = base.updated(changes);
  } catch (const input_error& e) {
    if (matches) throw;
    fail_extrapolation("summary", differences, e.what());
  }
  return result;
}

}  // namespace trnmodel::calibrate
