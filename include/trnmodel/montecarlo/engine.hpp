#pragma once
// The Monte Carlo engine (docs/montecarlo.md). It knows nothing of training jobs: it runs any model
//   model(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out)
// that fills `out` (block.size rows, one column per output) for the samples
// [block.first, block.first + block.size), drawing whatever uniforms it needs from the
// counter-based generator through `block`. The model must be safe to call concurrently.
//
// Determinism: a sample's uniforms depend only on (seed, sample index, stream, draw);
// blocks have a fixed size; each block is evaluated into a buffer of its own, so its values
// do not depend on where the run keeps them; floating-point statistics are computed per
// block and merged in block order; histogram counts are integers, whose sums do not depend
// on order. So the results are bitwise identical for any thread count, any scheduling, and
// any split of the blocks into partials (partial.hpp) folded back in order.
//
// Blocks run in waves of a few per thread (parallel.hpp). Between waves, on the calling
// thread, the engine polls the cancellation hook, folds the wave's statistics into the
// running totals and reports progress, so memory stays flat in the sample count when samples
// are not kept.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/montecarlo/parallel.hpp"
#include "trnmodel/montecarlo/partial.hpp"
#include "trnmodel/montecarlo/run_options.hpp"
#include "trnmodel/montecarlo/run_result.hpp"
#include "trnmodel/montecarlo/scratch.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/uniform_column.hpp"

namespace trnmodel {

/// What a model sees of one block of samples: the run's seed and the block's sample range,
/// with the draws of any stream. A plain value, handed to the model by the engine; the model
/// may be called with many blocks at once, from several threads.
struct block_view {
  std::uint64_t seed = 0;  ///< the run's seed (run_options::seed)
  std::uint64_t first = 0;  ///< index of the block's first sample
  Eigen::Index size = 0;  ///< samples in the block: the rows the model fills

  /// The uniform in (0, 1) of sample `first + row` on `stream` (draw `draw` of that stream).
  double uniform(Eigen::Index row, std::uint32_t stream, std::uint32_t draw = 0) const {
    return trnmodel::detail::uniform(seed, first + static_cast<std::uint64_t>(row), stream, draw);
  }
  /// One uniform per row of the block from `stream`, into out[0 .. size).
  void uniforms(std::uint32_t stream, double* out, std::uint32_t draw = 0) const {
    uniform_column(seed, stream, draw, first, 1, static_cast<std::size_t>(size), out);
  }
};

namespace detail {

/// Physical memory of the machine in bytes (0 when unknown).
inline double physical_memory_bytes() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGE_SIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) return static_cast<double>(pages) * static_cast<double>(page);
#endif
  return 0;
}

/// Kept samples must fit in memory: refuses (input_error) before allocating, saying how much
/// is needed.
inline void check_kept_samples_fit(std::uint64_t samples, std::size_t outputs) {
  const double needed = static_cast<double>(samples) * static_cast<double>(outputs) * sizeof(double);
  const double available = detail::physical_memory_bytes();
  if (available > 0 && needed > 0.8 * available) {
    const auto gib = [](double bytes) { return detail::format_number(std::round(bytes / 1073741824.0 * 10) / 10); };
    detail::fail("samples",
                 "keeping " + std::to_string(samples) + " samples of " + std::to_string(outputs) + " outputs needs " +
                     gib(needed) + " GiB, more than 80% of this machine's " + gib(available) +
                     " GiB; run with keep_samples=False (streamed statistics, flat memory) or fewer samples");
  }
}

/// Refuses options no run can use (input_error naming the option, the value and the rule).
inline void check_run_options(const run_options& options) {
  if (options.samples < 1) detail::fail("samples", "must be ≥ 1, got 0");
  if (options.threads < 0)
    detail::fail("threads", "must be ≥ 0 (0 means all cores), got " + std::to_string(options.threads));
  if (options.block_size < 0)
    detail::fail("block_size", "must be ≥ 1 (or 0 for the call's default), got " + std::to_string(options.block_size));
  if (!(options.relative_accuracy > 0 && options.relative_accuracy < 0.5))
    detail::fail("relative_accuracy", "must be in (0, 0.5), got " + detail::format_number(options.relative_accuracy));
}

inline wave_hooks hooks_of(const run_options& options) {
  return {options.threads, options.progress, options.cancelled};
}

