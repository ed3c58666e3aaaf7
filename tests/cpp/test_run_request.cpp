// A run's request (sensitivity/run_request.hpp): with run_options::remote set, every model that
// describes itself is run as ranges of blocks computed from its request alone, as another
// process would compute them, and folded in block order: the local run's result bit for bit,
// for simulate, a subset of metrics, a tornado's pinned runs, a comparison, a break-even and
// the time of a recovery.
#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "input_error_of.hpp"
#include "trnmodel/lifecycle/restart_time.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/sensitivity/run_request.hpp"
#include "trnmodel/sensitivity/tornado.hpp"
#include "trnmodel/throughput/profile_files.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

namespace test_run_request {

namespace {

scenario example(const std::string& name) {
  return scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/" + name, shipped_profiles());
}

// A remote that computes each run in three ranges from the request text alone (as a worker
// would), sends each partial through its bytes, and counts the runs and ranges it served.
struct three_ranges {
  int runs = 0, ranges = 0;
  std::vector<std::string> kinds;
  void operator()(const std::string& request, std::uint64_t blocks, bool,
                  const std::function<void(const std::string&)>& fold) {
    ++runs;
    kinds.push_back(ordered_json::parse(request).at("model").at("kind").get<std::string>());
    const std::uint64_t cuts[] = {0, blocks / 3, 2 * blocks / 3, blocks};
    for (int k = 0; k < 3; ++k) {
      if (cuts[k] == cuts[k + 1]) continue;
      ++ranges;
      fold(sensitivity::request_partial(request, cuts[k], cuts[k + 1], 1).to_bytes());
    }
  }
};

run_options options(std::uint64_t samples, bool keep) {
  run_options o;
  o.samples = samples;
  o.seed = 21;
  o.keep_samples = keep;
  o.threads = 2;
  return o;
}

run_options remote(run_options o, three_ranges& r) {
  o.remote = [&r](const std::string& request, std::uint64_t blocks, bool keep,
                  const std::function<void(const std::string&)>& fold) { r(request, blocks, keep, fold); };
  return o;
}

void check_same(const run_result& a, const run_result& b) {
  REQUIRE(a.names() == b.names());
  REQUIRE(a.kept() == b.kept());
  for (std::size_t k = 0; k < a.names().size(); ++k) {
    INFO("output " << a.names()[k]);
    CHECK(a.stats(k).count == b.stats(k).count);
    CHECK(test::same_bits(a.stats(k).mean, b.stats(k).mean));
    CHECK(test::same_bits(a.stats(k).m2, b.stats(k).m2));
    const std::vector<double> p{0, 0.1, 0.5, 0.9, 1};
    const auto qa = a.quantiles(k, p), qb = b.quantiles(k, p);
    for (std::size_t j = 0; j < p.size(); ++j) CHECK(test::same_bits(qa[j], qb[j]));
  }
  if (a.kept()) CHECK((a.values() == b.values() || (a.values().isNaN() && b.values().isNaN())).all());
}

}  // namespace

TEST_CASE("request: simulate and a subset of its metrics through a remote are the local runs, kept or streamed") {
  const scenario s = example("llama3-70b-cpt-2stage-trn2x16.json");  // two stages, a shipped profile
  for (const bool keep : {true, false}) {
    three_ranges r;
    check_same(simulate(s, remote(options(12'289, keep), r)), simulate(s, options(12'289, keep)));
    check_same(simulate(s, remote(options(12'289, keep), r), {"wall_h", "run_cost_usd"}, false),
               simulate(s, options(12'289, keep), {"wall_h", "run_cost_usd"}, false));
    CHECK(r.kinds == std::vector<std::string>{"lifecycle", "metrics"});
    CHECK(r.ranges == 6);
  }
}

TEST_CASE("request: a tornado's pinned runs, a comparison and a break-even through a remote") {
  const scenario trn2 = example("llama3-8b-lora-trn2.json"), p5 = example("llama3-8b-lora-p5.json");
  three_ranges r;
  const auto here = sensitivity::tornado(trn2, "run_cost_usd", sensitivity::statistic::quantile(0.9), options(4500, true));
  const auto there =
      sensitivity::tornado(trn2, "run_cost_usd", sensitivity::statistic::quantile(0.9), remote(options(4500, true), r));
  CHECK(r.runs == 1);  // the 2d + 1 runs are one run of tornado_runs
  CHECK(r.kinds.back() == "tornado_runs");
  CHECK(test::same_bits(here.baseline, there.baseline));
  REQUIRE(here.bars.size() == there.bars.size());
  for (std::size_t k = 0; k < here.bars.size(); ++k) {
    CHECK(here.bars[k].factor == there.bars[k].factor);
    CHECK(test::same_bits(here.bars[k].low_statistic, there.bars[k].low_statistic));
    CHECK(test::same_bits(here.bars[k].high_statistic, there.bars[k].high_statistic));
  }
  check_same(sensitivity::compare(trn2, p5, metric::run_cost_usd, remote(options(9000, true), r)),
             sensitivity::compare(trn2, p5, metric::run_cost_usd, options(9000, true)));
  CHECK(r.kinds.back() == "comparison");
  const auto even_here = sensitivity::break_even(trn2, p5, metric::run_cost_usd, "prices.node_hour_usd",
                                                 sensitivity::statistic::mean(), options(4500, false));
  const int before = r.runs;
  const auto even_there = sensitivity::break_even(trn2, p5, metric::run_cost_usd, "prices.node_hour_usd",
                                                  sensitivity::statistic::mean(), remote(options(4500, false), r));
  CHECK(r.runs > before + 2);  // every evaluation of the root finder went through the remote
  CHECK(test::same_bits(even_here.value, even_there.value));
}

TEST_CASE("request: the time of a recovery through a remote, and a model without a request runs here") {
  const scenario s = example("llama3-70b-full-trn2x16.json");
  three_ranges r;
  check_same(restart_time(s, remote(options(10'000, true), r)), restart_time(s, options(10'000, true)));
  CHECK(r.kinds == std::vector<std::string>{"restart_time"});
  // A function model cannot describe itself: it ignores the remote and runs here.
  const input_set inputs({{"x", make_uniform(0, 1)}});
  const auto f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) { y.col(0) = x.col(0); };
  const run_result local = monte_carlo(inputs, f, {"y"}, remote(options(5000, false), r));
  CHECK(r.runs == 1);
  CHECK(local.stats(0).count == 5000);
}

TEST_CASE("request: what request_partial refuses, by path") {
  const scenario s = example("llama3-8b-lora-trn2.json");
  std::string request;
  run_options o = options(5000, false);
  o.remote = [&](const std::string& text, std::uint64_t, bool, const std::function<void(const std::string&)>&) {
    request = text;
  };
  const lifecycle_model pinned = lifecycle_model(s).pinned(0, 1.0);
  CHECK_THROWS(run(sensitivity::one_metric(pinned, metric::wall_h), {"wall_h"}, o));  // nothing was folded
  ordered_json doc = ordered_json::parse(request);
  CHECK(doc.at("model").at("model").at("pins").size() == 1);
  auto refused = [](const ordered_json& d) {
    return test::input_error_of([&] { sensitivity::request_partial(d.dump(), 0, 1); });
  };
  ordered_json bad = doc;
  bad["format"] = "trnmodel.run_request/0";
  CHECK(refused(bad) == "request.format: expected \"trnmodel.run_request/1\", got \"trnmodel.run_request/0\"");
  bad = doc;
  bad["model"]["kind"] = "plan";
  CHECK(refused(bad).rfind("request.model.kind: no model of kind \"plan\"", 0) == 0);
  bad = doc;
  bad["model"]["model"]["pins"][0]["path"] = "no.such.input";
  CHECK(refused(bad) == "request.model.pins: \"no.such.input\" is not a drawn input");
  bad = doc;
  bad["model"].erase("column");
  CHECK(refused(bad) == "request.model: the request has no \"column\"");
  CHECK(sensitivity::request_partial(doc.dump(), 0, 1).last_block == 1);
}

}  // namespace test_run_request
