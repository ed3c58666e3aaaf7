#pragma once
// A scenario (the job card, docs/scenario.md): loaded from JSON text, a file or a JSON value,
// validated field by field against the table in fields.hpp, saved back as given, and
// copied with dotted-path changes. Every rejection names the JSON path, the value and the
// rule; unknown keys get a "did you mean"; syntax errors give line and column; duplicate
// keys are refused (a JSON parser would otherwise keep the last one silently).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/throughput/flops.hpp"
#include "trnmodel/throughput/profile.hpp"

namespace trnmodel {

/// The value of a version-1 scenario's "schema" key.
inline constexpr const char* scenario_schema_v1 = "trnmodel.scenario/1";

namespace detail {

inline std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys{"schema", "stages"};
  for (const auto& f : scenario_fields()) {
    const std::string head = f.path.substr(0, f.path.find('.'));
    if (std::find(keys.begin(), keys.end(), head) == keys.end()) keys.push_back(head);
  }
  return keys;
}

// The keys directly inside a section ("card" -> code_version, ..., owners): fields and
// sub-sections, each once, in table order. Empty when `section` is not a section.
inline std::vector<std::string> section_keys(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& f : scenario_fields()) {
    if (f.path.rfind(section + ".", 0) != 0) continue;
    const std::string rest = f.path.substr(section.size() + 1);
    const std::string key = rest.substr(0, rest.find('.'));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

inline std::vector<std::string> all_paths() {
  std::vector<std::string> paths;
  for (const auto& f : scenario_fields()) paths.push_back(f.path);
  return paths;
}

// The likeliest intended field for an unknown key: the same key in another section
// ("checkpoint.restart_s" -> failures.restart_s), a near key in this section, or a near path.
inline std::string suggest_field(const std::string& section, const std::string& key) {
  for (const auto& f : scenario_fields())
    if (f.path.size() > key.size() && f.path.compare(f.path.size() - key.size() - 1, std::string::npos, "." + key) == 0)
      return " (did you mean " + f.path + "?)";
  std::string hint = did_you_mean(key, section_keys(section));
  return hint.empty() ? did_you_mean(section + "." + key, all_paths()) : hint;
}

inline std::string rule_text(field_rule rule) {
  switch (rule) {
    case field_rule::nonnegative: return "≥ 0";
    case field_rule::positive: return "> 0";
    case field_rule::unit_interval: return "in (0, 1]";
    case field_rule::weibull_shape: return "≥ 0.1";
    case field_rule::probability: return "in [0, 1]";
    case field_rule::fraction_below_one: return "in [0, 1)";
    case field_rule::at_least_one: return "≥ 1";
    default: return "";
  }
}

inline bool in_range(field_rule rule, double lo, double hi) {
  switch (rule) {
    case field_rule::nonnegative: return lo >= 0;
    case field_rule::positive: return lo >= 0;  // and no atom at 0: checked below
    case field_rule::unit_interval: return lo >= 0 && hi <= 1;
    case field_rule::weibull_shape: return lo >= 0.1;
    case field_rule::probability: return lo >= 0 && hi <= 1;
    case field_rule::fraction_below_one: return lo >= 0 && hi < 1;
    default: return true;
  }
}

// The whole support of a quantity must satisfy the field's rule, so that no draw can be
// out of range: refused, never clipped.
inline void check_quantity_range(const std::string& path, field_rule rule, const quantity& q) {
  if (q.is_unknown() || rule == field_rule::any) return;
  const auto [lo, hi] = q.support();
  // Rates and durations that divide: a draw of exactly 0 would give an infinite time. A
  // continuous distribution whose support starts at 0 never draws 0 (u > 0); a fixed value,
  // an empirical sample or a Bernoulli atom at 0 would.
  const bool atom = q.is_fixed() || std::holds_alternative<dist::empirical>(q.dist()) ||
                    std::holds_alternative<dist::bernoulli>(q.dist());
  if ((rule == field_rule::positive || rule == field_rule::unit_interval) && lo == 0 && atom)
    detail::fail(path, "must be " + rule_text(rule) + ", got " +
                           (q.is_fixed() ? std::string("0") : describe_json(quantity_to_json(q)) + ", which can be 0"));
  if (in_range(rule, lo, hi)) return;
  if (q.is_fixed()) detail::fail(path, "must be " + rule_text(rule) + ", got " + detail::format_number(lo));
  std::string hint;
  if (std::holds_alternative<dist::normal>(q.dist()))
    hint = rule == field_rule::nonnegative || rule == field_rule::positive ? "; truncate it with \"lo\": 0"
                                                                           : "; truncate it with \"lo\" and \"hi\"";
  else if (std::holds_alternative<dist::beta>(q.dist()) && rule == field_rule::fraction_below_one)
    hint = "; rescale it with \"hi\" below 1";
  detail::fail(path, "must be " + rule_text(rule) + ", but " + describe_json(quantity_to_json(q)) +
                         " can take values in [" + detail::format_number(lo) + ", " + detail::format_number(hi) + "]" +
                         hint);
}

// A fixed value of a field that counts (steps, changes) must already be a whole number in
// range: rounding is for drawn values, whose spread the user chose; rounding a typed 0.3 to
// 0 would silently mean "never checkpoint", and 0 steps to 1 step.
inline void check_fixed_count(const field_spec& field, const quantity& q) {
  if (field.count == counting::none || !q.is_fixed()) return;
  const double x = q.ppf(0.5), lo = field.count == counting::up ? 1 : 0;
  if (x == std::floor(x) && x >= lo) return;  // every double from 2^53 up is whole
  detail::fail(field.path, "a fixed count must be a whole number ≥ " + detail::format_number(lo) + ", got " +
                               detail::format_number(x) + " (only drawn values are rounded)");
}

}  // namespace detail

/// A validated scenario (docs/scenario.md): every field by path or id, its stages, its hardware
/// profile. Thread-safety: immutable; updated() returns a new one, so it may be shared across
/// threads. Ownership: a value (copies share nothing mutable).
class scenario {
 public:
  /// From a parsed JSON value (a dict from Python arrives this way).
  /// `profiles` are the hardware profiles that cluster.platform may name (name -> JSON).
  /// Throws trnmodel::input_error naming the path of the first field (or stage) that breaks a rule.
  static scenario from_json(const ordered_json& doc, profile_library profiles = {}) {
    detail::check_json_depth(doc, "scenario");
    scenario s;
    s.doc_ = doc;
    s.profiles_ = std::make_shared<const profile_library>(std::move(profiles));
    s.load();
    s.load_profile();
    s.check_consistency();
    s.load_stages();
    return s;
  }

