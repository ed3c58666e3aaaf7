#pragma once
// Partial statistics of a run: what a contiguous range of blocks contributes, in a form that
// can be sent between processes and folded, in block order, into the run's result. The fold
// of the partials of [0, k) and [k, blocks) is the run bit for bit (docs/montecarlo.md), which
// is what lets a run be split across machines:
//   - moments are kept per block and output, because Chan's merge is not associative in
//     floating point: the run merges each block's moments into the totals in block order, and
//     so does the fold (48 bytes per block and output, 0.15% of the kept samples at the
//     default block size);
//   - histograms are kept per output over the whole range: their counts are integers, whose
//     sums do not depend on order;
//   - kept samples, when the run keeps them, are the range's rows.
// to_bytes()/from_bytes() round-trip exactly (doubles by their bits, bytes.hpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/montecarlo/bytes.hpp"
#include "trnmodel/montecarlo/parallel.hpp"
#include "trnmodel/montecarlo/run_result.hpp"

namespace trnmodel {

/// The statistics of a range of blocks (moments per block, histogram counts, kept samples),
/// portable as bytes so that ranges computed elsewhere merge to the same result. A plain value.
struct run_partial {
  // What the partial belongs to: the run's outputs, seed, size, block size and accuracy, and
  // whether it keeps samples. Folding refuses partials that disagree on any of them.
  std::vector<std::string> names;  ///< the run's output names, in column order
  std::uint64_t seed = 0;  ///< the run's seed
  std::uint64_t samples = 0;  ///< the whole run's sample count (not the range's)
  std::uint64_t block_size = 1;  ///< samples per block (the last block may be shorter)
  double relative_accuracy = 1e-3;  ///< the histograms' relative accuracy
  bool kept = false;  ///< whether the run keeps every sample (then values, not histograms)
  // The blocks it covers: [first_block, last_block).
  /// \var first_block
  /// The first block the partial covers (0-based).
  /// \var last_block
  /// One past the last block it covers.
  std::uint64_t first_block = 0, last_block = 0;
  std::vector<moments> block_moments;  ///< (last_block − first_block) x outputs, block-major
  std::vector<log_histogram> histograms;  ///< one per output; empty when samples are kept
  Eigen::ArrayXXd values;  ///< kept: the range's samples x outputs, else empty

  /// The run's division into blocks.
  detail::block_grid grid() const { return {samples, block_size}; }
  /// The number of outputs.
  std::size_t outputs() const { return names.size(); }
  /// Index of the range's first sample.
  std::uint64_t first_sample() const { return grid().samples_before(first_block); }
  /// One past the range's last sample (capped at the run's end).
  std::uint64_t last_sample() const { return grid().samples_before(last_block); }
  /// The outputs' moments of block `block` (in [first_block, last_block), not checked): outputs()
  /// entries, a pointer into block_moments.
  const moments* moments_of(std::uint64_t block) const {
    return &block_moments[static_cast<std::size_t>((block - first_block) * outputs())];
  }

  /// The exact byte form ("trnmodel.run_partial/1"; doubles by their bits), for sending
  /// between processes; from_bytes() reads it back.
  std::string to_bytes() const {
    detail::byte_writer out;
    out.text(format_tag());
    out.u64(names.size());
    for (const auto& name : names) out.text(name);
    out.u64(seed);
    out.u64(samples);
    out.u64(block_size);
    out.f64(relative_accuracy);
    out.u64(kept ? 1 : 0);
    out.u64(first_block);
    out.u64(last_block);
    out.u64(block_moments.size());
    for (const auto& m : block_moments) m.write(out);
    out.u64(histograms.size());
    for (const auto& h : histograms) h.write(out);
    out.u64(static_cast<std::uint64_t>(values.rows()));
    out.u64(static_cast<std::uint64_t>(values.cols()));
    for (Eigen::Index i = 0; i < values.size(); ++i) out.f64(values.data()[i]);
    return out.take();
  }

