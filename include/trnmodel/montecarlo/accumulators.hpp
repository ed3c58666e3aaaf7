#pragma once
// Mergeable statistics of one output (docs/montecarlo.md).
//   co_moments<K>: count, means and co-moments of K variables, merged pairwise (Chan, Golub &
//                  LeVeque 1979): the statistics of a Saltelli design (saltelli.hpp).
//   moments:       count, mean and M2 (the same merge, K = 1), min, max and the count of NaN
//                  values (metrics that depend on unknown inputs).
//   log_histogram: counts in logarithmic buckets with relative accuracy alpha (the
//                  DDSketch mapping, Masson et al. 2019): any quantile it returns lies
//                  within a factor (1 ± alpha) of the order statistic at the requested rank.
//                  Memory depends on the range of the values, never on their number.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/montecarlo/bytes.hpp"
#include "trnmodel/random/isa.hpp"

namespace trnmodel {

namespace detail {

// The one pairwise merge of the library (Chan, Golub & LeVeque 1979): a set of n_a values with
// means `mean` and co-moments `comoment` (K x K, sums of products of deviations from the mean)
// absorbs n_b values with `other_mean`, `other_comoment`. Every mergeable accumulator calls
// this, so its floating-point operations, in this order, define their bits.
template <std::size_t K> inline void chan_merge(double n_a, double n_b, double* mean, double* comoment,
                                                const double* other_mean, const double* other_comoment) {
  const double n = n_a + n_b;
  std::array<double, K> delta;
  for (std::size_t k = 0; k < K; ++k) delta[k] = other_mean[k] - mean[k];
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t l = 0; l < K; ++l)
      comoment[k * K + l] += other_comoment[k * K + l] + delta[k] * delta[l] * n_a * n_b / n;
  for (std::size_t k = 0; k < K; ++k) mean[k] += delta[k] * n_b / n;
}

}  // namespace detail

/// Count, means and co-moments of a small vector of K variables. A plain value; not for
/// concurrent updates (fill one per block, then merge them in order).
template <std::size_t K> struct co_moments {
  std::uint64_t count = 0;  ///< rows added
  std::array<double, K> mean{};  ///< the mean of each variable
  std::array<double, K * K> comoment{};  ///< sums of products of deviations from the mean

  /// Adds the rows of z (n x K, one variable per column): two passes, the exact mean first, then
  /// the co-moments; then one merge. NaN values are not skipped.
  void add(const Eigen::Array<double, Eigen::Dynamic, static_cast<int>(K)>& z) {
    co_moments block;
    block.count = static_cast<std::uint64_t>(z.rows());
    if (z.rows() == 0) return;
    for (std::size_t k = 0; k < K; ++k) block.mean[k] = z.col(static_cast<Eigen::Index>(k)).mean();
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t l = k; l < K; ++l) {
        const double s = ((z.col(static_cast<Eigen::Index>(k)) - block.mean[k]) *
                          (z.col(static_cast<Eigen::Index>(l)) - block.mean[l]))
                             .sum();
        block.comoment[k * K + l] = block.comoment[l * K + k] = s;
      }
    merge(block);
  }

  /// Absorbs another set's statistics (Chan, Golub & LeVeque's pairwise merge).
  void merge(const co_moments& other) {
    if (other.count == 0) return;
    if (count == 0) {
      *this = other;
      return;
    }
    detail::chan_merge<K>(static_cast<double>(count), static_cast<double>(other.count), mean.data(), comoment.data(),
                          other.mean.data(), other.comoment.data());
    count += other.count;
  }

  /// Sample covariance of variables k and l (divisor n - 1).
  /// Exact byte form (bytes.hpp), for block statistics sent between processes.
  void write(detail::byte_writer& out) const {
    out.u64(count);
    for (const double m : mean) out.f64(m);
    for (const double c : comoment) out.f64(c);
  }
  /// Reads what write() wrote; input_error (path "partial") when the bytes run short.
  static co_moments read(detail::byte_reader& in) {
    co_moments m;
    m.count = in.u64("co_moments.count");
    for (double& x : m.mean) x = in.f64("co_moments.mean");
    for (double& x : m.comoment) x = in.f64("co_moments.comoment");
    return m;
  }
  double covariance(std::size_t k, std::size_t l) const {
    return comoment[k * K + l] / (static_cast<double>(count) - 1);
  }
};

