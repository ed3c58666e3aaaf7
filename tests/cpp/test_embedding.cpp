// The embedding surface as an embedder meets it: shipped profiles, results by metric name,
// read-only results, comparison results, kept metrics, NaN, bounds and the block sizes.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/sensitivity/sweep.hpp"
#include "trnmodel/throughput/profile_files.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_embedding {

namespace {

const std::string lora_file = std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-trn2.json";


run_options runs(std::uint64_t samples, std::uint64_t seed = 5) {
  run_options o;
  o.samples = samples;
  o.seed = seed;
  return o;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the shipped profiles are every profile file of the package", "[embedding][profiles]") {
  const profile_library& shipped = shipped_profiles();
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shipped_profiles_dir()))
    files += entry.path().extension() == ".json";
  CHECK(shipped.size() == files);
  REQUIRE(shipped.count("trn2.48xlarge") == 1);
  CHECK(platform_profile::from_json(shipped.at("trn2.48xlarge"), "p").chips_per_node == 16);
  CHECK(&shipped_profiles() == &shipped);  // read once
  CHECK(std::filesystem::exists(shipped_schema_dir() + "/scenario-v1.schema.json"));
}

TEST_CASE("load_profiles names a bad directory or file", "[embedding][profiles]") {
  CHECK_THROWS_WITH(load_profiles("/nonexistent/profiles"),
                    test::contains("/nonexistent/profiles") && test::contains("not a directory"));
  const auto dir = std::filesystem::temp_directory_path() / ("trnmodel-profiles-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CHECK_THROWS_WITH(load_profiles(dir.string()), test::contains("holds no hardware profile"));
  std::filesystem::copy_file(shipped_profiles_dir() + "/trn2.48xlarge.json", dir / "mine.json");
  const profile_library one = load_profiles(dir.string());
  REQUIRE(one.size() == 1);
  CHECK(one.count("mine") == 1);
  std::ofstream(dir / "broken.json") << R"({"schema": "trnmodel.profile/1", "chips_per_node": 0})";
  CHECK_THROWS_WITH(load_profiles(dir.string()), test::contains("profile broken"));
  // The environment overrides the configured directory.
  ::setenv("TRNMODEL_PROFILES_DIR", dir.string().c_str(), 1);
  CHECK(shipped_profiles_dir() == dir.string());
  ::unsetenv("TRNMODEL_PROFILES_DIR");
  CHECK(shipped_profiles_dir() != dir.string());
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unknown platform lists the known ones, or says how to load them", "[embedding][profiles]") {
  // The step time derived from FLOPs: the platform must then be a profile.
  const scenario lora = scenario::from_file(lora_file, shipped_profiles())
                            .updated({{"throughput.mode", ordered_json("flops")},
                                      {"throughput.step_time_s", ordered_json(nullptr)},
                                      {"throughput.model_flops_utilization", ordered_json(0.25)},
                                      {"model.parameters", ordered_json(8.03e9)},
                                      {"model.sequence_length", ordered_json(4096)},
                                      {"parallelism.global_batch", ordered_json(64)},
                                      {"parallelism.dp", ordered_json(16)}});
  const auto analytic = [&](const std::string& platform, profile_library profiles) {
    ordered_json doc = lora.to_json();
    doc["cluster"]["platform"] = platform;
    return scenario::from_json(doc, std::move(profiles));
  };
  const std::string known = message_of([&] { analytic("trn9.48xlarge", shipped_profiles()); });
  CHECK_THAT(known, test::contains("cluster.platform: no hardware profile named \"trn9.48xlarge\"") &&
                        test::contains("known: ") && test::contains("p5.48xlarge") && test::contains("trn2.48xlarge"));
  const std::string none = message_of([&] { analytic("trn2.48xlarge", {}); });
  CHECK_THAT(none, test::contains("shipped_profiles()"));
  CHECK_NOTHROW(analytic("trn2.48xlarge", shipped_profiles()));
}

TEST_CASE("results by metric name agree with results by index", "[embedding][results]") {
  const scenario lora = scenario::from_file(lora_file, shipped_profiles());
  const run_result r = simulate(lora, runs(4000));
  const std::size_t wall = r.index("wall_h");
  CHECK(wall == static_cast<std::size_t>(metric::wall_h));
  CHECK(test::same_bits(r.quantile("wall_h", 0.9), r.quantiles(wall, {0.9}).front()));
  CHECK(test::same_bits(r.quantile(wall, 0.5), r.summary("wall_h").p50));
  CHECK(test::same_bits(r.stats("wall_h").mean, r.stats(wall).mean));
  CHECK(r.values("wall_h").size() == 4000);
  CHECK(test::same_bits(r.values(wall)(17), r.values()(17, static_cast<Eigen::Index>(wall))));
  // Type 7 by hand on the kept samples.
  std::vector<double> sorted(r.values(wall).data(), r.values(wall).data() + 4000);
  std::sort(sorted.begin(), sorted.end());
  const double h = 3999 * 0.9;
  const auto lo = static_cast<std::size_t>(h);
  CHECK(r.quantile("wall_h", 0.9) == Approx(sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo])).epsilon(1e-15));
}

