#pragma once
// Sobol indices from a Saltelli design (docs/sensitivity.md), for any model that can be evaluated on the
// design's rows: first order by Saltelli et al. (2010, Comput. Phys. Commun. 181, eq. (b) of
// table 2), total by Jansen (1999), with asymptotic (delta-method) normal confidence intervals.
//
// The design is never stored. For base index j and factor k, matrix A takes the uniforms of
// sample 2j, matrix B those of sample 2j+1 (the same counter-based streams as an ordinary run,
// so A ∪ B is exactly an ordinary run of 2N samples), and AB_i is A with factor i taken from B.
// A block of base indices is evaluated at once (rows A, B, AB_1 .. AB_d of each base index),
// its estimator statistics computed there, and the blocks' statistics merged in block order:
// memory does not grow with N and the result is bitwise identical for any thread count.
//
// Estimators, with a = f(A) − c, b = f(B) − c, x_i = f(AB_i) − c per base index:
//   U_i = b (x_i − a)        S1_i = mean(U_i) / V      (Saltelli 2010)
//   W_i = (a − x_i)² / 2     ST_i = mean(W_i) / V      (Jansen 1999)
//   Q = (a² + b²) / 2, M = (a + b) / 2,   V = mean(Q) − mean(M)²  (variance of f over A ∪ B)
// The shift c (the mean of f(A) and f(B) over the first block) leaves the expectations alone
// but removes the term mean(f)·(x_i − a) from U_i, whose variance would otherwise swamp a
// small index when the output's mean is large next to its spread (a cost in dollars).
// Each index is a smooth function of the means of (U_i or W_i, Q, M); its standard error
// comes from their sample covariance (the delta method), and the interval is ±z·se.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/math/distributions/normal.hpp>

#include "trnmodel/check.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/parallel.hpp"
#include "trnmodel/random/uniform_column.hpp"

