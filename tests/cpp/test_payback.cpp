// Payback of a port (include/trnmodel/decisions/payback.hpp): the per-sample rule against hand
// computations, and two constant scenarios whose run and porting costs are worked by hand.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/decisions/payback.hpp"
#include "trnmodel/throughput/profile_files.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_payback {

namespace {

// 3,600 steps of `step_s` on 2 nodes at $40 a node-hour, nothing else described: the run costs
// 3600 × step_s / 3600 h × 2 × $40 = $80 × step_s; porting adaptation_h × $150.
scenario constant(double step_s, double adaptation_h) {
  const std::string engineering =
      adaptation_h > 0 ? R"(, "engineering": {"adaptation_h": )" + std::to_string(adaptation_h) +
                             R"(, "rate_usd_per_h": 150})"
                       : "";
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 3600},
    "cluster": {"nodes": 2, "platform": "trn2.48xlarge"}, "throughput": {"step_time_s": )" +
                                 std::to_string(step_s) + R"(}, "prices": {"node_hour_usd": 40})" + engineering + "}",
                             load_profiles(shipped_profiles_dir()));
}

}  // namespace

TEST_CASE("payback per sample: the smallest whole number of runs", "[decisions][payback]") {
  const double inf = std::numeric_limits<double>::infinity();
  // side's run cost, other's run cost, side's porting, other's porting -> runs
  const std::vector<std::vector<double>> cases{
      {800, 960, 15000, 0, 94},      // 15000 / 160 = 93.75 -> 94
      {800, 960, 16000, 0, 100},     // exactly 100 runs: 100 × 160 = 16000
      {800, 960, 0, 0, 0},           // no extra porting cost
      {800, 960, 5000, 9000, 0},     // less porting than the other side
      {960, 800, 15000, 0, inf},     // extra porting, dearer to run: never
      {800, 800, 15000, 0, inf},     // extra porting, no saving: never
      {0.1, 0.3, 0.6, 0, 3},         // 0.6 / 0.2 rounds to 2.9999999999999996 or 3.0000000000000004: 3
      {800, 960, 160, 0, 1},         // one run pays it
  };
  for (const auto& c : cases) {
    const double saving = c[1] - c[0], extra = c[2] - c[3];
    const auto runs = payback_runs(&saving, &extra, 1);
    INFO("case " << c[0] << " " << c[1] << " " << c[2] << " " << c[3]);
    CHECK(runs[0] == c[4]);
    if (std::isfinite(runs[0]) && runs[0] > 0) {
      CHECK(runs[0] * (c[1] - c[0]) >= c[2] - c[3]);  // enough runs
      CHECK((runs[0] - 1) * (c[1] - c[0]) < c[2] - c[3]);  // and no fewer would do
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN(), one = 1;
  CHECK_THROWS_WITH(payback_runs(&nan, &one, 1), test::contains("sample 0"));
}

TEST_CASE("payback of two constant scenarios equals the hand computation", "[decisions][payback]") {
  run_options options;
  options.samples = 64;
  options.seed = 3;
  // A: 10 s steps ($800 a run), 100 h of porting at $150 ($15,000); B: 12 s steps ($960), no port.
  const auto r = payback(constant(10, 100), constant(12, 0), options);
  CHECK(r.side == 'a');  // the cheaper to run on average
  CHECK_THAT(r.mean_run_cost_a_usd, Catch::Matchers::WithinRel(800, 1e-12));
  CHECK_THAT(r.mean_run_cost_b_usd, Catch::Matchers::WithinRel(960, 1e-12));
  REQUIRE(r.runs.size() == 64);
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    CHECK(r.runs[i] == 94);
    CHECK_THAT(r.run_saving_usd[i], Catch::Matchers::WithinRel(160, 1e-12));
    CHECK_THAT(r.extra_porting_usd[i], Catch::Matchers::WithinRel(15000, 1e-12));
  }
  // B's side: it is dearer to run and has no extra porting cost: 0 runs in every sample.
  const auto on_b = payback(constant(10, 100), constant(12, 0), options, 'b');
  CHECK(on_b.side == 'b');
  for (const double runs : on_b.runs) CHECK(runs == 0);
  // Porting the dearer side: never.
  const auto never = payback(constant(12, 100), constant(10, 0), options, 'a');
  for (const double runs : never.runs) CHECK(std::isinf(runs));
  CHECK_THROWS_WITH(payback(constant(10, 100), constant(12, 0), options, 'c'),
                    test::contains("side"));
}

}  // namespace test_payback

namespace test_payback {

// The payback the sign-off takes from its own simulations (every metric kept) is the payback of
// two runs made for it, sample by sample and bit for bit, whichever side pays back.
TEST_CASE("payback of two kept simulations equals payback's own runs", "[decisions][payback]") {
  const auto example = [](const std::string& name) {
    return scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/" + name, shipped_profiles());
  };
  const scenario a = example("llama3-8b-lora-trn2.json"), b = example("llama3-8b-lora-p5.json");
  run_options options;
  options.samples = 5'001;
  options.seed = 4;
  options.keep_samples = true;
  const run_result ra = simulate(a, options), rb = simulate(b, options);
  for (const char side : {'\0', 'a', 'b'}) {
    const payback_result own = payback(a, b, options, side), kept = payback_of(ra, rb, side);
    CHECK(kept.side == own.side);
    CHECK(kept.runs == own.runs);
    CHECK(kept.run_saving_usd == own.run_saving_usd);
    CHECK(kept.extra_porting_usd == own.extra_porting_usd);
    CHECK(std::memcmp(&kept.mean_run_cost_a_usd, &own.mean_run_cost_a_usd, sizeof(double)) == 0);
  }
  options.keep_samples = false;
  CHECK_THROWS_WITH(payback_of(simulate(a, options), rb), test::contains("samples were not kept"));
  options.keep_samples = true;
  options.samples = 100;
  CHECK_THROWS_WITH(payback_of(ra, simulate(b, options)), test::contains("pairs the runs sample by sample"));
}

}  // namespace test_payback
