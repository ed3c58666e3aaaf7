// A migration plan (include/trnmodel/decisions/plan.hpp): the three strategies against hand
// computations with constant inputs (the pilot always passes, never passes), P(cheapest)
// summing to 1, a pass probability drawn as a Bernoulli, and bad plans refused with their paths.
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/decisions/choice_drivers.hpp"
#include "trnmodel/decisions/plan.hpp"
#include "trnmodel/throughput/profile_files.hpp"

using namespace trnmodel;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_plan {

namespace {

// `steps` steps of `step_s` on 2 nodes at $40 a node-hour, porting `adaptation_h` at $150: the
// run costs steps × step_s / 3600 × $80.
std::string job(int steps, double step_s, double adaptation_h) {
  return R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": )" + std::to_string(steps) +
         R"(}, "cluster": {"nodes": 2, "platform": "trn2.48xlarge"}, "throughput": {"step_time_s": )" +
         std::to_string(step_s) + R"(}, "prices": {"node_hour_usd": 40}, "engineering": {"adaptation_h": )" +
         std::to_string(adaptation_h) + R"(, "rate_usd_per_h": 150}})";
}

// GPU: 12 h, $960 + $1,500 of set-up. Pilot: 1 h, $80. Production: 10 h, $800, a $15,000 port.
plan constant_plan(double pass_prob, int runs = 1) {
  const std::string text = R"({"schema": "trnmodel.plan/1", "name": "constant", "runs": )" + std::to_string(runs) + R"(,
    "scenarios": {"gpu_baseline": )" + job(3600, 12, 10) + R"(, "trainium_pilot": )" + job(360, 10, 0) +
                           R"(, "trainium_production": )" + job(3600, 10, 100) + R"(},
    "pilot": {"pass_prob": )" + std::to_string(pass_prob) + R"(},
    "rollback": {"convert_s": 7200, "engineering_h": 20, "found_after_fraction": 0.25},
    "dual": {"overhead_h": 40}, "engineering": {"rate_usd_per_h": 100}})";
  return plan::from_json(ordered_json::parse(text), ".", load_profiles(shipped_profiles_dir()));
}

double mean(const run_result& r, const char* name) { return r.values(name).mean(); }

}  // namespace

TEST_CASE("a plan's strategies with constant inputs equal the hand computations", "[decisions][plan]") {
  run_options options;
  options.samples = 256;
  options.seed = 5;
  // The pilot passes: the dual track is the pilot, the production run and the overhead.
  const run_result pass = plan_strategies(constant_plan(1), options);
  CHECK_THAT(mean(pass, "gpu_only_h"), WithinRel(12.0, 1e-12));
  CHECK_THAT(mean(pass, "gpu_only_usd"), WithinRel(960.0 + 1500, 1e-12));
  CHECK_THAT(mean(pass, "trainium_only_h"), WithinRel(10.0, 1e-12));
  CHECK_THAT(mean(pass, "trainium_only_usd"), WithinRel(800.0 + 15000, 1e-12));
  CHECK_THAT(mean(pass, "dual_track_h"), WithinRel(1.0 + 10, 1e-12));
  CHECK_THAT(mean(pass, "dual_track_usd"), WithinRel(80.0 + 15000 + 800 + 40 * 100, 1e-12));
  CHECK(mean(pass, "pilot_passed") == 1);
  // It never passes: Trainium only runs a quarter, converts (2 h) and finishes on GPU; the dual
  // track is the pilot, the rollback and the GPU run.
  const run_result fail = plan_strategies(constant_plan(0), options);
  CHECK_THAT(mean(fail, "trainium_only_h"), WithinRel(0.25 * 10 + 2 + 12, 1e-12));
  CHECK_THAT(mean(fail, "trainium_only_usd"), WithinRel(0.25 * 800 + 15000 + 20 * 100 + 2460, 1e-12));
  CHECK_THAT(mean(fail, "dual_track_h"), WithinRel(1.0 + 2 + 12, 1e-12));
  CHECK_THAT(mean(fail, "dual_track_usd"), WithinRel(80.0 + 15000 + 20 * 100 + 2460, 1e-12));
  CHECK(mean(fail, "pilot_passed") == 0);
  for (const auto* r : {&pass, &fail}) {
    CHECK(mean(*r, "cheapest_gpu_only") == 1);  // the port is dear for a job this small
    CHECK(mean(*r, "cheapest_trainium_only") + mean(*r, "cheapest_dual_track") == 0);
  }
}

