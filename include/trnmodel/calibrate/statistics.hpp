#pragma once
// Statistics that turn trial-run journals into measured inputs (docs/journal.md):
//
//   mser_warmup / mser5_truncation   warm-up detection by MSER-5
//   batch_means                      steady-state mean with a Student-t interval
//   steady_state                     the two together
//   fit_lognormal / fit_gamma        maximum-likelihood fits, with log-likelihood and AIC
//   best_fit                         the better family by AIC, with a Kolmogorov-Smirnov figure
//   run_to_run_spread                the spread across repeated runs as an input's uncertainty
//   failure_rate_posterior           failures per node-hour with a Gamma-posterior interval
//
// Units follow the data: a step-time series in seconds gives means and half-widths in
// seconds. Failure rates are per node-hour (`_per_node_h`), exposures in node-hours.
//
// Special functions and distributions come from Boost.Math (Student t, gamma, lognormal
// quantiles and CDFs, digamma, trigamma, lgamma, the bracketed Newton solver). Calibration
// runs once per journal, not in the Monte Carlo hot loop, so Boost's default (throwing)
// policy is used; every argument is validated first, with messages of the form
// "<argument>: <rule>, got <value>" (trnmodel/check.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <boost/math/tools/roots.hpp>
#include <boost/version.hpp>
#if BOOST_VERSION >= 107500
#include <boost/math/distributions/kolmogorov_smirnov.hpp>
#endif

#include "trnmodel/check.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/errors.hpp"

// Internals live in trnmodel::detail (the project's convention), so that a nested
// calibrate::detail never hides it.
namespace trnmodel::detail {

inline std::string series_element(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Every value finite; at least `min_size` of them.
inline void check_series(const std::string& path, const std::vector<double>& x, std::size_t min_size = 1) {
  if (x.empty()) detail::fail(path, "must hold at least one value, got none");
  for (std::size_t i = 0; i < x.size(); ++i) detail::check_finite(series_element(path, i), x[i]);
  if (x.size() < min_size)
    detail::fail(path, "must hold at least " + std::to_string(min_size) + " values, got " + std::to_string(x.size()));
}

// A two-parameter fit needs at least two values, all > 0, not all equal.
inline void check_fit_samples(const std::string& path, const std::vector<double>& x, const char* family) {
  check_series(path, x);
  for (std::size_t i = 0; i < x.size(); ++i) detail::check_positive(series_element(path, i), x[i]);
  if (x.size() < 2)
    detail::fail(path, std::string("a ") + family + " fit needs at least 2 values, got " + std::to_string(x.size()));
  if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); }))
    detail::fail(path, std::string("a ") + family + " fit needs values that are not all equal, got " +
                           std::to_string(x.size()) + " copies of " + detail::format_number(x.front()));
}

inline void check_confidence(const std::string& path, double confidence) {
  detail::check_finite(path, confidence);
  if (!(confidence > 0 && confidence < 1))
    detail::fail(path, "must be in (0, 1), got " + detail::format_number(confidence));
}

