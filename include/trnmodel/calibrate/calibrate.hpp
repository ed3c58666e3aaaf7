#pragma once
// From trial-run journals to a calibrated scenario (docs/journal.md, docs/journal.md "What
// calibration derives"): every input the journals measure replaces the base scenario's,
// written as a quantity with "source": "measured" whose note cites the experiment ids, n,
// the method and the values; every other input keeps the base's value and is listed as
// such. Decisions (checkpoint and evaluation cadence, keep_last) are never calibrated.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/quadrature/tanh_sinh.hpp>

#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/calibrate/statistics.hpp"
#include "trnmodel/calibrate/step_analysis.hpp"
#include "trnmodel/calibrate/trial_configuration.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel::calibrate {

/// One scenario input derived from the journals (or measured but kept from the base). A plain value: copyable,
/// owns its members; concurrent reads are safe.
struct calibrated_input {
  std::string path;  ///< the scenario path of the input (e.g. "throughput.step_time_s")
  std::string
      status;  ///< "measured" (replaced), "prior-dominated" (replaced; the trials weigh less than the prior: source
               ///< "prior"), "kept" (measured once: base kept), "flagged" (kept, outside base P5–P95)
  std::string method;  ///< "empirical", "lognormal", "gamma", "beta posterior", "gamma posterior", "mean", ...
  std::vector<double> values;  ///< what was measured, in the input's unit
  std::vector<std::string> experiments;  ///< experiment ids of the journals measured, sorted, each once
  ordered_json quantity;  ///< the new value (measured) or the base's (kept)
  std::string note;  ///< the provenance note: n, the experiment ids, the method and the values
};

/// A scenario's inputs re-estimated from trial-run journals, with what was left as it was. A plain
/// value: copyable, owns its members; concurrent reads are safe.
struct calibration_result {
  scenario calibrated;  ///< the base with the measured inputs replaced and its description extended
  std::vector<calibrated_input> inputs;  ///< derived from the journals, in table order
  std::vector<std::string> unmeasured;  ///< base inputs no journal measured (kept as they were)
  /// Inputs a journal would have measured but whose fields it lists as unknown, each
  /// "<input>: <experiment_id> did not record <journal field> (<why>)": they keep the base's value.
  std::vector<std::string> stayed_assumed;
  std::vector<step_analysis> step_analyses;  ///< one per journal, in the order given
  std::vector<std::string>
      warnings;  ///< the journals' own, the step analyses', the pooling's and the fits': usable, but worth a look
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

inline std::string join_ids(const std::vector<std::string>& ids) {
  std::string text;
  for (const auto& id : ids) text += (text.empty() ? "" : ", ") + id;
  return text;
}

inline std::string list_values(const std::vector<double>& values) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(values.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", values[i]);
    text += (i ? ", " : "") + std::string(buffer);
  }
  if (values.size() > shown) text += ", … (" + std::to_string(values.size()) + " in all)";
  return text;
}

