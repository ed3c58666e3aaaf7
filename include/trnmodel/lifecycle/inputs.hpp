#pragma once
// One sample's drawn inputs, in the scenario's units (seconds, hours, GB, USD). The scenario's
// field table (scenario/fields.hpp) names, for each uncertain field, the member here it is
// drawn into; the values below are what a field that a scenario does not give stands for.
#include <limits>

namespace trnmodel {

/// The values one sample of one stage runs with: every lifecycle input, drawn or fixed, in its
/// unit (seconds, hours, USD, counts). A plain value; the simulator reads it, never keeps it.
struct lifecycle_inputs {
  double effective_steps = 1, step_time_s = 0, data_stall_fraction = 0;
  double queue_wait_s = 0, env_prep_s = 0, data_load_s = 0;
  double initial_s = 0, recompile_s = 0, cache_load_s = 0, cache_hit_prob = 1, planned_changes = 0;
  double every_steps = 0, save_s = 0, verify_s = 0, load_s = 0, size_gb = 0;
  double eval_every_steps = 0, eval_time_s = 0, eval_final_s = 0;
  // Probability that a restored checkpoint fails its check (docs/lifecycle.md, "Restore fidelity").
  double restore_fail_prob = 0;
  // Relaunch at a stage boundary; NaN (absent): the stage's failures.restart_s.
  double transition_s = std::numeric_limits<double>::quiet_NaN();
  // Absent: no failures.
  double node_mtbf_h = std::numeric_limits<double>::infinity(), weibull_shape = 1, restart_s = 0, warmup_s = 0;
  double rerun_prob = 0, rerun_fraction = 0;
  // Absent: the costs that need it are unknown.
  double node_hour_usd = std::numeric_limits<double>::quiet_NaN(), storage_gb_month_usd = 0, transfer_gb_usd = 0,
         logs_gb_usd = 0;
  // Purchase options (docs/lifecycle.md, "Purchase options"): a capacity block's fee, lead time
  // and end margin; spot's price, interruption rate, notice and wait for capacity.
  double block_usd = std::numeric_limits<double>::quiet_NaN(), block_lead_s = 0, block_end_margin_h = 0.5;
  double spot_node_hour_usd = std::numeric_limits<double>::quiet_NaN(), interruptions_per_node_h = 0, notice_s = 120,
         reacquire_s = 0;
  double dataset_gb = 0, transfer_gb = 0, logs_gb_per_hour = 0;
  double adaptation_h = 0, rate_usd_per_h = 0;
  // Step time from the platform (throughput modes other than measured).
  double tokens = std::numeric_limits<double>::quiet_NaN(), parameters = 0;
  double achieved_tflops = 0, mfu = 0, compute_efficiency = 0, dp_overlap = 0, reference_step_time_s = 0;
  double elementwise_traffic = 0, hbm_tb_s = 0;
  // Extrapolated mode: the fitted error factor of the model's ratio (the "extrapolation.error" input).
  double extrapolation_error = 1;
  // Hardware-profile figures ("platform.*" inputs, not scenario fields).
  double peak_tflops = 0, intra_gb_s = 0, intra_latency_us = 0, intra_efficiency = 1, inter_gb_s = 0,
         inter_latency_us = 0, inter_efficiency = 1;
};

}  // namespace trnmodel
