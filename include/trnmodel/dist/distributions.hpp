#pragma once
// The distribution families of docs/distributions.md, one small value type each. Every family offers
//   ppf(u)    the quantile function, used for all sampling (x = F^-1(u)), so Sobol designs,
//             Latin hypercubes and common random numbers work for every family;
//   cdf(x)    the distribution function (tests and calibration);
//   mean()    the exact mean of the distribution that ppf samples;
//   support() the closed hull of the values ppf can return.
// Parameters are checked by the make_* factories (one place per rule, messages naming the
// path), and again when a family is wrapped in a quantity; beta, PERT and gamma check theirs
// on construction (they derive shapes and tables from them).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/math_policy.hpp"
#include "trnmodel/dist/quantile_table.hpp"
#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/dist/normal_quantile.hpp"
#include "trnmodel/errors.hpp"

namespace trnmodel::detail {

// The parameter rules shared by the make_* factories and the constructors of the families
// that derive something from their parameters (beta, PERT, gamma).
inline void check_ordered(const std::string& path, const char* family, const char* names, bool ok,
                          const std::string& values) {
  if (!ok) trnmodel::detail::fail(path, std::string(family) + " needs " + names + ", got " + values);
}
inline std::string kv(const char* name, double value) {
  return std::string(name) + "=" + trnmodel::detail::format_number(value);
}

// The rules of a three-point estimate (triangular, PERT).
inline void check_three_point(const std::string& path, const char* family, double lo, double mode, double hi) {
  trnmodel::detail::check_finite(path + ".lo", lo);
  trnmodel::detail::check_finite(path + ".mode", mode);
  trnmodel::detail::check_finite(path + ".hi", hi);
  check_ordered(path, family, "lo ≤ mode ≤ hi and lo < hi", lo <= mode && mode <= hi && lo < hi,
                kv("lo", lo) + ", " + kv("mode", mode) + ", " + kv("hi", hi));
}

// Gamma and beta shapes whose quantile function double precision can follow (fuzzed and
// tested from 0.01 to 1e10). Below, nearly all the mass lies within 1e-30 of 0 and the
// quantile underflows; above, the spread is below 1e-5 of the mean, and Boost's inverse
// stops being monotone (gamma, shape 1e12) or converging (beta, 1e20).
inline constexpr double min_shape = 0.01, max_shape = 1e10;

inline void check_shape(const std::string& path, double shape) {
  trnmodel::detail::check_positive(path, shape);
  if (!(shape >= min_shape && shape <= max_shape))
    trnmodel::detail::fail(
        path, "must be in [0.01, 1e10] (beyond, double precision cannot follow the quantile function), got " +
                  trnmodel::detail::format_number(shape));
}

inline void check_beta(const std::string& path, double a, double b, double lo, double hi) {
  check_shape(path + ".a", a);
  check_shape(path + ".b", b);
  trnmodel::detail::check_finite(path + ".lo", lo);
  trnmodel::detail::check_finite(path + ".hi", hi);
  check_ordered(path, "beta", "lo < hi", lo < hi, kv("lo", lo) + ", " + kv("hi", hi));
}

}  // namespace trnmodel::detail

namespace trnmodel::dist {

/// (lowest, highest) value a family's ppf can return.
using support_t = std::pair<double, double>;
/// +∞: the open end of a support, and the absent bound of a normal's truncation.
inline constexpr double infinity = std::numeric_limits<double>::infinity();

namespace detail {
using trnmodel::detail::fast_policy;
inline constexpr double sqrt2 = 1.41421356237309504880;
inline constexpr double inv_sqrt_2pi = 0.39894228040143267794;  // the standard normal density at 0

// Standard normal distribution through erfc, so both tails keep full relative accuracy; the
// quantile is normal_quantile.hpp's (AS 241).
inline double normal_cdf(double z) { return 0.5 * boost::math::erfc(-z / sqrt2, fast_policy()); }
inline double normal_sf(double z) { return 0.5 * boost::math::erfc(z / sqrt2, fast_policy()); }
// The z with upper-tail probability q, accurate for tiny q (AS 241 is odd about 1/2).
inline double normal_isf(double q) { return -normal_ppf(q); }

// Tables built on first use and shared by copies of the distribution (thread-safe).
struct quantile_tables {
  trnmodel::detail::quantile_table tails;
  std::unique_ptr<trnmodel::detail::central_quantile_table> centre;  ///< null when not smooth enough
};

// The tables of every distribution seen recently, by family and parameters, shared by all
// scenarios and their `updated()` copies: a table takes ~0.1 s to build and depends on nothing
// else, so a scenario loaded again, a sweep point or a break-even evaluation reuses it. Bounded:
// at most `capacity` tables (~0.3 MB each) are kept, the least recently used dropped first (a
// distribution still holding a dropped table keeps it alive).
class table_cache {
 public:
  static constexpr std::size_t capacity = 128;
  struct key {
    int family;
    double a, b;
    bool operator==(const key& o) const { return family == o.family && a == o.a && b == o.b; }
  };

