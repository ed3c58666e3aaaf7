#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/random/isa.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_accumulators {

TEST_CASE("merged moments equal moments of the whole", "[accumulators]") {
  std::vector<double> x;
  for (int i = 0; i < 10'001; ++i)
    x.push_back(1e6 + std::exp(3 * detail::uniform(1, i, 0)));  // large offset: cancellation test
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

TEST_CASE("block moments sum in eight lanes, the same bits on every path", "[accumulators]") {
  // Eleven columns of 1,001 values (not a multiple of eight) with a 1,009-value stride; columns
  // with NaN, infinities, signed zeros, all NaN, a constant, a huge offset.
  constexpr std::size_t n = 1001, stride = 1009, columns = 11;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> x(stride * columns);
  for (std::size_t k = 0; k < columns; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const double u = detail::uniform(7, i, static_cast<std::uint32_t>(k));
      double v = std::exp(4 * u) - 3;
      if (k == 1 && i % 7 == 3) v = nan;
      if (k == 2) v = i % 2 ? -0.0 : 0.0;
      if (k == 3) v = nan;
      if (k == 5 && i == 500) v = inf;
      if (k == 6 && i % 100 == 0) v = i % 200 ? -inf : inf;
      if (k == 7) v = 2.5;
      if (k == 8) v = 1e12 + u;
      if (k == 9 && i == 0) v = nan;
      x[k * stride + i] = v;
    }
  const auto bits = [](double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  // The method written out plainly: value i in lane i mod 8, lanes combined
  // ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)), NaN left out.
  const auto plain = [&](const double* v) {
    double sum[8] = {}, m2[8] = {};
    moments m;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(v[i])) continue;
      sum[i % 8] += v[i];
      ++m.count;
      m.min = std::min(m.min, v[i]);
      m.max = std::max(m.max, v[i]);
    }
    m.nan_count = n - m.count;
    if (m.count == 0) return m;
    const auto tree = [](const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); };
    m.mean = tree(sum) / static_cast<double>(m.count);
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isnan(v[i])) m2[i % 8] += (v[i] - m.mean) * (v[i] - m.mean);
    m.m2 = tree(m2);
    return m;
  };
  std::vector<moments> four(columns);
  for (const isa path : available_isas()) {
    INFO("path " << isa_name(path));
    const isa previous = set_isa_limit(path);
    std::vector<moments> got(columns);
    moments::add_columns(x.data(), stride, n, columns, got.data());
    set_isa_limit(previous);
    for (std::size_t k = 0; k < columns; ++k) {
      INFO("column " << k);
      const moments one = plain(x.data() + k * stride);
      CHECK(got[k].count == one.count);
      CHECK(got[k].nan_count == one.nan_count);
      CHECK(bits(got[k].mean) == bits(one.mean));
      CHECK(bits(got[k].m2) == bits(one.m2));
      CHECK(got[k].min == one.min);  // a signed zero's sign may depend on the order of comparisons
      CHECK(got[k].max == one.max);
    }
    four = got;
  }
  CHECK(four[1].nan_count == 143);  // i % 7 == 3 for i < 1001
  CHECK(four[3].count == 0);
  CHECK(std::isnan(four[6].mean));  // +inf and -inf
  CHECK(four[7].mean == 2.5);
  CHECK(four[7].m2 == 0);
}

