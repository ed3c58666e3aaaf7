#pragma once
// The result of a run: the outputs' names, their streamed statistics (moments and log
// histograms) and, when kept, every sample. Quantiles are exact from kept samples, else the
// histogram's (within its relative accuracy). Several outputs' quantiles, and the summary, run the
// outputs in parallel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/montecarlo/kept_columns.hpp"
#include "trnmodel/montecarlo/order_statistics.hpp"
#include "trnmodel/montecarlo/parallel.hpp"
#include "trnmodel/montecarlo/summary_row.hpp"

namespace trnmodel {

class run_fold;

/// The result of one Monte Carlo run (run, monte_carlo, simulate, compare): read-only once
/// made. Outputs are addressed by name (as in Python) or by index (their order in names()).
///
/// Thread-safety: every member is const and safe to call from many threads at once.
/// Ownership: a value type; copies are deep (kept samples included), moves are cheap.
class run_result {
 public:
  /// An empty result of `samples` samples of the outputs `names`: zero moments, histograms of
  /// `relative_accuracy`, and room for every sample when `kept`. Only run_fold fills it in.
  run_result(std::vector<std::string> names, std::uint64_t samples, bool kept, double relative_accuracy)
      : names_(std::move(names)),
        samples_(samples),
        moments_(names_.size()),
        histograms_(names_.size(), log_histogram(relative_accuracy)) {
    if (kept)
      values_ = detail::kept_columns(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(names_.size()));
  }

  /// The outputs' names, in column order.
  const std::vector<std::string>& names() const { return names_; }
  /// The number of outputs.
  std::size_t outputs() const { return names_.size(); }
  /// Samples drawn.
  std::uint64_t samples() const { return samples_; }
  /// Whether every sample was kept (run_options::keep_samples): quantiles are then exact.
  bool kept() const { return !values_.empty(); }
  /// The index of output `name`; input_error when the result has no such output.
  std::size_t index(const std::string& name) const {
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) detail::fail(name, "no such output in this result" + output_list());
    return static_cast<std::size_t>(it - names_.begin());
  }

  /// samples x outputs, column-major: each output's samples are contiguous. Empty unless kept.
  /// (A column of one value throughout is written out on the first call: see single_value().)
  const Eigen::ArrayXXd& values() const { return values_.all(); }
  /// Output `output`'s samples (a column of values()); input_error unless samples were kept.
  Eigen::Ref<const Eigen::ArrayXd> values(std::size_t output) const {
    checked(output);
    if (!kept()) detail::fail(names_[output], "samples were not kept (run with keep_samples = true)");
    return Eigen::Map<const Eigen::ArrayXd>(values_.column(static_cast<Eigen::Index>(output)), values_.rows());
  }
  /// When every kept sample of output `output` has the same bits (a phase the job does not have:
  /// 0, or NaN), a pointer to that value, else nullptr. Such a column is stored as the value and
  /// written out only when values() or values(output) asks for its memory (kept_columns.hpp);
  /// its quantiles are the value. The pointer lives as long as the result.
  const double* single_value(std::size_t output) const {
    checked(output);
    return values_.single_value(static_cast<Eigen::Index>(output));
  }
  /// The same, by output name (input_error when there is no such output).
  Eigen::Ref<const Eigen::ArrayXd> values(const std::string& name) const { return values(index(name)); }

  /// Streamed moments of one output, over its non-NaN values (count, nan_count, mean, sd(),
  /// min, max). An output with no such value has mean, min and max NaN, as in Python.
  /// input_error when `output` is out of range.
  const moments& stats(std::size_t output) const { return moments_[checked(output)]; }
  /// The same, by output name (input_error when there is no such output).
  const moments& stats(const std::string& name) const { return moments_[index(name)]; }
  /// The log histogram of one output (filled only when samples were not kept).
  const log_histogram& histogram(std::size_t output) const { return histograms_[checked(output)]; }

