// Purchase options (docs/lifecycle.md, "Purchase options"): capacity blocks and spot, against
// hand computations, closed forms and invariants.
#include <cmath>
#include <string>

#include "catch.hpp"
#include "lifecycle_runs.hpp"
#include "phase_gap.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/scenario/completeness.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_purchase {

namespace {

using test::make;
using test::run_scenario;
double mean(const run_result& r, metric::id m) { return test::col_mean(r, m); }
double se(const run_result& r, metric::id m) { return test::col_se(r, m); }

// Two nodes, 1000 steps of `step` seconds, a checkpoint every 100 steps (36 s saves), 360 s of
// environment preparation, on a block of `hours` booked 2 h ahead (a 30 min on-demand queue and a
// 900 s recovery after its window).
std::string block_job(const std::string& step, long long hours) {
  return R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 2},
    "throughput": {"step_time_s": )" +
         step + R"(}, "startup": {"queue_wait_s": 1800, "env_prep_s": 360},
    "checkpoint": {"every_steps": 100, "save_s": 36, "load_s": 300}, "failures": {"restart_s": 600},
    "prices": {"node_hour_usd": 40, "purchase": "capacity_block", "block_hours": )" +
         std::to_string(hours) + R"(, "block_usd": 1000, "block_lead_s": 7200}})";
}

}  // namespace

TEST_CASE("capacity block, constant inputs: a job that fits costs the fee", "[purchase][block]") {
  // 10 segments of 100 × 36 + 36 s = 10.1 h after 0.1 h of preparation: inside 23.5 h.
  const auto r = run_scenario(make(block_job("36", 24)), 64);
  CHECK(r.stats(metric::block_fit).min == 1);
  CHECK(r.stats(metric::block_fit).max == 1);
  CHECK_THAT(mean(r, metric::wall_h), Catch::Matchers::WithinRel(2 + 0.1 + 10.1, 1e-12));
  CHECK_THAT(mean(r, metric::queue_h), Catch::Matchers::WithinRel(2.0, 1e-12));  // the lead time
  CHECK_THAT(mean(r, metric::block_idle_h), Catch::Matchers::WithinRel(24 - 10.2, 1e-12));
  CHECK(mean(r, metric::overflow_h) == 0);
  CHECK(mean(r, metric::cost_compute_usd) == 1000);
  // The idle hours' share of the 1000 USD fee for 24 h; no overflow to pay.
  CHECK_THAT(mean(r, metric::block_idle_usd), Catch::Matchers::WithinRel(1000 * (24 - 10.2) / 24, 1e-12));
  CHECK(mean(r, metric::overflow_usd) == 0);
  CHECK_THAT(mean(r, metric::node_h), Catch::Matchers::WithinRel(2 * 10.2, 1e-12));  // the lead is not billed
}

TEST_CASE("capacity block, constant inputs: the overflow is the hand computation", "[purchase][block]") {
  // Segments of 100 × 360 + 36 = 36036 s. The window (47.5 h = 171000 s) holds the 360 s start and
  // 4 segments (ending at 144504 s); the 26496 s since that checkpoint are lost; then the 1800 s
  // on-demand queue, a 900 s recovery and the 6 other segments.
  const auto r = run_scenario(make(block_job("360", 48)), 64);
  const double overflow_s = 1800 + 900 + 6 * 36036.0;
  CHECK(r.stats(metric::block_fit).max == 0);
  CHECK_THAT(mean(r, metric::wall_h), Catch::Matchers::WithinRel((7200 + 171000 + overflow_s) / 3600, 1e-12));
  CHECK_THAT(mean(r, metric::lost_h), Catch::Matchers::WithinRel(26496 / 3600.0, 1e-12));
  CHECK_THAT(mean(r, metric::overflow_h), Catch::Matchers::WithinRel(overflow_s / 3600, 1e-12));
  CHECK_THAT(mean(r, metric::block_idle_h), Catch::Matchers::WithinAbs(0.5, 1e-9));  // the margin
  CHECK_THAT(mean(r, metric::queue_h), Catch::Matchers::WithinRel((7200 + 1800) / 3600.0, 1e-12));
  CHECK_THAT(mean(r, metric::recovery_h), Catch::Matchers::WithinRel(900 / 3600.0, 1e-12));
  // The fee plus 2 nodes × (900 + 6 × 36036) s on demand at 40 USD (the queue is not billed).
  const double cost = 1000 + 2 * (900 + 6 * 36036.0) / 3600 * 40;
  CHECK_THAT(mean(r, metric::cost_compute_usd), Catch::Matchers::WithinRel(cost, 1e-12));
  CHECK_THAT(mean(r, metric::overflow_usd), Catch::Matchers::WithinRel(cost - 1000, 1e-12));
  CHECK_THAT(mean(r, metric::block_idle_usd), Catch::Matchers::WithinRel(1000 * 0.5 / 48, 1e-9));  // the margin
  CHECK(mean(r, metric::run_cost_usd) == mean(r, metric::cost_compute_usd));
  CHECK(test::worst_phase_gap(r) < 1e-12);
}

