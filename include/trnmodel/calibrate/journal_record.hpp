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

#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/choices.hpp"

namespace trnmodel::calibrate {

/// Where a trial ran (instance type, region, nodes). A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct journal_instance {
  std::string type,  ///< instance type, also the hardware-profile name (e.g. trn2.48xlarge)
      region,  ///< cloud region (e.g. us-east-2)
      zone;  ///< availability zone; "" when the journal gives none
  std::optional<purchase_option> purchase;  ///< how the capacity was bought, when given
  std::int64_t nodes = 1;  ///< nodes (instances) of the run, ≥ 1
  std::optional<std::int64_t> chips_per_node,  ///< accelerator chips (Trainium devices or GPUs) per node, when given
      ranks_per_node;  ///< worker processes per node (logical NeuronCores or GPUs), when given
};

/// The software a trial ran with (compiler, libraries). A plain value: copyable, owns its members;
/// concurrent reads are safe.
struct journal_versions {
  std::string model,  ///< model id (e.g. meta-llama/Meta-Llama-3-8B)
      model_revision,  ///< commit hash or tag of the model; "" when not given
      framework,  ///< training framework and its version (e.g. "pytorch 2.9.0")
      neuron_sdk,  ///< AWS Neuron SDK release; "" on a CUDA run (a journal names exactly one of the two)
      cuda,  ///< CUDA version; "" on a Neuron run
      driver,  ///< accelerator driver version; "" when not given
      container_image;  ///< container image reference; "" when not given
  std::map<std::string, std::string> libraries;  ///< package name -> version string (compiler, PEFT, ...)
};

/// What a trial trained (steps, batch, layout; the step times are in journal_record). A plain value: copyable, owns
/// its members; concurrent reads are safe.
struct journal_training {
  job_kind kind = job_kind::full;  ///< lora, full or continued (as the scenario's job.kind)
  compute_precision precision = compute_precision::bf16;  ///< compute precision
  recompute_kind recompute = recompute_kind::none;  ///< activation recomputation (none when not given)
  std::string optimizer,  ///< e.g. adamw; "" when not given
      dataset;  ///< training data set id or description; "" when not given
  std::int64_t effective_steps_planned = 0,  ///< optimizer steps the trial was planned to run
      steps_completed = 0;  ///< highest optimizer step completed (redone steps not counted twice); ≤ planned
  std::int64_t global_batch = 0,  ///< sequences per optimizer step
      micro_batch = 0,  ///< sequences per micro-batch per data-parallel rank
      sequence_length = 0,  ///< tokens per sequence
      tp = 1,  ///< tensor-parallel degree
      pp = 1,  ///< pipeline-parallel degree
      dp = 1;  ///< data-parallel degree
  std::optional<std::int64_t> gradient_accumulation,  ///< micro-batches per step per rank (= global ÷ (micro × dp))
      zero_stage,  ///< ZeRO/FSDP stage 0–3, when given
      lora_rank,  ///< LoRA adapter rank; always given when kind is lora
      seed;  ///< random seed of the run, when given
};

/// Measured phase durations of a trial, seconds. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_phases {
  double queue_s = 0,  ///< from submission until capacity was granted
      setup_s = 0,  ///< from node launch to a ready environment (boot, container pull, checks)
      compile_s = 0,  ///< compiling graphs before the first step, or loading them from the cache on a hit
      data_load_s = 0,  ///< loading weights and data and building the loader before the first step
      training_s = 0,  ///< first step to end of training: steps, periodic saves and evaluations, interruptions
      final_eval_s = 0,  ///< the final evaluation after training (0 if none)
      teardown_s = 0;  ///< after the final evaluation until the nodes were released (0 when not given)
  /// started_at to the first step, when the record cannot split it into queue, setup, compile and data load.
  std::optional<double> before_first_step_s;
  bool compile_cache_hit = false;  ///< every graph came from the persistent compile cache (compile_s is a load)
  /// The phases' total, seconds (the time before the first step as one number when the record gives
  /// it so); the journal rules warn when it differs from ended_at − started_at.
  double sum_s() const {
    const double before = before_first_step_s ? *before_first_step_s : queue_s + setup_s + compile_s + data_load_s;
    return before + training_s + final_eval_s + teardown_s;
  }
};

/// Measured utilisation figures of a trial. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_utilisation {
  double accelerator_busy_fraction = 0,  ///< share of step time the accelerators executed work, in [0, 1]
      data_wait_fraction = 0,  ///< share of step time waiting for the data loader, in [0, 1]
      sync_wait_fraction = 0;  ///< share of step time waiting on collectives or host sync not overlapped, in [0, 1]
};

/// One checkpoint a trial saved (or restored). A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_checkpoint {
  std::int64_t step = 0;  ///< optimizer step the checkpoint holds (0 = before training)
  std::optional<double> at_s,  ///< start of the save, seconds since 1970-01-01T00:00:00Z, when given
      load_s;  ///< seconds to load it in a restore (recovery or restore test), when given
  double save_s = 0,  ///< blocking seconds of the save
      verify_s = 0,  ///< blocking seconds of its verification (checksum of the written files)
      size_gb = 0;  ///< size, GB (1e9 bytes)
  std::string checksum,  ///< algorithm:digest, e.g. "sha256:" and the hex digest
      location,  ///< where it is stored: URI or path
      restore_error;  ///< what went wrong when a restore from it did not verify; "" when not given
  bool restore_verified = false;  ///< a restore from it was run and checked
};

