#include <string>

#include "catch.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/scenario/scenario.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_scenario {

namespace {
const std::string minimal = R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
  "cluster": {"nodes": 2}, "throughput": {"step_time_s": 1.5}})";

std::string error_of(const std::string& text) { return test::scenario_error(text); }

std::string with(const std::string& section_json) {
  return R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000}, "cluster": {"nodes": 2},
    "throughput": {"step_time_s": 1.5}, )" +
         section_json + "}";
}
}  // namespace

TEST_CASE("a minimal scenario takes the documented defaults", "[scenario]") {
  const auto s = scenario::from_text(minimal);
  CHECK(s.integer("cluster.nodes") == 2);
  CHECK(s.q("compile.cache_hit_prob").ppf(0.3) == 1);
  CHECK(s.q("checkpoint.every_steps").ppf(0.3) == 0);
  CHECK(s.flag("checkpoint.final"));
  CHECK(s.flag("failures.during_recovery"));
  CHECK_FALSE(s.flag("startup.queue_billed"));
  CHECK(s.integer("checkpoint.keep_last") == 1);
  CHECK(s.text("job.kind") == "full");
  CHECK(s.text("failures.distribution") == "exponential");
  CHECK(s.find("failures.node_mtbf_h") == nullptr);
  CHECK(s.find("prices.node_hour_usd") == nullptr);
  CHECK(s.has("throughput.step_time_s"));
  CHECK_FALSE(s.has("checkpoint.save_s"));
  CHECK(s.to_json() == ordered_json::parse(minimal));
}

TEST_CASE("updated changes dotted paths and validates again", "[scenario]") {
  const auto s = scenario::from_text(minimal);
  const auto t =
      s.updated({{"checkpoint.every_steps", 500},
                 {"failures.node_mtbf_h", ordered_json::parse(R"({"dist": "uniform", "lo": 100, "hi": 200})")}});
  CHECK(t.q("checkpoint.every_steps").ppf(0.5) == 500);
  CHECK(t.q("failures.node_mtbf_h").family() == std::string("uniform"));
  CHECK(s.q("checkpoint.every_steps").ppf(0.5) == 0);  // the original is unchanged
  CHECK(t.updated({{"checkpoint.every_steps", nullptr}}).to_json() ==
        t.updated({{"checkpoint.every_steps", nullptr}}).to_json());
  CHECK_FALSE(t.updated({{"checkpoint.every_steps", nullptr}}).has("checkpoint.every_steps"));
  CHECK_THROWS_WITH(
      s.updated({{"checkpoint.every_step", 5}}),
      test::contains("checkpoint.every_step: no such scenario field (did you mean checkpoint.every_steps?)"));
  CHECK_THROWS_WITH(s.updated({{"checkpoint.every_steps", -5}}),
                    test::contains("checkpoint.every_steps: must be ≥ 0, got -5"));
}

TEST_CASE("every invalid field is rejected with its path, value and rule", "[scenario]") {
  CHECK_THAT(error_of(with(R"("checkpoint": {"every_steps": -5})")),
             test::contains("checkpoint.every_steps: must be ≥ 0, got -5"));
  CHECK_THAT(error_of(with(R"("chekpoint": {"every_steps": 5})")),
             test::contains("chekpoint: unknown key (did you mean checkpoint?)"));
  CHECK_THAT(error_of(with(R"("checkpoint": {"evry_steps": 5})")),
             test::contains("checkpoint.evry_steps: unknown key (did you mean every_steps?)"));
  CHECK_THAT(error_of(with(R"("checkpoint": {"restart_s": 5})")),
             test::contains("checkpoint.restart_s: unknown key (did you mean failures.restart_s?)"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
      "throughput": {"step_time_s": {"dist": "lognormal", "p50": 3, "p90": 2}}})"),
             test::contains("throughput.step_time_s: lognormal needs 0 < p50 < p90, got p50=3, p90=2"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
      "throughput": {"step_time_s": {"dist": "normal", "mean": 2, "sd": 0.5}}})"),
             test::contains("throughput.step_time_s: must be > 0, "
                            "but {\"dist\":\"normal\",\"mean\":2,\"sd\":0.5} can take values in [-inf, inf]; "
                            "truncate it with \"lo\": 0"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
      "throughput": {"step_time_s": 1, "data_stall_fraction": {"dist": "beta", "a": 2, "b": 5}}})"),
             test::contains("throughput.data_stall_fraction: must be in [0, 1), but"));
  CHECK_THAT(error_of(with(R"("compile": {"cache_hit_prob": 1.2})")),
             test::contains("compile.cache_hit_prob: must be in [0, 1], got 1.2"));
  CHECK_THAT(error_of(with(R"("quality": {"rerun_prob": {"dist": "uniform", "lo": 0.5, "hi": 1.5}})")),
             test::contains("quality.rerun_prob: must be in [0, 1], but"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 0}, )"
                      R"("throughput": {"step_time_s": 1}})"),
             test::contains("cluster.nodes: must be ≥ 1, got 0"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 2.5}, )"
                      R"("throughput": {"step_time_s": 1}})"),
             test::contains("cluster.nodes: must be a whole number, got 2.5"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": "2"}, )"
                      R"("throughput": {"step_time_s": 1}})"),
             test::contains("cluster.nodes: must be a whole number, got \"2\""));
  CHECK_THAT(error_of(with(R"("checkpoint": {"final": "yes"})")),
             test::contains("checkpoint.final: must be true or false, got \"yes\""));
  CHECK_THAT(error_of(with(R"("failures": {"distribution": "weibul"})")),
             test::contains(
                 "failures.distribution: must be one of exponential, weibull, got \"weibul\" (did you mean weibull?)"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"kind": "lora", "effective_steps": 10}, )"
                      R"("cluster": {"nodes": 1}})"),
             test::contains("throughput.step_time_s: required"));
  CHECK_THAT(error_of(R"({"job": {"effective_steps": 10}})"), test::contains("schema: required"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/2"})"),
             test::contains("schema: must be \"trnmodel.scenario/1\", got \"trnmodel.scenario/2\""));
  CHECK_THAT(error_of(with(R"("prices": {"node_hour_usd": -1})")),
             test::contains("prices.node_hour_usd: must be ≥ 0, got -1"));
  CHECK_THAT(error_of(with(R"("startup": 5)")), test::contains("startup: must be an object of fields, got 5"));
  CHECK_THAT(error_of("[1, 2]"), test::contains("scenario: must be a JSON object"));
}

