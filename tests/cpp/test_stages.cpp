// Multi-stage jobs and restore fidelity (docs/lifecycle.md, "Stages" and "Restore fidelity").
#include <cmath>
#include <string>

#include "catch.hpp"
#include "lifecycle_runs.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/lifecycle/theory.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_stages {

namespace {

run_result run_text(const std::string& text, std::uint64_t samples, std::uint64_t seed = 1) {
  return test::run_scenario(test::make(text), samples, seed);
}

std::size_t column(const run_result& r, const std::string& name) {
  for (std::size_t k = 0; k < r.names().size(); ++k)
    if (r.names()[k] == name) return k;
  FAIL("no output " << name);
  return 0;
}

// The job's top level; each stage states its work, the job without stages gets `work`.
const std::string top = R"("schema": "trnmodel.scenario/1", "cluster": {"nodes": 16},
  "throughput": {"step_time_s": 17}, "startup": {"env_prep_s": 300, "data_load_s": 120},
  "compile": {"initial_s": 600, "recompile_s": 900, "cache_load_s": 60, "cache_hit_prob": 0.7},
  "failures": {"node_mtbf_h": 24, "restart_s": 300, "warmup_s": 60}, "eval": {"final_s": 600})";
const std::string work = R"("job": {"effective_steps": 1000})";

// `stages` with the top level's former 1000 steps given to each stage that gives no work.
std::string working(const std::string& stages) {
  ordered_json list = ordered_json::parse(stages);
  for (auto& stage : list)
    if (stage.is_object() && !stage.contains("job")) stage["job"] = {{"effective_steps", 1000}};
  return list.dump();
}

std::string restore_case(int keep_last, double p) {
  return "{" + top + ", " + work + R"(, "checkpoint": {"every_steps": 100, "save_s": 60, "load_s": 240, "keep_last": )" +
         std::to_string(keep_last) + R"(, "restore_fail_prob": )" + detail::format_number(p) + "}}";
}

}  // namespace

TEST_CASE("restore checks: fallbacks raise lost time, more kept checkpoints lower it", "[lifecycle][restore]") {
  const auto perfect = run_text(restore_case(1, 0), 20'000);
  const auto one = run_text(restore_case(1, 0.2), 20'000);
  const auto three = run_text(restore_case(3, 0.2), 20'000);
  const auto mean = [](const run_result& r) { return r.stats(metric::lost_h).mean; };
  const auto se = [](const run_result& r) { return r.stats(metric::lost_h).sd() / std::sqrt(double(r.samples())); };
  const auto z = [&](const run_result& a, const run_result& b) {
    return (mean(a) - mean(b)) / std::hypot(se(a), se(b));
  };
  CHECK(z(one, three) > 4);
  CHECK(z(three, perfect) > 4);
  CHECK(perfect.stats(metric::restore_fallbacks).max == 0);
  CHECK(one.stats(metric::restore_fallbacks).mean > 0.3);
  // Redone work is lost, never useful twice; the phases still sum to the wall time.
  CHECK(one.stats(metric::useful_h).max == Approx(1000 * 17.0 / 3600));
  const auto& v = one.values();
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    double sum = 0;
    for (const metric::id m : phase_metrics) sum += v(i, m);
    REQUIRE(sum == Approx(v(i, metric::wall_h)).epsilon(1e-12));
  }
}

TEST_CASE("stages: the closed form, the per-stage shares and the plain single stage", "[lifecycle][stages]") {
  const std::string two = "{" + top + R"(, "checkpoint": {"every_steps": 100, "save_s": 30, "load_s": 90},
    "stages": [{"name": "a", "job": {"effective_steps": 1000}}, {"name": "b", "cluster": {"nodes": 32},
      "throughput": {"step_time_s": 40},
      "job": {"effective_steps": 200}, "checkpoint": {"every_steps": 20}, "compile": {"cache_hit_prob": 1},
      "transition_s": 500}]})";
  const auto r = run_text(two, 40'000, 3);
  const double start_s = 300 + 600 + 120;
  const double m1 = 24 * 3600.0 / 16, m2 = 24 * 3600.0 / 32;
  // With a cache that misses, the recovery time is not constant: the first stage's segments
  // are checked through the sum of the stages instead of Daly; the second stage's cache hits.
  const double stage_b_s = std::expm1((500 + 600 + 90 + 120) / m2) * m2 +
                           10 * theory::expected_segment_time_s(20 * 40 + 30, 300 + 60 + 90 + 60, m2, true) + 600;
  const std::size_t b = column(r, "b/wall_h"), a = column(r, "a/wall_h");
  const auto& v = r.values();
  double mean_b = 0, sq_b = 0;
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    REQUIRE(v(i, a) + v(i, b) == Approx(v(i, metric::wall_h)).epsilon(1e-12));
    mean_b += v(i, b);
    sq_b += v(i, b) * v(i, b);
  }
  mean_b /= double(v.rows());
  const double se_b = std::sqrt((sq_b / double(v.rows()) - mean_b * mean_b) / double(v.rows()));
  INFO("stage b " << mean_b << " +- " << se_b << " expected " << stage_b_s / 3600);
  CHECK(std::abs(mean_b - stage_b_s / 3600) < 4 * se_b);
  CHECK(r.stats(column(r, "a/wall_h")).min > start_s / 3600);
  (void)m1;

  const std::string plain = "{" + top + ", " + work + R"(, "checkpoint": {"every_steps": 100, "save_s": 30,
    "load_s": 90}})";
  const std::string single = "{" + top + R"(, "checkpoint": {"every_steps": 100, "save_s": 30, "load_s": 90},
    "stages": [{"name": "only", "job": {"effective_steps": 1000}}]})";
  const auto p = run_text(plain, 5'000, 9), s = run_text(single, 5'000, 9);
  for (std::size_t m = 0; m < metric::count; ++m)
    for (Eigen::Index i = 0; i < p.values().rows(); ++i) {
      const double x = p.values()(i, static_cast<Eigen::Index>(m)), y = s.values()(i, static_cast<Eigen::Index>(m));
      REQUIRE((x == y || (std::isnan(x) && std::isnan(y))));
    }
}

