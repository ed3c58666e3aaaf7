#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;

TEST_CASE("merged moments equal moments of the whole", "[accumulators]") {
  std::vector<double> x;
  for (int i = 0; i < 10'001; ++i) x.push_back(1e6 + std::exp(3 * uniform(1, i, 0)));  // large offset: cancellation test
  moments whole;
  whole.add(x.data(), x.size());
  moments merged;
  for (std::size_t first = 0; first < x.size(); first += 777) {
    moments part;
    part.add(x.data() + first, std::min<std::size_t>(777, x.size() - first));
    merged.merge(part);
  }
  // Reference by long double two-pass.
  long double mean = 0, m2 = 0;
  for (const double v : x) mean += v;
  mean /= x.size();
  for (const double v : x) m2 += (v - mean) * (v - mean);
  const double variance = static_cast<double>(m2 / (x.size() - 1));
  CHECK(merged.count == x.size());
  CHECK_THAT(merged.mean, Catch::Matchers::WithinRel(static_cast<double>(mean), 1e-15));
  CHECK_THAT(merged.variance(), Catch::Matchers::WithinRel(variance, 1e-9));
  CHECK_THAT(whole.variance(), Catch::Matchers::WithinRel(variance, 1e-9));
  CHECK(merged.min == *std::min_element(x.begin(), x.end()));
  CHECK(merged.max == *std::max_element(x.begin(), x.end()));
}

TEST_CASE("NaN values are counted, not mixed into the moments", "[accumulators]") {
  const std::vector<double> x{1, NAN, 3};
  moments m;
  m.add(x.data(), x.size());
  CHECK(m.count == 2);
  CHECK(m.nan_count == 1);
  CHECK(m.mean == 2);
  moments empty;
  const std::vector<double> nan_only{NAN};
  empty.add(nan_only.data(), 1);
  CHECK(empty.count == 0);
  CHECK(std::isnan(empty.variance()));
}

TEST_CASE("log histogram quantiles are within the stated relative accuracy", "[accumulators]") {
  for (const double alpha : {1e-2, 1e-3}) {
    log_histogram h(alpha);
    std::vector<double> x;
    for (int i = 0; i < 100'000; ++i) {
      const double u = uniform(5, i, 1);
      // Mixed signs, zeros and a wide range of magnitudes.
      const double v = i % 10 == 0 ? 0.0 : (u < 0.2 ? -std::exp(10 * u) : std::exp(20 * (u - 0.5)));
      x.push_back(v);
      h.add(v);
    }
    std::sort(x.begin(), x.end());
    CHECK(h.count() == x.size());
    for (std::uint64_t rank : {0ull, 1ull, 500ull, 9'999ull, 10'000ull, 50'000ull, 99'998ull, 99'999ull}) {
      INFO("alpha " << alpha << " rank " << rank);
      const double exact = x[rank];
      CHECK(std::abs(h.at_rank(rank) - exact) <= alpha * std::abs(exact) * (1 + 1e-12));
    }
    // Merging two halves gives the same histogram as one.
    log_histogram a(alpha), b(alpha);
    for (std::size_t i = 0; i < x.size(); ++i) (i % 2 ? a : b).add(x[i]);
    a.merge(b);
    for (const double q : {0.1, 0.5, 0.9, 0.99}) CHECK(a.quantile(q) == h.quantile(q));
  }
  CHECK_THROWS_AS(log_histogram(0.0), input_error);
}
