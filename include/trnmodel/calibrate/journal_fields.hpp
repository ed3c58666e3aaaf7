#pragma once
// The field table of the journal format "trnmodel.journal/1" (docs/journal.md): every key of
// every object, its id in C++, its type, whether it is required, its rule and what it means,
// each stated once. The JSON Schema (journal_schema.hpp, schema/journal-v1.schema.json) is
// generated from it; the loader (journal.hpp) reads each field by its id and takes the
// requiredness, minimums, number rules and choices from here; tests/cpp/test_journal_fields.cpp
// checks that the loader requires and refuses what the table says.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/calibrate/json_reader.hpp"

namespace trnmodel::calibrate {

/// The format tag a journal's "schema" key must hold.
inline constexpr const char* journal_schema = "trnmodel.journal/1";

// Each row is X(id, value, object, key, required, doc, rule...):
//   id        the field's name in C++ (journal_key::training_global_batch): a misspelt id does not compile;
//   value     its journal_value, which is also the journal_field maker that builds the row;
//   object    where the key lies: "" the top level, "instance", "checkpoints[]" (each entry of a list);
//   key       the key within `object`;
//   required  `required` or `optional` (a required key of an optional section is required when the
//             section is present; a key required only under a condition, e.g. training.lora_rank for
//             LoRA, is `optional` here and the loader states the condition);
//   doc       what it means, as the schema and docs/journal.md say it;
//   rule...   the maker's own: an integer's minimum (and maximum), a number's rule, a choice's
//             spellings (choice_names<E>() of choices.hpp), a text's pattern, a list's entry.
// clang-format off
#define TRNMODEL_JOURNAL_FIELDS(X)                                                                                    \
  X(schema, text, "", "schema", required, "format tag and version; always \"trnmodel.journal/1\"")                   \
  X(experiment_id, text, "", "experiment_id", required,                                                              \
    "unique id of this trial run; calibrated inputs cite it as their source",                                        \
    "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$")                                                                          \
  X(scenario, text, "", "scenario", optional,                                                                        \
    "name of the scenario this run is a trial of (its \"name\" field), e.g. llama3-8b-lora-trn2")                    \
  X(notes, free_text, "", "notes", optional, "free text: how the run was made, anything unusual")                    \
  X(unknown, text_map, "", "unknown", optional,                                                                      \
    "fields the run did not record: dotted path (phases.queue_s, checkpoints, interruptions[].cause) -> why. A "     \
    "field listed here is left out even when required, and calibration leaves what it would measure assumed; only "  \
    "the fields docs/journal.md names as may-be-unknown can be listed", "^[a-z_]+(\\[\\])?(\\.[a-z_]+)?$")         \
  X(derived, text_map, "", "derived", optional,                                                                      \
    "fields computed by a stated rule from what the run recorded, not recorded themselves: dotted path -> the rule " \
    "and its figures (e.g. a compile split from the first step)", "^[a-z_]+(\\[\\])?(\\.[a-z_]+)?$")             \
  X(started_at, timestamp, "", "started_at", required,                                                               \
    "submission of the job (start of the queue phase), RFC 3339 with time zone")                                     \
  X(ended_at, timestamp, "", "ended_at", required,                                                                   \
    "end of the run: release of the last node (end of billing), RFC 3339 with time zone; must be later than "        \
    "started_at")                                                                                                    \
  X(instance, section, "", "instance", required, "where the run ran")                                                \
  X(instance_type, text, "instance", "type", required,                                                               \
    "instance type; also the hardware-profile name, e.g. trn2.48xlarge")                                             \
  X(instance_nodes, integer, "instance", "nodes", required, "number of nodes (instances) of the run", 1)             \
  X(instance_region, text, "instance", "region", required, "cloud region, e.g. us-east-2")                           \
  X(instance_zone, text, "instance", "zone", optional, "availability zone, e.g. us-east-2b")                         \
  X(instance_chips_per_node, integer, "instance", "chips_per_node", optional,                                        \
    "accelerator chips (Trainium devices or GPUs) per node", 1)                                                      \
  X(instance_ranks_per_node, integer, "instance", "ranks_per_node", optional,                                        \
    "worker processes per node: logical NeuronCores (trn2.48xlarge at LNC=2: 64) or GPUs", 1)                        \
  X(instance_purchase_option, choice, "instance", "purchase_option", optional,                                       \
    "how the capacity was bought", choice_names<purchase_option>())                                                  \
  X(versions, section, "", "versions", required, "software versions; exactly one of neuron_sdk and cuda")            \
  X(versions_model, text, "versions", "model", required, "model id, e.g. meta-llama/Meta-Llama-3-8B")                \
  X(versions_model_revision, text, "versions", "model_revision", optional, "model revision (commit hash or tag)")    \
  X(versions_framework, text, "versions", "framework", required,                                                     \
    "training framework and version, e.g. \"pytorch 2.9.0\"")                                                        \
  X(versions_libraries, text_map, "versions", "libraries", optional,                                                 \
    "package name -> version string (compiler, distributed library, PEFT, transformers, ...)",                       \
    "^[A-Za-z0-9][A-Za-z0-9._+-]*$")                                                                                 \
  X(versions_neuron_sdk, text, "versions", "neuron_sdk", optional, "AWS Neuron SDK release, e.g. 2.31.0")            \
  X(versions_cuda, text, "versions", "cuda", optional, "CUDA version, e.g. 12.8")                                    \
  X(versions_driver, text, "versions", "driver", optional, "accelerator driver version")                             \
  X(versions_container_image, text, "versions", "container_image", optional,                                         \
    "container image reference (with tag or digest)")                                                                \
  X(training, section, "", "training", required, "training parameters and parallelism")                              \
  X(training_kind, choice, "training", "kind", required,                                                             \
    "lora, full or continued training (as scenario job.kind)", choice_names<job_kind>())                             \
  X(training_effective_steps_planned, integer, "training", "effective_steps_planned", required,                      \
    "optimizer steps the trial was planned to run", 1)                                                               \
  X(training_steps_completed, integer, "training", "steps_completed", required,                                      \
    "highest optimizer step completed (unique steps; redone steps are not counted twice); at most "                  \
    "effective_steps_planned", 0)                                                                                    \
  X(training_global_batch, integer, "training", "global_batch", required, "sequences per optimizer step", 1)         \
  X(training_micro_batch, integer, "training", "micro_batch", required,                                              \
    "sequences per micro-batch per data-parallel rank", 1)                                                           \
  X(training_gradient_accumulation, integer, "training", "gradient_accumulation", optional,                          \
    "micro-batches per optimizer step per data-parallel rank; global_batch = micro_batch x dp x "                    \
    "gradient_accumulation", 1)                                                                                      \
  X(training_sequence_length, integer, "training", "sequence_length", required, "tokens per sequence", 1)            \
  X(training_tp, integer, "training", "tp", required, "tensor-parallel degree", 1)                                   \
  X(training_pp, integer, "training", "pp", required, "pipeline-parallel degree", 1)                                 \
  X(training_dp, integer, "training", "dp", required, "data-parallel degree", 1)                                     \
  X(training_zero_stage, integer, "training", "zero_stage", optional,                                                \
    "ZeRO/FSDP stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights", 0, 3)                                        \
  X(training_precision, choice, "training", "precision", required,                                                   \
    "compute precision (as scenario throughput.precision)", choice_names<compute_precision>())                       \
  X(training_recompute, choice, "training", "recompute", optional,                                                   \
    "activation recomputation", choice_names<recompute_kind>())                                                      \
  X(training_lora_rank, integer, "training", "lora_rank", optional,                                                  \
    "LoRA adapter rank; required when kind is lora", 1)                                                              \
  X(training_lora_targets, text_list, "training", "lora_targets", optional,                                          \
    "modules carrying LoRA adapters, e.g. q_proj")                                                                   \
  X(training_optimizer, text, "training", "optimizer", optional, "optimizer, e.g. adamw")                            \
  X(training_learning_rate, number, "training", "learning_rate", optional, "peak learning rate", rule::positive)     \
  X(training_dataset, text, "training", "dataset", optional, "training data set id or description")                  \
  X(training_seed, integer, "training", "seed", optional, "random seed of the run", 0)                               \
  X(phases, section, "", "phases", required,                                                                         \
    "wall-clock seconds of the run's consecutive phases; queue_s + setup_s + compile_s + data_load_s + "             \
    "training_s + final_eval_s + teardown_s = ended_at - started_at")                                                \
  X(phases_queue_s, number, "phases", "queue_s", required,                                                           \
    "seconds from submission until capacity was granted (node launch)", rule::nonnegative)                           \
  X(phases_setup_s, number, "phases", "setup_s", required,                                                           \
    "seconds from node launch to a ready environment: boot, container pull, environment checks", rule::nonnegative)  \
  X(phases_compile_s, number, "phases", "compile_s", required,                                                       \
    "seconds compiling graphs before the first step, or loading them from the persistent cache on a hit",            \
    rule::nonnegative)                                                                                               \
  X(phases_compile_cache_hit, boolean, "phases", "compile_cache_hit", required,                                      \
    "true when every graph came from the persistent compile cache (compile_s is then a cache load)")                 \
  X(phases_data_load_s, number, "phases", "data_load_s", required,                                                   \
    "seconds loading base weights and data and building the loader before the first step", rule::nonnegative)        \
  X(phases_training_s, number, "phases", "training_s", required,                                                     \
    "seconds from the start of the first step until training ended (the last step with its checkpoint and "          \
    "periodic evaluation, if any): all executed steps (redone ones included), periodic checkpoints and "             \
    "evaluations, and interruptions with their recoveries", rule::nonnegative)                                       \
  X(phases_final_eval_s, number, "phases", "final_eval_s", required,                                                 \
    "seconds of the final evaluation after training (0 if none)", rule::nonnegative)                                 \
  X(phases_teardown_s, number, "phases", "teardown_s", optional,                                                     \
    "seconds after the final evaluation until the nodes were released: log upload, shutdown; default 0",             \
    rule::nonnegative)                                                                                               \
  X(phases_before_first_step_s, number, "phases", "before_first_step_s", optional,                                   \
    "seconds from started_at until the first step began, when the record cannot split them into queue_s, setup_s, "  \
    "compile_s and data_load_s: those it does not hold are listed in unknown, and the ones given sum to at most "    \
    "this", rule::nonnegative)                                                                                       \
  X(step_times, section, "", "step_times", required,                                                                 \
    "seconds per executed optimizer step in execution order: steps 1..n, and after each interruption the redone"     \
    " steps again. A step's time is the wall time between the ends of consecutive steps, data-loader and "           \
    "synchronisation waits included, checkpoint saves and evaluations excluded. Inline (values) or in a file "       \
    "beside the journal (file): exactly one of the two")                                                             \
  X(step_times_unit, choice, "step_times", "unit", required,                                                         \
    "unit of the values (or of the file column): s or ms", choice_names<time_unit>())                                \
  X(step_times_steps_per_value, integer, "step_times", "steps_per_value", optional,                                  \
    "executed steps averaged into each value (1 = one value per step); default 1", 1)                                \
  X(step_times_values, number_list, "step_times", "values", optional,                                                \
    "inline series, one positive time per value, in unit", rule::positive)                                           \
  X(step_times_file, text, "step_times", "file", optional,                                                           \
    "path of a CSV (.csv) or NumPy (.npy, 1-D float) file, relative to the journal's directory; no absolute "        \
    "paths, no ..", "^(?![/\\\\])(?!.*(^|[/\\\\])\\.\\.([/\\\\]|$))[^\\\\:*?\"<>|]+\\.(csv|npy)$")                   \
  X(step_times_column, text, "step_times", "column", optional,                                                       \
    "CSV column holding the times (required for .csv files)")                                                        \
  X(step_times_step_column, text, "step_times", "step_column", optional,                                             \
    "CSV column holding the optimizer step index of each row (optional; lets the loader check redone steps)")        \
  X(step_times_count, integer, "step_times", "count", optional, "number of values in the file", 1)                   \
  X(step_times_sha256, text, "step_times", "sha256", optional,                                                       \
    "SHA-256 of the file's bytes (lower-case hex)", "^[0-9a-f]{64}$")                                                \
  X(utilisation, section, "", "utilisation", optional,                                                               \
    "shares of the executed steps' time (saves, evaluations and recoveries excluded), averaged over the "            \
    "training phase; disjoint, so their sum is at most 1")                                                           \
  X(utilisation_accelerator_busy_fraction, number, "utilisation", "accelerator_busy_fraction", required,             \
    "share of step time the accelerators were executing work", rule::unit_interval)                                  \
  X(utilisation_data_wait_fraction, number, "utilisation", "data_wait_fraction", required,                           \
    "share of step time waiting for the data loader", rule::unit_interval)                                           \
  X(utilisation_sync_wait_fraction, number, "utilisation", "sync_wait_fraction", required,                           \
    "share of step time waiting on collectives or host synchronisation not overlapped with compute",                 \
    rule::unit_interval)                                                                                             \
  X(utilisation_measured_with, text, "utilisation", "measured_with", optional,                                       \
    "tool or method, e.g. neuron-monitor, profiler, framework timers")                                               \
  X(checkpoints, list, "", "checkpoints", required,                                                                  \
    "every checkpoint saved during the run, in the order taken (empty list: none)", "one checkpoint")                \
  X(checkpoint_step, integer, "checkpoints[]", "step", required,                                                     \
    "optimizer step the checkpoint holds (0 = before training)", 0)                                                  \
  X(checkpoint_at, timestamp, "checkpoints[]", "at", optional, "start of the save, RFC 3339 with time zone")         \
  X(checkpoint_save_s, number, "checkpoints[]", "save_s", required,                                                  \
    "blocking seconds of the save", rule::nonnegative)                                                               \
  X(checkpoint_verify_s, number, "checkpoints[]", "verify_s", required,                                              \
    "blocking seconds of its verification (checksum of the written files)", rule::nonnegative)                       \
  X(checkpoint_size_gb, number, "checkpoints[]", "size_gb", required,                                                \
    "size of the checkpoint, GB (1e9 bytes)", rule::nonnegative)                                                     \
  X(checkpoint_checksum, text, "checkpoints[]", "checksum", optional,                                                \
    "algorithm:digest of the checkpoint (e.g. sha256:<hex>, crc64nvme:<base64>); required when restore_verified is " \
    "true (a restore claimed as checked names what it checked against)", "^[a-z0-9-]+:[A-Za-z0-9+/=_-]+$")          \
  X(checkpoint_location, text, "checkpoints[]", "location", required,                                                \
    "where it is stored: URI or path, e.g. s3://bucket/prefix/")                                                     \
  X(checkpoint_restore_verified, boolean, "checkpoints[]", "restore_verified", required,                             \
    "true when a restore from this checkpoint was run and checked (loss or weights matched); false when not "        \
    "tested or the check failed")                                                                                    \
  X(checkpoint_restore_error, text, "checkpoints[]", "restore_error", optional,                                      \
    "what went wrong when a restore from it was tried and did not verify")                                           \
  X(checkpoint_load_s, number, "checkpoints[]", "load_s", optional,                                                  \
    "seconds to load it in a restore (recovery or restore test)", rule::nonnegative)                                 \
  X(evaluations, list, "", "evaluations", optional,                                                                  \
    "periodic evaluations during training, in the order run (the final evaluation is phases.final_eval_s); "         \
    "default none", "one evaluation")                                                                                \
  X(evaluation_step, integer, "evaluations[]", "step", required, "optimizer step evaluated", 0)                      \
  X(evaluation_at, timestamp, "evaluations[]", "at", optional, "start of the evaluation, RFC 3339 with time zone")   \
  X(evaluation_time_s, number, "evaluations[]", "time_s", required, "seconds of the evaluation", rule::nonnegative)  \
  X(evaluation_metrics, number_map, "evaluations[]", "metrics", optional,                                            \
    "metric name -> value, e.g. eval_loss", "^[A-Za-z0-9][A-Za-z0-9._/-]*$")                                         \
  X(interruptions, list, "", "interruptions", required,                                                              \
    "every unplanned stop of training, in time order (empty list: none); required so that a run without "            \
    "failures says so", "one interruption")                                                                          \
  X(interruption_at, timestamp, "interruptions[]", "at", required,                                                   \
    "moment training stopped making progress, RFC 3339 with time zone")                                              \
  X(interruption_step, integer, "interruptions[]", "step", required,                                                 \
    "last optimizer step completed before the interruption", 0)                                                      \
  X(interruption_cause, choice, "interruptions[]", "cause", required,                                                \
    "cause category (docs/journal.md says which count as node failures)", choice_names<interruption_cause>())        \
  X(interruption_detail, text, "interruptions[]", "detail", optional,                                                \
    "free-text detail of the cause (error message, component)")                                                      \
  X(interruption_detection_s, number, "interruptions[]", "detection_s", required,                                    \
    "seconds from the stop until it was detected", rule::nonnegative)                                                \
  X(interruption_recovery_s, number, "interruptions[]", "recovery_s", required,                                      \
    "seconds from detection until training resumed: restart or replacement, compile or cache load, checkpoint "      \
    "load", rule::nonnegative)                                                                                       \
  X(interruption_restart_s, number, "interruptions[]", "restart_s", optional,                                        \
    "part of recovery_s: node replacement and job relaunch", rule::nonnegative)                                      \
  X(interruption_compile_s, number, "interruptions[]", "compile_s", optional,                                        \
    "part of recovery_s: recompile, or cache load when recompiled is false", rule::nonnegative)                      \
  X(interruption_load_s, number, "interruptions[]", "load_s", optional,                                              \
    "part of recovery_s: checkpoint (and base-weight) load", rule::nonnegative)                                      \
  X(interruption_recompiled, boolean, "interruptions[]", "recompiled", required,                                     \
    "true when the recovery missed the compile cache and recompiled")                                                \
  X(interruption_restored_from_step, integer, "interruptions[]", "restored_from_step", required,                     \
    "step of the checkpoint training resumed from (0 = from scratch)", 0)                                            \
  X(interruption_redone_steps, integer, "interruptions[]", "redone_steps", required,                                 \
    "completed steps lost and executed again: step - restored_from_step", 0)                                         \
  X(interruption_recovered, boolean, "interruptions[]", "recovered", optional,                                       \
    "false when the run ended with this interruption; default true")                                                 \
  X(billed, section, "", "billed", required, "what the run was billed")                                              \
  X(billed_node_hours, number, "billed", "node_hours", required,                                                     \
    "billed node-hours (nodes x billed hours)", rule::nonnegative)                                                   \
  X(billed_queue_billed, boolean, "billed", "queue_billed", optional,                                                \
    "whether the queue phase was billed (reserved capacity); default false")                                         \
  X(billed_node_hour_usd, number, "billed", "node_hour_usd", optional,                                               \
    "price paid per node-hour, USD", rule::nonnegative)                                                              \
  X(billed_usd, number, "billed", "usd", optional, "billed compute cost, USD", rule::nonnegative)                    \
  X(quality, section, "", "quality", optional, "the run's quality outcome against its target")                       \
  X(quality_metric, text, "quality", "metric", required, "metric name, e.g. eval_loss")                              \
  X(quality_better, choice, "quality", "better", required,                                                           \
    "direction in which the metric improves", choice_names<quality_direction>())                                     \
  X(quality_target, number, "quality", "target", required, "value the metric had to reach", rule::any)               \
  X(quality_achieved, number, "quality", "achieved", required, "value reached", rule::any)                           \
  X(quality_passed, boolean, "quality", "passed", required, "whether the run met its quality target")                \
  X(quality_step, integer, "quality", "step", optional, "optimizer step at which it was measured", 0)                \
  X(quality_scope, choice, "quality", "scope", optional,                                                             \
    "trial: a proxy bar for this short run (e.g. matching a reference loss curve); job: the full job's quality "     \
    "gate. Default trial", choice_names<quality_scope>())                                                            \
  X(quality_reference, text, "quality", "reference", optional, "where the target comes from")
// clang-format on

/// The name in C++ of each journal field: journal_fields()[k] is the field with id k.
enum class journal_key {
#define TRNMODEL_JOURNAL_KEY(id, ...) id,
  TRNMODEL_JOURNAL_FIELDS(TRNMODEL_JOURNAL_KEY)
#undef TRNMODEL_JOURNAL_KEY
};

/// The kinds of value a journal field holds.
enum class journal_value {
  text,  ///< a string, not empty
  free_text,  ///< a string, possibly empty
  timestamp,  ///< RFC 3339 with a time zone
  integer,  ///< between minimum and maximum
  number,  ///< finite, under `rule`
  boolean,  ///< true or false
  choice,  ///< one of `choices`
  section,  ///< an object whose keys are the fields with object = its path
  list,  ///< an array of such objects (their object is "<path>[]")
  text_list,  ///< an array of strings, not empty, each once
  number_list,  ///< an array of numbers under `rule`, not empty
  text_map,  ///< an object of name (matching `pattern`) -> string
  number_map,  ///< an object of name (matching `pattern`) -> number
};

/// One journal field of the table the reader, the schema and the docs follow. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct journal_field {
  journal_key id{};  ///< its name in C++
  std::string object;  ///< where the key lies: "" the top level, "instance", "checkpoints[]" (each entry)
  std::string key;  ///< the key within `object`
  journal_value value = journal_value::text;  ///< the kind of value it holds
  bool required = false;  ///< a journal without it is refused (when its object is present)
  std::string doc;  ///< what it means, as the schema and docs/journal.md say it
  detail::number_rule rule = detail::number_rule::any;  ///< number, number_list
  std::int64_t minimum = 0;  ///< integer
  std::int64_t maximum = std::numeric_limits<std::int64_t>::max();  ///< integer (the schema's bound)
  std::vector<std::string> choices;  ///< choice
  std::string pattern;  ///< text: the whole text (ECMA 262); maps: each name
  std::string item_doc;  ///< list: what one entry is

