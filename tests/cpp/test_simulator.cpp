// The per-sample simulator (lifecycle/simulator.hpp) against closed forms and invariants: Daly's
// expected wall time, lost work per failure, phase times summing to the wall time, the exact
// failure-free lifecycle, Weibull renewals, and the refusals of jobs that could never finish.
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifecycle_runs.hpp"
#include "phase_gap.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/lifecycle/theory.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_simulator {

using test::col_mean;
using test::col_se;
using test::daly_scenario;
using test::make;
using test::run_scenario;

TEST_CASE("Daly's Fig. 3 case: mean wall time matches the closed form", "[lifecycle][daly]") {
  // M = 24 h, delta = 5 min, R = 10 min (interruptible), T_s = 500 h, tau = 120 min -> 547.90 h.
  const auto s = daly_scenario(24, 300, 600, 500, 7200, true);
  const auto r = run_scenario(s, 40'000, 7);
  const double expected_h = theory::daly_wall_time_s(500 * 3600, 7200, 300, 600, 24 * 3600) / 3600;
  CHECK_THAT(expected_h, Catch::Matchers::WithinAbs(547.90, 0.01));
  INFO("MC mean " << col_mean(r, metric::wall_h) << " +- " << col_se(r, metric::wall_h));
  CHECK(std::abs(col_mean(r, metric::wall_h) - expected_h) < 4 * col_se(r, metric::wall_h));
}

TEST_CASE("other parameter sets, both recovery variants, match Daly", "[lifecycle][daly]") {
  struct params {
    double mtbf_h, delta_s, restart_s, solve_h, tau_s;
  };
  for (const params p :
       {params{5, 120, 900, 100, 3600}, params{2, 60, 300, 20, 1800}, params{50, 600, 1200, 300, 10800}}) {
    for (const bool interruptible : {true, false}) {
      const auto s = daly_scenario(p.mtbf_h, p.delta_s, p.restart_s, p.solve_h, p.tau_s, interruptible);
      const auto r = run_scenario(s, 30'000, 3);
      const double expected_h =
          theory::daly_wall_time_s(p.solve_h * 3600, p.tau_s, p.delta_s, p.restart_s, p.mtbf_h * 3600, interruptible) /
          3600;
      INFO("M " << p.mtbf_h << " interruptible " << interruptible << ": MC " << col_mean(r, metric::wall_h) << " +- "
                << col_se(r, metric::wall_h) << " vs " << expected_h);
      CHECK(std::abs(col_mean(r, metric::wall_h) - expected_h) < 4 * col_se(r, metric::wall_h));
      // Failures per segment: e^{lambda D} - 1, times e^{lambda R} when recoveries can fail.
      const double segments = p.solve_h * 3600 / p.tau_s;
      const double expected_failures = segments * theory::expected_failures_per_segment(
                                                      p.tau_s + p.delta_s, p.restart_s, p.mtbf_h * 3600, interruptible);
      CHECK(std::abs(col_mean(r, metric::failures) - expected_failures) < 4 * col_se(r, metric::failures));
    }
  }
}

TEST_CASE("lost time per failure and recompile counts match their expectations", "[lifecycle]") {
  // Recoveries cannot fail, so every failure happens in a segment attempt and is followed by
  // exactly one completed recovery, which misses the cache with probability 1 - p.
  const auto s = make(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 400}, "cluster": {"nodes": 4},
    "throughput": {"step_time_s": 60},
    "compile": {"recompile_s": 1800, "cache_load_s": 60, "cache_hit_prob": 0.7, "planned_changes": 2},
    "checkpoint": {"every_steps": 20, "save_s": 30},
    "failures": {"node_mtbf_h": 10, "restart_s": 300, "during_recovery": false},
    "prices": {"node_hour_usd": 1}})");
  const auto r = run_scenario(s, 40'000, 11);
  const double lambda = 4 / (10.0 * 3600), segment_s = 20 * 60 + 30;
  const double failures = 20 * std::expm1(lambda * segment_s);
  CHECK(std::abs(col_mean(r, metric::failures) - failures) < 4 * col_se(r, metric::failures));
  // lost_h / failures over all samples: ratio of means, compared with its delta-method error.
  const double lost_per_failure_h = theory::expected_lost_per_failure_s(segment_s, 1 / lambda) / 3600;
  CHECK(std::abs(col_mean(r, metric::lost_h) - failures * lost_per_failure_h) < 4 * col_se(r, metric::lost_h));
  const double recompiles = failures * 0.3 + 2;
  CHECK(std::abs(col_mean(r, metric::recompiles) - recompiles) < 4 * col_se(r, metric::recompiles));
  // Compile time: planned recompiles + a hit or a miss per recovery.
  const double compile_h = (2 * 1800 + failures * (0.7 * 60 + 0.3 * 1800)) / 3600;
  CHECK(std::abs(col_mean(r, metric::compile_h) - compile_h) < 4 * col_se(r, metric::compile_h));
  CHECK_THAT(col_mean(r, metric::recovery_h),
             Catch::Matchers::WithinRel(col_mean(r, metric::failures) * 300 / 3600, 1e-9));
}

TEST_CASE("phase times sum to wall_h for every sample", "[lifecycle][invariant]") {
  const auto s = make(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": {"dist": "triangular", "lo": 500, "mode": 800, "hi": 1500}},
    "cluster": {"nodes": 8},
    "throughput": {"step_time_s": {"dist": "lognormal", "p50": 20, "p90": 30},
                   "data_stall_fraction": {"dist": "beta", "a": 2, "b": 20, "hi": 0.5}},
    "startup": {"queue_wait_s": {"dist": "exponential", "mean": 600}, "env_prep_s": 300, "data_load_s": 120},
    "compile": {"initial_s": 1800, "recompile_s": {"dist": "pert", "lo": 900, "mode": 1800, "hi": 3600},
                "cache_load_s": 60, "cache_hit_prob": {"dist": "uniform", "lo": 0.5, "hi": 0.9},
                "planned_changes": {"dist": "empirical", "samples": [1.4]}},
    "checkpoint": {"every_steps": {"dist": "uniform", "lo": 30, "hi": 120}, "save_s": 45, "verify_s": 10, "load_s": 90,
                   "final": false},
    "eval": {"every_steps": 100, "time_s": 60, "final_s": 600},
    "failures": {"node_mtbf_h": {"dist": "gamma", "shape": 4, "scale": 20}, "distribution": "weibull",
                 "weibull_shape": 0.8, "restart_s": 400, "warmup_s": 120},
    "quality": {"rerun_prob": 0.3, "rerun_fraction": 0.25},
    "prices": {"node_hour_usd": 35.76}})");
  const auto r = run_scenario(s, 20'000, 5);
  const double worst = test::worst_phase_gap(r);
  INFO("worst relative gap " << worst);
  CHECK(worst < 1e-12);
  CHECK(r.stats(metric::failures).max > 0);  // the case exercises failures
  CHECK(r.stats(metric::rerun_h).max > 0);  // and reruns
  CHECK(r.stats(metric::queue_h).mean > 0);
  CHECK(r.stats(metric::wall_h).nan_count == 0);
}

TEST_CASE("without failures the lifecycle is exact", "[lifecycle]") {
  // 1000 steps of 10 s with 20% stall, checkpoint every 300 steps (4 segments, the last of
  // 100 steps, final save), eval every 250 steps of 50 s, quality rerun of 10% for sure.
  const auto s = make(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": {"dist": "empirical", "samples": [999.2]}}, "cluster": {"nodes": 2},
    "throughput": {"step_time_s": 8, "data_stall_fraction": 0.2},
    "startup": {"queue_wait_s": 3600, "env_prep_s": 600, "data_load_s": 300},
    "compile": {"initial_s": 1200, "recompile_s": 900, "planned_changes": 1},
    "checkpoint": {"every_steps": 300, "save_s": 20, "verify_s": 10, "size_gb": 100, "keep_last": 2},
    "eval": {"every_steps": 250, "time_s": 50, "final_s": 400},
    "quality": {"rerun_prob": 1, "rerun_fraction": 0.1},
    "prices": {"node_hour_usd": 30, "storage_gb_month_usd": 0.023, "transfer_gb_usd": 0.09, "logs_gb_usd": 0.5},
    "data": {"dataset_gb": 50, "transfer_gb": 10, "logs_gb_per_hour": 0.1},
    "engineering": {"adaptation_h": 40, "rate_usd_per_h": 150}})");
  const auto r = run_scenario(s, 10, 1);
  const auto row = [&](metric::id m) { return r.values()(3, m); };
  const double t_eff = 10, e = 0.2;  // 8 / (1 - 0.2); 50 / 250
  CHECK_THAT(row(metric::useful_h), Catch::Matchers::WithinRel(1000 * 8 / 3600.0, 1e-14));
  CHECK_THAT(row(metric::stall_h), Catch::Matchers::WithinRel(1000 * 2 / 3600.0, 1e-14));
  CHECK_THAT(row(metric::eval_h), Catch::Matchers::WithinRel((1000 * e + 400) / 3600.0, 1e-14));
  // Main run: 4 segments with saves; rerun of 100 steps: 1 segment with a save.
  CHECK_THAT(row(metric::checkpoint_h), Catch::Matchers::WithinRel(5 * 30 / 3600.0, 1e-14));
  CHECK_THAT(row(metric::rerun_h), Catch::Matchers::WithinRel(100 * (t_eff + e) / 3600.0, 1e-14));
  CHECK_THAT(row(metric::compile_h), Catch::Matchers::WithinRel((1200 + 900) / 3600.0, 1e-14));
  CHECK(row(metric::recompiles) == 1);
  CHECK(row(metric::failures) == 0);
  CHECK(row(metric::lost_h) == 0);
  const double wall_s = 3600 + 600 + 1200 + 300 + 1000 * (t_eff + e) + 5 * 30 + 900 + 100 * (t_eff + e) + 400;
  CHECK_THAT(row(metric::wall_h), Catch::Matchers::WithinRel(wall_s / 3600, 1e-14));
  const double billed_h = (wall_s - 3600) / 3600;
  CHECK_THAT(row(metric::billed_h), Catch::Matchers::WithinRel(billed_h, 1e-14));
  CHECK_THAT(row(metric::node_h), Catch::Matchers::WithinRel(2 * billed_h, 1e-14));
  CHECK_THAT(row(metric::cost_compute_usd), Catch::Matchers::WithinRel(2 * billed_h * 30, 1e-14));
  CHECK_THAT(row(metric::cost_storage_usd),
             Catch::Matchers::WithinRel((50 + 100 * 2) * 0.023 * wall_s / 3600 / 730, 1e-14));
  CHECK_THAT(row(metric::cost_transfer_usd), Catch::Matchers::WithinRel(0.9, 1e-14));
  CHECK_THAT(row(metric::cost_logs_usd), Catch::Matchers::WithinRel(0.1 * wall_s / 3600 * 0.5, 1e-14));
  const double run_cost =
      row(metric::cost_compute_usd) + row(metric::cost_storage_usd) + 0.9 + row(metric::cost_logs_usd);
  CHECK_THAT(row(metric::run_cost_usd), Catch::Matchers::WithinRel(run_cost, 1e-14));
  CHECK(row(metric::adaptation_usd) == 6000);
  CHECK_THAT(row(metric::total_cost_usd), Catch::Matchers::WithinRel(run_cost + 6000, 1e-14));
  CHECK_THAT(row(metric::useful_step_cost_usd), Catch::Matchers::WithinRel(2 * 8 * 30 / 3600.0, 1e-14));
  CHECK_THAT(row(metric::lifecycle_cost_per_step_usd), Catch::Matchers::WithinRel(run_cost / 1000, 1e-14));
  CHECK_THAT(row(metric::goodput), Catch::Matchers::WithinRel(8000 / wall_s, 1e-14));
}

