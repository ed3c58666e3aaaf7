#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/sensitivity/pairing.hpp"
#include "trnmodel/sensitivity/rank_correlation.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/sweep.hpp"
#include "trnmodel/sensitivity/tornado.hpp"
#include "trnmodel/throughput/profile_files.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_sensitivity {

using namespace trnmodel::sensitivity;

namespace {

const double pi = 3.14159265358979323846;

// Ishigami & Homma (1990), a = 7, b = 0.1, on three U(-pi, pi) inputs. Partial variances:
// V1 = (1 + b pi^4 / 5)^2 / 2, V2 = a^2 / 8, V3 = 0, V13 = 8 b^2 pi^8 / 225.
struct ishigami_indices {
  double s1[3], st[3];
};
ishigami_indices ishigami_exact() {
  const double a = 7, b = 0.1;
  const double v1 = 0.5 * std::pow(1 + b * std::pow(pi, 4) / 5, 2), v2 = a * a / 8;
  const double v13 = 8 * b * b * std::pow(pi, 8) / 225;
  const double v = v1 + v2 + v13;
  return {{v1 / v, v2 / v, 0}, {(v1 + v13) / v, v2 / v, v13 / v}};
}
input_set ishigami_inputs() {
  return input_set({{"x1", make_uniform(-pi, pi)}, {"x2", make_uniform(-pi, pi)}, {"x3", make_uniform(-pi, pi)}});
}
void ishigami(const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXd> y) {
  y = x.col(0).sin() + 7 * x.col(1).sin().square() + 0.1 * x.col(2).pow(4) * x.col(0).sin();
}

sobol_options sobol_run(std::uint64_t base_samples, std::uint64_t seed, int threads = 0) {
  sobol_options options;
  options.run.samples = base_samples;
  options.run.seed = seed;
  options.run.threads = threads;
  options.run.block_size = 1024;
  return options;
}


scenario make(const std::string& text) { return scenario::from_text(text); }

// 1000 steps, no failures: wall time is linear in the step time.
scenario simple(const std::string& step_time, const std::string& extra = "") {
  return make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 1},
    "throughput": {"step_time_s": )" +
              step_time + R"(}, "prices": {"node_hour_usd": 10})" + extra + "}");
}

run_options runs(std::uint64_t samples, std::uint64_t seed = 3) {
  run_options options;
  options.samples = samples;
  options.seed = seed;
  return options;
}

// A bundled example scenario, by file name.
scenario example(const std::string& name) {
  return scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/" + name, shipped_profiles());
}

}  // namespace

TEST_CASE("Sobol indices of Ishigami's function lie within their stated intervals", "[sensitivity][sobol]") {
  const auto exact = ishigami_exact();
  REQUIRE(exact.s1[0] == Approx(0.3139).margin(5e-5));
  REQUIRE(exact.s1[1] == Approx(0.4424).margin(5e-5));
  REQUIRE(exact.st[0] == Approx(0.5576).margin(5e-5));
  REQUIRE(exact.st[2] == Approx(0.2437).margin(5e-5));
  const input_set inputs = ishigami_inputs();
  const sobol_result r = sobol(inputs, ishigami, sobol_run(1 << 14, 0));
  REQUIRE(r.factors == std::vector<std::string>{"x1", "x2", "x3"});
  CHECK(r.evaluations == (1u << 14) * 5);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("factor " << r.factors[i] << ": S1 " << r.first_order[i] << " ± " << r.first_order_conf[i] << ", ST "
                   << r.total[i] << " ± " << r.total_conf[i]);
    CHECK(std::abs(r.first_order[i] - exact.s1[i]) <= r.first_order_conf[i]);
    CHECK(std::abs(r.total[i] - exact.st[i]) <= r.total_conf[i]);
    CHECK(r.first_order_conf[i] < 0.05);
    CHECK(r.total_conf[i] < 0.05);
  }
  CHECK(r.output_mean == Approx(3.5).margin(0.05));
}

TEST_CASE("the 95% intervals cover the exact Ishigami indices about 95% of the time", "[sensitivity][sobol]") {
  const auto exact = ishigami_exact();
  const input_set inputs = ishigami_inputs();
  int covered = 0, total = 0;
  for (std::uint64_t seed = 100; seed < 140; ++seed) {
    const sobol_result r = sobol(inputs, ishigami, sobol_run(2048, seed, 1));
    for (std::size_t i = 0; i < 3; ++i) {
      covered += std::abs(r.first_order[i] - exact.s1[i]) <= r.first_order_conf[i];
      covered += std::abs(r.total[i] - exact.st[i]) <= r.total_conf[i];
      total += 2;
    }
  }
  // 240 intervals: Binomial(240, 0.95) lies in [216, 239] with probability > 0.999; intervals
  // too narrow fail the lower bound, intervals too wide the upper one.
  INFO(covered << " of " << total << " intervals cover");
  CHECK(covered >= 216);
  CHECK(covered < 240);  // all 240 covering would mean intervals far too wide (P ≈ 5e-6 at 95%)
}

