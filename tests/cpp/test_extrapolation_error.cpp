#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/throughput/extrapolation_error.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_extrapolation_error {

namespace {

profile_library trn2_profile() {
  std::ifstream in(std::string(TRNMODEL_SOURCE_DIR) + "/python/trnmodel/profiles/trn2.48xlarge.json");
  std::stringstream text;
  text << in.rdbuf();
  profile_library library;
  library["trn2.48xlarge"] = ordered_json::parse(text.str());
  return library;
}

// Llama-3-70B-like on 16 trn2 nodes, extrapolated from a reference given by `reference` (JSON
// members); `work` is the job's amount of work, or the stages that give it (the last members).
scenario extrapolated(const std::string& reference,
                      const std::string& work = R"("job": {"effective_steps": 1000, "recompute": "selective"})") {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1",
    "cluster": {"nodes": 16, "platform": "trn2.48xlarge"},
    "model": {"parameters": 70.6e9, "layers": 80, "hidden_size": 8192, "heads": 64, "ffn_size": 28672,
              "vocab_size": 128256, "sequence_length": 8192},
    "throughput": {"mode": "extrapolated", "compute_efficiency": 0.45},
    "parallelism": {"tp": 8, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 256},
    "reference": {"step_time_s": 300, "sequence_length": 8192, "global_batch": 256, )" +
                                 reference + R"(},
    "prices": {"node_hour_usd": 35.76}, )" +
                                 work + "}",
                             trn2_profile());
}

const char* two_nodes = R"("nodes": 2, "tp": 8, "pp": 4, "dp": 1, "micro_batch": 1)";

std::size_t input_index(const lifecycle_model& model, const std::string& path) {
  const auto paths = model.uncertain_inputs();
  return static_cast<std::size_t>(std::find(paths.begin(), paths.end(), path) - paths.begin());
}

}  // namespace

TEST_CASE("the extrapolation log-spread grows with the distance between the configurations", "[extrapolation]") {
  const transformer_shape model{70.6e9, 80, 8192, 64, 8192, 28672};
  const parallel_layout layout{8, 4, 8, 1, 256};
  // Distance 0: the fitted constant, and it is an error of its own (not zero).
  CHECK(extrapolation_log_spread(model, layout, 16, model, layout, 16) == extrapolation_sigma_base);
  CHECK(extrapolation_sigma_base > 0);
  // More nodes apart, more spread; the direction of the step does not matter.
  const double x2 = extrapolation_log_spread(model, layout, 8, model, layout, 16);
  const double x8 = extrapolation_log_spread(model, layout, 2, model, layout, 16);
  CHECK(x2 >= extrapolation_sigma_base);
  CHECK(x8 > x2);
  CHECK(extrapolation_log_spread(model, layout, 16, model, layout, 2) == x8);
  // Each changed degree adds its term.
  parallel_layout other = layout;
  other.dp = 1;
  other.micro_batch = 2;
  CHECK(extrapolation_log_spread(model, other, 16, model, layout, 16) ==
        Approx(extrapolation_sigma_base + 2 * extrapolation_sigma_per_changed_degree));
  // Another model size as the reference adds the model term.
  transformer_shape smaller = model;
  smaller.parameters = 8.0e9;
  smaller.layers = 32;
  smaller.hidden_size = 4096;
  smaller.heads = 32;
  CHECK(extrapolation_sigma_model_changed > 0);
  CHECK(extrapolation_log_spread(smaller, layout, 16, model, layout, 16) ==
        Approx(extrapolation_sigma_base + extrapolation_sigma_model_changed));
}

TEST_CASE("an extrapolated step time carries the fitted error as an input of its own", "[extrapolation]") {
  const scenario s = extrapolated(two_nodes);
  const lifecycle_model model(s);
  const parallel_layout reference{8, 4, 1, 1, 256};
  const double sigma = extrapolation_log_spread(s.reference_shape(), reference, 2, s.shape(), s.layout(), 16);
  CHECK(model.extrapolation_log_spread() == sigma);
  const std::size_t j = input_index(model, "extrapolation.error");
  REQUIRE(j < model.input_count());

  // Common random numbers: holding the error at 1 leaves every other draw as it was, so the
  // per-sample ratio of the two step times is the error factor alone.
  run_options options;
  options.samples = 20000;
  const run_result with = run(model, detail::metric_name_list(), options);
  const run_result without = run(model.pinned(j, 1.0), detail::metric_name_list(), options);
  double sum = 0, sum2 = 0;
  const Eigen::Index n = with.values().rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double e = std::log(with.values()(i, metric::step_time_s) / without.values()(i, metric::step_time_s));
    sum += e;
    sum2 += e * e;
  }
  const double mean = sum / static_cast<double>(n);
  const double sd = std::sqrt(sum2 / static_cast<double>(n) - mean * mean);
  // Median 1: the mean log is 0 within 4 standard errors (sigma / sqrt(n)).
  CHECK(std::fabs(mean) < 4 * sigma / std::sqrt(static_cast<double>(n)));
  // The spread is the fitted one within 3 % (the standard error of a sample sd is sigma/sqrt(2n) = 0.5 %).
  CHECK(sd == Approx(sigma).epsilon(0.03));
}

