#pragma once
// The completeness row of one phase, by name: the test fails (not crashes) when it is missing.
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/scenario/completeness.hpp"

namespace test {
inline const trnmodel::phase_completeness& phase(const std::vector<trnmodel::phase_completeness>& all,
                                                 const std::string& name) {
  for (const auto& p : all)
    if (p.phase == name) return p;
  FAIL("no phase " << name);
  return all.front();
}
}  // namespace test