namespace trnmodel::sensitivity {

// Rows of the design for one base index: kind 0 is A, 1 is B, 2 + i is AB_i.
/// \var row_a
/// The row kind of matrix A.
/// \var row_b
/// The row kind of matrix B.
inline constexpr std::size_t row_a = 0, row_b = 1;
/// The row kind of AB_factor: A with factor `factor` taken from B.
inline constexpr std::size_t row_ab(std::size_t factor) { return 2 + factor; }

/// The sample index whose uniforms factor `factor` takes in row kind `kind` of base index `base`.
inline constexpr std::uint64_t design_sample(std::uint64_t base, std::size_t kind, std::size_t factor) {
  const bool from_b = kind == row_b || kind == row_ab(factor);
  return 2 * base + (from_b ? 1 : 0);
}

/// Fills x[0 .. n) with the values of quantity q for base indices [base_first, base_first + n)
/// in matrix A (from_b false) or B (from_b true).
inline void draw_design_column(const quantity& q, std::uint32_t stream, std::uint64_t seed, std::uint64_t base_first,
                               Eigen::Index n, bool from_b, double* x) {
  uniform_column(seed, stream, 0, 2 * base_first + (from_b ? 1 : 0), 2, static_cast<std::size_t>(n), x);
  if (q.is_constant()) {
    std::fill(x, x + n, q.ppf(0.5));
    return;
  }
  q.ppf(x, x, static_cast<std::size_t>(n));
}

/// The run options and confidence level of a Sobol analysis. A plain value: copyable, owns its
/// members; concurrent reads are safe.
struct sobol_options {
  run_options run;  ///< run.samples = N base samples; run.block_size = base samples per block
  double confidence = 0.95;  ///< of the intervals S1_conf, ST_conf (half-widths)
};

/// First-order and total Sobol indices per factor, with asymptotic (delta-method) normal
/// confidence intervals. A plain value: copyable, owns its members; concurrent reads are safe.
/// Every per-factor vector is in the order of `factors`; an index is NaN when the output has no
/// variance.
struct sobol_result {
  std::vector<std::string> factors;  ///< the factors' names (inputs, and "chance" for a scenario)
  /// \var first_order
  /// First-order index S1 per factor (Saltelli 2010): the share of the variance it explains alone.
  /// \var first_order_conf
  /// Half-width of S1's interval at `confidence`.
  /// \var total
  /// Total index ST per factor (Jansen 1999): its share, interactions included.
  /// \var total_conf
  /// Half-width of ST's interval at `confidence`.
  std::vector<double> first_order, first_order_conf, total, total_conf;
  /// Per factor: why an estimate cannot be taken at face value (empty when it can).
  std::vector<std::string> notes;
  std::string note;  ///< about the whole result (e.g. first-order indices summing above 1)
  /// \var output_mean
  /// Mean of the output over matrices A and B (2 x base_samples evaluations), in its unit.
  /// \var output_variance
  /// Variance V of the output over A and B, in its unit squared: the indices' denominator.
  double output_mean = 0, output_variance = 0;
  /// \var base_samples
  /// N, the base samples (rows of A and of B).
  /// \var evaluations
  /// Evaluations of the model: N x (factors + 2).
  std::uint64_t base_samples = 0, evaluations = 0;
  double confidence = 0.95;  ///< the level of the intervals, in (0, 1)
};

namespace detail {

// Per factor: (U_i, W_i, Q, M) of every base index.
using factor_statistics = co_moments<4>;

struct block_statistics {
  std::vector<factor_statistics> factors;
  std::uint64_t non_finite = 0;
};

// y: n base indices x (d + 2) row kinds (A, B, AB_1 .. AB_d).
inline block_statistics summarise_block(const Eigen::Ref<const Eigen::ArrayXXd>& y, double shift) {
  const Eigen::Index n = y.rows(), d = y.cols() - 2;
  block_statistics out;
  out.non_finite = static_cast<std::uint64_t>((!y.isFinite()).count());
  out.factors.resize(static_cast<std::size_t>(d));
  if (out.non_finite > 0) return out;
  const Eigen::ArrayXd a = y.col(static_cast<Eigen::Index>(row_a)) - shift;
  const Eigen::ArrayXd b = y.col(static_cast<Eigen::Index>(row_b)) - shift;
  Eigen::Array<double, Eigen::Dynamic, 4> z(n, 4);
  z.col(2) = (a.square() + b.square()) / 2;
  z.col(3) = (a + b) / 2;
  for (Eigen::Index i = 0; i < d; ++i) {
    const Eigen::ArrayXd x = y.col(static_cast<Eigen::Index>(row_ab(static_cast<std::size_t>(i)))) - shift;
    z.col(0) = b * (x - a);
    z.col(1) = (a - x).square() / 2;
    out.factors[static_cast<std::size_t>(i)].add(z);
  }
  return out;
}

// The standard error of g(mean U, mean Q, mean M) = U / (Q − M²) by the delta method; column
// `numerator` of the statistics is U (0 for S1, 1 for ST).
inline double ratio_standard_error(const factor_statistics& s, std::size_t numerator) {
  const double u = s.mean[numerator], q = s.mean[2], m = s.mean[3];
  const double v = q - m * m;
  const std::array<std::size_t, 3> index{numerator, 2, 3};
  const std::array<double, 3> gradient{1 / v, -u / (v * v), 2 * m * u / (v * v)};
  double variance = 0;
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t l = 0; l < 3; ++l) variance += gradient[k] * gradient[l] * s.covariance(index[k], index[l]);
  return std::sqrt(std::max(0.0, variance) / static_cast<double>(s.count));
}

inline sobol_result finish(std::vector<std::string> factors, const std::vector<factor_statistics>& totals, double shift,
                           const sobol_options& options) {
  sobol_result r;
  r.factors = std::move(factors);
  r.base_samples = options.run.samples;
  r.evaluations = options.run.samples * (r.factors.size() + 2);
  r.confidence = options.confidence;
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + options.confidence / 2);
  const factor_statistics& any = totals.front();
  r.output_mean = shift + any.mean[3];
  r.output_variance = any.mean[2] - any.mean[3] * any.mean[3];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Relative to the output's scale, a variance this small is rounding: the indices are 0/0.
  const bool no_variance = !(r.output_variance > 1e-24 * std::max(1.0, r.output_mean * r.output_mean));
  double sum_first = 0;
  for (const auto& s : totals) {
    std::string note;
    if (no_variance) {
      r.first_order.push_back(nan);
      r.total.push_back(nan);
      r.first_order_conf.push_back(nan);
      r.total_conf.push_back(nan);
      r.notes.emplace_back("output has no variance: indices undefined");
      continue;
    }
    const double s1 = s.mean[0] / r.output_variance, st = s.mean[1] / r.output_variance;
    const double s1_conf = z * ratio_standard_error(s, 0), st_conf = z * ratio_standard_error(s, 1);
    r.first_order.push_back(s1);
    r.total.push_back(st);
    r.first_order_conf.push_back(s1_conf);
    r.total_conf.push_back(st_conf);
    sum_first += s1;
    const auto add = [&](const std::string& text) { note += (note.empty() ? "" : "; ") + text; };
    // Flagged, never clipped: how far outside the admissible range an estimate falls says how
    // much to trust the others. Within its interval, it is noise around a boundary value.
    if (s1 < 0)
      add(s1 + s1_conf < 0 ? "S1 < 0 beyond its interval: the estimator is failing; increase base_samples"
                           : "S1 < 0 within its interval: S1 ≈ 0");
    if (s1 > st)
      add(s1 - s1_conf > st ? "S1 > ST beyond S1's interval: inconsistent; increase base_samples"
                            : "S1 > ST within S1's interval: S1 ≈ ST (no interactions)");
    if (st > 1) add("ST > 1: estimation noise; increase base_samples");
    r.notes.push_back(note);
  }
  if (no_variance)
    r.note = "the output is constant over the design: it has no variance to apportion";
  else if (sum_first > 1)
    r.note = "first-order indices sum to " + trnmodel::detail::format_number(sum_first) + " > 1: estimation noise";
  return r;
}

}  // namespace detail

