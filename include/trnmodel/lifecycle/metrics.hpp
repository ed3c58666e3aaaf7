#pragma once
// The per-sample metrics of DESIGN §6, their order and names, and which inputs each needs
// (so that a metric depending on an unknown input is reported as such, never invented).
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace trnmodel {

namespace metric {
enum id : std::size_t {
  // Phase times in hours; they sum to wall_h.
  queue_h, setup_h, compile_h, warmup_h, useful_h, stall_h, eval_h, checkpoint_h, lost_h, recovery_h, rerun_h,
  wall_h, billed_h, node_h, goodput, failures, recompiles,
  cost_compute_usd, cost_storage_usd, cost_transfer_usd, cost_logs_usd, run_cost_usd, adaptation_usd,
  total_cost_usd, useful_step_cost_usd, lifecycle_cost_per_step_usd,
  // The step time of the sample and, when derived from the platform, its parts (seconds).
  step_time_s, compute_s, tp_comm_s, pp_bubble_s, pp_p2p_s, dp_comm_s,
  count
};
}  // namespace metric

inline const std::array<const char*, metric::count>& metric_names() {
  static const std::array<const char*, metric::count> names{
      "queue_h", "setup_h", "compile_h", "warmup_h", "useful_h", "stall_h", "eval_h", "checkpoint_h", "lost_h",
      "recovery_h", "rerun_h", "wall_h", "billed_h", "node_h", "goodput", "failures", "recompiles",
      "cost_compute_usd", "cost_storage_usd", "cost_transfer_usd", "cost_logs_usd", "run_cost_usd",
      "adaptation_usd", "total_cost_usd", "useful_step_cost_usd", "lifecycle_cost_per_step_usd",
      "step_time_s", "compute_s", "tp_comm_s", "pp_bubble_s", "pp_p2p_s", "dp_comm_s"};
  return names;
}

inline constexpr std::array<metric::id, 11> phase_metrics{
    metric::queue_h, metric::setup_h,      metric::compile_h, metric::warmup_h,   metric::useful_h, metric::stall_h,
    metric::eval_h,  metric::checkpoint_h, metric::lost_h,    metric::recovery_h, metric::rerun_h};

// Input groups of the dependency table.
inline const std::vector<std::string>& time_inputs() {
  static const std::vector<std::string> paths{
      "job.effective_steps", "throughput.step_time_s", "throughput.data_stall_fraction", "startup.queue_wait_s",
      "startup.env_prep_s", "startup.data_load_s", "compile.initial_s", "compile.recompile_s",
      "compile.cache_load_s", "compile.cache_hit_prob", "compile.planned_changes", "checkpoint.every_steps",
      "checkpoint.save_s", "checkpoint.verify_s", "checkpoint.load_s", "eval.every_steps", "eval.time_s",
      "eval.final_s", "failures.node_mtbf_h", "failures.weibull_shape", "failures.restart_s",
      "failures.warmup_s", "quality.rerun_prob", "quality.rerun_fraction", "job.tokens", "model.parameters",
      "throughput.achieved_tflops_per_chip", "throughput.model_flops_utilization", "throughput.compute_efficiency",
      "parallelism.dp_overlap", "reference.step_time_s", "throughput.elementwise_traffic"};
  return paths;
}

// Whether an input path feeds the time metrics (hardware profile figures all do).
inline bool is_time_input(const std::string& path) {
  return path.rfind("platform.", 0) == 0 ||
         std::find(time_inputs().begin(), time_inputs().end(), path) != time_inputs().end();
}

// The inputs a metric needs (beyond the time inputs when `needs_time`).
struct metric_dependencies {
  bool needs_time;
  std::vector<std::string> inputs;
};

inline metric_dependencies dependencies_of(metric::id m) {
  using namespace metric;
  const std::vector<std::string> compute{"prices.node_hour_usd"};
  const std::vector<std::string> storage{"data.dataset_gb", "checkpoint.size_gb", "prices.storage_gb_month_usd"};
  const std::vector<std::string> transfer{"data.transfer_gb", "prices.transfer_gb_usd"};
  const std::vector<std::string> logs{"data.logs_gb_per_hour", "prices.logs_gb_usd"};
  const std::vector<std::string> engineering{"engineering.adaptation_h", "engineering.rate_usd_per_h"};
  const auto join = [](std::initializer_list<std::vector<std::string>> parts) {
    std::vector<std::string> all;
    for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  };
  switch (m) {
    case cost_compute_usd: return {true, compute};
    case cost_storage_usd: return {true, storage};
    case cost_transfer_usd: return {false, transfer};
    case cost_logs_usd: return {true, logs};
    case run_cost_usd: return {true, join({compute, storage, transfer, logs})};
    case adaptation_usd: return {false, engineering};
    case total_cost_usd: return {true, join({compute, storage, transfer, logs, engineering})};
    case useful_step_cost_usd: return {false, {"throughput.step_time_s", "prices.node_hour_usd"}};
    case lifecycle_cost_per_step_usd: return {true, join({compute, storage, transfer, logs})};
    default: return {true, {}};
  }
}

}  // namespace trnmodel