// Kolmogorov's limiting distribution: Q(λ) = P(K > λ) = 2 Σ_{j≥1} (−1)^{j−1} exp(−2 j² λ²)
// (Kolmogorov 1933). Boost.Math has it from 1.75 (kolmogorov_smirnov_distribution, whose
// cdf at x is K(x·√n), so n = 1 gives K itself); Boost 1.74 (Debian 12) does not, so for it
// the two classical series are summed: the alternating one above for λ ≥ 1.18 and, for
// smaller λ where it converges slowly, P(K ≤ λ) = √(2π)/λ Σ_{j≥1} exp(−(2j−1)² π² / (8λ²))
// (Press et al., Numerical Recipes 3rd ed. §6.14.12). Both converge to double precision in
// a handful of terms.
inline double kolmogorov_sf(double lambda) {
  if (!(lambda > 0)) return 1.0;
#if BOOST_VERSION >= 107500
  return boost::math::cdf(boost::math::complement(boost::math::kolmogorov_smirnov_distribution<double>(1.0), lambda));
#else
  constexpr double pi = 3.14159265358979323846;
  if (lambda < 1.18) {
    const double w = pi * pi / (8 * lambda * lambda);
    double sum = 0;
    for (int j = 1; j <= 50; ++j) {
      const double term = std::exp(-(2.0 * j - 1) * (2.0 * j - 1) * w);
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    return std::max(0.0, 1.0 - std::sqrt(2 * pi) / lambda * sum);
  }
  double sum = 0;
  for (int j = 1; j <= 100; ++j) {
    const double term = std::exp(-2.0 * j * j * lambda * lambda);
    sum += (j % 2 == 1) ? term : -term;
    if (term < 1e-17 * std::abs(sum)) break;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
#endif
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

// ---- warm-up detection ---------------------------------------------------------------

/// MSER-5 truncation of a series' warm-up (White 1997). A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct mser_result {
  std::size_t truncation = 0;  ///< index of the first steady-state observation (d*·batch_size)
  std::size_t batch_size = 5;  ///< observations per batch mean (5 for MSER-5)
  std::size_t batches = 0;  ///< batch means formed, m = ⌊n / batch_size⌋
  double statistic = 0;  ///< MSER(d*), in squared units of the series
  /// d* is the last candidate allowed (the search stops at half the batches): the warm-up may
  /// be longer than half the run, which is then too short to measure a steady state.
  bool at_search_limit = false;
};

/// MSER warm-up detection (White 1997, "An effective truncation heuristic for bias reduction
/// in simulation output", Simulation 69(6); White, Cobb & Spratt 2000, "A comparison of five
/// steady-state truncation heuristics", WSC; MSER-5 as in Franklin & White 2008, WSC).
///
/// The series is cut into m = ⌊n/b⌋ non-overlapping batches of b observations (b = 5 for
/// MSER-5; the last n mod b observations, which lie in steady state if anything does, are left
/// out of the search). With batch means Z_1..Z_m, for each candidate d of whole batches to drop
///     MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (m − d)²,   Z̄_d = mean of Z_{d+1..m},
/// i.e. the squared standard error of the truncated mean, which falls while dropping biased
/// early batches and rises once only precision is being thrown away. d* minimises MSER(d)
/// over 0 ≤ d < m/2 (the usual restriction to the first half, where the statistic is stable);
/// the truncation is b·d₀, d₀ the first d whose MSER(d) is within a tie tolerance of MSER(d*):
/// MSER(d) ≤ MSER(d*)·(1 + ¼·√(2/(m − d*))), a quarter of the relative sampling error of a
/// variance from m − d* batches. Plain MSER-5 (d₀ = d*) over-truncates in about one series
/// in eight when the stationary part's noise dips; the tolerance removes most of those late
/// cuts and never cuts inside a linear warm-up's biased batches (docs/journal.md, "Warm-up").
///
/// Short series: with fewer than 2·b observations (fewer than 2 batches) there is nothing to
/// compare, and the truncation is 0 (no warm-up removed); this is a rule, not an error, so
/// that short journals still calibrate. A series of 2b..3b−1 values also gives 0 (only d = 0
/// is in the first half).
inline mser_result mser_warmup(const std::vector<double>& series, std::size_t batch_size = 5,
                               const std::string& path = "series") {
  detail::check_series(path, series);
  if (batch_size < 1) detail::fail("batch_size", "must be ≥ 1, got 0");
  mser_result r;
  r.batch_size = batch_size;
  const std::size_t m = series.size() / batch_size;
  r.batches = m;
  if (m < 2) return r;

  std::vector<double> z(m);
  for (std::size_t j = 0; j < m; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < batch_size; ++i) s += series[j * batch_size + i];
    z[j] = s / static_cast<double>(batch_size);
  }
  // Suffix statistics by Welford's update from the end: after adding z[j] (0-based), `mean`
  // and `m2` describe z[j..m−1], the batches left when d = j are dropped, so
  // MSER(j) = m2 / (m − j)².
  std::vector<double> mser(m);
  double mean = 0, m2 = 0;
  for (std::size_t j = m; j-- > 0;) {
    const double count = static_cast<double>(m - j);
    const double delta = z[j] - mean;
    mean += delta / count;
    m2 += delta * (z[j] - mean);
    mser[j] = m2 / (count * count);
  }
  std::size_t best = 0;
  std::size_t last = 0;
  for (std::size_t d = 0; 2 * d < m; ++d) {
    last = d;
    if (mser[d] < mser[best]) best = d;
  }
  // The tie tolerance: the first d whose statistic is within a quarter of its own sampling
  // error of the minimum (relative error of a variance from m − d* batches: √(2 / (m − d*))).
  // Past the warm-up, MSER keeps falling a little whenever the dropped batches happen to lie
  // high, and that noise, not bias, puts the plain minimum late (docs/journal.md, "Warm-up").
  const double tolerance = mser[best] * (1 + 0.25 * std::sqrt(2.0 / static_cast<double>(m - best)));
  std::size_t first = 0;
  while (mser[first] > tolerance) ++first;
  r.truncation = first * batch_size;
  r.statistic = mser[first];
  r.at_search_limit = first == last && first > 0;
  return r;
}

/// MSER-5: the index of the first steady-state observation (a multiple of 5; 0 for fewer than
/// 10 observations). See mser_warmup for the rule.
inline std::size_t mser5_truncation(const std::vector<double>& series, const std::string& path = "series") {
  return mser_warmup(series, 5, path).truncation;
}

// ---- steady-state mean with a confidence interval ------------------------------------

/// A batch-means confidence interval of a steady-state mean. A plain value: copyable, owns its
/// members; concurrent reads are safe.
struct batch_means_result {
  double mean = 0;  ///< grand mean of the observations used (= mean of batch means)
  double half_width = 0;  ///< t_{k−1, (1+c)/2} · s_Z / √k
  double std_error = 0;  ///< s_Z / √k
  std::size_t batches = 0;  ///< k
  std::size_t batch_size = 0;  ///< observations per batch, ⌊n / k⌋
  std::size_t discarded = 0;  ///< n mod k leading observations left out
  double confidence = 0.95;  ///< c, the interval's coverage, in (0, 1)
  /// Lag-1 autocorrelation of the batch means, a diagnostic (Law & Kelton §9.5.3): near 0
  /// (slightly negative, about −1/k, by estimation bias) when the batches are long enough to
  /// be roughly independent; a clearly positive value means the interval is too narrow: use
  /// fewer, longer batches.
  double lag1_autocorrelation = 0;
  /// The interval's lower end, mean − half_width, in the series' unit.
  double lo() const { return mean - half_width; }
  /// The interval's upper end, mean + half_width, in the series' unit.
  double hi() const { return mean + half_width; }
};

/// Non-overlapping batch means (Law & Kelton, Simulation Modeling and Analysis, 3rd ed. 2000,
/// §9.5.3; Schmeiser 1982, "Batch size effects in the analysis of simulation output", Oper.
/// Res. 30(3)): the series (already truncated of its warm-up) is cut into k batches of
/// b = ⌊n/k⌋ consecutive observations; the batch means, being averages over long stretches, are
/// nearly independent and nearly normal, so mean ± t_{k−1} · s/√k is an approximate
/// confidence interval for the steady-state mean despite the autocorrelation of the series.
///
/// Defaults and rules: k = 20 batches (Schmeiser: 10 to 30 batches lose little width to the
/// t quantile and leave each batch long); k must be ≥ 2 and the series must hold at least k
/// observations (an error otherwise, naming both; pass fewer batches for short series). When
/// k does not divide n the first n mod k observations, the ones nearest any residual warm-up,
/// are left out.
inline batch_means_result batch_means(const std::vector<double>& series, std::size_t batches = 20,
                                      double confidence = 0.95, const std::string& path = "series") {
  detail::check_series(path, series);
  if (batches < 2) detail::fail("batches", "must be ≥ 2, got " + std::to_string(batches));
  detail::check_confidence("confidence", confidence);
  const std::size_t n = series.size();
  if (n < batches)
    detail::fail(path, "must hold at least one value per batch (batches = " + std::to_string(batches) + "), got " +
                           std::to_string(n) + " values; pass fewer batches");
  batch_means_result r;
  r.batches = batches;
  r.batch_size = n / batches;
  r.discarded = n % batches;
  r.confidence = confidence;

  std::vector<double> z(batches);
  for (std::size_t j = 0; j < batches; ++j) {
    double s = 0;
    const std::size_t start = r.discarded + j * r.batch_size;
    for (std::size_t i = 0; i < r.batch_size; ++i) s += series[start + i];
    z[j] = s / static_cast<double>(r.batch_size);
  }
  const double k = static_cast<double>(batches);
  double mean = 0;
  for (double v : z) mean += v;
  mean /= k;
  double ss = 0, cross = 0;
  for (std::size_t j = 0; j < batches; ++j) {
    ss += (z[j] - mean) * (z[j] - mean);
    if (j + 1 < batches) cross += (z[j] - mean) * (z[j + 1] - mean);
  }
  const double sd = std::sqrt(ss / (k - 1));
  const boost::math::students_t_distribution<double> t(k - 1);
  r.mean = mean;
  r.std_error = sd / std::sqrt(k);
  r.half_width = boost::math::quantile(t, 0.5 + confidence / 2) * r.std_error;
  r.lag1_autocorrelation = ss > 0 ? cross / ss : 0.0;
  return r;
}

/// A series' warm-up, cut, and its steady-state mean with an interval. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct steady_state_result {
  mser_result warmup;  ///< warmup.truncation observations were dropped
  batch_means_result interval;  ///< on the rest
};

