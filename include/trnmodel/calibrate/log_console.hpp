#pragma once
// A training script's console output, its stdout (docs/importing.md, "Console logs"): the lines of
// known shapes that state a step and its time, every other line skipped.
//   Megatron-LM         " iteration  100/ 10000 | ... | elapsed time per iteration (ms): 1234.5 | ..."
//   NxD (examples)      "LOG ... - (0, 12) step_loss : 2.31 learning_rate : 1.5e-04 throughput : 45.2"
//   NxD (step lines)    "step 12 step_time 1.23s throughput 45.2 seq/s"
//   NxD Training        "... global_step=12.0, ... throughput=45.2 ..."  (PyTorch Lightning's progress line)
// A stated step time (Megatron's is the mean over its logging interval) is kept as the mean over
// the steps since the previous logged point. A throughput (sequences per second) becomes a step
// time with the global batch: NxD averages it over the last 10 steps (a moving average), said in
// the notes. The console has no reliable clock (no zone), so none is read. A relaunched job
// appending to the same log goes on from its checkpoint's step: a step at or below the last one
// starts a new part.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>

#include "trnmodel/calibrate/step_log.hpp"
#include "trnmodel/detail/series_file.hpp"

namespace trnmodel::calibrate {

/// How to read a console log. A plain value: copyable, owns its members.
struct console_read_options {
  /// Sequences per optimizer step, to turn a throughput (sequences/s) into a step time; 0 when
  /// not known (a log that states only throughput is then refused, naming this option).
  std::int64_t global_batch = 0;
  /// Steps a logged throughput is averaged over (NxD: 10).
  std::int64_t throughput_window_steps = 10;
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

inline bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where `word` stands in `line` as a word of its own (not inside step_loss or substeps), from
// `from`; npos when nowhere.
inline std::size_t find_word(const std::string& line, const std::string& word, std::size_t from = 0) {
  for (std::size_t at = line.find(word, from); at != std::string::npos; at = line.find(word, at + 1)) {
    const bool starts = at == 0 || !is_name_char(line[at - 1]);
    const bool ends = at + word.size() == line.size() || !is_name_char(line[at + word.size()]);
    if (starts && ends) return at;
  }
  return std::string::npos;
}

// The number after position `at`, past blanks, ':' and '='; nothing when none follows.
inline std::optional<double> number_after(const std::string& line, std::size_t at) {
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == ':' || line[at] == '=')) ++at;
  if (at >= line.size() || !(std::isdigit(static_cast<unsigned char>(line[at])) || line[at] == '.' || line[at] == '-'))
    return std::nullopt;
  const char* begin = line.c_str() + at;
  char* end = nullptr;
  const double x = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(x)) return std::nullopt;
  return x;
}

// The number after `key` as a word of its own; nothing when the key or its number is absent.
inline std::optional<double> keyed_number(const std::string& line, const std::string& key) {
  const std::size_t at = find_word(line, key);
  return at == std::string::npos ? std::nullopt : number_after(line, at + key.size());
}

// The step a line states, in the known shapes; nothing when it states none.
inline std::optional<double> console_step(const std::string& line) {
  if (const std::size_t at = find_word(line, "iteration"); at != std::string::npos) {  // Megatron: "iteration 100/ 10000"
    const auto step = number_after(line, at + 9);
    if (step && line.find('/', at) != std::string::npos) return step;
  }
  if (auto step = keyed_number(line, "global_step")) return step;
  if (const std::size_t at = find_word(line, "step_loss"); at != std::string::npos) {  // NxD: "(epoch, step) step_loss"
    const std::size_t close = line.rfind(')', at), comma = line.rfind(',', close);
    if (close != std::string::npos && comma != std::string::npos && line.find_first_not_of(" \t", close + 1) == at)
      return number_after(line, comma + 1);
  }
  return keyed_number(line, "step");
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// The points of a console log's text (`source` names it in errors), appended to `log`; `log`'s
/// notes say what was read and how.
inline void read_console_steps(step_log& log, const std::string& text, const std::string& source,
                              const console_read_options& options = {}) {
  if (options.global_batch < 0)
    detail::fail("global_batch", "must be ≥ 1 (or 0: unknown), got " + std::to_string(options.global_batch));
  value_meaning throughput_meaning;
  throughput_meaning.meaning = metric_meaning::throughput;
  throughput_meaning.global_batch = options.global_batch;
  throughput_meaning.throughput_window_steps = options.throughput_window_steps;
  value_meaning step_time_meaning;
  step_time_meaning.meaning = metric_meaning::step_time_s;
  std::istringstream in(text);
  std::string line;
  std::size_t line_number = 0, from_throughput = 0, from_step_time = 0, restarts = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const auto step = detail::console_step(line);
    if (!step) continue;
    std::optional<double> step_time_s;
    static const std::string megatron = "elapsed time per iteration (ms)";
    const std::size_t megatron_at = line.find(megatron);
    if (megatron_at != std::string::npos) {
      if (const auto ms = detail::number_after(line, megatron_at + megatron.size())) step_time_s = *ms / 1000.0;
    } else if (const auto s = detail::keyed_number(line, "step_time")) {
      step_time_s = *s;
    }
    std::optional<double> throughput;
    if (!step_time_s) throughput = detail::keyed_number(line, "throughput");
    if (!step_time_s && !throughput) continue;  // a step without its time (a loss line): not a timing line
    const std::string where = source + ", line " + std::to_string(line_number);
    const auto whole = detail::parse_step_number(detail::format_number(*step));
    if (!whole) detail::fail(where, "the step must be a whole number ≥ 0, got " + detail::format_number(*step));
    log_point p;
    p.step = *whole;
    if (step_time_s) {
      p.step_time_s = detail::stated_step_time_s(*step_time_s, step_time_meaning, where);
      ++from_step_time;
    } else {
      p.step_time_s = detail::stated_step_time_s(*throughput, throughput_meaning, where);
      ++from_throughput;
    }
    const std::size_t parts_before = log.parts();
    detail::append_point(log, p, true, where);
    if (log.parts() > parts_before && parts_before > 0) ++restarts;
  }
  if (from_step_time == 0 && from_throughput == 0)
    detail::fail(source, "no line states a step and its time in a known shape (Megatron-LM's iteration lines, NxD's "
                         "step_loss/step_time/global_step lines; docs/importing.md); give a pattern");
  if (from_step_time > 0 && from_throughput > 0)
    detail::fail(source, std::to_string(from_step_time) + " lines state a step time and " +
                             std::to_string(from_throughput) +
                             " only a throughput: a log of one shape is needed (the two average differently)");
  if (from_throughput > 0) detail::note_meaning(log, throughput_meaning);
  if (restarts > 0)
    log.notes.push_back(std::to_string(restarts) + " restart(s): a step at or below the one before, read as a new part");
  log.notes.push_back("the console has no clock with a zone: no wall time read (" + std::to_string(log.points.size()) +
                      " timing lines)");
}

/// The console log at `file`, read into a step_log.
inline step_log read_console_log(const std::filesystem::path& file, const console_read_options& options = {}) {
  step_log log;
  log.format = log_format::console;
  log.source = file.string();
  read_console_steps(log, detail::read_file_bytes(file, file.string()), file.string(), options);
  return log;
}

}  // namespace trnmodel::calibrate