TEST_CASE("Weibull with shape 1 is the exponential case", "[lifecycle]") {
  const auto text = [](const char* distribution) {
    return std::string(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 200}, "cluster": {"nodes": 16},
      "throughput": {"step_time_s": 90}, "checkpoint": {"every_steps": 25, "save_s": 60},
      "failures": {"node_mtbf_h": 50, "restart_s": 600, "distribution": ")") +
           distribution + R"(", "weibull_shape": 1},
      "prices": {"node_hour_usd": 1}})";
  };
  const auto a = run_scenario(make(text("exponential")), 20'000, 2);
  const auto b = run_scenario(make(text("weibull")), 20'000, 2);
  CHECK(a.stats(metric::failures).mean > 0.5);
  // Same uniforms, same times to failure up to rounding: the same results.
  CHECK_THAT(b.stats(metric::wall_h).mean, Catch::Matchers::WithinRel(a.stats(metric::wall_h).mean, 1e-12));
  CHECK(b.stats(metric::failures).mean == a.stats(metric::failures).mean);
}

TEST_CASE("Weibull renewal: mean time between failures is 1/lambda for any shape", "[lifecycle]") {
  // One long segment with no checkpoint and recoveries that take no time: failures over
  // exposed time t follow the renewal process, whose rate tends to 1/mean.
  for (const double shape : {0.6, 1.0, 2.5}) {
    const auto s = make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 1},
      "throughput": {"step_time_s": 3.6}, "checkpoint": {"every_steps": 1},
      "failures": {"node_mtbf_h": 0.05, "distribution": "weibull", "weibull_shape": )" +
                        detail::format_number(shape) + R"(},
      "prices": {"node_hour_usd": 1}})");
    const auto r = run_scenario(s, 4000, 9);
    // Exposed time = 1 h of steps + lost time; failures per exposed hour ~ 20 for long runs.
    const double exposed_h = col_mean(r, metric::useful_h) + col_mean(r, metric::lost_h);
    const double rate = col_mean(r, metric::failures) / exposed_h;
    INFO("shape " << shape << " rate " << rate);
    CHECK_THAT(rate, Catch::Matchers::WithinRel(20.0, 0.1));
  }
}

