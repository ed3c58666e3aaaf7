#pragma once
// The result of a run: the outputs' names, their streamed statistics (moments and log
// histograms) and, when kept, every sample. Quantiles are exact from kept samples, else the
// histogram's (within its relative accuracy).
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

namespace trnmodel {

// One row of a summary table (docs/montecarlo.md: mean sd p10 p50 p80 p90 p99, then min max).
struct summary_row {
  std::string name;
  double mean, sd, p10, p50, p80, p90, p99, min, max;
  std::uint64_t nan_count;
};

inline const std::vector<double>& summary_probabilities() {
  static const std::vector<double> p{0.10, 0.50, 0.80, 0.90, 0.99};
  return p;
}

class run_result {
 public:
  run_result(std::vector<std::string> names, std::uint64_t samples, bool kept, double relative_accuracy)
      : names_(std::move(names)),
        samples_(samples),
        moments_(names_.size()),
        histograms_(names_.size(), log_histogram(relative_accuracy)) {
    if (kept) values_.resize(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(names_.size()));
  }

  const std::vector<std::string>& names() const { return names_; }
  std::uint64_t samples() const { return samples_; }
  bool kept() const { return values_.size() > 0; }
  std::size_t index(const std::string& name) const {
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) fail(name, "no such output in this result");
    return static_cast<std::size_t>(it - names_.begin());
  }

  // samples x outputs, column-major: each output's samples are contiguous. Empty unless kept.
  const Eigen::ArrayXXd& values() const { return values_; }
  Eigen::ArrayXXd& values() { return values_; }
  const moments& stats(std::size_t output) const { return moments_[output]; }
  moments& stats(std::size_t output) { return moments_[output]; }
  const log_histogram& histogram(std::size_t output) const { return histograms_[output]; }
  log_histogram& histogram(std::size_t output) { return histograms_[output]; }

  // Quantiles: exact (type 7, as numpy.quantile) from kept samples, else from the histogram.
  // NaN values are left out; an output with no finite value gives NaN.
  std::vector<double> quantiles(std::size_t output, const std::vector<double>& probabilities) const {
    std::vector<double> result;
    if (!kept()) {
      for (const double p : probabilities) result.push_back(histograms_[output].quantile(p));
      return result;
    }
    std::vector<double> finite;
    finite.reserve(static_cast<std::size_t>(samples_));
    for (Eigen::Index i = 0; i < values_.rows(); ++i)
      if (!std::isnan(values_(i, static_cast<Eigen::Index>(output))))
        finite.push_back(values_(i, static_cast<Eigen::Index>(output)));
    if (finite.empty()) return std::vector<double>(probabilities.size(), std::numeric_limits<double>::quiet_NaN());
    const std::size_t n = finite.size();
    for (const double p : probabilities) {
      const double h = static_cast<double>(n - 1) * p;
      const auto lo = std::min(static_cast<std::size_t>(h), n - 1);
      std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(lo), finite.end());
      const double lower = finite[lo];
      double upper = lower;
      if (lo + 1 < n) upper = *std::min_element(finite.begin() + static_cast<std::ptrdiff_t>(lo) + 1, finite.end());
      // Equal neighbours (or an exact rank) need no interpolation, which keeps ±inf exact.
      result.push_back(upper == lower || h == static_cast<double>(lo)
                           ? lower
                           : lower + (h - static_cast<double>(lo)) * (upper - lower));
    }
    return result;
  }

  std::vector<summary_row> summary() const {
    std::vector<summary_row> rows;
    for (std::size_t k = 0; k < names_.size(); ++k) {
      const moments& m = moments_[k];
      const auto q = quantiles(k, summary_probabilities());
      const double nan = std::numeric_limits<double>::quiet_NaN();
      rows.push_back({names_[k], m.count ? m.mean : nan, m.sd(), q[0], q[1], q[2], q[3], q[4], m.count ? m.min : nan,
                      m.count ? m.max : nan, m.nan_count});
    }
    return rows;
  }

 private:
  std::vector<std::string> names_;
  std::uint64_t samples_;
  std::vector<moments> moments_;
  std::vector<log_histogram> histograms_;
  Eigen::ArrayXXd values_;
};

}  // namespace trnmodel
