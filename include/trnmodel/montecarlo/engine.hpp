#pragma once
// The Monte Carlo engine (DESIGN §7). It knows nothing of training jobs: it runs any model
//   model(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out)
// that fills `out` (block.size rows, one column per output) for the samples
// [block.first, block.first + block.size), drawing whatever uniforms it needs from the
// counter-based generator through `block`. The model must be safe to call concurrently.
//
// Determinism: a sample's uniforms depend only on (seed, sample index, stream, draw);
// blocks have a fixed size; floating-point statistics are computed per block and merged in
// block order; histogram counts are integers, whose sums do not depend on order. So the
// results are bitwise identical for any thread count and any scheduling.
//
// Blocks run in waves of a few per thread. Between waves, on the calling thread, the engine
// reports progress and polls the cancellation hook, and it folds the wave's statistics into
// the running totals, so memory stays flat in the sample count when samples are not kept.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

// ThreadSanitizer's annotation interface (fork_join_annotations below).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TRNMODEL_HAS_FEATURE_THREAD_SANITIZER 1
#endif
#endif
#ifndef TRNMODEL_HAS_FEATURE_THREAD_SANITIZER
#define TRNMODEL_HAS_FEATURE_THREAD_SANITIZER 0
#endif
#if defined(__SANITIZE_THREAD__) || TRNMODEL_HAS_FEATURE_THREAD_SANITIZER
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

#ifndef TRNMODEL_NO_TBB
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

#include "trnmodel/check.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/random/philox.hpp"

namespace trnmodel {

// What a model sees of one block of samples.
struct block_view {
  std::uint64_t seed = 0;
  std::uint64_t first = 0;  // index of the block's first sample
  Eigen::Index size = 0;

  double uniform(Eigen::Index row, std::uint32_t stream, std::uint32_t draw = 0) const {
    return trnmodel::uniform(seed, first + static_cast<std::uint64_t>(row), stream, draw);
  }
  // One uniform per row of the block from `stream`, into out[0 .. size).
  void uniforms(std::uint32_t stream, double* out, std::uint32_t draw = 0) const {
    for (Eigen::Index row = 0; row < size; ++row) out[row] = uniform(row, stream, draw);
  }
};

struct run_options {
  std::uint64_t samples = 10'000;
  std::uint64_t seed = 0;
  int threads = 0;  // 0: all cores
  bool keep_samples = true;
  Eigen::Index block_size = 4096;  // part of the result's definition: merges follow blocks
  double relative_accuracy = 1e-3;  // of histogram quantiles when samples are not kept
  // Both hooks run on the calling thread between waves of blocks.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  std::function<bool()> cancelled;  // return true to stop; the run throws cancelled_error
};

// Physical memory of the machine in bytes (0 when unknown).
inline double physical_memory_bytes() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGE_SIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) return static_cast<double>(pages) * static_cast<double>(page);
#endif
  return 0;
}

// Kept samples must fit in memory: refuse before allocating, saying how much is needed.
inline void check_kept_samples_fit(std::uint64_t samples, std::size_t outputs) {
  const double needed = static_cast<double>(samples) * static_cast<double>(outputs) * sizeof(double);
  const double available = physical_memory_bytes();
  if (available > 0 && needed > 0.8 * available) {
    const auto gib = [](double bytes) { return format_number(std::round(bytes / 1073741824.0 * 10) / 10); };
    fail("samples", "keeping " + std::to_string(samples) + " samples of " + std::to_string(outputs) + " outputs needs " +
                        gib(needed) + " GiB, more than 80% of this machine's " + gib(available) +
                        " GiB; run with keep_samples=False (streamed statistics, flat memory) or fewer samples");
  }
}

inline int default_threads() {
#ifndef TRNMODEL_NO_TBB
  return tbb::info::default_concurrency();
#else
  return 1;
#endif
}

inline void check_run_options(const run_options& options) {
  if (options.samples < 1) fail("samples", "must be ≥ 1, got 0");
  if (options.threads < 0) fail("threads", "must be ≥ 0 (0 means all cores), got " + std::to_string(options.threads));
  if (options.block_size < 1) fail("block_size", "must be ≥ 1, got " + std::to_string(options.block_size));
  if (!(options.relative_accuracy > 0 && options.relative_accuracy < 0.5))
    fail("relative_accuracy", "must be in (0, 0.5), got " + format_number(options.relative_accuracy));
}

// One row of a summary table (DESIGN §11: mean sd p10 p50 p80 p90 p99, then min max).
struct summary_row {
  std::string name;
  double mean, sd, p10, p50, p80, p90, p99, min, max;
  std::uint64_t nan_count;
};

