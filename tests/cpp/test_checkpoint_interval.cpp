// sensitivity/checkpoint_interval.hpp: the closed forms from the inputs' means, the pilot's
// seconds per step, the candidates, and the simulated optimum read from the sweep.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "input_error_of.hpp"
#include "trnmodel/sensitivity/checkpoint_interval.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_checkpoint_interval {

using namespace trnmodel::sensitivity;

namespace {


// Constant inputs: 10 s steps, a 60 s checkpoint, a job MTBF of 1 h (one node).
scenario constant_job(const std::string& failures = R"("failures": {"node_mtbf_h": 1, "restart_s": 60},)") {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 3000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 10}, "checkpoint": {"every_steps": 100, "save_s": 60},
    )" + failures + R"( "prices": {"node_hour_usd": 1}})");
}

run_options runs(std::uint64_t samples, std::uint64_t seed = 0) {
  run_options o;
  o.samples = samples;
  o.seed = seed;
  return o;
}

}  // namespace

TEST_CASE("numpy's pairwise summation, not a running sum") {
  // np.sum(np.full(1000, 0.1)) is 100.00000000000001; a running sum drifts to 99.9999999999986.
  const std::vector<double> tenths(1000, 0.1);
  CHECK(test::same_bits(trnmodel::detail::pairwise_sum(tenths.data(), tenths.size()), 0x1.9000000000001p+6));
  double running = 0;
  for (const double x : tenths) running += x;
  CHECK(test::same_bits(running, 0x1.8ffffffffff9dp+6));
  const double few[] = {1, 2, 3};
  CHECK(trnmodel::detail::pairwise_sum(few, 3) == 6);
}

TEST_CASE("checkpoint interval: Young and Daly in steps, the optimum near Daly") {
  const scenario s = constant_job();
  checkpoint_interval_options search;
  const auto r = checkpoint_interval(s, runs(4000), search);
  CHECK(r.step_s == 10);  // no stalls, no eval: exactly the step time
  CHECK(r.checkpoint_s == 60);
  CHECK(r.mtbf_s == 3600);
  CHECK(test::same_bits(r.young_s, std::sqrt(2.0 * 60 * 3600)));
  CHECK(test::same_bits(r.daly_s, theory::daly_interval_s(60, 3600)));
  CHECK(r.young_steps == 66);  // 657.3 s / 10 s
  CHECK(r.daly_steps == 62);  // 617.7 s / 10 s
  // The default grid: Daly/4 .. 4·Daly in 25 geometric steps (some coincide after rounding).
  CHECK(r.candidates.front() == 16);
  CHECK(r.candidates.back() == 248);
  CHECK(std::is_sorted(r.candidates.begin(), r.candidates.end()));
  REQUIRE(r.values.size() == r.candidates.size());
  REQUIRE(r.sweep.size() == r.candidates.size());
  // The optimum is the lowest mean wall time of the sweep, and flat near Daly (within 25%).
  CHECK(r.value_at(r.best_steps) == *std::min_element(r.values.begin(), r.values.end()));
  CHECK(std::abs(static_cast<double>(r.best_steps) / static_cast<double>(r.daly_steps) - 1) <= 0.25);
  CHECK(r.value_at(r.best_steps) <= r.value_at(r.daly_steps));
  CHECK(r.best_interval_s() == static_cast<double>(r.best_steps) * 10);
  // Each value is that point's own streamed run on the same seed.
  run_options streamed = runs(4000);
  streamed.keep_samples = false;
  const run_result daly = simulate(s.updated({{"checkpoint.every_steps", 62}}), streamed);
  CHECK(test::same_bits(r.value_at(62), daly.stats(metric::wall_h).mean));
  CHECK_THROWS_AS(r.value_at(63), input_error);
}

TEST_CASE("checkpoint interval: given candidates, a quantile, progress over the whole call") {
  checkpoint_interval_options search;
  search.every_steps = {30, 10, 30, 90};
  search.output = metric::run_cost_usd;
  search.stat = statistic::quantile(0.9);
  search.pilot_samples = 500;
  run_options options = runs(1000, 3);
  std::vector<std::uint64_t> done, totals;
  options.progress = [&](std::uint64_t d, std::uint64_t t) {
    done.push_back(d);
    totals.push_back(t);
  };
  const auto r = checkpoint_interval(constant_job(), options, search);
  CHECK(r.candidates == std::vector<long long>{10, 30, 62, 66, 90});
  CHECK(std::is_sorted(done.begin(), done.end()));
  CHECK(done.back() == 500 + 5 * 1000);
  CHECK(totals.back() == 500 + 5 * 1000);
  run_options streamed = runs(1000, 3);
  streamed.keep_samples = false;
  const run_result at30 = simulate(constant_job().updated({{"checkpoint.every_steps", 30}}), streamed);
  CHECK(test::same_bits(r.value_at(30), at30.quantile(metric::run_cost_usd, 0.9)));
}

TEST_CASE("checkpoint interval: what it refuses, by path") {
  CHECK(test::input_error_of([] { checkpoint_interval(constant_job(""), runs(100)); }) ==
        "failures.node_mtbf_h: checkpoint_interval needs a failure model (it is absent)");
  checkpoint_interval_options search;
  search.stat = statistic::quantile(0.95);
  CHECK(test::input_error_of([&] { checkpoint_interval(constant_job(), runs(100), search); }) ==
        "statistic: checkpoint_interval supports mean, p10, p50, p80, p90 and p99, got quantile 0.95");
  search = {};
  search.every_steps = {-5};
  CHECK(test::input_error_of([&] {
          checkpoint_interval(constant_job(), runs(100), search);
        }).rfind("checkpoint.every_steps: must be ≥ 0", 0) == 0);
  const scenario unpriced =
      constant_job().updated({{"prices.node_hour_usd", ordered_json::parse(R"({"unknown": "x"})")}});
  CHECK_THROWS_AS(checkpoint_interval(unpriced, runs(100)), unknown_input_error);
}

}  // namespace test_checkpoint_interval