  /// The dotted path in a journal: the key at the top level, else object.key ("checkpoints[].step").
  std::string path() const { return object.empty() ? key : object + "." + key; }

  /// A field of kind `value` with no rule beyond it; the named makers below add theirs.
  static journal_field make(journal_key id, std::string object, std::string key, journal_value value, bool required, std::string doc) {
    journal_field f;
    f.id = id;
    f.object = std::move(object);
    f.key = std::move(key);
    f.value = value;
    f.required = required;
    f.doc = std::move(doc);
    return f;
  }

  /// A non-empty string; when `pattern` is given the whole text must match it (ECMA 262).
  static journal_field text(journal_key id, std::string object, std::string key, bool required, std::string doc,
                            std::string pattern = "") {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::text, required, std::move(doc));
    f.pattern = std::move(pattern);
    return f;
  }
  /// A string that may be empty.
  static journal_field free_text(journal_key id, std::string object, std::string key, bool required, std::string doc) {
    return make(id, std::move(object), std::move(key), journal_value::free_text, required, std::move(doc));
  }
  /// An RFC 3339 timestamp with a time zone.
  static journal_field timestamp(journal_key id, std::string object, std::string key, bool required, std::string doc) {
    return make(id, std::move(object), std::move(key), journal_value::timestamp, required, std::move(doc));
  }
  /// An integer in [minimum, maximum].
  static journal_field integer(journal_key id, std::string object, std::string key, bool required, std::string doc,
                               std::int64_t minimum, std::int64_t maximum = std::numeric_limits<std::int64_t>::max()) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::integer, required, std::move(doc));
    f.minimum = minimum;
    f.maximum = maximum;
    return f;
  }
  /// A finite number under `rule` (positive, non-negative, in [0, 1], ...).
  static journal_field number(journal_key id, std::string object, std::string key, bool required, std::string doc,
                              detail::number_rule rule) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::number, required, std::move(doc));
    f.rule = rule;
    return f;
  }
  /// true or false.
  static journal_field boolean(journal_key id, std::string object, std::string key, bool required, std::string doc) {
    return make(id, std::move(object), std::move(key), journal_value::boolean, required, std::move(doc));
  }
  /// One of `choices`; the loader takes its list from here.
  static journal_field choice(journal_key id, std::string object, std::string key, bool required, std::string doc,
                              std::vector<std::string> choices) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::choice, required, std::move(doc));
    f.choices = std::move(choices);
    return f;
  }
  /// An object whose keys are the fields whose object is this field's path.
  static journal_field section(journal_key id, std::string object, std::string key, bool required, std::string doc) {
    return make(id, std::move(object), std::move(key), journal_value::section, required, std::move(doc));
  }
  /// An array of objects, each described by `item_doc`; their fields have object "<path>[]".
  static journal_field list(journal_key id, std::string object, std::string key, bool required, std::string doc, std::string item_doc) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::list, required, std::move(doc));
    f.item_doc = std::move(item_doc);
    return f;
  }
  /// A non-empty array of strings, each once.
  static journal_field text_list(journal_key id, std::string object, std::string key, bool required, std::string doc) {
    return make(id, std::move(object), std::move(key), journal_value::text_list, required, std::move(doc));
  }
  /// A non-empty array of numbers, each under `rule`.
  static journal_field number_list(journal_key id, std::string object, std::string key, bool required, std::string doc,
                                   detail::number_rule rule) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::number_list, required, std::move(doc));
    f.rule = rule;
    return f;
  }
  /// An object of name -> string, each name matching `name_pattern` (ECMA 262).
  static journal_field text_map(journal_key id, std::string object, std::string key, bool required, std::string doc,
                                std::string name_pattern) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::text_map, required, std::move(doc));
    f.pattern = std::move(name_pattern);
    return f;
  }
  /// An object of name -> number, each name matching `name_pattern` (ECMA 262).
  static journal_field number_map(journal_key id, std::string object, std::string key, bool required, std::string doc,
                                  std::string name_pattern) {
    journal_field f = make(id, std::move(object), std::move(key), journal_value::number_map, required, std::move(doc));
    f.pattern = std::move(name_pattern);
    return f;
  }
};

