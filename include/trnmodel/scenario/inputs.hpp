#pragma once
// One sample's drawn inputs, in the scenario's units (seconds, hours, GB, USD). The scenario's
// field table (scenario/fields.hpp) names, for each uncertain field, the member here it is
// drawn into; the values below are what a field that a scenario does not give stands for.
#include <limits>

namespace trnmodel {

/// The values one sample of one stage runs with: every lifecycle input, drawn or fixed, in its
/// unit (seconds, hours, USD, counts). A plain value; the simulator reads it, never keeps it.
struct lifecycle_inputs {
  /// \var effective_steps
  /// Optimizer steps to the quality bar (job.effective_steps, or job.tokens / (global batch x
  /// sequence length) when the tokens are given); the simulator runs max(1, ceil(value)) steps.
  /// \var step_time_s
  /// Steady-state seconds per effective step: throughput.step_time_s in measured mode, else
  /// set per sample by throughput_model::derive.
  /// \var data_stall_fraction
  /// Fraction of the step time spent waiting for data (throughput.data_stall_fraction), in [0, 1).
  double effective_steps = 1, step_time_s = 0, data_stall_fraction = 0;
  /// \var queue_wait_s
  /// Seconds waiting in a queue or for quota before the job starts (billed only with
  /// startup.queue_billed); a capacity block waits block_lead_s instead.
  /// \var env_prep_s
  /// Seconds of environment preparation (startup.env_prep_s).
  /// \var data_load_s
  /// Seconds of data loading and warm-up before the first step (startup.data_load_s).
  double queue_wait_s = 0, env_prep_s = 0, data_load_s = 0;
  /// \var initial_s
  /// Seconds of compilation before the first step (compile.initial_s).
  /// \var recompile_s
  /// Seconds of a full compile: after a graph-cache miss, and for each planned change.
  /// \var cache_load_s
  /// Seconds to load the cached graphs when a recovery finds them (compile.cache_load_s).
  /// \var cache_hit_prob
  /// Probability that a recovery finds its graphs cached (compile.cache_hit_prob), in [0, 1].
  /// \var planned_changes
  /// Graph changes during the job, each a full recompile; rounded to the nearest whole number.
  double initial_s = 0, recompile_s = 0, cache_load_s = 0, cache_hit_prob = 1, planned_changes = 0;
  /// \var every_steps
  /// Steps per checkpoint segment (checkpoint.every_steps, rounded to the nearest whole number);
  /// 0: the whole job is one segment.
  /// \var save_s
  /// Blocking seconds per checkpoint save.
  /// \var verify_s
  /// Blocking seconds per checkpoint verification.
  /// \var load_s
  /// Seconds to restore a checkpoint in a recovery.
  /// \var size_gb
  /// Gigabytes per checkpoint; checkpoint.keep_last of them are stored (the storage cost).
  double every_steps = 0, save_s = 0, verify_s = 0, load_s = 0, size_gb = 0;
  /// \var eval_every_steps
  /// Steps between periodic evaluations (eval.every_steps); 0: none.
  /// \var eval_time_s
  /// Seconds per periodic evaluation.
  /// \var eval_final_s
  /// Seconds of the final evaluation.
  double eval_every_steps = 0, eval_time_s = 0, eval_final_s = 0;
  /// Probability that a restored checkpoint fails its check (docs/lifecycle.md, "Restore fidelity").
  double restore_fail_prob = 0;
  /// Seconds to relaunch at a stage boundary; NaN (absent): the stage's failures.restart_s.
  double transition_s = std::numeric_limits<double>::quiet_NaN();
  /// \var node_mtbf_h
  /// Per-node mean time between failures, hours; +infinity (absent): no failures.
  /// \var weibull_shape
  /// Weibull shape of the times between failures (read with failures.distribution weibull).
  /// \var restart_s
  /// Seconds of detection, re-provisioning and restart after a failure (failures.restart_s).
  /// \var warmup_s
  /// Seconds of re-warm-up after a restart (failures.warmup_s).
  double node_mtbf_h = std::numeric_limits<double>::infinity(), weibull_shape = 1, restart_s = 0, warmup_s = 0;
  /// \var rerun_prob
  /// Probability that the final quality check fails (quality.rerun_prob).
  /// \var rerun_fraction
  /// Fraction of the steps redone when it fails (ceil(fraction x steps) steps).
  double rerun_prob = 0, rerun_fraction = 0;
  /// \var node_hour_usd
  /// USD per node-hour (prices.node_hour_usd); NaN (absent): the costs that need it are unknown.
  /// \var storage_gb_month_usd
  /// USD per gigabyte-month of storage.
  /// \var transfer_gb_usd
  /// USD per gigabyte transferred.
  /// \var logs_gb_usd
  /// USD per gigabyte of logs.
  double node_hour_usd = std::numeric_limits<double>::quiet_NaN(), storage_gb_month_usd = 0, transfer_gb_usd = 0,
         logs_gb_usd = 0;
  // Purchase options (docs/lifecycle.md, "Purchase options"): a capacity block's fee, lead time
  // and end margin; spot's price, interruption rate, notice and wait for capacity.
  /// \var block_usd
  /// Capacity block: the upfront fee for the whole block, all nodes, USD; NaN (absent): unknown.
  /// \var block_lead_s
  /// Capacity block: seconds from booking to the block's start (the job's queue, not billed).
  /// \var block_end_margin_h
  /// Capacity block: hours before the block's end at which the instances stop.
  double block_usd = std::numeric_limits<double>::quiet_NaN(), block_lead_s = 0, block_end_margin_h = 0.5;
  /// \var spot_node_hour_usd
  /// Spot: USD per node-hour; NaN (absent): the costs that need it are unknown.
  /// \var interruptions_per_node_h
  /// Spot: interruptions per node-hour of exposed time.
  /// \var notice_s
  /// Spot: seconds of warning before an interruption.
  /// \var reacquire_s
  /// Spot: seconds waiting for capacity after an interruption (not billed).
  double spot_node_hour_usd = std::numeric_limits<double>::quiet_NaN(), interruptions_per_node_h = 0, notice_s = 120,
         reacquire_s = 0;
  /// \var dataset_gb
  /// Gigabytes of training data stored (data.dataset_gb).
  /// \var transfer_gb
  /// Gigabytes transferred (data.transfer_gb).
  /// \var logs_gb_per_hour
  /// Gigabytes of logs per wall-clock hour (data.logs_gb_per_hour).
  double dataset_gb = 0, transfer_gb = 0, logs_gb_per_hour = 0;
  /// \var adaptation_h
  /// Engineering hours to port the job (a separate risk line, engineering.adaptation_h).
  /// \var rate_usd_per_h
  /// USD per engineering hour.
  /// \var port_days
  /// Calendar days from the start of the port until the job can run on this platform
  /// (engineering.port_days): a start delay, read by the plan's schedule, not by the run itself.
  double adaptation_h = 0, rate_usd_per_h = 0, port_days = 0;
  // Step time from the platform (throughput modes other than measured).
  /// \var tokens
  /// Training tokens to the quality bar (job.tokens); NaN: the scenario gives the steps instead.
  /// \var parameters
  /// Parameter count N (model.parameters); read only when the scenario gives it, else the
  /// architecture's count is used.
  double tokens = std::numeric_limits<double>::quiet_NaN(), parameters = 0;
  /// \var achieved_tflops
  /// Flops mode: executed TFLOPS per chip, recomputation included.
  /// \var mfu
  /// Flops mode: model FLOPs utilisation, model FLOPs / (chips x peak), in (0, 1].
  /// \var compute_efficiency
  /// Analytic and extrapolated modes: achieved / peak FLOPS of the compute alone, in (0, 1].
  /// \var dp_overlap
  /// Fraction of the data-parallel communication hidden behind compute, in [0, 1].
  /// \var reference_step_time_s
  /// Extrapolated mode: seconds per step measured at the reference configuration.
  double achieved_tflops = 0, mfu = 0, compute_efficiency = 0, dp_overlap = 0, reference_step_time_s = 0;
  /// \var elementwise_traffic
  /// Multiple of the activations moved through HBM per pass by memory-bound work (0: folded
  /// into compute_efficiency).
  /// \var hbm_tb_s
  /// HBM bandwidth per chip, TB/s (the "platform.hbm_tb_s_per_chip" input).
  double elementwise_traffic = 0, hbm_tb_s = 0;
  /// Extrapolated mode: the fitted error factor of the model's ratio (the "extrapolation.error" input).
  double extrapolation_error = 1;
  // Hardware-profile figures ("platform.*" inputs, not scenario fields).
  /// \var peak_tflops
  /// Peak TFLOPS per chip at throughput.precision ("platform.peak_tflops_per_chip.<precision>").
  /// \var intra_gb_s
  /// Nominal bandwidth of one chip into the fast domain (NeuronLink, NVLink), GB/s per direction.
  /// \var intra_latency_us
  /// Latency per message step of a collective inside the fast domain, microseconds.
  /// \var intra_efficiency
  /// Achieved / nominal bandwidth inside the fast domain, in (0, 1].
  /// \var inter_gb_s
  /// Nominal inter-node (EFA) bandwidth per chip, GB/s per direction.
  /// \var inter_latency_us
  /// Latency per message step of a collective across nodes, microseconds.
  /// \var inter_efficiency
  /// Achieved / nominal inter-node bandwidth, in (0, 1].
  double peak_tflops = 0, intra_gb_s = 0, intra_latency_us = 0, intra_efficiency = 1, inter_gb_s = 0,
         inter_latency_us = 0, inter_efficiency = 1;
};

}  // namespace trnmodel