TEST_CASE("a linear model's indices are its exact variance shares", "[sensitivity][sobol]") {
  // y = x1 + 2 x2 + 3 x3 on U(0, 1): S1_k = ST_k = c_k^2 / 14; a constant input is no factor.
  const input_set inputs(
      {{"x1", make_uniform(0, 1)}, {"x2", make_uniform(0, 1)}, {"c", make_fixed(4)}, {"x3", make_uniform(0, 1)}});
  const auto f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXd> y) {
    y = x.col(0) + 2 * x.col(1) + x.col(2) * 0 + 3 * x.col(3);
  };
  const sobol_result r = sobol(inputs, f, sobol_run(1 << 15, 1));
  REQUIRE(r.factors == std::vector<std::string>{"x1", "x2", "x3"});
  const double exact[3] = {1.0 / 14, 4.0 / 14, 9.0 / 14};
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::abs(r.first_order[i] - exact[i]) <= r.first_order_conf[i]);
    CHECK(std::abs(r.total[i] - exact[i]) <= r.total_conf[i]);
    CHECK(r.total_conf[i] < 0.01);
  }
  CHECK(r.output_variance == Approx(14.0 / 12).epsilon(0.02));
}

TEST_CASE("Sobol results are bitwise identical for any thread count", "[sensitivity][sobol]") {
  const input_set inputs = ishigami_inputs();
  const scenario s = scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-trn2.json");
  const sobol_result f1 = sobol(inputs, ishigami, sobol_run(5000, 4, 1));
  sobol_options scenario_options = sobol_run(600, 4, 1);
  scenario_options.run.block_size = 64;
  const sobol_result s1 = sobol(s, metric::run_cost_usd, scenario_options);
  for (const int threads : {2, 3, 8}) {
    const sobol_result f = sobol(inputs, ishigami, sobol_run(5000, 4, threads));
    scenario_options.run.threads = threads;
    const sobol_result sc = sobol(s, metric::run_cost_usd, scenario_options);
    for (std::size_t i = 0; i < f.factors.size(); ++i) {
      CHECK(test::same_bits(f.first_order[i], f1.first_order[i]));
      CHECK(test::same_bits(f.total_conf[i], f1.total_conf[i]));
    }
    for (std::size_t i = 0; i < sc.factors.size(); ++i) {
      CHECK(test::same_bits(sc.first_order[i], s1.first_order[i]));
      CHECK(test::same_bits(sc.total[i], s1.total[i]));
      CHECK(test::same_bits(sc.first_order_conf[i], s1.first_order_conf[i]));
    }
  }
}

TEST_CASE("a scenario's factors are its drawn inputs and chance", "[sensitivity][sobol]") {
  // Wall time = 1000 x step time: all of the variance is the step time's, none is chance's.
  const scenario s = simple(R"({"dist": "uniform", "lo": 1, "hi": 3})",
                            R"(, "startup": {"queue_wait_s": {"dist": "uniform", "lo": 0, "hi": 1}})");
  const sobol_result r = sobol(s, metric::wall_h, sobol_run(4096, 2));
  REQUIRE(r.factors == std::vector<std::string>{"throughput.step_time_s", "startup.queue_wait_s", "chance"});
  // Without failures, cache draws or a quality gate, chance changes nothing: exactly zero.
  CHECK(r.first_order[2] == 0);
  CHECK(r.total[2] == 0);
  CHECK(r.total_conf[2] == 0);
  // Variance shares: step time 1000^2 (4/12), queue 1^2 (1/12).
  const double share = 1e6 / (1e6 + 1);
  CHECK(std::abs(r.first_order[0] - share) <= r.first_order_conf[0]);
  CHECK(std::abs(r.total[0] - share) <= r.total_conf[0]);
  CHECK(r.total[1] < 1e-5);
}

TEST_CASE("chance carries the spread of a scenario whose only randomness is failures", "[sensitivity][sobol]") {
  const scenario s =
      make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 1},
    "throughput": {"step_time_s": 36}, "checkpoint": {"every_steps": 10, "save_s": 30},
    "failures": {"node_mtbf_h": 5, "restart_s": 300}, "prices": {"node_hour_usd": 10}})");
  const sobol_result r = sobol(s, metric::wall_h, sobol_run(2048, 2));
  REQUIRE(r.factors == std::vector<std::string>{"chance"});
  CHECK(std::abs(r.first_order[0] - 1) <= r.first_order_conf[0]);
  CHECK(r.total[0] == Approx(1).margin(r.total_conf[0]));
}