TEST_CASE("JSON syntax errors give line and column, duplicate keys are refused", "[scenario]") {
  CHECK_THAT(error_of("{\"schema\": \"trnmodel.scenario/1\",\n  \"job\": {\"effective_steps\": 10,}\n}"),
             test::contains("line 2, column"));
  CHECK_THAT(error_of(with(R"("checkpoint": {"save_s": 5, "save_s": 6})")),
             test::contains("checkpoint.save_s: duplicate key"));
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "schema": "x"})"), test::contains("schema: duplicate key"));
  CHECK_THAT(error_of("{\"name\": \"\xff\xfe\"}"), test::contains("scenario: JSON"));
  // NaN and infinity arrive only from dicts (JSON text cannot hold them).
  auto doc = ordered_json::parse(minimal);
  doc["checkpoint"] = {{"save_s", std::nan("")}};
  CHECK_THROWS_WITH(scenario::from_json(doc), test::contains("checkpoint.save_s: must be a finite number, got nan"));
}

TEST_CASE("a number beyond the double range names its path, line and column", "[scenario]") {
  CHECK(error_of("{\"schema\": \"trnmodel.scenario/1\",\n  \"job\": {\"effective_steps\": 1e400}}") ==
        "job.effective_steps: JSON number overflow parsing '1e400' at line 2, column 34: beyond the largest number "
        "(about 1.8e308)");
  CHECK_THAT(error_of(with(R"("checkpoint": {"save_s": {"dist": "empirical", "samples": [1, 2, -3e999]}})")),
             test::contains("checkpoint.save_s.samples[2]: JSON number overflow parsing '-3e999' at line 2"));
  // Keys inside arrays name their element.
  CHECK_THAT(error_of(with(R"("x": [{"a": 1}, {"b": 1, "b": 2}])")), test::contains("x[1].b: duplicate key"));
}

TEST_CASE("the job card: text fields, owners nested, a plain-number promise", "[scenario][card]") {
  const auto s = scenario::from_text(with(R"("card": {"code_version": "v1.4.2", "max_error_to_restart_h": 0.75,
    "owners": {"quality": "A. Chen", "operations": "infra on-call"}})"));
  CHECK(s.text(field::card_code_version) == "v1.4.2");
  CHECK(s.text(field::card_owners_quality) == "A. Chen");
  CHECK(s.text("card.owners.operations") == "infra on-call");
  CHECK_FALSE(s.has_text(field::card_owners_trajectory));
  CHECK_FALSE(s.has_text(field::card_dataset));
  CHECK(s.number(field::card_max_error_to_restart_h) == 0.75);
  CHECK(s.to_json()["card"]["owners"]["quality"] == "A. Chen");  // saved as given

  // Dotted updates reach nested sections, and a null removes the key.
  const auto u = s.updated({{"card.owners.trajectory", "B. Diaz"}, {"card.owners.quality", nullptr}});
  CHECK(u.text(field::card_owners_trajectory) == "B. Diaz");
  CHECK_FALSE(u.has_text(field::card_owners_quality));
  CHECK(u.text(field::card_owners_operations) == "infra on-call");
  const auto fresh = scenario::from_text(minimal).updated({{"card.owners.quality", "C"}});
  CHECK(fresh.to_json()["card"] == ordered_json::parse(R"({"owners": {"quality": "C"}})"));
  CHECK_FALSE(scenario::from_text(minimal).updated({{"card.owners.quality", nullptr}}).to_json().contains("card"));

  CHECK_THAT(error_of(with(R"("card": {"owners": {"qualty": "A"}})")),
             test::contains("card.owners.qualty: unknown key (did you mean quality?)"));
  CHECK_THAT(error_of(with(R"("card": {"owner": {"quality": "A"}})")),
             test::contains("card.owner: unknown key (did you mean owners?)"));
  CHECK_THAT(error_of(with(R"("card": {"owners": "A"})")),
             test::contains("card.owners: must be an object of fields, got \"A\""));
  CHECK_THAT(error_of(with(R"("card": {"dataset": 3})")), test::contains("card.dataset: must be a string, got 3"));
  CHECK_THAT(error_of(with(R"("card": {"max_error_to_restart_h": "1 h"})")),
             test::contains("card.max_error_to_restart_h: must be a number, got \"1 h\""));
  CHECK_THAT(error_of(with(R"("card": {"max_error_to_restart_h": 0})")),
             test::contains("card.max_error_to_restart_h: must be > 0, got 0"));
  CHECK_THAT(error_of(with(R"("card": {"max_error_to_restart_h": -2})")),
             test::contains("card.max_error_to_restart_h: must be > 0, got -2"));
  CHECK_THROWS_WITH(s.q(field::card_dataset), test::contains("card.dataset: is not a field of this kind"));
}

