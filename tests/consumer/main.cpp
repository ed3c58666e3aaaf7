// Embeds trnmodel as another C++ tool would, through the installed package and its one
// umbrella header: a Monte Carlo run of a C++ functor checked against its closed form, a
// bundled scenario simulated (its phases must add up to the wall time in every sample), and
// trial-run journals calibrated into it, and the two what-if searches of docs/cpp.md (the
// checkpoint interval and the layout search), whose numbers it prints as "key value" lines
// (%.17g) for tests/consumer/check_pricer.py to compare bitwise with Python's. Exit code 0 only
// if every check holds.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <trnmodel/sensitivity/checkpoint_interval.hpp>
#include <trnmodel/sensitivity/parallelism_search.hpp>
#include <trnmodel/trnmodel.hpp>

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
  std::cout << "# " << (ok ? "  ok: " : "  FAILED: ") << what << "\n";
  (ok ? passed : failed) += 1;
}

// A number for the bitwise comparison with Python.
void print(const std::string& key, double value) { std::printf("%s %.17g\n", key.c_str(), value); }

}  // namespace

int main() {
  using namespace trnmodel;
  const std::string examples = TRNMODEL_EXAMPLES_DIR;

  const auto step_s =
      quantity_from_json(ordered_json::parse(R"({"dist": "lognormal", "p50": 2, "p90": 3})"), "step_time_s");
  const input_set inputs({{"steps", make_fixed(1000)}, {"step_time_s", step_s}});
  run_options options;
  options.samples = 200'000;
  options.seed = 1;
  options.keep_samples = false;
  const auto hours = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) {
    y.col(0) = x.col(0) * x.col(1) / 3600;
  };
  const auto result = monte_carlo(inputs, hours, {"train_h"}, options);
  const auto row = result.summary().at(0);
  const double expected_mean = 1000 * step_s.mean() / 3600, expected_p50 = 1000 * 2.0 / 3600;
  std::cout << "# trnmodel " << TRNMODEL_VERSION_STRING << " consumer: train_h mean " << row.mean << " (expected "
            << expected_mean << "), p50 " << row.p50 << " (expected " << expected_p50 << ")\n";
  check(std::abs(row.mean - expected_mean) < 5 * row.sd / std::sqrt(double(options.samples)) &&
            std::abs(row.p50 / expected_p50 - 1) < 0.01,
        "Monte Carlo mean and median of a functor match the closed form");

  const scenario lora = scenario::from_file(examples + "/llama3-8b-lora-trn2.json");
  run_options kept;
  kept.samples = 20'000;
  kept.seed = 2;
  const run_result run = simulate(lora, kept);
  double worst = 0;
  for (Eigen::Index i = 0; i < run.values().rows(); ++i) {
    double phases = 0;
    for (const auto id : phase_metrics) phases += run.values()(i, static_cast<Eigen::Index>(id));
    const double wall = run.values()(i, static_cast<Eigen::Index>(metric::wall_h));
    worst = std::max(worst, std::abs(phases - wall) / wall);
  }
  check(worst < 1e-12,
        "the phases of every simulated sample add up to wall_h (worst relative gap " + std::to_string(worst) + ")");

  std::vector<calibrate::journal> journals;
  for (int k = 1; k <= 3; ++k)
    journals.push_back(calibrate::journal::from_file(examples + "/journals/llama3-8b-lora-trn2-trial-00" +
                                                     std::to_string(k) + ".json"));
  const auto calibrated = calibrate::calibrate(journals, lora);
  check(calibrated.calibrated.q("throughput.step_time_s").prov().source == "measured",
        "calibration from three journals tags the step time as measured");

  // docs/cpp.md's checkpoint interval: the P90 wall time's optimum beside Young's and Daly's.
  using namespace trnmodel::sensitivity;
  run_options what_if;
  what_if.samples = 5'000;
  what_if.seed = 3;
  checkpoint_interval_options ci;
  ci.stat = statistic::quantile(0.9);
  const checkpoint_interval_result best = checkpoint_interval(lora, what_if, ci);
  print("checkpoint_interval.best_steps", static_cast<double>(best.best_steps));
  print("checkpoint_interval.young_steps", static_cast<double>(best.young_steps));
  print("checkpoint_interval.daly_steps", static_cast<double>(best.daly_steps));
  print("checkpoint_interval.best_value", best.value_at(best.best_steps));
  print("checkpoint_interval.daly_value", best.value_at(best.daly_steps));
  check(best.value_at(best.best_steps) <= best.value_at(best.daly_steps),
        "the simulated optimum is no worse than Daly's interval");

  // docs/cpp.md's layout search, on the pricer's job (its step time derived from FLOPs) with
  // Llama-3-8B's 32 layers, which pipeline parallelism divides.
  const scenario flops =
      scenario::from_file(examples + "/llama3-8b-lora-trn2.json", shipped_profiles())
          .updated({{"throughput.mode", "flops"},
                    {"throughput.step_time_s", nullptr},
                    {"throughput.model_flops_utilization",
                     ordered_json::parse(R"({"dist": "pert", "lo": 0.17, "mode": 0.25, "hi": 0.37})")},
                    {"model.parameters", 8.03e9},
                    {"model.layers", 32},
                    {"model.sequence_length", 4096},
                    {"parallelism.global_batch", 64},
                    {"parallelism.dp", 16}});
  parallelism_search_options search;
  search.micro_batches = {1, 2};
  what_if.samples = 500;
  const parallelism_search_result layouts = search_parallelism(flops, what_if, search);
  std::size_t fitting = 0;
  for (const auto& c : layouts.layouts) fitting += c.fits ? 1 : 0;
  const layout_candidate& first = layouts.layouts[layouts.ranked().front()];
  print("search.layouts", static_cast<double>(layouts.layouts.size()));
  print("search.fitting", static_cast<double>(fitting));
  print("search.best.tp", static_cast<double>(first.values[0]));
  print("search.best.cp", static_cast<double>(first.values[1]));
  print("search.best.pp", static_cast<double>(first.values[2]));
  print("search.best.dp", static_cast<double>(first.dp));
  print("search.best.micro_batch", static_cast<double>(first.micro_batch));
  print("search.best.run_cost_usd", first.run_cost_usd);
  print("search.best.step_time_s", first.step_time_s);
  check(first.fits && fitting > 1, "the search ranks several fitting layouts, the cheapest first");

  // A dimension is data: cp 1 or 2, although 4,096 tokens are too short for the default rule.
  search.dimensions = default_layout_dimensions(flops);
  search.dimensions[1].values = {1, 2};
  const parallelism_search_result with_cp = search_parallelism(flops, what_if, search);
  std::size_t cp2 = 0;
  for (const auto& c : with_cp.layouts) cp2 += c.values[1] == 2 ? 1 : 0;
  check(with_cp.dimension_names[1] == "cp" && cp2 > 0 && with_cp.layouts.size() > layouts.layouts.size(),
        "a search dimension's values can be set: " + std::to_string(cp2) + " layouts with cp 2");

  std::cout << "# " << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
