// The time from a failure to resumed training (lifecycle/restart_time.hpp) and the job card's
// promise checked against it.
#include <cmath>
#include <string>

#include "catch.hpp"
#include "trnmodel/lifecycle/restart_time.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_restart_time {

namespace {
// One recovery of 600 s restart + 1200 s compile (or 60 s cache load) + 300 s load + 100 s warm-up.
std::string job(const std::string& failures, const std::string& extra = "") {
  return R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 4},
    "throughput": {"step_time_s": 2}, "checkpoint": {"every_steps": 100, "load_s": 300},
    "compile": {"recompile_s": 1200, "cache_load_s": 60, "cache_hit_prob": 0},
    "failures": {"restart_s": 600, "warmup_s": 100)" +
         failures + "}" + extra + "}";
}
run_options options(std::uint64_t samples) {
  run_options o;
  o.samples = samples;
  o.seed = 7;
  return o;
}
}  // namespace

TEST_CASE("without failures during it, a recovery is its four parts", "[restart_time]") {
  const auto s = scenario::from_text(job(R"(, "node_mtbf_h": 1000, "during_recovery": false)"));
  const auto r = restart_time(s, options(1000));
  const double expected_h = (600 + 1200 + 300 + 100) / 3600.0;
  CHECK(r.stats(0).min == expected_h);
  CHECK(r.stats(0).max == expected_h);
}

TEST_CASE("the cache hit probability splits recoveries into loads and recompiles", "[restart_time]") {
  const auto s = scenario::from_text(job(R"(, "during_recovery": false)")).updated({{"compile.cache_hit_prob", 0.3}});
  const auto r = restart_time(s, options(20'000));
  const double hit_h = (600 + 60 + 300 + 100) / 3600.0, miss_h = (600 + 1200 + 300 + 100) / 3600.0;
  const Eigen::ArrayXd values = r.values().col(0);
  double hits = 0;
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    REQUIRE((values(i) == hit_h || values(i) == miss_h));
    hits += values(i) == hit_h;
  }
  const double n = static_cast<double>(values.size()), se = std::sqrt(0.3 * 0.7 / n);
  CHECK(std::abs(hits / n - 0.3) < 4 * se);
}

TEST_CASE("failures during a recovery restart it: E[T] = (e^{λR} − 1)/λ", "[restart_time]") {
  // Four nodes with an MTBF of 2 h: λ = 2/h; R = 2200 s. A task of length R restarted from
  // scratch at Poisson failures takes (e^{λR} − 1)/λ on average.
  const auto s = scenario::from_text(job(R"(, "node_mtbf_h": 2)"));
  const auto r = restart_time(s, options(200'000));
  const double lambda_per_h = 4 / 2.0, recovery_h = 2200 / 3600.0;
  const double expected_h = std::expm1(lambda_per_h * recovery_h) / lambda_per_h;
  const auto st = r.stats(0);
  const double se = std::sqrt(st.m2 / static_cast<double>(st.count - 1) / static_cast<double>(st.count));
  CHECK(std::abs(st.mean - expected_h) < 4 * se);
  CHECK(st.min == Approx(recovery_h));  // a recovery is never shorter than its parts
}

TEST_CASE("the recovery of simulate and of restart_time agree", "[restart_time]") {
  // Recoveries that cannot fail, constant inputs: each of simulate's failures adds exactly one
  // recovery of restart_time's length to recovery_h + the recovery compiles + the warm-ups.
  const auto s = scenario::from_text(job(R"(, "node_mtbf_h": 5, "during_recovery": false)"));
  const auto sim = simulate(s, options(2000), true);
  const auto recovery_h = restart_time(s, options(10)).stats(0).mean;
  const auto column = [&](const char* name) {
    return Eigen::ArrayXd(sim.values().col(static_cast<Eigen::Index>(sim.index(name))));
  };
  const Eigen::ArrayXd failures = column("failures"), recovery = column("recovery_h"), compile = column("compile_h"),
                       warmup = column("warmup_h");
  double total_failures = 0;
  for (Eigen::Index i = 0; i < failures.size(); ++i) {
    CHECK(recovery(i) + compile(i) + warmup(i) == Approx(failures(i) * recovery_h).margin(1e-12));
    total_failures += failures(i);
  }
  CHECK(total_failures > 100);  // the check above saw recoveries
}

TEST_CASE("the job card's restart promise is checked against the model's P90", "[restart_time][card]") {
  const std::string card = R"(, "card": {"max_error_to_restart_h": )";
  const auto kept = scenario::from_text(job(R"(, "during_recovery": false)", card + "1}"));
  CHECK(job_card_checks(kept).empty());  // 0.61 h ≤ 1 h
  const auto broken = scenario::from_text(job(R"(, "during_recovery": false)", card + "0.5}"));
  const auto checks = job_card_checks(broken);
  REQUIRE(checks.size() == 1);
  CHECK_THAT(checks[0], test::contains("card.max_error_to_restart_h is 0.5 h, but the modelled time from "
                                       "a failure to resumed training is 0.611 h at P90"));
  const auto unknown = broken.updated({{"failures.restart_s", ordered_json{{"unknown", "no measurement"}}}});
  REQUIRE(job_card_checks(unknown).size() == 1);
  CHECK_THAT(job_card_checks(unknown)[0], test::contains("cannot be checked"));
  // An unknown MTBF is unknown, not "no failures", when failures can interrupt a recovery.
  const auto exposed = scenario::from_text(job("", card + "0.5}"));
  const auto no_mtbf = exposed.updated({{"failures.node_mtbf_h", ordered_json{{"unknown", "not measured"}}}});
  REQUIRE(job_card_checks(no_mtbf).size() == 1);
  CHECK_THAT(job_card_checks(no_mtbf)[0], test::contains("cannot be checked"));
  const auto sheltered = broken.updated({{"failures.node_mtbf_h", ordered_json{{"unknown", "not measured"}}}});
  CHECK_THAT(job_card_checks(sheltered)[0], test::contains("is 0.611 h at P90"));  // no exposure: known
  CHECK(job_card_checks(scenario::from_text(job(""))).empty());  // no promise, nothing to check
}

}  // namespace test_restart_time