TEST_CASE("result errors name the output, the index and the range", "[embedding][results]") {
  const run_result r = simulate(scenario::from_file(lora_file, shipped_profiles()), runs(100));
  CHECK_THROWS_AS(r.stats(99), input_error);
  CHECK_THROWS_WITH(r.stats(99), test::contains("output: index 99 is out of range: the result has " +
                                                std::to_string(metric::count) + " outputs"));
  CHECK_THROWS_WITH(r.quantile("wall_hours", 0.5),
                    test::contains("wall_hours: no such output") && test::contains("wall_h"));
  CHECK_THROWS_WITH(r.quantile("wall_h", 1.5), test::contains("q: probabilities must lie in [0, 1], got 1.5"));
  CHECK_THROWS_AS(r.histogram(metric::count), input_error);
  run_options streamed = runs(100);
  streamed.keep_samples = false;
  const run_result s = simulate(scenario::from_file(lora_file, shipped_profiles()), streamed);
  CHECK_THROWS_WITH(s.values("wall_h"), test::contains("samples were not kept"));
}

TEST_CASE("an output with no value has a NaN mean, min and max", "[embedding][results]") {
  const input_set inputs({{"x", make_uniform(0, 1)}});
  const auto nan_f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) {
    y.col(0).setConstant(std::nan(""));
    y.col(1) = x.col(0);
  };
  for (const bool keep : {true, false}) {
    run_options o = runs(1000);
    o.keep_samples = keep;
    const run_result r = monte_carlo(inputs, nan_f, {"nothing", "x"}, o);
    CHECK(std::isnan(r.stats("nothing").mean));
    CHECK(std::isnan(r.stats("nothing").min));
    CHECK(std::isnan(r.stats("nothing").max));
    CHECK(r.stats("nothing").nan_count == 1000);
    CHECK(std::isnan(r.summary("nothing").p50));
    CHECK(r.stats("x").mean == Approx(0.5).margin(4 * std::sqrt(1 / 12.0 / 1000)));
  }
}

TEST_CASE("keeping some metrics gives their bits, in their order", "[embedding][results]") {
  const scenario lora = scenario::from_file(lora_file, shipped_profiles());
  run_options o = runs(3000, 9);
  o.block_size = 700;  // several blocks, the last short
  const run_result all = simulate(lora, o);
  const run_result some = simulate(lora, o, {"run_cost_usd", "wall_h"}, false);
  REQUIRE(some.names() == std::vector<std::string>{"run_cost_usd", "wall_h"});
  CHECK(some.values().cols() == 2);
  for (const char* name : {"wall_h", "run_cost_usd"}) {
    CHECK(test::same_bits(some.stats(name).mean, all.stats(name).mean));
    CHECK(test::same_bits(some.stats(name).sd(), all.stats(name).sd()));
    CHECK(test::same_bits(some.quantile(name, 0.9), all.quantile(name, 0.9)));
    CHECK((some.values(name) == all.values(name)).all());
  }
  CHECK_THROWS_WITH(simulate(lora, o, {"wall_hours"}, false), test::contains("metrics: no metric named"));
  CHECK_THROWS_WITH(simulate(lora, o, {"wall_h", "wall_h"}, false), test::contains("named twice"));
  // Only the unknowns the kept metrics need block them.
  const scenario no_price = lora.updated({{"prices.node_hour_usd", ordered_json(nullptr)}});
  CHECK_NOTHROW(simulate(no_price, o, {"wall_h"}, false));
  CHECK_THROWS_AS(simulate(no_price, o, {"run_cost_usd"}, false), unknown_input_error);
}

