#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/throughput/step_time.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_throughput {

namespace {

ordered_json read_profile(const std::string& name) {
  std::ifstream in(std::string(TRNMODEL_SOURCE_DIR) + "/python/trnmodel/profiles/" + name + ".json");
  std::stringstream text;
  text << in.rdbuf();
  return ordered_json::parse(text.str());
}

profile_library shipped() {
  profile_library library;
  for (const char* name : {"trn2.48xlarge", "p5.48xlarge", "trn1.32xlarge"}) library[name] = read_profile(name);
  return library;
}

// Llama-3-70B-like shape.
const char* llama70b = R"("model": {"parameters": 70.6e9, "layers": 80, "hidden_size": 8192, "heads": 64,
    "ffn_size": 28672, "vocab_size": 128256, "sequence_length": 8192})";

scenario derived(const std::string& throughput, const std::string& parallelism, const std::string& extra = "",
                 const std::string& job = R"({"effective_steps": 1000, "recompute": "selective"})") {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": )" + job + R"(,
    "cluster": {"nodes": 16, "platform": "trn2.48xlarge"}, )" +
                                 std::string(llama70b) + R"(,
    "throughput": )" + throughput +
                                 R"(, "parallelism": )" + parallelism + extra + R"(,
    "prices": {"node_hour_usd": 35.76}})",
                             shipped());
}

}  // namespace

TEST_CASE("FLOPs per token: PaLM's identities", "[throughput]") {
  const transformer_shape m{8e9, 32, 4096, 32, 8192, 14336};
  const double attention = 12 * 32 * 4096.0 * 8192;  // 12·L·H·Q·T
  CHECK(model_flops_per_token(m, {}) == 6 * 8e9 + attention);
  training_kind lora{true, 16, recompute_kind::none};
  const double adapter = 32 * 16 * (4 * (4096 + 4096) + 3 * (4096 + 14336.0));
  CHECK_THAT(model_flops_per_token(m, lora), Catch::Matchers::WithinRel(4 * 8e9 + attention + 6 * adapter, 1e-15));
  training_kind full{false, 0, recompute_kind::full};
  CHECK_THAT(hardware_flops_per_token(m, full), Catch::Matchers::WithinRel(8 * 8e9 + attention * 4 / 3, 1e-15));
  training_kind selective{false, 0, recompute_kind::selective};
  CHECK_THAT(hardware_flops_per_token(m, selective), Catch::Matchers::WithinRel(6 * 8e9 + attention * 4 / 3, 1e-15));
  CHECK(model_flops_per_token(m, full) == model_flops_per_token(m, {}));  // MFU does not count recomputation
}

TEST_CASE("pipeline bubble is (p-1)/m of ideal time, (p-1)/(v m) interleaved", "[throughput]") {
  const transformer_shape m{10e9, 48, 6144, 48, 2048};
  const platform_numbers hw{312e12, 0, collectives::check_link("intra.", {0, 1e18, 1}),
                            collectives::check_link("inter.", {0, 1e18, 1}), 8};
  parallel_layout p;
  p.pp = 4;
  p.dp = 2;
  p.micro_batch = 2;
  p.global_batch = 64;  // m = 64 / (2·2) = 16 micro-batches
  const auto parts = analytic_step_time(m, {}, p, hw, 0.5, 0);
  CHECK_THAT(parts.bubble_s / parts.compute_s, Catch::Matchers::WithinRel(3.0 / 16, 1e-12));
  p.virtual_stages = 3;
  const auto interleaved = analytic_step_time(m, {}, p, hw, 0.5, 0);
  CHECK_THAT(interleaved.bubble_s / interleaved.compute_s, Catch::Matchers::WithinRel(3.0 / (3 * 16), 1e-12));
  // Compute: tokens · FLOPs / (chips · peak · efficiency) over the whole step.
  const double chips = 8;
  CHECK_THAT(parts.compute_s,
             Catch::Matchers::WithinRel(64 * 2048 * model_flops_per_token(m, {}) / (chips * 312e12 * 0.5), 1e-12));
}

TEST_CASE("tensor-parallel and data-parallel communication follow the alpha-beta model", "[throughput]") {
  const transformer_shape m{10e9, 40, 5120, 40, 2048};
  const platform_numbers hw{312e12, 0, collectives::check_link("intra.", {5e-6, 300e9, 1}),
                            collectives::check_link("inter.", {20e-6, 50e9, 1}), 8};
  parallel_layout p;
  p.tp = 8;
  p.dp = 4;
  p.micro_batch = 1;
  p.global_batch = 16;  // 4 micro-batches per replica
  const auto parts = analytic_step_time(m, {}, p, hw, 0.5, 0.25);
  const double activation = 2 * 2048 * 5120.0;
  const double per_all_reduce = 2 * 7 * 5e-6 + 2 * 7.0 / 8 * activation / 300e9;
  CHECK_THAT(parts.tp_s, Catch::Matchers::WithinRel(4 * 4 * 40 * per_all_reduce, 1e-12));
  // dp groups span nodes (stride 8 = a whole node): inter-node ring of 4, 75% exposed.
  const double gradient = 2 * 10e9 / 8;
  CHECK_THAT(parts.dp_s, Catch::Matchers::WithinRel(0.75 * (2 * 3 * 20e-6 + 2 * 3.0 / 4 * gradient / 50e9), 1e-12));
  CHECK(parts.pp_p2p_s == 0);
  CHECK(parts.bubble_s == 0);
}

