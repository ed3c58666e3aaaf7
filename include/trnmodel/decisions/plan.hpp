#pragma once
// A migration plan (format "trnmodel.plan/1", docs/decisions.md, "The plan"): a GPU baseline,
// a Trainium pilot and a Trainium production scenario, with the uncertain quantities of the
// decision around them (the pilot's pass probability, the rollback, the dual track's overhead).
// Three strategies are costed per sample on common random numbers: GPU only; Trainium only,
// rolled back to GPU when the port fails; and a dual track, a pilot first, then production on
// Trainium if it passed, else on GPU.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/calibrate/json_reader.hpp"
#include "trnmodel/decisions/advisor.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/detail/problems.hpp"
#include "trnmodel/detail/series_file.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/scenario/loader.hpp"

namespace trnmodel {

/// The format name a plan's "schema" holds.
inline constexpr const char* plan_schema = "trnmodel.plan/1";

/// The strategies, in the order of plan outputs.
inline const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"gpu_only", "trainium_only", "dual_track"};
  return names;
}

/// A migration plan: three scenarios and the decision's own uncertain quantities. Immutable once
/// loaded; a value.
struct plan {
  std::string name, description;
  scenario gpu_baseline, trainium_pilot, trainium_production;
  quantity pass_prob;  ///< pilot.pass_prob: P(the pilot matches the baseline on the acceptance tests)
  quantity convert_s;  ///< rollback.convert_s: converting checkpoints to a neutral format, seconds
  quantity rollback_engineering_h;  ///< rollback.engineering_h: engineering hours of a rollback
  quantity found_after_fraction;  ///< rollback.found_after_fraction: share of the production run before a failed port shows
  quantity overhead_h;  ///< dual.overhead_h: engineering hours of keeping both branches through production
  quantity rate_usd_per_h;  ///< engineering.rate_usd_per_h: USD per engineering hour of the plan's own work
  std::optional<project_facts> project;  ///< the project's facts, when the plan states them
  std::int64_t runs = 1;  ///< runs of the production job the port serves (paid once): a weekly fine-tune is 52 a year
  std::string start;  ///< schedule.start: the day the work starts (YYYY-MM-DD), or empty
  std::string deadline;  ///< schedule.deadline: the day the first production result is due (YYYY-MM-DD), or empty

  /// Calendar days from schedule.start to schedule.deadline (both given).
  double days_to_deadline() const {
    const auto days = [](const std::string& d) {
      return detail::days_since_epoch(std::stoi(d.substr(0, 4)), std::stoi(d.substr(5, 2)), std::stoi(d.substr(8, 2)));
    };
    return static_cast<double>(days(deadline) - days(start));
  }

  /// The plan's own quantities with the paths that name their random streams ("plan/<path>").
  std::vector<named_quantity> inputs() const {
    return {{"plan/pilot.pass_prob", pass_prob},
            {"plan/pilot.passed", make_uniform(0, 1)},
            {"plan/rollback.convert_s", convert_s},
            {"plan/rollback.engineering_h", rollback_engineering_h},
            {"plan/rollback.found_after_fraction", found_after_fraction},
            {"plan/dual.overhead_h", overhead_h},
            {"plan/engineering.rate_usd_per_h", rate_usd_per_h}};
  }

