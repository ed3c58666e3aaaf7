#pragma once
// Inputs drawn once for runs that differ elsewhere. A break-even's evaluations differ in one
// input, a sweep's points (tm.sweep, tm.checkpoint_interval) in fields that are mostly not drawn
// at all (checkpoint.every_steps): every other input draws the same numbers at every run, because
// a sample's draw depends on its seed, index and stream only. Drawing them once for the whole
// series and reading them back costs the lifecycle and not the draws (the draws are over half
// of a sample's time; docs/benchmarks.md), and gives each run the bits of its own: the values
// are those its model would draw, folded in the same blocks.
//
// A run may read a drawn column only when its input takes the same stream and the same
// distribution as the column's: drawn_columns() checks both and says which column each input
// reads, or that the run must draw for itself.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/sensitivity/block_parts.hpp"

namespace trnmodel::sensitivity::detail {

/// Every drawn input of `model` for the run `options` describes: samples x model.input_count(),
/// row i the draws of sample i (in parallel, by blocks).
inline Eigen::ArrayXXd drawn_once(const lifecycle_model& model, const run_options& options) {
  const run_options o = with_block_size(options);
  Eigen::ArrayXXd x(static_cast<Eigen::Index>(o.samples), static_cast<Eigen::Index>(model.input_count()));
  const trnmodel::detail::block_grid grid{o.samples, static_cast<std::uint64_t>(o.block_size)};
  trnmodel::detail::for_each_block(0, grid.blocks(), trnmodel::detail::threads_for(o.threads), [&](std::uint64_t b) {
    block_view part;
    part.seed = o.seed;
    part.first = grid.first_sample(b);
    part.size = static_cast<Eigen::Index>(grid.size(b));
    model.draw(part, x.middleRows(static_cast<Eigen::Index>(part.first), part.size));
  });
  return x;
}

/// For each drawn input of `model`, the input of `drawn_by` that draws the same numbers (the
/// same stream and the same distribution, parameters compared exactly), as a column of
/// drawn_once(drawn_by, ...); nullopt when some input of `model` has none.
inline std::optional<std::vector<Eigen::Index>> drawn_columns(const lifecycle_model& drawn_by,
                                                              const lifecycle_model& model) {
  std::vector<Eigen::Index> columns;
  columns.reserve(model.input_count());
  for (std::size_t j = 0; j < model.input_count(); ++j) {
    std::optional<Eigen::Index> found;
    for (std::size_t k = 0; k < drawn_by.input_count() && !found; ++k)
      if (drawn_by.input_stream(k) == model.input_stream(j) &&
          quantity_to_json(drawn_by.input_quantity(k)) == quantity_to_json(model.input_quantity(j)))
        found = static_cast<Eigen::Index>(k);
    if (!found) return std::nullopt;
    columns.push_back(*found);
  }
  return columns;
}

/// Every output of `model` (its output_names()), its drawn input j read from column columns[j]
/// of `drawn` (row = sample): simulate()'s run of the model, bit for bit, without the draws.
/// Thread-safety: read-only; `model` and `drawn` must outlive it.
class drawn_inputs_model {
 public:
  drawn_inputs_model(const lifecycle_model& model, const Eigen::ArrayXXd& drawn, std::vector<Eigen::Index> columns)
      : model_(model), drawn_(drawn), columns_(std::move(columns)) {}
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    for_each_part(block, static_cast<Eigen::Index>(columns_.size()), 0,
                  [&](const block_view& part, Eigen::Index first_row, Eigen::ArrayXXd& x, Eigen::ArrayXXd&) {
                    const auto first = static_cast<Eigen::Index>(part.first);
                    for (std::size_t j = 0; j < columns_.size(); ++j)
                      x.col(static_cast<Eigen::Index>(j)).head(part.size) =
                          drawn_.col(columns_[j]).segment(first, part.size);
                    model_.evaluate_drawn(part, x.topRows(part.size), out.middleRows(first_row, part.size));
                  });
  }

 private:
  const lifecycle_model& model_;
  const Eigen::ArrayXXd& drawn_;
  std::vector<Eigen::Index> columns_;
};

}  // namespace trnmodel::sensitivity::detail
