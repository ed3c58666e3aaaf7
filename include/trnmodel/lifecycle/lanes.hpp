#pragma once
// The lifecycle over a block of samples at once (docs/lifecycle.md, "The common path"): most
// samples of most jobs meet no event between their start and their end (no failure, no
// interruption), and for them every rule of the lifecycle is a fixed sequence of additions. This
// computes that sequence for every sample of a part of a block, reading each input in place from
// its column (structure of arrays: no per-sample copy of the inputs, no state to zero), and lists
// the samples that meet an event, or that it cannot vouch for, for the per-sample simulator
// (simulator.hpp), which runs them alone.
//
// Same numbers: for each sample it keeps, the common path performs the operations the
// per-sample simulator performs for that sample, in the same order, so the outputs are the same
// bits (tests/cpp/test_lanes.cpp compares the two on every example and on random jobs). It
// handles a job without stages, bought on demand, with exponential times between failures;
// other jobs run every sample through the per-sample simulator.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "trnmodel/dist/lane_math.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulator.hpp"
#include "trnmodel/random/isa.hpp"
#include "trnmodel/scenario/inputs.hpp"

namespace trnmodel::detail {

/// The inputs the common path reads, each a column of the part's samples: a drawn input's own
/// column, or a column holding a fixed input's value (lane_columns).
struct lane_inputs {
  const double *effective_steps, *step_time_s, *data_stall_fraction;
  const double *queue_wait_s, *env_prep_s, *data_load_s;
  const double *initial_s, *recompile_s, *planned_changes;
  const double *every_steps, *save_s, *verify_s, *size_gb;
  const double *eval_every_steps, *eval_time_s, *eval_final_s;
  const double *node_mtbf_h, *rerun_prob, *rerun_fraction;
  const double *node_hour_usd, *storage_gb_month_usd, *transfer_gb_usd, *logs_gb_usd;
  const double *dataset_gb, *transfer_gb, *logs_gb_per_hour, *adaptation_h, *rate_usd_per_h;
};

/// The lifecycle_inputs member behind each lane_inputs column, in one list: the model points a
/// column at a drawn input's values or at its fixed value by walking it.
struct lane_member {
  double lifecycle_inputs::* input;
  const double* lane_inputs::* column;
};
inline constexpr lane_member lane_members[] = {
    {&lifecycle_inputs::effective_steps, &lane_inputs::effective_steps},
    {&lifecycle_inputs::step_time_s, &lane_inputs::step_time_s},
    {&lifecycle_inputs::data_stall_fraction, &lane_inputs::data_stall_fraction},
    {&lifecycle_inputs::queue_wait_s, &lane_inputs::queue_wait_s},
    {&lifecycle_inputs::env_prep_s, &lane_inputs::env_prep_s},
    {&lifecycle_inputs::data_load_s, &lane_inputs::data_load_s},
    {&lifecycle_inputs::initial_s, &lane_inputs::initial_s},
    {&lifecycle_inputs::recompile_s, &lane_inputs::recompile_s},
    {&lifecycle_inputs::planned_changes, &lane_inputs::planned_changes},
    {&lifecycle_inputs::every_steps, &lane_inputs::every_steps},
    {&lifecycle_inputs::save_s, &lane_inputs::save_s},
    {&lifecycle_inputs::verify_s, &lane_inputs::verify_s},
    {&lifecycle_inputs::size_gb, &lane_inputs::size_gb},
    {&lifecycle_inputs::eval_every_steps, &lane_inputs::eval_every_steps},
    {&lifecycle_inputs::eval_time_s, &lane_inputs::eval_time_s},
    {&lifecycle_inputs::eval_final_s, &lane_inputs::eval_final_s},
    {&lifecycle_inputs::node_mtbf_h, &lane_inputs::node_mtbf_h},
    {&lifecycle_inputs::rerun_prob, &lane_inputs::rerun_prob},
    {&lifecycle_inputs::rerun_fraction, &lane_inputs::rerun_fraction},
    {&lifecycle_inputs::node_hour_usd, &lane_inputs::node_hour_usd},
    {&lifecycle_inputs::storage_gb_month_usd, &lane_inputs::storage_gb_month_usd},
    {&lifecycle_inputs::transfer_gb_usd, &lane_inputs::transfer_gb_usd},
    {&lifecycle_inputs::logs_gb_usd, &lane_inputs::logs_gb_usd},
    {&lifecycle_inputs::dataset_gb, &lane_inputs::dataset_gb},
    {&lifecycle_inputs::transfer_gb, &lane_inputs::transfer_gb},
    {&lifecycle_inputs::logs_gb_per_hour, &lane_inputs::logs_gb_per_hour},
    {&lifecycle_inputs::adaptation_h, &lane_inputs::adaptation_h},
    {&lifecycle_inputs::rate_usd_per_h, &lane_inputs::rate_usd_per_h},
};
inline constexpr std::size_t lane_member_count = sizeof(lane_members) / sizeof(lane_members[0]);

/// Whether a job's samples can take the common path: no stages, bought on demand, exponential
/// times between failures (the per-sample simulator runs the others).
inline bool common_path_applies(const lifecycle_config& config, std::size_t stages) {
  return stages == 1 && config.purchase == purchase_mode::on_demand && !config.weibull;
}

/// The exponent λ·D of an attempt of D seconds at failure rate λ up to which the per-sample
/// simulator's refusals (a segment expecting more than 10^4 failures, a sample more than 10^7)
/// cannot apply to a sample that meets no failure: e^9 − 1 ≈ 8,103 < 10^4, and with no failure
/// the exponential drawn, at most 53 ln 2 ≈ 36.8 (the largest uniform is 1 − 2^-53), bounds count·λ·D, so a run
/// of segments expects at most 36.8 · e^9 ≈ 3·10^5 < 10^7 (count·(e^x − 1) ≤ count·x·e^x for x ≥ 0).
inline constexpr double common_path_max_exponent = 9.0;

// The cost inputs of one sample, read from the columns (fill_costs's names).
struct lane_cost_inputs {
  double node_hour_usd, block_usd, spot_node_hour_usd, dataset_gb, size_gb, storage_gb_month_usd, transfer_gb,
      transfer_gb_usd, logs_gb_per_hour, logs_gb_usd, adaptation_h, rate_usd_per_h, step_time_s, effective_steps;
};

// Metric m of sample i at column m of a part's outputs: out[m * stride + i].
struct lane_row {
  double* out;
  std::ptrdiff_t stride;
  std::ptrdiff_t i;
  double& operator[](std::size_t m) const { return out[static_cast<std::ptrdiff_t>(m) * stride + i]; }
};

// One sample on the common path: its metrics into row[0 .. metric::step_time_s) (the step time
// and its parts are the caller's), and 1; 0 when the sample meets an event or the common path
// cannot vouch for it (the per-sample simulator then runs it). `u_failure` and `u_quality` are
// the sample's first draws of its failure and quality-gate streams. The comments name the
// per-sample simulator's steps (simulator.hpp) each line repeats.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
inline double
common_path_sample(const lane_inputs& in, std::size_t i, const lifecycle_config& config, double u_failure,
                   double u_quality, const lane_row& row) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double nodes = static_cast<double>(config.nodes);
  // enter_stage
  const double effective = std::ceil(in.effective_steps[i]);
  const double steps = 1.0 < effective ? effective : 1.0;  // std::max(1.0, effective)
  const double step_s = in.step_time_s[i];
  const double t_eff = step_s / (1 - in.data_stall_fraction[i]);
  const double eval_per_step = in.eval_every_steps[i] > 0 ? in.eval_time_s[i] / in.eval_every_steps[i] : 0.0;
  const double every = std::round(in.every_steps[i]);
  const double save = in.save_s[i] + in.verify_s[i];
  const double mtbf_h = in.node_mtbf_h[i];
  const double rate = std::isfinite(mtbf_h) ? nodes / (mtbf_h * 3600) : 0.0;
  // The start: queue, environment, compile, data load, each a phase and a step of the clock.
  double clock = 0;
  const double queue = 0 + in.queue_wait_s[i];
  clock += in.queue_wait_s[i];
  const double setup = 0 + in.env_prep_s[i];
  clock += in.env_prep_s[i];
  double compile = 0 + in.initial_s[i];
  clock += in.initial_s[i];
  const double warmup = 0 + in.data_load_s[i];
  clock += in.data_load_s[i];
  // draw_time_to_failure
  double time_to_failure = rate <= 0 ? inf : -dist::detail::lane_log1p(-u_failure) / rate;
  // add_runs(steps): `full` segments of every steps (run a), then the last one (run b).
  const double per_step = t_eff + eval_per_step;
  // (Nested selects on doubles rather than bools: what the vectoriser takes. Where a run is not
  // cut, full is 0 and steps − 0·every is steps, bit for bit.)
  const double full = every > 0 ? (every < steps ? std::ceil(steps / every) - 1 : 0.0) : 0.0;
  const double last = steps - full * every;
  const double duration_a = every * per_step + save;
  const double last_save = config.final_save ? save : 0.0;
  const double duration_b = last * per_step + last_save;
  // The quality gate's rerun (runs c and d), or none (counts 0, which add +0 below).
  const double redo = u_quality < in.rerun_prob[i] ? std::ceil(in.rerun_fraction[i] * steps) : 0.0;
  const double full_c = every > 0 ? (every < redo ? std::ceil(redo / every) - 1 : 0.0) : 0.0;
  const double last_d = redo - full_c * every;
  const double count_d = redo >= 1 ? 1.0 : 0.0;
  const double duration_d = last_d * per_step + last_save;
  // No event: each run of segments ends before the next failure (attempt's first case), and no
  // refusal can apply (common_path_max_exponent).
  // `kept` is 1 while the sample stays on the common path, else 0.
  constexpr double largest = std::numeric_limits<double>::max();
  double kept = std::abs(duration_a) <= largest ? 1.0 : 0.0;
  kept = std::abs(duration_b) <= largest ? kept : 0.0;
  kept = std::abs(duration_d) <= largest ? kept : 0.0;
  const double longest = duration_a > duration_b ? duration_a : duration_b;
  kept = rate * (longest > duration_d ? longest : duration_d) <= common_path_max_exponent ? kept : 0.0;
  // complete(full, a)
  kept = time_to_failure >= full * duration_a ? kept : 0.0;
  const double steps_a = full * every;
  double useful = 0 + steps_a * step_s;
  double stall = 0 + steps_a * (t_eff - step_s);
  double eval = 0 + steps_a * eval_per_step;
  double checkpoint = 0 + full * save;
  clock += full * duration_a - 0.0;
  time_to_failure -= full * duration_a;
  // complete(1, b)
  kept = time_to_failure >= 1 * duration_b ? kept : 0.0;
  const double steps_b = 1 * last;
  useful += steps_b * step_s;
  stall += steps_b * (t_eff - step_s);
  eval += steps_b * eval_per_step;
  checkpoint += 1 * last_save;
  clock += 1 * duration_b - 0.0;
  time_to_failure -= 1 * duration_b;
  // Planned graph changes: one full recompile each.
  const double changes = std::round(in.planned_changes[i]);
  compile += changes * in.recompile_s[i];
  clock += changes * in.recompile_s[i];
  // complete(full_c, c), complete(1, d): the rerun's steps.
  kept = time_to_failure >= full_c * duration_a ? kept : 0.0;
  const double steps_c = full_c * every;
  double rerun_s = 0 + steps_c * (t_eff + eval_per_step);
  checkpoint += full_c * save;
  clock += full_c * duration_a - 0.0;
  time_to_failure -= full_c * duration_a;
  kept = time_to_failure >= count_d * duration_d ? kept : 0.0;
  const double steps_d = count_d * last_d;
  rerun_s += steps_d * (t_eff + eval_per_step);
  checkpoint += count_d * last_save;
  clock += count_d * duration_d - 0.0;
  // The final evaluation.
  eval += in.eval_final_s[i];
  clock += in.eval_final_s[i];
  kept = std::abs(clock) <= largest ? kept : 0.0;

