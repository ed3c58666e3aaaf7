#pragma once
// The advisor (docs/decisions.md, "The advisor"): should a training job move to Trainium, and
// how? Explicit rules over a project's facts, in a stated precedence; the first rule that fires
// is the recommendation, and every rule that fired is returned with the fact that fired it.
// Never a rule hidden behind a score: the suitability score is reported beside the rules.
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/detail/problems.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

/// What a project says about itself (the scenario's and the plan's `project` block). Every fact
/// is needed to advise; a plain value.
struct project_facts {
  change_rate architecture_changes = change_rate::rare;  ///< how often the model architecture changes
  bool experimental_ops = false,  ///< experimental operators in the model
      custom_cuda_extensions = false,  ///< custom CUDA extensions or kernels
      fast_debug_loop = false,  ///< the team needs a fast edit-run-debug loop
      mixed_nonstandard_models = false,  ///< non-standard model parts mixed in
      manual_compiler_tuning = false;  ///< the port would need manual compiler tuning
  neuron_experience team_neuron_experience = neuron_experience::none;  ///< the team's Neuron experience
  error_cost cost_of_error = error_cost::low;  ///< what an error in the job's output costs
  bool agreed_metrics = false;  ///< acceptance metrics agreed against a baseline
  cycle_length training_cycle = cycle_length::short_;  ///< the training cycle

  /// The facts of a scenario's `project` block. Throws one input_error listing every fact the
  /// block does not give ("project.<fact>: required to advise").
  static project_facts from_scenario(const scenario& s) {
    return read([&](field f) -> std::optional<std::string> {
      if (!s.has(f)) return std::nullopt;
      return spec(f).kind == field_kind::boolean ? (s.flag(f) ? "true" : "false") : s.text(f);
    });
  }

  /// The facts of a `project` object ({"architecture_changes": "rare", ...}), read by the
  /// scenario's field table: each fact's type and spellings, unknown keys refused with a
  /// did-you-mean. Throws one input_error listing every problem ("<path>.<fact>: <rule>").
  static project_facts from_json(const ordered_json& block, const std::string& path = "project") {
    if (!block.is_object()) detail::fail(path, "must be an object of the project's facts, got " + detail::describe_json(block));
    detail::problem_list problems;
    std::vector<std::string> keys;
    for (const auto& f : scenario_fields())
      if (f.path.rfind("project.", 0) == 0) keys.push_back(f.path.substr(8));
    for (const auto& item : block.items())
      if (std::find(keys.begin(), keys.end(), item.key()) == keys.end())
        problems.add(path + "." + item.key(), "unknown fact" + detail::did_you_mean(item.key(), keys));
    project_facts out;
    problems.attempt([&] {
      out = read([&](field f) -> std::optional<std::string> {
        const field_spec& fs = spec(f);
        const auto it = block.find(fs.path.substr(8));
        if (it == block.end()) return std::nullopt;
        const std::string where = path + "." + it.key();
        if (fs.kind == field_kind::boolean) {
          if (!it->is_boolean()) detail::fail(where, "must be true or false, got " + detail::describe_json(*it));
          return it->get<bool>() ? "true" : "false";
        }
        if (!it->is_string()) detail::fail(where, "must be a text, got " + detail::describe_json(*it));
        return it->get<std::string>();
      }, path);
    });
    problems.throw_if_any();
    return out;
  }

 private:
  // Every fact through `get` (its text, "true"/"false" for a flag, nothing when not given);
  // every missing or misspelt fact is listed in one input_error.
  template <class Get>
  static project_facts read(const Get& get, const std::string& path = "project") {
    detail::problem_list problems;
    project_facts p;
    const auto fact = [&](field f) { return path + "." + path_of(f).substr(8); };
    const auto text = [&](field f) -> std::optional<std::string> {
      std::optional<std::string> v;
      if (problems.attempt([&] { v = get(f); }) && !v)
        problems.add(fact(f), "required to advise (docs/decisions.md, \"The advisor\")");
      return v;
    };
    const auto choose = [&](field f, auto& into) {
      using E = std::remove_reference_t<decltype(into)>;
      if (const auto v = text(f)) problems.attempt([&] { into = parse_choice<E>(fact(f), *v); });
    };
    const auto flag = [&](field f, bool& into) {
      if (const auto v = text(f)) into = *v == "true";
    };
    choose(field::project_architecture_changes, p.architecture_changes);
    flag(field::project_experimental_ops, p.experimental_ops);
    flag(field::project_custom_cuda_extensions, p.custom_cuda_extensions);
    flag(field::project_fast_debug_loop, p.fast_debug_loop);
    flag(field::project_mixed_nonstandard_models, p.mixed_nonstandard_models);
    flag(field::project_manual_compiler_tuning, p.manual_compiler_tuning);
    choose(field::project_team_neuron_experience, p.team_neuron_experience);
    choose(field::project_error_cost, p.cost_of_error);
    flag(field::project_agreed_metrics, p.agreed_metrics);
    choose(field::project_training_cycle, p.training_cycle);
    problems.throw_if_any();
    return p;
  }
};