/// input_error unless the options are usable (base samples, confidence).
inline void check_sobol_options(const sobol_options& options) {
  if (options.run.samples < 2)
    trnmodel::detail::fail("base_samples", "must be ≥ 2, got " + std::to_string(options.run.samples));
  if (options.run.samples > (std::uint64_t{1} << 62))
    trnmodel::detail::fail("base_samples", "must be ≤ 2^62 (two sample indices per base index), got " +
                                               std::to_string(options.run.samples));
  if (!(options.confidence > 0 && options.confidence < 1))
    trnmodel::detail::fail("confidence",
                           "must be in (0, 1), got " + trnmodel::detail::format_number(options.confidence));
  trnmodel::detail::check_run_options(options.run);
}

namespace detail {

// The blocks of a Sobol run: design rows (A, B, AB_1 .. AB_d of its base indices), evaluated: `outputs` groups of
// d + 2 columns, one group per output.
template <class Evaluator> class sobol_blocks {
 public:
  sobol_blocks(const Evaluator& evaluate, std::size_t factors, const sobol_options& options, std::size_t outputs = 1)
      : evaluate_(evaluate), kinds_(static_cast<Eigen::Index>(factors + 2)),
        outputs_(static_cast<Eigen::Index>(outputs)), run_(with_block_size(options.run)),
        grid_{run_.samples, static_cast<std::uint64_t>(run_.block_size)} {
    check_sobol_options(options);
    if (factors == 0)
      trnmodel::detail::fail("factors", "no uncertain inputs: there is nothing to apportion the variance to");
  }
  Eigen::ArrayXXd evaluate(std::uint64_t b) const {
    Eigen::ArrayXXd y(static_cast<Eigen::Index>(grid_.size(b)), kinds_ * outputs_);
    evaluate_(run_.seed, grid_.first_sample(b), y.rows(), y);
    return y;
  }
  /// Output o's d + 2 columns of an evaluated block.
  Eigen::Ref<const Eigen::ArrayXXd> output(const Eigen::ArrayXXd& y, std::size_t o) const {
    return y.middleCols(static_cast<Eigen::Index>(o) * kinds_, kinds_);
  }
  const run_options& run() const { return run_; }
  const trnmodel::detail::block_grid& grid() const { return grid_; }

 private:
  const Evaluator& evaluate_;
  Eigen::Index kinds_, outputs_;
  run_options run_;
  trnmodel::detail::block_grid grid_;
};

// The shift: the mean of f over rows A and B of the first block.
inline double design_shift(const Eigen::Ref<const Eigen::ArrayXXd>& first_block) {
  return (first_block.col(static_cast<Eigen::Index>(row_a)).sum() +
          first_block.col(static_cast<Eigen::Index>(row_b)).sum()) /
         (2.0 * static_cast<double>(first_block.rows()));
}

// The shift block b's statistics are taken about: the first block falls back to 0 when the
// shift is not finite (the run then fails on its non-finite values anyway, with their count).
inline double block_shift(std::uint64_t b, double shift) { return b == 0 && !std::isfinite(shift) ? 0.0 : shift; }

inline void merge_block(const block_statistics& s, std::vector<factor_statistics>& totals, std::uint64_t& non_finite) {
  non_finite += s.non_finite;
  for (std::size_t i = 0; i < totals.size(); ++i) totals[i].merge(s.factors[i]);
}

inline sobol_result finish_checked(std::vector<std::string> factors, const std::vector<factor_statistics>& totals,
                                   std::uint64_t non_finite, double shift, const sobol_options& options,
                                   const std::string& output_name) {
  if (non_finite > 0)
    trnmodel::detail::fail(output_name, "the model returned " + std::to_string(non_finite) +
                                            " non-finite values (NaN or infinity) in " +
                                            std::to_string(options.run.samples * (factors.size() + 2)) +
                                            " evaluations; Sobol indices need a finite output everywhere");
  return finish(std::move(factors), totals, shift, options);
}

inline constexpr const char* sobol_partial_tag = "trnmodel.sobol_partial/1";

// What a Sobol partial belongs to, the shift last.
inline void write_run(trnmodel::detail::byte_writer& out, const sobol_options& options, std::size_t factors,
                      double shift) {
  const run_options run = with_block_size(options.run);
  out.u64(run.seed);
  out.u64(run.samples);
  out.u64(static_cast<std::uint64_t>(run.block_size));
  out.u64(factors);
  out.f64(shift);
}

}  // namespace detail