TEST_CASE("derived step times flow into the lifecycle simulation", "[throughput]") {
  SECTION("flops mode from MFU: tokens x FLOPs / (chips x peak x MFU)") {
    const auto s = derived(R"({"mode": "flops", "model_flops_utilization": 0.4})",
                           R"({"tp": 8, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 256})", "",
                           R"({"effective_steps": 1000, "recompute": "full"})");
    run_options options;
    options.samples = 8;
    const auto r = simulate(s, options);
    const transformer_shape m = s.shape();
    const double expected = 256 * 8192 * model_flops_per_token(m, s.kind()) / (256 * 667e12 * 0.4);
    CHECK_THAT(r.values()(3, metric::step_time_s), Catch::Matchers::WithinRel(expected, 1e-12));
    CHECK_THAT(r.values()(3, metric::useful_h), Catch::Matchers::WithinRel(1000 * expected / 3600, 1e-12));
  }
  SECTION("extrapolated to its own reference configuration returns the measurement") {
    const auto s =
        derived(R"({"mode": "extrapolated", "compute_efficiency": {"dist": "uniform", "lo": 0.3, "hi": 0.6}})",
                R"({"tp": 8, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 256})",
                R"(, "reference": {"step_time_s": {"dist": "lognormal", "p50": 40, "p90": 44}, "nodes": 16,
                               "tp": 8, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 256,
                               "sequence_length": 8192})");
    run_options options;
    options.samples = 2000;
    const auto r = simulate(s, options);
    CHECK_THAT(r.quantiles(metric::step_time_s, {0.5})[0], Catch::Matchers::WithinRel(40.0, 0.02));
    for (Eigen::Index i = 0; i < 50; ++i) {
      double parts = 0;
      for (auto k : {metric::compute_s, metric::tp_comm_s, metric::pp_bubble_s, metric::pp_p2p_s, metric::dp_comm_s})
        parts += r.values()(i, k);
      CHECK_THAT(parts, Catch::Matchers::WithinRel(r.values()(i, metric::step_time_s), 1e-12));
    }
  }
  SECTION("extrapolating from 2 nodes to 16 scales by the modelled ratio") {
    const auto s = derived(R"({"mode": "extrapolated", "compute_efficiency": 0.45})",
                           R"({"tp": 8, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 256})",
                           R"(, "reference": {"step_time_s": 300, "nodes": 2, "tp": 8, "pp": 4, "dp": 1,
                               "micro_batch": 1, "global_batch": 256, "sequence_length": 8192})");
    run_options options;
    options.samples = 4;
    const auto r = simulate(s, options);
    // Eight times the replicas for the same global batch: about an eighth of the time.
    const double step = r.values()(0, metric::step_time_s);
    CHECK(step < 300.0 / 8 * 1.3);
    CHECK(step > 300.0 / 8 * 0.9);
  }
  SECTION("steps from tokens") {
    const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"tokens": 1e9},
      "cluster": {"nodes": 1}, "model": {"sequence_length": 4096}, "parallelism": {"global_batch": 64},
      "throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1}})");
    run_options options;
    options.samples = 2;
    const auto r = simulate(s, options);
    CHECK_THAT(r.values()(0, metric::useful_h),
               Catch::Matchers::WithinRel(std::ceil(1e9 / (64 * 4096.0)) * 2 / 3600, 1e-12));
  }
}

TEST_CASE("inconsistent or oversized layouts are refused with the reason", "[throughput]") {
  const auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const input_error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(message([] {
               derived(R"({"mode": "analytic", "compute_efficiency": 0.4})",
                       R"({"tp": 8, "pp": 1, "dp": 8, "global_batch": 256})");
             }),
             test::contains("parallelism: tp x pp x dp = 64 must equal the chips of 16 x trn2.48xlarge = 256"));
  CHECK_THAT(message([] {
               derived(R"({"mode": "analytic", "compute_efficiency": 0.4})",
                       R"({"tp": 8, "pp": 1, "dp": 32, "global_batch": 100})");
             }),
             test::contains("parallelism.global_batch: must be a multiple of dp x micro_batch = 32, got 100"));
  CHECK_THAT(message([] {
               derived(R"({"mode": "analytic", "compute_efficiency": 0.4})",
                       R"({"tp": 1, "pp": 1, "dp": 256, "global_batch": 256})", "", R"({"effective_steps": 10})");
             }),
             test::contains("GiB over; raise tp or pp"));
  CHECK_THAT(message([] { derived(R"({"mode": "analytic"})", R"({"tp": 8, "pp": 4, "dp": 8, "global_batch": 256})"); }),
             test::contains("throughput.compute_efficiency: required"));
  CHECK_THAT(message([] {
               derived(R"({"mode": "flops", "model_flops_utilization": 0.4, "achieved_tflops_per_chip": 200})",
                       R"({"tp": 8, "pp": 4, "dp": 8, "global_batch": 256})");
             }),
             test::contains("exactly one of achieved_tflops_per_chip and model_flops_utilization"));
  CHECK_THAT(message([] {
               derived(R"({"mode": "analytic", "compute_efficiency": 0.4, "step_time_s": 3})",
                       R"({"tp": 8, "pp": 4, "dp": 8, "global_batch": 256})");
             }),
             test::contains("throughput.step_time_s: is not used when throughput.mode is analytic"));
  CHECK_THAT(message([] {
               scenario::from_text(
                   R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1, )"
                   R"("platform": "trn2.48xl"},)" +
                       std::string(llama70b) +
                       R"(, "throughput": {"mode": "analytic", "compute_efficiency": 0.4}, "parallelism": {"tp": 16, )"
                       R"("global_batch": 16}})",
                   shipped());
             }),
             test::contains("cluster.platform: no hardware profile named \"trn2.48xl\" (did you mean trn2.48xlarge?)"));
}

