#pragma once
// Rank correlations between inputs and an output (docs/sensitivity.md): Spearman's coefficient (the
// Pearson correlation of the ranks) and the partial rank correlation coefficient, PRCC (the
// correlation of an input's rank with the output's rank once the other inputs' ranks are
// regressed out; Iman & Conover 1980, Marino et al. 2008). Both come from an ordinary run's
// samples at no extra model cost: a scenario's inputs are recomputed from their counters.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "trnmodel/check.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/random/uniform_column.hpp"

namespace trnmodel::sensitivity {

/// Ranks 1..n, ties sharing their average rank.
inline Eigen::ArrayXd ranks(const Eigen::Ref<const Eigen::ArrayXd>& x) {
  const Eigen::Index n = x.size();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return x(a) < x(b); });
  Eigen::ArrayXd r(n);
  for (Eigen::Index i = 0; i < n;) {
    Eigen::Index j = i;
    while (j + 1 < n && x(order[static_cast<std::size_t>(j + 1)]) == x(order[static_cast<std::size_t>(i)])) ++j;
    const double average = static_cast<double>(i + j) / 2 + 1;
    for (Eigen::Index k = i; k <= j; ++k) r(order[static_cast<std::size_t>(k)]) = average;
    i = j + 1;
  }
  return r;
}

/// Spearman and partial rank correlations of each factor with an output. A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct rank_correlations {
  /// \var spearman
  /// Spearman's coefficient of each input column with the output, one per input column; NaN for
  /// a constant column (or output).
  /// \var prcc
  /// The partial rank correlation coefficient of each input column with the output (the other
  /// varying columns' ranks regressed out), one per input column; NaN for a constant column
  /// (or output).
  std::vector<double> spearman, prcc;
};

/// x: samples x inputs, y: samples. Rows with a non-finite y are refused.
inline rank_correlations rank_correlate(const Eigen::Ref<const Eigen::ArrayXXd>& x,
                                        const Eigen::Ref<const Eigen::ArrayXd>& y) {
  const Eigen::Index n = y.size(), k = x.cols();
  if (x.rows() != n)
    trnmodel::detail::fail(
        "x", "needs one row per output value, got " + std::to_string(x.rows()) + " rows for " + std::to_string(n));
  if (n < 3) trnmodel::detail::fail("samples", "rank correlations need at least 3 samples, got " + std::to_string(n));
  if (!y.isFinite().all())
    trnmodel::detail::fail("output", "has non-finite values; rank correlations need a finite output");
  // Standardised ranks: columns of z, the output last.
  Eigen::MatrixXd z(n, k + 1);
  std::vector<bool> varies(static_cast<std::size_t>(k + 1));
  for (Eigen::Index c = 0; c <= k; ++c) {
    Eigen::ArrayXd r = ranks(c < k ? Eigen::ArrayXd(x.col(c)) : Eigen::ArrayXd(y));
    r -= r.mean();
    const double norm = std::sqrt(r.square().sum());
    varies[static_cast<std::size_t>(c)] = norm > 0;
    z.col(c) = (norm > 0 ? Eigen::ArrayXd(r / norm) : r).matrix();
  }
  const Eigen::MatrixXd correlation = z.transpose() * z;
  rank_correlations out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Eigen::Index> kept;  ///< varying inputs, then the output
  for (Eigen::Index c = 0; c < k; ++c) {
    out.spearman.push_back(
        varies[static_cast<std::size_t>(c)] && varies[static_cast<std::size_t>(k)] ? correlation(c, k) : nan);
    if (varies[static_cast<std::size_t>(c)]) kept.push_back(c);
  }
  out.prcc.assign(static_cast<std::size_t>(k), nan);
  if (!varies[static_cast<std::size_t>(k)]) return out;
  kept.push_back(k);
  const auto m = static_cast<Eigen::Index>(kept.size());
  Eigen::MatrixXd c(m, m);
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index j = 0; j < m; ++j)
      c(i, j) = correlation(kept[static_cast<std::size_t>(i)], kept[static_cast<std::size_t>(j)]);
  // Partial correlations from the precision matrix: r_iy·rest = −P_iy / √(P_ii P_yy). A
  // pseudo-inverse keeps inputs that are exact functions of others from breaking it.
  const Eigen::MatrixXd p = c.completeOrthogonalDecomposition().pseudoInverse();
  for (Eigen::Index i = 0; i + 1 < m; ++i)
    out.prcc[static_cast<std::size_t>(kept[static_cast<std::size_t>(i)])] =
        -p(i, m - 1) / std::sqrt(p(i, i) * p(m - 1, m - 1));
  return out;
}

/// The values of a scenario's drawn inputs for samples [0, samples) of a run with `seed`
/// (samples x model.input_count(), columns in model.uncertain_inputs() order).
inline Eigen::ArrayXXd drawn_inputs(const lifecycle_model& model, std::uint64_t seed, std::uint64_t samples) {
  Eigen::ArrayXXd x(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(model.input_count()));
  for (std::size_t j = 0; j < model.input_count(); ++j) {
    double* column = x.col(static_cast<Eigen::Index>(j)).data();
    uniform_column(seed, model.input_stream(j), 0, 0, 1, static_cast<std::size_t>(samples), column);
    model.input_quantity(j).ppf(column, column, static_cast<std::size_t>(samples));
  }
  return x;
}

}  // namespace trnmodel::sensitivity
