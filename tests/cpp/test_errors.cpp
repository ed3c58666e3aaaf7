// Every error an input_error with a path: distributions built directly (not by make_*), a
// profile figure that does not exist, and a measured job's platform that names no profile.
#include <cmath>
#include <limits>
#include <string>

#include "catch.hpp"
#include "input_error_of.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/scenario/completeness.hpp"
#include "trnmodel/throughput/profile_files.hpp"

using namespace trnmodel;

using test::input_error_of;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_errors {

TEST_CASE("a family built directly is checked with its parameter and rule") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(input_error_of([] { quantity(dist::pert(5, 1, 3)); }) ==
        "pert: pert needs lo ≤ mode ≤ hi and lo < hi, got lo=5, mode=1, hi=3");
  CHECK(input_error_of([] { dist::beta(0, 2); }) == "beta.a: must be > 0, got 0");
  CHECK(input_error_of([] { dist::beta(2, 2, 1, 0); }) == "beta: beta needs lo < hi, got lo=1, hi=0");
  CHECK(input_error_of([] { dist::gamma(2, -1); }) == "gamma.scale: must be > 0, got -1");
  CHECK(input_error_of([] { dist::gamma(1e12, 1); }).rfind("gamma.shape: must be in [0.01, 1e10]", 0) == 0);
  CHECK(input_error_of([] { quantity(dist::uniform{3, 1}); }) == "uniform: uniform needs lo < hi, got lo=3, hi=1");
  CHECK(input_error_of([&] { quantity(dist::fixed{nan}); }) == "fixed.value: must be a finite number, got nan");
  CHECK(input_error_of([&] { quantity{nan}; }) == "fixed.value: must be a finite number, got nan");
  CHECK(input_error_of([&] { const quantity q = -std::numeric_limits<double>::infinity(); }) ==
        "fixed.value: must be a finite number, got -inf");
  CHECK(input_error_of([] { quantity(dist::normal{0, 0}); }) == "normal.sd: must be > 0, got 0");
  CHECK(input_error_of([] {
          quantity(dist::normal{0, 1, 40, 41});
        }).rfind("normal: normal truncation [lo, hi] holds no probability", 0) == 0);
  CHECK(input_error_of([] { quantity(dist::lognormal{0, -1}); }) == "lognormal.sigma: must be > 0, got -1");
  CHECK(input_error_of([] {
          quantity(dist::triangular{0, 2, 1});
        }) == "triangular: triangular needs lo ≤ mode ≤ hi and lo < hi, got lo=0, mode=2, hi=1");
  CHECK(input_error_of([] { quantity(dist::weibull{0, 1}); }) == "weibull.shape: must be > 0, got 0");
  CHECK(input_error_of([] { quantity(dist::exponential{-2}); }) == "exponential.mean: must be > 0, got -2");
  CHECK(input_error_of([] { quantity(dist::bernoulli{1.5}); }).rfind("bernoulli.p: ", 0) == 0);
  CHECK(input_error_of([] { quantity(dist::empirical{}); }) ==
        "empirical.samples: must hold at least one value, got none");
  CHECK(input_error_of([] {
          quantity(dist::empirical{std::make_shared<const std::vector<double>>(std::vector<double>{2, 1})});
        }) == "empirical.samples: must be sorted (make_empirical sorts them)");
  CHECK(input_error_of([] { quantity(dist::unknown{""}); }) ==
        "unknown: unknown needs a reason (why the value is not known yet), got an empty string");
  // Valid ones are what the factories make, number for number.
  CHECK(quantity(dist::pert(1, 2, 4)).mean() == make_pert(1, 2, 4).mean());
  CHECK(quantity(dist::pert(1, 2, 4)).ppf(0.3) == make_pert(1, 2, 4).ppf(0.3));
}

TEST_CASE("a profile figure that does not exist names the profile and its figures") {
  const auto profile = platform_profile::from_json(shipped_profiles().at("trn2.48xlarge"), "trn2.48xlarge");
  CHECK(profile.figure("hbm_gib_per_chip").mean() > 0);
  const std::string message = input_error_of([&] { profile.figure("hbm_gb"); });
  CHECK(message.rfind("profile trn2.48xlarge.hbm_gb: no such figure (figures: ", 0) == 0);
  CHECK(message.find("hbm_gib_per_chip") != std::string::npos);
}

TEST_CASE("a profile's list price is range-checked like its other figures, and may be unknown") {
  ordered_json doc = shipped_profiles().at("trn2.48xlarge");
  doc["price_node_hour_usd"] = 0;
  CHECK(input_error_of([&] { platform_profile::from_json(doc, "profile trn2.48xlarge"); }) ==
        "profile trn2.48xlarge.price_node_hour_usd: must be > 0 over its whole range, got 0");
  doc["price_node_hour_usd"] = ordered_json::parse(R"({"dist": "uniform", "lo": -1, "hi": 40})");
  CHECK(input_error_of([&] { platform_profile::from_json(doc, "p"); }) ==
        "p.price_node_hour_usd: must be > 0 over its whole range, got [-1, 40]");
  doc["price_node_hour_usd"] = 35.76;
  doc["intra_node_efficiency"] = 1.2;
  CHECK(input_error_of([&] { platform_profile::from_json(doc, "p"); }) ==
        "p.intra_node_efficiency: must lie in (0, 1] over its whole range, got 1.2");
  doc["intra_node_efficiency"] = 0.8;
  doc["peak_tflops_per_chip"]["bf16"] = -667;
  CHECK(input_error_of([&] { platform_profile::from_json(doc, "p"); }) ==
        "p.peak_tflops_per_chip.bf16: must be > 0 over its whole range, got -667");
  doc["peak_tflops_per_chip"]["bf16"] = 667;
  doc["price_node_hour_usd"] = ordered_json::parse(R"({"unknown": "no public price yet"})");
  CHECK(platform_profile::from_json(doc, "p").figures.at("price_node_hour_usd").is_unknown());
}

TEST_CASE("a measured job's platform that names no profile is noted with the known ones") {
  const auto job = [](const std::string& platform) {
    return scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
      "cluster": {"nodes": 1, "platform": ")" +
                                   platform + R"("}, "throughput": {"step_time_s": 1.5},
      "compile": {"initial_s": 0}})",
                               shipped_profiles());
  };
  const auto unmet = unmet_expectations(job("p5.48xlarqe"));
  REQUIRE(unmet.size() == 1);
  CHECK(unmet[0].rfind("cluster.platform \"p5.48xlarqe\" is not a known hardware profile (did you mean p5.48xlarge?) "
                       "(known: ",
                       0) == 0);
  CHECK(unmet[0].find("trn2.48xlarge") != std::string::npos);
  CHECK(unmet[0].find("only a label here") != std::string::npos);
  CHECK(unmet_expectations(job("p5.48xlarge")).empty());  // a profile
  CHECK(unmet_expectations(job("p5")).empty());  // a prefix: the plausibility check says it
  // Without profiles there is nothing to compare the name with.
  CHECK(unmet_expectations(scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
      "cluster": {"nodes": 1, "platform": "my-cluster"}, "throughput": {"step_time_s": 1.5}})"))
            .empty());
}

}  // namespace test_errors
