// Trial-run journals, calibration and backtests (docs/journal.md). Results cross to Python as
// classes with read-only fields; python/trnmodel/_calibrate.py turns them into tables.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/calibrate/backtest.hpp"
#include "trnmodel/calibrate/calibrate.hpp"
#include "trnmodel/calibrate/trial_summary.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {

// The result types, by name (their C++ field names; a backtest row's predicted_p* as p*), so
// that Python reads them by name and never by position.
void register_calibration_types(py::module_& m) {
  using namespace calibrate;
  py::class_<series_segment>(m, "SeriesSegment")
      .def_readonly("first", &series_segment::first)
      .def_readonly("values", &series_segment::values)
      .def_readonly("warmup_values", &series_segment::warmup_values)
      .def_readonly("warmup_excess_s", &series_segment::warmup_excess_s)
      .def_readonly("steady_state_found", &series_segment::steady_state_found);
  py::class_<step_analysis>(m, "StepAnalysis")
      .def_readonly("segments", &step_analysis::segments)
      .def_readonly("steady_values", &step_analysis::steady_values)
      .def_readonly("steady_mean_s", &step_analysis::steady_mean_s)
      .def_readonly("ci_lo_s", &step_analysis::ci_lo_s)
      .def_readonly("ci_hi_s", &step_analysis::ci_hi_s)
      .def_readonly("lag1_autocorrelation", &step_analysis::lag1_autocorrelation)
      .def_readonly("data_wait_fraction", &step_analysis::data_wait_fraction)
      .def_readonly("step_time_s", &step_analysis::step_time_s)
      .def_readonly("warnings", &step_analysis::warnings);
  py::class_<calibrated_input>(m, "CalibratedInput")
      .def_readonly("path", &calibrated_input::path)
      .def_readonly("status", &calibrated_input::status)
      .def_readonly("method", &calibrated_input::method)
      .def_readonly("values", &calibrated_input::values)
      .def_readonly("experiments", &calibrated_input::experiments)
      .def_property_readonly("quantity", [](const calibrated_input& in) { return from_json(in.quantity); })
      .def_readonly("note", &calibrated_input::note);
  py::class_<calibration_result>(m, "CalibrationResult")
      .def_readonly("calibrated", &calibration_result::calibrated)
      .def_readonly("inputs", &calibration_result::inputs)
      .def_readonly("unmeasured", &calibration_result::unmeasured)
      .def_readonly("stayed_assumed", &calibration_result::stayed_assumed)
      .def_readonly("step_analyses", &calibration_result::step_analyses)
      .def_readonly("warnings", &calibration_result::warnings);
  py::class_<backtest_row>(m, "BacktestRow")
      .def_readonly("metric", &backtest_row::metric)
      .def_readonly("observed", &backtest_row::observed)
      .def_readonly("p10", &backtest_row::predicted_p10)
      .def_readonly("p50", &backtest_row::predicted_p50)
      .def_readonly("p90", &backtest_row::predicted_p90)
      .def_readonly("percentile", &backtest_row::percentile)
      .def_readonly("observed_from", &backtest_row::observed_from);
  py::class_<backtest_result>(m, "BacktestRun")
      .def_readonly("experiment_id", &backtest_result::experiment_id)
      .def_readonly("rows", &backtest_result::rows)
      .def_readonly("notes", &backtest_result::notes);
  py::class_<pit_uniformity>(m, "PitUniformity")
      .def_readonly("runs", &pit_uniformity::runs)
      .def_readonly("ks_d", &pit_uniformity::ks_d)
      .def_readonly("p_value", &pit_uniformity::p_value);
}

}  // namespace

void register_calibrate(py::module_& m) {
  using calibrate::journal;
  register_calibration_types(m);
  py::class_<journal>(m, "Journal")
      .def_static(
          "from_text",
          [](const std::string& text, const std::string& directory) { return journal::from_text(text, directory); },
          py::arg("text"), py::arg("directory"))
      .def_static(
          "from_obj",
          [](py::handle obj, const std::string& directory) { return journal::from_json(to_json(obj, ""), directory); },
          py::arg("obj"), py::arg("directory"))
      .def_readonly("experiment_id", &journal::experiment_id)
      .def_readonly("warnings", &journal::warnings)
      .def_readonly("steps_per_value", &journal::steps_per_value)
      .def_readonly("unknown", &journal::unknown)
      .def_readonly("derived", &journal::derived)
      .def_property_readonly("duration_s", &journal::duration_s)
      .def_property_readonly(
          "step_times_s",
          [](const journal& j) { return py::array_t<double>(j.step_times_s.size(), j.step_times_s.data()); })
      .def_property_readonly("node_failures", &journal::node_failures)
      .def("to_obj", [](const journal& j) { return from_json(j.to_json()); })
      .def("analysis", [](const journal& j) { return calibrate::analyze_steps(j); });

  m.def(
      "calibrate",
      [](const std::vector<journal>& journals, const scenario& base) { return calibrate::calibrate(journals, base); },
      py::arg("journals"), py::arg("base"));

  using calibrate::trial_summary;
  py::class_<trial_summary>(m, "TrialSummary")
      .def_static(
          "from_obj", [](py::handle obj) { return trial_summary::from_json(to_json(obj, "")); }, py::arg("obj"))
      .def_static(
          "from_text", [](const std::string& text) { return trial_summary::from_text(text); }, py::arg("text"))
      .def_readonly("experiment_id", &trial_summary::experiment_id)
      .def_property_readonly("platform", [](const trial_summary& s) { return s.instance.type; })
      .def_property_readonly("nodes", [](const trial_summary& s) { return s.instance.nodes; })
      .def_readonly("model", &trial_summary::model)
      .def_readonly("step_time_mean_s", &trial_summary::step_time_mean_s)
      .def_readonly("step_time_sd_s", &trial_summary::step_time_sd_s)
      .def_readonly("steps", &trial_summary::steps);
  m.def(
      "calibrate_summary",
      [](const trial_summary& summary, const scenario& base) { return calibrate::calibrate(summary, base); },
      py::arg("summary"), py::arg("base"));
  m.attr("TRIAL_SUMMARY_SCHEMA_V1") = calibrate::trial_summary_schema;

  m.def(
      "backtest",
      [](const scenario& s, const journal& j, std::uint64_t samples, std::uint64_t seed, int threads,
         const py::object& progress) {
        run_options options;
        options.samples = samples;
        options.seed = seed;
        options.threads = threads;
        return with_python_hooks(options, progress,
                                 [&](const run_options& hooked) { return calibrate::backtest(s, j, hooked); });
      },
      py::arg("scenario"), py::arg("journal"), py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("threads"),
      py::arg("progress"));

  m.def(
      "pit_uniformity", [](const std::vector<double>& pit) { return calibrate::test_pit_uniformity(pit); },
      py::arg("pit"));
  m.attr("JOURNAL_SCHEMA_V1") = calibrate::journal_schema;
  // The JSON Schema of the journal format, generated from its field table (journal_schema.hpp).
  m.def("journal_json_schema", [] { return from_json(calibrate::journal_json_schema()); });
}

}  // namespace trnmodel::python
