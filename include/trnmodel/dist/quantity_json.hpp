#pragma once
// Quantities in JSON (docs/distributions.md): a plain number, {"dist": ..., params, provenance} or
// {"unknown": "why"}; a mixture is {"dist": "mixture", "components": [{"weight": w, "value": Q}, ...],
// provenance}, Q a number or a distribution object without provenance. Loading checks every key
// and value and names the JSON path in its errors; saving writes the same form back (a lognormal
// given by p50/p90 stays so, a fixed component is a bare number).
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity.hpp"

namespace trnmodel {

namespace detail {

// Compact JSON for messages, numbers as the user wrote them (2, not 2.0).
inline std::string compact_json(const ordered_json& value) {
  if (value.is_number_float()) return detail::format_number(value.get<double>());
  if (value.is_object()) {
    std::string text = "{";
    for (const auto& [key, item] : value.items())
      text += (text.size() > 1 ? "," : "") + ordered_json(key).dump() + ":" + compact_json(item);
    return text + "}";
  }
  if (value.is_array()) {
    std::string text = "[";
    for (const auto& item : value) text += (text.size() > 1 ? "," : "") + compact_json(item);
    return text + "]";
  }
  return value.dump();
}

inline std::string describe_json(const ordered_json& value) { return detail::shorten(compact_json(value)); }

inline double json_number(const ordered_json& value, const std::string& path) {
  if (!value.is_number()) detail::fail(path, "must be a number, got " + describe_json(value));
  const double x = value.get<double>();
  detail::check_finite(path, x);
  return x;
}

inline std::string json_string(const ordered_json& value, const std::string& path) {
  if (!value.is_string()) detail::fail(path, "must be a string, got " + describe_json(value));
  return value.get<std::string>();
}

inline const std::vector<std::string>& provenance_keys() {
  static const std::vector<std::string> keys{"source", "note", "date", "region"};
  return keys;
}

inline const std::vector<std::string>& known_sources() {
  // "prior": a calibrated posterior the measurements barely moved from its prior (docs/journal.md,
  // "Evidence"): a measurement in form, an assumption in substance.
  static const std::vector<std::string> sources{"measured", "prior", "vendor", "quote", "assumption", "model"};
  return sources;
}

inline provenance provenance_from_json(const ordered_json& object, const std::string& path) {
  provenance p;
  if (auto it = object.find("source"); it != object.end()) {
    p.source = json_string(*it, path + ".source");
    const auto& sources = known_sources();
    if (std::find(sources.begin(), sources.end(), p.source) == sources.end())
      detail::fail(path + ".source", "must be one of measured, prior, vendor, quote, assumption, model, got \"" +
                                         p.source + "\"" + did_you_mean(p.source, sources));
  }
  if (auto it = object.find("note"); it != object.end()) p.note = json_string(*it, path + ".note");
  if (auto it = object.find("region"); it != object.end()) p.region = json_string(*it, path + ".region");
  if (auto it = object.find("date"); it != object.end()) {
    p.date = json_string(*it, path + ".date");
    const bool valid = detail::is_iso_date(p.date);
    if (!valid) detail::fail(path + ".date", "must be an ISO date YYYY-MM-DD, got \"" + p.date + "\"");
  }
  return p;
}

inline void provenance_to_json(const provenance& p, ordered_json& object) {
  if (!p.source.empty()) object["source"] = p.source;
  if (!p.note.empty()) object["note"] = p.note;
  if (!p.date.empty()) object["date"] = p.date;
  if (!p.region.empty()) object["region"] = p.region;
}

// Parameter keys of each family: required first, then optional; `forms` lists the
// alternative parametrisations of a family whose keys are all optional (lognormal: mu and
// sigma, or p50 and p90), for the JSON Schema.
struct family_keys {
  std::vector<std::string> required;
  std::vector<std::string> optional;
  std::vector<std::vector<std::string>> forms = {};
};

inline const std::map<std::string, family_keys>& families() {
  static const std::map<std::string, family_keys> table{
      {"fixed", {{"value"}, {}}},
      {"uniform", {{"lo", "hi"}, {}}},
      {"normal", {{"mean", "sd"}, {"lo", "hi"}}},
      {"lognormal", {{}, {"mu", "sigma", "p50", "p90"}, {{"mu", "sigma"}, {"p50", "p90"}}}},
      {"triangular", {{"lo", "mode", "hi"}, {}}},
      {"pert", {{"lo", "mode", "hi"}, {}}},
      {"gamma", {{"shape", "scale"}, {}}},
      {"weibull", {{"shape", "scale"}, {}}},
      {"exponential", {{"mean"}, {}}},
      {"beta", {{"a", "b"}, {"lo", "hi"}}},
      {"bernoulli", {{"p"}, {}}},
      {"empirical", {{"samples"}, {}}},
      {"mixture", {{"components"}, {}}},
  };
  return table;
}

inline std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& [name, keys] : families()) names.push_back(name);
  return names;
}

}  // namespace detail

inline quantity quantity_from_json(const ordered_json& j, const std::string& path);

