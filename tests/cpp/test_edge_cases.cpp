// Edge cases found in review: each once hung, crashed or returned a silently wrong number.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "scenario_errors.hpp"
#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/detail/series_file.hpp"
#include "trnmodel/lifecycle/simulate.hpp"

using namespace trnmodel;

namespace {
std::string error_of(const std::string& text) { return test::scenario_error(text); }
const std::string head = R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 5400}, "cluster": {"nodes": 1},)";
}  // namespace

TEST_CASE("zero or tiny rates are refused at load time", "[edge]") {
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "failures": {"node_mtbf_h": 1, "distribution": "weibull", "weibull_shape": 0}})"),
             test::contains("failures.weibull_shape: must be ≥ 0.1, got 0"));
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 0}})"), test::contains("throughput.step_time_s: must be > 0, got 0"));
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "failures": {"node_mtbf_h": 0}})"),
             test::contains("failures.node_mtbf_h: must be > 0, got 0"));
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": {"dist": "empirical", "samples": [0, 1, 2]}}})"),
             test::contains("which can be 0"));
}

TEST_CASE("Weibull failures that leave no chance to finish are refused, not looped on", "[edge]") {
  // A 3 h segment against a 1 h mean time between failures, shape 3: e^{(D/scale)^k} attempts.
  const auto s = scenario::from_text(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1},
      "failures": {"node_mtbf_h": 1, "distribution": "weibull", "weibull_shape": 3}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("would never finish"));
}

TEST_CASE("quote dates must be real calendar days; JSON numbers beyond double range are refused", "[edge]") {
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": {"dist": "fixed", "value": 3, "source": "quote", "date": "2026-02-30"}}})"),
             test::contains("prices.node_hour_usd.date: must be an ISO date YYYY-MM-DD, got \"2026-02-30\""));
  CHECK(error_of(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": {"dist": "fixed", "value": 3, "source": "quote", "date": "2028-02-29"}}})") ==
        "no error");
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e400}})"), test::contains("scenario: JSON"));
}

TEST_CASE("an unknown input the scenario never reads blocks nothing", "[edge]") {
  const auto s = scenario::from_text(head + R"("throughput": {"step_time_s": 2}, "prices": {"node_hour_usd": 1},
      "failures": {"node_mtbf_h": 1000, "weibull_shape": {"unknown": "not fitted"}},
      "reference": {"step_time_s": {"unknown": "no trial"}}})");
  run_options options;
  options.samples = 100;
  const auto r = simulate(s, options);  // no UnknownInputError: exponential failures, measured mode
  CHECK(std::isfinite(r.stats(metric::wall_h).mean));
}

TEST_CASE("flops mode without a profile counts the layout's chips", "[edge]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},
      "model": {"parameters": 8e9, "layers": 32, "hidden_size": 4096, "heads": 32, "sequence_length": 4096},
      "parallelism": {"tp": 8, "dp": 2, "global_batch": 64},
      "throughput": {"mode": "flops", "achieved_tflops_per_chip": 200}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 2;
  const auto r = simulate(s, options);
  const double flops = 6 * 8e9 + 12 * 32 * 4096.0 * 4096;
  CHECK_THAT(r.values()(0, metric::step_time_s), Catch::Matchers::WithinRel(64 * 4096 * flops / (16 * 200e12), 1e-12));
}

TEST_CASE("infinite outputs keep their place in the order", "[edge]") {
  log_histogram h(1e-3);
  for (const double x : {1.0, 2.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 3.0})
    h.add(x);
  CHECK(h.count() == 5);
  CHECK(h.at_rank(0) == -std::numeric_limits<double>::infinity());
  CHECK(h.at_rank(4) == std::numeric_limits<double>::infinity());
  CHECK(h.quantile(1.0) == std::numeric_limits<double>::infinity());
  CHECK_THAT(h.quantile(0.5), Catch::Matchers::WithinRel(2.0, 1e-3));
}

TEST_CASE("truncated normal keeps its upper tail accurate with only a lower bound", "[edge]") {
  const auto q = make_normal(2, 1, 0);
  const double u = 1 - 1e-12;
  const double x = q.ppf(u);
  CHECK(std::isfinite(q.ppf(1 - std::ldexp(1.0, -53))));
  // Upper-tail probability of x, relative to the truncated mass, equals 1 - u.
  const double sf = 0.5 * std::erfc((x - 2) / std::sqrt(2.0)) / (0.5 * std::erfc(-2 / std::sqrt(2.0)));
  CHECK_THAT(sf, Catch::Matchers::WithinRel(1 - u, 1e-6));  // 1 - u is exact in double
}

