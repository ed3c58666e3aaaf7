#pragma once
// simulate(scenario): the lifecycle simulator on the Monte Carlo engine. Each uncertain input
// is drawn on its own stream, named by its JSON path (common random numbers across
// scenarios); failures, cache draws and the quality gate use the "chance.*" streams.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "trnmodel/detail/json.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/lifecycle/lanes.hpp"
#include "trnmodel/lifecycle/metrics.hpp"
#include "trnmodel/lifecycle/simulator.hpp"
#include "trnmodel/lifecycle/throughput_model.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/scratch.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/random/uniform_column.hpp"
#include "trnmodel/scenario/relevance.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

/// A scenario as an engine model: one output per metric (metric_names()), each uncertain input
/// drawn on the stream named by its JSON path. Thread-safety: immutable once made; the engine
/// calls it concurrently. Ownership: a value holding what it needs of the scenario (copies are
/// independent).
class lifecycle_model {
 public:
  /// Reads the scenario's inputs once: each is unknown, fixed or drawn. A job of several
  /// stages (scenario::stage_count) runs each stage with its own inputs: a field that a stage
  /// gives itself is an input of its own, "<stage>/<path>", drawn on its own stream; a field it
  /// takes from the top level is the top level's input, drawn once per sample for every stage
  /// that takes it.
  explicit lifecycle_model(const scenario& s)
      : mode_(s.mode()),
        profile_name_(s.profile() ? std::optional<std::string>(s.profile()->name) : std::nullopt),
        chance_streams_(detail::chance_streams::of(platform_of(s))) {
    const std::size_t stages = std::max<std::size_t>(1, s.stage_count());
    for (std::size_t k = 0; k < stages; ++k) {
      const scenario& stage = s.stage_count() > 0 ? s.stage(k) : s;
      configs_.push_back(detail::lifecycle_config::of(stage));
      throughput_.emplace_back(stage);
      base_.emplace_back();
      if (s.stage_count() > 0) stage_names_.push_back(s.stage_name(k));
    }
    for (std::size_t k = 0; k < stages; ++k) {
      const scenario& stage = s.stage_count() > 0 ? s.stage(k) : s;
      const std::string prefix = s.stage_count() > 0 ? s.stage_name(k) + "/" : std::string();
      for (const field_spec* f : detail::lifecycle_input_fields()) {
        if (!relevant(stage, *f)) continue;  // an input this scenario never reads cannot block it
        const std::string path = !prefix.empty() && s.stage_gives(k, f->id) ? prefix + f->path : f->path;
        const quantity* q = stage.find(f->id);
        if (q == nullptr) {
          // Absent without default: no failures (MTBF), or costs unknown (price).
          if (f->id == field::prices_node_hour_usd || f->id == field::prices_spot_node_hour_usd ||
              f->id == field::prices_block_usd)
            add_unknown(path, "absent");
          continue;  // failures.node_mtbf_h keeps +inf: no failures
        }
        add_input(k, path, *q, f->slot, input_stream_of(path, f->id, platform_of(stage)));
      }
      if (stage.mode() != throughput_mode::measured) add_platform_inputs(k, stage);
      if (stage.mode() == throughput_mode::extrapolated) add_extrapolation_error(k, stage, prefix);
    }
    for (const auto& path : unknown_)
      if (is_time_input(path)) time_known_ = false;
    index_scatter();
    // What rebuilds it elsewhere (request()): the scenario's JSON and its hardware profile's.
    ordered_json source{{"scenario", s.to_json()}, {"profiles", ordered_json::object()}};
    if (const ordered_json* profile = s.profile_document()) source["profiles"][s.text(field::cluster_platform)] = *profile;
    source_ = std::make_shared<const ordered_json>(std::move(source));
  }

  /// What another process rebuilds this model from (a run split across processes,
  /// docs/scaling.md): {"kind": "lifecycle", "scenario", "profiles", "pins"}, the pins being the
  /// inputs held by pinned(), in order, by path. sensitivity/run_request.hpp reads it back.
  ordered_json request() const {
    return {{"kind", "lifecycle"}, {"scenario", source_->at("scenario")}, {"profiles", source_->at("profiles")},
            {"pins", pins_}};
  }

  /// Whether the scenario's mode, failure model, step source and purchase option read field `f`
  /// (an input it never reads is neither drawn nor able to block a metric).
  static bool relevant(const scenario& s, const field_spec& f) { return reads_field(s, f); }
  /// The same, for the field at dotted `path` (input_error when no field has that path).
  static bool relevant(const scenario& s, const std::string& path) { return relevant(s, spec(field_at(path))); }

