// The lifecycle model (lifecycle/simulate.hpp): what it draws and what it blocks. Results are
// the same bits for any thread count; an unknown input blocks exactly the metrics that need it,
// and one the scenario never reads blocks nothing.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lifecycle_runs.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/lifecycle/simulate.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_simulate {

using test::daly_scenario;
using test::make;
using test::run_scenario;

TEST_CASE("lifecycle results are bitwise identical for any thread count", "[lifecycle]") {
  const auto s = daly_scenario(5, 120, 900, 100, 3600, true);
  std::vector<run_result> results;
  for (const int threads : {1, 2, 3, 8}) results.push_back(run_scenario(s, 20'001, 4, threads));
  const auto& first = results[0].values();
  for (const auto& r : results) CHECK(((r.values() == first) || (r.values().isNaN() && first.isNaN())).all());
}

TEST_CASE("unknown inputs block exactly the metrics that need them", "[lifecycle][unknown]") {
  const auto s = make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 100}, "cluster": {"nodes": 1},
    "throughput": {"step_time_s": 10}, "data": {"dataset_gb": {"unknown": "data not collected yet"}}})");
  run_options options;
  options.samples = 100;
  try {
    simulate(s, options);
    FAIL("no error");
  } catch (const unknown_input_error& e) {
    CHECK(e.paths() == std::vector<std::string>{"prices.node_hour_usd", "data.dataset_gb"});
    CHECK_THAT(std::string(e.what()), test::contains("prices.node_hour_usd (absent)"));
    CHECK_THAT(std::string(e.what()), test::contains("data.dataset_gb (data not collected yet)"));
  }
  const auto r = simulate(s, options, true);
  const lifecycle_model model(s);
  const auto blocked = model.unknown_metrics();
  // (compute_s ... dp_comm_s are NaN in measured mode: not modelled, tested elsewhere.)
  for (std::size_t m = 0; m < metric::compute_s; ++m) {
    if (m == metric::block_fit) continue;  // NaN without a capacity block: not applicable (test_purchase.cpp)
    const bool is_blocked = std::find(blocked.begin(), blocked.end(), metric_names()[m]) != blocked.end();
    INFO(metric_names()[m]);
    CHECK(std::isnan(r.values()(0, static_cast<Eigen::Index>(m))) == is_blocked);
  }
  CHECK(std::find(blocked.begin(), blocked.end(), "wall_h") == blocked.end());
  CHECK(std::find(blocked.begin(), blocked.end(), "cost_transfer_usd") == blocked.end());
  CHECK(std::find(blocked.begin(), blocked.end(), "cost_storage_usd") != blocked.end());
  CHECK(std::find(blocked.begin(), blocked.end(), "run_cost_usd") != blocked.end());
}

TEST_CASE("an unknown input the scenario never reads blocks nothing", "[edge]") {
  const auto s = scenario::from_text(test::edge_head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1},
      "failures": {"node_mtbf_h": 1000, "weibull_shape": {"unknown": "not fitted"}},
      "reference": {"step_time_s": {"unknown": "no trial"}}})");
  run_options options;
  options.samples = 100;
  const auto r = simulate(s, options);  // no UnknownInputError: exponential failures, measured mode
  CHECK(std::isfinite(r.stats(metric::wall_h).mean));
}

}  // namespace test_simulate
