// Backtests of a scenario against a journal (include/trnmodel/calibrate/backtest.hpp).
#include "journal_examples.hpp"
#include "trnmodel/calibrate/backtest.hpp"
#include "trnmodel/random/philox.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_backtest {

TEST_CASE("backtest: the trial scenario and percentiles", "[journal][backtest]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const journal j = example(2);
  std::vector<std::string> notes;
  const scenario trial = trial_scenario(base, j, &notes);
  CHECK(trial.q("job.effective_steps").ppf(0.5) == 600);
  CHECK(trial.q("checkpoint.every_steps").ppf(0.5) == 200);
  CHECK(trial.q("eval.every_steps").ppf(0.5) == 200);
  CHECK(trial.q("eval.final_s").ppf(0.5) == 336.0);
  CHECK(trial.q("quality.rerun_prob").ppf(0.5) == 0);
  CHECK(quantity_to_json(trial.q("compile.initial_s")) == quantity_to_json(base.q("compile.cache_load_s")));

  run_options options;
  options.samples = 4000;
  options.seed = 3;
  const auto r = backtest(base, j, options);
  const auto& wall = r.row("wall_h");
  CHECK_THAT(wall.observed, WithinRel((j.duration_s() - 63.4) / 3600, 1e-12));
  CHECK(wall.percentile >= 0);
  CHECK(wall.percentile <= 1);
  CHECK(wall.predicted_p10 <= wall.predicted_p50);
  CHECK(wall.predicted_p50 <= wall.predicted_p90);
  // The percentile agrees with the quantiles: below p10 ⇒ percentile ≤ 0.1, and so on.
  for (const auto& row : r.rows) {
    INFO(row.metric);
    if (row.observed < row.predicted_p10) CHECK(row.percentile <= 0.1 + 1e-9);
    if (row.observed > row.predicted_p90) CHECK(row.percentile >= 0.9 - 1e-9);
  }
  CHECK(r.row("failures").observed == 1);
  CHECK_THAT(r.row("checkpoint_h").observed, WithinRel((13.7 + 2.5 + 18.9 + 3.1 + 15.0 + 2.7) / 3600, 1e-12));
  CHECK_THAT(r.row("compile_h").observed,
             WithinRel((133.2 + 94.0) / 3600, 1e-12));  // start + the recovery's cache load
  CHECK_THAT(r.row("eval_h").observed, WithinRel((59.1 + 61.9 + 60.4 + 336.0) / 3600, 1e-12));
  options.samples = 10;
  CHECK_THROWS_WITH(backtest(base, j, options), test::contains("samples: must be ≥ 1000 for a backtest, got 10"));
  ordered_json doc = example_json(2);
  doc["instance"]["nodes"] = 2;
  doc["instance"].erase("ranks_per_node");
  doc["billed"]["node_hours"] = 2 * 1.4464;
  CHECK_THROWS_WITH(
      trial_scenario(base, journal::from_json(doc, journal_dir)),
      test::contains("instance.nodes: llama3-8b-lora-trn2-trial-002 ran on 2 node(s), the scenario on 1"));
}

TEST_CASE("PIT uniformity test", "[journal][backtest]") {
  std::vector<double> uniform_values, skewed;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const double u = detail::uniform(7, i, 1, 0);
    uniform_values.push_back(u);
    skewed.push_back(u * u);  // too many low percentiles: predictions biased high
  }
  CHECK(test_pit_uniformity(uniform_values).p_value > 0.01);
  CHECK(test_pit_uniformity(skewed).p_value < 1e-6);
  CHECK_THROWS_WITH(test_pit_uniformity({0.5, 1.5}), test::contains("pit[1]: must be in [0, 1], got 1.5"));
}

}  // namespace test_journal_backtest
