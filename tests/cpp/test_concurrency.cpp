// Concurrency (reliability issue): simulate called from several threads at once gives the
// results of a sequential call, bit for bit; a cancelled run leaves nothing half-done behind.
// These tests and the engine's and lifecycle's are the ones `make test-tsan` runs under
// ThreadSanitizer.
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "trnmodel/lifecycle/simulate.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_concurrency {

namespace {

// Gamma and beta inputs build their quantile tables lazily on first use: shared by every copy
// of the scenario, so concurrent first uses race unless the build is guarded.
scenario shared_scenario() {
  return scenario::from_text(
      R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 20000}, "cluster": {"nodes": 8},
    "throughput": {"step_time_s": {"dist": "gamma", "shape": 9, "scale": 0.2},
    "data_stall_fraction": {"dist": "beta", "a": 2, "b": 30, "hi": 0.5}},
    "checkpoint": {"every_steps": 500, "save_s": {"dist": "pert", "lo": 5, "mode": 15, "hi": 60}},
    "compile": {"initial_s": 1800, "recompile_s": 1800, "cache_load_s": 120, "cache_hit_prob": 0.8},
    "failures": {"node_mtbf_h": {"dist": "lognormal", "p50": 2000, "p90": 6000}, "restart_s": 600},
    "quality": {"rerun_prob": 0.2, "rerun_fraction": 0.1},
    "prices": {"node_hour_usd": {"dist": "uniform", "lo": 30, "hi": 45}}})");
}

run_options options_for(int threads, bool keep) {
  run_options options;
  options.samples = 30'001;
  options.seed = 11;
  options.threads = threads;
  options.keep_samples = keep;
  return options;
}

bool same(const run_result& a, const run_result& b) {
  if (a.kept() != b.kept() || a.values().rows() != b.values().rows()) return false;
  if (a.kept() && !((a.values() == b.values()) || (a.values().isNaN() && b.values().isNaN())).all()) return false;
  for (std::size_t k = 0; k < a.names().size(); ++k) {
    const moments &x = a.stats(k), &y = b.stats(k);
    if (x.count != y.count || x.nan_count != y.nan_count) return false;
    if (x.count && (x.mean != y.mean || x.m2 != y.m2 || x.min != y.min || x.max != y.max)) return false;
    const auto qa = a.quantiles(k, summary_probabilities()), qb = b.quantiles(k, summary_probabilities());
    for (std::size_t i = 0; i < qa.size(); ++i)
      if (!(qa[i] == qb[i] || (std::isnan(qa[i]) && std::isnan(qb[i])))) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("simulate from several threads at once equals sequential calls, bitwise", "[concurrency]") {
  for (const bool keep : {true, false}) {
    const scenario s = shared_scenario();  // fresh: its quantile tables are not built yet
    std::vector<std::thread> callers;
    std::vector<std::exception_ptr> errors(4);
    std::vector<std::optional<run_result>> results(4);
    for (int t = 0; t < 4; ++t) {
      callers.emplace_back([&, t] {
        try {
          results[static_cast<std::size_t>(t)] = simulate(s, options_for(1 + t % 2, keep));  // nested arenas too
        } catch (...) {
          errors[static_cast<std::size_t>(t)] = std::current_exception();
        }
      });
    }
    for (auto& c : callers) c.join();
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    const run_result sequential = simulate(shared_scenario(), options_for(1, keep));
    for (const auto& r : results) {
      INFO("keep " << keep);
      REQUIRE(r.has_value());
      CHECK(same(*r, sequential));
    }
  }
}

TEST_CASE("a cancelled run leaves nothing half-done and runs beside it are unaffected", "[concurrency]") {
  const scenario s = shared_scenario();
  const run_result before = simulate(s, options_for(2, true));

  std::optional<run_result> beside;
  std::thread other([&] { beside = simulate(s, options_for(2, true)); });
  run_options cancelled = options_for(2, true);
  cancelled.samples = 10'000'000;  // minutes of work if nothing stopped it
  int polls = 0;
  cancelled.cancelled = [&] { return ++polls > 3; };
  CHECK_THROWS_AS(simulate(s, cancelled), cancelled_error);
  CHECK(polls == 4);
  other.join();

  // The scenario and its lazily built tables are intact: the same call gives the same numbers.
  REQUIRE(beside.has_value());
  CHECK(same(*beside, before));
  CHECK(same(simulate(s, options_for(2, true)), before));
}

}  // namespace test_concurrency
