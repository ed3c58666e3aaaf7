#pragma once
// When a port pays back (docs/decisions.md, "Payback"): porting is paid once, a job may run many
// times. For two scenarios on common random numbers (the same seed: inputs of the same path draw
// the same uniforms), per sample, the whole number of runs after which the side that is cheaper
// to run has earned back its extra porting cost (engineering.adaptation_h × rate, the metric
// adaptation_usd).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/lifecycle/simulate.hpp"

namespace trnmodel {

/// Runs until the port pays back, per sample: the smallest whole n ≥ 0 with
/// n × saving ≥ extra, where saving = run_other − run_side (the run-cost saving of the side) and
/// extra = adapt_side − adapt_other (its extra porting cost). 0 when there is no extra porting
/// cost in that sample; +infinity ("never") when there is and the side is not cheaper to run in
/// that sample. Arrays of n values, USD; throws input_error at "payback" on a value that is not
/// finite.
inline std::vector<double> payback_runs(const double* saving, const double* extra, std::size_t n) {
  std::vector<double> runs(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(extra[i]) || !std::isfinite(saving[i]))
      detail::fail("payback", "sample " + std::to_string(i) + ": run costs and porting costs must be finite");
    if (extra[i] <= 0) runs[i] = 0;
    else if (saving[i] <= 0) runs[i] = std::numeric_limits<double>::infinity();
    else {
      double k = std::ceil(extra[i] / saving[i]);
      // The quotient rounds: keep the smallest whole k whose savings cover the extra cost.
      if (k > 1 && (k - 1) * saving[i] >= extra[i]) k -= 1;
      else if (k * saving[i] < extra[i]) k += 1;
      runs[i] = k;
    }
  }
  return runs;
}

/// Payback of two scenarios on common random numbers. A plain value: copyable, owns its members.
struct payback_result {
  char side = 'a';  ///< 'a' or 'b': the side whose porting cost is paid back (the cheaper to run on average)
  std::vector<double> runs;  ///< per sample, runs until it has paid back; +infinity: never
  std::vector<double> run_saving_usd;  ///< per sample, the other side's run cost less this side's
  std::vector<double> extra_porting_usd;  ///< per sample, this side's porting cost less the other's
  double mean_run_cost_a_usd = 0, mean_run_cost_b_usd = 0;  ///< the sides' mean run costs
};

/// The payback of `side` ('a', 'b', or 0: the side with the lower mean run cost, 'a' on a tie)
/// from two kept runs of the same samples on common random numbers (the same seed), each with
/// run_cost_usd and adaptation_usd: simulate()'s results, for instance. input_error when a run
/// did not keep its samples, lacks one of those outputs, or the two differ in sample count.
inline payback_result payback_of(const run_result& ra, const run_result& rb, char side = 0) {
  if (side != 0 && side != 'a' && side != 'b') detail::fail("side", "must be 'a', 'b' or chosen (0)");
  if (ra.samples() != rb.samples())
    detail::fail("b", "has " + std::to_string(rb.samples()) + " samples, a has " + std::to_string(ra.samples()) +
                          ": payback pairs the runs sample by sample");
  payback_result out;
  const auto run_a = ra.values("run_cost_usd"), run_b = rb.values("run_cost_usd");
  const auto adapt_a = ra.values("adaptation_usd"), adapt_b = rb.values("adaptation_usd");
  out.mean_run_cost_a_usd = run_a.mean();
  out.mean_run_cost_b_usd = run_b.mean();
  out.side = side ? side : (out.mean_run_cost_b_usd < out.mean_run_cost_a_usd ? 'b' : 'a');
  const bool on_a = out.side == 'a';
  const std::size_t n = static_cast<std::size_t>(run_a.size());
  const double *run_s = on_a ? run_a.data() : run_b.data(), *run_o = on_a ? run_b.data() : run_a.data();
  const double *adapt_s = on_a ? adapt_a.data() : adapt_b.data(), *adapt_o = on_a ? adapt_b.data() : adapt_a.data();
  out.run_saving_usd.resize(n);
  out.extra_porting_usd.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.run_saving_usd[i] = run_o[i] - run_s[i];
    out.extra_porting_usd[i] = adapt_s[i] - adapt_o[i];
  }
  out.runs = payback_runs(out.run_saving_usd.data(), out.extra_porting_usd.data(), n);
  return out;
}

/// Simulates `a` and `b` with the same options (common random numbers) keeping run_cost_usd and
/// adaptation_usd, and returns their payback_of(). Keeps every sample (options.keep_samples is
/// taken as true). Throws input_error when a scenario has an unknown input the run or porting
/// cost needs.
inline payback_result payback(const scenario& a, const scenario& b, run_options options, char side = 0) {
  if (side != 0 && side != 'a' && side != 'b') detail::fail("side", "must be 'a', 'b' or chosen (0)");
  options.keep_samples = true;
  // One progress for the two runs: a's samples first, then b's.
  run_options first = options, second = options;
  if (options.progress) {
    first.progress = [&](std::uint64_t done, std::uint64_t total) { options.progress(done, 2 * total); };
    second.progress = [&](std::uint64_t done, std::uint64_t total) { options.progress(total + done, 2 * total); };
  }
  const std::vector<std::string> kept{"run_cost_usd", "adaptation_usd"};
  return payback_of(simulate(a, first, kept, false), simulate(b, second, kept, false), side);
}

}  // namespace trnmodel
