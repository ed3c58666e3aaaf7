#include <string>

#include "catch.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/dist/quantity_json.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_quantity_json {

namespace {
std::string error_of(const ordered_json& j, const std::string& path = "x") {
  try {
    quantity_from_json(j, path);
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("every distribution survives a JSON round trip", "[json]") {
  const ordered_json cases = ordered_json::parse(R"([
    3.5,
    {"dist": "fixed", "value": 2, "source": "vendor", "note": "datasheet"},
    {"dist": "uniform", "lo": 1, "hi": 2},
    {"dist": "normal", "mean": 5, "sd": 0.5},
    {"dist": "normal", "mean": 5, "sd": 0.5, "lo": 4},
    {"dist": "lognormal", "mu": 0.1, "sigma": 0.2},
    {"dist": "lognormal", "p50": 2.1, "p90": 3.3, "source": "measured"},
    {"dist": "triangular", "lo": 1, "mode": 2, "hi": 5},
    {"dist": "pert", "lo": 1, "mode": 2, "hi": 5, "source": "assumption"},
    {"dist": "gamma", "shape": 2, "scale": 3},
    {"dist": "weibull", "shape": 0.8, "scale": 100},
    {"dist": "exponential", "mean": 7},
    {"dist": "beta", "a": 2, "b": 3},
    {"dist": "beta", "a": 2, "b": 3, "lo": 10, "hi": 20},
    {"dist": "bernoulli", "p": 0.25},
    {"dist": "empirical", "samples": [1, 2, 3.5]},
    {"dist": "uniform", "lo": 30, "hi": 36, "source": "quote", "date": "2026-11-02", "region": "us-east-2"},
    {"dist": "mixture", "components": [{"weight": 0.8, "value": {"dist": "lognormal", "p50": 3.65, "p90": 5.11}},
                                       {"weight": 0.2, "value": {"dist": "lognormal", "p50": 4.75, "p90": 6.64}}],
     "source": "assumption", "note": "20 % chance the ported attention kernel is 1.3x slower"},
    {"dist": "mixture", "components": [{"weight": 0.5, "value": 1}, {"weight": 0.25, "value": {"dist": "pert",
     "lo": 1, "mode": 2, "hi": 5}}, {"weight": 0.25, "value": {"dist": "empirical", "samples": [1, 2, 3.5]}}]},
    {"dist": "mixture", "components": [{"weight": 0.8, "value": 1.0}, {"weight": 0.2, "value": 1.3}]},
    {"dist": "mixture", "components": [{"weight": 1, "value": {"dist": "normal", "mean": 5, "sd": 0.5, "lo": 4}}]},
    {"unknown": "no trial run yet"},
    {"unknown": "no quote", "note": "ask the account team"}
  ])");
  for (const auto& j : cases) {
    INFO(j.dump());
    const quantity q = quantity_from_json(j, "x");
    CHECK(quantity_to_json(q) == j);
    const quantity again = quantity_from_json(quantity_to_json(q), "x");
    if (!q.is_unknown()) {
      CHECK(again.ppf(0.37) == q.ppf(0.37));
    }
  }
}

TEST_CASE("bad quantity JSON is rejected with the path, the value and the rule", "[json]") {
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "lognormal", "p50": 3, "p90": 2})"), "throughput.step_time_s"),
             test::contains("throughput.step_time_s: lognormal needs 0 < p50 < p90, got p50=3, p90=2"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "lognormal", "p50": 3, "mu": 2})")),
             test::contains("either mu and sigma or p50 and p90"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "lognormal", "p50": 3})")),
             test::contains("lognormal needs both p50 and p90"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "unifrom", "lo": 1, "hi": 2})")),
             test::contains("x.dist: unknown distribution \"unifrom\" (did you mean uniform?)"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "uniform", "lo": 1, "hgh": 2})")),
             test::contains("x.hgh: unknown key for a uniform distribution (did you mean hi?)"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "uniform", "lo": 1})")), test::contains("uniform needs \"hi\""));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "uniform", "lo": "1", "hi": 2})")),
             test::contains("x.lo: must be a number, got \"1\""));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "uniform", "lo": true, "hi": 2})")),
             test::contains("x.lo: must be a number, got true"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"lo": 1, "hi": 2})")), test::contains("needs \"dist\""));
  CHECK_THAT(error_of(ordered_json::parse(R"("3")")), test::contains("x: must be a number, a distribution object"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "fixed", "value": 1, "source": "guess"})")),
             test::contains("x.source: must be one of measured, prior, vendor, quote, assumption, model, got \"guess\""));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "fixed", "value": 1, "date": "30/11/2026"})")),
             test::contains("x.date: must be an ISO date YYYY-MM-DD, got \"30/11/2026\""));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "empirical", "samples": [1, "a"]})")),
             test::contains("x.samples[1]: must be a number"));
  CHECK_THAT(error_of(ordered_json::parse(R"({"unknown": "why", "lo": 1})")),
             test::contains("x.lo: unknown key next to \"unknown\""));
  // NaN and infinity cannot be written in JSON text, but can arrive from a dict.
  CHECK_THAT(error_of(ordered_json(std::nan(""))), test::contains("x: must be a finite number, got nan"));
  ordered_json infinite = {{"dist", "uniform"}, {"lo", 0}, {"hi", INFINITY}};
  CHECK_THAT(error_of(infinite), test::contains("x.hi: must be a finite number, got inf"));
}

