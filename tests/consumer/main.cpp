// Embeds trnmodel as another C++ tool would, through the installed package and its one
// umbrella header: a Monte Carlo run of a C++ functor checked against its closed form, a
// bundled scenario simulated (its phases must add up to the wall time in every sample), and
// trial-run journals calibrated into it. Exit code 0 only if every check holds.
#include <cmath>
#include <iostream>
#include <string>

#include <trnmodel/trnmodel.hpp>

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
  std::cout << (ok ? "  ok: " : "  FAILED: ") << what << "\n";
  (ok ? passed : failed) += 1;
}

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
  std::cout << "trnmodel " << TRNMODEL_VERSION_STRING << " consumer: train_h mean " << row.mean << " (expected "
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

  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
