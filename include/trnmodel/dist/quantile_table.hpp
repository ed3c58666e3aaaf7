#pragma once
// A fast quantile function for distributions whose inverse CDF has no closed form (gamma,
// beta, PERT). Boost.Math's ibeta_inv / gamma_p_inv iterate (microseconds per call); the
// hot loop instead evaluates a cubic Hermite interpolant built once per distribution (a column
// of draws evaluates the central table in vector lanes, hermite_column).
//
// Coordinates: t = logit(u) on [-38, 38] (every uniform our RNG produces lies inside), and
// y = log(x) (gamma) or y = logit(x) (beta). In these coordinates both tails become
// asymptotically linear (x ~ (c u)^(1/a) near 0, 1 - x ~ (c (1-u))^(1/b) near 1), so a
// uniform grid of 8193 knots reaches full double-range tails with relative error below
// 1e-10 (tested against Boost.Math; 5e-11 at worst over the tested shapes). The knots' derivatives
// are exact: dy/dt = u (1-u) / (x pdf(x)) for gamma and
// u (1-u) / (x (1-x) pdf(x)) for beta, from Boost's gamma_p_derivative / ibeta_derivative.
// Values of u outside the table's domain (user calls with u near 0 or 1) fall back to the
// exact Boost inverse.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/random/isa.hpp"

namespace trnmodel::detail {

// A cubic Hermite interpolant on a uniform grid: Boost.Math's cardinal_cubic_hermite, with its
// arithmetic kept operation for operation (the tables' numbers did not change when it replaced
// Boost's class), its knots readable by the column kernel below, and NaN instead of an
// exception outside [x0, xf].
struct cardinal_hermite {
  std::vector<double> y, dy;  // dy: the derivatives times dx, as Boost keeps them
  double x0 = 0, inv_dx = 1, xf = 0;

  cardinal_hermite(std::vector<double> values, std::vector<double> derivatives, double first, double dx)
      : y(std::move(values)), dy(std::move(derivatives)), x0(first), inv_dx(1 / dx) {
    for (double& d : dy) d *= dx;
    xf = x0 + static_cast<double>(y.size() - 1) / inv_dx;
  }

  double operator()(double x) const {
    if (x < x0 || x > xf) return std::numeric_limits<double>::quiet_NaN();
    if (x == xf) return y.back();
    return unchecked(x);
  }

  // For x in [x0, xf); the index is kept inside the table so that a lane given any x reads
  // valid knots.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((always_inline))
#endif
  inline double
  unchecked(double x) const {
    const double s = (x - x0) * inv_dx;
    const double ii = std::floor(s);
    const auto last = static_cast<std::int32_t>(y.size() - 2);
    auto i = static_cast<std::int32_t>(ii);
    i = i > last ? last : i;
    const double t = s - ii;
    const auto k = static_cast<std::size_t>(i);  // i ≥ 0: x is within the table
    const double y0 = y[k], y1 = y[k + 1], dy0 = dy[k], dy1 = dy[k + 1];
    const double r = 1 - t;
    return r * r * (y0 * (1 + 2 * t) + dy0 * t) + t * t * (y1 * (3 - 2 * t) - dy1 * r);
  }
};

// out[i] = h(x[i]) for x[i] in [x0, xf]; other lanes get a value of the table's ends (the
// caller replaces them).
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
inline void
hermite_column_body(const cardinal_hermite& h, const double* x, double* out, std::size_t n) {
  const double lo = h.x0, hi = h.xf, top = h.y.back();
  for (std::size_t i = 0; i < n; ++i) {
    double v = x[i];
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    const double value = h.unchecked(v);
    out[i] = v == hi ? top : value;
  }
}
inline void hermite_column_sse2(const cardinal_hermite& h, const double* x, double* out, std::size_t n) {
  hermite_column_body(h, x, out, n);
}
#ifdef TRNMODEL_X86_DISPATCH
TRNMODEL_TARGET_AVX2 inline void hermite_column_avx2(const cardinal_hermite& h, const double* x, double* out,
                                                     std::size_t n) {
  hermite_column_body(h, x, out, n);
}
TRNMODEL_TARGET_AVX512 inline void hermite_column_avx512(const cardinal_hermite& h, const double* x, double* out,
                                                         std::size_t n) {
  hermite_column_body(h, x, out, n);
}
#endif
inline void hermite_column(const cardinal_hermite& h, const double* x, double* out, std::size_t n) {
#ifdef TRNMODEL_X86_DISPATCH
  switch (active_isa()) {
    case isa::avx512: return hermite_column_avx512(h, x, out, n);
    case isa::avx2: return hermite_column_avx2(h, x, out, n);
    default: break;
  }
#endif
  hermite_column_sse2(h, x, out, n);
}

struct knot {
  double y;  // transformed quantile at the knot
  double dy_dt;  // its exact derivative in t = logit(u)
};

class quantile_table {
 public:
  static constexpr double t_limit = 38.0;
  static constexpr std::size_t knots = 8193;