  // lifecycle_sample::run's outputs.
  row[metric::queue_h] = queue / 3600;
  row[metric::setup_h] = setup / 3600;
  row[metric::compile_h] = compile / 3600;
  row[metric::warmup_h] = warmup / 3600;
  row[metric::useful_h] = useful / 3600;
  row[metric::stall_h] = stall / 3600;
  row[metric::eval_h] = eval / 3600;
  row[metric::checkpoint_h] = checkpoint / 3600;
  row[metric::lost_h] = 0.0;
  row[metric::recovery_h] = 0.0;
  row[metric::rerun_h] = rerun_s / 3600;
  row[metric::transition_h] = 0.0;
  const double wall = clock / 3600;
  row[metric::wall_h] = wall;
  row[metric::billed_h] = config.queue_billed ? wall : wall - queue / 3600;
  row[metric::node_h] = nodes * row[metric::billed_h];
  row[metric::goodput] = wall > 0 ? row[metric::useful_h] / wall : 0.0;
  row[metric::failures] = 0.0;
  row[metric::recompiles] = 0 + changes;
  row[metric::restore_fallbacks] = 0.0;
  row[metric::interruptions] = 0.0;
  row[metric::block_fit] = std::numeric_limits<double>::quiet_NaN();  // not a block
  row[metric::block_idle_h] = 0.0;
  row[metric::overflow_h] = 0.0;
  const lane_cost_inputs costs{in.node_hour_usd[i],
                               std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::quiet_NaN(),
                               in.dataset_gb[i],
                               in.size_gb[i],
                               in.storage_gb_month_usd[i],
                               in.transfer_gb[i],
                               in.transfer_gb_usd[i],
                               in.logs_gb_per_hour[i],
                               in.logs_gb_usd[i],
                               in.adaptation_h[i],
                               in.rate_usd_per_h[i],
                               step_s,
                               in.effective_steps[i]};
  cost_ledger(costs, config, row, 0 / 3600.0);
  // costs_refused (NaN is unknown, not refused).
  constexpr double inf_cost = std::numeric_limits<double>::infinity();
  kept = std::abs(row[metric::node_h]) != inf_cost ? kept : 0.0;
  kept = std::abs(row[metric::total_cost_usd]) != inf_cost ? kept : 0.0;
  kept = std::abs(row[metric::useful_step_cost_usd]) != inf_cost ? kept : 0.0;
  return kept;
}