/// The Sobol indices of several outputs of one model from one design: `evaluate` fills y
/// (n x (d + 2) · outputs) with output o's rows A, B, AB_1 .. AB_d in columns [o (d + 2),
/// (o + 1)(d + 2)). Each output's result has the bits sobol() gives for that output alone (its
/// own shift and statistics, folded in the same block order); the model is evaluated once per
/// design row instead of once per output.
template <class Evaluator>
std::vector<sobol_result> sobol_outputs(const Evaluator& evaluate, const std::vector<std::string>& factors,
                                        const sobol_options& options, const std::vector<std::string>& output_names) {
  if (output_names.empty()) trnmodel::detail::fail("output", "name at least one output");
  const std::size_t outputs = output_names.size();
  const detail::sobol_blocks<Evaluator> blocks(evaluate, factors.size(), options, outputs);
  const run_options& run = blocks.run();
  const trnmodel::detail::block_grid& grid = blocks.grid();
  // Each output's shift comes from the first block, before anything is accumulated: it depends
  // on the seed and the block size only.
  const Eigen::ArrayXXd first_block = blocks.evaluate(0);
  std::vector<double> shift(outputs);
  for (std::size_t o = 0; o < outputs; ++o) shift[o] = detail::design_shift(blocks.output(first_block, o));
  std::vector<std::vector<detail::factor_statistics>> totals(outputs,
                                                             std::vector<detail::factor_statistics>(factors.size()));
  std::vector<std::uint64_t> non_finite(outputs, 0);
  // Per output, its statistics of a block (the first block's about block_shift).
  using block_outputs = std::vector<detail::block_statistics>;
  const auto summarise = [&](const Eigen::ArrayXXd& y, std::uint64_t b) {
    block_outputs s(outputs);
    for (std::size_t o = 0; o < outputs; ++o)
      s[o] = detail::summarise_block(blocks.output(y, o), b == 0 ? detail::block_shift(0, shift[o]) : shift[o]);
    return s;
  };
  const auto fold = [&](const block_outputs& s) {
    for (std::size_t o = 0; o < outputs; ++o) detail::merge_block(s[o], totals[o], non_finite[o]);
  };
  fold(summarise(first_block, 0));
  if (run.progress) run.progress(grid.samples_before(1), run.samples);
  // The other blocks in waves; progress counts from block 0, which is done.
  std::vector<block_outputs> partial(
      static_cast<std::size_t>(trnmodel::detail::blocks_per_wave(trnmodel::detail::threads_for(run.threads))));
  trnmodel::detail::for_each_wave(
      grid, 1, grid.blocks(), trnmodel::detail::hooks_of(run),
      [&](std::uint64_t b, std::size_t slot) { partial[slot] = summarise(blocks.evaluate(b), b); },
      [&](std::uint64_t wave_first, std::uint64_t wave_last) {
        for (std::uint64_t b = wave_first; b < wave_last; ++b) fold(partial[static_cast<std::size_t>(b - wave_first)]);
      },
      0);
  std::vector<sobol_result> results;
  for (std::size_t o = 0; o < outputs; ++o)
    results.push_back(detail::finish_checked(factors, totals[o], non_finite[o], shift[o], options, output_names[o]));
  return results;
}

