#pragma once
// Hardware profiles ("schema": "trnmodel.profile/1"): what a node of a platform offers, each
// figure an uncertain quantity with its source (docs/profiles.md). The package ships
// profiles as JSON; users pass their own files of the same format to override them.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity_json.hpp"

namespace trnmodel {

/// The "schema" value a profile document must carry.
inline constexpr const char* profile_schema_v1 = "trnmodel.profile/1";

/// A hardware profile (docs/profiles.md): chips, peak FLOPS, links, memory, price. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct platform_profile {
  /// \var name
  /// The profile's name, the value of cluster.platform that selects it (e.g. "trn2.48xlarge").
  /// \var description
  /// Free text about the platform.
  /// \var accelerator
  /// The accelerator chip (free text).
  /// \var node
  /// The node (instance) type (free text).
  std::string name, description, accelerator, node;
  long long chips_per_node = 1;  ///< accelerator chips per node, a whole number >= 1
  long long nodes_per_domain = 1;  ///< nodes sharing the fast intra-node fabric (UltraServer)
  std::map<std::string, quantity> peak_tflops_per_chip;  ///< by precision: bf16, fp8, fp32
  /// Every other figure, by key (hbm_gib_per_chip, intra_node_gb_s_per_chip, ...), in the units
  /// its key names (docs/profiles.md); "price_node_hour_usd" only when the profile gives it.
  std::map<std::string, quantity> figures;

  /// Chips in one fast domain: chips_per_node x nodes_per_domain.
  long long chips_per_domain() const { return chips_per_node * nodes_per_domain; }
  /// A figure by key; input_error naming the profile and the keys it has when it has none such.
  const quantity& figure(const std::string& key) const {
    const auto it = figures.find(key);
    if (it == figures.end()) {
      std::string known;
      for (const auto& [k, q] : figures) known += (known.empty() ? "" : ", ") + k;
      detail::fail("profile " + name + "." + key, "no such figure (figures: " + known + ")");
    }
    return it->second;
  }

  /// Parses and checks a profile; `path` prefixes messages (e.g. "profiles/trn2.48xlarge").
  /// Throws trnmodel::input_error naming "<path>.<key>" for an unknown key, a wrong schema, a
  /// missing figure, a count that is not a whole number >= 1, or a figure whose support is not
  /// > 0 (efficiencies: not in (0, 1]).
  static platform_profile from_json(const ordered_json& doc, const std::string& path) {
    if (!doc.is_object()) detail::fail(path, "a profile must be a JSON object");
    static const std::vector<std::string> figure_keys{
        "hbm_gib_per_chip",      "hbm_tb_s_per_chip",     "intra_node_gb_s_per_chip", "inter_node_gb_s_per_chip",
        "intra_node_latency_us", "inter_node_latency_us", "intra_node_efficiency",    "inter_node_efficiency"};
    static const std::vector<std::string> keys = [] {
      std::vector<std::string> k{"schema",
                                 "name",
                                 "description",
                                 "accelerator",
                                 "node",
                                 "chips_per_node",
                                 "nodes_per_domain",
                                 "peak_tflops_per_chip",
                                 "price_node_hour_usd",
                                 "conflicts"};
      k.insert(k.end(), figure_keys.begin(), figure_keys.end());
      return k;
    }();
    for (const auto& [key, value] : doc.items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        detail::fail(path + "." + key, "unknown key" + detail::did_you_mean(key, keys));
    if (doc.value("schema", std::string()) != profile_schema_v1)
      detail::fail(path + ".schema", std::string("must be \"") + profile_schema_v1 + "\"");
    platform_profile p;
    const auto text = [&](const char* key) {
      return doc.contains(key) ? detail::json_string(doc[key], path + "." + key) : std::string();
    };
    p.name = text("name");
    p.description = text("description");
    p.accelerator = text("accelerator");
    p.node = text("node");
    const auto whole = [&](const char* key) {
      if (!doc.contains(key)) detail::fail(path + "." + key, "required");
      const double x = detail::json_number(doc[key], path + "." + key);
      if (x < 1 || x != std::floor(x))
        detail::fail(path + "." + key, "must be a whole number ≥ 1, got " + detail::format_number(x));
      return static_cast<long long>(x);
    };
    p.chips_per_node = whole("chips_per_node");
    p.nodes_per_domain = whole("nodes_per_domain");
    if (!doc.contains("peak_tflops_per_chip") || !doc["peak_tflops_per_chip"].is_object())
      detail::fail(path + ".peak_tflops_per_chip", "required: an object of precision -> TFLOPS");
    for (const auto& [precision, value] : doc["peak_tflops_per_chip"].items()) {
      const std::string at = path + ".peak_tflops_per_chip." + precision;
      p.peak_tflops_per_chip.emplace(precision, figure_from_json(value, at, false));
    }
    for (const auto& key : figure_keys) {
      if (!doc.contains(key)) detail::fail(path + "." + key, "required");
      p.figures.emplace(key, figure_from_json(doc[key], path + "." + key, key.find("efficiency") != std::string::npos));
    }
    if (doc.contains("price_node_hour_usd"))
      p.figures.emplace("price_node_hour_usd",
                        figure_from_json(doc["price_node_hour_usd"], path + ".price_node_hour_usd", false));
    return p;
  }

 private:
  // A figure at `at`: unknown, or known with its whole range > 0 (and at most 1 for an efficiency).
  static quantity figure_from_json(const ordered_json& value, const std::string& at, bool efficiency) {
    quantity q = quantity_from_json(value, at);
    if (q.is_unknown()) return q;
    const auto [lo, hi] = q.support();
    if (!(lo > 0) || (efficiency && hi > 1)) {
      const std::string got = lo == hi ? detail::format_number(lo)
                                       : "[" + detail::format_number(lo) + ", " + detail::format_number(hi) + "]";
      detail::fail(
          at, std::string(efficiency ? "must lie in (0, 1]" : "must be > 0") + " over its whole range, got " + got);
    }
    return q;
  }
};

/// The profiles a scenario may name in cluster.platform: name -> JSON document.
using profile_library = std::map<std::string, ordered_json>;

}  // namespace trnmodel
