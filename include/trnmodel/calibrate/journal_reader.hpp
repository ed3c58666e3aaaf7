#pragma once
// Reading a journal's object field by field, by the fields' ids (calibrate/journal_fields.hpp):
// json_reader's strict reading (every key asked for, unknown keys refused) with the key, its
// requiredness, its integer minimum, number rule and choices taken from the journal's table.
// A field's problem is kept in the loader's problem_list and the reading goes on, so a journal
// with five mistakes gets five lines in one error; a field the journal lists as unknown must
// be left out, and its getter returns the fallback without a problem.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/calibrate/json_reader.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/problems.hpp"

namespace trnmodel::detail {

// What every reader of one journal shares: the problems found so far and the journal's
// "unknown" map (dotted path -> why).
struct journal_reading {
  problem_list problems;
  std::map<std::string, std::string> unknown;
};

// The strict reader with the journal's field table behind it: each getter takes a field's id,
// and the key, whether it is required, the integer minimum, the number rule and the choice's
// spellings all come from journal_fields(), so the loader and the schema cannot disagree.
// Asking for a required field with an optional getter (or the reverse), or for a field of
// another object, is a logic_error: test_journal_fields loads every field, so it cannot pass
// with the loader out of step with the table. A getter whose field breaks a rule, or is
// missing, keeps the problem and returns the fallback; so does every getter of a section
// that is itself missing or not an object (its one problem said once).
class journal_reader : public json_reader {
 public:
  using key = calibrate::journal_key;

  // Reads `value` as the object `object` of the table ("" the top level, "checkpoints[]").
  journal_reader(const ordered_json& value, std::string path, std::string object, journal_reading& reading)
      : json_reader(value.is_object() ? value : empty_object(), path),
        object_(std::move(object)),
        reading_(&reading) {
    if (!value.is_object()) {
      reading.problems.add(path.empty() ? "journal" : path, "must be an object, got " + describe_json(value));
      absent_ = true;
    }
  }

  bool has(key k) { return json_reader::has(field(k).key); }
  std::string path(key k) const { return json_reader::path(calibrate::journal_field_of(k).key); }
  // Whether the journal lists the field as unknown (it is then left out).
  bool unknown(key k) const { return reading_->unknown.count(calibrate::journal_path(k)) > 0; }
  // Whether every field read so far through this reader was sound (cross-field checks of the
  // loader run only then: a fallback must not start a second, derived complaint).
  bool clean() const { return clean_; }

