#pragma once
// Nothing silently left out (docs/scenario.md, "Completeness"): each lifecycle phase of a
// scenario is described (the scenario gives every input it needs: a value, a distribution, or
// an explicit 0), unknown (an input is {"unknown": ...}), or not described (an input is absent,
// so its default applies: counted as 0, or for the node price, every cost unknown, or a default
// said in words: one checkpoint kept, restores that always succeed). A sign-off that omits a
// phase understates the cost, so reports list the phases not described.
//
// Beside it, the platform expectations: combinations that are almost surely incomplete
// (a Neuron platform without a compile time, failures without checkpoints, ...), reported as
// warnings rather than errors.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/relevance.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

/// Whether a phase's inputs are all given (described), some unknown, or some absent.
enum class phase_status { described, unknown, not_described };

/// The status as Python and the reports spell it.
inline const char* name_of(phase_status status) {
  switch (status) {
    case phase_status::described: return "described";
    case phase_status::unknown: return "unknown";
    case phase_status::not_described: return "not described";
  }
  return "";
}

/// What an absent input means: most phases are then counted as 0; without the node price every
/// cost is unknown; a default that is not a zero (one checkpoint kept, restores that always
/// succeed) is said in words of its own.
inline constexpr const char* counted_as_0 = "counted as 0";
inline constexpr const char* costs_unknown = "costs unknown";

/// One phase's status: the inputs that describe it, those absent and those unknown. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct phase_completeness {
  std::string phase;  ///< the lifecycle phase ("queue", "set-up", ...)
  std::string metric;  ///< the metric the phase's time or cost lands in
  phase_status status;  ///< not_described when an input is missing, else unknown when one is unknown, else described
  std::vector<std::string> inputs;  ///< every input the phase needs in this scenario
  std::vector<std::string> missing;  ///< absent: the default applies
  std::vector<std::string> unknown;  ///< given as unknown
  std::string absent_means;  ///< "counted as 0"; "costs unknown" for the node price; a stated default otherwise
  std::string why;  ///< why the phase matters

  /// Not described, so counted as 0: a phase the estimate leaves out.
  bool counted_as_zero() const { return status == phase_status::not_described && absent_means == counted_as_0; }
  /// Not described, and its default is not a zero but a stated assumption (one checkpoint kept).
  bool default_assumed() const {
    return status == phase_status::not_described && absent_means != counted_as_0 && absent_means != costs_unknown;
  }
};

