#pragma once
// Exact order statistics of a column of doubles, several ranks at once, in three linear passes
// instead of one selection per rank.
//
// Every double maps to an unsigned 64-bit key that sorts as the doubles do (order_key). The
// first pass finds the keys' range over the non-NaN values (or a run's moments give it), the
// second counts the values in
// 2^14 equal slices of that range, and the running count names the slice each wanted rank falls
// in; the third pass copies out the values of those few slices only, and each slice gives its
// ranks by sorting (a small slice) or by the same three passes over it (a large one: a slice
// spans at most 2^-13 of its parent's key range, so a column's selection nests at most five
// levels deep). A slice one key wide holds copies of a single value and is not copied at all.
//
// Keys are in the double's bit order, so the slices are narrow where values are dense on a
// log scale: a heavy tail (a P99 a thousand times the P50) leaves the bulk in thousands of
// slices, not in one. The result is the value sorting would place at each rank, whatever the
// input's order; −0 sorts before +0.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace trnmodel {
namespace detail {

/// A key per double that sorts as the doubles do: for a and b not NaN, a < b exactly when
/// order_key(a) < order_key(b) (and −0 just before +0). IEEE 754 stores sign and magnitude: a
/// negative value's bits are all flipped (a larger magnitude gives a smaller key), another's
/// sign bit is set (above every negative key).
inline std::uint64_t order_key(double x) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

/// The double whose order_key is `key`.
inline double from_order_key(std::uint64_t key) {
  const std::uint64_t bits = key >> 63 ? key & ~(std::uint64_t{1} << 63) : ~key;
  double x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// The keys of −inf and +inf: a NaN's key lies outside [key(−inf), key(+inf)], every other
// double's inside, so one unsigned comparison tells a NaN.
inline bool is_number_key(std::uint64_t key) {
  const std::uint64_t lowest = order_key(-std::numeric_limits<double>::infinity());
  const std::uint64_t highest = order_key(std::numeric_limits<double>::infinity());
  return key - lowest <= highest - lowest;
}

constexpr int order_slice_bits = 14;
// A slice this small is sorted rather than sliced again.
constexpr std::size_t order_sort_below = 512;

// The values at `ranks` (ascending, each below `count`) among the `count` non-NaN values of
// x[0, size), written to out[0, ranks.size()). `lo`, `hi`: keys at or below the smallest and at
// or above the largest of those values (between the keys of −∞ and +∞). Returns false, having
// written nothing, when fewer than `count` values lie between them (bounds that were wrong).
inline bool select_ranks(const double* x, std::size_t size, std::size_t count, std::uint64_t lo, std::uint64_t hi,
                         const std::vector<std::size_t>& ranks, double* out) {
  int shift = 0;
  while (((hi - lo) >> shift) >= (std::uint64_t{1} << order_slice_bits)) ++shift;
  const std::size_t slices = static_cast<std::size_t>((hi - lo) >> shift) + 1;
  std::vector<std::size_t> counts(slices, 0);
  // A key outside [lo, hi] (a NaN's always is) is not counted: one unsigned comparison.
  const std::uint64_t span = hi - lo;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint64_t offset = order_key(x[i]) - lo;
    if (offset <= span) {
      ++counts[static_cast<std::size_t>(offset >> shift)];
      ++counted;
    }
  }
  if (counted != count) return false;
  // The slice of each rank and the rank within it; the slices wanted, in order.
  struct wanted {
    std::size_t slice, first_rank, count;  // first_rank: values in the slices before it
  };
  std::vector<wanted> slices_wanted;
  std::vector<std::size_t> slice_of_rank(ranks.size());
  {
    std::size_t before = 0, r = 0;
    for (std::size_t s = 0; s < slices && r < ranks.size(); before += counts[s], ++s) {
      while (r < ranks.size() && ranks[r] < before + counts[s]) {
        if (slices_wanted.empty() || slices_wanted.back().slice != s) slices_wanted.push_back({s, before, counts[s]});
        slice_of_rank[r++] = slices_wanted.size() - 1;
      }
    }
  }
  // Copy out the values of the wanted slices; a slice one key wide needs no copy.
  constexpr std::uint32_t not_wanted = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> index_of_slice(slices, not_wanted);
  std::vector<std::vector<double>> values(slices_wanted.size());
  for (std::size_t w = 0; w < slices_wanted.size(); ++w) {
    if (shift == 0) continue;
    index_of_slice[slices_wanted[w].slice] = static_cast<std::uint32_t>(w);
    values[w].reserve(slices_wanted[w].count);
  }
  if (shift > 0)
    for (std::size_t i = 0; i < size; ++i) {
      const std::uint64_t offset = order_key(x[i]) - lo;
      if (offset > span) continue;
      const std::uint32_t w = index_of_slice[static_cast<std::size_t>(offset >> shift)];
      if (w != not_wanted) values[w].push_back(x[i]);
    }
  for (std::size_t w = 0, r = 0; w < slices_wanted.size(); ++w) {
    const wanted& slice = slices_wanted[w];
    std::vector<std::size_t> local;
    for (; r < ranks.size() && slice_of_rank[r] == w; ++r) local.push_back(ranks[r] - slice.first_rank);
    double* slice_out = out + (r - local.size());
    if (shift == 0) {
      std::fill(slice_out, slice_out + local.size(), from_order_key(lo + slice.slice));
    } else if (slice.count < order_sort_below) {
      std::vector<double>& v = values[w];
      std::sort(v.begin(), v.end(), [](double a, double b) { return order_key(a) < order_key(b); });
      for (std::size_t k = 0; k < local.size(); ++k) slice_out[k] = v[local[k]];
    } else {
      std::uint64_t slice_lo = std::numeric_limits<std::uint64_t>::max(), slice_hi = 0;
      for (const double v : values[w]) {
        slice_lo = std::min(slice_lo, order_key(v));
        slice_hi = std::max(slice_hi, order_key(v));
      }
      if (slice_lo == slice_hi)  // one value, maybe many times
        std::fill(slice_out, slice_out + local.size(), from_order_key(slice_lo));
      else
        select_ranks(values[w].data(), values[w].size(), values[w].size(), slice_lo, slice_hi, local, slice_out);
    }
  }
  return true;
}

}  // namespace detail

