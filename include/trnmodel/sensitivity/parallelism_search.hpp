#pragma once
// The configuration search (docs/throughput.md): for a scenario whose step time is derived from
// the platform, every valid parallel layout of its chips, each checked (memory, divisibility)
// and simulated on common random numbers, ranked by the median of a metric. Python's
// tm.search_parallelism calls this. It lives beside the sweeps rather than in throughput/
// because it simulates whole scenarios (a layer above the step-time model).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/run_options.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel::detail {
inline std::vector<long long> divisors(long long n) {
  std::vector<long long> out;
  for (long long d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}
}  // namespace trnmodel::detail

namespace trnmodel::sensitivity {

/// One searched dimension of a layout: an integer parallelism field and the values it tries.
/// The product of the searched dimensions must divide the chips; data-parallel replicas (dp)
/// take the rest. A plain value.
struct layout_dimension {
  std::string name;  ///< its column name, e.g. "tp"
  std::string path;  ///< its dotted path, e.g. "parallelism.tp"
  std::vector<long long> values;  ///< the values tried, in this order
};

/// What search_parallelism() tries and how it ranks. A plain value.
struct parallelism_search_options {
  /// Micro-batch sizes tried with every layout (each ≥ 1); a layout keeps those for which
  /// global_batch is divisible by dp × micro_batch.
  std::vector<long long> micro_batches{1, 2, 4, 8};
  /// The largest tensor-parallel degree tried by the default dimensions; 0: no limit.
  long long max_tp = 0;
  /// The largest context-parallel degree tried by the default dimensions; 0: no limit, 1: none.
  long long max_cp = 0;
  /// The metric whose median ranks the layouts: run_cost_usd, step_time_s or wall_h.
  metric::id rank_by = metric::run_cost_usd;
  /// The dimensions searched, the first varying slowest; empty: default_layout_dimensions().
  std::vector<layout_dimension> dimensions;
  /// The node counts tried (cluster.nodes, each ≥ 1), varying slowest of all; empty: the
  /// scenario's own. The searched dimensions are the same at every count (tp over one fast
  /// domain, pp over the layers), and dp takes what the count's chips leave.
  std::vector<long long> node_counts;
};

/// One layout tried. A plain value.
struct layout_candidate {
  long long nodes = 1;  ///< cluster.nodes of the layout
  std::vector<long long> values;  ///< one per searched dimension, in the dimensions' order
  long long dp = 1;  ///< the data-parallel replicas: chips / product of values
  long long micro_batch = 1;  ///< sequences per micro-batch, one of the options' micro_batches
  bool fits = false;  ///< whether the scenario with this layout is valid
  std::string reason;  ///< why not (the input_error's message), else empty
  double step_time_s = std::numeric_limits<double>::quiet_NaN();  ///< P50 (NaN unless fits)
  double step_time_p90_s = std::numeric_limits<double>::quiet_NaN();  ///< P90
  double wall_h = std::numeric_limits<double>::quiet_NaN();  ///< P50
  double run_cost_usd = std::numeric_limits<double>::quiet_NaN();  ///< P50 (NaN when prices are unknown)

  /// The P50 of one of the ranked metrics (run_cost_usd, step_time_s, wall_h).
  double median(metric::id m) const {
    switch (m) {
      case metric::run_cost_usd: return run_cost_usd;
      case metric::step_time_s: return step_time_s;
      case metric::wall_h: return wall_h;
      default:
        trnmodel::detail::fail("rank_by",
                               "must be run_cost_usd, step_time_s or wall_h, got " + std::string(metric_names()[m]));
    }
  }
};

/// Every layout search_parallelism() tried, in enumeration order. A plain value.
struct parallelism_search_result {
  std::vector<std::string> dimension_names;  ///< the searched dimensions (then dp, micro_batch)
  std::vector<std::string> dimension_paths;  ///< their dotted paths, in the same order
  std::vector<layout_candidate> layouts;  ///< in enumeration order
  metric::id rank_by = metric::run_cost_usd;  ///< the metric ranked() orders by (the options' rank_by)

