// libFuzzer target: a training log's text read as each importer reads it (a CSV, an MLflow
// metric file, a console log, a TensorBoard event file's record framing;
// include/trnmodel/calibrate/log_*.hpp, tfrecord.hpp), and each log that was read turned into
// step times (log_step_times.hpp). Every input must be read or refused with an
// input_error; a log that is read must keep its parts in order with increasing steps within a
// part, and a series that is given must hold finite step times > 0 on its steps.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "trnmodel/calibrate/log_console.hpp"
#include "trnmodel/calibrate/log_csv.hpp"
#include "trnmodel/calibrate/log_mlflow.hpp"
#include "trnmodel/calibrate/log_step_times.hpp"
#include "trnmodel/calibrate/tfrecord.hpp"

using namespace trnmodel;
using namespace trnmodel::calibrate;

namespace {
void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_training_logs", what, text); }

void check(const step_log& log, const std::string& text) {
  for (std::size_t i = 0; i < log.points.size(); ++i) {
    const log_point& p = log.points[i];
    require(p.step >= 0, "a negative step", text);
    require(std::isnan(p.step_time_s) || (std::isfinite(p.step_time_s) && p.step_time_s > 0),
            "a stated step time not finite and > 0", text);
    if (i == 0) continue;
    const log_point& q = log.points[i - 1];
    require(p.part == q.part || p.part == q.part + 1, "parts out of order", text);
    require(p.part != q.part || p.step > q.step, "steps not increasing within a part", text);
  }
  try {
    const log_step_times s = step_times_of(log);
    require(s.steps_per_value >= 1, "steps_per_value below 1", text);
    require(s.step_times_s.size() == s.steps.size() && s.steps.size() == s.parts.size(), "columns of unequal length", text);
    for (const double t : s.step_times_s) require(std::isfinite(t) && t > 0, "a step time not finite and > 0", text);
  } catch (const input_error&) {
    // Too few points, or a clock that stands still: a clear refusal.
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    step_log log;
    read_csv_steps(log, text, "fuzz.csv");
    check(log, text);
  } catch (const input_error&) {
  }
  try {
    step_log log;
    value_meaning meaning;
    meaning.meaning = static_cast<metric_meaning>(size % 3);
    meaning.global_batch = static_cast<std::int64_t>(size % 5);  // 0: unknown, so a throughput is refused
    read_mlflow_metric(log, text, "fuzz-metric", meaning);
    check(log, text);
  } catch (const input_error&) {
  }
  try {
    step_log log;
    console_read_options options;
    options.global_batch = static_cast<std::int64_t>(size % 3);  // 0: unknown, so throughput lines are refused
    read_console_steps(log, text, "fuzz.log", options);
    check(log, text);
  } catch (const input_error&) {
  }
  try {
    std::size_t end = 0;
    for (const tfrecord_span& r : tfrecord_spans(text, "fuzz.tfevents")) {
      require(r.offset >= end + 12 && r.offset + r.length + 4 <= size, "a record outside the file", text);
      end = r.offset + r.length + 4;
    }
    require(end == size, "records that do not cover the file", text);
  } catch (const input_error&) {
  }
  return 0;
}
