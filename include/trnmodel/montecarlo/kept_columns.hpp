#pragma once
// A run's kept samples, one column per output, where a column that holds one value in every
// sample is stored as that value and its memory is left untouched until a caller asks for it.
//
// Why: a lifecycle run has 40 outputs, and a job without a spot market, a capacity block or a
// derived step time has some of them constant (0, or NaN for a phase it does not have): 14 in
// each bundled example. The kept array is allocated untouched, and each of its pages costs the
// kernel a fault and a clearing on its first write: at 10^6 samples those 14 columns are 112 MB
// of pages written with one number. Left unwritten they cost nothing, and a kept run of
// Llama-3-8B LoRA on Trn2 takes the time of a streamed one (docs/benchmarks.md, "Columns of
// one value").
//
// What a caller sees does not change: values() and values(k) hand out the column written out
// (once, on the first call, whatever the threads), quantiles of such a column are its value
// (type 7 of equal neighbours is the value itself, as order_statistics gives it), and Python
// views it without writing it out, as numpy.broadcast_to does (a read-only view of stride 0).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/montecarlo/array_cache.hpp"
#include "trnmodel/montecarlo/parallel.hpp"
#include "trnmodel/montecarlo/prefault.hpp"

namespace trnmodel::detail {

/// Blocks shorter than this are written out whole: noting a value per block and column would
/// take more than 1/8 of the memory it saves.
inline constexpr std::uint64_t single_value_block_rows = 64;

/// Whether x[0, n) (n ≥ 1) holds one value, bit for bit (so −0 differs from +0 and each NaN
/// payload from another). Compares 64 values at a time, so that a varying column stops early.
inline bool holds_single_value(const double* x, std::size_t n) {
  std::uint64_t first = 0;
  std::memcpy(&first, x, sizeof first);
  for (std::size_t begin = 0; begin < n; begin += 64) {
    const std::size_t end = begin + 64 < n ? begin + 64 : n;
    std::uint64_t differ = 0;
    for (std::size_t i = begin; i < end; ++i) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, x + i, sizeof bits);
      differ |= bits ^ first;
    }
    if (differ != 0) return false;
  }
  return true;
}

/// The kept samples of a run: rows = samples, one column per output, column-major. A column
/// may be stored as a single value (single_value()) until written out by column() or all().
///
/// Thread-safety: const members may be called from many threads at once (writing a column out
/// takes a lock); the non-const members are the fold's, before the result is handed over.
/// Ownership: a value type; a copy writes out nothing and copies what is written.
class kept_columns {
 public:
  kept_columns() = default;
  /// Room for rows x cols samples: fresh memory, not touched yet, or a freed array's of the
  /// same size (array_cache.hpp; its old values are never read).
  kept_columns(Eigen::Index rows, Eigen::Index cols) : values_(array_cache::instance().take(rows, cols)) {}

