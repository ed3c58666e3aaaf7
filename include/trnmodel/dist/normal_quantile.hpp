#pragma once
// The standard normal quantile, Φ^-1(p): Wichura's algorithm AS 241 (PPND16, Applied
// Statistics 37, 1988), rational approximations of degree 7/7 in three regions, relative
// error about 1e-16. The central region (|p - 1/2| <= 0.425, 85 % of the draws) needs no
// function call and no branch, so a column of uniforms runs it in vector lanes; the tails
// (a logarithm and a square root) are computed afterwards for only the lanes that need them.
// The scalar normal_ppf and the column give the same numbers: one formula, evaluated by the
// same operations in the same order (no FMA contraction, see random/isa.hpp).
#include <cmath>
#include <cstddef>
#include <limits>

#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/random/isa.hpp"

namespace trnmodel::dist::detail {

#if defined(__GNUC__) || defined(__clang__)
#define TRNMODEL_ALWAYS_INLINE __attribute__((always_inline))
#else
#define TRNMODEL_ALWAYS_INLINE
#endif

// AS 241's coefficients, highest degree first: numerator and denominator of the central
// region, of the near tail (r <= 5) and of the far tail.
inline constexpr double as241_central_num[8] = {
    2.5090809287301226727e3, 3.3430575583588128105e4, 6.7265770927008700853e4, 4.5921953931549871457e4,
    1.3731693765509461125e4, 1.9715909503065514427e3, 1.3314166789178437745e2, 3.3871328727963666080e0};
inline constexpr double as241_central_den[8] = {
    5.2264952788528545610e3, 2.8729085735721942674e4, 3.9307895800092710610e4, 2.1213794301586595867e4,
    5.3941960214247511077e3, 6.8718700749205790830e2, 4.2313330701600911252e1, 1.0};
inline constexpr double as241_near_num[8] = {
    7.74545014278341407640e-4, 2.27238449892691845833e-2, 2.41780725177450611770e-1, 1.27045825245236838258e0,
    3.64784832476320460504e0,  5.76949722146069140550e0,  4.63033784615654529590e0,  1.42343711074968357734e0};
inline constexpr double as241_near_den[8] = {
    1.05075007164441684324e-9, 5.47593808499534494600e-4, 1.51986665636164571966e-2, 1.48103976427480074590e-1,
    6.89767334985100004550e-1, 1.67638483018380384940e0,  2.05319162663775882187e0,  1.0};
inline constexpr double as241_far_num[8] = {
    2.01033439929228813265e-7, 2.71155556874348757815e-5, 1.24266094738807843860e-3, 2.65321895265761230930e-2,
    2.96560571828504891230e-1, 1.78482653991729133580e0,  5.46378491116411436990e0,  6.65790464350110377720e0};
inline constexpr double as241_far_den[8] = {
    2.04426310338993978564e-15, 1.42151175831644588870e-7, 1.84631831751005468180e-5, 7.86869131145613259100e-4,
    1.48753612908506148525e-2,  1.36929880922735805310e-1, 5.99832206555887937690e-1, 1.0};

// ((c0 r + c1) r + ...) r + c7.
TRNMODEL_ALWAYS_INLINE inline double horner7(const double (&c)[8], double r) {
  double p = c[0];
  for (int k = 1; k < 8; ++k) p = p * r + c[k];
  return p;
}

// z for |q| <= 0.425, q = p - 1/2.
TRNMODEL_ALWAYS_INLINE inline double normal_ppf_central(double q) {
  const double r = 0.180625 - q * q;
  return q * horner7(as241_central_num, r) / horner7(as241_central_den, r);
}

// z for |q| > 0.425: in r = sqrt(-log(min(p, 1 - p))), one rational function up to r = 5
// (p > 1.4e-11) and another beyond. Both are evaluated and one selected, so that the tail
// lanes of a column vectorise too.
TRNMODEL_ALWAYS_INLINE inline double normal_ppf_tail(double p, double q) {
  const double tail = q < 0 ? p : 1 - p;  // exact: 1 - p loses nothing for p >= 1/2
  const double minus_log = -lane_log(tail);
  // Never the square root of a negative (tail <= 1/2 here, or NaN).
  const double r = __builtin_sqrt(minus_log > 0 ? minus_log : 0.0);
  const double a = r - 1.6, b = r - 5;
  const bool near = r <= 5;
  const double num = near ? horner7(as241_near_num, a) : horner7(as241_far_num, b);
  const double den = near ? horner7(as241_near_den, a) : horner7(as241_far_den, b);
  double z = num / den;
  z = tail == 0 ? std::numeric_limits<double>::infinity() : z;
  z = tail == tail ? z : tail;  // NaN in, NaN out
  return q < 0 ? -z : z;
}

inline constexpr double normal_central_half_width = 0.425;

inline double normal_ppf(double p) {
  const double q = p - 0.5;
  return std::abs(q) <= normal_central_half_width ? normal_ppf_central(q) : normal_ppf_tail(p, q);
}

// The central formula for every lane, whatever its region (the tails are overwritten later);
// the tail formula for a list of lanes gathered apart.
TRNMODEL_ALWAYS_INLINE inline void normal_central_body(const double* p, double* z, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) z[i] = normal_ppf_central(p[i] - 0.5);
}
TRNMODEL_ALWAYS_INLINE inline void normal_tail_body(const double* p, double* z, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) z[i] = normal_ppf_tail(p[i], p[i] - 0.5);
}
TRNMODEL_TARGET_SSE2 inline void normal_central_sse2(const double* p, double* z, std::size_t n) {
  normal_central_body(p, z, n);
}
TRNMODEL_TARGET_SSE2 inline void normal_tail_sse2(const double* p, double* z, std::size_t n) {
  normal_tail_body(p, z, n);
}
#ifdef TRNMODEL_X86_DISPATCH
TRNMODEL_TARGET_AVX2 inline void normal_central_avx2(const double* p, double* z, std::size_t n) {
  normal_central_body(p, z, n);
}
TRNMODEL_TARGET_AVX2 inline void normal_tail_avx2(const double* p, double* z, std::size_t n) {
  normal_tail_body(p, z, n);
}
TRNMODEL_TARGET_AVX512 inline void normal_central_avx512(const double* p, double* z, std::size_t n) {
  normal_central_body(p, z, n);
}
TRNMODEL_TARGET_AVX512 inline void normal_tail_avx512(const double* p, double* z, std::size_t n) {
  normal_tail_body(p, z, n);
}
#endif