TEST_CASE("a plan's runs multiply the run costs and pay the port once", "[decisions][plan]") {
  run_options options;
  options.samples = 64;
  options.seed = 5;
  // 52 runs: GPU 52 × $960 + $1,500 = $51,420; Trainium 52 × $800 + $15,000 = $56,600; the dual
  // track $80 + $15,000 + 52 × $800 + $4,000 = $60,680. Still GPU; at 200 runs Trainium wins:
  // $193,500 against $175,000.
  const run_result r = plan_strategies(constant_plan(1, 52), options);
  CHECK_THAT(mean(r, "gpu_only_usd"), WithinRel(52 * 960.0 + 1500, 1e-12));
  CHECK_THAT(mean(r, "trainium_only_usd"), WithinRel(52 * 800.0 + 15000, 1e-12));
  CHECK_THAT(mean(r, "dual_track_usd"), WithinRel(80 + 15000 + 52 * 800.0 + 4000, 1e-12));
  CHECK_THAT(mean(r, "trainium_only_h"), WithinRel(10.0, 1e-12));  // time to the first result
  CHECK(mean(plan_strategies(constant_plan(1, 200), options), "cheapest_trainium_only") == 1);
  // A failed port shows in the first run; every run is then on GPU.
  const run_result fail = plan_strategies(constant_plan(0, 52), options);
  CHECK_THAT(mean(fail, "trainium_only_usd"), WithinRel(0.25 * 800 + 15000 + 2000 + 52 * 960.0 + 1500, 1e-12));
}

