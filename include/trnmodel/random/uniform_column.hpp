#pragma once
// A column of uniforms: the one way the library draws the uniforms of many samples at once
// (a block of an ordinary run, a column of a Saltelli design, the inputs recomputed for rank
// correlations). Keeping every column draw here means a vectorised generator changes one
// function, and the numbers stay those of uniform() by construction.
#include <cstddef>
#include <cstdint>

#include "trnmodel/random/philox.hpp"

namespace trnmodel {

// out[i] = uniform(seed, first_sample + i · sample_stride, stream, draw) for i in [0, n).
// A stride of 1 is a block of consecutive samples; 2 picks every other sample (matrix A or B
// of a Saltelli design, whose base index j takes samples 2j and 2j + 1).
inline void uniform_column(std::uint64_t seed, std::uint32_t stream, std::uint32_t draw, std::uint64_t first_sample,
                           std::uint64_t sample_stride, std::size_t n, double* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = uniform(seed, first_sample + i * sample_stride, stream, draw);
}

}  // namespace trnmodel
