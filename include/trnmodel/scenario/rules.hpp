#pragma once
// The rules of a scenario that involve several fields (docs/scenario.md): what each
// throughput mode needs, what each purchase mode needs and allows, the batch and chip
// arithmetic of the parallel layouts (the job's and the reference's), context parallelism
// dividing the sequence, and that the layout fits in a device's memory. The field-by-field
// rules are the loader's (scenario/loader.hpp); scenario::from_json applies these after it.
#include <cmath>
#include <string>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/problems.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/throughput/flops.hpp"

namespace trnmodel {

namespace detail {

// The rules over one loaded scenario (its stages are scenarios of their own, checked each).
class scenario_rules {
 public:
  explicit scenario_rules(const scenario& s) : s_(s) {}

  [[noreturn]] static void need(field f, const std::string& why) { detail::fail(path_of(f), "required " + why); }

  // The purchase rules, the work, what each throughput mode needs, then the context-parallel,
  // layout and memory rules: every broken rule of each group, in one input_error (a rule that
  // needs a field another rule found missing is not checked).
  void check() const {
    problem_list problems;
    problems.attempt([&] { check_purchase(); });
    problems.attempt([&] { check_work(); });
    if (s_.has(field::job_effective_steps) && s_.has(field::job_tokens))
      problems.add(path_of(field::job_tokens), "give either job.effective_steps or job.tokens, not both");
    bool mode_sound = false;
    problems.attempt([&] { mode_sound = check_mode(problems); });
    if (mode_sound && s_.mode() != throughput_mode::measured) {
      problems.attempt([&] { check_context_parallel(); });
      problems.attempt([&] {
        check_layout("parallelism", s_.integer(field::cluster_nodes), s_.integer(field::parallelism_tp),
                     s_.integer(field::parallelism_pp), s_.integer(field::parallelism_dp),
                     s_.integer(field::parallelism_micro_batch), s_.integer(field::parallelism_global_batch),
                     s_.integer(field::parallelism_cp));
      });
      if (problems.empty() && s_.profile() && s_.has_integer(field::model_layers) &&
          s_.has_integer(field::model_hidden_size) && s_.has_integer(field::model_heads))
        problems.attempt([&] { check_memory_fit(); });
      if (s_.mode() == throughput_mode::extrapolated)
        problems.attempt([&] {
          check_layout("reference", s_.integer(field::reference_nodes), s_.integer(field::reference_tp),
                       s_.integer(field::reference_pp), s_.integer(field::reference_dp),
                       s_.integer(field::reference_micro_batch), s_.integer(field::reference_global_batch),
                       s_.has_integer(field::reference_cp) ? s_.integer(field::reference_cp) : 1);
        });
    }
    problems.throw_if_any();
  }

