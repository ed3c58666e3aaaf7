#pragma once
// The Hugging Face Trainer's trainer_state.json (docs/importing.md, "Hugging Face Trainer"):
// its log_history has no timestamps, so the only time it holds is the training call's
// train_runtime. The mean step time is train_runtime less the runtime of the evaluations run
// inside training, over the steps of that call. No warm-up, spread or restart can be seen.
// After a resume the step count is cumulative while train_runtime covers only the last call:
// the caller must say where it resumed, or the mean is too low (said in the notes).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "trnmodel/calibrate/step_log.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/detail/series_file.hpp"

namespace trnmodel::calibrate {

/// How to read a trainer_state.json. A plain value: copyable, owns its members.
struct hf_trainer_read_options {
  /// The step the last training call resumed from (its checkpoint's global_step); nothing when
  /// the run was not resumed, or nobody knows.
  std::optional<std::int64_t> resumed_from_step;
};

/// The mean step time a trainer_state.json's text holds (`source` names it in errors).
inline step_log read_hf_trainer_state(const std::string& text, const std::string& source,
                                      const hf_trainer_read_options& options = {}) {
  const ordered_json doc = detail::parse_strict_json(text, source);
  if (!doc.is_object() || !doc.contains("log_history") || !doc["log_history"].is_array())
    detail::fail(source, "not a Trainer state: it needs an array log_history (the output folder's trainer_state.json)");
  if (!doc.contains("global_step") || !doc["global_step"].is_number())
    detail::fail(source + ": global_step", "required: the optimizer steps done");
  const std::optional<std::int64_t> global_step =
      detail::whole_number(source + ": global_step", doc["global_step"].get<double>(), 1);
  double train_runtime_s = -1, evaluations_s = 0;
  std::size_t evaluations = 0;
  const auto& history = doc["log_history"];
  for (std::size_t i = 0; i < history.size() && train_runtime_s < 0; ++i) {
    const auto& entry = history[i];
    const std::string where = source + ": log_history[" + std::to_string(i) + "]";
    if (!entry.is_object()) detail::fail(where, "must be an object");
    const auto number = [&](const char* key) {
      if (!entry[key].is_number() || !std::isfinite(entry[key].get<double>()) || entry[key].get<double>() < 0)
        detail::fail(where + "." + key, "must be a number of seconds ≥ 0, got " + detail::shorten(entry[key].dump()));
      return entry[key].get<double>();
    };
    if (entry.contains("eval_runtime")) evaluations_s += number("eval_runtime"), ++evaluations;
    if (entry.contains("train_runtime")) train_runtime_s = number("train_runtime");
  }
  if (train_runtime_s < 0)
    detail::fail(source, "log_history has no train_runtime: the training call did not finish (a checkpoint's "
                         "trainer_state.json is saved before the end; read the output folder's)");
  const std::int64_t resumed = options.resumed_from_step.value_or(0);
  if (resumed < 0 || resumed >= *global_step)
    detail::fail(source + ": resumed_from_step", "must be in [0, global_step " + std::to_string(*global_step) +
                                                    "), got " + std::to_string(resumed));
  const double training_s = train_runtime_s - evaluations_s;
  if (!(training_s > 0))
    detail::fail(source, "train_runtime " + detail::format_number(train_runtime_s) +
                             " s is not more than its evaluations' runtime " + detail::format_number(evaluations_s) + " s");
  step_log log;
  log.format = log_format::hf_trainer;
  log.source = source;
  log.mean_over_steps = *global_step - resumed;
  log.mean_step_time_s = training_s / static_cast<double>(log.mean_over_steps);
  log.notes.push_back("the Trainer keeps no timestamps: only the mean step time over " +
                      std::to_string(log.mean_over_steps) + " steps (train_runtime " +
                      detail::format_number(train_runtime_s) + " s less " + detail::format_number(evaluations_s) +
                      " s of " + std::to_string(evaluations) +
                      " evaluations), which includes the first step's compile and warm-up and the checkpoint saves; "
                      "no spread, warm-up or restart can be seen");
  if (options.resumed_from_step)
    log.notes.push_back("resumed from step " + std::to_string(resumed) + ": the mean is over the last training call's " +
                        std::to_string(log.mean_over_steps) + " steps");
  else
    log.notes.push_back("a resume cannot be seen in trainer_state.json: the mean assumes one training call from step 0; "
                        "if the run resumed, train_runtime covers only the last call and the mean is too low "
                        "(give resumed_from_step)");
  return log;
}

/// The mean step time of the trainer_state.json at `file`.
inline step_log read_hf_trainer_state_file(const std::filesystem::path& file,
                                           const hf_trainer_read_options& options = {}) {
  return read_hf_trainer_state(detail::read_file_bytes(file, file.string()), file.string(), options);
}

}  // namespace trnmodel::calibrate