TEST_CASE("bad mixtures are rejected with the component's path, the value and the rule", "[json][mixture]") {
  const auto mixture = [](const std::string& components) {
    return ordered_json::parse(R"({"dist": "mixture", "components": )" + components + "}");
  };
  const std::string path = "throughput.step_time_s";
  CHECK_THAT(error_of(mixture(R"([{"weight": 1.2, "value": 3}, {"weight": -0.2, "value": 4}])"), path),
             test::contains("throughput.step_time_s.components[1].weight: must be > 0, got -0.2"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 0.8, "value": 3}, {"weight": 0.3, "value": {"dist": "fixed",
                                  "value": 4}}])"),
                      path),
             test::contains("throughput.step_time_s.components: the weights must sum to 1 (within 1e-9), got 0.8 + "
                            "0.3 = 1.1"));
  CHECK_THAT(error_of(mixture("[]")), test::contains("x.components: a mixture needs at least one component, got none"));
  CHECK_THAT(error_of(mixture("3")), test::contains("x.components: must be an array of components"));
  CHECK_THAT(error_of(mixture("[3]")), test::contains("x.components[0]: must be a component {\"weight\": w"));
  // Exactly the keys "weight" and "value", in the strict readers' words (json_reader).
  CHECK_THAT(error_of(mixture(R"([{"value": 3}])")),
             test::contains("x.components[0].weight: required key is missing"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1}])")), test::contains("x.components[0].value: required key is missing"));
  CHECK_THAT(error_of(mixture(R"([{"weigth": 1, "value": 3}])")),
             test::contains("x.components[0].weigth: unknown key (did you mean weight?)"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": 3, "vaule": 4}])")),
             test::contains("x.components[0].vaule: unknown key (did you mean value?)"));
  // The old flat form, a distribution object plus "weight", is refused by name.
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "dist": "fixed", "value": 3}])")),
             test::contains("x.components[0].dist: unknown key"));
  CHECK_THAT(error_of(mixture(R"([{"weight": "1", "value": 3}])")),
             test::contains("x.components[0].weight: must be a number, got \"1\""));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": "3"}])")),
             test::contains("x.components[0].value: must be a number or a distribution object {\"dist\": ...}, got "
                            "\"3\""));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"unknown": "no trial run yet"}}])")),
             test::contains("x.components[0].value.unknown: a mixture component cannot be unknown"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"dist": "mixture", "components": []}}])")),
             test::contains("x.components[0].value.dist: a mixture component cannot be a mixture"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"dist": "fixed", "value": 3, "source": "measured"}}])")),
             test::contains("x.components[0].value.source: a component carries no provenance"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"dist": "uniform", "lo": 1, "hi": 2, "note": "n"}}])")),
             test::contains("x.components[0].value.note: a component carries no provenance"));
  // The value's own rules, at its path.
  CHECK_THAT(error_of(mixture(R"([{"weight": 0.5, "value": 3}, {"weight": 0.5, "value": {"dist": "lognormal",
                                  "p50": 5, "p90": 4}}])"),
                      path),
             test::contains("throughput.step_time_s.components[1].value: lognormal needs 0 < p50 < p90, got p50=5, "
                            "p90=4"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"dist": "uniform", "lo": 1, "hgh": 2}}])")),
             test::contains("x.components[0].value.hgh: unknown key for a uniform distribution (did you mean hi?)"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"dist": "normal", "mean": 0, "sd": -1}}])")),
             test::contains("x.components[0].value.sd: must be > 0, got -1"));
  CHECK_THAT(error_of(mixture(R"([{"weight": 1, "value": {"lo": 1, "hi": 2}}])")),
             test::contains("x.components[0].value: a distribution object needs \"dist\""));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "mixture"})")),
             test::contains("x: mixture needs \"components\""));
  CHECK_THAT(error_of(ordered_json::parse(R"({"dist": "mixture", "components": [], "weight": 1})")),
             test::contains("x.weight: unknown key for a mixture distribution"));
}