inline const std::vector<double>& summary_probabilities() {
  static const std::vector<double> p{0.10, 0.50, 0.80, 0.90, 0.99};
  return p;
}

class run_result {
 public:
  run_result(std::vector<std::string> names, std::uint64_t samples, bool kept, double relative_accuracy)
      : names_(std::move(names)),
        samples_(samples),
        moments_(names_.size()),
        histograms_(names_.size(), log_histogram(relative_accuracy)) {
    if (kept) values_.resize(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(names_.size()));
  }

  const std::vector<std::string>& names() const { return names_; }
  std::uint64_t samples() const { return samples_; }
  bool kept() const { return values_.size() > 0; }
  std::size_t index(const std::string& name) const {
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) fail(name, "no such output in this result");
    return static_cast<std::size_t>(it - names_.begin());
  }

  // samples x outputs, column-major: each output's samples are contiguous. Empty unless kept.
  const Eigen::ArrayXXd& values() const { return values_; }
  Eigen::ArrayXXd& values() { return values_; }
  const moments& stats(std::size_t output) const { return moments_[output]; }
  moments& stats(std::size_t output) { return moments_[output]; }
  const log_histogram& histogram(std::size_t output) const { return histograms_[output]; }
  log_histogram& histogram(std::size_t output) { return histograms_[output]; }

  // Quantiles: exact (type 7, as numpy.quantile) from kept samples, else from the histogram.
  // NaN values are left out; an output with no finite value gives NaN.
  std::vector<double> quantiles(std::size_t output, const std::vector<double>& probabilities) const {
    std::vector<double> result;
    if (!kept()) {
      for (const double p : probabilities) result.push_back(histograms_[output].quantile(p));
      return result;
    }
    std::vector<double> finite;
    finite.reserve(static_cast<std::size_t>(samples_));
    for (Eigen::Index i = 0; i < values_.rows(); ++i)
      if (!std::isnan(values_(i, static_cast<Eigen::Index>(output)))) finite.push_back(values_(i, static_cast<Eigen::Index>(output)));
    if (finite.empty()) return std::vector<double>(probabilities.size(), std::numeric_limits<double>::quiet_NaN());
    const std::size_t n = finite.size();
    for (const double p : probabilities) {
      const double h = static_cast<double>(n - 1) * p;
      const auto lo = std::min(static_cast<std::size_t>(h), n - 1);
      std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(lo), finite.end());
      const double lower = finite[lo];
      double upper = lower;
      if (lo + 1 < n) upper = *std::min_element(finite.begin() + static_cast<std::ptrdiff_t>(lo) + 1, finite.end());
      // Equal neighbours (or an exact rank) need no interpolation, which keeps ±inf exact.
      result.push_back(upper == lower || h == static_cast<double>(lo) ? lower
                                                                     : lower + (h - static_cast<double>(lo)) * (upper - lower));
    }
    return result;
  }

  std::vector<summary_row> summary() const {
    std::vector<summary_row> rows;
    for (std::size_t k = 0; k < names_.size(); ++k) {
      const moments& m = moments_[k];
      const auto q = quantiles(k, summary_probabilities());
      const double nan = std::numeric_limits<double>::quiet_NaN();
      rows.push_back({names_[k], m.count ? m.mean : nan, m.sd(), q[0], q[1], q[2], q[3], q[4],
                      m.count ? m.min : nan, m.count ? m.max : nan, m.nan_count});
    }
    return rows;
  }

 private:
  std::vector<std::string> names_;
  std::uint64_t samples_;
  std::vector<moments> moments_;
  std::vector<log_histogram> histograms_;
  Eigen::ArrayXXd values_;
};

namespace detail {

// ThreadSanitizer cannot see the synchronisation inside a libtbb that was not built with it
// (Debian's is not), so it would report every read by a worker of what the caller wrote
// before the parallel loop. Under ThreadSanitizer these annotations state the two guarantees
// TBB documents, and nothing more: each body starts after the loop began (fork/enter), and
// the loop returns after every body ended (leave/join). Bodies get no order among themselves,
// so a race between two blocks is still reported. Elsewhere they compile to nothing.
struct fork_join_annotations {
#if defined(__SANITIZE_THREAD__) || TRNMODEL_HAS_FEATURE_THREAD_SANITIZER
  char started = 0, ended = 0;
  void fork() { __tsan_release(&started); }
  void enter() { __tsan_acquire(&started); }
  void leave() { __tsan_release(&ended); }
  void join() { __tsan_acquire(&ended); }
#else
  void fork() {}
  void enter() {}
  void leave() {}
  void join() {}
#endif
};

// Runs `body(block_index)` for every block in [first, last), in parallel when allowed.
template <class Body>
void for_each_block(std::uint64_t first, std::uint64_t last, int threads, const Body& body) {
#ifndef TRNMODEL_NO_TBB
  // More threads than cores cannot run anyway (TBB would warn and ignore them); the result
  // does not depend on the count.
  threads = std::min(threads, tbb::info::default_concurrency());
  if (threads > 1) {
    fork_join_annotations sync;
    tbb::task_arena arena(threads);
    sync.fork();
    arena.execute([&] {
      sync.enter();
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(first, last, 1),
                        [&](const tbb::blocked_range<std::uint64_t>& range) {
                          sync.enter();
                          for (std::uint64_t b = range.begin(); b != range.end(); ++b) body(b);
                          sync.leave();
                        });
      sync.leave();
    });
    sync.join();
    return;
  }
#endif
  for (std::uint64_t b = first; b != last; ++b) body(b);
}

}  // namespace detail

