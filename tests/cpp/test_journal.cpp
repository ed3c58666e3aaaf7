// Loading trial-run journals (include/trnmodel/calibrate/journal.hpp, docs/journal.md): the bundled
// examples, field errors with the path, the value and the rule, timestamps and strict JSON.
#include "journal_examples.hpp"
#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/detail/calendar.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal {

TEST_CASE("RFC 3339 timestamps are instants, dates are real calendar days", "[journal][time]") {
  // Epoch seconds from Python's datetime(…, tzinfo=timezone.utc).timestamp().
  CHECK(*detail::parse_timestamp("2026-11-17T08:12:04Z") == 1794903124.0);
  CHECK(*detail::parse_timestamp("2026-11-17T03:12:04-05:00") == 1794903124.0);
  CHECK(*detail::parse_timestamp("2026-11-17T09:42:04+01:30") == 1794903124.0);
  CHECK(*detail::parse_timestamp("2024-02-29T23:59:59Z") == 1709251199.0);
  CHECK(*detail::parse_timestamp("1969-12-31T00:00:00Z") == -86400.0);
  CHECK(*detail::parse_timestamp("2026-11-17T08:12:04.25Z") == 1794903124.25);
  CHECK_FALSE(detail::parse_timestamp("2026-11-17T08:12:04"));  // no zone: instant unknown
  CHECK_FALSE(detail::parse_timestamp("2026-02-29T00:00:00Z"));  // not a leap year
  CHECK_FALSE(detail::parse_timestamp("2026-11-17T24:00:00Z"));
  CHECK_FALSE(detail::parse_timestamp("2026-11-17"));
  CHECK(detail::is_iso_date("2000-02-29"));
  CHECK_FALSE(detail::is_iso_date("1900-02-29"));
}

TEST_CASE("the bundled journals load without warnings", "[journal]") {
  for (int trial = 1; trial <= 3; ++trial) {
    const journal j = example(trial);
    INFO(j.experiment_id);
    CHECK(j.warnings.empty());
    CHECK(j.training.steps_completed == 600);
  }
  const journal j2 = example(2);
  CHECK(j2.step_times_s.size() == 747);  // 600 + 147 redone steps, from the CSV file
  CHECK(j2.step_numbers.size() == 747);
  CHECK(j2.step_numbers[347] == 201);  // redone steps restart after the step-200 checkpoint
  REQUIRE(j2.interruptions.size() == 1);
  CHECK(j2.interruptions[0].node_failure());
}

TEST_CASE("bad journals are refused with the field, the value and the rule", "[journal][errors]") {
  struct bad_case {
    const char* what;
    void (*mutate)(ordered_json&);
    const char* message;
  };
  const bad_case cases[] = {
      {"wrong schema", [](ordered_json& d) { d["schema"] = "trnmodel.journal/2"; },
       "schema: must be \"trnmodel.journal/1\""},
      {"missing section", [](ordered_json& d) { d.erase("billed"); }, "billed: required key is missing"},
      {"unknown key", [](ordered_json& d) { d["phases"]["compile_cache_hits"] = true; },
       "phases.compile_cache_hits: unknown key (did you mean compile_cache_hit?)"},
      {"negative duration", [](ordered_json& d) { d["phases"]["compile_s"] = -5; },
       "phases.compile_s: must be ≥ 0, got -5"},
      {"completed above planned", [](ordered_json& d) { d["training"]["steps_completed"] = 700; },
       "training.steps_completed: must be ≤ training.effective_steps_planned (600), got 700"},
      {"timestamp without zone", [](ordered_json& d) { d["started_at"] = "2026-11-17T08:12:04"; },
       "started_at: must be an RFC 3339 timestamp with a time zone"},
      {"end before start", [](ordered_json& d) { d["ended_at"] = "2026-11-17T08:00:00Z"; },
       "ended_at: must be later than started_at"},
      {"non-monotone checkpoints",
       [](ordered_json& d) { std::swap(d["checkpoints"][0]["at"], d["checkpoints"][1]["at"]); },
       "checkpoints[1].at: must be later than the previous entry's at"},
      {"event outside the run", [](ordered_json& d) { d["evaluations"][0]["at"] = "2026-11-18T00:00:00Z"; },
       "evaluations[0].at: must lie between started_at and ended_at"},
      {"fraction above 1", [](ordered_json& d) { d["utilisation"]["data_wait_fraction"] = 1.5; },
       "utilisation.data_wait_fraction: must be in [0, 1], got 1.5"},
      {"step time 0", [](ordered_json& d) { d["step_times"]["values"][3] = 0; },
       "step_times.values[3]: a step time must be > 0, got 0"},
      {"lora without rank", [](ordered_json& d) { d["training"].erase("lora_rank"); },
       "training.lora_rank: required key is missing"},
      {"both SDKs", [](ordered_json& d) { d["versions"]["cuda"] = "12.8"; },
       "versions: must name exactly one of neuron_sdk and cuda, got both"},
      {"batch arithmetic", [](ordered_json& d) { d["training"]["global_batch"] = 32; },
       "training.global_batch: must equal micro_batch × dp × gradient_accumulation (64), got 32"},
      {"bad checksum", [](ordered_json& d) { d["checkpoints"][0]["checksum"] = "f5b31cee"; },
       "checkpoints[0].checksum: must be algorithm:digest"},
      {"wrong type", [](ordered_json& d) { d["instance"]["nodes"] = "one"; },
       "instance.nodes: must be a number, got \"one\""},
      {"fractional count", [](ordered_json& d) { d["instance"]["nodes"] = 1.5; },
       "instance.nodes: must be a whole number, got 1.5"},
      {"enum", [](ordered_json& d) { d["training"]["precision"] = "bf61"; },
       "training.precision: must be one of bf16, fp8, fp32, got \"bf61\" (did you mean bf16?)"},
      {"misspelt required key",
       [](ordered_json& d) {
         d["phases"]["compile_cache_hits"] = d["phases"]["compile_cache_hit"];
         d["phases"].erase("compile_cache_hit");
       },
       "phases.compile_cache_hit: required key is missing (found compile_cache_hits, a misspelling?)"},
      {"checkpoint beyond the run", [](ordered_json& d) { d["checkpoints"][2]["step"] = 601; },
       "checkpoints[2].step: must be ≤ training.steps_completed (600), got 601"},
  };
  for (const auto& c : cases) {
    ordered_json doc = example_json(1);
    c.mutate(doc);
    INFO(c.what);
    CHECK_THAT(journal_error(doc), test::contains(c.message));
  }
}

TEST_CASE("strict JSON: syntax with line and column, duplicate keys", "[journal][errors]") {
  try {
    journal::from_text("{\n  \"schema\": \"trnmodel.journal/1\",\n  \"experiment_id\" 5\n}");
    FAIL("accepted bad JSON");
  } catch (const input_error& e) {
    CHECK_THAT(e.what(), test::contains("journal: JSON parse error at line 3"));
  }
  try {
    journal::from_text(R"({"schema": "trnmodel.journal/1", "phases": {"queue_s": 1, "queue_s": 2}})");
    FAIL("accepted a duplicate key");
  } catch (const input_error& e) {
    CHECK_THAT(e.what(), test::contains("phases.queue_s: duplicate key"));
  }
}

}  // namespace test_journal
