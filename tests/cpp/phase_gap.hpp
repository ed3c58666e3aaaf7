#pragma once
// The invariant every lifecycle test checks: for each sample, the phases sum to wall_h.
#include <algorithm>
#include <cmath>

#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/montecarlo/run_result.hpp"

namespace test {
// The largest |sum of the phases − wall_h| / wall_h over a run's kept samples.
inline double worst_phase_gap(const trnmodel::run_result& r) {
  const auto& v = r.values();
  double worst = 0;
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    double sum = 0;
    for (const auto m : trnmodel::phase_metrics) sum += v(i, m);
    worst = std::max(worst, std::abs(sum - v(i, trnmodel::metric::wall_h)) / v(i, trnmodel::metric::wall_h));
  }
  return worst;
}
}  // namespace test