/// Sobol indices of a model given as an evaluator
///   evaluate(std::uint64_t seed, std::uint64_t base_first, Eigen::Index n, Eigen::ArrayXXd& y)
/// that fills y (n x (d + 2), already sized) with f at rows A, B, AB_1 .. AB_d of base indices
/// [base_first, base_first + n), drawing factor k's uniforms from sample design_sample(j, kind, k).
/// It must be safe to call concurrently. Non-finite outputs are refused (they have no variance
/// to apportion), naming how many there were.
template <class Evaluator> sobol_result sobol(const Evaluator& evaluate, const std::vector<std::string>& factors,
                                              const sobol_options& options, const std::string& output_name = "output") {
  return std::move(sobol_outputs(evaluate, factors, options, {output_name}).front());
}

// ---- the split form (docs/scaling.md): the same result from ranges of blocks computed apart -----

/// The shift of a Sobol run (the mean of f over A and B of block 0): computed once by the caller
/// and given to every range, as sobol() computes it before any other block.
template <class Evaluator>
double sobol_shift(const Evaluator& evaluate, std::size_t factors, const sobol_options& options) {
  return detail::design_shift(detail::sobol_blocks<Evaluator>(evaluate, factors, options).evaluate(0));
}

/// The block statistics of blocks [first_block, last_block) of the run sobol(evaluate, factors,
/// options) would make, with its shift, as exact bytes ("trnmodel.sobol_partial/1"). The hooks
/// of options.run see this range's progress only.
template <class Evaluator>
std::string sobol_partial(const Evaluator& evaluate, std::size_t factors, const sobol_options& options, double shift,
                          std::uint64_t first_block, std::uint64_t last_block) {
  const detail::sobol_blocks<Evaluator> blocks(evaluate, factors, options);
  const trnmodel::detail::block_grid& grid = blocks.grid();
  if (!(first_block < last_block && last_block <= grid.blocks()))
    trnmodel::detail::fail("blocks", "[" + std::to_string(first_block) + ", " + std::to_string(last_block) +
                                         ") is not a non-empty range of the run's " + std::to_string(grid.blocks()) +
                                         " blocks");
  std::vector<detail::block_statistics> statistics(static_cast<std::size_t>(last_block - first_block));
  trnmodel::detail::for_each_wave(
      grid, first_block, last_block, trnmodel::detail::hooks_of(blocks.run()),
      [&](std::uint64_t b, std::size_t) {
        statistics[static_cast<std::size_t>(b - first_block)] =
            detail::summarise_block(blocks.evaluate(b), detail::block_shift(b, shift));
      },
      [](std::uint64_t, std::uint64_t) {});
  trnmodel::detail::byte_writer out;
  out.text(detail::sobol_partial_tag);
  detail::write_run(out, options, factors, shift);
  out.u64(first_block);
  out.u64(last_block);
  for (const auto& s : statistics) {
    out.u64(s.non_finite);
    for (const auto& f : s.factors) f.write(out);
  }
  return out.take();
}