  /// Indices into layouts: the fitting ones by ascending median of rank_by (ties in
  /// enumeration order, NaN last), then those that do not fit, in enumeration order.
  std::vector<std::size_t> ranked() const {
    std::vector<std::size_t> order, rest;
    for (std::size_t k = 0; k < layouts.size(); ++k) (layouts[k].fits ? order : rest).push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double x = layouts[a].median(rank_by), y = layouts[b].median(rank_by);
      return std::isnan(y) ? !std::isnan(x) : x < y;
    });
    order.insert(order.end(), rest.begin(), rest.end());
    return order;
  }
};

/// Context parallelism is searched only for sequences longer than this, and each chip keeps at
/// least this many tokens of a sequence: below it attention is a small share of the step and
/// the key/value exchange does not pay (Llama 3 trained its 8K stage without it and used it
/// for long context, arXiv:2407.21783 sec. 3.3.2).
constexpr long long cp_min_chunk_tokens = 8192;

/// The context-parallel degrees worth trying for sequences of `sequence_length` tokens: 1, and
/// the divisors that leave each chip at least cp_min_chunk_tokens tokens (at most `max_cp` when
/// it is > 0).
inline std::vector<long long> context_parallel_degrees(long long sequence_length, long long max_cp = 0) {
  std::vector<long long> degrees;
  for (const long long c : trnmodel::detail::divisors(sequence_length))
    if ((c == 1 || sequence_length / c >= cp_min_chunk_tokens) && (max_cp <= 0 || c <= max_cp)) degrees.push_back(c);
  return degrees;
}

/// The dimensions searched by default, the first varying slowest: tp over the divisors of the
/// chips of one fast domain (a node or an UltraServer), at most `max_tp` when it is > 0; cp
/// over context_parallel_degrees() of model.sequence_length (only 1 without a sequence length);
/// then pp over the divisors of model.layers.
inline std::vector<layout_dimension> default_layout_dimensions(const scenario& s, long long max_tp = 0,
                                                               long long max_cp = 0) {
  const platform_profile* p = s.profile();
  if (p == nullptr) trnmodel::detail::fail(path_of(field::cluster_platform), "the search needs a hardware profile");
  if (!s.has_integer(field::model_layers))
    trnmodel::detail::fail(path_of(field::model_layers), "the search needs the number of layers");
  layout_dimension tp{"tp", path_of(field::parallelism_tp), {}};
  for (const long long d : trnmodel::detail::divisors(p->chips_per_domain()))
    if (max_tp <= 0 || d <= max_tp) tp.values.push_back(d);
  layout_dimension cp{"cp", path_of(field::parallelism_cp), {1}};
  if (s.has_integer(field::model_sequence_length))
    cp.values = context_parallel_degrees(s.integer(field::model_sequence_length), max_cp);
  return {tp, cp, {"pp", path_of(field::parallelism_pp), trnmodel::detail::divisors(s.integer(field::model_layers))}};
}

/// The layouts search_parallelism() tries, in its order, not yet evaluated: for each node count
/// (the options' node_counts, or the scenario's own), every combination of the dimensions'
/// values whose product divides the chips (nodes × chips per node) gives dp = chips / product,
/// and each micro-batch size that divides global_batch / dp completes a layout. Checks the
/// options (input_error naming the option) and refuses a measured step time (the layout would
/// not change it), before any run.
inline parallelism_search_result enumerate_layouts(const scenario& s, const parallelism_search_options& search = {}) {
  if (s.mode() == throughput_mode::measured)
    trnmodel::detail::fail(
        path_of(field::throughput_mode),
        "the search needs a step time derived from the platform (flops, analytic or extrapolated), got measured");
  parallelism_search_result result;
  result.rank_by = search.rank_by;
  layout_candidate{}.median(search.rank_by);  // checks rank_by before any work
  const platform_profile* p = s.profile();
  if (p == nullptr) trnmodel::detail::fail(path_of(field::cluster_platform), "the search needs a hardware profile");
  for (const long long mb : search.micro_batches)
    if (mb < 1) trnmodel::detail::fail("micro_batches", "must be ≥ 1, got " + std::to_string(mb));
  for (const long long n : search.node_counts)
    if (n < 1) trnmodel::detail::fail("nodes", "node counts must be ≥ 1, got " + std::to_string(n));
  const auto dimensions =
      search.dimensions.empty() ? default_layout_dimensions(s, search.max_tp, search.max_cp) : search.dimensions;
  for (const auto& d : dimensions) {
    if (d.values.empty()) trnmodel::detail::fail("dimensions[" + d.name + "]", "must try at least one value");
    for (const long long v : d.values)
      if (v < 1) trnmodel::detail::fail("dimensions[" + d.name + "]", "values must be ≥ 1, got " + std::to_string(v));
    result.dimension_names.push_back(d.name);
    result.dimension_paths.push_back(d.path);
  }
  const std::vector<long long> node_counts =
      search.node_counts.empty() ? std::vector<long long>{s.integer(field::cluster_nodes)} : search.node_counts;
  const long long global_batch = s.integer(field::parallelism_global_batch);

  for (const long long nodes : node_counts) {
    const long long chips = nodes * p->chips_per_node;
    // The product of the dimensions, the first varying slowest (as nested loops would).
    std::vector<std::size_t> at(dimensions.size(), 0);
    for (bool more = !dimensions.empty(); more;) {
      long long product = 1;
      std::vector<long long> values;
      for (std::size_t d = 0; d < dimensions.size(); ++d) {
        values.push_back(dimensions[d].values[at[d]]);
        product *= values.back();
      }
      if (chips % product == 0) {
        const long long dp = chips / product;
        for (const long long mb : search.micro_batches)
          if (global_batch % (dp * mb) == 0) {
            layout_candidate c;
            c.nodes = nodes;
            c.values = values;
            c.dp = dp;
            c.micro_batch = mb;
            result.layouts.push_back(std::move(c));
          }
      }
      more = false;
      for (std::size_t d = dimensions.size(); d-- > 0;) {
        if (++at[d] < dimensions[d].values.size()) {
          more = true;
          break;
        }
        at[d] = 0;
      }
    }
  }
  return result;
}

