// α–β collective cost model (include/trnmodel/throughput/collectives.hpp, docs/throughput.md).
// Expected values are written out as numbers computed separately (exact rational
// arithmetic, Python fractions) from the formulas of Thakur, Rabenseifner & Gropp (2005),
// Patarasuk & Yuan (2009) and nccl-tests doc/PERFORMANCE.md, not by calling the header.
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "trnmodel/throughput/collectives.hpp"

using namespace trnmodel;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

// The file's own namespace: its helpers and using-directive stay out of the other test files
// (the tests are also compiled as unity translation units).
namespace test_collectives {

using namespace trnmodel::collectives;

// Both the type and the message: every rejection must name the argument.
#define CHECK_INPUT_ERROR(expr, text)              \
  do {                                             \
    CHECK_THROWS_AS(expr, input_error);            \
    CHECK_THROWS_WITH(expr, test::contains(text)); \
  } while (false)

namespace {

constexpr double GiB = 1073741824.0;  // 2^30 bytes
constexpr double us = 1e-6;

}  // namespace

TEST_CASE("closed forms at p = 8, n = 1 GiB, α = 5 µs, B = 300 GB/s", "[collectives]") {
  const double n = GiB, a = 5 * us, B = 300e9;
  // 14α + 1.75 n/B
  CHECK_THAT(ring_all_reduce_s(8, n, a, B), WithinRel(0.006333493973333333, 1e-14));
  // 7α + 0.875 n/B, same for both halves of the ring all-reduce
  CHECK_THAT(ring_reduce_scatter_s(8, n, a, B), WithinRel(0.0031667469866666666, 1e-14));
  CHECK_THAT(ring_all_gather_s(8, n, a, B), WithinRel(0.0031667469866666666, 1e-14));
  // Rabenseifner, p = 8 = 2^3: 2·3α + 1.75 n/B
  CHECK_THAT(halving_doubling_all_reduce_s(8, n, a, B), WithinRel(0.006293493973333333, 1e-14));
  // p = 6: p' = 4, (2·2 + 2)α + (2·3/4 + 2) n/B = 6α + 3.5 n/B
  CHECK_THAT(halving_doubling_all_reduce_s(6, n, a, B), WithinRel(0.012556987946666667, 1e-14));
  // α + n/B
  CHECK_THAT(point_to_point_s(n, a, B), WithinRel(0.0035841394133333333, 1e-14));
  // 4 nodes × 8 local; intra (5 µs, 300 GB/s), inter (20 µs, 50 GB/s):
  // 14·5µs + 1.75 n/300e9 + 6·20µs + 1.5 (n/8)/50e9
  CHECK_THAT(hierarchical_all_reduce_s(4, 8, n, a, B, 20 * us, 50e9), WithinRel(0.010480025813333333, 1e-14));
}

TEST_CASE("link_level: bandwidth × efficiency, same formulas", "[collectives]") {
  const double n = GiB;
  const link_level half{5 * us, 300e9, 0.5};
  CHECK(effective_bandwidth_bytes_per_s(half) == 150e9);
  CHECK(ring_all_reduce_s(8, n, half) == ring_all_reduce_s(8, n, 5 * us, 150e9));
  CHECK(ring_reduce_scatter_s(8, n, half) == ring_reduce_scatter_s(8, n, 5 * us, 150e9));
  CHECK(ring_all_gather_s(8, n, half) == ring_all_gather_s(8, n, 5 * us, 150e9));
  CHECK(halving_doubling_all_reduce_s(8, n, half) == halving_doubling_all_reduce_s(8, n, 5 * us, 150e9));
  CHECK(point_to_point_s(n, half) == point_to_point_s(n, 5 * us, 150e9));
  const link_level inter{20 * us, 50e9, 0.8};
  CHECK(hierarchical_all_reduce_s(4, 8, n, half, inter) ==
        hierarchical_all_reduce_s(4, 8, n, 5 * us, 150e9, 20 * us, 40e9));
  const link_level nominal{5 * us, 300e9};  // efficiency defaults to 1
  CHECK(ring_all_reduce_s(8, n, nominal) == ring_all_reduce_s(8, n, 5 * us, 300e9));
}

TEST_CASE("busbw of the ring all-reduce model is B when α = 0, for every p", "[collectives]") {
  // nccl-tests define busbw = algbw · 2(p−1)/p precisely so that an all-reduce that is
  // bandwidth-optimal (t = 2(p−1)/p · n/B) reports the link bandwidth B whatever p is.
  for (double B : {25e9, 300e9, 450e9}) {
    for (double p : {2.0, 3.0, 4.0, 5.0, 7.0, 8.0, 16.0, 64.0, 100.0, 1024.0, 65536.0}) {
      CAPTURE(B, p);
      const double n = GiB;
      const double t = ring_all_reduce_s(p, n, 0.0, B);
      CHECK_THAT(busbw_bytes_per_s(collective_kind::all_reduce, p, n, t), WithinRel(B, 1e-14));
      // algbw falls with p towards B/2, which is why busbw is the comparable number
      CHECK_THAT(algbw_bytes_per_s(n, t), WithinRel(B * p / (2 * (p - 1)), 1e-14));
      // the same holds for each half of the ring with its own factor (p−1)/p
      CHECK_THAT(busbw_bytes_per_s(collective_kind::reduce_scatter, p, n, ring_reduce_scatter_s(p, n, 0.0, B)),
                 WithinRel(B, 1e-14));
      CHECK_THAT(busbw_bytes_per_s(collective_kind::all_gather, p, n, ring_all_gather_s(p, n, 0.0, B)),
                 WithinRel(B, 1e-14));
      // and the inverse returns the modelled time
      CHECK_THAT(all_reduce_time_from_busbw_s(p, n, B), WithinRel(t, 1e-14));
    }
  }
  // Rabenseifner's algorithm has the same (optimal) bandwidth term when p is a power of two
  for (double p : {2.0, 4.0, 8.0, 1024.0}) {
    const double t = halving_doubling_all_reduce_s(p, GiB, 0.0, 300e9);
    CHECK_THAT(busbw_bytes_per_s(collective_kind::all_reduce, p, GiB, t), WithinRel(300e9, 1e-14));
  }
  // with α > 0 busbw falls below B, more so for small messages
  const double t_small = ring_all_reduce_s(8, 1e6, 5 * us, 300e9);
  const double t_large = ring_all_reduce_s(8, GiB, 5 * us, 300e9);
  const double busbw_small = busbw_bytes_per_s(collective_kind::all_reduce, 8, 1e6, t_small);
  const double busbw_large = busbw_bytes_per_s(collective_kind::all_reduce, 8, GiB, t_large);
  CHECK(busbw_small < busbw_large);
  CHECK(busbw_large < 300e9);
}

TEST_CASE("NCCL issue 527: 8 × A100, 1 GiB all-reduce at busbw 230.8 GB/s", "[collectives]") {
  // docs/profiles.md: busbw 230.8 GB/s of a nominal 300 GB/s per direction (≈ 77%).
  // Implied time: 2·7/8 · 2^30 / 230.8e9 = 8.14145663778163 ms; algbw = 131.8857142857 GB/s.
  const double t = all_reduce_time_from_busbw_s(8, GiB, 230.8e9);
  CHECK_THAT(t, WithinRel(0.00814145663778163, 1e-14));
  CHECK(t == time_from_busbw_s(collective_kind::all_reduce, 8, GiB, 230.8e9));
  CHECK_THAT(algbw_bytes_per_s(GiB, t), WithinRel(131885714285.71428, 1e-14));
  CHECK_THAT(busbw_bytes_per_s(collective_kind::all_reduce, 8, GiB, t), WithinRel(230.8e9, 1e-14));
  // The ring model reproduces it with the nominal bandwidth derated by the measured
  // efficiency (α = 0: at 1 GiB the latency term is negligible).
  const link_level nvlink{0.0, 300e9, 230.8 / 300};
  CHECK_THAT(ring_all_reduce_s(8, GiB, nvlink), WithinRel(t, 1e-14));
  // With the nominal bandwidth the model is 1/0.7693 ≈ 1.30 times too optimistic.
  const double nominal_t = ring_all_reduce_s(8, GiB, 0.0, 300e9);
  CHECK_THAT(nominal_t / t, WithinRel(230.8 / 300, 1e-14));
  // A plausible α of a few µs does not explain the gap: 14α would have to be 1.9 ms.
  CHECK(ring_all_reduce_s(8, GiB, 10 * us, 300e9) < 0.8 * t);
}

TEST_CASE("hierarchical all-reduce reduces to the flat ring in the degenerate cases", "[collectives]") {
  const double n = 3 * GiB + 12345;
  const double ai = 3 * us, Bi = 300e9, ae = 25 * us, Be = 25e9;
  for (double L : {1.0, 2.0, 8.0, 16.0}) {
    CAPTURE(L);
    // nodes = 1: no inter-node phase; reduce-scatter + all-gather among L ranks is
    // exactly the ring all-reduce among them (bit for bit), whatever the inter level is.
    CHECK(hierarchical_all_reduce_s(1, L, n, ai, Bi, ae, Be) == ring_all_reduce_s(L, n, ai, Bi));
  }
  for (double N : {1.0, 2.0, 4.0, 128.0}) {
    CAPTURE(N);
    // local_ranks = 1: no intra-node phases; one inter-node ring all-reduce of all n bytes.
    CHECK(hierarchical_all_reduce_s(N, 1, n, ai, Bi, ae, Be) == ring_all_reduce_s(N, n, ae, Be));
  }
  CHECK(hierarchical_all_reduce_s(1, 1, n, ai, Bi, ae, Be) == 0);
  // Equal levels: the bandwidth terms coincide with the flat ring over N·L ranks
  // (2(L−1)/L + 2(N−1)/(N·L) = 2(NL−1)/(NL)), so with α = 0 they are equal, and with α > 0
  // the hierarchy saves exactly 2(N−1)(L−1) latency steps.
  for (double N : {2.0, 4.0, 32.0}) {
    for (double L : {2.0, 8.0, 16.0}) {
      CAPTURE(N, L);
      CHECK_THAT(hierarchical_all_reduce_s(N, L, n, 0.0, Be, 0.0, Be),
                 WithinRel(ring_all_reduce_s(N * L, n, 0.0, Be), 1e-14));
      CHECK_THAT(hierarchical_all_reduce_s(N, L, n, ae, Be, ae, Be),
                 WithinRel(ring_all_reduce_s(N * L, n, ae, Be) - 2 * (N - 1) * (L - 1) * ae, 1e-14));
    }
  }
}

TEST_CASE("monotone in bytes and ranks", "[collectives]") {
  const double a = 5 * us, B = 100e9;
  const std::vector<double> sizes{0, 1, 1e3, 1e6, GiB, 1e12};
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    const double lo = sizes[i - 1], hi = sizes[i];
    CAPTURE(lo, hi);
    for (double p : {2.0, 3.0, 8.0, 1000.0}) {
      CHECK(ring_all_reduce_s(p, lo, a, B) < ring_all_reduce_s(p, hi, a, B));
      CHECK(ring_reduce_scatter_s(p, lo, a, B) < ring_reduce_scatter_s(p, hi, a, B));
      CHECK(ring_all_gather_s(p, lo, a, B) < ring_all_gather_s(p, hi, a, B));
      CHECK(halving_doubling_all_reduce_s(p, lo, a, B) < halving_doubling_all_reduce_s(p, hi, a, B));
    }
    CHECK(point_to_point_s(lo, a, B) < point_to_point_s(hi, a, B));
    CHECK(hierarchical_all_reduce_s(4, 8, lo, a, B, 4 * a, B / 4) <
          hierarchical_all_reduce_s(4, 8, hi, a, B, 4 * a, B / 4));
  }
  // bytes = 0 leaves the latency terms: 2(p−1)α for the ring, α for a send
  CHECK_THAT(ring_all_reduce_s(8, 0, a, B), WithinRel(14 * a, 1e-15));
  CHECK(point_to_point_s(0, a, B) == a);