TEST_CASE("log histogram quantiles are within the stated relative accuracy", "[accumulators]") {
  for (const double alpha : {1e-2, 1e-3}) {
    log_histogram h(alpha);
    std::vector<double> x;
    for (int i = 0; i < 100'000; ++i) {
      const double u = detail::uniform(5, i, 1);
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

TEST_CASE("moments and co-moments share one merge: K = 1 co-moments are moments' mean and M2", "[accumulators]") {
  std::vector<double> x;
  for (int i = 0; i < 5'000; ++i) x.push_back(1e3 + std::exp(2 * detail::uniform(9, i, 4)));
  moments m;
  co_moments<1> c;
  for (std::size_t first = 0; first < x.size(); first += 333) {
    const std::size_t n = std::min<std::size_t>(333, x.size() - first);
    moments part;
    part.add(x.data() + first, n);
    m.merge(part);
    co_moments<1> block;
    block.count = part.count;
    block.mean[0] = part.mean;
    block.comoment[0] = part.m2;
    c.merge(block);
  }
  CHECK(c.count == m.count);
  CHECK(c.mean[0] == m.mean);  // bit for bit: the same operations in the same order
  CHECK(c.comoment[0] == m.m2);
  CHECK(c.covariance(0, 0) == m.variance());
}

TEST_CASE("co-moments merged by blocks give the covariance of the whole", "[accumulators]") {
  const Eigen::Index n = 9'001;
  Eigen::Array<double, Eigen::Dynamic, 3> z(n, 3);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double u = detail::uniform(2, static_cast<std::uint64_t>(i), 1),
                 v = detail::uniform(2, static_cast<std::uint64_t>(i), 2);
    z(i, 0) = 1e4 + u;  // a large offset: the merge must not lose the spread
    z(i, 1) = u + v;
    z(i, 2) = -3 * u + v * v;
  }
  co_moments<3> merged;
  for (Eigen::Index first = 0; first < n; first += 1000) {
    const Eigen::Index rows = std::min<Eigen::Index>(1000, n - first);
    merged.add(z.middleRows(first, rows));
  }
  CHECK(merged.count == static_cast<std::uint64_t>(n));
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) {
      long double mk = 0, ml = 0, s = 0;
      for (Eigen::Index i = 0; i < n; ++i) mk += z(i, k), ml += z(i, l);
      mk /= n;
      ml /= n;
      for (Eigen::Index i = 0; i < n; ++i) s += (z(i, k) - mk) * (z(i, l) - ml);
      INFO("k " << k << " l " << l);
      CHECK_THAT(merged.covariance(k, l), Catch::Matchers::WithinRel(static_cast<double>(s / (n - 1)), 1e-9));
      CHECK(merged.covariance(k, l) == merged.covariance(l, k));
    }
}

TEST_CASE("moments and histograms round-trip through bytes exactly", "[accumulators]") {
  log_histogram h(1e-2);
  moments m;
  std::vector<double> x{0.0, -2.5, 3e-300, 7e300, INFINITY, -INFINITY, NAN, 1.0, 1.0};
  for (const double v : x) h.add(v);
  m.add(x.data(), x.size());  // min/max infinite, a NaN counted
  detail::byte_writer out;
  m.write(out);
  h.write(out);
  const std::string bytes = out.take();
  detail::byte_reader in(bytes);
  const moments m2 = moments::read(in);
  const log_histogram h2 = log_histogram::read(in);
  CHECK(in.done());
  CHECK(m2.count == m.count);
  CHECK(m2.nan_count == m.nan_count);
  CHECK(std::memcmp(&m2.mean, &m.mean, sizeof(double)) == 0);  // NaN here: compared by bits
  CHECK(std::memcmp(&m2.m2, &m.m2, sizeof(double)) == 0);
  CHECK(m2.min == m.min);
  CHECK(m2.max == m.max);
  CHECK(h2.relative_accuracy() == h.relative_accuracy());
  CHECK(h2.count() == h.count());
  for (std::uint64_t r = 0; r < h.count(); ++r) CHECK(h2.at_rank(r) == h.at_rank(r));
  detail::byte_reader truncated(std::string_view(bytes).substr(0, bytes.size() - 3));
  (void)moments::read(truncated);
  CHECK_THROWS_WITH(log_histogram::read(truncated), test::contains("partial: truncated"));
}

TEST_CASE("the log-free bucket index is the logarithm's, edges included", "[montecarlo]") {
  // index() estimates log m from the exponent bits and a table; exact_index() is the
  // definition, ceil(log(m) / log(gamma)). They must agree for every value: random magnitudes
  // over the whole range, and the bucket edges gamma^i with their neighbouring doubles.
  std::size_t compared = 0, differ = 0;
  for (const double alpha : {1e-4, 1e-3, 1e-2, 0.1, 0.4}) {
    const log_histogram h(alpha);
    const double log_gamma = std::log((1 + alpha) / (1 - alpha));
    const auto check = [&](double m) {
      // Magnitudes only: an edge beyond the doubles (exp underflows to 0, or overflows), or a step
      // below the smallest subnormal, is none (both functions take m > 0, finite).
      if (!(m > 0 && std::isfinite(m))) return;
      ++compared;
      differ += h.index(m) == h.exact_index(m) ? 0 : 1;
    };
    for (std::uint64_t k = 0; k < 200000; ++k) {
      const double u = detail::uniform(9, k, 4);
      check(std::exp((u - 0.5) * 1400));  // the whole double range
      check(std::exp((u - 0.5) * 40));  // the values a run meets
      check(1 + u * 1e-3);  // the first buckets above 1
    }
    for (std::int64_t i = -3000; i <= 3000; ++i) {
      const double edge = std::exp(static_cast<double>(i) * log_gamma);
      for (double m = edge, k = 0; k < 3; ++k, m = std::nextafter(m, 0.0)) check(m);
      for (double m = edge, k = 0; k < 3; ++k, m = std::nextafter(m, 1e308)) check(m);
    }
    for (const double m :
         {std::ldexp(1.0, -1074), std::ldexp(1.0, -1022), 1.0, 2.0, 0.5, 1e308, 1.7976931348623157e308})
      check(m);
  }
  CHECK(differ == 0);
  CHECK(compared > 3'000'000);
}

}  // namespace test_accumulators

TEST_CASE("a histogram's column of values gives add()'s counts, on every path", "[accumulators]") {
  // Values of every kind: positive and negative over many decades, zeros of both signs, NaN,
  // infinities, subnormals, and values on bucket edges (where the exact logarithm decides).
  std::vector<double> x;
  for (std::uint64_t i = 0; i < 3000; ++i) {
    const double u = detail::uniform(11, i, 5);
    x.push_back((i % 3 == 0 ? -1.0 : 1.0) * std::exp(60 * u - 30));
  }
  const double gamma = (1 + 1e-3) / (1 - 1e-3);
  for (int k = -50; k <= 50; ++k) x.push_back(std::pow(gamma, k));
  for (const double v : {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(), 1e-310, -4e-320, std::numeric_limits<double>::max()})
    x.push_back(v);
  log_histogram one(1e-3);
  for (const double v : x) one.add(v);
  for (const isa path : available_isas()) {
    INFO("path " << isa_name(path));
    const isa previous = set_isa_limit(path);
    log_histogram column(1e-3);
    column.add_column(x.data(), x.size());
    set_isa_limit(previous);
    CHECK(column.count() == one.count());
    for (std::uint64_t rank = 0; rank <= one.count(); rank += 7) CHECK(column.at_rank(rank) == one.at_rank(rank));
    CHECK(column.at_rank(one.count() - 1) == one.at_rank(one.count() - 1));
  }
}

// Parts of 256 equal values (an output the job does not use) are counted at once: the counts,
// byte for byte, of adding each value, for a constant, zeros, −0, NaN, ±inf, a subnormal, a
// part of +0 and −0 mixed (not one value: counted value by value), and short last parts.
TEST_CASE("a histogram's column of equal values gives add()'s counts", "[accumulators]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> x;
  for (const double v : {3.5, 0.0, -0.0, nan, inf, -inf, 1e-310, -2.25})
    for (int i = 0; i < 256; ++i) x.push_back(v);
  for (int i = 0; i < 256; ++i) x.push_back(i % 2 ? 0.0 : -0.0);
  for (int i = 0; i < 256; ++i) x.push_back(i == 255 ? 7.0 : 6.0);  // equal but the last
  for (int i = 0; i < 100; ++i) x.push_back(42.0);  // a short last part
  log_histogram one(1e-3), column(1e-3);
  for (const double v : x) one.add(v);
  column.add_column(x.data(), x.size());
  detail::byte_writer a, b;
  one.write(a);
  column.write(b);
  CHECK(a.take() == b.take());
  CHECK(column.count() == x.size() - 256);  // the NaN part is not counted
}
