#include <algorithm>
#include <iomanip>
#include <cmath>
#include <string>
#include <vector>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>

#include "catch.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;

namespace {

std::vector<double> draw(const quantity& q, std::size_t n, std::uint64_t seed = 1) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = q.ppf(uniform(seed, i, 0));
  return x;
}

// sqrt(n) * D of the one-sample Kolmogorov-Smirnov test against `cdf`.
template <class Cdf>
double ks_statistic(std::vector<double> x, const Cdf& cdf) {
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
  CHECK(ks_statistic(draw(g, 50'000, 9), [&](double x) { return boost::math::cdf(boost_gamma, x); }) < ks_critical_0_001);
  const auto b = make_beta(0.7, 3);
  boost::math::beta_distribution<> boost_beta(0.7, 3);
  CHECK(ks_statistic(draw(b, 50'000, 9), [&](double x) { return boost::math::cdf(boost_beta, x); }) < ks_critical_0_001);
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
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.5, 0.5}, {2, 5}, {1, 1}, {0.2, 3}, {30, 40}, {5, 0.3}}) {
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
  CHECK_THAT(message([] { make_empirical({1, NAN}); }), test::contains("empirical.samples[1]: must be a finite number, got nan"));
  CHECK_THAT(message([] { make_fixed(INFINITY); }), test::contains("fixed: must be a finite number, got inf"));
  CHECK_THAT(message([] { make_unknown(""); }), test::contains("unknown needs a reason"));
  CHECK_THROWS_AS(make_unknown("not measured yet").ppf(0.5), unknown_input_error);
}