TEST_CASE("check_step_time_arguments names each field it rejects", "[throughput]") {
  step_time_arguments a;
  a.parameters = 8e9;
  a.layers = 32;
  a.hidden_size = 4096;
  a.heads = 32;
  a.sequence_length = 4096;
  a.tp = 8;
  a.dp = 4;
  a.global_batch = 32;
  a.peak_tflops = 667;
  a.intra_gb_s = 640;
  a.intra_latency_us = 2;
  a.intra_efficiency = 0.77;
  a.inter_gb_s = 25;
  a.inter_latency_us = 15;
  a.inter_efficiency = 0.7;
  a.chips_per_domain = 16;
  a.compute_efficiency = 0.5;
  const step_time_inputs in = check_step_time_arguments(a);
  CHECK(in.platform.intra.bandwidth_bytes_per_s() == 640e9 * 0.77);
  CHECK(in.platform.peak_flops_per_chip == 667e12);
  CHECK(in.step_time().total() == analytic_step_time(in.shape, in.kind, in.layout, in.platform, 0.5, 0).total());
  const auto rejects = [&](auto change, const std::string& message) {
    step_time_arguments bad = a;
    change(bad);
    CHECK_THROWS_WITH(check_step_time_arguments(bad), message);
  };
  rejects([](auto& b) { b.recompute = "some"; }, "recompute: must be one of none, selective, full, got \"some\" (did you mean none?)");
  rejects([](auto& b) { b.intra_efficiency = 77; }, "intra_efficiency: must be in (0, 1], got 77");
  rejects([](auto& b) { b.compute_efficiency = 0; }, "compute_efficiency: must be > 0, got 0");
  rejects([](auto& b) { b.compute_efficiency = 1.5; }, "compute_efficiency: must be in (0, 1], got 1.5");
  rejects([](auto& b) { b.tp = -1; }, "tp: must be > 0, got -1");
  rejects([](auto& b) { b.inter_latency_us = -1; }, "inter_latency_us: must be ≥ 0, got -1");
  rejects([](auto& b) { b.dp_overlap = 2; }, "dp_overlap: must be in [0, 1], got 2");
  rejects([](auto& b) { b.elementwise_traffic = 1; }, "hbm_tb_s: must be > 0, got 0");
  // The model's sizes, and counts that must be whole.
  rejects([](auto& b) { b.parameters = 0; }, "parameters: must be > 0, got 0");
  rejects([](auto& b) { b.hidden_size = -4096; }, "hidden_size: must be > 0, got -4096");
  rejects([](auto& b) { b.ffn_size = -1; }, "ffn_size: must be ≥ 0, got -1");
  rejects([](auto& b) { b.elementwise_traffic = -1; }, "elementwise_traffic: must be ≥ 0, got -1");
  rejects(
      [](auto& b) {
        b.lora = true;
        b.lora_rank = 0;
      },
      "lora_rank: must be > 0, got 0");
  rejects([](auto& b) { b.tp = 2.5; }, "tp: must be a whole number, got 2.5");
  rejects([](auto& b) { b.layers = 31.5; }, "layers: must be a whole number, got 31.5");
  rejects([](auto& b) { b.zero_stage = 4; }, "zero_stage: must be 0, 1, 2 or 3, got 4");
  rejects([](auto& b) { b.global_batch = 30; }, "global_batch: must be a multiple of dp x micro_batch = 4, got 30");
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("flops mode without a profile counts the layout's chips", "[edge]") {
  const auto s =
      scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
      "model": {"parameters": 8e9, "layers": 32, "hidden_size": 4096, "heads": 32, "sequence_length": 4096},
      "parallelism": {"tp": 8, "dp": 2, "global_batch": 64},
      "throughput": {"mode": "flops", "achieved_tflops_per_chip": 200}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 2;
  const auto r = simulate(s, options);
  const double flops = 6 * 8e9 + 12 * 32 * 4096.0 * 4096;
  CHECK_THAT(r.values()(0, metric::step_time_s), Catch::Matchers::WithinRel(64 * 4096 * flops / (16 * 200e12), 1e-12));
}

}  // namespace test_throughput
