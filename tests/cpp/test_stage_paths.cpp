// Stages seen from the rest of the library (docs/scenario.md, "Stages"; docs/lifecycle.md,
// "Stages"): completeness per stage, paths into stages in updated(), a stage's metric as a
// sensitivity output, and the failure clock across a boundary.
#include <cmath>
#include <string>

#include "catch.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/scenario/completeness.hpp"
#include "trnmodel/sensitivity/output.hpp"
#include "trnmodel/sensitivity/tornado.hpp"
#include "phase_row.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_stage_paths {

namespace {

const std::string two = R"({"schema": "trnmodel.scenario/1", "cluster": {"nodes": 4},
  "throughput": {"step_time_s": 5}, "compile": {"initial_s": 300},
  "checkpoint": {"every_steps": 100, "save_s": 20},
  "failures": {"node_mtbf_h": 200, "restart_s": 60},
  "stages": [{"name": "short", "job": {"effective_steps": 400}},
             {"name": "long", "job": {"effective_steps": 100}, "throughput": {"step_time_s": 20},
             "checkpoint": {"every_steps": 50, "save_s": null}}]})";


}  // namespace

TEST_CASE("completeness names a stage's own and missing inputs by their path in the stage", "[stages]") {
  const scenario s = scenario::from_text(two);
  const auto all = completeness(s);
  const auto& checkpoints = test::phase(all, "checkpoints");
  CHECK(checkpoints.status == phase_status::not_described);
  CHECK(checkpoints.missing == std::vector<std::string>{"stages[1].checkpoint.save_s"});
  CHECK(checkpoints.inputs == std::vector<std::string>{"checkpoint.every_steps", "checkpoint.save_s",
                                                       "stages[1].checkpoint.every_steps",
                                                       "stages[1].checkpoint.save_s"});
  // No stage gives warmup_s and every stage lacks it: the top-level path.
  CHECK(test::phase(all, "data load and warm-up").missing ==
        std::vector<std::string>{"startup.data_load_s", "failures.warmup_s"});
  CHECK(unmet_expectations(scenario::from_text(two)).empty());
}

TEST_CASE("updated() reaches a stage by index or by name, and refuses a bad one with the path", "[stages]") {
  const scenario s = scenario::from_text(two);
  const scenario by_index = s.updated({{"stages[1].throughput.step_time_s", 25.0}});
  const scenario by_name = s.updated({{"long/throughput.step_time_s", 25.0}});
  CHECK(by_index.to_json() == by_name.to_json());
  CHECK(by_index.stage(1).q(field::throughput_step_time_s).ppf(0.5) == 25.0);
  CHECK(by_index.stage(0).q(field::throughput_step_time_s).ppf(0.5) == 5.0);
  // null removes the stage's own value: the top level's again.
  const scenario back = s.updated({{"long/throughput.step_time_s", nullptr}});
  CHECK(back.stage(1).q(field::throughput_step_time_s).ppf(0.5) == 5.0);
  CHECK_FALSE(back.stage_gives(1, field::throughput_step_time_s));
  CHECK_THROWS_WITH(s.updated({{"stages[2].job.effective_steps", 5}}),
                    test::contains("stages[2].job.effective_steps: no stage 2: the scenario has 2 stages"));
  CHECK_THROWS_WITH(s.updated({{"lon/job.effective_steps", 5}}), test::contains("(did you mean long?)"));
  CHECK_THROWS_WITH(s.updated({{"long/startup.env_prep_s", 5}}), test::contains("is set per job, not per stage"));
  CHECK_THROWS_WITH(s.updated({{"long/throughput.step_time_s", -1}}),
                    test::contains("stages[1].throughput.step_time_s: must be > 0, got -1"));
}