  /// From JSON text: syntax errors with line and column, duplicate keys refused.
  static scenario from_text(const std::string& text, profile_library profiles = {}) {
    return from_json(parse_strict(text), std::move(profiles));
  }

  /// From a file, read whole and loaded as from_text does; input_error naming the file when it cannot be opened.
  static scenario from_file(const std::string& file, profile_library profiles = {}) {
    std::ifstream in(file, std::ios::binary);
    if (!in) detail::fail(file, "cannot open the scenario file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_text(text.str(), std::move(profiles));
  }

  /// Parses JSON text, refusing duplicate keys and reporting syntax errors by line/column.
  static ordered_json parse_strict(const std::string& text) { return detail::parse_strict_json(text, "scenario"); }

  /// The document as loaded (defaults are not written into it).
  const ordered_json& to_json() const { return doc_; }

  /// A copy with changes at dotted paths ("checkpoint.every_steps"); a null value removes
  /// the key (back to its default). The result is validated like a new scenario.
  /// A stage's field is "stages[1].<path>" or "<stage name>/<path>"; an unknown path is an input_error
  /// with a did-you-mean.
  scenario updated(const std::vector<std::pair<std::string, ordered_json>>& changes) const {
    ordered_json doc = doc_;
    for (const auto& [path, value] : changes) {
      if (const auto at = stage_field(path)) {
        update_stage(doc["stages"][at->first], at->second, value);
        continue;
      }
      const field_spec* field = find_field(path);
      if (field == nullptr)
        detail::fail(path.empty() ? "(empty path)" : path,
                     "no such scenario field" + detail::did_you_mean(path, detail::all_paths()));
      // Walk the sections of the path ("card.owners.quality"), making the missing ones.
      ordered_json* block = &doc;
      std::string rest = path;
      bool absent = false;
      for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
        const std::string section = rest.substr(0, dot);
        rest = rest.substr(dot + 1);
        if (!block->contains(section) || !(*block)[section].is_object()) {
          if (value.is_null()) {
            absent = true;  // nothing to remove
            break;
          }
          (*block)[section] = ordered_json::object();
        }
        block = &(*block)[section];
      }
      if (absent) continue;
      if (value.is_null())
        block->erase(rest);
      else
        (*block)[rest] = value;
    }
    return from_json(doc, *profiles_);
  }

  /// Whether the scenario gives the field itself (rather than taking its default).
  bool has(field f) const { return given_[index(f)]; }
  /// has() by dotted path; input_error for a path that is no field.
  bool has(const std::string& path) const { return has(field_at(path)); }
  /// The quantity of a field (its default when not given); nullptr when absent without a
  /// default (failures.node_mtbf_h, prices.node_hour_usd).
  const quantity* find(field f) const {
    const auto& v = quantities_[index(f)];
    return v ? &*v : nullptr;
  }
  /// find() by dotted path; nullptr also for a path that is no field (no error).
  const quantity* find(const std::string& path) const {
    const field_spec* f = find_field(path);
    return f == nullptr ? nullptr : find(f->id);
  }
  /// The quantity of a quantity field (its default when not given). Throws input_error at the field's path when it
  /// is absent without a default, or when the field is not a quantity.
  const quantity& q(field f) const {
    const quantity* found = find(checked(f, field_kind::quantity));
    if (found == nullptr) detail::fail(path_of(f), "not given and has no default");
    return *found;
  }
  /// q() by dotted path; input_error also for a path that is no field.
  const quantity& q(const std::string& path) const { return q(field_at(path)); }
  /// A boolean field's value (its default when not given); input_error at its path when it is absent without a
  /// default or not a boolean field.
  bool flag(field f) const { return *present(flags_, checked(f, field_kind::boolean)); }
  /// flag() by dotted path; input_error also for a path that is no field.
  bool flag(const std::string& path) const { return flag(field_at(path)); }
  /// An integer field's value (its default when not given); input_error at its path when it is absent without a
  /// default or not an integer field.
  long long integer(field f) const { return *present(integers_, checked(f, field_kind::integer)); }
  /// integer() by dotted path; input_error also for a path that is no field.
  long long integer(const std::string& path) const { return integer(field_at(path)); }
  /// A text or choice field's value (its default when not given); input_error at its path when it is absent
  /// without a default or of another kind.
  const std::string& text(field f) const {
    const field_kind kind = spec(f).kind == field_kind::choice ? field_kind::choice : field_kind::text;
    return *present(texts_, checked(f, kind));
  }
  /// text() by dotted path; input_error also for a path that is no field.
  const std::string& text(const std::string& path) const { return text(field_at(path)); }
  /// Every quantity of the scenario (given or default), by path.
  std::map<std::string, quantity> quantities() const {
    std::map<std::string, quantity> all;
    for (const auto& f : scenario_fields())
      if (quantities_[f.index()]) all.emplace(f.path, *quantities_[f.index()]);
    return all;
  }