  /// The simulator's fixed settings (nodes, purchase option, ...) of the first stage, or of the
  /// job when it has no stages.
  const detail::lifecycle_config& config() const { return configs_[0]; }
  /// Extrapolated mode: the log-spread of the "extrapolation.error" input; 0 in the other modes
  /// (the first stage's, in a job with stages: extrapolation_log_spreads() gives each stage's).
  double extrapolation_log_spread() const { return throughput_[0].extrapolation_log_spread(); }
  /// The log-spread of each stage's "<stage>/extrapolation.error" input (0 for a stage not
  /// extrapolated), in stage order; one value for a job without stages.
  std::vector<double> extrapolation_log_spreads() const {
    std::vector<double> spreads;
    for (const auto& t : throughput_) spreads.push_back(t.extrapolation_log_spread());
    return spreads;
  }
  /// The stages' names (empty for a job without stages).
  const std::vector<std::string>& stage_names() const { return stage_names_; }
  /// The metrics of a run: every metric, then "<stage>/<metric>" for each stage and each of
  /// stage_metrics.
  std::vector<std::string> output_names() const {
    std::vector<std::string> names{metric_names().begin(), metric_names().end()};
    for (const auto& stage : stage_names_)
      for (const metric::id m : stage_metrics) names.push_back(stage + "/" + metric_names()[m]);
    return names;
  }
  /// Paths of the inputs marked unknown (and of the price when absent), once each.
  const std::vector<std::string>& unknown_inputs() const { return unknown_; }
  /// Why each of unknown_inputs() is unknown (the quantity's reason, or "absent"), in that order.
  const std::vector<std::string>& unknown_reasons() const { return unknown_reasons_; }
  /// Paths of the inputs that are drawn (non-constant, known).
  std::vector<std::string> uncertain_inputs() const {
    std::vector<std::string> paths;
    for (const auto& d : drawn_) paths.push_back(d.path);
    return paths;
  }

  /// The unknown inputs that metric m needs (dependencies_of, plus every time input for the
  /// useful step cost when the step time is derived).
  std::vector<std::string> unknowns_needed_by(metric::id m) const {
    // Without a capacity block its cost lines are 0 whatever the prices: they need nothing.
    const bool block_line = m == metric::block_idle_usd || m == metric::overflow_usd;
    if (block_line && configs_[0].purchase != purchase_mode::capacity_block) return {};
    metric_dependencies deps = dependencies_of(m);
    // A derived step time depends on every time input of the platform model.
    // A derived step time (of any stage) depends on every time input of the platform model.
    const bool derived =
        std::any_of(throughput_.begin(), throughput_.end(), [](const auto& t) { return t.derives_step_time(); });
    if (m == metric::useful_step_cost_usd && derived) deps.needs_time = true;
    std::vector<std::string> needed;
    for (const auto& path : unknown_)
      if (deps.needs(path)) needed.push_back(path);
    return needed;
  }

  /// Names of the metrics that cannot be computed (they come out NaN).
  std::vector<std::string> unknown_metrics() const {
    std::vector<std::string> names;
    for (std::size_t m = 0; m < metric::count; ++m)
      if (!unknowns_needed_by(static_cast<metric::id>(m)).empty()) names.push_back(metric_names()[m]);
    return names;
  }