TEST_CASE("every bad stage field is refused with its path", "[scenario][stages]") {
  const auto as_given = [](const std::string& stages, const std::string& job = "") {
    return test::scenario_error("{" + top + job + R"(, "checkpoint": {"every_steps": 100}, "stages": )" + stages + "}");
  };
  const auto with_stages = [&](const std::string& stages) { return as_given(working(stages)); };
  // Each stage states its work; none is the top level's or another stage's.
  CHECK_THAT(as_given(R"([{"name": "a", "job": {"effective_steps": 10}}, {"name": "b"}])"),
             test::contains("stages[1].job: required: the stage's own work, job.tokens or job.effective_steps"));
  CHECK_THAT(as_given(R"([{"name": "a", "job": {"effective_steps": null}}])"),
             test::contains("stages[0].job: required: the stage's own work"));
  CHECK_THAT(as_given(R"([{"name": "a", "job": {"effective_steps": 10}}])", ", " + work),
             test::contains("job.effective_steps: is not used in a job in stages: each stage gives its own work"));
  CHECK_THAT(as_given(R"([{"name": "a", "job": {"effective_steps": 10, "tokens": 5}}])"),
             test::contains("stages[0].job.tokens: give either job.effective_steps or job.tokens, not both"));
  CHECK_THAT(with_stages(R"([{"name": "a"}, {"name": "b", "throughput": {"step_time_s": -1}}])"),
             test::contains("stages[1].throughput.step_time_s: must be > 0, got -1"));
  CHECK_THAT(with_stages(R"([{"name": "a", "checkpoint": {"evry_steps": 5}}])"),
             test::contains("stages[0].checkpoint.evry_steps: unknown key (did you mean every_steps?)"));
  CHECK_THAT(with_stages(R"([{"name": "a"}, {"name": "b", "prices": {"node_hour_usd": 1}}])"),
             test::contains("stages[1].prices: is set per job, not per stage"));
  CHECK_THAT(with_stages(R"([{"name": "a"}, {"name": "a"}])"), test::contains("stages[1].name: must be unique"));
  CHECK_THAT(with_stages(R"([{"name": "a", "transition_s": 3}])"),
             test::contains("stages[0].transition_s: the first stage has no transition"));
  CHECK_THAT(with_stages(R"([{"name": "a"}, {"name": "b", "compile": {"precompiled": 1}}])"),
             test::contains("stages[1].compile.precompiled: must be true or false, got 1"));
  CHECK_THAT(with_stages(R"([])"), test::contains("stages: must be a non-empty array"));
  CHECK_THAT(with_stages(R"([{"name": "a"}, {"name": "b", "checkpoint": {"restore_fail_prob": 2}}])"),
             test::contains("stages[1].checkpoint.restore_fail_prob: must be in [0, 1], got 2"));
}

}  // namespace test_stages