  /// The scenario's `name`; "" when not given.
  std::string name() const { return has_text(field::name) ? text(field::name) : std::string(); }
  /// Whether an integer field has a value, given or default (false for one of another kind).
  bool has_integer(field f) const { return integers_[index(f)].has_value(); }
  /// has_integer() by dotted path; input_error for a path that is no field.
  bool has_integer(const std::string& path) const { return has_integer(field_at(path)); }
  /// Whether a text or choice field has a value, given or default (false for one of another kind).
  bool has_text(field f) const { return texts_[index(f)].has_value(); }
  /// A number field's value (a plain real number, never drawn); input_error at its path when it is absent
  /// without a default or not a number field.
  double number(field f) const { return *present(numbers_, checked(f, field_kind::number)); }
  /// Whether a number field has a value, given or default (false for one of another kind).
  bool has_number(field f) const { return numbers_[index(f)].has_value(); }
  /// has_text() by dotted path; input_error for a path that is no field.
  bool has_text(const std::string& path) const { return has_text(field_at(path)); }
  /// The hardware profile named by cluster.platform, when the library has it.
  const platform_profile* profile() const { return profile_ ? &*profile_ : nullptr; }
  /// The names of the hardware profiles this scenario was loaded with.
  std::vector<std::string> profile_names() const {
    std::vector<std::string> names;
    if (profiles_)
      for (const auto& [name, doc] : *profiles_) names.push_back(name);
    return names;
  }
  /// The value of choice field `f` (validated when loaded), as its enum E (choices.hpp).
  template <class E>
  E choice(field f) const {
    return parse_choice<E>(path_of(f), text(f));
  }
  /// throughput.mode, where the step time comes from: measured, extrapolated, flops or analytic.
  throughput_mode mode() const { return choice<throughput_mode>(field::throughput_mode); }
  /// prices.purchase, how the nodes are bought: on demand, a capacity block or spot.
  purchase_mode purchase() const { return choice<purchase_mode>(field::prices_purchase); }

  /// The model's shape (parameters at their median when uncertain; from the architecture when
  /// not given: 12·L·h² + 2·V·h, or 4·L·h² + 3·L·h·ffn + 2·V·h with a gated MLP of size ffn).
  /// Model fields not given are 0.
  transformer_shape shape() const {
    transformer_shape m{};
    const auto get = [&](field f) { return has_integer(f) ? static_cast<double>(integer(f)) : 0.0; };
    m.layers = get(field::model_layers);
    m.hidden_size = get(field::model_hidden_size);
    m.heads = get(field::model_heads);
    m.sequence_length = get(field::model_sequence_length);
    m.ffn_size = get(field::model_ffn_size);
    m.kv_heads = get(field::model_kv_heads);
    const double h = m.hidden_size, vocab = get(field::model_vocab_size);
    if (const quantity* n = find(field::model_parameters); n && !n->is_unknown()) {
      m.parameters = n->ppf(0.5);
    } else {
      m.parameters =
          (m.ffn_size > 0 ? m.layers * (4 * h * h + 3 * h * m.ffn_size) : 12 * m.layers * h * h) + 2 * vocab * h;
    }
    return m;
  }
  /// The shape of the model the reference step time was measured on: the job's, with the
  /// reference's sequence length and, when the reference is another model size, its own
  /// parameters, layers, hidden size and heads.
  transformer_shape reference_shape() const {
    transformer_shape m = shape();
    const auto own = [&](field f, double& value) {
      if (has_integer(f)) value = static_cast<double>(integer(f));
    };
    own(field::reference_sequence_length, m.sequence_length);
    own(field::reference_parameters, m.parameters);
    own(field::reference_layers, m.layers);
    own(field::reference_hidden_size, m.hidden_size);
    own(field::reference_heads, m.heads);
    return m;
  }
  /// What kind of training the job is: job.kind (LoRA or not), job.lora_rank and job.recompute.
  training_kind kind() const {
    training_kind k;
    k.lora = choice<job_kind>(field::job_kind) == job_kind::lora;
    k.lora_rank = static_cast<double>(integer(field::job_lora_rank));
    k.recompute = choice<recompute_kind>(field::job_recompute);
    return k;
  }
  /// The parallel layout of the job ("parallelism") or of the reference measurement
  /// ("reference": its fields fall back to the job's where the reference has none).
  /// input_error at `section` for any other section.
  parallel_layout layout(const std::string& section = "parallelism") const {
    if (section != "parallelism" && section != "reference")
      detail::fail(section, "no parallel layout here (parallelism or reference)");
    const bool reference = section == "reference";
    const auto get = [&](field own, field fallback) {
      const field f = reference && has_integer(own) ? own : fallback;
      return static_cast<double>(integer(f));
    };
    parallel_layout p;
    p.tp = get(field::reference_tp, field::parallelism_tp);
    p.pp = get(field::reference_pp, field::parallelism_pp);
    p.dp = get(field::reference_dp, field::parallelism_dp);
    p.micro_batch = get(field::reference_micro_batch, field::parallelism_micro_batch);
    p.global_batch = get(field::reference_global_batch, field::parallelism_global_batch);
    p.virtual_stages = static_cast<double>(integer(field::parallelism_virtual_stages));
    p.zero_stage = static_cast<int>(integer(field::parallelism_zero_stage));
    // Context parallelism: the reference's own degree when it gives one, else none (1): a
    // measurement is taken without it unless it says so.
    p.cp = static_cast<double>(reference ? (has_integer(field::reference_cp) ? integer(field::reference_cp) : 1)
                                         : integer(field::parallelism_cp));
    return p;
  }

