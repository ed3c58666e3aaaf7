#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <string>
#include <vector>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/interpolators/cubic_hermite.hpp>

#include "catch.hpp"
#include "input_error_of.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_distributions {

namespace {

std::vector<double> draw(const quantity& q, std::size_t n, std::uint64_t seed = 1) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = q.ppf(detail::uniform(seed, i, 0));
  return x;
}

// sqrt(n) * D of the one-sample Kolmogorov-Smirnov test against `cdf`.
template <class Cdf> double ks_statistic(std::vector<double> x, const Cdf& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  return std::sqrt(n) * d;
}

// Kolmogorov's limiting distribution: P(sqrt(n) D > 1.95) = 0.001.
constexpr double ks_critical_0_001 = 1.95;

std::vector<quantity> continuous_examples() {
  return {make_uniform(-2, 5),
          make_normal(10, 3),
          make_normal(1, 2, 0.5, 4),
          make_normal(0, 1, 6, 9),  // truncation far in the upper tail
          make_lognormal(0.3, 0.8),
          make_lognormal_from_quantiles(2, 3),
          make_triangular(1, 2, 6),
          make_triangular(0, 0, 1),
          make_pert(10, 12, 30),
          make_gamma(0.4, 2),
          make_gamma(7.5, 0.3),
          make_weibull(0.7, 5),
          make_weibull(3, 2),
          make_exponential(4),
          make_beta(0.5, 0.5),
          make_beta(2, 5, 10, 20),
          make_empirical({3.1, 2.7, 3.4, 2.9, 3.0, 3.8})};
}

}  // namespace

