// Completeness of a scenario (scenario/completeness.hpp): every phase described, unknown or not
// described, and the platform expectations.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "trnmodel/scenario/completeness.hpp"
#include "phase_row.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_completeness {

namespace {
std::vector<std::string> not_described(const std::vector<phase_completeness>& all) {
  std::vector<std::string> names;
  for (const auto& p : all)
    if (p.status == phase_status::not_described) names.push_back(p.phase);
  return names;
}
}  // namespace

TEST_CASE("a three-field scenario leaves every phase but the steps not described", "[completeness]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}, "prices": {"node_hour_usd": 30}})");
  const auto all = completeness(s);
  CHECK(not_described(all) == std::vector<std::string>{"queue", "set-up", "compile", "data load and warm-up",
                                                       "checkpoints", "failures", "evaluation", "quality gate",
                                                       "storage", "transfer", "logs", "porting"});
  CHECK(test::phase(all, "compute price").status == phase_status::described);
  CHECK(test::phase(all, "compile").inputs == std::vector<std::string>{"compile.initial_s"});  // no failures: no recompiles
  CHECK(test::phase(all, "queue").absent_means == "counted as 0");
}

TEST_CASE("an explicit 0 describes a phase, unknown inputs make it unknown", "[completeness]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5},
    "startup": {"queue_wait_s": 0, "env_prep_s": {"unknown": "not measured"}},
    "failures": {"node_mtbf_h": 5000, "restart_s": 300}, "compile": {"initial_s": 600}})");
  const auto all = completeness(s);
  CHECK(test::phase(all, "queue").status == phase_status::described);
  CHECK(test::phase(all, "set-up").status == phase_status::unknown);
  CHECK(test::phase(all, "set-up").unknown == std::vector<std::string>{"startup.env_prep_s"});
  CHECK(test::phase(all, "failures").status == phase_status::described);
  // With failures modelled, a compile phase needs the recovery compiles as well.
  CHECK(test::phase(all, "compile").status == phase_status::not_described);
  CHECK(test::phase(all, "compile").missing ==
        std::vector<std::string>{"compile.recompile_s", "compile.cache_load_s", "compile.cache_hit_prob"});
  CHECK(test::phase(all, "compute price").status == phase_status::not_described);
  CHECK(test::phase(all, "compute price").absent_means == "costs unknown");
}

TEST_CASE("the defaults that are not zeros are said aloud", "[completeness]") {
  // Checkpoints and failures: a restore can happen, so its check and the checkpoints kept are
  // needed; absent, each says its default in words, not "counted as 0".
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5},
    "checkpoint": {"every_steps": 100, "save_s": 30}, "failures": {"node_mtbf_h": 5000, "restart_s": 300}})");
  const auto all = completeness(s);
  const auto& restore = test::phase(all, "restore checks");
  CHECK(restore.status == phase_status::not_described);
  CHECK(restore.missing == std::vector<std::string>{"checkpoint.restore_fail_prob"});
  CHECK(restore.absent_means == "assumed to always succeed");
  const auto& kept = test::phase(all, "checkpoints kept");
  CHECK(kept.missing == std::vector<std::string>{"checkpoint.keep_last"});
  CHECK(kept.absent_means == "1 (default)");
  // Without failures on demand nothing is restored; without checkpoints nothing is kept.
  const auto calm = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}, "checkpoint": {"every_steps": 100}})");
  CHECK(test::phase(completeness(calm), "restore checks").inputs.empty());
  CHECK(test::phase(completeness(calm), "checkpoints kept").status == phase_status::not_described);
  // A spot job restores after an interruption even without a failure model.
  const auto spot = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}, "checkpoint": {"every_steps": 100, "keep_last": 2},
    "prices": {"purchase": "spot", "spot_node_hour_usd": 12},
    "spot": {"interruptions_per_node_h": 0.01}})");
  CHECK(test::phase(completeness(spot), "restore checks").missing ==
        std::vector<std::string>{"checkpoint.restore_fail_prob"});
  CHECK(test::phase(completeness(spot), "checkpoints kept").status == phase_status::described);
}

TEST_CASE("periodic evaluations need their duration", "[completeness]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}, "eval": {"every_steps": 100, "final_s": 60}})");
  CHECK(test::phase(completeness(s), "evaluation").missing == std::vector<std::string>{"eval.time_s"});
  const auto none = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}, "eval": {"every_steps": 0, "final_s": 0}})");
  CHECK(test::phase(completeness(none), "evaluation").status == phase_status::described);
}

TEST_CASE("the platform expectations name what is missing", "[completeness]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 4, "platform": "trn2.48xlarge"}, "throughput": {"step_time_s": 1.5},
    "prices": {"node_hour_usd": {"dist": "fixed", "value": 30, "source": "quote"}}})");
  const auto unmet = unmet_expectations(s);
  REQUIRE(unmet.size() == 3);
  CHECK_THAT(unmet[0], test::contains("compile.initial_s is not given"));
  CHECK_THAT(unmet[1], test::contains("4 nodes without a failure model"));
  CHECK_THAT(unmet[2], test::contains("prices.node_hour_usd is a quote without a date"));
  const auto failing = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}, "failures": {"node_mtbf_h": 100}})");
  CHECK(unmet_expectations(failing) ==
        std::vector<std::string>{"failures are modelled but checkpoint.every_steps is not given: without checkpoints a "
                                 "failure loses every step done so far"});
  // The rule as a question, for the caller's day-long check: multi-node without failures.
  CHECK(multi_node_without_failures(s));
  CHECK(!multi_node_without_failures(failing));
  const auto single = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5}})");
  CHECK(!multi_node_without_failures(single));
  const auto staged = scenario::from_text(R"({"schema": "trnmodel.scenario/1",
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1.5},
    "stages": [{"name": "a", "job": {"effective_steps": 10}}, {"name": "b", "job": {"effective_steps": 5},
      "cluster": {"nodes": 2}}]})");
  CHECK(multi_node_without_failures(staged));  // stage b runs on 2 nodes
}

TEST_CASE("the bundled examples describe every phase", "[completeness]") {
  for (const char* name :
       {"llama3-8b-lora-trn2", "llama3-8b-lora-p5", "llama3-70b-full-trn2x16", "llama3-70b-full-p5x16"}) {
    INFO(name);
    // The examples that derive their step time need the profiles, which this test does not
    // load; the completeness of the lifecycle does not depend on them.
    std::ifstream in(std::string(TRNMODEL_SOURCE_DIR) + "/examples/" + name + ".json");
    std::stringstream text;
    text << in.rdbuf();
    ordered_json doc = ordered_json::parse(text.str());
    if (doc["throughput"].value("mode", "measured") != "measured") continue;
    CHECK(not_described(completeness(scenario::from_json(doc))).empty());
  }
}

}  // namespace test_completeness
