#pragma once
// A scenario (the job card, DESIGN §4): loaded from JSON text, a file or a JSON value,
// validated field by field against the table in fields.hpp, saved back as given, and
// copied with dotted-path changes. Every rejection names the JSON path, the value and the
// rule; unknown keys get a "did you mean"; syntax errors give line and column; duplicate
// keys are refused (a JSON parser would otherwise keep the last one silently).
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

inline constexpr const char* scenario_schema_v1 = "trnmodel.scenario/1";

namespace detail {

inline std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys{"schema"};
  for (const auto& f : scenario_fields()) {
    const std::string head = f.path.substr(0, f.path.find('.'));
    if (std::find(keys.begin(), keys.end(), head) == keys.end()) keys.push_back(head);
  }
  return keys;
}

inline std::vector<std::string> section_keys(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& f : scenario_fields())
    if (f.path.rfind(section + ".", 0) == 0) keys.push_back(f.path.substr(section.size() + 1));
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
    fail(path, "must be " + rule_text(rule) + ", got " + (q.is_fixed() ? std::string("0") : describe_json(quantity_to_json(q)) + ", which can be 0"));
  if (in_range(rule, lo, hi)) return;
  if (q.is_fixed()) fail(path, "must be " + rule_text(rule) + ", got " + format_number(lo));
  std::string hint;
  if (std::holds_alternative<dist::normal>(q.dist()))
    hint = rule == field_rule::nonnegative || rule == field_rule::positive ? "; truncate it with \"lo\": 0"
                                                                           : "; truncate it with \"lo\" and \"hi\"";
  else if (std::holds_alternative<dist::beta>(q.dist()) && rule == field_rule::fraction_below_one)
    hint = "; rescale it with \"hi\" below 1";
  fail(path, "must be " + rule_text(rule) + ", but " + describe_json(quantity_to_json(q)) + " can take values in [" +
                 format_number(lo) + ", " + format_number(hi) + "]" + hint);
}

}  // namespace detail

class scenario {
 public:
  // From a parsed JSON value (a dict from Python arrives this way).
  // `profiles` are the hardware profiles that cluster.platform may name (name -> JSON).
  static scenario from_json(const json& doc, profile_library profiles = {}) {
    detail::check_json_depth(doc, "scenario");
    scenario s;
    s.doc_ = doc;
    s.profiles_ = std::make_shared<const profile_library>(std::move(profiles));
    s.load();
    s.load_profile();
    s.check_consistency();
    return s;
  }

  // From JSON text: syntax errors with line and column, duplicate keys refused.
  static scenario from_text(const std::string& text, profile_library profiles = {}) {
    return from_json(parse_strict(text), std::move(profiles));
  }

  static scenario from_file(const std::string& file, profile_library profiles = {}) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail(file, "cannot open the scenario file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_text(text.str(), std::move(profiles));
  }

  // Parses JSON text, refusing duplicate keys and reporting syntax errors by line/column.
  static json parse_strict(const std::string& text) { return detail::parse_strict_json(text, "scenario"); }

  const json& to_json() const { return doc_; }

  // A copy with changes at dotted paths ("checkpoint.every_steps"); a null value removes
  // the key (back to its default). The result is validated like a new scenario.
  scenario updated(const std::vector<std::pair<std::string, json>>& changes) const {
    json doc = doc_;
    for (const auto& [path, value] : changes) {
      const field_spec* field = find_field(path);
      if (field == nullptr)
        fail(path, "no such scenario field" + detail::did_you_mean(path, detail::all_paths()));
      const auto dot = path.find('.');
      if (dot == std::string::npos) {
        if (value.is_null()) doc.erase(path);
        else doc[path] = value;
        continue;
      }
      const std::string section = path.substr(0, dot), key = path.substr(dot + 1);
      if (value.is_null()) {
        if (doc.contains(section) && doc[section].is_object()) doc[section].erase(key);
        continue;
      }
      if (!doc.contains(section) || !doc[section].is_object()) doc[section] = json::object();
      doc[section][key] = value;
    }
    return from_json(doc, *profiles_);
  }