namespace detail {

// When a phase needs an input beyond its own: only once failures are modelled (recovery
// compiles and warm-ups), once evaluations are periodic, once there are checkpoints (how many
// are kept), or once a checkpoint can be restored (a failure, a spot interruption or a block's
// end, with checkpoints to restore). An input that the scenario never reads (the field table's
// `when`: a spot price on demand, a block's lead time without a block; relevance.hpp) is
// needed by no phase.
enum class needed_when { always, failures_modelled, periodic_eval, checkpoints, restores };

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
       {{field::startup_queue_wait_s, w::always},
        {field::prices_block_lead_s, w::always},
        {field::spot_reacquire_s, w::always}},
       counted_as_0,
       "capacity is seldom free the moment a job is ready: the wait adds to the wall time (and to the bill when it "
       "is billed)"},
      {"set-up",
       "setup_h",
       {{field::startup_env_prep_s, w::always}},
       counted_as_0,
       "node launch, image pull and environment checks come before any compile, at every start"},
      {"compile",
       "compile_h",
       {{field::compile_initial_s, w::always},
        {field::compile_recompile_s, w::failures_modelled},
        {field::compile_cache_load_s, w::failures_modelled},
        {field::compile_cache_hit_prob, w::failures_modelled}},
       counted_as_0,
       "graph compilers (Neuron, XLA) compile before the first step, tens of minutes on Neuron; a recovery whose "
       "graphs miss the cache compiles again"},
      {"data load and warm-up",
       "warmup_h",
       {{field::startup_data_load_s, w::always}, {field::failures_warmup_s, w::failures_modelled}},
       counted_as_0,
       "loading and sharding the data and the first slow steps, at the start and after every restart"},
      {"checkpoints",
       "checkpoint_h",
       {{field::checkpoint_every_steps, w::always}, {field::checkpoint_save_s, w::always}},
       counted_as_0,
       "saves block training, and their spacing sets how much work a failure loses"},
      {"checkpoints kept",
       "cost_storage_usd",
       {{field::checkpoint_keep_last, w::checkpoints}},
       "1 (default)",
       "the checkpoints kept are billed as storage, and the older ones are what a failed restore falls back to"},
      {"failures",
       "lost_h",
       {{field::failures_node_mtbf_h, w::always}, {field::failures_restart_s, w::always}},
       counted_as_0,
       "multi-node jobs fail: each failure loses the work since the last checkpoint and costs a recovery"},
      {"restore checks",
       "lost_h",
       {{field::checkpoint_restore_fail_prob, w::restores}},
       "assumed to always succeed",
       "a checkpoint that fails to restore sends the job back to an older one (or to the start when no older one "
       "is kept): an untested restore is a risk, not a certainty"},
      {"evaluation",
       "eval_h",
       {{field::eval_every_steps, w::always}, {field::eval_time_s, w::periodic_eval}, {field::eval_final_s, w::always}},
       counted_as_0,
       "evaluations stop training while they run"},
      {"quality gate",
       "rerun_h",
       {{field::quality_rerun_prob, w::always}},
       counted_as_0,
       "a run that misses the quality bar redoes part of its steps"},
      {"storage",
       "cost_storage_usd",
       {{field::data_dataset_gb, w::always},
        {field::checkpoint_size_gb, w::always},
        {field::prices_storage_gb_month_usd, w::always}},
       counted_as_0,
       "the data set and the kept checkpoints are billed by the GB-month for the whole wall time"},
      {"transfer",
       "cost_transfer_usd",
       {{field::data_transfer_gb, w::always}, {field::prices_transfer_gb_usd, w::always}},
       counted_as_0,
       "moving data in and checkpoints out is billed per GB"},
      {"logs",
       "cost_logs_usd",
       {{field::data_logs_gb_per_hour, w::always}, {field::prices_logs_gb_usd, w::always}},
       counted_as_0,
       "logs and metrics are billed per GB for as long as the job runs"},
      {"porting",
       "adaptation_usd",
       {{field::engineering_adaptation_h, w::always}, {field::engineering_rate_usd_per_h, w::always}},
       counted_as_0,
       "moving a job to a new platform is paid once, in engineering hours (a separate risk line)"},
      {"compute price",
       "cost_compute_usd",
       {{field::prices_node_hour_usd, w::always},
        {field::prices_spot_node_hour_usd, w::always},
        {field::prices_block_usd, w::always}},
       costs_unknown,
       "without a node-hour price no cost can be computed"},
  };
  return rules;
}

}  // namespace detail

namespace detail {

// Whether a phase is about time (set per stage in a job in stages) rather than a cost line of
// the whole job (storage, transfer, logs, porting, the node price: the job's ledger).
inline bool phase_per_stage(const phase_rule& rule) {
  const std::string metric = rule.metric;
  return metric.size() > 2 && metric.compare(metric.size() - 2, 2, "_h") == 0;
}

// A rule's inputs in one scenario (the whole job, or one stage): each field the rule needs
// there, and whether it is absent or unknown.
struct rule_input {
  field f;
  bool missing, unknown;
};
// A later stage with compile.precompiled loads its graphs at its transition (cache_load_s)
// instead of compiling them (initial_s).
// `checkpointed`: whether the job saves checkpoints (for the whole job in stages: whether any
// stage does).
inline std::vector<rule_input> rule_inputs(const phase_rule& rule, const scenario& s, bool loads_graphs,
                                           bool checkpointed) {
  const bool failures = s.has(field::failures_node_mtbf_h);
  const quantity* every = s.find(field::eval_every_steps);
  const bool periodic_eval = every != nullptr && !(every->is_fixed() && every->ppf(0.5) == 0);
  const bool interrupted = failures || s.purchase() != purchase_mode::on_demand;
  std::vector<rule_input> out;
  const auto add = [&](field f) {
    for (const auto& in : out)
      if (in.f == f) return;
    const quantity* q = s.has(f) ? s.find(f) : nullptr;
    out.push_back({f, !s.has(f), q != nullptr && q->is_unknown()});
  };
  for (const auto& [f, when] : rule.inputs) {
    if (when == needed_when::failures_modelled && !failures) continue;
    if (when == needed_when::periodic_eval && !periodic_eval) continue;
    if (when == needed_when::checkpoints && !checkpointed) continue;
    if (when == needed_when::restores && !(checkpointed && interrupted)) continue;
    if (!reads_field(s, spec(f))) continue;
    add(loads_graphs && f == field::compile_initial_s ? field::compile_cache_load_s : f);
  }
  return out;
}

inline void add_once(std::vector<std::string>& list, const std::string& path) {
  if (std::find(list.begin(), list.end(), path) == list.end()) list.push_back(path);
}

}  // namespace detail

