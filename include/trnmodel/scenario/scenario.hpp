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
#include "trnmodel/scenario/loader.hpp"
#include "trnmodel/scenario/stages.hpp"
#include "trnmodel/throughput/flops.hpp"
#include "trnmodel/throughput/profile.hpp"

namespace trnmodel {

class scenario;
/// The cross-field rules (scenario/rules.hpp), applied by scenario::from_json.
inline void check_rules(const scenario& s);



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
    s.values_ = field_values::from_json(doc);
    s.load_profile();
    check_rules(s);
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
  bool has(field f) const { return values_.given[index(f)]; }
  /// has() by dotted path; input_error for a path that is no field.
  bool has(const std::string& path) const { return has(field_at(path)); }
  /// The quantity of a field (its default when not given); nullptr when absent without a
  /// default (failures.node_mtbf_h, prices.node_hour_usd).
  const quantity* find(field f) const {
    const auto& v = values_.quantities[index(f)];
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
  bool flag(field f) const { return *present(values_.flags, checked(f, field_kind::boolean)); }
  /// flag() by dotted path; input_error also for a path that is no field.
  bool flag(const std::string& path) const { return flag(field_at(path)); }
  /// An integer field's value (its default when not given); input_error at its path when it is absent without a
  /// default or not an integer field.
  long long integer(field f) const { return *present(values_.integers, checked(f, field_kind::integer)); }
  /// integer() by dotted path; input_error also for a path that is no field.
  long long integer(const std::string& path) const { return integer(field_at(path)); }
  /// A text or choice field's value (its default when not given); input_error at its path when it is absent
  /// without a default or of another kind.
  const std::string& text(field f) const {
    const field_kind kind = spec(f).kind == field_kind::choice ? field_kind::choice : field_kind::text;
    return *present(values_.texts, checked(f, kind));
  }
  /// text() by dotted path; input_error also for a path that is no field.
  const std::string& text(const std::string& path) const { return text(field_at(path)); }
  /// Every quantity of the scenario (given or default), by path.
  std::map<std::string, quantity> quantities() const {
    std::map<std::string, quantity> all;
    for (const auto& f : scenario_fields())
      if (values_.quantities[f.index()]) all.emplace(f.path, *values_.quantities[f.index()]);
    return all;
  }

  /// The scenario's `name`; "" when not given.
  std::string name() const { return has_text(field::name) ? text(field::name) : std::string(); }
  /// Whether an integer field has a value, given or default (false for one of another kind).
  bool has_integer(field f) const { return values_.integers[index(f)].has_value(); }
  /// has_integer() by dotted path; input_error for a path that is no field.
  bool has_integer(const std::string& path) const { return has_integer(field_at(path)); }
  /// Whether a text or choice field has a value, given or default (false for one of another kind).
  bool has_text(field f) const { return values_.texts[index(f)].has_value(); }
  /// A number field's value (a plain real number, never drawn); input_error at its path when it is absent
  /// without a default or not a number field.
  double number(field f) const { return *present(values_.numbers, checked(f, field_kind::number)); }
  /// Whether a number field has a value, given or default (false for one of another kind).
  bool has_number(field f) const { return values_.numbers[index(f)].has_value(); }
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
  static std::string stage_path(std::size_t k, const std::string& path) { return trnmodel::stage_path(k, path); }
  /// A path into a stage, "stages[<index>].<field>" or "<stage name>/<field>" (the name its
  /// inputs carry in a sensitivity analysis): the stage's index and the field's path, checked
  /// (a bad index or name, or a field set per job, is an error naming the path); nullopt for a
  /// path of the top level.
  std::optional<std::pair<std::size_t, std::string>> stage_field(const std::string& path) const {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < stage_count(); ++k) names.push_back(stage_name(k));
    return parse_stage_path(path, names);
  }

  /// The JSON of the hardware profile cluster.platform names (a shipped one or the user's), or
  /// nullptr for a free-text platform or none: with the scenario's own JSON, all it takes to
  /// rebuild it elsewhere (another process, a worker of a cluster).
  const ordered_json* profile_document() const {
    if (!has_text(field::cluster_platform)) return nullptr;
    const auto it = profiles_->find(text(field::cluster_platform));
    return it == profiles_->end() ? nullptr : &it->second;
  }

 private:
  static std::size_t index(field f) { return static_cast<std::size_t>(f); }

  // Each stage is validated as a scenario of its own (its document: scenario/stages.hpp); its
  // errors name the stage ("stages[1].…").
  void load_stages() {
    std::vector<stage_document> documents = stage_documents(doc_);
    if (documents.empty()) return;
    auto stages = std::make_shared<std::vector<stage_entry>>();
    for (std::size_t k = 0; k < documents.size(); ++k) {
      try {
        stages->push_back({documents[k].name, std::make_shared<const scenario>(from_json(documents[k].doc, *profiles_)),
                           std::move(documents[k].given)});
      } catch (const input_error& e) {
        throw input_error("stages[" + std::to_string(k) + "]." + e.what());
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

  void load_profile() {
    if (!has_text(field::cluster_platform)) return;
    const std::string& name = text(field::cluster_platform);
    const auto it = profiles_->find(name);
    if (it == profiles_->end()) return;  // a free-text platform name; modes that need it say so
    profile_ = platform_profile::from_json(it->second, "profile " + name);
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
  field_values values_;  // what the scenario holds, by field: given or default
};

}  // namespace trnmodel

// The rules are defined over the class, after it.
#include "trnmodel/scenario/rules.hpp"
