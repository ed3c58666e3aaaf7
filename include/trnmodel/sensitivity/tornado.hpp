#pragma once
// Tornado (docs/sensitivity.md): each drawn input held at its P10, then at its P90, every other input and
// the chance draws left random on their own streams (common random numbers, so a bar's
// length is the input's effect, not sampling noise between two runs); the change of an
// output statistic, bars sorted by swing. "chance" has no P10 and is not a bar: its share of
// the spread is in the Sobol indices.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/sensitivity/block_parts.hpp"
#include "trnmodel/sensitivity/output.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/statistic.hpp"

namespace trnmodel::sensitivity {

/// One input's swing: the statistic with the input at its P10 and at its P90. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct tornado_bar {
  std::string factor;  ///< the input's path (as lifecycle_model::uncertain_inputs() names it)
  /// \var low_value
  /// The input at low_probability (its quantile there, P10 by default), in the input's unit.
  /// \var high_value
  /// The input at high_probability (P90 by default), in the input's unit.
  double low_value, high_value;
  /// \var low_statistic
  /// The output statistic with the input held at low_value.
  /// \var high_statistic
  /// The output statistic with the input held at high_value.
  double low_statistic, high_statistic;
  double swing;  ///< |high_statistic − low_statistic|
};

/// Tornado bars, largest swing first. A plain value: copyable, owns its members; concurrent reads are safe.
struct tornado_result {
  double baseline = 0;  ///< the statistic with every input random
  std::vector<tornado_bar> bars;  ///< largest swing first
};

/// A tornado's runs as one engine model: output k is the output of `model` with drawn input
/// held[k].input held at held[k].value (held[k].input < 0: every input drawn, the baseline).
/// Each part of a block draws its inputs once and every run reuses them with one column set to
/// the held value, so output k has the bits of its own run of model.pinned(input, value), the
/// draws made once instead of once per run.
/// Thread-safety: immutable once made; the engine calls it concurrently. Ownership: a value
/// holding its own copy of the model.
class tornado_runs {
 public:
  /// One run held at an input's value (input < 0: none held).
  struct held_input {
    std::ptrdiff_t input;  ///< index among model.uncertain_inputs(), or −1
    double value;  ///< the input's value in this run (unused when input < 0)
  };

  tornado_runs(lifecycle_model model, output_column output, std::vector<held_input> held)
      : model_(std::move(model)), output_(output), held_(std::move(held)) {
    for (const held_input& h : held_)
      if (h.input >= static_cast<std::ptrdiff_t>(model_.input_count()))
        trnmodel::detail::fail("held", "input " + std::to_string(h.input) + " is out of range: the model draws " +
                                           std::to_string(model_.input_count()) + " inputs");
  }

  /// One name per run: "baseline", or "<path>=<value>".
  std::vector<std::string> output_names() const {
    const std::vector<std::string> paths = model_.uncertain_inputs();
    std::vector<std::string> names;
    for (const held_input& h : held_)
      names.push_back(h.input < 0 ? "baseline"
                                  : paths[static_cast<std::size_t>(h.input)] + "=" +
                                        trnmodel::detail::format_number(h.value));
    return names;
  }

  /// What another process rebuilds it from (run_request.hpp): {"kind": "tornado_runs", "model",
  /// "column", "metric", "held": [{"path" (null for none), "value"}, ...]}.
  ordered_json request() const {
    const std::vector<std::string> paths = model_.uncertain_inputs();
    ordered_json held = ordered_json::array();
    for (const held_input& h : held_)
      held.push_back({{"path", h.input < 0 ? ordered_json(nullptr) : ordered_json(paths[static_cast<std::size_t>(h.input)])},
                      {"value", h.value}});
    return {{"kind", "tornado_runs"},
            {"model", model_.request()},
            {"column", output_.column},
            {"metric", metric_names()[output_.metric]},
            {"held", std::move(held)}};
  }