  /// Reads a plan document. A scenario is given inline (an object), as a file path relative to
  /// `directory`, or as {"file": path, "changes": {dotted path: value}} (a file, updated). Every problem of the plan's own fields is listed at once; a scenario's own
  /// problems come with its key ("scenarios.trainium_pilot: ...").
  static plan from_json(const ordered_json& doc, const std::filesystem::path& directory = ".",
                        const profile_library& profiles = {}) {
    detail::check_json_depth(doc, "plan");
    if (!doc.is_object()) detail::fail("plan", "must be an object, got " + detail::describe_json(doc));
    detail::problem_list problems;
    detail::json_reader top(doc, "");
    plan p;
    problems.attempt([&] {
      const std::string schema = top.text("schema");
      if (schema != plan_schema)
        detail::fail("schema", std::string("must be \"") + plan_schema + "\", got \"" + schema + "\"");
    });
    problems.attempt([&] { p.name = top.optional_text("name"); });
    problems.attempt([&] { p.description = top.optional_text("description"); });
    problems.attempt([&] { p.runs = top.optional_integer("runs", 1).value_or(1); });
    problems.attempt([&] {
      detail::json_reader s(top.required("scenarios"), "scenarios");
      const auto load = [&](const char* key, scenario& into) {
        problems.attempt([&] {
          const ordered_json& given = s.required(key);
          const std::string where = std::string("scenarios.") + key;
          try {
            if (given.is_string()) {
              into = scenario::from_file((directory / given.get<std::string>()).string(), profiles);
            } else if (given.is_object() && given.contains("file")) {
              // A file with changes: {"file": "../trn2.json", "changes": {"job.effective_steps": 600}}.
              detail::json_reader ref(given, "");
              into = scenario::from_file((directory / ref.text("file")).string(), profiles);
              if (ref.has("changes")) {
                const ordered_json& changes = ref.required("changes");
                if (!changes.is_object())
                  detail::fail("changes", "must be an object of path → value, got " +
                                                       detail::describe_json(changes));
                std::vector<std::pair<std::string, ordered_json>> list;
                for (const auto& item : changes.items()) list.emplace_back(item.key(), item.value());
                into = into.updated(list);
              }
              ref.finish();
            } else {
              into = scenario::from_json(given, profiles);
            }
          } catch (const input_error& e) {
            std::vector<std::string> mine;
            for (const auto& problem : e.problems()) mine.push_back(where + ": " + problem);
            throw input_error(mine);
          }
        });
      };
      load("gpu_baseline", p.gpu_baseline);
      load("trainium_pilot", p.trainium_pilot);
      load("trainium_production", p.trainium_production);
      problems.attempt([&] { s.finish(); });
    });
    const auto section = [&](const char* key, const auto& read) {
      problems.attempt([&] {
        detail::json_reader r(top.required(key), key);
        read(r);
        problems.attempt([&] { r.finish(); });
      });
    };
    const auto q = [&](detail::json_reader& r, const char* key, field_rule rule, quantity& into) {
      problems.attempt([&] {
        const std::string where = r.path(key);
        into = quantity_from_json(r.required(key), where);
        if (into.is_unknown()) detail::fail(where, "must be given: a plan decides on it");
        detail::check_quantity_range(where, rule, into);
      });
    };
    section("pilot", [&](detail::json_reader& r) { q(r, "pass_prob", field_rule::probability, p.pass_prob); });
    section("rollback", [&](detail::json_reader& r) {
      q(r, "convert_s", field_rule::nonnegative, p.convert_s);
      q(r, "engineering_h", field_rule::nonnegative, p.rollback_engineering_h);
      q(r, "found_after_fraction", field_rule::probability, p.found_after_fraction);
    });
    section("dual", [&](detail::json_reader& r) { q(r, "overhead_h", field_rule::nonnegative, p.overhead_h); });
    section("engineering",
            [&](detail::json_reader& r) { q(r, "rate_usd_per_h", field_rule::nonnegative, p.rate_usd_per_h); });
    if (top.has("project"))
      problems.attempt([&] { p.project = project_facts::from_json(top.required("project"), "project"); });
    if (top.has("schedule"))
      section("schedule", [&](detail::json_reader& r) {
        const auto date = [&](const char* key, std::string& into) {
          problems.attempt([&] {
            into = r.text(key);
            if (!detail::is_iso_date(into))
              detail::fail(r.path(key), "must be a calendar day written YYYY-MM-DD, got \"" + into + "\"");
          });
        };
        date("start", p.start);
        date("deadline", p.deadline);
        problems.attempt([&] {
          if (detail::is_iso_date(p.start) && detail::is_iso_date(p.deadline) && !(p.days_to_deadline() > 0))
            detail::fail("schedule.deadline", "must come after schedule.start (" + p.start + "), got " + p.deadline);
        });
      });
    problems.attempt([&] { top.finish(); });
    problems.throw_if_any();
    return p;
  }

  /// Reads a plan file; scenario paths in it are relative to the file's directory.
  static plan from_file(const std::filesystem::path& file, const profile_library& profiles = {}) {
    const std::string text = detail::read_file_bytes(file, file.string());
    return from_json(detail::parse_strict_json(text, "plan"),
                     file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path(), profiles);
  }
};

/// The outputs of plan_strategies(), per sample, in this order.
inline const std::vector<std::string>& plan_output_names() {
  static const std::vector<std::string> names{
      "gpu_only_h",        "gpu_only_usd",        "trainium_only_h",  "trainium_only_usd",
      "dual_track_h",      "dual_track_usd",      "cheapest_gpu_only", "cheapest_trainium_only",
      "cheapest_dual_track", "pilot_passed"};
  return names;
}

namespace detail {

/// The calendar time of a scenario's port (engineering.port_days), in hours, drawn per sample on
/// the input's own stream (keyed by the platform, as the lifecycle draws it); 0 when the
/// scenario states none (docs/decisions.md, "Porting as schedule risk").
class port_hours {
 public:
  explicit port_hours(const scenario& s) : days_(s.find(field::engineering_port_days)) {
    if (days_ != nullptr && days_->is_unknown())
      trnmodel::detail::fail(spec(field::engineering_port_days).path,
                             "is unknown (" + days_->unknown_reason() +
                                 "): a plan's times need the port's calendar time; give a range");
    stream_ = lifecycle_model::input_stream_of(spec(field::engineering_port_days).path, field::engineering_port_days,
                                               lifecycle_model::platform_of(s));
  }
  /// The hours of the block's samples, into out[0 .. block.size).
  void draw(const block_view& block, double* out) const {
    const auto n = static_cast<std::size_t>(block.size);
    if (days_ == nullptr || days_->is_constant()) {
      std::fill(out, out + n, days_ == nullptr ? 0.0 : 24 * days_->ppf(0.5));
      return;
    }
    block.uniforms(stream_, out);
    days_->ppf(out, out, n);
    for (std::size_t i = 0; i < n; ++i) out[i] *= 24;
  }