  /// Multi-stage jobs (docs/scenario.md, "Stages"): the number of stages (0 without a
  /// `stages` array), each stage as a scenario of its own (the top level with the stage's
  /// fields over it), its name, and whether the stage itself gives field `f`.
  std::size_t stage_count() const { return stages_ ? stages_->size() : 0; }
  /// Stage k as a scenario of its own; input_error ("stages[k]: ...") unless k < stage_count().
  const scenario& stage(std::size_t k) const { return *stage_at(k).s; }
  /// Stage k's name; input_error unless k < stage_count().
  const std::string& stage_name(std::size_t k) const { return stage_at(k).name; }
  /// Whether stage k itself gives field `f` (rather than taking the top level's); input_error unless
  /// k < stage_count().
  bool stage_gives(std::size_t k, field f) const { return stage_at(k).given[index(f)]; }
  /// A field's path within stage k, as errors and completeness name it: "stages[1].compile.initial_s".
  static std::string stage_path(std::size_t k, const std::string& path) {
    return "stages[" + std::to_string(k) + "]." + path;
  }
  /// A path into a stage, "stages[<index>].<field>" or "<stage name>/<field>" (the name its
  /// inputs carry in a sensitivity analysis): the stage's index and the field's path, checked
  /// (a bad index or name, or a field set per job, is an error naming the path); nullopt for a
  /// path of the top level.
  std::optional<std::pair<std::size_t, std::string>> stage_field(const std::string& path) const {
    std::size_t k = 0;
    std::string rest;
    if (path.rfind("stages[", 0) == 0) {
      const auto close = path.find(']');
      const std::string index = path.substr(7, close == std::string::npos ? std::string::npos : close - 7);
      if (close == std::string::npos || index.empty() || index.find_first_not_of("0123456789") != std::string::npos ||
          index.size() > 9 || path.size() < close + 3 || path[close + 1] != '.')
        detail::fail(path,
                     "a path into a stage is stages[<index>].<field> (e.g. stages[1].throughput.step_time_s) or "
                     "<stage name>/<field>");
      k = static_cast<std::size_t>(std::stoul(index));
      if (k >= stage_count())
        detail::fail(path, stage_count() == 0 ? std::string("the scenario has no stages")
                                              : "no stage " + index + ": the scenario has " +
                                                    std::to_string(stage_count()) + " stages (" + stage_list() + ")");
      rest = path.substr(close + 2);
    } else if (const auto slash = path.find('/'); slash != std::string::npos) {
      const std::string name = path.substr(0, slash);
      if (stage_count() == 0)
        detail::fail(path, "the scenario has no stages (a stage's field is \"<stage name>/<field>\")");
      std::vector<std::string> names;
      for (std::size_t j = 0; j < stage_count(); ++j) names.push_back(stage_name(j));
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        detail::fail(
            path, "no stage named \"" + name + "\" (stages: " + stage_list() + ")" + detail::did_you_mean(name, names));
      k = static_cast<std::size_t>(it - names.begin());
      rest = path.substr(slash + 1);
    } else {
      return std::nullopt;
    }
    if (rest == "transition_s" || rest == "name") return std::make_pair(k, rest);
    const field_spec* f = find_field(rest);
    if (f == nullptr) detail::fail(path, "no such scenario field" + detail::did_you_mean(rest, detail::all_paths()));
    const std::string head = rest.substr(0, rest.find('.'));
    if (std::find(stage_blocks().begin(), stage_blocks().end(), head) == stage_blocks().end() ||
        f->id == field::cluster_platform)
      detail::fail(path, "is set per job, not per stage: give it at the top level");
    return std::make_pair(k, rest);
  }

 private:
  static std::size_t index(field f) { return static_cast<std::size_t>(f); }

  std::string stage_list() const {
    std::string list;
    for (std::size_t k = 0; k < stage_count(); ++k)
      list += (k ? ", " : "") + std::string("stages[") + std::to_string(k) + "] " + stage_name(k);
    return list;
  }

