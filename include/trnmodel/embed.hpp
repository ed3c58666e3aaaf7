#pragma once
// The compiled embedding (docs/cpp.md): scenarios, simulation, comparison and break-even
// behind a thin interface of the standard library only (no Eigen, Boost, TBB or nlohmann
// here), implemented once in the library target trnmodel::trnmodel_lib. A file that includes
// only this header compiles in about a second; the numbers are those of the header-only API
// and of Python, bit for bit.
//
// Every function reports bad input as trnmodel::input_error (a std::invalid_argument whose
// message names the path, the value and the rule), unknown inputs as unknown_input_error (which
// lists them), and a cancelled run as cancelled_error (a std::runtime_error).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/montecarlo/run_options.hpp"
#include "trnmodel/montecarlo/summary_row.hpp"

namespace trnmodel {
class scenario;
class run_result;
}  // namespace trnmodel

namespace trnmodel::embed {

/// A library of hardware profiles (name -> "trnmodel.profile/1" document) that a scenario's
/// cluster.platform may name. Thread-safety: immutable, share it freely between threads.
/// Ownership: copies share one immutable library.
class profiles {
 public:
  /// An empty library: a scenario loaded with it can name no platform profile.
  profiles();
  /// The names of the profiles, sorted.
  std::vector<std::string> names() const;
  /// Whether a profile of this name is in the library.
  bool contains(const std::string& name) const;
  /// The library with the profile file `file` added as `name` (replacing one of that name).
  profiles with_file(const std::string& name, const std::string& file) const;

  struct impl;
  /// For the library's implementation (embed.cpp): wraps a library it built.
  explicit profiles(std::shared_ptr<const impl> p) : impl_(std::move(p)) {}
  /// For the library's implementation: the library itself (impl is defined only there).
  const impl& internals() const { return *impl_; }

 private:
  std::shared_ptr<const impl> impl_;
};

/// Every "*.json" profile file of `dir` (name = file stem), each checked; input_error naming
/// the directory or the file otherwise. Thread-safe.
profiles load_profiles(const std::string& dir);

namespace detail {
profiles shipped_profiles_from(const char* configured_dir);
}  // namespace detail

/// The profiles shipped with the package: the directory TRNMODEL_PROFILES_DIR names at run
/// time, else the one the CMake package was installed with (PREFIX/share/trnmodel/profiles).
/// Read once per directory and process. Thread-safe.
inline profiles shipped_profiles() {
#ifdef TRNMODEL_PROFILES_DIR
  return detail::shipped_profiles_from(TRNMODEL_PROFILES_DIR);
#else
  return detail::shipped_profiles_from("");
#endif
}

/// A validated scenario ("trnmodel.scenario/1", docs/scenario.md). Thread-safety: immutable;
/// simulate, compare and break_even may run on one scenario from many threads at once.
/// Ownership: copies are cheap and share one immutable scenario; updated() makes a new one.
class scenario {
 public:
  /// From a scenario file; cluster.platform may name a profile of `library`.
  static scenario from_file(const std::string& file, const profiles& library = shipped_profiles());
  /// From JSON text (syntax errors give line and column; duplicate keys are refused).
  static scenario from_text(const std::string& json_text, const profiles& library = shipped_profiles());

  /// A copy with fields changed: (dotted path, JSON text of the value), e.g.
  /// {"prices.node_hour_usd", "40"}, {"throughput.step_time_s",
  /// R"({"dist": "lognormal", "p50": 2, "p90": 3})"}, or "null" to remove a field. The result
  /// is validated as a whole, against the same profiles.
  scenario updated(const std::vector<std::pair<std::string, std::string>>& changes_json) const;
  /// A copy with one quantity or number set to a fixed value.
  scenario updated(const std::string& path, double value) const;

  /// The scenario as JSON text (indented by `indent` spaces; -1: one line).
  std::string to_json(int indent = 2) const;
  /// Its "name" (empty when it has none).
  std::string name() const;
  /// throughput.mode: measured, flops, analytic or extrapolated.
  std::string mode() const;
  /// The hardware profile the platform resolved to (empty when none).
  std::string profile_name() const;
  /// Inputs marked unknown (and an absent price), each "path (reason)".
  std::vector<std::string> unknown_inputs() const;
  /// Metrics that need an unknown input: simulate refuses them unless allow_unknown.
  std::vector<std::string> unknown_metrics() const;
  /// Paths of the inputs that are drawn (uncertain and known).
  std::vector<std::string> uncertain_inputs() const;

  /// Wraps a header-only trnmodel::scenario (shared, not copied), for code that uses both APIs.
  explicit scenario(std::shared_ptr<const trnmodel::scenario> s) : impl_(std::move(s)) {}
  /// The header-only trnmodel::scenario behind it (complete only where its header is included).
  const trnmodel::scenario& internals() const { return *impl_; }

