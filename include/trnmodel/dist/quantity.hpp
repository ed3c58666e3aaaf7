#pragma once
// An uncertain quantity (docs/distributions.md): a distribution from one of the families, or an unknown,
// together with where the figure came from (source, note, quote date, region).
// Construct through the make_* factories, which check every parameter and name the rule and
// the value in their errors.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/dist/distributions.hpp"

namespace trnmodel {

struct provenance {
  std::string source;  // "measured", "vendor", "quote", "assumption", "model" or empty
  std::string note;
  std::string date;  // ISO date (YYYY-MM-DD) of a quote
  std::string region;
  bool empty() const { return source.empty() && note.empty() && date.empty() && region.empty(); }
};

using distribution =
    std::variant<dist::fixed, dist::uniform, dist::normal, dist::lognormal, dist::triangular, dist::pert, dist::gamma,
                 dist::weibull, dist::exponential, dist::beta, dist::bernoulli, dist::empirical, dist::unknown>;

template <class T, class = void> struct has_batch_ppf : std::false_type {};
template <class T>
struct has_batch_ppf<T, std::void_t<decltype(std::declval<const T&>().ppf(
                            static_cast<const double*>(nullptr), static_cast<double*>(nullptr), std::size_t{}))>>
    : std::true_type {};

class quantity {
 public:
  quantity() : dist_(dist::fixed{0.0}) {}
  quantity(double value) : dist_(dist::fixed{value}) {}  // NOLINT: a number is a fixed quantity
  explicit quantity(distribution d, provenance p = {}) : dist_(std::move(d)), prov_(std::move(p)) {}

  const distribution& dist() const { return dist_; }
  const provenance& prov() const { return prov_; }
  provenance& prov() { return prov_; }

  const char* family() const {
    return std::visit([](const auto& d) { return std::decay_t<decltype(d)>::name; }, dist_);
  }
  bool is_fixed() const { return std::holds_alternative<dist::fixed>(dist_); }
  bool is_unknown() const { return std::holds_alternative<dist::unknown>(dist_); }
  // Degenerate distributions (fixed, Bernoulli with p in {0, 1}) need no random stream.
  bool is_constant() const {
    if (is_fixed()) return true;
    if (const auto* b = std::get_if<dist::bernoulli>(&dist_)) return b->p == 0 || b->p == 1;
    return false;
  }

  double ppf(double u) const {
    return std::visit([u](const auto& d) { return d.ppf(u); }, dist_);
  }
  // The hot path: one dispatch for a whole column of uniforms.
  void ppf(const double* u, double* x, std::size_t n) const {
    std::visit(
        [=](const auto& d) {
          using T = std::decay_t<decltype(d)>;
          if constexpr (has_batch_ppf<T>::value) {
            d.ppf(u, x, n);  // families with tables look them up once per column
          } else {
            for (std::size_t i = 0; i < n; ++i) x[i] = d.ppf(u[i]);
          }
        },
        dist_);
  }
  double cdf(double x) const {
    return std::visit([x](const auto& d) { return d.cdf(x); }, dist_);
  }
  double mean() const {
    return std::visit([](const auto& d) { return d.mean(); }, dist_);
  }
  dist::support_t support() const {
    return std::visit([](const auto& d) { return d.support(); }, dist_);
  }
  const std::string& unknown_reason() const { return std::get<dist::unknown>(dist_).reason; }