// The common path's loop, compiled once per instruction set (random/isa.hpp) and per setting
// the loop reads (a save at the end, a billed queue): branch-free in the samples, with every
// setting a constant, so that it runs in vector lanes where the instruction set has them (ceil
// and round need SSE4.1), with the same bits on every path (IEEE operations only, no
// contraction).
template <bool FinalSave, bool QueueBilled>
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
inline void
common_path_body(const lane_inputs& in, const lifecycle_config& config, const double* u_failure,
                 const double* u_quality, double* out, std::ptrdiff_t out_stride, std::size_t n, double* kept) {
  // Local copies: the column pointers and settings stay in registers, where no store of the loop
  // can reach them.
  const lane_inputs columns = in;
  lifecycle_config settings = config;
  settings.purchase = purchase_mode::on_demand;  // common_path_applies
  settings.weibull = false;
  settings.final_save = FinalSave;
  settings.queue_billed = QueueBilled;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
  for (std::size_t i = 0; i < n; ++i)
    kept[i] = common_path_sample(columns, i, settings, u_failure[i], u_quality[i],
                                 lane_row{out, out_stride, static_cast<std::ptrdiff_t>(i)});
}
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
inline void
common_path_settings(const lane_inputs& in, const lifecycle_config& config, const double* u_failure,
                     const double* u_quality, double* out, std::ptrdiff_t out_stride, std::size_t n,
                     double* kept) {
  if (config.final_save) {
    if (config.queue_billed)
      common_path_body<true, true>(in, config, u_failure, u_quality, out, out_stride, n, kept);
    else
      common_path_body<true, false>(in, config, u_failure, u_quality, out, out_stride, n, kept);
  } else {
    if (config.queue_billed)
      common_path_body<false, true>(in, config, u_failure, u_quality, out, out_stride, n, kept);
    else
      common_path_body<false, false>(in, config, u_failure, u_quality, out, out_stride, n, kept);
  }
}
inline void common_path_sse2(const lane_inputs& in, const lifecycle_config& config, const double* u_failure,
                             const double* u_quality, double* out, std::ptrdiff_t out_stride, std::size_t n,
                             double* kept) {
  common_path_settings(in, config, u_failure, u_quality, out, out_stride, n, kept);
}
#ifdef TRNMODEL_X86_DISPATCH
TRNMODEL_TARGET_AVX2 inline void common_path_avx2(const lane_inputs& in, const lifecycle_config& config,
                                                  const double* u_failure, const double* u_quality, double* out,
                                                  std::ptrdiff_t out_stride, std::size_t n, double* kept) {
  common_path_settings(in, config, u_failure, u_quality, out, out_stride, n, kept);
}
TRNMODEL_TARGET_AVX512 inline void common_path_avx512(const lane_inputs& in, const lifecycle_config& config,
                                                      const double* u_failure, const double* u_quality, double* out,
                                                      std::ptrdiff_t out_stride, std::size_t n, double* kept) {
  common_path_settings(in, config, u_failure, u_quality, out, out_stride, n, kept);
}
#endif

