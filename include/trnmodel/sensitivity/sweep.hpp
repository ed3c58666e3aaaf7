#pragma once
// A scenario on a grid of one or two dotted paths (docs/sensitivity.md), every point on the same
// seed: common random numbers, so differences between points are the change's effect, not noise.
// Python's tm.sweep (and tm.checkpoint_interval, which sweeps checkpoint.every_steps) call this.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/run_options.hpp"
#include "trnmodel/montecarlo/run_result.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/sensitivity/drawn_inputs.hpp"

namespace trnmodel::sensitivity {

/// One axis of a sweep: a dotted path and the values it takes (JSON, as in a scenario file).
/// A plain value.
struct sweep_axis {
  std::string path;  ///< the scenario's dotted path to change, e.g. "checkpoint.every_steps"
  std::vector<ordered_json> values;  ///< the values it takes, in order (non-empty)
};

/// One point of a sweep: the changes made to the scenario and its simulation. A plain value.
struct sweep_point {
  std::vector<std::pair<std::string, ordered_json>> changes;  ///< (path, value), one per axis, in grid order
  run_result result;  ///< simulate() of the scenario with those changes
};

/// How many bytes of drawn inputs a sweep keeps at most (sweep's max_drawn_bytes): as a break-even.
inline constexpr double sweep_drawn_bytes = 256.0 * 1024 * 1024;

/// Simulates `s` updated at every point of the grid (the product of one or two axes, the last
/// axis varying fastest), each with `options` (same seed). Progress reports one count over the
/// whole grid; the cancellation hook stops the sweep within one wave. Refuses unknown inputs
/// unless `allow_unknown` (then their metrics are NaN). A point whose changes make the scenario
/// invalid fails with that point's input_error. Thread-safe as simulate.
///
/// The points' inputs are drawn once, from the first point, when they take at most
/// `max_drawn_bytes` and the run is not sent elsewhere (options.remote): a point whose every
/// drawn input has the stream and distribution of one of those reads them back (its result the
/// bits of its own simulate(), drawn_inputs.hpp); any other point draws for itself.
inline std::vector<sweep_point> sweep(const scenario& s, const std::vector<sweep_axis>& grid,
                                      const run_options& options, bool allow_unknown = false,
                                      double max_drawn_bytes = sweep_drawn_bytes) {
  if (grid.empty() || grid.size() > 2)
    trnmodel::detail::fail(
        "grid", "must map one or two dotted paths to lists of values, got " + std::to_string(grid.size()) + " paths");
  std::size_t points = 1;
  for (const auto& axis : grid) {
    if (axis.values.empty()) trnmodel::detail::fail("grid[" + axis.path + "]", "must be a non-empty list of values");
    points *= axis.values.size();
  }
  std::vector<sweep_point> out;
  out.reserve(points);
  input_draws drawn;  // the first point's inputs, when they are kept
  for (std::size_t k = 0; k < points; ++k) {
    std::vector<std::pair<std::string, ordered_json>> changes;
    std::size_t rest = k;
    for (std::size_t a = grid.size(); a-- > 0;) {
      changes.emplace_back(grid[a].path, grid[a].values[rest % grid[a].values.size()]);
      rest /= grid[a].values.size();
    }
    std::reverse(changes.begin(), changes.end());
    run_options point = options;
    if (options.progress) {
      const std::uint64_t before = k * options.samples, total = points * options.samples;
      point.progress = [&options, before, total](std::uint64_t done, std::uint64_t) {
        options.progress(before + done, total);
      };
    }
    const auto model = std::make_shared<const lifecycle_model>(s.updated(changes));
    if (!allow_unknown) trnmodel::detail::require_known(*model);
    if (k == 0 && !options.remote && points > 1 &&
        8.0 * static_cast<double>(options.samples) * static_cast<double>(model->input_count()) <= max_drawn_bytes)
      drawn = draw_inputs(model, options);
    run_result result = simulate_from(*model, drawn, point);
    out.push_back({std::move(changes), std::move(result)});
  }
  return out;
}

}  // namespace trnmodel::sensitivity
