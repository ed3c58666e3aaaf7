#pragma once
// The fields of scenario format v1 (docs/scenario.md), as one table. Loading, validation,
// defaults, saving, dotted-path updates, the JSON Schema, the "did you mean" suggestions, the
// slot each uncertain input is drawn into, which metrics an unknown input blocks, and when a
// field is read at all: everything reads the rows below, so a field is added as one row.
//
// Each row is X(id, path, kind, rule, default, required, group, when, count, slot, choices, doc):
//   id        the field's name in C++ (`field::checkpoint_save_s`): a misspelt id does not compile;
//   path      its dotted JSON path;
//   kind      field_kind: quantity (uncertain), boolean, integer, number, text or choice;
//   rule      field_rule: the range every value (every draw of a quantity) must lie in; for
//             integers also their bounds (integer_bounds);
//   default   JSON text of the default ("" when required or absent by default);
//   group     input_group: the metrics that an unknown value of the field blocks;
//   when      relevance: when the simulator reads the field (an input it never reads can
//             neither be drawn nor block a metric);
//   count     counting: for a quantity that counts (steps, changes), how a drawn value becomes
//             a whole number; a fixed value must already be one (none: not a count);
//   slot      the lifecycle_inputs member a quantity is drawn into (`&in::save_s`), or nullptr;
//   choices   for choice fields, the enum of choices.hpp whose spellings it allows (no_choice
//             for the others);
//   doc       one line, units included.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/scenario/inputs.hpp"