  for (double n : {0.0, 1e6, GiB}) {
    CAPTURE(n);
    for (double p = 1; p < 300; ++p) {
      CAPTURE(p);
      CHECK(ring_all_reduce_s(p, n, a, B) < ring_all_reduce_s(p + 1, n, a, B));
      CHECK(ring_reduce_scatter_s(p, n, a, B) < ring_reduce_scatter_s(p + 1, n, a, B));
      CHECK(ring_all_gather_s(p, n, a, B) < ring_all_gather_s(p + 1, n, a, B));
      CHECK(hierarchical_all_reduce_s(p, 8, n, a, B, 4 * a, B / 4) <
            hierarchical_all_reduce_s(p + 1, 8, n, a, B, 4 * a, B / 4));
      // in local_ranks only when the inter-node level is not the slower one (here equal):
      CHECK(hierarchical_all_reduce_s(4, p, n, a, B, 4 * a, B) <
            hierarchical_all_reduce_s(4, p + 1, n, a, B, 4 * a, B));
    }
    // Rabenseifner: increasing along powers of two and within [2^k + 1, 2^(k+1) − 1]...
    for (double p = 1; p < 1024; p *= 2) {
      CHECK(halving_doubling_all_reduce_s(p, n, a, B) < halving_doubling_all_reduce_s(2 * p, n, a, B));
      for (double q = p + 1; q + 1 < 2 * p; ++q)
        CHECK(halving_doubling_all_reduce_s(q, n, a, B) <= halving_doubling_all_reduce_s(q + 1, n, a, B));
    }
  }
  // Hierarchical with a slow inter-node level is NOT monotone in local_ranks: each extra
  // local rank brings its own inter-node link (the model's assumption) and shrinks the
  // shard every inter-node ring carries, n/L. 1 GiB on 4 nodes, inter = B/4 = 25 GB/s:
  // L = 1 → 2·3·20µs + 1.5·n/25e9 = 0.0645445094; L = 2 → 0.0430796730 (exact values).
  CHECK_THAT(hierarchical_all_reduce_s(4, 1, GiB, a, B, 4 * a, B / 4), WithinRel(0.06454450944, 1e-14));
  CHECK_THAT(hierarchical_all_reduce_s(4, 2, GiB, a, B, 4 * a, B / 4), WithinRel(0.04307967296, 1e-14));
  // ...and Rabenseifner's all-reduce is not monotone across a power of two: folding the extra ranks in and out costs
  // 2α + 2n/B, so 5 ranks are slower than 8 (documented in the header).
  CHECK(halving_doubling_all_reduce_s(5, GiB, a, B) > halving_doubling_all_reduce_s(8, GiB, a, B));
}