TEST_CASE("a comparison result answers P(A < B) and the difference by name", "[embedding][compare]") {
  const scenario trn2 = scenario::from_file(lora_file, shipped_profiles());
  const scenario p5 =
      scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-p5.json", shipped_profiles());
  const sensitivity::comparison_result c = sensitivity::compare(trn2, p5, "run_cost_usd", runs(5000));
  CHECK(c.metric() == metric::run_cost_usd);
  CHECK(c.metric_name() == "run_cost_usd");
  const auto a = c.values("a"), b = c.values("b");
  CHECK(c.p_a_less_b() == Approx((a < b).cast<double>().mean()).epsilon(1e-12));
  CHECK(c.difference().mean == Approx((a - b).mean()).epsilon(1e-9));
  CHECK(test::same_bits(c.difference_quantile(0.5), c.quantile("difference", 0.5)));
  CHECK(test::same_bits(c.a_quantile(0.9), simulate(trn2, runs(5000)).quantile("run_cost_usd", 0.9)));
  CHECK(test::same_bits(c.b_quantile(0.9), simulate(p5, runs(5000)).quantile("run_cost_usd", 0.9)));
  CHECK_THROWS_WITH(sensitivity::compare(trn2, p5, "cost", runs(10)), test::contains("metric: no metric named"));
}

TEST_CASE("block size 0 takes the call's default, as Python's call does", "[embedding][blocks]") {
  const scenario lora = scenario::from_file(lora_file, shipped_profiles());
  run_options o = runs(10'000, 3), explicit_4096 = o;
  explicit_4096.block_size = default_block_size;
  CHECK(test::same_bits(simulate(lora, o).stats("wall_h").mean, simulate(lora, explicit_4096).stats("wall_h").mean));
  const input_set inputs({{"x", make_lognormal(0, 1)}});
  const auto f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) { y.col(0) = x.col(0); };
  run_options big = runs(50'000, 3);
  big.block_size = function_block_size;
  CHECK(test::same_bits(monte_carlo(inputs, f, {"y"}, runs(50'000, 3)).stats(0).mean,
                  monte_carlo(inputs, f, {"y"}, big).stats(0).mean));
  run_options bad = o;
  bad.block_size = -1;
  CHECK_THROWS_WITH(simulate(lora, bad), test::contains("block_size: must be ≥ 1 (or 0 for the call's default)"));
}

TEST_CASE("a sweep is each point simulated on the same seed", "[embedding][sweep]") {
  const scenario lora = scenario::from_file(lora_file, shipped_profiles());
  run_options o = runs(3000, 4);
  o.keep_samples = false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reports;
  o.progress = [&](std::uint64_t done, std::uint64_t total) { reports.emplace_back(done, total); };
  const std::vector<sensitivity::sweep_axis> grid{
      {"checkpoint.every_steps", {ordered_json(250), ordered_json(500)}},
      {"cluster.nodes", {ordered_json(1), ordered_json(2), ordered_json(3)}}};
  const auto points = sensitivity::sweep(lora, grid, o);
  REQUIRE(points.size() == 6);
  CHECK(points[1].changes == std::vector<std::pair<std::string, ordered_json>>{
                                 {"checkpoint.every_steps", ordered_json(250)}, {"cluster.nodes", ordered_json(2)}});
  CHECK(points[5].changes.front().second == ordered_json(500));
  run_options plain = runs(3000, 4);
  plain.keep_samples = false;
  for (const auto& point : points) {
    const run_result alone = simulate(lora.updated(point.changes), plain);
    CHECK(test::same_bits(point.result.stats("wall_h").mean, alone.stats("wall_h").mean));
    CHECK(test::same_bits(point.result.quantile("run_cost_usd", 0.9), alone.quantile("run_cost_usd", 0.9)));
  }
  REQUIRE(!reports.empty());
  CHECK(reports.back() == std::make_pair(std::uint64_t{18'000}, std::uint64_t{18'000}));  // one count over the grid
  CHECK(std::is_sorted(reports.begin(), reports.end()));
  CHECK_THROWS_WITH(sensitivity::sweep(lora, {}, o), test::contains("grid: must map one or two dotted paths"));
  CHECK_THROWS_WITH(sensitivity::sweep(lora, {{"checkpoint.every_steps", {}}}, o),
                    test::contains("grid[checkpoint.every_steps]: must be a non-empty list"));
  CHECK_THROWS_WITH(sensitivity::sweep(lora, {{"checkpoint.every_steps", {ordered_json(-5)}}}, o),
                    test::contains("checkpoint.every_steps"));
}

}  // namespace test_embedding
