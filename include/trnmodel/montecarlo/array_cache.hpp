#pragma once
// The memory of large arrays a run leaves behind, kept for the next run of the same size.
//
// Why: a kept run of 10^5 samples writes 26 to 40 columns of fresh memory (21 to 32 MB), and
// each 4 KiB page of it costs the kernel a fault and a clearing on its first write (about 2 µs
// on the development machine, a virtual one). The C library keeps freed memory for reuse only
// below its trimming threshold: a loop of one simulate reuses its kept array, but the budget
// sign-off (two kept runs and a drawn-inputs array, 82 MB) gives its heap back at the end and
// faults all of it in again the next time (about 30 ms of a 200 ms computation). Here the
// arrays a run freed are kept, up to a capacity, and handed to the next run that asks for the
// same number of elements: the same memory, already mapped.
//
// What stays the same: every value a run writes is written (a kept column of one value is
// written out on request, kept_columns.hpp), so no old value is ever read; results are bit for
// bit those of fresh memory (tested). What it costs: the kept memory, at most the capacity
// (default 256 MiB; TRNMODEL_ARRAY_CACHE_MB in the environment sets it, 0 turns the cache off;
// Python: tm.array_cache). Its pages are handed to the kernel as lazily freeable
// (MADV_FREE, Linux 4.5 and later), so under memory pressure the kernel takes them back
// without swapping, and a run that reuses them then faults them in as fresh ones. A request
// for a size the cache does not hold frees everything it holds: the workload changed, and
// memory held for another one would only raise the peak.
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/montecarlo/prefault.hpp"

namespace trnmodel::detail {

/// Freed large arrays kept for reuse (see the top of this header). One per process
/// (instance()); separate ones serve tests.
///
/// Thread-safety: every member may be called from many threads at once.
class array_cache {
 public:
  /// Arrays smaller than this are left to the C library, which reuses them anyway.
  static constexpr std::size_t smallest_bytes = std::size_t{4} << 20;
  /// The capacity when the environment sets none.
  static constexpr std::size_t default_capacity_bytes = std::size_t{256} << 20;

  explicit array_cache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}
  array_cache(const array_cache&) = delete;
  array_cache& operator=(const array_cache&) = delete;

  /// The process's cache, with the capacity TRNMODEL_ARRAY_CACHE_MB gives (whole MiB), else
  /// default_capacity_bytes. Never destroyed, so that a result freed during the process's exit
  /// still finds it. A value that is no whole number turns the cache off and makes take()
  /// throw input_error naming it (keep() runs in destructors and must not throw).
  static array_cache& instance() {
    static array_cache* const cache = [] {
      const char* text = std::getenv("TRNMODEL_ARRAY_CACHE_MB");
      const std::string given = text == nullptr ? "" : text;
      const std::size_t mib = given.empty() ? default_capacity_bytes >> 20 : whole_mib(given);
      auto* made = new array_cache(mib == not_whole ? 0 : mib << 20);
      if (mib == not_whole)
        made->error_ = "must be a whole number of MiB (0 turns the cache of freed arrays off), got \"" + given + "\"";
      return made;
    }();
    return *cache;
  }

  /// A rows x cols array: the memory of a kept array of rows · cols elements (its old values
  /// still in it), else fresh memory, after freeing what the cache holds.
  Eigen::ArrayXXd take(Eigen::Index rows, Eigen::Index cols) {
    if (!error_.empty()) fail("TRNMODEL_ARRAY_CACHE_MB", error_);
    Eigen::ArrayXXd found;
    if (static_cast<std::size_t>(rows * cols) * sizeof(double) >= smallest_bytes) {
      std::vector<Eigen::ArrayXXd> stale;  // freed after the lock is let go
      {
        const std::lock_guard<std::mutex> hold(lock_);
        for (std::size_t k = kept_.size(); k-- > 0;)
          if (kept_[k].size() == rows * cols) {
            found.swap(kept_[k]);
            kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(k));
            bytes_ -= static_cast<std::size_t>(found.size()) * sizeof(double);
            break;
          }
        if (found.size() == 0) {
          stale.swap(kept_);
          bytes_ = 0;
        }
      }
    }
    found.resize(rows, cols);  // the same number of elements keeps the memory
    return found;
  }

  /// Keeps a's memory for take() when it is large and within the capacity (a is left empty),
  /// evicting the oldest arrays kept to make room; returns false, a untouched, otherwise.
  /// Never throws (destructors call it): when memory for the bookkeeping runs out, a is left
  /// to be freed.
  bool keep(Eigen::ArrayXXd& a) noexcept {
    const std::size_t bytes = static_cast<std::size_t>(a.size()) * sizeof(double);
    if (bytes < smallest_bytes) return false;
    try {
      std::vector<Eigen::ArrayXXd> evicted;  // freed after the lock is let go
      const std::lock_guard<std::mutex> hold(lock_);
      if (bytes > capacity_) return false;
      kept_.reserve(kept_.size() + 1);  // the steps that may throw, before anything moves
      evicted.reserve(kept_.size());
      evict_beyond(capacity_ - bytes, evicted);
      lazily_free_pages(a.data(), bytes);
      bytes_ += bytes;
      kept_.push_back(std::move(a));
      return true;
    } catch (...) {
      return false;
    }
  }

  /// Frees everything kept.
  void clear() {
    std::vector<Eigen::ArrayXXd> stale;
    const std::lock_guard<std::mutex> hold(lock_);
    stale.swap(kept_);
    bytes_ = 0;
  }
  /// Bytes kept now.
  std::size_t bytes() const {
    const std::lock_guard<std::mutex> hold(lock_);
    return bytes_;
  }
  std::size_t capacity() const {
    const std::lock_guard<std::mutex> hold(lock_);
    return capacity_;
  }
  /// A new capacity; what no longer fits is freed, oldest first.
  void set_capacity(std::size_t capacity_bytes) {
    std::vector<Eigen::ArrayXXd> evicted;
    const std::lock_guard<std::mutex> hold(lock_);
    capacity_ = capacity_bytes;
    evict_beyond(capacity_, evicted);
  }

  /// `text` as a whole number of MiB, or not_whole.
  static std::size_t whole_mib(const std::string& text) {
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) return not_whole;
    return static_cast<std::size_t>(std::stoull(text));
  }
  static constexpr std::size_t not_whole = static_cast<std::size_t>(-1);

 private:
  // Moves the oldest arrays kept into `evicted` (freed by the caller after the lock is let go)
  // until at most `limit` bytes are kept. Called with the lock held.
  void evict_beyond(std::size_t limit, std::vector<Eigen::ArrayXXd>& evicted) {
    while (bytes_ > limit) {
      evicted.push_back(std::move(kept_.front()));
      bytes_ -= static_cast<std::size_t>(evicted.back().size()) * sizeof(double);
      kept_.erase(kept_.begin());
    }
  }

  mutable std::mutex lock_;
  std::vector<Eigen::ArrayXXd> kept_;  // oldest first
  std::size_t bytes_ = 0;
  std::size_t capacity_;
  std::string error_;  // why the environment's capacity was refused, or empty
};

}  // namespace trnmodel::detail