TEST_CASE("one rank costs nothing", "[collectives]") {
  for (double n : {0.0, 1.0, GiB, 1e15}) {
    CAPTURE(n);
    CHECK(ring_all_reduce_s(1, n, 1.0, 1.0) == 0);
    CHECK(ring_reduce_scatter_s(1, n, 1.0, 1.0) == 0);
    CHECK(ring_all_gather_s(1, n, 1.0, 1.0) == 0);
    CHECK(halving_doubling_all_reduce_s(1, n, 1.0, 1.0) == 0);
    CHECK(hierarchical_all_reduce_s(1, 1, n, 1.0, 1.0, 1.0, 1.0) == 0);
    CHECK(all_reduce_time_from_busbw_s(1, n, 1e9) == 0);
  }
  CHECK(busbw_factor(collective_kind::all_reduce, 1) == 0);
  CHECK(busbw_factor(collective_kind::reduce_scatter, 1) == 0);
  CHECK(busbw_factor(collective_kind::broadcast, 1) == 1);
}

TEST_CASE("busbw factors follow nccl-tests doc/PERFORMANCE.md", "[collectives]") {
  CHECK(busbw_factor(collective_kind::all_reduce, 8) == 1.75);
  CHECK(busbw_factor(collective_kind::reduce_scatter, 8) == 0.875);
  CHECK(busbw_factor(collective_kind::all_gather, 8) == 0.875);
  CHECK(busbw_factor(collective_kind::all_to_all, 8) == 0.875);
  CHECK(busbw_factor(collective_kind::broadcast, 8) == 1);
  CHECK(busbw_factor(collective_kind::reduce, 8) == 1);
  CHECK(busbw_factor(collective_kind::send_recv, 8) == 1);
  // send/recv: busbw = algbw, and the time a busbw implies is the α = 0 point-to-point time
  CHECK_THAT(time_from_busbw_s(collective_kind::send_recv, 2, GiB, 190e9),
             WithinRel(point_to_point_s(GiB, 0.0, 190e9), 1e-15));
}

