// What a journal does not hold (include/trnmodel/calibrate/journal.hpp, docs/journal.md "What
// a log cannot hold"): fields listed as unknown, the time before the first step as one number,
// a checksum only where a restore is claimed, every problem of a document in one error, and
// calibration that measures what is known and says what stayed assumed.
#include <algorithm>

#include "journal_examples.hpp"
#include "trnmodel/calibrate/backtest.hpp"
#include "trnmodel/calibrate/calibrate.hpp"
#include "trnmodel/throughput/profile_files.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_unknown {

// Trial 001 as a training log would leave it: no queue, set-up, data-load or compile split
// (the time before the first step as one number), no checkpoints, no billing.
ordered_json from_a_log() {
  ordered_json doc = example_json(1);
  auto& p = doc["phases"];
  const double before = p["queue_s"].get<double>() + p["setup_s"].get<double>() + p["compile_s"].get<double>() +
                        p["data_load_s"].get<double>();
  for (const char* k : {"queue_s", "setup_s", "compile_s", "compile_cache_hit", "data_load_s"}) p.erase(k);
  p["before_first_step_s"] = before;
  doc.erase("checkpoints");
  doc.erase("billed");
  doc["unknown"] = {{"phases.queue_s", "the log starts when the script starts"},
                    {"phases.setup_s", "the log starts when the script starts"},
                    {"phases.compile_s", "not split from the time before the first step"},
                    {"phases.compile_cache_hit", "the log does not say"},
                    {"phases.data_load_s", "not split from the time before the first step"},
                    {"checkpoints", "the log records no saves"},
                    {"billed", "billing is not in the log"}};
  return doc;
}

std::vector<std::string> problems_of(const ordered_json& doc) {
  try {
    journal::from_json(doc, journal_dir);
  } catch (const input_error& e) {
    return e.problems();
  }
  return {};
}

TEST_CASE("a journal lists every problem at once, each with its path and rule", "[journal][errors]") {
  ordered_json doc = example_json(1);
  doc.erase("billed");
  doc["phases"]["compile_s"] = -5;
  doc["phases"]["compile_cache_hits"] = true;
  doc["instance"]["nodes"] = "one";
  doc["checkpoints"][1]["save_s"] = "slow";
  const auto problems = problems_of(doc);
  REQUIRE(problems.size() == 5);
  CHECK_THAT(problems[0], test::contains("instance.nodes: must be a number, got \"one\""));
  CHECK_THAT(problems[1], test::contains("phases.compile_s: must be ≥ 0, got -5"));
  CHECK_THAT(problems[2], test::contains("phases.compile_cache_hits: unknown key"));
  CHECK_THAT(problems[3], test::contains("checkpoints[1].save_s: must be a number"));
  CHECK_THAT(problems[4], test::contains("billed: required key is missing"));
  const std::string message = journal_error(doc);
  INFO(message);
  CHECK(message.rfind("5 problems:\n  instance.nodes: ", 0) == 0);
  // A single problem keeps the message it always had.
  ordered_json one = example_json(1);
  one["phases"]["compile_s"] = -5;
  CHECK(journal_error(one).rfind("phases.compile_s: must be ≥ 0, got -5", 0) == 0);
  CHECK(problems_of(one).size() == 1);
}

TEST_CASE("fields listed as unknown are left out and known() says so", "[journal][unknown]") {
  const journal j = journal::from_json(from_a_log(), journal_dir);
  using k = journal_key;
  CHECK_FALSE(j.known(k::phases_queue_s));
  CHECK_FALSE(j.known(k::checkpoints));
  CHECK_FALSE(j.known(k::billed));
  CHECK(j.known(k::phases_training_s));
  CHECK(j.unknown.at("billed") == "billing is not in the log");
  REQUIRE(j.phases.before_first_step_s);
  // The phases still sum to the run's wall time, through the one number.
  CHECK_THAT(j.phases.sum_s(), WithinAbs(example(1).phases.sum_s(), 1e-6));
  // No rule that needs what is unknown speaks: no billing, phase-sum or checkpoint warning.
  CHECK(j.warnings.empty());
}

TEST_CASE("unknown is refused where a journal must give the field", "[journal][unknown][errors]") {
  ordered_json doc = from_a_log();
  doc["unknown"]["instance.type"] = "not in the log";
  doc["unknown"]["phases.warp_s"] = "no such field";
  doc["unknown"]["phases.final_eval_s"] = "";
  doc["phases"]["queue_s"] = 12;  // listed as unknown, yet given
  const auto problems = problems_of(doc);
  REQUIRE(problems.size() == 4);
  CHECK_THAT(problems[0], test::contains("unknown.instance.type: cannot be unknown: a journal must give it"));
  CHECK_THAT(problems[0], test::contains("phases.queue_s"));  // the list of those that may be
  CHECK_THAT(problems[1], test::contains("unknown.phases.warp_s: names no journal field"));
  CHECK_THAT(problems[2], test::contains("unknown.phases.final_eval_s: must be a text saying why"));
  CHECK_THAT(problems[3], test::contains("phases.queue_s: listed in unknown, so it must be left out"));
}

