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
//   journal_reader.hpp  reading a field by its id, under the table's rules
// The loader reads each field through detail::journal_reader, which takes the key, the
// requiredness, the minimums, number rules and choices from the field table.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/calibrate/journal_files.hpp"
#include "trnmodel/calibrate/journal_reader.hpp"
#include "trnmodel/calibrate/journal_record.hpp"
#include "trnmodel/calibrate/journal_rules.hpp"
#include "trnmodel/calibrate/journal_schema.hpp"
#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/calibrate/json_reader.hpp"

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
  using key = journal_key;

  // Reads every field, keeping each problem; throws one input_error listing them all.
  void load(const ordered_json& doc, const std::filesystem::path& directory) {
    detail::journal_reading reading;
    reader top(doc, "", "", reading);
    load_unknown(top, reading);
    const std::string schema = top.text(key::schema);
    if (!schema.empty() && schema != journal_schema)
      top.problem(journal_path(key::schema), std::string("must be \"") + journal_schema + "\", got \"" + schema + "\"");
    experiment_id = top.text(key::experiment_id);
    static const std::regex id_pattern(R"([A-Za-z0-9][A-Za-z0-9._:/-]{0,127})");
    if (top.has(key::experiment_id) && !experiment_id.empty() && !std::regex_match(experiment_id, id_pattern))
      top.problem(
          journal_path(key::experiment_id),
          "must be 1–128 of letters, digits and ._:/- starting with a letter or digit, got \"" + experiment_id + "\"");
    scenario_name = top.optional_text(key::scenario);
    notes = top.optional_text(key::notes);
    started_at_s = top.timestamp(key::started_at);
    ended_at_s = top.timestamp(key::ended_at);
    load_instance(top);
    load_versions(top);
    load_training(top);
    load_phases(top);
    reading.problems.attempt([&] { load_step_times(top, directory); });
    if (top.has(key::utilisation)) {
      reader u = top.section(key::utilisation);
      utilisation = journal_utilisation{u.number(key::utilisation_accelerator_busy_fraction),
                                        u.number(key::utilisation_data_wait_fraction),
                                        u.number(key::utilisation_sync_wait_fraction)};
      u.optional_text(key::utilisation_measured_with);
      u.finish();
    }
    load_checkpoints(top);
    load_evaluations(top);
    load_interruptions(top);
    load_billed(top);
    if (top.has(key::quality)) load_quality(top);
    top.finish();
    reading.problems.throw_if_any();
    unknown = reading.unknown;
  }

  // "unknown" (path -> why: only the fields journal_unknowable() names) and "derived" (path ->
  // the rule: any field of the table), read first: every getter consults the unknown map.
  void load_unknown(reader& top, detail::journal_reading& reading) {
    const auto read_map = [&](key k, const auto& admit) {
      if (!top.has(k)) return;
      const ordered_json& map = top.value(k);
      const std::string path = journal_path(k);
      if (!map.is_object())
        return top.problem(path, "must be an object of field path → reason, got " + detail::describe_json(map));
      for (const auto& item : map.items()) {
        const std::string name = item.key();
        const ordered_json& why = item.value();
        if (!why.is_string() || why.get<std::string>().empty()) {
          top.problem(path + "." + name, "must be a text saying why, got " + detail::describe_json(why));
          continue;
        }
        if (admit(path + "." + name, name)) (k == key::unknown ? reading.unknown : derived)[name] = why.get<std::string>();
      }
    };
    const auto field_named = [](const std::string& name) -> const journal_field* {
      for (const auto& f : journal_fields())
        if (f.path() == name) return &f;
      return nullptr;
    };
    read_map(key::unknown, [&](const std::string& path, const std::string& name) {
      const journal_field* f = field_named(name);
      const auto& may = journal_unknowable();
      if (f && std::find(may.begin(), may.end(), f->id) != may.end()) return true;
      std::string list;
      for (const auto id : may) list += (list.empty() ? "" : ", ") + journal_path(id);
      top.problem(path, std::string(f ? "cannot be unknown: a journal must give it" : "names no journal field") +
                            " (the fields that may be unknown: " + list + ")");
      return false;
    });
    read_map(key::derived, [&](const std::string& path, const std::string& name) {
      if (field_named(name)) return true;
      top.problem(path, "names no journal field");
      return false;
    });
  }

  void load_instance(reader& top) {
    reader r = top.section(key::instance);
    instance.type = r.text(key::instance_type);
    instance.nodes = r.integer(key::instance_nodes);
    instance.region = r.text(key::instance_region);
    instance.zone = r.optional_text(key::instance_zone);
    instance.chips_per_node = r.optional_integer(key::instance_chips_per_node);
    instance.ranks_per_node = r.optional_integer(key::instance_ranks_per_node);
    instance.purchase = r.optional_choice<purchase_option>(key::instance_purchase_option);
    r.finish();
  }

  void load_versions(reader& top) {
    reader r = top.section(key::versions);
    versions.model = r.text(key::versions_model);
    versions.model_revision = r.optional_text(key::versions_model_revision);
    versions.framework = r.text(key::versions_framework);
    if (r.has(key::versions_libraries)) {
      const std::string path = journal_path(key::versions_libraries);
      const ordered_json& libs = r.value(key::versions_libraries);
      if (!libs.is_object())
        r.problem(path, "must be an object of name → version, got " + detail::describe_json(libs));
      else
        for (const auto& [name, version] : libs.items())
          if (version.is_string()) versions.libraries[name] = version.get<std::string>();
          else r.problem(path + "." + name, "must be a string, got " + detail::describe_json(version));
    }
    versions.neuron_sdk = r.optional_text(key::versions_neuron_sdk);
    versions.cuda = r.optional_text(key::versions_cuda);
    // Exactly one of the two; when the journal lists either as unknown, at most one.
    const bool either_unknown = r.unknown(key::versions_neuron_sdk) || r.unknown(key::versions_cuda);
    const bool sdk = r.has(key::versions_neuron_sdk), cuda = r.has(key::versions_cuda);
    if (top.has(key::versions) && ((sdk && cuda) || (!sdk && !cuda && !either_unknown)))
      r.problem(journal_path(key::versions),
                std::string("must name exactly one of neuron_sdk and cuda, got ") + (cuda ? "both" : "neither"));
    versions.driver = r.optional_text(key::versions_driver);
    versions.container_image = r.optional_text(key::versions_container_image);
    r.finish();
  }

  void load_training(reader& top) {
    reader r = top.section(key::training);
    auto& t = training;
    t.kind = r.choice<job_kind>(key::training_kind);
    t.effective_steps_planned = r.integer(key::training_effective_steps_planned);
    t.steps_completed = r.integer(key::training_steps_completed);
    t.global_batch = r.integer(key::training_global_batch);
    t.micro_batch = r.integer(key::training_micro_batch);
    t.gradient_accumulation = r.optional_integer(key::training_gradient_accumulation);
    t.sequence_length = r.integer(key::training_sequence_length);
    t.tp = r.integer(key::training_tp);
    t.pp = r.integer(key::training_pp);
    t.dp = r.integer(key::training_dp);
    t.zero_stage = r.optional_integer(key::training_zero_stage);
    t.precision = r.choice<compute_precision>(key::training_precision);
    t.recompute = r.optional_choice<recompute_kind>(key::training_recompute).value_or(recompute_kind::none);
    t.lora_rank = r.optional_integer(key::training_lora_rank);
    if (r.has(key::training_lora_targets)) {
      const ordered_json& targets = r.array(key::training_lora_targets);
      for (std::size_t i = 0; i < targets.size(); ++i)
        if (!targets[i].is_string())
          r.problem(journal_path(key::training_lora_targets) + "[" + std::to_string(i) + "]",
                    "must be a string, got " + detail::describe_json(targets[i]));
    }
    t.optimizer = r.optional_text(key::training_optimizer);
    r.optional_number(key::training_learning_rate);
    t.dataset = r.optional_text(key::training_dataset);
    t.seed = r.optional_integer(key::training_seed);
    r.finish();
    if (!top.has(key::training) || !r.clean()) return;  // the rules across fields need sound fields
    const bool lora = t.kind == job_kind::lora;
    if (!r.unknown(key::training_effective_steps_planned) && t.steps_completed > t.effective_steps_planned)
      r.problem(journal_path(key::training_steps_completed),
                "must be ≤ " + journal_path(key::training_effective_steps_planned) + " (" +
                    std::to_string(t.effective_steps_planned) + "), got " + std::to_string(t.steps_completed));
    if (t.zero_stage && *t.zero_stage > journal_field_of(key::training_zero_stage).maximum)
      r.problem(journal_path(key::training_zero_stage), "must be 0, 1, 2 or 3, got " + std::to_string(*t.zero_stage));
    if (lora && !t.lora_rank)
      r.problem(journal_path(key::training_lora_rank), "required key is missing (training.kind is lora)");
    if (t.gradient_accumulation && t.global_batch != t.micro_batch * t.dp * *t.gradient_accumulation)
      r.problem(journal_path(key::training_global_batch),
                "must equal micro_batch × dp × gradient_accumulation (" +
                    std::to_string(t.micro_batch * t.dp * *t.gradient_accumulation) + "), got " +
                    std::to_string(t.global_batch));
    if (!lora && (t.lora_rank || r.has(key::training_lora_targets)))
      warnings.push_back(journal_path(key::training_lora_rank) + ": given although training.kind is " +
                         name_of_choice(t.kind));
  }

  void load_phases(reader& top) {
    reader r = top.section(key::phases);
    auto& p = phases;
    p.queue_s = r.number(key::phases_queue_s);
    p.setup_s = r.number(key::phases_setup_s);
    p.compile_s = r.number(key::phases_compile_s);
    p.compile_cache_hit = r.boolean(key::phases_compile_cache_hit);
    p.data_load_s = r.number(key::phases_data_load_s);
    p.training_s = r.number(key::phases_training_s);
    p.final_eval_s = r.number(key::phases_final_eval_s);
    p.teardown_s = r.optional_number(key::phases_teardown_s).value_or(0.0);
    p.before_first_step_s = r.optional_number(key::phases_before_first_step_s);
    r.finish();
    if (!top.has(key::phases) || !r.clean() || !p.before_first_step_s) return;
    // The parts given lie inside the time before the first step.
    double parts = 0;
    const std::pair<key, double> given[] = {{key::phases_queue_s, p.queue_s},
                                            {key::phases_setup_s, p.setup_s},
                                            {key::phases_compile_s, p.compile_s},
                                            {key::phases_data_load_s, p.data_load_s}};
    for (const auto& [k, seconds] : given)
      if (!r.unknown(k)) parts += seconds;
    if (parts > *p.before_first_step_s * (1 + 1e-9) + 1e-9)
      r.problem(journal_path(key::phases_before_first_step_s),
                "must be at least the parts given (queue_s + setup_s + compile_s + data_load_s = " +
                    detail::format_approx(parts, 6) + " s), got " + detail::format_number(*p.before_first_step_s));
  }

  void load_step_times(reader& top, const std::filesystem::path& directory) {
    reader r = top.section(key::step_times);
    const double scale = r.choice<time_unit>(key::step_times_unit) == time_unit::ms ? 1e-3 : 1.0;
    steps_per_value = r.optional_integer(key::step_times_steps_per_value).value_or(1);
    const bool inline_values = r.has(key::step_times_values);
    if (inline_values == r.has(key::step_times_file))
      detail::fail(journal_path(key::step_times), std::string("must have exactly one of values and file, got ") +
                                                      (inline_values ? "both" : "neither"));
    std::vector<double> raw;
    std::string origin = journal_path(inline_values ? key::step_times_values : key::step_times_file);
    if (inline_values) {
      const ordered_json& values = r.array(key::step_times_values);
      for (std::size_t i = 0; i < values.size(); ++i)
        raw.push_back(detail::json_number(values[i], origin + "[" + std::to_string(i) + "]"));
      if (r.has(key::step_times_column) || r.has(key::step_times_step_column) || r.has(key::step_times_sha256) ||
          r.has(key::step_times_count))
        detail::fail(journal_path(key::step_times),
                     "column, step_column, count and sha256 describe a file; they are not allowed with inline values");
    } else {
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
    const ordered_json& list = top.array(key::checkpoints);
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r = top.entry(list, key::checkpoints, i);
      journal_checkpoint c;
      c.step = r.integer(key::checkpoint_step);
      c.at_s = r.optional_timestamp(key::checkpoint_at);
      c.save_s = r.number(key::checkpoint_save_s);
      c.verify_s = r.number(key::checkpoint_verify_s);
      c.size_gb = r.number(key::checkpoint_size_gb);
      c.checksum = r.optional_text(key::checkpoint_checksum);
      if (!c.checksum.empty() && !detail::is_checksum(c.checksum))
        r.problem(r.path(key::checkpoint_checksum), "must be algorithm:digest (sha256:<hex>), got \"" + c.checksum + "\"");
      c.location = r.text(key::checkpoint_location);
      c.restore_verified = r.boolean(key::checkpoint_restore_verified);
      if (c.restore_verified && !r.has(key::checkpoint_checksum))
        r.problem(r.path(key::checkpoint_checksum),
                  "required key is missing (restore_verified is true: a checked restore names what it checked against)");
      c.restore_error = r.optional_text(key::checkpoint_restore_error);
      c.load_s = r.optional_number(key::checkpoint_load_s);
      r.finish();
      checkpoints.push_back(c);
    }
  }

  void load_evaluations(reader& top) {
    if (!top.has(key::evaluations)) return;
    const ordered_json& list = top.array(key::evaluations);
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r = top.entry(list, key::evaluations, i);
      journal_evaluation e;
      e.step = r.integer(key::evaluation_step);
      e.at_s = r.optional_timestamp(key::evaluation_at);
      e.time_s = r.number(key::evaluation_time_s);
      if (r.has(key::evaluation_metrics)) {
        const ordered_json& metrics = r.value(key::evaluation_metrics);
        const std::string path = r.path(key::evaluation_metrics);
        if (!metrics.is_object())
          r.problem(path, "must be an object of name → number, got " + detail::describe_json(metrics));
        else
          for (const auto& [name, value] : metrics.items())
            if (value.is_number() && std::isfinite(value.get<double>())) e.metrics[name] = value.get<double>();
            else r.problem(path + "." + name, "must be a finite number, got " + detail::describe_json(value));
      }
      r.finish();
      evaluations.push_back(e);
    }
  }

  void load_interruptions(reader& top) {
    const ordered_json& list = top.array(key::interruptions);
    for (std::size_t i = 0; i < list.size(); ++i) {
      reader r = top.entry(list, key::interruptions, i);
      journal_interruption x;
      x.at_s = r.timestamp(key::interruption_at);
      x.step = r.integer(key::interruption_step);
      x.cause = r.choice<interruption_cause>(key::interruption_cause);
      x.detail = r.optional_text(key::interruption_detail);
      x.detection_s = r.number(key::interruption_detection_s);
      x.recovery_s = r.number(key::interruption_recovery_s);
      x.restart_s = r.optional_number(key::interruption_restart_s);
      x.compile_s = r.optional_number(key::interruption_compile_s);
      x.load_s = r.optional_number(key::interruption_load_s);
      x.recompiled = r.boolean(key::interruption_recompiled);
      x.restored_from_step = r.integer(key::interruption_restored_from_step);
      x.redone_steps = r.integer(key::interruption_redone_steps);
      x.recovered = r.optional_boolean(key::interruption_recovered, true);
      r.finish();
      interruptions.push_back(x);
    }
  }

  void load_billed(reader& top) {
    reader r = top.section(key::billed);
    billed.node_hours = r.number(key::billed_node_hours);
    billed.queue_billed = r.optional_boolean(key::billed_queue_billed, false);
    billed.node_hour_usd = r.optional_number(key::billed_node_hour_usd);
    billed.usd = r.optional_number(key::billed_usd);
    r.finish();
  }

  void load_quality(reader& top) {
    reader r = top.section(key::quality);
    journal_quality q;
    q.metric = r.text(key::quality_metric);
    q.better = r.choice<quality_direction>(key::quality_better);
    q.target = r.number(key::quality_target);
    q.achieved = r.number(key::quality_achieved);
    q.passed = r.boolean(key::quality_passed);
    q.step = r.optional_integer(key::quality_step);
    q.scope = r.optional_choice<quality_scope>(key::quality_scope).value_or(quality_scope::trial);
    q.reference = r.optional_text(key::quality_reference);
    r.finish();
    quality = q;
  }

  ordered_json document_;
};

}  // namespace trnmodel::calibrate
