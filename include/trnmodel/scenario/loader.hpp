#pragma once
// Reading a scenario document into its fields' values (docs/scenario.md): every key checked
// against the field table (scenario/fields.hpp): unknown keys refused with a did-you-mean,
// each value read as its field's kind and checked against its rule, required fields
// required, defaults filled in. The cross-field rules (scenario/rules.hpp) and the stages
// (scenario/stages.hpp) come after; the scenario class (scenario/scenario.hpp) holds the result.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/detail/problems.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/fields.hpp"

namespace trnmodel {

/// The value of a version-1 scenario's "schema" key.
inline constexpr const char* scenario_schema_v1 = "trnmodel.scenario/1";

namespace detail {

inline std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys{"schema", "stages"};
  for (const auto& f : scenario_fields()) {
    const std::string head = f.path.substr(0, f.path.find('.'));
    if (std::find(keys.begin(), keys.end(), head) == keys.end()) keys.push_back(head);
  }
  return keys;
}

// The keys directly inside a section ("card" -> code_version, ..., owners): fields and
// sub-sections, each once, in table order. Empty when `section` is not a section.
inline std::vector<std::string> section_keys(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& f : scenario_fields()) {
    if (f.path.rfind(section + ".", 0) != 0) continue;
    const std::string rest = f.path.substr(section.size() + 1);
    const std::string key = rest.substr(0, rest.find('.'));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

inline std::vector<std::string> all_paths() {
  std::vector<std::string> paths;
  for (const auto& f : scenario_fields()) paths.push_back(f.path);
  return paths;
}

// The likeliest intended field for an unknown key: the same key in another section
// ("checkpoint.restart_s" -> failures.restart_s), a near key in this section, or a near path.
inline std::string suggest_field(const std::string& section, const std::string& key) {
  for (const auto& f : scenario_fields())
    if (f.path.size() > key.size() && f.path.compare(f.path.size() - key.size() - 1, std::string::npos, "." + key) == 0)
      return " (did you mean " + f.path + "?)";
  std::string hint = did_you_mean(key, section_keys(section));
  return hint.empty() ? did_you_mean(section + "." + key, all_paths()) : hint;
}

inline std::string rule_text(field_rule rule) {
  switch (rule) {
    case field_rule::nonnegative: return "≥ 0";
    case field_rule::positive: return "> 0";
    case field_rule::unit_interval: return "in (0, 1]";
    case field_rule::weibull_shape: return "≥ 0.1";
    case field_rule::probability: return "in [0, 1]";
    case field_rule::fraction_below_one: return "in [0, 1)";
    case field_rule::at_least_one: return "≥ 1";
    default: return "";
  }
}

inline bool in_range(field_rule rule, double lo, double hi) {
  switch (rule) {
    case field_rule::nonnegative: return lo >= 0;
    case field_rule::positive: return lo >= 0;  // and no atom at 0: checked below
    case field_rule::unit_interval: return lo >= 0 && hi <= 1;
    case field_rule::weibull_shape: return lo >= 0.1;
    case field_rule::probability: return lo >= 0 && hi <= 1;
    case field_rule::fraction_below_one: return lo >= 0 && hi < 1;
    default: return true;
  }
}

// The whole support of a quantity must satisfy the field's rule, so that no draw can be
// out of range: refused, never clipped.
inline void check_quantity_range(const std::string& path, field_rule rule, const quantity& q) {
  if (q.is_unknown() || rule == field_rule::any) return;
  const auto [lo, hi] = q.support();
  // Rates and durations that divide: a draw of exactly 0 would give an infinite time. A
  // continuous distribution whose support starts at 0 never draws 0 (u > 0); a fixed value,
  // an empirical sample or a Bernoulli atom at 0 would, and so would a mixture with one of
  // those as its lowest component.
  const auto* mix = std::get_if<dist::mixture>(&q.dist());
  const bool atom = q.is_fixed() || std::holds_alternative<dist::empirical>(q.dist()) ||
                    std::holds_alternative<dist::bernoulli>(q.dist()) || (mix && mix->atom_at_lowest());
  if ((rule == field_rule::positive || rule == field_rule::unit_interval) && lo == 0 && atom)
    detail::fail(path, "must be " + rule_text(rule) + ", got " +
                           (q.is_fixed() ? std::string("0") : describe_json(quantity_to_json(q)) + ", which can be 0"));
  if (in_range(rule, lo, hi)) return;
  if (q.is_fixed()) detail::fail(path, "must be " + rule_text(rule) + ", got " + detail::format_number(lo));
  std::string hint;
  if (std::holds_alternative<dist::normal>(q.dist()))
    hint = rule == field_rule::nonnegative || rule == field_rule::positive ? "; truncate it with \"lo\": 0"
                                                                           : "; truncate it with \"lo\" and \"hi\"";
  else if (std::holds_alternative<dist::beta>(q.dist()) && rule == field_rule::fraction_below_one)
    hint = "; rescale it with \"hi\" below 1";
  detail::fail(path, "must be " + rule_text(rule) + ", but " + describe_json(quantity_to_json(q)) +
                         " can take values in [" + detail::format_number(lo) + ", " + detail::format_number(hi) + "]" +
                         hint);
}

// A fixed value of a field that counts (steps, changes) must already be a whole number in
// range: rounding is for drawn values, whose spread the user chose; rounding a typed 0.3 to
// 0 would silently mean "never checkpoint", and 0 steps to 1 step.
inline void check_fixed_count(const field_spec& field, const quantity& q) {
  if (field.count == counting::none || !q.is_fixed()) return;
  const double x = q.ppf(0.5), lo = field.count == counting::up ? 1 : 0;
  if (x == std::floor(x) && x >= lo) return;  // every double from 2^53 up is whole
  detail::fail(field.path, "a fixed count must be a whole number ≥ " + detail::format_number(lo) + ", got " +
                               detail::format_number(x) + " (only drawn values are rounded)");
}

}  // namespace detail

/// What a scenario document gives, field by field (in scenario_fields() order): whether the
/// document gives each field itself, and each field's value, given or default, in the vector
/// of its kind (the others hold nothing). A plain value: copyable; concurrent reads are safe.
struct field_values {
  std::vector<bool> given = std::vector<bool>(field_count, false);  ///< the document gives the field itself
  std::vector<std::optional<quantity>> quantities = std::vector<std::optional<quantity>>(field_count);  ///< quantity
  std::vector<std::optional<bool>> flags = std::vector<std::optional<bool>>(field_count);  ///< boolean fields
  std::vector<std::optional<long long>> integers = std::vector<std::optional<long long>>(field_count);  ///< integer
  std::vector<std::optional<double>> numbers = std::vector<std::optional<double>>(field_count);  ///< number fields
  std::vector<std::optional<std::string>> texts = std::vector<std::optional<std::string>>(field_count);  ///< text, choice

