// Embeds trnmodel as another C++ tool would: a quantity from JSON, a Monte Carlo run of a
// C++ functor, a check of the answer against its closed form. Exit code 0 only if it holds.
#include <cmath>
#include <iostream>

#include <trnmodel/trnmodel.hpp>

int main() {
  using namespace trnmodel;
  const auto step_s = quantity_from_json(json::parse(R"({"dist": "lognormal", "p50": 2, "p90": 3})"), "step_time_s");
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
  const double expected_mean = 1000 * step_s.mean() / 3600;
  const double expected_p50 = 1000 * 2.0 / 3600;
  std::cout << "trnmodel " << TRNMODEL_VERSION_STRING << " consumer: train_h mean " << row.mean << " (expected "
            << expected_mean << "), p50 " << row.p50 << " (expected " << expected_p50 << ")\n";
  const double standard_error = row.sd / std::sqrt(double(options.samples));
  const bool ok = std::abs(row.mean - expected_mean) < 5 * standard_error &&
                  std::abs(row.p50 / expected_p50 - 1) < 0.01;
  std::cout << (ok ? "1 passed, 0 failed" : "0 passed, 1 failed") << "\n";
  return ok ? 0 : 1;
}
