#pragma once
// A mixture of distributions (docs/distributions.md, "Mixtures"): with probability w_k the value
// follows component k. "The step time is lognormal(p50 3.65, p90 5.11) with 80 % chance, and
// with 20 % chance the ported kernel makes it lognormal(p50 4.75, p90 6.64)".
// Its quantile is the true inverse of the mixture's CDF, not the composition trick (pick a
// component by u, then draw from it): every input is drawn as ppf(u) on common random numbers,
// and the sensitivity analysis needs ppf monotone in u.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/math/tools/toms748_solve.hpp>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/math_policy.hpp"
#include "trnmodel/dist/distributions.hpp"

namespace trnmodel::dist {

/// A mixture's component: any family but an unknown (a mixture with an unknown part is
/// unknown as a whole) and a mixture (the weights of a nested one multiply out into one level).
using component_distribution = std::variant<fixed, uniform, normal, lognormal, triangular, pert, gamma, weibull,
                                            exponential, beta, bernoulli, empirical>;

/// Whether a component family puts mass on single values (a draw can equal them exactly).
template <class T>
inline constexpr bool has_atoms =
    std::is_same_v<T, fixed> || std::is_same_v<T, bernoulli> || std::is_same_v<T, empirical>;

}  // namespace trnmodel::dist

namespace trnmodel::detail {

// The rules of a mixture's weights: at least one component, each weight finite and > 0, and
// the weights summing to 1 within 1e-9 (a typo such as 0.8 + 0.3 is refused, not
// renormalised). `path` names the mixture ("throughput.step_time_s").
inline void check_mixture_weights(const std::string& path, const std::vector<double>& weights) {
  if (weights.empty()) fail(path + ".components", "a mixture needs at least one component, got none");
  double sum = 0;
  std::string terms;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    check_positive(path + ".components[" + std::to_string(k) + "].weight", weights[k]);
    sum += weights[k];
    terms += (k ? " + " : "") + format_number(weights[k]);
  }
  if (!(std::abs(sum - 1) <= 1e-9))
    fail(path + ".components",
         "the weights must sum to 1 (within 1e-9), got " + terms + " = " + format_approx(sum, 12));
}

// The rules of a component beyond its family's, as make_mixture and the JSON loader word them.
inline constexpr const char* component_unknown_rule =
    "a mixture component cannot be unknown (write the whole input as {\"unknown\": ...})";
inline constexpr const char* component_mixture_rule =
    "a mixture component cannot be a mixture (multiply the weights out into one level)";
inline constexpr const char* component_provenance_rule =
    "a component carries no provenance (source, note, date, region): give it on the mixture";

}  // namespace trnmodel::detail

namespace trnmodel::dist {

/// A finite mixture: F(x) = Σ w_k F_k(x). Its quantile is the generalized inverse
/// inf{x : F(x) ≥ u}, found by Boost.Math's TOMS 748 between the components' own quantiles.
/// A plain value: copies share the immutable components, so copying is cheap and concurrent
/// reads are safe.
struct mixture {
  static constexpr const char* name = "mixture";  ///< the family's tag ("dist") in scenario files
  /// One component: its weight (as written, > 0) and its distribution.
  struct component {
    double weight;  ///< the probability of this component (the weights sum to 1 within 1e-9)
    component_distribution dist;  ///< the component's distribution
  };
  std::shared_ptr<const std::vector<component>> components;  ///< shared: copies are cheap
  /// The sum of the weights in component order: the CDF divides by it, so that it reaches
  /// exactly 1 however the written weights round.
  double total_weight = 1;

  /// input_error ("mixture.components[1].weight: must be > 0, got -0.2") unless the weights
  /// keep the rules of check_mixture_weights; the components' parameters are checked by the
  /// quantity that holds the mixture (their rules live with the families).
  explicit mixture(std::vector<component> parts)
      : components(std::make_shared<const std::vector<component>>(std::move(parts))) {
    std::vector<double> weights;
    for (const auto& c : *components) weights.push_back(c.weight);
    trnmodel::detail::check_mixture_weights(name, weights);
    total_weight = 0;
    for (const double w : weights) total_weight += w;
  }

  /// Σ w_k F_k(x) / Σ w_k: non-decreasing in x, exactly 1 where every component's is.
  double cdf(double x) const {
    double sum = 0;
    for (const auto& c : *components) sum += c.weight * std::visit([x](const auto& d) { return d.cdf(x); }, c.dist);
    return sum / total_weight;
  }

  /// Σ w_k mean_k / Σ w_k, clamped to the support (rounding must not step outside it).
  double mean() const {
    double sum = 0;
    for (const auto& c : *components) sum += c.weight * std::visit([](const auto& d) { return d.mean(); }, c.dist);
    const auto [lo, hi] = support();
    return std::clamp(sum / total_weight, lo, hi);
  }

  /// {min lo_k, max hi_k}.
  support_t support() const {
    support_t s{infinity, -infinity};
    for (const auto& c : *components) {
      const auto [lo, hi] = std::visit([](const auto& d) { return d.support(); }, c.dist);
      s = {std::min(s.first, lo), std::max(s.second, hi)};
    }
    return s;
  }

  /// Whether a draw can be exactly the lowest value: a component with atoms (fixed, Bernoulli,
  /// empirical) starts there.
  bool atom_at_lowest() const {
    const double lowest = support().first;
    for (const auto& c : *components) {
      const bool atom = std::visit(
          [lowest](const auto& d) {
            using T = std::decay_t<decltype(d)>;
            return has_atoms<T> && d.support().first == lowest;
          },
          c.dist);
      if (atom) return true;
    }
    return false;
  }