namespace detail {

// A mixture's "components" (docs/distributions.md, "Mixtures"): each {"weight": w, "value": Q},
// Q a quantity as a field takes it (a number or a distribution object) but neither an unknown
// nor a mixture, and without provenance (it belongs on the mixture). Exactly those two keys,
// refused in the words the strict readers use (json_reader): a typo such as "weigth" must not
// silently drop a weight. The value's own rules are its family's, at <component>.value.
inline quantity mixture_from_json(const ordered_json& components, const std::string& path) {
  static const std::vector<std::string> component_keys{"weight", "value"};
  if (!components.is_array())
    detail::fail(path + ".components",
                 "must be an array of components {\"weight\": w, \"value\": ...}, got " + describe_json(components));
  std::vector<std::pair<double, quantity>> parts;
  for (std::size_t k = 0; k < components.size(); ++k) {
    const std::string at = path + ".components[" + std::to_string(k) + "]";
    const ordered_json& c = components[k];
    if (!c.is_object())
      detail::fail(at, "must be a component {\"weight\": w, \"value\": ...}, got " + describe_json(c));
    for (const auto& [key, item] : c.items())
      if (std::find(component_keys.begin(), component_keys.end(), key) == component_keys.end())
        detail::fail(at + "." + key, "unknown key" + did_you_mean(key, component_keys));
    for (const auto& key : component_keys)
      if (!c.contains(key)) detail::fail(at + "." + key, "required key is missing");
    const double weight = json_number(c.at("weight"), at + ".weight");
    const std::string value_path = at + ".value";
    const ordered_json& value = c.at("value");
    if (!value.is_number() && !value.is_object())
      detail::fail(value_path,
                   "must be a number or a distribution object {\"dist\": ...}, got " + describe_json(value));
    if (value.is_object()) {  // refused before the value is read, so a nested mixture is not parsed first
      if (value.contains("unknown")) detail::fail(value_path + ".unknown", component_unknown_rule);
      if (auto it = value.find("dist"); it != value.end() && *it == "mixture")
        detail::fail(value_path + ".dist", component_mixture_rule);
      for (const auto& key : provenance_keys())
        if (value.contains(key)) detail::fail(value_path + "." + key, component_provenance_rule);
    }
    parts.emplace_back(weight, quantity_from_json(value, value_path));
  }
  return make_mixture(parts, path);
}

}  // namespace detail

