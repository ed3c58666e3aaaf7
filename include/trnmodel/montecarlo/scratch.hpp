#pragma once
// Per-thread buffers for the work a model does on each block. A block's buffers are the same
// shape block after block, and allocating them afresh each time costs more than it seems: a
// process that returns freed memory to the system eagerly (Dask's workers set glibc's
// MALLOC_TRIM_THRESHOLD_ to 64 KiB, which also turns off its adaptive mmap threshold) faults
// every page of a 1.3 MB buffer in again, block after block (docs/scaling.md, "Overhead"). So
// each call site keeps one buffer per thread and lends it for the length of a scope.
#include <Eigen/Core>

namespace trnmodel::detail {

/// Rows a block's buffer has beyond the block, so that its columns lie a cache line more than
/// the block apart. Blocks and parts come in powers of two (4,096 or 256 rows): without the
/// padding, columns 32 KiB or 2 KiB apart put a row's elements of every column in one or two
/// sets of the level-1 cache, and a loop that writes or reads a row across the lifecycle's 40
/// metric columns evicts its own lines (a tornado took 31 % longer; docs/benchmarks.md).
inline constexpr Eigen::Index padding_rows = 8;

/// One thread's buffer at one call site, and whether it is lent out. Declare it
/// `thread_local` at the call site. Not for sharing between threads.
struct scratch_slot {
  Eigen::ArrayXXd array;  ///< the buffer (its shape is the last one asked for)
  bool lent = false;  ///< whether a scratch holds it now
};

/// A rows x cols array for the length of a scope: the slot's buffer (reallocated only when the
/// shape asked for changes), or, when the slot is already lent (the same call site entered
/// again on this thread, by a nested run), an array of its own, so that a buffer is never
/// used by two callers at once. Its contents are unspecified: the caller writes before reading.
class scratch {
 public:
  scratch(scratch_slot& slot, Eigen::Index rows, Eigen::Index cols) : slot_(slot.lent ? nullptr : &slot) {
    if (slot_ != nullptr) slot_->lent = true;
    Eigen::ArrayXXd& a = array();
    if (a.rows() != rows || a.cols() != cols) a.resize(rows, cols);
  }
  ~scratch() {
    if (slot_ != nullptr) slot_->lent = false;
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

  /// The array lent.
  Eigen::ArrayXXd& array() { return slot_ != nullptr ? slot_->array : own_; }

 private:
  scratch_slot* slot_;
  Eigen::ArrayXXd own_;
};

/// A scratch of rows x cols whose columns lie padding_rows more than `rows` apart: the buffer
/// a block's metrics are written into a row at a time (see padding_rows).
class padded_scratch {
 public:
  padded_scratch(scratch_slot& slot, Eigen::Index rows, Eigen::Index cols)
      : lent_(slot, rows + padding_rows, cols), rows_(rows) {}

  /// The first `rows` rows of the buffer lent.
  auto array() { return lent_.array().topRows(rows_); }

 private:
  scratch lent_;
  Eigen::Index rows_;
};

}  // namespace trnmodel::detail