// Evaluates blocks of a run: the model into a buffer of the block's own, then per output the
// block's moments, and the values either copied to where the run keeps them or added to this
// thread's histograms.
template <class Model> class block_evaluator {
 public:
  block_evaluator(const Model& model, const run_options& options, Eigen::Index outputs)
      : model_(model),
        options_(options),
        outputs_(outputs),
        grid_{options.samples, static_cast<std::uint64_t>(options.block_size)},
        histograms_(
            std::vector<log_histogram>(static_cast<std::size_t>(outputs), log_histogram(options.relative_accuracy))) {}

  const detail::block_grid& grid() const { return grid_; }

  // Block b: its moments into block_moments[0 .. outputs); its values to keep(out) when
  // samples are kept (keep copies them to the block's rows), else into the histograms.
  template <class Keep> void operator()(std::uint64_t b, moments* block_moments, const Keep& keep) {
    block_view block;
    block.seed = options_.seed;
    block.first = grid_.first_sample(b);
    block.size = static_cast<Eigen::Index>(grid_.size(b));
    // Columns a cache line longer than a block (scratch.hpp's padding_rows). One buffer per
    // thread of this run (scratch.hpp), its shape the same for every block, the last one included.
    thread_local detail::scratch_slot slot;
    detail::padded_scratch storage(slot, static_cast<Eigen::Index>(grid_.block_size), outputs_);
    auto out = storage.array().topRows(block.size);
    model_(block, out);
    std::fill(block_moments, block_moments + outputs_, moments{});
    moments::add_columns(out.data(), out.outerStride(), static_cast<std::size_t>(block.size),
                         static_cast<std::size_t>(outputs_), block_moments);
    if (options_.keep_samples) {
      keep(out);
    } else {
      auto& histograms = histograms_.local();
      for (Eigen::Index k = 0; k < outputs_; ++k)
        histograms[static_cast<std::size_t>(k)].add_column(out.col(k).data(), static_cast<std::size_t>(block.size));
    }
  }

  // The histograms of every block evaluated so far (samples not kept), summed over threads.
  std::vector<log_histogram> histograms() {
    std::vector<log_histogram> total(static_cast<std::size_t>(outputs_), log_histogram(options_.relative_accuracy));
    histograms_.combine_each([&](const std::vector<log_histogram>& partial) {
      for (std::size_t k = 0; k < total.size(); ++k) total[k].merge(partial[k]);
    });
    return total;
  }

 private:
  const Model& model_;
  const run_options& options_;
  Eigen::Index outputs_;
  detail::block_grid grid_;
  detail::per_thread<std::vector<log_histogram>> histograms_;
};

inline void check_outputs(const std::vector<std::string>& output_names) {
  if (output_names.empty()) detail::fail("outputs", "a model needs at least one output");
}

// Whether a model describes itself: `model.request()` gives the JSON from which another
// process rebuilds it (run_request.hpp, in the sensitivity layer, reads it back).
template <class Model, class = void> struct describes_itself : std::false_type {};
template <class Model>
struct describes_itself<Model, std::void_t<decltype(std::declval<const Model&>().request())>> : std::true_type {};

/// The format of a run's request (run_options::remote).
inline constexpr const char* run_request_format = "trnmodel.run_request/1";

/// The request of a run (what run_options::remote is handed): the model's description with
/// the run's outputs, size, seed, block size (options' block size must be set), keep mode and
/// accuracy, as JSON text.
inline std::string run_request(ordered_json model, const std::vector<std::string>& output_names,
                               const run_options& options) {
  return ordered_json{{"format", run_request_format},
                      {"model", std::move(model)},
                      {"outputs", output_names},
                      {"samples", options.samples},
                      {"seed", options.seed},
                      {"block_size", options.block_size},
                      {"keep_samples", options.keep_samples},
                      {"relative_accuracy", options.relative_accuracy}}
      .dump();
}

// The run handed to options.remote: its request, then every range's partial folded in block
// order as it comes back, with progress and cancellation polled after each.
inline run_result run_elsewhere(ordered_json model, std::vector<std::string> output_names,
                                const run_options& options) {
  const detail::block_grid grid{options.samples, static_cast<std::uint64_t>(options.block_size)};
  const std::string request = run_request(std::move(model), output_names, options);
  run_fold fold(std::move(output_names), options.seed, options.samples, grid.block_size, options.keep_samples,
                options.relative_accuracy);
  options.remote(request, grid.blocks(), options.keep_samples, [&](const std::string& bytes) {
    fold.add(run_partial::from_bytes(bytes));
    if (options.progress) options.progress(grid.samples_before(fold.next_block()), options.samples);
    if (options.cancelled && options.cancelled()) throw cancelled_error("run cancelled");
  });
  return std::move(fold).finish();
}

}  // namespace detail

