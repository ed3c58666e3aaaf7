// uniform_column is the one way to draw many uniforms at once: it must give uniform()'s
// numbers exactly, for any first sample, stride and draw.
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/random/uniform_column.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_uniform_column {

TEST_CASE("a column of uniforms is uniform() of each of its samples", "[random]") {
  for (const std::uint64_t stride : {1ull, 2ull, 7ull})
    for (const std::uint32_t draw : {0u, 1u, 6u}) {
      const std::uint64_t first = (std::uint64_t{1} << 32) - 3;  // crosses the counter's 32-bit word
      std::vector<double> x(101, -1);
      uniform_column(42, 9, draw, first, stride, 100, x.data());
      INFO("stride " << stride << " draw " << draw);
      for (std::size_t i = 0; i < 100; ++i) CHECK(x[i] == detail::uniform(42, first + i * stride, 9, draw));
      CHECK(x[100] == -1);  // exactly n written
    }
  double untouched = -1;
  uniform_column(1, 2, 0, 0, 1, 0, &untouched);
  CHECK(untouched == -1);
}

TEST_CASE("a block's uniforms are the column of its samples", "[random]") {
  block_view block;
  block.seed = 5;
  block.first = 8192;
  block.size = 37;
  std::vector<double> x(37), y(37);
  block.uniforms(3, x.data(), 2);
  uniform_column(5, 3, 2, 8192, 1, 37, y.data());
  CHECK(x == y);
  CHECK(block.uniform(36, 3, 2) == detail::uniform(5, 8192 + 36, 3, 2));
}

}  // namespace test_uniform_column
