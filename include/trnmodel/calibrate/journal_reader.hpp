#pragma once
// Reading a journal's object field by field, by the fields' ids (calibrate/journal_fields.hpp):
// json_reader's strict reading (every key asked for, unknown keys refused) with the key, its
// requiredness, its integer minimum, number rule and choices taken from the journal's table.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/calibrate/json_reader.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/detail/calendar.hpp"

namespace trnmodel::detail {

// The strict reader with the journal's field table behind it: each getter takes a field's id,
// and the key, whether it is required, the integer minimum, the number rule and the choice's
// spellings all come from journal_fields(), so the loader and the schema cannot disagree.
// Asking for a required field with an optional getter (or the reverse), or for a field of
// another object, is a logic_error: test_journal_fields loads every field, so it cannot pass
// with the loader out of step with the table.
class journal_reader : public json_reader {
 public:
  using key = calibrate::journal_key;

  // Reads `value` as the object `object` of the table ("" the top level, "checkpoints[]").
  journal_reader(const ordered_json& value, std::string path, std::string object)
      : json_reader(value, std::move(path)), object_(std::move(object)) {}

  bool has(key k) { return json_reader::has(field(k).key); }
  std::string path(key k) const { return json_reader::path(calibrate::journal_field_of(k).key); }

  std::int64_t integer(key k) { return json_reader::integer(required(k).key, field(k).minimum); }
  std::optional<std::int64_t> optional_integer(key k) {
    return json_reader::optional_integer(optional(k).key, field(k).minimum);
  }
  double number(key k) { return json_reader::number(required(k).key, field(k).rule); }
  std::optional<double> optional_number(key k) { return json_reader::optional_number(optional(k).key, field(k).rule); }
  std::string text(key k) { return json_reader::text(required(k).key); }
  std::string optional_text(key k) { return json_reader::optional_text(optional(k).key); }
  // RFC 3339 with a time zone, as seconds since 1970-01-01T00:00:00Z.
  double timestamp(key k) { return seconds_at(path(k), text(k)); }
  std::optional<double> optional_timestamp(key k) {
    if (!has(k)) return std::nullopt;
    return seconds_at(path(k), optional_text(k));
  }
  bool boolean(key k) { return json_reader::boolean(required(k).key); }
  bool optional_boolean(key k, bool default_value) {
    return json_reader::optional_boolean(optional(k).key, default_value);
  }
  template <class E>
  E choice(key k) {
    return parse_choice<E>(path(k), json_reader::text(choice_field<E>(k, true).key));
  }
  template <class E>
  std::optional<E> optional_choice(key k) {
    if (!json_reader::has(choice_field<E>(k, false).key)) return std::nullopt;
    return parse_choice<E>(path(k), json_reader::text(field(k).key));
  }
  // A section's or a list's value (a required one; an optional one after has()).
  const ordered_json& value(key k) { return json_reader::required(field(k).key); }
  const ordered_json& array(key k) { return json_reader::array(field(k).key); }
  // The reader of the section `k` (an object of the table).
  journal_reader section(key k) {
    const auto& f = field(k);
    if (f.value != calibrate::journal_value::section) throw std::logic_error(f.path() + " is no section");
    return journal_reader(json_reader::required(f.key), f.path(), f.path());
  }
  // The reader of entry `i` of the list `list` (its entries are the table's object "<path>[]").
  static journal_reader entry(const ordered_json& list, key k, std::size_t i) {
    const std::string path = calibrate::journal_field_of(k).path();
    return journal_reader(list[i], path + "[" + std::to_string(i) + "]", path + "[]");
  }

 private:
  static double seconds_at(const std::string& path, const std::string& text) {
    const auto t = parse_timestamp(text);
    if (!t) fail(path, "must be an RFC 3339 timestamp with a time zone (2026-11-17T08:12:04Z), got \"" + text + "\"");
    return *t;
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
};

}  // namespace trnmodel::detail