TEST_CASE("deeply nested JSON is refused, not a stack overflow", "[edge][adversarial]") {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "name": )" + deep + "}"),
             test::contains("scenario: JSON nested more than 64 levels deep"));
  CHECK_THROWS_WITH(calibrate::journal::from_text(R"({"schema": )" + deep + "}"), test::contains("journal: JSON nested more than 64 levels deep"));
  // The limit leaves room: 64 levels reach the field's own rule.
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "name": )" + std::string(63, '[') + std::string(63, ']') + "}"),
             test::contains("name: must be a string"));
  // A document built in memory (an embedder's, or a dict from Python) is checked without recursion.
  json doc = json::parse(head + R"("throughput": {"step_time_s": 2}})");
  json* inner = &doc["description"];
  for (int i = 0; i < 100'000; ++i) {
    *inner = json::array({nullptr});
    inner = &(*inner)[0];
  }
  CHECK_THROWS_WITH(scenario::from_json(doc), test::contains("scenario: JSON nested more than 64 levels deep"));
}

TEST_CASE("10^18 steps: the exact answer without failures, a refusal saying why with them", "[edge][adversarial]") {
  const auto started = std::chrono::steady_clock::now();
  const std::string job = R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e18}, "cluster": {"nodes": 1000},
      "throughput": {"step_time_s": 2}, "checkpoint": {"every_steps": 3, "save_s": 1}, "prices": {"node_hour_usd": 1})";
  run_options options;
  options.samples = 1000;
  const auto r = simulate(scenario::from_text(job + "}"), options);
  CHECK_THAT(r.values()(0, metric::useful_h), Catch::Matchers::WithinRel(2e18 / 3600, 1e-12));
  CHECK_THAT(r.values()(0, metric::checkpoint_h), Catch::Matchers::WithinRel(std::ceil(1e18 / 3) / 3600, 1e-12));
  CHECK_THAT(r.values()(999, metric::wall_h), Catch::Matchers::WithinRel((2e18 + std::ceil(1e18 / 3)) / 3600, 1e-12));
  // Each 7 s segment is finishable against a failure every 3.6 s, but 3.3e17 of them are not.
  CHECK_THROWS_WITH(simulate(scenario::from_text(job + R"(, "failures": {"node_mtbf_h": 1}})"), options),
                    test::contains("failures.node_mtbf_h: with 1000 nodes and a node MTBF of 1 h, the job fails every 0.001 h; "
                                   "its 3.33e+17 segments of 0.00194 h expect about 5.99 failures each, about 2e+18 in all, "
                                   "more than the 1e+07 a sample may simulate") &&
                        test::contains("check job.effective_steps and the failure inputs"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
}

TEST_CASE("a wall time beyond the largest double is refused, not reported as inf", "[edge][adversarial]") {
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1e300}, "cluster": {"nodes": 1},
      "throughput": {"step_time_s": 1e10}, "prices": {"node_hour_usd": 1}})");
  run_options options;
  options.samples = 10;
  CHECK_THROWS_WITH(simulate(s, options), test::contains("scenario: a sample's wall time is beyond the largest number"));
}

TEST_CASE("a .npy shape whose byte count wraps around is refused", "[edge][adversarial]") {
  const auto npy = [](const std::string& shape) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + shape + ",), }";
    header.resize(118, ' ');
    header += '\n';
    return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header +
           std::string(8, '\0');
  };
  CHECK(detail::read_npy_vector(npy("1"), "f.npy") == std::vector<double>{0.0});
  // 2^61 + 1 values of 8 bytes "need" 8 bytes once the product wraps around 2^64.
  CHECK_THROWS_WITH(detail::read_npy_vector(npy("2305843009213693953"), "f.npy"),
                    test::contains("f.npy: the .npy file holds 8 data bytes, expected more than 10^18 for 2305843009213693953 values"));
  CHECK_THROWS_WITH(detail::read_npy_vector(npy("123456789012345678901234567890"), "f.npy"),
                    test::contains("holds 8 data bytes, expected more than 10^18 for 123456789012345678901234567890 values"));
  CHECK_THROWS_WITH(detail::read_npy_vector(npy("2"), "f.npy"), test::contains("holds 8 data bytes, expected 16 for 2 values"));
  // A header of a million digits is refused before std::regex could recurse over it.
  std::string long_header = npy("1");
  long_header.insert(long_header.find("(1") + 1, 1'000'000, '0');
  long_header[8] = '\xff';
  long_header[9] = '\xff';
  CHECK_THROWS_WITH(detail::read_npy_vector(long_header, "f.npy"), test::contains("f.npy: the .npy header is 65535 bytes"));
}

