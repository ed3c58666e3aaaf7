#pragma once
// An engine block in parts of 256 samples, for the models that evaluate a lifecycle model from
// inputs they provide themselves (a tornado's runs, a side of the pairing check, a break-even's
// inputs drawn once): a part's inputs (rows x drawn inputs) and its metrics (rows x the model's
// columns) stay in cache between filling the inputs and running the lifecycle, in thread-local
// buffers lent for the call (montecarlo/scratch.hpp), their columns a cache line longer than
// the part (scratch.hpp's padding_rows).
#include <algorithm>
#include <cstdint>

#include <Eigen/Core>

#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/scratch.hpp"

namespace trnmodel::sensitivity::detail {

/// Samples per part: the lifecycle's lane rows (lifecycle/lanes.hpp).
constexpr Eigen::Index part_rows = 256;

/// Calls body(part, first_row, x, all) for each part of `block`: `part` its samples, first_row
/// its first row in the block, x a buffer of at least part.size rows and `inputs` columns, all
/// one of at least part.size rows and `columns` columns.
template <class Body>
void for_each_part(const block_view& block, Eigen::Index inputs, Eigen::Index columns, const Body& body) {
  thread_local trnmodel::detail::scratch_slot inputs_slot, metrics_slot;
  trnmodel::detail::scratch x(inputs_slot, part_rows + trnmodel::detail::padding_rows, inputs);
  trnmodel::detail::scratch all(metrics_slot, part_rows + trnmodel::detail::padding_rows, columns);
  for (Eigen::Index first_row = 0; first_row < block.size; first_row += part_rows) {
    block_view part = block;
    part.first = block.first + static_cast<std::uint64_t>(first_row);
    part.size = std::min(part_rows, block.size - first_row);
    body(part, first_row, x.array(), all.array());
  }
}

}  // namespace trnmodel::sensitivity::detail
