#pragma once
// A trial-run journal (format "trnmodel.journal/1", docs/journal.md): one short,
// representative run of a training job as it happened: phases, the step-time series,
// checkpoints, evaluations, interruptions, billing and quality. Loading reads the document
// with the strict reader the scenarios use (one key at a time, unknown keys refused), checks
// every field (path, value, rule) and then the cross-field rules; problems that leave the
// data usable become warnings kept with the journal.
//
// The parts, one concept a header:
//   journal_record.hpp  the records a journal holds
//   journal_fields.hpp  the field table (keys, types, rules, meanings)
//   journal_schema.hpp  the JSON Schema generated from the field table
//   journal_files.hpp   the step-time file: where it may lie, checksums, CSV/.npy columns
//   journal_rules.hpp   the cross-field rules and warnings
// The loader reads each field through detail::journal_reader, which takes the minimums, number
// rules and choice lists from the field table.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/calibrate/journal_files.hpp"
#include "trnmodel/calibrate/journal_record.hpp"
#include "trnmodel/calibrate/journal_rules.hpp"
#include "trnmodel/calibrate/journal_schema.hpp"
#include "trnmodel/check.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/calibrate/json_reader.hpp"

namespace trnmodel::detail {

// The strict reader with the journal's field table behind it: integer minimums, number rules
// and choice lists come from journal_fields(), so the loader and the schema cannot disagree.
// `object` is the field table's name of the object read ("instance", "checkpoints[]").
class journal_reader : public json_reader {
 public:
  journal_reader(const ordered_json& value, std::string path, std::string object)
      : json_reader(value, std::move(path)), object_(std::move(object)) {}

  std::int64_t integer(const std::string& key) { return json_reader::integer(key, field(key).minimum); }
  std::optional<std::int64_t> optional_integer(const std::string& key) {
    return json_reader::optional_integer(key, field(key).minimum);
  }
  double number(const std::string& key) { return json_reader::number(key, field(key).rule); }
  std::optional<double> optional_number(const std::string& key) {
    return json_reader::optional_number(key, field(key).rule);
  }
  std::string choice(const std::string& key) { return json_reader::choice(key, field(key).choices); }
  std::string optional_choice(const std::string& key, const std::string& default_value) {
    return json_reader::optional_choice(key, field(key).choices, default_value);
  }

 private:
  const calibrate::journal_field& field(const std::string& key) const {
    return calibrate::journal_field_at(object_, key);
  }
  std::string object_;
};

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// A trial run's journal (docs/journal.md), parsed and checked; keeps its JSON document.
/// Immutable once loaded: share between threads freely. Owns its document and records.
class journal : public journal_record {
 public:
  /// The document the journal was loaded from, as given (owned by the journal).
  const ordered_json& to_json() const { return document_; }

  /// Loads a parsed journal document: every field is checked against the field table, then the cross-field rules.
  /// `directory` is where a step-time file named by the journal is looked for.
  /// Throws trnmodel::input_error naming the path of the first field that breaks a rule.
  static journal from_json(const ordered_json& document, const std::filesystem::path& directory = ".") {
    detail::check_json_depth(document, "journal");
    journal j;
    j.document_ = document;
    j.load(document, directory);
    check_journal_rules(j);
    return j;
  }
  /// Parses journal text with the strict JSON reader (duplicate keys refused), then loads it as from_json does.
  static journal from_text(const std::string& text, const std::filesystem::path& directory = ".") {
    return from_json(detail::parse_strict_json(text, "journal"), directory);
  }
  /// Reads and loads a journal file; a step-time file it names is looked for beside it.
  /// Throws trnmodel::input_error when the file cannot be read or the journal breaks a rule.
  static journal from_file(const std::filesystem::path& file) {
    const std::string text = detail::read_file_bytes(file, file.string());
    return from_text(text, file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path());
  }

 private:
  using reader = detail::journal_reader;

  double timestamp(reader& r, const std::string& key) {
    const std::string text = r.text(key);
    const auto t = detail::parse_timestamp(text);
    if (!t)
      detail::fail(r.path(key),
                   "must be an RFC 3339 timestamp with a time zone (2026-11-17T08:12:04Z), got \"" + text + "\"");
    return *t;
  }
  std::optional<double> optional_timestamp(reader& r, const std::string& key) {
    if (!r.has(key)) return std::nullopt;
    return timestamp(r, key);
  }