TEST_CASE("capacity block: P(fit) is P(wall within the window) from the step time's CDF", "[purchase][block]") {
  // Without failures the job fits when 360 + 1000 t + 10 × 36 ≤ 47.5 h, i.e. t ≤ 170.28 s.
  const auto r = run_scenario(make(block_job(R"({"dist": "lognormal", "p50": 165, "p90": 200})", 48)), 40'000, 3);
  const double threshold = (47.5 * 3600 - 360 - 10 * 36) / 1000;
  const double z = (std::log(threshold) - std::log(165.0)) / (std::log(200.0 / 165.0) / 1.2815515655446004);
  const double p = 0.5 * std::erfc(-z / std::sqrt(2.0));
  INFO("P(fit) " << mean(r, metric::block_fit) << " vs " << p);
  CHECK(std::abs(mean(r, metric::block_fit) - p) < 4 * std::sqrt(p * (1 - p) / 40'000));
  CHECK(p > 0.2);
  CHECK(p < 0.8);  // the case is not trivial
}

namespace {
// One node, 200 segments of 100 × 30 + `save` s, interruptions at `rate` per node-hour and
// failures every `mtbf` hours (0: none); recoveries take no time.
std::string spot_job(double save_s, double rate, double mtbf_h, const std::string& extra = "") {
  return R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 20000}, "cluster": {"nodes": 1},
    "throughput": {"step_time_s": 30}, "checkpoint": {"every_steps": 100, "save_s": )" +
         detail::format_number(save_s) + R"(}, )" +
         (mtbf_h > 0 ? R"("failures": {"node_mtbf_h": )" + detail::format_number(mtbf_h) + "}, " : std::string()) +
         R"("prices": {"purchase": "spot", "spot_node_hour_usd": 30},
    "spot": {"interruptions_per_node_h": )" +
         detail::format_number(rate) + R"(, "reacquire_s": 600)" + extra + "}}";
}
}  // namespace

TEST_CASE("spot, save within the notice: no work lost, interruptions at rate × exposed time", "[purchase][spot]") {
  const auto r = run_scenario(make(spot_job(60, 0.05, 0)), 20'000, 7);
  const double exposed_h = 200 * (3000 + 60) / 3600.0;  // every segment, once
  INFO("interruptions " << mean(r, metric::interruptions) << " +- " << se(r, metric::interruptions));
  CHECK(std::abs(mean(r, metric::interruptions) - 0.05 * exposed_h) < 4 * se(r, metric::interruptions));
  CHECK(r.stats(metric::lost_h).max == 0);
  CHECK_THAT(mean(r, metric::useful_h), Catch::Matchers::WithinRel(20000 * 30 / 3600.0, 1e-12));
  // Each interruption: one save (checkpoint_h) and the wait for capacity (queue_h, not billed).
  const auto& v = r.values();
  double worst = 0;
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    const double n = v(i, metric::interruptions);
    worst = std::max(worst, std::abs(v(i, metric::wall_h) - (exposed_h + n * 660 / 3600)));
    worst = std::max(worst, std::abs(v(i, metric::billed_h) - (exposed_h + n * 60 / 3600)));
    worst = std::max(worst, std::abs(v(i, metric::cost_compute_usd) - 30 * v(i, metric::node_h)));
  }
  CHECK(worst < 1e-9);
  CHECK(test::worst_phase_gap(r) < 1e-12);
}

TEST_CASE("spot, save beyond the notice: interruptions and failures compete", "[purchase][spot]") {
  // Each attempt of D = 3240 s ends at the first of two exponentials (rates mu and lambda): per
  // segment e^{(lambda + mu) D} − 1 events, a fraction mu / (lambda + mu) of them interruptions.
  const double mu = 0.2 / 3600, lambda = 1 / (10 * 3600.0), d = 3000 + 240;
  const auto r = run_scenario(make(spot_job(240, 0.2, 10)), 20'000, 9);
  const double events = 200 * std::expm1((lambda + mu) * d);
  INFO("interruptions " << mean(r, metric::interruptions) << ", failures " << mean(r, metric::failures));
  CHECK(std::abs(mean(r, metric::interruptions) - events * mu / (lambda + mu)) < 4 * se(r, metric::interruptions));
  CHECK(std::abs(mean(r, metric::failures) - events * lambda / (lambda + mu)) < 4 * se(r, metric::failures));
  CHECK(r.stats(metric::lost_h).mean > 0);
  CHECK(test::worst_phase_gap(r) < 1e-12);
}

TEST_CASE("purchase options: the phases sum to wall_h with everything uncertain", "[purchase][invariant]") {
  const std::string common = R"("job": {"effective_steps": {"dist": "triangular", "lo": 500, "mode": 800, "hi": 1500}},
    "cluster": {"nodes": 8},
    "throughput": {"step_time_s": {"dist": "lognormal", "p50": 120, "p90": 180}},
    "startup": {"queue_wait_s": {"dist": "exponential", "mean": 600}, "env_prep_s": 300, "data_load_s": 120},
    "compile": {"initial_s": 1800, "recompile_s": 1200, "cache_load_s": 60, "cache_hit_prob": 0.7,
                "planned_changes": 1},
    "checkpoint": {"every_steps": 50, "save_s": {"dist": "uniform", "lo": 30, "hi": 200}, "load_s": 90,
                   "restore_fail_prob": 0.2, "keep_last": 3, "final": false},
    "eval": {"every_steps": 100, "time_s": 60, "final_s": 600},
    "failures": {"node_mtbf_h": 200, "restart_s": 400, "warmup_s": 120},
    "quality": {"rerun_prob": 0.3, "rerun_fraction": 0.25},)";
  const auto block = run_scenario(make(R"({"schema": "trnmodel.scenario/1", )" + common + R"(
    "prices": {"node_hour_usd": 40, "purchase": "capacity_block", "block_hours": 24,
               "block_usd": {"dist": "uniform", "lo": 5000, "hi": 6000},
               "block_lead_s": {"dist": "uniform", "lo": 0, "hi": 86400}}})"),
                                  20'000, 5);
  CHECK(test::worst_phase_gap(block) < 1e-12);
  CHECK(block.stats(metric::block_fit).mean > 0.05);
  CHECK(block.stats(metric::block_fit).mean < 0.95);  // both sides exercised
  CHECK(block.stats(metric::block_idle_h).min >= 0.5 - 1e-9);
  const auto spot = run_scenario(make(R"({"schema": "trnmodel.scenario/1", )" + common + R"(
    "prices": {"purchase": "spot", "spot_node_hour_usd": 12},
    "spot": {"interruptions_per_node_h": 0.02, "notice_s": 120,
             "reacquire_s": {"dist": "exponential", "mean": 900}}})"),
                                 20'000, 5);
  CHECK(test::worst_phase_gap(spot) < 1e-12);
  CHECK(spot.stats(metric::interruptions).mean > 1);
  CHECK(std::isnan(spot.stats(metric::block_fit).mean));  // not a block
}

TEST_CASE("capacity block over stages: one window for the whole job", "[purchase][block][stages]") {
  const auto s = make(R"({"schema": "trnmodel.scenario/1", "cluster": {"nodes": 2},
    "throughput": {"step_time_s": 360}, "startup": {"queue_wait_s": 1800},
    "checkpoint": {"every_steps": 100, "save_s": 36, "load_s": 300}, "failures": {"restart_s": 600},
    "prices": {"node_hour_usd": 40, "purchase": "capacity_block", "block_hours": 48, "block_usd": 1000},
    "stages": [{"name": "short", "job": {"effective_steps": 500}},
               {"name": "long", "job": {"effective_steps": 500}, "cluster": {"nodes": 4}, "transition_s": 120}]})");
  const auto r = run_scenario(s, 16);
  // Stage 1: 5 segments of 36036 s (50.05 h) > 47.5 h: the window ends in its 5th segment.
  CHECK(r.stats(metric::block_fit).max == 0);
  const auto& v = r.values();
  const double stage_wall = v(0, metric::count + 0) + v(0, metric::count + stage_metrics.size());
  CHECK_THAT(stage_wall, Catch::Matchers::WithinRel(v(0, metric::wall_h), 1e-12));
  const std::size_t cost = 9;  // cost_compute_usd in stage_metrics
  REQUIRE(stage_metrics[cost] == metric::cost_compute_usd);
  CHECK_THAT(v(0, metric::count + cost) + v(0, metric::count + stage_metrics.size() + cost),
             Catch::Matchers::WithinRel(v(0, metric::cost_compute_usd), 1e-12));
  // After the window: the queue, a 900 s recovery, the last segment on 2 nodes, then the second
  // stage (120 + 300 s transition and 5 segments) on 4 nodes.
  const double cost_usd = 1000 + (2 * (900 + 36036.0) + 4 * (420 + 5 * 36036.0)) / 3600 * 40;
  CHECK_THAT(v(0, metric::cost_compute_usd), Catch::Matchers::WithinRel(cost_usd, 1e-12));
  CHECK(test::worst_phase_gap(r) < 1e-12);
}

TEST_CASE("an explicit on_demand purchase is the default, bit for bit", "[purchase]") {
  const std::string job =
      R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 2000}, "cluster": {"nodes": 4},
    "throughput": {"step_time_s": {"dist": "lognormal", "p50": 20, "p90": 30}},
    "checkpoint": {"every_steps": 100, "save_s": 30}, "failures": {"node_mtbf_h": 50, "restart_s": 300},
    "prices": {"node_hour_usd": 40)";
  const auto a = run_scenario(make(job + "}}"), 5000, 4);
  const auto b = run_scenario(make(job + R"(, "purchase": "on_demand"}})"), 5000, 4);
  CHECK((a.values() == b.values() || (a.values().isNaN() && b.values().isNaN())).all());
  CHECK(a.stats(metric::interruptions).max == 0);
  CHECK(a.stats(metric::overflow_h).max == 0);
}