/// Evaluates one layout of enumerate_layouts(): the scenario updated with it (cluster.nodes,
/// the dimensions' `paths`, then parallelism.dp and parallelism.micro_batch) either fails
/// validation (the layout does not fit: the reason is kept) or is simulated with `options`
/// (samples streamed, unknown inputs giving NaN metrics) for the medians of step_time_s, wall_h
/// and run_cost_usd and the P90 of step_time_s. The same numbers wherever and with whatever
/// threads it runs. Thread-safe as simulate.
inline void evaluate_layout(const scenario& s, const std::vector<std::string>& paths, layout_candidate& c,
                            const run_options& options) {
  std::vector<std::pair<std::string, ordered_json>> layout;
  layout.emplace_back(path_of(field::cluster_nodes), c.nodes);
  for (std::size_t d = 0; d < paths.size(); ++d) layout.emplace_back(paths[d], c.values.at(d));
  layout.emplace_back(path_of(field::parallelism_dp), c.dp);
  layout.emplace_back(path_of(field::parallelism_micro_batch), c.micro_batch);
  std::optional<scenario> candidate;
  try {
    candidate.emplace(s.updated(layout));
  } catch (const input_error& e) {
    c.fits = false;
    c.reason = e.what();
    return;
  }
  run_options point = options;
  point.keep_samples = false;
  const std::vector<std::string> kept{"step_time_s", "wall_h", "run_cost_usd"};
  const run_result r = simulate(*candidate, point, kept, true);
  c.fits = true;
  c.reason.clear();
  c.step_time_s = r.quantile(0, 0.5);
  c.step_time_p90_s = r.quantile(0, 0.9);
  c.wall_h = r.quantile(1, 0.5);
  c.run_cost_usd = r.quantile(2, 0.5);
}

/// Ranks the parallel layouts of the scenario's chips (docs/throughput.md): every layout of
/// enumerate_layouts(), each evaluated by evaluate_layout() with `options`. Progress is one
/// count over every layout's samples. Thread-safe as simulate.
inline parallelism_search_result search_parallelism(const scenario& s, const run_options& options,
                                                    const parallelism_search_options& search = {}) {
  parallelism_search_result result = enumerate_layouts(s, search);
  const std::uint64_t total = result.layouts.size() * options.samples;
  for (std::size_t k = 0; k < result.layouts.size(); ++k) {
    run_options point = options;
    if (options.progress) {
      const std::uint64_t before = k * options.samples;
      point.progress = [&options, before, total](std::uint64_t done, std::uint64_t) {
        options.progress(before + done, total);
      };
    }
    evaluate_layout(s, result.dimension_paths, result.layouts[k], point);
  }
  return result;
}

}  // namespace trnmodel::sensitivity