 private:
  std::shared_ptr<const trnmodel::scenario> impl_;
};

/// One output's streamed moments over its non-NaN values (mean, min and max are NaN when there
/// is none). A plain value.
struct output_stats {
  /// \var count
  /// Non-NaN values (infinities included).
  /// \var nan_count
  /// Samples whose value was NaN (e.g. a metric that needs an unknown input).
  std::uint64_t count = 0, nan_count = 0;
  /// \var mean
  /// Mean of the non-NaN values, in the output's unit.
  /// \var sd
  /// Sample standard deviation (divisor n - 1; NaN with fewer than two values).
  /// \var min
  /// Smallest non-NaN value.
  /// \var max
  /// Largest non-NaN value.
  double mean = 0, sd = 0, min = 0, max = 0;
};

/// The result of a run, read-only. Outputs by name (metric_names() for simulate) or index.
/// Thread-safety: every member is const, safe from many threads. Ownership: copies share one
/// immutable result.
class result {
 public:
  /// The outputs' names, in output (index) order.
  const std::vector<std::string>& names() const;
  /// Samples drawn.
  std::uint64_t samples() const;
  /// Whether every sample was kept (quantiles are then exact, type 7 as numpy.quantile).
  bool kept() const;
  /// The index of an output; input_error listing the outputs when there is none of that name.
  std::size_t index(const std::string& name) const;
  /// Streamed moments of output `name`; input_error listing the outputs when there is none.
  output_stats stats(const std::string& name) const;
  /// The same by index; input_error when `output` is out of range.
  output_stats stats(std::size_t output) const;
  /// quantile("wall_h", 0.9): the P90 of the wall time. input_error outside [0, 1].
  double quantile(const std::string& name, double probability) const;
  /// The same by index (input_error when `output` is out of range).
  double quantile(std::size_t output, double probability) const;
  /// Several quantiles of one output, in the order of `probabilities`: exact from kept samples,
  /// else the log histogram's (within run_options::relative_accuracy). NaN values are left out.
  std::vector<double> quantiles(const std::string& name, const std::vector<double>& probabilities) const;
  /// One output's samples, copied (input_error unless they were kept).
  std::vector<double> values(const std::string& name) const;
  /// One output's row: mean sd p10 p50 p80 p90 p99 min max and its NaN count.
  summary_row summary(const std::string& name) const;
  /// One row per output, in output order.
  std::vector<summary_row> summary() const;

  /// Wraps a header-only trnmodel::run_result (shared, not copied).
  explicit result(std::shared_ptr<const run_result> r) : impl_(std::move(r)) {}
  /// The header-only trnmodel::run_result behind it (complete only where its header is included).
  const run_result& internals() const { return *impl_; }

 private:
  std::shared_ptr<const run_result> impl_;
};

/// A comparison of one metric between two scenarios on common random numbers: outputs "a",
/// "b", "difference" (a − b, per sample) and "a_less_b" (1 when a < b). Read-only, as result.
class comparison : public result {
 public:
  /// The run `r` of a comparison of metric `metric` (what compare() returns).
  comparison(result r, std::string metric) : result(std::move(r)), metric_(std::move(metric)) {}
  /// The metric compared, by name.
  const std::string& metric() const { return metric_; }
  /// P(A < B): the share of samples in which a's metric is below b's.
  double p_a_less_b() const { return stats("a_less_b").mean; }
  /// Moments of the per-sample difference a − b.
  output_stats difference() const { return stats("difference"); }
  /// A quantile of the per-sample difference a − b (input_error outside [0, 1]).
  double difference_quantile(double probability) const { return quantile("difference", probability); }

 private:
  std::string metric_;
};

/// Names of the metrics simulate computes, in output order (docs/metrics.md).
std::vector<std::string> metric_names();

/// Simulates the scenario: one output per metric. Refuses unknown inputs (unknown_input_error
/// listing each) unless `allow_unknown`, which makes the metrics that need them NaN.
result simulate(const scenario& s, const run_options& options, bool allow_unknown = false);
/// The same, keeping only `metrics` (in that order): the same bits for those, less memory.
result simulate(const scenario& s, const run_options& options, const std::vector<std::string>& metrics,
                bool allow_unknown);

/// Metric `metric` of a and b sample by sample on common random numbers.
comparison compare(const scenario& a, const scenario& b, const std::string& metric, const run_options& options);

/// The statistic a break-even equates: the mean, or a quantile (the P90 a budget is signed on).
struct statistic {
  double probability = -1;  ///< < 0: the mean; else the quantile at this probability
  /// The mean.
  static statistic mean() { return {}; }
  /// The quantile at probability p; input_error ("statistic: a quantile's probability must be in
  /// [0, 1], got -0.1") unless p is in [0, 1], as the header-only sensitivity::statistic.
  static statistic quantile(double p) {
    if (!(p >= 0 && p <= 1))
      trnmodel::detail::fail("statistic",
                             "a quantile's probability must be in [0, 1], got " + trnmodel::detail::format_number(p));
    return {p};
  }
};

/// What break_even found. A plain value.
struct break_even_result {
  double value;  ///< of the path in the varied scenario
  double target;  ///< the fixed scenario's statistic
  double achieved;  ///< the varied scenario's statistic at `value`
  int evaluations;  ///< simulations of the varied scenario
};

/// The value of `path` in `varied` at which its statistic of `metric` equals that of `fixed`
/// (TOMS 748 to a relative 1e-9, every run on the same seed). [lo, hi] must bracket it; with
/// the default NaN bounds the bracket grows from the path's current median.
break_even_result break_even(const scenario& fixed, const scenario& varied, const std::string& metric,
                             const std::string& path, statistic stat, const run_options& options,
                             double lo = std::numeric_limits<double>::quiet_NaN(),
                             double hi = std::numeric_limits<double>::quiet_NaN());

}  // namespace trnmodel::embed