/// sobol()'s result from the partials of all its blocks, given in block order: bit for bit the
/// same (the blocks' statistics merged in the order sobol() merges them). input_error naming
/// "partial" for bytes of another format or run, a gap or an overlap between ranges.
inline sobol_result sobol_fold(std::vector<std::string> factors, const sobol_options& options,
                               const std::vector<std::string>& partials, const std::string& output_name = "output") {
  check_sobol_options(options);
  const run_options run = with_block_size(options.run);
  const trnmodel::detail::block_grid grid{run.samples, static_cast<std::uint64_t>(run.block_size)};
  std::vector<detail::factor_statistics> totals(factors.size());
  std::uint64_t non_finite = 0, next_block = 0;
  double shift = 0;
  for (std::size_t k = 0; k < partials.size(); ++k) {
    trnmodel::detail::byte_reader in(partials[k]);
    if (in.text("format") != detail::sobol_partial_tag)
      trnmodel::detail::fail("partial", "not a Sobol partial of this format (" + std::string(detail::sobol_partial_tag) +
                                            ")");
    const std::uint64_t seed = in.u64("seed"), samples = in.u64("samples"), block_size = in.u64("block_size"),
                        count = in.u64("factors");
    if (seed != run.seed || samples != run.samples || block_size != static_cast<std::uint64_t>(run.block_size) ||
        count != factors.size())
      trnmodel::detail::fail("partial", "range " + std::to_string(k) +
                                            " belongs to another run (its seed, samples, block size or factors differ)");
    const double their_shift = in.f64("shift");
    if (k == 0) shift = their_shift;
    if (std::memcmp(&shift, &their_shift, sizeof shift) != 0)
      trnmodel::detail::fail("partial", "range " + std::to_string(k) + " was computed with another shift");
    const std::uint64_t first = in.u64("first_block"), last = in.u64("last_block");
    if (first != next_block || !(first < last && last <= grid.blocks()))
      trnmodel::detail::fail("partial", "range " + std::to_string(k) + " covers blocks [" + std::to_string(first) + ", " +
                                            std::to_string(last) + "), expected one starting at block " +
                                            std::to_string(next_block) + ": give the ranges in block order");
    for (std::uint64_t b = first; b < last; ++b) {
      detail::block_statistics s;
      s.non_finite = in.u64("non_finite");
      for (std::size_t f = 0; f < factors.size(); ++f) s.factors.push_back(detail::factor_statistics::read(in));
      detail::merge_block(s, totals, non_finite);
    }
    if (!in.done()) trnmodel::detail::fail("partial", "trailing bytes after range " + std::to_string(k));
    next_block = last;
  }
  if (next_block != grid.blocks())
    trnmodel::detail::fail("partial", "the ranges end at block " + std::to_string(next_block) + " of " +
                                          std::to_string(grid.blocks()));
  return detail::finish_checked(std::move(factors), totals, non_finite, shift, options, output_name);
}

}  // namespace trnmodel::sensitivity
