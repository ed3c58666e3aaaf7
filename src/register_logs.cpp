// Training logs read into step times (docs/importing.md): the readers of calibrate/log_*.hpp,
// the step_log they return and its step-time series. python/trnmodel/_logs.py is the facade.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "register.hpp"
#include "trnmodel/calibrate/log_console.hpp"
#include "trnmodel/calibrate/log_csv.hpp"
#include "trnmodel/calibrate/log_hf_trainer.hpp"
#include "trnmodel/calibrate/log_mlflow.hpp"
#include "trnmodel/calibrate/log_step_times.hpp"
#include "trnmodel/calibrate/tfrecord.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {

// One column of a log's points as a NumPy array.
template <class T, class Get>
py::array_t<T> column(const calibrate::step_log& log, Get get) {
  py::array_t<T> out(static_cast<py::ssize_t>(log.points.size()));
  auto view = out.template mutable_unchecked<1>();
  for (std::size_t i = 0; i < log.points.size(); ++i) view(static_cast<py::ssize_t>(i)) = get(log.points[i]);
  return out;
}

// A metric's meaning from its spelling, with the figures a throughput needs.
calibrate::value_meaning meaning_of(const std::string& meaning, std::int64_t global_batch, std::int64_t throughput_window_steps) {
  calibrate::value_meaning m;
  m.meaning = parse_choice<metric_meaning>("meaning", meaning);
  m.global_batch = global_batch;
  m.throughput_window_steps = throughput_window_steps;
  return m;
}

}  // namespace

void register_logs(py::module_& m) {
  using namespace calibrate;
  py::class_<step_log>(m, "StepLog")
      .def_property_readonly("format", [](const step_log& log) { return name_of_choice(log.format); })
      .def_readonly("source", &step_log::source)
      .def_property_readonly("steps", [](const step_log& log) { return column<std::int64_t>(log, [](const log_point& p) { return p.step; }); })
      .def_property_readonly("wall_time_s", [](const step_log& log) { return column<double>(log, [](const log_point& p) { return p.wall_time_s; }); })
      .def_property_readonly("step_time_s", [](const step_log& log) { return column<double>(log, [](const log_point& p) { return p.step_time_s; }); })
      .def_property_readonly("part", [](const step_log& log) { return column<std::int64_t>(log, [](const log_point& p) { return static_cast<std::int64_t>(p.part); }); })
      .def_property_readonly("parts", &step_log::parts)
      .def_readonly("started_wall_time_s", &step_log::started_wall_time_s)
      .def_readonly("averaged_over_steps", &step_log::averaged_over_steps)
      .def_readonly("mean_step_time_s", &step_log::mean_step_time_s)
      .def_readonly("mean_over_steps", &step_log::mean_over_steps)
      .def_readonly("notes", &step_log::notes);
  py::class_<log_step_times>(m, "StepSeries")
      .def_readonly("step_times_s", &log_step_times::step_times_s)
      .def_readonly("steps", &log_step_times::steps)
      .def_readonly("parts", &log_step_times::parts)
      .def_readonly("steps_per_value", &log_step_times::steps_per_value)
      .def_readonly("rule", &log_step_times::rule)
      .def_readonly("notes", &log_step_times::notes);
  m.def("read_csv_log", &read_csv_log, py::arg("files"));
  m.def(
      "read_mlflow_run",
      [](const std::filesystem::path& run_dir, const std::string& metric, const std::string& meaning,
         std::int64_t global_batch, std::int64_t throughput_window_steps) {
        mlflow_read_options options;
        options.metric = metric;
        options.values = meaning_of(meaning, global_batch, throughput_window_steps);
        return read_mlflow_run(run_dir, options);
      },
      py::arg("run_dir"), py::kw_only(), py::arg("metric") = "", py::arg("meaning") = "clock",
      py::arg("global_batch") = 0, py::arg("throughput_window_steps") = 10);
  m.def(
      "read_hf_trainer_state",
      [](const std::filesystem::path& file, std::optional<std::int64_t> resumed_from_step) {
        hf_trainer_read_options options;
        options.resumed_from_step = resumed_from_step;
        return read_hf_trainer_state_file(file, options);
      },
      py::arg("file"), py::kw_only(), py::arg("resumed_from_step") = py::none());
  m.def(
      "read_console_log",
      [](const std::filesystem::path& file, std::int64_t global_batch, std::int64_t throughput_window_steps) {
        console_read_options options;
        options.global_batch = global_batch;
        options.throughput_window_steps = throughput_window_steps;
        return read_console_log(file, options);
      },
      py::arg("file"), py::kw_only(), py::arg("global_batch") = 0, py::arg("throughput_window_steps") = 10);
  py::class_<logged_values>(m, "LoggedValues")
      .def(py::init<>())
      .def_readwrite("steps", &logged_values::steps)
      .def_readwrite("wall_time_s", &logged_values::wall_time_s)
      .def_readwrite("values", &logged_values::values)
      .def_readwrite("parts", &logged_values::parts)
      .def_readwrite("where", &logged_values::where);
  // Records Python decoded (TensorBoard's events through its own loader, a user's pattern): the
  // points go through the same rules as a reader's.
  m.def(
      "step_log_of_values",
      [](const std::string& format, const std::string& source, const logged_values& records,
         const std::string& meaning, std::int64_t global_batch, std::int64_t throughput_window_steps,
         bool restart_starts_part, double started_wall_time_s) {
        step_log log =
            step_log_of_values(parse_choice<log_format>("format", format), source, records,
                               meaning_of(meaning, global_batch, throughput_window_steps), restart_starts_part);
        log.started_wall_time_s = started_wall_time_s;
        return log;
      },
      py::arg("format"), py::arg("source"), py::arg("records"), py::kw_only(), py::arg("meaning"),
      py::arg("global_batch") = 0, py::arg("throughput_window_steps") = 10, py::arg("restart_starts_part"),
      py::arg("started_wall_time_s") = std::numeric_limits<double>::quiet_NaN());
  // An event file's records checked (framing and CRC-32C) before TensorBoard's loader reads them.
  m.def(
      "tfrecord_count",
      [](const py::bytes& data, const std::string& source) {
        const std::string bytes = data;
        return tfrecord_spans(bytes, source).size();
      },
      py::arg("data"), py::arg("source"));
  m.def("step_times_of", &step_times_of, py::arg("log"));
}

}  // namespace trnmodel::python