  static table_cache& shared() {
    static table_cache cache;
    return cache;
  }

  template <class Build> std::shared_ptr<const quantile_tables> get(const key& k, Build&& build) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (auto found = find(k)) return found;
    }
    // Built outside the lock, so that other tables stay available meanwhile; the same
    // parameters give the same table bit for bit, so a race only wastes one build.
    auto built = std::make_shared<const quantile_tables>(build());
    const std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = find(k)) return found;
    if (entries_.size() >= capacity) entries_.erase(entries_.begin());
    entries_.push_back({k, built});
    return built;
  }

  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  // Most recently used last; a linear scan of at most `capacity` keys costs nothing next to a
  // build, and lookups happen once per distribution, not per draw.
  std::shared_ptr<const quantile_tables> find(const key& k) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (!(it->first == k)) continue;
      auto hit = *it;
      entries_.erase(it);
      entries_.push_back(hit);
      return hit.second;
    }
    return nullptr;
  }

  mutable std::mutex mutex_;
  std::vector<std::pair<key, std::shared_ptr<const quantile_tables>>> entries_;
};

class lazy_tables {
 public:
  lazy_tables(int family, double a, double b) : key_{family, a, b} {}

  template <class Build> const quantile_tables& get(Build&& build) const {
    std::call_once(state_->once, [&] { state_->tables = table_cache::shared().get(key_, build); });
    return *state_->tables;
  }

 private:
  struct state {
    std::once_flag once;
    std::shared_ptr<const quantile_tables> tables;
  };
  table_cache::key key_;
  std::shared_ptr<state> state_ = std::make_shared<state>();
};

// A quantile from the tables: the central table when it covers u, else the tail table in its
// transformed coordinate (`from_tail` maps back), else the exact inverse (`exact`).
template <class FromTail, class Exact>
double table_quantile(const quantile_tables& t, double u, FromTail from_tail, Exact exact) {
  if (t.centre && trnmodel::detail::central_quantile_table::covers(u)) {
    const double x = (*t.centre)(u);
    if (!std::isnan(x)) return x;
  }
  const double y = t.tails(u);
  return std::isnan(y) ? exact(u) : from_tail(y);
}

// How a tail table's transformed quantile y maps back: x = 1 / (1 + e^-y) (beta, in logit
// coordinates) or x = e^y (gamma, in log coordinates), by the lane exp.
enum class tail_map { logistic, exp };

// One part (at most 256 values) of table_column, in the vector lanes of the instruction set it
// is compiled for: x[i] = a + b · quantile(u[i]) with table_quantile's numbers lane by lane (the
// central table; for the lanes outside it, listed without a branch and gathered, the tail table
// and the map back), NaN where the tail table does not cover u. Returns the number of tail
// lanes, listed in tail_at with their uniforms in tail_u (x may be u).
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
inline std::size_t
table_part_body(const quantile_tables& t, tail_map map, const double* u, double* x, std::size_t m, double a, double b,
                std::size_t* tail_at, double* tail_u) {
  using trnmodel::detail::central_quantile_table;
  double value[256], tail[256];
  std::size_t count = 0;
  if (t.centre) {
    const trnmodel::detail::cardinal_hermite& spline = t.centre->spline();
    trnmodel::detail::hermite_column_body(spline, u, value, m);
    const double last = spline.xf;
    for (std::size_t i = 0; i < m; ++i) {
      const double v = u[i];
      tail_at[count] = i;
      count += central_quantile_table::covers(v) && v <= last ? 0u : 1u;
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) tail_at[i] = i;
    count = m;
  }
  for (std::size_t k = 0; k < count; ++k) tail_u[k] = u[tail_at[k]];
  t.tails.column_body(tail_u, tail, count);
  if (map == tail_map::logistic) {
    for (std::size_t k = 0; k < count; ++k) tail[k] = lane_logistic(tail[k]);
  } else {
    for (std::size_t k = 0; k < count; ++k) tail[k] = lane_exp(tail[k]);
  }
  for (std::size_t k = 0; k < count; ++k) value[tail_at[k]] = tail[k];
  for (std::size_t i = 0; i < m; ++i) x[i] = a + b * value[i];
  return count;
}
inline std::size_t table_part_sse2(const quantile_tables& t, tail_map map, const double* u, double* x, std::size_t m,
                                   double a, double b, std::size_t* tail_at, double* tail_u) {
  return table_part_body(t, map, u, x, m, a, b, tail_at, tail_u);
}
#ifdef TRNMODEL_X86_DISPATCH
TRNMODEL_TARGET_AVX2 inline std::size_t table_part_avx2(const quantile_tables& t, tail_map map, const double* u,
                                                        double* x, std::size_t m, double a, double b,
                                                        std::size_t* tail_at, double* tail_u) {
  return table_part_body(t, map, u, x, m, a, b, tail_at, tail_u);
}
TRNMODEL_TARGET_AVX512 inline std::size_t table_part_avx512(const quantile_tables& t, tail_map map, const double* u,
                                                            double* x, std::size_t m, double a, double b,
                                                            std::size_t* tail_at, double* tail_u) {
  return table_part_body(t, map, u, x, m, a, b, tail_at, tail_u);
}
#endif