/// Parses one quantity at `path`. Errors name the path, the value and the rule.
inline quantity quantity_from_json(const ordered_json& j, const std::string& path) {
  using namespace detail;
  check_json_depth(j, path);  // messages print the value, recursively
  if (j.is_number()) return make_fixed(json_number(j, path), path);
  if (!j.is_object())
    detail::fail(path, "must be a number, a distribution object {\"dist\": ...} or {\"unknown\": \"why\"}, got " +
                           describe_json(j));

  if (j.contains("unknown")) {
    for (const auto& [key, value] : j.items())
      if (key != "unknown" && key != "note" && key != "source")
        detail::fail(path + "." + key, "unknown key next to \"unknown\" (allowed: note, source)");
    quantity q = make_unknown(json_string(j.at("unknown"), path + ".unknown"), path);
    q.prov() = provenance_from_json(j, path);
    return q;
  }
  if (!j.contains("dist")) {
    detail::fail(path,
                 "a distribution object needs \"dist\" (one of beta, bernoulli, empirical, exponential, fixed, "
                 "gamma, lognormal, mixture, normal, pert, triangular, uniform, weibull) or \"unknown\", got " +
                     describe_json(j));
  }
  const std::string family = json_string(j.at("dist"), path + ".dist");
  const auto found = families().find(family);
  if (found == families().end())
    detail::fail(path + ".dist", "unknown distribution \"" + family + "\"" + did_you_mean(family, family_names()));
  const family_keys& keys = found->second;

  std::vector<std::string> allowed{"dist"};
  for (const auto* list : {&keys.required, &keys.optional, &provenance_keys()})
    allowed.insert(allowed.end(), list->begin(), list->end());
  for (const auto& [key, value] : j.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      detail::fail(path + "." + key, "unknown key for a " + family + " distribution" + did_you_mean(key, allowed));
  for (const auto& key : keys.required)
    if (!j.contains(key)) detail::fail(path, family + " needs \"" + key + "\"");

  const auto number = [&](const char* key) { return json_number(j.at(key), path + "." + key); };
  const auto number_or = [&](const char* key, double fallback) { return j.contains(key) ? number(key) : fallback; };

  quantity q;
  if (family == "fixed") {
    q = make_fixed(number("value"), path);
  } else if (family == "uniform") {
    q = make_uniform(number("lo"), number("hi"), path);
  } else if (family == "normal") {
    q = make_normal(number("mean"), number("sd"), number_or("lo", -dist::infinity), number_or("hi", dist::infinity),
                    path);
  } else if (family == "lognormal") {
    const bool by_moments = j.contains("mu") || j.contains("sigma");
    const bool by_quantiles = j.contains("p50") || j.contains("p90");
    if (by_moments == by_quantiles)
      detail::fail(path, "lognormal needs either mu and sigma or p50 and p90, got " + describe_json(j));
    if (by_moments) {
      if (!j.contains("mu") || !j.contains("sigma")) detail::fail(path, "lognormal needs both mu and sigma");
      q = make_lognormal(number("mu"), number("sigma"), path);
    } else {
      if (!j.contains("p50") || !j.contains("p90")) detail::fail(path, "lognormal needs both p50 and p90");
      q = make_lognormal_from_quantiles(number("p50"), number("p90"), path);
    }
  } else if (family == "triangular") {
    q = make_triangular(number("lo"), number("mode"), number("hi"), path);
  } else if (family == "pert") {
    q = make_pert(number("lo"), number("mode"), number("hi"), path);
  } else if (family == "gamma") {
    q = make_gamma(number("shape"), number("scale"), path);
  } else if (family == "weibull") {
    q = make_weibull(number("shape"), number("scale"), path);
  } else if (family == "exponential") {
    q = make_exponential(number("mean"), path);
  } else if (family == "beta") {
    q = make_beta(number("a"), number("b"), number_or("lo", 0), number_or("hi", 1), path);
  } else if (family == "bernoulli") {
    q = make_bernoulli(number("p"), path);
  } else if (family == "mixture") {
    q = mixture_from_json(j.at("components"), path);
  } else {  // empirical
    const auto& samples = j.at("samples");
    if (!samples.is_array())
      detail::fail(path + ".samples", "must be an array of numbers, got " + describe_json(samples));
    std::vector<double> values;
    values.reserve(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
      values.push_back(json_number(samples[i], path + ".samples[" + std::to_string(i) + "]"));
    q = make_empirical(std::move(values), path);
  }
  q.prov() = provenance_from_json(j, path);
  return q;
}

namespace detail {

// The parameters of one family into `j` (after its "dist"), as the loader reads them back.
template <class T> void parameters_to_json(const T& d, ordered_json& j) {
  if constexpr (std::is_same_v<T, dist::fixed>) {
    j["value"] = d.value;
  } else if constexpr (std::is_same_v<T, dist::uniform>) {
    j["lo"] = d.lo;
    j["hi"] = d.hi;
  } else if constexpr (std::is_same_v<T, dist::normal>) {
    j["mean"] = d.mean_value;
    j["sd"] = d.sd;
    if (std::isfinite(d.lo)) j["lo"] = d.lo;
    if (std::isfinite(d.hi)) j["hi"] = d.hi;
  } else if constexpr (std::is_same_v<T, dist::lognormal>) {
    if (d.from_quantiles) {
      j["p50"] = d.p50();
      j["p90"] = d.p90();
    } else {
      j["mu"] = d.mu;
      j["sigma"] = d.sigma;
    }
  } else if constexpr (std::is_same_v<T, dist::triangular> || std::is_same_v<T, dist::pert>) {
    j["lo"] = d.lo;
    j["mode"] = d.mode;
    j["hi"] = d.hi;
  } else if constexpr (std::is_same_v<T, dist::gamma> || std::is_same_v<T, dist::weibull>) {
    j["shape"] = d.shape;
    j["scale"] = d.scale;
  } else if constexpr (std::is_same_v<T, dist::exponential>) {
    j["mean"] = d.mean_value;
  } else if constexpr (std::is_same_v<T, dist::beta>) {
    j["a"] = d.a;
    j["b"] = d.b;
    if (d.lo != 0 || d.hi != 1) {
      j["lo"] = d.lo;
      j["hi"] = d.hi;
    }
  } else if constexpr (std::is_same_v<T, dist::bernoulli>) {
    j["p"] = d.p;
  } else if constexpr (std::is_same_v<T, dist::empirical>) {
    j["samples"] = *d.sorted;
  } else if constexpr (std::is_same_v<T, dist::mixture>) {
    // {"weight": w, "value": Q}, Q as a field writes it: a bare number for a fixed value.
    j["components"] = ordered_json::array();
    for (const auto& part : *d.components) {
      ordered_json value = ordered_json::object();
      std::visit(
          [&value](const auto& x) {
            value["dist"] = std::decay_t<decltype(x)>::name;
            parameters_to_json(x, value);
          },
          part.dist);
      if (std::holds_alternative<dist::fixed>(part.dist)) value = value["value"];
      j["components"].push_back({{"weight", part.weight}, {"value", std::move(value)}});
    }
  }
}

}  // namespace detail

/// The JSON form: a plain number for a fixed value without provenance, else an object.
inline ordered_json quantity_to_json(const quantity& q) {
  ordered_json j = ordered_json::object();
  std::visit(
      [&](const auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, dist::unknown>) {
          j["unknown"] = d.reason;
        } else {
          j["dist"] = T::name;
          detail::parameters_to_json(d, j);
        }
      },
      q.dist());
  detail::provenance_to_json(q.prov(), j);
  if (q.is_fixed() && q.prov().empty()) return j["value"];
  return j;
}

}  // namespace trnmodel
