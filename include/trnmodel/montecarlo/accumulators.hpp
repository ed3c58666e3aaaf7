#pragma once
// Mergeable statistics of one output (DESIGN §7).
//   moments:       count, mean and M2 (Chan et al. 1979 pairwise update), min, max and the
//                  count of NaN values (metrics that depend on unknown inputs).
//   log_histogram: counts in logarithmic buckets with relative accuracy alpha (the
//                  DDSketch mapping, Masson et al. 2019): any quantile it returns lies
//                  within a factor (1 ± alpha) of the order statistic at the requested rank.
//                  Memory depends on the range of the values, never on their number.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "trnmodel/check.hpp"

namespace trnmodel {

struct moments {
  std::uint64_t count = 0;  // finite values
  std::uint64_t nan_count = 0;
  double mean = 0;
  double m2 = 0;  // sum of squared deviations from the mean
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();

  // Two passes over a block (exact mean first, then squared deviations), then one merge:
  // more accurate than Welford's update and it vectorises.
  void add(const double* x, std::size_t n) {
    moments block;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) {
        ++block.nan_count;
        continue;
      }
      sum += x[i];
      ++block.count;
      block.min = std::min(block.min, x[i]);
      block.max = std::max(block.max, x[i]);
    }
    if (block.count > 0) {
      block.mean = sum / static_cast<double>(block.count);
      for (std::size_t i = 0; i < n; ++i)
        if (!std::isnan(x[i])) block.m2 += (x[i] - block.mean) * (x[i] - block.mean);
    }
    merge(block);
  }

  void merge(const moments& other) {
    nan_count += other.nan_count;
    if (other.count == 0) return;
    if (count == 0) {
      const auto nans = nan_count;
      *this = other;
      nan_count = nans;
      return;
    }
    const double n_a = static_cast<double>(count), n_b = static_cast<double>(other.count);
    const double n = n_a + n_b;
    const double delta = other.mean - mean;
    mean += delta * n_b / n;
    m2 += other.m2 + delta * delta * n_a * n_b / n;
    count += other.count;
    min = std::min(min, other.min);
    max = std::max(max, other.max);
  }

  // Sample variance (divisor n - 1); NaN with fewer than two values.
  double variance() const {
    return count > 1 ? m2 / static_cast<double>(count - 1) : std::numeric_limits<double>::quiet_NaN();
  }
  double sd() const { return std::sqrt(variance()); }
};

class log_histogram {
 public:
  explicit log_histogram(double relative_accuracy = 1e-3)
      : alpha_(relative_accuracy),
        log_gamma_(std::log((1 + relative_accuracy) / (1 - relative_accuracy))) {
    if (!(relative_accuracy > 0 && relative_accuracy < 1))
      fail("relative_accuracy", "must be in (0, 1), got " + format_number(relative_accuracy));
  }

  double relative_accuracy() const { return alpha_; }
  std::uint64_t count() const { return zeros_ + positive_.total + negative_.total + negative_infinite_ + positive_infinite_; }

  void add(double x) {
    if (std::isnan(x)) return;
    if (std::isinf(x)) {  // no bucket: counted apart, at either end of the order
      ++(x > 0 ? positive_infinite_ : negative_infinite_);
      return;
    }
    if (x > 0) {
      positive_.add(index(x));
    } else if (x < 0) {
      negative_.add(index(-x));
    } else {
      ++zeros_;
    }
  }

  void merge(const log_histogram& other) {
    positive_.merge(other.positive_);
    negative_.merge(other.negative_);
    zeros_ += other.zeros_;
    negative_infinite_ += other.negative_infinite_;
    positive_infinite_ += other.positive_infinite_;
  }

  // The value of order statistic `rank` (0-based, ascending), within relative accuracy.
  double at_rank(std::uint64_t rank) const {
    const double infinity = std::numeric_limits<double>::infinity();
    if (rank < negative_infinite_) return -infinity;
    rank -= negative_infinite_;
    if (rank < negative_.total) {  // negatives: largest magnitude first
      const std::uint64_t from_top = negative_.total - 1 - rank;
      return -value(negative_.index_of_rank(from_top));
    }
    rank -= negative_.total;
    if (rank < zeros_) return 0.0;
    rank -= zeros_;
    if (rank >= positive_.total) return infinity;
    return value(positive_.index_of_rank(rank));
  }

  // Type-7 quantile (NumPy's default) between the two neighbouring order statistics.
  double quantile(double q) const {
    const std::uint64_t n = count();
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    const double h = static_cast<double>(n - 1) * q;
    const auto lo = static_cast<std::uint64_t>(h);
    const double lower = at_rank(lo);
    if (lo + 1 >= n) return lower;
    const double upper = at_rank(lo + 1);
    if (upper == lower || h == static_cast<double>(lo)) return lower;  // also keeps ±inf exact
    return lower + (h - static_cast<double>(lo)) * (upper - lower);
  }

 private:
  // Buckets (gamma^(i-1), gamma^i] of magnitudes, stored densely over the range seen.
  struct buckets {
    std::int64_t offset = 0;
    std::vector<std::uint64_t> counts;
    std::uint64_t total = 0;

    void grow_to(std::int64_t i) {
      if (counts.empty()) {
        offset = i;
        counts.assign(1, 0);
      } else if (i < offset) {
        counts.insert(counts.begin(), static_cast<std::size_t>(offset - i), 0);
        offset = i;
      } else if (i >= offset + static_cast<std::int64_t>(counts.size())) {
        counts.resize(static_cast<std::size_t>(i - offset + 1), 0);
      }
    }
    void add(std::int64_t i, std::uint64_t n = 1) {
      grow_to(i);
      counts[static_cast<std::size_t>(i - offset)] += n;
      total += n;
    }
    void merge(const buckets& other) {
      if (other.counts.empty()) return;
      grow_to(other.offset);
      grow_to(other.offset + static_cast<std::int64_t>(other.counts.size()) - 1);
      for (std::size_t k = 0; k < other.counts.size(); ++k)
        counts[static_cast<std::size_t>(other.offset - offset) + k] += other.counts[k];
      total += other.total;
    }
    std::int64_t index_of_rank(std::uint64_t rank) const {
      std::uint64_t seen = 0;
      for (std::size_t k = 0; k < counts.size(); ++k) {
        seen += counts[k];
        if (seen > rank) return offset + static_cast<std::int64_t>(k);
      }
      return offset + static_cast<std::int64_t>(counts.size()) - 1;
    }
  };

  std::int64_t index(double magnitude) const {
    return static_cast<std::int64_t>(std::ceil(std::log(magnitude) / log_gamma_));
  }
  // The point of bucket i whose relative distance to both ends is alpha.
  double value(std::int64_t i) const {
    return 2 * std::exp(static_cast<double>(i) * log_gamma_) / (1 + std::exp(log_gamma_));
  }

  double alpha_;
  double log_gamma_;
  buckets positive_, negative_;
  std::uint64_t zeros_ = 0, negative_infinite_ = 0, positive_infinite_ = 0;
};

}  // namespace trnmodel