  kept_columns(const kept_columns& other) { copy_from(other); }
  kept_columns& operator=(const kept_columns& other) {
    if (this != &other) {
      kept_columns copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  kept_columns(kept_columns&& other) noexcept { *this = std::move(other); }
  kept_columns& operator=(kept_columns&& other) noexcept {
    release();
    values_ = std::move(other.values_);
    single_ = std::move(other.single_);
    single_value_ = std::move(other.single_value_);
    unwritten_ = std::move(other.unwritten_);
    lock_ = std::move(other.lock_);
    release_threads_ = other.release_threads_;
    return *this;
  }
  ~kept_columns() { release(); }

  /// Threads that give a large array's pages back when it goes (release_pages): the run's.
  void release_on(int threads) { release_threads_ = threads; }

  /// Whether any sample is kept.
  bool empty() const { return values_.size() == 0; }
  Eigen::Index rows() const { return values_.rows(); }
  Eigen::Index cols() const { return values_.cols(); }

  /// The value every sample of column k holds, bit for bit, when the column is stored as it;
  /// else nullptr. The pointer lives as long as this object.
  const double* single_value(Eigen::Index k) const {
    return single_.empty() || !single_[static_cast<std::size_t>(k)] ? nullptr
                                                                    : &single_value_[static_cast<std::size_t>(k)];
  }
  /// Column k's rows() values, written out first if the column is stored as a single value.
  const double* column(Eigen::Index k) const {
    write_out(k);
    return values_.col(k).data();
  }
  /// Every column, each written out first if needed.
  const Eigen::ArrayXXd& all() const {
    for (Eigen::Index k = 0; k < cols(); ++k) write_out(k);
    return values_;
  }

  /// Where the fold writes rows [first, first + n) of column k (n values).
  double* segment(Eigen::Index first, Eigen::Index k) { return &values_(first, k); }
  /// Marks column k as holding `value` in every row; its memory stays unwritten until asked for.
  void store_as_single_value(Eigen::Index k, double value) {
    const auto n = static_cast<std::size_t>(cols());
    if (single_.empty()) {
      single_.assign(n, 0);
      single_value_.assign(n, 0.0);
      unwritten_.reset(new std::atomic<bool>[n]);
      for (std::size_t j = 0; j < n; ++j) unwritten_[j].store(false, std::memory_order_relaxed);
      lock_ = std::make_unique<std::mutex>();
    }
    single_[static_cast<std::size_t>(k)] = 1;
    single_value_[static_cast<std::size_t>(k)] = value;
    unwritten_[static_cast<std::size_t>(k)].store(true, std::memory_order_relaxed);
  }

 private:
  bool unwritten(Eigen::Index k) const {
    return unwritten_ && unwritten_[static_cast<std::size_t>(k)].load(std::memory_order_acquire);
  }
  void write_out(Eigen::Index k) const {
    if (!unwritten(k)) return;
    const std::lock_guard<std::mutex> hold(*lock_);
    if (!unwritten_[static_cast<std::size_t>(k)].load(std::memory_order_relaxed)) return;  // another thread did
    double* to = values_.col(k).data();
    prefault_for_writing(to, static_cast<std::size_t>(rows()) * sizeof(double));
    std::fill(to, to + rows(), single_value_[static_cast<std::size_t>(k)]);
    unwritten_[static_cast<std::size_t>(k)].store(false, std::memory_order_release);
  }
  // The array kept for the next run of its size (array_cache.hpp), or, when the cache does not
  // take it, a large array's written pages given back on release_threads_ threads, a range of
  // columns each, before it is freed (prefault.hpp: the unmapping then has nothing left to do).
  // Plain threads, not the task scheduler's: a result may go during the process's exit.
  void release() noexcept {
    if (array_cache::instance().keep(values_)) return;
    constexpr double large_bytes = 64.0 * 1024 * 1024;
    if (release_threads_ < 2 || static_cast<double>(values_.size()) * sizeof(double) < large_bytes) return;
    const auto threads = static_cast<Eigen::Index>(
        std::min({release_threads_, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
                  static_cast<int>(cols())}));
    const auto release_columns = [this, threads](Eigen::Index part) {
      for (Eigen::Index k = part * cols() / threads; k < (part + 1) * cols() / threads; ++k)
        release_pages(values_.col(k).data(), static_cast<std::size_t>(rows()) * sizeof(double));
    };
    std::vector<std::thread> helpers;
    Eigen::Index part = 1;
    try {
      helpers.reserve(static_cast<std::size_t>(threads));
      for (; part < threads; ++part) helpers.emplace_back(release_columns, part);
    } catch (...) {  // no thread to be had: this one does the rest
      for (; part < threads; ++part) release_columns(part);
    }
    release_columns(0);
    for (auto& h : helpers) h.join();
  }
  // A column still unwritten is not read (its memory holds nothing yet): the copy keeps it so.
  void copy_from(const kept_columns& other) {
    std::unique_lock<std::mutex> hold;
    if (other.lock_) hold = std::unique_lock<std::mutex>(*other.lock_);
    values_.resize(other.rows(), other.cols());
    single_ = other.single_;
    single_value_ = other.single_value_;
    if (other.unwritten_) {
      const auto n = static_cast<std::size_t>(cols());
      unwritten_.reset(new std::atomic<bool>[n]);
      for (std::size_t j = 0; j < n; ++j) unwritten_[j].store(other.unwritten_[j].load(), std::memory_order_relaxed);
      lock_ = std::make_unique<std::mutex>();
    }
    for (Eigen::Index k = 0; k < cols(); ++k)
      if (!unwritten(k)) values_.col(k) = other.values_.col(k);
  }

  mutable Eigen::ArrayXXd values_;  // rows x cols; an unwritten column's memory is untouched
  std::vector<unsigned char> single_;  // per column: stored as a single value (fixed once the run ends)
  std::vector<double> single_value_;  // that value
  std::unique_ptr<std::atomic<bool>[]> unwritten_;  // per column: not written out yet
  std::unique_ptr<std::mutex> lock_;  // serialises writing columns out
  int release_threads_ = 1;  // release(): the run's threads
};

/// How a run's blocks reach its kept_columns: each block's column segment is copied, except a
/// segment that holds a single value, which is only noted; finish() then stores a column whose
/// every block noted the same value as that value, and writes the noted segments of the others.
/// keep() may be called from many threads at once for distinct blocks; finish() once, after.
class kept_block_writer {
 public:
  kept_block_writer() = default;
  kept_block_writer(block_grid grid, Eigen::Index cols)
      : grid_(grid), cols_(static_cast<std::size_t>(cols)),
        noted_(grid.block_size >= single_value_block_rows ? grid.blocks() * cols_ : 0, 0),
        value_(noted_.size(), 0.0) {}

  /// Block b's values (grid.size(b) rows, one column per output) into `kept`.
  template <class Block> void keep(kept_columns& kept, std::uint64_t b, const Block& out) {
    const auto first = static_cast<Eigen::Index>(grid_.first_sample(b));
    const auto rows = static_cast<std::size_t>(out.rows());
    for (std::size_t k = 0; k < cols_; ++k) {
      const double* from = out.col(static_cast<Eigen::Index>(k)).data();
      if (!noted_.empty() && holds_single_value(from, rows)) {
        noted_[b * cols_ + k] = 1;
        value_[b * cols_ + k] = from[0];
        continue;
      }
      double* to = kept.segment(first, static_cast<Eigen::Index>(k));
      prefault_for_writing(to, rows * sizeof(double));
      std::copy(from, from + rows, to);
    }
  }

  /// Once every block is kept: columns of one value throughout stored as it, the rest written.
  void finish(kept_columns& kept) const {
    if (noted_.empty()) return;
    const std::uint64_t blocks = grid_.blocks();
    for (std::size_t k = 0; k < cols_; ++k) {
      bool single = true;
      for (std::uint64_t b = 0; b < blocks && single; ++b)
        single = noted_[b * cols_ + k] && std::memcmp(&value_[b * cols_ + k], &value_[k], sizeof(double)) == 0;
      if (single) {
        kept.store_as_single_value(static_cast<Eigen::Index>(k), value_[k]);
        continue;
      }
      for (std::uint64_t b = 0; b < blocks; ++b) {
        if (!noted_[b * cols_ + k]) continue;
        double* to = kept.segment(static_cast<Eigen::Index>(grid_.first_sample(b)), static_cast<Eigen::Index>(k));
        const auto rows = static_cast<std::size_t>(grid_.size(b));
        prefault_for_writing(to, rows * sizeof(double));
        std::fill(to, to + rows, value_[b * cols_ + k]);
      }
    }
  }

 private:
  block_grid grid_;
  std::size_t cols_ = 0;
  std::vector<unsigned char> noted_;  // blocks x cols, block-major: the segment holds one value
  std::vector<double> value_;  // that value
};

}  // namespace trnmodel::detail