/// Streamed count, mean, variance, min and max of one output (Welford, merged by Chan's
/// formula). A plain value; not for concurrent updates (each block has its own, merged in order).
struct moments {
  std::uint64_t count = 0;  ///< non-NaN values (infinities included)
  std::uint64_t nan_count = 0;  ///< NaN values (left out of every other member)
  double mean = 0;  ///< mean of the non-NaN values (NaN in a result when there is none)
  double m2 = 0;  ///< sum of squared deviations from the mean
  double min = std::numeric_limits<double>::infinity();  ///< smallest non-NaN value
  double max = -std::numeric_limits<double>::infinity();  ///< largest non-NaN value

  /// Adds the n values at x: two passes over the block (exact mean first, then squared
  /// deviations), then one merge: more accurate than Welford's update. Each pass sums in eight
  /// lanes (value i in lane i mod 8), combined as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)):
  /// the order is the method's, not the instruction set's, so every path gives the same bits,
  /// and the eight chains of additions run side by side in one vector register (AVX-512) or two
  /// (AVX2). Branch-free in the values: a NaN adds +0 to a sum that starts at +0 (so the sum's
  /// bits do not change), and min/max keep their side for NaN (comparisons with NaN are false).
  void add(const double* x, std::size_t n) {
    moments block;
#ifdef TRNMODEL_X86_DISPATCH
    switch (active_isa()) {
      case isa::avx512: block_avx512(x, n, block); break;
      case isa::avx2: block_avx2(x, n, block); break;
      default: block_sse2(x, n, block); break;
    }
#else
    block_sse2(x, n, block);
#endif
    merge(block);
  }

  /// add() of `columns` columns of n values each, column k at x + k * stride, into out[k].
  static void add_columns(const double* x, std::ptrdiff_t stride, std::size_t n, std::size_t columns, moments* out) {
    for (std::size_t k = 0; k < columns; ++k) out[k].add(x + static_cast<std::ptrdiff_t>(k) * stride, n);
  }

  /// Absorbs another set's statistics (Chan's pairwise merge; min, max and NaN counts combined).
  void merge(const moments& other) {
    nan_count += other.nan_count;
    if (other.count == 0) return;
    if (count == 0) {
      const auto nans = nan_count;
      *this = other;
      nan_count = nans;
      return;
    }
    detail::chan_merge<1>(static_cast<double>(count), static_cast<double>(other.count), &mean, &m2, &other.mean,
                          &other.m2);
    count += other.count;
    min = std::min(min, other.min);
    max = std::max(max, other.max);
  }

  /// Sample variance (divisor n - 1); NaN with fewer than two values.
  double variance() const {
    return count > 1 ? m2 / static_cast<double>(count - 1) : std::numeric_limits<double>::quiet_NaN();
  }
  /// Sample standard deviation, sqrt(variance()).
  double sd() const { return std::sqrt(variance()); }

  /// Exact byte form (bytes.hpp), for partial statistics sent between processes: byte_size bytes.
  void write(detail::byte_writer& out) const {
    out.u64(count);
    out.u64(nan_count);
    out.f64(mean);
    out.f64(m2);
    out.f64(min);
    out.f64(max);
  }
  /// Reads what write() wrote; input_error (path "partial", naming e.g. moments.mean) when the
  /// bytes run short.
  static moments read(detail::byte_reader& in) {
    moments m;
    m.count = in.u64("moments.count");
    m.nan_count = in.u64("moments.nan_count");
    m.mean = in.f64("moments.mean");
    m.m2 = in.f64("moments.m2");
    m.min = in.f64("moments.min");
    m.max = in.f64("moments.max");
    return m;
  }
  static constexpr std::size_t byte_size = 48;  ///< bytes of the byte form: two u64, four f64

