// Edge cases found in review: each once hung, crashed or returned a silently wrong number.
#include <cmath>
#include <limits>
#include <string>

#include "catch.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/lifecycle/simulate.hpp"

using namespace trnmodel;

namespace {
std::string error_of(const std::string& text) { return test::scenario_error(text); }
const std::string head = R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 5400}, "cluster": {"nodes": 1},)";
}  // namespace

TEST_CASE("zero or tiny rates are refused at load time", "[edge]") {
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "failures": {"node_mtbf_h": 1, "distribution": "weibull", "weibull_shape": 0}})"),
             test::contains("failures.weibull_shape: must be ≥ 0.1, got 0"));
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 0}})"), test::contains("throughput.step_time_s: must be > 0, got 0"));
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "failures": {"node_mtbf_h": 0}})"),
             test::contains("failures.node_mtbf_h: must be > 0, got 0"));
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": {"dist": "empirical", "samples": [0, 1, 2]}}})"),
             test::contains("which can be 0"));
}

TEST_CASE("Weibull failures that leave no chance to finish are refused, not looped on", "[edge]") {
  // A 3 h segment against a 1 h mean time between failures, shape 3: e^{(D/scale)^k} attempts.
  const auto s = scenario::from_text(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1},
      "failures": {"node_mtbf_h": 1, "distribution": "weibull", "weibull_shape": 3}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("would never finish"));
}

TEST_CASE("quote dates must be real calendar days; JSON numbers beyond double range are refused", "[edge]") {
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": {"dist": "fixed", "value": 3, "source": "quote", "date": "2026-02-30"}}})"),
             test::contains("prices.node_hour_usd.date: must be an ISO date YYYY-MM-DD, got \"2026-02-30\""));
  CHECK(error_of(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": {"dist": "fixed", "value": 3, "source": "quote", "date": "2028-02-29"}}})") ==
        "no error");
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e400}})"), test::contains("scenario: JSON"));
}

TEST_CASE("an unknown input the scenario never reads blocks nothing", "[edge]") {
  const auto s = scenario::from_text(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1},
      "failures": {"node_mtbf_h": 1000, "weibull_shape": {"unknown": "not fitted"}},
      "reference": {"step_time_s": {"unknown": "no trial"}}})");
  run_options options;
  options.samples = 100;
  const auto r = simulate(s, options);  // no UnknownInputError: exponential failures, measured mode
  CHECK(std::isfinite(r.stats(metric::wall_h).mean));
}

TEST_CASE("flops mode without a profile counts the layout's chips", "[edge]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
      "model": {"parameters": 8e9, "layers": 32, "hidden_size": 4096, "heads": 32, "sequence_length": 4096},
      "parallelism": {"tp": 8, "dp": 2, "global_batch": 64},
      "throughput": {"mode": "flops", "achieved_tflops_per_chip": 200}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 2;
  const auto r = simulate(s, options);
  const double flops = 6 * 8e9 + 12 * 32 * 4096.0 * 4096;
  CHECK_THAT(r.values()(0, metric::step_time_s), Catch::Matchers::WithinRel(64 * 4096 * flops / (16 * 200e12), 1e-12));
}

TEST_CASE("infinite outputs keep their place in the order", "[edge]") {
  log_histogram h(1e-3);
  for (const double x : {1.0, 2.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 3.0})
    h.add(x);
  CHECK(h.count() == 5);
  CHECK(h.at_rank(0) == -std::numeric_limits<double>::infinity());
  CHECK(h.at_rank(4) == std::numeric_limits<double>::infinity());
  CHECK(h.quantile(1.0) == std::numeric_limits<double>::infinity());
  CHECK_THAT(h.quantile(0.5), Catch::Matchers::WithinRel(2.0, 1e-3));
}

TEST_CASE("truncated normal keeps its upper tail accurate with only a lower bound", "[edge]") {
  const auto q = make_normal(2, 1, 0);
  const double u = 1 - 1e-12;
  const double x = q.ppf(u);
  CHECK(std::isfinite(q.ppf(1 - std::ldexp(1.0, -53))));
  // Upper-tail probability of x, relative to the truncated mass, equals 1 - u.
  const double sf = 0.5 * std::erfc((x - 2) / std::sqrt(2.0)) / (0.5 * std::erfc(-2 / std::sqrt(2.0)));
  CHECK_THAT(sf, Catch::Matchers::WithinRel(1 - u, 1e-6));  // 1 - u is exact in double
}
