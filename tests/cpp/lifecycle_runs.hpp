#pragma once
// Scenarios and runs the lifecycle tests share (test_simulator.cpp, test_simulate.cpp): a
// scenario from its text, a simulate run with the samples kept, a metric's mean and standard
// error, and Daly's checkpoint/restart setting.
#include <cmath>
#include <cstdint>
#include <string>

#include "trnmodel/lifecycle/simulate.hpp"

namespace test {
using trnmodel::run_result;
using trnmodel::scenario;

inline scenario make(const std::string& text) { return scenario::from_text(text); }

inline run_result run_scenario(const scenario& s, std::uint64_t samples, std::uint64_t seed = 1, int threads = 0) {
  trnmodel::run_options options;
  options.samples = samples;
  options.seed = seed;
  options.threads = threads;
  return simulate(s, options, true);
}

inline double col_mean(const run_result& r, trnmodel::metric::id m) { return r.stats(m).mean; }
inline double col_se(const run_result& r, trnmodel::metric::id m) { return r.stats(m).sd() / std::sqrt(double(r.samples())); }

// Daly's setting: one node, constant inputs, exponential failures; segments of one step of
// tau seconds plus a save of delta seconds; recovery R = restart.
inline scenario daly_scenario(double mtbf_h, double delta_s, double restart_s, double solve_h, double tau_s,
                       bool interruptible) {
  const double steps = solve_h * 3600 / tau_s;
  return make(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": )" +
              trnmodel::detail::format_number(steps) + R"(},
    "cluster": {"nodes": 1},
    "throughput": {"step_time_s": )" +
              trnmodel::detail::format_number(tau_s) + R"(},
    "checkpoint": {"every_steps": 1, "save_s": )" +
              trnmodel::detail::format_number(delta_s) + R"(},
    "failures": {"node_mtbf_h": )" +
              trnmodel::detail::format_number(mtbf_h) + R"(, "restart_s": )" + trnmodel::detail::format_number(restart_s) +
              R"(, "during_recovery": )" + (interruptible ? "true" : "false") + R"(},
    "prices": {"node_hour_usd": 1}})");
}

}  // namespace test