  /// The engine's call: draws every input of the block's samples on its stream and fills out
  /// (block.size rows) with their metrics: metric::count columns, or output_names()'s for the
  /// stages' metrics too.
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    // The block in parts of chunk_rows samples: the loop over samples reads each sample's row
    // across every input column and writes it across every output column, which stays in cache
    // only when the columns are short. A sample's draws depend on its index alone, so the parts
    // give the same bits as the whole block.
    // The columns are a cache line longer than the part, so that a row's elements of successive
    // columns fall in different cache sets (2 KiB apart, they would compete for the same few).
    constexpr Eigen::Index chunk_rows = 256;
    thread_local detail::scratch_slot slot;  // the same shape every block (scratch.hpp)
    detail::scratch lent(slot, chunk_rows + detail::padding_rows, static_cast<Eigen::Index>(drawn_.size()));
    Eigen::ArrayXXd& x = lent.array();
    for (Eigen::Index first_row = 0; first_row < block.size; first_row += chunk_rows) {
      block_view part = block;
      part.first = block.first + static_cast<std::uint64_t>(first_row);
      part.size = std::min(chunk_rows, block.size - first_row);
      draw(part, x);
      evaluate_drawn(part, x.topRows(part.size), out.middleRows(first_row, part.size));
    }
  }

  /// Draws the inputs of the samples of `part` on their streams: row i of column j of x (at
  /// least part.size rows, input_count() columns) becomes drawn input j of sample part.first + i.
  void draw(const block_view& part, Eigen::Ref<Eigen::ArrayXXd> x) const {
    for (std::size_t j = 0; j < drawn_.size(); ++j) {
      double* column = x.col(static_cast<Eigen::Index>(j)).data();
      part.uniforms(drawn_[j].stream, column);
      drawn_[j].value.ppf(column, column, static_cast<std::size_t>(part.size));
    }
  }

  /// evaluate() of the samples of `part` from input values x (part.size rows; draw()'s, or
  /// values put in their place), each sample's chance draws from its own index, as the engine's
  /// call makes them (drawn as columns: faster than evaluate() with the same indices, the same
  /// bits). Returns how many samples the per-sample simulator ran.
  std::size_t evaluate_drawn(const block_view& part, const Eigen::Ref<const Eigen::ArrayXXd>& x,
                             Eigen::Ref<Eigen::ArrayXXd> out) const {
    return evaluate_from(part.seed, x, part.first, out);
  }
  /// evaluate() with row i's chance draws those of sample first_index + i (drawn as columns).
  std::size_t evaluate_from(std::uint64_t seed, const Eigen::Ref<const Eigen::ArrayXXd>& x, std::uint64_t first_index,
                            Eigen::Ref<Eigen::ArrayXXd> out) const {
    return evaluate_samples(
        seed, x, [&](Eigen::Index row) { return first_index + static_cast<std::uint64_t>(row); }, &first_index, out);
  }

  /// Whether field f describes the platform the job runs on rather than the job itself: what the
  /// platform's hardware, software stack or market decides (its speed, compiler, reliability,
  /// capacity and prices, the evaluation run on it, the effort of porting to it). Such an input
  /// is drawn on a stream keyed by the platform, "<path>@<cluster.platform>", so two platforms
  /// draw it independently and two scenarios on one platform share it; every other input (the
  /// work, the data, the storage, the team) is drawn on the stream of its path alone, shared by
  /// every scenario that has it (docs/sensitivity.md, "What two scenarios share").
  static bool describes_platform(field f) {
    switch (f) {
      case field::throughput_step_time_s:
      case field::throughput_achieved_tflops_per_chip:
      case field::throughput_model_flops_utilization:
      case field::throughput_compute_efficiency:
      case field::reference_step_time_s:
      case field::startup_queue_wait_s:
      case field::startup_env_prep_s:
      case field::compile_initial_s:
      case field::compile_recompile_s:
      case field::compile_cache_load_s:
      case field::compile_cache_hit_prob:
      case field::eval_time_s:
      case field::eval_final_s:
      case field::failures_node_mtbf_h:
      case field::prices_node_hour_usd:
      case field::prices_spot_node_hour_usd:
      case field::prices_block_usd:
      case field::spot_interruptions_per_node_h:
      case field::spot_notice_s:
      case field::spot_reacquire_s:
      case field::engineering_adaptation_h:
      case field::engineering_port_days:
        return true;
      default:
        return false;
    }
  }
  /// The platform a scenario's platform-keyed streams are keyed by: its cluster.platform, ""
  /// when it names none.
  static std::string platform_of(const scenario& s) {
    return s.has_text(field::cluster_platform) ? s.text(field::cluster_platform) : std::string();
  }
  /// The stream of input `path` (field f) in a scenario on `platform`.
  static std::uint32_t input_stream_of(const std::string& path, field f, const std::string& platform) {
    return describes_platform(f) ? stream_id(path + "@" + platform) : stream_id(path);
  }
  /// The streams of the sample's chance events (keyed by the platform where they are the platform's).
  const detail::chance_streams& chance_streams() const { return chance_streams_; }

  /// The stream drawn input j takes its uniforms from (column j of `evaluate`'s x).
  std::uint32_t input_stream(std::size_t j) const { return drawn_[j].stream; }
  /// The number of drawn inputs (columns of `evaluate`'s x).
  std::size_t input_count() const { return drawn_.size(); }
  /// Drawn input j's distribution.
  const quantity& input_quantity(std::size_t j) const { return drawn_[j].value; }

  /// The inputs of row i of `evaluate`'s x, one entry per stage (one for a job without stages):
  /// the fixed ones, and drawn input j at x(i, j) in each stage that reads it.
  void inputs_at(const Eigen::Ref<const Eigen::ArrayXXd>& x, Eigen::Index i, std::vector<lifecycle_inputs>& ins) const {
    ins.resize(base_.size());
    for (std::size_t k = 0; k < base_.size(); ++k) ins[k] = base_[k];
    for (const auto& to : scatter_) ins[to.stage].*(to.member) = x(i, to.column);
  }
  /// The number of stages simulated: 1 for a job without stages.
  std::size_t stage_count() const { return base_.size(); }
  /// Stage `stage`'s fixed settings (not checked: stage < stage_count()).
  const detail::lifecycle_config& stage_config(std::size_t stage) const { return configs_[stage]; }

  /// Turns uniforms u(i, j) of drawn input j into its values, in place.
  void to_values(Eigen::Ref<Eigen::ArrayXXd> u) const {
    for (std::size_t j = 0; j < drawn_.size(); ++j) {
      double* column = u.col(static_cast<Eigen::Index>(j)).data();
      drawn_[j].value.ppf(column, column, static_cast<std::size_t>(u.rows()));
    }
  }

  /// Evaluates x.rows() samples from given input values: x(i, j) is drawn input j's value,
  /// chance_index(i) the sample index of row i's aleatory draws (failures, cache, quality
  /// gate). The ordinary run passes each sample's own draws and index; a sensitivity design
  /// mixes the inputs and chance indices of several samples. `out` has metric::count columns,
  /// or output_names()'s to receive the stages' metrics too. Returns how many samples the
  /// per-sample simulator ran (those that met an event, or all when has_common_path() is false).
  template <class ChanceIndex>
  std::size_t evaluate(std::uint64_t seed, const Eigen::Ref<const Eigen::ArrayXXd>& x, const ChanceIndex& chance_index,
                       Eigen::Ref<Eigen::ArrayXXd> out) const {
    return evaluate_samples(seed, x, chance_index, nullptr, out);
  }

  /// evaluate() with every sample run by the per-sample simulator (simulator.hpp), none by the
  /// common path of a block (lanes.hpp): the same bits, slower; the reference the common path is
  /// tested against.
  template <class ChanceIndex>
  std::size_t evaluate_per_sample(std::uint64_t seed, const Eigen::Ref<const Eigen::ArrayXXd>& x,
                                  const ChanceIndex& chance_index, Eigen::Ref<Eigen::ArrayXXd> out) const {
    sample_rows rows(*this);
    for (Eigen::Index i = 0; i < x.rows(); ++i) rows.run(seed, x, i, chance_index(i), out);
    return static_cast<std::size_t>(x.rows());
  }

  /// Whether evaluate() runs a job's samples on the common path of a block (a job without stages,
  /// bought on demand, with exponential times between failures, and no unknown time input);
  /// the samples that meet an event still run alone.
  bool has_common_path() const {
    return time_known_ && stage_names_.empty() && detail::common_path_applies(configs_[0], base_.size());
  }

  /// The scenario's (top level's) throughput mode: measured, extrapolated, flops or analytic.
  throughput_mode mode() const { return mode_; }
  /// The name of the hardware profile the scenario resolved, if any.
  const std::optional<std::string>& profile_name() const { return profile_name_; }

  /// A copy in which drawn input j is held at `value` (a tornado bar); its stream is then
  /// unused, every other input and the chance draws keep theirs (common random numbers).
  lifecycle_model pinned(std::size_t j, double value) const {
    lifecycle_model copy = *this;
    copy.pins_.push_back({{"path", drawn_[j].path}, {"value", value}});
    for (const std::size_t k : drawn_[j].stages) copy.base_[k].*(drawn_[j].member) = value;
    copy.drawn_.erase(copy.drawn_.begin() + static_cast<std::ptrdiff_t>(j));
    copy.index_scatter();
    return copy;
  }

 private:
  // The samples of evaluate() in parts of lane_rows: the common path for every sample of a part
  // (lanes.hpp), then the per-sample simulator for those it lists. `first_index`, when given,
  // says that chance_index(i) is *first_index + i (an ordinary run), so the chance draws come as
  // columns.
  static constexpr Eigen::Index lane_rows = 256;
  // The distance between the columns of a part's own buffers: a cache line more than lane_rows
  // (scratch.hpp's padding_rows).
  static constexpr std::size_t lane_stride = static_cast<std::size_t>(lane_rows + detail::padding_rows);
  template <class ChanceIndex>
  std::size_t evaluate_samples(std::uint64_t seed, const Eigen::Ref<const Eigen::ArrayXXd>& x,
                               const ChanceIndex& chance_index, const std::uint64_t* first_index,
                               Eigen::Ref<Eigen::ArrayXXd> out) const {
    if (!has_common_path()) return evaluate_per_sample(seed, x, chance_index, out);
    std::size_t alone = 0;
    const throughput_model& throughput = throughput_[0];
    constexpr auto n_max = static_cast<std::size_t>(lane_rows);
    double u_failure[lane_stride], u_quality[lane_stride], step_time_s[lane_stride], effective_steps[lane_stride];
    double parts[5][lane_stride];  // compute, tp + cp, bubble, p2p, dp: a derived step time's parts
    std::size_t others[n_max];
    std::vector<lifecycle_inputs> sample;  // a derived step time's inputs (inputs_at)
    sample_rows rows(*this);
    for (Eigen::Index first_row = 0; first_row < x.rows(); first_row += lane_rows) {
      const Eigen::Index n = std::min(lane_rows, x.rows() - first_row);
      const auto count = static_cast<std::size_t>(n);
      detail::lane_inputs in{};
      for (std::size_t m = 0; m < detail::lane_member_count; ++m) {
        const Eigen::Index column = lane_sources_[m];
        in.*(detail::lane_members[m].column) = column >= 0 ? x.col(column).data() + first_row
                                                           : lane_constants_.data() + m * lane_stride;
      }
      // The chance draws the common path reads: each stream's first draw of each sample.
      const auto draws = [&](std::uint32_t stream, double* u) {
        if (first_index != nullptr) {
          uniform_column(seed, stream, 0, *first_index + static_cast<std::uint64_t>(first_row), 1, count, u);
        } else {
          for (Eigen::Index i = 0; i < n; ++i)
            u[i] = trnmodel::detail::uniform(seed, chance_index(first_row + i), stream, 0);
        }
      };
      draws(chance_streams_.failure, u_failure);
      draws(chance_streams_.quality, u_quality);
      if (throughput.sets_inputs()) {
        // A step time (or a step count) from the platform: derived per sample, into columns.
        for (Eigen::Index i = 0; i < n; ++i) {
          inputs_at(x, first_row + i, sample);
          step_parts p;
          const bool derived = throughput.derive(sample[0], p);
          const auto k = static_cast<std::size_t>(i);
          step_time_s[k] = sample[0].step_time_s;
          effective_steps[k] = sample[0].effective_steps;
          double values[5];
          step_part_values(derived, p, values);
          for (std::size_t j = 0; j < 5; ++j) parts[j][k] = values[j];
        }
        in.step_time_s = step_time_s;
        in.effective_steps = effective_steps;
      }
      auto part = out.middleRows(first_row, n);
      const std::size_t listed = detail::common_path(in, configs_[0], u_failure, u_quality, part.data(),
                                                     part.outerStride(), count, others);
      std::copy(in.step_time_s, in.step_time_s + count, part.col(metric::step_time_s).data());
      for (std::size_t k = 0; k < 5; ++k) {
        double* column = part.col(static_cast<Eigen::Index>(metric::compute_s + k)).data();
        if (throughput.sets_inputs())
          std::copy(parts[k], parts[k] + count, column);
        else
          std::fill(column, column + count, std::numeric_limits<double>::quiet_NaN());
      }
      for (std::size_t k = 0; k < listed; ++k) {
        const Eigen::Index i = first_row + static_cast<Eigen::Index>(others[k]);
        rows.run(seed, x, i, chance_index(i), out);
      }
      alone += listed;
    }
    return alone;
  }

  // The metrics compute_s, tp_comm_s, pp_bubble_s, pp_p2p_s and dp_comm_s (consecutive) of a
  // step time: its parts when derived from the platform, else NaN.
  static void step_part_values(bool derived, const step_parts& p, double* five) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    five[0] = derived ? p.compute_s : nan;
    five[1] = derived ? p.tp_s + p.cp_s : nan;  // context parallelism's too
    five[2] = derived ? p.bubble_s : nan;
    five[3] = derived ? p.pp_p2p_s : nan;
    five[4] = derived ? p.dp_s : nan;
  }
  static_assert(metric::tp_comm_s == metric::compute_s + 1 && metric::pp_bubble_s == metric::compute_s + 2 &&
                    metric::pp_p2p_s == metric::compute_s + 3 && metric::dp_comm_s == metric::compute_s + 4,
                "step_part_values writes the five parts' metrics as consecutive columns");

  // The per-sample simulator's evaluation of one row of evaluate()'s x, with its buffers.
  class sample_rows {
   public:
    explicit sample_rows(const lifecycle_model& model)
        : model_(model),
          stage_out_(model.stage_names_.empty() ? 0 : model.base_.size() * stage_metrics.size()),
          ins_(model.base_.size()) {}

    void run(std::uint64_t seed, const Eigen::Ref<const Eigen::ArrayXXd>& x, Eigen::Index i,
             std::uint64_t chance_index, Eigen::Ref<Eigen::ArrayXXd> out) {
      const lifecycle_model& m = model_;
      const std::size_t stages = m.base_.size();
      const bool stage_columns = !m.stage_names_.empty() && out.cols() > static_cast<Eigen::Index>(metric::count);
      m.inputs_at(x, i, ins_);
      lifecycle_inputs& in = ins_[0];
      if (m.time_known_) {
        step_parts parts;
        const bool derived = m.throughput_[0].derive(in, parts);
        for (std::size_t k = 1; k < stages; ++k) {
          step_parts stage_parts;
          m.throughput_[k].derive(ins_[k], stage_parts);
        }
        detail::chance_draws chance{seed, chance_index, m.chance_streams_};
        if (m.stage_names_.empty())
          detail::simulate_sample(in, m.configs_[0], chance, row_);
        else
          detail::simulate_stages(ins_.data(), m.configs_.data(), stages, chance, row_, stage_out_.data());
        row_[metric::step_time_s] = in.step_time_s;
        step_part_values(derived, parts, row_ + metric::compute_s);
      } else {
        std::fill(row_, row_ + metric::count, std::numeric_limits<double>::quiet_NaN());
        std::fill(stage_out_.begin(), stage_out_.end(), std::numeric_limits<double>::quiet_NaN());
        if (m.throughput_[0].derives_step_time()) in.step_time_s = std::numeric_limits<double>::quiet_NaN();
        detail::fill_costs(in, m.configs_[0], row_, std::numeric_limits<double>::quiet_NaN());
      }
      for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(metric::count); ++k) out(i, k) = row_[k];
      if (stage_columns)
        for (std::size_t k = 0; k < stage_out_.size(); ++k)
          out(i, static_cast<Eigen::Index>(metric::count + k)) = stage_out_[k];
    }

   private:
    const lifecycle_model& model_;
    double row_[metric::count];
    std::vector<double> stage_out_;
    std::vector<lifecycle_inputs> ins_;
  };

  // Hardware-profile figures become inputs named "platform.<key>", drawn like any other.
  void add_unknown(const std::string& path, const std::string& reason) {
    if (std::find(unknown_.begin(), unknown_.end(), path) != unknown_.end()) return;
    unknown_.push_back(path);
    unknown_reasons_.push_back(reason);
  }

  // Input `path` of stage k: unknown, a constant, or drawn (shared by the stages that take it).
  void add_input(std::size_t k, const std::string& path, const quantity& q, double lifecycle_inputs::* member,
                 std::uint32_t stream) {
    if (q.is_unknown()) {
      base_[k].*member = std::numeric_limits<double>::quiet_NaN();
      add_unknown(path, q.unknown_reason());
    } else if (q.is_constant()) {
      base_[k].*member = q.ppf(0.5);
    } else {
      for (auto& d : drawn_)
        if (d.path == path) {
          d.stages.push_back(k);
          return;
        }
      drawn_.push_back({member, q, stream, path, {k}});
    }
  }

  void add_platform_inputs(std::size_t k, const scenario& s) {
    const platform_profile* profile = s.profile();
    if (profile == nullptr) return;  // flops mode from achieved TFLOPS needs no profile
    const std::string precision = s.text(field::throughput_precision);
    const std::string platform = platform_of(s);
    const auto add = [&](const std::string& path, const quantity& q, double lifecycle_inputs::* member) {
      add_input(k, path, q, member, stream_id(path + "@" + platform));  // a figure of this platform
    };
    using in = lifecycle_inputs;
    add("platform.peak_tflops_per_chip." + precision, profile->peak_tflops_per_chip.at(precision), &in::peak_tflops);
    add("platform.intra_node_gb_s_per_chip", profile->figure("intra_node_gb_s_per_chip"), &in::intra_gb_s);
    add("platform.intra_node_latency_us", profile->figure("intra_node_latency_us"), &in::intra_latency_us);
    add("platform.intra_node_efficiency", profile->figure("intra_node_efficiency"), &in::intra_efficiency);
    add("platform.inter_node_gb_s_per_chip", profile->figure("inter_node_gb_s_per_chip"), &in::inter_gb_s);
    add("platform.inter_node_latency_us", profile->figure("inter_node_latency_us"), &in::inter_latency_us);
    add("platform.inter_node_efficiency", profile->figure("inter_node_efficiency"), &in::inter_efficiency);
    add("platform.hbm_tb_s_per_chip", profile->figure("hbm_tb_s_per_chip"), &in::hbm_tb_s);
  }

  // The error of the model's ratio in extrapolated mode, an input of its own named
  // "extrapolation.error": lognormal with median 1 and the fitted log-spread of this pair of
  // configurations (docs/validation.md, "Extrapolation error"). Its stream is the platform's:
  // the model is wrong in its own way on each platform, so scenarios compared across platforms
  // draw independent errors, while on one platform they share them (common random numbers).
  // The error factor of an extrapolated step time (docs/throughput.md). Each stage of a job in
  // stages extrapolates its own layout from the reference, so it has an input of its own,
  // "<stage>/extrapolation.error", with its own spread, on a stream of its own: the stages'
  // errors are drawn independently (the fit gives no correlation between two configurations'
  // errors), and a sensitivity analysis names the stage whose extrapolation moves the result.
  void add_extrapolation_error(std::size_t k, const scenario& s, const std::string& prefix) {
    const double sigma = throughput_[k].extrapolation_log_spread();
    const std::string path = prefix + "extrapolation.error";
    const std::string stream = path + "@" + platform_of(s);
    if (sigma > 0)
      add_input(k, path, make_lognormal(0.0, sigma, path), &lifecycle_inputs::extrapolation_error, stream_id(stream));
  }

  // Where each drawn input goes, flat: the per-sample loop then reads a short array instead of
  // walking the drawn inputs' descriptions; and for each input of the common path, the drawn
  // column it reads or, when fixed, a column of lane_rows copies of its value (the columns
  // lane_stride apart: scratch.hpp's padding_rows).
  void index_scatter() {
    scatter_.clear();
    for (std::size_t j = 0; j < drawn_.size(); ++j)
      for (const std::size_t k : drawn_[j].stages)
        scatter_.push_back({static_cast<Eigen::Index>(j), k, drawn_[j].member});
    lane_sources_.assign(detail::lane_member_count, -1);
    lane_constants_.assign(detail::lane_member_count * lane_stride, 0.0);
    for (std::size_t m = 0; m < detail::lane_member_count; ++m) {
      const auto member = detail::lane_members[m].input;
      std::fill_n(lane_constants_.begin() + static_cast<std::ptrdiff_t>(m * lane_stride), lane_rows,
                  base_[0].*member);
      for (const auto& to : scatter_)
        if (to.stage == 0 && to.member == member) lane_sources_[m] = to.column;
    }
  }

  struct drawn_input {
    double lifecycle_inputs::* member;
    quantity value;
    std::uint32_t stream;
    std::string path;
    std::vector<std::size_t> stages;  // the stages that read it
  };
  throughput_mode mode_;
  std::optional<std::string> profile_name_;
  detail::chance_streams chance_streams_;
  std::vector<detail::lifecycle_config> configs_;
  std::vector<throughput_model> throughput_;
  std::vector<lifecycle_inputs> base_;  // per stage
  std::vector<std::string> stage_names_;
  std::vector<drawn_input> drawn_;
  struct scatter_entry {
    Eigen::Index column;  // of evaluate's x
    std::size_t stage;
    double lifecycle_inputs::* member;
  };
  std::vector<scatter_entry> scatter_;  // from drawn_, by index_scatter()
  std::vector<Eigen::Index> lane_sources_;  // per lane member: its column of x, or -1 (fixed)
  std::vector<double> lane_constants_;  // per lane member: lane_rows copies of its fixed value
  std::vector<std::string> unknown_, unknown_reasons_;
  bool time_known_ = true;
  std::shared_ptr<const ordered_json> source_;  // {"scenario", "profiles"}: request()
  ordered_json pins_ = ordered_json::array();  // pinned()'s, in order: request()
};

