#pragma once
// The records of a trial-run journal (format "trnmodel.journal/1", docs/journal.md): what one
// short, representative run of a training job recorded, in SI units and typed. The loader
// (journal.hpp) fills them; the cross-field rules (journal_rules.hpp) read them.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trnmodel::calibrate {

/// Where a trial ran (instance type, region, nodes). A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct journal_instance {
  std::string type, region, zone, purchase_option;
  std::int64_t nodes = 1;
  std::optional<std::int64_t> chips_per_node, ranks_per_node;
};

/// The software a trial ran with (compiler, libraries). A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct journal_versions {
  std::string model, model_revision, framework, neuron_sdk, cuda, driver, container_image;
  std::map<std::string, std::string> libraries;
};

/// What a trial trained (steps, layout, the step-time series file). A plain value: copyable, owns
/// its members; concurrent reads are safe.
struct journal_training {
  std::string kind, precision, recompute, optimizer, dataset;
  std::int64_t effective_steps_planned = 0, steps_completed = 0;
  std::int64_t global_batch = 0, micro_batch = 0, sequence_length = 0, tp = 1, pp = 1, dp = 1;
  std::optional<std::int64_t> gradient_accumulation, zero_stage, lora_rank, seed;
};

/// Measured phase durations of a trial, seconds. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_phases {
  double queue_s = 0, setup_s = 0, compile_s = 0, data_load_s = 0, training_s = 0, final_eval_s = 0, teardown_s = 0;
  bool compile_cache_hit = false;
  double sum_s() const { return queue_s + setup_s + compile_s + data_load_s + training_s + final_eval_s + teardown_s; }
};

/// Measured utilisation figures of a trial. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_utilisation {
  double accelerator_busy_fraction = 0, data_wait_fraction = 0, sync_wait_fraction = 0;
};

/// One checkpoint a trial saved (or restored). A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_checkpoint {
  std::int64_t step = 0;
  std::optional<double> at_s, load_s;
  double save_s = 0, verify_s = 0, size_gb = 0;
  std::string checksum, location, restore_error;
  bool restore_verified = false;
};

/// One evaluation a trial ran. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_evaluation {
  std::int64_t step = 0;
  std::optional<double> at_s;
  double time_s = 0;
  std::map<std::string, double> metrics;
};

/// The causes counted as node failures for the failure rate (docs/journal.md); software
/// errors and OOMs are fixed rather than a rate, and preemption is a separate process.
inline bool is_node_failure_cause(const std::string& cause) {
  return cause == "node_health_check" || cause == "accelerator_error" || cause == "hardware_error" ||
         cause == "network_error" || cause == "hang_timeout";
}

/// One interruption of a trial (failure, preemption) and its recovery. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct journal_interruption {
  double at_s = 0;
  std::int64_t step = 0, restored_from_step = 0, redone_steps = 0;
  std::string cause, detail;
  double detection_s = 0, recovery_s = 0;
  std::optional<double> restart_s, compile_s, load_s;
  bool recompiled = false, recovered = true;
  bool node_failure() const { return is_node_failure_cause(cause); }
};

/// What a trial was billed. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_billed {
  double node_hours = 0;
  bool queue_billed = false;
  std::optional<double> node_hour_usd, usd;
};

/// A trial's quality-gate outcome. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_quality {
  std::string metric, better, scope = "trial", reference;
  double target = 0, achieved = 0;
  bool passed = false;
  std::optional<std::int64_t> step;
};

/// Everything a journal says, as loaded; the journal class adds the loading and the document.
struct journal_record {
  std::string experiment_id, scenario_name, notes;
  double started_at_s = 0, ended_at_s = 0;  ///< seconds since 1970-01-01T00:00:00Z
  journal_instance instance;
  journal_versions versions;
  journal_training training;
  journal_phases phases;
  std::vector<double> step_times_s;  ///< every executed step (or group of steps_per_value), in order
  std::vector<std::int64_t> step_numbers;  ///< from step_column, when given
  std::int64_t steps_per_value = 1;
  std::optional<journal_utilisation> utilisation;
  std::vector<journal_checkpoint> checkpoints;
  std::vector<journal_evaluation> evaluations;
  std::vector<journal_interruption> interruptions;
  journal_billed billed;
  std::optional<journal_quality> quality;
  std::vector<std::string> warnings;  ///< what is odd but leaves the journal usable

  double duration_s() const { return ended_at_s - started_at_s; }
  // Interruptions whose cause counts in the failure rate.
  std::int64_t node_failures() const {
    return std::count_if(interruptions.begin(), interruptions.end(), [](const auto& x) { return x.node_failure(); });
  }
};

}  // namespace trnmodel::calibrate
