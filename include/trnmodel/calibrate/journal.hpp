#pragma once
// A trial-run journal (format "trnmodel.journal/1", docs/journal.md): one short,
// representative run of a training job as it happened: phases, the step-time series,
// checkpoints, evaluations, interruptions, billing and quality. Loading checks every field
// (path, value, rule) and the cross-field rules that a JSON Schema cannot express; problems
// that leave the data usable become warnings kept with the journal.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/detail/json_reader.hpp"
#include "trnmodel/detail/series_file.hpp"
#include "trnmodel/detail/sha256.hpp"

namespace trnmodel::detail {

// "algorithm:digest" ([a-z0-9][a-z0-9-]* ":" [A-Za-z0-9+/=_-]+), checked by hand: libstdc++'s
// std::regex recurses once per character and overflows the stack on a long string.
inline bool is_checksum(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  const auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  const auto digest_char = [&](char c) {
    return lower_or_digit(c) || (c >= 'A' && c <= 'Z') || c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
  };
  return lower_or_digit(text[0]) &&
         std::all_of(text.begin() + 1, text.begin() + static_cast<std::ptrdiff_t>(colon),
                     [&](char c) { return lower_or_digit(c) || c == '-'; }) &&
         std::all_of(text.begin() + static_cast<std::ptrdiff_t>(colon) + 1, text.end(), digest_char);
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

inline constexpr const char* journal_schema = "trnmodel.journal/1";

struct journal_instance {
  std::string type, region, zone, purchase_option;
  std::int64_t nodes = 1;
  std::optional<std::int64_t> chips_per_node, ranks_per_node;
};

struct journal_versions {
  std::string model, model_revision, framework, neuron_sdk, cuda, driver, container_image;
  std::map<std::string, std::string> libraries;
};

struct journal_training {
  std::string kind, precision, recompute, optimizer, dataset;
  std::int64_t effective_steps_planned = 0, steps_completed = 0;
  std::int64_t global_batch = 0, micro_batch = 0, sequence_length = 0, tp = 1, pp = 1, dp = 1;
  std::optional<std::int64_t> gradient_accumulation, zero_stage, lora_rank, seed;
};

struct journal_phases {
  double queue_s = 0, setup_s = 0, compile_s = 0, data_load_s = 0, training_s = 0, final_eval_s = 0, teardown_s = 0;
  bool compile_cache_hit = false;
  double sum_s() const { return queue_s + setup_s + compile_s + data_load_s + training_s + final_eval_s + teardown_s; }
};

struct journal_utilisation {
  double accelerator_busy_fraction = 0, data_wait_fraction = 0, sync_wait_fraction = 0;
};

struct journal_checkpoint {
  std::int64_t step = 0;
  std::optional<double> at_s, load_s;
  double save_s = 0, verify_s = 0, size_gb = 0;
  std::string checksum, location, restore_error;
  bool restore_verified = false;
};

struct journal_evaluation {
  std::int64_t step = 0;
  std::optional<double> at_s;
  double time_s = 0;
  std::map<std::string, double> metrics;
};

// The causes counted as node failures for the failure rate (docs/journal.md); software
// errors and OOMs are fixed rather than a rate, and preemption is a separate process.
inline bool is_node_failure_cause(const std::string& cause) {
  return cause == "node_health_check" || cause == "accelerator_error" || cause == "hardware_error" ||
         cause == "network_error" || cause == "hang_timeout";
}

struct journal_interruption {
  double at_s = 0;
  std::int64_t step = 0, restored_from_step = 0, redone_steps = 0;
  std::string cause, detail;
  double detection_s = 0, recovery_s = 0;
  std::optional<double> restart_s, compile_s, load_s;
  bool recompiled = false, recovered = true;
  bool node_failure() const { return is_node_failure_cause(cause); }
};

struct journal_billed {
  double node_hours = 0;
  bool queue_billed = false;
  std::optional<double> node_hour_usd, usd;
};

struct journal_quality {
  std::string metric, better, scope = "trial", reference;
  double target = 0, achieved = 0;
  bool passed = false;
  std::optional<std::int64_t> step;
};

class journal {
 public:
  std::string experiment_id, scenario_name, notes;
  double started_at_s = 0, ended_at_s = 0;  // seconds since 1970-01-01T00:00:00Z
  journal_instance instance;
  journal_versions versions;
  journal_training training;
  journal_phases phases;
  std::vector<double> step_times_s;          // every executed step (or group of steps_per_value), in order
  std::vector<std::int64_t> step_numbers;    // from step_column, when given
  std::int64_t steps_per_value = 1;
  std::optional<journal_utilisation> utilisation;
  std::vector<journal_checkpoint> checkpoints;
  std::vector<journal_evaluation> evaluations;
  std::vector<journal_interruption> interruptions;
  journal_billed billed;
  std::optional<journal_quality> quality;
  std::vector<std::string> warnings;  // what is odd but leaves the journal usable

  double duration_s() const { return ended_at_s - started_at_s; }
  // Interruptions whose cause counts in the failure rate.
  std::int64_t node_failures() const {
    return std::count_if(interruptions.begin(), interruptions.end(), [](const auto& x) { return x.node_failure(); });
  }
  const json& to_json() const { return document_; }

  // `directory` is where a step-time file named by the journal is looked for.
  static journal from_json(const json& document, const std::filesystem::path& directory = ".") {
    detail::check_json_depth(document, "journal");
    journal j;
    j.document_ = document;
    j.load(document, directory);
    j.check_consistency();
    return j;
  }
  static journal from_text(const std::string& text, const std::filesystem::path& directory = ".") {
    return from_json(detail::parse_strict_json(text, "journal"), directory);
  }
  static journal from_file(const std::filesystem::path& file) {
    const std::string text = detail::read_file_bytes(file, file.string());
    return from_text(text, file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path());
  }

 private:
  using reader = detail::json_reader;
  using rule = detail::number_rule;

  double timestamp(reader& r, const std::string& key) {
    const std::string text = r.text(key);
    const auto t = detail::parse_timestamp(text);
    if (!t)
      fail(r.path(key), "must be an RFC 3339 timestamp with a time zone (2026-11-17T08:12:04Z), got \"" + text + "\"");
    return *t;
  }
  std::optional<double> optional_timestamp(reader& r, const std::string& key) {
    if (!r.has(key)) return std::nullopt;
    return timestamp(r, key);
  }

  void load(const json& doc, const std::filesystem::path& directory) {
    reader top(doc, "");
    const std::string schema = top.text("schema");
    if (schema != journal_schema)
      fail("schema", std::string("must be \"") + journal_schema + "\", got \"" + schema + "\"");
    experiment_id = top.text("experiment_id");
    static const std::regex id_pattern(R"([A-Za-z0-9][A-Za-z0-9._:/-]{0,127})");
    if (!std::regex_match(experiment_id, id_pattern))
      fail("experiment_id", "must be 1–128 of letters, digits and ._:/- starting with a letter or digit, got \"" +
                                experiment_id + "\"");
    scenario_name = top.optional_text("scenario");
    notes = top.optional_text("notes");
    started_at_s = timestamp(top, "started_at");
    ended_at_s = timestamp(top, "ended_at");
    load_instance(top);
    load_versions(top);
    load_training(top);
    load_phases(top);
    load_step_times(top, directory);
    if (top.has("utilisation")) {
      reader u(top.required("utilisation"), "utilisation");
      utilisation = journal_utilisation{u.number("accelerator_busy_fraction", rule::unit_interval),
                                        u.number("data_wait_fraction", rule::unit_interval),
                                        u.number("sync_wait_fraction", rule::unit_interval)};
      u.optional_text("measured_with");
      u.finish();
    }
    load_checkpoints(top);
    load_evaluations(top);
    load_interruptions(top);
    load_billed(top);
    if (top.has("quality")) load_quality(top);
    top.finish();
  }

  void load_instance(reader& top) {
    reader r(top.required("instance"), "instance");
    instance.type = r.text("type");
    instance.nodes = r.integer("nodes", 1);
    instance.region = r.text("region");
    instance.zone = r.optional_text("zone");
    instance.chips_per_node = r.optional_integer("chips_per_node", 1);
    instance.ranks_per_node = r.optional_integer("ranks_per_node", 1);
    instance.purchase_option = r.optional_choice(
        "purchase_option", {"on_demand", "spot", "reserved", "capacity_block", "savings_plan", "other"}, "");
    r.finish();
  }

  void load_versions(reader& top) {
    reader r(top.required("versions"), "versions");
    versions.model = r.text("model");
    versions.model_revision = r.optional_text("model_revision");
    versions.framework = r.text("framework");
    if (r.has("libraries")) {
      const json& libs = r.required("libraries");
      if (!libs.is_object()) fail("versions.libraries", "must be an object of name → version, got " + detail::describe_json(libs));
      for (const auto& [name, version] : libs.items())
        versions.libraries[name] = detail::json_string(version, "versions.libraries." + name);
    }
    versions.neuron_sdk = r.optional_text("neuron_sdk");
    versions.cuda = r.optional_text("cuda");
    if (r.has("neuron_sdk") == r.has("cuda"))
      fail("versions", "must name exactly one of neuron_sdk and cuda, got " +
                           std::string(r.has("cuda") ? "both" : "neither"));
    versions.driver = r.optional_text("driver");
    versions.container_image = r.optional_text("container_image");
    r.finish();
  }

  void load_training(reader& top) {
    reader r(top.required("training"), "training");
    auto& t = training;
    t.kind = r.choice("kind", {"lora", "full", "continued"});
    t.effective_steps_planned = r.integer("effective_steps_planned", 1);
    t.steps_completed = r.integer("steps_completed", 0);
    if (t.steps_completed > t.effective_steps_planned)
      fail("training.steps_completed", "must be ≤ training.effective_steps_planned (" +
                                           std::to_string(t.effective_steps_planned) + "), got " +
                                           std::to_string(t.steps_completed));
    t.global_batch = r.integer("global_batch", 1);
    t.micro_batch = r.integer("micro_batch", 1);
    t.gradient_accumulation = r.optional_integer("gradient_accumulation", 1);
    t.sequence_length = r.integer("sequence_length", 1);
    t.tp = r.integer("tp", 1);
    t.pp = r.integer("pp", 1);
    t.dp = r.integer("dp", 1);
    t.zero_stage = r.optional_integer("zero_stage", 0);
    if (t.zero_stage && *t.zero_stage > 3) fail("training.zero_stage", "must be 0, 1, 2 or 3, got " + std::to_string(*t.zero_stage));
    t.precision = r.choice("precision", {"bf16", "fp8", "fp32"});
    t.recompute = r.optional_choice("recompute", {"none", "selective", "full"}, "none");
    t.lora_rank = r.optional_integer("lora_rank", 1);
    if (t.kind == "lora" && !t.lora_rank) fail("training.lora_rank", "required key is missing (training.kind is lora)");
    if (r.has("lora_targets")) {
      const json& targets = r.array("lora_targets");
      for (std::size_t i = 0; i < targets.size(); ++i)
        detail::json_string(targets[i], "training.lora_targets[" + std::to_string(i) + "]");
    }
    t.optimizer = r.optional_text("optimizer");
    r.optional_number("learning_rate", rule::positive);
    t.dataset = r.optional_text("dataset");
    t.seed = r.optional_integer("seed", 0);
    r.finish();
    if (t.gradient_accumulation && t.global_batch != t.micro_batch * t.dp * *t.gradient_accumulation)
      fail("training.global_batch", "must equal micro_batch × dp × gradient_accumulation (" +
                                        std::to_string(t.micro_batch * t.dp * *t.gradient_accumulation) + "), got " +
                                        std::to_string(t.global_batch));
    if (t.kind != "lora" && (t.lora_rank || r.has("lora_targets")))
      warnings.push_back("training.lora_rank: given although training.kind is " + t.kind);
  }

  void load_phases(reader& top) {
    reader r(top.required("phases"), "phases");
    auto& p = phases;
    p.queue_s = r.number("queue_s", rule::nonnegative);
    p.setup_s = r.number("setup_s", rule::nonnegative);
    p.compile_s = r.number("compile_s", rule::nonnegative);
    p.compile_cache_hit = r.boolean("compile_cache_hit");
    p.data_load_s = r.number("data_load_s", rule::nonnegative);
    p.training_s = r.number("training_s", rule::nonnegative);
    p.final_eval_s = r.number("final_eval_s", rule::nonnegative);
    p.teardown_s = r.optional_number("teardown_s", rule::nonnegative).value_or(0.0);
    r.finish();
  }

  void load_step_times(reader& top, const std::filesystem::path& directory) {
    reader r(top.required("step_times"), "step_times");
    const double scale = r.choice("unit", {"s", "ms"}) == "ms" ? 1e-3 : 1.0;
    steps_per_value = r.optional_integer("steps_per_value", 1).value_or(1);
    if (r.has("values") == r.has("file"))
      fail("step_times", std::string("must have exactly one of values and file, got ") + (r.has("file") ? "both" : "neither"));
    std::vector<double> raw;
    std::string origin = "step_times.values";
    if (r.has("values")) {
      const json& values = r.array("values");
      for (std::size_t i = 0; i < values.size(); ++i) raw.push_back(detail::json_number(values[i], origin + "[" + std::to_string(i) + "]"));
      if (r.has("column") || r.has("step_column") || r.has("sha256") || r.has("count"))
        fail("step_times", "column, step_column, count and sha256 describe a file; they are not allowed with inline values");
    } else {
      const std::string name = r.text("file");
      origin = "step_times.file";
      const std::filesystem::path relative(name);
      bool escapes = relative.is_absolute() || name.empty();
      for (const auto& part : relative) escapes = escapes || part == "..";
      if (escapes) fail(origin, "must be a path relative to the journal's directory without \"..\", got \"" + name + "\"");
      const std::filesystem::path file = directory / relative;
      std::error_code error;
      const auto resolved = std::filesystem::weakly_canonical(file, error);
      const auto root = std::filesystem::weakly_canonical(directory, error);
      if (!std::filesystem::is_regular_file(file, error))
        fail(origin, "no such file: " + file.string());
      const auto inside = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
      if (inside.first != root.end()) fail(origin, "resolves outside the journal's directory: " + resolved.string());
      const std::string bytes = detail::read_file_bytes(file, origin);
      const std::string extension = relative.extension().string();
      const std::string column = r.optional_text("column"), step_column = r.optional_text("step_column");
      if (extension == ".csv") {
        if (column.empty()) fail("step_times.column", "required key is missing (a .csv file needs the column of the times)");
        auto cells = detail::read_csv_columns(bytes, column, step_column, origin + " (" + name + ")");
        raw = std::move(cells.values);
        for (std::size_t i = 0; i < cells.labels.size(); ++i) {
          if (cells.labels[i] != std::floor(cells.labels[i]) || cells.labels[i] < 0)
            fail(origin, "column " + step_column + ", row " + std::to_string(i + 1) + ": must be a step number, got " +
                             format_number(cells.labels[i]));
          step_numbers.push_back(static_cast<std::int64_t>(cells.labels[i]));
        }
      } else if (extension == ".npy") {
        if (r.has("column") || r.has("step_column")) fail("step_times.column", "not allowed for a .npy file (it holds one array)");
        raw = detail::read_npy_vector(bytes, origin + " (" + name + ")");
      } else {
        fail(origin, "must name a .csv or .npy file, got \"" + name + "\"");
      }
      if (const auto count = r.optional_integer("count", 1); count && static_cast<std::size_t>(*count) != raw.size())
        fail("step_times.count", "the file holds " + std::to_string(raw.size()) + " values, the journal says " +
                                     std::to_string(*count));
      if (r.has("sha256")) {
        const std::string expected = r.text("sha256");
        static const std::regex hex(R"([0-9a-f]{64})");
        if (!std::regex_match(expected, hex)) fail("step_times.sha256", "must be 64 lower-case hex digits, got \"" + expected + "\"");
        const std::string actual = detail::sha256_hex(bytes);
        if (actual != expected)
          fail("step_times.sha256", "the file's SHA-256 is " + actual + ", the journal says " + expected +
                                        " (the journal and its series have drifted apart)");
      }
    }
    r.finish();
    if (raw.empty()) fail(origin, "must hold at least one step time");
    for (std::size_t i = 0; i < raw.size(); ++i)
      if (!(raw[i] > 0)) fail(origin + "[" + std::to_string(i) + "]", "a step time must be > 0, got " + format_number(raw[i]));
    step_times_s.resize(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) step_times_s[i] = raw[i] * scale;
  }

  void load_checkpoints(reader& top) {
    const json& list = top.array("checkpoints");
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r(list[i], "checkpoints[" + std::to_string(i) + "]");
      journal_checkpoint c;
      c.step = r.integer("step", 0);
      c.at_s = optional_timestamp(r, "at");
      c.save_s = r.number("save_s", rule::nonnegative);
      c.verify_s = r.number("verify_s", rule::nonnegative);
      c.size_gb = r.number("size_gb", rule::nonnegative);
      c.checksum = r.text("checksum");
      if (!detail::is_checksum(c.checksum))
        fail(r.path("checksum"), "must be algorithm:digest (sha256:<hex>), got \"" + c.checksum + "\"");
      c.location = r.text("location");
      c.restore_verified = r.boolean("restore_verified");
      c.restore_error = r.optional_text("restore_error");
      c.load_s = r.optional_number("load_s", rule::nonnegative);
      r.finish();
      checkpoints.push_back(c);
    }
  }

  void load_evaluations(reader& top) {
    if (!top.has("evaluations")) return;
    const json& list = top.array("evaluations");
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r(list[i], "evaluations[" + std::to_string(i) + "]");
      journal_evaluation e;
      e.step = r.integer("step", 0);
      e.at_s = optional_timestamp(r, "at");
      e.time_s = r.number("time_s", rule::nonnegative);
      if (r.has("metrics")) {
        const json& metrics = r.required("metrics");
        if (!metrics.is_object()) fail(r.path("metrics"), "must be an object of name → number, got " + detail::describe_json(metrics));
        for (const auto& [name, value] : metrics.items()) e.metrics[name] = detail::json_number(value, r.path("metrics") + "." + name);
      }
      r.finish();
      evaluations.push_back(e);
    }
  }