  std::int64_t integer(key k) {
    return read<std::int64_t>(k, required(k), 0, [&] { return json_reader::integer(field(k).key, field(k).minimum); });
  }
  std::optional<std::int64_t> optional_integer(key k) {
    return read<std::optional<std::int64_t>>(
        k, optional(k), std::nullopt, [&] { return json_reader::optional_integer(field(k).key, field(k).minimum); });
  }
  double number(key k) {
    return read<double>(k, required(k), 0.0, [&] { return json_reader::number(field(k).key, field(k).rule); });
  }
  std::optional<double> optional_number(key k) {
    return read<std::optional<double>>(k, optional(k), std::nullopt,
                                       [&] { return json_reader::optional_number(field(k).key, field(k).rule); });
  }
  std::string text(key k) {
    return read<std::string>(k, required(k), {}, [&] { return json_reader::text(field(k).key); });
  }
  std::string optional_text(key k) {
    return read<std::string>(k, optional(k), {}, [&] { return json_reader::optional_text(field(k).key); });
  }
  // RFC 3339 with a time zone, as seconds since 1970-01-01T00:00:00Z.
  double timestamp(key k) {
    return read<double>(k, required(k), 0.0, [&] { return seconds_at(path(k), json_reader::text(field(k).key)); });
  }
  std::optional<double> optional_timestamp(key k) {
    return read<std::optional<double>>(k, optional(k), std::nullopt, [&]() -> std::optional<double> {
      if (!json_reader::has(field(k).key)) return std::nullopt;
      return seconds_at(path(k), json_reader::text(field(k).key));
    });
  }
  bool boolean(key k) {
    return read<bool>(k, required(k), false, [&] { return json_reader::boolean(field(k).key); });
  }
  bool optional_boolean(key k, bool default_value) {
    return read<bool>(k, optional(k), default_value,
                      [&] { return json_reader::optional_boolean(field(k).key, default_value); });
  }
  template <class E>
  E choice(key k) {
    const auto& f = choice_field<E>(k, true);
    return read<E>(k, f, E{}, [&] { return parse_choice<E>(path(k), json_reader::text(f.key)); });
  }
  template <class E>
  std::optional<E> optional_choice(key k) {
    const auto& f = choice_field<E>(k, false);
    return read<std::optional<E>>(k, f, std::nullopt, [&]() -> std::optional<E> {
      if (!json_reader::has(f.key)) return std::nullopt;
      return parse_choice<E>(path(k), json_reader::text(f.key));
    });
  }
  // A section's or a map's value, as given (an optional one after has()); an empty object
  // when it is missing (the problem kept) or unknown.
  const ordered_json& value(key k) {
    return *read<const ordered_json*>(k, field(k), &empty_object(), [&] { return &json_reader::required(field(k).key); });
  }
  // A list's value; an empty array when it is missing or not an array (the problem kept) or unknown.
  const ordered_json& array(key k) {
    return *read<const ordered_json*>(k, field(k), &empty_array(), [&] { return &json_reader::array(field(k).key); });
  }
  // The reader of the section `k` (an object of the table): an absent reader, whose getters
  // return their fallbacks, when the section is missing (the problem kept) or unknown.
  journal_reader section(key k) {
    const auto& f = field(k);
    if (f.value != calibrate::journal_value::section) throw std::logic_error(f.path() + " is no section");
    journal_reader r(value(k), f.path(), f.path(), *reading_);
    r.absent_ = absent_ || unknown(k) || !json_reader::has(f.key);
    return r;
  }
  // The reader of entry `i` of the list `list` (its entries are the table's object "<path>[]").
  journal_reader entry(const ordered_json& list, key k, std::size_t i) {
    const std::string path = calibrate::journal_field_of(k).path();
    return journal_reader(list[i], path + "[" + std::to_string(i) + "]", path + "[]", *reading_);
  }
  // A problem the loader found itself (a rule across this object's fields).
  void problem(const std::string& path, const std::string& rule) {
    reading_->problems.add(path, rule);
    clean_ = false;
  }
  // Keeps a problem for every key no getter asked for.
  void finish() {
    if (absent_) return;
    for (const auto& k : unasked_keys()) problem(json_reader::path(k), "unknown key" + did_you_mean(k, asked()));
  }

 private:
  static const ordered_json& empty_object() {
    static const ordered_json value = ordered_json::object();
    return value;
  }
  static const ordered_json& empty_array() {
    static const ordered_json value = ordered_json::array();
    return value;
  }
  static double seconds_at(const std::string& path, const std::string& text) {
    const auto t = parse_timestamp(text);
    if (!t) fail(path, "must be an RFC 3339 timestamp with a time zone (2026-11-17T08:12:04Z), got \"" + text + "\"");
    return *t;
  }
  // The getters' common path: nothing read in an absent section; an unknown field must be
  // left out; a broken rule is kept and the fallback returned.
  template <class T, class F>
  T read(key k, const calibrate::journal_field& f, T fallback, F&& get) {
    if (absent_) return fallback;
    if (unknown(k)) {
      if (json_reader::has(f.key)) problem(path(k), "listed in unknown, so it must be left out");
      return fallback;
    }
    T out = fallback;
    if (!reading_->problems.attempt([&] { out = get(); })) clean_ = false;
    return out;
  }
  const calibrate::journal_field& field(key k) const {
    const auto& f = calibrate::journal_field_of(k);
    if (f.object != object_)
      throw std::logic_error("the journal loader reads " + f.path() + " from " + (object_.empty() ? "the top" : object_));
    return f;
  }
  const calibrate::journal_field& required(key k) const {
    const auto& f = field(k);
    if (!f.required) throw std::logic_error("the journal loader reads " + f.path() + " as required; the table: optional");
    return f;
  }
  const calibrate::journal_field& optional(key k) const {
    const auto& f = field(k);
    if (f.required) throw std::logic_error("the journal loader reads " + f.path() + " as optional; the table: required");
    return f;
  }
  template <class E>
  const calibrate::journal_field& choice_field(key k, bool is_required) const {
    const auto& f = is_required ? required(k) : optional(k);
    if (f.choices != choice_names<E>())
      throw std::logic_error("the journal loader reads " + f.path() + " with spellings other than the table's");
    return f;
  }
  std::string object_;
  journal_reading* reading_;
  bool absent_ = false;
  bool clean_ = true;
};

}  // namespace trnmodel::detail