/// Warm-up removed by MSER-5, then batch means on the remainder.
inline steady_state_result steady_state(const std::vector<double>& series, std::size_t batches = 20,
                                        double confidence = 0.95, const std::string& path = "series") {
  steady_state_result r;
  r.warmup = mser_warmup(series, 5, path);
  const std::vector<double> rest(series.begin() + static_cast<std::ptrdiff_t>(r.warmup.truncation), series.end());
  r.interval = batch_means(rest, batches, confidence,
                           path + " (after " + std::to_string(r.warmup.truncation) + " warm-up values)");
  return r;
}

// ---- maximum-likelihood fits ----------------------------------------------------------

/// Akaike's information criterion, AIC = 2p − 2 ln L (Akaike 1974; Burnham & Anderson,
/// Model Selection and Multimodel Inference, 2002).
inline double aic(double log_likelihood, int parameters) { return 2.0 * parameters - 2.0 * log_likelihood; }

/// A lognormal fitted by maximum likelihood. A plain value: copyable, owns its members; concurrent reads are safe.
struct lognormal_fit {
  double mu = 0;  ///< mean of ln x
  double sigma = 0;  ///< standard deviation of ln x (MLE: divisor n)
  double log_likelihood = 0;  ///< ln L at the fitted parameters
  double aic = 0;  ///< Akaike's information criterion, 2·2 − 2 ln L
  std::size_t n = 0;  ///< values fitted
  /// The fitted CDF at `x` (0 for x ≤ 0).
  double cdf(double x) const {
    return x <= 0 ? 0.0 : boost::math::cdf(boost::math::lognormal_distribution<double>(mu, sigma), x);
  }
  /// The fit as a lognormal quantity with source "measured"; `path` names it in errors.
  quantity to_quantity(const std::string& path = "lognormal") const {
    quantity q = make_lognormal(mu, sigma, path);
    q.prov().source = "measured";
    return q;
  }
};

