#pragma once
// The output a sensitivity analysis looks at, by name: one of the metrics (metric_names()), or,
// for a job in stages, one stage's metric "<stage>/<metric>" (docs/lifecycle.md, "Stages"). A
// stage's metric is a column of the model's run after the metric::count job totals
// (lifecycle_model::output_names()).
#include <string>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulate.hpp"

namespace trnmodel::sensitivity {

/// Where an output sits in a lifecycle model's run, and which metric it is. A plain value.
struct output_column {
  Eigen::Index column;  ///< in lifecycle_model::output_names()
  metric::id metric;  ///< the metric it is (of one stage, when column >= metric::count)
  /// The columns a run must produce for this output: the stages' only when it is one of theirs.
  Eigen::Index columns(const lifecycle_model& model) const {
    return column < static_cast<Eigen::Index>(metric::count) ? static_cast<Eigen::Index>(metric::count)
                                                             : static_cast<Eigen::Index>(model.output_names().size());
  }
};

/// The output of job metric m (its column is m).
inline output_column output_of(metric::id m) { return {static_cast<Eigen::Index>(m), m}; }

/// The output named `name` in model.output_names(): a metric, or "<stage>/<metric>".
/// input_error naming `parameter`, with the names it could have been, when there is none.
inline output_column output_named(const lifecycle_model& model, const std::string& name,
                                  const std::string& parameter = "output") {
  const auto names = model.output_names();
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c] != name) continue;
    if (c < metric::count) return output_of(static_cast<metric::id>(c));
    return {static_cast<Eigen::Index>(c), stage_metrics[(c - metric::count) % stage_metrics.size()]};
  }
  std::string all;
  for (std::size_t m = 0; m < metric::count; ++m) all += (m ? ", " : "") + std::string(metric_names()[m]);
  std::string stages;
  for (const auto& stage : model.stage_names()) stages += (stages.empty() ? "" : ", ") + stage;
  if (!stages.empty()) {
    std::string per_stage;
    for (const metric::id m : stage_metrics)
      per_stage += (per_stage.empty() ? "" : ", ") + std::string(metric_names()[m]);
    all += "; per stage \"<stage>/<metric>\" for the stages " + stages + " and the metrics " + per_stage;
  } else if (name.find('/') != std::string::npos) {
    all += "; \"<stage>/<metric>\" outputs need a scenario with stages";
  }
  trnmodel::detail::fail(parameter, "no metric named \"" + name + "\" (metrics: " + all + ")");
}

}  // namespace trnmodel::sensitivity