TEST_CASE("Sobol flags negative and inconsistent estimates, and refuses bad input", "[sensitivity][sobol]") {
  // A pure interaction, y = x1 x2 on U(-1, 1): S1 = 0 for both, so the estimates are noise
  // around 0 and some seed among the first ten makes one negative.
  const input_set inputs({{"x", make_uniform(-1, 1)}, {"z", make_uniform(-1, 1)}});
  const auto f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXd> y) { y = x.col(0) * x.col(1); };
  bool flagged_negative = false;
  for (std::uint64_t seed = 0; seed < 10 && !flagged_negative; ++seed) {
    const sobol_result r = sobol(inputs, f, sobol_run(64, seed));
    if (r.first_order[0] < 0 || r.first_order[1] < 0) {
      flagged_negative = true;
      const std::size_t k = r.first_order[0] < 0 ? 0 : 1;
      CHECK_THAT(r.notes[k], test::contains("S1 < 0"));
    }
    for (std::size_t k = 0; k < 2; ++k)
      if (r.first_order[k] > r.total[k]) CHECK_THAT(r.notes[k], test::contains("S1 > ST"));
  }
  CHECK(flagged_negative);

  const auto constant = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXd> y) { y = 0 * x.col(0) + 2; };
  const sobol_result flat = sobol(inputs, constant, sobol_run(64, 0));
  CHECK(std::isnan(flat.first_order[0]));
  CHECK_THAT(flat.note, test::contains("no variance"));

  CHECK_THROWS_WITH(sobol(inputs, f, sobol_run(1, 0)), test::contains("base_samples: must be ≥ 2, got 1"));
  const auto nan_f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXd> y) {
    y = (x.col(0) > 0.5).select(Eigen::ArrayXd::Constant(x.rows(), std::nan("")), x.col(0));
  };
  CHECK_THROWS_WITH(sobol(inputs, nan_f, sobol_run(64, 0)), test::contains("non-finite"));
  CHECK_THROWS_WITH(metric_named("run_cost"), test::contains("output: no metric named \"run_cost\""));
  const scenario no_price =
      make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
    "throughput": {"step_time_s": {"dist": "uniform", "lo": 1, "hi": 2}}})");
  CHECK_THROWS_AS(sobol(no_price, metric::run_cost_usd, sobol_run(64, 0)), unknown_input_error);
  CHECK_NOTHROW(sobol(no_price, metric::wall_h, sobol_run(64, 0)));
}

TEST_CASE("a Sobol analysis split in ranges of blocks and folded is the whole analysis bit for bit",
          "[sensitivity][sobol]") {
  const scenario s = scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-trn2.json");
  sobol_options options = sobol_run(5000, 13);
  options.run.block_size = 512;  // 10 blocks, the last one short
  const sobol_result whole = sobol(s, "run_cost_usd", options);
  const scenario_design design(s, "run_cost_usd");
  const std::size_t factors = design.factors().size();
  const double shift = sobol_shift(design, factors, options);
  const std::vector<std::string> parts{sobol_partial(design, factors, options, shift, 0, 3),
                                       sobol_partial(design, factors, options, shift, 3, 4),
                                       sobol_partial(design, factors, options, shift, 4, 10)};
  const sobol_result folded = sobol_fold(design.factors(), options, parts, "run_cost_usd");
  REQUIRE(folded.factors == whole.factors);
  for (std::size_t i = 0; i < whole.factors.size(); ++i) {
    CHECK(test::same_bits(folded.first_order[i], whole.first_order[i]));
    CHECK(test::same_bits(folded.total[i], whole.total[i]));
    CHECK(test::same_bits(folded.first_order_conf[i], whole.first_order_conf[i]));
    CHECK(test::same_bits(folded.total_conf[i], whole.total_conf[i]));
  }
  CHECK(test::same_bits(folded.output_mean, whole.output_mean));
  CHECK(test::same_bits(folded.output_variance, whole.output_variance));
  // Ranges out of order, missing, or of another run are refused.
  CHECK_THROWS_WITH(sobol_fold(design.factors(), options, {parts[1], parts[0], parts[2]}),
                    test::contains("range 0 covers blocks [3, 4), expected one starting at block 0"));
  CHECK_THROWS_WITH(sobol_fold(design.factors(), options, {parts[0], parts[1]}),
                    test::contains("the ranges end at block 4 of 10"));
  sobol_options other = options;
  other.run.seed = 14;
  CHECK_THROWS_WITH(sobol_fold(design.factors(), other, parts), test::contains("belongs to another run"));
  CHECK_THROWS_WITH(sobol_partial(design, factors, options, shift, 4, 11), test::contains("not a non-empty range"));
}

