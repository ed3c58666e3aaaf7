#pragma once
// The exception hierarchy shared by C++ and Python (DESIGN §12-§13). Bad input derives from
// std::invalid_argument so embedders can catch it without knowing our types; the Python
// module maps input_error -> tm.ScenarioError (a ValueError) and unknown_input_error ->
// tm.UnknownInputError.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace trnmodel {

// Bad input: the message names the path, the value and the rule.
class input_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A computation needs inputs that are marked unknown; `paths()` lists every one of them.
class unknown_input_error : public input_error {
 public:
  unknown_input_error(const std::string& message, std::vector<std::string> paths)
      : input_error(message), paths_(std::move(paths)) {}
  const std::vector<std::string>& paths() const noexcept { return paths_; }

 private:
  std::vector<std::string> paths_;
};

// A run stopped by its cancellation hook before it finished.
class cancelled_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trnmodel
