// Trial-run journals, calibration and backtests (DESIGN §10). Results cross to Python as
// plain dicts and lists; python/trnmodel/_calibrate.py turns them into tables.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/calibrate/backtest.hpp"
#include "trnmodel/calibrate/calibrate.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {

py::dict analysis_dict(const calibrate::step_analysis& a) {
  py::list segments;
  for (const auto& s : a.segments) {
    py::dict d;
    d["first"] = s.first;
    d["values"] = s.values;
    d["warmup_values"] = s.warmup_values;
    d["warmup_excess_s"] = s.warmup_excess_s;
    d["steady_state_found"] = s.steady_state_found;
    segments.append(d);
  }
  py::dict d;
  d["segments"] = segments;
  d["steady_values"] = a.steady_values;
  d["steady_mean_s"] = a.steady_mean_s;
  d["ci_lo_s"] = a.ci_lo_s;
  d["ci_hi_s"] = a.ci_hi_s;
  d["lag1_autocorrelation"] = a.lag1_autocorrelation;
  d["data_wait_fraction"] = a.data_wait_fraction;
  d["step_time_s"] = a.step_time_s;
  d["warnings"] = a.warnings;
  return d;
}

}  // namespace

void register_calibrate(py::module_& m) {
  using calibrate::journal;
  py::class_<journal>(m, "Journal")
      .def_static(
          "from_text", [](const std::string& text, const std::string& directory) { return journal::from_text(text, directory); },
          py::arg("text"), py::arg("directory"))
      .def_static(
          "from_obj", [](py::handle obj, const std::string& directory) { return journal::from_json(to_json(obj, ""), directory); },
          py::arg("obj"), py::arg("directory"))
      .def_readonly("experiment_id", &journal::experiment_id)
      .def_readonly("warnings", &journal::warnings)
      .def_readonly("steps_per_value", &journal::steps_per_value)
      .def_property_readonly("duration_s", &journal::duration_s)
      .def_property_readonly("step_times_s",
                             [](const journal& j) { return py::array_t<double>(j.step_times_s.size(), j.step_times_s.data()); })
      .def_property_readonly("node_failures", &journal::node_failures)
      .def("to_obj", [](const journal& j) { return from_json(j.to_json()); })
      .def("analysis", [](const journal& j) { return analysis_dict(calibrate::analyze_steps(j)); });

  m.def("calibrate", [](const std::vector<journal>& journals, const scenario& base) {
    const auto r = calibrate::calibrate(journals, base);
    py::list inputs;
    for (const auto& in : r.inputs) {
      py::dict d;
      d["path"] = in.path;
      d["status"] = in.status;
      d["method"] = in.method;
      d["n"] = in.values.size();
      d["values"] = in.values;
      d["experiments"] = in.experiments;
      d["quantity"] = from_json(in.quantity);
      d["note"] = in.note;
      inputs.append(d);
    }
    py::list analyses;
    for (const auto& a : r.step_analyses) analyses.append(analysis_dict(a));
    return py::make_tuple(r.calibrated, inputs, r.unmeasured, r.warnings, analyses);
  });

  m.def(
      "backtest",
      [](const scenario& s, const journal& j, std::uint64_t samples, std::uint64_t seed, int threads) {
        run_options options;
        options.samples = samples;
        options.seed = seed;
        options.threads = threads;
        const auto r = with_python_hooks(options, py::none(),
                                         [&](const run_options& hooked) { return calibrate::backtest(s, j, hooked); });
        py::list rows;
        for (const auto& row : r.rows) {
          py::dict d;
          d["metric"] = row.metric;
          d["observed"] = row.observed;
          d["p10"] = row.predicted_p10;
          d["p50"] = row.predicted_p50;
          d["p90"] = row.predicted_p90;
          d["percentile"] = row.percentile;
          d["observed_from"] = row.observed_from;
          rows.append(d);
        }
        return py::make_tuple(r.experiment_id, rows, r.notes);
      },
      py::arg("scenario"), py::arg("journal"), py::arg("samples"), py::arg("seed"), py::arg("threads"));

  m.def("pit_uniformity", [](const std::vector<double>& pit) {
    const auto r = calibrate::test_pit_uniformity(pit);
    py::dict d;
    d["runs"] = r.runs;
    d["ks_d"] = r.ks_d;
    d["p_value"] = r.p_value;
    return d;
  });
  m.attr("JOURNAL_SCHEMA_V1") = calibrate::journal_schema;
  // The JSON Schema of the journal format, generated from its field table (journal_schema.hpp).
  m.def("journal_json_schema", [] { return from_json(calibrate::journal_json_schema()); });
}

}  // namespace trnmodel::python