// x[i] = a + b · quantile(u[i]) for a column, with the numbers of table_quantile lane by lane,
// in parts of 256 on the widest instruction set the machine has; the exact inverse (`exact`)
// for the few lanes the tail table does not cover (u within about e^-38 of 0 or 1). x may be u.
template <class Exact>
void table_column(const quantile_tables& t, tail_map map, const double* u, double* x, std::size_t n, double a,
                  double b, Exact exact) {
  constexpr std::size_t chunk = 256;
  std::size_t tail_at[chunk];
  double tail_u[chunk];
  for (std::size_t done = 0; done < n; done += chunk) {
    const std::size_t m = n - done < chunk ? n - done : chunk;
    std::size_t count = 0;
#ifdef TRNMODEL_X86_DISPATCH
    switch (active_isa()) {
      case isa::avx512: count = table_part_avx512(t, map, u + done, x + done, m, a, b, tail_at, tail_u); break;
      case isa::avx2: count = table_part_avx2(t, map, u + done, x + done, m, a, b, tail_at, tail_u); break;
      default: count = table_part_sse2(t, map, u + done, x + done, m, a, b, tail_at, tail_u); break;
    }
#else
    count = table_part_sse2(t, map, u + done, x + done, m, a, b, tail_at, tail_u);
#endif
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t i = done + tail_at[k];
      if (std::isnan(x[i])) x[i] = a + b * exact(tail_u[k]);
    }
  }
}

// Beta(a, b) quantile on [0, 1]: table in logit coordinates, exact Boost in the far tails.
class beta_quantile {
 public:
  beta_quantile(double a, double b) : a_(a), b_(b), tables_(0, a, b) {}

  double operator()(double u) const {
    return at(tables_.get([this] { return build(); }), u);
  }

  // The hot path: the tables are looked up once per column of uniforms.
  void batch(const double* u, double* x, std::size_t n, double lo, double width) const {
    const quantile_tables& t = tables_.get([this] { return build(); });
    table_column(t, tail_map::logistic, u, x, n, lo, width, [this](double v) { return exact(v); });
  }

  double exact(double u) const {
    if (u <= 0) return 0;
    if (u >= 1) return 1;
    if (const auto t = tail_term(u, 1 - u)) return t->first;
    const double x = u < 0.5 ? boost::math::ibeta_inv(a_, b_, u, fast_policy())
                             : boost::math::ibetac_inv(a_, b_, 1 - u, fast_policy());
    if (x >= 0 && x <= 1) return x;
    // Boost gives up (an evaluation error, -inf here; found by fuzz_quantity with beta(2, 0.5)
    // at u = 1 - 2^-53) only where the quantile lies within rounding of a bound. There the
    // leading term of the tail is exact to double precision: F(x) ~ x^a / (a B(a, b)) near 0,
    // 1 - F(x) ~ (1 - x)^b / (b B(a, b)) near 1.
    const double log_beta = std::lgamma(a_) + std::lgamma(b_) - std::lgamma(a_ + b_);
    if (u < 0.5) return std::min(1.0, std::exp((std::log(a_ * u) + log_beta) / a_));
    return std::max(0.0, 1 - std::exp((std::log(b_ * (1 - u)) + log_beta) / b_));
  }

 private:
  double at(const quantile_tables& t, double u) const {
    return table_quantile(
        t, u, [](double y) { return lane_logistic(y); }, [this](double v) { return exact(v); });
  }

  // {x, 1 - x} from the tail's leading term where it is exact to double precision (the next
  // term is below 1e-17 relative): F(x) = x^a / (a B(a, b)) (1 + O(x)) near 0, likewise
  // near 1. There Boost's inverse without promotion to long double loses all accuracy
  // (beta(0.5, 2) at u = 2^-28 gave 9e-24 for 6e-18; found by fuzz_quantity).
  // With the second term, F(x) = x^a / (a B(a, b)) (1 + a (1 - b) / (a + 1) x + O(x^2)), the
  // inverse x0 (1 - (1 - b) / (a + 1) x0) has a relative error O(x0^2): below 1e-16 while
  // x0 |1 - b| < 1e-8. Boost's inverse is still wrong by orders of magnitude in part of that
  // range (beta(0.5, 3) at u = 4.26e-9 gave 1.3e-23 for 5.2e-18, and the quantile decreased;
  // found by fuzz_quantity), so the series is used throughout it.
  std::optional<std::pair<double, double>> tail_term(double u, double one_minus_u) const {
    const double log_beta = std::lgamma(a_) + std::lgamma(b_) - std::lgamma(a_ + b_);
    if (u < 0.5) {
      const double x0 = std::exp((std::log(a_ * u) + log_beta) / a_);
      if (x0 * std::max(1.0, std::abs(1 - b_)) < 1e-8) {
        const double x = x0 * (1 - (1 - b_) / (a_ + 1) * x0);
        return std::make_pair(x, 1 - x);
      }
    } else {
      const double y0 = std::exp((std::log(b_ * one_minus_u) + log_beta) / b_);
      if (y0 * std::max(1.0, std::abs(1 - a_)) < 1e-8) {
        const double y = y0 * (1 - (1 - a_) / (b_ + 1) * y0);
        return std::make_pair(1 - y, y);
      }
    }
    return std::nullopt;
  }

