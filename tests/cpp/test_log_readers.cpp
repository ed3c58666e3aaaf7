// Training logs read into step times (calibrate/log_*.hpp, log_step_times.hpp): one known truth
// (a 300-s compile in the first step, a warm-up, a steady step with a small pattern, and a
// restart from step 40 whose first step loads the graphs), written as each format writes it,
// read back and compared with the truth at the resolution the format keeps; and the bad logs,
// each with the wording of its refusal.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/calibrate/log_console.hpp"
#include "trnmodel/calibrate/log_csv.hpp"
#include "trnmodel/calibrate/log_hf_trainer.hpp"
#include "trnmodel/calibrate/log_mlflow.hpp"
#include "trnmodel/calibrate/log_step_times.hpp"
#include "trnmodel/calibrate/tfrecord.hpp"

using namespace trnmodel;
using namespace trnmodel::calibrate;

namespace test_log_readers {

namespace {

// The truth: (part, step, seconds) of every executed step. Part 0 runs steps 1-60; the job
// fails after step 60 and resumes from the checkpoint of step 40: part 1 runs 41-80.
struct executed {
  std::size_t part;
  std::int64_t step;
  double seconds;
};

std::vector<executed> truth() {
  std::vector<executed> steps;
  const double warmup[] = {300.0, 4.0, 3.5, 3.0, 2.5};
  for (std::int64_t s = 1; s <= 60; ++s)
    steps.push_back({0, s, s <= 5 ? warmup[s - 1] : 2.0 + 0.008 * static_cast<double>((s * 7) % 5 - 2)});
  for (std::int64_t s = 41; s <= 80; ++s)
    steps.push_back({1, s, s == 41 ? 30.0 : 2.0 + 0.008 * static_cast<double>((s * 3) % 5 - 2)});
  return steps;
}

// Mean seconds per step of the truth over steps (last - n, last] of `part`.
double mean_over(std::size_t part, std::int64_t last, std::int64_t n) {
  double sum = 0;
  for (const auto& e : truth())
    if (e.part == part && e.step > last - n && e.step <= last) sum += e.seconds;
  return sum / static_cast<double>(n);
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("trnmodel_test_log_readers_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// Every value of `series` against the truth's mean over its steps, within `tolerance_s`.
void check_against_truth(const log_step_times& series, double tolerance_s) {
  REQUIRE(!series.step_times_s.empty());
  for (std::size_t i = 0; i < series.step_times_s.size(); ++i) {
    INFO("value " << i << " at step " << series.steps[i] << " of part " << series.parts[i]);
    CHECK(std::abs(series.step_times_s[i] - mean_over(series.parts[i], series.steps[i], series.steps_per_value)) <=
          tolerance_s);
  }
}

// The truth as a wall clock: the start of part 0 at 1.8e9 s, part 1 after a 600-s gap.
std::vector<double> clock_after_each_step() {
  std::vector<double> clock;
  double t = 1.8e9;
  std::size_t part = 0;
  for (const auto& e : truth()) {
    if (e.part != part) t += 600.0, part = e.part;
    t += e.seconds;
    clock.push_back(t);
  }
  return clock;
}

}  // namespace

TEST_CASE("a CSV with a clock gives every step's time, a restart's file a part of its own", "[log_readers]") {
  const auto dir = fresh_dir("csv");
  std::ostringstream run, restart;
  run << "step,wall_time,loss\n";
  restart << "step,wall_time,loss\n";
  const auto steps = truth();
  const auto clock = clock_after_each_step();
  char line[96];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::snprintf(line, sizeof line, "%lld,%.6f,2.5\n", static_cast<long long>(steps[i].step), clock[i]);
    (steps[i].part == 0 ? run : restart) << line;
  }
  write(dir / "run.csv", run.str());
  write(dir / "restart.csv", restart.str());
  const step_log log = read_csv_log({dir / "run.csv", dir / "restart.csv"});
  CHECK(log.format == log_format::csv);
  CHECK(log.points.size() == 100);
  CHECK(log.parts() == 2);
  const log_step_times series = step_times_of(log);
  CHECK(series.steps_per_value == 1);
  // Each part's first point has no value: 59 + 39.
  CHECK(series.step_times_s.size() == 98);
  CHECK(series.steps.front() == 2);
  check_against_truth(series, 1e-5);  // the clock is written to the microsecond
}

TEST_CASE("a CSV of stated step times keeps the first step (the compile)", "[log_readers]") {
  step_log log;
  std::ostringstream text;
  text << "step,step_time_s\n";
  for (const auto& e : truth())
    if (e.part == 0) text << e.step << "," << e.seconds << "\n";
  read_csv_steps(log, text.str(), "steps.csv");
  const log_step_times series = step_times_of(log);
  CHECK(series.step_times_s.size() == 60);
  CHECK(series.step_times_s.front() == 300.0);
  check_against_truth(series, 1e-12);
}

TEST_CASE("bad CSV logs are refused with the file, line and rule", "[log_readers]") {
  step_log log;
  CHECK_THROWS_WITH(read_csv_steps(log, "", "a.csv"), test::contains("a.csv: the CSV file is empty"));
  CHECK_THROWS_WITH(read_csv_steps(log, "step,loss\n1,2\n", "a.csv"),
                    test::contains("needs a column step and a column wall_time or step_time_s (its columns: "
                                              "step, loss)"));
  CHECK_THROWS_WITH(read_csv_steps(log, "step,step_time_s\n1,2\n2,fast\n", "a.csv"),
                    test::contains("a.csv, line 3, column step_time_s: must be a number of seconds > 0, "
                                              "got \"fast\""));
  CHECK_THROWS_WITH(read_csv_steps(log, "step,step_time_s\n1,2\n1.5,2\n", "b.csv"),
                    test::contains("b.csv, line 3, column step: must be a whole number ≥ 0, got \"1.5\""));
  step_log fresh;
  CHECK_THROWS_WITH(read_csv_steps(fresh, "step,step_time_s,part\n5,2,0\n6,2,0\n6,2,0\n", "c.csv"),
                    test::contains("c.csv, line 4: steps must increase within a file: step 6 after step 6"));
  step_log skipping;
  CHECK_THROWS_WITH(read_csv_steps(skipping, "step,step_time_s,part\n5,2,0\n6,2,2\n", "c.csv"),
                    test::contains("c.csv, line 3, column part: parts count 0, 1, 2, ... in order"));
  step_log restarted;  // without a part column, a step that goes back is a restart, as in a journal's step file
  read_csv_steps(restarted, "step,step_time_s\n5,2\n6,2\n6,2\n7,2\n", "r.csv");
  CHECK(restarted.parts() == 2);
  CHECK(restarted.notes.size() == 1);
  step_log clock;
  CHECK_THROWS_WITH(read_csv_steps(clock, "step,wall_time\n1,100\n2,99\n", "d.csv"),
                    test::contains("d.csv, line 3: the clock goes back within a run"));
  step_log zone;
  CHECK_THROWS_WITH(read_csv_steps(zone, "step,wall_time\n1,2026-11-17T08:12:04\n", "e.csv"),
                    test::contains("an RFC 3339 timestamp with its zone"));
  step_log stamped;
  read_csv_steps(stamped, "step,wall_time\n1,2026-11-17T08:12:04Z\n2,2026-11-17T03:12:06.5-05:00\n", "f.csv");
  CHECK(step_times_of(stamped).step_times_s == std::vector<double>{2.5});
  CHECK_THROWS_WITH(step_times_of(step_log{}), test::contains("the log has no points"));
}

TEST_CASE("an MLflow run logged every 5 steps gives 5-step means, its resume is a new part", "[log_readers]") {
  const auto dir = fresh_dir("mlflow");
  const auto run = dir / "mlruns" / "1" / "0a1b2c";
  const auto steps = truth();
  const auto clock = clock_after_each_step();
  std::ostringstream loss, lr;
  char line[96];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].step % 5 != 0) continue;
    std::snprintf(line, sizeof line, "%.0f %s %lld\n", std::round(clock[i] * 1000), steps[i].step == 10 ? "nan" : "2.25",
                  static_cast<long long>(steps[i].step));
    loss << line;
    if (steps[i].step % 10 == 0) lr << line;
  }
  write(run / "metrics" / "train" / "loss", loss.str());
  write(run / "metrics" / "learning_rate", lr.str());
  write(run / "meta.yaml", "artifact_uri: file:///x\nend_time: 1800003000000\nrun_id: 0a1b2c\nstart_time: 1799999900000\n");
  const step_log log = read_mlflow_run(run);
  CHECK(log.format == log_format::mlflow);
  CHECK(log.source.find("metric train/loss") != std::string::npos);  // the metric logged at the most points
  CHECK(log.started_wall_time_s == 1799999900.0);
  CHECK(log.parts() == 2);
  CHECK(log.notes.size() == 2);  // which metric is the clock; the resume
  const log_step_times series = step_times_of(log);
  CHECK(series.steps_per_value == 5);
  CHECK(series.step_times_s.size() == 11 + 7);
  check_against_truth(series, 1e-3 / 5 + 1e-9);  // the clock is written to the millisecond

  CHECK_THROWS_WITH(read_mlflow_run(dir / "mlruns" / "1"),
                    test::contains("not an MLflow run folder: it has no metrics/ folder (its runs: 0a1b2c"));
  mlflow_read_options options;
  options.metric = "loss";
  CHECK_THROWS_WITH(read_mlflow_run(run, options),
                    test::contains("the run has no metric \"loss\" (its metrics: learning_rate, train/loss)"));
  step_log bad;
  CHECK_THROWS_WITH(read_mlflow_metric(bad, "1800000000000 2.5\n", "m", {}),
                    test::contains("m, line 1: an MLflow metric line is \"<timestamp ms> <value> <step>\""));
  CHECK_THROWS_WITH(read_mlflow_metric(bad, "1800000000000 two 3\n", "m", {}),
                    test::contains("m, line 1: the value must be a number, got \"two\""));
  CHECK_THROWS_WITH(read_mlflow_metric(bad, "1800000000000 2 -3\n", "m", {}),
                    test::contains("the step must be a whole number ≥ 0, got \"-3\""));
}