 private:
  const quantity* days_;
  std::uint32_t stream_ = 0;
};

}  // namespace detail

/// The three strategies of a plan, per sample on common random numbers (the scenarios' inputs
/// on the streams of their paths, the plan's on "plan/<path>"), with the same seed as every other
/// run. Each scenario's wall_h, run_cost_usd and adaptation_usd (A) enter as follows, with W the
/// wall time, R the run cost, r the plan's engineering rate, the port A_t the production
/// scenario's (the pilot's own adaptation is not counted again), n the plan's runs, P the
/// calendar time of a port (engineering.port_days × 24; 0 when not stated) and
/// pass = U < pass_prob. Time is from the start of the work to the first production result,
/// the port's calendar time included; cost is over the n runs:
///   GPU only:       P_g + W_g;                        n·R_g + A_g
///   Trainium only:  pass: P_t + W_t;                  n·R_t + A_t
///                   fail: P_t + f·W_t + c + W_g;      f·R_t + A_t + e·r + n·R_g + A_g
///   dual track:     pass: P_t + W_p + W_t;            R_p + A_t + n·R_t + o·r
///                   fail: P_t + W_p + c + W_g;        R_p + A_t + e·r + n·R_g + A_g
/// with c = rollback.convert_s / 3600, e = rollback.engineering_h, f = found_after_fraction and
/// o = dual.overhead_h (a failed port shows in the first run). cheapest_*: 1 for the cheapest
/// strategy of the sample (the first on a tie), so their means sum to 1. Keeps every sample.
inline run_result plan_strategies(const plan& p, run_options options) {
  options.keep_samples = true;
  run_options quiet = options;
  quiet.progress = nullptr;  // the plan reports its own progress: three runs, then its own
  // The ports' calendar times first: an unknown one is refused before any run.
  const detail::port_hours gpu_port(p.gpu_baseline), trainium_port(p.trainium_production);
  const std::vector<std::string> kept{"wall_h", "run_cost_usd", "adaptation_usd"};
  const run_result g = simulate(p.gpu_baseline, quiet, kept, false);
  const run_result pi = simulate(p.trainium_pilot, quiet, kept, false);
  const run_result t = simulate(p.trainium_production, quiet, kept, false);
  const input_set inputs(p.inputs());
  const double n = static_cast<double>(p.runs);
  const auto model = [&](const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) {
    Eigen::ArrayXXd x(block.size, static_cast<Eigen::Index>(inputs.size()));
    inputs.draw(block, x);
    // The scenarios' samples of this block (each run keeps its samples in sample order).
    const auto rows = [&](const run_result& r, const char* metric) {
      return r.values(metric).data() + block.first;
    };
    const auto wg = rows(g, "wall_h"), rg = rows(g, "run_cost_usd"), ag = rows(g, "adaptation_usd");
    const auto wp = rows(pi, "wall_h"), rp = rows(pi, "run_cost_usd");
    const auto wt = rows(t, "wall_h"), rt = rows(t, "run_cost_usd"), at = rows(t, "adaptation_usd");
    std::vector<double> pg(static_cast<std::size_t>(block.size)), pt(pg.size());
    gpu_port.draw(block, pg.data());
    trainium_port.draw(block, pt.data());
    for (Eigen::Index i = 0; i < block.size; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const bool pass = x(i, 1) < x(i, 0);
      const double c = x(i, 2) / 3600, e = x(i, 3), f = x(i, 4), o = x(i, 5), r = x(i, 6);
      const double gpu_h = pg[k] + wg[i], gpu_usd = n * rg[i] + ag[i];
      const double trn_h = pt[k] + (pass ? wt[i] : f * wt[i] + c + wg[i]);
      const double trn_usd = pass ? n * rt[i] + at[i] : f * rt[i] + at[i] + e * r + gpu_usd;
      const double dual_h = pt[k] + wp[i] + (pass ? wt[i] : c + wg[i]);
      const double dual_usd = rp[i] + at[i] + (pass ? n * rt[i] + o * r : e * r + gpu_usd);
      const std::array<double, 3> cost{gpu_usd, trn_usd, dual_usd};
      const auto cheapest = std::min_element(cost.begin(), cost.end()) - cost.begin();
      out(i, 0) = gpu_h;
      out(i, 1) = gpu_usd;
      out(i, 2) = trn_h;
      out(i, 3) = trn_usd;
      out(i, 4) = dual_h;
      out(i, 5) = dual_usd;
      for (int k = 0; k < 3; ++k) out(i, 6 + k) = cheapest == k ? 1.0 : 0.0;
      out(i, 9) = pass ? 1.0 : 0.0;
    }
  };
  return run(model, plan_output_names(), with_block_size(options, function_block_size));
}

}  // namespace trnmodel