  void load(const ordered_json& doc, const std::filesystem::path& directory) {
    reader top(doc, "", "");
    const std::string schema = top.text("schema");
    if (schema != journal_schema)
      detail::fail("schema", std::string("must be \"") + journal_schema + "\", got \"" + schema + "\"");
    experiment_id = top.text("experiment_id");
    static const std::regex id_pattern(R"([A-Za-z0-9][A-Za-z0-9._:/-]{0,127})");
    if (!std::regex_match(experiment_id, id_pattern))
      detail::fail(
          "experiment_id",
          "must be 1–128 of letters, digits and ._:/- starting with a letter or digit, got \"" + experiment_id + "\"");
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
      reader u(top.required("utilisation"), "utilisation", "utilisation");
      utilisation = journal_utilisation{u.number("accelerator_busy_fraction"), u.number("data_wait_fraction"),
                                        u.number("sync_wait_fraction")};
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
    reader r(top.required("instance"), "instance", "instance");
    instance.type = r.text("type");
    instance.nodes = r.integer("nodes");
    instance.region = r.text("region");
    instance.zone = r.optional_text("zone");
    instance.chips_per_node = r.optional_integer("chips_per_node");
    instance.ranks_per_node = r.optional_integer("ranks_per_node");
    instance.purchase_option = r.optional_choice("purchase_option", "");
    r.finish();
  }

  void load_versions(reader& top) {
    reader r(top.required("versions"), "versions", "versions");
    versions.model = r.text("model");
    versions.model_revision = r.optional_text("model_revision");
    versions.framework = r.text("framework");
    if (r.has("libraries")) {
      const ordered_json& libs = r.required("libraries");
      if (!libs.is_object())
        detail::fail("versions.libraries", "must be an object of name → version, got " + detail::describe_json(libs));
      for (const auto& [name, version] : libs.items())
        versions.libraries[name] = detail::json_string(version, "versions.libraries." + name);
    }
    versions.neuron_sdk = r.optional_text("neuron_sdk");
    versions.cuda = r.optional_text("cuda");
    if (r.has("neuron_sdk") == r.has("cuda"))
      detail::fail("versions", "must name exactly one of neuron_sdk and cuda, got " +
                                   std::string(r.has("cuda") ? "both" : "neither"));
    versions.driver = r.optional_text("driver");
    versions.container_image = r.optional_text("container_image");
    r.finish();
  }

  void load_training(reader& top) {
    reader r(top.required("training"), "training", "training");
    auto& t = training;
    t.kind = r.choice("kind");
    t.effective_steps_planned = r.integer("effective_steps_planned");
    t.steps_completed = r.integer("steps_completed");
    if (t.steps_completed > t.effective_steps_planned)
      detail::fail("training.steps_completed", "must be ≤ training.effective_steps_planned (" +
                                                   std::to_string(t.effective_steps_planned) + "), got " +
                                                   std::to_string(t.steps_completed));
    t.global_batch = r.integer("global_batch");
    t.micro_batch = r.integer("micro_batch");
    t.gradient_accumulation = r.optional_integer("gradient_accumulation");
    t.sequence_length = r.integer("sequence_length");
    t.tp = r.integer("tp");
    t.pp = r.integer("pp");
    t.dp = r.integer("dp");
    t.zero_stage = r.optional_integer("zero_stage");
    if (t.zero_stage && *t.zero_stage > 3)
      detail::fail("training.zero_stage", "must be 0, 1, 2 or 3, got " + std::to_string(*t.zero_stage));
    t.precision = r.choice("precision");
    t.recompute = r.optional_choice("recompute", "none");
    t.lora_rank = r.optional_integer("lora_rank");
    if (t.kind == "lora" && !t.lora_rank)
      detail::fail("training.lora_rank", "required key is missing (training.kind is lora)");
    if (r.has("lora_targets")) {
      const ordered_json& targets = r.array("lora_targets");
      for (std::size_t i = 0; i < targets.size(); ++i)
        detail::json_string(targets[i], "training.lora_targets[" + std::to_string(i) + "]");
    }
    t.optimizer = r.optional_text("optimizer");
    r.optional_number("learning_rate");
    t.dataset = r.optional_text("dataset");
    t.seed = r.optional_integer("seed");
    r.finish();
    if (t.gradient_accumulation && t.global_batch != t.micro_batch * t.dp * *t.gradient_accumulation)
      detail::fail("training.global_batch", "must equal micro_batch × dp × gradient_accumulation (" +
                                                std::to_string(t.micro_batch * t.dp * *t.gradient_accumulation) +
                                                "), got " + std::to_string(t.global_batch));
    if (t.kind != "lora" && (t.lora_rank || r.has("lora_targets")))
      warnings.push_back("training.lora_rank: given although training.kind is " + t.kind);
  }

  void load_phases(reader& top) {
    reader r(top.required("phases"), "phases", "phases");
    auto& p = phases;
    p.queue_s = r.number("queue_s");
    p.setup_s = r.number("setup_s");
    p.compile_s = r.number("compile_s");
    p.compile_cache_hit = r.boolean("compile_cache_hit");
    p.data_load_s = r.number("data_load_s");
    p.training_s = r.number("training_s");
    p.final_eval_s = r.number("final_eval_s");
    p.teardown_s = r.optional_number("teardown_s").value_or(0.0);
    r.finish();
  }

