#pragma once
// Sobol indices of a user function of named inputs and of a scenario's metric: the two
// evaluators of the Saltelli design (saltelli.hpp).
//
// Factors of a function are its non-constant inputs. Factors of a scenario are its drawn
// inputs, by JSON path, plus "chance": all aleatory randomness (failures, cache draws, the
// quality gate), which is one factor because it is keyed by one index per sample
// (chance_draws::chance_index). Its indices say how much of the spread is luck.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/montecarlo/scratch.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/random/uniform_column.hpp"
#include "trnmodel/sensitivity/output.hpp"
#include "trnmodel/sensitivity/saltelli.hpp"

namespace trnmodel::sensitivity {

/// The name of the factor that stands for a scenario's aleatory draws (failures, cache, gate).
inline const char* const chance_factor = "chance";

/// The design's rows for a set of named inputs: x (n (d + 2) x inputs), rows stacked as
/// [A; B; AB_1; ...; AB_d] over the non-constant inputs (the factors), each block of n rows in
/// base-index order. Ownership: it refers to `inputs`, which must outlive it; immutable once
/// made, so rows() may run from many threads.
class function_design {
 public:
  /// The design over `inputs` (kept by reference); its factors are the non-constant ones.
  explicit function_design(const input_set& inputs) : inputs_(inputs) {
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (!inputs.inputs()[k].value.is_constant()) factor_inputs_.push_back(k);
  }

  /// The factors' names, in input order.
  std::vector<std::string> factors() const {
    std::vector<std::string> names;
    for (const std::size_t k : factor_inputs_) names.push_back(inputs_.inputs()[k].name);
    return names;
  }
  /// Row kinds per base index: A, B and one AB_i per factor (factors + 2).
  Eigen::Index kinds() const { return static_cast<Eigen::Index>(factor_inputs_.size() + 2); }

  /// Resizes x to n x kinds() rows by inputs and fills it with the design rows of base indices
  /// [base_first, base_first + n): A, then B, then each AB_i, n rows each.
  void rows(std::uint64_t seed, std::uint64_t base_first, Eigen::Index n, Eigen::ArrayXXd& x) const {
    const auto columns = static_cast<Eigen::Index>(inputs_.size());
    x.resize(n * kinds(), columns);
    for (Eigen::Index k = 0; k < columns; ++k) {
      const auto& input = inputs_.inputs()[static_cast<std::size_t>(k)];
      const std::uint32_t stream = stream_id(input.name);
      draw_design_column(input.value, stream, seed, base_first, n, false, x.col(k).data());
      draw_design_column(input.value, stream, seed, base_first, n, true, x.col(k).data() + n);
    }
    for (std::size_t i = 0; i < factor_inputs_.size(); ++i) {
      const Eigen::Index top = static_cast<Eigen::Index>(row_ab(i)) * n;
      x.middleRows(top, n) = x.topRows(n);
      x.col(static_cast<Eigen::Index>(factor_inputs_[i])).segment(top, n) =
          x.col(static_cast<Eigen::Index>(factor_inputs_[i])).segment(n, n);
    }
  }

 private:
  const input_set& inputs_;
  std::vector<std::size_t> factor_inputs_;
};

/// f(const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXd> y) evaluates y for every row of x.
template <class Function> sobol_result sobol(const input_set& inputs, const Function& f, const sobol_options& options) {
  const function_design design(inputs);
  const auto evaluate = [&](std::uint64_t seed, std::uint64_t base_first, Eigen::Index n, Eigen::ArrayXXd& y) {
    Eigen::ArrayXXd x;
    design.rows(seed, base_first, n, x);
    Eigen::ArrayXd flat(x.rows());
    f(static_cast<const Eigen::ArrayXXd&>(x), Eigen::Ref<Eigen::ArrayXd>(flat));
    y = Eigen::Map<const Eigen::ArrayXXd>(flat.data(), n, design.kinds());
  };
  return sobol(evaluate, design.factors(), options, "f");
}

/// The scenario's factors: drawn inputs by path, then "chance".
inline std::vector<std::string> scenario_factors(const lifecycle_model& model) {
  std::vector<std::string> factors = model.uncertain_inputs();
  factors.emplace_back(chance_factor);
  return factors;
}

/// Refuses a metric that needs unknown inputs (a NaN output has no variance to apportion).
inline void require_known_for(const lifecycle_model& model, metric::id m) {
  const auto needed = model.unknowns_needed_by(m);
  if (needed.empty()) return;
  std::string list;
  for (const auto& path : needed) list += (list.empty() ? "" : ", ") + path;
  throw unknown_input_error(std::string(metric_names()[m]) + " needs unknown inputs: " + list, needed);
}

/// The metric of that name; input_error listing the metrics otherwise.
inline metric::id metric_named(const std::string& name, const std::string& parameter = "output") {
  for (std::size_t m = 0; m < metric::count; ++m)
    if (metric_names()[m] == name) return static_cast<metric::id>(m);
  std::string all;
  for (std::size_t m = 0; m < metric::count; ++m) all += (m ? ", " : "") + std::string(metric_names()[m]);
  trnmodel::detail::fail(parameter, "no metric named \"" + name + "\" (metrics: " + all + ")");
}

/// The Saltelli design of a scenario's metrics: f at rows A, B and AB_1 .. AB_d of a block of base
/// indices, the factors being the scenario's drawn inputs and chance (saltelli.hpp's Evaluator),
/// one group of d + 2 columns per output (sobol_outputs), each design row's lifecycle evaluated
/// once for all of them. Built once, callable from several threads at once.
class scenario_design {
 public:
  scenario_design(const scenario& s, const std::string& output_name)
      : scenario_design(s, std::vector<std::string>{output_name}) {}
  scenario_design(const scenario& s, const std::vector<std::string>& output_names) : model_(s) {
    for (const std::string& name : output_names) {
      outputs_.push_back(output_named(model_, name));
      require_known_for(model_, outputs_.back().metric);
      metric_columns_ = std::max(metric_columns_, outputs_.back().columns(model_));
    }
  }
  /// The factors, in the design's column order: the drawn inputs, then "chance".
  std::vector<std::string> factors() const { return scenario_factors(model_); }

