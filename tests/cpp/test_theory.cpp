#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/lifecycle/theory.hpp"

using namespace trnmodel;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

// The file's own namespace: its helpers and using-directive stay out of the other test files
// (the tests are also compiled as unity translation units).
namespace test_theory {

using namespace trnmodel::theory;

namespace {

constexpr double minute_s = 60;
constexpr double hour_s = 3600;

// One segment run to completion by brute force: exponential times to failure, renewed at
// every failure; a failed attempt loses its time, then a recovery of recovery_s runs (and is
// itself restarted when it can fail and a failure hits it).
struct segment_outcome {
  double time_s = 0;
  int failures = 0;
};

segment_outcome simulate_segment(double segment_s, double recovery_s, double mtbf_s, bool recovery_can_fail,
                                 std::mt19937_64& rng) {
  std::exponential_distribution<double> time_to_failure(1 / mtbf_s);
  segment_outcome out;
  for (;;) {
    const double x = time_to_failure(rng);
    if (x >= segment_s) {
      out.time_s += segment_s;
      return out;
    }
    out.time_s += x;
    ++out.failures;
    if (!recovery_can_fail) {
      out.time_s += recovery_s;
      continue;
    }
    for (;;) {
      const double y = time_to_failure(rng);
      if (y >= recovery_s) {
        out.time_s += recovery_s;
        break;
      }
      out.time_s += y;
      ++out.failures;
    }
  }
}

struct sample_mean {
  double mean;
  double standard_error;
};

sample_mean summarize(const std::vector<double>& x) {
  double sum = 0;
  for (const double v : x) sum += v;
  const double mean = sum / static_cast<double>(x.size());
  double m2 = 0;
  for (const double v : x) m2 += (v - mean) * (v - mean);
  const double variance = m2 / static_cast<double>(x.size() - 1);
  return {mean, std::sqrt(variance / static_cast<double>(x.size()))};
}

// Golden-section search for the minimum of a unimodal function on [lo, hi].
double argmin(const std::function<double(double)>& f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 200 && b - a > 1e-12 * (a + b); ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - ratio * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + ratio * (b - a);
      fd = f(d);
    }
  }
  return (a + b) / 2;
}

// Composite Simpson rule with n (even) intervals.
double simpson(const std::function<double(double)>& f, double lo, double hi, int n) {
  const double h = (hi - lo) / n;
  double sum = f(lo) + f(hi);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * f(lo + i * h);
  return sum * h / 3;
}

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Daly's Fig. 3 case: expected wall time 547.90 h", "[theory]") {
  const double mtbf_s = 24 * hour_s, checkpoint_s = 5 * minute_s, recovery_s = 10 * minute_s;
  const double solve_s = 500 * hour_s, interval_s = 120 * minute_s;
  // Daly's model: an interrupted recovery starts again.
  CHECK_THAT(daly_wall_time_s(solve_s, interval_s, checkpoint_s, recovery_s, mtbf_s) / hour_s, WithinAbs(547.90, 0.01));
  // Recovery that cannot fail: (M + R)(e^{(τ+δ)/M} − 1) T_s/τ, all in hours, written out.
  const double expected_h = (24 + 10.0 / 60) * (std::exp((125.0 / 60) / 24) - 1) * (500 / 2.0);
  CHECK_THAT(daly_wall_time_s(solve_s, interval_s, checkpoint_s, recovery_s, mtbf_s, false) / hour_s,
             WithinRel(expected_h, 1e-12));
  CHECK_THAT(expected_h, WithinAbs(547.886, 0.001));
  // A failure during a 10-min recovery is possible, so that variant is the slower one.
  CHECK(daly_wall_time_s(solve_s, interval_s, checkpoint_s, recovery_s, mtbf_s, true) >
        daly_wall_time_s(solve_s, interval_s, checkpoint_s, recovery_s, mtbf_s, false));
}