  quantile_tables build() const {
    quantile_tables t{tails(), nullptr};
    if (a_ >= 1 && b_ >= 1) {
      t.centre = std::make_unique<trnmodel::detail::central_quantile_table>([this](double u, double) {
        const double x = exact(u);
        return trnmodel::detail::central_quantile_table::point{
            x, 1 / boost::math::ibeta_derivative(a_, b_, x, fast_policy())};
      });
    }
    return t;
  }

  trnmodel::detail::quantile_table tails() const {
    return trnmodel::detail::quantile_table([this](double u, double one_minus_u) {
      double x = 0, y = 0;  // y = 1 - x, returned accurately by Boost
      if (const auto t = tail_term(u, one_minus_u)) {
        std::tie(x, y) = *t;
      } else if (u < 0.5) {
        x = boost::math::ibeta_inv(a_, b_, u, &y, fast_policy());
      } else {
        x = boost::math::ibetac_inv(a_, b_, one_minus_u, &y, fast_policy());
      }
      const double density_x_y = boost::math::ibeta_derivative(a_, b_, x, fast_policy()) * x * y;
      return trnmodel::detail::knot{std::log(x) - std::log(y), u * one_minus_u / density_x_y};
    });
  }

  double a_, b_;
  lazy_tables tables_;
};

// Gamma(shape, 1) quantile: table in (logit u, log x) coordinates, exact Boost in the far
// tails.
class gamma_quantile {
 public:
  explicit gamma_quantile(double shape) : shape_(shape), tables_(1, shape, 0) {}

  double operator()(double u) const {
    return at(tables_.get([this] { return build(); }), u);
  }

  void batch(const double* u, double* x, std::size_t n, double scale) const {
    const quantile_tables& t = tables_.get([this] { return build(); });
    // 0 + scale · v is scale · v bit for bit: the quantile v is ≥ 0 (or NaN).
    table_column(t, tail_map::exp, u, x, n, 0.0, scale, [this](double v) { return exact(v); });
  }

  double exact(double u) const {
    if (u <= 0) return 0;
    if (u >= 1) return infinity;
    return u < 0.5 ? boost::math::gamma_p_inv(shape_, u, fast_policy())
                   : boost::math::gamma_q_inv(shape_, 1 - u, fast_policy());
  }

 private:
  double at(const quantile_tables& t, double u) const {
    return table_quantile(
        t, u, [](double y) { return lane_exp(y); }, [this](double v) { return exact(v); });
  }

  quantile_tables build() const {
    quantile_tables t{tails(), nullptr};
    if (shape_ >= 1) {
      t.centre = std::make_unique<trnmodel::detail::central_quantile_table>([this](double u, double) {
        const double x = exact(u);
        return trnmodel::detail::central_quantile_table::point{
            x, 1 / boost::math::gamma_p_derivative(shape_, x, fast_policy())};
      });
    }
    return t;
  }

  trnmodel::detail::quantile_table tails() const {
    return trnmodel::detail::quantile_table([this](double u, double one_minus_u) {
      const double x = u < 0.5 ? boost::math::gamma_p_inv(shape_, u, fast_policy())
                               : boost::math::gamma_q_inv(shape_, one_minus_u, fast_policy());
      // x * pdf(x) = x^shape e^-x / Gamma(shape)
      const double x_density = boost::math::gamma_p_derivative(shape_, x, fast_policy()) * x;
      return trnmodel::detail::knot{std::log(x), u * one_minus_u / x_density};
    });
  }

  double shape_;
  lazy_tables tables_;
};
}  // namespace detail

/// A fixed number (no randomness). A plain value: copyable, owns its members; concurrent reads are safe.
struct fixed {
  static constexpr const char* name = "fixed";  ///< the family's tag ("dist") in scenario files
  double value;  ///< the number, in the input's unit
  /// `value`, whatever u.
  double ppf(double) const { return value; }
  /// 0 below `value`, 1 from it on (a step).
  double cdf(double x) const { return x < value ? 0.0 : 1.0; }
  /// `value`.
  double mean() const { return value; }
  /// {value, value}.
  support_t support() const { return {value, value}; }
};

