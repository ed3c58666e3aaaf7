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
#include "trnmodel/dist/mixture.hpp"

namespace trnmodel {

/// Where a figure came from: its source, a note, a quote's date and region. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct provenance {
  std::string source;  ///< "measured", "prior" (a posterior mostly its prior), "vendor", "quote", "assumption", "model" or empty
  std::string note;  ///< free text: how the figure was obtained (calibration writes n, the runs and the method)
  std::string date;  ///< ISO date (YYYY-MM-DD) of a quote
  std::string region;  ///< the cloud region a quote is for (e.g. us-east-2)
  /// Whether no field is set (a fixed value without provenance is written as a bare number).
  bool empty() const { return source.empty() && note.empty() && date.empty() && region.empty(); }
};

/// One distribution of any family (docs/distributions.md): a mixture's components are of the
/// same families but an unknown and a mixture (dist::component_distribution).
using distribution = std::variant<dist::fixed, dist::uniform, dist::normal, dist::lognormal, dist::triangular,
                                  dist::pert, dist::gamma, dist::weibull, dist::exponential, dist::beta,
                                  dist::bernoulli, dist::empirical, dist::mixture, dist::unknown>;

/// Whether a family has a column ppf(u, x, n) (its fast path).
template <class T, class = void> struct has_batch_ppf : std::false_type {};
template <class T>
struct has_batch_ppf<T, std::void_t<decltype(std::declval<const T&>().ppf(
                            static_cast<const double*>(nullptr), static_cast<double*>(nullptr), std::size_t{}))>>
    : std::true_type {};

namespace detail {

inline void check_normal(const std::string& path, double mean, double sd, double lo, double hi) {
  detail::check_finite(path + ".mean", mean);
  detail::check_positive(path + ".sd", sd);
  if (!std::isinf(lo) || lo > 0) detail::check_finite(path + ".lo", lo);
  if (!std::isinf(hi) || hi < 0) detail::check_finite(path + ".hi", hi);
  check_ordered(path, "normal", "lo < hi", lo < hi, kv("lo", lo) + ", " + kv("hi", hi));
  const dist::normal d{mean, sd, lo, hi};
  // A truncation window so far in a tail that it holds no probability in double precision
  // would make every draw a bound: reject it rather than return a silently wrong number.
  const double a = d.z_lo(), b = d.z_hi();
  const double mass = a > 0 ? dist::detail::normal_sf(a) - dist::detail::normal_sf(b)
                            : dist::detail::normal_cdf(b) - dist::detail::normal_cdf(a);
  if (!(mass > 1e-300))
    detail::fail(path, "normal truncation [lo, hi] holds no probability, got mean=" + detail::format_number(mean) +
                           ", sd=" + detail::format_number(sd) + ", " + kv("lo", lo) + ", " + kv("hi", hi));
}

// The parameter rules of one family (docs/distributions.md), named by `path`.
template <class T> void check_parameters(const std::string& path, const T& x) {
  if constexpr (std::is_same_v<T, dist::fixed>) {
    detail::check_finite(path + ".value", x.value);
  } else if constexpr (std::is_same_v<T, dist::uniform>) {
    detail::check_finite(path + ".lo", x.lo);
    detail::check_finite(path + ".hi", x.hi);
    check_ordered(path, "uniform", "lo < hi", x.lo < x.hi, kv("lo", x.lo) + ", " + kv("hi", x.hi));
  } else if constexpr (std::is_same_v<T, dist::normal>) {
    check_normal(path, x.mean_value, x.sd, x.lo, x.hi);
  } else if constexpr (std::is_same_v<T, dist::lognormal>) {
    detail::check_finite(path + ".mu", x.mu);
    detail::check_positive(path + ".sigma", x.sigma);
  } else if constexpr (std::is_same_v<T, dist::triangular>) {
    check_three_point(path, "triangular", x.lo, x.mode, x.hi);
  } else if constexpr (std::is_same_v<T, dist::weibull>) {
    detail::check_positive(path + ".shape", x.shape);
    detail::check_positive(path + ".scale", x.scale);
  } else if constexpr (std::is_same_v<T, dist::exponential>) {
    detail::check_positive(path + ".mean", x.mean_value);
  } else if constexpr (std::is_same_v<T, dist::bernoulli>) {
    detail::check_probability(path + ".p", x.p);
  } else if constexpr (std::is_same_v<T, dist::empirical>) {
    if (!x.sorted || x.sorted->empty()) detail::fail(path + ".samples", "must hold at least one value, got none");
    const auto& v = *x.sorted;
    for (std::size_t i = 0; i < v.size(); ++i) detail::check_finite(path + ".samples[" + std::to_string(i) + "]", v[i]);
    if (!std::is_sorted(v.begin(), v.end()))
      detail::fail(path + ".samples", "must be sorted (make_empirical sorts them)");
  } else if constexpr (std::is_same_v<T, dist::mixture>) {
    // The weights were checked when the mixture was made; each component by its family's rules,
    // at its path in the JSON form ({"weight": w, "value": Q}).
    const auto& parts = *x.components;
    for (std::size_t k = 0; k < parts.size(); ++k)
      std::visit([&](const auto& c) { check_parameters(path + ".components[" + std::to_string(k) + "].value", c); },
                 parts[k].dist);
  } else if constexpr (std::is_same_v<T, dist::unknown>) {
    if (x.reason.empty())
      detail::fail(path, "unknown needs a reason (why the value is not known yet), got an empty string");
  }
  // beta, pert and gamma check their parameters when constructed.
}

// The rules of docs/distributions.md for a family built directly (not by a make_* factory),
// named by the family: a quantity never holds parameters its quantile function cannot take.
inline void check_family(const distribution& d) {
  std::visit([](const auto& x) { check_parameters(std::decay_t<decltype(x)>::name, x); }, d);
}

}  // namespace detail