TEST_CASE("Young's interval is sqrt(2 delta M)", "[theory]") {
  // δ = 5 min, M = 24 h: √(2 · 300 · 86400) = √51,840,000 = 7200 s, exactly 2 h.
  CHECK_THAT(young_interval_s(5 * minute_s, 24 * hour_s), WithinRel(7200.0, 1e-15));
  // δ = 1 min, M = 3.1 h (Llama 3's job MTBF): √(2 · 60 · 11160) s.
  CHECK_THAT(young_interval_s(60, 3.1 * hour_s), WithinRel(1157.2380913191546, 1e-14));
}

TEST_CASE("Daly's interval: published values, the formula, and the true optimum", "[theory]") {
  const double checkpoint_s = 5 * minute_s;
  // Captions of Daly's Figs. 3-5 (δ = 5 min, R = 10 min): τ_opt = 117 min, 57 min, 9.1 min.
  CHECK_THAT(daly_interval_s(checkpoint_s, 24 * hour_s) / minute_s, WithinAbs(117, 0.5));
  CHECK_THAT(daly_interval_s(checkpoint_s, 6 * hour_s) / minute_s, WithinAbs(57, 0.5));
  CHECK_THAT(daly_interval_s(checkpoint_s, 15 * minute_s) / minute_s, WithinAbs(9.1, 0.05));

  // The formula, in minutes, for M = 24 h: ξ = δ/2M = 5/2880.
  const double xi = 5.0 / 2880;
  const double expected_min = std::sqrt(2.0 * 5 * 1440) * (1 + std::sqrt(xi) / 3 + xi / 9) - 5;
  CHECK_THAT(daly_interval_s(checkpoint_s, 24 * hour_s) / minute_s, WithinRel(expected_min, 1e-14));
  CHECK_THAT(expected_min, WithinAbs(116.6898, 1e-4));

  // δ ≥ 2M: checkpoint at M.
  CHECK(daly_interval_s(2 * hour_s, 1 * hour_s) == 1 * hour_s);
  CHECK(daly_interval_s(5 * hour_s, 1 * hour_s) == 1 * hour_s);

  // The interval that minimises Daly's own expected wall time (found by golden-section
  // search) is Daly's interval, closely for small δ/M, and it beats Young's.
  struct case_t {
    double mtbf_s, tolerance;
  };
  for (const case_t c : {case_t{24 * hour_s, 1e-4}, case_t{6 * hour_s, 1e-4}, case_t{15 * minute_s, 5e-3}}) {
    const auto wall_s = [&](double interval_s) {
      return daly_wall_time_s(500 * hour_s, interval_s, checkpoint_s, 10 * minute_s, c.mtbf_s);
    };
    const double best_s = argmin(wall_s, 1, 10 * c.mtbf_s);
    const double daly_s = daly_interval_s(checkpoint_s, c.mtbf_s);
    CHECK_THAT(daly_s, WithinRel(best_s, c.tolerance));
    CHECK(wall_s(daly_s) <= wall_s(young_interval_s(checkpoint_s, c.mtbf_s)));
  }
}

TEST_CASE("Daly's interval agrees with Young's to first order in sqrt(delta/M)", "[theory]") {
  // With s = √(δ/2M), δ/√(2δM) = s, so daly/young − 1 = −⅔s + s²/9 exactly: the gap
  // vanishes as δ/M → 0.
  const double mtbf_s = 24 * hour_s;
  double previous_gap = 1;
  for (const double ratio : {1e-2, 1e-4, 1e-6, 1e-8}) {
    const double checkpoint_s = ratio * mtbf_s;
    const double young_s = young_interval_s(checkpoint_s, mtbf_s);
    const double daly_s = daly_interval_s(checkpoint_s, mtbf_s);
    const double s = std::sqrt(ratio / 2);
    const double gap = std::abs(daly_s / young_s - 1);
    CHECK_THAT(daly_s / young_s - 1, WithinAbs(-2 * s / 3 + s * s / 9, 1e-12));
    CHECK(gap < std::sqrt(ratio));
    CHECK(gap < previous_gap / 9);  // shrinks like √(δ/M): ×10 per factor 100
    previous_gap = gap;
  }
}