/// Uniform on [lo, hi]. A plain value: copyable, owns its members; concurrent reads are safe.
struct uniform {
  static constexpr const char* name = "uniform";  ///< the family's tag ("dist") in scenario files
  double lo,  ///< lower bound, in the input's unit
      hi;  ///< upper bound (> lo), in the input's unit
  /// lo + (hi − lo)·u.
  double ppf(double u) const { return lo + (hi - lo) * u; }
  /// (x − lo) / (hi − lo), clamped to [0, 1].
  double cdf(double x) const { return std::clamp((x - lo) / (hi - lo), 0.0, 1.0); }
  /// (lo + hi) / 2.
  double mean() const { return 0.5 * (lo + hi); }
  /// {lo, hi}.
  support_t support() const { return {lo, hi}; }
};

/// Normal, optionally truncated to [lo, hi] (±infinity when absent). A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct normal {
  static constexpr const char* name = "normal";  ///< the family's tag ("dist") in scenario files
  double mean_value,  ///< mean of the untruncated normal, in the input's unit
      sd;  ///< standard deviation of the untruncated normal (> 0), in the input's unit
  double lo = -infinity,  ///< truncation's lower bound (−infinity: none)
      hi = infinity;  ///< truncation's upper bound (+infinity: none)

  /// Whether either bound is finite.
  bool truncated() const { return std::isfinite(lo) || std::isfinite(hi); }
  /// The lower bound in standard units, (lo − mean_value) / sd.
  double z_lo() const { return (lo - mean_value) / sd; }
  /// The upper bound in standard units, (hi − mean_value) / sd.
  double z_hi() const { return (hi - mean_value) / sd; }

  /// The quantile; truncated, the normal's quantile of Φ(a) + u·(Φ(b) − Φ(a)), worked in upper-tail probabilities
  /// where they are the accurate ones, and clamped to [lo, hi].
  double ppf(double u) const {
    if (!truncated()) return mean_value + sd * detail::normal_ppf(u);
    const double a = z_lo(), b = z_hi();
    // Within 1e-8 standard units of a finite bound, the quantile's two-term expansion about the
    // bound: F(a + d) - F(a) = phi(a) (d - a d^2 / 2 + O(d^3)), so d = d0 (1 + a d0 / 2) with
    // d0 = u (F(b) - F(a)) / phi(a), exact to double precision there, increasing in u, and with
    // no cancellation in x - lo. The general formula below is monotone only to a unit in the last
    // place of z, which the window's amplification made a decrease (found by fuzz_quantity with
    // normal(1, 2) on [0, 3] at u = 1.4e-17 and 5.6e-17).
    // Both bounds in the upper tail: upper-tail probabilities, which keep their relative accuracy
    // there (Φ(a) would round to 1); else lower-tail ones.
    const bool upper = a > 0;
    const double pa = upper ? detail::normal_sf(a) : detail::normal_cdf(a);
    const double pb = upper ? detail::normal_sf(b) : detail::normal_cdf(b);
    const double mass = upper ? pa - pb : pb - pa;
    // d0 ≥ 1e-8 whenever u · mass ≥ 1e-8 · phi(0), so most draws skip the density's exp.
    constexpr double window = 1e-8 * detail::inv_sqrt_2pi;
    if (u * mass < window && std::isfinite(a)) {
      const double d0 = u * mass / (detail::inv_sqrt_2pi * std::exp(-0.5 * a * a));
      if (d0 < 1e-8) return std::clamp(lo + sd * (d0 * (1 + 0.5 * a * d0)), lo, hi);
    }
    if ((1 - u) * mass < window && std::isfinite(b)) {
      const double d1 = (1 - u) * mass / (detail::inv_sqrt_2pi * std::exp(-0.5 * b * b));
      if (d1 < 1e-8) return std::clamp(hi - sd * (d1 * (1 - 0.5 * b * d1)), lo, hi);
    }
    double z;
    if (upper) {
      // (1 − u)·qa + u·qb rather than qa − u·(qa − qb): no cancellation as u → 1.
      z = detail::normal_isf((1 - u) * pa + u * pb);
    } else {
      const double p = pa + u * (pb - pa);
      // Above the median, work with upper-tail probabilities, which keep their accuracy there.
      z = p <= 0.5 ? detail::normal_ppf(p)
                   : detail::normal_isf((1 - u) * detail::normal_sf(a) + u * detail::normal_sf(b));
    }
    return std::clamp(mean_value + sd * z, lo, hi);
  }
  /// The hot path: the untruncated quantile in vector lanes (the same numbers as ppf(u)).
  void ppf(const double* u, double* x, std::size_t n) const {
    if (truncated()) {
      for (std::size_t i = 0; i < n; ++i) x[i] = ppf(u[i]);
      return;
    }
    detail::normal_ppf_column(u, x, n);
    for (std::size_t i = 0; i < n; ++i) x[i] = mean_value + sd * x[i];
  }
  /// The distribution function, renormalised to the truncation window.
  double cdf(double x) const {
    if (x <= lo) return 0;
    if (x >= hi) return 1;
    const double z = (x - mean_value) / sd;
    if (!truncated()) return detail::normal_cdf(z);
    const double a = z_lo(), b = z_hi();
    if (a > 0) {
      const double qa = detail::normal_sf(a), qb = detail::normal_sf(b);
      return (qa - detail::normal_sf(z)) / (qa - qb);
    }
    const double pa = detail::normal_cdf(a), pb = detail::normal_cdf(b);
    return (detail::normal_cdf(z) - pa) / (pb - pa);
  }
  /// The mean of the (truncated) distribution that ppf samples, clamped to [lo, hi].
  double mean() const {
    if (!truncated()) return mean_value;
    // E[X] = mean + sd (φ(a) - φ(b)) / (Φ(b) - Φ(a)), with the mass in the accurate tail.
    const double a = z_lo(), b = z_hi();
    const auto phi = [](double z) { return std::isfinite(z) ? std::exp(-0.5 * z * z) / 2.5066282746310002 : 0.0; };
    const double mass =
        a > 0 ? detail::normal_sf(a) - detail::normal_sf(b) : detail::normal_cdf(b) - detail::normal_cdf(a);
    return std::clamp(mean_value + sd * (phi(a) - phi(b)) / mass, lo, hi);
  }
  /// {lo, hi}, infinite where there is no bound.
  support_t support() const { return {lo, hi}; }
};

