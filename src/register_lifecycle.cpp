// The lifecycle simulator and the closed forms of checkpoint/restart theory.
#include <pybind11/stl.h>

#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/lifecycle/theory.hpp"

namespace py = pybind11;

namespace trnmodel::python {

void register_lifecycle(py::module_& m) {
  m.def("metric_names", [] { return metric_name_list(); });
  m.def("phase_metric_names", [] {
    std::vector<std::string> names;
    for (const auto id : phase_metrics) names.emplace_back(metric_names()[id]);
    return names;
  });
  m.def("lifecycle_info", [](const scenario& s) {
    const lifecycle_model model(s);
    py::dict d;
    d["unknown_inputs"] = model.unknown_inputs();
    d["unknown_reasons"] = model.unknown_reasons();
    d["unknown_metrics"] = model.unknown_metrics();
    d["uncertain_inputs"] = model.uncertain_inputs();
    d["mode"] = s.mode();
    d["profile"] = s.profile() ? py::object(py::str(s.profile()->name)) : py::object(py::none());
    return d;
  });
  m.def(
      "simulate",
      [](const scenario& s, std::uint64_t samples, std::uint64_t seed, int threads, bool keep_samples,
         bool allow_unknown, const py::object& progress) {
        const lifecycle_model model(s);
        if (!allow_unknown) require_known(model);
        run_options options;
        options.samples = samples;
        options.seed = seed;
        options.threads = threads;
        options.keep_samples = keep_samples;
        return run_from_python(model, metric_name_list(), options, progress);
      },
      py::arg("scenario"), py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("keep_samples"),
      py::arg("allow_unknown"), py::arg("progress"));

  py::module_ theory = m.def_submodule("theory", "Closed forms of checkpoint/restart theory.");
  theory.def("young_interval_s", &theory::young_interval_s, py::arg("checkpoint_s"), py::arg("mtbf_s"));
  theory.def("daly_interval_s", &theory::daly_interval_s, py::arg("checkpoint_s"), py::arg("mtbf_s"));
  theory.def("expected_segment_time_s", &theory::expected_segment_time_s, py::arg("segment_s"),
             py::arg("recovery_s"), py::arg("mtbf_s"), py::arg("recovery_can_fail"));
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
