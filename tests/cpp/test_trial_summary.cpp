// A one-number trial (include/trnmodel/calibrate/trial_summary.hpp): read with every problem at
// once, and calibrated as a journal's step time is — the scenario's own step time, or the
// reference that extrapolated mode carries — with the mean's standard error as its spread.
#include <algorithm>
#include <cmath>
#include <string>

#include "catch.hpp"
#include "trnmodel/calibrate/trial_summary.hpp"
#include "trnmodel/throughput/profile_files.hpp"

using namespace trnmodel;
using Catch::Matchers::WithinRel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_trial_summary {

namespace {

// A Llama-3-70B-like target on 16 trn2 nodes whose step time the analytic model derives.
scenario target() {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1",
    "cluster": {"nodes": 16, "platform": "trn2.48xlarge"},
    "model": {"parameters": 70.6e9, "layers": 80, "hidden_size": 8192, "heads": 64, "ffn_size": 28672,
              "vocab_size": 128256, "sequence_length": 8192},
    "throughput": {"mode": "analytic", "compute_efficiency": 0.45},
    "parallelism": {"tp": 8, "pp": 4, "dp": 8, "micro_batch": 1, "global_batch": 256},
    "prices": {"node_hour_usd": 35.76},
    "job": {"effective_steps": 1000, "recompute": "selective"}})",
                             load_profiles(shipped_profiles_dir()));
}

// A 2-node trial of that model: tp 8, pp 4, dp 1 on its 32 chips, a global batch of 16.
ordered_json summary_json() {
  return ordered_json::parse(R"({"schema": "trnmodel.trial-summary/1", "experiment_id": "llama70b-trn2-2node",
    "instance": {"type": "trn2.48xlarge", "nodes": 2}, "model": "meta-llama/Meta-Llama-3-70B",
    "training": {"kind": "continued", "global_batch": 16, "micro_batch": 1, "sequence_length": 8192,
                 "tp": 8, "pp": 4, "dp": 1, "precision": "bf16"},
    "step_time_s": {"mean": 21.5, "sd": 0.8, "steps": 400}})");
}

}  // namespace

TEST_CASE("a trial summary of another configuration becomes the reference", "[journal][calibrate][summary]") {
  const auto s = calibrate::trial_summary::from_json(summary_json());
  const auto r = calibrate::calibrate(s, target());
  const scenario& scn = r.calibrated;
  CHECK(scn.mode() == throughput_mode::extrapolated);
  CHECK(scn.integer(field::reference_nodes) == 2);
  CHECK(scn.integer(field::reference_global_batch) == 16);
  CHECK(scn.integer(field::reference_dp) == 1);
  CHECK(scn.integer(field::reference_tp) == 8);
  CHECK(scn.integer(field::reference_pp) == 4);
  // The mean's standard error, 0.8 / √400 = 0.04 s, not the steps' 0.8 s.
  const quantity& ref = scn.q("reference.step_time_s");
  const auto* normal = std::get_if<dist::normal>(&ref.dist());
  REQUIRE(normal != nullptr);
  CHECK(normal->mean_value == 21.5);
  CHECK_THAT(normal->sd, WithinRel(0.04, 1e-12));
  CHECK(ref.prov().source == "measured");
  CHECK_THAT(ref.prov().note, test::contains("at 2 node(s)"));
  CHECK_THAT(ref.prov().note, test::contains("(llama70b-trn2-2node)"));
  REQUIRE(r.inputs.size() == 1);
  CHECK(r.inputs[0].path == "reference.step_time_s");
  CHECK(r.inputs[0].experiments == std::vector<std::string>{"llama70b-trn2-2node"});
  // Each difference is named, and the summary's own caveat is said.
  REQUIRE(r.warnings.size() == 2);
  CHECK_THAT(r.warnings[0], test::contains("(nodes 2 → 16, global batch 16 → 256, dp 1 → 8)"));
  CHECK_THAT(r.warnings[1], test::contains("treats the 400 steps as independent"));
  CHECK_THAT(scn.text("description"), test::contains("Calibrated from a trial summary: llama70b-trn2-2node"));
  // The model step time is gone: the reference and the model carry it now.
  CHECK(!scn.has(field::throughput_step_time_s));
}

TEST_CASE("a trial summary of the scenario's configuration is its step time", "[journal][calibrate][summary]") {
  ordered_json doc = summary_json();
  doc["instance"]["nodes"] = 16;
  doc["training"]["global_batch"] = 256;
  doc["training"]["dp"] = 8;
  const auto r = calibrate::calibrate(calibrate::trial_summary::from_json(doc), target());
  CHECK(r.calibrated.mode() == throughput_mode::measured);
  const quantity& step = r.calibrated.q("throughput.step_time_s");
  CHECK_THAT(step.ppf(0.975) - step.ppf(0.025), WithinRel(2 * 1.959963984540054 * 0.04, 1e-9));
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], test::contains("a trial summary"));
  // What the summary does not hold stays the base's, listed as unmeasured.
  CHECK(std::find(r.unmeasured.begin(), r.unmeasured.end(), "throughput.step_time_s") == r.unmeasured.end());
}

TEST_CASE("a trial summary lists every problem at once", "[journal][summary]") {
  ordered_json doc = summary_json();
  doc["schema"] = "trnmodel.summary/1";
  doc["instance"]["nodes"] = 0;
  doc["training"]["kind"] = "lora";
  doc["training"]["precison"] = "bf16";
  doc["step_time_s"]["mean"] = -1;
  doc["step_time_s"]["steps"] = 1;
  try {
    calibrate::trial_summary::from_json(doc);
    FAIL("no error");
  } catch (const input_error& e) {
    const auto& p = e.problems();
    const auto has = [&](const std::string& text) {
      return std::any_of(p.begin(), p.end(), [&](const std::string& x) { return x.find(text) != std::string::npos; });
    };
    CHECK(has("schema: must be \"trnmodel.trial-summary/1\", got \"trnmodel.summary/1\""));
    CHECK(has("instance.nodes:"));
    CHECK(has("training.precison: unknown key"));
    CHECK(has("training.lora_rank: required key is missing (training.kind is lora)"));
    CHECK(has("step_time_s.mean:"));
    CHECK(has("step_time_s.steps:"));
    CHECK(p.size() == 6);
  }
}

TEST_CASE("a trial summary of another platform, or one the scenario cannot extrapolate, is refused",
          "[journal][calibrate][summary]") {
  ordered_json doc = summary_json();
  doc["instance"]["type"] = "p5.48xlarge";
  CHECK_THROWS_WITH(calibrate::calibrate(calibrate::trial_summary::from_json(doc), target()),
                    test::contains("instance.type: the trial ran on p5.48xlarge, the scenario is on trn2.48xlarge"));
  const auto s = calibrate::trial_summary::from_json(summary_json());
  // A measured-mode scenario without the model's shape cannot take a reference.
  const scenario measured = scenario::from_text(R"({"schema": "trnmodel.scenario/1",
    "cluster": {"nodes": 16, "platform": "trn2.48xlarge"}, "throughput": {"step_time_s": 20},
    "prices": {"node_hour_usd": 35.76}, "job": {"effective_steps": 1000}})",
                                                load_profiles(shipped_profiles_dir()));
  CHECK_THROWS_WITH(calibrate::calibrate(s, measured),
                    test::contains("summary: the trials ran another configuration (nodes 2 → 16)"));
}

}  // namespace test_trial_summary
