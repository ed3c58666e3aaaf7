#pragma once
// An MLflow run from the file store (docs/importing.md, "MLflow"), read without MLflow:
// <run>/metrics/<key> holds one line per logged value, "<timestamp ms> <value> <step>", in the
// order logged (a key with '/' is a folder path); <run>/meta.yaml holds the run's id and its
// start_time (ms). The clock of the chosen metric gives the step times; a run resumed into the
// same run id logs steps again from its checkpoint, which starts a new part.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "trnmodel/calibrate/step_log.hpp"
#include "trnmodel/detail/series_file.hpp"

namespace trnmodel::calibrate {

/// How to read an MLflow run. A plain value: copyable, owns its members.
struct mlflow_read_options {
  /// The metric whose timestamps give the clock; "" = the metric logged at the most points
  /// (ties by name), said in the log's notes.
  std::string metric;
  /// What the metric's values are: only its clock counts (default), step times in seconds (a
  /// logged "step_time_s"), or a throughput in sequences/s with the global batch.
  value_meaning values;
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

// "key: value" of a flat YAML file (MLflow's meta.yaml), or "" when absent.
inline std::string yaml_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::string value = line.substr(key.size() + 1);
    const auto first = value.find_first_not_of(" \t'\"");
    const auto last = value.find_last_not_of(" \t\r'\"");
    return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
  }
  return "";
}

// The run's metric keys: files under metrics/, as "a/b" for metrics/a/b, sorted.
inline std::vector<std::string> mlflow_metric_keys(const std::filesystem::path& metrics) {
  std::vector<std::string> keys;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(metrics))
    if (entry.is_regular_file()) keys.push_back(entry.path().lexically_relative(metrics).generic_string());
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Lines of a metric file that hold a value (the count used to choose the clock metric).
inline std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
         (!text.empty() && text.back() != '\n' ? 1 : 0);
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// The points of one MLflow metric file's text (`file` names it in errors), appended to `log`;
/// a step logged again starts a new part (a resumed run), said in the notes. `meaning`: what the
/// values are (docs/importing.md).
inline void read_mlflow_metric(step_log& log, const std::string& text, const std::string& file,
                               const value_meaning& meaning) {
  std::istringstream in(text);
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = file + ", line " + std::to_string(line_number);
    std::istringstream fields(line);
    std::string ts, value, step, extra;
    if (!(fields >> ts >> value >> step) || (fields >> extra))
      detail::fail(where, "an MLflow metric line is \"<timestamp ms> <value> <step>\", got \"" +
                              detail::shorten(line) + "\"");
    const auto ts_ms = detail::parse_finite(ts);
    const auto s = detail::parse_step_number(step);
    if (!ts_ms || *ts_ms < 0)
      detail::fail(where, "the timestamp must be milliseconds since 1970, got \"" + detail::shorten(ts) + "\"");
    if (!s) detail::fail(where, "the step must be a whole number ≥ 0, got \"" + detail::shorten(step) + "\"");
    char* end = nullptr;
    std::strtod(value.c_str(), &end);  // MLflow writes nan and inf too: a number, finite or not
    if (end != value.c_str() + value.size())
      detail::fail(where, "the value must be a number, got \"" + detail::shorten(value) + "\"");
    log_point p;
    p.step = *s;
    p.wall_time_s = *ts_ms / 1000.0;
    if (meaning.meaning != metric_meaning::clock)  // a clock metric's values may be anything (MLflow stores NaN too)
      p.step_time_s = detail::stated_step_time_s(std::strtod(value.c_str(), nullptr), meaning, where);
    const std::size_t parts_before = log.parts();
    detail::append_point(log, p, true, where);
    if (log.parts() > parts_before && parts_before > 0)
      log.notes.push_back("step " + std::to_string(p.step) + " logged again at line " + std::to_string(line_number) +
                          ": a restart of the run, read as a new part");
  }
}

/// The steps of the MLflow run in `run_dir` (a folder mlruns/<experiment>/<run>).
inline step_log read_mlflow_run(const std::filesystem::path& run_dir, const mlflow_read_options& options = {}) {
  namespace fs = std::filesystem;
  const std::string source = run_dir.string();
  if (!fs::is_directory(run_dir)) detail::fail(source, "no such folder (an MLflow run folder: mlruns/<experiment>/<run>)");
  const fs::path metrics = run_dir / "metrics";
  if (!fs::is_directory(metrics)) {
    std::string runs;
    for (const auto& entry : fs::directory_iterator(run_dir))
      if (fs::is_directory(entry.path() / "metrics")) runs += (runs.empty() ? "" : ", ") + entry.path().filename().string();
    detail::fail(source, "not an MLflow run folder: it has no metrics/ folder" +
                             (runs.empty() ? std::string() : " (its runs: " + runs + "; read one of them)"));
  }
  const auto keys = detail::mlflow_metric_keys(metrics);
  if (keys.empty()) detail::fail(source, "the run logged no metric (metrics/ is empty)");
  step_log log;
  log.format = log_format::mlflow;
  std::string key = options.metric;
  if (key.empty()) {
    std::size_t most = 0;
    for (const auto& k : keys) {
      const std::size_t n = detail::count_lines(detail::read_file_bytes(metrics / k, source));
      if (n > most) most = n, key = k;
    }
    if (keys.size() > 1)
      log.notes.push_back("the clock is metric \"" + key + "\", the one logged at the most points (" +
                          std::to_string(most) + ")");
  } else if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
    std::string all;
    for (const auto& k : keys) all += (all.empty() ? "" : ", ") + k;
    detail::fail(source + ": metric", "the run has no metric \"" + key + "\" (its metrics: " + all + ")");
  }
  const fs::path meta = run_dir / "meta.yaml";
  std::string run_id = run_dir.filename().string();
  if (fs::is_regular_file(meta)) {
    const std::string text = detail::read_file_bytes(meta, meta.string());
    if (!detail::yaml_value(text, "run_id").empty()) run_id = detail::yaml_value(text, "run_id");
    if (const auto start = detail::parse_finite(detail::yaml_value(text, "start_time")))
      log.started_wall_time_s = *start / 1000.0;
  }
  log.source = "mlflow run " + run_id + " (" + source + "), metric " + key;

  const fs::path file = metrics / key;
  read_mlflow_metric(log, detail::read_file_bytes(file, file.string()), file.string(), options.values);
  detail::note_meaning(log, options.values);
  if (log.points.empty()) detail::fail(file.string(), "the metric has no values");
  return log;
}

}  // namespace trnmodel::calibrate