/// Lognormal: exp of Normal(mu, sigma), optionally written as its P50 and P90. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct lognormal {
  static constexpr const char* name = "lognormal";  ///< the family's tag ("dist") in scenario files
  double mu,  ///< mean of ln x (ln of the input's unit)
      sigma;  ///< standard deviation of ln x (> 0)
  /// Written as p50/p90: kept as given, so that saving writes back the user's numbers.
  bool from_quantiles = false;
  double p50_given = 0,  ///< the median as written (when from_quantiles), in the input's unit
      p90_given = 0;  ///< the 90th percentile as written (when from_quantiles), in the input's unit
  static constexpr double z90 = 1.2815515655446004;  ///< Φ^-1(0.9)

  /// exp(mu + sigma·Φ^-1(u)).
  double ppf(double u) const { return detail::lane_exp(mu + sigma * detail::normal_ppf(u)); }
  /// The hot path: a column of uniforms in vector lanes (the same numbers as ppf(u)).
  void ppf(const double* u, double* x, std::size_t n) const {
    detail::normal_ppf_column(u, x, n);
    detail::exp_affine_column(mu, sigma, x, x, n);
  }
  /// Φ((ln x − mu) / sigma); 0 for x ≤ 0.
  double cdf(double x) const { return x <= 0 ? 0.0 : detail::normal_cdf((std::log(x) - mu) / sigma); }
  /// exp(mu + sigma²/2).
  double mean() const { return std::exp(mu + 0.5 * sigma * sigma); }
  /// {0, +infinity}.
  support_t support() const { return {0.0, infinity}; }
  /// The median: as written when from_quantiles, else exp(mu).
  double p50() const { return from_quantiles ? p50_given : std::exp(mu); }
  /// The 90th percentile: as written when from_quantiles, else exp(mu + sigma·z90).
  double p90() const { return from_quantiles ? p90_given : std::exp(mu + sigma * z90); }
};

/// Triangular on [lo, hi] with its peak at mode. A plain value: copyable, owns its members; concurrent reads are safe.
struct triangular {
  static constexpr const char* name = "triangular";  ///< the family's tag ("dist") in scenario files
  double lo,  ///< lower bound, in the input's unit
      mode,  ///< the peak, lo ≤ mode ≤ hi
      hi;  ///< upper bound (> lo)
  /// The inverse of the two quadratic pieces of the CDF, clamped to [lo, hi].
  double ppf(double u) const {
    const double width = hi - lo;
    const double at_mode = (mode - lo) / width;
    const double x =
        u < at_mode ? lo + std::sqrt(u * width * (mode - lo)) : hi - std::sqrt((1 - u) * width * (hi - mode));
    // Rounding can step outside [lo, hi] (hi − 1 = 0 < lo = 9e-275, found by the property
    // tests); a draw outside the support could be the 0 that a positive field refuses.
    return std::clamp(x, lo, hi);
  }
  /// The distribution function: quadratic on each side of the mode.
  double cdf(double x) const {
    if (x <= lo) return 0;
    if (x >= hi) return 1;
    const double width = hi - lo;
    return x <= mode ? (x - lo) * (x - lo) / (width * (mode - lo)) : 1 - (hi - x) * (hi - x) / (width * (hi - mode));
  }
  /// (lo + mode + hi) / 3.
  double mean() const { return (lo + mode + hi) / 3; }
  /// {lo, hi}.
  support_t support() const { return {lo, hi}; }
};

/// Beta(a, b) rescaled to [lo, hi]. A plain value (its quantile tables are shared between copies and built once,
/// thread-safely).
struct beta {
  static constexpr const char* name = "beta";  ///< the family's tag ("dist") in scenario files
  double a,  ///< first shape parameter, in [0.01, 1e10]
      b;  ///< second shape parameter, in [0.01, 1e10]
  double lo = 0,  ///< lower bound, in the input's unit
      hi = 1;  ///< upper bound (> lo)
  detail::beta_quantile quantile{a, b};  ///< Beta(a, b)'s quantile on [0, 1], with its shared tables

