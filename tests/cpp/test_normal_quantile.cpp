// The normal quantile (AS 241) and the lane exp / log against Boost.Math and the C library,
// over the whole open interval and the whole range.
#include <cmath>
#include <cstdint>
#include <vector>

#include <boost/math/special_functions/erf.hpp>

#include "catch.hpp"
#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/dist/normal_quantile.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;
using dist::detail::lane_exp;
using dist::detail::lane_log;
using dist::detail::normal_ppf;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_normal_quantile {

namespace {
// Boost's quantile in long double precision: the reference.
long double reference_ppf(double p) {
  const long double lp = p;
  return p < 0.5 ? -std::sqrt(2.0L) * boost::math::erfc_inv(2 * lp)
                 : std::sqrt(2.0L) * boost::math::erfc_inv(2 * (1 - lp));
}
}  // namespace

TEST_CASE("the normal quantile is within 1e-15 of Boost.Math over the whole open interval", "[dist]") {
  std::vector<double> ps;
  for (double e = -323; e < -0.302; e += 0.0137) ps.push_back(std::pow(10.0, e));  // lower tail to the subnormals
  for (int i = 1; i < 20000; ++i) ps.push_back(i / 20000.0);  // both region boundaries
  for (double e = -16; e < -0.302; e += 0.0137) ps.push_back(1 - std::pow(10.0, e));  // upper tail
  for (const double p : {0.075, 0.925, 0.5 - 0.425, 0.5 + 0.425, std::ldexp(1.0, -53), 1 - std::ldexp(1.0, -53),
                         1.4e-11, 1.3887943864964021e-11})
    ps.push_back(p);
  for (std::uint64_t i = 0; i < 100000; ++i) ps.push_back(detail::uniform(3, i, 1));
  double worst = 0;
  for (const double p : ps) {
    const long double exact = reference_ppf(p);
    const double z = normal_ppf(p);
    if (exact == 0) {
      CHECK(z == 0);
      continue;
    }
    const double error = static_cast<double>(std::abs((z - exact) / exact));
    worst = std::max(worst, error);
    INFO("p = " << p);
    REQUIRE(error < 1e-15);
  }
  WARN("worst relative error of the normal quantile: " << worst);
  CHECK(normal_ppf(0.5) == 0);
  CHECK(normal_ppf(0) == -INFINITY);
  CHECK(normal_ppf(1) == INFINITY);
  CHECK(std::isnan(normal_ppf(NAN)));
  // Odd about 1/2, so upper-tail quantiles keep their accuracy (normal_isf).
  for (const double p : {1e-300, 1e-20, 0.01, 0.3}) CHECK((p < 1e-16 || normal_ppf(1 - p) == -normal_ppf(p)));
}

TEST_CASE("lane exp and log are within 4e-16 of the C library over their range", "[dist]") {
  double worst_exp = 0, worst_log = 0;
  for (double x = -744; x < 709.7; x += 0.01337) {
    const long double exact = std::exp(static_cast<long double>(x));
    if (exact < 0x1.0p-1022L) {
      CHECK(std::abs(lane_exp(x) - exact) <= 0x1.0p-1074L);  // subnormal results: within one unit
      continue;
    }
    worst_exp = std::max(worst_exp, static_cast<double>(std::abs((lane_exp(x) - exact) / exact)));
  }
  for (double e = -323.5; e < 308; e += 0.00731) {
    const double x = std::pow(10.0, e);
    const long double exact = std::log(static_cast<long double>(x));
    if (exact == 0) continue;
    worst_log = std::max(worst_log, static_cast<double>(std::abs((lane_log(x) - exact) / exact)));
  }
  for (double x = 0.5; x < 2; x += 1e-5) {  // around 1, where log x is small
    const long double exact = std::log(static_cast<long double>(x));
    if (exact != 0) worst_log = std::max(worst_log, static_cast<double>(std::abs((lane_log(x) - exact) / exact)));
  }
  WARN("worst relative error: exp " << worst_exp << ", log " << worst_log);
  CHECK(worst_exp < 4e-16);
  CHECK(worst_log < 4e-16);
  CHECK(lane_exp(0) == 1);
  CHECK(lane_exp(-INFINITY) == 0);
  CHECK(lane_exp(INFINITY) == INFINITY);
  CHECK(lane_exp(710) == INFINITY);
  CHECK(std::isnan(lane_exp(NAN)));
  CHECK(lane_log(1) == 0);
  CHECK(lane_log(0) == -INFINITY);
  CHECK(lane_log(INFINITY) == INFINITY);
  CHECK(std::isnan(lane_log(-1)));
  CHECK(std::isnan(lane_log(NAN)));
}

TEST_CASE("lane log1p is within 4e-16 of log1p, and exact in form for the failure clock's -u", "[dist]") {
  using dist::detail::lane_log1p;
  double worst = 0;
  for (double e = -300; e < 300; e += 0.0173) {  // x = ±10^e, from tiny to huge, where defined
    for (const double sign : {1.0, -1.0}) {
      const double x = sign * std::pow(10.0, e);
      if (x <= -1) continue;
      const long double exact = std::log1p(static_cast<long double>(x));
      if (exact == 0) continue;
      worst = std::max(worst, static_cast<double>(std::abs((lane_log1p(x) - exact) / exact)));
    }
  }
  // The failure clock's argument: -u for uniforms (2k + 1) 2^-53 of random/philox.hpp, where
  // 1 - u is exact.
  for (std::uint64_t k = 0; k < (1ull << 52); k = 3 * k + 1) {
    const double u = static_cast<double>(2 * k + 1) * 0x1.0p-53;
    const long double exact = std::log1p(-static_cast<long double>(u));
    worst = std::max(worst, static_cast<double>(std::abs((lane_log1p(-u) - exact) / exact)));
  }
  WARN("worst relative error of lane log1p: " << worst);
  CHECK(worst < 4e-16);
  CHECK(lane_log1p(0) == 0);
  CHECK(lane_log1p(-1) == -INFINITY);
  CHECK(lane_log1p(INFINITY) == INFINITY);
  CHECK(std::isnan(lane_log1p(-2)));
  CHECK(std::isnan(lane_log1p(NAN)));
}

TEST_CASE("normal and lognormal quantiles follow AS 241 and the lane exp", "[dist]") {
  const auto n = make_normal(10, 3);
  const auto ln = make_lognormal(0.3, 0.8);
  for (const double u : {1e-12, 0.01, 0.3, 0.5, 0.9, 1 - 1e-12}) {
    CHECK(n.ppf(u) == 10 + 3 * normal_ppf(u));
    CHECK(ln.ppf(u) == lane_exp(0.3 + 0.8 * normal_ppf(u)));
    CHECK_THAT(ln.ppf(u),
               Catch::Matchers::WithinRel(std::exp(0.3 + 0.8 * static_cast<double>(reference_ppf(u))), 1e-14));
  }
}

}  // namespace test_normal_quantile