 private:
  static constexpr std::size_t lanes = 8;
  static double combine(const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }
  // One block's moments of the n values at x into `block` (empty before), by add()'s method.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((always_inline))
#endif
  static inline void
  block_body(const double* x, std::size_t n, moments& block) {
    const std::size_t whole = n - n % lanes;
    double sum[lanes] = {}, m2[lanes] = {}, lo[lanes], hi[lanes];
    std::uint64_t count[lanes] = {};
    for (std::size_t l = 0; l < lanes; ++l) lo[l] = std::numeric_limits<double>::infinity(), hi[l] = -lo[l];
#if defined(__GNUC__) || defined(__clang__)
    // GCC's and Clang's vector types: element l is lane l on every instruction set (one
    // AVX-512 register, two AVX2 ones, four SSE2 ones), so the chains of additions stay in
    // registers and every path adds in the same order.
    typedef double doubles __attribute__((vector_size(8 * lanes)));
    typedef std::int64_t masks __attribute__((vector_size(8 * lanes)));
    doubles vsum{}, vlo, vhi;
    masks vcount{};
    std::memcpy(&vlo, lo, sizeof vlo);
    std::memcpy(&vhi, hi, sizeof vhi);
    const doubles zero{};
    for (std::size_t i = 0; i < whole; i += lanes) {
      doubles v;
      std::memcpy(&v, x + i, sizeof v);
      const masks number = v == v;  // -1 where v is a number, 0 where NaN
      vsum += number ? v : zero;
      vcount -= number;
      vlo = v < vlo ? v : vlo;  // std::min(lo, v): NaN keeps lo
      vhi = vhi < v ? v : vhi;  // std::max(hi, v)
    }
    std::memcpy(sum, &vsum, sizeof vsum);
    std::memcpy(lo, &vlo, sizeof vlo);
    std::memcpy(hi, &vhi, sizeof vhi);
    for (std::size_t l = 0; l < lanes; ++l) count[l] = static_cast<std::uint64_t>(vcount[l]);
#else
    for (std::size_t i = 0; i < whole; i += lanes)
      for (std::size_t l = 0; l < lanes; ++l) first_pass(sum, count, lo, hi, l, x[i + l]);
#endif
    for (std::size_t i = whole; i < n; ++i) first_pass(sum, count, lo, hi, i - whole, x[i]);
    for (std::size_t l = 0; l < lanes; ++l) {
      block.count += count[l];
      block.min = lo[l] < block.min ? lo[l] : block.min;
      block.max = block.max < hi[l] ? hi[l] : block.max;
    }
    block.nan_count = n - block.count;
    if (block.count == 0) return;
    const double mean = combine(sum) / static_cast<double>(block.count);
#if defined(__GNUC__) || defined(__clang__)
    doubles vm2{};
    const doubles vmean = zero + mean;
    for (std::size_t i = 0; i < whole; i += lanes) {
      doubles v;
      std::memcpy(&v, x + i, sizeof v);
      const doubles d = v - vmean;
      vm2 += v == v ? d * d : zero;
    }
    std::memcpy(m2, &vm2, sizeof vm2);
#else
    for (std::size_t i = 0; i < whole; i += lanes)
      for (std::size_t l = 0; l < lanes; ++l) second_pass(m2, mean, l, x[i + l]);
#endif
    for (std::size_t i = whole; i < n; ++i) second_pass(m2, mean, i - whole, x[i]);
    block.mean = mean;
    block.m2 = combine(m2);
  }
  // One value of lane l in each pass (the tail of a block, and compilers without vector types).
  static void first_pass(double* sum, std::uint64_t* count, double* lo, double* hi, std::size_t l, double v) {
    const bool number = !std::isnan(v);
    sum[l] += number ? v : 0.0;
    count[l] += number ? 1u : 0u;
    lo[l] = v < lo[l] ? v : lo[l];
    hi[l] = hi[l] < v ? v : hi[l];
  }
  static void second_pass(double* m2, double mean, std::size_t l, double v) {
    const double d = v - mean;
    m2[l] += std::isnan(v) ? 0.0 : d * d;
  }
  static void block_sse2(const double* x, std::size_t n, moments& block) { block_body(x, n, block); }
#ifdef TRNMODEL_X86_DISPATCH
  TRNMODEL_TARGET_AVX2 static void block_avx2(const double* x, std::size_t n, moments& block) {
    block_body(x, n, block);
  }
  TRNMODEL_TARGET_AVX512 static void block_avx512(const double* x, std::size_t n, moments& block) {
    block_body(x, n, block);
  }
#endif
};

