#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "catch.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/stream_id.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_random {

TEST_CASE("Philox4x32-10 reproduces the Random123 known answers", "[random]") {
  // Random123 tests/kat_vectors, philox4x32 with 10 rounds.
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) == philox_counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        philox_counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        philox_counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("uniforms are a pure function of (seed, sample, stream, draw) in (0, 1)", "[random]") {
  CHECK(detail::uniform(7, 123, 5, 3) == detail::uniform(7, 123, 5, 3));
  CHECK(detail::uniform(7, 123, 5, 3) != detail::uniform(8, 123, 5, 3));
  CHECK(detail::uniform(7, 123, 5, 3) != detail::uniform(7, 124, 5, 3));
  CHECK(detail::uniform(7, 123, 5, 3) != detail::uniform(7, 123, 6, 3));
  CHECK(detail::uniform(7, 123, 5, 3) != detail::uniform(7, 123, 5, 2));
  // The extreme bit patterns map strictly inside (0, 1).
  CHECK(detail::bits_to_open_unit(0) == std::ldexp(1.0, -53));
  CHECK(detail::bits_to_open_unit(~0ull) < 1.0);
  CHECK(detail::bits_to_open_unit(~0ull) == 1.0 - std::ldexp(1.0, -53));
}

TEST_CASE("streams do not overlap and are uncorrelated", "[random]") {
  // Distinct counters give distinct 128-bit outputs (Philox is a bijection for a fixed key),
  // so no stream can reproduce another's sequence. Check it on 2 x 200k draws, and check
  // that paired uniforms of two streams are uncorrelated.
  const std::uint32_t a = stream_id("throughput.step_time_s"), b = stream_id("failures.node_mtbf_h");
  REQUIRE(a != b);
  const std::uint64_t n = 200'000;
  std::vector<double> ua(n), ub(n);
  std::set<double> seen;
  for (std::uint64_t i = 0; i < n; ++i) {
    ua[i] = detail::uniform(42, i, a);
    ub[i] = detail::uniform(42, i, b);
    seen.insert(ua[i]);
    seen.insert(ub[i]);
  }
  CHECK(seen.size() == 2 * n);
  double mean_a = 0, mean_b = 0, cov = 0, var_a = 0, var_b = 0;
  for (std::uint64_t i = 0; i < n; ++i) mean_a += ua[i], mean_b += ub[i];
  mean_a /= n;
  mean_b /= n;
  for (std::uint64_t i = 0; i < n; ++i) {
    cov += (ua[i] - mean_a) * (ub[i] - mean_b);
    var_a += (ua[i] - mean_a) * (ua[i] - mean_a);
    var_b += (ub[i] - mean_b) * (ub[i] - mean_b);
  }
  const double correlation = cov / std::sqrt(var_a * var_b);
  // Under independence the correlation is ~N(0, 1/n): 5 standard errors.
  CHECK(std::abs(correlation) < 5 / std::sqrt(double(n)));
  // Each stream is uniform: mean 1/2 within 5 standard errors (sd of U is 1/sqrt(12)).
  CHECK(std::abs(mean_a - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  CHECK(std::abs(mean_b - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
}

TEST_CASE("stream ids are FNV-1a of the name", "[random]") {
  // FNV-1a 32-bit reference values: "" -> offset basis, "a" -> 0xe40c292c.
  CHECK(stream_id("") == 2166136261u);
  CHECK(stream_id("a") == 0xe40c292cu);
  static_assert(stream_id("chance") == stream_id("chance"));
}

}  // namespace test_random