  /// input_error ("beta.a: ...") unless 0.01 ≤ a, b ≤ 1e10 and lo < hi are finite.
  beta(double a_, double b_, double lo_ = 0, double hi_ = 1)
      : a((trnmodel::detail::check_beta("beta", a_, b_, lo_, hi_), a_)), b(b_), lo(lo_), hi(hi_), quantile(a_, b_) {}
  /// lo + (hi − lo)·(Beta(a, b)'s quantile at u).
  double ppf(double u) const { return lo + (hi - lo) * quantile(u); }
  /// The hot path: the tables are looked up once per column of uniforms.
  void ppf(const double* u, double* x, std::size_t n) const { quantile.batch(u, x, n, lo, hi - lo); }
  /// The regularised incomplete beta function at (x − lo) / (hi − lo).
  double cdf(double x) const {
    if (x <= lo) return 0;
    if (x >= hi) return 1;
    return boost::math::ibeta(a, b, (x - lo) / (hi - lo), detail::fast_policy());
  }
  /// lo + (hi − lo)·a / (a + b).
  double mean() const { return lo + (hi - lo) * a / (a + b); }
  /// {lo, hi}.
  support_t support() const { return {lo, hi}; }
};

/// PERT: Beta(1 + 4(c-a)/(b-a), 1 + 4(b-c)/(b-a)) on [a, b] (docs/distributions.md). A plain value (its beta's
/// quantile tables are shared between copies and built once, thread-safely).
struct pert {
  static constexpr const char* name = "pert";  ///< the family's tag ("dist") in scenario files
  double lo,  ///< lower bound, in the input's unit
      mode,  ///< most likely value, lo ≤ mode ≤ hi
      hi;  ///< upper bound (> lo)
  beta shape;  ///< the beta on [lo, hi] that it samples
  /// input_error ("pert: pert needs lo ≤ mode ≤ hi and lo < hi, ...") unless the three are
  /// finite and ordered.
  pert(double lo_, double mode_, double hi_)
      : lo((trnmodel::detail::check_three_point("pert", "pert", lo_, mode_, hi_), lo_)),
        mode(mode_),
        hi(hi_),
        shape(1 + 4 * (mode_ - lo_) / (hi_ - lo_), 1 + 4 * (hi_ - mode_) / (hi_ - lo_), lo_, hi_) {}
  /// The beta's quantile.
  double ppf(double u) const { return shape.ppf(u); }
  /// The hot path: the beta's column quantile.
  void ppf(const double* u, double* x, std::size_t n) const { shape.ppf(u, x, n); }
  /// The beta's distribution function.
  double cdf(double x) const { return shape.cdf(x); }
  /// (lo + 4·mode + hi) / 6, the beta's exact mean.
  double mean() const { return (lo + 4 * mode + hi) / 6; }
  /// {lo, hi}.
  support_t support() const { return {lo, hi}; }
};

/// Gamma(shape, scale). A plain value (its quantile tables are shared between copies and
/// built once, thread-safely).
struct gamma {
  static constexpr const char* name = "gamma";  ///< the family's tag ("dist") in scenario files
  double shape,  ///< k, in [0.01, 1e10]
      scale;  ///< θ (> 0), in the input's unit
  detail::gamma_quantile quantile{shape};  ///< Gamma(shape, 1)'s quantile, with its shared tables
  /// input_error unless 0.01 ≤ shape ≤ 1e10 and scale > 0.
  gamma(double shape_, double scale_)
      : shape((trnmodel::detail::check_shape("gamma.shape", shape_),
               trnmodel::detail::check_positive("gamma.scale", scale_), shape_)),
        scale(scale_),
        quantile(shape_) {}
  /// scale·(Gamma(shape, 1)'s quantile at u).
  double ppf(double u) const { return scale * quantile(u); }
  /// The hot path: the tables are looked up once per column of uniforms.
  void ppf(const double* u, double* x, std::size_t n) const { quantile.batch(u, x, n, scale); }
  /// The regularised lower incomplete gamma function P(shape, x / scale); 0 for x ≤ 0.
  double cdf(double x) const { return x <= 0 ? 0.0 : boost::math::gamma_p(shape, x / scale, detail::fast_policy()); }
  /// shape·scale.
  double mean() const { return shape * scale; }
  /// {0, +infinity}.
  support_t support() const { return {0.0, infinity}; }
};

/// Weibull(shape, scale). A plain value: copyable, owns its members; concurrent reads are safe.
struct weibull {
  static constexpr const char* name = "weibull";  ///< the family's tag ("dist") in scenario files
  double shape,  ///< k (> 0): below 1 a falling hazard, above 1 a rising one
      scale;  ///< λ (> 0), in the input's unit
  /// scale·(−ln(1 − u))^(1/shape).
  double ppf(double u) const { return scale * std::pow(-std::log1p(-u), 1 / shape); }
  /// 1 − exp(−(x / scale)^shape); 0 for x ≤ 0.
  double cdf(double x) const { return x <= 0 ? 0.0 : -std::expm1(-std::pow(x / scale, shape)); }
  /// scale·Γ(1 + 1/shape).
  double mean() const { return scale * std::tgamma(1 + 1 / shape); }
  /// {0, +infinity}.
  support_t support() const { return {0.0, infinity}; }
};