TEST_CASE("the Sobol indices of several outputs from one design are each output's own, bit for bit",
          "[sensitivity][sobol]") {
  const scenario s = example("llama3-8b-lora-trn2.json");
  const std::vector<std::string> outputs{"run_cost_usd", "total_cost_usd", "wall_h"};
  for (const int threads : {1, 2}) {
    sobol_options options = sobol_run(700, 5, threads);
    options.run.block_size = 64;  // eleven blocks, the last one short
    const std::vector<sobol_result> together = sobol(s, outputs, options);
    REQUIRE(together.size() == outputs.size());
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      INFO(outputs[o] << ", threads " << threads);
      const sobol_result alone = sobol(s, outputs[o], options);
      REQUIRE(together[o].factors == alone.factors);
      CHECK(test::same_bits(together[o].output_mean, alone.output_mean));
      CHECK(test::same_bits(together[o].output_variance, alone.output_variance));
      CHECK(together[o].evaluations == alone.evaluations);
      for (std::size_t i = 0; i < alone.factors.size(); ++i) {
        CHECK(test::same_bits(together[o].first_order[i], alone.first_order[i]));
        CHECK(test::same_bits(together[o].total[i], alone.total[i]));
        CHECK(test::same_bits(together[o].first_order_conf[i], alone.first_order_conf[i]));
        CHECK(test::same_bits(together[o].total_conf[i], alone.total_conf[i]));
      }
      CHECK(together[o].notes == alone.notes);
    }
    // Different outputs give different indices (the columns are not mixed up).
    CHECK_FALSE(test::same_bits(together[0].output_mean, together[1].output_mean));
  }
  // A stage's metric beside a job metric: the stage's columns are produced for both.
  const scenario staged = example("llama3-70b-cpt-2stage-trn2x16.json");
  const std::vector<std::string> mixed{"wall_h", "32k/wall_h"};
  const std::vector<sobol_result> both = sobol(staged, mixed, sobol_run(300, 2));
  for (std::size_t o = 0; o < mixed.size(); ++o) {
    const sobol_result alone = sobol(staged, mixed[o], sobol_run(300, 2));
    for (std::size_t i = 0; i < alone.factors.size(); ++i) CHECK(test::same_bits(both[o].total[i], alone.total[i]));
  }
  CHECK_THROWS_WITH(sobol(s, std::vector<std::string>{}, sobol_run(64, 0)),
                    test::contains("output: name at least one output"));
  CHECK_THROWS_WITH(sobol(s, std::vector<std::string>{"wall_h", "wall_hours"}, sobol_run(64, 0)),
                    test::contains("wall_hours"));
}

