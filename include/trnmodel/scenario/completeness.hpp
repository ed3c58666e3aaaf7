#pragma once
// Nothing silently left out (docs/scenario.md, "Completeness"): each lifecycle phase of a
// scenario is described (the scenario gives every input it needs: a value, a distribution, or
// an explicit 0), unknown (an input is {"unknown": ...}), or not described (an input is absent,
// so its default applies: counted as 0, or for the node price, every cost unknown). A sign-off
// that omits a phase understates the cost, so reports list the phases not described.
//
// Beside it, the platform expectations: combinations that are almost surely incomplete
// (a Neuron platform without a compile time, failures without checkpoints, ...), reported as
// warnings rather than errors.
#include <algorithm>
#include <string>
#include <vector>

#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

enum class phase_status { described, unknown, not_described };

inline const char* name_of(phase_status status) {
  switch (status) {
    case phase_status::described: return "described";
    case phase_status::unknown: return "unknown";
    case phase_status::not_described: return "not described";
  }
  return "";
}

// One phase's status: the inputs that describe it, those absent and those unknown.
struct phase_completeness {
  std::string phase;
  std::string metric;  // the metric the phase's time or cost lands in
  phase_status status;
  std::vector<std::string> inputs;  // every input the phase needs in this scenario
  std::vector<std::string> missing;  // absent: the default applies
  std::vector<std::string> unknown;  // given as unknown
  std::string absent_means;  // "counted as 0", or "costs unknown" for the node price
  std::string why;  // why the phase matters
};

namespace detail {

// When a phase needs an input beyond its own: only once failures are modelled (recovery
// compiles and warm-ups), or once evaluations are periodic.
enum class needed_when { always, failures_modelled, periodic_eval };

struct phase_rule {
  const char* phase;
  const char* metric;
  std::vector<std::pair<field, needed_when>> inputs;
  const char* absent_means;
  const char* why;
};

inline const std::vector<phase_rule>& phase_rules() {
  using w = needed_when;
  static const std::vector<phase_rule> rules{
      {"queue",
       "queue_h",
       {{field::startup_queue_wait_s, w::always}},
       "counted as 0",
       "capacity is seldom free the moment a job is ready: the wait adds to the wall time (and to the bill when it "
       "is billed)"},
      {"set-up",
       "setup_h",
       {{field::startup_env_prep_s, w::always}},
       "counted as 0",
       "node launch, image pull and environment checks come before any compile, at every start"},
      {"compile",
       "compile_h",
       {{field::compile_initial_s, w::always},
        {field::compile_recompile_s, w::failures_modelled},
        {field::compile_cache_load_s, w::failures_modelled},
        {field::compile_cache_hit_prob, w::failures_modelled}},
       "counted as 0",
       "graph compilers (Neuron, XLA) compile before the first step, tens of minutes on Neuron; a recovery whose "
       "graphs miss the cache compiles again"},
      {"data load and warm-up",
       "warmup_h",
       {{field::startup_data_load_s, w::always}, {field::failures_warmup_s, w::failures_modelled}},
       "counted as 0",
       "loading and sharding the data and the first slow steps, at the start and after every restart"},
      {"checkpoints",
       "checkpoint_h",
       {{field::checkpoint_every_steps, w::always}, {field::checkpoint_save_s, w::always}},
       "counted as 0",
       "saves block training, and their spacing sets how much work a failure loses"},
      {"failures",
       "lost_h",
       {{field::failures_node_mtbf_h, w::always}, {field::failures_restart_s, w::always}},
       "counted as 0",
       "multi-node jobs fail: each failure loses the work since the last checkpoint and costs a recovery"},
      {"evaluation",
       "eval_h",
       {{field::eval_every_steps, w::always}, {field::eval_time_s, w::periodic_eval}, {field::eval_final_s, w::always}},
       "counted as 0",
       "evaluations stop training while they run"},
      {"quality gate",
       "rerun_h",
       {{field::quality_rerun_prob, w::always}},
       "counted as 0",
       "a run that misses the quality bar redoes part of its steps"},
      {"storage",
       "cost_storage_usd",
       {{field::data_dataset_gb, w::always},
        {field::checkpoint_size_gb, w::always},
        {field::prices_storage_gb_month_usd, w::always}},
       "counted as 0",
       "the data set and the kept checkpoints are billed by the GB-month for the whole wall time"},
      {"transfer",
       "cost_transfer_usd",
       {{field::data_transfer_gb, w::always}, {field::prices_transfer_gb_usd, w::always}},
       "counted as 0",
       "moving data in and checkpoints out is billed per GB"},
      {"logs",
       "cost_logs_usd",
       {{field::data_logs_gb_per_hour, w::always}, {field::prices_logs_gb_usd, w::always}},
       "counted as 0",
       "logs and metrics are billed per GB for as long as the job runs"},
      {"porting",
       "adaptation_usd",
       {{field::engineering_adaptation_h, w::always}, {field::engineering_rate_usd_per_h, w::always}},
       "counted as 0",
       "moving a job to a new platform is paid once, in engineering hours (a separate risk line)"},
      {"compute price",
       "cost_compute_usd",
       {{field::prices_node_hour_usd, w::always}},
       "costs unknown",
       "without a node-hour price no cost can be computed"},
  };
  return rules;
}

}  // namespace detail