/// Exponential with the given mean. A plain value: copyable, owns its members; concurrent reads are safe.
struct exponential {
  static constexpr const char* name = "exponential";  ///< the family's tag ("dist") in scenario files
  double mean_value;  ///< the mean (> 0), in the input's unit
  /// −mean_value·ln(1 − u).
  double ppf(double u) const { return -mean_value * std::log1p(-u); }
  /// 1 − exp(−x / mean_value); 0 for x ≤ 0.
  double cdf(double x) const { return x <= 0 ? 0.0 : -std::expm1(-x / mean_value); }
  /// mean_value.
  double mean() const { return mean_value; }
  /// {0, +infinity}.
  support_t support() const { return {0.0, infinity}; }
};

/// Bernoulli(p) as the monotone inverse CDF: 1 when u > 1 - p. A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct bernoulli {
  static constexpr const char* name = "bernoulli";  ///< the family's tag ("dist") in scenario files
  double p;  ///< probability of a 1, in [0, 1]
  /// 1 when u > 1 − p, else 0.
  double ppf(double u) const { return u > 1 - p ? 1.0 : 0.0; }
  /// 0 below 0, 1 − p on [0, 1), 1 from 1 on.
  double cdf(double x) const { return x < 0 ? 0.0 : (x < 1 ? 1 - p : 1.0); }
  /// p.
  double mean() const { return p; }
  /// {0, 1}, or the single value p gives when p is 0 or 1.
  support_t support() const { return {p == 1 ? 1.0 : 0.0, p == 0 ? 0.0 : 1.0}; }
};

/// Measured values. The quantile interpolates linearly between order statistics
/// (Hyndman & Fan type 7, NumPy's default): h = (n-1) u, x = x_(floor h) + frac(h) (...).
/// mean() is the mean of that piecewise-linear distribution (the trapezoid rule over the
/// order statistics), which can differ slightly from the plain sample mean. A plain value: copies share the
/// immutable values, so copying is cheap and concurrent reads are safe.
struct empirical {
  static constexpr const char* name = "empirical";  ///< the family's tag ("dist") in scenario files
  std::shared_ptr<const std::vector<double>> sorted;  ///< shared: copies are cheap

  /// Type-7 interpolation between the order statistics at h = (n − 1)·u.
  double ppf(double u) const {
    const auto& s = *sorted;
    const std::size_t n = s.size();
    if (n == 1) return s[0];
    const double h = static_cast<double>(n - 1) * u;
    const auto i = std::min(static_cast<std::size_t>(h), n - 2);
    return s[i] + (h - static_cast<double>(i)) * (s[i + 1] - s[i]);
  }
  /// The inverse of ppf: piecewise linear between the order statistics, 0 below the smallest, 1 from the largest.
  double cdf(double x) const {
    const auto& s = *sorted;
    if (x < s.front()) return 0;
    if (x >= s.back()) return 1;
    const auto i = static_cast<std::size_t>(std::upper_bound(s.begin(), s.end(), x) - s.begin()) - 1;
    return (static_cast<double>(i) + (x - s[i]) / (s[i + 1] - s[i])) / static_cast<double>(s.size() - 1);
  }
  /// The trapezoid-rule mean of the interpolated distribution, clamped to the values' range.
  double mean() const {
    const auto& s = *sorted;
    if (s.size() == 1) return s[0];
    double sum = 0;
    for (const double v : s) sum += v;
    // Rounding of the sum must not put the mean outside the values (found by the property
    // tests: three equal values had a mean 3e-16 above them).
    return std::clamp((sum - 0.5 * (s.front() + s.back())) / static_cast<double>(s.size() - 1), s.front(), s.back());
  }
  /// {smallest value, largest value}.
  support_t support() const { return {sorted->front(), sorted->back()}; }
};

/// An input nobody knows yet. Anything that needs its value raises unknown_input_error. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct unknown {
  static constexpr const char* name = "unknown";  ///< the family's name (a scenario writes {"unknown": reason})
  std::string reason;  ///< why the value is not known yet (not empty)
  /// Throws trnmodel::unknown_input_error "input is unknown (<reason>)" (with no paths: the caller knows them).
  [[noreturn]] void raise() const { throw unknown_input_error("input is unknown (" + reason + ")", {}); }
  /// Never returns: raise().
  double ppf(double) const { raise(); }
  /// Never returns: raise().
  double cdf(double) const { raise(); }
  /// Never returns: raise().
  double mean() const { raise(); }
  /// Never returns: raise().
  support_t support() const { raise(); }
};

}  // namespace trnmodel::dist