  // A change of a stage's field: null removes the stage's own value (back to the top level's).
  static void update_stage(ordered_json& stage, const std::string& path, const ordered_json& value) {
    const auto dot = path.find('.');
    if (dot == std::string::npos) {  // transition_s, name
      if (value.is_null())
        stage.erase(path);
      else
        stage[path] = value;
      return;
    }
    const std::string head = path.substr(0, dot), key = path.substr(dot + 1);
    if (value.is_null()) {
      if (!stage.contains(head) || !stage[head].is_object()) return;
      stage[head].erase(key);
      if (stage[head].empty()) stage.erase(head);
      return;
    }
    if (!stage.contains(head) || !stage[head].is_object()) stage[head] = ordered_json::object();
    stage[head][key] = value;
  }

  // The blocks a stage may override; the others (startup, prices, data, engineering,
  // reference) belong to the whole job.
  static const std::vector<std::string>& stage_blocks() {
    static const std::vector<std::string> blocks{"name",       "transition_s", "job",        "cluster",
                                                 "model",      "parallelism",  "throughput", "compile",
                                                 "checkpoint", "eval",         "failures",   "quality"};
    return blocks;
  }

  // Each stage is validated as a scenario of its own: the top level with the stage's fields
  // over it (null removes a top-level field); its errors name the stage ("stages[1].…").
  void load_stages() {
    if (!doc_.contains("stages")) return;
    const ordered_json& list = doc_["stages"];
    if (!list.is_array() || list.empty())
      detail::fail("stages", "must be a non-empty array of stage objects, got " + detail::describe_json(list));
    auto stages = std::make_shared<std::vector<stage_entry>>();
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string at = "stages[" + std::to_string(k) + "]";
      const ordered_json& item = list[k];
      if (!item.is_object()) detail::fail(at, "must be an object (a stage), got " + detail::describe_json(item));
      if (!item.contains("name") || !item["name"].is_string() || item["name"].get<std::string>().empty())
        detail::fail(at + ".name", "required: a non-empty string naming the stage");
      const std::string name = item["name"].get<std::string>();
      if (name.find('/') != std::string::npos)
        detail::fail(at + ".name",
                     "must not contain '/' (per-stage metrics are named \"<stage>/<metric>\"), got \"" + name + "\"");
      for (const auto& other : *stages)
        if (other.name == name) detail::fail(at + ".name", "must be unique, \"" + name + "\" names an earlier stage");
      ordered_json merged = doc_;
      merged.erase("stages");
      std::vector<bool> given(field_count, false);
      for (const auto& [head, value] : item.items()) {
        if (head == "name") continue;
        const std::string path = at + "." + head;
        if (std::find(stage_blocks().begin(), stage_blocks().end(), head) == stage_blocks().end()) {
          const auto sections = detail::top_level_keys();
          if (std::find(sections.begin(), sections.end(), head) != sections.end())
            detail::fail(path, "is set per job, not per stage: give it at the top level");
          detail::fail(path, "unknown key" + detail::did_you_mean(head, stage_blocks()));
        }
        if (head == "transition_s") {
          if (k == 0) detail::fail(path, "the first stage has no transition (the job's start comes once)");
          merged[head] = value;
          given[index(field::transition_s)] = true;
          continue;
        }
        if (!value.is_object()) detail::fail(path, "must be an object of fields, got " + detail::describe_json(value));
        if (head == "job" && value.contains("tokens") && value.contains("effective_steps") &&
            !value["tokens"].is_null() && !value["effective_steps"].is_null())
          detail::fail(path + ".tokens", "give either job.effective_steps or job.tokens, not both");
        for (const auto& [key, field_value] : value.items()) {
          const field_spec* f = find_field(head + "." + key);
          if (f == nullptr) detail::fail(path + "." + key, "unknown key" + detail::suggest_field(head, key));
          if (f->id == field::cluster_platform)
            detail::fail(path + "." + key, "is set per job, not per stage: give it at the top level");
          if (!merged.contains(head) || !merged[head].is_object()) merged[head] = ordered_json::object();
          // A stage giving its steps as tokens (or the reverse) replaces the top level's.
          if (f->id == field::job_tokens) merged[head].erase("effective_steps");
          if (f->id == field::job_effective_steps) merged[head].erase("tokens");
          if (field_value.is_null())
            merged[head].erase(key);
          else
            merged[head][key] = field_value;
          given[f->index()] = true;
        }
      }
      try {
        stages->push_back({name, std::make_shared<const scenario>(from_json(merged, *profiles_)), std::move(given)});
      } catch (const input_error& e) {
        throw input_error(at + "." + e.what());
      }
    }
    stages_ = std::move(stages);
  }

  // A field read as the kind it is; reading an integer field as a flag is a programming
  // error in the caller, reported with the path rather than as undefined behaviour.
  static field checked(field f, field_kind kind) {
    if (spec(f).kind != kind) detail::fail(path_of(f), "is not a field of this kind");
    return f;
  }
  template <class T> static const T* present(const std::vector<std::optional<T>>& values, field f) {
    const auto& v = values[index(f)];
    if (!v) detail::fail(path_of(f), "not given and has no default");
    return &*v;
  }