  /// The generalized inverse inf{x : F(x) ≥ u}, exactly: the smallest double x at which the
  /// computed cdf reaches u, so ppf is non-decreasing in u whatever the rounding. 0 and 1 give
  /// the support's ends. The cost (docs/distributions.md, "Mixtures"): the K components'
  /// quantiles, then about 10 to 15 evaluations of the mixture's cdf (K component cdfs each).
  double ppf(double u) const {
    if (std::isnan(u)) return u;
    if (u <= 0) return support().first;
    if (u >= 1) return support().second;
    const auto below = [this, u](double x) { return cdf(x) - u; };  // < 0 exactly where F(x) < u
    // The answer lies between the components' quantiles: F(x) < u below min_k q_k(u), F ≥ u
    // at max_k q_k(u). So a (F(a) < u) is the largest candidate below u, b (F(b) ≥ u) the
    // smallest at or above it.
    double a = -infinity, fa = 0, b = infinity, fb = 0;
    for (const auto& c : *components) {
      const double x = std::visit([u](const auto& d) { return d.ppf(u); }, c.dist);
      if (!(x > a && x < b)) continue;  // no better bound than those found
      const double fx = below(x);
      if (fx < 0) {
        a = x;
        fa = fx;
      } else {
        b = x;
        fb = fx;
      }
    }
    // The component quantiles are accurate to their rounding (gamma and beta to their
    // tables' 1e-10): when every one landed on the same side of u, step beyond them.
    if (!(b < infinity) && !beyond(a, b, fb, below, true)) return b;
    if (!(a > -infinity) && !beyond(b, a, fa, below, false)) return a;
    return solve(a, fa, b, fb, below);
  }

 private:
  // Steps from `from` (on one side of u) away from it until the cdf crosses u, in steps growing
  // 16-fold from 64 units in the last place, and sets `to` and `f_to` to the point found. False
  // when `to` is the answer itself: the support's lowest value, where an atom already reaches
  // u, or the last point tried when 300 steps did not cross (a cdf that never reaches u).
  template <class Below> bool beyond(double from, double& to, double& f_to, const Below& below, bool up) const {
    const auto [lo, hi] = support();
    const double end = up ? hi : lo;
    double step = 64 * std::max(std::abs(from) * std::numeric_limits<double>::epsilon(),
                                std::numeric_limits<double>::denorm_min());
    for (int i = 0; i < 300; ++i, step *= 16) {
      double x = up ? from + step : from - step;
      if (up ? !(x < end) : !(x > end)) {
        // At a finite end the cdf is 0 or 1 exactly; an infinite one is never evaluated.
        if (std::isfinite(end)) {
          to = end;
          f_to = below(end);
          return up || f_to < 0;
        }
        x = up ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
      }
      const double fx = below(x);
      if (up ? fx >= 0 : fx < 0) {
        to = x;
        f_to = fx;
        return true;
      }
      from = x;
    }
    to = from;
    return false;
  }

  // The smallest double in (a, b] where F ≥ u, given F(a) < u ≤ F(b): TOMS 748 (Boost.Math)
  // finds the root to a few units in the last place, then a bisection over the doubles
  // themselves picks the exact one.
  template <class Below> static double solve(double a, double fa, double b, double fb, const Below& below) {
    if (!(a < b) || std::nextafter(a, b) >= b) return b;
    // b itself, when F is already below u one double lower (atoms, or a quantile that is the
    // answer): one evaluation instead of a search over a step.
    const double before_b = std::nextafter(b, a);
    const double f_before_b = below(before_b);
    if (f_before_b < 0) return b;
    b = before_b;
    fb = f_before_b;
    // F(x) = u exactly counts as above: the answer is the start of a flat stretch at level u,
    // so the solver must not stop inside it.
    const auto f = [&below](double x) {
      const double v = below(x);
      return v == 0 ? std::numeric_limits<double>::min() : v;
    };
    if (fb == 0) fb = std::numeric_limits<double>::min();
    const auto close = [](double lo, double hi) {
      return hi - lo <= 4 * std::numeric_limits<double>::epsilon() * std::min(std::abs(lo), std::abs(hi)) ||
             std::nextafter(lo, hi) >= hi;
    };
    // A smooth F converges in 4 to 8 iterations; a bracket over many orders of magnitude with
    // a kink (a component far narrower than another) may not, and is left to the bisection.
    std::uintmax_t iterations = 40;
    const auto bracket = boost::math::tools::toms748_solve(f, a, b, fa, fb, close, iterations, detail::fast_policy());
    return first_reaching(bracket.first, bracket.second, below);
  }

  // The smallest double in (lo, hi] where F ≥ u, given F(lo) < u ≤ F(hi), by halving the doubles
  // between them in their order (at most 64 steps from any bracket, about 2 after TOMS 748).
  // Halving the values instead could need a thousand steps for a bracket from 1e-300 to 1.
  template <class Below> static double first_reaching(double lo, double hi, const Below& below) {
    std::int64_t from = ordered(lo), to = ordered(hi);
    // Unsigned: from the lowest double to the highest, the count overflows a signed integer.
    const auto count = [&] { return static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from); };
    while (count() > 1) {
      const std::int64_t mid = from + static_cast<std::int64_t>(count() / 2);
      (below(unordered(mid)) < 0 ? from : to) = mid;
    }
    return unordered(to);
  }

  // The doubles as integers in the same order, neighbours differing by 1 (−0 and +0 both 0).
  static std::int64_t ordered(double x) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
  }
  static double unordered(std::int64_t key) {
    const std::int64_t bits = key < 0 ? std::numeric_limits<std::int64_t>::min() - key : key;
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
};

}  // namespace trnmodel::dist
