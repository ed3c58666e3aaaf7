#pragma once
// Comparing two scenarios on common random numbers (docs/sensitivity.md), and break-even solving.
//
// Both scenarios run on the same seed and sample indices, and every input draws from the
// stream named by its JSON path: an input present in both draws the same uniforms, and the
// chance draws (failures, cache, quality gate) share their streams too. The per-sample
// difference is then the effect of what differs between the scenarios, not of two different
// samples: a scenario compared with itself differs by exactly zero.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/math/tools/toms748_solve.hpp>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/scratch.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/sensitivity/block_parts.hpp"
#include "trnmodel/sensitivity/drawn_inputs.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/statistic.hpp"

namespace trnmodel::sensitivity {

/// The engine model of a comparison. Outputs, per sample: "a", "b", "difference" (a − b) and
/// "a_less_b" (1 when a < b, else 0, so its mean is P(A < B)). Thread-safety: immutable, called
/// concurrently by the engine. Ownership: holds its own copies of both lifecycle models.
class comparison_model {
 public:
  /// Metric m of scenarios a and b. Throws unknown_input_error when either needs an unknown
  /// input for m.
  comparison_model(const scenario& a, const scenario& b, metric::id m) : a_(a), b_(b), metric_(m) {
    require_known_for(a_, m);
    require_known_for(b_, m);
  }
  /// The output names, in column order: "a", "b", "difference", "a_less_b".
  static std::vector<std::string> output_names() { return {"a", "b", "difference", "a_less_b"}; }
  /// What another process rebuilds it from (run_request.hpp): {"kind": "comparison", "a",
  /// "b", "metric"}.
  ordered_json request() const {
    return {{"kind", "comparison"}, {"a", a_.request()}, {"b", b_.request()}, {"metric", metric_names()[metric_]}};
  }

  /// The engine's call: both models on the same block (the same seed, samples and streams), the
  /// metric's column of each, their difference and the indicator a < b (0 when either is NaN).
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    thread_local trnmodel::detail::scratch_slot slot;  // every metric of the block (scratch.hpp)
    trnmodel::detail::padded_scratch lent(slot, block.size, static_cast<Eigen::Index>(metric::count));
    auto all = lent.array();
    a_(block, all);
    out.col(0) = all.col(static_cast<Eigen::Index>(metric_));
    b_(block, all);
    out.col(1) = all.col(static_cast<Eigen::Index>(metric_));
    out.col(2) = out.col(0) - out.col(1);
    out.col(3) = (out.col(0) < out.col(1)).cast<double>();
  }

 private:
  lifecycle_model a_, b_;
  metric::id metric_;
};

/// The comparison of one metric between two scenarios on common random numbers: the run of
/// comparison_model (outputs "a", "b", "difference", "a_less_b"), with its answers by name.
/// Thread-safety: read-only, safe to share between threads. Ownership: a value type.
class comparison_result : public run_result {
 public:
  /// The run of a comparison_model of metric m.
  comparison_result(run_result run, metric::id m) : run_result(std::move(run)), metric_(m) {}
  /// The metric compared.
  metric::id metric() const { return metric_; }
  /// The metric compared, by name (metric_names()).
  std::string metric_name() const { return metric_names()[metric_]; }
  /// P(A < B): the share of samples in which scenario a's metric is below b's.
  double p_a_less_b() const { return stats("a_less_b").mean; }
  /// Moments of the per-sample difference a − b (mean, sd(), min, max).
  const moments& difference() const { return stats("difference"); }
  /// A quantile of the per-sample difference a − b.
  double difference_quantile(double probability) const { return quantile("difference", probability); }
  /// The scenarios' own distributions of the metric: a_quantile(0.9) is a's P90.
  double a_quantile(double probability) const { return quantile("a", probability); }
  /// b's quantile of the metric: b_quantile(0.9) is b's P90.
  double b_quantile(double probability) const { return quantile("b", probability); }

 private:
  metric::id metric_;
};

/// Compares metric m of scenarios a and b, sample by sample on common random numbers.
/// Throws unknown_input_error when either scenario's metric needs unknown inputs. Bitwise the
/// numbers of Python's tm.compare with the same samples, seed and keep_samples.
inline comparison_result compare(const scenario& a, const scenario& b, metric::id m, const run_options& options) {
  return comparison_result(run(comparison_model(a, b, m), comparison_model::output_names(), options), m);
}
/// compare() with the metric by name ("wall_h", "run_cost_usd", ...).
inline comparison_result compare(const scenario& a, const scenario& b, const std::string& metric_name,
                                 const run_options& options) {
  return compare(a, b, metric_named(metric_name, "metric"), options);
}

