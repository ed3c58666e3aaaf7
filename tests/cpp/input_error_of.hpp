#pragma once
// The message of the input_error a call throws, or "no input_error": for the tests that check
// an error's wording (path, value, rule).
#include <functional>
#include <string>

#include "trnmodel/errors.hpp"

namespace test {
inline std::string input_error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const trnmodel::input_error& e) {
    return e.what();
  }
  return "no input_error";
}
}  // namespace test