  // `at_knot(u, one_minus_u)` returns the knot value and derivative; both u and 1-u are
  // given exactly so that tails are computed without cancellation.
  explicit quantile_table(const std::function<knot(double, double)>& at_knot) {
    const double dt = 2 * t_limit / static_cast<double>(knots - 1);
    std::vector<double> y(knots), dy(knots);
    for (std::size_t i = 0; i < knots; ++i) {
      const double t = -t_limit + dt * static_cast<double>(i);
      // u = 1/(1+e^-t) and 1-u = 1/(1+e^t), each accurate in its own tail.
      const knot k = at_knot(1 / (1 + std::exp(-t)), 1 / (1 + std::exp(t)));
      y[i] = k.y;
      dy[i] = k.dy_dt;
    }
    // Keep the contiguous finite run around the median (t = 0); extreme tails whose
    // quantile under- or overflows are left to the exact fallback.
    const std::size_t centre = (knots - 1) / 2;
    std::size_t first = centre;
    while (first > 0 && std::isfinite(y[first - 1]) && std::isfinite(dy[first - 1])) --first;
    std::size_t last = centre;
    while (last + 1 < knots && std::isfinite(y[last + 1]) && std::isfinite(dy[last + 1])) ++last;
    t_lo_ = -t_limit + dt * static_cast<double>(first);
    t_hi_ = -t_limit + dt * static_cast<double>(last);
    const auto from = static_cast<std::ptrdiff_t>(first), to = static_cast<std::ptrdiff_t>(last + 1);
    std::vector<double> ys(y.begin() + from, y.begin() + to);
    std::vector<double> dys(dy.begin() + from, dy.begin() + to);
    spline_ = std::make_unique<cardinal_hermite>(std::move(ys), std::move(dys), t_lo_, dt);
  }

  // The transformed quantile y at u, or NaN when u lies outside the table's domain. The same
  // operations as column() lane by lane, so a single draw and a column give the same bits.
  double operator()(double u) const { return at_lane(*spline_, t_lo_, t_hi_, u); }

  // y[i] = (*this)(u[i]) for a column, in the caller's vector lanes (to be inlined into a
  // kernel compiled per instruction set, random/isa.hpp); y may be u.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((always_inline))
#endif
  inline void
  column_body(const double* u, double* y, std::size_t n) const {
    const cardinal_hermite& h = *spline_;
    for (std::size_t i = 0; i < n; ++i) y[i] = at_lane(h, t_lo_, t_hi_, u[i]);
  }

 private:
  // t = logit(u) by the lane log (dist/lane_math.hpp: a few units in the last place, no library
  // call), then the spline at t; selects, not branches, so that a loop of it vectorises.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((always_inline))
#endif
  static inline double
  at_lane(const cardinal_hermite& h, double t_lo, double t_hi, double u) {
    const double t = trnmodel::dist::detail::lane_log(u / (1 - u));
    const bool inside = t >= t_lo && t <= t_hi && t >= h.x0 && t <= h.xf;
    const double clamped = inside ? t : h.x0;
    const double value = clamped == h.xf ? h.y.back() : h.unchecked(clamped);
    return inside ? value : std::numeric_limits<double>::quiet_NaN();
  }

  std::unique_ptr<cardinal_hermite> spline_;
  double t_lo_ = 0, t_hi_ = 0;
};

// The central part of a smooth quantile function, x(u) for u in [1/16, 15/16], as a cubic
// Hermite interpolant directly in u: no logit or exp in the hot loop, for the seven in eight
// draws that land there. Only for families whose quantile is smooth in x itself there (beta
// with both shapes ≥ 1, which includes every PERT; gamma with shape ≥ 1): 4097 knots keep
// the relative error below 1e-10 (tested with the tail tables against Boost.Math).
class central_quantile_table {
 public:
  static constexpr double u_lo = 1.0 / 16, u_hi = 15.0 / 16;
  static constexpr std::size_t knots = 4097;

  struct point {
    double x;  // the quantile at u
    double dx_du;  // 1 / density(x)
  };

  explicit central_quantile_table(const std::function<point(double, double)>& at_knot) {
    const double du = (u_hi - u_lo) / static_cast<double>(knots - 1);
    std::vector<double> x(knots), dx(knots);
    for (std::size_t i = 0; i < knots; ++i) {
      const double u = u_lo + du * static_cast<double>(i);
      const point p = at_knot(u, 1 - u);
      x[i] = p.x;
      dx[i] = p.dx_du;
    }
    spline_ = std::make_unique<cardinal_hermite>(std::move(x), std::move(dx), u_lo, du);
  }

  static bool covers(double u) { return u >= u_lo && u <= u_hi; }
  // NaN in the sliver between the last knot as rounded and u_hi (then the tail table answers).
  double operator()(double u) const { return (*spline_)(u); }
  const cardinal_hermite& spline() const { return *spline_; }

 private:
  std::unique_ptr<cardinal_hermite> spline_;
};

}  // namespace trnmodel::detail
