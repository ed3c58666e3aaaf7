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
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/array_cache.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/prefault.hpp"
#include "trnmodel/sensitivity/block_parts.hpp"
#include "trnmodel/sensitivity/output.hpp"

namespace trnmodel::sensitivity {

/// A scenario's drawn inputs for the runs of one seed and sample count: the sign-off draws a
/// scenario's inputs once and its simulation, its break-even and its side of the pairing check
/// read them back (each run's bits its own). A plain value; `values` is samples x
/// model->input_count(), row i the draws of sample i.
struct input_draws {
  std::shared_ptr<const lifecycle_model> model;  ///< whose inputs, in its input order
  std::uint64_t seed = 0;  ///< the run's seed
  std::uint64_t samples = 0;  ///< and its sample count
  Eigen::ArrayXXd values;  ///< samples x inputs

  input_draws() = default;
  input_draws(const input_draws&) = default;
  input_draws(input_draws&&) = default;
  input_draws& operator=(const input_draws&) = default;
  input_draws& operator=(input_draws&&) = default;
  /// The values' memory goes to the next draws or kept run of its size (array_cache.hpp).
  ~input_draws() { trnmodel::detail::array_cache::instance().keep(values); }

  /// Whether a run with `options` draws these numbers: the same seed and samples (a sample's
  /// draws depend on its seed, index and stream only), and a run on this machine.
  bool fits(const run_options& options) const {
    return model != nullptr && options.seed == seed && options.samples == samples && !options.remote;
  }
};

namespace detail {

/// Every drawn input of `model` for the run `options` describes: samples x model.input_count(),
/// row i the draws of sample i (in parallel, by blocks). The array is a freed one's of the same
/// size (array_cache.hpp) or fresh memory, which each block maps, a column segment per call,
/// before writing it (prefault.hpp), as the kept array's blocks do, instead of a page fault per
/// page.
inline Eigen::ArrayXXd drawn_once(const lifecycle_model& model, const run_options& options) {
  const run_options o = with_block_size(options);
  Eigen::ArrayXXd x = trnmodel::detail::array_cache::instance().take(static_cast<Eigen::Index>(o.samples),
                                                                     static_cast<Eigen::Index>(model.input_count()));
  const trnmodel::detail::block_grid grid{o.samples, static_cast<std::uint64_t>(o.block_size)};
  trnmodel::detail::for_each_block(0, grid.blocks(), trnmodel::detail::threads_for(o.threads), [&](std::uint64_t b) {
    block_view part;
    part.seed = o.seed;
    part.first = grid.first_sample(b);
    part.size = static_cast<Eigen::Index>(grid.size(b));
    auto rows = x.middleRows(static_cast<Eigen::Index>(part.first), part.size);
    for (Eigen::Index j = 0; j < rows.cols(); ++j)
      trnmodel::detail::prefault_for_writing(rows.col(j).data(), static_cast<std::size_t>(part.size) * sizeof(double));
    model.draw(part, rows);
  });
  return x;
}

/// The input of `drawn_by` drawn on `stream` from `q` (parameters compared exactly), or nullopt.
inline std::optional<Eigen::Index> drawn_column_of(const lifecycle_model& drawn_by, std::uint32_t stream,
                                                   const quantity& q) {
  for (std::size_t k = 0; k < drawn_by.input_count(); ++k)
    if (drawn_by.input_stream(k) == stream && quantity_to_json(drawn_by.input_quantity(k)) == quantity_to_json(q))
      return static_cast<Eigen::Index>(k);
  return std::nullopt;
}

/// For each drawn input of `model`, the input of `drawn_by` that draws the same numbers (the
/// same stream and the same distribution), as a column of drawn_once(drawn_by, ...); nullopt
/// when some input of `model` has none.
inline std::optional<std::vector<Eigen::Index>> drawn_columns(const lifecycle_model& drawn_by,
                                                              const lifecycle_model& model) {
  std::vector<Eigen::Index> columns;
  columns.reserve(model.input_count());
  for (std::size_t j = 0; j < model.input_count(); ++j) {
    const auto found = drawn_column_of(drawn_by, model.input_stream(j), model.input_quantity(j));
    if (!found) return std::nullopt;
    columns.push_back(*found);
  }
  return columns;
}

/// `model` evaluated with its drawn input j read from column columns[j] of `drawn` (row =
/// sample): every output (its output_names(), simulate()'s run bit for bit without the draws),
/// or only `output` (a break-even's evaluation).
/// Thread-safety: read-only; `model` and `drawn` must outlive it.
class drawn_inputs_model {
 public:
  drawn_inputs_model(const lifecycle_model& model, const Eigen::ArrayXXd& drawn, std::vector<Eigen::Index> columns,
                     std::optional<output_column> output = std::nullopt)
      : model_(model), drawn_(drawn), columns_(std::move(columns)), output_(output) {}
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    const Eigen::Index metrics = output_ ? output_->columns(model_) : 0;
    for_each_part(block, static_cast<Eigen::Index>(columns_.size()), metrics,
                  [&](const block_view& part, Eigen::Index first_row, Eigen::ArrayXXd& x, Eigen::ArrayXXd& all) {
                    const auto first = static_cast<Eigen::Index>(part.first);
                    for (std::size_t j = 0; j < columns_.size(); ++j)
                      x.col(static_cast<Eigen::Index>(j)).head(part.size) =
                          drawn_.col(columns_[j]).segment(first, part.size);
                    if (!output_) {
                      model_.evaluate_drawn(part, x.topRows(part.size), out.middleRows(first_row, part.size));
                      return;
                    }
                    model_.evaluate_drawn(part, x.topRows(part.size), all.topRows(part.size));
                    out.col(0).segment(first_row, part.size) = all.col(output_->column).head(part.size);
                  });
  }

 private:
  const lifecycle_model& model_;
  const Eigen::ArrayXXd& drawn_;
  std::vector<Eigen::Index> columns_;
  std::optional<output_column> output_;
};

}  // namespace detail

/// `model`'s inputs drawn for the run `options` describes (in parallel, by blocks).
inline input_draws draw_inputs(std::shared_ptr<const lifecycle_model> model, const run_options& options) {
  input_draws d;
  d.values = detail::drawn_once(*model, options);
  d.model = std::move(model);
  d.seed = options.seed;
  d.samples = options.samples;
  return d;
}

/// simulate()'s run of `model` (every output), its inputs read from `draws` when they fit the
/// run and hold every input of the model (drawn_columns), else drawn as simulate() draws them:
/// the same result, bit for bit, either way.
inline run_result simulate_from(const lifecycle_model& model, const input_draws& draws, const run_options& options) {
  const auto columns = draws.fits(options) ? detail::drawn_columns(*draws.model, model) : std::nullopt;
  if (!columns) return run(model, model.output_names(), options);
  return run(detail::drawn_inputs_model(model, draws.values, *columns), model.output_names(), options);
}

}  // namespace trnmodel::sensitivity