TEST_CASE("Megatron-LM's iteration lines give the means of their logging intervals", "[log_readers]") {
  // Megatron prints the interval's mean in milliseconds with one decimal.
  std::ostringstream text;
  text << "building GPT model ...\n";
  char line[200];
  for (const auto& e : truth())
    if (e.step % 10 == 0) {
      std::snprintf(line, sizeof line,
                    " [2026-11-17 08:12:04] iteration %lld/ 80 | consumed samples: %lld | elapsed time per iteration "
                    "(ms): %.1f | learning rate: 1.5E-04 | lm loss: 2.3E+00 |\n",
                    static_cast<long long>(e.step), static_cast<long long>(e.step * 16),
                    mean_over(e.part, e.step, 10) * 1000);
      text << line;
    }
  step_log log;
  log.format = log_format::console;
  read_console_steps(log, text.str(), "train.log");
  CHECK(log.parts() == 2);
  const log_step_times series = step_times_of(log);
  CHECK(series.steps_per_value == 10);
  CHECK(series.step_times_s.size() == 6 + 4);
  check_against_truth(series, 0.05e-3 + 1e-12);  // printed to 0.1 ms
}

TEST_CASE("NxD's throughput, a 10-step moving average, gives the means of windows that do not overlap",
          "[log_readers]") {
  // NxD's Throughput: after step k, min(k, 10) · batch / (time of those last steps), printed with 2 decimals.
  const std::int64_t batch = 16;
  std::ostringstream text;
  std::vector<double> window;
  std::size_t part = 0;
  char line[160];
  for (const auto& e : truth()) {
    if (e.part != part) window.clear(), part = e.part, text << "Resuming from checkpoint step 40\n";
    window.push_back(e.seconds);
    if (window.size() > 10) window.erase(window.begin());
    const double throughput =
        static_cast<double>(window.size() * batch) / std::accumulate(window.begin(), window.end(), 0.0);
    std::snprintf(line, sizeof line,
                  "LOG Tue Nov 17 08:12:04 2026 - (0, %lld) step_loss : 2.3100 learning_rate : 1.50e-04 "
                  "throughput : %.2f\n",
                  static_cast<long long>(e.step), throughput);
    text << line;
  }
  step_log log;
  console_read_options options;
  CHECK_THROWS_WITH(read_console_steps(log, text.str(), "nxd.log", options),
                    test::contains("global_batch: required: the log states throughput (sequences/s), not step times (nxd.log, line 1)"));
  options.global_batch = batch;
  step_log read;
  read_console_steps(read, text.str(), "nxd.log", options);
  CHECK(read.averaged_over_steps == 10);
  CHECK(read.parts() == 2);
  const log_step_times series = step_times_of(read);
  CHECK(series.steps_per_value == 10);
  CHECK(series.steps == std::vector<std::int64_t>{10, 20, 30, 40, 50, 60, 50, 60, 70, 80});
  // batch / throughput to the throughput's 2 decimals: relative 0.005 / throughput.
  for (std::size_t i = 0; i < series.step_times_s.size(); ++i) {
    const double exact = mean_over(series.parts[i], series.steps[i], 10);
    CHECK(std::abs(series.step_times_s[i] - exact) <= exact * exact * 0.005 / batch * 1.01);
  }
}

