#pragma once
// Tornado (docs/sensitivity.md): each drawn input held at its P10, then at its P90, every other input and
// the chance draws left random on their own streams (common random numbers, so a bar's
// length is the input's effect, not sampling noise between two runs); the change of an
// output statistic, bars sorted by swing. "chance" has no P10 and is not a bar: its share of
// the spread is in the Sobol indices.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/statistic.hpp"

namespace trnmodel::sensitivity {

/// One input's swing: the statistic with the input at its P10 and at its P90. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct tornado_bar {
  std::string factor;  ///< the input's path (as lifecycle_model::uncertain_inputs() names it)
  /// \var low_value
  /// The input at low_probability (its quantile there, P10 by default), in the input's unit.
  /// \var high_value
  /// The input at high_probability (P90 by default), in the input's unit.
  double low_value, high_value;
  /// \var low_statistic
  /// The output statistic with the input held at low_value.
  /// \var high_statistic
  /// The output statistic with the input held at high_value.
  double low_statistic, high_statistic;
  double swing;  ///< |high_statistic − low_statistic|
};

/// Tornado bars, largest swing first. A plain value: copyable, owns its members; concurrent reads are safe.
struct tornado_result {
  double baseline = 0;  ///< the statistic with every input random
  std::vector<tornado_bar> bars;  ///< largest swing first
};

/// Moves each drawn input to its P10 and P90 (others as drawn) and reports the statistic's
/// swing. Thread-safe as simulate. `output_name`: a metric, or a stage's "<stage>/<metric>"
/// (output.hpp).
inline tornado_result tornado(const scenario& s, const std::string& output_name, statistic stat,
                              const run_options& options, double low_probability = 0.1, double high_probability = 0.9) {
  trnmodel::detail::check_probability("low", low_probability);
  trnmodel::detail::check_probability("high", high_probability);
  if (!(low_probability < high_probability))
    trnmodel::detail::fail("low", "must be below high, got low=" + trnmodel::detail::format_number(low_probability) +
                                      ", high=" + trnmodel::detail::format_number(high_probability));
  const lifecycle_model model(s);
  const output_column output = output_named(model, output_name);
  require_known_for(model, output.metric);
  tornado_result result;
  result.baseline = metric_statistic(model, output, stat, options);
  const std::vector<std::string> paths = model.uncertain_inputs();
  for (std::size_t j = 0; j < paths.size(); ++j) {
    const quantity& q = model.input_quantity(j);
    tornado_bar bar{paths[j], q.ppf(low_probability), q.ppf(high_probability), 0, 0, 0};
    bar.low_statistic = metric_statistic(model.pinned(j, bar.low_value), output, stat, options);
    bar.high_statistic = metric_statistic(model.pinned(j, bar.high_value), output, stat, options);
    bar.swing = std::abs(bar.high_statistic - bar.low_statistic);
    result.bars.push_back(bar);
  }
  std::stable_sort(result.bars.begin(), result.bars.end(),
                   [](const tornado_bar& a, const tornado_bar& b) { return a.swing > b.swing; });
  return result;
}

/// The same for a job metric.
inline tornado_result tornado(const scenario& s, metric::id output, statistic stat, const run_options& options,
                              double low_probability = 0.1, double high_probability = 0.9) {
  return tornado(s, std::string(metric_names()[output]), stat, options, low_probability, high_probability);
}

}  // namespace trnmodel::sensitivity