  /// Quantiles: exact (type 7, as numpy.quantile) from kept samples, else from the histogram
  /// (within its relative accuracy). NaN values are left out; an output with no non-NaN value
  /// gives NaN. input_error for a probability outside [0, 1] or an unknown output.
  std::vector<double> quantiles(std::size_t output, const std::vector<double>& probabilities) const {
    checked(output);
    for (const double p : probabilities)
      if (!(p >= 0 && p <= 1)) detail::fail("q", "probabilities must lie in [0, 1], got " + detail::format_number(p));
    if (!kept()) {
      std::vector<double> result;
      for (const double p : probabilities) result.push_back(histograms_[output].quantile(p));
      return result;
    }
    // The moments know the count of non-NaN values and their range: the selection's first pass.
    const moments& m = moments_[output];
    const auto column = static_cast<Eigen::Index>(output);
    if (const double* single = values_.single_value(column))  // equal neighbours: the value itself
      return std::vector<double>(probabilities.size(),
                                 m.count > 0 ? *single : std::numeric_limits<double>::quiet_NaN());
    return order_statistics(values_.column(column), static_cast<std::size_t>(values_.rows()),
                            static_cast<std::size_t>(m.count), m.min, m.max)
        .quantiles(probabilities);
  }
  /// The quantiles of several outputs (row k: those of outputs[k]), the outputs in parallel on
  /// `threads` threads (0: all cores); the values do not depend on the count.
  std::vector<std::vector<double>> quantiles_of(const std::vector<std::size_t>& outputs,
                                                const std::vector<double>& probabilities, int threads = 0) const {
    for (const std::size_t k : outputs) checked(k);
    std::vector<std::vector<double>> rows(outputs.size());
    detail::for_each_block(0, outputs.size(), detail::threads_for(threads),
                           [&](std::uint64_t k) { rows[k] = quantiles(outputs[k], probabilities); });
    return rows;
  }
  /// The same, by output name (input_error when there is no such output).
  std::vector<double> quantiles(const std::string& name, const std::vector<double>& probabilities) const {
    return quantiles(index(name), probabilities);
  }
  /// One quantile: quantile("wall_h", 0.9) is the P90 of the wall time.
  double quantile(std::size_t output, double probability) const { return quantiles(output, {probability}).front(); }
  /// The same, by output name.
  double quantile(const std::string& name, double probability) const {
    return quantiles(index(name), {probability}).front();
  }

  /// One row per output: mean sd p10 p50 p80 p90 p99 min max (NaN where no value is finite),
  /// the outputs in parallel on all cores (the rows do not depend on the count).
  std::vector<summary_row> summary() const {
    std::vector<summary_row> rows(names_.size());
    detail::for_each_block(0, names_.size(), default_threads(),
                           [&](std::uint64_t k) { rows[k] = summary(static_cast<std::size_t>(k)); });
    return rows;
  }
  /// The summary row of output `output` (input_error when it is out of range).
  summary_row summary(std::size_t output) const {
    const moments& m = stats(output);
    const auto q = quantiles(output, summary_probabilities());
    return {names_[output], m.mean, m.sd(), q[0], q[1], q[2], q[3], q[4], m.min, m.max, m.nan_count};
  }
  /// The summary row of output `name` (input_error when there is no such output).
  summary_row summary(const std::string& name) const { return summary(index(name)); }

 private:
  friend class run_fold;  ///< the only writer: it folds a run's blocks, then hands the result over

  std::size_t checked(std::size_t output) const {
    if (output >= names_.size())
      detail::fail("output", "index " + std::to_string(output) + " is out of range: the result has " +
                                 std::to_string(names_.size()) + " outputs" + output_list());
    return output;
  }
  std::string output_list() const {
    std::string list;
    for (std::size_t k = 0; k < names_.size() && k < 40; ++k) list += (k ? ", " : " (") + names_[k];
    return list.empty() ? list : list + ")";
  }
  // An output without a non-NaN value has no mean, min or max: NaN, as Python reports them.
  void finish_moments() {
    for (auto& m : moments_)
      if (m.count == 0) m.mean = m.min = m.max = std::numeric_limits<double>::quiet_NaN();
  }

  std::vector<std::string> names_;
  std::uint64_t samples_;
  std::vector<moments> moments_;
  std::vector<log_histogram> histograms_;
  detail::kept_columns values_;  // samples x outputs when kept, else empty
};

}  // namespace trnmodel