namespace detail {

/// The metric names as a vector (run()'s output names).
inline std::vector<std::string> metric_name_list() { return {metric_names().begin(), metric_names().end()}; }

/// Throws unknown_input_error listing every unknown input (and what it blocks), if any.
inline void require_known(const lifecycle_model& model) {
  if (model.unknown_inputs().empty()) return;
  std::string list;
  for (std::size_t k = 0; k < model.unknown_inputs().size(); ++k)
    list += (k ? ", " : "") + model.unknown_inputs()[k] + " (" + model.unknown_reasons()[k] + ")";
  std::string metrics;
  for (const auto& m : model.unknown_metrics()) metrics += (metrics.empty() ? "" : ", ") + m;
  throw unknown_input_error("unknown inputs are needed: " + list + "; they block " + metrics +
                                ". Give them values, or allow unknowns to get NaN for those metrics",
                            model.unknown_inputs());
}

}  // namespace detail

/// Simulates the scenario: one output per metric (metric_names(), docs/metrics.md). Unless
/// `allow_unknown`, refuses (unknown_input_error listing every unknown input) when any metric
/// would need an unknown input; with it, those metrics are NaN. Bitwise the numbers of
/// Python's tm.simulate with the same samples, seed and keep_samples, for any thread count.
/// Thread-safe: concurrent calls on the same scenario are fine (it is only read).
inline run_result simulate(const scenario& s, const run_options& options, bool allow_unknown = false) {
  const lifecycle_model model(s);
  if (!allow_unknown) detail::require_known(model);
  return run(model, model.output_names(), options);
}