// E[1/X] and E[1/X²] of a positive quantity, by tanh-sinh quadrature over its quantile
// function (exact endpoints are never evaluated); nothing when either is not finite.
inline std::optional<std::pair<double, double>> reciprocal_moments(const quantity& q) {
  if (q.is_fixed()) {
    const double x = q.ppf(0.5);
    return std::make_pair(1 / x, 1 / (x * x));
  }
  try {
    boost::math::quadrature::tanh_sinh<double> integrator;
    const auto moment = [&](int power) {
      return integrator.integrate(
          [&](double u) {
            const double x = q.ppf(u);
            return x > 0 ? std::pow(x, -power) : std::numeric_limits<double>::infinity();
          },
          0.0, 1.0);
    };
    const double m1 = moment(1), m2 = moment(2);
    if (std::isfinite(m1) && std::isfinite(m2) && m1 > 0 && m2 > m1 * m1) return std::make_pair(m1, m2);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// Derives measured inputs from journals and applies them to a base scenario. Holds copies of
/// the journals it was given; not for concurrent use (run() fills its result once).
class calibrator {
 public:
  /// Copies `journals` and `base` and analyses each journal's step times. Throws trnmodel::input_error at
  /// "journals" when there is none or an experiment_id repeats, and at the first training or instance field in
  /// which the journals' configurations differ (their step times are not comparable).
  calibrator(const std::vector<journal>& journals, const scenario& base) : journals_(journals), base_(base) {
    if (journals.empty()) detail::fail("journals", "must hold at least one journal");
    check_pooling();
    for (const auto& j : journals_) {
      result_.step_analyses.push_back(analyze_steps(j));
      for (const auto& w : j.warnings) result_.warnings.push_back(j.experiment_id + ": " + w);
      for (const auto& w : result_.step_analyses.back().warnings) result_.warnings.push_back(w);
    }
  }

  /// Derives every input the journals measure and returns the calibrated scenario with the record of what changed.
  /// A second call returns the first call's result (the findings are not appended twice).
  calibration_result run() {
    if (ran_) return result_;
    ran_ = true;
    step_time_and_stall();
    startup();
    compile();
    checkpoints();
    evaluations();
    failures();
    quality();
    std::vector<std::pair<std::string, ordered_json>> changes = extra_changes_;
    std::vector<std::string> all_ids;
    for (const auto& j : journals_) all_ids.push_back(j.experiment_id);
    std::set<std::string> derived;
    for (const auto& input : result_.inputs) {
      derived.insert(input.path);
      if (input.status == "measured" || input.status == "prior-dominated") changes.emplace_back(input.path, input.quantity);
    }
    for (const auto& [path, q] : base_.quantities())
      if (!derived.count(path) && !q.is_fixed()) result_.unmeasured.push_back(path);
    std::string few;
    for (const auto& input : result_.inputs)
      if (input.status == "measured" && input.method == "empirical" && input.values.size() < 10)
        few += (few.empty() ? "" : ", ") + input.path;
    if (!few.empty())
      result_.warnings.push_back("fewer than 10 values: " + few +
                                 " take only the spread the runs showed (bounded by the "
                                 "extremes seen), so P90s are optimistic until more runs are added");
    const std::string description = base_.has_text("description") ? base_.text("description") + " " : std::string();
    // The caveats travel with the scenario (a calibrated file read by `trnmodel report` has no
    // calibration report beside it): the description, shown in the job card, says them, each once.
    std::string caveats;
    std::set<std::string> said;
    for (const auto& w : result_.warnings)
      if (said.insert(w).second) caveats += (caveats.empty() ? "" : "; ") + w;
    // What stayed assumed because a trial did not record it: the input paths, each once.
    std::string assumed;
    for (const auto& input : assumed_inputs_) assumed += (assumed.empty() ? "" : ", ") + input;
    changes.emplace_back("description", description + "Calibrated from trial-run journals: " +
                                            detail::join_ids(all_ids) + "." +
                                            (caveats.empty() ? "" : " Calibration caveats: " + caveats + ".") +
                                            (assumed.empty() ? "" : " Stayed assumed (not in the trials' records): " +
                                                                        assumed + "."));
    try {
      result_.calibrated = base_.updated(changes);
    } catch (const input_error& e) {
      if (config_matches_) throw;
      fail_extrapolation("journals", differences_, e.what());
    }
    return result_;
  }

 private:
  std::vector<std::string> ids(const std::vector<std::size_t>& which) const {
    std::vector<std::string> out;
    for (auto k : which) out.push_back(journals_[k].experiment_id);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  std::vector<std::size_t> all() const {
    std::vector<std::size_t> out(journals_.size());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = k;
    return out;
  }

  ordered_json base_json(const std::string& path) const {
    const quantity* q = base_.find(path);
    return q ? quantity_to_json(*q) : ordered_json();
  }

  // Whether journal `k` recorded every field in `fields` (the ones `input` is measured from);
  // when it lists one as unknown, the input stays assumed for it, and stayed_assumed says why
  // (once per input and journal).
  bool records(std::size_t k, const std::string& input, std::initializer_list<journal_key> fields) {
    const auto& j = journals_[k];
    for (const journal_key f : fields) {
      if (j.known(f)) continue;
      if (assumed_said_.emplace(input, k).second) {
        const std::string path = journal_path(f);
        result_.stayed_assumed.push_back(input + ": " + j.experiment_id + " did not record " + path + " (" +
                                         j.unknown.at(path) + ")");
        if (std::find(assumed_inputs_.begin(), assumed_inputs_.end(), input) == assumed_inputs_.end())
          assumed_inputs_.push_back(input);
      }
      return false;
    }
    return true;
  }

  // The values-to-quantity rule: ≥ 10 values → the better of lognormal and gamma by AIC
  // (empirical when a value is 0 or they hardly differ); 2–9 → empirical; 1 → the base is
  // kept, flagged when the value lies outside the base's P5–P95; 0 → nothing to report.
  void add_values(const std::string& path, const std::vector<double>& values, const std::vector<std::size_t>& sources,
                  const std::string& what) {
    if (values.empty()) return;
    calibrated_input in;
    in.path = path;
    in.values = values;
    in.experiments = ids(sources);
    const std::string cite = "n = " + std::to_string(values.size()) + " from " + detail::join_ids(in.experiments) +
                             " (" + what + "): " + detail::list_values(values);
    if (values.size() == 1) {
      const quantity* q = base_.find(path);
      in.quantity = base_json(path);
      in.method = "kept";
      const bool outside = q && !q->is_unknown() && (values[0] < q->ppf(0.05) || values[0] > q->ppf(0.95));
      in.status = outside ? "flagged" : "kept";
      in.note = "measured once (" + cite + "); a single run is not a distribution, so the base is kept" +
                (outside ? "; the measurement lies outside the base's P5–P95" : "");
      if (q && q->is_unknown()) in.note += "; the base has no value (unknown): give one, or add runs";
      result_.inputs.push_back(in);
      return;
    }
    const bool positive = std::all_of(values.begin(), values.end(), [](double v) { return v > 0; });
    quantity q;
    if (positive) {
      const auto spread = run_to_run_spread(values, 10, path);
      q = spread.input;
      in.method = spread.method;
      if (spread.fit)
        in.method += " (ΔAIC " + detail::format_number(std::round(spread.fit->delta_aic * 100) / 100) + ", KS D " +
                     detail::format_number(std::round(spread.fit->ks_d * 1000) / 1000) + ")";
    } else {
      q = make_empirical(values, path);
      in.method = "empirical";
    }
    q.prov().source = "measured";
    q.prov().note = "measured: " + cite + "; " + in.method;
    in.status = "measured";
    in.quantity = quantity_to_json(q);
    in.note = q.prov().note;
    result_.inputs.push_back(in);
  }

  // A Bayesian update's posterior: measured when the trials weigh at least as much as the
  // prior, and "prior-dominated" (source "prior") when they weigh less: `data_weight` and
  // `prior_weight` in one unit (`weight_unit`: node-hours of exposure against the prior's
  // pseudo-exposure, trials against the prior's pseudo-trials). A posterior that is mostly its
  // prior is not a measurement, whatever the journals are called (docs/journal.md, "Evidence").
  void add_posterior(const std::string& path, quantity q, const std::vector<double>& values,
                     const std::vector<std::size_t>& sources, const std::string& method, const std::string& note,
                     double data_weight, double prior_weight, const std::string& weight_unit) {
    if (!(data_weight < prior_weight)) return add_quantity(path, std::move(q), values, sources, method, note);
    const std::string weights = "the trials weigh " + detail::format_approx(data_weight) + " " + weight_unit;
    add_quantity(path, std::move(q), values, sources, method,
                 weights + " against the prior's " + detail::format_approx(prior_weight) +
                     ", so the posterior is mostly the prior: " + note,
                 "prior-dominated", "prior");
    result_.warnings.push_back(path + ": prior-dominated (" + weights + ", the prior " +
                               detail::format_approx(prior_weight) + "): labelled as the prior, not as measured");
  }

  // `status` and `source`: "measured" and "measured", or "prior-dominated" and "prior"
  // (add_posterior); the note begins with the status.
  void add_quantity(const std::string& path, quantity q, const std::vector<double>& values,
                    const std::vector<std::size_t>& sources, const std::string& method, const std::string& note,
                    const std::string& status = "measured", const std::string& source = "measured") {
    calibrated_input in;
    in.path = path;
    in.values = values;
    in.experiments = ids(sources);
    in.method = method;
    in.status = status;
    q.prov().source = source;
    q.prov().note = status + ": " + note + " (" + detail::join_ids(in.experiments) + ")";
    in.note = q.prov().note;
    in.quantity = quantity_to_json(q);
    result_.inputs.push_back(in);
  }

  // ---- pooling rules -----------------------------------------------------------------

  void check_pooling() {
    std::set<std::string> seen;
    for (const auto& j : journals_)
      if (!seen.insert(j.experiment_id).second)
        detail::fail("journals", "experiment_id " + j.experiment_id + " appears twice; each run must be pooled once");
    const journal& first = journals_.front();
    const auto describe = [](const journal& j) {
      using key = journal_key;
      const auto& t = j.training;
      const auto pair = [](key k, std::string value) { return std::make_pair(journal_path(k), std::move(value)); };
      return std::vector<std::pair<std::string, std::string>>{
          pair(key::instance_type, j.instance.type),
          pair(key::instance_nodes, std::to_string(j.instance.nodes)),
          pair(key::training_kind, name_of_choice(t.kind)),
          pair(key::training_lora_rank, t.lora_rank ? std::to_string(*t.lora_rank) : "-"),
          pair(key::training_global_batch, std::to_string(t.global_batch)),
          pair(key::training_micro_batch, std::to_string(t.micro_batch)),
          pair(key::training_sequence_length, std::to_string(t.sequence_length)),
          pair(key::training_tp, std::to_string(t.tp)),
          pair(key::training_pp, std::to_string(t.pp)),
          pair(key::training_dp, std::to_string(t.dp)),
          pair(key::training_precision, name_of_choice(t.precision)),
          pair(key::training_recompute, name_of_choice(t.recompute))};
    };
    const auto reference = describe(first);
    for (const auto& j : journals_) {
      const auto mine = describe(j);
      for (std::size_t f = 0; f < mine.size(); ++f)
        if (mine[f].second != reference[f].second)
          detail::fail(mine[f].first, j.experiment_id + " has " + mine[f].second + ", " + first.experiment_id +
                                          " has " + reference[f].second +
                                          "; step times of different configurations are not comparable "
                                          "(calibrate each configuration separately)");
      const auto version = [](const journal& x) {
        return x.versions.framework + " / " +
               (x.versions.neuron_sdk.empty() ? "CUDA " + x.versions.cuda : "Neuron SDK " + x.versions.neuron_sdk);
      };
      if (version(j) != version(first))
        result_.warnings.push_back("journals with different versions are pooled: " + first.experiment_id + " (" +
                                   version(first) + ") and " + j.experiment_id + " (" + version(j) + ")");
    }
    // Compile, set-up, checkpoint and recovery times belong to a platform: measurements of one
    // must not become inputs of another.
    if (base_.has_text(field::cluster_platform) && base_.text(field::cluster_platform) != first.instance.type)
      detail::fail("instance.type", "the journals ran on " + first.instance.type + ", the scenario is on " +
                                        base_.text(field::cluster_platform) +
                                        "; calibrate a scenario of the platform the trials ran on");
    // A trial of another node count, batch, sequence or layout than the scenario's (each compared
    // where the scenario states it) measures the step time of its own configuration: it becomes
    // the reference the step-time model extrapolates from, not the scenario's step time.
    trial_layout_ = chip_layout(first.instance, first.training, first.experiment_id, base_,
                                journal_path(journal_key::training_tp));
    differences_ = configuration_differences(base_, first.instance.nodes, first.training, trial_layout_);
    config_matches_ = differences_.empty();
    if (!config_matches_) result_.warnings.push_back(extrapolation_warning(differences_, trial_layout_));
  }

  // ---- the inputs ----------------------------------------------------------------------

  // The trials' step time at their own configuration as the reference of extrapolated mode: its
  // uncertainty is that of the mean (the runs' standard error; one run's batch-means interval),
  // not the spread of single steps, since the scenario draws one step time per sample.
  void reference_from_trials() {
    std::vector<double> step;
    for (const auto& a : result_.step_analyses) step.push_back(a.step_time_s);
    const double n = static_cast<double>(step.size());
    const double mean = std::accumulate(step.begin(), step.end(), 0.0) / n;
    double se = 0;
    std::string spread;
    if (step.size() >= 2) {
      double ss = 0;
      for (const double x : step) ss += (x - mean) * (x - mean);
      se = std::sqrt(ss / (n - 1) / n);
      spread = "the standard error of the mean of " + std::to_string(step.size()) + " runs";
    } else {
      const auto& a = result_.step_analyses.front();
      se = (a.ci_hi_s - a.ci_lo_s) / 2 / 1.959963984540054 * (1 - a.data_wait_fraction);
      spread = "one run's 95 % batch-means interval";
    }
    const std::string path = path_of(field::reference_step_time_s);
    quantity q = se > 0 ? make_normal(mean, se, 0.0, dist::infinity, path) : make_fixed(mean);
    add_quantity(path, q, step, all(), "mean with its standard error",
                 "step time at the trials' own configuration, " + detail::format_number(std::round(mean * 1e4) / 1e4) +
                     " s, with " + spread + " as its uncertainty; extrapolated to the scenario's (" + differences_ +
                     ")");
    const journal& first = journals_.front();
    for (auto& change : reference_changes(base_, first.instance.nodes, first.training, trial_layout_))
      extra_changes_.push_back(std::move(change));
  }

  void step_time_and_stall() {
    if (!config_matches_) return reference_from_trials();
    std::vector<double> step, stall;
    std::vector<std::size_t> stall_sources;
    for (std::size_t k = 0; k < journals_.size(); ++k) {
      step.push_back(result_.step_analyses[k].step_time_s);
      if (journals_[k].utilisation) {
        stall.push_back(journals_[k].utilisation->data_wait_fraction);
        stall_sources.push_back(k);
      }
    }
    if (step.size() == 1) {
      // One run: its batch-means interval is the only spread known (docs/journal.md).
      const auto& a = result_.step_analyses.front();
      const double scale = 1 - a.data_wait_fraction;
      const double se = (a.ci_hi_s - a.ci_lo_s) / 2 / 1.959963984540054 * scale;
      quantity q = se > 0 ? make_normal(a.step_time_s, se, 0.0, dist::infinity, path_of(field::throughput_step_time_s))
                          : make_fixed(a.step_time_s);
      add_quantity(path_of(field::throughput_step_time_s), q, step, all(), "one run: batch-means interval",
                   "one run, steady-state step time " + detail::format_number(std::round(a.step_time_s * 1e4) / 1e4) +
                       " s with its 95 % batch-means interval as the only spread; run-to-run variation is not "
                       "estimated from one run");
      result_.warnings.push_back(
          "throughput.step_time_s: from one run, so its spread is that run's batch-means "
          "interval only; run-to-run variation needs more trial runs");
    } else {
      add_values(path_of(field::throughput_step_time_s), step, all(),
                 "steady-state mean step time × (1 − data wait), MSER-5 + batch means");
    }
    if (base_.mode() != throughput_mode::measured && result_.inputs.back().status == "measured")
      extra_changes_.emplace_back(path_of(field::throughput_mode), name_of_choice(throughput_mode::measured));
    if (stall.size() >= 10) {
      // A beta by moments on [0, 0.99]: the scenario needs a stall below 1, and a stall of
      // 99 % is no training run anyway.
      constexpr double top = 0.99;
      double mean = 0, var = 0;
      for (double s : stall) mean += s / top / static_cast<double>(stall.size());
      for (double s : stall) var += (s / top - mean) * (s / top - mean) / static_cast<double>(stall.size() - 1);
      const double common = var > 0 ? mean * (1 - mean) / var - 1 : 0;
      const auto shape_ok = [](double shape) { return shape >= detail::min_shape && shape <= detail::max_shape; };
      if (mean > 0 && var > 0 && var < mean * (1 - mean) && shape_ok(mean * common) && shape_ok((1 - mean) * common)) {
        add_quantity(path_of(field::throughput_data_stall_fraction),
                     make_beta(mean * common, (1 - mean) * common, 0, top), stall, stall_sources, "beta by moments",
                     "n = " + std::to_string(stall.size()) + " data-wait fractions, beta on [0, 0.99] by moments");
        return;
      }
    }
    add_values(path_of(field::throughput_data_stall_fraction), stall, stall_sources, "utilisation.data_wait_fraction");
  }

  void startup() {
    std::vector<double> queue, setup, load;
    std::set<std::string> pools;
    std::set<bool> queue_billed;
    std::vector<std::size_t> queue_sources, setup_sources, load_sources;
    for (std::size_t k = 0; k < journals_.size(); ++k) {
      const auto& j = journals_[k];
      if (records(k, path_of(field::startup_queue_wait_s), {journal_key::phases_queue_s, journal_key::instance_region})) {
        queue.push_back(j.phases.queue_s);
        queue_sources.push_back(k);
        pools.insert(j.instance.region + "/" + (j.instance.purchase ? name_of_choice(*j.instance.purchase) : ""));
      }
      if (j.known(journal_key::billed)) queue_billed.insert(j.billed.queue_billed);
      if (records(k, path_of(field::startup_env_prep_s), {journal_key::phases_setup_s})) {
        setup.push_back(j.phases.setup_s);
        setup_sources.push_back(k);
      }
      if (records(k, path_of(field::startup_data_load_s), {journal_key::phases_data_load_s})) {
        load.push_back(j.phases.data_load_s + result_.step_analyses[k].startup_warmup_s());
        load_sources.push_back(k);
      }
    }
    if (pools.size() <= 1)
      add_values(path_of(field::startup_queue_wait_s), queue, queue_sources, "phases.queue_s");
    else
      result_.warnings.push_back(
          "startup.queue_wait_s: not calibrated, the journals mix regions or purchase options "
          "(queues are pooled only within one)");
    if (queue_billed.size() == 1)
      extra_changes_.emplace_back(path_of(field::startup_queue_billed), *queue_billed.begin());
    add_values(path_of(field::startup_env_prep_s), setup, setup_sources, "phases.setup_s");
    add_values(path_of(field::startup_data_load_s), load, load_sources,
               "phases.data_load_s + warm-up excess of the first steps");
  }

  void compile() {
    std::vector<double> cold, warm;
    std::vector<std::size_t> cold_sources, warm_sources, trial_sources;
    double hits = 0, misses = 0;
    // The first cold start of each (compiler, configuration) group is cold by construction,
    // not by chance: it is not a cache trial.
    std::set<std::string> group_started;
    std::vector<std::size_t> order = all();
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return journals_[a].started_at_s < journals_[b].started_at_s; });
    for (const std::size_t k : order) {
      const auto& j = journals_[k];
      const bool start_known =
          records(k, path_of(field::compile_initial_s), {journal_key::phases_compile_s, journal_key::phases_compile_cache_hit});
      if (start_known) {
        (j.phases.compile_cache_hit ? warm : cold).push_back(j.phases.compile_s);
        (j.phases.compile_cache_hit ? warm_sources : cold_sources).push_back(k);
      }
      const auto compiler =
          j.versions.libraries.count("neuronx-cc") ? j.versions.libraries.at("neuronx-cc") : std::string();
      const std::string group = j.versions.neuron_sdk + "|" + j.versions.cuda + "|" + compiler;
      const bool first_in_group = group_started.insert(group).second;
      if (start_known && !(first_in_group && !j.phases.compile_cache_hit)) {
        (j.phases.compile_cache_hit ? hits : misses) += 1;
        trial_sources.push_back(k);
      }
      if (!j.interruptions.empty() &&
          !records(k, path_of(field::compile_cache_hit_prob), {journal_key::interruption_recompiled}))
        continue;
      for (const auto& x : j.interruptions) {
        if (!x.recovered) continue;
        (x.recompiled ? misses : hits) += 1;
        trial_sources.push_back(k);
        if (x.compile_s) {
          (x.recompiled ? cold : warm).push_back(*x.compile_s);
          (x.recompiled ? cold_sources : warm_sources).push_back(k);
        }
      }
    }
    add_values(path_of(field::compile_initial_s), cold, cold_sources,
               "cold compiles: starts without a cache hit, recoveries that recompiled");
    add_values(path_of(field::compile_recompile_s), cold, cold_sources,
               "the same graphs as compile.initial_s, so the same pool");
    add_values(path_of(field::compile_cache_load_s), warm, warm_sources,
               "warm starts and recoveries that hit the cache");
    if (hits + misses > 0) {
      double a0 = 1, b0 = 1;
      std::string prior = "Beta(1, 1)";
      if (const quantity* q = base_.find(field::compile_cache_hit_prob)) {
        if (const auto* b = std::get_if<dist::beta>(&q->dist()); b && b->lo == 0 && b->hi == 1) {
          a0 = b->a;
          b0 = b->b;
          prior = "the base's Beta(" + detail::format_number(a0) + ", " + detail::format_number(b0) + ")";
        }
      }
      std::vector<double> outcomes(static_cast<std::size_t>(hits), 1.0);
      outcomes.resize(static_cast<std::size_t>(hits + misses), 0.0);
      add_posterior(path_of(field::compile_cache_hit_prob), make_beta(a0 + hits, b0 + misses), outcomes,
                    trial_sources, "beta posterior",
                    detail::format_number(hits) + " cache hits in " + detail::format_number(hits + misses) +
                        " trials (restarts and warm starts); prior " + prior,
                    hits + misses, a0 + b0, "trials");
    }
  }

  void checkpoints() {
    std::vector<double> save, verify, load, size;
    std::vector<std::size_t> sources, load_sources;
    for (std::size_t k = 0; k < journals_.size(); ++k) {
      if (!records(k, path_of(field::checkpoint_save_s), {journal_key::checkpoints})) continue;
      for (const auto& c : journals_[k].checkpoints) {
        save.push_back(c.save_s);
        verify.push_back(c.verify_s);
        size.push_back(c.size_gb);
        sources.push_back(k);
        if (c.load_s) {
          load.push_back(*c.load_s);
          load_sources.push_back(k);
        }
      }
      // A recovery's load is also recorded on the checkpoint it restored: count it once.
      for (const auto& x : journals_[k].interruptions) {
        const bool on_checkpoint =
            std::any_of(journals_[k].checkpoints.begin(), journals_[k].checkpoints.end(),
                        [&](const auto& c) { return c.step == x.restored_from_step && c.load_s; });
        if (x.load_s && x.recovered && !on_checkpoint) {
          load.push_back(*x.load_s);
          load_sources.push_back(k);
        }
      }
    }
    add_values(path_of(field::checkpoint_save_s), save, sources, "checkpoints[].save_s");
    add_values(path_of(field::checkpoint_verify_s), verify, sources, "checkpoints[].verify_s");
    add_values(path_of(field::checkpoint_load_s), load, load_sources,
               "checkpoint loads in recoveries and restore tests");
    if (!size.empty()) {
      double mean = 0;
      for (double s : size) mean += s / static_cast<double>(size.size());
      const auto [lo, hi] = std::minmax_element(size.begin(), size.end());
      if (mean > 0 && (*hi - *lo) > 0.05 * mean)
        result_.warnings.push_back("checkpoint.size_gb: the checkpoints' sizes vary by more than 5 % (" +
                                   detail::format_number(*lo) + " to " + detail::format_number(*hi) +
                                   " GB); their mean is used");
      add_quantity(path_of(field::checkpoint_size_gb), make_fixed(mean), size, sources, "mean",
                   "mean of " + std::to_string(size.size()) + " checkpoint sizes");
    }
  }

  void evaluations() {
    std::vector<double> times, finals;
    std::vector<std::size_t> sources, final_sources;
    for (std::size_t k = 0; k < journals_.size(); ++k) {
      for (const auto& e : journals_[k].evaluations) {
        times.push_back(e.time_s);
        sources.push_back(k);
      }
      // A trial's final evaluation is usually a shorter proxy: only a job-scope one counts.
      if (journals_[k].quality && journals_[k].quality->scope == quality_scope::job &&
          records(k, path_of(field::eval_final_s), {journal_key::phases_final_eval_s})) {
        finals.push_back(journals_[k].phases.final_eval_s);
        final_sources.push_back(k);
      }
    }
    add_values(path_of(field::eval_time_s), times, sources, "evaluations[].time_s");
    add_values(path_of(field::eval_final_s), finals, final_sources, "phases.final_eval_s of job-scope runs");
  }

  void failures() {
    std::int64_t k = 0;
    double exposure_node_h = 0;
    std::vector<double> exposures;
    std::vector<double> restart, warmup;
    std::vector<std::size_t> restart_sources, warmup_sources;
    std::vector<std::size_t> exposure_sources;
    for (std::size_t r = 0; r < journals_.size(); ++r) {
      const auto& j = journals_[r];
      // The exposure is the billed node-hours, or the nodes over the run's clock less its
      // queue when the billing is not recorded; the failures need their causes.
      const bool causes_known = j.interruptions.empty() || j.known(journal_key::interruption_cause);
      const bool billed = j.known(journal_key::billed);
      const bool clock = j.known(journal_key::started_at) && j.known(journal_key::ended_at) &&
                         j.known(journal_key::phases_queue_s);
      if (!causes_known) {
        records(r, path_of(field::failures_node_mtbf_h), {journal_key::interruption_cause});
      } else if (!billed && !clock) {
        records(r, path_of(field::failures_node_mtbf_h), {journal_key::billed, journal_key::phases_queue_s});
      } else {
        const double node_h = billed ? j.billed.node_hours
                                     : static_cast<double>(j.instance.nodes) * (j.duration_s() - j.phases.queue_s) / 3600;
        exposure_node_h += node_h;
        exposures.push_back(node_h);
        exposure_sources.push_back(r);
        k += j.node_failures();
      }
      if (!j.interruptions.empty() && !records(r, path_of(field::failures_restart_s),
                   {journal_key::interruption_detection_s, journal_key::interruption_recovery_s}))
        continue;
      for (const auto& x : j.interruptions) {
        if (!x.recovered) continue;
        restart.push_back(x.detection_s +
                          (x.restart_s ? *x.restart_s : x.recovery_s - x.compile_s.value_or(0) - x.load_s.value_or(0)));
        restart_sources.push_back(r);
      }
    }
    for (std::size_t r = 0; r < journals_.size(); ++r) {
      for (double w : result_.step_analyses[r].restart_warmups_s()) {
        warmup.push_back(w);
        warmup_sources.push_back(r);
      }
    }
    add_values(path_of(field::failures_restart_s), restart, restart_sources,
               "detection_s + restart_s of each recovery");
    add_values(path_of(field::failures_warmup_s), warmup, warmup_sources,
               "warm-up excess of the steps after each restart");
    if (!(exposure_node_h > 0)) return;
    double a0 = 0.5, b0 = 0;
    std::string prior = "Jeffreys' Gamma(1/2, 0)";
    if (const quantity* q = base_.find(field::failures_node_mtbf_h); q && !q->is_unknown()) {
      if (const auto moments = detail::reciprocal_moments(*q)) {
        const double mean = moments->first, var = moments->second - mean * mean;
        a0 = mean * mean / var;
        b0 = mean / var;
        prior = "Gamma(" + detail::format_number(std::round(a0 * 100) / 100) + ", " +
                detail::format_number(std::round(b0)) + " node-h) moment-matched to the base's node_mtbf_h";
      }
    }
    const std::string exposure_text = detail::format_number(std::round(exposure_node_h * 100) / 100) + " node-hours";
    if (b0 == 0 && k == 0) {  // nothing but the prior's shape: do not invent a rate
      result_.warnings.push_back("failures.node_mtbf_h: not calibrated: no node failure in " + exposure_text +
                                 " and no prior in the base, which keeps its failure model");
      return;
    }
    if (b0 == 0)
      result_.warnings.push_back("failures.node_mtbf_h: the base gives no prior, so Jeffreys' prior is used; " +
                                 exposure_text + " cannot pin a rate of order 1e-4 per node-hour");
    const auto posterior = failure_rate_posterior(k, exposure_node_h, 0.8, a0, b0);
    const std::string note = std::to_string(k) + " node failure(s) over " +
                             detail::format_number(std::round(exposure_node_h * 1000) / 1000) +
                             " billed node-hours; prior " + prior + " (pseudo-exposure " +
                             detail::format_number(std::round(b0)) + " node-h); posterior Gamma(" +
                             detail::format_number(std::round(posterior.posterior_shape * 100) / 100) + ", " +
                             detail::format_number(std::round(posterior.posterior_rate_node_h)) +
                             "); MTBF p50 and p90 = 1/(p50, p10 of the rate)";
    add_posterior(path_of(field::failures_node_mtbf_h),
                  make_lognormal_from_quantiles(posterior.mtbf_median_h, posterior.mtbf_hi_h,
                                                path_of(field::failures_node_mtbf_h)),
                  exposures, exposure_sources, "gamma posterior", note, exposure_node_h, b0, "node-hours");
  }

  void quality() {
    double passes = 0, fails = 0;
    std::vector<std::size_t> sources;
    for (std::size_t k = 0; k < journals_.size(); ++k)
      if (journals_[k].quality && journals_[k].quality->scope == quality_scope::job) {
        (journals_[k].quality->passed ? passes : fails) += 1;
        sources.push_back(k);
      }
    if (sources.empty()) return;
    double a0 = 1, b0 = 1;
    if (const quantity* q = base_.find(field::quality_rerun_prob))
      if (const auto* b = std::get_if<dist::beta>(&q->dist()); b && b->lo == 0 && b->hi == 1) {
        a0 = b->a;
        b0 = b->b;
      }
    std::vector<double> outcomes(static_cast<std::size_t>(fails), 1.0);
    outcomes.resize(static_cast<std::size_t>(fails + passes), 0.0);
    add_posterior(
        path_of(field::quality_rerun_prob), make_beta(a0 + fails, b0 + passes), outcomes, sources, "beta posterior",
        detail::format_number(fails) + " failed quality gates in " + detail::format_number(fails + passes) +
            " job-scope runs; prior Beta(" + detail::format_number(a0) + ", " + detail::format_number(b0) + ")",
        fails + passes, a0 + b0, "trials");
  }

  // Copies, as documented: a calibrator built from temporaries must not dangle.
  const std::vector<journal> journals_;
  const scenario base_;
  bool config_matches_ = true;
  layout_in_chips trial_layout_;  // the trials' tp, pp, dp in chips (chip_layout)
  std::string differences_;  // "nodes 2 → 16, global batch 16 → 512": the trials' configuration against the scenario's
  calibration_result result_;
  bool ran_ = false;  // run() derives once
  std::vector<std::pair<std::string, ordered_json>> extra_changes_;
  std::set<std::pair<std::string, std::size_t>> assumed_said_;  // (input, journal) pairs in stayed_assumed
  std::vector<std::string> assumed_inputs_;  // the inputs in stayed_assumed, each once, in order
};

/// Calibrates `base` from trial-run journals of one configuration.
inline calibration_result calibrate(const std::vector<journal>& journals, const scenario& base) {
  return calibrator(journals, base).run();
}

}  // namespace trnmodel::calibrate
