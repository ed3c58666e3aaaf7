// The journal's cross-field rules and warnings (include/trnmodel/calibrate/journal_rules.hpp).
#include "journal_examples.hpp"
#include "trnmodel/calibrate/journal.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_rules {

TEST_CASE("interruption rules", "[journal][errors]") {
  const ordered_json good = example_json(2);
  ordered_json doc = good;
  doc["interruptions"][0]["restored_from_step"] = 300;  // no checkpoint at step 300
  CHECK_THAT(journal_error(doc),
             test::contains(
                 "interruptions[0].restored_from_step: names no checkpoint listed before the interruption, got 300"));
  doc = good;
  doc["interruptions"][0]["redone_steps"] = 400;
  CHECK_THAT(journal_error(doc), test::contains("interruptions[0].redone_steps: must be ≤ its step (347), got 400"));
  doc = good;
  doc["interruptions"][0]["recovered"] = false;
  CHECK_THAT(journal_error(doc),
             test::contains("interruptions[0].redone_steps: must be 0 for an unrecovered interruption"));
  doc = good;
  doc["interruptions"][0]["redone_steps"] = 140;
  CHECK(any_contains(journal_warnings(doc),
                     "interruptions[0].redone_steps: expected step − restored_from_step = 147, got 140"));
  doc = good;
  doc["interruptions"][0]["restart_s"] = 1000;
  CHECK(any_contains(journal_warnings(doc), "exceed recovery_s"));
}

TEST_CASE("usable but odd journals load with warnings", "[journal][warnings]") {
  ordered_json doc = example_json(1);
  doc["phases"]["training_s"] = 3550.7;  // 1000 s more than the listed steps, saves and evals
  auto w = journal_warnings(doc);
  CHECK(any_contains(w, "phases: the phases sum to"));
  CHECK(any_contains(
      w, "phases.training_s: 3550.7 s, but the steps, saves, evaluations and recoveries listed account for"));
  doc = example_json(1);
  doc.erase("utilisation");
  doc.erase("quality");
  w = journal_warnings(doc);
  CHECK(any_contains(w, "utilisation: absent"));
  CHECK(any_contains(w, "quality: absent"));
  doc = example_json(1);
  doc["quality"]["achieved"] = 1.5;  // above the 1.39 target, lower is better, yet "passed"
  CHECK(any_contains(journal_warnings(doc), "quality.passed: true, but achieved 1.5 against target 1.39"));
  doc = example_json(1);
  doc["billed"]["node_hours"] = 2.0;
  CHECK(any_contains(journal_warnings(doc), "billed.node_hours: 2, but nodes × billed time is"));
  doc = example_json(1);
  doc["training"]["effective_steps_planned"] = 800;
  CHECK(any_contains(journal_warnings(doc), "training.steps_completed: 600 of 800 planned"));
  doc = example_json(1);
  doc["step_times"]["values"].erase(doc["step_times"]["values"].begin());
  CHECK(any_contains(journal_warnings(doc), "step_times: 599 values, expected"));
}

}  // namespace test_journal_rules
