#pragma once
// What decides a plan's choice (docs/decisions.md, "What decides the choice"): of the plan's
// strategies, the one most often cheapest (the favourite) and the next (the runner-up); per
// sample their margin, the runner-up's cost less the favourite's; and the rank correlations of
// every uncertain input with that margin. An input with a large partial rank correlation is
// one whose value, once known, most moves which strategy wins: what to measure before choosing.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/decisions/plan.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/random/uniform_column.hpp"
#include "trnmodel/sensitivity/rank_correlation.hpp"

namespace trnmodel {

/// The inputs that decide a plan's choice. A plain value: copyable, owns its members.
struct choice_drivers {
  std::string favourite;  ///< the strategy most often cheapest (strategy_names())
  std::string runner_up;  ///< the strategy next most often cheapest
  double p_favourite = 0;  ///< P(the favourite is cheapest)
  /// One per input: "<path>" for an input every scenario that has it shares (the job's inputs),
  /// "<path> (<roles>)" for one drawn on a stream of its own in those roles (a platform's),
  /// "plan/<path>" for the plan's own.
  std::vector<std::string> factors;
  /// Rank correlations of each factor with the margin (runner-up's cost − favourite's; positive
  /// where the favourite wins): a positive coefficient means a larger value favours the favourite.
  sensitivity::rank_correlations correlations;
};

/// The drivers of the choice of plan p, from its strategies' run `strategies` (plan_strategies
/// with the same seed, samples kept). The inputs' values are recomputed from their counters (their
/// uniforms: ranks are those of the values, every quantile function being monotone); constant
/// inputs are left out, and so is chance (failures, cache, quality: not a scalar input).
inline choice_drivers plan_choice_drivers(const plan& p, const run_result& strategies, std::uint64_t seed) {
  if (!strategies.kept())
    detail::fail("strategies", "must keep their samples (plan_strategies keeps them); got a streamed run");
  const std::uint64_t n = strategies.samples();
  const auto& names = strategy_names();
  std::array<double, 3> p_cheapest{};
  for (std::size_t k = 0; k < 3; ++k) p_cheapest[k] = strategies.stats("cheapest_" + names[k]).mean;
  std::array<std::size_t, 3> order{0, 1, 2};
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_cheapest[a] > p_cheapest[b]; });
  choice_drivers out;
  out.favourite = names[order[0]];
  out.runner_up = names[order[1]];
  out.p_favourite = p_cheapest[order[0]];
  const Eigen::ArrayXd margin =
      strategies.values(out.runner_up + "_usd") - strategies.values(out.favourite + "_usd");

  // One column per stream: the roles that draw it, in the plan's order.
  struct column {
    std::string path;
    std::vector<std::string> roles;
  };
  std::map<std::uint32_t, column> by_stream;
  std::vector<std::uint32_t> streams;  // in first-seen order
  const std::array<std::pair<const char*, const scenario*>, 3> roles{
      {{"gpu_baseline", &p.gpu_baseline}, {"trainium_pilot", &p.trainium_pilot}, {"trainium_production", &p.trainium_production}}};
  std::map<std::string, std::size_t> scenarios_with_path;
  for (const auto& [role, s] : roles) {
    const lifecycle_model model(*s);
    const std::vector<std::string> paths = model.uncertain_inputs();
    for (std::size_t j = 0; j < model.input_count(); ++j) {
      const std::string& path = paths[j];
      ++scenarios_with_path[path];
      const auto [it, added] = by_stream.try_emplace(model.input_stream(j), column{path, {}});
      if (added) streams.push_back(model.input_stream(j));
      it->second.roles.emplace_back(role);
    }
  }
  for (const auto& input : p.inputs()) {
    if (input.value.is_constant()) continue;
    const std::uint32_t stream = stream_id(input.name);
    by_stream.try_emplace(stream, column{input.name, {}});
    streams.push_back(stream);
  }
  Eigen::ArrayXXd x(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(streams.size()));
  for (std::size_t c = 0; c < streams.size(); ++c) {
    const column& col = by_stream.at(streams[c]);
    // Named by its path when every scenario that has it shares the draw, else with its roles.
    const bool shared = col.roles.empty() || col.roles.size() == scenarios_with_path[col.path];
    std::string name = col.path;
    if (!shared) {
      name += " (";
      for (std::size_t r = 0; r < col.roles.size(); ++r) name += (r ? ", " : "") + col.roles[r];
      name += ")";
    }
    out.factors.push_back(std::move(name));
    uniform_column(seed, streams[c], 0, 0, 1, static_cast<std::size_t>(n), x.col(static_cast<Eigen::Index>(c)).data());
  }
  out.correlations = sensitivity::rank_correlate(x, margin);
  return out;
}

}  // namespace trnmodel