// z[i] = normal_ppf(p[i]) for i in [0, n); z may be p.
inline void normal_ppf_column(const double* p, double* z, std::size_t n) {
  constexpr std::size_t chunk = 256;
  double central[chunk], tail_p[chunk], tail_z[chunk];
  std::size_t tails[chunk];
  const isa path = active_isa();
  for (std::size_t done = 0; done < n; done += chunk) {
    const std::size_t m = n - done < chunk ? n - done : chunk;
    // The lanes outside the central region, listed without a branch.
    std::size_t count = 0;
    for (std::size_t i = 0; i < m; ++i) {
      tails[count] = i;
      count += std::abs(p[done + i] - 0.5) <= normal_central_half_width ? 0u : 1u;
    }
    for (std::size_t k = 0; k < count; ++k) tail_p[k] = p[done + tails[k]];
#ifdef TRNMODEL_X86_DISPATCH
    switch (path) {
      case isa::avx512:
        normal_central_avx512(p + done, central, m);
        normal_tail_avx512(tail_p, tail_z, count);
        break;
      case isa::avx2:
        normal_central_avx2(p + done, central, m);
        normal_tail_avx2(tail_p, tail_z, count);
        break;
      default: normal_central_sse2(p + done, central, m); normal_tail_sse2(tail_p, tail_z, count);
    }
#else
    (void)path;
    normal_central_sse2(p + done, central, m);
    normal_tail_sse2(tail_p, tail_z, count);
#endif
    for (std::size_t k = 0; k < count; ++k) central[tails[k]] = tail_z[k];
    for (std::size_t i = 0; i < m; ++i) z[done + i] = central[i];
  }
}

}  // namespace trnmodel::dist::detail