 private:
  // What each throughput mode needs; the needs that do not depend on each other are kept in
  // `problems` one by one (a scenario missing five reference fields hears of five).
  // Whether the mode's needs are met (the layout rules read these fields).
  bool check_mode(problem_list& problems) const {
    const throughput_mode m = s_.mode();
    const std::string& m_name = name_of_choice(m);
    if (m == throughput_mode::measured) {
      if (!s_.has(field::throughput_step_time_s))
        need(field::throughput_step_time_s, "when throughput.mode is measured (seconds per effective step)");
    } else if (s_.has(field::throughput_step_time_s)) {
      detail::fail(path_of(field::throughput_step_time_s),
                   "is not used when throughput.mode is " + m_name + "; remove it or use mode measured");
    }
    const bool derived = m != throughput_mode::measured;
    if (derived || s_.has(field::job_tokens)) {
      if (!s_.has_integer(field::model_sequence_length))
        need(field::model_sequence_length, "to derive steps or step time");
      if (!s_.has_integer(field::parallelism_global_batch))
        need(field::parallelism_global_batch, "to derive steps or step time");
    }
    if (!derived) return true;
    if (!s_.has(field::model_parameters) && !(s_.has_integer(field::model_layers) && s_.has_integer(field::model_hidden_size)))
      need(field::model_parameters, "(or model.layers and model.hidden_size) when throughput.mode is " + m_name);
    if (m != throughput_mode::flops || s_.has(field::throughput_model_flops_utilization)) {
      if (!s_.has_text(field::cluster_platform))
        need(field::cluster_platform, "(a hardware profile) when throughput.mode is " + m_name);
      if (!s_.profile()) {
        std::string known;
        for (const auto& name : s_.profile_names()) known += (known.empty() ? "" : ", ") + name;
        // "trn2" for trn2.48xlarge is a prefix, far in edit distance: suggest by prefix first.
        std::string prefixed;
        for (const auto& name : s_.profile_names())
          if (name.rfind(s_.text(field::cluster_platform), 0) == 0) prefixed += (prefixed.empty() ? "" : " or ") + name;
        const std::string hint = !prefixed.empty()
                                     ? " (did you mean " + prefixed + "?)"
                                     : detail::did_you_mean(s_.text(field::cluster_platform), s_.profile_names());
        detail::fail(path_of(field::cluster_platform), "no hardware profile named \"" + s_.text(field::cluster_platform) +
                                                           "\"" + hint +
                                                           (known.empty() ? " (no hardware profiles were given: pass "
                                                                            "shipped_profiles() or load_profiles(dir))"
                                                                          : " (known: " + known + ")"));
      }
      if (!s_.profile()->peak_tflops_per_chip.count(s_.text(field::throughput_precision)))
        detail::fail(path_of(field::throughput_precision),
                     "profile " + s_.profile()->name + " gives no " + s_.text(field::throughput_precision) + " peak");
    }
    if (m == throughput_mode::flops) {
      const bool achieved = s_.has(field::throughput_achieved_tflops_per_chip),
                 mfu = s_.has(field::throughput_model_flops_utilization);
      if (achieved == mfu)
        detail::fail("throughput",
                     "flops mode needs exactly one of achieved_tflops_per_chip and model_flops_utilization");
    } else if (!s_.has(field::throughput_compute_efficiency)) {
      need(field::throughput_compute_efficiency, "(achieved / peak FLOPS of the compute) when throughput.mode is " + m_name);
    }
    const std::size_t before = problems.size();
    const auto want = [&](field f, const std::string& why) { problems.add(path_of(f), "required " + why); };
    if (m == throughput_mode::analytic || m == throughput_mode::extrapolated) {
      for (const field path : {field::model_layers, field::model_hidden_size, field::model_heads})
        if (!s_.has_integer(path)) want(path, "when throughput.mode is " + m_name);
    }
    if (m == throughput_mode::extrapolated) {
      if (!s_.has(field::reference_step_time_s))
        want(field::reference_step_time_s, "(the measured step time) when throughput.mode is extrapolated");
      for (const field path :
           {field::reference_nodes, field::reference_tp, field::reference_pp, field::reference_dp,
            field::reference_micro_batch, field::reference_global_batch, field::reference_sequence_length})
        if (!s_.has_integer(path))
          want(path, "(the configuration the step time was measured at) when throughput.mode is extrapolated");
      for (const field path : {field::reference_layers, field::reference_hidden_size, field::reference_heads})
        if (s_.has_integer(path) && !s_.has_integer(field::reference_parameters))
          want(field::reference_parameters,
               "(the reference model's parameter count) when " + path_of(path) + " is given");
    }
    return problems.size() == before;
  }

 private:
  // The job's work, its optimizer steps or its tokens: given once. In a job in stages each
  // stage states its own (scenario/stages.hpp), and the top level none, so that no stage
  // repeats another's work silently.
  void check_work() const {
    const bool steps = s_.has(field::job_effective_steps), tokens = s_.has(field::job_tokens);
    if (s_.to_json().contains("stages")) {
      if (steps || tokens)
        detail::fail(path_of(steps ? field::job_effective_steps : field::job_tokens),
                     "is not used in a job in stages: each stage gives its own work (stages[k].job.tokens or "
                     "stages[k].job.effective_steps); move it into the stage it belongs to");
      return;
    }
    if (!steps && !tokens)
      detail::fail(path_of(field::job_effective_steps),
                   "required (optimizer steps to the quality bar), or give job.tokens");
  }