/// One evaluation a trial ran. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_evaluation {
  std::int64_t step = 0;  ///< optimizer step evaluated
  std::optional<double> at_s;  ///< start of the evaluation, seconds since 1970-01-01T00:00:00Z, when given
  double time_s = 0;  ///< seconds the evaluation took
  std::map<std::string, double> metrics;  ///< metric name -> value (e.g. eval_loss)
};

/// The causes counted as node failures for the failure rate (docs/journal.md); software
/// errors and OOMs are fixed rather than a rate, and preemption is a separate process.
inline bool is_node_failure_cause(interruption_cause cause) {
  using c = interruption_cause;
  return cause == c::node_health_check || cause == c::accelerator_error || cause == c::hardware_error ||
         cause == c::network_error || cause == c::hang_timeout;
}

/// One interruption of a trial (failure, preemption) and its recovery. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct journal_interruption {
  double at_s = 0;  ///< when training stopped making progress, seconds since 1970-01-01T00:00:00Z
  std::int64_t step = 0,  ///< last optimizer step completed before the interruption
      restored_from_step = 0,  ///< step of the checkpoint training resumed from (0 = from scratch)
      redone_steps = 0;  ///< completed steps lost and executed again (step − restored_from_step)
  interruption_cause cause = interruption_cause::other;  ///< the cause category; is_node_failure_cause() says which count
  std::string detail;  ///< free-text detail of the cause; "" when not given
  double detection_s = 0,  ///< seconds from the stop until it was detected
      recovery_s = 0;  ///< seconds from detection until training resumed
  std::optional<double> restart_s,  ///< part of recovery_s: node replacement and job relaunch, when given
      compile_s,  ///< part of recovery_s: recompile, or cache load when not recompiled, when given
      load_s;  ///< part of recovery_s: checkpoint (and base-weight) load, when given
  bool recompiled = false,  ///< the recovery missed the compile cache and recompiled
      recovered = true;  ///< false when the run ended with this interruption
  /// Whether the cause counts as a node failure in the failure rate.
  bool node_failure() const { return is_node_failure_cause(cause); }
};

/// What a trial was billed. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_billed {
  double node_hours = 0;  ///< billed node-hours (nodes × billed hours)
  bool queue_billed = false;  ///< the queue phase was billed (reserved capacity)
  std::optional<double> node_hour_usd,  ///< price paid per node-hour, USD, when given
      usd;  ///< billed compute cost, USD, when given
};

/// A trial's quality-gate outcome. A plain value: copyable, owns its members; concurrent reads are safe.
struct journal_quality {
  std::string metric,  ///< metric name (e.g. eval_loss)
      reference;  ///< where the target comes from; "" when not given
  quality_direction better = quality_direction::lower;  ///< the direction it improves in
  quality_scope scope = quality_scope::trial;  ///< a proxy bar for the short run, or the full job's gate
  double target = 0,  ///< the value the metric had to reach
      achieved = 0;  ///< the value reached
  bool passed = false;  ///< the run met its quality target
  std::optional<std::int64_t> step;  ///< optimizer step it was measured at, when given
};

/// Everything a journal says, as loaded; the journal class adds the loading and the document.
struct journal_record {
  std::string experiment_id,  ///< unique id of the trial run; calibrated inputs cite it as their source
      scenario_name,  ///< name of the scenario the run is a trial of; "" when not given
      notes;  ///< free text; "" when not given
  double started_at_s = 0,  ///< submission of the job (start of the queue phase), seconds since 1970-01-01T00:00:00Z
      ended_at_s = 0;  ///< release of the last node (end of billing), seconds since 1970-01-01T00:00:00Z
  journal_instance instance;  ///< where the run ran
  journal_versions versions;  ///< the software it ran with
  journal_training training;  ///< what it trained and how it was laid out
  journal_phases phases;  ///< the phase durations
  std::vector<double> step_times_s;  ///< every executed step (or group of steps_per_value), in order
  std::vector<std::int64_t> step_numbers;  ///< from step_column, when given
  std::int64_t steps_per_value = 1;  ///< executed steps averaged into each value of step_times_s
  std::optional<journal_utilisation> utilisation;  ///< when the journal measured it
  std::vector<journal_checkpoint> checkpoints;  ///< every checkpoint saved, in the order taken
  std::vector<journal_evaluation> evaluations;  ///< periodic evaluations, in the order run (not the final one)
  std::vector<journal_interruption> interruptions;  ///< every unplanned stop, in time order
  journal_billed billed;  ///< what the run was billed
  std::optional<journal_quality> quality;  ///< the quality outcome, when given
  std::vector<std::string> warnings;  ///< what is odd but leaves the journal usable
  /// The fields the run did not record (dotted path -> why): their members above hold nothing
  /// meaningful, and whoever reads them asks known() first.
  std::map<std::string, std::string> unknown;
  /// The fields computed by a stated rule rather than recorded (dotted path -> the rule).
  std::map<std::string, std::string> derived;

  /// Whether the field `k` was recorded (not listed as unknown).
  bool known(journal_key k) const { return unknown.count(journal_path(k)) == 0; }

  /// Seconds from submission to the release of the last node (ended_at − started_at).
  double duration_s() const { return ended_at_s - started_at_s; }
  /// Interruptions whose cause counts in the failure rate.
  std::int64_t node_failures() const {
    return std::count_if(interruptions.begin(), interruptions.end(), [](const auto& x) { return x.node_failure(); });
  }
};

}  // namespace trnmodel::calibrate
