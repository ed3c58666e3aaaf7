#pragma once
// Monte Carlo of a user function of named uncertain inputs: the engine draws each input on
// its own stream (named after the input, so the same name draws the same uniforms in every
// run: common random numbers), turns uniforms into values by inverse CDF, and hands the
// function a block of inputs (rows = samples, columns = inputs in the given order).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/random/stream_id.hpp"

namespace trnmodel {

/// An input of a user function: its name (which names its random stream) and its quantity.
struct named_quantity {
  std::string name;  ///< non-empty; stream_id(name) is the stream its uniforms come from
  quantity value;  ///< its distribution (or fixed value); an unknown one is refused by input_set
};

/// The named uncertain inputs of a user function, checked (no empty or repeated name, no
/// colliding streams, no unknown quantity: input_error / unknown_input_error otherwise).
/// Thread-safety: immutable once made; draw() may run from many threads. Ownership: a value.
class input_set {
 public:
  /// Checks and keeps `inputs` in their order (the columns of draw()'s x). Throws input_error
  /// ("inputs") when there is none or a name is empty, (the name) when a name repeats or its
  /// stream collides with another's, and unknown_input_error listing every unknown quantity.
  explicit input_set(std::vector<named_quantity> inputs) : inputs_(std::move(inputs)) {
    if (inputs_.empty()) detail::fail("inputs", "need at least one input");
    std::map<std::uint32_t, std::string> streams;
    std::vector<std::string> unknown;
    for (const auto& input : inputs_) {
      if (input.name.empty()) detail::fail("inputs", "an input name must not be empty");
      const std::uint32_t stream = stream_id(input.name);
      const auto [it, inserted] = streams.emplace(stream, input.name);
      if (!inserted) {
        if (it->second == input.name) detail::fail(input.name, "input named twice");
        detail::fail(input.name, "its random stream collides with that of \"" + it->second + "\"; rename one of them");
      }
      streams_.push_back(stream);
      if (input.value.is_unknown()) unknown.push_back(input.name);
    }
    if (!unknown.empty()) {
      std::string list;
      for (const auto& name : unknown) list += (list.empty() ? "" : ", ") + name;
      throw unknown_input_error("unknown inputs are needed: " + list, unknown);
    }
  }

  /// The number of inputs (columns of draw()'s x).
  std::size_t size() const { return inputs_.size(); }
  /// The inputs, in the order given.
  const std::vector<named_quantity>& inputs() const { return inputs_; }
  /// The inputs' names, in the order given.
  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const auto& input : inputs_) names.push_back(input.name);
    return names;
  }

  /// Fills x (block.size rows x size() columns) with the block's input values: input j's inverse
  /// CDF of its stream's uniforms, or its fixed value (no draw) when it is a constant.
  void draw(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> x) const {
    for (std::size_t j = 0; j < inputs_.size(); ++j) {
      double* column = x.col(static_cast<Eigen::Index>(j)).data();
      const quantity& q = inputs_[j].value;
      if (q.is_constant()) {
        x.col(static_cast<Eigen::Index>(j)).setConstant(q.ppf(0.5));
        continue;
      }
      block.uniforms(streams_[j], column);
      q.ppf(column, column, static_cast<std::size_t>(block.size));
    }
  }

 private:
  std::vector<named_quantity> inputs_;
  std::vector<std::uint32_t> streams_;
};

/// Monte Carlo of a user function. The contract of `f`: callable as
/// `f(const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) const`, where x holds one block
/// (rows = samples, columns = the inputs in the order given) and y (same rows, one column per
/// output name, already sized: write into it, never resize) receives the outputs; it is called
/// concurrently from several threads (one block each), so it must not mutate shared state.
/// block_size 0 takes function_block_size, as Python's tm.monte_carlo: the same bits.
template <class Function> run_result monte_carlo(const input_set& inputs, const Function& f,
                                                 std::vector<std::string> output_names, const run_options& options) {
  const auto model = [&](const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) {
    Eigen::ArrayXXd x(block.size, static_cast<Eigen::Index>(inputs.size()));
    inputs.draw(block, x);
    f(static_cast<const Eigen::ArrayXXd&>(x), out);
  };
  return run(model, std::move(output_names), with_block_size(options, function_block_size));
}

}  // namespace trnmodel
