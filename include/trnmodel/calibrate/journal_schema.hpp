#pragma once
// The JSON Schema (draft 2020-12) of the journal format, generated from its field table
// (journal_fields.hpp), for editors and validators; schema/journal-v1.schema.json is this
// function's output (tests/python/test_journal_format.py checks that it is). The schema says
// what one field may hold and the few cross-field rules a schema can state; the loader
// (journal.hpp) checks the rest (docs/journal.md, "Validation").
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/detail/json.hpp"

namespace trnmodel::detail {

inline ordered_json number_schema(number_rule rule) {
  using rule_t = number_rule;
  ordered_json s{{"type", "number"}};
  switch (rule) {
    case rule_t::any: break;
    case rule_t::nonnegative: s["minimum"] = 0; break;
    case rule_t::positive: s["exclusiveMinimum"] = 0; break;
    case rule_t::unit_interval:
      s["minimum"] = 0;
      s["maximum"] = 1;
      break;
  }
  return s;
}

inline ordered_json object_schema(const std::string& object, const std::string& doc);

inline ordered_json field_schema(const calibrate::journal_field& f) {
  using calibrate::journal_value;
  ordered_json s;
  switch (f.value) {
    case journal_value::text:
      if (f.id == calibrate::journal_key::schema) {
        s = ordered_json{{"const", calibrate::journal_schema}};  // the format tag: one text only
        break;
      }
      s = ordered_json{{"type", "string"}, {"minLength", 1}};
      if (!f.pattern.empty()) s["pattern"] = f.pattern;
      break;
    case journal_value::free_text: s = ordered_json{{"type", "string"}}; break;
    case journal_value::timestamp: s = ordered_json{{"$ref", "#/$defs/timestamp"}}; break;
    case journal_value::integer:
      s = ordered_json{{"type", "integer"}, {"minimum", f.minimum}};
      if (f.maximum != std::numeric_limits<std::int64_t>::max()) s["maximum"] = f.maximum;
      break;
    case journal_value::number: s = number_schema(f.rule); break;
    case journal_value::boolean: s = ordered_json{{"type", "boolean"}}; break;
    case journal_value::choice: s = ordered_json{{"enum", f.choices}}; break;
    case journal_value::section: return object_schema(f.path(), f.doc);
    case journal_value::list:
      s = ordered_json{{"type", "array"}, {"items", object_schema(f.path() + "[]", f.item_doc)}};
      break;
    case journal_value::text_list:
      s = ordered_json{
          {"type", "array"}, {"minItems", 1}, {"uniqueItems", true}, {"items", {{"type", "string"}, {"minLength", 1}}}};
      break;
    case journal_value::number_list:
      s = ordered_json{{"type", "array"}, {"minItems", 1}, {"items", number_schema(f.rule)}};
      break;
    case journal_value::text_map:
      s = ordered_json{{"type", "object"},
                       {"propertyNames", {{"pattern", f.pattern}}},
                       {"additionalProperties", {{"type", "string"}, {"minLength", 1}}}};
      break;
    case journal_value::number_map:
      s = ordered_json{{"type", "object"},
                       {"propertyNames", {{"pattern", f.pattern}}},
                       {"additionalProperties", {{"type", "number"}}}};
      break;
  }
  s["description"] = f.doc;
  return s;
}

// The key of field `k` within its object, for the rules below.
inline std::string key_of(calibrate::journal_key k) { return calibrate::journal_field_of(k).key; }

inline ordered_json required_one_of(std::initializer_list<calibrate::journal_key> keys) {
  ordered_json variants = ordered_json::array();
  for (const auto k : keys) variants.push_back({{"required", {key_of(k)}}});
  return variants;
}

// The loader's cross-field rules that a schema can state (journal.hpp states them in words).
inline void add_cross_field_rules(const std::string& object, ordered_json& s) {
  using key = calibrate::journal_key;
  using calibrate::journal_path;
  if (object == journal_path(key::versions)) s["oneOf"] = required_one_of({key::versions_neuron_sdk, key::versions_cuda});
  if (object == journal_path(key::training))
    s["allOf"] = {{{"if", {{"properties", {{key_of(key::training_kind), {{"const", name_of_choice(job_kind::lora)}}}}},
                           {"required", {key_of(key::training_kind)}}}},
                   {"then", {{"required", {key_of(key::training_lora_rank)}}}}}};
  if (object == journal_path(key::step_times)) {
    const std::string file = key_of(key::step_times_file);
    s["oneOf"] = required_one_of({key::step_times_values, key::step_times_file});
    s["dependentRequired"] = {{key_of(key::step_times_column), {file}},
                              {key_of(key::step_times_step_column), {file}},
                              {key_of(key::step_times_count), {file}},
                              {key_of(key::step_times_sha256), {file}}};
    const auto file_is = [&](const char* pattern) {
      return ordered_json{{"properties", {{file, {{"pattern", pattern}}}}}, {"required", {file}}};
    };
    s["allOf"] = {{{"if", file_is("\\.csv$")}, {"then", {{"required", {key_of(key::step_times_column)}}}}},
                  {{"if", file_is("\\.npy$")},
                   {"then",
                    {{"not", {{"anyOf", required_one_of({key::step_times_column, key::step_times_step_column})}}}}}}};
  }
}

// The schema of the object at `object` ("" the top level, "checkpoints[]" a list entry).
inline ordered_json object_schema(const std::string& object, const std::string& doc) {
  ordered_json s{{"type", "object"}};
  if (!doc.empty()) s["description"] = doc;
  s["additionalProperties"] = false;
  ordered_json required = ordered_json::array(), properties = ordered_json::object();
  for (const auto& f : calibrate::journal_fields()) {
    if (f.object != object) continue;
    if (f.required) required.push_back(f.key);
    properties[f.key] = field_schema(f);
  }
  if (!required.empty()) s["required"] = required;
  s["properties"] = properties;
  add_cross_field_rules(object, s);
  return s;
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// The JSON Schema of the journal format, generated from the journal field table.
inline ordered_json journal_json_schema() {
  ordered_json s{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "urn:trnmodel:journal:1"},
      {"title", "trnmodel trial-run journal, format v1"},
      {"description",
       "One short, representative trial run of a training job, recorded so that scenario inputs can be calibrated "
       "from measurements (docs/journal.md). Units are in the key names: _s seconds, _h hours, _gb gigabytes (1e9 "
       "bytes), _usd US dollars; _fraction is a share in [0, 1]. Timestamps are RFC 3339 / ISO 8601 with a time "
       "zone. Unknown keys are errors everywhere except inside the name->value maps versions.libraries and "
       "evaluations[].metrics. Cross-field rules (timestamp order, steps completed <= planned, phase sums, billed "
       "time) are checked by the loader (tm.Journal), not by this schema: see docs/journal.md. Generated from the "
       "journal's field table (include/trnmodel/calibrate/journal_fields.hpp)."}};
  const ordered_json body = detail::object_schema("", "");
  for (const auto& [key, value] : body.items()) s[key] = value;
  s["$defs"] = {
      {"timestamp",
       {{"type", "string"},
        {"format", "date-time"},
        {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"},
        {"description", "RFC 3339 date-time with a time zone (Z or +hh:mm), e.g. 2026-11-17T08:12:04Z"}}}};
  return s;
}

}  // namespace trnmodel::calibrate
