// Whether a scenario reads a field (scenario/relevance.hpp): by throughput mode, failure model,
// step source and purchase option, as the field table's `when` column says.
#include <string>

#include "catch.hpp"
#include "trnmodel/scenario/relevance.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_relevance {

namespace {
scenario with(const std::string& extra) {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 2})" + extra + "}");
}
bool reads(const scenario& s, field f) { return reads_field(s, spec(f)); }
}  // namespace

TEST_CASE("a measured step time is read in measured mode, the platform model's inputs are not", "[relevance]") {
  const scenario s = with("");
  CHECK(reads(s, field::throughput_step_time_s));
  CHECK(!reads(s, field::throughput_compute_efficiency));
  CHECK(reads(s, field::job_effective_steps));
  CHECK(!reads(s, field::job_tokens));
  CHECK(reads(s, field::checkpoint_save_s));  // always
}

TEST_CASE("the purchase option decides which price and which waits are read", "[relevance]") {
  const scenario on_demand = with(R"(, "prices": {"node_hour_usd": 3})");
  CHECK(reads(on_demand, field::prices_node_hour_usd));
  CHECK(!reads(on_demand, field::prices_spot_node_hour_usd));
  CHECK(!reads(on_demand, field::prices_block_usd));
  CHECK(!reads(on_demand, field::spot_reacquire_s));
  const scenario spot = with(R"(, "prices": {"purchase": "spot", "spot_node_hour_usd": 1},
    "spot": {"interruptions_per_node_h": 0.01})");
  CHECK(!reads(spot, field::prices_node_hour_usd));
  CHECK(reads(spot, field::prices_spot_node_hour_usd));
  CHECK(reads(spot, field::spot_reacquire_s));
  CHECK(!reads(spot, field::prices_block_lead_s));
}

TEST_CASE("the Weibull shape is read only with a failure model of that distribution", "[relevance]") {
  CHECK(!reads(with(""), field::failures_weibull_shape));
  CHECK(!reads(with(R"(, "failures": {"node_mtbf_h": 100})"), field::failures_weibull_shape));
  CHECK(reads(with(R"(, "failures": {"node_mtbf_h": 100, "distribution": "weibull"})"), field::failures_weibull_shape));
}

}  // namespace test_relevance
