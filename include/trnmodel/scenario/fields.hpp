#pragma once
// The fields of scenario format v1 (DESIGN §4), as one table. Loading, validation, defaults,
// saving, dotted-path updates, the JSON Schema and the "did you mean" suggestions all read
// this table, so a field is added in one place.
#include <string>
#include <vector>

namespace trnmodel {

enum class field_kind {
  quantity,  // an uncertain quantity (DESIGN §3)
  boolean,
  integer,   // a plain whole number
  text,      // free text
  choice,    // one of `choices`
};

// The range every value of a field must lie in. For quantities, the whole support of the
// distribution must lie in it: a normal step time that can go negative is refused (truncate
// it with "lo"), never silently clipped.
enum class field_rule {
  any,
  nonnegative,         // [0, inf)
  positive,            // (0, inf): a fixed value or an atom at 0 is refused
  weibull_shape,       // [0.1, inf): below 0.1 almost every time between failures is ~0
  probability,         // [0, 1]
  fraction_below_one,  // [0, 1)
  unit_interval,       // (0, 1]: efficiencies and utilisations
  at_least_one,        // integers >= 1
  zero_to_three,       // integers 0..3 (ZeRO stage)
};

struct field_spec {
  std::string path;           // "checkpoint.every_steps"
  field_kind kind;
  field_rule rule;
  std::string default_value;  // JSON text of the default; empty when required or absent
  bool required;
  std::string doc;            // one line, units included
  std::vector<std::string> choices = {};
};

inline const std::vector<field_spec>& scenario_fields() {
  using k = field_kind;
  using r = field_rule;
  static const std::vector<field_spec> fields{
      {"name", k::text, r::any, "", false, "short name of the scenario"},
      {"description", k::text, r::any, "", false, "what the scenario describes"},
      {"job.kind", k::choice, r::any, "\"full\"", false, "lora, full or continued training", {"lora", "full", "continued"}},
      {"job.effective_steps", k::quantity, r::nonnegative, "", false, "optimizer steps to the quality bar; drawn values round up, at least 1 (required unless job.tokens)"},
      {"job.tokens", k::quantity, r::nonnegative, "", false, "training tokens to the quality bar: steps = tokens / (global batch x sequence length)"},
      {"job.lora_rank", k::integer, r::at_least_one, "16", false, "LoRA adapter rank (job.kind lora)"},
      {"job.recompute", k::choice, r::any, "\"none\"", false, "activation recomputation: none, selective or full", {"none", "selective", "full"}},
      {"cluster.nodes", k::integer, r::at_least_one, "", true, "number of nodes (instances)"},
      {"cluster.platform", k::text, r::any, "", false, "hardware profile name, e.g. trn2.48xlarge"},
      {"throughput.mode", k::choice, r::any, "\"measured\"", false, "where the step time comes from: measured, extrapolated, flops or analytic", {"measured", "extrapolated", "flops", "analytic"}},
      {"throughput.step_time_s", k::quantity, r::positive, "", false, "steady-state seconds per effective step (required in measured mode)"},
      {"throughput.precision", k::choice, r::any, "\"bf16\"", false, "compute precision whose peak the model uses", {"bf16", "fp8", "fp32"}},
      {"throughput.achieved_tflops_per_chip", k::quantity, r::positive, "", false, "flops mode: executed TFLOPS per chip, recomputation included"},
      {"throughput.model_flops_utilization", k::quantity, r::unit_interval, "", false, "flops mode: model FLOPs / (chips x peak)"},
      {"throughput.compute_efficiency", k::quantity, r::unit_interval, "", false, "analytic and extrapolated modes: achieved / peak FLOPS of the compute alone"},
      {"throughput.elementwise_traffic", k::quantity, r::nonnegative, "0", false, "analytic and extrapolated modes: multiple of the activations moved through HBM per pass by memory-bound work (0: folded into compute_efficiency)"},
      {"throughput.data_stall_fraction", k::quantity, r::fraction_below_one, "0", false, "fraction of step time spent waiting for data"},
      {"model.parameters", k::quantity, r::nonnegative, "", false, "parameter count N (default: from the architecture)"},
      {"model.layers", k::integer, r::at_least_one, "", false, "transformer layers L"},
      {"model.hidden_size", k::integer, r::at_least_one, "", false, "hidden size h"},
      {"model.heads", k::integer, r::at_least_one, "", false, "attention heads a"},
      {"model.ffn_size", k::integer, r::at_least_one, "", false, "MLP inner size (default 4h)"},
      {"model.vocab_size", k::integer, r::at_least_one, "", false, "vocabulary size"},
      {"model.sequence_length", k::integer, r::at_least_one, "", false, "tokens per sequence T"},
      {"parallelism.tp", k::integer, r::at_least_one, "1", false, "tensor-parallel degree"},
      {"parallelism.pp", k::integer, r::at_least_one, "1", false, "pipeline-parallel degree"},
      {"parallelism.dp", k::integer, r::at_least_one, "1", false, "data-parallel degree"},
      {"parallelism.micro_batch", k::integer, r::at_least_one, "1", false, "sequences per micro-batch"},
      {"parallelism.global_batch", k::integer, r::at_least_one, "", false, "sequences per optimizer step"},
      {"parallelism.virtual_stages", k::integer, r::at_least_one, "1", false, "model chunks per pipeline rank (interleaved schedule)"},
      {"parallelism.zero_stage", k::integer, r::zero_to_three, "0", false, "ZeRO/FSDP stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights"},
      {"parallelism.dp_overlap", k::quantity, r::probability, "0", false, "fraction of data-parallel communication hidden behind compute"},
      {"reference.step_time_s", k::quantity, r::positive, "", false, "extrapolated mode: step time measured at the reference configuration"},
      {"reference.nodes", k::integer, r::at_least_one, "", false, "reference configuration: nodes"},
      {"reference.tp", k::integer, r::at_least_one, "", false, "reference configuration: tensor-parallel degree"},
      {"reference.pp", k::integer, r::at_least_one, "", false, "reference configuration: pipeline-parallel degree"},
      {"reference.dp", k::integer, r::at_least_one, "", false, "reference configuration: data-parallel degree"},
      {"reference.micro_batch", k::integer, r::at_least_one, "", false, "reference configuration: micro-batch"},
      {"reference.global_batch", k::integer, r::at_least_one, "", false, "reference configuration: global batch"},
      {"reference.sequence_length", k::integer, r::at_least_one, "", false, "reference configuration: sequence length"},
      {"startup.queue_wait_s", k::quantity, r::nonnegative, "0", false, "seconds waiting in a queue or for quota"},
      {"startup.queue_billed", k::boolean, r::any, "false", false, "whether the queue wait is billed"},
      {"startup.env_prep_s", k::quantity, r::nonnegative, "0", false, "seconds of environment preparation"},
      {"startup.data_load_s", k::quantity, r::nonnegative, "0", false, "seconds of data loading and warm-up before the first step"},
      {"compile.initial_s", k::quantity, r::nonnegative, "0", false, "seconds of compilation before the first step"},
      {"compile.recompile_s", k::quantity, r::nonnegative, "0", false, "seconds of a full compile after a cache miss"},
      {"compile.cache_load_s", k::quantity, r::nonnegative, "0", false, "seconds to load cached graphs on a cache hit"},
      {"compile.cache_hit_prob", k::quantity, r::probability, "1", false, "probability that a recovery finds its graphs cached"},
      {"compile.planned_changes", k::quantity, r::nonnegative, "0", false, "graph changes during the job, each a full recompile (rounded)"},
      {"checkpoint.every_steps", k::quantity, r::nonnegative, "0", false, "steps per checkpoint segment (rounded); 0: one segment"},
      {"checkpoint.save_s", k::quantity, r::nonnegative, "0", false, "blocking seconds per checkpoint save"},
      {"checkpoint.verify_s", k::quantity, r::nonnegative, "0", false, "blocking seconds per checkpoint verification"},
      {"checkpoint.load_s", k::quantity, r::nonnegative, "0", false, "seconds to restore a checkpoint in a recovery"},
      {"checkpoint.final", k::boolean, r::any, "true", false, "whether the last segment ends with a save"},
      {"checkpoint.size_gb", k::quantity, r::nonnegative, "0", false, "gigabytes per checkpoint"},
      {"checkpoint.keep_last", k::integer, r::at_least_one, "1", false, "checkpoints kept in storage"},
      {"eval.every_steps", k::quantity, r::nonnegative, "0", false, "steps between periodic evaluations; 0: none"},
      {"eval.time_s", k::quantity, r::nonnegative, "0", false, "seconds per periodic evaluation"},
      {"eval.final_s", k::quantity, r::nonnegative, "0", false, "seconds of the final evaluation"},
      {"failures.node_mtbf_h", k::quantity, r::positive, "", false, "per-node mean time between failures, hours; absent: no failures"},
      {"failures.distribution", k::choice, r::any, "\"exponential\"", false, "times between failures", {"exponential", "weibull"}},
      {"failures.weibull_shape", k::quantity, r::weibull_shape, "1", false, "Weibull shape of the times between failures"},
      {"failures.restart_s", k::quantity, r::nonnegative, "0", false, "seconds of detection, re-provisioning and restart"},
      {"failures.warmup_s", k::quantity, r::nonnegative, "0", false, "seconds of re-warm-up after a restart"},
      {"failures.during_recovery", k::boolean, r::any, "true", false, "whether failures can interrupt a recovery"},
      {"quality.rerun_prob", k::quantity, r::probability, "0", false, "probability that the final quality check fails"},
      {"quality.rerun_fraction", k::quantity, r::nonnegative, "0", false, "fraction of the steps redone when it fails"},
      {"prices.node_hour_usd", k::quantity, r::nonnegative, "", false, "USD per node-hour; absent: costs are unknown"},
      {"prices.storage_gb_month_usd", k::quantity, r::nonnegative, "0", false, "USD per GB-month of storage"},
      {"prices.transfer_gb_usd", k::quantity, r::nonnegative, "0", false, "USD per GB transferred"},
      {"prices.logs_gb_usd", k::quantity, r::nonnegative, "0", false, "USD per GB of logs"},
      {"data.dataset_gb", k::quantity, r::nonnegative, "0", false, "gigabytes of training data stored"},
      {"data.transfer_gb", k::quantity, r::nonnegative, "0", false, "gigabytes transferred"},
      {"data.logs_gb_per_hour", k::quantity, r::nonnegative, "0", false, "gigabytes of logs per wall-clock hour"},
      {"engineering.adaptation_h", k::quantity, r::nonnegative, "0", false, "engineering hours to port the job (a separate risk line)"},
      {"engineering.rate_usd_per_h", k::quantity, r::nonnegative, "0", false, "USD per engineering hour"},
  };
  return fields;
}

inline const field_spec* find_field(const std::string& path) {
  for (const auto& f : scenario_fields())
    if (f.path == path) return &f;
  return nullptr;
}

}  // namespace trnmodel