TEST_CASE("every continuous family passes a Kolmogorov-Smirnov test against its CDF", "[dist]") {
  for (const auto& q : continuous_examples()) {
    INFO(q.family());
    const double statistic = ks_statistic(draw(q, 20'000), [&](double x) { return q.cdf(x); });
    CHECK(statistic < ks_critical_0_001);
  }
}

TEST_CASE("table quantiles (gamma, beta) pass KS against Boost.Math's own CDF", "[dist]") {
  // Independent of our cdf(): Boost's distributions.
  const auto g = make_gamma(2.5, 3);
  boost::math::gamma_distribution<> boost_gamma(2.5, 3);
  CHECK(ks_statistic(draw(g, 50'000, 9), [&](double x) { return boost::math::cdf(boost_gamma, x); }) <
        ks_critical_0_001);
  const auto b = make_beta(0.7, 3);
  boost::math::beta_distribution<> boost_beta(0.7, 3);
  CHECK(ks_statistic(draw(b, 50'000, 9), [&](double x) { return boost::math::cdf(boost_beta, x); }) <
        ks_critical_0_001);
}

TEST_CASE("discrete and degenerate families", "[dist]") {
  const auto fixed = make_fixed(3.5);
  CHECK(fixed.ppf(0.1) == 3.5);
  CHECK(fixed.mean() == 3.5);
  CHECK(fixed.is_constant());

  const auto coin = make_bernoulli(0.3);
  const auto x = draw(coin, 100'000);
  const double ones = static_cast<double>(std::count(x.begin(), x.end(), 1.0));
  // Binomial(100k, 0.3): within 5 standard deviations.
  CHECK(std::abs(ones - 30'000) < 5 * std::sqrt(100'000 * 0.3 * 0.7));
  CHECK(std::count(x.begin(), x.end(), 0.0) + ones == 100'000);
  CHECK(make_bernoulli(0).ppf(0.999999) == 0.0);
  CHECK(make_bernoulli(1).ppf(1e-15) == 1.0);
  CHECK(make_bernoulli(1).is_constant());
}

TEST_CASE("quantile round trip: cdf(ppf(u)) = u", "[dist]") {
  const std::vector<double> us{1e-12, 1e-6, 0.001, 0.02, 0.25, 0.5, 0.75, 0.98, 0.999, 1 - 1e-6};
  for (const auto& q : continuous_examples()) {
    if (std::holds_alternative<dist::empirical>(q.dist())) continue;  // flat between order statistics
    INFO(q.family());
    for (const double u : us) {
      INFO("u = " << u << " ppf " << std::setprecision(17) << q.ppf(u) << " cdf " << q.cdf(q.ppf(u)));
      // Allowed: 1e-9 relative, plus what the spacing of doubles near x permits (ill-conditioned
      // tails such as a beta's x next to 1).
      const double x = q.ppf(u);
      const double representable = q.cdf(std::nextafter(x, dist::infinity)) - q.cdf(std::nextafter(x, -dist::infinity));
      CHECK(std::abs(q.cdf(x) - u) <= 1e-9 * std::min(u, 1 - u) + 4 * representable + 1e-15);
    }
  }
  const auto e = make_empirical({1, 2, 4});
  CHECK(e.ppf(0.25) == 1.5);
  CHECK(e.ppf(0.75) == 3.0);
  CHECK(e.cdf(3.0) == 0.75);
  CHECK(e.mean() == (0.5 * 1 + 2 + 0.5 * 4) / 2);  // trapezoid over the order statistics
}

TEST_CASE("lognormal from quantiles hits its quantiles", "[dist]") {
  const auto q = make_lognormal_from_quantiles(2, 3);
  CHECK_THAT(q.ppf(0.5), Catch::Matchers::WithinRel(2.0, 1e-14));
  CHECK_THAT(q.ppf(0.9), Catch::Matchers::WithinRel(3.0, 1e-14));
}

TEST_CASE("means are exact", "[dist]") {
  const auto sample_mean = [](const quantity& q) {
    const auto x = draw(q, 400'000, 3);
    double sum = 0;
    for (const double v : x) sum += v;
    return sum / static_cast<double>(x.size());
  };
  CHECK_THAT(make_pert(10, 12, 30).mean(), Catch::Matchers::WithinRel((10 + 48 + 30) / 6.0, 1e-15));
  CHECK_THAT(make_weibull(2, 3).mean(), Catch::Matchers::WithinRel(3 * std::tgamma(1.5), 1e-15));
  for (const auto& q : continuous_examples()) {
    INFO(q.family());
    // The Monte Carlo mean of 400k draws agrees within 6 standard errors (sd from the draws).
    const auto x = draw(q, 400'000, 3);
    double mean = 0, m2 = 0;
    for (const double v : x) mean += v;
    mean /= x.size();
    for (const double v : x) m2 += (v - mean) * (v - mean);
    const double standard_error = std::sqrt(m2 / (x.size() - 1) / x.size());
    CHECK(std::abs(sample_mean(q) - q.mean()) <= 6 * standard_error + 1e-12);
  }
}

TEST_CASE("gamma and beta table quantiles agree with Boost.Math to 1e-10", "[dist]") {
  std::vector<double> us;
  for (double t = -37; t <= 37; t += 0.173) us.push_back(1 / (1 + std::exp(-t)));
  for (int i = 1; i < 1000; ++i) us.push_back(i / 1000.0);
  double worst = 0;
  for (const double shape : {0.05, 0.3, 1.0, 2.5, 10.0, 150.0}) {
    const auto q = make_gamma(shape, 1.0);
    boost::math::gamma_distribution<> reference(shape, 1.0);
    for (const double u : us) {
      double exact = 0;
      try {
        exact = u < 0.5 ? boost::math::quantile(reference, u)
                        : boost::math::quantile(boost::math::complement(reference, 1 - u));
      } catch (const std::overflow_error&) {
        continue;  // beyond double range: the table's fallback is Boost itself
      }
      if (exact == 0 || !std::isnormal(exact)) continue;
      const double error = std::abs(q.ppf(u) / exact - 1);
      worst = std::max(worst, error);
      INFO("gamma shape " << shape << " u " << u);
      REQUIRE(error < 1e-10);
    }
  }
  for (const auto& [a, b] :
       std::vector<std::pair<double, double>>{{0.5, 0.5}, {2, 5}, {1, 1}, {0.2, 3}, {30, 40}, {5, 0.3}}) {
    const auto q = make_beta(a, b);
    boost::math::beta_distribution<> reference(a, b);
    for (const double u : us) {
      const double exact = u < 0.5 ? boost::math::quantile(reference, u)
                                   : boost::math::quantile(boost::math::complement(reference, 1 - u));
      if (exact == 0 || !std::isnormal(exact)) continue;
      const double error = std::abs(q.ppf(u) / exact - 1);
      worst = std::max(worst, error);
      INFO("beta " << a << ", " << b << " u " << u);
      REQUIRE(error < 1e-10);
    }
  }
  WARN("worst relative error of table quantiles: " << worst);
}

TEST_CASE("support bounds every draw", "[dist]") {
  for (const auto& q : continuous_examples()) {
    INFO(q.family());
    const auto [lo, hi] = q.support();
    for (const double u : {std::ldexp(1.0, -53), 0.5, 1 - std::ldexp(1.0, -53)}) {
      const double x = q.ppf(u);
      CHECK(x >= lo);
      CHECK(x <= hi);
    }
  }
}

TEST_CASE("invalid parameters are rejected with the rule and the value", "[dist]") {
  const auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const input_error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(message([] { make_uniform(3, 1); }), test::contains("uniform needs lo < hi, got lo=3, hi=1"));
  CHECK_THAT(message([] { make_normal(0, -1); }), test::contains("normal.sd: must be > 0, got -1"));
  CHECK_THAT(message([] { make_normal(0, 1, 2, 1); }), test::contains("normal needs lo < hi"));
  CHECK_THAT(message([] { make_normal(0, 1, 60, 70); }), test::contains("holds no probability"));
  CHECK_THAT(message([] { make_lognormal(0, 0); }), test::contains("lognormal.sigma: must be > 0, got 0"));
  CHECK_THAT(message([] { make_lognormal_from_quantiles(3, 2, "throughput.step_time_s"); }),
             test::contains("throughput.step_time_s: lognormal needs 0 < p50 < p90, got p50=3, p90=2"));
  CHECK_THAT(message([] { make_lognormal_from_quantiles(-1, 2); }), test::contains("0 < p50 < p90"));
  CHECK_THAT(message([] { make_triangular(0, 5, 4); }), test::contains("lo ≤ mode ≤ hi"));
  CHECK_THAT(message([] { make_triangular(1, 1, 1); }), test::contains("lo < hi"));
  CHECK_THAT(message([] { make_pert(0, -1, 4); }), test::contains("pert needs lo ≤ mode ≤ hi"));
  CHECK_THAT(message([] { make_gamma(0, 1); }), test::contains("gamma.shape: must be > 0, got 0"));
  CHECK_THAT(message([] { make_gamma(1, -2); }), test::contains("gamma.scale: must be > 0, got -2"));
  CHECK_THAT(message([] { make_weibull(-1, 1); }), test::contains("weibull.shape: must be > 0"));
  CHECK_THAT(message([] { make_exponential(0); }), test::contains("exponential.mean: must be > 0, got 0"));
  CHECK_THAT(message([] { make_beta(1, 0); }), test::contains("beta.b: must be > 0, got 0"));
  CHECK_THAT(message([] { make_beta(1, 1, 2, 2); }), test::contains("beta needs lo < hi"));
  CHECK_THAT(message([] { make_bernoulli(1.5); }), test::contains("bernoulli.p: must be in [0, 1], got 1.5"));
  CHECK_THAT(message([] { make_empirical({}); }), test::contains("empirical.samples: must hold at least one value"));
  CHECK_THAT(message([] {
               make_empirical({1, NAN});
             }),
             test::contains("empirical.samples[1]: must be a finite number, got nan"));
  CHECK_THAT(message([] { make_fixed(INFINITY); }), test::contains("fixed: must be a finite number, got inf"));
  CHECK_THAT(message([] { make_unknown(""); }), test::contains("unknown needs a reason"));
  CHECK_THROWS_AS(make_unknown("not measured yet").ppf(0.5), unknown_input_error);
}

// ---- Mixtures (docs/distributions.md, "Mixtures") -----------------------------------------------

namespace {

// The two normals N(0, 1) and N(3, 1) with weights 0.3 and 0.7.
quantity two_normals() { return make_mixture({{0.3, make_normal(0, 1)}, {0.7, make_normal(3, 1)}}); }

// u on a grid that is dense in both tails, increasing.
std::vector<double> probability_grid() {
  std::vector<double> us;
  for (int k = 50; k >= 2; --k) us.push_back(std::ldexp(1.0, -k));
  for (int i = 1; i < 1000; ++i) us.push_back(i / 1000.0);
  for (int k = 2; k <= 50; ++k) us.push_back(1 - std::ldexp(1.0, -k));
  std::sort(us.begin(), us.end());
  return us;
}

}  // namespace

TEST_CASE("a mixture's ppf inverts its cdf and is monotone", "[dist][mixture]") {
  const auto q = two_normals();
  double previous = -dist::infinity;
  for (const double u : probability_grid()) {
    const double x = q.ppf(u);
    INFO("u = " << u << " x = " << std::setprecision(17) << x);
    CHECK(std::abs(q.cdf(x) - u) <= 1e-12);
    CHECK(x >= previous);
    // The generalized inverse exactly: the smallest double where the cdf reaches u.
    CHECK(q.cdf(x) >= u);
    CHECK(q.cdf(std::nextafter(x, -dist::infinity)) < u);
    previous = x;
  }
  CHECK(q.ppf(0) == -dist::infinity);
  CHECK(q.ppf(1) == dist::infinity);
  CHECK_THAT(q.mean(), Catch::Matchers::WithinRel(0.7 * 3, 1e-15));
}

TEST_CASE("a mixture's cdf agrees with Boost.Math's normals", "[dist][mixture]") {
  const auto q = two_normals();
  const boost::math::normal_distribution<> first(0, 1), second(3, 1);
  for (double x = -6; x <= 9; x += 0.25) {
    INFO("x = " << x);
    const double reference = 0.3 * boost::math::cdf(first, x) + 0.7 * boost::math::cdf(second, x);
    CHECK_THAT(q.cdf(x), Catch::Matchers::WithinAbs(reference, 1e-15));
  }
  // And the draws pass a Kolmogorov-Smirnov test against Boost's mixture cdf.
  const double statistic = ks_statistic(draw(q, 20'000), [&](double x) {
    return 0.3 * boost::math::cdf(first, x) + 0.7 * boost::math::cdf(second, x);
  });
  CHECK(statistic < ks_critical_0_001);
}

TEST_CASE("two uniforms on disjoint intervals have the closed-form quantile", "[dist][mixture]") {
  // 0.4 on [0, 1], 0.6 on [2, 5]: u ≤ 0.4 gives u / 0.4, above 2 + 3 (u − 0.4) / 0.6.
  const auto q = make_mixture({{0.4, make_uniform(0, 1)}, {0.6, make_uniform(2, 5)}});
  for (const double u : probability_grid()) {
    const double expected = u <= 0.4 ? u / 0.4 : 2 + 3 * (u - 0.4) / 0.6;
    INFO("u = " << u);
    CHECK_THAT(q.ppf(u), Catch::Matchers::WithinRel(expected, 1e-13) || Catch::Matchers::WithinAbs(expected, 1e-15));
  }
  // The cdf is flat at 0.4 on [1, 2]: the generalized inverse is the start of the flat.
  CHECK(q.ppf(0.4) == 1.0);
  CHECK(q.support() == dist::support_t{0, 5});
  CHECK_THAT(q.mean(), Catch::Matchers::WithinRel(0.4 * 0.5 + 0.6 * 3.5, 1e-15));
}

TEST_CASE("a mixture of atoms steps exactly at the weights", "[dist][mixture]") {
  // The ported kernel: 1.0 with 80 % chance, 1.3 (30 % slower) with 20 %.
  const auto q = make_mixture({{0.8, make_fixed(1.0)}, {0.2, make_fixed(1.3)}});
  CHECK(q.ppf(0.5) == 1.0);
  CHECK(q.ppf(0.8) == 1.0);
  CHECK(q.ppf(0.85) == 1.3);
  CHECK(q.ppf(std::ldexp(1.0, -53)) == 1.0);
  CHECK(q.ppf(1 - std::ldexp(1.0, -53)) == 1.3);
  CHECK_THAT(q.cdf(1.2), Catch::Matchers::WithinRel(0.8, 1e-15));
  CHECK_THAT(q.mean(), Catch::Matchers::WithinRel(0.8 * 1.0 + 0.2 * 1.3, 1e-15));
  CHECK_FALSE(q.is_constant());
  CHECK(make_mixture({{0.5, make_fixed(2)}, {0.5, make_fixed(2)}}).is_constant());
  // An atom inside a continuous component: the uniform on [0, 2] with half the weight, the
  // other half at exactly 1.
  const auto atom = make_mixture({{0.5, make_uniform(0, 2)}, {0.5, make_fixed(1)}});
  CHECK(atom.ppf(0.25) == 1.0);  // F(1−) = 0.25, F(1) = 0.75
  CHECK(atom.ppf(0.5) == 1.0);
  CHECK(atom.ppf(0.75) == 1.0);
  CHECK_THAT(atom.ppf(0.8), Catch::Matchers::WithinRel(1.2, 1e-14));  // F(x) = x / 4 + 1 / 2 above 1
  // Bernoulli and empirical components keep their own steps and interpolation.
  const auto coin = make_mixture({{0.5, make_bernoulli(0.5)}, {0.5, make_empirical({2, 4})}});
  CHECK(coin.ppf(0.1) == 0.0);
  CHECK(coin.ppf(0.25) == 0.0);
  CHECK(coin.ppf(0.3) == 1.0);
  CHECK_THAT(coin.ppf(0.75), Catch::Matchers::WithinRel(3.0, 1e-14));
}

TEST_CASE("a mixture's mean, support and column ppf", "[dist][mixture]") {
  const std::vector<quantity> mixtures{
      two_normals(),
      make_mixture(
          {{0.8, make_lognormal_from_quantiles(3.65, 5.11)}, {0.2, make_lognormal_from_quantiles(4.75, 6.64)}}),
      make_mixture({{0.25, make_gamma(2.5, 3)}, {0.5, make_pert(1, 2, 9)}, {0.25, make_beta(2, 5, 0, 4)}}),
      make_mixture({{1.0, make_weibull(1.5, 2)}}),
      make_mixture({{0.6, make_exponential(2)}, {0.4, make_triangular(1, 2, 6)}}),
  };
  for (const auto& q : mixtures) {
    const auto& parts = *std::get<dist::mixture>(q.dist()).components;
    INFO("components: " << parts.size());
    // The mean against the weighted means of the components, and against an integral of the
    // quantile function (E[X] = ∫ ppf(u) du) by Gauss–Kronrod, away from the infinite ends.
    double weighted = 0;
    for (const auto& c : parts) weighted += c.weight * std::visit([](const auto& d) { return d.mean(); }, c.dist);
    CHECK_THAT(q.mean(), Catch::Matchers::WithinRel(weighted, 1e-14));
    const double integral = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
        [&](double u) { return q.ppf(u); }, 0.0, 1.0, 15, 1e-11);
    CHECK_THAT(integral, Catch::Matchers::WithinRel(q.mean(), 1e-7));
    // The sample mean of 200k draws within 6 standard errors (sd from the draws).
    const auto x = draw(q, 200'000, 5);
    double mean = 0, m2 = 0;
    for (const double v : x) mean += v;
    mean /= static_cast<double>(x.size());
    for (const double v : x) m2 += (v - mean) * (v - mean);
    CHECK(std::abs(mean - q.mean()) <= 6 * std::sqrt(m2 / static_cast<double>(x.size() - 1) / x.size()));
    // The column gives the scalar's numbers, and both stay in the support.
    const auto us = probability_grid();
    std::vector<double> column(us.size());
    q.ppf(us.data(), column.data(), us.size());
    const auto [lo, hi] = q.support();
    for (std::size_t i = 0; i < us.size(); ++i) {
      CHECK(column[i] == q.ppf(us[i]));
      CHECK((column[i] >= lo && column[i] <= hi));
    }
  }
}

TEST_CASE("a mixture's quantile is exact across scales and atoms", "[dist][mixture][edge]") {
  // Found by the property tests: an empirical component on [0, 1.6e-217] beside two uniforms on
  // [0, 1]. The bracket spans 217 orders of magnitude with a kink: halving values could not
  // reach the answer (ppf(0.31) came back as 4.6e-51, and ppf decreased).
  const double tiny = 1.6453567668768989e-217;
  const auto q = make_mixture(
      {{1.0 / 3, make_uniform(0, 1)}, {1.0 / 3, make_uniform(0, 1)}, {1.0 / 3, make_empirical({0.0, tiny})}});
  double previous = -dist::infinity;
  for (const double u : probability_grid()) {
    const double x = q.ppf(u);
    INFO("u = " << u << " x = " << x);
    CHECK(x >= previous);
    CHECK(q.cdf(x) >= u);
    CHECK((x == 0 || q.cdf(std::nextafter(x, -dist::infinity)) < u));
    previous = x;
  }
  CHECK(q.ppf(0.31) < tiny);
  // One component: the component's own quantile, to the last place its cdf can tell.
  const auto single = make_mixture({{1, make_gamma(2.5, 3)}});
  for (const double u : {1e-9, 0.01, 0.5, 0.99, 1 - 1e-9}) {
    const double x = single.ppf(u);
    const double representable =
        single.cdf(std::nextafter(x, dist::infinity)) - single.cdf(std::nextafter(x, -dist::infinity));
    CHECK(std::abs(single.cdf(x) - u) <= 4 * representable + 1e-16);
  }
}

TEST_CASE("a mixture is checked like its families, at its components' paths", "[dist][mixture]") {
  const auto message = test::input_error_of;
  const std::string path = "throughput.step_time_s";
  CHECK_THAT(message([&] { make_mixture({{1.2, make_fixed(1)}, {-0.2, make_fixed(2)}}, path); }),
             test::contains("throughput.step_time_s.components[1].weight: must be > 0, got -0.2"));
  CHECK_THAT(message([&] { make_mixture({{0.7, make_fixed(1)}, {0.2, make_fixed(2)}}, path); }),
             test::contains("throughput.step_time_s.components: the weights must sum to 1 (within 1e-9), got 0.7 + "
                            "0.2 = 0.9"));
  CHECK_THAT(message([&] { make_mixture({{NAN, make_fixed(1)}}, path); }),
             test::contains("components[0].weight: must be a finite number, got nan"));
  CHECK_THAT(message([&] { make_mixture({}, path); }),
             test::contains("throughput.step_time_s.components: a mixture needs at least one component, got none"));
  CHECK_THAT(message([&] { make_mixture({{1, make_unknown("not measured")}}, path); }),
             test::contains("throughput.step_time_s.components[0].value: a mixture component cannot be unknown"));
  const auto inner = make_mixture({{1, make_fixed(1)}});
  CHECK_THAT(message([&] { make_mixture({{0.5, make_fixed(1)}, {0.5, inner}}, path); }),
             test::contains("components[1].value: a mixture component cannot be a mixture"));
  auto sourced = make_fixed(1);
  sourced.prov().source = "measured";
  CHECK_THAT(message([&] { make_mixture({{1, sourced}}, path); }),
             test::contains("components[0].value: a component carries no provenance"));
  // Built directly, the components are still checked by their families' rules.
  CHECK_THAT(message([] { quantity(dist::mixture({{1.0, dist::normal{0, -1}}})); }),
             test::contains("mixture.components[0].value.sd: must be > 0, got -1"));
  CHECK_THAT(message([] { dist::mixture({{0.5, dist::fixed{1}}}); }),
             test::contains("mixture.components: the weights must sum to 1 (within 1e-9), got 0.5 = 0.5"));
  // Within 1e-9 is accepted, and the cdf still reaches exactly 1.
  const auto rounded = make_mixture({{1.0 / 3, make_uniform(0, 1)}, {1.0 / 3, make_uniform(1, 2)},
                                     {1.0 / 3 + 5e-10, make_uniform(2, 3)}});
  CHECK(rounded.cdf(3) == 1.0);
  CHECK(rounded.ppf(1 - std::ldexp(1.0, -53)) <= 3.0);
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("truncated normal keeps its upper tail accurate with only a lower bound", "[edge]") {
  const auto q = make_normal(2, 1, 0);
  const double u = 1 - 1e-12;
  const double x = q.ppf(u);
  CHECK(std::isfinite(q.ppf(1 - std::ldexp(1.0, -53))));
  // Upper-tail probability of x, relative to the truncated mass, equals 1 - u.
  const double sf = 0.5 * std::erfc((x - 2) / std::sqrt(2.0)) / (0.5 * std::erfc(-2 / std::sqrt(2.0)));
  CHECK_THAT(sf, Catch::Matchers::WithinRel(1 - u, 1e-6));  // 1 - u is exact in double
}

TEST_CASE("a truncated normal's quantile increases right up to its bounds", "[edge][adversarial]") {
  // Found by fuzz_quantity: normal(1, 2) on [0, 3] gave 3.3e-16 at u = 1.4e-17 and 1.1e-16 at
  // u = 5.6e-17, the general formula's last-place error amplified by the window.
  std::vector<double> u;
  for (int k = 60; k >= 2; k -= 2) u.push_back(std::ldexp(1.0, -k));
  for (int i = 1; i < 64; ++i) u.push_back(i / 64.0);
  for (int k = 2; k <= 53; k += 3) u.push_back(1 - std::ldexp(1.0, -k));
  std::sort(u.begin(), u.end());
  for (const auto& [mean, sd, lo, hi] : {std::array<double, 4>{1, 2, 0, 3},
                                         {0, 1, -0.5, 1},
                                         {5, 1, 6, 7},
                                         {0, 1, -3, 3},
                                         {2, 1, 0, dist::infinity},
                                         {2, 1, -dist::infinity, 2.5}}) {
    const auto q = make_normal(mean, sd, lo, hi);
    double previous = -dist::infinity;
    for (const double v : u) {
      const double x = q.ppf(v);
      CHECK(x >= previous);
      CHECK((x >= lo && x <= hi));
      previous = x;
    }
  }
  // Next to the bound, x - lo is sd u (F(b) - F(a)) / phi(a) to first order (independent of the code's expansion).
  const auto q = make_normal(1, 2, 0, 3);
  const double a = -0.5, b = 1, phi_a = std::exp(-a * a / 2) / std::sqrt(2 * M_PI);
  const double mass = 0.5 * std::erfc(-b / std::sqrt(2.0)) - 0.5 * std::erfc(-a / std::sqrt(2.0));
  CHECK_THAT(q.ppf(1e-12), Catch::Matchers::WithinRel(2 * 1e-12 * mass / phi_a, 1e-10));
}

TEST_CASE("gamma and beta shapes outside what double precision can follow are refused", "[edge][adversarial]") {
  // Found by fuzz_quantity: gamma shape 8e55 gave a decreasing ppf; shapes below 1e-3 threw
  // std::domain_error from the table; beta(1e20, 1e20) never finished.
  CHECK_THROWS_WITH(make_gamma(8.4e55, 2, "x"),
                    test::contains("x.shape: must be in [0.01, 1e10]") && test::contains("got 8.4e+55"));
  CHECK_THROWS_WITH(make_gamma(1e-5, 2, "x"), test::contains("x.shape: must be in [0.01, 1e10]"));
  CHECK_THROWS_WITH(make_beta(1e20, 1e20, 0, 1, "x"), test::contains("x.a: must be in [0.01, 1e10]"));
  CHECK_THROWS_WITH(make_beta(2, 1e-4, 0, 1, "x"), test::contains("x.b: must be in [0.01, 1e10]"));
  std::vector<double> u;
  for (int k = 60; k >= 1; --k) u.push_back(std::ldexp(1.0, -k));
  for (int i = 1; i < 1000; ++i) u.push_back(i / 1000.0);
  for (int k = 1; k <= 53; ++k) u.push_back(1 - std::ldexp(1.0, -k));
  std::sort(u.begin(), u.end());
  for (const auto& q : {make_gamma(0.01, 1), make_gamma(1e10, 1), make_beta(0.01, 0.01), make_beta(0.01, 1e10),
                        make_beta(1e10, 1e10), make_beta(1e10, 0.01)}) {
    std::vector<double> x(u.size());
    q.ppf(u.data(), x.data(), u.size());
    const auto [lo, hi] = q.support();
    INFO(detail::describe_json(quantity_to_json(q)));
    CHECK(std::is_sorted(x.begin(), x.end()));
    CHECK((x.front() >= lo && x.back() <= hi));
  }
}

TEST_CASE("messages are cut at a character boundary, triangular draws stay in the support", "[edge][adversarial]") {
  // Found by the property tests: a message cut inside "é" was not UTF-8, and Python failed to
  // decode it (UnicodeDecodeError instead of ScenarioError).
  CHECK(detail::shorten("a\xc3\xa9"
                        "a\xc3\xa9"
                        "a\xc3\xa9",
                        6) == "a\xc3\xa9...");
  CHECK(detail::shorten("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 6) == "\xc3\xa9...");
  CHECK(detail::shorten("short", 6) == "short");
  CHECK_THAT(test::scenario_error(test::edge_head + R"("throughput": {"step_time_s": 2}, "name": [")" +
                                  std::string(100, 'x') + "\"]}"),
             test::contains("name: must be a string, got [\"xxx") && test::contains("x..."));
  // A NUL in a key would end what() there: control characters are written out.
  CHECK_THAT(test::scenario_error(R"({"schema": "trnmodel.scenario/1", "a\u0000b\n": 1})"),
             test::contains("a\\u0000b\\u000a: unknown key"));
  // hi − √((1 − u)·…) rounds to 0 below lo = 9e-275 for u = 2^-60.
  const auto q = make_triangular(8.952378074998726e-275, 8.952378074998726e-275, 1);
  CHECK(q.ppf(std::ldexp(1.0, -60)) == 8.952378074998726e-275);
}

TEST_CASE("the mean of equal measured values is that value", "[edge][adversarial]") {
  CHECK(make_empirical({1e-5, 1e-5, 1e-5}).mean() == 1e-5);  // the sum rounded 3e-16 above
}

TEST_CASE("beta's far tails follow the leading term where Boost's inverse loses accuracy", "[edge][adversarial]") {
  // Found by fuzz_quantity: beta(0.5, 2) at u = 2^-28 gave 9e-24 (and a decreasing ppf); the
  // quantile there is (a B(a, b) u)^(1/a) = 6.17e-18 to double precision.
  const auto q = make_beta(0.5, 2);
  const double log_beta = std::lgamma(0.5) + std::lgamma(2.0) - std::lgamma(2.5);
  for (const int k : {28, 30, 34, 40, 60}) {
    const double u = std::ldexp(1.0, -k);
    CHECK_THAT(q.ppf(u), Catch::Matchers::WithinRel(std::exp(2 * (std::log(0.5 * u) + log_beta)), 1e-12));
  }
}

TEST_CASE("quantile tables are shared by family and parameters, across copies and reloads", "[distributions]") {
  auto& cache = dist::detail::table_cache::shared();
  const double u = 0.3;
  const double first = make_beta(2.25, 7.75).ppf(u);  // parameters no other test uses
  const std::size_t after_first = cache.size();
  // A second distribution with the same parameters (a reloaded scenario, an updated() copy)
  // builds nothing and gives the same bits; other parameters build their own table.
  CHECK(make_beta(2.25, 7.75, 0, 1).ppf(u) == first);
  CHECK(cache.size() == after_first);
  CHECK(make_gamma(3.125, 2).ppf(u) == 2 * make_gamma(3.125, 1).ppf(u));
  CHECK(cache.size() == std::min(after_first + 1, dist::detail::table_cache::capacity));
  // PERT is a beta on [lo, hi]: PERT(0, 2, 8) has shapes 1 + 4(2/8) = 2 and 1 + 4(6/8) = 4.
  CHECK(make_pert(0, 2, 8).ppf(u) == 8 * make_beta(2, 4).ppf(u));
}

TEST_CASE("the tables' Hermite interpolant is Boost's cardinal_cubic_hermite bit for bit", "[dist]") {
  // The tables' numbers must not change with the class that evaluates them: same knots, same
  // operations, same bits, anywhere in [x0, xf] (including the last knot itself).
  std::vector<double> y(4097), dy(4097);
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] = std::sin(0.001 * i) + 1e-3 * i;
    dy[i] = std::cos(0.001 * i) * 1e3 + 1;
  }
  const double x0 = 1.0 / 16, dx = 0.875 / 4096;
  const boost::math::interpolators::cardinal_cubic_hermite<std::vector<double>> boost_spline(
      std::vector<double>(y), std::vector<double>(dy), x0, dx);
  const trnmodel::detail::cardinal_hermite ours(std::vector<double>(y), std::vector<double>(dy), x0, dx);
  std::vector<double> xs{ours.x0, ours.xf};
  for (std::uint64_t i = 0; i < 20000; ++i) xs.push_back(x0 + (ours.xf - x0) * detail::uniform(5, i, 2));
  std::vector<double> column(xs.size());
  trnmodel::detail::hermite_column(ours, xs.data(), column.data(), xs.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    differ += ours(xs[i]) == boost_spline(xs[i]) ? 0 : 1;
    differ += column[i] == boost_spline(xs[i]) ? 0 : 1;
  }
  CHECK(differ == 0);
  CHECK(std::isnan(ours(ours.xf * (1 + 1e-15))));
  CHECK(std::isnan(ours(x0 * (1 - 1e-15))));
}

}  // namespace test_distributions
