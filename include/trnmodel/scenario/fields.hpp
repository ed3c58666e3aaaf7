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
  probability,         // [0, 1]
  fraction_below_one,  // [0, 1)
  at_least_one,        // integers >= 1
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
      {"job.effective_steps", k::quantity, r::nonnegative, "", true, "optimizer steps to the quality bar; drawn values round up, at least 1"},
      {"cluster.nodes", k::integer, r::at_least_one, "", true, "number of nodes (instances)"},
      {"cluster.platform", k::text, r::any, "", false, "hardware profile name, e.g. trn2.48xlarge"},
      {"throughput.step_time_s", k::quantity, r::nonnegative, "", true, "steady-state seconds per effective step"},
      {"throughput.data_stall_fraction", k::quantity, r::fraction_below_one, "0", false, "fraction of step time spent waiting for data"},
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
      {"failures.node_mtbf_h", k::quantity, r::nonnegative, "", false, "per-node mean time between failures, hours; absent: no failures"},
      {"failures.distribution", k::choice, r::any, "\"exponential\"", false, "times between failures", {"exponential", "weibull"}},
      {"failures.weibull_shape", k::quantity, r::nonnegative, "1", false, "Weibull shape of the times between failures"},
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