TEST_CASE("a mixture's fixed component is written as a bare number", "[json][mixture]") {
  // Written either way, a fixed value saves as the number, and the saved form loads back the same.
  const auto q = quantity_from_json(ordered_json::parse(R"({"dist": "mixture", "components": [
    {"weight": 0.8, "value": {"dist": "fixed", "value": 1}}, {"weight": 0.2, "value": 1.3}]})"),
                                    "x");
  const auto saved = ordered_json::parse(R"({"dist": "mixture", "components": [{"weight": 0.8, "value": 1},
                                                                                {"weight": 0.2, "value": 1.3}]})");
  CHECK(quantity_to_json(q) == saved);
  CHECK(quantity_to_json(quantity_from_json(saved, "x")) == saved);
  CHECK(q.ppf(0.8) == 1.0);
  CHECK(q.ppf(0.85) == 1.3);
  // From the C++ factory too.
  CHECK(quantity_to_json(make_mixture({{0.8, make_fixed(1)}, {0.2, make_fixed(1.3)}})) == saved);
}

TEST_CASE("a mixture's whole support must keep its field's rule", "[json][mixture]") {
  const std::string lognormal = R"({"weight": 0.8, "value": {"dist": "lognormal", "p50": 3.65, "p90": 5.11}})";
  const auto with = [&](const std::string& second) {
    return test::scenario_error(test::edge_head +
                                R"("throughput": {"step_time_s": {"dist": "mixture", "components": [)" + lognormal +
                                ", " + second + "]}}}");
  };
  CHECK(with(R"({"weight": 0.2, "value": 4.4})") == "no error");
  CHECK(with(R"({"weight": 0.2, "value": {"dist": "fixed", "value": 4.4}})") == "no error");
  // A lognormal starts at 0 but never draws it; an atom at 0 would (a step time of 0).
  CHECK_THAT(with(R"({"weight": 0.2, "value": 0})"),
             test::contains("throughput.step_time_s: must be > 0, got {\"dist\":\"mixture\""));
  CHECK_THAT(with(R"({"weight": 0.2, "value": {"dist": "normal", "mean": 4, "sd": 1}})"),
             test::contains("throughput.step_time_s: must be > 0, but {\"dist\":\"mixture\""));
  // The component's rules in a scenario file, at the field's path.
  CHECK_THAT(with(R"({"weight": 0.2, "value": {"dist": "fixed", "value": 4.4, "source": "measured"}})"),
             test::contains("throughput.step_time_s.components[1].value.source: a component carries no provenance"));
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("quote dates must be real calendar days, JSON numbers beyond double range are refused", "[edge]") {
  CHECK_THAT(
      test::scenario_error(
          test::edge_head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": {"dist": "fixed", "value": 3, )"
                      R"("source": "quote", "date": "2026-02-30"}}})"),
      test::contains("prices.node_hour_usd.date: must be an ISO date YYYY-MM-DD, got \"2026-02-30\""));
  CHECK(test::scenario_error(
            test::edge_head +
            R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": {"dist": "fixed", "value": 3, )"
            R"("source": "quote", "date": "2028-02-29"}}})") == "no error");
  CHECK_THAT(test::scenario_error(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e400}})"),
             test::contains("job.effective_steps: JSON number overflow parsing '1e400' at line 1, column"));
}

}  // namespace test_quantity_json