 private:
  distribution dist_;
  provenance prov_;
};

// ---- factories: every rule of docs/distributions.md, checked once ---------------------------------
// `path` names the input in messages ("throughput.step_time_s"); standalone distributions
// use their family name.

inline quantity make_fixed(double value, const std::string& path = "fixed") {
  check_finite(path, value);
  return quantity(dist::fixed{value});
}

namespace detail {
inline void check_ordered(const std::string& path, const char* family, const char* names, bool ok,
                          const std::string& values) {
  if (!ok) fail(path, std::string(family) + " needs " + names + ", got " + values);
}
inline std::string kv(const char* name, double value) { return std::string(name) + "=" + format_number(value); }
}  // namespace detail

inline quantity make_uniform(double lo, double hi, const std::string& path = "uniform") {
  check_finite(path + ".lo", lo);
  check_finite(path + ".hi", hi);
  detail::check_ordered(path, "uniform", "lo < hi", lo < hi, detail::kv("lo", lo) + ", " + detail::kv("hi", hi));
  return quantity(dist::uniform{lo, hi});
}

inline quantity make_normal(double mean, double sd, double lo = -dist::infinity, double hi = dist::infinity,
                            const std::string& path = "normal") {
  check_finite(path + ".mean", mean);
  check_positive(path + ".sd", sd);
  if (!std::isinf(lo) || lo > 0) check_finite(path + ".lo", lo);
  if (!std::isinf(hi) || hi < 0) check_finite(path + ".hi", hi);
  detail::check_ordered(path, "normal", "lo < hi", lo < hi, detail::kv("lo", lo) + ", " + detail::kv("hi", hi));
  dist::normal d{mean, sd, lo, hi};
  // A truncation window so far in a tail that it holds no probability in double precision
  // would make every draw a bound: reject it rather than return a silently wrong number.
  const double a = d.z_lo(), b = d.z_hi();
  const double mass = a > 0 ? dist::detail::normal_sf(a) - dist::detail::normal_sf(b)
                            : dist::detail::normal_cdf(b) - dist::detail::normal_cdf(a);
  if (!(mass > 1e-300))
    fail(path, "normal truncation [lo, hi] holds no probability, got mean=" + format_number(mean) +
                   ", sd=" + format_number(sd) + ", " + detail::kv("lo", lo) + ", " + detail::kv("hi", hi));
  return quantity(d);
}

inline quantity make_lognormal(double mu, double sigma, const std::string& path = "lognormal") {
  check_finite(path + ".mu", mu);
  check_positive(path + ".sigma", sigma);
  return quantity(dist::lognormal{mu, sigma, false, 0, 0});
}

// The lognormal whose median is p50 and whose 90th percentile is p90.
inline quantity make_lognormal_from_quantiles(double p50, double p90, const std::string& path = "lognormal") {
  check_finite(path + ".p50", p50);
  check_finite(path + ".p90", p90);
  detail::check_ordered(path, "lognormal", "0 < p50 < p90", p50 > 0 && p50 < p90,
                        detail::kv("p50", p50) + ", " + detail::kv("p90", p90));
  const double mu = std::log(p50);
  return quantity(dist::lognormal{mu, (std::log(p90) - mu) / dist::lognormal::z90, true, p50, p90});
}

namespace detail {
// The rules of a three-point estimate (triangular, PERT).
inline void check_three_point(const std::string& path, const char* family, double lo, double mode, double hi) {
  check_finite(path + ".lo", lo);
  check_finite(path + ".mode", mode);
  check_finite(path + ".hi", hi);
  check_ordered(path, family, "lo ≤ mode ≤ hi and lo < hi", lo <= mode && mode <= hi && lo < hi,
                kv("lo", lo) + ", " + kv("mode", mode) + ", " + kv("hi", hi));
}
}  // namespace detail

inline quantity make_triangular(double lo, double mode, double hi, const std::string& path = "triangular") {
  detail::check_three_point(path, "triangular", lo, mode, hi);
  return quantity(dist::triangular{lo, mode, hi});
}

inline quantity make_pert(double lo, double mode, double hi, const std::string& path = "pert") {
  detail::check_three_point(path, "pert", lo, mode, hi);
  return quantity(dist::pert(lo, mode, hi));
}

namespace detail {
// Gamma and beta shapes whose quantile function double precision can follow (fuzzed and
// tested from 0.01 to 1e10). Below, nearly all the mass lies within 1e-30 of 0 and the
// quantile underflows; above, the spread is below 1e-5 of the mean, and Boost's inverse
// stops being monotone (gamma, shape 1e12) or converging (beta, 1e20).
inline constexpr double min_shape = 0.01, max_shape = 1e10;

inline void check_shape(const std::string& path, double shape) {
  check_positive(path, shape);
  if (!(shape >= min_shape && shape <= max_shape))
    fail(path, "must be in [0.01, 1e10] (beyond, double precision cannot follow the quantile function), got " +
                   format_number(shape));
}
}  // namespace detail

inline quantity make_gamma(double shape, double scale, const std::string& path = "gamma") {
  detail::check_shape(path + ".shape", shape);
  check_positive(path + ".scale", scale);
  return quantity(dist::gamma(shape, scale));
}

inline quantity make_weibull(double shape, double scale, const std::string& path = "weibull") {
  check_positive(path + ".shape", shape);
  check_positive(path + ".scale", scale);
  return quantity(dist::weibull{shape, scale});
}

inline quantity make_exponential(double mean, const std::string& path = "exponential") {
  check_positive(path + ".mean", mean);
  return quantity(dist::exponential{mean});
}

inline quantity make_beta(double a, double b, double lo = 0, double hi = 1, const std::string& path = "beta") {
  detail::check_shape(path + ".a", a);
  detail::check_shape(path + ".b", b);
  check_finite(path + ".lo", lo);
  check_finite(path + ".hi", hi);
  detail::check_ordered(path, "beta", "lo < hi", lo < hi, detail::kv("lo", lo) + ", " + detail::kv("hi", hi));
  return quantity(dist::beta(a, b, lo, hi));
}

inline quantity make_bernoulli(double p, const std::string& path = "bernoulli") {
  check_probability(path + ".p", p);
  return quantity(dist::bernoulli{p});
}

inline quantity make_empirical(std::vector<double> samples, const std::string& path = "empirical") {
  if (samples.empty()) fail(path + ".samples", "must hold at least one value, got none");
  for (std::size_t i = 0; i < samples.size(); ++i)
    check_finite(path + ".samples[" + std::to_string(i) + "]", samples[i]);
  std::sort(samples.begin(), samples.end());
  return quantity(dist::empirical{std::make_shared<const std::vector<double>>(std::move(samples))});
}

inline quantity make_unknown(std::string reason, const std::string& path = "unknown") {
  if (reason.empty()) fail(path, "unknown needs a reason (why the value is not known yet), got an empty string");
  return quantity(dist::unknown{std::move(reason)});
}

}  // namespace trnmodel