/// An uncertain input: a distribution (or an unknown) and its provenance. Immutable in use
/// (only prov() is mutable); copies are cheap (an empirical's values and a mixture's components
/// are shared); every const member may be called from several threads at once.
class quantity {
 public:
  /// The fixed number 0, without provenance.
  quantity() : dist_(dist::fixed{0.0}) {}
  /// A fixed number; input_error ("fixed.value: must be a finite number, got nan") unless finite.
  quantity(double value) : dist_(dist::fixed{value}) {  // NOLINT: a number is a fixed quantity
    detail::check_finite("fixed.value", value);
  }
  /// A distribution of any family, checked (input_error naming the family's parameter and
  /// the rule, e.g. "uniform: uniform needs lo < hi, got lo=3, hi=1").
  explicit quantity(distribution d, provenance p = {}) : dist_(std::move(d)), prov_(std::move(p)) {
    detail::check_family(dist_);
  }

  /// The distribution, to visit by family.
  const distribution& dist() const { return dist_; }
  /// Where the figure came from.
  const provenance& prov() const { return prov_; }
  /// Where the figure came from, to fill in (the distribution itself cannot be changed).
  provenance& prov() { return prov_; }

  /// The family's name ("lognormal", "unknown", ...), as its `name`.
  const char* family() const {
    return std::visit([](const auto& d) { return std::decay_t<decltype(d)>::name; }, dist_);
  }
  /// Whether it is a fixed number.
  bool is_fixed() const { return std::holds_alternative<dist::fixed>(dist_); }
  /// Whether it is an unknown (ppf, cdf, mean and support then throw unknown_input_error).
  bool is_unknown() const { return std::holds_alternative<dist::unknown>(dist_); }
  /// Degenerate distributions (fixed, Bernoulli with p in {0, 1}, a mixture whose components
  /// all take one value) need no random stream.
  bool is_constant() const {
    if (is_fixed()) return true;
    if (const auto* b = std::get_if<dist::bernoulli>(&dist_)) return b->p == 0 || b->p == 1;
    if (const auto* m = std::get_if<dist::mixture>(&dist_)) return m->support().first == m->support().second;
    return false;
  }