/// A comparison's engine model over two kept runs: sample i's "a" and "b" are row i of metric
/// m's column in each run, the other outputs as comparison_model makes them. With the runs of
/// simulate() on the comparison's seed, samples and block size, its run is compare()'s, bit
/// for bit (the same values folded in the same blocks), without simulating again.
/// Thread-safety: read-only; the runs must outlive it.
class kept_pair_model {
 public:
  kept_pair_model(const run_result& a, const run_result& b, metric::id m)
      : a_(a.values(metric_names()[m])), b_(b.values(metric_names()[m])) {
    if (a.samples() != b.samples())
      trnmodel::detail::fail("b", "has " + std::to_string(b.samples()) + " samples, a has " +
                                      std::to_string(a.samples()) + ": a comparison pairs the runs sample by sample");
  }
  /// The engine's call: the block's rows of both columns, their difference and a < b.
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    const auto first = static_cast<Eigen::Index>(block.first);
    out.col(0) = a_.segment(first, block.size);
    out.col(1) = b_.segment(first, block.size);
    out.col(2) = out.col(0) - out.col(1);
    out.col(3) = (out.col(0) < out.col(1)).cast<double>();
  }

 private:
  Eigen::Ref<const Eigen::ArrayXd> a_, b_;
};

/// compare() from two kept runs of simulate() (every metric, or at least m, kept) on the
/// options' seed and samples: the same result, bit for bit, from the samples already drawn.
/// input_error when a run did not keep its samples or their sample counts differ from each
/// other or from options.samples.
inline comparison_result compare_kept(const run_result& a, const run_result& b, metric::id m,
                                      const run_options& options) {
  if (a.samples() != options.samples)
    trnmodel::detail::fail("samples", "is " + std::to_string(options.samples) + ", but the kept runs have " +
                                          std::to_string(a.samples()));
  return comparison_result(run(kept_pair_model(a, b, m), comparison_model::output_names(), options), m);
}

/// How many bytes of drawn inputs a break-even keeps by default (break_even's max_drawn_bytes):
/// 10^6 samples of 33 inputs.
inline constexpr double break_even_drawn_bytes = 256.0 * 1024 * 1024;

/// What break_even found. A plain value.
struct break_even_result {
  double value;  ///< of the path in the varied scenario
  double target;  ///< the fixed scenario's statistic
  double achieved;  ///< the varied scenario's statistic at `value`
  int evaluations;  ///< simulations of the varied scenario
};

