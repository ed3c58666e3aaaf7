#pragma once
// The one parallel loop of the library: blocks of samples run in waves of a few blocks per
// thread, with oneTBB when the library is built with it (TRNMODEL_USE_TBB, the default) and
// one after another otherwise. Everything that depends on that choice lives in this header:
// the TBB includes, the thread count, per-thread scratch state and the ThreadSanitizer
// annotations. The engine's run() and the Saltelli design both go through for_each_wave.
//
// Between waves, on the calling thread, the loop polls the cancellation hook (before a wave),
// hands the finished wave to the caller (to fold its statistics in block order) and reports
// progress (after it). Hooks therefore never run concurrently with each other or with the
// caller's fold, and a caller that keeps only a wave's statistics keeps memory flat.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "trnmodel/errors.hpp"

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

namespace trnmodel {

/// The threads a run uses when asked for 0 ("all cores"); 1 without TBB.
inline int default_threads() {
#ifndef TRNMODEL_NO_TBB
  return tbb::info::default_concurrency();
#else
  return 1;
#endif
}

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
template <class Body> void for_each_block(std::uint64_t first, std::uint64_t last, int threads, const Body& body) {
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
#else
  (void)threads;
#endif
  for (std::uint64_t b = first; b != last; ++b) body(b);
}

/// One T per thread that runs blocks (one in all without TBB), for state whose merge does not
/// depend on order, such as integer histogram counts. local() is called from inside a block;
/// combine_each on the calling thread once the loop is over.
template <class T> class per_thread {
 public:
  explicit per_thread(T initial)
#ifndef TRNMODEL_NO_TBB
      : locals_(std::move(initial)){}
#else
      : only_(std::move(initial)) {
  }
#endif

        T
        &
        local() {
#ifndef TRNMODEL_NO_TBB
    return locals_.local();
#else
    return only_;
#endif
  }

  template <class F> void combine_each(F f) {
#ifndef TRNMODEL_NO_TBB
    locals_.combine_each(f);
#else
    f(only_);
#endif
  }

 private:
#ifndef TRNMODEL_NO_TBB
  tbb::enumerable_thread_specific<T> locals_;
#else
  T only_;
#endif
};

/// Samples [0, samples) cut into blocks of block_size; the last block may be shorter.
struct block_grid {
  std::uint64_t samples = 0;
  std::uint64_t block_size = 1;

  std::uint64_t blocks() const { return (samples + block_size - 1) / block_size; }
  std::uint64_t first_sample(std::uint64_t block) const { return block * block_size; }
  // Samples in blocks [0, block): where block `block` starts, capped at the end of the run.
  std::uint64_t samples_before(std::uint64_t block) const { return std::min(samples, block * block_size); }
  std::uint64_t size(std::uint64_t block) const { return std::min(block_size, samples - first_sample(block)); }
};

/// What runs between waves on the calling thread: progress and cancellation. The hooks'
/// captures must outlive the loop.
struct wave_hooks {
  int threads = 0;  ///< 0: default_threads()
  // Both run on the calling thread between waves (see the top of this header).
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  std::function<bool()> cancelled;  // true stops the loop: it throws cancelled_error
};

/// The threads a loop with `requested` threads runs on (0: all cores).
inline int threads_for(int requested) { return requested > 0 ? requested : default_threads(); }

/// Blocks per wave: enough for every thread to take a few (load balance), few enough that the
/// hooks run often and a wave's statistics stay small.
inline std::uint64_t blocks_per_wave(int threads) { return static_cast<std::uint64_t>(std::max(4, 4 * threads)); }

/// Runs body(b, slot) for the blocks b in [first_block, last_block) of `grid` in waves of
/// blocks_per_wave(threads); slot = b − wave_first (in [0, blocks_per_wave)) indexes
/// per-wave storage. After each wave, end_of_wave(wave_first, wave_last) on the calling
/// thread. Progress counts the samples of blocks [progress_from, wave_last) out of
/// those of [progress_from, last_block): progress_from is first_block unless blocks before it
/// were done by the caller and belong to the same progress bar.
template <class Body, class EndOfWave> void for_each_wave(const detail::block_grid& grid, std::uint64_t first_block,
                                                          std::uint64_t last_block, const detail::wave_hooks& hooks,
                                                          const Body& body, const EndOfWave& end_of_wave,
                                                          std::uint64_t progress_from) {
  const int threads = detail::threads_for(hooks.threads);
  const std::uint64_t wave = detail::blocks_per_wave(threads);
  const std::uint64_t origin = grid.samples_before(progress_from), total = grid.samples_before(last_block) - origin;
  for (std::uint64_t wave_first = first_block; wave_first < last_block; wave_first += wave) {
    if (hooks.cancelled && hooks.cancelled()) throw cancelled_error("run cancelled");
    const std::uint64_t wave_last = std::min(last_block, wave_first + wave);
    detail::for_each_block(wave_first, wave_last, threads,
                           [&](std::uint64_t b) { body(b, static_cast<std::size_t>(b - wave_first)); });
    end_of_wave(wave_first, wave_last);
    if (hooks.progress) hooks.progress(grid.samples_before(wave_last) - origin, total);
  }
}

/// Runs body(block) for every block of the grid, in waves of a few blocks per thread (oneTBB,
/// or serially), calling end_of_wave on the calling thread after each wave.
template <class Body, class EndOfWave> void for_each_wave(const detail::block_grid& grid, std::uint64_t first_block,
                                                          std::uint64_t last_block, const detail::wave_hooks& hooks,
                                                          const Body& body, const EndOfWave& end_of_wave) {
  detail::for_each_wave(grid, first_block, last_block, hooks, body, end_of_wave, first_block);
}

}  // namespace detail
}  // namespace trnmodel