  void operator()(std::uint64_t seed, std::uint64_t base_first, Eigen::Index n, Eigen::ArrayXXd& y) const {
    const std::size_t inputs = model_.input_count();
    // Columns a cache line longer than the block (scratch.hpp's padding_rows).
    const Eigen::Index padded = n + trnmodel::detail::padding_rows;
    Eigen::ArrayXXd ua_buffer(padded, static_cast<Eigen::Index>(inputs)),
        ub_buffer(padded, static_cast<Eigen::Index>(inputs));
    auto ua = ua_buffer.topRows(n);
    auto ub = ub_buffer.topRows(n);
    for (std::size_t k = 0; k < inputs; ++k) {
      // Matrix A takes the uniforms of samples 2j, B those of 2j + 1 (saltelli.hpp).
      const auto rows = static_cast<std::size_t>(n);
      const std::uint32_t stream = model_.input_stream(k);
      uniform_column(seed, stream, 0, 2 * base_first, 2, rows, ua.col(static_cast<Eigen::Index>(k)).data());
      uniform_column(seed, stream, 0, 2 * base_first + 1, 2, rows, ub.col(static_cast<Eigen::Index>(k)).data());
    }
    model_.to_values(ua);
    model_.to_values(ub);
    Eigen::ArrayXXd u_buffer(padded, static_cast<Eigen::Index>(inputs)), metrics_buffer(padded, metric_columns_);
    auto u = u_buffer.topRows(n);
    auto metrics = metrics_buffer.topRows(n);
    const Eigen::Index kinds = y.cols() / static_cast<Eigen::Index>(outputs_.size());
    for (Eigen::Index kind = 0; kind < kinds; ++kind) {
      const auto k = static_cast<std::size_t>(kind);
      u = k == row_b ? ub : ua;
      if (k >= row_ab(0) && k - row_ab(0) < inputs)
        u.col(static_cast<Eigen::Index>(k - row_ab(0))) = ub.col(static_cast<Eigen::Index>(k - row_ab(0)));
      // "chance" is the last factor.
      const std::uint64_t chance_offset = design_sample(0, k, inputs);
      model_.evaluate(
          seed, u, [&](Eigen::Index r) { return 2 * (base_first + static_cast<std::uint64_t>(r)) + chance_offset; },
          metrics);
      for (std::size_t o = 0; o < outputs_.size(); ++o)
        y.col(static_cast<Eigen::Index>(o) * kinds + kind) = metrics.col(outputs_[o].column);
    }
  }

 private:
  lifecycle_model model_;
  std::vector<output_column> outputs_;
  Eigen::Index metric_columns_ = 0;  // the columns a run must produce for every output
};

/// Sobol indices of `output` (a metric, or a stage's "<stage>/<metric>", output.hpp) over the
/// scenario's drawn inputs and chance (Saltelli design). Thread-safe as simulate.
inline sobol_result sobol(const scenario& s, const std::string& output_name, const sobol_options& options) {
  const scenario_design design(s, output_name);
  return sobol(design, design.factors(), options, output_name);
}

/// The same for a job metric.
inline sobol_result sobol(const scenario& s, metric::id output, const sobol_options& options) {
  return sobol(s, std::string(metric_names()[output]), options);
}

/// Sobol indices of several outputs of the scenario from one design (one lifecycle per design
/// row): each result bit for bit sobol(s, that output, options).
inline std::vector<sobol_result> sobol(const scenario& s, const std::vector<std::string>& output_names,
                                       const sobol_options& options) {
  if (output_names.empty()) trnmodel::detail::fail("output", "name at least one output");
  const scenario_design design(s, output_names);
  return sobol_outputs(design, design.factors(), options, output_names);
}

}  // namespace trnmodel::sensitivity
