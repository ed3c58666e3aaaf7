// Exact order statistics and quantiles (montecarlo/order_statistics.hpp) against an independent
// computation: the non-NaN values sorted, ranks read off, type-7 quantiles interpolated.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "catch.hpp"
#include "same_bits.hpp"
#include "trnmodel/montecarlo/order_statistics.hpp"
#include "trnmodel/montecarlo/run_result.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;

namespace test_order_statistics {

const double inf = std::numeric_limits<double>::infinity();
const double nan = std::numeric_limits<double>::quiet_NaN();

// The non-NaN values, sorted (−0 before +0, as the keys order them).
std::vector<double> sorted_numbers(const std::vector<double>& x) {
  std::vector<double> v;
  for (const double value : x)
    if (!std::isnan(value)) v.push_back(value);
  std::sort(v.begin(), v.end(), [](double a, double b) { return a < b || (a == b && std::signbit(a) > std::signbit(b)); });
  return v;
}

// numpy.quantile's default ("linear", type 7), from the sorted values.
double type7(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = std::min(static_cast<std::size_t>(h), sorted.size() - 1);
  const double lower = sorted[lo], upper = sorted[std::min(lo + 1, sorted.size() - 1)];
  return upper == lower || h == static_cast<double>(lo) ? lower : lower + (h - static_cast<double>(lo)) * (upper - lower);
}

// Every rank's value and the quantiles at a grid of probabilities (extremes included) agree,
// bit for bit, with sorting.
void check_against_sorting(const std::vector<double>& x) {
  const std::vector<double> sorted = sorted_numbers(x);
  const order_statistics stats(x.data(), x.size());
  REQUIRE(stats.count() == sorted.size());
  if (sorted.empty()) {
    for (const double q : stats.quantiles({0, 0.5, 1})) CHECK(std::isnan(q));
    return;
  }
  std::vector<std::size_t> ranks;
  const std::size_t step = std::max<std::size_t>(1, sorted.size() / 997);
  for (std::size_t r = 0; r < sorted.size(); r += step) ranks.push_back(r);
  ranks.push_back(sorted.size() - 1);
  std::reverse(ranks.begin(), ranks.end());  // any order
  ranks.push_back(ranks.front());            // repeats allowed
  const std::vector<double> at = stats.at(ranks);
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    INFO("rank " << ranks[k] << " of " << sorted.size());
    CHECK(test::same_bits(at[k], sorted[ranks[k]]));
  }
  const std::vector<double> probabilities{0, 1e-6, 0.001, 0.1, 0.25, 0.5, 0.8, 0.9, 0.99, 0.999, 0.999999, 1};
  const std::vector<double> q = stats.quantiles(probabilities);
  for (std::size_t k = 0; k < probabilities.size(); ++k) {
    INFO("p = " << probabilities[k]);
    CHECK(test::same_bits(q[k], type7(sorted, probabilities[k])));
  }
}

double u(std::uint64_t i, std::uint32_t stream = 0) { return detail::uniform(7, i, stream); }

TEST_CASE("order statistics: continuous columns, NaN left out", "[order_statistics]") {
  std::vector<double> uniform, heavy, signs;
  for (std::uint64_t i = 0; i < 200'000; ++i) {
    uniform.push_back(i % 101 == 0 ? nan : u(i));
    heavy.push_back(std::exp(6 * std::sqrt(-2 * std::log(u(i, 1))) * std::cos(6.283185307179586 * u(i, 2))));
    signs.push_back(u(i, 3) - 0.5);
  }
  SECTION("uniform with NaN") { check_against_sorting(uniform); }
  // A lognormal of sigma 6: a P99.9 about 10^8 times the median.
  SECTION("heavy tail") { check_against_sorting(heavy); }
  SECTION("both signs") { check_against_sorting(signs); }
}