TEST_CASE("collective arguments are rejected with the argument's name", "[collectives]") {
  const double n = GiB, a = 5 * us, B = 300e9;
  CHECK_INPUT_ERROR(ring_all_reduce_s(0, n, a, B), "ranks: must be ≥ 1, got 0");
  CHECK_INPUT_ERROR(ring_all_reduce_s(2.5, n, a, B), "ranks: must be a whole number, got 2.5");
  CHECK_INPUT_ERROR(ring_all_reduce_s(-4, n, a, B), "ranks: must be ≥ 1, got -4");
  CHECK_INPUT_ERROR(ring_all_reduce_s(NAN, n, a, B), "ranks: must be a finite number, got nan");
  CHECK_INPUT_ERROR(ring_reduce_scatter_s(8, -5, a, B), "bytes: must be ≥ 0, got -5");
  CHECK_INPUT_ERROR(ring_all_gather_s(8, INFINITY, a, B), "bytes: must be a finite number, got inf");
  CHECK_INPUT_ERROR(halving_doubling_all_reduce_s(8, n, -1e-6, B), "latency_s: must be ≥ 0, got -1e-06");
  CHECK_INPUT_ERROR(halving_doubling_all_reduce_s(0.5, n, a, B), "ranks: must be a whole number, got 0.5");
  CHECK_INPUT_ERROR(point_to_point_s(n, a, 0), "bandwidth_bytes_per_s: must be > 0, got 0");
  CHECK_INPUT_ERROR(point_to_point_s(-1, a, B), "bytes: must be ≥ 0, got -1");

  CHECK_INPUT_ERROR(hierarchical_all_reduce_s(0, 8, n, a, B, a, B), "nodes: must be ≥ 1, got 0");
  CHECK_INPUT_ERROR(hierarchical_all_reduce_s(2, 1.5, n, a, B, a, B),
                    "local_ranks: must be a whole number, got 1.5");
  CHECK_INPUT_ERROR(hierarchical_all_reduce_s(2, 8, n, -1, B, a, B), "intra_latency_s: must be ≥ 0, got -1");
  CHECK_INPUT_ERROR(hierarchical_all_reduce_s(2, 8, n, a, B, a, -3),
                    "inter_bandwidth_bytes_per_s: must be > 0, got -3");

  CHECK_INPUT_ERROR(ring_all_reduce_s(8, n, link_level{a, B, 77}), "link.efficiency: must be in (0, 1], got 77");
  CHECK_INPUT_ERROR(ring_all_reduce_s(8, n, link_level{a, B, 0}), "link.efficiency: must be in (0, 1], got 0");
  CHECK_INPUT_ERROR(point_to_point_s(n, link_level{a, 0, 1}), "link.bandwidth_bytes_per_s: must be > 0, got 0");
  CHECK_INPUT_ERROR(effective_bandwidth_bytes_per_s(link_level{}), "link.bandwidth_bytes_per_s: must be > 0, got 0");
  CHECK_INPUT_ERROR(hierarchical_all_reduce_s(2, 8, n, link_level{-1, B, 1}, link_level{a, B, 1}),
                    "intra.latency_s: must be ≥ 0, got -1");
  CHECK_INPUT_ERROR(hierarchical_all_reduce_s(2, 8, n, link_level{a, B, 1}, link_level{a, B, 1.5}),
                    "inter.efficiency: must be in (0, 1], got 1.5");

  CHECK_INPUT_ERROR(algbw_bytes_per_s(n, 0), "time_s: must be > 0, got 0");
  CHECK_INPUT_ERROR(busbw_bytes_per_s(collective_kind::all_reduce, 8, -2, 1), "bytes: must be ≥ 0, got -2");
  CHECK_INPUT_ERROR(busbw_factor(collective_kind::all_gather, 0), "ranks: must be ≥ 1, got 0");
  CHECK_INPUT_ERROR(all_reduce_time_from_busbw_s(8, n, 0), "bus_bandwidth_bytes_per_s: must be > 0, got 0");
  CHECK_INPUT_ERROR(all_reduce_time_from_busbw_s(3.5, n, 1e9), "ranks: must be a whole number, got 3.5");
}