TEST_CASE("expected time per segment times the segment count is Daly's wall time", "[theory]") {
  struct case_t {
    double solve_s, interval_s, checkpoint_s, recovery_s, mtbf_s;
  };
  const std::vector<case_t> cases{
      {500 * hour_s, 120 * minute_s, 5 * minute_s, 10 * minute_s, 24 * hour_s},
      {500 * hour_s, 20 * minute_s, 5 * minute_s, 10 * minute_s, 15 * minute_s},
      {72 * hour_s, 1 * hour_s, 30, 25 * minute_s, 3.1 * hour_s},
      {10 * hour_s, 2 * hour_s, 0, 0, 1 * hour_s},
  };
  for (const auto& c : cases) {
    for (const bool recovery_can_fail : {true, false}) {
      const double segment_s = c.interval_s + c.checkpoint_s;  // each segment ends with its save
      const double per_segment_s = expected_segment_time_s(segment_s, c.recovery_s, c.mtbf_s, recovery_can_fail);
      CHECK_THAT(per_segment_s * (c.solve_s / c.interval_s),
                 WithinRel(daly_wall_time_s(c.solve_s, c.interval_s, c.checkpoint_s, c.recovery_s, c.mtbf_s,
                                            recovery_can_fail),
                           1e-12));
    }
  }
}

TEST_CASE("expected time per segment: limits and decomposition", "[theory]") {
  const double segment_s = 2 * hour_s, recovery_s = 15 * minute_s;
  for (const bool recovery_can_fail : {true, false}) {
    // λ → 0: no failures, the segment takes D (relative error ~ D/M).
    CHECK_THAT(expected_segment_time_s(segment_s, recovery_s, 1e12 * segment_s, recovery_can_fail),
               WithinRel(segment_s, 1e-10));
    CHECK_THAT(expected_failures_per_segment(segment_s, recovery_s, 1e12 * segment_s, recovery_can_fail),
               WithinRel(1e-12, 1e-6));
    CHECK(expected_segment_time_s(0, recovery_s, hour_s, recovery_can_fail) == 0);
  }
  // Decomposition: D + failed attempts × (time lost in one + what follows it). A recovery that
  // can fail takes, on average, the time of a segment of duration R with no recovery.
  for (const double mtbf_s : {20 * minute_s, 3 * hour_s, 100 * hour_s}) {
    const double failures = expected_failures_per_segment(segment_s, recovery_s, mtbf_s, false);
    const double lost_s = expected_lost_per_failure_s(segment_s, mtbf_s);
    CHECK_THAT(failures, WithinRel(std::exp(segment_s / mtbf_s) - 1, 1e-12));
    CHECK_THAT(expected_segment_time_s(segment_s, recovery_s, mtbf_s, false),
               WithinRel(segment_s + failures * (lost_s + recovery_s), 1e-12));
    const double recovery_time_s = expected_segment_time_s(recovery_s, 0, mtbf_s, true);
    CHECK_THAT(expected_segment_time_s(segment_s, recovery_s, mtbf_s, true),
               WithinRel(segment_s + failures * (lost_s + recovery_time_s), 1e-12));
    // Every second is exposed when recoveries can fail, so E[time] = E[failures] · M.
    CHECK_THAT(expected_segment_time_s(segment_s, recovery_s, mtbf_s, true),
               WithinRel(expected_failures_per_segment(segment_s, recovery_s, mtbf_s, true) * mtbf_s, 1e-12));
  }
}

TEST_CASE("expected time and failures per segment match a direct simulation", "[theory][simulation]") {
  // λD = 0.8 and λR = 0.3: about one failure per segment, so every term matters.
  const double mtbf_s = hour_s, segment_s = 0.8 * hour_s, recovery_s = 0.3 * hour_s;
  const int replicas = 200'000;
  for (const bool recovery_can_fail : {false, true}) {
    std::mt19937_64 rng(recovery_can_fail ? 20'060'303 : 19'740'901);
    std::vector<double> times, failures;
    times.reserve(replicas);
    failures.reserve(replicas);
    for (int i = 0; i < replicas; ++i) {
      const auto out = simulate_segment(segment_s, recovery_s, mtbf_s, recovery_can_fail, rng);
      times.push_back(out.time_s);
      failures.push_back(out.failures);
    }
    const auto time = summarize(times);
    const auto count = summarize(failures);
    INFO("recovery_can_fail = " << recovery_can_fail << ", simulated mean time " << time.mean << " ± "
                                << time.standard_error << " s, failures " << count.mean << " ± "
                                << count.standard_error);
    CHECK_THAT(time.mean, WithinAbs(expected_segment_time_s(segment_s, recovery_s, mtbf_s, recovery_can_fail),
                                    4 * time.standard_error));
    CHECK_THAT(count.mean, WithinAbs(expected_failures_per_segment(segment_s, recovery_s, mtbf_s, recovery_can_fail),
                                     4 * count.standard_error));
    CHECK(time.standard_error < 0.005 * time.mean);  // the check has teeth
  }
}