TEST_CASE("every bad purchase field is refused with its path and the rule", "[purchase][errors]") {
  const auto with = [](const std::string& prices, const std::string& extra = "") {
    return test::scenario_error(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
      "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1}, "prices": {)" +
                                prices + "}" + extra + "}");
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(with(R"("purchase": "reserved")"), Contains("prices.purchase: must be one of on_demand, capacity_block"));
  CHECK_THAT(with(R"("purchase": "capacity_block", "block_usd": 1)"), Contains("prices.block_hours: required when"));
  CHECK_THAT(with(R"("purchase": "capacity_block", "block_hours": 24)"), Contains("prices.block_usd: required when"));
  for (const char* hours : {"25", "360", "4375", "4536"})
    CHECK_THAT(with(std::string(R"("purchase": "capacity_block", "block_usd": 1, "block_hours": )") + hours),
               Contains("prices.block_hours: must be a capacity-block length that AWS offers: 1 to 14 days") &&
                   Contains(std::string("got ") + hours + " h"));
  for (const char* hours : {"24", "336", "504", "4368"})
    CHECK(with(std::string(R"("purchase": "capacity_block", "block_usd": 1, "block_hours": )") + hours) == "no error");
  CHECK_THAT(with(R"("purchase": "capacity_block", "block_usd": 1, "block_hours": 0)"), Contains("prices.block_hours"));
  CHECK_THAT(with(R"("purchase": "capacity_block", "block_usd": -1, "block_hours": 24)"),
             Contains("prices.block_usd: must be ≥ 0"));
  CHECK_THAT(with(R"("purchase": "capacity_block", "block_usd": 1, "block_hours": 24, "block_end_margin_h": 24)"),
             Contains("prices.block_end_margin_h: must be less than prices.block_hours (24 h)"));
  CHECK_THAT(with(R"("purchase": "capacity_block", "block_usd": 1, "block_hours": 24, "block_lead_s": -5)"),
             Contains("prices.block_lead_s: must be ≥ 0"));
  CHECK_THAT(with(R"("block_hours": 24)"),
             Contains("prices.block_hours: is used only when prices.purchase is capacity_block (it is on_demand)"));
  CHECK_THAT(with(R"("purchase": "spot", "spot_node_hour_usd": 1)"),
             Contains("spot.interruptions_per_node_h: required when prices.purchase is spot"));
  CHECK_THAT(with(R"("spot_node_hour_usd": 1)"),
             Contains("prices.spot_node_hour_usd: is used only when prices.purchase is spot"));
  CHECK_THAT(with("", R"(, "spot": {"notice_s": 30})"), Contains("spot.notice_s: is used only when"));
  CHECK_THAT(with(R"("purchase": "spot")", R"(, "spot": {"interruptions_per_node_h": -1})"),
             Contains("spot.interruptions_per_node_h: must be ≥ 0"));
  CHECK_THAT(with(R"("purchase": "spot")", R"(, "spot": {"interruptions_per_node_h": 0.1, "reacquire_s": -1})"),
             Contains("spot.reacquire_s: must be ≥ 0"));
  CHECK_THAT(with(R"("purchase": "spot")", R"(, "spot": {"interruptions_per_node_h": 0.1, "notice": 1})"),
             Contains("spot.notice: unknown key"));
  CHECK_THAT(test::scenario_error(R"({"schema": "trnmodel.scenario/1", "cluster": {"nodes": 1},
      "throughput": {"step_time_s": 1}, "prices": {"purchase": "spot"}, "spot": {"interruptions_per_node_h": 0.1},
      "stages": [{"name": "a", "job": {"effective_steps": 10}, "spot": {"notice_s": 1}}]})"),
             Contains("stages[0].spot: is set per job, not per stage"));
}