TEST_CASE("NxD's step lines and the progress line's global_step", "[log_readers]") {
  step_log log;
  read_console_steps(log,
                     "step 1 step_time 300.5s throughput 0.05 seq/s\nstep 2 step_time 2.1s throughput 7.6 seq/s\n"
                     "Epoch 0: 3%| global_step=3.0, reduced_train_loss=2.3, step_time=2.05, consumed_samples=48\n",
                     "x.log");
  REQUIRE(log.points.size() == 3);
  CHECK(log.points[0].step_time_s == 300.5);
  CHECK(log.points[2].step == 3);
  CHECK(log.points[2].step_time_s == 2.05);
  step_log none;
  CHECK_THROWS_WITH(read_console_steps(none, "hello\nstep_loss 3\n", "y.log"),
                    test::contains("y.log: no line states a step and its time in a known shape"));
  step_log mixed;
  CHECK_THROWS_WITH(read_console_steps(mixed, "step 1 step_time 2s\nglobal_step=2 throughput=8\n", "z.log"),
                    test::contains("global_batch: required"));
}

TEST_CASE("the Trainer's state gives the mean step time less its evaluations, and says what it cannot see",
          "[log_readers]") {
  double sum = 0;
  for (const auto& e : truth())
    if (e.part == 0) sum += e.seconds;
  std::ostringstream text;
  text << R"({"global_step": 60, "max_steps": 60, "log_history": [)"
       << R"({"step": 10, "loss": 2.5}, {"step": 20, "eval_loss": 2.4, "eval_runtime": 15.5},)"
       << R"({"step": 40, "eval_loss": 2.3, "eval_runtime": 14.5}, {"step": 60, "train_runtime": )" << sum + 30.0
       << R"(, "train_steps_per_second": 0.1}, {"step": 60, "eval_runtime": 99.0}]})";
  const step_log log = read_hf_trainer_state(text.str(), "trainer_state.json");
  CHECK(log.points.empty());
  CHECK(log.mean_over_steps == 60);
  CHECK(std::abs(log.mean_step_time_s - sum / 60) <= 1e-12);  // the final evaluation after training is not in it
  CHECK(log.notes.back().find("a resume cannot be seen") != std::string::npos);
  hf_trainer_read_options resumed;
  resumed.resumed_from_step = 40;
  CHECK(read_hf_trainer_state(text.str(), "t", resumed).mean_over_steps == 20);
  CHECK_THROWS_WITH(step_times_of(log), test::contains("the log holds only a mean step time"));
  CHECK_THROWS_WITH(read_hf_trainer_state(R"({"global_step": 5, "log_history": [{"loss": 1}]})", "t"),
                    test::contains("t: log_history has no train_runtime: the training call did not finish"));
  CHECK_THROWS_WITH(read_hf_trainer_state(R"({"global_step": 5})", "t"),
                    test::contains("not a Trainer state"));
  resumed.resumed_from_step = 60;
  CHECK_THROWS_WITH(read_hf_trainer_state(text.str(), "t", resumed),
                    test::contains("t: resumed_from_step: must be in [0, global_step 60), got 60"));
}

}  // namespace test_log_readers