TEST_CASE("expected time lost per failure is the truncated exponential mean", "[theory]") {
  const double mtbf_s = hour_s;
  // Both sides of the series threshold (λD = 0.01), and far beyond it.
  for (const double x : {1e-8, 1e-4, 5e-3, 0.00999, 0.01001, 0.3, 1.0, 4.0, 30.0}) {
    const double segment_s = x * mtbf_s;
    const double rate = 1 / mtbf_s;
    const auto weighted = [&](double t) { return t * rate * std::exp(-rate * t); };
    const auto density = [&](double t) { return rate * std::exp(-rate * t); };
    const double expected_s = simpson(weighted, 0, segment_s, 20'000) / simpson(density, 0, segment_s, 20'000);
    INFO("lambda D = " << x);
    CHECK_THAT(expected_lost_per_failure_s(segment_s, mtbf_s), WithinRel(expected_s, 1e-10));
  }
  // Limits: D/2 when failures are rare, 1/λ when the segment is much longer than the MTBF.
  CHECK_THAT(expected_lost_per_failure_s(hour_s, 1e15 * hour_s), WithinRel(hour_s / 2, 1e-12));
  CHECK_THAT(expected_lost_per_failure_s(1e4 * hour_s, hour_s), WithinRel(hour_s, 1e-12));
  CHECK(expected_lost_per_failure_s(0, hour_s) == 0);
  // No jump where the series hands over to the direct formula.
  CHECK_THAT(expected_lost_per_failure_s(0.01 * (1 - 1e-12) * hour_s, hour_s),
             WithinRel(expected_lost_per_failure_s(0.01 * hour_s, hour_s), 1e-11));
}

TEST_CASE("Meta's first-order ETTR", "[theory]") {
  // 1,500 nodes (12k GPUs), r_f = 5e-3 failures per node-day (node MTBF 4,800 h), hourly
  // checkpoints written in 10 s, 10 min restart: (1 − 0.3125 · (1/6 + 1/2)) / (1 + 1/360).
  CHECK_THAT(meta_ettr_first_order(1500, 4800, 1, 10.0 / 3600, 10.0 / 60),
             WithinRel((1 - 0.3125 * (1.0 / 6 + 0.5)) / (1 + 1.0 / 360), 1e-14));
  CHECK_THAT(meta_ettr_first_order(1500, 4800, 1, 10.0 / 3600, 10.0 / 60), WithinAbs(0.78947, 1e-5));
  // Free saves and restarts: only half an interval is lost per failure.
  CHECK_THAT(meta_ettr_first_order(8, 800, 2, 0, 0), WithinRel(1 - 0.01 * 1, 1e-15));
  // Failures only: the save overhead alone.
  CHECK_THAT(meta_ettr_first_order(1, 1e300, 1, 0.25, 0), WithinRel(0.8, 1e-15));

  // Against the exact ratio of the same model (τ / expected time per segment, recovery that
  // cannot fail): they agree to O(λδ + (λ(τ + δ + R))²).
  struct case_t {
    double nodes, node_mtbf_h, interval_h, save_h, restart_h;
  };
  for (const case_t c : {case_t{16, 5e4, 1, 0.01, 0.1}, case_t{128, 3692, 1, 5.0 / 60, 0.25},
                         case_t{1500, 4800, 1, 10.0 / 3600, 10.0 / 60}}) {
    const double job_mtbf_h = c.node_mtbf_h / c.nodes;
    const double exact =
        c.interval_h / expected_segment_time_s(c.interval_h + c.save_h, c.restart_h, job_mtbf_h, false);
    const double rate = 1 / job_mtbf_h;
    const double bound = rate * c.save_h + std::pow(rate * (c.interval_h + c.save_h + c.restart_h), 2);
    INFO("nodes = " << c.nodes << ", exact ETTR = " << exact);
    CHECK_THAT(meta_ettr_first_order(c.nodes, c.node_mtbf_h, c.interval_h, c.save_h, c.restart_h),
               WithinAbs(exact, bound));
  }
}

