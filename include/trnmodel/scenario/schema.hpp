#pragma once
// The JSON Schema (draft 2020-12) of scenario format v1, generated from the field table and the
// distribution families the loader knows, so that editors and validators see exactly the rules
// the loader applies (schema/scenario-v1.schema.json is this function's output).
#include <string>
#include <vector>

#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

namespace detail {

inline ordered_json provenance_schema() {
  return {{"source", {{"enum", known_sources()}}},
          {"note", {{"type", "string"}}},
          {"date", {{"type", "string"}, {"pattern", "^\\d{4}-\\d{2}-\\d{2}$"}}},
          {"region", {{"type", "string"}}}};
}

inline ordered_json family_branches(bool component);

// A fixed number, or a distribution object of every family (a mixture's component: no mixture,
// no provenance).
inline ordered_json value_branches(bool component) {
  ordered_json variants = ordered_json::array({{{"type", "number"}}});
  for (auto& branch : family_branches(component)) variants.push_back(std::move(branch));
  return variants;
}

// A mixture's component (docs/distributions.md, "Mixtures"): {"weight": w, "value": Q}, Q a
// number or a distribution object of any family but unknown and mixture, without provenance.
inline ordered_json component_schema() {
  return {{"type", "object"},
          {"required", {"weight", "value"}},
          {"properties",
           {{"weight", {{"type", "number"}, {"exclusiveMinimum", 0}}}, {"value", {{"oneOf", value_branches(true)}}}}},
          {"additionalProperties", false}};
}

// One oneOf branch: a distribution object with these parameter keys. As a mixture's component
// value (`component`) it has no provenance (it belongs on the mixture).
inline ordered_json family_schema(const std::string& family, const std::vector<std::string>& required,
                                  const std::vector<std::string>& optional, bool component) {
  ordered_json properties = component ? ordered_json::object() : provenance_schema();
  properties["dist"] = {{"const", family}};
  std::vector<std::string> required_keys{"dist"};
  for (const auto& key : required) required_keys.push_back(key);
  for (const auto* keys : {&required, &optional})
    for (const auto& key : *keys) {
      if (key == "samples")
        properties[key] = {{"type", "array"}, {"items", {{"type", "number"}}}, {"minItems", 1}};
      else if (key == "components")
        properties[key] = {{"type", "array"},
                           {"minItems", 1},
                           {"description", "the components, each {\"weight\": w, \"value\": a number or a "
                                           "distribution}; the weights sum to 1 (within 1e-9)"},
                           {"items", component_schema()}};
      else
        properties[key] = {{"type", "number"}};
    }
  return {{"type", "object"}, {"required", required_keys}, {"properties", properties}, {"additionalProperties", false}};
}

// The branches of every family of families(), one per form of a family with alternative
// parametrisations; as a mixture's component values, without the mixture (no nesting).
inline ordered_json family_branches(bool component) {
  ordered_json variants = ordered_json::array();
  for (const auto& [family, keys] : families()) {
    if (component && family == "mixture") continue;
    if (keys.forms.empty()) {
      variants.push_back(family_schema(family, keys.required, keys.optional, component));
      continue;
    }
    for (const auto& form : keys.forms) variants.push_back(family_schema(family, form, {}, component));
  }
  return variants;
}

inline ordered_json quantity_schema() {
  ordered_json variants = value_branches(false);
  variants.push_back({{"type", "object"},
                      {"required", {"unknown"}},
                      {"additionalProperties", false},
                      {"properties",
                       {{"unknown", {{"type", "string"}, {"minLength", 1}}},
                        {"note", {{"type", "string"}}},
                        {"source", provenance_schema()["source"]}}}});
  return {{"oneOf", variants}};
}

inline ordered_json field_schema(const field_spec& f) {
  ordered_json prop;
  switch (f.kind) {
    case field_kind::quantity: prop = {{"$ref", "#/$defs/quantity"}}; break;
    case field_kind::boolean: prop = {{"type", "boolean"}}; break;
    case field_kind::integer: {
      const auto [lo, hi] = integer_bounds(f.rule);
      prop = {{"type", "integer"}, {"minimum", static_cast<long long>(lo)}};
      if (hi < max_whole_number) prop["maximum"] = static_cast<long long>(hi);
      break;
    }
    case field_kind::number:
      prop = {{"type", "number"}};
      if (f.rule == field_rule::positive) prop["exclusiveMinimum"] = 0;
      if (f.rule == field_rule::nonnegative) prop["minimum"] = 0;
      break;
    case field_kind::choice: prop = {{"enum", f.choices}}; break;
    case field_kind::text: prop = {{"type", "string"}}; break;
  }
  prop["description"] = f.doc;
  if (!f.default_value.empty()) prop["default"] = ordered_json::parse(f.default_value);
  return prop;
}

// The `stages` array: each stage overrides the blocks a stage may give (their fields as at
// the top level, a null removing the top level's value; cluster.platform belongs to the whole
// job), plus its name and transition_s; each stage states its own work (job.tokens or
// job.effective_steps).
inline ordered_json stages_schema(const ordered_json& top) {
  ordered_json stage = {{"name",
                         {{"type", "string"},
                          {"minLength", 1},
                          {"pattern", "^[^/]+$"},
                          {"description", "the stage's name, unique; its metrics are \"<name>/<metric>\""}}}};
  stage["transition_s"] = top["transition_s"];
  for (const char* head : {"job", "cluster", "model", "parallelism", "throughput", "compile", "checkpoint", "eval",
                           "failures", "quality"}) {
    ordered_json b = top[head];
    b.erase("required");
    b["properties"].erase("platform");
    for (auto& [key, prop] : b["properties"].items())
      prop = {{"anyOf", ordered_json::array({prop, {{"type", "null"}}})}};
    if (std::string(head) == "job")
      b["anyOf"] = ordered_json::array({{{"required", {"tokens"}}}, {{"required", {"effective_steps"}}}});
    stage[head] = b;
  }
  return {
      {"type", "array"},
      {"minItems", 1},
      {"description", "the job's stages, in order; each overrides the top-level fields it gives"},
      {"items",
       {{"type", "object"}, {"required", {"name", "job"}}, {"additionalProperties", false}, {"properties", stage}}}};
}

}  // namespace detail