  /// The quantile at u in [0, 1], in the input's unit: every draw is ppf of a uniform. Throws
  /// unknown_input_error for an unknown.
  double ppf(double u) const {
    return std::visit([u](const auto& d) { return d.ppf(u); }, dist_);
  }
  /// The hot path: one dispatch for a whole column of uniforms; x[i] = ppf(u[i]).
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
  /// P(X ≤ x). Throws unknown_input_error for an unknown.
  double cdf(double x) const {
    return std::visit([x](const auto& d) { return d.cdf(x); }, dist_);
  }
  /// The exact mean of the distribution ppf samples. Throws unknown_input_error for an unknown.
  double mean() const {
    return std::visit([](const auto& d) { return d.mean(); }, dist_);
  }
  /// (lowest, highest) value ppf can return. Throws unknown_input_error for an unknown.
  dist::support_t support() const {
    return std::visit([](const auto& d) { return d.support(); }, dist_);
  }
  /// Why an unknown is not known; only for an unknown (std::bad_variant_access otherwise).
  const std::string& unknown_reason() const { return std::get<dist::unknown>(dist_).reason; }

 private:
  distribution dist_;
  provenance prov_;
};

// ---- factories: every rule of docs/distributions.md, checked once ---------------------------------
// `path` names the input in messages ("throughput.step_time_s"); standalone distributions
// use their family name.

/// A fixed number; input_error unless finite. `path` names the input in messages.
inline quantity make_fixed(double value, const std::string& path = "fixed") {
  detail::check_finite(path, value);
  return quantity(dist::fixed{value});
}

/// Uniform on [lo, hi]; input_error unless lo < hi, both finite.
inline quantity make_uniform(double lo, double hi, const std::string& path = "uniform") {
  detail::check_finite(path + ".lo", lo);
  detail::check_finite(path + ".hi", hi);
  detail::check_ordered(path, "uniform", "lo < hi", lo < hi, detail::kv("lo", lo) + ", " + detail::kv("hi", hi));
  return quantity(dist::uniform{lo, hi});
}

/// Normal(mean, sd), truncated to [lo, hi] when they are finite; input_error for sd ≤ 0, lo ≥ hi
/// or a window that holds no probability.
inline quantity make_normal(double mean, double sd, double lo = -dist::infinity, double hi = dist::infinity,
                            const std::string& path = "normal") {
  detail::check_normal(path, mean, sd, lo, hi);
  return quantity(dist::normal{mean, sd, lo, hi});
}

/// Lognormal exp(Normal(mu, sigma)); input_error unless mu finite and sigma > 0.
inline quantity make_lognormal(double mu, double sigma, const std::string& path = "lognormal") {
  detail::check_finite(path + ".mu", mu);
  detail::check_positive(path + ".sigma", sigma);
  return quantity(dist::lognormal{mu, sigma, false, 0, 0});
}

/// The lognormal whose median is p50 and whose 90th percentile is p90.
inline quantity make_lognormal_from_quantiles(double p50, double p90, const std::string& path = "lognormal") {
  detail::check_finite(path + ".p50", p50);
  detail::check_finite(path + ".p90", p90);
  detail::check_ordered(path, "lognormal", "0 < p50 < p90", p50 > 0 && p50 < p90,
                        detail::kv("p50", p50) + ", " + detail::kv("p90", p90));
  const double mu = std::log(p50);
  return quantity(dist::lognormal{mu, (std::log(p90) - mu) / dist::lognormal::z90, true, p50, p90});
}

/// Triangular on [lo, hi] peaking at mode; input_error unless lo ≤ mode ≤ hi, lo < hi.
inline quantity make_triangular(double lo, double mode, double hi, const std::string& path = "triangular") {
  detail::check_three_point(path, "triangular", lo, mode, hi);
  return quantity(dist::triangular{lo, mode, hi});
}