/// A gamma fitted by maximum likelihood. A plain value: copyable, owns its members; concurrent reads are safe.
struct gamma_fit {
  double shape = 0;  ///< k
  double scale = 0;  ///< θ = mean / k
  double log_likelihood = 0;  ///< ln L at the fitted parameters
  double aic = 0;  ///< Akaike's information criterion, 2·2 − 2 ln L
  std::size_t n = 0;  ///< values fitted
  int iterations = 0;  ///< Newton steps taken
  /// The fitted CDF at `x` (0 for x ≤ 0).
  double cdf(double x) const {
    return x <= 0 ? 0.0 : boost::math::cdf(boost::math::gamma_distribution<double>(shape, scale), x);
  }
  /// The fit as a gamma quantity (shape, scale) with source "measured"; `path` names it in errors.
  quantity to_quantity(const std::string& path = "gamma") const {
    quantity q = make_gamma(shape, scale, path);
    q.prov().source = "measured";
    return q;
  }
};

/// Lognormal by maximum likelihood: μ̂ and σ̂ are the mean and the (divisor-n) standard
/// deviation of ln x (e.g. Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions
/// vol. 1, 2nd ed., ch. 14). Standard errors: σ/√n for μ̂ and σ/√(2n) for σ̂.
/// ln L = −Σ ln x − n ln σ̂ − (n/2) ln 2π − n/2.  Requires ≥ 2 values, all > 0, not all equal.
inline lognormal_fit fit_lognormal(const std::vector<double>& samples, const std::string& path = "samples") {
  detail::check_fit_samples(path, samples, "lognormal");
  const double n = static_cast<double>(samples.size());
  double mean_log = 0;
  for (double x : samples) mean_log += std::log(x);
  mean_log /= n;
  double ss = 0;
  for (double x : samples) ss += (std::log(x) - mean_log) * (std::log(x) - mean_log);
  lognormal_fit f;
  f.n = samples.size();
  f.mu = mean_log;
  f.sigma = std::sqrt(ss / n);
  if (!(f.sigma > 0))
    detail::fail(path, "a lognormal fit needs values that are not all equal, got a spread of logs of 0");
  constexpr double log_2pi = 1.83787706640934548356;
  f.log_likelihood = -n * (mean_log + std::log(f.sigma) + 0.5 * log_2pi + 0.5);
  f.aic = aic(f.log_likelihood, 2);
  return f;
}