/// The value of `path` (a quantity, set to a fixed value) in `varied` at which its statistic
/// of metric m equals that of `fixed`, every run on the same seed. [lo, hi] must bracket the
/// answer; with NaN bounds the bracket grows geometrically from the path's current median.
/// The root is found by TOMS 748 (Alefeld, Potra & Shi 1995) to a relative 1e-9. Bitwise
/// Python's Comparison.break_even with the same samples and seed.
///
/// Every evaluation draws the same numbers for the inputs other than `path`: they are drawn once
/// and kept when they take at most `max_drawn_bytes` (and the run is not sent elsewhere,
/// options.remote), which gives each evaluation the bits of its own run at a fraction of the
/// cost. The answer is the end of TOMS 748's last bracket whose statistic lies nearer the
/// target (both ends were evaluated, so `achieved` costs no further run).
///
/// `known_target`: the fixed scenario's statistic when the caller already has it from a run on
/// the same seed and samples (a comparison's column of that scenario: the same values, so the
/// same bits); NaN runs the fixed scenario for it. `draws`: the varied scenario's inputs already
/// drawn for this seed and sample count (the sign-off's simulation of it), used instead of
/// drawing them again when they fit the run.
inline break_even_result break_even(const scenario& fixed, const scenario& varied, metric::id m,
                                    const std::string& path, statistic stat, const run_options& options,
                                    double lo = std::numeric_limits<double>::quiet_NaN(),
                                    double hi = std::numeric_limits<double>::quiet_NaN(),
                                    double max_drawn_bytes = break_even_drawn_bytes,
                                    double known_target = std::numeric_limits<double>::quiet_NaN(),
                                    const input_draws* draws = nullptr) {
  const field_spec* field = find_field(path);
  if (field == nullptr)
    trnmodel::detail::fail(
        path, "no such scenario field" + trnmodel::detail::did_you_mean(path, trnmodel::detail::all_paths()));
  if (field->kind != field_kind::quantity)
    trnmodel::detail::fail("path",
                           "\"" + path + "\" is not a scenario quantity (break-even varies one uncertain input)");
  const lifecycle_model fixed_model(fixed);
  require_known_for(fixed_model, m);
  break_even_result result{std::numeric_limits<double>::quiet_NaN(),
                           std::isnan(known_target) ? metric_statistic(fixed_model, m, stat, options) : known_target,
                           std::numeric_limits<double>::quiet_NaN(), 0};
  const bool draws_fit = draws != nullptr && draws->fits(options);
  input_draws own;
  if (!draws_fit) {
    auto varied_model = std::make_shared<const lifecycle_model>(varied);
    if (!options.remote && 8.0 * static_cast<double>(options.samples) *
                                   static_cast<double>(varied_model->input_count()) <=
                               max_drawn_bytes)
      own = draw_inputs(std::move(varied_model), options);
  }
  const input_draws& drawn = draws_fit ? *draws : own;
  // Every value evaluated and its gap, so that the answer's own gap is looked up, not run again.
  std::vector<std::pair<double, double>> evaluated;
  const auto gap_at = [&](double value) {
    ++result.evaluations;
    const lifecycle_model model(varied.updated({{path, ordered_json(value)}}));
    require_known_for(model, m);
    // The model's drawn inputs among the varied scenario's (all of them but `path`, or the
    // model draws from its own streams).
    auto columns = drawn.fits(options) ? detail::drawn_columns(*drawn.model, model) : std::nullopt;
    if (!columns) return metric_statistic(model, m, stat, options) - result.target;
    run_options o = options;
    o.keep_samples = !stat.is_mean();
    const detail::drawn_inputs_model cached(model, drawn.values, std::move(*columns), output_of(m));
    return stat.of(run(cached, {metric_names()[m]}, o)) - result.target;
  };
  const auto gap = [&](double value) {
    for (const auto& [x, g] : evaluated)
      if (x == value) return g;
    evaluated.emplace_back(value, gap_at(value));
    return evaluated.back().second;
  };
  const bool given = !std::isnan(lo) || !std::isnan(hi);
  double g_lo = 0, g_hi = 0;
  if (given) {
    trnmodel::detail::check_finite("lo", lo);
    trnmodel::detail::check_finite("hi", hi);
    if (!(lo < hi))
      trnmodel::detail::fail("lo", "must be below hi, got lo=" + trnmodel::detail::format_number(lo) +
                                       ", hi=" + trnmodel::detail::format_number(hi));
    g_lo = gap(lo);
    g_hi = gap(hi);
    if (g_lo * g_hi > 0)
      trnmodel::detail::fail(
          "bracket", "[" + trnmodel::detail::format_number(lo) + ", " + trnmodel::detail::format_number(hi) +
                         "] does not bracket the break-even of " + path + ": the difference of the " + stat.name() +
                         " is " + trnmodel::detail::format_number(g_lo) + " and " +
                         trnmodel::detail::format_number(g_hi) + " at its ends");
  } else {
    const quantity* q = varied.find(path);
    const double start = q != nullptr && !q->is_unknown() && q->ppf(0.5) > 0 ? q->ppf(0.5) : 1.0;
    lo = start / 2;
    hi = start * 2;
    g_lo = gap(lo);
    g_hi = gap(hi);
    for (int widen = 0; g_lo * g_hi > 0; ++widen) {
      if (widen == 40)
        trnmodel::detail::fail(path, "no break-even between " + trnmodel::detail::format_number(lo) + " and " +
                                         trnmodel::detail::format_number(hi) + ": the " + stat.name() + " of " +
                                         metric_names()[m] + " stays " + (g_lo > 0 ? "above" : "below") +
                                         " the other scenario's (" + trnmodel::detail::format_number(result.target) +
                                         ") over that range");
      lo /= 4;
      hi *= 4;
      g_lo = gap(lo);
      g_hi = gap(hi);
    }
  }
  if (g_lo == 0 || g_hi == 0) {
    result.value = g_lo == 0 ? lo : hi;
  } else {
    std::uintmax_t iterations = 200;
    const auto root = boost::math::tools::toms748_solve(
        gap, lo, hi, g_lo, g_hi,
        [](double a, double b) { return std::abs(b - a) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }, iterations);
    result.value = std::abs(gap(root.first)) <= std::abs(gap(root.second)) ? root.first : root.second;
  }
  result.achieved = result.target + gap(result.value);
  return result;
}

}  // namespace trnmodel::sensitivity
