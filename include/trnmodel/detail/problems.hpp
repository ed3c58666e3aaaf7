#pragma once
// Every problem of a document at once: a loader runs each field's reading through a
// problem_list, which keeps the input_error a field throws and goes on with the next field,
// then throws one input_error listing them all. A user fixes a file in one pass, not one
// error per run (docs/scenario.md, "Validation").
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/errors.hpp"

namespace trnmodel::detail {

class problem_list {
 public:
  // Runs `read`; when it throws input_error, keeps each of its problems and returns false.
  template <class F>
  bool attempt(F&& read) {
    try {
      std::forward<F>(read)();
      return true;
    } catch (const input_error& e) {
      items_.insert(items_.end(), e.problems().begin(), e.problems().end());
      return false;
    }
  }
  // A problem found by the caller itself: "<path>: <rule>".
  void add(const std::string& path, const std::string& rule) { items_.push_back(path + ": " + rule); }
  bool empty() const noexcept { return items_.empty(); }
  std::size_t size() const noexcept { return items_.size(); }
  // One input_error holding every problem kept, when there is any.
  void throw_if_any() const {
    if (!items_.empty()) throw input_error(items_);
  }

 private:
  std::vector<std::string> items_;
};

}  // namespace trnmodel::detail