  /// Reads to_bytes()'s form and check()s it. input_error (path "partial") for another format,
  /// truncated, corrupt or trailing bytes, and check()'s errors.
  static run_partial from_bytes(std::string_view bytes) {
    detail::byte_reader in(bytes);
    const std::string tag = in.text("format");
    if (tag != format_tag())
      detail::fail("partial", "not a partial of this format: expected \"" + format_tag() + "\", got \"" + tag + "\"");
    run_partial p;
    p.names.resize(static_cast<std::size_t>(in.count("names", 8)));
    for (auto& name : p.names) name = in.text("name");
    p.seed = in.u64("seed");
    p.samples = in.u64("samples");
    p.block_size = in.u64("block_size");
    p.relative_accuracy = in.f64("relative_accuracy");
    p.kept = in.u64("kept") != 0;
    p.first_block = in.u64("first_block");
    p.last_block = in.u64("last_block");
    p.block_moments.resize(static_cast<std::size_t>(in.count("block_moments", moments::byte_size)));
    for (auto& m : p.block_moments) m = moments::read(in);
    const std::uint64_t histograms = in.count("histograms", 64);
    for (std::uint64_t k = 0; k < histograms; ++k) p.histograms.push_back(log_histogram::read(in));
    const std::uint64_t rows = in.u64("values.rows"), cols = in.u64("values.cols");
    if (cols > 0 && rows > in.remaining() / 8 / cols)
      detail::fail("partial", "truncated or corrupt bytes: " + std::to_string(rows) + " x " + std::to_string(cols) +
                                  " values, " + std::to_string(in.remaining()) + " bytes are left");
    p.values.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (Eigen::Index i = 0; i < p.values.size(); ++i) p.values.data()[i] = in.f64("values");
    if (!in.done()) detail::fail("partial", "trailing bytes after the partial");
    p.check();
    return p;
  }

  /// The partial's own consistency: sizes that agree with its block range and outputs.
  /// input_error naming the member ("partial.blocks", "partial.values", ...) otherwise.
  void check() const {
    if (names.empty()) detail::fail("partial.names", "a partial needs at least one output");
    if (block_size < 1) detail::fail("partial.block_size", "must be ≥ 1, got 0");
    if (!(first_block < last_block && last_block <= grid().blocks()))
      detail::fail("partial.blocks", "[" + std::to_string(first_block) + ", " + std::to_string(last_block) +
                                         ") is not a non-empty range of the run's " + std::to_string(grid().blocks()) +
                                         " blocks");
    const std::uint64_t expected = (last_block - first_block) * outputs();
    if (block_moments.size() != expected)
      detail::fail("partial.block_moments", "has " + std::to_string(block_moments.size()) + " entries, expected " +
                                                std::to_string(expected) + " (blocks x outputs)");
    if (histograms.size() != (kept ? 0 : outputs()))
      detail::fail("partial.histograms",
                   "has " + std::to_string(histograms.size()) + ", expected " + std::to_string(kept ? 0 : outputs()));
    const auto rows = static_cast<Eigen::Index>(kept ? last_sample() - first_sample() : 0);
    const auto cols = static_cast<Eigen::Index>(kept ? outputs() : 0);
    if (values.rows() != rows || values.cols() != cols)
      detail::fail("partial.values", "is " + std::to_string(values.rows()) + " x " + std::to_string(values.cols()) +
                                         ", expected " + std::to_string(rows) + " x " + std::to_string(cols));
  }

 private:
  static std::string format_tag() { return "trnmodel.run_partial/1"; }
};

/// Folds partials, in block order, into the result of their run. The engine's run() folds its
/// own waves the same way (engine.hpp), so a run and the fold of its partials share this code.
/// Thread-safety: not for concurrent use (one thread folds), but for keep_block(). Ownership:
/// owns the result it builds, handed over by finish().
class run_fold {
 public:
  /// An empty fold for the run of these outputs, seed, sample count, block size, keep mode and
  /// histogram accuracy (input_error (relative_accuracy) outside (0, 1)).
  run_fold(std::vector<std::string> names, std::uint64_t seed, std::uint64_t samples, std::uint64_t block_size,
           bool kept, double relative_accuracy)
      : seed_(seed),
        grid_{samples, block_size},
        result_(std::move(names), samples, kept, relative_accuracy),
        kept_writer_(kept ? detail::kept_block_writer(grid_, static_cast<Eigen::Index>(result_.outputs()))
                          : detail::kept_block_writer()) {}

  /// A fold for the run `first` belongs to (its first partial, or any of them).
  static run_fold for_partial(const run_partial& first) {
    return run_fold(first.names, first.seed, first.samples, first.block_size, first.kept, first.relative_accuracy);
  }

  /// The block the next partial must start at: every block before it is folded.
  std::uint64_t next_block() const { return next_block_; }
  /// Whether every block of the run is folded.
  bool complete() const { return next_block_ == grid_.blocks(); }