template <class Model>
run_result run(const Model& model, std::vector<std::string> output_names, const run_options& options) {
  check_run_options(options);
  if (output_names.empty()) fail("outputs", "a model needs at least one output");
  const auto outputs = static_cast<Eigen::Index>(output_names.size());
  const int threads = options.threads > 0 ? options.threads : default_threads();
  const auto block_size = static_cast<std::uint64_t>(options.block_size);
  const std::uint64_t blocks = (options.samples + block_size - 1) / block_size;
  const std::uint64_t wave = static_cast<std::uint64_t>(std::max(4, 4 * threads));

  if (options.keep_samples) check_kept_samples_fit(options.samples, output_names.size());
  run_result result(std::move(output_names), options.samples, options.keep_samples, options.relative_accuracy);
  std::vector<moments> wave_moments(static_cast<std::size_t>(wave * static_cast<std::uint64_t>(outputs)));

#ifndef TRNMODEL_NO_TBB
  // Histogram counts are integers: per-thread partial histograms can be summed in any order.
  tbb::enumerable_thread_specific<std::vector<log_histogram>> local_histograms(
      [&] { return std::vector<log_histogram>(static_cast<std::size_t>(outputs), log_histogram(options.relative_accuracy)); });
#else
  struct serial_histograms {
    std::vector<log_histogram> only;
    std::vector<log_histogram>& local() { return only; }
    template <class F> void combine_each(F f) { f(only); }
  } local_histograms{std::vector<log_histogram>(static_cast<std::size_t>(outputs), log_histogram(options.relative_accuracy))};
#endif

  for (std::uint64_t wave_first = 0; wave_first < blocks; wave_first += wave) {
    if (options.cancelled && options.cancelled()) throw cancelled_error("run cancelled");
    const std::uint64_t wave_last = std::min(blocks, wave_first + wave);
    detail::for_each_block(wave_first, wave_last, threads, [&](std::uint64_t b) {
      block_view block;
      block.seed = options.seed;
      block.first = b * block_size;
      block.size = static_cast<Eigen::Index>(std::min(block_size, options.samples - block.first));
      moments* block_moments = &wave_moments[static_cast<std::size_t>((b - wave_first) * static_cast<std::uint64_t>(outputs))];
      const auto summarise = [&](const auto& out) {
        for (Eigen::Index k = 0; k < outputs; ++k) {
          block_moments[k] = moments{};
          block_moments[k].add(out.col(k).data(), static_cast<std::size_t>(block.size));
        }
      };
      if (options.keep_samples) {
        // The model writes straight into the kept samples (a strided view of its rows).
        auto out = result.values().block(static_cast<Eigen::Index>(block.first), 0, block.size, outputs);
        model(block, out);
        summarise(out);
      } else {
        Eigen::ArrayXXd out(block.size, outputs);
        model(block, out);
        summarise(out);
        auto& histograms = local_histograms.local();
        for (Eigen::Index k = 0; k < outputs; ++k)
          for (Eigen::Index i = 0; i < block.size; ++i) histograms[static_cast<std::size_t>(k)].add(out(i, k));
      }
    });
    for (std::uint64_t b = wave_first; b < wave_last; ++b)
      for (Eigen::Index k = 0; k < outputs; ++k)
        result.stats(static_cast<std::size_t>(k)).merge(wave_moments[static_cast<std::size_t>((b - wave_first) * static_cast<std::uint64_t>(outputs) + static_cast<std::uint64_t>(k))]);
    if (options.progress) options.progress(std::min(options.samples, wave_last * block_size), options.samples);
  }
  if (!options.keep_samples) {
    local_histograms.combine_each([&](const std::vector<log_histogram>& partial) {
      for (Eigen::Index k = 0; k < outputs; ++k)
        result.histogram(static_cast<std::size_t>(k)).merge(partial[static_cast<std::size_t>(k)]);
    });
  }
  return result;
}

}  // namespace trnmodel
