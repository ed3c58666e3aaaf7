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
using json = nlohmann::ordered_json;
}  // namespace trnmodel

namespace trnmodel::detail {

// No trnmodel document nests more than a few levels. A limit keeps the code that walks JSON
// recursively (copies, messages, conversion to Python) far from the end of the stack, so
// that 100000 nested brackets are an error, not a crash.
inline constexpr int max_json_depth = 64;

[[noreturn]] inline void fail_too_deep(const std::string& path) {
  fail(path, "JSON nested more than " + std::to_string(max_json_depth) +
                 " levels deep (arrays and objects within each other); trnmodel documents need a few");
}

// The same limit for a document built in memory (a dict from Python, or an embedder's
// value), checked without recursion.
inline void check_json_depth(const json& document, const std::string& path) {
  std::vector<std::pair<const json*, int>> open{{&document, 1}};
  while (!open.empty()) {
    const auto [value, depth] = open.back();
    open.pop_back();
    if (!value->is_structured()) continue;
    if (depth > max_json_depth) fail_too_deep(path);
    for (const auto& item : *value) open.emplace_back(&item, depth + 1);
  }
}

// Parses JSON text strictly: syntax errors (with line and column) and duplicate keys are
// refused, because a parser would otherwise keep one of two values silently, and so is
// nesting deeper than max_json_depth. `document`
// ("scenario", "journal") prefixes the message of errors that have no JSON path.
inline json parse_strict_json(const std::string& text, const std::string& document) {
  std::vector<std::set<std::string>> seen;  // keys of each open object
  std::vector<std::string> key_path;  // the key under which each open value lies
  const json::parser_callback_t on_event = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        if (depth >= max_json_depth) fail_too_deep(document);
        seen.emplace_back();
        break;
      case json::parse_event_t::array_start:
        if (depth >= max_json_depth) fail_too_deep(document);
        break;
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
  } catch (const json::exception& e) {
    // Syntax errors carry line and column; a number beyond double range is refused too.
    std::string what = e.what();
    if (what.rfind("[json.exception", 0) == 0) what = what.substr(what.find(']') + 2);
    fail(document, "JSON " + what);
  }
}

}  // namespace trnmodel::detail