/// The recommendations, in the rules' precedence.
enum class recommendation { gpu, gpu_baseline_first, dual_track, trainium_after_checks, trainium_pilot };

/// The code of a recommendation ("gpu", "dual_track", ...).
inline const char* code_of(recommendation r) {
  switch (r) {
    case recommendation::gpu: return "gpu";
    case recommendation::gpu_baseline_first: return "gpu_baseline_first";
    case recommendation::dual_track: return "dual_track";
    case recommendation::trainium_after_checks: return "trainium_after_checks";
    case recommendation::trainium_pilot: return "trainium_pilot";
  }
  return "";
}

/// A recommendation in words.
inline const char* label_of(recommendation r) {
  switch (r) {
    case recommendation::gpu: return "Keep the job on GPU";
    case recommendation::gpu_baseline_first: return "Agree acceptance metrics on a GPU baseline first";
    case recommendation::dual_track:
      return "Run a dual track: a GPU baseline beside a Trainium pilot, with a rollback path";
    case recommendation::trainium_after_checks:
      return "Move to Trainium after checking parallelism, checkpoints and recovery in a pilot";
    case recommendation::trainium_pilot: return "Pilot the job on Trainium";
  }
  return "";
}

/// One rule that fired: its name (the recommendation it makes) and the facts that fired it.
struct fired_rule {
  recommendation makes = recommendation::gpu;
  std::string rule;  ///< the rule as written in docs/decisions.md
  std::string because;  ///< the facts that fired it, e.g. "custom_cuda_extensions is true"
};

/// What the advisor says. A plain value.
struct advice {
  recommendation what = recommendation::dual_track;  ///< the first rule that fired, in precedence
  std::vector<fired_rule> rules;  ///< every rule that fired, in precedence (the last: "otherwise", alone)
  /// The seed's suitability of LoRA on Trainium, of 5 (higher is safer to migrate): 4 with stable
  /// code (rare architecture changes), 2 with frequent ones; empty for other job kinds.
  std::optional<int> score;
};

/// The seed's decision matrix as rules, in this precedence (docs/decisions.md):
///  1. gpu — frequent architecture changes, or any of experimental operators, custom CUDA
///     extensions, a fast debug loop, mixed non-standard models, manual compiler tuning;
///  2. gpu_baseline_first — no agreed acceptance metrics;
///  3. dual_track — a high cost of error and no Neuron experience in the team;
///  4. trainium_after_checks — full training;
///  5. trainium_pilot — LoRA or continued training, rare architecture changes, a long cycle;
///  6. otherwise dual_track.
inline advice advise(const project_facts& p, job_kind kind) {
  advice out;
  const auto fire = [&](recommendation r, const char* rule, const std::string& because) {
    out.rules.push_back({r, rule, because});
  };
  std::string gpu;
  const auto add = [&](bool holds, const char* fact) {
    if (holds) gpu += (gpu.empty() ? "" : ", ") + std::string(fact);
  };
  add(p.architecture_changes == change_rate::frequent, "architecture_changes is frequent");
  add(p.experimental_ops, "experimental_ops is true");
  add(p.custom_cuda_extensions, "custom_cuda_extensions is true");
  add(p.fast_debug_loop, "fast_debug_loop is true");
  add(p.mixed_nonstandard_models, "mixed_nonstandard_models is true");
  add(p.manual_compiler_tuning, "manual_compiler_tuning is true");
  if (!gpu.empty()) fire(recommendation::gpu, "frequent architecture changes or a GPU condition keep the job on GPU", gpu);
  if (!p.agreed_metrics)
    fire(recommendation::gpu_baseline_first, "without agreed acceptance metrics, a GPU baseline comes first",
         "agreed_metrics is false");
  if (p.cost_of_error == error_cost::high && p.team_neuron_experience == neuron_experience::none)
    fire(recommendation::dual_track, "a high cost of error with no Neuron experience needs a dual track",
         "error_cost is high and team_neuron_experience is none");
  if (kind == job_kind::full)
    fire(recommendation::trainium_after_checks,
         "full training moves only after parallelism, checkpoints and recovery are checked in a pilot",
         "job.kind is full");
  if ((kind == job_kind::lora || kind == job_kind::continued) && p.architecture_changes == change_rate::rare &&
      p.training_cycle == cycle_length::long_)
    fire(recommendation::trainium_pilot, "a stable LoRA or continued training with a long cycle is a pilot candidate",
         "job.kind is " + name_of_choice(kind) + ", architecture_changes is rare and training_cycle is long");
  if (out.rules.empty())
    fire(recommendation::dual_track, "otherwise, a dual track", "no other rule fired");
  out.what = out.rules.front().makes;
  if (kind == job_kind::lora) out.score = p.architecture_changes == change_rate::rare ? 4 : 2;
  return out;
}

}  // namespace trnmodel