TEST_CASE("invalid arguments are rejected with the argument's name", "[theory]") {
  CHECK_THAT(message_of([] { young_interval_s(-5, 100); }), test::contains("checkpoint_s: must be > 0, got -5"));
  CHECK_THAT(message_of([] { young_interval_s(5, 0); }), test::contains("mtbf_s: must be > 0, got 0"));
  CHECK_THAT(message_of([] { daly_interval_s(NAN, 100); }),
             test::contains("checkpoint_s: must be a finite number, got nan"));
  CHECK_THAT(message_of([] { daly_interval_s(5, INFINITY); }),
             test::contains("mtbf_s: must be a finite number, got inf"));
  CHECK_THAT(message_of([] { expected_segment_time_s(-1, 0, 10, true); }),
             test::contains("segment_s: must be ≥ 0, got -1"));
  CHECK_THAT(message_of([] { expected_segment_time_s(1, -2.5, 10, false); }),
             test::contains("recovery_s: must be ≥ 0, got -2.5"));
  CHECK_THAT(message_of([] { expected_segment_time_s(1e6, 0, 1, false); }),
             test::contains("mtbf_s: too short for these durations, the expectation overflows; got 1"));
  CHECK_THAT(message_of([] { daly_wall_time_s(-1, 10, 1, 1, 100); }), test::contains("solve_s: must be ≥ 0, got -1"));
  CHECK_THAT(message_of([] { daly_wall_time_s(100, 0, 1, 1, 100); }), test::contains("interval_s: must be > 0, got 0"));
  CHECK_THAT(message_of([] { daly_wall_time_s(100, 10, -1, 1, 100); }),
             test::contains("checkpoint_s: must be ≥ 0, got -1"));
  CHECK_THAT(message_of([] { daly_wall_time_s(100, 10, 1, -1, 100); }),
             test::contains("recovery_s: must be ≥ 0, got -1"));
  CHECK_THAT(message_of([] { daly_wall_time_s(100, 10, 1, 1, -100); }),
             test::contains("mtbf_s: must be > 0, got -100"));
  CHECK_THAT(message_of([] { expected_failures_per_segment(1, 1, 0, true); }),
             test::contains("mtbf_s: must be > 0, got 0"));
  CHECK_THAT(message_of([] { expected_lost_per_failure_s(-3, 1); }), test::contains("segment_s: must be ≥ 0, got -3"));
  CHECK_THAT(message_of([] { meta_ettr_first_order(0, 4800, 1, 0, 0); }), test::contains("nodes: must be > 0, got 0"));
  CHECK_THAT(message_of([] { meta_ettr_first_order(8, -1, 1, 0, 0); }),
             test::contains("node_mtbf_h: must be > 0, got -1"));
  CHECK_THAT(message_of([] { meta_ettr_first_order(8, 4800, 0, 0, 0); }),
             test::contains("checkpoint_interval_h: must be > 0, got 0"));
  CHECK_THAT(message_of([] { meta_ettr_first_order(8, 4800, 1, -0.1, 0); }),
             test::contains("checkpoint_save_h: must be ≥ 0, got -0.1"));
  CHECK_THAT(message_of([] { meta_ettr_first_order(8, 4800, 1, 0, NAN); }),
             test::contains("restart_h: must be a finite number, got nan"));
  CHECK_THROWS_AS(young_interval_s(0, 1), std::invalid_argument);  // embedders need not know our types
}

}  // namespace test_theory
