// The Saltelli design (sensitivity/saltelli.hpp): which sample each matrix row and factor takes
// its uniforms from, and the design's matrix A being the ordinary run's even samples.
#include <cmath>
#include <cstdint>
#include <string>

#include "catch.hpp"
#include "same_bits.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/sensitivity/saltelli.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_saltelli {

using namespace trnmodel::sensitivity;

namespace {
run_options runs(std::uint64_t samples, std::uint64_t seed) {
  run_options options;
  options.samples = samples;
  options.seed = seed;
  return options;
}
}  // namespace

TEST_CASE("the design is A = sample 2j, B = sample 2j+1, AB_i = A with factor i from B", "[sensitivity][saltelli]") {
  CHECK(design_sample(5, row_a, 0) == 10);
  CHECK(design_sample(5, row_b, 1) == 11);
  CHECK(design_sample(5, row_ab(1), 1) == 11);
  CHECK(design_sample(5, row_ab(1), 0) == 10);
}

TEST_CASE("matrix A of a scenario's design is the ordinary run's even samples", "[sensitivity][saltelli]") {
  // The evaluate hook with each row's own draws and chance index is the ordinary run; the
  // design only chooses which sample's uniforms each factor takes.
  const scenario s = scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-trn2.json");
  const lifecycle_model model(s);
  const run_result r = simulate(s, runs(64, 5));
  Eigen::ArrayXXd x(32, static_cast<Eigen::Index>(model.input_count()));
  for (Eigen::Index j = 0; j < 32; ++j)
    for (std::size_t k = 0; k < model.input_count(); ++k)
      x(j, static_cast<Eigen::Index>(k)) =
          trnmodel::detail::uniform(5, design_sample(static_cast<std::uint64_t>(j), row_a, k), model.input_stream(k));
  model.to_values(x);
  Eigen::ArrayXXd out(32, static_cast<Eigen::Index>(metric::count));
  const std::size_t chance = model.input_count();  // the last factor
  model.evaluate(
      5, x, [&](Eigen::Index j) { return design_sample(static_cast<std::uint64_t>(j), row_a, chance); }, out);
  for (Eigen::Index j = 0; j < 32; ++j)
    for (Eigen::Index m = 0; m < static_cast<Eigen::Index>(metric::count); ++m)
      if (!std::isnan(r.values()(2 * j, m))) CHECK(test::same_bits(out(j, m), r.values()(2 * j, m)));
}

}  // namespace test_saltelli
