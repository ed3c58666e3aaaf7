#pragma once
// The exception hierarchy shared by C++ and Python (docs/architecture.md, docs/scenario.md). Bad input derives from
// std::invalid_argument so embedders can catch it without knowing our types; the Python
// module maps input_error -> tm.ScenarioError (a ValueError) and unknown_input_error ->
// tm.UnknownInputError.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace trnmodel {

namespace detail {
// The message with control characters written out (\u0000): user text in a message (a key,
// a reason) may hold any, and a NUL would end what() there, leaving the message empty.
inline std::string printable(const std::string& message) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else {
      out += "\\u00";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  return out;
}
}  // namespace detail

/// Bad input: the message names the path, the value and the rule. Derives from
/// std::invalid_argument so embedders can catch it without knowing trnmodel's types.
class input_error : public std::invalid_argument {
 public:
  /// `message` as what(), with control characters written out as \\u00XX so a NUL cannot cut it short.
  explicit input_error(const std::string& message)
      : std::invalid_argument(detail::printable(message)), problems_{what()} {}
  /// Every problem a validation found at once, each "<path>: <rule>, got <value>": what() is
  /// the one problem, or "N problems:" and one indented line each. `problems` must not be empty.
  explicit input_error(const std::vector<std::string>& problems)
      : std::invalid_argument(joined(printable_each(problems))), problems_(printable_each(problems)) {}
  /// The problems one at a time (one element when a single rule was broken).
  const std::vector<std::string>& problems() const noexcept { return problems_; }

 private:
  static std::string joined(const std::vector<std::string>& problems) {
    if (problems.size() == 1) return problems.front();
    std::string text = std::to_string(problems.size()) + " problems:";
    for (const auto& p : problems) text += "\n  " + p;
    return text;
  }
  static std::vector<std::string> printable_each(const std::vector<std::string>& problems) {
    std::vector<std::string> out;
    out.reserve(problems.size());
    for (const auto& p : problems) out.push_back(detail::printable(p));
    return out;
  }
  std::vector<std::string> problems_;
};

/// A computation needs inputs that are marked unknown; `paths()` lists every one of them.
class unknown_input_error : public input_error {
 public:
  /// `message` as what(); `paths` are the unknown inputs' paths (may be empty when the thrower does not know them).
  unknown_input_error(const std::string& message, std::vector<std::string> paths)
      : input_error(message), paths_(std::move(paths)) {}
  /// The paths of the unknown inputs the computation needed (e.g. "failures.node_mtbf_h").
  const std::vector<std::string>& paths() const noexcept { return paths_; }

 private:
  std::vector<std::string> paths_;
};

/// A run stopped by its cancellation hook (run_options::cancelled) before it finished.
class cancelled_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trnmodel