  /// The engine's call: per part of the block, the inputs drawn once, then each run's output
  /// with its input set to its held value (and put back for the next run).
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    const auto inputs = static_cast<Eigen::Index>(model_.input_count());
    detail::for_each_part(block, inputs, output_.columns(model_), [&](const block_view& part, Eigen::Index first_row,
                                                                      Eigen::ArrayXXd& x, Eigen::ArrayXXd& all) {
      model_.draw(part, x);
      double drawn[detail::part_rows];  // the drawn values of the column a run holds
      std::ptrdiff_t changed = -1;  // the column now holding a value instead of its draws
      for (std::size_t k = 0; k < held_.size(); ++k) {
        const held_input& h = held_[k];
        if (changed >= 0 && changed != h.input) {
          std::copy(drawn, drawn + part.size, x.col(changed).data());
          changed = -1;
        }
        if (h.input >= 0) {
          if (changed < 0) std::copy(x.col(h.input).data(), x.col(h.input).data() + part.size, drawn);
          x.col(h.input).head(part.size).setConstant(h.value);
          changed = h.input;
        }
        model_.evaluate_drawn(part, x.topRows(part.size), all.topRows(part.size));
        out.col(static_cast<Eigen::Index>(k)).segment(first_row, part.size) = all.col(output_.column).head(part.size);
      }
    });
  }

 private:
  lifecycle_model model_;
  output_column output_;
  std::vector<held_input> held_;
};

/// Moves each drawn input to its P10 and P90 (others as drawn) and reports the statistic's
/// swing. Thread-safe as simulate. `output_name`: a metric, or a stage's "<stage>/<metric>"
/// (output.hpp).
///
/// The 2d + 1 runs are one run of tornado_runs: the same bits as running each pinned model
/// alone, the inputs drawn once per sample. A quantile needs every run's samples kept: the runs
/// then go in groups whose kept samples take at most `max_kept_bytes` (at least one run each).
inline tornado_result tornado(const scenario& s, const std::string& output_name, statistic stat,
                              const run_options& options, double low_probability = 0.1, double high_probability = 0.9,
                              double max_kept_bytes = 256.0 * 1024 * 1024) {
  trnmodel::detail::check_probability("low", low_probability);
  trnmodel::detail::check_probability("high", high_probability);
  if (!(low_probability < high_probability))
    trnmodel::detail::fail("low", "must be below high, got low=" + trnmodel::detail::format_number(low_probability) +
                                      ", high=" + trnmodel::detail::format_number(high_probability));
  const lifecycle_model model(s);
  const output_column output = output_named(model, output_name);
  require_known_for(model, output.metric);
  const std::vector<std::string> paths = model.uncertain_inputs();
  std::vector<tornado_runs::held_input> held{{-1, 0.0}};
  for (std::size_t j = 0; j < paths.size(); ++j) {
    const quantity& q = model.input_quantity(j);
    held.push_back({static_cast<std::ptrdiff_t>(j), q.ppf(low_probability)});
    held.push_back({static_cast<std::ptrdiff_t>(j), q.ppf(high_probability)});
  }
  // The statistic of every run, in groups of runs whose kept samples fit the bound.
  const double bytes_per_run = 8.0 * static_cast<double>(options.samples);
  const std::size_t group = stat.is_mean()
                                ? held.size()
                                : std::max<std::size_t>(1, static_cast<std::size_t>(std::min(
                                                               max_kept_bytes / bytes_per_run, double(held.size()))));
  std::vector<double> statistics;
  for (std::size_t first = 0; first < held.size(); first += group) {
    const std::vector<tornado_runs::held_input> some(
        held.begin() + static_cast<std::ptrdiff_t>(first),
        held.begin() + static_cast<std::ptrdiff_t>(std::min(held.size(), first + group)));
    const tornado_runs runs(model, output, some);
    run_options o = options;
    o.keep_samples = !stat.is_mean();
    const run_result r = run(runs, runs.output_names(), o);
    for (std::size_t k = 0; k < some.size(); ++k) statistics.push_back(stat.of(r, k));
  }
  tornado_result result;
  result.baseline = statistics[0];
  for (std::size_t j = 0; j < paths.size(); ++j) {
    tornado_bar bar{paths[j], held[1 + 2 * j].value, held[2 + 2 * j].value, statistics[1 + 2 * j],
                    statistics[2 + 2 * j], 0};
    bar.swing = std::abs(bar.high_statistic - bar.low_statistic);
    result.bars.push_back(bar);
  }
  std::stable_sort(result.bars.begin(), result.bars.end(),
                   [](const tornado_bar& a, const tornado_bar& b) { return a.swing > b.swing; });
  return result;
}

/// The same for a job metric.
inline tornado_result tornado(const scenario& s, metric::id output, statistic stat, const run_options& options,
                              double low_probability = 0.1, double high_probability = 0.9) {
  return tornado(s, std::string(metric_names()[output]), stat, options, low_probability, high_probability);
}

}  // namespace trnmodel::sensitivity
