#pragma once
// A scenario (the job card, DESIGN §4): loaded from JSON text, a file or a JSON value,
// validated field by field against the table in fields.hpp, saved back as given, and
// copied with dotted-path changes. Every rejection names the JSON path, the value and the
// rule; unknown keys get a "did you mean"; syntax errors give line and column; duplicate
// keys are refused (a JSON parser would otherwise keep the last one silently).
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/fields.hpp"

namespace trnmodel {

inline constexpr const char* scenario_schema_v1 = "trnmodel.scenario/1";

namespace detail {

inline std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys{"schema"};
  for (const auto& f : scenario_fields()) {
    const std::string head = f.path.substr(0, f.path.find('.'));
    if (std::find(keys.begin(), keys.end(), head) == keys.end()) keys.push_back(head);
  }
  return keys;
}

inline std::vector<std::string> section_keys(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& f : scenario_fields())
    if (f.path.rfind(section + ".", 0) == 0) keys.push_back(f.path.substr(section.size() + 1));
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
    case field_rule::probability: return "in [0, 1]";
    case field_rule::fraction_below_one: return "in [0, 1)";
    case field_rule::at_least_one: return "≥ 1";
    default: return "";
  }
}

inline bool in_range(field_rule rule, double lo, double hi) {
  switch (rule) {
    case field_rule::nonnegative: return lo >= 0;
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
  if (in_range(rule, lo, hi)) return;
  if (q.is_fixed()) fail(path, "must be " + rule_text(rule) + ", got " + format_number(lo));
  std::string hint;
  if (std::holds_alternative<dist::normal>(q.dist()))
    hint = rule == field_rule::nonnegative ? "; truncate it with \"lo\": 0" : "; truncate it with \"lo\" and \"hi\"";
  else if (std::holds_alternative<dist::beta>(q.dist()) && rule == field_rule::fraction_below_one)
    hint = "; rescale it with \"hi\" below 1";
  fail(path, "must be " + rule_text(rule) + ", but " + describe_json(quantity_to_json(q)) + " can take values in [" +
                 format_number(lo) + ", " + format_number(hi) + "]" + hint);
}

}  // namespace detail

class scenario {
 public:
  // From a parsed JSON value (a dict from Python arrives this way).
  static scenario from_json(const json& doc) {
    scenario s;
    s.doc_ = doc;
    s.load();
    return s;
  }

  // From JSON text: syntax errors with line and column, duplicate keys refused.
  static scenario from_text(const std::string& text) { return from_json(parse_strict(text)); }