  void load() {
    if (!doc_.is_object()) detail::fail("scenario", "must be a JSON object, got " + detail::describe_json(doc_));
    if (!doc_.contains("schema"))
      detail::fail("schema",
                   std::string("required: \"") + scenario_schema_v1 + "\" (the scenario format and its version)");
    if (!doc_["schema"].is_string() || doc_["schema"].get<std::string>() != scenario_schema_v1)
      detail::fail("schema",
                   std::string("must be \"") + scenario_schema_v1 + "\", got " + detail::describe_json(doc_["schema"]));

    const auto sections = detail::top_level_keys();
    for (const auto& [head, value] : doc_.items()) {
      if (head == "schema" || head == "stages") continue;  // stages: load_stages()
      if (std::find(sections.begin(), sections.end(), head) == sections.end())
        detail::fail(head, "unknown key" + detail::did_you_mean(head, sections));
      if (const field_spec* field = find_field(head)) {  // top-level fields: name, description
        load_field(*field, value);
        continue;
      }
      load_section(head, value);
    }
    for (const auto& field : scenario_fields()) {
      if (given_[field.index()]) continue;
      if (field.required) detail::fail(field.path, "required (" + field.doc + ")");
      if (!field.default_value.empty()) load_value(field, ordered_json::parse(field.default_value));
    }
  }

  // The fields of a section, and of its sub-sections (card.owners).
  void load_section(const std::string& section, const ordered_json& value) {
    if (!value.is_object()) detail::fail(section, "must be an object of fields, got " + detail::describe_json(value));
    for (const auto& [key, item] : value.items()) {
      const std::string path = section + "." + key;
      if (const field_spec* field = find_field(path)) {
        load_field(*field, item);
      } else if (!detail::section_keys(path).empty()) {
        load_section(path, item);
      } else {
        detail::fail(path, "unknown key" + detail::suggest_field(section, key));
      }
    }
  }

  void load_field(const field_spec& field, const ordered_json& value) {
    given_[field.index()] = true;
    load_value(field, value);
  }