  /// Reads a whole scenario document (its "stages" array is left to scenario/stages.hpp).
  /// Throws trnmodel::input_error naming the path of the first key or value that breaks a rule.
  static field_values from_json(const ordered_json& doc) {
    field_values v;
    v.load(doc);
    return v;
  }

 private:
  void load(const ordered_json& doc) {
    if (!doc.is_object()) detail::fail("scenario", "must be a JSON object, got " + detail::describe_json(doc));
    if (!doc.contains("schema"))
      detail::fail("schema",
                   std::string("required: \"") + scenario_schema_v1 + "\" (the scenario format and its version)");
    if (!doc.at("schema").is_string() || doc.at("schema").get<std::string>() != scenario_schema_v1)
      detail::fail("schema",
                   std::string("must be \"") + scenario_schema_v1 + "\", got " + detail::describe_json(doc.at("schema")));

    // Every field's problem is kept and the reading goes on: one input_error lists them all.
    detail::problem_list problems;
    const auto sections = detail::top_level_keys();
    for (const auto& [head, value] : doc.items()) {
      if (head == "schema" || head == "stages") continue;  // stages: load_stages()
      if (std::find(sections.begin(), sections.end(), head) == sections.end()) {
        problems.add(head, "unknown key" + detail::did_you_mean(head, sections));
        continue;
      }
      if (const field_spec* field = find_field(head)) {  // top-level fields: name, description
        const ordered_json& given_value = value;  // a lambda cannot capture a structured binding in C++17
        problems.attempt([&] { load_field(*field, given_value); });
        continue;
      }
      load_section(head, value, problems);
    }
    for (const auto& field : scenario_fields()) {
      if (given[field.index()]) continue;
      if (field.required) problems.add(field.path, "required (" + field.doc + ")");
      else if (!field.default_value.empty()) load_value(field, ordered_json::parse(field.default_value));
    }
    problems.throw_if_any();
  }