  // Whether the scenario gives the field itself (rather than taking its default).
  bool has(const std::string& path) const { return given_.count(path) > 0; }
  // The quantity at a path (its default when not given); nullptr when absent without a
  // default (failures.node_mtbf_h, prices.node_hour_usd).
  const quantity* find(const std::string& path) const {
    const auto it = quantities_.find(path);
    return it == quantities_.end() ? nullptr : &it->second;
  }
  const quantity& q(const std::string& path) const {
    const quantity* found = find(path);
    if (found == nullptr) fail(path, "not given and has no default");
    return *found;
  }
  bool flag(const std::string& path) const { return flags_.at(path); }
  long long integer(const std::string& path) const { return integers_.at(path); }
  const std::string& text(const std::string& path) const { return texts_.at(path); }
  const std::map<std::string, quantity>& quantities() const { return quantities_; }

  std::string name() const { return texts_.count("name") ? texts_.at("name") : std::string(); }
  bool has_integer(const std::string& path) const { return integers_.count(path) > 0; }
  bool has_text(const std::string& path) const { return texts_.count(path) > 0; }
  // The hardware profile named by cluster.platform, when the library has it.
  const platform_profile* profile() const { return profile_ ? &*profile_ : nullptr; }
  const std::string& mode() const { return texts_.at("throughput.mode"); }

  // The model's shape (parameters at their median when uncertain; from the architecture when
  // not given: 12·L·h² + 2·V·h, or 4·L·h² + 3·L·h·ffn + 2·V·h with a gated MLP of size ffn).
  transformer_shape shape() const {
    transformer_shape m{};
    const auto get = [&](const char* path) { return has_integer(path) ? static_cast<double>(integer(path)) : 0.0; };
    m.layers = get("model.layers");
    m.hidden_size = get("model.hidden_size");
    m.heads = get("model.heads");
    m.sequence_length = get("model.sequence_length");
    m.ffn_size = get("model.ffn_size");
    const double h = m.hidden_size, vocab = get("model.vocab_size");
    if (const quantity* n = find("model.parameters"); n && !n->is_unknown()) {
      m.parameters = n->ppf(0.5);
    } else {
      m.parameters = (m.ffn_size > 0 ? m.layers * (4 * h * h + 3 * h * m.ffn_size) : 12 * m.layers * h * h) + 2 * vocab * h;
    }
    return m;
  }
  training_kind kind() const {
    training_kind k;
    k.lora = text("job.kind") == "lora";
    k.lora_rank = static_cast<double>(integer("job.lora_rank"));
    const std::string& r = text("job.recompute");
    k.recompute = r == "full" ? recompute_kind::full : r == "selective" ? recompute_kind::selective : recompute_kind::none;
    return k;
  }
  parallel_layout layout(const std::string& section = "parallelism") const {
    const auto get = [&](const std::string& key, const std::string& fallback) {
      const std::string path = section + "." + key;
      return static_cast<double>(has_integer(path) ? integer(path) : integer(fallback));
    };
    parallel_layout p;
    p.tp = get("tp", "parallelism.tp");
    p.pp = get("pp", "parallelism.pp");
    p.dp = get("dp", "parallelism.dp");
    p.micro_batch = get("micro_batch", "parallelism.micro_batch");
    p.global_batch = get("global_batch", "parallelism.global_batch");
    p.virtual_stages = static_cast<double>(integer("parallelism.virtual_stages"));
    p.zero_stage = static_cast<int>(integer("parallelism.zero_stage"));
    return p;
  }

 private:
  void load() {
    if (!doc_.is_object()) fail("scenario", "must be a JSON object, got " + detail::describe_json(doc_));
    if (!doc_.contains("schema"))
      fail("schema", std::string("required: \"") + scenario_schema_v1 + "\" (the scenario format and its version)");
    if (!doc_["schema"].is_string() || doc_["schema"].get<std::string>() != scenario_schema_v1)
      fail("schema", std::string("must be \"") + scenario_schema_v1 + "\", got " + detail::describe_json(doc_["schema"]));

    const auto sections = detail::top_level_keys();
    for (const auto& [head, value] : doc_.items()) {
      if (head == "schema") continue;
      if (std::find(sections.begin(), sections.end(), head) == sections.end())
        fail(head, "unknown key" + detail::did_you_mean(head, sections));
      if (const field_spec* field = find_field(head)) {  // top-level fields: name, description
        load_field(*field, value);
        continue;
      }
      if (!value.is_object()) fail(head, "must be an object of fields, got " + detail::describe_json(value));
      for (const auto& [key, item] : value.items()) {
        const std::string path = head + "." + key;
        const field_spec* field = find_field(path);
        if (field == nullptr) fail(path, "unknown key" + detail::suggest_field(head, key));
        load_field(*field, item);
      }
    }
    for (const auto& field : scenario_fields()) {
      if (given_.count(field.path)) continue;
      if (field.required) fail(field.path, "required (" + field.doc + ")");
      if (!field.default_value.empty()) load_value(field, json::parse(field.default_value));
    }
  }