TEST_CASE("a megabyte checksum in a journal is checked without recursion", "[edge][adversarial]") {
  std::ifstream in(std::string(TRNMODEL_SOURCE_DIR) + "/examples/journals/llama3-8b-lora-trn2-trial-001.json");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string original = text.str(), digest = "sha256:f5b31ceefe47a169205408a3f05effe5a695062475837e0e24ee25acbb142e00";
  const auto with_checksum = [&](const std::string& checksum) {
    std::string changed = original;
    return changed.replace(changed.find(digest), digest.size(), checksum);
  };
  const std::string directory = std::string(TRNMODEL_SOURCE_DIR) + "/examples/journals";
  CHECK(calibrate::journal::from_text(with_checksum("sha256:" + std::string(1'000'000, 'a')), directory).checkpoints[0].checksum.size() ==
        1'000'007);
  CHECK_THROWS_WITH(calibrate::journal::from_text(with_checksum("sha256:" + std::string(1'000'000, 'a') + "!"), directory),
                    test::contains("checkpoints[0].checksum: must be algorithm:digest"));
  CHECK_THROWS_WITH(calibrate::journal::from_text(with_checksum("SHA256:ab"), directory), test::contains("must be algorithm:digest"));
  CHECK_THROWS_WITH(calibrate::journal::from_text(with_checksum("sha256:"), directory), test::contains("must be algorithm:digest"));
}

TEST_CASE("gamma and beta shapes outside what double precision can follow are refused", "[edge][adversarial]") {
  // Found by fuzz_quantity: gamma shape 8e55 gave a decreasing ppf; shapes below 1e-3 threw
  // std::domain_error from the table; beta(1e20, 1e20) never finished.
  CHECK_THROWS_WITH(make_gamma(8.4e55, 2, "x"), test::contains("x.shape: must be in [0.01, 1e10]") && test::contains("got 8.4e+55"));
  CHECK_THROWS_WITH(make_gamma(1e-5, 2, "x"), test::contains("x.shape: must be in [0.01, 1e10]"));
  CHECK_THROWS_WITH(make_beta(1e20, 1e20, 0, 1, "x"), test::contains("x.a: must be in [0.01, 1e10]"));
  CHECK_THROWS_WITH(make_beta(2, 1e-4, 0, 1, "x"), test::contains("x.b: must be in [0.01, 1e10]"));
  std::vector<double> u;
  for (int k = 60; k >= 1; --k) u.push_back(std::ldexp(1.0, -k));
  for (int i = 1; i < 1000; ++i) u.push_back(i / 1000.0);
  for (int k = 1; k <= 53; ++k) u.push_back(1 - std::ldexp(1.0, -k));
  std::sort(u.begin(), u.end());
  for (const auto& q : {make_gamma(0.01, 1), make_gamma(1e10, 1), make_beta(0.01, 0.01), make_beta(0.01, 1e10), make_beta(1e10, 1e10),
                        make_beta(1e10, 0.01)}) {
    std::vector<double> x(u.size());
    q.ppf(u.data(), x.data(), u.size());
    const auto [lo, hi] = q.support();
    INFO(detail::describe_json(quantity_to_json(q)));
    CHECK(std::is_sorted(x.begin(), x.end()));
    CHECK((x.front() >= lo && x.back() <= hi));
  }
}

TEST_CASE("messages are cut at a character boundary; triangular draws stay in the support", "[edge][adversarial]") {
  // Found by the property tests: a message cut inside "é" was not UTF-8, and Python failed to
  // decode it (UnicodeDecodeError instead of ScenarioError).
  CHECK(shorten("a\xc3\xa9" "a\xc3\xa9" "a\xc3\xa9", 6) == "a\xc3\xa9...");
  CHECK(shorten("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 6) == "\xc3\xa9...");
  CHECK(shorten("short", 6) == "short");
  CHECK_THAT(error_of(head + R"("throughput": {"step_time_s": 2}, "name": [")" + std::string(100, 'x') + "\"]}"),
             test::contains("name: must be a string, got [\"xxx") && test::contains("x..."));
  // A NUL in a key would end what() there: control characters are written out.
  CHECK_THAT(error_of(R"({"schema": "trnmodel.scenario/1", "a\u0000b\n": 1})"), test::contains("a\\u0000b\\u000a: unknown key"));
  // hi − √((1 − u)·…) rounds to 0 below lo = 9e-275 for u = 2^-60.
  const auto q = make_triangular(8.952378074998726e-275, 8.952378074998726e-275, 1);
  CHECK(q.ppf(std::ldexp(1.0, -60)) == 8.952378074998726e-275);
}

TEST_CASE("the mean of equal measured values is that value", "[edge][adversarial]") {
  CHECK(make_empirical({1e-5, 1e-5, 1e-5}).mean() == 1e-5);  // the sum rounded 3e-16 above
}

TEST_CASE("beta's far tails follow the leading term where Boost's inverse loses accuracy", "[edge][adversarial]") {
  // Found by fuzz_quantity: beta(0.5, 2) at u = 2^-28 gave 9e-24 (and a decreasing ppf); the
  // quantile there is (a B(a, b) u)^(1/a) = 6.17e-18 to double precision.
  const auto q = make_beta(0.5, 2);
  const double log_beta = std::lgamma(0.5) + std::lgamma(2.0) - std::lgamma(2.5);
  for (const int k : {28, 30, 34, 40, 60}) {
    const double u = std::ldexp(1.0, -k);
    CHECK_THAT(q.ppf(u), Catch::Matchers::WithinRel(std::exp(2 * (std::log(0.5 * u) + log_beta)), 1e-12));
  }
}
