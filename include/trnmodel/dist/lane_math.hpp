#pragma once
// exp and log written for vector lanes: no branch, no table, no library call, only IEEE
// additions, multiplications, divisions and integer bit operations, so a loop of them
// vectorises on any instruction set and every path (and the scalar call) gives the same bits.
// Both are accurate to a few units in the last place (tests/cpp/test_lane_math.cpp compares
// them with std::exp and std::log over their whole range).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "trnmodel/random/isa.hpp"

namespace trnmodel::dist::detail {

#if defined(__GNUC__) || defined(__clang__)
#define TRNMODEL_LANE_INLINE __attribute__((always_inline)) inline
#else
#define TRNMODEL_LANE_INLINE inline
#endif

TRNMODEL_LANE_INLINE std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
TRNMODEL_LANE_INLINE double double_of(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// e^x. Cody–Waite reduction x = k ln 2 + r, |r| <= ln 2 / 2, then Taylor to degree 13 (the
// remainder is below 4e-18 relative), then 2^k as two powers of two so that subnormal results
// are reached without an overflow of the exponent field.
TRNMODEL_LANE_INLINE double lane_exp(double x) {
  constexpr double log2e = 1.4426950408889634074;
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // 32 significant bits: k ln2_hi is exact
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  constexpr double shifter = 0x1.8p52;  // adding it rounds to an integer held in the low bits
  x = x < -746.0 ? -746.0 : x;
  x = x > 710.0 ? 710.0 : x;
  const double t = x * log2e + shifter;
  const double k = t - shifter;
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // k + 2048 >= 0 for every clamped x; 2^k = 2^h 2^(k - h) with h = floor(k / 2).
  const std::uint64_t biased = bits_of(t) - bits_of(shifter) + 2048;
  const std::uint64_t half = biased >> 1;
  const double s1 = double_of((half - 1024 + 1023) << 52);
  const double s2 = double_of((biased - half - 1024 + 1023) << 52);
  return p * s1 * s2;  // NaN stays NaN: the clamps keep it, and it spreads through p
}

// log x for x > 0 (finite, subnormals included); log 0 = -inf, NaN and negative x give NaN.
// x = 2^e m with m in [1/sqrt 2, sqrt 2), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172,
// by its series to s^23 (the remainder is below 1e-18 relative).
TRNMODEL_LANE_INLINE double lane_log(double x) {
  const bool subnormal = x < 0x1.0p-1022;
  const double scaled = x * (subnormal ? 0x1.0p54 : 1.0);
  const std::uint64_t b = bits_of(scaled);
  std::uint64_t exponent = (b >> 52) & 0x7FF;  // biased
  double m = double_of((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  const bool big = m > 1.4142135623730950488;
  m *= big ? 0.5 : 1.0;
  exponent += big ? 1 : 0;
  // The exponent as a double without an int64 conversion instruction: 2^52 + (e + 2048).
  const double e =
      double_of(0x4330000000000000ull | (exponent + 1025)) - (0x1.0p52 + 2048.0) - (subnormal ? 54.0 : 0.0);
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double p = 1.0 / 23;
  p = p * s2 + 1.0 / 21;
  p = p * s2 + 1.0 / 19;
  p = p * s2 + 1.0 / 17;
  p = p * s2 + 1.0 / 15;
  p = p * s2 + 1.0 / 13;
  p = p * s2 + 1.0 / 11;
  p = p * s2 + 1.0 / 9;
  p = p * s2 + 1.0 / 7;
  p = p * s2 + 1.0 / 5;
  p = p * s2 + 1.0 / 3;
  const double log_m = 2 * s + 2 * s * s2 * p;
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double y = e * ln2_hi + (e * ln2_lo + log_m);
  constexpr double inf = std::numeric_limits<double>::infinity();
  // Selects, not branches, so that loops of lane_log vectorise.
  double out = x == inf ? inf : y;
  out = x == 0 ? -inf : out;
  return x >= 0 ? out : std::numeric_limits<double>::quiet_NaN();
}

// 1 / (1 + e^-y): the beta's quantile from its logit.
TRNMODEL_LANE_INLINE double lane_logistic(double y) { return 1 / (1 + lane_exp(-y)); }

// log(1 + x) for x >= -1 with the relative accuracy of lane_log: where 1 + x rounds, the
// rounding is undone by the factor x / ((1 + x) - 1) (1 when 1 + x is exact, as for x = -u with
// u a uniform of random/philox.hpp, an odd multiple of 2^-53); log1p(0) = 0, log1p(-1) = -inf,
// NaN below -1.
TRNMODEL_LANE_INLINE double lane_log1p(double x) {
  const double w = 1 + x;
  const double d = w - 1;
  const bool exact = d == 0 || d == std::numeric_limits<double>::infinity();
  const double scaled = lane_log(w) * (x / (exact ? 1.0 : d));
  return d == 0 ? x : (exact ? lane_log(w) : scaled);
}

// x[i] = e^(a + b z[i]) (the lognormal's last step); x may be z.
TRNMODEL_LANE_INLINE void exp_affine_body(double a, double b, const double* z, double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = lane_exp(a + b * z[i]);
}
inline void exp_affine_sse2(double a, double b, const double* z, double* x, std::size_t n) {
  exp_affine_body(a, b, z, x, n);
}
#ifdef TRNMODEL_X86_DISPATCH
TRNMODEL_TARGET_AVX2 inline void exp_affine_avx2(double a, double b, const double* z, double* x, std::size_t n) {
  exp_affine_body(a, b, z, x, n);
}
TRNMODEL_TARGET_AVX512 inline void exp_affine_avx512(double a, double b, const double* z, double* x, std::size_t n) {
  exp_affine_body(a, b, z, x, n);
}
#endif
inline void exp_affine_column(double a, double b, const double* z, double* x, std::size_t n) {
#ifdef TRNMODEL_X86_DISPATCH
  switch (active_isa()) {
    case isa::avx512: return exp_affine_avx512(a, b, z, x, n);
    case isa::avx2: return exp_affine_avx2(a, b, z, x, n);
    default: break;
  }
#endif
  exp_affine_sse2(a, b, z, x, n);
}

}  // namespace trnmodel::dist::detail