// The status of every lifecycle phase of `s`, in lifecycle order.
inline std::vector<phase_completeness> completeness(const scenario& s) {
  const bool failures = s.has(field::failures_node_mtbf_h);
  const quantity* every = s.find(field::eval_every_steps);
  const bool periodic_eval = every != nullptr && !(every->is_fixed() && every->ppf(0.5) == 0);
  std::vector<phase_completeness> out;
  for (const auto& rule : detail::phase_rules()) {
    phase_completeness p{rule.phase, rule.metric, phase_status::described, {}, {}, {}, rule.absent_means, rule.why};
    for (const auto& [f, when] : rule.inputs) {
      if (when == detail::needed_when::failures_modelled && !failures) continue;
      if (when == detail::needed_when::periodic_eval && !periodic_eval) continue;
      p.inputs.push_back(path_of(f));
      if (!s.has(f)) {
        p.missing.push_back(path_of(f));
      } else if (const quantity* q = s.find(f); q != nullptr && q->is_unknown()) {
        p.unknown.push_back(path_of(f));
      }
    }
    p.status = !p.missing.empty()   ? phase_status::not_described
               : !p.unknown.empty() ? phase_status::unknown
                                    : phase_status::described;
    out.push_back(std::move(p));
  }
  return out;
}

// The platform expectations that `s` does not meet, each a sentence naming the fields.
// (Those that need a simulation, such as a P50 wall time of a day or more without a failure
// model, are checked by the caller.)
inline std::vector<std::string> unmet_expectations(const scenario& s) {
  std::vector<std::string> out;
  const std::string platform = s.has_text(field::cluster_platform) ? s.text(field::cluster_platform) : "";
  if (platform.rfind("trn", 0) == 0 && !s.has(field::compile_initial_s))
    out.push_back("cluster.platform is " + platform +
                  " (Neuron) but compile.initial_s is not given: Neuron compiles every graph before the first step, "
                  "typically tens of minutes; give it, or 0 if the graphs are precompiled");
  // A mode that needs the profile refuses an unknown name; one that does not (a measured step
  // time) keeps it as a label, which may be a misspelt profile. (A prefix of a profile's name,
  // "trn2", is the plausibility check's.)
  const auto names = s.profile_names();
  const bool prefix = std::any_of(names.begin(), names.end(),
                                  [&](const std::string& n) { return !platform.empty() && n.rfind(platform, 0) == 0; });
  if (!platform.empty() && s.profile() == nullptr && !names.empty() && !prefix) {
    std::string known;
    for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
    out.push_back("cluster.platform \"" + platform + "\" is not a known hardware profile" +
                  detail::did_you_mean(platform, names) + " (known: " + known +
                  "): it is only a label here; name a profile to derive the step time or search layouts");
  }
  const bool failures = s.has(field::failures_node_mtbf_h);
  if (s.integer(field::cluster_nodes) >= 2 && !failures)
    out.push_back("the job runs on " + std::to_string(s.integer(field::cluster_nodes)) +
                  " nodes without a failure model (failures.node_mtbf_h): multi-node jobs fail, and each failure "
                  "costs lost work and a recovery");
  if (failures && !s.has(field::checkpoint_every_steps))
    out.push_back(
        "failures are modelled but checkpoint.every_steps is not given: without checkpoints a failure "
        "loses every step done so far");
  for (const auto& f : scenario_fields()) {
    if (f.kind != field_kind::quantity || !s.has(f.id)) continue;
    const quantity& q = s.q(f.id);
    if (q.prov().source == "quote" && q.prov().date.empty())
      out.push_back(f.path + " is a quote without a date: a price is only as good as its quote's date and region");
  }
  return out;
}

}  // namespace trnmodel