  void load_field(const field_spec& field, const json& value) {
    given_.insert(field.path);
    load_value(field, value);
  }

  void load_value(const field_spec& field, const json& value) {
    const std::string& path = field.path;
    switch (field.kind) {
      case field_kind::quantity: {
        quantity q = quantity_from_json(value, path);
        detail::check_quantity_range(path, field.rule, q);
        quantities_[path] = std::move(q);
        break;
      }
      case field_kind::boolean:
        if (!value.is_boolean()) fail(path, "must be true or false, got " + detail::describe_json(value));
        flags_[path] = value.get<bool>();
        break;
      case field_kind::integer: {
        if (!value.is_number()) fail(path, "must be a whole number, got " + detail::describe_json(value));
        const double x = value.get<double>();
        check_finite(path, x);
        if (x != std::floor(x) || std::abs(x) > 9.0e15) fail(path, "must be a whole number, got " + format_number(x));
        if (field.rule == field_rule::at_least_one && x < 1) fail(path, "must be ≥ 1, got " + format_number(x));
        if (field.rule == field_rule::zero_to_three && (x < 0 || x > 3))
          fail(path, "must be 0, 1, 2 or 3, got " + format_number(x));
        integers_[path] = static_cast<long long>(x);
        break;
      }
      case field_kind::text:
        if (!value.is_string()) fail(path, "must be a string, got " + detail::describe_json(value));
        texts_[path] = value.get<std::string>();
        break;
      case field_kind::choice: {
        if (!value.is_string()) fail(path, "must be a string, got " + detail::describe_json(value));
        const auto text = value.get<std::string>();
        if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end()) {
          std::string list;
          for (const auto& c : field.choices) list += (list.empty() ? "" : ", ") + c;
          fail(path, "must be one of " + list + ", got \"" + text + "\"" + detail::did_you_mean(text, field.choices));
        }
        texts_[path] = text;
        break;
      }
    }
  }

  void load_profile() {
    if (!has_text("cluster.platform")) return;
    const std::string& name = text("cluster.platform");
    const auto it = profiles_->find(name);
    if (it == profiles_->end()) return;  // a free-text platform name; modes that need it say so
    profile_ = platform_profile::from_json(it->second, "profile " + name);
  }

  [[noreturn]] void need(const std::string& path, const std::string& why) const {
    fail(path, "required " + why);
  }

  // Rules that involve several fields: what each throughput mode needs, the batch and chip
  // arithmetic of the parallel layout, and that the layout fits in device memory.
  void check_consistency() const {
    if (!has("job.effective_steps") && !has("job.tokens"))
      fail("job.effective_steps", "required (optimizer steps to the quality bar), or give job.tokens");
    if (has("job.effective_steps") && has("job.tokens"))
      fail("job.tokens", "give either job.effective_steps or job.tokens, not both");
    const std::string& m = mode();
    if (m == "measured") {
      if (!has("throughput.step_time_s")) need("throughput.step_time_s", "when throughput.mode is measured (seconds per effective step)");
    } else if (has("throughput.step_time_s")) {
      fail("throughput.step_time_s", "is not used when throughput.mode is " + m + "; remove it or use mode measured");
    }
    const bool derived = m != "measured";
    if (derived || has("job.tokens")) {
      if (!has_integer("model.sequence_length")) need("model.sequence_length", "to derive steps or step time");
      if (!has_integer("parallelism.global_batch")) need("parallelism.global_batch", "to derive steps or step time");
    }
    if (!derived) return;
    if (!has("model.parameters") && !(has_integer("model.layers") && has_integer("model.hidden_size")))
      need("model.parameters", "(or model.layers and model.hidden_size) when throughput.mode is " + m);
    if (m != "flops" || has("throughput.model_flops_utilization")) {
      if (!has_text("cluster.platform")) need("cluster.platform", "(a hardware profile) when throughput.mode is " + m);
      if (!profile_) {
        std::string known;
        for (const auto& [name, doc] : *profiles_) known += (known.empty() ? "" : ", ") + name;
        fail("cluster.platform", "no hardware profile named \"" + text("cluster.platform") + "\"" +
                                     detail::did_you_mean(text("cluster.platform"), [&] {
                                       std::vector<std::string> names;
                                       for (const auto& [name, doc] : *profiles_) names.push_back(name);
                                       return names;
                                     }()) + (known.empty() ? "" : " (known: " + known + ")"));
      }
      if (!profile_->peak_tflops_per_chip.count(text("throughput.precision")))
        fail("throughput.precision", "profile " + profile_->name + " gives no " + text("throughput.precision") + " peak");
    }
    if (m == "flops") {
      const bool achieved = has("throughput.achieved_tflops_per_chip"), mfu = has("throughput.model_flops_utilization");
      if (achieved == mfu)
        fail("throughput", "flops mode needs exactly one of achieved_tflops_per_chip and model_flops_utilization");
    } else if (!has("throughput.compute_efficiency")) {
      need("throughput.compute_efficiency", "(achieved / peak FLOPS of the compute) when throughput.mode is " + m);
    }
    if (m == "analytic" || m == "extrapolated") {
      for (const char* path : {"model.layers", "model.hidden_size", "model.heads"})
        if (!has_integer(path)) need(path, "when throughput.mode is " + m);
    }
    if (m == "extrapolated") {
      for (const char* path : {"reference.step_time_s"})
        if (!has(path)) need(path, "(the measured step time) when throughput.mode is extrapolated");
      for (const char* path : {"reference.nodes", "reference.tp", "reference.pp", "reference.dp", "reference.micro_batch",
                               "reference.global_batch", "reference.sequence_length"})
        if (!has_integer(path)) need(path, "(the configuration the step time was measured at) when throughput.mode is extrapolated");
    }
    check_layout("parallelism", integer("cluster.nodes"), integer("parallelism.tp"), integer("parallelism.pp"),
                 integer("parallelism.dp"), integer("parallelism.micro_batch"), integer("parallelism.global_batch"));
    if (profile_ && has_integer("model.layers") && has_integer("model.hidden_size") && has_integer("model.heads"))
      check_memory_fit();
    if (m == "extrapolated")
      check_layout("reference", integer("reference.nodes"), integer("reference.tp"), integer("reference.pp"),
                   integer("reference.dp"), integer("reference.micro_batch"), integer("reference.global_batch"));
  }

  // A layout that cannot fit in a device's memory is an error that says by how much.
  void check_memory_fit() const {
    const transformer_shape m = shape();
    const parallel_layout p = layout();
    if (std::fmod(m.layers, p.pp) != 0)
      fail("parallelism.pp", "must divide model.layers = " + format_number(m.layers) + ", got " + format_number(p.pp));
    const device_memory mem = memory_per_device(m, kind(), p);
    const double capacity = profile_->figure("hbm_gib_per_chip").ppf(0.5) * 1073741824.0;
    if (mem.total() > capacity) {
      const auto gib = [](double bytes) { return format_number(std::round(bytes / 1073741824.0 * 10) / 10); };
      fail("parallelism", "this layout needs " + gib(mem.total()) + " GiB per chip (weights " + gib(mem.weights_bytes) +
                              ", gradients " + gib(mem.gradients_bytes) + ", optimizer " + gib(mem.optimizer_bytes) +
                              ", activations " + gib(mem.activations_bytes) + ") but " + profile_->name + " has " +
                              gib(capacity) + " GiB: " + gib(mem.total() - capacity) +
                              " GiB over; raise tp or pp, use a higher zero_stage, recompute activations, or a smaller micro_batch");
    }
  }

  void check_layout(const std::string& where, long long nodes, long long tp, long long pp, long long dp, long long micro,
                    long long global) const {
    if (global % (dp * micro) != 0)
      fail(where + ".global_batch", "must be a multiple of dp x micro_batch = " + std::to_string(dp * micro) + ", got " +
                                        std::to_string(global));
    if (profile_) {
      const long long chips = nodes * profile_->chips_per_node;
      if (tp * pp * dp != chips)
        fail(where, "tp x pp x dp = " + std::to_string(tp * pp * dp) + " must equal the chips of " + std::to_string(nodes) +
                        " x " + profile_->name + " = " + std::to_string(chips));
    }
  }

  json doc_;
  std::shared_ptr<const profile_library> profiles_;
  std::optional<platform_profile> profile_;
  std::set<std::string> given_;
  std::map<std::string, quantity> quantities_;
  std::map<std::string, bool> flags_;
  std::map<std::string, long long> integers_;
  std::map<std::string, std::string> texts_;
};

}  // namespace trnmodel