TEST_CASE("a drawn pass probability makes the pilot pass in that share of samples", "[decisions][plan]") {
  // pass_prob 0.3 on 20,000 samples: the share of passes within 4 standard errors of 0.3.
  run_options options;
  options.samples = 20'000;
  options.seed = 9;
  const run_result r = plan_strategies(constant_plan(0.3), options);
  const double se = std::sqrt(0.3 * 0.7 / 20'000);
  CHECK_THAT(mean(r, "pilot_passed"), WithinAbs(0.3, 4 * se));
  // P(each is cheapest) sums to 1, sample by sample.
  const Eigen::ArrayXd total =
      r.values("cheapest_gpu_only") + r.values("cheapest_trainium_only") + r.values("cheapest_dual_track");
  CHECK((total == 1).all());
  // Same seed, same bits.
  const run_result again = plan_strategies(constant_plan(0.3), options);
  CHECK((again.values() == r.values()).all());
}

TEST_CASE("the choice's drivers: Spearman coefficients of the plan's draws with the margin", "[decisions][plan]") {
  // Constant scenarios, 52 runs: GPU only $51,420 always wins. Trainium only, the runner-up,
  // costs $5,180 more when the pilot passes (u < 0.5) and $17,000 + $800·f more when it fails
  // after a share f ~ U(0.05, 0.6) of its first run. With G the margin's CDF (ties averaged):
  // G = 1/4 on a pass, 1/2 + F(f)/2 on a failure, so Spearman(u, margin) = corr(U, G) =
  // 0.0625 / √(1/12 · 0.0729167) = 0.8018 and Spearman(f, margin) = 0.0208333 / √(…) = 0.2673.
  std::string text = R"({"schema": "trnmodel.plan/1", "runs": 52,
    "scenarios": {"gpu_baseline": )" + job(3600, 12, 10) + R"(, "trainium_pilot": )" + job(360, 10, 0) +
                     R"(, "trainium_production": )" + job(3600, 10, 100) + R"(},
    "pilot": {"pass_prob": 0.5},
    "rollback": {"convert_s": 7200, "engineering_h": 20, "found_after_fraction": {"dist": "uniform", "lo": 0.05, "hi": 0.6}},
    "dual": {"overhead_h": 40}, "engineering": {"rate_usd_per_h": 100}})";
  const plan p = plan::from_json(ordered_json::parse(text), ".", load_profiles(shipped_profiles_dir()));
  run_options options;
  options.samples = 40'000;
  options.seed = 8;
  const run_result r = plan_strategies(p, options);
  const choice_drivers d = plan_choice_drivers(p, r, options.seed);
  CHECK(d.favourite == "gpu_only");
  CHECK(d.runner_up == "trainium_only");
  CHECK(d.p_favourite == 1);
  REQUIRE(d.factors == std::vector<std::string>{"plan/pilot.passed", "plan/rollback.found_after_fraction"});
  // The recomputed uniforms are the run's own: the pilot passed exactly where u < 0.5.
  std::vector<double> u(options.samples);
  uniform_column(options.seed, stream_id("plan/pilot.passed"), 0, 0, 1, u.size(), u.data());
  for (std::size_t i = 0; i < u.size(); ++i)
    REQUIRE((u[i] < 0.5) == (r.values("pilot_passed")(static_cast<Eigen::Index>(i)) == 1));
  const double se = 1 / std::sqrt(static_cast<double>(options.samples));  // about that of a coefficient
  CHECK_THAT(d.correlations.spearman[0], WithinAbs(0.8018, 4 * se));
  CHECK_THAT(d.correlations.spearman[1], WithinAbs(0.2673, 4 * se));
  CHECK(d.correlations.prcc[0] > d.correlations.prcc[1]);
  CHECK(d.correlations.prcc[1] > 0);
  const run_result streamed(plan_output_names(), 8, false, 1e-3);
  CHECK_THROWS_WITH(plan_choice_drivers(p, streamed, 9), test::contains("strategies: must keep their samples"));
}