  /// Folds the next partial: it must check() and belong to this run (input_error naming
  /// "partial.<member>" that differs) and start at next_block() ("partial.first_block").
  void add(const run_partial& p) {
    p.check();
    const auto differs = [&](const char* field, const std::string& theirs, const std::string& ours) {
      detail::fail(std::string("partial.") + field, "is " + theirs + ", but the run being folded has " + ours);
    };
    if (p.names != result_.names()) differs("names", join(p.names), join(result_.names()));
    if (p.seed != seed_) differs("seed", std::to_string(p.seed), std::to_string(seed_));
    if (p.samples != grid_.samples) differs("samples", std::to_string(p.samples), std::to_string(grid_.samples));
    if (p.block_size != grid_.block_size)
      differs("block_size", std::to_string(p.block_size), std::to_string(grid_.block_size));
    if (p.kept != result_.kept()) differs("kept", p.kept ? "true" : "false", result_.kept() ? "true" : "false");
    if (!(p.relative_accuracy == result_.histogram(0).relative_accuracy()))
      differs("relative_accuracy", detail::format_number(p.relative_accuracy),
              detail::format_number(result_.histogram(0).relative_accuracy()));
    add_block_moments(p.first_block, p.last_block, p.block_moments.data());
    if (!p.kept) add_histograms(p.histograms);
    if (p.kept)
      for (std::uint64_t b = p.first_block; b < p.last_block; ++b)
        keep_block(b, p.values.middleRows(static_cast<Eigen::Index>(grid_.first_sample(b) - p.first_sample()),
                                          static_cast<Eigen::Index>(grid_.size(b))));
  }

  /// The pieces of add(), for the engine's own waves. Moments: blocks [first, last) x outputs,
  /// block-major; `first` must be next_block() (input_error "partial.first_block" otherwise).
  void add_block_moments(std::uint64_t first, std::uint64_t last, const moments* block_moments) {
    if (first != next_block_)
      detail::fail("partial.first_block", "is " + std::to_string(first) + ", but the fold is at block " +
                                              std::to_string(next_block_) +
                                              " (partials are folded in block order, without gaps or overlaps)");
    const std::size_t outputs = result_.names().size();
    for (std::uint64_t b = first; b < last; ++b)
      for (std::size_t k = 0; k < outputs; ++k)
        result_.moments_[k].merge(block_moments[static_cast<std::size_t>(b - first) * outputs + k]);
    next_block_ = last;
  }
  /// Adds histogram counts, one histogram per output (any order: the counts are integers).
  void add_histograms(const std::vector<log_histogram>& histograms) {
    for (std::size_t k = 0; k < histograms.size(); ++k) result_.histograms_[k].merge(histograms[k]);
  }

  /// Block b's kept samples (its rows, one column per output) into the result; the engine's
  /// threads call it at once for distinct blocks (kept_columns.hpp: a segment of one value is
  /// only noted until finish()).
  template <class Block> void keep_block(std::uint64_t b, const Block& out) {
    kept_writer_.keep(result_.values_, b, out);
  }

  /// The threads that give the kept array's pages back when the result goes (the run's).
  void release_kept_on(int threads) { result_.values_.release_on(threads); }

  /// The result, once every block is folded (input_error "partials" naming the missing blocks
  /// otherwise); outputs without a non-NaN value get NaN mean, min and max.
  run_result finish() && {
    if (!complete())
      detail::fail("partials", "blocks [" + std::to_string(next_block_) + ", " + std::to_string(grid_.blocks()) +
                                   ") of the run were never folded");
    result_.finish_moments();
    if (result_.kept()) kept_writer_.finish(result_.values_);
    return std::move(result_);
  }

 private:
  static std::string join(const std::vector<std::string>& names) {
    std::string list = "[";
    for (const auto& name : names) list += (list.size() > 1 ? ", " : "") + name;
    return list + "]";
  }

  std::uint64_t seed_;
  detail::block_grid grid_;
  run_result result_;
  detail::kept_block_writer kept_writer_;
  std::uint64_t next_block_ = 0;
};

/// The result of a run from all its partials, given in block order.
inline run_result fold(const std::vector<run_partial>& partials) {
  if (partials.empty()) detail::fail("partials", "nothing to fold");
  run_fold f = run_fold::for_partial(partials.front());
  for (const auto& p : partials) f.add(p);
  return std::move(f).finish();
}

}  // namespace trnmodel