  // The fields of a section, and of its sub-sections (card.owners).
  void load_section(const std::string& section, const ordered_json& value, detail::problem_list& problems) {
    if (!value.is_object())
      return problems.add(section, "must be an object of fields, got " + detail::describe_json(value));
    for (const auto& [key, item] : value.items()) {
      const std::string path = section + "." + key;
      if (const field_spec* field = find_field(path)) {
        const ordered_json& given_value = item;  // a lambda cannot capture a structured binding in C++17
        problems.attempt([&] { load_field(*field, given_value); });
      } else if (!detail::section_keys(path).empty()) {
        load_section(path, item, problems);
      } else {
        problems.add(path, "unknown key" + detail::suggest_field(section, key));
      }
    }
  }

  void load_field(const field_spec& field, const ordered_json& value) {
    given[field.index()] = true;
    load_value(field, value);
  }

  void load_value(const field_spec& field, const ordered_json& value) {
    const std::string& path = field.path;
    switch (field.kind) {
      case field_kind::quantity: {
        quantity q = quantity_from_json(value, path);
        detail::check_quantity_range(path, field.rule, q);
        detail::check_fixed_count(field, q);
        quantities[field.index()] = std::move(q);
        break;
      }
      case field_kind::boolean:
        if (!value.is_boolean()) detail::fail(path, "must be true or false, got " + detail::describe_json(value));
        flags[field.index()] = value.get<bool>();
        break;
      case field_kind::integer: {
        if (!value.is_number()) detail::fail(path, "must be a whole number, got " + detail::describe_json(value));
        const auto [lo, hi] = integer_bounds(field.rule);
        integers[field.index()] = detail::whole_number(path, value.get<double>(), lo, hi);
        break;
      }
      case field_kind::number: {
        if (!value.is_number()) detail::fail(path, "must be a number, got " + detail::describe_json(value));
        const double x = value.get<double>();
        if (!std::isfinite(x) || !detail::in_range(field.rule, x, x) || (field.rule == field_rule::positive && x == 0))
          detail::fail(path, "must be " + detail::rule_text(field.rule) + ", got " + detail::format_number(x));
        numbers[field.index()] = x;
        break;
      }
      case field_kind::text:
        if (!value.is_string()) detail::fail(path, "must be a string, got " + detail::describe_json(value));
        texts[field.index()] = value.get<std::string>();
        break;
      case field_kind::choice: {
        if (!value.is_string()) detail::fail(path, "must be a string, got " + detail::describe_json(value));
        const auto text = value.get<std::string>();
        if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end()) {
          std::string list;
          for (const auto& c : field.choices) list += (list.empty() ? "" : ", ") + c;
          detail::fail(path,
                       "must be one of " + list + ", got \"" + text + "\"" + detail::did_you_mean(text, field.choices));
        }
        texts[field.index()] = text;
        break;
      }
    }
  }
};

}  // namespace trnmodel