  // Purchase options (docs/lifecycle.md, "Purchase options"): each mode's fields only with that
  // mode, what each mode needs, and a block length that AWS offers.
  void check_purchase() const {
    const std::string& purchase_name = s_.text(field::prices_purchase);
    const purchase_mode bought = s_.purchase();
    const bool block = bought == purchase_mode::capacity_block, spot = bought == purchase_mode::spot;
    for (const field f : {field::prices_block_hours, field::prices_block_usd, field::prices_block_lead_s,
                          field::prices_block_end_margin_h})
      if (!block && s_.has(f))
        detail::fail(path_of(f), "is used only when prices.purchase is capacity_block (it is " + purchase_name +
                                     "); remove it or set prices.purchase");
    for (const field f : {field::prices_spot_node_hour_usd, field::spot_interruptions_per_node_h, field::spot_notice_s,
                          field::spot_reacquire_s})
      if (!spot && s_.has(f))
        detail::fail(path_of(f), "is used only when prices.purchase is spot (it is " + purchase_name +
                                     "); remove it or set prices.purchase");
    if (spot && !s_.has(field::spot_interruptions_per_node_h))
      need(field::spot_interruptions_per_node_h, "when prices.purchase is spot (interruptions per node-hour)");
    if (!block) return;
    if (!s_.has_integer(field::prices_block_hours))
      need(field::prices_block_hours, "when prices.purchase is capacity_block (the block's length in whole hours)");
    const long long hours = s_.integer(field::prices_block_hours), days = hours / 24;
    if (hours % 24 != 0 || days > 182 || (days > 14 && days % 7 != 0))
      detail::fail(path_of(field::prices_block_hours),
                   "must be a capacity-block length that AWS offers: 1 to 14 days in whole days (24, 48, ..., 336 h), "
                   "then 7-day steps up to 182 days (504, 672, ..., 4368 h); got " +
                       std::to_string(hours) + " h");
    if (!s_.has(field::prices_block_usd))
      need(field::prices_block_usd, "when prices.purchase is capacity_block (the upfront fee for the block, USD)");
    const quantity& margin = s_.q(field::prices_block_end_margin_h);
    if (!margin.is_unknown() && margin.support().second >= static_cast<double>(hours))
      detail::fail(path_of(field::prices_block_end_margin_h),
                   "must be less than prices.block_hours (" + std::to_string(hours) +
                       " h): the usable window is the block's length less this margin");
  }

  // A layout that cannot fit in a device's memory is an error that says by how much.
  void check_memory_fit() const {
    const transformer_shape m = s_.shape();
    const parallel_layout p = s_.layout();
    if (std::fmod(m.layers, p.pp) != 0)
      detail::fail(path_of(field::parallelism_pp), "must divide model.layers = " + detail::format_number(m.layers) +
                                                       ", got " + detail::format_number(p.pp));
    const device_memory mem = memory_per_device(m, s_.kind(), p);
    const double capacity = s_.profile()->figure("hbm_gib_per_chip").ppf(0.5) * 1073741824.0;
    if (mem.total() > capacity) {
      const auto gib = [](double bytes) { return detail::format_number(std::round(bytes / 1073741824.0 * 10) / 10); };
      detail::fail(
          "parallelism",
          "this layout needs " + gib(mem.total()) + " GiB per chip (weights " + gib(mem.weights_bytes) +
              ", gradients " + gib(mem.gradients_bytes) + ", optimizer " + gib(mem.optimizer_bytes) + ", activations " +
              gib(mem.activations_bytes) + ") but " + s_.profile()->name + " has " + gib(capacity) +
              " GiB: " + gib(mem.total() - capacity) +
              " GiB over; raise tp or pp, use a higher zero_stage, recompute activations, or a smaller micro_batch");
    }
  }

  // Context parallelism splits each sequence into cp equal chunks.
  void check_context_parallel() const {
    const long long cp = s_.integer(field::parallelism_cp);
    if (cp > 1 && s_.has_integer(field::model_sequence_length) && s_.integer(field::model_sequence_length) % cp != 0)
      detail::fail(path_of(field::parallelism_cp),
                   "must divide model.sequence_length = " + std::to_string(s_.integer(field::model_sequence_length)) +
                       ", got " + std::to_string(cp));
    if (s_.has_integer(field::reference_cp) && s_.has_integer(field::reference_sequence_length) &&
        s_.integer(field::reference_sequence_length) % s_.integer(field::reference_cp) != 0)
      detail::fail(path_of(field::reference_cp), "must divide reference.sequence_length = " +
                                                     std::to_string(s_.integer(field::reference_sequence_length)) +
                                                     ", got " + std::to_string(s_.integer(field::reference_cp)));
  }

  void check_layout(const std::string& where, long long nodes, long long tp, long long pp, long long dp,
                    long long micro, long long global, long long cp = 1) const {
    if (global % (dp * micro) != 0)
      detail::fail(where + ".global_batch", "must be a multiple of dp x micro_batch = " + std::to_string(dp * micro) +
                                                ", got " + std::to_string(global));
    if (s_.profile()) {
      const long long chips = nodes * s_.profile()->chips_per_node;
      if (tp * cp * pp * dp != chips)
        detail::fail(where, std::string(cp > 1 ? "tp x cp x pp x dp = " : "tp x pp x dp = ") +
                                std::to_string(tp * cp * pp * dp) + " must equal the chips of " +
                                std::to_string(nodes) + " x " + s_.profile()->name + " = " + std::to_string(chips));
    }
  }

  const scenario& s_;
};

}  // namespace detail

/// Applies the cross-field rules to a loaded scenario; input_error naming the path of the first
/// field that breaks one.
inline void check_rules(const scenario& s) { detail::scenario_rules(s).check(); }

}  // namespace trnmodel
