// Magnitudes that are almost surely unit mistakes (scenario/plausibility.hpp).
#include <string>

#include "catch.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/scenario/plausibility.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_plausibility {

namespace {
scenario with(const std::string& extra, profile_library profiles = {}) {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1", "throughput": {"step_time_s": 2}, )" + extra + "}",
                             std::move(profiles));
}
const profile_library trn2_only = [] {
  profile_library library;
  library["trn2.48xlarge"] = ordered_json::parse(R"({"schema": "trnmodel.profile/1", "name": "trn2.48xlarge",
    "accelerator": "Trainium2", "node": "trn2.48xlarge", "chips_per_node": 16, "nodes_per_domain": 1,
    "peak_tflops_per_chip": {"bf16": 667}, "hbm_gib_per_chip": 96, "hbm_tb_s_per_chip": 2.9,
    "intra_node_gb_s_per_chip": 128, "inter_node_gb_s_per_chip": 12.5, "intra_node_latency_us": 2,
    "inter_node_latency_us": 10, "intra_node_efficiency": 0.8, "inter_node_efficiency": 0.8,
    "price_node_hour_usd": 35.76})");
  return library;
}();
}  // namespace

TEST_CASE("a realistic scenario raises no plausibility warning", "[plausibility]") {
  CHECK(implausible_values(with(R"("job": {"effective_steps": 3000}, "cluster": {"nodes": 4},
    "failures": {"node_mtbf_h": 6150}, "quality": {"rerun_prob": 0.1})"))
            .empty());
}

TEST_CASE("each unit slip is named with what was probably meant", "[plausibility]") {
  const auto one = [](const scenario& s) {
    const auto w = implausible_values(s);
    REQUIRE(w.size() == 1);
    return w[0];
  };
  CHECK(one(with(R"("job": {"tokens": 40}, "cluster": {"nodes": 1}, "model": {"sequence_length": 4096},
    "parallelism": {"global_batch": 64})")) ==
        "job.tokens: 40 tokens is far too few for a training job; did you mean 40e9 (40B) or 40e6 (40M)?");
  CHECK_THAT(
      one(with(R"("job": {"effective_steps": 100}, "cluster": {"nodes": 1}, "failures": {"node_mtbf_h": 22140000})")),
      test::contains("2.214e+07 h per node is over a century; if it is in seconds, that is 6.15e+03 h"));
  CHECK_THAT(one(with(R"("job": {"effective_steps": 100}, "cluster": {"nodes": 64}, "failures": {"node_mtbf_h": 2})")),
             test::contains("if it is the job's MTBF, the per-node figure is nodes × that = 128 h"));
  CHECK_THAT(one(with(R"("job": {"effective_steps": 100}, "cluster": {"nodes": 1}, "quality": {"rerun_prob": 0.8})")),
             test::contains("quality.rerun_prob: a mean of 0.8 makes a failed quality gate more likely than not"));
  CHECK(one(with(R"("job": {"effective_steps": 100}, "cluster": {"nodes": 1, "platform": "trn2.48xlarge"},
    "prices": {"node_hour_usd": 2.2})",
                 trn2_only)) ==
        "prices.node_hour_usd: 2.2 USD per node-hour is far below the trn2.48xlarge list price of 35.8; if it is per "
        "chip, the node of 16 chips costs 35.2");
  CHECK(one(with(R"("job": {"effective_steps": 100}, "cluster": {"nodes": 1, "platform": "trn2"})", trn2_only)) ==
        "cluster.platform: \"trn2\" names no hardware profile; did you mean trn2.48xlarge?");
}

TEST_CASE("an unknown list price is compared with nothing", "[plausibility]") {
  profile_library library = trn2_only;
  library["trn2.48xlarge"]["price_node_hour_usd"] = ordered_json::parse(R"({"unknown": "no public price yet"})");
  CHECK(
      implausible_values(with(R"("job": {"effective_steps": 100}, "cluster": {"nodes": 1, "platform": "trn2.48xlarge"},
    "prices": {"node_hour_usd": 2.2})",
                              library))
          .empty());
}

}  // namespace test_plausibility