  void load_step_times(reader& top, const std::filesystem::path& directory) {
    reader r(top.required("step_times"), "step_times", "step_times");
    const double scale = r.choice("unit") == "ms" ? 1e-3 : 1.0;
    steps_per_value = r.optional_integer("steps_per_value").value_or(1);
    if (r.has("values") == r.has("file"))
      detail::fail("step_times", std::string("must have exactly one of values and file, got ") +
                                     (r.has("file") ? "both" : "neither"));
    std::vector<double> raw;
    std::string origin = "step_times.values";
    if (r.has("values")) {
      const ordered_json& values = r.array("values");
      for (std::size_t i = 0; i < values.size(); ++i)
        raw.push_back(detail::json_number(values[i], origin + "[" + std::to_string(i) + "]"));
      if (r.has("column") || r.has("step_column") || r.has("sha256") || r.has("count"))
        detail::fail("step_times",
                     "column, step_column, count and sha256 describe a file; they are not allowed with inline values");
    } else {
      origin = "step_times.file";
      step_series series = read_step_file(r, directory);
      raw = std::move(series.values);
      step_numbers = std::move(series.step_numbers);
    }
    r.finish();
    if (raw.empty()) detail::fail(origin, "must hold at least one step time");
    for (std::size_t i = 0; i < raw.size(); ++i)
      if (!(raw[i] > 0))
        detail::fail(origin + "[" + std::to_string(i) + "]",
                     "a step time must be > 0, got " + detail::format_number(raw[i]));
    step_times_s.resize(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) step_times_s[i] = raw[i] * scale;
  }

  void load_checkpoints(reader& top) {
    const ordered_json& list = top.array("checkpoints");
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r(list[i], "checkpoints[" + std::to_string(i) + "]", "checkpoints[]");
      journal_checkpoint c;
      c.step = r.integer("step");
      c.at_s = optional_timestamp(r, "at");
      c.save_s = r.number("save_s");
      c.verify_s = r.number("verify_s");
      c.size_gb = r.number("size_gb");
      c.checksum = r.text("checksum");
      if (!detail::is_checksum(c.checksum))
        detail::fail(r.path("checksum"), "must be algorithm:digest (sha256:<hex>), got \"" + c.checksum + "\"");
      c.location = r.text("location");
      c.restore_verified = r.boolean("restore_verified");
      c.restore_error = r.optional_text("restore_error");
      c.load_s = r.optional_number("load_s");
      r.finish();
      checkpoints.push_back(c);
    }
  }

  void load_evaluations(reader& top) {
    if (!top.has("evaluations")) return;
    const ordered_json& list = top.array("evaluations");
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r(list[i], "evaluations[" + std::to_string(i) + "]", "evaluations[]");
      journal_evaluation e;
      e.step = r.integer("step");
      e.at_s = optional_timestamp(r, "at");
      e.time_s = r.number("time_s");
      if (r.has("metrics")) {
        const ordered_json& metrics = r.required("metrics");
        if (!metrics.is_object())
          detail::fail(r.path("metrics"), "must be an object of name → number, got " + detail::describe_json(metrics));
        for (const auto& [name, value] : metrics.items())
          e.metrics[name] = detail::json_number(value, r.path("metrics") + "." + name);
      }
      r.finish();
      evaluations.push_back(e);
    }
  }

  void load_interruptions(reader& top) {
    const ordered_json& list = top.array("interruptions");
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r(list[i], "interruptions[" + std::to_string(i) + "]", "interruptions[]");
      journal_interruption x;
      x.at_s = timestamp(r, "at");
      x.step = r.integer("step");
      x.cause = r.choice("cause");
      x.detail = r.optional_text("detail");
      x.detection_s = r.number("detection_s");
      x.recovery_s = r.number("recovery_s");
      x.restart_s = r.optional_number("restart_s");
      x.compile_s = r.optional_number("compile_s");
      x.load_s = r.optional_number("load_s");
      x.recompiled = r.boolean("recompiled");
      x.restored_from_step = r.integer("restored_from_step");
      x.redone_steps = r.integer("redone_steps");
      x.recovered = r.optional_boolean("recovered", true);
      r.finish();
      interruptions.push_back(x);
    }
  }

  void load_billed(reader& top) {
    reader r(top.required("billed"), "billed", "billed");
    billed.node_hours = r.number("node_hours");
    billed.queue_billed = r.optional_boolean("queue_billed", false);
    billed.node_hour_usd = r.optional_number("node_hour_usd");
    billed.usd = r.optional_number("usd");
    r.finish();
  }

  void load_quality(reader& top) {
    reader r(top.required("quality"), "quality", "quality");
    journal_quality q;
    q.metric = r.text("metric");
    q.better = r.choice("better");
    q.target = r.number("target");
    q.achieved = r.number("achieved");
    q.passed = r.boolean("passed");
    q.step = r.optional_integer("step");
    q.scope = r.optional_choice("scope", "trial");
    q.reference = r.optional_text("reference");
    r.finish();
    quality = q;
  }

  ordered_json document_;
};

}  // namespace trnmodel::calibrate
