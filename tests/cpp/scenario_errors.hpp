#pragma once
// The message with which a scenario text is refused, or "no error": one helper for the tests
// that check every rejection's wording.
#include <string>

#include "trnmodel/scenario/scenario.hpp"

namespace test {
inline std::string scenario_error(const std::string& text) {
  try {
    trnmodel::scenario::from_text(text);
  } catch (const trnmodel::input_error& e) {
    return e.what();
  }
  return "no error";
}

// The opening of a minimal valid scenario text, for the edge cases that append one section.
inline const std::string edge_head =
    R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 5400}, "cluster": {"nodes": 1},)";
}  // namespace test