TEST_CASE("a port's calendar time delays its tracks, and a schedule is read and checked", "[decisions][plan]") {
  // The GPU set-up takes 1 day, the Trainium port 14: the constant plan's hand computations
  // (the first test case) with 24 h and 336 h added where each track waits for its port.
  const auto with_port = [](std::string scenario, const std::string& days) {
    const std::string rate = R"("rate_usd_per_h": 150)";
    return scenario.replace(scenario.find(rate), rate.size(), rate + R"(, "port_days": )" + days);
  };
  const auto plan_text = [&](double pass_prob, const std::string& port_t, const std::string& schedule) {
    return R"({"schema": "trnmodel.plan/1",
    "scenarios": {"gpu_baseline": )" + with_port(job(3600, 12, 10), "1") + R"(, "trainium_pilot": )" +
           job(360, 10, 0) + R"(, "trainium_production": )" + with_port(job(3600, 10, 100), port_t) + R"(},
    "pilot": {"pass_prob": )" + std::to_string(pass_prob) + R"(},
    "rollback": {"convert_s": 7200, "engineering_h": 20, "found_after_fraction": 0.25},
    "dual": {"overhead_h": 40}, "engineering": {"rate_usd_per_h": 100})" + schedule + "}";
  };
  const auto load = [](const std::string& text) {
    return plan::from_json(ordered_json::parse(text), ".", load_profiles(shipped_profiles_dir()));
  };
  run_options options;
  options.samples = 128;
  options.seed = 5;
  const run_result pass = plan_strategies(load(plan_text(1, "14", "")), options);
  CHECK_THAT(mean(pass, "gpu_only_h"), WithinRel(24.0 + 12, 1e-12));
  CHECK_THAT(mean(pass, "trainium_only_h"), WithinRel(336.0 + 10, 1e-12));
  CHECK_THAT(mean(pass, "dual_track_h"), WithinRel(336.0 + 1 + 10, 1e-12));
  CHECK_THAT(mean(pass, "trainium_only_usd"), WithinRel(800.0 + 15000, 1e-12));  // costs unchanged
  const run_result fail = plan_strategies(load(plan_text(0, "14", "")), options);
  CHECK_THAT(mean(fail, "trainium_only_h"), WithinRel(336 + 0.25 * 10 + 2 + 12, 1e-12));
  CHECK_THAT(mean(fail, "dual_track_h"), WithinRel(336.0 + 1 + 2 + 12, 1e-12));
  // A drawn port time: the Trainium track's time less its wall time is the port's draw, in the
  // production scenario's own stream (keyed by the platform): U(7, 21) days, mean 14.
  const run_result drawn =
      plan_strategies(load(plan_text(1, R"({"dist": "uniform", "lo": 7, "hi": 21})", "")), options);
  const Eigen::ArrayXd port_h = drawn.values("trainium_only_h") - 10;
  std::vector<double> u(options.samples);
  uniform_column(options.seed, stream_id("engineering.port_days@trn2.48xlarge"), 0, 0, 1, u.size(), u.data());
  for (std::size_t i = 0; i < u.size(); ++i)
    CHECK_THAT(port_h(static_cast<Eigen::Index>(i)), WithinRel(24 * (7 + 14 * u[i]), 1e-12));
  // The schedule: two calendar days, the deadline after the start.
  const plan dated = load(plan_text(1, "14", R"(, "schedule": {"start": "2027-01-11", "deadline": "2027-03-01"})"));
  CHECK(dated.days_to_deadline() == 49);
  const auto refused = [&](const std::string& schedule, const std::string& message) {
    INFO(schedule);
    CHECK_THROWS_WITH(load(plan_text(1, "14", schedule)), test::contains(message));
  };
  refused(R"(, "schedule": {"start": "2027-02-30", "deadline": "2027-03-01"})",
          "schedule.start: must be a calendar day written YYYY-MM-DD, got \"2027-02-30\"");
  refused(R"(, "schedule": {"start": "2027-03-01", "deadline": "2027-03-01"})",
          "schedule.deadline: must come after schedule.start (2027-03-01), got 2027-03-01");
  refused(R"(, "schedule": {"start": "2027-03-01"})", "schedule.deadline: required key is missing");
  // An unknown port time: the times cannot be computed, and the plan says which input.
  CHECK_THROWS_WITH(plan_strategies(load(plan_text(1, R"({"unknown": "no estimate yet"})", "")), options),
                    test::contains("engineering.port_days: is unknown (no estimate yet)"));
}

TEST_CASE("a bad plan is refused with every path at once", "[decisions][plan]") {
  const std::string text = R"({"schema": "trnmodel.plan/1",
    "scenarios": {"gpu_baseline": )" + job(3600, 12, 10) + R"(, "trainium_pilot": {"schema": "trnmodel.scenario/1"},
                  "trainium_production": )" + job(3600, 10, 100) + R"(},
    "pilot": {"pass_prob": 1.5},
    "rollback": {"convert_s": -1, "engineering_h": 20},
    "dual": {"overhead_h": {"unknown": "not yet estimated"}}, "engineering": {"rate_usd_per_h": 100},
    "extra": 1})";
  try {
    plan::from_json(ordered_json::parse(text), ".", load_profiles(shipped_profiles_dir()));
    FAIL("no error");
  } catch (const input_error& e) {
    const auto& p = e.problems();
    const auto has = [&](const std::string& t) {
      return std::any_of(p.begin(), p.end(), [&](const std::string& x) { return x.find(t) != std::string::npos; });
    };
    CHECK(has("scenarios.trainium_pilot: "));
    CHECK(has("pilot.pass_prob: must be"));
    CHECK(has("rollback.convert_s: must be"));
    CHECK(has("rollback.found_after_fraction: required key is missing"));
    CHECK(has("dual.overhead_h: must be given: a plan decides on it"));
    CHECK(has("extra: unknown key"));
  }
}

}  // namespace test_plan
