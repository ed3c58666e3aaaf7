// The lifecycle simulator and the closed forms of checkpoint/restart theory.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/lifecycle/restart_time.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/lifecycle/theory.hpp"
#include "trnmodel/sensitivity/drawn_inputs.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {
// What a scenario's model needs and draws, read before a run.
struct lifecycle_info {
  std::vector<std::string> unknown_inputs, unknown_reasons, unknown_metrics, uncertain_inputs;
  std::string mode;  // the throughput mode
  std::optional<std::string> profile;  // the hardware profile's name, when one was resolved
  double extrapolation_log_spread;  // extrapolated mode: fitted sigma of the log error; else 0
  std::vector<std::string> stage_names;  // a multi-stage job's stages, in order; else empty
  std::vector<double> extrapolation_log_spreads;  // each stage's sigma (one value without stages)
  std::vector<std::uint32_t> input_streams;  // the stream of each of uncertain_inputs (platform-keyed or not)
};

std::vector<std::uint32_t> streams_of(const lifecycle_model& model) {
  std::vector<std::uint32_t> streams;
  for (std::size_t j = 0; j < model.input_count(); ++j) streams.push_back(model.input_stream(j));
  return streams;
}

lifecycle_info info_of(const lifecycle_model& model) {
  return lifecycle_info{
      model.unknown_inputs(),           model.unknown_reasons(),      model.unknown_metrics(),
      model.uncertain_inputs(),         name_of_choice(model.mode()), model.profile_name(),
      model.extrapolation_log_spread(), model.stage_names(),          model.extrapolation_log_spreads(),
      streams_of(model)};
}
}  // namespace

void register_lifecycle(py::module_& m) {
  m.def("metric_names", [] { return detail::metric_name_list(); });
  m.def("stage_metric_names", [] {
    std::vector<std::string> names;
    for (const auto id : stage_metrics) names.emplace_back(metric_names()[id]);
    return names;
  });
  m.def("phase_metric_names", [] {
    std::vector<std::string> names;
    for (const auto id : phase_metrics) names.emplace_back(metric_names()[id]);
    return names;
  });
  py::class_<lifecycle_info>(m, "LifecycleInfo")
      .def_readonly("unknown_inputs", &lifecycle_info::unknown_inputs)
      .def_readonly("unknown_reasons", &lifecycle_info::unknown_reasons)
      .def_readonly("unknown_metrics", &lifecycle_info::unknown_metrics)
      .def_readonly("uncertain_inputs", &lifecycle_info::uncertain_inputs)
      .def_readonly("mode", &lifecycle_info::mode)
      .def_readonly("profile", &lifecycle_info::profile)
      .def_readonly("extrapolation_log_spread", &lifecycle_info::extrapolation_log_spread)
      .def_readonly("stage_names", &lifecycle_info::stage_names)
      .def_readonly("extrapolation_log_spreads", &lifecycle_info::extrapolation_log_spreads)
      .def_readonly("input_streams", &lifecycle_info::input_streams);
  // The model a scenario runs on, built once: tm.simulate reads its info (unknowns, mode) and
  // runs it, where a second construction would read and check every input again.
  py::class_<lifecycle_model>(m, "LifecycleModel")
      .def(py::init<const scenario&>(), py::arg("scenario"))
      .def_property_readonly("info", &info_of)
      .def(
          "simulate",
          [](const lifecycle_model& model, std::uint64_t samples, std::uint64_t seed, int threads, bool keep_samples,
             bool allow_unknown, const py::object& progress, const py::object& draws) {
            if (!allow_unknown) detail::require_known(model);
            // The inputs drawn already (_core.draw_inputs), when given and they fit this run: the
            // same bits as drawing them (simulate_from draws when there are none).
            static const sensitivity::input_draws none;
            const auto& drawn = draws.is_none() ? none : draws.cast<const sensitivity::input_draws&>();
            return with_python_hooks(make_run(samples, seed, threads, keep_samples), progress,
                                     [&](const run_options& o) { return sensitivity::simulate_from(model, drawn, o); });
          },
          py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("keep_samples"),
          py::arg("allow_unknown"), py::arg("progress"), py::arg("draws") = py::none())
      // The request of its simulate run (docs/scaling.md): what a task needs to compute any
      // range of the run's blocks (_core.request_partial), for a sweep's points sent at once.
      .def(
          "run_request",
          [](const lifecycle_model& model, std::uint64_t samples, std::uint64_t seed, bool keep_samples,
             bool allow_unknown) {
            if (!allow_unknown) detail::require_known(model);
            return py::bytes(
                detail::run_request(model.request(), model.output_names(), with_block_size(make_run(samples, seed, 1, keep_samples))));
          },
          py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("keep_samples"), py::arg("allow_unknown"));
  m.def("lifecycle_info", [](const scenario& s) { return info_of(lifecycle_model(s)); }, py::arg("scenario"));

  m.def(
      "restart_time",
      [](const scenario& s, std::uint64_t samples, std::uint64_t seed, int threads) {
        run_options options;
        options.samples = samples;
        options.seed = seed;
        options.threads = threads;
        return run_from_python(restart_time_model(s), {"restart_h"}, options, py::none());
      },
      py::arg("scenario"), py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("threads"));
  m.def("job_card_checks", &job_card_checks, py::arg("scenario"));

  py::module_ theory = m.def_submodule("theory", "Closed forms of checkpoint/restart theory.");
  theory.def("young_interval_s", &theory::young_interval_s, py::arg("checkpoint_s"), py::arg("mtbf_s"));
  theory.def("daly_interval_s", &theory::daly_interval_s, py::arg("checkpoint_s"), py::arg("mtbf_s"));
  theory.def("expected_segment_time_s", &theory::expected_segment_time_s, py::arg("segment_s"), py::arg("recovery_s"),
             py::arg("mtbf_s"), py::arg("recovery_can_fail"));
  theory.def("daly_wall_time_s", &theory::daly_wall_time_s, py::arg("solve_s"), py::arg("interval_s"),
             py::arg("checkpoint_s"), py::arg("recovery_s"), py::arg("mtbf_s"), py::arg("recovery_can_fail") = true);
  theory.def("expected_failures_per_segment", &theory::expected_failures_per_segment, py::arg("segment_s"),
             py::arg("recovery_s"), py::arg("mtbf_s"), py::arg("recovery_can_fail"));
  theory.def("expected_lost_per_failure_s", &theory::expected_lost_per_failure_s, py::arg("segment_s"),
             py::arg("mtbf_s"));
  theory.def("meta_ettr_first_order", &theory::meta_ettr_first_order, py::arg("nodes"), py::arg("node_mtbf_h"),
             py::arg("checkpoint_interval_h"), py::arg("checkpoint_save_h"), py::arg("restart_h"));
}

}  // namespace trnmodel::python