TEST_CASE("a fixed count must be a whole number in range, only drawn values are rounded", "[scenario]") {
  CHECK(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 0}, "cluster": {"nodes": 2},
    "throughput": {"step_time_s": 1.5}})") ==
        "job.effective_steps: a fixed count must be a whole number ≥ 1, got 0 (only drawn values are rounded)");
  CHECK(error_of(with(R"("checkpoint": {"every_steps": 0.3})")) ==
        "checkpoint.every_steps: a fixed count must be a whole number ≥ 0, got 0.3 (only drawn values are rounded)");
  CHECK(error_of(with(R"("compile": {"planned_changes": 2.5})")) ==
        "compile.planned_changes: a fixed count must be a whole number ≥ 0, got 2.5 (only drawn values are rounded)");
  // The evaluation spacing is a rate (time per step = eval time / spacing), not a count.
  CHECK(error_of(with(R"("eval": {"every_steps": 12.5})")) == "no error");
  // Drawn values are rounded as documented, and whole fixed values pass.
  CHECK(error_of(with(R"("checkpoint": {"every_steps": {"dist": "uniform", "lo": 0.2, "hi": 400.7}})")) == "no error");
  CHECK(error_of(with(R"("checkpoint": {"every_steps": 0}, "compile": {"planned_changes": 3})")) == "no error");
}

TEST_CASE("an empty update path is named as such", "[scenario]") {
  const auto s = scenario::from_text(minimal);
  CHECK_THROWS_WITH(s.updated({{"", ordered_json(5)}}), test::contains("(empty path): no such scenario field"));
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("zero or tiny rates are refused at load time", "[edge]") {
  CHECK_THAT(
      test::scenario_error(
          test::edge_head + R"("throughput": {"step_time_s": 2}, "failures": {"node_mtbf_h": 1, "distribution": "weibull", )"
                      R"("weibull_shape": 0}})"),
      test::contains("failures.weibull_shape: must be ≥ 0.1, got 0"));
  CHECK_THAT(test::scenario_error(test::edge_head + R"("throughput": {"step_time_s": 0}})"),
             test::contains("throughput.step_time_s: must be > 0, got 0"));
  CHECK_THAT(test::scenario_error(test::edge_head + R"("throughput": {"step_time_s": 2}, "failures": {"node_mtbf_h": 0}})"),
             test::contains("failures.node_mtbf_h: must be > 0, got 0"));
  CHECK_THAT(test::scenario_error(test::edge_head +
                                  R"("throughput": {"step_time_s": {"dist": "empirical", "samples": [0, 1, 2]}}})"),
             test::contains("which can be 0"));
}

TEST_CASE("deeply nested JSON is refused, not a stack overflow", "[edge][adversarial]") {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  CHECK_THAT(test::scenario_error(R"({"schema": "trnmodel.scenario/1", "name": )" + deep + "}"),
             test::contains("scenario: JSON nested more than 64 levels deep"));
  CHECK_THROWS_WITH(calibrate::journal::from_text(R"({"schema": )" + deep + "}"),
                    test::contains("journal: JSON nested more than 64 levels deep"));
  // The limit leaves room: 64 levels reach the field's own rule.
  CHECK_THAT(test::scenario_error(R"({"schema": "trnmodel.scenario/1", "name": )" + std::string(63, '[') +
                                  std::string(63, ']') + "}"),
             test::contains("name: must be a string"));
  // A document built in memory (an embedder's, or a dict from Python) is checked without recursion.
  ordered_json doc = ordered_json::parse(test::edge_head + R"("throughput": {"step_time_s": 2}})");
  ordered_json* inner = &doc["description"];
  for (int i = 0; i < 100'000; ++i) {
    *inner = ordered_json::array({nullptr});
    inner = &(*inner)[0];
  }
  CHECK_THROWS_WITH(scenario::from_json(doc), test::contains("scenario: JSON nested more than 64 levels deep"));
}

}  // namespace test_scenario
