#pragma once
// The per-sample metrics (docs/metrics.md), their order and names, and which inputs each needs
// (so that a metric depending on an unknown input is reported as such, never invented).
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "trnmodel/scenario/fields.hpp"

namespace trnmodel {

namespace metric {
/// Every per-sample metric of a run, by position in metric_names() (docs/metrics.md).
enum id : std::size_t {
  // Phase times in hours; they sum to wall_h.
  queue_h,
  setup_h,
  compile_h,
  warmup_h,
  useful_h,
  stall_h,
  eval_h,
  checkpoint_h,
  lost_h,
  recovery_h,
  rerun_h,
  transition_h,
  wall_h,
  billed_h,
  node_h,
  goodput,
  failures,
  recompiles,
  restore_fallbacks,
  // Purchase options: spot interruptions; a capacity block's fit, idle hours and overflow, and
  // what the idle hours and the overflow cost (parts of cost_compute_usd).
  interruptions,
  block_fit,
  block_idle_h,
  overflow_h,
  block_idle_usd,
  overflow_usd,
  cost_compute_usd,
  cost_storage_usd,
  cost_transfer_usd,
  cost_logs_usd,
  run_cost_usd,
  adaptation_usd,
  total_cost_usd,
  useful_step_cost_usd,
  lifecycle_cost_per_step_usd,
  // The step time of the sample and, when derived from the platform, its parts (seconds).
  step_time_s,
  compute_s,
  tp_comm_s,
  pp_bubble_s,
  pp_p2p_s,
  dp_comm_s,
  count
};
}  // namespace metric

/// The metrics' names, as Python and the result columns spell them, in metric::id order.
inline const std::array<const char*, metric::count>& metric_names() {
  static const std::array<const char*, metric::count> names{"queue_h",
                                                            "setup_h",
                                                            "compile_h",
                                                            "warmup_h",
                                                            "useful_h",
                                                            "stall_h",
                                                            "eval_h",
                                                            "checkpoint_h",
                                                            "lost_h",
                                                            "recovery_h",
                                                            "rerun_h",
                                                            "transition_h",
                                                            "wall_h",
                                                            "billed_h",
                                                            "node_h",
                                                            "goodput",
                                                            "failures",
                                                            "recompiles",
                                                            "restore_fallbacks",
                                                            "interruptions",
                                                            "block_fit",
                                                            "block_idle_h",
                                                            "overflow_h",
                                                            "block_idle_usd",
                                                            "overflow_usd",
                                                            "cost_compute_usd",
                                                            "cost_storage_usd",
                                                            "cost_transfer_usd",
                                                            "cost_logs_usd",
                                                            "run_cost_usd",
                                                            "adaptation_usd",
                                                            "total_cost_usd",
                                                            "useful_step_cost_usd",
                                                            "lifecycle_cost_per_step_usd",
                                                            "step_time_s",
                                                            "compute_s",
                                                            "tp_comm_s",
                                                            "pp_bubble_s",
                                                            "pp_p2p_s",
                                                            "dp_comm_s"};
  return names;
}

/// The phase times, which sum to wall_h sample by sample.
inline constexpr std::array<metric::id, 12> phase_metrics{
    metric::queue_h,  metric::setup_h,    metric::compile_h, metric::warmup_h,
    metric::useful_h, metric::stall_h,    metric::eval_h,    metric::checkpoint_h,
    metric::lost_h,   metric::recovery_h, metric::rerun_h,   metric::transition_h};

/// The metrics reported per stage of a multi-stage job, as "<stage>/<metric>".
inline constexpr std::array<metric::id, 11> stage_metrics{
    metric::wall_h,     metric::billed_h,     metric::node_h,   metric::useful_h,          metric::compile_h,
    metric::lost_h,     metric::transition_h, metric::failures, metric::restore_fallbacks, metric::cost_compute_usd,
    metric::step_time_s};

/// An input or metric of one stage is named "<stage>/<path>"; the field or metric is the part after the '/'.
inline std::string unstaged(const std::string& path) {
  const auto slash = path.find('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Whether an input feeds the time metrics: the fields of group `time` and every hardware
/// profile figure ("platform.*").
inline bool is_time_input(const std::string& path) {
  if (path.rfind("platform.", 0) == 0) return true;
  const field_spec* f = find_field(unstaged(path));
  return f != nullptr && f->group == input_group::time;
}

/// The inputs a metric needs: every time input when `needs_time`, the fields of `groups`, and
/// single `fields`.
struct metric_dependencies {
  bool needs_time;  ///< whether every time input (is_time_input) is needed
  std::vector<input_group> groups;  ///< the groups whose every field is needed
  std::vector<field> fields = {};  ///< single fields needed besides those of `groups`

  /// Whether the input named `path` (a field's path, "<stage>/<path>", or "platform.*") is
  /// among them; a path that names no field is needed only as a time input.
  bool needs(const std::string& path) const {
    if (needs_time && is_time_input(path)) return true;
    const field_spec* f = find_field(unstaged(path));
    if (f == nullptr) return false;
    return std::find(groups.begin(), groups.end(), f->group) != groups.end() ||
           std::find(fields.begin(), fields.end(), f->id) != fields.end();
  }
};

/// The inputs metric m needs (an unknown one among them makes m NaN or an error).
inline metric_dependencies dependencies_of(metric::id m) {
  using namespace metric;
  using g = input_group;
  switch (m) {
    case cost_compute_usd:
    case block_idle_usd:
    case overflow_usd: return {true, {g::compute_price}};
    case cost_storage_usd: return {true, {g::storage}};
    case cost_transfer_usd: return {false, {g::transfer}};
    case cost_logs_usd: return {true, {g::logs}};
    case run_cost_usd: return {true, {g::compute_price, g::storage, g::transfer, g::logs}};
    case adaptation_usd: return {false, {g::engineering}};
    case total_cost_usd: return {true, {g::compute_price, g::storage, g::transfer, g::logs, g::engineering}};
    case useful_step_cost_usd:
      return {false,
              {},
              {field::throughput_step_time_s, field::prices_node_hour_usd, field::prices_spot_node_hour_usd,
               field::prices_block_usd}};
    case lifecycle_cost_per_step_usd: return {true, {g::compute_price, g::storage, g::transfer, g::logs}};
    default: return {true, {}};
  }
}

}  // namespace trnmodel