namespace test_log_readers {

namespace {
// One TFRecord: length, its masked CRC, the data, the data's masked CRC (all little-endian).
std::string record(const std::string& data) {
  std::string out;
  const auto put = [&](std::uint64_t x, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((x >> (8 * i)) & 0xff);
  };
  put(data.size(), 8);
  put(detail::masked_crc32c(out.data(), 8), 4);
  out += data;
  put(detail::masked_crc32c(data.data(), data.size()), 4);
  return out;
}
}  // namespace

TEST_CASE("an event file's records are checked before TensorBoard's loader reads them", "[log_readers]") {
  // CRC-32C's check value (RFC 3720, B.4): "123456789" -> 0xE3069283, masked as TFRecord masks it.
  const std::uint32_t crc = 0xE3069283u;
  CHECK(detail::masked_crc32c("123456789", 9) == ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
  const std::string file = record("first event") + record("") + record(std::string(300, 'x'));
  const auto spans = tfrecord_spans(file, "events.out.tfevents.1");
  REQUIRE(spans.size() == 3);
  CHECK(file.substr(spans[0].offset, spans[0].length) == "first event");
  CHECK(spans[1].length == 0);
  CHECK(spans[2].offset == 12 + 11 + 4 + 12 + 0 + 4 + 12);
  CHECK(tfrecord_spans("", "e").empty());
  CHECK_THROWS_WITH(tfrecord_spans(file.substr(0, file.size() - 1), "e"),
                    test::contains("e: record 2 at byte 43: truncated: the record says 300 bytes"));
  CHECK_THROWS_WITH(tfrecord_spans(file.substr(0, 50), "e"), test::contains("e: record 2 at byte 43: truncated: 7 bytes left"));
  std::string flipped = file;
  flipped[20] ^= 0x01;
  CHECK_THROWS_WITH(tfrecord_spans(flipped, "e"), test::contains("e: record 0 at byte 0: corrupt: the data's checksum"));
  flipped = file;
  flipped[0] ^= 0x01;
  CHECK_THROWS_WITH(tfrecord_spans(flipped, "e"), test::contains("corrupt: the length's checksum does not match"));
}

}  // namespace test_log_readers