namespace trnmodel {

/// What a field holds: its JSON form and how the loader reads it.
enum class field_kind {
  quantity,  ///< an uncertain quantity (docs/distributions.md)
  boolean,  ///< true or false
  integer,  ///< a plain whole number
  number,  ///< a plain real number (a threshold the job card states, never drawn)
  text,  ///< free text
  choice,  ///< one of `choices`
};

/// The range every value of a field must lie in. For quantities, the whole support of the
/// distribution must lie in it: a normal step time that can go negative is refused (truncate
/// it with "lo"), never silently clipped.
enum class field_rule {
  any,  ///< no range beyond what its kind allows
  nonnegative,  ///< [0, inf)
  positive,  ///< (0, inf): a fixed value or an atom at 0 is refused
  weibull_shape,  ///< [0.1, inf): below 0.1 almost every time between failures is ~0
  probability,  ///< [0, 1]
  fraction_below_one,  ///< [0, 1)
  unit_interval,  ///< (0, 1]: efficiencies and utilisations
  at_least_one,  ///< integers >= 1
  zero_to_three,  ///< integers 0..3 (ZeRO stage)
};

/// Names of the kinds and rules, as the bindings and the JSON Schema spell them.
inline const char* name_of(field_kind kind) {
  switch (kind) {
    case field_kind::quantity: return "quantity";
    case field_kind::boolean: return "boolean";
    case field_kind::integer: return "integer";
    case field_kind::number: return "number";
    case field_kind::text: return "text";
    case field_kind::choice: return "choice";
  }
  return "";
}
/// The rule's name, as the bindings and the JSON Schema spell it.
inline const char* name_of(field_rule rule) {
  switch (rule) {
    case field_rule::any: return "any";
    case field_rule::nonnegative: return "nonnegative";
    case field_rule::positive: return "positive";
    case field_rule::weibull_shape: return "weibull_shape";
    case field_rule::probability: return "probability";
    case field_rule::fraction_below_one: return "fraction_below_one";
    case field_rule::unit_interval: return "unit_interval";
    case field_rule::at_least_one: return "at_least_one";
    case field_rule::zero_to_three: return "zero_to_three";
  }
  return "";
}

/// Which metrics an unknown value blocks (docs/metrics.md): `time` inputs feed every time
/// metric, and through them every cost; the others feed only their own cost lines.
/// `schedule` inputs block no metric: they move dates (the port's calendar time), not hours or costs.
enum class input_group { setting, time, compute_price, storage, transfer, logs, engineering, schedule };

/// When the simulator reads a field, given the scenario's throughput mode and failure model.
enum class relevance {
  always,  ///< whatever the mode and failure model
  measured,  ///< throughput.mode measured
  derived,  ///< any mode but measured
  modelled,  ///< analytic or extrapolated
  flops,  ///< flops mode
  extrapolated,  ///< extrapolated mode
  weibull,  ///< Weibull failures (a node MTBF given, failures.distribution weibull)
  tokens_given,  ///< the scenario gives job.tokens
  steps_given,  ///< the scenario does not give job.tokens
  capacity_block,  ///< prices.purchase capacity_block
  spot,  ///< prices.purchase spot
  not_spot,  ///< prices.purchase on_demand or capacity_block
};

/// How a quantity that counts turns a drawn value into a whole number: `up` rounds up to at
/// least 1 (effective steps), `nearest` rounds half away from zero (std::round; segments,
/// graph changes). A fixed value of such a field must already be a whole
/// number in range: 0.3 checkpoint steps is an error, not "never".
enum class counting { none, up, nearest };

// clang-format off
#define TRNMODEL_SCENARIO_FIELDS(X)                                                                                   \
  X(name, "name", text, any, "", false, setting, always, none, nullptr, no_choice, "short name of the scenario")      \
  X(description, "description", text, any, "", false, setting, always, none, nullptr, no_choice,                      \
    "what the scenario describes")                                                                                    \
  X(job_kind, "job.kind", choice, any, "\"full\"", false, setting, always, none, nullptr, job_kind,                   \
    "lora, full or continued training")                                                                               \
  X(job_effective_steps, "job.effective_steps", quantity, nonnegative, "", false, time, steps_given, up,              \
    &in::effective_steps, no_choice,                                                                                  \
    "optimizer steps to the quality bar; drawn values round up, at least 1 (required unless job.tokens)")             \
  X(job_tokens, "job.tokens", quantity, nonnegative, "", false, time, tokens_given, none, &in::tokens, no_choice,     \
    "training tokens to the quality bar: steps = tokens / (global batch x sequence length)")                          \
  X(job_lora_rank, "job.lora_rank", integer, at_least_one, "16", false, setting, always, none, nullptr, no_choice,    \
    "LoRA adapter rank (job.kind lora)")                                                                              \
  X(job_recompute, "job.recompute", choice, any, "\"none\"", false, setting, always, none, nullptr,                   \
    recompute_kind, "activation recomputation: none, selective or full")                                              \
  X(cluster_nodes, "cluster.nodes", integer, at_least_one, "", true, setting, always, none, nullptr, no_choice,       \
    "number of nodes (instances)")                                                                                    \
  X(cluster_platform, "cluster.platform", text, any, "", false, setting, always, none, nullptr, no_choice,            \
    "hardware profile name, e.g. trn2.48xlarge")                                                                      \
  X(throughput_mode, "throughput.mode", choice, any, "\"measured\"", false, setting, always, none, nullptr,           \
    throughput_mode,                                                                                                  \
    "where the step time comes from: measured, extrapolated, flops or analytic")                                      \
  X(throughput_step_time_s, "throughput.step_time_s", quantity, positive, "", false, time, measured, none,            \
    &in::step_time_s, no_choice, "steady-state seconds per effective step (required in measured mode)")               \
  X(throughput_precision, "throughput.precision", choice, any, "\"bf16\"", false, setting, always, none, nullptr,     \
    compute_precision, "compute precision whose peak the model uses")                                                 \
  X(throughput_achieved_tflops_per_chip, "throughput.achieved_tflops_per_chip", quantity, positive, "", false, time,  \
    flops, none, &in::achieved_tflops, no_choice, "flops mode: executed TFLOPS per chip, recomputation included")     \
  X(throughput_model_flops_utilization, "throughput.model_flops_utilization", quantity, unit_interval, "", false,     \
    time, flops, none, &in::mfu, no_choice, "flops mode: model FLOPs / (chips x peak)")                               \
  X(throughput_compute_efficiency, "throughput.compute_efficiency", quantity, unit_interval, "", false, time,         \
    modelled, none, &in::compute_efficiency, no_choice,                                                               \
    "analytic and extrapolated modes: achieved / peak FLOPS of the compute alone")                                    \
  X(throughput_elementwise_traffic, "throughput.elementwise_traffic", quantity, nonnegative, "0", false, time,        \
    modelled, none, &in::elementwise_traffic, no_choice,                                                              \
    "analytic and extrapolated modes: multiple of the activations moved through HBM per pass by memory-bound work "   \
    "(0: folded into compute_efficiency)")                                                                            \
  X(throughput_data_stall_fraction, "throughput.data_stall_fraction", quantity, fraction_below_one, "0", false, time, \
    always, none, &in::data_stall_fraction, no_choice, "fraction of step time spent waiting for data")                \
  X(model_parameters, "model.parameters", quantity, nonnegative, "", false, time, derived, none, &in::parameters,     \
    no_choice,                                                                                                        \
    "parameter count N (default: from the architecture)")                                                             \
  X(model_layers, "model.layers", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,        \
    "transformer layers L")                                                                                           \
  X(model_hidden_size, "model.hidden_size", integer, at_least_one, "", false, setting, always, none, nullptr,         \
    no_choice,                                                                                                        \
    "hidden size h")                                                                                                  \
  X(model_heads, "model.heads", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,          \
    "attention heads a")                                                                                              \
  X(model_ffn_size, "model.ffn_size", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,    \
    "MLP inner size (default 4h)")                                                                                    \
  X(model_kv_heads, "model.kv_heads", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,    \
    "key/value heads (grouped-query attention; default: model.heads)")                                                \
  X(model_vocab_size, "model.vocab_size", integer, at_least_one, "", false, setting, always, none, nullptr,           \
    no_choice,                                                                                                        \
    "vocabulary size")                                                                                                \
  X(model_sequence_length, "model.sequence_length", integer, at_least_one, "", false, setting, always, none, nullptr, \
    no_choice, "tokens per sequence T")                                                                               \
  X(parallelism_tp, "parallelism.tp", integer, at_least_one, "1", false, setting, always, none, nullptr, no_choice,   \
    "tensor-parallel degree")                                                                                         \
  X(parallelism_pp, "parallelism.pp", integer, at_least_one, "1", false, setting, always, none, nullptr, no_choice,   \
    "pipeline-parallel degree")                                                                                       \
  X(parallelism_dp, "parallelism.dp", integer, at_least_one, "1", false, setting, always, none, nullptr, no_choice,   \
    "data-parallel degree")                                                                                           \
  X(parallelism_cp, "parallelism.cp", integer, at_least_one, "1", false, setting, always, none, nullptr, no_choice,   \
    "context-parallel degree: each sequence split across cp chips")                                                   \
  X(parallelism_micro_batch, "parallelism.micro_batch", integer, at_least_one, "1", false, setting, always, none,     \
    nullptr, no_choice, "sequences per micro-batch")                                                                  \
  X(parallelism_global_batch, "parallelism.global_batch", integer, at_least_one, "", false, setting, always, none,    \
    nullptr, no_choice, "sequences per optimizer step")                                                               \
  X(parallelism_virtual_stages, "parallelism.virtual_stages", integer, at_least_one, "1", false, setting, always,     \
    none, nullptr, no_choice, "model chunks per pipeline rank (interleaved schedule)")                                \
  X(parallelism_zero_stage, "parallelism.zero_stage", integer, zero_to_three, "0", false, setting, always, none,      \
    nullptr, no_choice, "ZeRO/FSDP stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights")                           \
  X(parallelism_dp_overlap, "parallelism.dp_overlap", quantity, probability, "0", false, time, modelled, none,        \
    &in::dp_overlap, no_choice, "fraction of data-parallel communication hidden behind compute")                      \
  X(reference_step_time_s, "reference.step_time_s", quantity, positive, "", false, time, extrapolated, none,          \
    &in::reference_step_time_s, no_choice, "extrapolated mode: step time measured at the reference configuration")    \
  X(reference_nodes, "reference.nodes", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,  \
    "reference configuration: nodes")                                                                                 \
  X(reference_tp, "reference.tp", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,        \
    "reference configuration: tensor-parallel degree")                                                                \
  X(reference_pp, "reference.pp", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,        \
    "reference configuration: pipeline-parallel degree")                                                              \
  X(reference_dp, "reference.dp", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,        \
    "reference configuration: data-parallel degree")                                                                  \
  X(reference_cp, "reference.cp", integer, at_least_one, "", false, setting, always, none, nullptr, no_choice,        \
    "reference configuration: context-parallel degree (absent: 1)")                                                   \
  X(reference_micro_batch, "reference.micro_batch", integer, at_least_one, "", false, setting, always, none, nullptr, \
    no_choice, "reference configuration: micro-batch")                                                                \
  X(reference_global_batch, "reference.global_batch", integer, at_least_one, "", false, setting, always, none,        \
    nullptr, no_choice, "reference configuration: global batch")                                                      \
  X(reference_sequence_length, "reference.sequence_length", integer, at_least_one, "", false, setting, always, none,  \
    nullptr, no_choice, "reference configuration: sequence length")                                                   \
  X(reference_parameters, "reference.parameters", integer, at_least_one, "", false, setting, always, none,            \
    nullptr, no_choice, "reference model, when another size: parameter count N")                                      \
  X(reference_layers, "reference.layers", integer, at_least_one, "", false, setting, always, none,                    \
    nullptr, no_choice, "reference model, when another size: transformer layers L")                                   \
  X(reference_hidden_size, "reference.hidden_size", integer, at_least_one, "", false, setting, always, none,          \
    nullptr, no_choice, "reference model, when another size: hidden size h")                                          \
  X(reference_heads, "reference.heads", integer, at_least_one, "", false, setting, always, none,                      \
    nullptr, no_choice, "reference model, when another size: attention heads a")                                      \
  X(startup_queue_wait_s, "startup.queue_wait_s", quantity, nonnegative, "0", false, time, always, none,              \
    &in::queue_wait_s, no_choice, "seconds waiting in a queue or for quota")                                          \
  X(startup_queue_billed, "startup.queue_billed", boolean, any, "false", false, setting, always, none, nullptr,       \
    no_choice,                                                                                                        \
    "whether the queue wait is billed")                                                                               \
  X(startup_env_prep_s, "startup.env_prep_s", quantity, nonnegative, "0", false, time, always, none, &in::env_prep_s, \
    no_choice, "seconds of environment preparation")                                                                  \
  X(startup_data_load_s, "startup.data_load_s", quantity, nonnegative, "0", false, time, always, none,                \
    &in::data_load_s, no_choice, "seconds of data loading and warm-up before the first step")                         \
  X(compile_initial_s, "compile.initial_s", quantity, nonnegative, "0", false, time, always, none, &in::initial_s,    \
    no_choice, "seconds of compilation before the first step")                                                        \
  X(compile_recompile_s, "compile.recompile_s", quantity, nonnegative, "0", false, time, always, none,                \
    &in::recompile_s, no_choice, "seconds of a full compile after a cache miss")                                      \
  X(compile_cache_load_s, "compile.cache_load_s", quantity, nonnegative, "0", false, time, always, none,              \
    &in::cache_load_s, no_choice, "seconds to load cached graphs on a cache hit")                                     \
  X(compile_cache_hit_prob, "compile.cache_hit_prob", quantity, probability, "1", false, time, always, none,          \
    &in::cache_hit_prob, no_choice, "probability that a recovery finds its graphs cached")                            \
  X(compile_planned_changes, "compile.planned_changes", quantity, nonnegative, "0", false, time, always, nearest,     \
    &in::planned_changes, no_choice, "graph changes during the job, each a full recompile (rounded)")                 \
  X(compile_precompiled, "compile.precompiled", boolean, any, "false", false, setting, always, none, nullptr,         \
    no_choice,                                                                                                        \
    "stages: the stage's graphs were compiled ahead, so its transition loads them (compile.cache_load_s)")            \
  X(checkpoint_every_steps, "checkpoint.every_steps", quantity, nonnegative, "0", false, time, always, nearest,       \
    &in::every_steps, no_choice, "steps per checkpoint segment (rounded); 0: one segment")                            \
  X(checkpoint_save_s, "checkpoint.save_s", quantity, nonnegative, "0", false, time, always, none, &in::save_s,       \
    no_choice,                                                                                                        \
    "blocking seconds per checkpoint save")                                                                           \
  X(checkpoint_verify_s, "checkpoint.verify_s", quantity, nonnegative, "0", false, time, always, none, &in::verify_s, \
    no_choice, "blocking seconds per checkpoint verification")                                                        \
  X(checkpoint_load_s, "checkpoint.load_s", quantity, nonnegative, "0", false, time, always, none, &in::load_s,       \
    no_choice,                                                                                                        \
    "seconds to restore a checkpoint in a recovery")                                                                  \
  X(checkpoint_final, "checkpoint.final", boolean, any, "true", false, setting, always, none, nullptr, no_choice,     \
    "whether the last segment ends with a save")                                                                      \
  X(checkpoint_size_gb, "checkpoint.size_gb", quantity, nonnegative, "0", false, storage, always, none, &in::size_gb, \
    no_choice, "gigabytes per checkpoint")                                                                            \
  X(checkpoint_keep_last, "checkpoint.keep_last", integer, at_least_one, "1", false, setting, always, none, nullptr,  \
    no_choice, "checkpoints kept in storage")                                                                         \
  X(checkpoint_restore_fail_prob, "checkpoint.restore_fail_prob", quantity, probability, "0", false, time, always,    \
    none, &in::restore_fail_prob, no_choice,                                                                          \
    "probability that a restored checkpoint fails its check (the job falls back to an older one)")                    \
  X(eval_every_steps, "eval.every_steps", quantity, nonnegative, "0", false, time, always, none,                      \
    &in::eval_every_steps, no_choice, "steps between periodic evaluations; 0: none")                                  \
  X(eval_time_s, "eval.time_s", quantity, nonnegative, "0", false, time, always, none, &in::eval_time_s, no_choice,   \
    "seconds per periodic evaluation")                                                                                \
  X(eval_final_s, "eval.final_s", quantity, nonnegative, "0", false, time, always, none, &in::eval_final_s,           \
    no_choice,                                                                                                        \
    "seconds of the final evaluation")                                                                                \
  X(failures_node_mtbf_h, "failures.node_mtbf_h", quantity, positive, "", false, time, always, none,                  \
    &in::node_mtbf_h, no_choice, "per-node mean time between failures, hours; absent: no failures")                   \
  X(failures_distribution, "failures.distribution", choice, any, "\"exponential\"", false, setting, always, none,     \
    nullptr, failure_distribution, "times between failures")                                                          \
  X(failures_weibull_shape, "failures.weibull_shape", quantity, weibull_shape, "1", false, time, weibull, none,       \
    &in::weibull_shape, no_choice, "Weibull shape of the times between failures")                                     \
  X(failures_restart_s, "failures.restart_s", quantity, nonnegative, "0", false, time, always, none, &in::restart_s,  \
    no_choice, "seconds of detection, re-provisioning and restart")                                                   \
  X(failures_warmup_s, "failures.warmup_s", quantity, nonnegative, "0", false, time, always, none, &in::warmup_s,     \
    no_choice,                                                                                                        \
    "seconds of re-warm-up after a restart")                                                                          \
  X(failures_during_recovery, "failures.during_recovery", boolean, any, "true", false, setting, always, none,         \
    nullptr, no_choice, "whether failures can interrupt a recovery")                                                  \
  X(quality_rerun_prob, "quality.rerun_prob", quantity, probability, "0", false, time, always, none, &in::rerun_prob, \
    no_choice, "probability that the final quality check fails")                                                      \
  X(quality_rerun_fraction, "quality.rerun_fraction", quantity, nonnegative, "0", false, time, always, none,          \
    &in::rerun_fraction, no_choice, "fraction of the steps redone when it fails")                                     \
  X(prices_node_hour_usd, "prices.node_hour_usd", quantity, nonnegative, "", false, compute_price, not_spot, none,    \
    &in::node_hour_usd, no_choice, "USD per node-hour; absent: costs are unknown")                                    \
  X(prices_storage_gb_month_usd, "prices.storage_gb_month_usd", quantity, nonnegative, "0", false, storage, always,   \
    none, &in::storage_gb_month_usd, no_choice, "USD per GB-month of storage")                                        \
  X(prices_transfer_gb_usd, "prices.transfer_gb_usd", quantity, nonnegative, "0", false, transfer, always, none,      \
    &in::transfer_gb_usd, no_choice, "USD per GB transferred")                                                        \
  X(prices_logs_gb_usd, "prices.logs_gb_usd", quantity, nonnegative, "0", false, logs, always, none,                  \
    &in::logs_gb_usd, no_choice, "USD per GB of logs")                                                                \
  X(prices_purchase, "prices.purchase", choice, any, "\"on_demand\"", false, setting, always, none, nullptr,          \
    purchase_mode, "how the nodes are bought: on_demand, capacity_block or spot")                                     \
  X(prices_block_hours, "prices.block_hours", integer, at_least_one, "", false, setting, always, none, nullptr,       \
    no_choice,                                                                                                        \
    "capacity_block: the block's length in whole hours (1 to 14 days, then 7-day steps up to 182 days)")              \
  X(prices_block_usd, "prices.block_usd", quantity, nonnegative, "", false, compute_price, capacity_block, none,      \
    &in::block_usd, no_choice, "capacity_block: the upfront fee for the whole block, all nodes, USD")                 \
  X(prices_block_lead_s, "prices.block_lead_s", quantity, nonnegative, "0", false, time, capacity_block, none,        \
    &in::block_lead_s,                                                                                                \
    no_choice, "capacity_block: seconds from booking to the block's start (the job's queue, not billed)")             \
  X(prices_block_end_margin_h, "prices.block_end_margin_h", quantity, nonnegative, "0.5", false, time,                \
    capacity_block, none, &in::block_end_margin_h, no_choice,                                                         \
    "capacity_block: hours before the block's end at which the instances stop")                                       \
  X(prices_spot_node_hour_usd, "prices.spot_node_hour_usd", quantity, nonnegative, "", false, compute_price, spot,    \
    none, &in::spot_node_hour_usd, no_choice, "spot: USD per node-hour; absent: costs are unknown")                   \
  X(data_dataset_gb, "data.dataset_gb", quantity, nonnegative, "0", false, storage, always, none, &in::dataset_gb,    \
    no_choice, "gigabytes of training data stored")                                                                   \
  X(data_transfer_gb, "data.transfer_gb", quantity, nonnegative, "0", false, transfer, always, none,                  \
    &in::transfer_gb, no_choice, "gigabytes transferred")                                                             \
  X(data_logs_gb_per_hour, "data.logs_gb_per_hour", quantity, nonnegative, "0", false, logs, always, none,            \
    &in::logs_gb_per_hour, no_choice, "gigabytes of logs per wall-clock hour")                                        \
  X(engineering_adaptation_h, "engineering.adaptation_h", quantity, nonnegative, "0", false, engineering, always,     \
    none, &in::adaptation_h, no_choice, "engineering hours to port the job (a separate risk line)")                   \
  X(engineering_rate_usd_per_h, "engineering.rate_usd_per_h", quantity, nonnegative, "0", false, engineering, always, \
    none, &in::rate_usd_per_h, no_choice, "USD per engineering hour")                                                 \
  X(engineering_port_days, "engineering.port_days", quantity, nonnegative, "", false, schedule, always, none,          \
    &in::port_days, no_choice, "calendar days from the start of the port until the job can run on this platform")     \
  X(spot_interruptions_per_node_h, "spot.interruptions_per_node_h", quantity, nonnegative, "", false, time, spot,     \
    none, &in::interruptions_per_node_h,                                                                              \
    no_choice, "spot: interruptions per node-hour of exposed time (required for spot)")                               \
  X(spot_notice_s, "spot.notice_s", quantity, nonnegative, "120", false, time, spot, none, &in::notice_s, no_choice,  \
    "spot: seconds of warning before an interruption")                                                                \
  X(spot_reacquire_s, "spot.reacquire_s", quantity, nonnegative, "0", false, time, spot, none, &in::reacquire_s,      \
    no_choice,                                                                                                        \
    "spot: seconds waiting for capacity after an interruption (not billed)")                                          \
  X(transition_s, "transition_s", quantity, nonnegative, "", false, time, always, none, &in::transition_s, no_choice, \
    "stages: seconds to relaunch with a stage's configuration (default: its failures.restart_s)")                     \
  X(card_code_version, "card.code_version", text, any, "", false, setting, always, none, nullptr, no_choice,          \
    "the code version the job runs (a commit, a tag or a container image)")                                           \
  X(card_dataset, "card.dataset", text, any, "", false, setting, always, none, nullptr, no_choice,                    \
    "the data set and its version")                                                                                   \
  X(card_sequence_lengths, "card.sequence_lengths", text, any, "", false, setting, always, none, nullptr, no_choice,  \
    "the sequence lengths, per stage if they change")                                                                 \
  X(card_micro_batch_and_accumulation, "card.micro_batch_and_accumulation", text, any, "", false,                     \
    setting, always, none, nullptr, no_choice, "micro-batch size and gradient-accumulation steps")                    \
  X(card_restore_conditions, "card.restore_conditions", text, any, "", false, setting, always, none, nullptr,         \
    no_choice,                                                                                                        \
    "when a run is restored from a checkpoint, and from which one")                                                   \
  X(card_max_error_to_restart_h, "card.max_error_to_restart_h", number, positive, "", false,                          \
    setting, always, none, nullptr,                                                                                   \
    no_choice, "the longest acceptable time, in hours, from a failure to resumed training")                           \
  X(card_baseline_match_criteria, "card.baseline_match_criteria", text, any, "", false,                               \
    setting, always, none, nullptr, no_choice, "what counts as matching the baseline (metrics and tolerances)")       \
  X(card_expected_loss_range, "card.expected_loss_range", text, any, "", false, setting, always, none, nullptr,       \
    no_choice,                                                                                                        \
    "the loss range expected at the end (and at milestones)")                                                         \
  X(card_control_answers, "card.control_answers", text, any, "", false, setting, always, none, nullptr, no_choice,    \
    "the control questions and the answers the result must give")                                                     \
  X(card_checkpoint_format, "card.checkpoint_format", text, any, "", false, setting, always, none, nullptr,           \
    no_choice,                                                                                                        \
    "the checkpoint format (sharded or not, framework, optimizer state included)")                                    \
  X(card_owners_quality, "card.owners.quality", text, any, "", false, setting, always, none, nullptr, no_choice,      \
    "who accepts the result's quality")                                                                               \
  X(card_owners_trajectory, "card.owners.trajectory", text, any, "", false, setting, always, none, nullptr,           \
    no_choice,                                                                                                        \
    "who accepts the loss trajectory")                                                                                \
  X(card_owners_operations, "card.owners.operations", text, any, "", false, setting, always, none, nullptr,           \
    no_choice,                                                                                                        \
    "who runs and restores the job")                                                                                  \
  X(project_architecture_changes, "project.architecture_changes", choice, any, "", false, setting, always, none,      \
    nullptr, change_rate,                                                                                             \
    "advisor: how often the model architecture changes (rare or frequent)")                                           \
  X(project_experimental_ops, "project.experimental_ops", boolean, any, "", false, setting, always, none, nullptr,    \
    no_choice,                                                                                                        \
    "advisor: the job uses experimental operators")                                                                   \
  X(project_custom_cuda_extensions, "project.custom_cuda_extensions", boolean, any, "", false, setting, always, none, \
    nullptr, no_choice,                                                                                               \
    "advisor: the job relies on custom CUDA extensions or kernels")                                                   \
  X(project_fast_debug_loop, "project.fast_debug_loop", boolean, any, "", false, setting, always, none, nullptr,      \
    no_choice,                                                                                                        \
    "advisor: the team needs a fast edit-run-debug loop")                                                             \
  X(project_mixed_nonstandard_models, "project.mixed_nonstandard_models", boolean, any, "", false, setting, always,   \
    none, nullptr, no_choice,                                                                                         \
    "advisor: the job mixes non-standard model parts")                                                                \
  X(project_manual_compiler_tuning, "project.manual_compiler_tuning", boolean, any, "", false, setting, always, none, \
    nullptr, no_choice,                                                                                               \
    "advisor: the job would need manual compiler tuning")                                                             \
  X(project_team_neuron_experience, "project.team_neuron_experience", choice, any, "", false, setting, always, none,  \
    nullptr, neuron_experience,                                                                                       \
    "advisor: the team's Neuron experience (none, some, experienced)")                                                \
  X(project_error_cost, "project.error_cost", choice, any, "", false, setting, always, none, nullptr, error_cost,     \
    "advisor: the cost of an error in the job's output (low or high)")                                                \
  X(project_agreed_metrics, "project.agreed_metrics", boolean, any, "", false, setting, always, none, nullptr,        \
    no_choice,                                                                                                        \
    "advisor: acceptance metrics are agreed against a baseline")                                                      \
  X(project_training_cycle, "project.training_cycle", choice, any, "", false, setting, always, none, nullptr,         \
    cycle_length,                                                                                                     \
    "advisor: the training cycle (short or long)")
// clang-format on

/// Every field of the scenario format, by name: `field::checkpoint_save_s`.
enum class field : std::uint16_t {
#define TRNMODEL_FIELD_ID(id, ...) id,
  TRNMODEL_SCENARIO_FIELDS(TRNMODEL_FIELD_ID)
#undef TRNMODEL_FIELD_ID
};

/// The number of fields in the table.
inline constexpr std::size_t field_count = 0
#define TRNMODEL_FIELD_ONE(...) +1
    TRNMODEL_SCENARIO_FIELDS(TRNMODEL_FIELD_ONE)
#undef TRNMODEL_FIELD_ONE
    ;

/// One row of the field table: path, kind, rule, default, relevance and help. A plain value.
struct field_spec {
  field id;  ///< the field's name in C++
  std::string path;  ///< its dotted JSON path, e.g. "checkpoint.every_steps"
  field_kind kind;  ///< what it holds and how the loader reads it
  field_rule rule;  ///< the range every value (every draw of a quantity) must lie in
  std::string default_value;  ///< JSON text of the default; empty when required or absent
  bool required;  ///< a scenario without it is refused
  std::string doc;  ///< one line, units included
  std::vector<std::string> choices;  ///< for a choice field, the allowed values; else empty
  std::string choice_type;  ///< for a choice field, its enum's name in choices.hpp ("purchase_mode"); else empty
  input_group group;  ///< the metrics an unknown value of it blocks
  relevance when;  ///< when the simulator reads it
  counting count;  ///< for a quantity that counts, how a draw becomes a whole number
  double lifecycle_inputs::*slot;  ///< where a drawn value goes; nullptr for settings