TEST_CASE("a scenario compared with itself differs by exactly zero", "[sensitivity][compare]") {
  const scenario s = scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-trn2.json");
  const run_result r = compare(s, s, metric::run_cost_usd, runs(20'000));
  const auto d = r.values().col(2);
  CHECK((d == 0).all());
  CHECK(r.stats(3).mean == 0);  // P(A < B)
}

TEST_CASE("P(A < B) for independently shifted inputs matches the normal closed form", "[sensitivity][compare]") {
  // A waits N(1000, 300) s in the queue, B prepares N(1200, 300) s: different paths, so
  // independent streams; wall_A − wall_B = (Q − E) / 3600 with Q − E ~ N(−200, 300 √2).
  const std::string queue = R"(, "startup": {"queue_wait_s": {"dist": "normal", "mean": 1000, "sd": 300, "lo": 0}})";
  const std::string prep = R"(, "startup": {"env_prep_s": {"dist": "normal", "mean": 1200, "sd": 300, "lo": 0}})";
  const scenario a = simple("2", queue), b = simple("2", prep);
  const run_result r = compare(a, b, metric::wall_h, runs(200'000));
  const double p = 0.5 * std::erfc(-200 / (300 * std::sqrt(2.0)) / std::sqrt(2.0));  // Φ(200 / (300√2))
  const double se = std::sqrt(p * (1 - p) / 200'000);
  CHECK(std::abs(r.stats(3).mean - p) < 4 * se);
  CHECK(r.stats(2).mean * 3600 == Approx(-200).margin(4 * 300 * std::sqrt(2.0) / std::sqrt(200'000.0)));
}

// `steps` steps on one node of `platform`, no failures unless `extra` says so.
scenario on_platform(const std::string& platform, const std::string& step_time, const std::string& steps = "1000",
                     const std::string& extra = "") {
  return make(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": )" + steps +
              R"(}, "cluster": {"nodes": 1, "platform": ")" + platform + R"("}, "throughput": {"step_time_s": )" +
              step_time + R"(}, "prices": {"node_hour_usd": 10})" + extra + "}");
}

TEST_CASE("inputs that describe a platform are keyed by it and the job's inputs are not", "[sensitivity][compare]") {
  using model = lifecycle_model;
  CHECK(model::describes_platform(field::throughput_step_time_s));
  CHECK(model::describes_platform(field::prices_node_hour_usd));
  CHECK(model::describes_platform(field::engineering_adaptation_h));
  CHECK(model::describes_platform(field::failures_node_mtbf_h));
  CHECK_FALSE(model::describes_platform(field::job_effective_steps));
  CHECK_FALSE(model::describes_platform(field::startup_data_load_s));
  CHECK_FALSE(model::describes_platform(field::checkpoint_save_s));
  CHECK_FALSE(model::describes_platform(field::quality_rerun_prob));
  const std::string uniform = R"({"dist": "uniform", "lo": 1, "hi": 2})";
  const std::string steps = R"({"dist": "uniform", "lo": 500, "hi": 1500})";
  const model trn2(on_platform("trn2.48xlarge", uniform, steps)), p5(on_platform("p5.48xlarge", uniform, steps));
  const model trn2_again(on_platform("trn2.48xlarge", uniform, steps));
  REQUIRE(trn2.input_count() == 2);
  for (std::size_t j = 0; j < trn2.input_count(); ++j) {
    const std::string path = trn2.uncertain_inputs()[j];
    INFO(path);
    CHECK(trn2.input_stream(j) == trn2_again.input_stream(j));  // one platform: shared
    if (path == "throughput.step_time_s") {
      CHECK(trn2.input_stream(j) == stream_id("throughput.step_time_s@trn2.48xlarge"));
      CHECK(trn2.input_stream(j) != p5.input_stream(j));  // two platforms: each its own
    } else {
      CHECK(trn2.input_stream(j) == stream_id(path));
      CHECK(trn2.input_stream(j) == p5.input_stream(j));  // the work: common
    }
  }
  CHECK(trn2.chance_streams().failure != p5.chance_streams().failure);
  CHECK(trn2.chance_streams().spot != p5.chance_streams().spot);
  CHECK(trn2.chance_streams().quality == p5.chance_streams().quality);
  CHECK(trn2.chance_streams().failure == trn2_again.chance_streams().failure);
}

TEST_CASE("two platforms' step times are independent: P(A < B) is the closed form of independent draws",
          "[sensitivity][compare]") {
  // A's step time is U(1, 2) s, B's U(1.2, 2.2) s, everything else fixed: wall_A < wall_B iff
  // X < Y + 0.2 for X, Y ~ U(0, 1). Independent: P = 1 − 0.8² / 2 = 0.68; a shared stream
  // would give 1.
  const scenario a = on_platform("trn2.48xlarge", R"({"dist": "uniform", "lo": 1, "hi": 2})");
  const scenario b = on_platform("p5.48xlarge", R"({"dist": "uniform", "lo": 1.2, "hi": 2.2})");
  const std::uint64_t n = 200'000;
  const run_result r = compare(a, b, metric::wall_h, runs(n));
  const double p = 0.68, se = std::sqrt(p * (1 - p) / n);
  CHECK(std::abs(r.stats(3).mean - p) < 4 * se);
  // The same two distributions on one platform share the stream: B is A + 0.2 s per step.
  const scenario b_same = on_platform("trn2.48xlarge", R"({"dist": "uniform", "lo": 1.2, "hi": 2.2})");
  const run_result same = compare(a, b_same, metric::wall_h, runs(n));
  CHECK(same.stats(3).mean == 1);
  CHECK(same.stats(2).min * 3600 == Approx(-200).epsilon(1e-9));
  CHECK(same.stats(2).max * 3600 == Approx(-200).epsilon(1e-9));
}

// A comparison from two kept simulations on its seed and samples is compare() itself, bit for
// bit (the sign-off compares its own simulations rather than running both scenarios again).
TEST_CASE("a comparison of two kept simulations is compare's, bit for bit", "[sensitivity][compare]") {
  const scenario a = example("llama3-8b-lora-trn2.json"), b = example("llama3-8b-lora-p5.json");
  run_options options = runs(9'001);
  options.keep_samples = true;
  const run_result ra = simulate(a, options), rb = simulate(b, options);
  for (const metric::id m : {metric::run_cost_usd, metric::wall_h}) {
    const comparison_result kept = compare_kept(ra, rb, m, options), own = compare(a, b, m, options);
    REQUIRE(kept.names() == own.names());
    CHECK((kept.values() == own.values()).all());
    for (std::size_t k = 0; k < own.outputs(); ++k) {
      CHECK(test::same_bits(kept.stats(k).mean, own.stats(k).mean));
      CHECK(test::same_bits(kept.stats(k).m2, own.stats(k).m2));
    }
    CHECK(test::same_bits(kept.p_a_less_b(), own.p_a_less_b()));
  }
  options.samples = 100;
  CHECK_THROWS_WITH(compare_kept(ra, rb, metric::wall_h, options), test::contains("samples: is 100"));
}

// A break-even draws the inputs other than its path once and reuses them in every evaluation:
// the same root, target, achieved value and evaluation count, bit for bit, as evaluating each
// value with its own run (max_drawn_bytes 0), for a fixed path (a price) and a drawn one (the
// step time), for the mean and a quantile.
TEST_CASE("break-even from inputs drawn once equals one run per evaluation, bit for bit", "[sensitivity][compare]") {
  const scenario a = example("llama3-8b-lora-trn2.json"), b = example("llama3-8b-lora-p5.json");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [path, stat] : {std::pair{std::string("prices.node_hour_usd"), statistic::mean()},
                                   std::pair{std::string("throughput.step_time_s"), statistic::quantile(0.9)}}) {
    INFO(path);
    const run_options options = runs(6'001);
    const break_even_result cached = break_even(a, b, metric::run_cost_usd, path, stat, options);
    const break_even_result own = break_even(a, b, metric::run_cost_usd, path, stat, options, nan, nan, 0);
    CHECK(test::same_bits(cached.value, own.value));
    CHECK(test::same_bits(cached.target, own.target));
    CHECK(test::same_bits(cached.achieved, own.achieved));
    CHECK(cached.evaluations == own.evaluations);
    CHECK(cached.evaluations >= 3);  // both ends of the bracket and at least one step of the solver
    // The fixed side's statistic taken from a comparison on the same runs (a's column): the
    // same answer, bit for bit, one run fewer.
    run_options kept = options;
    kept.keep_samples = true;
    const comparison_result c = compare(a, b, metric::run_cost_usd, kept);
    const double from_comparison = stat.is_mean() ? c.stats("a").mean : c.a_quantile(stat.probability);
    const break_even_result known =
        break_even(a, b, metric::run_cost_usd, path, stat, options, nan, nan, break_even_drawn_bytes, from_comparison);
    CHECK(test::same_bits(known.target, cached.target));
    CHECK(test::same_bits(known.value, cached.value));
    CHECK(test::same_bits(known.achieved, cached.achieved));
    CHECK(known.evaluations == cached.evaluations);
    // The statistic reported at the answer is the varied scenario's own run there.
    const lifecycle_model at_value(b.updated({{path, ordered_json(cached.value)}}));
    const double there = metric_statistic(at_value, metric::run_cost_usd, stat, options);
    CHECK(test::same_bits(cached.achieved, cached.target + (there - cached.target)));
  }
}

// A scenario's inputs drawn once (the sign-off's) and read back by its simulation, its
// break-even and its side of the pairing check: each the bits of the run that draws for itself;
// draws of another seed are not used.
TEST_CASE("runs from a scenario's inputs drawn once are the runs that draw, bit for bit", "[sensitivity][draws]") {
  const scenario a = example("llama3-8b-lora-trn2.json"), b = example("llama3-8b-lora-p5.json");
  run_options o = runs(6'001);
  o.keep_samples = true;
  const auto model = std::make_shared<const lifecycle_model>(b);
  const input_draws draws = draw_inputs(model, o);
  REQUIRE(draws.values.rows() == 6'001);
  REQUIRE(draws.values.cols() == static_cast<Eigen::Index>(model->input_count()));
  // The simulation.
  const run_result own = simulate(b, o), from_draws = simulate_from(*model, draws, o);
  CHECK((own.values() == from_draws.values() || (own.values().isNaN() && from_draws.values().isNaN())).all());
  for (std::size_t k = 0; k < own.outputs(); ++k) CHECK(test::same_bits(own.stats(k).mean, from_draws.stats(k).mean));
  run_options other_seed = o;
  other_seed.seed = o.seed + 1;
  CHECK_FALSE(draws.fits(other_seed));
  CHECK(test::same_bits(simulate_from(*model, draws, other_seed).stats(metric::wall_h).mean,
                        simulate(b, other_seed).stats(metric::wall_h).mean));
  // The break-even on B's price.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  run_options streamed = o;
  streamed.keep_samples = false;
  const auto plain = break_even(a, b, metric::run_cost_usd, "prices.node_hour_usd", statistic::mean(), streamed);
  const auto given = break_even(a, b, metric::run_cost_usd, "prices.node_hour_usd", statistic::mean(), streamed, nan,
                                nan, break_even_drawn_bytes, nan, &draws);
  CHECK(test::same_bits(plain.value, given.value));
  CHECK(test::same_bits(plain.achieved, given.achieved));
  CHECK(plain.evaluations == given.evaluations);
  // A side of the pairing check: every input on its own stream but the first, moved to another.
  std::vector<std::uint32_t> streams;
  for (std::size_t j = 0; j < model->input_count(); ++j) streams.push_back(model->input_stream(j));
  streams[0] = trnmodel::stream_id("moved@b");
  const std::vector<output_column> outputs{output_of(metric::run_cost_usd), output_of(metric::wall_h)};
  const run_result side = run(restreamed_model(*model, streams, 6'001, outputs), {"run_cost_usd", "wall_h"}, o);
  const run_result side_given =
      run(restreamed_model(*model, streams, 6'001, outputs, &draws), {"run_cost_usd", "wall_h"}, o);
  CHECK((side.values() == side_given.values()).all());
}

// A sweep draws its points' inputs once and a point reads them back when each of its inputs has
// the stream and distribution of a drawn one: every point's summary and moments, bit for bit,
// as its own simulate(), for points that can (checkpoint.every_steps, a step time fixed: one
// input fewer) and points that cannot (another step-time distribution), kept and streamed.
TEST_CASE("a sweep from inputs drawn once equals each point's own simulation, bit for bit", "[sensitivity][sweep]") {
  const scenario lora = example("llama3-8b-lora-trn2.json");
  const ordered_json own_step = lora.to_json()["throughput"]["step_time_s"];
  const ordered_json other_step = {{"dist", "lognormal"}, {"p50", 3.9}, {"p90", 5.56}};
  const std::vector<sensitivity::sweep_axis> grid{
      {"throughput.step_time_s", {own_step, ordered_json(4.0), other_step}},
      {"checkpoint.every_steps", {ordered_json(100), ordered_json(700)}}};
  const lifecycle_model drawn_by(lora.updated({{"throughput.step_time_s", own_step}, {"checkpoint.every_steps", 100}}));
  const auto identity = sensitivity::detail::drawn_columns(drawn_by, lifecycle_model(lora.updated({{"checkpoint.every_steps", 700}})));
  REQUIRE(identity.has_value());
  for (std::size_t j = 0; j < identity->size(); ++j) CHECK((*identity)[j] == static_cast<Eigen::Index>(j));
  const auto fewer = sensitivity::detail::drawn_columns(drawn_by, lifecycle_model(lora.updated({{"throughput.step_time_s", 4.0}})));
  REQUIRE(fewer.has_value());
  CHECK(fewer->size() + 1 == drawn_by.input_count());
  CHECK_FALSE(sensitivity::detail::drawn_columns(drawn_by, lifecycle_model(lora.updated({{"throughput.step_time_s", other_step}}))));
  for (const bool keep : {false, true}) {
    INFO("keep " << keep);
    run_options o = runs(5'001);
    o.keep_samples = keep;
    const auto points = sensitivity::sweep(lora, grid, o);
    const auto drawn_each = sensitivity::sweep(lora, grid, o, false, 0);  // every point draws for itself
    REQUIRE(points.size() == 6);
    for (std::size_t k = 0; k < points.size(); ++k) {
      const run_result alone = simulate(lora.updated(points[k].changes), o);
      const auto rows = points[k].result.summary(), own = alone.summary(), each = drawn_each[k].result.summary();
      REQUIRE(rows.size() == own.size());
      for (std::size_t c = 0; c < rows.size(); ++c) {
        INFO("point " << k << ", " << rows[c].name);
        CHECK(test::same_bits(rows[c].mean, own[c].mean));
        CHECK(test::same_bits(rows[c].sd, own[c].sd));
        CHECK(test::same_bits(rows[c].p10, own[c].p10));
        CHECK(test::same_bits(rows[c].p90, own[c].p90));
        CHECK(test::same_bits(rows[c].p99, own[c].p99));
        CHECK(test::same_bits(rows[c].max, own[c].max));
        CHECK(test::same_bits(each[c].mean, own[c].mean));
      }
    }
  }
}

TEST_CASE("break-even finds the price at which B's mean cost equals A's", "[sensitivity][compare]") {
  // B steps twice as slowly on the same random step times: it breaks even at half A's price.
  const scenario a = simple(R"({"dist": "lognormal", "p50": 2, "p90": 3})");
  const scenario b = a.updated({{"job.effective_steps", ordered_json(2000)}});
  const break_even_result r =
      break_even(a, b, metric::run_cost_usd, "prices.node_hour_usd", statistic::mean(), runs(5000));
  CHECK(r.value == Approx(5).epsilon(1e-8));
  CHECK(r.achieved == Approx(r.target).epsilon(1e-8));
  const break_even_result p90 =
      break_even(a, b, metric::run_cost_usd, "prices.node_hour_usd", statistic::quantile(0.9), runs(5000), 1, 9);
  CHECK(p90.value == Approx(5).epsilon(1e-8));
  CHECK_THROWS_WITH(break_even(a, b, metric::run_cost_usd, "cluster.nodes", statistic::mean(), runs(100)),
                    test::contains("path: \"cluster.nodes\" is not a scenario quantity"));
  CHECK_THROWS_WITH(break_even(a, b, metric::run_cost_usd, "prices.node_hour_usd", statistic::mean(), runs(100), 6, 9),
                    test::contains("does not bracket"));
}

TEST_CASE("tornado bars hold one input at its P10 and P90 and sort by swing", "[sensitivity][tornado]") {
  // Cost = 1000 steps x step time / 3600 h x 10 USD + the queue (not billed, so no cost).
  const scenario s = simple(R"({"dist": "uniform", "lo": 1, "hi": 3})",
                            R"(, "startup": {"queue_wait_s": {"dist": "uniform", "lo": 0, "hi": 100}}, )"
                            R"("eval": {"final_s": {"dist": "uniform", "lo": 0, "hi": 36}})");
  const tornado_result t = tornado(s, metric::run_cost_usd, statistic::mean(), runs(4000));
  REQUIRE(t.bars.size() == 3);
  CHECK(t.bars[0].factor == "throughput.step_time_s");
  CHECK(t.bars[0].low_value == Approx(1.2));
  CHECK(t.bars[0].high_value == Approx(2.8));
  CHECK(t.bars[0].swing == Approx(1000 * 1.6 / 3600 * 10).epsilon(1e-9));
  CHECK(t.bars[1].factor == "eval.final_s");
  CHECK(t.bars[1].swing == Approx(28.8 / 3600 * 10).epsilon(1e-9));
  CHECK(t.bars[2].swing == Approx(0).margin(1e-9));  // the queue is not billed
  CHECK(t.baseline == Approx(1000 * 2.0 / 3600 * 10 + 0.05).epsilon(0.01));
}

// The tornado's runs share their draws: each bar must still be, bit for bit, the statistic of
// its own run of the pinned model (an independent computation: one run per pinned model), for
// the mean and for a quantile, on a job on the common path of a block (LoRA Trn2), one with
// stages (the per-sample simulator) and a quantile split into groups of runs.
TEST_CASE("tornado bars are the pinned models' own runs, bit for bit", "[sensitivity][tornado]") {
  struct job {
    std::string file, output;
    statistic stat;
    double max_kept_bytes;  // 3 runs' samples: the quantile's 2d + 1 runs in groups of three
  };
  const double unbounded = 1e18, three_runs = 3 * 3001 * 8;
  for (const job& j : {job{"llama3-8b-lora-trn2.json", "run_cost_usd", statistic::mean(), three_runs},
                       job{"llama3-8b-lora-p5.json", "wall_h", statistic::quantile(0.9), three_runs},
                       job{"llama3-8b-lora-trn2.json", "wall_h", statistic::quantile(0.5), unbounded},
                       job{"llama3-70b-cpt-2stage-trn2x16.json", "32k/wall_h", statistic::mean(), unbounded}}) {
    INFO(j.file << " " << j.output << " " << j.stat.name());
    const scenario s = example(j.file);
    run_options options = runs(3001);
    options.block_size = 700;  // parts of 256 rows that do not divide the block
    const tornado_result t = tornado(s, j.output, j.stat, options, 0.1, 0.9, j.max_kept_bytes);
    const lifecycle_model model(s);
    const output_column output = output_named(model, j.output);
    CHECK(test::same_bits(t.baseline, metric_statistic(model, output, j.stat, options)));
    const auto paths = model.uncertain_inputs();
    REQUIRE(t.bars.size() == paths.size());
    for (const tornado_bar& bar : t.bars) {
      const auto k = static_cast<std::size_t>(std::find(paths.begin(), paths.end(), bar.factor) - paths.begin());
      REQUIRE(k < paths.size());
      INFO(bar.factor);
      CHECK(test::same_bits(bar.low_statistic, metric_statistic(model.pinned(k, bar.low_value), output, j.stat, options)));
      CHECK(test::same_bits(bar.high_statistic, metric_statistic(model.pinned(k, bar.high_value), output, j.stat, options)));
    }
  }
}

TEST_CASE("rank correlations: Spearman and PRCC", "[sensitivity][rank]") {
  CHECK((ranks(Eigen::ArrayXd::LinSpaced(4, 3, 0)) == Eigen::ArrayXd::LinSpaced(4, 4, 1)).all());
  Eigen::ArrayXd tied(4);
  tied << 1, 2, 2, 5;
  CHECK((ranks(tied) == (Eigen::ArrayXd(4) << 1, 2.5, 2.5, 4).finished()).all());

  const std::uint64_t n = 20'000;
  Eigen::ArrayXXd x(n, 3);
  for (std::uint64_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k)
      x(static_cast<Eigen::Index>(i), k) = trnmodel::detail::uniform(9, i, static_cast<std::uint32_t>(k), 0);
  x.col(2).setConstant(1);  // a constant column has no rank correlation
  const Eigen::ArrayXd y = x.col(0).exp() + 0.1 * x.col(1);
  const rank_correlations r = rank_correlate(x, y);
  CHECK(r.spearman[0] > 0.98);
  CHECK(r.spearman[1] == Approx(0.1).margin(0.05));
  CHECK(r.prcc[0] > r.spearman[0]);  // removing x2's effect leaves x1 alone
  CHECK(r.prcc[1] > 0.5);  // ... and makes x2's small effect clear
  CHECK(std::isnan(r.spearman[2]));
  CHECK(std::isnan(r.prcc[2]));

  // A scenario's inputs, recomputed from their counters, are those the run used.
  const scenario s = simple(R"({"dist": "uniform", "lo": 1, "hi": 3})");
  run_options options = runs(1000, 7);
  const run_result res = simulate(s, options);
  const Eigen::ArrayXXd inputs = drawn_inputs(lifecycle_model(s), 7, 1000);
  CHECK((inputs.col(0) == res.values().col(metric::step_time_s)).all());
}

}  // namespace test_sensitivity