  void load_value(const field_spec& field, const ordered_json& value) {
    const std::string& path = field.path;
    switch (field.kind) {
      case field_kind::quantity: {
        quantity q = quantity_from_json(value, path);
        detail::check_quantity_range(path, field.rule, q);
        detail::check_fixed_count(field, q);
        quantities_[field.index()] = std::move(q);
        break;
      }
      case field_kind::boolean:
        if (!value.is_boolean()) detail::fail(path, "must be true or false, got " + detail::describe_json(value));
        flags_[field.index()] = value.get<bool>();
        break;
      case field_kind::integer: {
        if (!value.is_number()) detail::fail(path, "must be a whole number, got " + detail::describe_json(value));
        const auto [lo, hi] = integer_bounds(field.rule);
        integers_[field.index()] = detail::whole_number(path, value.get<double>(), lo, hi);
        break;
      }
      case field_kind::number: {
        if (!value.is_number()) detail::fail(path, "must be a number, got " + detail::describe_json(value));
        const double x = value.get<double>();
        if (!std::isfinite(x) || !detail::in_range(field.rule, x, x) || (field.rule == field_rule::positive && x == 0))
          detail::fail(path, "must be " + detail::rule_text(field.rule) + ", got " + detail::format_number(x));
        numbers_[field.index()] = x;
        break;
      }
      case field_kind::text:
        if (!value.is_string()) detail::fail(path, "must be a string, got " + detail::describe_json(value));
        texts_[field.index()] = value.get<std::string>();
        break;
      case field_kind::choice: {
        if (!value.is_string()) detail::fail(path, "must be a string, got " + detail::describe_json(value));
        const auto text = value.get<std::string>();
        if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end()) {
          std::string list;
          for (const auto& c : field.choices) list += (list.empty() ? "" : ", ") + c;
          detail::fail(path,
                       "must be one of " + list + ", got \"" + text + "\"" + detail::did_you_mean(text, field.choices));
        }
        texts_[field.index()] = text;
        break;
      }
    }
  }

  void load_profile() {
    if (!has_text(field::cluster_platform)) return;
    const std::string& name = text(field::cluster_platform);
    const auto it = profiles_->find(name);
    if (it == profiles_->end()) return;  // a free-text platform name; modes that need it say so
    profile_ = platform_profile::from_json(it->second, "profile " + name);
  }

  [[noreturn]] void need(field f, const std::string& why) const { detail::fail(path_of(f), "required " + why); }

  // Rules that involve several fields: what each throughput mode needs, the batch and chip
  // arithmetic of the parallel layout, and that the layout fits in device memory.
  void check_consistency() const {
    check_purchase();
    if (!has(field::job_effective_steps) && !has(field::job_tokens))
      detail::fail(path_of(field::job_effective_steps),
                   "required (optimizer steps to the quality bar), or give job.tokens");
    if (has(field::job_effective_steps) && has(field::job_tokens))
      detail::fail(path_of(field::job_tokens), "give either job.effective_steps or job.tokens, not both");
    const throughput_mode m = mode();
    const std::string& m_name = name_of_choice(m);
    if (m == throughput_mode::measured) {
      if (!has(field::throughput_step_time_s))
        need(field::throughput_step_time_s, "when throughput.mode is measured (seconds per effective step)");
    } else if (has(field::throughput_step_time_s)) {
      detail::fail(path_of(field::throughput_step_time_s),
                   "is not used when throughput.mode is " + m_name + "; remove it or use mode measured");
    }
    const bool derived = m != throughput_mode::measured;
    if (derived || has(field::job_tokens)) {
      if (!has_integer(field::model_sequence_length))
        need(field::model_sequence_length, "to derive steps or step time");
      if (!has_integer(field::parallelism_global_batch))
        need(field::parallelism_global_batch, "to derive steps or step time");
    }
    if (!derived) return;
    if (!has(field::model_parameters) && !(has_integer(field::model_layers) && has_integer(field::model_hidden_size)))
      need(field::model_parameters, "(or model.layers and model.hidden_size) when throughput.mode is " + m_name);
    if (m != throughput_mode::flops || has(field::throughput_model_flops_utilization)) {
      if (!has_text(field::cluster_platform))
        need(field::cluster_platform, "(a hardware profile) when throughput.mode is " + m_name);
      if (!profile_) {
        std::string known;
        for (const auto& [name, doc] : *profiles_) known += (known.empty() ? "" : ", ") + name;
        // "trn2" for trn2.48xlarge is a prefix, far in edit distance: suggest by prefix first.
        std::string prefixed;
        for (const auto& name : profile_names())
          if (name.rfind(text(field::cluster_platform), 0) == 0) prefixed += (prefixed.empty() ? "" : " or ") + name;
        const std::string hint = !prefixed.empty()
                                     ? " (did you mean " + prefixed + "?)"
                                     : detail::did_you_mean(text(field::cluster_platform), profile_names());
        detail::fail(path_of(field::cluster_platform), "no hardware profile named \"" + text(field::cluster_platform) +
                                                           "\"" + hint +
                                                           (known.empty() ? " (no hardware profiles were given: pass "
                                                                            "shipped_profiles() or load_profiles(dir))"
                                                                          : " (known: " + known + ")"));
      }
      if (!profile_->peak_tflops_per_chip.count(text(field::throughput_precision)))
        detail::fail(path_of(field::throughput_precision),
                     "profile " + profile_->name + " gives no " + text(field::throughput_precision) + " peak");
    }
    if (m == throughput_mode::flops) {
      const bool achieved = has(field::throughput_achieved_tflops_per_chip),
                 mfu = has(field::throughput_model_flops_utilization);
      if (achieved == mfu)
        detail::fail("throughput",
                     "flops mode needs exactly one of achieved_tflops_per_chip and model_flops_utilization");
    } else if (!has(field::throughput_compute_efficiency)) {
      need(field::throughput_compute_efficiency, "(achieved / peak FLOPS of the compute) when throughput.mode is " + m_name);
    }
    if (m == throughput_mode::analytic || m == throughput_mode::extrapolated) {
      for (const field path : {field::model_layers, field::model_hidden_size, field::model_heads})
        if (!has_integer(path)) need(path, "when throughput.mode is " + m_name);
    }
    if (m == throughput_mode::extrapolated) {
      for (const field path : {field::reference_step_time_s})
        if (!has(path)) need(path, "(the measured step time) when throughput.mode is extrapolated");
      for (const field path :
           {field::reference_nodes, field::reference_tp, field::reference_pp, field::reference_dp,
            field::reference_micro_batch, field::reference_global_batch, field::reference_sequence_length})
        if (!has_integer(path))
          need(path, "(the configuration the step time was measured at) when throughput.mode is extrapolated");
      for (const field path : {field::reference_layers, field::reference_hidden_size, field::reference_heads})
        if (has_integer(path) && !has_integer(field::reference_parameters))
          need(field::reference_parameters,
               "(the reference model's parameter count) when " + path_of(path) + " is given");
    }
    check_context_parallel();
    check_layout("parallelism", integer(field::cluster_nodes), integer(field::parallelism_tp),
                 integer(field::parallelism_pp), integer(field::parallelism_dp),
                 integer(field::parallelism_micro_batch), integer(field::parallelism_global_batch),
                 integer(field::parallelism_cp));
    if (profile_ && has_integer(field::model_layers) && has_integer(field::model_hidden_size) &&
        has_integer(field::model_heads))
      check_memory_fit();
    if (m == throughput_mode::extrapolated)
      check_layout("reference", integer(field::reference_nodes), integer(field::reference_tp),
                   integer(field::reference_pp), integer(field::reference_dp), integer(field::reference_micro_batch),
                   integer(field::reference_global_batch),
                   has_integer(field::reference_cp) ? integer(field::reference_cp) : 1);
  }

  // Purchase options (docs/lifecycle.md, "Purchase options"): each mode's fields only with that
  // mode, what each mode needs, and a block length that AWS offers.
  void check_purchase() const {
    const std::string& purchase_name = text(field::prices_purchase);
    const purchase_mode bought = purchase();
    const bool block = bought == purchase_mode::capacity_block, spot = bought == purchase_mode::spot;
    for (const field f : {field::prices_block_hours, field::prices_block_usd, field::prices_block_lead_s,
                          field::prices_block_end_margin_h})
      if (!block && has(f))
        detail::fail(path_of(f), "is used only when prices.purchase is capacity_block (it is " + purchase_name +
                                     "); remove it or set prices.purchase");
    for (const field f : {field::prices_spot_node_hour_usd, field::spot_interruptions_per_node_h, field::spot_notice_s,
                          field::spot_reacquire_s})
      if (!spot && has(f))
        detail::fail(path_of(f), "is used only when prices.purchase is spot (it is " + purchase_name +
                                     "); remove it or set prices.purchase");
    if (spot && !has(field::spot_interruptions_per_node_h))
      need(field::spot_interruptions_per_node_h, "when prices.purchase is spot (interruptions per node-hour)");
    if (!block) return;
    if (!has_integer(field::prices_block_hours))
      need(field::prices_block_hours, "when prices.purchase is capacity_block (the block's length in whole hours)");
    const long long hours = integer(field::prices_block_hours), days = hours / 24;
    if (hours % 24 != 0 || days > 182 || (days > 14 && days % 7 != 0))
      detail::fail(path_of(field::prices_block_hours),
                   "must be a capacity-block length that AWS offers: 1 to 14 days in whole days (24, 48, ..., 336 h), "
                   "then 7-day steps up to 182 days (504, 672, ..., 4368 h); got " +
                       std::to_string(hours) + " h");
    if (!has(field::prices_block_usd))
      need(field::prices_block_usd, "when prices.purchase is capacity_block (the upfront fee for the block, USD)");
    const quantity& margin = q(field::prices_block_end_margin_h);
    if (!margin.is_unknown() && margin.support().second >= static_cast<double>(hours))
      detail::fail(path_of(field::prices_block_end_margin_h),
                   "must be less than prices.block_hours (" + std::to_string(hours) +
                       " h): the usable window is the block's length less this margin");
  }

  // A layout that cannot fit in a device's memory is an error that says by how much.
  void check_memory_fit() const {
    const transformer_shape m = shape();
    const parallel_layout p = layout();
    if (std::fmod(m.layers, p.pp) != 0)
      detail::fail(path_of(field::parallelism_pp), "must divide model.layers = " + detail::format_number(m.layers) +
                                                       ", got " + detail::format_number(p.pp));
    const device_memory mem = memory_per_device(m, kind(), p);
    const double capacity = profile_->figure("hbm_gib_per_chip").ppf(0.5) * 1073741824.0;
    if (mem.total() > capacity) {
      const auto gib = [](double bytes) { return detail::format_number(std::round(bytes / 1073741824.0 * 10) / 10); };
      detail::fail(
          "parallelism",
          "this layout needs " + gib(mem.total()) + " GiB per chip (weights " + gib(mem.weights_bytes) +
              ", gradients " + gib(mem.gradients_bytes) + ", optimizer " + gib(mem.optimizer_bytes) + ", activations " +
              gib(mem.activations_bytes) + ") but " + profile_->name + " has " + gib(capacity) +
              " GiB: " + gib(mem.total() - capacity) +
              " GiB over; raise tp or pp, use a higher zero_stage, recompute activations, or a smaller micro_batch");
    }
  }

  // Context parallelism splits each sequence into cp equal chunks.
  void check_context_parallel() const {
    const long long cp = integer(field::parallelism_cp);
    if (cp > 1 && has_integer(field::model_sequence_length) && integer(field::model_sequence_length) % cp != 0)
      detail::fail(path_of(field::parallelism_cp),
                   "must divide model.sequence_length = " + std::to_string(integer(field::model_sequence_length)) +
                       ", got " + std::to_string(cp));
    if (has_integer(field::reference_cp) && has_integer(field::reference_sequence_length) &&
        integer(field::reference_sequence_length) % integer(field::reference_cp) != 0)
      detail::fail(path_of(field::reference_cp), "must divide reference.sequence_length = " +
                                                     std::to_string(integer(field::reference_sequence_length)) +
                                                     ", got " + std::to_string(integer(field::reference_cp)));
  }

  void check_layout(const std::string& where, long long nodes, long long tp, long long pp, long long dp,
                    long long micro, long long global, long long cp = 1) const {
    if (global % (dp * micro) != 0)
      detail::fail(where + ".global_batch", "must be a multiple of dp x micro_batch = " + std::to_string(dp * micro) +
                                                ", got " + std::to_string(global));
    if (profile_) {
      const long long chips = nodes * profile_->chips_per_node;
      if (tp * cp * pp * dp != chips)
        detail::fail(where, std::string(cp > 1 ? "tp x cp x pp x dp = " : "tp x pp x dp = ") +
                                std::to_string(tp * cp * pp * dp) + " must equal the chips of " +
                                std::to_string(nodes) + " x " + profile_->name + " = " + std::to_string(chips));
    }
  }

  struct stage_entry {
    std::string name;
    std::shared_ptr<const scenario> s;
    std::vector<bool> given;
  };
  ordered_json doc_;
  std::shared_ptr<const profile_library> profiles_;
  std::shared_ptr<const std::vector<stage_entry>> stages_;

  // A scenario without a `stages` array has no stage 0: an index past the end is bad input, not
  // undefined behaviour.
  const stage_entry& stage_at(std::size_t k) const {
    if (k >= stage_count())
      detail::fail("stages[" + std::to_string(k) + "]",
                   "no stage " + std::to_string(k) + ": the scenario has " + std::to_string(stage_count()) + " stages");
    return (*stages_)[k];
  }
  std::optional<platform_profile> profile_;
  // What the scenario holds, by field (scenario_fields() order): given or default.
  std::vector<bool> given_ = std::vector<bool>(field_count, false);
  std::vector<std::optional<quantity>> quantities_ = std::vector<std::optional<quantity>>(field_count);
  std::vector<std::optional<bool>> flags_ = std::vector<std::optional<bool>>(field_count);
  std::vector<std::optional<long long>> integers_ = std::vector<std::optional<long long>>(field_count);
  std::vector<std::optional<double>> numbers_ = std::vector<std::optional<double>>(field_count);
  std::vector<std::optional<std::string>> texts_ = std::vector<std::optional<std::string>>(field_count);
};

}  // namespace trnmodel