/// Counts of one output's values in logarithmic buckets (relative accuracy 0.1%), for
/// quantiles without kept samples. A value type; add() and merge() are not thread-safe (each
/// block fills its own), const calls are.
class log_histogram {
 public:
  /// An empty histogram whose quantiles lie within a factor (1 ± relative_accuracy) of the
  /// order statistic. input_error (relative_accuracy) outside (0, 1).
  explicit log_histogram(double relative_accuracy = 1e-3)
      : alpha_(relative_accuracy), log_gamma_(std::log((1 + relative_accuracy) / (1 - relative_accuracy))) {
    if (!(relative_accuracy > 0 && relative_accuracy < 1))
      detail::fail("relative_accuracy", "must be in (0, 1), got " + detail::format_number(relative_accuracy));
  }

  /// The relative accuracy alpha it was made with.
  double relative_accuracy() const { return alpha_; }
  /// Values counted: every non-NaN value added, infinities included.
  std::uint64_t count() const {
    return zeros_ + positive_.total + negative_.total + negative_infinite_ + positive_infinite_;
  }

  /// Counts one value (`copies` times): NaN is ignored; ±inf and 0 are counted apart from the
  /// buckets.
  void add(double x, std::uint64_t copies = 1) {
    if (std::isnan(x)) return;
    if (std::isinf(x)) {  // no bucket: counted apart, at either end of the order
      (x > 0 ? positive_infinite_ : negative_infinite_) += copies;
      return;
    }
    if (x > 0) {
      positive_.add(index(x), copies);
    } else if (x < 0) {
      negative_.add(index(-x), copies);
    } else {
      zeros_ += copies;
    }
  }

  /// add() of the n values at x, the same counts: the buckets of the values that index() places
  /// without a logarithm are computed in vector lanes, 256 at a time (random/isa.hpp), the
  /// others (zeros, NaN, infinities, subnormals, values within 1e-6 of a bucket's edge) added
  /// one by one. A part whose values are all one value (an output a job does not use: a
  /// constant, zeros, NaN) is counted at once.
  void add_column(const double* x, std::size_t n) {
    constexpr std::size_t part = 256;
    double bucket[part];
    const log_table& table = log_table::shared();
    for (std::size_t done = 0; done < n; done += part) {
      const std::size_t m = n - done < part ? n - done : part;
      if (all_the_same(x + done, m)) {
        add(x[done], m);
        continue;
      }
#ifdef TRNMODEL_X86_DISPATCH
      switch (active_isa()) {
        case isa::avx512: buckets_avx512(table, inverse_log_gamma_, x + done, bucket, m); break;
        case isa::avx2: buckets_avx2(table, inverse_log_gamma_, x + done, bucket, m); break;
        default: buckets_sse2(table, inverse_log_gamma_, x + done, bucket, m); break;
      }
#else
      buckets_sse2(table, inverse_log_gamma_, x + done, bucket, m);
#endif
      // The counts, with the totals and the zeros kept in registers until the part ends.
      std::uint64_t positives = 0, negatives = 0, zeros = 0;
      for (std::size_t i = 0; i < m; ++i) {
        const double v = x[done + i];
        if (!std::isnan(bucket[i])) {
          const auto k = static_cast<std::int64_t>(bucket[i]);
          buckets& side = v > 0 ? positive_ : negative_;
          if (k < side.offset || k - side.offset >= static_cast<std::int64_t>(side.counts.size()))
            side.grow_to(k);
          ++side.counts[static_cast<std::size_t>(k - side.offset)];
          ++(v > 0 ? positives : negatives);
        } else if (v == 0) {
          ++zeros;
        } else {
          add(v);
        }
      }
      positive_.total += positives;
      negative_.total += negatives;
      zeros_ += zeros;
    }
  }

