#pragma once
// The project's JSON type: nlohmann's ordered variant, so that saved scenarios and
// distributions keep the order in which people wrote (and read) their keys.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trnmodel/check.hpp"

namespace trnmodel {
using ordered_json = nlohmann::ordered_json;
}  // namespace trnmodel

namespace trnmodel::detail {

// No trnmodel document nests more than a few levels. A limit keeps the code that walks JSON
// recursively (copies, messages, conversion to Python) far from the end of the stack, so
// that 100000 nested brackets are an error, not a crash.
inline constexpr int max_json_depth = 64;

[[noreturn]] inline void fail_too_deep(const std::string& path) {
  detail::fail(path, "JSON nested more than " + std::to_string(max_json_depth) +
                         " levels deep (arrays and objects within each other); trnmodel documents need a few");
}

// The same limit for a document built in memory (a dict from Python, or an embedder's
// value), checked without recursion.
inline void check_json_depth(const ordered_json& document, const std::string& path) {
  std::vector<std::pair<const ordered_json*, int>> open{{&document, 1}};
  while (!open.empty()) {
    const auto [value, depth] = open.back();
    open.pop_back();
    if (!value->is_structured()) continue;
    if (depth > max_json_depth) fail_too_deep(path);
    for (const auto& item : *value) open.emplace_back(&item, depth + 1);
  }
}

// Where in a JSON text something went wrong: a second, DOM-less pass (nlohmann's SAX interface)
// that follows the path of keys and array indices ("throughput.step_time_s.median",
// "samples[3]") and stops at the first duplicate key or parse error, with its byte offset.
// Only the error paths pay for it.
class json_locator : public nlohmann::json_sax<ordered_json> {
 public:
  std::string path() const {
    std::string out;
    for (const auto& level : open_) {
      if (level.in_array)
        out += "[" + std::to_string(level.index) + "]";
      else if (!level.key.empty())
        out += (out.empty() ? "" : ".") + level.key;
    }
    return out;
  }
  bool duplicate = false;  // stopped at a duplicate key (path() ends with it)
  std::size_t error_offset = 0;  // stopped at a parse error: its byte offset
  std::string error;  // and its message

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    open_.push_back({false, 0, {}, {}});
    return true;
  }
  bool key(string_t& key) override {
    open_.back().key = key;
    duplicate = !open_.back().keys.insert(key).second;
    return !duplicate;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    open_.push_back({true, 0, {}, {}});
    return true;
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t offset, const std::string&, const nlohmann::detail::exception& e) override {
    error_offset = offset;
    error = e.what();
    if (error.rfind("[json.exception", 0) == 0) error = error.substr(error.find(']') + 2);
    return false;
  }

 private:
  struct level {
    bool in_array;
    std::size_t index;  // of the next element, in an array
    std::string key;  // of the current value, in an object
    std::set<std::string> keys;  // seen in this object
  };
  bool value() {
    if (!open_.empty() && open_.back().in_array) ++open_.back().index;
    return true;
  }
  bool close() {
    open_.pop_back();
    return value();  // the closed value was an element of its parent
  }
  std::vector<level> open_;
};

// Line and column (from 1) of the character before byte `offset`, as nlohmann reports them.
inline std::string line_and_column(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Parses JSON text strictly: syntax errors (with line and column) and duplicate keys are
// refused, because a parser would otherwise keep one of two values silently, and so is
// nesting deeper than max_json_depth. A number beyond the double range (1e400) is refused with
// its path, line and column. `document` ("scenario", "journal") prefixes the message of errors
// that have no JSON path.
inline ordered_json parse_strict_json(const std::string& text, const std::string& document) {
  struct duplicate_found {};
  std::vector<std::set<std::string>> seen;  // keys of each open object
  const ordered_json::parser_callback_t on_event = [&](int depth, ordered_json::parse_event_t event,
                                                       ordered_json& parsed) {
    switch (event) {
      case ordered_json::parse_event_t::object_start:
        if (depth >= max_json_depth) fail_too_deep(document);
        seen.emplace_back();
        break;
      case ordered_json::parse_event_t::array_start:
        if (depth >= max_json_depth) fail_too_deep(document);
        break;
      case ordered_json::parse_event_t::object_end: seen.pop_back(); break;
      case ordered_json::parse_event_t::key:
        if (!seen.back().insert(parsed.get<std::string>()).second) throw duplicate_found{};
        break;
      default: break;
    }
    return true;
  };
  const auto located = [&] {
    json_locator locator;
    ordered_json::sax_parse(text, &locator);
    return locator;
  };
  try {
    return ordered_json::parse(text, on_event);
  } catch (const duplicate_found&) {
    detail::fail(located().path(), "duplicate key (JSON parsers would silently keep one of them)");
  } catch (const ordered_json::out_of_range& e) {
    if (e.id != 406) throw;
    // The number has been read: its path is the value being parsed (the key, or the array slot).
    const json_locator at = located();
    detail::fail(at.path().empty() ? document : at.path(), "JSON " + at.error + " at " +
                                                               line_and_column(text, at.error_offset) +
                                                               ": beyond the largest number (about 1.8e308)");
  } catch (const ordered_json::exception& e) {
    // Syntax errors carry line and column.
    std::string what = e.what();
    if (what.rfind("[json.exception", 0) == 0) what = what.substr(what.find(']') + 2);
    detail::fail(document, "JSON " + what);
  }
}

}  // namespace trnmodel::detail