/// PERT on [lo, hi] with the given mode; input_error unless lo ≤ mode ≤ hi, lo < hi.
inline quantity make_pert(double lo, double mode, double hi, const std::string& path = "pert") {
  detail::check_three_point(path, "pert", lo, mode, hi);
  return quantity(dist::pert(lo, mode, hi));
}

/// Gamma(shape, scale); input_error unless 0.01 ≤ shape ≤ 1e10 and scale > 0.
inline quantity make_gamma(double shape, double scale, const std::string& path = "gamma") {
  detail::check_shape(path + ".shape", shape);
  detail::check_positive(path + ".scale", scale);
  return quantity(dist::gamma(shape, scale));
}

/// Weibull(shape, scale); input_error unless both > 0.
inline quantity make_weibull(double shape, double scale, const std::string& path = "weibull") {
  detail::check_positive(path + ".shape", shape);
  detail::check_positive(path + ".scale", scale);
  return quantity(dist::weibull{shape, scale});
}

/// Exponential with the given mean; input_error unless mean > 0.
inline quantity make_exponential(double mean, const std::string& path = "exponential") {
  detail::check_positive(path + ".mean", mean);
  return quantity(dist::exponential{mean});
}

/// Beta(a, b) rescaled to [lo, hi]; input_error unless 0.01 ≤ a, b ≤ 1e10 and lo < hi.
inline quantity make_beta(double a, double b, double lo = 0, double hi = 1, const std::string& path = "beta") {
  detail::check_beta(path, a, b, lo, hi);
  return quantity(dist::beta(a, b, lo, hi));
}

/// 1 with probability p, else 0; input_error unless p in [0, 1].
inline quantity make_bernoulli(double p, const std::string& path = "bernoulli") {
  detail::check_probability(path + ".p", p);
  return quantity(dist::bernoulli{p});
}

/// The measured values themselves (type-7 interpolation); input_error if none or not finite.
inline quantity make_empirical(std::vector<double> samples, const std::string& path = "empirical") {
  if (samples.empty()) detail::fail(path + ".samples", "must hold at least one value, got none");
  for (std::size_t i = 0; i < samples.size(); ++i)
    detail::check_finite(path + ".samples[" + std::to_string(i) + "]", samples[i]);
  std::sort(samples.begin(), samples.end());
  return quantity(dist::empirical{std::make_shared<const std::vector<double>>(std::move(samples))});
}

/// A mixture: with probability weight_k the value follows components[k].second. input_error,
/// naming `path`.components[k].weight or .value as the JSON form does, unless there is at least
/// one component, every weight is finite and > 0, the weights sum to 1 within 1e-9, and no
/// component is an unknown, a mixture or carries provenance of its own (it belongs on the
/// mixture: docs/distributions.md, "Mixtures").
inline quantity make_mixture(const std::vector<std::pair<double, quantity>>& components,
                             const std::string& path = "mixture") {
  std::vector<double> weights;
  for (const auto& c : components) weights.push_back(c.first);
  detail::check_mixture_weights(path, weights);
  std::vector<dist::mixture::component> parts;
  for (std::size_t k = 0; k < components.size(); ++k) {
    const std::string at = path + ".components[" + std::to_string(k) + "].value";
    const quantity& q = components[k].second;
    if (!q.prov().empty()) detail::fail(at, detail::component_provenance_rule);
    std::visit(
        [&](const auto& d) {
          using T = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<T, dist::unknown>) {
            detail::fail(at, detail::component_unknown_rule);
          } else if constexpr (std::is_same_v<T, dist::mixture>) {
            detail::fail(at, detail::component_mixture_rule);
          } else {
            detail::check_parameters(at, d);
            parts.push_back({components[k].first, d});
          }
        },
        q.dist());
  }
  return quantity(dist::mixture(std::move(parts)));
}

/// An input nobody knows yet; `reason` says why (input_error if empty).
inline quantity make_unknown(std::string reason, const std::string& path = "unknown") {
  if (reason.empty())
    detail::fail(path, "unknown needs a reason (why the value is not known yet), got an empty string");
  return quantity(dist::unknown{std::move(reason)});
}

}  // namespace trnmodel