/// The field table of "trnmodel.journal/1", in document order: a section's or list's fields follow it.
/// Built once on first use; the table is immutable and safe to share between threads.
inline const std::vector<journal_field>& journal_fields() {
  using rule = detail::number_rule;
  constexpr bool required = true, optional = false;
#define TRNMODEL_JOURNAL_ROW(id, value, object, key, is_required, ...) \
  journal_field::value(journal_key::id, object, key, is_required, __VA_ARGS__),
  static const std::vector<journal_field> table{TRNMODEL_JOURNAL_FIELDS(TRNMODEL_JOURNAL_ROW)};
#undef TRNMODEL_JOURNAL_ROW
  return table;
}

/// The fields a journal may list under "unknown" (docs/journal.md, "What a log cannot hold"):
/// those a training log or a partial record may lack, whose absence the rules and calibration
/// can honour by checking or measuring less. Everything else (what ran, on what, the step
/// times) must be given.
inline const std::vector<journal_key>& journal_unknowable() {
  using k = journal_key;
  static const std::vector<journal_key> keys{
      k::started_at,          k::ended_at,
      k::instance_region,     k::versions_framework,
      k::versions_neuron_sdk, k::versions_cuda,
      k::training_effective_steps_planned,
      k::phases_queue_s,      k::phases_setup_s,
      k::phases_compile_s,    k::phases_compile_cache_hit,
      k::phases_data_load_s,  k::phases_training_s,
      k::phases_final_eval_s, k::checkpoints,
      k::interruption_at,     k::interruption_cause,
      k::interruption_detection_s, k::interruption_recovery_s,
      k::interruption_recompiled,  k::billed};
  return keys;
}

/// The field whose id is `id`.
inline const journal_field& journal_field_of(journal_key id) {
  return journal_fields()[static_cast<std::size_t>(id)];
}

/// The dotted path of the field `id` in a journal ("training.global_batch", "checkpoints[].step").
inline std::string journal_path(journal_key id) { return journal_field_of(id).path(); }

/// The field at `object`.`key`; a programming error (not an input error) if there is none.
inline const journal_field& journal_field_at(const std::string& object, const std::string& key) {
  for (const auto& f : journal_fields())
    if (f.object == object && f.key == key) return f;
  throw std::logic_error("journal_fields() has no " + (object.empty() ? key : object + "." + key));
}


}  // namespace trnmodel::calibrate