/// The common path for the samples [0, n) of a part (n ≤ 256): each sample's metrics into its
/// row of the output columns (out + m · out_stride for metric m < metric::step_time_s), and the
/// rows the per-sample simulator must run instead listed in `others`, whose count it returns
/// (their outputs here are to be overwritten). `u_failure` and `u_quality` hold each sample's
/// first draw of its failure and quality-gate streams.
inline std::size_t common_path(const lane_inputs& in, const lifecycle_config& config, const double* u_failure,
                               const double* u_quality, double* out, std::ptrdiff_t out_stride, std::size_t n,
                               std::size_t* others) {
  double kept[256];
#ifdef TRNMODEL_X86_DISPATCH
  switch (active_isa()) {
    case isa::avx512: common_path_avx512(in, config, u_failure, u_quality, out, out_stride, n, kept); break;
    case isa::avx2: common_path_avx2(in, config, u_failure, u_quality, out, out_stride, n, kept); break;
    default: common_path_sse2(in, config, u_failure, u_quality, out, out_stride, n, kept); break;
  }
#else
  common_path_sse2(in, config, u_failure, u_quality, out, out_stride, n, kept);
#endif
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    others[count] = i;
    count += kept[i] != 0 ? 0u : 1u;
  }
  return count;
}

}  // namespace trnmodel::detail