namespace detail {
// The lifecycle model with only some of its metrics as outputs: each kept column's values and
// block statistics are those of the full run, bit for bit.
class metric_subset {
 public:
  metric_subset(const scenario& s, std::vector<Eigen::Index> columns) : model_(s), columns_(std::move(columns)) {}
  const lifecycle_model& model() const { return model_; }
  // {"kind": "metrics", "model": the lifecycle model's request, "columns"}: run_request.hpp.
  ordered_json request() const { return {{"kind", "metrics"}, {"model", model_.request()}, {"columns", columns_}}; }
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    thread_local scratch_slot slot;  // every metric of the block (scratch.hpp)
    padded_scratch lent(slot, block.size, static_cast<Eigen::Index>(metric::count));
    auto all = lent.array();
    model_(block, all);
    for (std::size_t k = 0; k < columns_.size(); ++k) out.col(static_cast<Eigen::Index>(k)) = all.col(columns_[k]);
  }

 private:
  lifecycle_model model_;
  std::vector<Eigen::Index> columns_;
};
}  // namespace detail

/// simulate() keeping only `metrics` (names from metric_names(), in the order given): the same
/// values and statistics for those metrics, in 8 bytes per sample per metric kept instead of
/// 8 x metric::count. With `allow_unknown` false, refuses only unknown inputs that the metrics
/// kept need.
inline run_result simulate(const scenario& s, const run_options& options, const std::vector<std::string>& metrics,
                           bool allow_unknown) {
  if (metrics.empty()) detail::fail("metrics", "name at least one metric to keep");
  std::vector<Eigen::Index> columns;
  for (const auto& name : metrics) {
    const auto& names = metric_names();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + std::string(n);
      detail::fail("metrics", "no metric named \"" + name + "\" (metrics: " + all + ")");
    }
    const auto column = static_cast<Eigen::Index>(it - names.begin());
    if (std::find(columns.begin(), columns.end(), column) != columns.end())
      detail::fail("metrics", "\"" + name + "\" is named twice");
    columns.push_back(column);
  }
  const detail::metric_subset model(s, columns);
  if (!allow_unknown) {
    std::vector<std::string> needed;
    for (const auto column : columns)
      for (const auto& path : model.model().unknowns_needed_by(static_cast<metric::id>(column)))
        if (std::find(needed.begin(), needed.end(), path) == needed.end()) needed.push_back(path);
    if (!needed.empty()) detail::require_known(model.model());
  }
  return run(model, metrics, options);
}

}  // namespace trnmodel