/// Runs `model` — any callable `model(const block_view&, Eigen::Ref<Eigen::ArrayXXd> out) const`
/// that fills `out` (block.size rows, one column per output name) and is safe to call
/// concurrently — over options.samples samples. Bitwise the same result for any thread count.
/// Throws cancelled_error when options.cancelled says so, input_error for bad options.
///
/// A model with `request()` (the JSON another process rebuilds it from) runs through
/// options.remote when that is set: the same result, bit for bit, computed wherever the remote
/// sends the ranges of its blocks (docs/scaling.md).
///
/// The run as partials folded in block order: each wave of blocks is a partial whose moments
/// are folded as soon as the wave ends (so memory stays flat); the histograms, whose counts do
/// not depend on order, are summed per thread and folded once at the end; kept samples are
/// written straight to their rows of the result.
template <class Model>
run_result run(const Model& model, std::vector<std::string> output_names, const run_options& given) {
  const run_options options = with_block_size(given);
  detail::check_run_options(options);
  detail::check_outputs(output_names);
  const auto outputs = static_cast<Eigen::Index>(output_names.size());
  if (options.keep_samples) detail::check_kept_samples_fit(options.samples, output_names.size());
  if constexpr (detail::describes_itself<Model>::value)
    if (options.remote) return detail::run_elsewhere(model.request(), std::move(output_names), options);
  detail::block_evaluator<Model> evaluate(model, options, outputs);
  const detail::block_grid& grid = evaluate.grid();
  run_fold fold(std::move(output_names), options.seed, options.samples, grid.block_size, options.keep_samples,
                options.relative_accuracy);
  fold.release_kept_on(detail::threads_for(options.threads));
  std::vector<moments> wave_moments(static_cast<std::size_t>(
      detail::blocks_per_wave(detail::threads_for(options.threads)) * static_cast<std::uint64_t>(outputs)));
  detail::for_each_wave(
      grid, 0, grid.blocks(), detail::hooks_of(options),
      [&](std::uint64_t b, std::size_t slot) {
        evaluate(b, &wave_moments[slot * static_cast<std::size_t>(outputs)], [&](const auto& out) {
          fold.keep_block(b, out);
        });
      },
      [&](std::uint64_t wave_first, std::uint64_t wave_last) {
        fold.add_block_moments(wave_first, wave_last, wave_moments.data());
      });
  if (!options.keep_samples) fold.add_histograms(evaluate.histograms());
  return std::move(fold).finish();
}

/// The partial of blocks [first_block, last_block) of the run run(model, output_names, options)
/// would make: for a run split across processes, each computes its partials, and fold()
/// (partial.hpp) of all of them, in block order, is that run bit for bit. The hooks of
/// `options` see the progress of this range only.
template <class Model> run_partial compute_partial(const Model& model, std::vector<std::string> output_names,
                                                   const run_options& given, std::uint64_t first_block,
                                                   std::uint64_t last_block) {
  const run_options options = with_block_size(given);
  detail::check_run_options(options);
  detail::check_outputs(output_names);
  const auto outputs = static_cast<Eigen::Index>(output_names.size());
  detail::block_evaluator<Model> evaluate(model, options, outputs);
  const detail::block_grid& grid = evaluate.grid();
  run_partial p;
  p.names = std::move(output_names);
  p.seed = options.seed;
  p.samples = options.samples;
  p.block_size = grid.block_size;
  p.relative_accuracy = options.relative_accuracy;
  p.kept = options.keep_samples;
  p.first_block = first_block;
  p.last_block = last_block;
  if (!(first_block < last_block && last_block <= grid.blocks()))
    detail::fail("blocks", "[" + std::to_string(first_block) + ", " + std::to_string(last_block) +
                               ") is not a non-empty range of the run's " + std::to_string(grid.blocks()) + " blocks");
  if (p.kept) detail::check_kept_samples_fit(p.last_sample() - p.first_sample(), p.outputs());
  p.block_moments.resize(static_cast<std::size_t>(last_block - first_block) * p.outputs());
  if (p.kept) p.values.resize(static_cast<Eigen::Index>(p.last_sample() - p.first_sample()), outputs);
  const auto first_row = static_cast<Eigen::Index>(p.first_sample());
  detail::for_each_wave(
      grid, first_block, last_block, detail::hooks_of(options),
      [&](std::uint64_t b, std::size_t) {
        evaluate(b, &p.block_moments[static_cast<std::size_t>(b - first_block) * p.outputs()], [&](const auto& out) {
          p.values.middleRows(static_cast<Eigen::Index>(grid.first_sample(b)) - first_row, out.rows()) = out;
        });
      },
      [](std::uint64_t, std::uint64_t) {});
  if (!p.kept) p.histograms = evaluate.histograms();
  return p;
}

}  // namespace trnmodel