/// The non-NaN values of a column, read in place (the column must outlive this), ready to give
/// their order statistics: what sorting them would place at given ranks.
///
/// Thread-safety: const members may be called from many threads at once.
class order_statistics {
 public:
  /// The non-NaN values among values[0, size).
  order_statistics(const double* values, std::size_t size) : values_(values), size_(size) { find_bounds(); }

  /// The same when the number of non-NaN values and the smallest and largest of them are known
  /// (a run's moments), which saves a pass. Wrong bounds cost that pass again, not the result:
  /// when fewer values than `count` lie between them, they are found from the values.
  order_statistics(const double* values, std::size_t size, std::size_t count, double min, double max)
      : values_(values), size_(size), count_(count) {
    if (count_ == 0 || !(min <= max)) {
      find_bounds();
      return;
    }
    // The bounds' keys, widened over both zeros (a minimum of +0 may hide a −0).
    lo_ = detail::order_key(min == 0 ? -0.0 : min);
    hi_ = detail::order_key(max == 0 ? 0.0 : max);
  }

  /// How many values are not NaN.
  std::size_t count() const { return count_; }

  /// The values at `ranks` (0-based; any order, repeats allowed; each below count()), in the
  /// order of `ranks`.
  std::vector<double> at(const std::vector<std::size_t>& ranks) const {
    std::vector<double> values;
    if (!select(ranks, values)) return order_statistics(values_, size_).at(ranks);  // bounds given were wrong
    return values;
  }

  /// Quantiles by linear interpolation between order statistics (type 7 of Hyndman and Fan,
  /// 1996, NumPy's default): at probability p, rank h = (count() − 1) p lies between the values
  /// of ranks ⌊h⌋ and ⌊h⌋ + 1. NaN for every probability when no value is a number.
  /// Probabilities must lie in [0, 1] (the caller checks).
  std::vector<double> quantiles(const std::vector<double>& probabilities) const {
    if (count_ == 0) return std::vector<double>(probabilities.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<std::size_t> ranks;
    for (const double p : probabilities) {
      const std::size_t lower = lower_rank(p);
      ranks.push_back(lower);
      ranks.push_back(std::min(lower + 1, count_ - 1));
    }
    std::vector<double> at_ranks;
    if (!select(ranks, at_ranks)) return order_statistics(values_, size_).quantiles(probabilities);  // wrong bounds
    std::vector<double> result;
    for (std::size_t k = 0; k < probabilities.size(); ++k) {
      const double h = static_cast<double>(count_ - 1) * probabilities[k];
      const double lower = at_ranks[2 * k], upper = at_ranks[2 * k + 1];
      const auto lo = static_cast<double>(lower_rank(probabilities[k]));
      // Equal neighbours (or an exact rank) need no interpolation, which keeps ±inf exact.
      result.push_back(upper == lower || h == lo ? lower : lower + (h - lo) * (upper - lower));
    }
    return result;
  }

 private:
  // The values at `ranks` into `values`; false when the bounds given were not the values'.
  bool select(const std::vector<std::size_t>& ranks, std::vector<double>& values) const {
    std::vector<std::size_t> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<double> at_sorted(sorted.size());
    if (!sorted.empty() && !detail::select_ranks(values_, size_, count_, lo_, hi_, sorted, at_sorted.data()))
      return false;
    values.clear();
    for (const std::size_t r : ranks)
      values.push_back(
          at_sorted[static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), r) - sorted.begin())]);
    return true;
  }

  void find_bounds() {
    count_ = 0;
    lo_ = std::numeric_limits<std::uint64_t>::max();
    hi_ = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      const std::uint64_t key = detail::order_key(values_[i]);
      if (!detail::is_number_key(key)) continue;
      ++count_;
      lo_ = std::min(lo_, key);
      hi_ = std::max(hi_, key);
    }
  }
  std::size_t lower_rank(double p) const {
    return std::min(static_cast<std::size_t>(static_cast<double>(count_ - 1) * p), count_ - 1);
  }

  const double* values_;
  std::size_t size_;
  std::size_t count_ = 0;
  std::uint64_t lo_ = std::numeric_limits<std::uint64_t>::max(), hi_ = 0;
};

}  // namespace trnmodel
