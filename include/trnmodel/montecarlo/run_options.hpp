#pragma once
// How a Monte Carlo run is made (docs/montecarlo.md, docs/cpp.md): a plain struct of the
// standard library only, shared by the header-only engine and the compiled embedding
// (<trnmodel/embed.hpp>).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace trnmodel {

/// Samples per block of simulate, compare, break-even, sweep and run(), in C++ and in Python.
inline constexpr std::ptrdiff_t default_block_size = 4096;
/// Samples per block of monte_carlo, in C++ and in Python (tm.monte_carlo): larger, because a
/// Python function pays its call overhead once per block.
inline constexpr std::ptrdiff_t function_block_size = 16384;

/// How a run is made. The block size is part of the result's definition (statistics merge
/// block by block), so a call gives the same bits in both languages only with the same block
/// size: 0 (the default) takes the call's own default, the one Python's call takes too.
///
/// Thread-safety: a plain value. The hooks are called on the thread that started the run,
/// between waves of blocks, never concurrently with each other. Ownership: copies share only
/// what the hooks capture, which must outlive the run.
struct run_options {
  std::uint64_t samples = 10'000;  ///< samples to draw (≥ 1)
  std::uint64_t seed = 0;  ///< with the sample index, determines every draw
  int threads = 0;  ///< 0: all cores; any count gives the same bits
  bool keep_samples = true;  ///< keep every sample (exact quantiles); false: flat memory
  std::ptrdiff_t block_size = 0;  ///< samples per block; 0: the call's default
  double relative_accuracy = 1e-3;  ///< of histogram quantiles when samples are not kept
  /// Called with (samples done, total) between waves of blocks.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  /// Polled between waves of blocks: return true to stop; the run then throws cancelled_error.
  std::function<bool()> cancelled;
  /// Where the run is computed, when set (a run split across processes, docs/scaling.md):
  /// called with the run's request (all another process needs to compute any range of its
  /// blocks), its number of blocks and whether it keeps samples, it must hand the partial bytes
  /// of every range, in block order, to `fold`. A model that cannot describe itself (a Python
  /// function's, a plan's) ignores it and runs here.
  std::function<void(const std::string& request, std::uint64_t blocks, bool keep_samples,
                     const std::function<void(const std::string& partial)>& fold)>
      remote;
};

/// `options` with block_size 0 replaced by `fallback`.
inline run_options with_block_size(run_options options, std::ptrdiff_t fallback = default_block_size) {
  if (options.block_size == 0) options.block_size = fallback;
  return options;
}

}  // namespace trnmodel