TEST_CASE("a stage index past the end is an input_error, with or without stages", "[stages][errors]") {
  const scenario s = scenario::from_text(two);
  CHECK(s.stage_name(1) == "long");
  CHECK_THROWS_AS(s.stage(2), input_error);
  CHECK_THROWS_WITH(s.stage_name(2), "stages[2]: no stage 2: the scenario has 2 stages");
  const scenario plain = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 400},
    "cluster": {"nodes": 4}, "throughput": {"step_time_s": 5}})");
  REQUIRE(plain.stage_count() == 0);
  CHECK_THROWS_WITH(plain.stage(0), "stages[0]: no stage 0: the scenario has 0 stages");
  CHECK_THROWS_WITH(plain.stage_gives(0, field::throughput_step_time_s),
                    "stages[0]: no stage 0: the scenario has 0 stages");
}

TEST_CASE("a stage's metric is a sensitivity output of its own", "[stages][sensitivity]") {
  const scenario s = scenario::from_text(two);
  const lifecycle_model model(s);
  const auto out = sensitivity::output_named(model, "long/wall_h");
  CHECK(out.metric == metric::wall_h);
  CHECK(model.output_names()[static_cast<std::size_t>(out.column)] == "long/wall_h");
  CHECK(sensitivity::output_named(model, "lost_h").column == static_cast<Eigen::Index>(metric::lost_h));
  CHECK_THROWS_WITH(sensitivity::output_named(model, "lng/wall_h"),
                    test::contains("per stage \"<stage>/<metric>\" for the stages short, long"));
  // Drawn step times in both stages, no failures: long/wall_h moves with long's step time only.
  const scenario drawn = s.updated({{"failures.node_mtbf_h", nullptr},
                                    {"throughput.step_time_s", {{"dist", "uniform"}, {"lo", 4}, {"hi", 6}}},
                                    {"long/throughput.step_time_s", {{"dist", "uniform"}, {"lo", 10}, {"hi", 30}}}});
  run_options options;
  options.samples = 2000;
  const auto bars = sensitivity::tornado(drawn, "long/wall_h", sensitivity::statistic::mean(), options);
  REQUIRE(bars.bars.size() == 2);
  CHECK(bars.bars[0].factor == "long/throughput.step_time_s");
  CHECK(bars.bars[0].swing == Approx(100 * (bars.bars[0].high_value - bars.bars[0].low_value) / 3600).epsilon(1e-9));
  CHECK(bars.bars[1].swing < 1e-12 * bars.baseline);
}

TEST_CASE("the failure clock keeps its age across a stage boundary", "[stages][lifecycle]") {
  // Weibull shape 0.5, a transition that takes no time: two stages of 200 steps are one stage of
  // 400 steps, sample by sample (a renewal at the boundary would fail sooner after it).
  const std::string common = R"("schema": "trnmodel.scenario/1", "cluster": {"nodes": 8},
    "throughput": {"step_time_s": 30}, "compile": {"recompile_s": 100, "cache_load_s": 10, "cache_hit_prob": 0.5},
    "checkpoint": {"every_steps": 20, "save_s": 30},
    "failures": {"node_mtbf_h": 10, "restart_s": 120, "distribution": "weibull", "weibull_shape": 0.5})";
  run_options options;
  options.samples = 2000;
  options.seed = 3;
  const auto one = simulate(scenario::from_text("{" + common + R"(, "job": {"effective_steps": 400}})"), options, true);
  const auto two_stages = simulate(scenario::from_text("{" + common + R"(,
    "stages": [{"name": "a", "job": {"effective_steps": 200}},
               {"name": "b", "job": {"effective_steps": 200}, "transition_s": 0}]})"),
                                   options, true);
  std::size_t same = 0;
  for (Eigen::Index i = 0; i < one.values().rows(); ++i)
    same += std::abs(one.values()(i, metric::wall_h) - two_stages.values()(i, metric::wall_h)) <=
            1e-9 * one.values()(i, metric::wall_h);
  CHECK(same >= 1998);
  CHECK(one.stats(metric::failures).mean > 1);
}

}  // namespace test_stage_paths