  static scenario from_file(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail(file, "cannot open the scenario file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_text(text.str());
  }

  // Parses JSON text, refusing duplicate keys and reporting syntax errors by line/column.
  static json parse_strict(const std::string& text) {
    std::vector<std::set<std::string>> seen;  // keys of each open object
    std::vector<std::string> key_path;        // the key under which each open value lies
    const json::parser_callback_t on_event = [&](int depth, json::parse_event_t event, json& parsed) {
      switch (event) {
        case json::parse_event_t::object_start: seen.emplace_back(); break;
        case json::parse_event_t::object_end: seen.pop_back(); break;
        case json::parse_event_t::key: {
          const auto key = parsed.get<std::string>();
          key_path.resize(static_cast<std::size_t>(std::max(depth - 1, 0)));
          key_path.push_back(key);
          if (!seen.back().insert(key).second) {
            std::string path;
            for (const auto& part : key_path) path += (path.empty() ? "" : ".") + part;
            fail(path, "duplicate key (JSON parsers would silently keep one of them)");
          }
          break;
        }
        default: break;
      }
      return true;
    };
    try {
      return json::parse(text, on_event);
    } catch (const json::parse_error& e) {
      std::string what = e.what();
      if (what.rfind("[json.exception", 0) == 0) what = what.substr(what.find(']') + 2);
      fail("scenario", "JSON " + what);
    }
  }

  const json& to_json() const { return doc_; }

  // A copy with changes at dotted paths ("checkpoint.every_steps"); a null value removes
  // the key (back to its default). The result is validated like a new scenario.
  scenario updated(const std::vector<std::pair<std::string, json>>& changes) const {
    json doc = doc_;
    for (const auto& [path, value] : changes) {
      const field_spec* field = find_field(path);
      if (field == nullptr)
        fail(path, "no such scenario field" + detail::did_you_mean(path, detail::all_paths()));
      const auto dot = path.find('.');
      if (dot == std::string::npos) {
        if (value.is_null()) doc.erase(path);
        else doc[path] = value;
        continue;
      }
      const std::string section = path.substr(0, dot), key = path.substr(dot + 1);
      if (value.is_null()) {
        if (doc.contains(section) && doc[section].is_object()) doc[section].erase(key);
        continue;
      }
      if (!doc.contains(section) || !doc[section].is_object()) doc[section] = json::object();
      doc[section][key] = value;
    }
    return from_json(doc);
  }

  // Whether the scenario gives the field itself (rather than taking its default).
  bool has(const std::string& path) const { return given_.count(path) > 0; }
  // The quantity at a path (its default when not given); nullptr when absent without a
  // default (failures.node_mtbf_h, prices.node_hour_usd).
  const quantity* find(const std::string& path) const {
    const auto it = quantities_.find(path);
    return it == quantities_.end() ? nullptr : &it->second;
  }
  const quantity& q(const std::string& path) const {
    const quantity* found = find(path);
    if (found == nullptr) fail(path, "not given and has no default");
    return *found;
  }
  bool flag(const std::string& path) const { return flags_.at(path); }
  long long integer(const std::string& path) const { return integers_.at(path); }
  const std::string& text(const std::string& path) const { return texts_.at(path); }
  const std::map<std::string, quantity>& quantities() const { return quantities_; }

  std::string name() const { return texts_.count("name") ? texts_.at("name") : std::string(); }

 private:
  void load() {
    if (!doc_.is_object()) fail("scenario", "must be a JSON object, got " + detail::describe_json(doc_));
    if (!doc_.contains("schema"))
      fail("schema", std::string("required: \"") + scenario_schema_v1 + "\" (the scenario format and its version)");
    if (!doc_["schema"].is_string() || doc_["schema"].get<std::string>() != scenario_schema_v1)
      fail("schema", std::string("must be \"") + scenario_schema_v1 + "\", got " + detail::describe_json(doc_["schema"]));

    const auto sections = detail::top_level_keys();
    for (const auto& [head, value] : doc_.items()) {
      if (head == "schema") continue;
      if (std::find(sections.begin(), sections.end(), head) == sections.end())
        fail(head, "unknown key" + detail::did_you_mean(head, sections));
      if (const field_spec* field = find_field(head)) {  // top-level fields: name, description
        load_field(*field, value);
        continue;
      }
      if (!value.is_object()) fail(head, "must be an object of fields, got " + detail::describe_json(value));
      for (const auto& [key, item] : value.items()) {
        const std::string path = head + "." + key;
        const field_spec* field = find_field(path);
        if (field == nullptr) fail(path, "unknown key" + detail::suggest_field(head, key));
        load_field(*field, item);
      }
    }
    for (const auto& field : scenario_fields()) {
      if (given_.count(field.path)) continue;
      if (field.required) fail(field.path, "required (" + field.doc + ")");
      if (!field.default_value.empty()) load_value(field, json::parse(field.default_value));
    }
  }

  void load_field(const field_spec& field, const json& value) {
    given_.insert(field.path);
    load_value(field, value);
  }

  void load_value(const field_spec& field, const json& value) {
    const std::string& path = field.path;
    switch (field.kind) {
      case field_kind::quantity: {
        quantity q = quantity_from_json(value, path);
        detail::check_quantity_range(path, field.rule, q);
        quantities_[path] = std::move(q);
        break;
      }
      case field_kind::boolean:
        if (!value.is_boolean()) fail(path, "must be true or false, got " + detail::describe_json(value));
        flags_[path] = value.get<bool>();
        break;
      case field_kind::integer: {
        if (!value.is_number()) fail(path, "must be a whole number, got " + detail::describe_json(value));
        const double x = value.get<double>();
        check_finite(path, x);
        if (x != std::floor(x) || std::abs(x) > 9.0e15) fail(path, "must be a whole number, got " + format_number(x));
        if (field.rule == field_rule::at_least_one && x < 1) fail(path, "must be ≥ 1, got " + format_number(x));
        integers_[path] = static_cast<long long>(x);
        break;
      }
      case field_kind::text:
        if (!value.is_string()) fail(path, "must be a string, got " + detail::describe_json(value));
        texts_[path] = value.get<std::string>();
        break;
      case field_kind::choice: {
        if (!value.is_string()) fail(path, "must be a string, got " + detail::describe_json(value));
        const auto text = value.get<std::string>();
        if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end()) {
          std::string list;
          for (const auto& c : field.choices) list += (list.empty() ? "" : ", ") + c;
          fail(path, "must be one of " + list + ", got \"" + text + "\"" + detail::did_you_mean(text, field.choices));
        }
        texts_[path] = text;
        break;
      }
    }
  }

  json doc_;
  std::set<std::string> given_;
  std::map<std::string, quantity> quantities_;
  std::map<std::string, bool> flags_;
  std::map<std::string, long long> integers_;
  std::map<std::string, std::string> texts_;
};

}  // namespace trnmodel
