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
  std::string name;  ///< the output's name
  /// \var mean
  /// Mean of the non-NaN values.
  /// \var sd
  /// Sample standard deviation of the non-NaN values.
  /// \var p10
  /// 10th percentile (exact from kept samples, else the log histogram's).
  /// \var p50
  /// Median.
  /// \var p80
  /// 80th percentile.
  /// \var p90
  /// 90th percentile.
  /// \var p99
  /// 99th percentile.
  /// \var min
  /// Smallest non-NaN value.
  /// \var max
  /// Largest non-NaN value.
  double mean, sd, p10, p50, p80, p90, p99, min, max;
  std::uint64_t nan_count;  ///< samples whose value was NaN (left out of every other column)
};

/// The probabilities of a summary's quantile columns: 0.10 0.50 0.80 0.90 0.99.
inline const std::vector<double>& summary_probabilities() {
  static const std::vector<double> p{0.10, 0.50, 0.80, 0.90, 0.99};
  return p;
}

}  // namespace trnmodel