  /// Adds another histogram's counts; both must have the same relative accuracy (not checked).
  void merge(const log_histogram& other) {
    positive_.merge(other.positive_);
    negative_.merge(other.negative_);
    zeros_ += other.zeros_;
    negative_infinite_ += other.negative_infinite_;
    positive_infinite_ += other.positive_infinite_;
  }

  /// Exact byte form (bytes.hpp): the accuracy, then the counts.
  void write(detail::byte_writer& out) const {
    out.f64(alpha_);
    out.u64(zeros_);
    out.u64(negative_infinite_);
    out.u64(positive_infinite_);
    positive_.write(out);
    negative_.write(out);
  }
  /// Reads what write() wrote; input_error (path "partial", naming e.g. histogram.bucket) when the
  /// bytes are truncated or corrupt, or (relative_accuracy) when the accuracy is not in (0, 1).
  static log_histogram read(detail::byte_reader& in) {
    log_histogram h(in.f64("histogram.relative_accuracy"));
    h.zeros_ = in.u64("histogram.zeros");
    h.negative_infinite_ = in.u64("histogram.negative_infinite");
    h.positive_infinite_ = in.u64("histogram.positive_infinite");
    h.positive_.read(in);
    h.negative_.read(in);
    return h;
  }

  /// The value of order statistic `rank` (0-based, ascending), within the relative accuracy;
  /// +inf for a rank at or past count().
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