  /// Its position in scenario_fields() (and in per-field arrays): the enumerator's value.
  std::size_t index() const { return static_cast<std::size_t>(id); }
};


/// The table, in the order of the rows above (which is the order of the JSON Schema, of the
/// docs and of the drawn inputs); `scenario_fields()[static_cast<size_t>(id)]` is field `id`.
inline const std::vector<field_spec>& scenario_fields() {
  using in = lifecycle_inputs;
  static const std::vector<field_spec> fields{
#define TRNMODEL_FIELD_ROW(id, path, kind, rule, default_value, required, group, when, count, slot, choices, doc) \
  field_spec{field::id,                                                                                           \
             path,                                                                                                \
             field_kind::kind,                                                                                    \
             field_rule::rule,                                                                                    \
             default_value,                                                                                       \
             required,                                                                                            \
             doc,                                                                                                 \
             choice_names<choices>(),                                                                             \
             field_kind::kind == field_kind::choice ? #choices : "",                                              \
             input_group::group,                                                                                  \
             relevance::when,                                                                                     \
             counting::count,                                                                                     \
             slot},
      TRNMODEL_SCENARIO_FIELDS(TRNMODEL_FIELD_ROW)
#undef TRNMODEL_FIELD_ROW
  };
  return fields;
}

/// Row `id` of the table, and its dotted path.
inline const field_spec& spec(field id) { return scenario_fields()[static_cast<std::size_t>(id)]; }
/// The dotted path of field `id` ("checkpoint.every_steps").
inline const std::string& path_of(field id) { return spec(id).path; }

/// The row of a dotted path, or null; field_at() throws input_error instead.
inline const field_spec* find_field(const std::string& path) {
  for (const auto& f : scenario_fields())
    if (f.path == path) return &f;
  return nullptr;
}

/// The field at `path`, or an input_error naming it (a path is user input, from updated() or
/// a binding: an unknown one is a clear error, never std::out_of_range).
inline field field_at(const std::string& path) {
  const field_spec* f = find_field(path);
  if (f == nullptr) detail::fail(path.empty() ? "(empty path)" : path, "no such scenario field");
  return f->id;
}

/// The smallest and largest value an integer field with this rule accepts.
inline std::pair<double, double> integer_bounds(field_rule rule) {
  switch (rule) {
    case field_rule::at_least_one: return {1, max_whole_number};
    case field_rule::zero_to_three: return {0, 3};
    default: return {-max_whole_number, max_whole_number};
  }
}

}  // namespace trnmodel
