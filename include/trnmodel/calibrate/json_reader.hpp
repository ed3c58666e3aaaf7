#pragma once
// Reading a JSON object field by field, strictly: each getter names the key, checks the
// type and the rule, and remembers the key; `finish()` then refuses every key nobody asked
// for, with a did-you-mean. A record format read this way cannot drop a misspelt
// measurement silently. Messages follow docs/scenario.md: "<path>: <rule>, got <value>".
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity_json.hpp"

namespace trnmodel::detail {

enum class number_rule { any, nonnegative, positive, unit_interval };

inline void check_number_rule(const std::string& path, double x, number_rule rule) {
  switch (rule) {
    case number_rule::any: detail::check_finite(path, x); break;
    case number_rule::nonnegative: detail::check_nonnegative(path, x); break;
    case number_rule::positive: detail::check_positive(path, x); break;
    case number_rule::unit_interval: detail::check_probability(path, x); break;
  }
}

class json_reader {
 public:
  json_reader(const ordered_json& value, std::string path) : value_(value), path_(std::move(path)) {
    if (!value.is_object()) detail::fail(path_, "must be an object, got " + describe_json(value));
  }

  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  bool has(const std::string& key) { return find(key) != nullptr; }

  const ordered_json& required(const std::string& key) {
    const ordered_json* v = find(key);
    if (v == nullptr) {
      // A misspelt required key is both missing and unknown: say which key it probably is.
      std::vector<std::string> present;
      for (const auto& [name, item] : value_.items()) {
        (void)item;
        if (std::find(asked_.begin(), asked_.end(), name) == asked_.end()) present.push_back(name);
      }
      const std::string guess = closest_name(key, present);
      detail::fail(path(key), "required key is missing" +
                                  (guess.empty() ? std::string() : " (found " + guess + ", a misspelling?)"));
    }
    return *v;
  }

  double number(const std::string& key, number_rule rule = number_rule::any) {
    const double x = json_number(required(key), path(key));
    check_number_rule(path(key), x, rule);
    return x;
  }
  std::optional<double> optional_number(const std::string& key, number_rule rule = number_rule::any) {
    if (!has(key)) return std::nullopt;
    return number(key, rule);
  }

  // Integers accept 600.0 but not 600.5 (the scenario loader's rule).
  std::int64_t integer(const std::string& key, std::int64_t minimum) {
    const ordered_json& v = required(key);
    return detail::whole_number(path(key), json_number(v, path(key)), static_cast<double>(minimum));
  }
  std::optional<std::int64_t> optional_integer(const std::string& key, std::int64_t minimum) {
    if (!has(key)) return std::nullopt;
    return integer(key, minimum);
  }

  std::string text(const std::string& key) { return json_string(required(key), path(key)); }
  std::string optional_text(const std::string& key) { return has(key) ? text(key) : std::string(); }

  std::string choice(const std::string& key, const std::vector<std::string>& options) {
    const std::string value = text(key);
    for (const auto& option : options)
      if (option == value) return value;
    std::string list;
    for (const auto& option : options) list += (list.empty() ? "" : ", ") + option;
    detail::fail(path(key), "must be one of " + list + ", got \"" + value + "\"" + did_you_mean(value, options));
  }
  std::string optional_choice(const std::string& key, const std::vector<std::string>& options,
                              const std::string& default_value) {
    return has(key) ? choice(key, options) : default_value;
  }

  bool boolean(const std::string& key) {
    const ordered_json& v = required(key);
    if (!v.is_boolean()) detail::fail(path(key), "must be true or false, got " + describe_json(v));
    return v.get<bool>();
  }
  bool optional_boolean(const std::string& key, bool default_value) { return has(key) ? boolean(key) : default_value; }

  const ordered_json& array(const std::string& key) {
    const ordered_json& v = required(key);
    if (!v.is_array()) detail::fail(path(key), "must be an array, got " + describe_json(v));
    return v;
  }

  // Refuses the keys that no getter asked for.
  void finish() const {
    for (const auto& key : unasked_keys()) detail::fail(path(key), "unknown key" + did_you_mean(key, asked_));
  }

 protected:
  // The keys present that no getter asked for, in document order.
  std::vector<std::string> unasked_keys() const {
    std::vector<std::string> keys;
    for (const auto& [key, item] : value_.items()) {
      (void)item;
      if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) keys.push_back(key);
    }
    return keys;
  }
  const std::vector<std::string>& asked() const { return asked_; }

 private:
  const ordered_json* find(const std::string& key) {
    if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.push_back(key);
    const auto it = value_.find(key);
    return it == value_.end() ? nullptr : &*it;
  }

  const ordered_json& value_;
  std::string path_;
  std::vector<std::string> asked_;
};

}  // namespace trnmodel::detail