  void load_interruptions(reader& top) {
    const json& list = top.array("interruptions");
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r(list[i], "interruptions[" + std::to_string(i) + "]");
      journal_interruption x;
      x.at_s = timestamp(r, "at");
      x.step = r.integer("step", 0);
      x.cause = r.choice("cause", {"node_health_check", "accelerator_error", "hardware_error", "network_error",
                                   "storage_error", "hang_timeout", "out_of_memory", "software_error", "preemption",
                                   "maintenance", "user", "other"});
      x.detail = r.optional_text("detail");
      x.detection_s = r.number("detection_s", rule::nonnegative);
      x.recovery_s = r.number("recovery_s", rule::nonnegative);
      x.restart_s = r.optional_number("restart_s", rule::nonnegative);
      x.compile_s = r.optional_number("compile_s", rule::nonnegative);
      x.load_s = r.optional_number("load_s", rule::nonnegative);
      x.recompiled = r.boolean("recompiled");
      x.restored_from_step = r.integer("restored_from_step", 0);
      x.redone_steps = r.integer("redone_steps", 0);
      x.recovered = r.optional_boolean("recovered", true);
      r.finish();
      interruptions.push_back(x);
    }
  }

  void load_billed(reader& top) {
    reader r(top.required("billed"), "billed");
    billed.node_hours = r.number("node_hours", rule::nonnegative);
    billed.queue_billed = r.optional_boolean("queue_billed", false);
    billed.node_hour_usd = r.optional_number("node_hour_usd", rule::nonnegative);
    billed.usd = r.optional_number("usd", rule::nonnegative);
    r.finish();
  }

  void load_quality(reader& top) {
    reader r(top.required("quality"), "quality");
    journal_quality q;
    q.metric = r.text("metric");
    q.better = r.choice("better", {"lower", "higher"});
    q.target = r.number("target");
    q.achieved = r.number("achieved");
    q.passed = r.boolean("passed");
    q.step = r.optional_integer("step", 0);
    q.scope = r.optional_choice("scope", {"trial", "job"}, "trial");
    q.reference = r.optional_text("reference");
    r.finish();
    quality = q;
  }

  // ---- cross-field rules (docs/journal.md, "Validation") ----------------------------

  void warn(const std::string& message) { warnings.push_back(message); }

  static bool within(double actual, double expected, double absolute, double relative) {
    return std::fabs(actual - expected) <= std::max(absolute, relative * std::fabs(expected));
  }

  // `previous` is the latest `at` of the list so far (−∞ before the first).
  void check_event_time(const std::string& path, const std::optional<double>& at, double& previous) const {
    if (!at) return;
    if (*at < started_at_s || *at > ended_at_s) fail(path, "must lie between started_at and ended_at");
    if (!(*at > previous)) fail(path, "must be later than the previous entry's at (entries are in time order)");
    previous = *at;
  }

  void check_consistency() {
    if (!(ended_at_s > started_at_s)) fail("ended_at", "must be later than started_at");
    const std::int64_t completed = training.steps_completed;
    const auto check_step = [&](const std::string& path, std::int64_t step) {
      if (step > completed)
        fail(path, "must be ≤ training.steps_completed (" + std::to_string(completed) + "), got " + std::to_string(step));
    };
    const double none = -std::numeric_limits<double>::infinity();
    double previous = none;
    for (std::size_t i = 0; i < checkpoints.size(); ++i) {
      const std::string path = "checkpoints[" + std::to_string(i) + "]";
      check_step(path + ".step", checkpoints[i].step);
      check_event_time(path + ".at", checkpoints[i].at_s, previous);
      if (i > 0 && checkpoints[i].step <= checkpoints[i - 1].step) {
        // Allowed only when an interruption rolled training back below this step.
        const bool rolled_back = std::any_of(interruptions.begin(), interruptions.end(), [&](const auto& x) {
          return x.restored_from_step < checkpoints[i].step && x.step >= checkpoints[i - 1].step;
        });
        if (!rolled_back)
          fail(path + ".step", "must be above the previous checkpoint's step (" + std::to_string(checkpoints[i - 1].step) +
                                   ") unless an interruption restored an earlier one, got " + std::to_string(checkpoints[i].step));
      }
    }
    previous = none;
    for (std::size_t i = 0; i < evaluations.size(); ++i) {
      const std::string path = "evaluations[" + std::to_string(i) + "]";
      check_step(path + ".step", evaluations[i].step);
      check_event_time(path + ".at", evaluations[i].at_s, previous);
    }
    previous = none;
    std::int64_t redone_total = 0;
    for (std::size_t i = 0; i < interruptions.size(); ++i) {
      const auto& x = interruptions[i];
      const std::string path = "interruptions[" + std::to_string(i) + "]";
      check_step(path + ".step", x.step);
      check_event_time(path + ".at", x.at_s, previous);
      if (x.redone_steps > x.step)
        fail(path + ".redone_steps", "must be ≤ its step (" + std::to_string(x.step) + "), got " + std::to_string(x.redone_steps));
      if (x.restored_from_step > x.step)
        fail(path + ".restored_from_step", "must be ≤ its step (" + std::to_string(x.step) + "), got " +
                                               std::to_string(x.restored_from_step));
      if (x.restored_from_step > 0) {
        const bool listed = std::any_of(checkpoints.begin(), checkpoints.end(), [&](const auto& c) {
          return c.step == x.restored_from_step && (!c.at_s || *c.at_s < x.at_s);
        });
        if (!listed)
          fail(path + ".restored_from_step", "names no checkpoint listed before the interruption, got " +
                                                 std::to_string(x.restored_from_step));
      }
      if (!x.recovered && i + 1 != interruptions.size())
        fail(path + ".recovered", "only the last interruption can be unrecovered (the run ended with it)");
      if (!x.recovered && x.redone_steps > 0)
        fail(path + ".redone_steps", "must be 0 for an unrecovered interruption, got " + std::to_string(x.redone_steps));
      if (x.recovered && x.redone_steps != x.step - x.restored_from_step)
        warn(path + ".redone_steps: expected step − restored_from_step = " + std::to_string(x.step - x.restored_from_step) +
             ", got " + std::to_string(x.redone_steps));
      const double parts = x.restart_s.value_or(0) + x.compile_s.value_or(0) + x.load_s.value_or(0);
      if (parts > x.recovery_s * (1 + 1e-9) + 1e-9)
        warn(path + ": restart_s + compile_s + load_s = " + format_approx(parts, 6) + " s exceed recovery_s (" +
             format_number(x.recovery_s) + " s)");
      if (x.cause == "other" && x.detail.empty()) warn(path + ".cause: \"other\" without a detail");
      redone_total += x.redone_steps;
    }
    check_warnings(redone_total);
  }

  void check_warnings(std::int64_t redone_total) {
    const double wall_s = duration_s();
    if (!within(phases.sum_s(), wall_s, 60, 0.01))
      warn("phases: the phases sum to " + format_approx(phases.sum_s(), 6) + " s, but ended_at − started_at is " +
           format_approx(wall_s, 6) + " s");
    double accounted = 0;
    for (double t : step_times_s) accounted += t * static_cast<double>(steps_per_value);
    for (const auto& c : checkpoints) accounted += c.save_s + c.verify_s;
    for (const auto& e : evaluations) accounted += e.time_s;
    for (const auto& x : interruptions) accounted += x.detection_s + x.recovery_s;
    const double remainder = phases.training_s - accounted;
    if (remainder < -std::max(1.0, 0.001 * phases.training_s) || remainder > std::max(60.0, 0.02 * phases.training_s))
      warn("phases.training_s: " + format_number(phases.training_s) + " s, but the steps, saves, evaluations and recoveries "
           "listed account for " + format_approx(accounted, 6) + " s");
    const std::int64_t executed = training.steps_completed + redone_total;
    const auto expected_values = static_cast<std::size_t>((executed + steps_per_value - 1) / steps_per_value);
    if (step_times_s.size() != expected_values)
      warn("step_times: " + std::to_string(step_times_s.size()) + " values, expected ⌈(steps_completed + redone steps) / "
           "steps_per_value⌉ = " + std::to_string(expected_values));
    check_step_column();
    const double billed_h = (wall_s - (billed.queue_billed ? 0.0 : phases.queue_s)) / 3600.0;
    const double expected_node_h = static_cast<double>(instance.nodes) * billed_h;
    if (!within(billed.node_hours, expected_node_h, 0.02, 0.02))
      warn("billed.node_hours: " + format_number(billed.node_hours) + ", but nodes × billed time is " +
           format_approx(expected_node_h, 6));
    if (billed.usd && billed.node_hour_usd && !within(*billed.usd, billed.node_hours * *billed.node_hour_usd, 0.01, 0.01))
      warn("billed.usd: " + format_number(*billed.usd) + ", but node_hours × node_hour_usd is " +
           format_approx(billed.node_hours * *billed.node_hour_usd, 6));
    if (!utilisation) {
      warn("utilisation: absent, so the data-loader stall cannot be calibrated");
    } else if (utilisation->accelerator_busy_fraction + utilisation->data_wait_fraction + utilisation->sync_wait_fraction > 1 + 1e-9) {
      warn("utilisation: the busy, data-wait and sync-wait shares sum above 1");
    }
    if (!quality) {
      warn("quality: absent, so the quality outcome is unknown");
    } else {
      const bool reached = quality->better == "lower" ? quality->achieved <= quality->target : quality->achieved >= quality->target;
      if (reached != quality->passed)
        warn("quality.passed: " + std::string(quality->passed ? "true" : "false") + ", but achieved " +
             format_number(quality->achieved) + " against target " + format_number(quality->target) + " (" +
             quality->better + " is better) says otherwise");
    }
    if (instance.ranks_per_node && training.tp * training.pp * training.dp != instance.nodes * *instance.ranks_per_node)
      warn("training: tp × pp × dp = " + std::to_string(training.tp * training.pp * training.dp) +
           ", but nodes × ranks_per_node = " + std::to_string(instance.nodes * *instance.ranks_per_node));
    const bool ended_by_interruption = !interruptions.empty() && !interruptions.back().recovered;
    if (training.steps_completed < training.effective_steps_planned && !ended_by_interruption)
      warn("training.steps_completed: " + std::to_string(training.steps_completed) + " of " +
           std::to_string(training.effective_steps_planned) + " planned, with no unrecovered interruption to say why");
    if (training.steps_completed > 0 && checkpoints.empty()) warn("checkpoints: none, although steps were completed");
  }

  // With step numbers, the series must run 1, 2, … and restart at restored_from_step + 1
  // after each interruption.
  void check_step_column() {
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

  json document_;
};

}  // namespace trnmodel::calibrate
