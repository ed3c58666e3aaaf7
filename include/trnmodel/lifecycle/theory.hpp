#pragma once
// Closed-form checkpoint/restart theory (docs/lifecycle.md). The lifecycle simulator must reproduce
// these numbers with constant inputs and exponential failures, so they are its test oracle;
// they also give quick answers (optimal interval, expected wall time, ETTR) without sampling.
//
// Model shared by every function below: failures form a Poisson process of rate λ = 1/M
// (M = mtbf_s, the job's mean time between failures) over exposed time. The work is cut
// into segments of duration D = compute + save; a failure loses everything done in the
// current attempt, then a recovery of duration R runs and the segment restarts from its
// beginning. Only a segment that runs to its end, save included, counts as done.
//
// Sources:
//   Young, "A first order approximation to the optimum checkpoint interval",
//     Commun. ACM 17(9):530-531, 1974.
//   Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
//     Future Gener. Comput. Syst. 22(3):303-312, 2006 (doi:10.1016/j.future.2004.11.016).
//   Kokolis et al. (Meta), "Revisiting Reliability in Large-Scale Machine Learning Research
//     Clusters", HPCA 2025, arXiv:2410.21680.
#include <cmath>

#include "trnmodel/check.hpp"

namespace trnmodel::theory {

namespace detail {

// An expectation so large that it overflows is a scenario error (a segment or recovery
// hundreds of times longer than the MTBF), not a number to pass on.
inline double check_no_overflow(double expectation, double mtbf_s) {
  if (!std::isfinite(expectation))
    trnmodel::detail::fail("mtbf_s", "too short for these durations, the expectation overflows; got " +
                                         trnmodel::detail::format_number(mtbf_s));
  return expectation;
}

}  // namespace detail

/// Young (1974): minimising the first-order loss δ/τ + τ/(2M) (checkpoint cost per unit of
/// work + half an interval redone per failure) gives τ = √(2δM), τ being the compute time
/// between checkpoints; accurate while δ ≪ M.
inline double young_interval_s(double checkpoint_s, double mtbf_s) {
  trnmodel::detail::check_positive("checkpoint_s", checkpoint_s);
  trnmodel::detail::check_positive("mtbf_s", mtbf_s);
  return std::sqrt(2 * checkpoint_s * mtbf_s);
}

/// Daly (2006), perturbation solution of the complete model (daly_wall_time_s) for the
/// optimal compute interval: √(2δM)·[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ when δ < 2M, and M when
/// δ ≥ 2M (Daly's choice where the expansion in √(δ/2M) is no longer usable). The restart
/// time R drops out of the optimum: it enters T_w only as a constant factor. It agrees with Young
/// to first order in √(δ/M) (the relative
/// gap is −⅔√(δ/2M) + O(δ/M)); for Daly's Fig. 3 case (M = 24 h, δ = 5 min) it gives
/// 116.69 min, the paper's "τ_opt = 117 min".
inline double daly_interval_s(double checkpoint_s, double mtbf_s) {
  trnmodel::detail::check_positive("checkpoint_s", checkpoint_s);
  trnmodel::detail::check_positive("mtbf_s", mtbf_s);
  if (checkpoint_s >= 2 * mtbf_s) return mtbf_s;
  const double xi = checkpoint_s / (2 * mtbf_s);
  return std::sqrt(2 * checkpoint_s * mtbf_s) * (1 + std::sqrt(xi) / 3 + xi / 9) - checkpoint_s;
}

/// Expected wall time to complete one segment of duration D (compute + save) with a recovery
/// of duration R after every failure:
///   recoveries cannot fail:  (e^{λD} − 1)(1/λ + R)
///     (e^{λD} − 1 failed attempts on average, each losing E[lost] = 1/λ − D/(e^{λD} − 1)
///     and followed by R; plus the final D: the terms in D cancel);
///   recoveries can fail:     (e^{λD} − 1)·e^{λR}/λ
///     (Daly's assumption: an interrupted recovery starts again, so all time is exposed and
///     the expected time is the expected number of failures, (e^{λD} − 1)e^{λR}, times 1/λ).
/// expm1 keeps full accuracy when λD is small, where e^{λD} − 1 would cancel; as λ → 0 both
/// tend to D.
inline double expected_segment_time_s(double segment_s, double recovery_s, double mtbf_s, bool recovery_can_fail) {
  trnmodel::detail::check_nonnegative("segment_s", segment_s);
  trnmodel::detail::check_nonnegative("recovery_s", recovery_s);
  trnmodel::detail::check_positive("mtbf_s", mtbf_s);
  const double attempts_lost = std::expm1(segment_s / mtbf_s);  // e^{λD} − 1
  const double time_s = recovery_can_fail ? attempts_lost * std::exp(recovery_s / mtbf_s) * mtbf_s
                                          : attempts_lost * (mtbf_s + recovery_s);
  return detail::check_no_overflow(time_s, mtbf_s);
}

/// Daly (2006), complete model of the expected wall time for a job of T_s seconds of solve
/// (compute) time, checkpointed every τ seconds of compute at a cost δ, restarted at cost R:
///   recovery can fail (Daly's model):  T_w = M e^{R/M} (e^{(τ+δ)/M} − 1) T_s/τ
///   recovery cannot fail:              T_w = (M + R)(e^{(τ+δ)/M} − 1) T_s/τ
/// Both are T_s/τ times expected_segment_time_s with D = τ + δ: every segment, the last one
/// included, ends with a checkpoint. The formulas are exact only when T_s/τ is a whole
/// number; otherwise they treat the last, shorter segment as a fraction of a full one, which
/// is an approximation (use expected_segment_time_s per segment for the exact sum).
/// Reproduces Daly's Fig. 3: M = 24 h, δ = 5 min, R = 10 min, T_s = 500 h, τ = 120 min give
/// T_w = 547.90 h.
inline double daly_wall_time_s(double solve_s, double interval_s, double checkpoint_s, double recovery_s, double mtbf_s,
                               bool recovery_can_fail = true) {
  trnmodel::detail::check_nonnegative("solve_s", solve_s);
  trnmodel::detail::check_positive("interval_s", interval_s);
  trnmodel::detail::check_nonnegative("checkpoint_s", checkpoint_s);
  trnmodel::detail::check_nonnegative("recovery_s", recovery_s);
  trnmodel::detail::check_positive("mtbf_s", mtbf_s);
  const double segments = solve_s / interval_s;
  const double growth = std::expm1((interval_s + checkpoint_s) / mtbf_s);  // e^{(τ+δ)/M} − 1
  const double per_failure_cycle_s = recovery_can_fail ? mtbf_s * std::exp(recovery_s / mtbf_s) : mtbf_s + recovery_s;
  return detail::check_no_overflow(per_failure_cycle_s * growth * segments, mtbf_s);
}

/// Expected number of failures before one segment of duration D completes. Attempts succeed
/// with probability e^{−λD}, so the failed attempts are geometric with mean e^{λD} − 1 (the
/// negative binomial shortcut of docs/lifecycle.md sums this over segments). When recoveries can
/// fail, each of those recoveries itself suffers e^{λR} − 1 failures on average, for a total
/// of (e^{λD} − 1)·e^{λR}. Counts every failure, those that interrupt a recovery included
/// (the `failures` metric of docs/metrics.md).
inline double expected_failures_per_segment(double segment_s, double recovery_s, double mtbf_s,
                                            bool recovery_can_fail) {
  trnmodel::detail::check_nonnegative("segment_s", segment_s);
  trnmodel::detail::check_nonnegative("recovery_s", recovery_s);
  trnmodel::detail::check_positive("mtbf_s", mtbf_s);
  const double attempts_lost = std::expm1(segment_s / mtbf_s);
  const double failures = recovery_can_fail ? attempts_lost * std::exp(recovery_s / mtbf_s) : attempts_lost;
  return detail::check_no_overflow(failures, mtbf_s);
}

/// Expected time lost in a failed attempt of a segment of duration D: the mean of an
/// exponential truncated to [0, D),
///   E[X | X < D] = 1/λ − D/(e^{λD} − 1) = D·g(λD),  g(x) = 1/x − 1/(e^x − 1),
/// which tends to D/2 as λD → 0 (a failure lands uniformly; the "half an interval" of Young)
/// and to 1/λ as λD → ∞. For small x the two terms of g cancel, so there g uses its Taylor
/// series 1/2 − x/12 + x³/720 − x⁵/30240 (next term x⁷/1209600: below 1e-20 at x < 0.01).
/// The same formula with D = R gives the time lost in an interrupted recovery.
inline double expected_lost_per_failure_s(double segment_s, double mtbf_s) {
  trnmodel::detail::check_nonnegative("segment_s", segment_s);
  trnmodel::detail::check_positive("mtbf_s", mtbf_s);
  const double x = segment_s / mtbf_s;
  if (x < 1e-2) {
    const double x2 = x * x;
    return segment_s * (0.5 - x / 12 + x * x2 / 720 - x * x2 * x2 / 30240);
  }
  return segment_s * (1 / x - 1 / std::expm1(x));  // expm1 → ∞ for huge x: gives 1/λ
}

/// First-order expected ETTR (effective training time ratio: productive time / wall time) of
/// Kokolis et al. (Meta, arXiv:2410.21680):
///   E[ETTR] ≈ (1 − N·r_f·(u0 + Δt_cp/2)) / (1 + w_cp/Δt_cp)
/// with N nodes, r_f failures per node per unit time (here 1/node_mtbf_h), u0 the restart
/// overhead, Δt_cp the productive time between checkpoints and w_cp the checkpoint write
/// time. Provenance: we could not read the paper's text; this is the expression as quoted,
/// identically, by two independent secondary reproductions of its v2. It coincides with our
/// own first-order derivation: failures arrive at λ = N/node_mtbf_h per wall-clock hour and
/// each costs u0 plus, on average, half an interval of redone work, which leaves
/// 1 − λ(u0 + Δt_cp/2) of the wall time running; of the running time Δt_cp/(Δt_cp + w_cp)
/// is productive. The paper's estimator also has a queue time after submission and after
/// each interruption; it is ignored here (q = 0: no queueing or scheduling delay).
/// What first order leaves out: failures during saves and restarts, and O((λ·Δt_cp)²)
/// terms; the exact ratio under the same assumptions is
///   τ / expected_segment_time_s(τ + δ, u0, M, false)
/// and the two agree to O(λ·w_cp + (λ(Δt_cp + w_cp + u0))²). Returned as computed: it
/// falls to ≤ 0 when λ(u0 + Δt_cp/2) ≥ 1, far outside the regime where it means anything.
inline double meta_ettr_first_order(double nodes, double node_mtbf_h, double checkpoint_interval_h,
                                    double checkpoint_save_h, double restart_h) {
  trnmodel::detail::check_positive("nodes", nodes);
  trnmodel::detail::check_positive("node_mtbf_h", node_mtbf_h);
  trnmodel::detail::check_positive("checkpoint_interval_h", checkpoint_interval_h);
  trnmodel::detail::check_nonnegative("checkpoint_save_h", checkpoint_save_h);
  trnmodel::detail::check_nonnegative("restart_h", restart_h);
  const double job_failures_per_h = nodes / node_mtbf_h;
  const double running_fraction = 1 - job_failures_per_h * (restart_h + checkpoint_interval_h / 2);
  return running_fraction / (1 + checkpoint_save_h / checkpoint_interval_h);
}

}  // namespace trnmodel::theory
