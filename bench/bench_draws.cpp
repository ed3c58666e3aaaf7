// Per-draw cost on one thread: the floor (the cheapest correct way this machine makes a
// Philox4x32-10 uniform, all 128 bits used, and a normal, lognormal, beta, PERT and gamma draw
// from it) beside the library's hot path (uniform_column + quantity::ppf of a column, what the
// engine does per input and block), in the same run.
//
// Build:  cmake -S . -B build/bench -G Ninja -DTRNMODEL_BUILD_BENCH=ON -DTRNMODEL_BUILD_TESTS=OFF
//         cmake --build build/bench --target bench_draws && build/bench/bench/bench_draws
// The library rows alone also compile against an older tree (-DTRNMODEL_BENCH_LIBRARY_ONLY),
// which is how docs/benchmarks.md measures "before".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/random/uniform_column.hpp"

#ifndef TRNMODEL_BENCH_LIBRARY_ONLY
#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/dist/normal_quantile.hpp"
#include "trnmodel/random/isa.hpp"
#endif

namespace {

constexpr std::size_t block = 4096;  // the engine's block
constexpr std::size_t blocks_per_repeat = 256;

// This thread's CPU time in nanoseconds: on a shared machine, wall time also counts the time
// other processes held the core.
double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e9 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec);
}

// Nanoseconds of CPU per draw: the least of several repeats (the least disturbed one is the
// closest to the cost).
double ns_per_draw(const std::function<void(std::uint64_t)>& run_block) {
  double best = 1e300;
  for (int repeat = 0; repeat < 7; ++repeat) {
    const double start = thread_cpu_ns();
    for (std::uint64_t b = 0; b < blocks_per_repeat; ++b) run_block(b);
    best = std::min(best, (thread_cpu_ns() - start) / (blocks_per_repeat * block));
  }
  return best;
}

volatile double sink;

#ifndef TRNMODEL_BENCH_LIBRARY_ONLY
// The cost of a correct draw from a table family (beta, PERT, gamma), done the cheapest way:
// for every lane, one cubic Hermite evaluation from the 4097-knot central table in u; for the
// one lane in eight outside [1/16, 15/16], listed without a branch, the tail in vector lanes:
// t = logit(u) by the lane log, one Hermite evaluation from the 8193-knot tail table in t, and
// x = 1 / (1 + e^-y) by the lane exp. The knots are synthetic (only the cost is measured).
struct table_floor_knots {
  std::vector<double> central_y, central_dy, tail_y, tail_dy;
  table_floor_knots() : central_y(4097), central_dy(4097), tail_y(8193), tail_dy(8193) {
    for (std::size_t i = 0; i < central_y.size(); ++i) central_y[i] = central_dy[i] = 1.0 / (1 + i);
    for (std::size_t i = 0; i < tail_y.size(); ++i) tail_y[i] = tail_dy[i] = -38.0 + 76.0 * i / 8192;
  }
};

TRNMODEL_LANE_INLINE double hermite_at(const double* y, const double* dy, double s, std::size_t last) {
  const double ii = static_cast<double>(static_cast<std::int64_t>(s));
  const auto k = std::min<std::size_t>(static_cast<std::size_t>(ii), last);
  const double t = s - ii, r = 1 - t;
  return r * r * (y[k] * (1 + 2 * t) + dy[k] * t) + t * t * (y[k + 1] * (3 - 2 * t) - dy[k + 1] * r);
}

TRNMODEL_LANE_INLINE void table_floor_body(const table_floor_knots& knots, const double* u, double* x, std::size_t n) {
  constexpr std::size_t chunk = 256;
  double tail_u[chunk];
  std::size_t tail_at[chunk];
  for (std::size_t done = 0; done < n; done += chunk) {
    const std::size_t m = std::min(chunk, n - done);
    const double* uc = u + done;
    double* xc = x + done;
    for (std::size_t i = 0; i < m; ++i) {
      const double s = (std::min(std::max(uc[i], 0.0625), 0.9375) - 0.0625) * (4096 / 0.875);
      xc[i] = hermite_at(knots.central_y.data(), knots.central_dy.data(), s, 4095);
    }
    std::size_t count = 0;
    for (std::size_t i = 0; i < m; ++i) {
      tail_at[count] = i;
      count += uc[i] < 0.0625 || uc[i] > 0.9375 ? 1u : 0u;
    }
    for (std::size_t k = 0; k < count; ++k) tail_u[k] = uc[tail_at[k]];
    for (std::size_t k = 0; k < count; ++k) {
      const double v = tail_u[k];
      const double t = trnmodel::dist::detail::lane_log(v / (1 - v));
      const double s = (std::min(std::max(t, -38.0), 38.0) + 38.0) * (8192 / 76.0);
      const double y = hermite_at(knots.tail_y.data(), knots.tail_dy.data(), s, 8191);
      tail_u[k] = 1 / (1 + trnmodel::dist::detail::lane_exp(-y));
    }
    for (std::size_t k = 0; k < count; ++k) xc[tail_at[k]] = tail_u[k];
  }
}

