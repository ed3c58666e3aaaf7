#pragma once
// A run's request read back (docs/scaling.md): when run_options::remote is set, run() hands it
// the request of a model that describes itself (montecarlo/engine.hpp), and any process with
// the same build computes any range of the run's blocks from it with request_partial(). The
// models that describe themselves: the lifecycle model (simulate, with the inputs a tornado
// pins), a subset of its metrics, one metric (a statistic's run), a tornado's runs, a
// comparison and the time of one recovery. Their partials fold into the local run's result bit for bit, because the
// rebuilt model is the same function of the same scenario and the partial the same code.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/restart_time.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/partial.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/sensitivity/output.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/statistic.hpp"
#include "trnmodel/sensitivity/tornado.hpp"

namespace trnmodel::sensitivity {

namespace detail {

inline const ordered_json& member(const ordered_json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key))
    trnmodel::detail::fail(where, std::string("the request has no \"") + key + "\"");
  return object.at(key);
}

inline metric::id metric_of(const ordered_json& model) {
  return metric_named(member(model, "metric", "request.model").get<std::string>(), "request.model.metric");
}

// A lifecycle model's request: the scenario rebuilt from its JSON and its profile's, then its
// pins applied in order (each by path, as pinned() recorded them).
inline scenario scenario_of(const ordered_json& model) {
  profile_library profiles;
  for (const auto& [name, doc] : member(model, "profiles", "request.model").items()) profiles[name] = doc;
  return scenario::from_json(member(model, "scenario", "request.model"), std::move(profiles));
}

inline lifecycle_model lifecycle_model_of(const ordered_json& model) {
  if (member(model, "kind", "request.model") != "lifecycle")
    trnmodel::detail::fail("request.model.kind", "expected \"lifecycle\", got " + model.at("kind").dump());
  lifecycle_model m(scenario_of(model));
  for (const auto& pin : member(model, "pins", "request.model")) {
    const std::string path = pin.at("path").get<std::string>();
    const auto paths = m.uncertain_inputs();
    const auto at = std::find(paths.begin(), paths.end(), path);
    if (at == paths.end()) trnmodel::detail::fail("request.model.pins", "\"" + path + "\" is not a drawn input");
    m = m.pinned(static_cast<std::size_t>(at - paths.begin()), pin.at("value").get<double>());
  }
  return m;
}

// A scenario of a model that holds no pins (a subset of metrics, a comparison, a recovery).
inline scenario unpinned_scenario_of(const ordered_json& model) {
  if (!member(model, "pins", "request.model").empty())
    trnmodel::detail::fail("request.model.pins", "this kind of model holds no pinned inputs");
  return scenario_of(model);
}

}  // namespace detail

/// The partial of blocks [first_block, last_block) of the run `request` describes (the JSON
/// run() hands to run_options::remote), computed here on `threads` threads (0: all cores).
/// input_error naming "request…" for a request of another format or a model it cannot
/// rebuild; the run's own errors otherwise.
inline run_partial request_partial(const std::string& request_text, std::uint64_t first_block, std::uint64_t last_block,
                                   int threads = 1) {
  const ordered_json request = trnmodel::detail::parse_strict_json(request_text, "request");
  if (detail::member(request, "format", "request") != trnmodel::detail::run_request_format)
    trnmodel::detail::fail("request.format", std::string("expected \"") + trnmodel::detail::run_request_format +
                                                 "\", got " + request.at("format").dump());
  run_options options;
  options.samples = detail::member(request, "samples", "request").get<std::uint64_t>();
  options.seed = detail::member(request, "seed", "request").get<std::uint64_t>();
  options.block_size = detail::member(request, "block_size", "request").get<std::ptrdiff_t>();
  options.keep_samples = detail::member(request, "keep_samples", "request").get<bool>();
  options.relative_accuracy = detail::member(request, "relative_accuracy", "request").get<double>();
  options.threads = threads;
  auto outputs = detail::member(request, "outputs", "request").get<std::vector<std::string>>();
  const ordered_json& model = detail::member(request, "model", "request");
  const std::string kind = detail::member(model, "kind", "request.model").get<std::string>();
  if (kind == "lifecycle")
    return compute_partial(detail::lifecycle_model_of(model), std::move(outputs), options, first_block, last_block);
  // The lifecycle model inside a subset of metrics, one metric or a recovery.
  const auto inner = [&]() -> const ordered_json& { return detail::member(model, "model", "request.model"); };
  if (kind == "metrics")
    return compute_partial(
        trnmodel::detail::metric_subset(
            detail::unpinned_scenario_of(inner()),
            detail::member(model, "columns", "request.model").get<std::vector<Eigen::Index>>()),
        std::move(outputs), options, first_block, last_block);
  if (kind == "one_metric") {
    const output_column output{detail::member(model, "column", "request.model").get<Eigen::Index>(),
                               detail::metric_of(model)};
    return compute_partial(one_metric(detail::lifecycle_model_of(inner()), output), std::move(outputs), options,
                           first_block, last_block);
  }
  if (kind == "tornado_runs") {
    const lifecycle_model inner_model = detail::lifecycle_model_of(inner());
    const std::vector<std::string> paths = inner_model.uncertain_inputs();
    std::vector<tornado_runs::held_input> held;
    for (const auto& h : detail::member(model, "held", "request.model")) {
      const ordered_json& path = detail::member(h, "path", "request.model.held");
      std::ptrdiff_t input = -1;
      if (!path.is_null()) {
        const auto at = std::find(paths.begin(), paths.end(), path.get<std::string>());
        if (at == paths.end()) trnmodel::detail::fail("request.model.held", path.dump() + " is not a drawn input");
        input = at - paths.begin();
      }
      held.push_back({input, detail::member(h, "value", "request.model.held").get<double>()});
    }
    const output_column output{detail::member(model, "column", "request.model").get<Eigen::Index>(),
                               detail::metric_of(model)};
    return compute_partial(tornado_runs(inner_model, output, std::move(held)), std::move(outputs), options,
                           first_block, last_block);
  }
  if (kind == "comparison")
    return compute_partial(comparison_model(detail::unpinned_scenario_of(detail::member(model, "a", "request.model")),
                                            detail::unpinned_scenario_of(detail::member(model, "b", "request.model")),
                                            detail::metric_of(model)),
                           std::move(outputs), options, first_block, last_block);
  if (kind == "restart_time")
    return compute_partial(restart_time_model(detail::unpinned_scenario_of(inner())), std::move(outputs), options,
                           first_block, last_block);
  trnmodel::detail::fail("request.model.kind", "no model of kind \"" + kind +
                                                   "\" (lifecycle, metrics, one_metric, tornado_runs, comparison, restart_time)");
}

}  // namespace trnmodel::sensitivity