TEST_CASE("check_link checks a link once and names its fields", "[collectives]") {
  const double n = GiB;
  // A checked link carries the effective bandwidth; the formulas over it are the front doors' formulas.
  const checked_link half = check_link("link.", link_level{5 * us, 300e9, 0.5});
  CHECK(half.bandwidth_bytes_per_s() == 150e9);
  CHECK(half.latency_s() == 5 * us);
  CHECK(ring_all_reduce_s(8, n, half) == ring_all_reduce_s(8, n, 5 * us, 150e9));
  CHECK(point_to_point_s(n, half) == point_to_point_s(n, 5 * us, 150e9));
  CHECK_INPUT_ERROR(check_link("platform.intra_node_", link_level{1e-6, 1e9, 1.5}),
                    "platform.intra_node_efficiency: must be in (0, 1], got 1.5");
  CHECK_INPUT_ERROR(check_link("x.", -1.0, 1e9), "x.latency_s: must be ≥ 0, got -1");
  CHECK_INPUT_ERROR(check_link("x.", 0.0, INFINITY), "x.bandwidth_bytes_per_s: must be a finite number, got inf");
  CHECK_INPUT_ERROR(check_link("x.", link_level{0.0, 1e9, NAN}), "x.efficiency: must be a finite number, got nan");
}

}  // namespace test_collectives

#undef CHECK_INPUT_ERROR  // each test file defines its own