TEST_CASE("a job that could never finish is refused with the reason", "[lifecycle]") {
  const auto s = make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 1000},
    "throughput": {"step_time_s": 60}, "failures": {"node_mtbf_h": 100}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("would never finish"));
  CHECK_THROWS_WITH(simulate(s, options), test::contains("checkpoint more often"));
}

TEST_CASE("a cost beyond the largest double is refused, not reported as inf", "[lifecycle]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
      "cluster": {"nodes": 1}, "throughput": {"step_time_s": 10}, "prices": {"node_hour_usd": 1e306,
      "storage_gb_month_usd": 1e306}, "data": {"dataset_gb": 1e306}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("prices: a sample's cost is beyond the largest number"));
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("Weibull failures that leave no chance to finish are refused, not looped on", "[edge]") {
  // A 3 h segment against a 1 h mean time between failures, shape 3: e^{(D/scale)^k} attempts.
  const auto s = scenario::from_text(test::edge_head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1},
      "failures": {"node_mtbf_h": 1, "distribution": "weibull", "weibull_shape": 3}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("would never finish"));
}

TEST_CASE("10^18 steps: the exact answer without failures, a refusal saying why with them", "[edge][adversarial]") {
  const auto started = std::chrono::steady_clock::now();
  const std::string job =
      R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e18}, "cluster": {"nodes": 1000},
      "throughput": {"step_time_s": 2}, "checkpoint": {"every_steps": 3, "save_s": 1}, "prices": {"node_hour_usd": 1})";
  run_options options;
  options.samples = 1000;
  const auto r = simulate(scenario::from_text(job + "}"), options);
  CHECK_THAT(r.values()(0, metric::useful_h), Catch::Matchers::WithinRel(2e18 / 3600, 1e-12));
  CHECK_THAT(r.values()(0, metric::checkpoint_h), Catch::Matchers::WithinRel(std::ceil(1e18 / 3) / 3600, 1e-12));
  CHECK_THAT(r.values()(999, metric::wall_h), Catch::Matchers::WithinRel((2e18 + std::ceil(1e18 / 3)) / 3600, 1e-12));
  // Each 7 s segment is finishable against a failure every 3.6 s, but 3.3e17 of them are not.
  CHECK_THROWS_WITH(
      simulate(scenario::from_text(job + R"(, "failures": {"node_mtbf_h": 1}})"), options),
      test::contains("failures.node_mtbf_h: with 1000 nodes and a node MTBF of 1 h, the job fails every 0.001 h; "
                     "its 3.33e+17 segments of 0.00194 h expect about 5.99 failures each, about 2e+18 in all, "
                     "more than the 1e+07 a sample may simulate") &&
          test::contains("check job.effective_steps and the failure inputs"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
}

TEST_CASE("a wall time beyond the largest double is refused, not reported as inf", "[edge][adversarial]") {
  const auto s = scenario::from_text(
      R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e300}, "cluster": {"nodes": 1},
      "throughput": {"step_time_s": 1e10}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options),
                    test::contains("scenario: a sample's wall time is beyond the largest number"));
}

TEST_CASE("a job that never finishes says what makes the segment long", "[lifecycle]") {
  // 3,800 s per step: a step time typed in milliseconds (3.8 s). The message names the steps,
  // the step time and the save, and says what the step time would be in seconds.
  const auto s = make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 3000}, "cluster": {"nodes": 64},
    "throughput": {"step_time_s": 3800}, "checkpoint": {"every_steps": 500, "save_s": 30},
    "failures": {"node_mtbf_h": 1000}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("(500 steps (checkpoint.every_steps) × 3.8e+03 s per step"));
  CHECK_THROWS_WITH(simulate(s, options),
                    test::contains("a step time of 3800 s is long: if it is in milliseconds, it is 3.8 s"));
}

}  // namespace test_simulator