TEST_CASE("spot without a spot price: its costs are unknown, the times are not", "[purchase][unknown]") {
  const lifecycle_model model(make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
      "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1}, "prices": {"purchase": "spot"},
      "spot": {"interruptions_per_node_h": 0.1}})"));
  REQUIRE(model.unknown_inputs() == std::vector<std::string>{"prices.spot_node_hour_usd"});
  const auto metrics = model.unknown_metrics();
  CHECK(std::find(metrics.begin(), metrics.end(), "cost_compute_usd") != metrics.end());
  CHECK(std::find(metrics.begin(), metrics.end(), "wall_h") == metrics.end());
}

TEST_CASE("completeness asks for the price of the purchase made", "[purchase][completeness]") {
  const auto find = [](const scenario& s) {
    for (const auto& p : completeness(s))
      if (p.phase == "compute price") return p;
    FAIL("no compute price row");
    return phase_completeness{};
  };
  const auto spot = find(make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
      "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1}, "prices": {"purchase": "spot"},
      "spot": {"interruptions_per_node_h": 0.1}})"));
  CHECK(spot.missing == std::vector<std::string>{"prices.spot_node_hour_usd"});
  const auto block = find(make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
      "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1},
      "prices": {"purchase": "capacity_block", "block_hours": 24, "block_usd": 100}})"));
  CHECK(block.missing == std::vector<std::string>{"prices.node_hour_usd"});  // the overflow's price
  CHECK(block.inputs == std::vector<std::string>{"prices.node_hour_usd", "prices.block_usd"});
}

}  // namespace test_purchase