/// The status of every lifecycle phase of `s`, in lifecycle order. In a job in stages a time
/// phase looks at every stage's own inputs: a field a stage gives is named by its path in the
/// stage ("stages[1].compile.initial_s"), one it takes from the top level by the top-level path;
/// a field absent from a stage is missing under the stage's path, or under the top-level path
/// when no stage gives it and every stage lacks it.
inline std::vector<phase_completeness> completeness(const scenario& s) {
  std::vector<phase_completeness> out;
  bool checkpointed = s.has(field::checkpoint_every_steps);
  for (std::size_t k = 0; k < s.stage_count(); ++k) checkpointed = checkpointed || s.stage(k).has(field::checkpoint_every_steps);
  for (const auto& rule : detail::phase_rules()) {
    phase_completeness p{rule.phase, rule.metric, phase_status::described, {}, {}, {}, rule.absent_means, rule.why};
    if (s.stage_count() == 0 || !detail::phase_per_stage(rule)) {
      for (const auto& in : detail::rule_inputs(rule, s, false, checkpointed)) {
        p.inputs.push_back(path_of(in.f));
        if (in.missing) p.missing.push_back(path_of(in.f));
        if (in.unknown) p.unknown.push_back(path_of(in.f));
      }
    } else {
      // Per field: the stages that lack it, and whether any stage gives it itself.
      std::vector<std::pair<field, std::vector<std::string>>> lacking;
      std::vector<field> given_by_a_stage;
      for (std::size_t k = 0; k < s.stage_count(); ++k) {
        const bool loads_graphs = k > 0 && s.stage(k).flag(field::compile_precompiled);
        const bool stage_checkpointed = s.stage(k).has(field::checkpoint_every_steps);
        for (const auto& in : detail::rule_inputs(rule, s.stage(k), loads_graphs, stage_checkpointed)) {
          const bool own = s.stage_gives(k, in.f);
          const std::string path = own ? s.stage_path(k, path_of(in.f)) : path_of(in.f);
          detail::add_once(p.inputs, path);
          if (in.unknown) detail::add_once(p.unknown, path);
          if (own) given_by_a_stage.push_back(in.f);
          if (!in.missing) continue;
          auto it = std::find_if(lacking.begin(), lacking.end(), [&](const auto& e) { return e.first == in.f; });
          if (it == lacking.end()) it = lacking.insert(lacking.end(), {in.f, {}});
          it->second.push_back(s.stage_path(k, path_of(in.f)));
        }
      }
      for (const auto& [f, stages] : lacking) {
        // Every stage reads it and lacks it, and none removes it: the top level is where to give it.
        const bool everywhere =
            stages.size() == s.stage_count() &&
            std::find(given_by_a_stage.begin(), given_by_a_stage.end(), f) == given_by_a_stage.end();
        if (everywhere)
          detail::add_once(p.missing, path_of(f));
        else
          for (const auto& path : stages) detail::add_once(p.missing, path);
      }
    }
    p.status = !p.missing.empty()   ? phase_status::not_described
               : !p.unknown.empty() ? phase_status::unknown
                                    : phase_status::described;
    out.push_back(std::move(p));
  }
  return out;
}