TEST_CASE("order statistics: ties, zeros of both signs, infinities, few values", "[order_statistics]") {
  std::vector<double> counts, zeros, infinite;
  for (std::uint64_t i = 0; i < 50'000; ++i) {
    counts.push_back(std::floor(6 * u(i)));  // a failure count: six values, many times each
    zeros.push_back(u(i) < 0.5 ? 0.0 : -0.0);
    infinite.push_back(u(i) < 0.01 ? inf : u(i) < 0.02 ? -inf : u(i, 1));
  }
  check_against_sorting(counts);
  check_against_sorting(zeros);
  check_against_sorting(infinite);
  check_against_sorting({});
  check_against_sorting({nan, nan});
  check_against_sorting({3.5});
  check_against_sorting({2, 1});
  check_against_sorting(std::vector<double>(10'000, 42.0));
}

// One value far from the rest puts the bulk in one slice of the key range: it is sliced again
// (and again), and every rank still comes out exact.
TEST_CASE("order statistics: an outlier forces nested slicing", "[order_statistics]") {
  std::vector<double> x;
  for (std::uint64_t i = 0; i < 100'000; ++i) x.push_back(1 + 1e-9 * u(i));
  x.push_back(1e300);
  x.push_back(-1e300);
  check_against_sorting(x);
}

// Known bounds (a run's moments) save the first pass; bounds that are not the values' (too
// narrow, a wrong count) cost that pass again and give the same result.
TEST_CASE("order statistics: given bounds, right or wrong, give the values' order statistics", "[order_statistics]") {
  std::vector<double> x;
  for (std::uint64_t i = 0; i < 20'000; ++i) x.push_back(i % 97 == 0 ? nan : std::exp(3 * u(i)) - 5);
  x.push_back(0.0);
  x.push_back(-0.0);
  const order_statistics found(x.data(), x.size());
  const std::vector<double> p{0, 0.01, 0.5, 0.99, 1};
  const std::vector<double> expected = found.quantiles(p);
  double lo = inf, hi = -inf;
  for (const double v : x)
    if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  struct bounds {
    std::size_t count;
    double min, max;
  };
  for (const bounds& b : {bounds{found.count(), lo, hi}, bounds{found.count(), lo + 1, hi},
                          bounds{found.count(), lo, hi - 1}, bounds{found.count() + 3, lo, hi},
                          bounds{found.count() - 1, lo, hi}, bounds{found.count(), nan, nan}}) {
    INFO(b.count << " " << b.min << " " << b.max);
    const std::vector<double> q = order_statistics(x.data(), x.size(), b.count, b.min, b.max).quantiles(p);
    for (std::size_t k = 0; k < p.size(); ++k) CHECK(test::same_bits(q[k], expected[k]));
  }
  // A minimum of +0 over values holding −0 (the moments' min cannot tell them apart).
  const std::vector<double> zeros{0.0, -0.0, 1.0, -0.0};
  const auto z = order_statistics(zeros.data(), zeros.size(), 4, 0.0, 1.0).at({0, 1, 2, 3});
  CHECK(test::same_bits(z[0], -0.0));
  CHECK(test::same_bits(z[1], -0.0));
  CHECK(test::same_bits(z[2], 0.0));
}

TEST_CASE("order statistics: order keys sort as the doubles do", "[order_statistics]") {
  const std::vector<double> ascending{-inf, -1e308, -1, -5e-324, -0.0, 0.0, 5e-324, 1, 1e308, inf};
  for (std::size_t k = 0; k + 1 < ascending.size(); ++k) {
    CHECK(detail::order_key(ascending[k]) < detail::order_key(ascending[k + 1]));
    CHECK(test::same_bits(detail::from_order_key(detail::order_key(ascending[k])), ascending[k]));
  }
  for (const double v : ascending) CHECK(detail::is_number_key(detail::order_key(v)));
  CHECK_FALSE(detail::is_number_key(detail::order_key(nan)));
  CHECK_FALSE(detail::is_number_key(detail::order_key(-nan)));
}

}  // namespace test_order_statistics