TEST_CASE("the time before the first step holds the parts given", "[journal][unknown][errors]") {
  ordered_json doc = from_a_log();
  doc["unknown"].erase("phases.compile_s");
  doc["phases"]["compile_s"] = doc["phases"]["before_first_step_s"].get<double>() + 1;
  CHECK_THAT(journal_error(doc),
             test::contains("phases.before_first_step_s: must be at least the parts given (queue_s + setup_s + "
                            "compile_s + data_load_s = "));
  doc["phases"]["compile_s"] = 600;  // a compile split out of the first step, the rest unsplit
  const journal j = journal::from_json(doc, journal_dir);
  CHECK(j.known(journal_key::phases_compile_s));
  CHECK(j.phases.compile_s == 600);
}

TEST_CASE("a checkpoint's checksum is required only where a restore is claimed as checked", "[journal]") {
  ordered_json doc = example_json(1);
  doc["checkpoints"][0].erase("checksum");
  CHECK_NOTHROW(journal::from_json(doc, journal_dir));
  doc["checkpoints"][0]["restore_verified"] = true;
  CHECK_THAT(journal_error(doc),
             test::contains("checkpoints[0].checksum: required key is missing (restore_verified is true"));
}

TEST_CASE("calibration measures what a journal holds and lists what stayed assumed", "[journal][calibrate][unknown]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const journal j = journal::from_json(from_a_log(), journal_dir);
  const auto r = calibrate::calibrate({j}, base);
  const auto said = [&](const std::string& text) {
    return std::any_of(r.stayed_assumed.begin(), r.stayed_assumed.end(),
                       [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  const std::string id = j.experiment_id;
  CHECK(said("startup.queue_wait_s: " + id + " did not record phases.queue_s (the log starts when the script starts)"));
  CHECK(said("startup.env_prep_s: " + id + " did not record phases.setup_s"));
  CHECK(said("startup.data_load_s: " + id + " did not record phases.data_load_s"));
  CHECK(said("compile.initial_s: " + id + " did not record phases.compile_s"));
  CHECK(said("checkpoint.save_s: " + id + " did not record checkpoints (the log records no saves)"));
  // The failure exposure falls back to the clock only when the queue is known: here it is not.
  CHECK(said("failures.node_mtbf_h: " + id + " did not record billed"));
  // Nothing is measured from what is unknown: those inputs keep the base's values.
  for (const auto& in : r.inputs) {
    INFO(in.path);
    CHECK(in.path.rfind("startup.", 0) != 0);
    CHECK(in.path.rfind("checkpoint.", 0) != 0);
    CHECK(in.path != "failures.node_mtbf_h");
  }
  CHECK(quantity_to_json(r.calibrated.q(field::startup_queue_wait_s)) == quantity_to_json(base.q(field::startup_queue_wait_s)));
  // The step time, which the log holds, is measured; the description says what stayed assumed.
  CHECK(std::any_of(r.inputs.begin(), r.inputs.end(), [](const auto& in) { return in.path == "throughput.step_time_s"; }));
  CHECK_THAT(r.calibrated.text("description"),
             test::contains("Stayed assumed (not in the trials' records): startup.queue_wait_s"));
}

TEST_CASE("a backtest observes only what the journal recorded", "[journal][backtest][unknown]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const journal j = journal::from_json(from_a_log(), journal_dir);
  run_options options;
  options.samples = 1000;
  const auto r = calibrate::backtest(base, j, options);
  const auto observed = [&](const std::string& name) {
    return std::any_of(r.rows.begin(), r.rows.end(), [&](const auto& row) { return row.metric == name; });
  };
  CHECK(observed("wall_h"));
  CHECK_FALSE(observed("queue_h"));
  CHECK_FALSE(observed("node_h"));
  CHECK_FALSE(observed("checkpoint_h"));
  CHECK(any_contains(r.notes, "queue_h is not observed: " + j.experiment_id + " did not record phases.queue_s"));
}

TEST_CASE("a scenario lists every wrong field at once", "[scenario][errors]") {
  auto doc = ordered_json::parse(detail::read_file_bytes(examples / "llama3-8b-lora-trn2.json", "example"));
  doc["cluster"]["nodes"] = 0;
  doc["job"]["kind"] = "lorra";
  doc["checkpoint"]["every_stepz"] = 100;
  try {
    scenario::from_json(doc, load_profiles(shipped_profiles_dir()));
    FAIL("accepted three wrong fields");
  } catch (const input_error& e) {
    REQUIRE(e.problems().size() == 3);
    CHECK_THAT(e.what(), test::contains("3 problems:"));
    CHECK_THAT(e.what(), test::contains("cluster.nodes: must be"));
    CHECK_THAT(e.what(), test::contains("job.kind: must be one of"));
    CHECK_THAT(e.what(), test::contains("checkpoint.every_stepz: unknown key"));
  }
}

}  // namespace test_journal_unknown
