#pragma once
// One side of a partly paired comparison (docs/sensitivity.md, "Pairing check"): common
// random numbers pair every input two scenarios share by path; the check pairs only the inputs
// both describe identically and draws the others, and every chance event, independently on
// each side. A side is then the scenario's lifecycle with each drawn input on a stream the
// caller chooses and its chance draws moved to other sample indices.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/check.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/sensitivity/block_parts.hpp"
#include "trnmodel/sensitivity/drawn_inputs.hpp"
#include "trnmodel/sensitivity/output.hpp"

namespace trnmodel::sensitivity {

/// A lifecycle model whose drawn input j takes its uniforms from streams[j] (instead of its own
/// stream) and whose sample i takes the chance draws of sample chance_offset + i; its outputs
/// are the given outputs of the model. Sample i's values are those of evaluate() on the
/// uniforms of sample i of those streams.
/// Thread-safety: immutable once made; the engine calls it concurrently. Ownership: a value
/// holding its own copy of the model; the draws given must outlive it.
class restreamed_model {
 public:
  /// `draws`: inputs already drawn for the run (input_draws::fits, checked by the caller); an
  /// input on a stream and with a distribution of theirs is read from them, not drawn again.
  restreamed_model(lifecycle_model model, std::vector<std::uint32_t> streams, std::uint64_t chance_offset,
                   std::vector<output_column> outputs, const input_draws* draws = nullptr)
      : model_(std::move(model)), streams_(std::move(streams)), chance_offset_(chance_offset), outputs_(std::move(outputs)) {
    if (streams_.size() != model_.input_count())
      trnmodel::detail::fail("streams", "needs one stream per drawn input (" + std::to_string(model_.input_count()) +
                                            "), got " + std::to_string(streams_.size()));
    if (outputs_.empty()) trnmodel::detail::fail("outputs", "name at least one output");
    for (const output_column& o : outputs_) columns_ = std::max(columns_, o.columns(model_));
    drawn_column_.assign(streams_.size(), -1);
    if (draws != nullptr && draws->model != nullptr) {
      drawn_ = &draws->values;
      for (std::size_t j = 0; j < streams_.size(); ++j)
        drawn_column_[j] = detail::drawn_column_of(*draws->model, streams_[j], model_.input_quantity(j)).value_or(-1);
    }
  }

  /// The engine's call: per part of the block, the inputs drawn on the chosen streams, the
  /// lifecycle evaluated with the moved chance draws, the outputs' columns kept.
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    const auto inputs = static_cast<Eigen::Index>(streams_.size());
    detail::for_each_part(block, inputs, columns_, [&](const block_view& part, Eigen::Index first_row,
                                                       Eigen::ArrayXXd& x, Eigen::ArrayXXd& all) {
      for (std::size_t j = 0; j < streams_.size(); ++j) {
        if (drawn_column_[j] >= 0) {
          x.col(static_cast<Eigen::Index>(j)).head(part.size) =
              drawn_->col(drawn_column_[j]).segment(static_cast<Eigen::Index>(part.first), part.size);
          continue;
        }
        double* column = x.col(static_cast<Eigen::Index>(j)).data();
        part.uniforms(streams_[j], column);
        model_.input_quantity(j).ppf(column, column, static_cast<std::size_t>(part.size));
      }
      model_.evaluate_from(part.seed, x.topRows(part.size), chance_offset_ + part.first, all.topRows(part.size));
      for (std::size_t k = 0; k < outputs_.size(); ++k)
        out.col(static_cast<Eigen::Index>(k)).segment(first_row, part.size) =
            all.col(outputs_[k].column).head(part.size);
    });
  }

 private:
  lifecycle_model model_;
  std::vector<std::uint32_t> streams_;
  std::uint64_t chance_offset_;
  std::vector<output_column> outputs_;
  Eigen::Index columns_ = 0;
  const Eigen::ArrayXXd* drawn_ = nullptr;  // the draws given, or none
  std::vector<Eigen::Index> drawn_column_;  // per input: its column of *drawn_, or -1 to draw it
};

}  // namespace trnmodel::sensitivity