/// The JSON Schema (draft 2020-12) of the scenario format, generated from the field table.
inline ordered_json scenario_json_schema() {
  ordered_json top = {{"schema", {{"const", scenario_schema_v1}}}};
  std::vector<std::string> required{"schema"};
  for (const auto& f : scenario_fields()) {
    const auto dot = f.path.find('.');
    if (dot == std::string::npos) {
      top[f.path] = detail::field_schema(f);
      continue;
    }
    // Sections nest as far as the path does (card.owners.quality).
    const std::string section = f.path.substr(0, dot);
    ordered_json* block = &top[section];
    std::string key = f.path.substr(dot + 1);
    for (;;) {
      if (block->is_null())
        *block = {{"type", "object"}, {"additionalProperties", false}, {"properties", ordered_json::object()}};
      const auto next = key.find('.');
      if (next == std::string::npos) break;
      block = &(*block)["properties"][key.substr(0, next)];
      key = key.substr(next + 1);
    }
    (*block)["properties"][key] = detail::field_schema(f);
    if (f.required) {  // required fields sit directly in a top-level section
      (*block)["required"].push_back(key);
      if (std::find(required.begin(), required.end(), section) == required.end()) required.push_back(section);
    }
  }
  top["stages"] = detail::stages_schema(top);
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"$id", "urn:trnmodel:scenario:1"},
          {"title", "trnmodel scenario, format v1"},
          {"type", "object"},
          {"required", required},
          {"additionalProperties", false},
          {"properties", top},
          {"$defs", {{"quantity", detail::quantity_schema()}}}};
}

}  // namespace trnmodel