  /// Type-7 quantile (NumPy's default) between the two neighbouring order statistics; NaN when
  /// empty. `q` must lie in [0, 1] (run_result::quantiles checks it; this does not).
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
  // Whether the m values at x have the same bits (m ≥ 1); most parts differ at once.
  static bool all_the_same(const double* x, std::size_t m) {
    std::uint64_t first = 0, bits = 0;
    std::memcpy(&first, x, sizeof first);
    for (std::size_t i = 1; i < m; ++i) {
      std::memcpy(&bits, x + i, sizeof bits);
      if (bits != first) return false;
    }
    return true;
  }

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
    void write(detail::byte_writer& out) const {
      out.i64(offset);
      out.u64(counts.size());
      for (const std::uint64_t c : counts) out.u64(c);
    }
    void read(detail::byte_reader& in) {
      offset = in.i64("histogram.offset");
      counts.resize(static_cast<std::size_t>(in.count("histogram.buckets", 8)));
      total = 0;
      for (std::uint64_t& c : counts) total += (c = in.u64("histogram.bucket"));
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

 public:
  /// The bucket of a magnitude > 0: ceil(log(m) / log(gamma)). Defined by exact_index; computed
  /// without a logarithm (streaming runs add every value of every output): m = 2^e f with f in
  /// [1, 2), log f = log c_j + log1p(f / c_j - 1) with c_j = 1 + j/256 from the top 8 bits of the
  /// mantissa (a table) and five terms of the series (|f / c_j - 1| < 1/256, remainder below
  /// 1e-15). That estimate and exact_index's own rounding differ by less than 1e-9 of a bucket,
  /// so wherever the estimate lies more than 1e-6 of a bucket from an edge both give the same
  /// ceiling; nearer an edge (two values in a million) and for subnormals, exact_index decides.
  /// Same buckets, same edges (tested, edges included).
  std::int64_t index(double magnitude) const {
    const double bucket = fast_bucket(log_table::shared(), inverse_log_gamma_, magnitude);
    return std::isnan(bucket) ? exact_index(magnitude) : static_cast<std::int64_t>(bucket);
  }
  /// The bucket of a magnitude > 0 by the logarithm itself: ceil(log(m) / log(gamma)), the
  /// definition index() reproduces.
  std::int64_t exact_index(double magnitude) const {
    return static_cast<std::int64_t>(std::ceil(std::log(magnitude) / log_gamma_));
  }

 private:
  struct log_table {
    double log[256], inverse[256];
    static const log_table& shared() {
      static const log_table table = [] {
        log_table t{};
        for (int j = 0; j < 256; ++j) {
          t.log[j] = std::log1p(j / 256.0);
          t.inverse[j] = 1 / (1 + j / 256.0);
        }
        return t;
      }();
      return table;
    }
  };
  // index()'s estimate for a magnitude: its bucket as a double, or NaN where exact_index must
  // decide (not a normal number, or within 1e-6 of a bucket's edge). Selects, not branches, so
  // that a loop of it vectorises (add_column); the exponent is converted to a double by adding
  // it to 2^52 (exact), which any instruction set does.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((always_inline))
#endif
  static inline double
  fast_bucket(const log_table& table, double inverse_log_gamma, double magnitude) {
    std::uint64_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    const std::uint64_t biased = (bits >> 52) & 0x7FF;  // 1 .. 2046 for a normal number
    const std::uint64_t shifted = 0x4330000000000000ull | biased;  // 2^52 + biased, as a double
    double exponent;
    std::memcpy(&exponent, &shifted, sizeof exponent);
    exponent -= 0x1.0p52 + 1023;
    const std::size_t j = (bits >> 44) & 0xFF;
    const std::uint64_t mantissa = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    double f;
    std::memcpy(&f, &mantissa, sizeof f);
    const double r = f * table.inverse[j] - 1;
    const double series = r * (1 + r * (-0.5 + r * (1.0 / 3 + r * (-0.25 + r * 0.2))));
    constexpr double ln2 = 0.69314718055994530942;
    const double y = (exponent * ln2 + table.log[j] + series) * inverse_log_gamma;
    const double ceiling = std::ceil(y);
    // A normal number (else y means nothing) more than 1e-6 of a bucket from either edge; one
    // select per condition, on doubles, which is what the vectoriser takes.
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    double bucket = ceiling - y >= 1e-6 ? ceiling : nan;
    bucket = y - (ceiling - 1) >= 1e-6 ? bucket : nan;
    bucket = magnitude >= 0x1.0p-1022 ? bucket : nan;
    return magnitude <= std::numeric_limits<double>::max() ? bucket : nan;
  }
  // bucket[i] = fast_bucket(|x[i]|), per instruction set.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((always_inline))
#endif
  static inline void
  buckets_body(const log_table& table, double inverse_log_gamma, const double* x, double* bucket, std::size_t n) {
    // No store reaches x or the table (bucket is the caller's own array).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
    for (std::size_t i = 0; i < n; ++i) bucket[i] = fast_bucket(table, inverse_log_gamma, std::abs(x[i]));
  }
  static void buckets_sse2(const log_table& table, double inverse_log_gamma, const double* x, double* bucket,
                           std::size_t n) {
    buckets_body(table, inverse_log_gamma, x, bucket, n);
  }
#ifdef TRNMODEL_X86_DISPATCH
  TRNMODEL_TARGET_AVX2 static void buckets_avx2(const log_table& table, double inverse_log_gamma, const double* x,
                                                double* bucket, std::size_t n) {
    buckets_body(table, inverse_log_gamma, x, bucket, n);
  }
  TRNMODEL_TARGET_AVX512 static void buckets_avx512(const log_table& table, double inverse_log_gamma,
                                                    const double* x, double* bucket, std::size_t n) {
    buckets_body(table, inverse_log_gamma, x, bucket, n);
  }
#endif
  // The point of bucket i whose relative distance to both ends is alpha.
  double value(std::int64_t i) const {
    return 2 * std::exp(static_cast<double>(i) * log_gamma_) / (1 + std::exp(log_gamma_));
  }

  double alpha_;
  double log_gamma_;
  double inverse_log_gamma_ = 1 / log_gamma_;
  buckets positive_, negative_;
  std::uint64_t zeros_ = 0, negative_infinite_ = 0, positive_infinite_ = 0;
};

}  // namespace trnmodel