/// Largest gamma shape fitted: Boost.Math's gamma CDF (used for the goodness of fit and by
/// the quantity's tables) gives up beyond about 1e10, where the coefficient of variation
/// 1/√k is below 1e-5 and the quantity is effectively fixed.
inline constexpr double max_gamma_shape = 1e10;

/// Gamma by maximum likelihood (Choi & Wette 1969, Technometrics 11(4); Minka 2002,
/// "Estimating a Gamma distribution"). With s = ln x̄ − mean(ln x) > 0, the shape k̂ solves
///     ln k − ψ(k) = s,
/// and θ̂ = x̄ / k̂. Start: Minka's approximation k₀ = (3 − s + √((s − 3)² + 24 s)) / (12 s).
/// Since 1/(2k) < ln k − ψ(k) < 1/k for every k > 0, the root lies in [1/(2s), 1/s]; Newton's
/// method (f′(k) = 1/k − ψ′(k), Boost's bracketed newton_raphson_iterate, which falls back to
/// bisection if a step leaves the bracket) converges in a few steps to full precision.
/// s is computed as −mean(ln(x / x̄)) to avoid cancellation when the shape is large.
/// ln L = n[(k − 1) mean(ln x) − k − k ln θ − ln Γ(k)].  Requires ≥ 2 values, all > 0, not all
/// equal, and a fitted shape ≤ max_gamma_shape.
inline gamma_fit fit_gamma(const std::vector<double>& samples, const std::string& path = "samples") {
  detail::check_fit_samples(path, samples, "gamma");
  const double n = static_cast<double>(samples.size());
  double mean = 0;
  for (double x : samples) mean += x;
  mean /= n;
  double mean_log_ratio = 0;  ///< mean(ln(x / x̄)) = mean(ln x) − ln x̄ ≤ 0
  for (double x : samples) mean_log_ratio += std::log(x / mean);
  mean_log_ratio /= n;
  const double s = -mean_log_ratio;
  if (!(s > 0))
    detail::fail(path,
                 "a gamma fit needs values with some spread, got ln(mean) − mean(ln) = " + detail::format_number(s));

  const double lo = 1 / (2 * s), hi = 1 / s;
  const double k0 = std::clamp((3 - s + std::sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s), lo, hi);
  auto score = [s](double k) {
    return std::make_pair(std::log(k) - boost::math::digamma(k) - s, 1 / k - boost::math::trigamma(k));
  };
  std::uintmax_t iterations = 100;
  const double k = boost::math::tools::newton_raphson_iterate(score, k0, lo, hi,
                                                              std::numeric_limits<double>::digits - 2, iterations);
  if (k > max_gamma_shape)
    detail::fail(
        path, "a gamma fit needs a coefficient of variation of at least about 1e-5 (shape ≤ 1e10), got shape " +
                  detail::format_number(k) + " (coefficient of variation " + detail::format_number(1 / std::sqrt(k)) +
                  "); such a quantity is effectively fixed");
  gamma_fit f;
  f.n = samples.size();
  f.shape = k;
  f.scale = mean / k;
  f.iterations = static_cast<int>(iterations);
  const double mean_log = std::log(mean) + mean_log_ratio;
  f.log_likelihood = n * ((k - 1) * mean_log - k - k * std::log(f.scale) - boost::math::lgamma(k));
  f.aic = aic(f.log_likelihood, 2);
  return f;
}

