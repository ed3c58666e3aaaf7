// Calibration of a scenario from journals (include/trnmodel/calibrate/calibrate.hpp).
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <algorithm>

#include "journal_examples.hpp"
#include "trnmodel/calibrate/calibrate.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_calibrate {

TEST_CASE("calibration of the example scenario from the three journals", "[journal][calibrate]") {
  const std::vector<journal> journals{example(1), example(2), example(3)};
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const auto r = calibrate::calibrate(journals, base);
  const auto input = [&](const std::string& path) -> const calibrated_input& {
    for (const auto& in : r.inputs)
      if (in.path == path) return in;
    FAIL("no calibrated input " << path);
    throw;
  };
  // The inputs from 2–9 values keep only the spread the runs showed; two posteriors are mostly
  // their priors (the cache-hit probability's 3 trials against Beta(18, 2)'s 20, the failure
  // rate's 3.95 node-hours against the prior's pseudo-exposure): labelled as such.
  REQUIRE(r.warnings.size() == 3);
  const auto warned = [&](const std::string& text) {
    return std::any_of(r.warnings.begin(), r.warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  CHECK(warned("fewer than 10 values: throughput.step_time_s"));
  CHECK(warned("compile.cache_hit_prob: prior-dominated (the trials weigh 3 trials, the prior 20)"));
  CHECK(warned("failures.node_mtbf_h: prior-dominated (the trials weigh 3.95 node-hours, the prior 3.3e+04)"));
  CHECK(input("compile.cache_hit_prob").status == "prior-dominated");
  CHECK(input("checkpoint.load_s").values.size() == 4);  // trial 002's recovery load is on its checkpoint too: once

  // Step time: the per-run values themselves (three runs → empirical), tagged measured.
  const auto& step = input("throughput.step_time_s");
  CHECK(step.status == "measured");
  CHECK(step.method == "empirical");
  REQUIRE(step.values.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(step.values[k] == r.step_analyses[k].step_time_s);
  const quantity& calibrated_step = r.calibrated.q("throughput.step_time_s");
  CHECK(calibrated_step.prov().source == "measured");
  CHECK_THAT(calibrated_step.prov().note, test::contains("llama3-8b-lora-trn2-trial-002"));
  CHECK_THAT(calibrated_step.ppf(0.0), WithinRel(3.7012, 1e-4));
  CHECK_THAT(calibrated_step.ppf(1.0), WithinRel(3.7817, 1e-4));

  // Cache hits: 2 warm starts + 1 recovery hit; trial 001's cold start is not a trial.
  const auto* hit = std::get_if<dist::beta>(&r.calibrated.q("compile.cache_hit_prob").dist());
  REQUIRE(hit != nullptr);
  CHECK(hit->a == 21);
  CHECK(hit->b == 2);

  // Failure rate: the base MTBF lognormal(p50 6150, p90 10250) moment-matched on λ = 1/MTBF
  // in closed form (λ is lognormal with σ = ln(10250/6150)/z₀.₉), against the quadrature.
  const double sigma = std::log(10250.0 / 6150.0) / 1.2815515655446004;
  const double mean_rate = std::exp(sigma * sigma / 2) / 6150,
               var_rate = mean_rate * mean_rate * std::expm1(sigma * sigma);
  const double a0 = mean_rate * mean_rate / var_rate, b0 = mean_rate / var_rate;
  CHECK_THAT(a0, WithinAbs(5.81, 0.005));
  const double exposure = 1.4539 + 1.4464 + 1.0494;
  const boost::math::gamma_distribution<double> posterior(a0 + 1, 1 / (b0 + exposure));
  const quantity& mtbf = r.calibrated.q("failures.node_mtbf_h");
  CHECK(exposure < b0);  // the trials weigh less than the prior: the posterior is labelled as the prior
  CHECK(mtbf.prov().source == "prior");
  CHECK(input("failures.node_mtbf_h").status == "prior-dominated");
  CHECK_THAT(mtbf.ppf(0.5), WithinRel(1 / boost::math::quantile(posterior, 0.5), 1e-6));
  CHECK_THAT(mtbf.ppf(0.9), WithinRel(1 / boost::math::quantile(posterior, 0.1), 1e-6));

  // Measured once: the base is kept; the restart warm-up (37 s) is below the base's P5.
  CHECK(input("compile.initial_s").status == "kept");
  CHECK(input("compile.initial_s").values == std::vector<double>{1630.3});
  CHECK(input("failures.warmup_s").status == "flagged");
  CHECK(r.calibrated.q("compile.initial_s").prov().source == "assumption");
  const auto& x = journals[1].interruptions.at(0);
  CHECK(input("failures.restart_s").values == std::vector<double>{x.detection_s + *x.restart_s});

  // Everything measured is tagged; the unmeasured uncertain inputs keep the base's values.
  for (const auto& in : r.inputs)
    if (in.status == "measured") CHECK(r.calibrated.q(in.path).prov().source == "measured");
  CHECK(std::find(r.unmeasured.begin(), r.unmeasured.end(), "job.effective_steps") != r.unmeasured.end());
  CHECK(r.calibrated.q("job.effective_steps").ppf(0.5) == base.q("job.effective_steps").ppf(0.5));
}

TEST_CASE("a calibrator's second run returns its first result, nothing appended twice", "[journal][calibrate]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  calibrate::calibrator c({example(1), example(2), example(3)}, base);
  const auto first = c.run();
  const auto second = c.run();
  CHECK(second.inputs.size() == first.inputs.size());
  CHECK(second.warnings == first.warnings);
  CHECK(second.unmeasured == first.unmeasured);
  CHECK(second.calibrated.to_json() == first.calibrated.to_json());
  CHECK(first.calibrated.to_json() ==
        calibrate::calibrate({example(1), example(2), example(3)}, base).calibrated.to_json());
}

TEST_CASE("one run: the step time's spread is its batch-means interval", "[journal][calibrate]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const auto r = calibrate::calibrate({example(3)}, base);
  const quantity& step = r.calibrated.q("throughput.step_time_s");
  const auto& a = r.step_analyses.at(0);
  CHECK(step.prov().source == "measured");
  CHECK_THAT(step.ppf(0.5), WithinRel(a.step_time_s, 1e-12));
  // The 95 % interval of the quantity is the batch-means interval, scaled by (1 − data wait).
  CHECK_THAT(step.ppf(0.975) - step.ppf(0.025), WithinRel((a.ci_hi_s - a.ci_lo_s) * (1 - a.data_wait_fraction), 1e-9));
  CHECK(std::any_of(r.warnings.begin(), r.warnings.end(),
                    [](const std::string& w) { return w.find("from one run") != std::string::npos; }));
}

TEST_CASE("journals of another platform are refused", "[journal][calibrate]") {
  const auto p5 = scenario::from_file((examples / "llama3-8b-lora-p5.json").string());
  CHECK_THROWS_WITH(calibrate::calibrate({example(1)}, p5),
                    test::contains("instance.type: the journals ran on trn2.48xlarge, the scenario is on p5.48xlarge"));
}

TEST_CASE("trials of another configuration are the reference, not the step time", "[journal][calibrate]") {
  // The journals count 64 ranks on 16 chips (tp 4 ranks = one chip): in chips, tp 1, dp 16. A
  // scenario of 2 nodes that states dp 32 differs in nodes and dp; without the model's shape it
  // cannot extrapolate, and says so with the differences and the rule it breaks.
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string())
                        .updated({{"cluster.nodes", 2}, {"parallelism.dp", 32}, {"parallelism.global_batch", 64}});
  CHECK_THROWS_WITH(calibrate::calibrate({example(1), example(2), example(3)}, base),
                    test::contains("journals: the trials ran another configuration (nodes 1 → 2, dp 16 → 32), so "
                                   "their step time is the reference of extrapolated mode"));
  // The same trials against their own configuration calibrate the step time itself.
  const auto same = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string())
                        .updated({{"parallelism.dp", 16}, {"parallelism.global_batch", 64}});
  const auto r = calibrate::calibrate({example(1), example(2), example(3)}, same);
  CHECK(r.calibrated.q("throughput.step_time_s").prov().source == "measured");
  CHECK(std::none_of(r.warnings.begin(), r.warnings.end(),
                     [](const std::string& w) { return w.find("another configuration") != std::string::npos; }));
}

TEST_CASE("pooling rules: one configuration, each run once", "[journal][calibrate]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  CHECK_THROWS_WITH(calibrate::calibrate({example(1), example(1)}, base),
                    test::contains("experiment_id llama3-8b-lora-trn2-trial-001 appears twice"));
  ordered_json doc = example_json(3);
  doc["training"]["tp"] = 8;
  doc["training"]["dp"] = 8;
  doc["training"]["gradient_accumulation"] = 8;  // the same global batch, 64
  const journal other = journal::from_json(doc, journal_dir);
  CHECK_THROWS_WITH(
      calibrate::calibrate({example(1), other}, base),
      test::contains("training.tp: llama3-8b-lora-trn2-trial-003 has 8, llama3-8b-lora-trn2-trial-001 has 4"));
  CHECK_THROWS_WITH(calibrate::calibrate({}, base), test::contains("journals: must hold at least one journal"));
}

}  // namespace test_journal_calibrate