namespace detail {

// A run of several nodes without a failure model: multi-node jobs fail.
inline bool multi_node_without_failures(const scenario& run) {
  return run.integer(field::cluster_nodes) >= 2 && !run.has(field::failures_node_mtbf_h);
}

// The expectations that one run of the job (the whole job, or one of its stages) does not
// meet; `path` names a field as the user would fix it (in the stage, or at the top level).
template <class Path> void unmet_run_expectations(const scenario& s, bool first, const std::string& who,
                                                  const Path& path, std::vector<std::string>& out) {
  const std::string platform = s.has_text(field::cluster_platform) ? s.text(field::cluster_platform) : "";
  // A later stage's graphs are compiled at its transition unless precompiled (then loaded).
  const bool compiles = first || !s.flag(field::compile_precompiled);
  if (platform.rfind("trn", 0) == 0 && compiles && !s.has(field::compile_initial_s))
    add_once(out, "cluster.platform is " + platform + " (Neuron) but " + path(field::compile_initial_s) +
                      " is not given: Neuron compiles every graph before the first step, typically tens of minutes; "
                      "give it, or 0 if the graphs are precompiled");
  const bool failures = s.has(field::failures_node_mtbf_h);
  if (multi_node_without_failures(s))
    add_once(out, who + " runs on " + std::to_string(s.integer(field::cluster_nodes)) +
                      " nodes without a failure model (" + path(field::failures_node_mtbf_h) +
                      "): multi-node jobs fail, and each failure costs lost work and a recovery");
  if (failures && !s.has(field::checkpoint_every_steps))
    add_once(out, "failures are modelled but " + path(field::checkpoint_every_steps) +
                      " is not given: without checkpoints a failure loses every step done so far");
}

}  // namespace detail

/// Whether some run of `s` (the job, or one of its stages) is multi-node without a failure
/// model: an expectation unmet_expectations states. A caller's check that needs a simulation (a
/// P50 wall time of a day or more without a failure model) asks this, so as not to say it twice.
inline bool multi_node_without_failures(const scenario& s) {
  if (s.stage_count() == 0) return detail::multi_node_without_failures(s);
  for (std::size_t k = 0; k < s.stage_count(); ++k)
    if (detail::multi_node_without_failures(s.stage(k))) return true;
  return false;
}

/// The platform expectations that `s` does not meet, each a sentence naming the fields (in a
/// job in stages, each stage's: "stages[1].checkpoint.every_steps").
/// (Those that need a simulation, such as a P50 wall time of a day or more without a failure
/// model, are checked by the caller.)
inline std::vector<std::string> unmet_expectations(const scenario& s) {
  std::vector<std::string> out;
  if (s.stage_count() == 0) {
    detail::unmet_run_expectations(
        s, true, "the job", [](field f) { return path_of(f); }, out);
  } else {
    for (std::size_t k = 0; k < s.stage_count(); ++k)
      detail::unmet_run_expectations(
          s.stage(k), k == 0, s.stage_gives(k, field::cluster_nodes) ? "stage " + s.stage_name(k) : "the job",
          [&](field f) { return s.stage_gives(k, f) ? s.stage_path(k, path_of(f)) : path_of(f); }, out);
  }
  // A mode that needs the profile refuses an unknown name; one that does not (a measured step
  // time) keeps it as a label, which may be a misspelt profile. (A prefix of a profile's name,
  // "trn2", is the plausibility check's.)
  const std::string platform = s.has_text(field::cluster_platform) ? s.text(field::cluster_platform) : "";
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
  for (const auto& f : scenario_fields()) {
    if (f.kind != field_kind::quantity || !s.has(f.id)) continue;
    const quantity& q = s.q(f.id);
    if (q.prov().source == "quote" && q.prov().date.empty())
      out.push_back(f.path + " is a quote without a date: a price is only as good as its quote's date and region");
  }
  return out;
}

}  // namespace trnmodel