/// The one-sample Kolmogorov-Smirnov statistic D = sup |F_n(x) − F(x)| against `cdf`.
template <class Cdf> double ks_statistic(std::vector<double> samples, const Cdf& cdf) {
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  double d = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double f = cdf(samples[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

/// The asymptotic p-value of D for n values against a FULLY SPECIFIED distribution:
/// Q_KS((√n + 0.12 + 0.11/√n)·D), with Stephens' (1970, JRSS B 32(1)) small-sample correction.
inline double ks_p_value_asymptotic(double d, std::size_t n) {
  const double rn = std::sqrt(static_cast<double>(n));
  return detail::kolmogorov_sf((rn + 0.12 + 0.11 / rn) * d);
}

/// The distribution families best_fit chooses between.
enum class family { lognormal, gamma };

/// The family's name as a scenario file writes it.
inline const char* family_name(family f) { return f == family::lognormal ? "lognormal" : "gamma"; }

/// The better of the fitted families by AIC, with the goodness-of-fit test. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct best_fit_result {
  family chosen = family::lognormal;  ///< the family with the smaller AIC (lognormal on a tie)
  lognormal_fit lognormal;  ///< the lognormal fit, chosen or not
  gamma_fit gamma;  ///< the gamma fit, chosen or not
  double delta_aic = 0;  ///< AIC of the other family − AIC of the chosen one (≥ 0)
  /// Goodness of fit of the chosen family: the Kolmogorov-Smirnov distance D between the
  /// empirical CDF and the fitted CDF, and its asymptotic p-value. The parameters were
  /// estimated from the same data, so the fitted CDF sits closer to the data than the true
  /// one would, D is stochastically smaller than under a fully specified null, and this
  /// p-value is OPTIMISTIC (too large; Lilliefors 1967). Read it as a figure of fit, not as a
  /// test: a small p-value is still evidence of misfit, a large one proves nothing.
  double ks_d = 0;
  double ks_p_value_asymptotic = 1;  ///< the asymptotic p-value of ks_d: optimistic, see ks_d
  /// The chosen family's name as a scenario file writes it.
  const char* name() const { return family_name(chosen); }
  /// The chosen fit's CDF at `x`.
  double cdf(double x) const { return chosen == family::lognormal ? lognormal.cdf(x) : gamma.cdf(x); }
  /// The chosen fit as a quantity with source "measured"; `path` names it in errors.
  quantity to_quantity(const std::string& path = "fit") const {
    return chosen == family::lognormal ? lognormal.to_quantity(path) : gamma.to_quantity(path);
  }
};

/// Both families fitted by maximum likelihood; the one with the smaller AIC is chosen (on an
/// exact tie, lognormal). Both have two parameters, so this is the same as choosing the larger
/// likelihood; the AIC is reported so that other families can join later. A delta_aic below
/// about 2 means the data hardly tell the two apart (Burnham & Anderson 2002, §2.6), which is
/// common for small samples with little skew, where either serves.
inline best_fit_result best_fit(const std::vector<double>& samples, const std::string& path = "samples") {
  best_fit_result r;
  r.lognormal = fit_lognormal(samples, path);
  r.gamma = fit_gamma(samples, path);
  r.chosen = r.gamma.aic < r.lognormal.aic ? family::gamma : family::lognormal;
  r.delta_aic = std::abs(r.gamma.aic - r.lognormal.aic);
  r.ks_d = ks_statistic(samples, [&r](double x) { return r.cdf(x); });
  r.ks_p_value_asymptotic = ks_p_value_asymptotic(r.ks_d, samples.size());
  return r;
}

// ---- spread across repeated runs -------------------------------------------------------

/// The spread of repeated runs' means (between-run variation). A plain value: copyable, owns its
/// members; concurrent reads are safe.
struct run_spread_result {
  std::size_t runs = 0;  ///< per-run values given
  double mean = 0;  ///< their mean, in their unit
  double sd = 0;  ///< sample standard deviation (divisor n − 1; 0 for one run)
  std::string method;  ///< "empirical", "lognormal" or "gamma"
  std::optional<best_fit_result> fit;  ///< when a family was fitted
  quantity input;  ///< the input's uncertainty, source "measured"
};

/// The run-to-run spread of a per-run figure (e.g. each run's steady-state step time) as the
/// uncertainty of the input. Rule: with fewer than `min_runs_for_fit` runs (default 10), or
/// when the runs hardly differ (sd below 1e-4 of the mean), the runs themselves are the distribution (empirical:
/// interpolated order statistics, bounded by the extremes seen); with at least that many, the
/// best of lognormal and gamma by AIC (best_fit), whose tails reach beyond the runs observed.
/// Ten is a judgement: below it a two-parameter fit's tails rest on too little, and the
/// families cannot be told apart anyway. The values must be > 0 (they are times).
inline run_spread_result run_to_run_spread(const std::vector<double>& per_run, std::size_t min_runs_for_fit = 10,
                                           const std::string& path = "runs") {
  detail::check_series(path, per_run);
  for (std::size_t i = 0; i < per_run.size(); ++i) detail::check_positive(detail::series_element(path, i), per_run[i]);
  if (min_runs_for_fit < 2) detail::fail("min_runs_for_fit", "must be ≥ 2, got " + std::to_string(min_runs_for_fit));
  run_spread_result r;
  r.runs = per_run.size();
  const double n = static_cast<double>(r.runs);
  for (double x : per_run) r.mean += x;
  r.mean /= n;
  double ss = 0;
  for (double x : per_run) ss += (x - r.mean) * (x - r.mean);
  r.sd = r.runs > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  // No material spread (relative sd below 1e-4, i.e. a gamma shape above ~1e8): nothing to fit.
  const bool no_spread = !(r.sd > 1e-4 * r.mean);
  if (r.runs < min_runs_for_fit || no_spread) {
    r.method = "empirical";
    r.input = make_empirical(per_run, path);
    r.input.prov().source = "measured";
    r.input.prov().note = std::to_string(r.runs) + " run(s), empirical";
  } else {
    r.fit = best_fit(per_run, path);
    r.method = r.fit->name();
    r.input = r.fit->to_quantity(path);
    r.input.prov().note = std::to_string(r.runs) + " runs, " + r.method + " by maximum likelihood (AIC)";
  }
  return r;
}

// ---- failure rate from exposure ---------------------------------------------------------

/// A failure rate estimated from observed failures and exposure, with an interval. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct failure_rate_result {
  double mean_per_node_h = 0;  ///< posterior mean (α0 + k) / (β0 + T)
  double median_per_node_h = 0;  ///< posterior median, failures per node-hour
  double lo_per_node_h = 0;  ///< equal-tailed interval: quantiles (1 − c)/2 and (1 + c)/2
  double hi_per_node_h = 0;  ///< the interval's upper end, the (1 + c)/2 quantile
  double posterior_shape = 0;  ///< α0 + k
  double posterior_rate_node_h = 0;  ///< β0 + T (node-hours)
  double confidence = 0.9;  ///< c, the interval's coverage, in (0, 1)
  /// The implied per-node MTBF (1/rate), whose interval is the reciprocal of the rate's:
  /// [1/hi, 1/lo]; mtbf_hi_h is +inf only if lo underflows. The median maps exactly.
  double mtbf_lo_h = 0;  ///< lower end, hours: 1 / hi_per_node_h
  double mtbf_median_h = 0;  ///< hours: 1 / median_per_node_h
  double mtbf_hi_h = 0;  ///< upper end, hours: 1 / lo_per_node_h (+inf when lo is 0)
};

/// Failures per node-hour from k failures over an exposure of T node-hours (sum over runs of
/// nodes × hours exposed), with a conjugate Bayesian interval. Failures are taken as a Poisson
/// process with rate λ per node-hour; with a Gamma(α0, β0) prior (shape α0, rate β0 in
/// node-hours) the posterior is Gamma(α0 + k, β0 + T) (e.g. Gelman et al., Bayesian Data
/// Analysis, 3rd ed., §2.6). Quantiles come from boost::math::gamma_distribution (shape,
/// scale = 1/rate).
///
/// Default prior: α0 = 0.5, β0 = 0, Jeffreys' prior λ^(−1/2) for a Poisson rate (improper,
/// but the posterior is proper once T > 0). It gives a finite interval with k = 0, and sits
/// between the classical (Garwood 1936) limits: α0 = 1 reproduces the classical upper limit
/// χ²_{2k+2}(p)/(2T), α0 = 0 the classical lower limit χ²_{2k}(p)/(2T). Pass prior_shape and
/// prior_rate_node_h to encode fleet knowledge (e.g. α0 = vendor failures, β0 = vendor
/// node-hours).
inline failure_rate_result failure_rate_posterior(std::int64_t failures, double exposure_node_h,
                                                  double confidence = 0.9, double prior_shape = 0.5,
                                                  double prior_rate_node_h = 0.0) {
  if (failures < 0) detail::fail("failures", "must be ≥ 0, got " + std::to_string(failures));
  detail::check_nonnegative("exposure_node_h", exposure_node_h);
  detail::check_confidence("confidence", confidence);
  detail::check_positive("prior_shape", prior_shape);
  detail::check_nonnegative("prior_rate_node_h", prior_rate_node_h);
  if (!(exposure_node_h + prior_rate_node_h > 0))
    detail::fail("exposure_node_h", "must be > 0 when prior_rate_node_h is 0 (the posterior would be improper), got " +
                                        detail::format_number(exposure_node_h));
  failure_rate_result r;
  r.confidence = confidence;
  r.posterior_shape = prior_shape + static_cast<double>(failures);
  r.posterior_rate_node_h = prior_rate_node_h + exposure_node_h;
  const boost::math::gamma_distribution<double> post(r.posterior_shape, 1 / r.posterior_rate_node_h);
  const double tail = (1 - confidence) / 2;
  r.mean_per_node_h = r.posterior_shape / r.posterior_rate_node_h;
  r.median_per_node_h = boost::math::quantile(post, 0.5);
  r.lo_per_node_h = boost::math::quantile(post, tail);
  r.hi_per_node_h = boost::math::quantile(boost::math::complement(post, tail));
  const double inf = std::numeric_limits<double>::infinity();
  r.mtbf_lo_h = 1 / r.hi_per_node_h;
  r.mtbf_median_h = 1 / r.median_per_node_h;
  r.mtbf_hi_h = r.lo_per_node_h > 0 ? 1 / r.lo_per_node_h : inf;
  return r;
}

}  // namespace trnmodel::calibrate
