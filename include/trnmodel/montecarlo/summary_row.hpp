#pragma once
// One row of a summary table (docs/montecarlo.md): standard library only, shared by run_result
// and the compiled embedding (<trnmodel/embed.hpp>).
#include <cstdint>
#include <string>
#include <vector>

namespace trnmodel {

/// One output's summary: mean sd p10 p50 p80 p90 p99, then min max, over its non-NaN values
/// (NaN where there is none), and how many values were NaN. A plain value.
struct summary_row {
  std::string name;
  double mean, sd, p10, p50, p80, p90, p99, min, max;
  std::uint64_t nan_count;
};

/// The probabilities of a summary's quantile columns: 0.10 0.50 0.80 0.90 0.99.
inline const std::vector<double>& summary_probabilities() {
  static const std::vector<double> p{0.10, 0.50, 0.80, 0.90, 0.99};
  return p;
}

}  // namespace trnmodel
