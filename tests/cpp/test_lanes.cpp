// The common path of a block (lifecycle/lanes.hpp) against the per-sample simulator: every
// output of every sample the same bits, on every example and on jobs chosen to reach each branch
// of the common path (no failures, frequent failures, no checkpoints, reruns certain, billed
// queues, steps from tokens, unknown prices), and the common path taking most samples of a job
// whose failures are rare.
#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "same_bits.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/random/isa.hpp"

using namespace trnmodel;

namespace test_lanes {
namespace {

// Drawn inputs of samples [first, first + rows) on the model's own streams, as a run draws them.
Eigen::ArrayXXd inputs_of(const lifecycle_model& model, std::uint64_t seed, std::uint64_t first, Eigen::Index rows) {
  Eigen::ArrayXXd x(rows, static_cast<Eigen::Index>(model.input_count()));
  block_view block;
  block.seed = seed;
  block.first = first;
  block.size = rows;
  for (std::size_t j = 0; j < model.input_count(); ++j)
    block.uniforms(model.input_stream(j), x.col(static_cast<Eigen::Index>(j)).data());
  model.to_values(x);
  return x;
}

// The number of cells in which evaluate() and evaluate_per_sample() differ in their bits, and
// how many samples evaluate() ran alone.
struct comparison {
  long long differing = 0;
  std::size_t alone = 0;
};
// On every instruction-set path of the machine (random/isa.hpp): the common path's loop is
// compiled once per path.
comparison compare(const scenario& s, Eigen::Index rows, std::uint64_t seed = 3) {
  const lifecycle_model model(s);
  const Eigen::ArrayXXd x = inputs_of(model, seed, 1000, rows);
  const auto columns = static_cast<Eigen::Index>(model.output_names().size());
  Eigen::ArrayXXd lanes(rows, columns), alone(rows, columns);
  const auto index = [](Eigen::Index i) { return 1000 + static_cast<std::uint64_t>(i); };
  model.evaluate_per_sample(seed, x, index, alone);
  comparison c;
  for (const isa path : available_isas()) {
    const isa previous = set_isa_limit(path);
    c.alone = model.evaluate(seed, x, index, lanes);
    set_isa_limit(previous);
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index m = 0; m < columns; ++m)
        if (!test::same_bits(lanes(i, m), alone(i, m))) {
          if (c.differing == 0)
            UNSCOPED_INFO("first difference (" << isa_name(path) << "): sample " << i << ", output "
                                               << model.output_names()[static_cast<std::size_t>(m)] << ": "
                                               << lanes(i, m) << " against " << alone(i, m));
          ++c.differing;
        }
  }
  return c;
}

// A two-node job with drawn durations, its failures, checkpoints, start and prices given.
const std::string drawn_start = R"({"queue_wait_s": {"dist": "lognormal", "p50": 600, "p90": 3600},
                "env_prep_s": {"dist": "uniform", "lo": 100, "hi": 300}})";
const std::string quoted = R"({"node_hour_usd": 10, "storage_gb_month_usd": 0.023})";
scenario job(const std::string& failures, const std::string& checkpoint, const std::string& startup = drawn_start,
             const std::string& prices = quoted) {
  return scenario::from_text(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": {"dist": "pert", "lo": 900, "mode": 1000, "hi": 1400}},
    "cluster": {"nodes": 2},
    "throughput": {"step_time_s": {"dist": "lognormal", "p50": 2.0, "p90": 3.0},
                   "data_stall_fraction": {"dist": "beta", "a": 2, "b": 30, "lo": 0, "hi": 0.5}},
    "startup": )" + startup + R"(,
    "compile": {"initial_s": {"dist": "pert", "lo": 60, "mode": 120, "hi": 600},
                "recompile_s": {"dist": "pert", "lo": 60, "mode": 120, "hi": 600},
                "planned_changes": {"dist": "triangular", "lo": 0, "mode": 0, "hi": 2}},
    "checkpoint": )" + checkpoint + R"(,
    "eval": {"every_steps": 100, "time_s": {"dist": "uniform", "lo": 10, "hi": 30}, "final_s": 300},
    "failures": )" + failures + R"(,
    "quality": {"rerun_prob": {"dist": "beta", "a": 2, "b": 5}, "rerun_fraction": {"dist": "uniform", "lo": 0.1, "hi": 1.2}},
    "prices": )" + prices + "}");
}

const std::string rare_failures = R"({"node_mtbf_h": {"dist": "lognormal", "p50": 5000, "p90": 9000}, "restart_s": 300})";
const std::string saves = R"({"every_steps": 200, "save_s": {"dist": "pert", "lo": 5, "mode": 15, "hi": 60}, "size_gb": 2, "keep_last": 2})";

}  // namespace

TEST_CASE("the common path gives the per-sample simulator's bits on every example", "[lifecycle][lanes]") {
  for (const char* name : {"llama3-8b-lora-trn2", "llama3-8b-lora-p5", "llama3-70b-full-p5x16", "llama3-70b-full-trn2x16",
                           "llama3-8b-lora-p5-spot", "llama3-70b-full-trn2x16-block7d", "llama3-70b-cpt-2stage-p5x16"}) {
    INFO(name);
    const scenario s = scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/" + name + ".json");
    CHECK(compare(s, 700).differing == 0);
  }
}

TEST_CASE("the common path gives the per-sample simulator's bits on jobs that reach each of its branches",
          "[lifecycle][lanes]") {
  const std::vector<std::pair<const char*, scenario>> jobs{
      {"rare failures", job(rare_failures, saves)},
      {"frequent failures", job(R"({"node_mtbf_h": 3, "restart_s": 300})", saves)},
      {"no failures", job(R"({"restart_s": 300})", saves)},
      {"no checkpoints", job(rare_failures, R"({"every_steps": 0, "save_s": 10})")},
      {"no final save", job(rare_failures, R"({"every_steps": 300, "save_s": 10, "final": false})")},
      {"a checkpoint every step", job(rare_failures, R"({"every_steps": 1, "save_s": 0.5})")},
      {"restore checks", job(rare_failures, R"({"every_steps": 200, "save_s": 10, "keep_last": 3, "restore_fail_prob": 0.1})")},
      {"billed queue", job(rare_failures, saves, R"({"queue_wait_s": 900, "queue_billed": true})")},
      {"unknown price", job(rare_failures, saves, drawn_start, R"({"node_hour_usd": {"unknown": "not quoted yet"}})")},
  };
  for (const auto& [name, s] : jobs) {
    INFO(name);
    const comparison c = compare(s, 600);
    CHECK(c.differing == 0);
  }
}

TEST_CASE("the common path runs the samples that meet no event, and only those run alone", "[lifecycle][lanes]") {
  // Two nodes of 5,000 h MTBF over a job of about 1 h: a failure in about one sample in 2,500,
  // a 1,000-sample part runs nearly all of them on the common path.
  const comparison rare = compare(job(rare_failures, saves), 1000);
  CHECK(rare.differing == 0);
  CHECK(rare.alone < 20);
  // A 3 h MTBF: most samples fail at least once, and every one that does runs alone.
  const comparison frequent = compare(job(R"({"node_mtbf_h": 3, "restart_s": 300})", saves), 1000);
  CHECK(frequent.differing == 0);
  CHECK(frequent.alone > 300);
  // Spot: no common path; every sample runs alone.
  const scenario spot =
      scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-p5-spot.json");
  CHECK_FALSE(lifecycle_model(spot).has_common_path());
  CHECK(compare(spot, 300).alone == 300);
  CHECK(lifecycle_model(job(rare_failures, saves)).has_common_path());
}

}  // namespace test_lanes