void table_floor_sse2(const table_floor_knots& k, const double* u, double* x, std::size_t n) {
  table_floor_body(k, u, x, n);
}
#ifdef TRNMODEL_X86_DISPATCH
TRNMODEL_TARGET_AVX2 void table_floor_avx2(const table_floor_knots& k, const double* u, double* x, std::size_t n) {
  table_floor_body(k, u, x, n);
}
TRNMODEL_TARGET_AVX512 void table_floor_avx512(const table_floor_knots& k, const double* u, double* x, std::size_t n) {
  table_floor_body(k, u, x, n);
}
#endif

void table_floor(const table_floor_knots& k, const double* u, double* x, std::size_t n) {
#ifdef TRNMODEL_X86_DISPATCH
  switch (trnmodel::active_isa()) {
    case trnmodel::isa::avx512: return table_floor_avx512(k, u, x, n);
    case trnmodel::isa::avx2: return table_floor_avx2(k, u, x, n);
    default: break;
  }
#endif
  table_floor_sse2(k, u, x, n);
}
#endif

}  // namespace

int main() {
  using namespace trnmodel;
  std::vector<double> u(block), x(block);
  const std::uint32_t stream = stream_id("throughput.step_time_s");
  struct family {
    const char* name;
    quantity q;
  };
  const std::vector<family> families{{"normal", make_normal(10, 3)},
                                     {"lognormal", make_lognormal_from_quantiles(2, 3)},
                                     {"beta", make_beta(2, 5)},
                                     {"PERT", make_pert(1, 2, 6)},
                                     {"gamma", make_gamma(4, 0.5)}};
  for (const auto& f : families) f.q.ppf(0.3);  // tables built before timing

#ifndef TRNMODEL_BENCH_LIBRARY_ONLY
  std::printf("machine paths: best %s\n\n", isa_name(detail::machine_isa()));
  std::printf("| path | draw | floor ns | library ns | library / floor |\n|---|---|---|---|---|\n");
  for (const isa path : available_isas()) {
    set_isa_limit(path);
    // The floor: the kernels called directly, one chunk of 256 draws at a time (in L1).
    const auto floor_uniform = [&](std::uint64_t b) {
      detail::philox_pairs(1, stream, 0, b * block / 2, block / 2, detail::pair_halves::both, u.data());
      sink = u[b % block];
    };
    const auto floor_normal = [&](std::uint64_t b) {
      detail::philox_pairs(1, stream, 0, b * block / 2, block / 2, detail::pair_halves::both, u.data());
      dist::detail::normal_ppf_column(u.data(), x.data(), block);
      sink = x[b % block];
    };
    const auto floor_lognormal = [&](std::uint64_t b) {
      detail::philox_pairs(1, stream, 0, b * block / 2, block / 2, detail::pair_halves::both, u.data());
      dist::detail::normal_ppf_column(u.data(), x.data(), block);
      dist::detail::exp_affine_column(0.69, 0.31, x.data(), x.data(), block);
      sink = x[b % block];
    };
    const double uniform_floor = ns_per_draw(floor_uniform);
    const double normal_floor = ns_per_draw(floor_normal);
    const double lognormal_floor = ns_per_draw(floor_lognormal);
    const double uniform_library = ns_per_draw([&](std::uint64_t b) {
      uniform_column(1, stream, 0, b * block, 1, block, u.data());
      sink = u[b % block];
    });
    std::printf("| %s | uniform | %.2f | %.2f | %.2f |\n", isa_name(path), uniform_floor, uniform_library,
                uniform_library / uniform_floor);
    for (const auto& f : families) {
      const double library = ns_per_draw([&](std::uint64_t b) {
        uniform_column(1, stream, 0, b * block, 1, block, x.data());
        f.q.ppf(x.data(), x.data(), block);
        sink = x[b % block];
      });
      const std::string name = f.name;
      // The tables' floor: a correct draw of a table family the cheapest way (table_floor).
      double floor = name == "normal" ? normal_floor : name == "lognormal" ? lognormal_floor : 0;
      if (floor == 0) {
        static const table_floor_knots knots;
        floor = ns_per_draw([&](std::uint64_t b) {
          detail::philox_pairs(1, stream, 0, b * block / 2, block / 2, detail::pair_halves::both, u.data());
          table_floor(knots, u.data(), x.data(), block);
          sink = x[b % block];
        });
      }
      std::printf("| %s | %s | %.2f | %.2f | %.2f |\n", isa_name(path), f.name, floor, library, library / floor);
    }
  }
#else
  std::printf("| draw | library ns |\n|---|---|\n");
  std::printf("| uniform | %.2f |\n", ns_per_draw([&](std::uint64_t b) {
                uniform_column(1, stream, 0, b * block, 1, block, u.data());
                sink = u[b % block];
              }));
  for (const auto& f : families) {
    std::printf("| %s | %.2f |\n", f.name, ns_per_draw([&](std::uint64_t b) {
                  uniform_column(1, stream, 0, b * block, 1, block, x.data());
                  f.q.ppf(x.data(), x.data(), block);
                  sink = x[b % block];
                }));
  }
#endif
  return 0;
}