TEST_CASE("a reference of another model size is its own shape, with the model term", "[extrapolation]") {
  const scenario same = extrapolated(two_nodes);
  const scenario other = extrapolated(std::string(two_nodes) +
                                      R"(, "parameters": 8030000000, "layers": 32, "hidden_size": 4096, "heads": 32)");
  const transformer_shape shape = other.reference_shape();
  CHECK(shape.parameters == 8.03e9);
  CHECK(shape.layers == 32);
  CHECK(shape.hidden_size == 4096);
  CHECK(shape.heads == 32);
  CHECK(lifecycle_model(other).extrapolation_log_spread() ==
        Approx(lifecycle_model(same).extrapolation_log_spread() + extrapolation_sigma_model_changed));
  try {
    extrapolated(std::string(two_nodes) + R"(, "layers": 32)");
    FAIL("a reference model without its parameter count was accepted");
  } catch (const input_error& e) {
    CHECK_THAT(std::string(e.what()), test::contains("reference.parameters: required"));
  }
}

TEST_CASE("each stage extrapolates with an error input of its own", "[extrapolation]") {
  // Stage "base" keeps the 16-node layout, stage "wide" doubles the nodes (dp 16): each is its
  // own distance from the 2-node reference, so each has its own spread, input and stream.
  const scenario s = extrapolated(two_nodes, R"("job": {"recompute": "selective"},
    "stages": [{"name": "base", "job": {"effective_steps": 500}},
               {"name": "wide", "job": {"effective_steps": 500}, "cluster": {"nodes": 32},
                "parallelism": {"dp": 16}}])");
  const lifecycle_model model(s);
  const parallel_layout reference{8, 4, 1, 1, 256};
  const double base =
      extrapolation_log_spread(s.reference_shape(), reference, 2, s.stage(0).shape(), s.stage(0).layout(), 16);
  const double wide =
      extrapolation_log_spread(s.reference_shape(), reference, 2, s.stage(1).shape(), s.stage(1).layout(), 32);
  CHECK(wide > base);
  CHECK(model.extrapolation_log_spreads() == std::vector<double>{base, wide});
  CHECK(input_index(model, "extrapolation.error") == model.input_count());
  const std::size_t jb = input_index(model, "base/extrapolation.error");
  const std::size_t jw = input_index(model, "wide/extrapolation.error");
  REQUIRE(jb < model.input_count());
  REQUIRE(jw < model.input_count());
  CHECK(model.input_stream(jb) != model.input_stream(jw));

  // Holding one stage's error at 1 moves that stage's step time alone, by its own factor.
  run_options options;
  options.samples = 20000;
  const auto names = model.output_names();
  const auto col = [&](const std::string& name) {
    return static_cast<Eigen::Index>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const run_result with = run(model, names, options);
  const run_result without = run(model.pinned(jw, 1.0), names, options);
  double sum2 = 0;
  bool base_unmoved = true;
  const Eigen::Index n = with.values().rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    base_unmoved =
        base_unmoved && with.values()(i, col("base/step_time_s")) == without.values()(i, col("base/step_time_s"));
    const double e = std::log(with.values()(i, col("wide/step_time_s")) / without.values()(i, col("wide/step_time_s")));
    sum2 += e * e;
  }
  CHECK(base_unmoved);
  // The spread is the wide stage's own within 3 % (standard error sigma/sqrt(2n) = 0.5 %).
  CHECK(std::sqrt(sum2 / static_cast<double>(n)) == Approx(wide).epsilon(0.03));
}

TEST_CASE("other modes draw no extrapolation error", "[extrapolation]") {
  const scenario s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1}})");
  const lifecycle_model model(s);
  CHECK(model.extrapolation_log_spread() == 0);
  CHECK(input_index(model, "extrapolation.error") == model.input_count());
}

}  // namespace test_extrapolation_error
