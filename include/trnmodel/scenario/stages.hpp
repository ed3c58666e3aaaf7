#pragma once
// The stages of a multi-stage job (docs/scenario.md, "Stages"), at the level of the document:
// which blocks a stage may give, each stage's own document (the top level with the stage's
// fields over it) and what the stage itself gives, the paths that name a stage's field
// ("stages[1].<field>" or "<stage name>/<field>"), and changing a stage's field. The scenario
// class (scenario/scenario.hpp) loads each stage's document as a scenario of its own.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/loader.hpp"

namespace trnmodel {

/// The blocks a stage may give; the others (startup, prices, data, engineering, reference)
/// belong to the whole job. Besides, a stage has its name and its transition_s.
inline const std::vector<std::string>& stage_blocks() {
  static const std::vector<std::string> blocks{"name",       "transition_s", "job",        "cluster",
                                               "model",      "parallelism",  "throughput", "compile",
                                               "checkpoint", "eval",         "failures",   "quality"};
  return blocks;
}

/// A field's path within stage k, as errors and completeness name it: "stages[1].compile.initial_s".
inline std::string stage_path(std::size_t k, const std::string& path) {
  return "stages[" + std::to_string(k) + "]." + path;
}

/// One stage's own document: the scenario's top level with the stage's fields over it, and
/// which fields the stage itself gives (by field index).
struct stage_document {
  std::string name;  ///< the stage's name (unique, without '/')
  ordered_json doc;  ///< the top level (without "stages") with the stage's fields over it
  std::vector<bool> given;  ///< given[f]: the stage itself gives field f
};

namespace detail {

inline bool is_stage_block(const std::string& head) {
  return std::find(stage_blocks().begin(), stage_blocks().end(), head) != stage_blocks().end();
}

// "stages[0] pretrain, stages[1] extend", for messages.
inline std::string stage_list(const std::vector<std::string>& names) {
  std::string list;
  for (std::size_t k = 0; k < names.size(); ++k)
    list += (k ? ", " : "") + std::string("stages[") + std::to_string(k) + "] " + names[k];
  return list;
}

}  // namespace detail

/// Each stage's document from a scenario document's "stages" array (none without one); a null
/// removes a top-level field. Throws input_error naming the stage's path
/// ("stages[1].cluster.platform") for a stage that is not an object, has no unique name, does
/// not state its own work (job.tokens or job.effective_steps), or gives a key that is unknown
/// or set per job.
inline std::vector<stage_document> stage_documents(const ordered_json& doc) {
  std::vector<stage_document> stages;
  if (!doc.contains("stages")) return stages;
  const ordered_json& list = doc.at("stages");
  if (!list.is_array() || list.empty())
    detail::fail("stages", "must be a non-empty array of stage objects, got " + detail::describe_json(list));
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string at = "stages[" + std::to_string(k) + "]";
    const ordered_json& item = list[k];
    if (!item.is_object()) detail::fail(at, "must be an object (a stage), got " + detail::describe_json(item));
    if (!item.contains("name") || !item["name"].is_string() || item["name"].get<std::string>().empty())
      detail::fail(at + ".name", "required: a non-empty string naming the stage");
    stage_document stage{item["name"].get<std::string>(), doc, std::vector<bool>(field_count, false)};
    if (stage.name.find('/') != std::string::npos)
      detail::fail(at + ".name",
                   "must not contain '/' (per-stage metrics are named \"<stage>/<metric>\"), got \"" + stage.name + "\"");
    for (const auto& other : stages)
      if (other.name == stage.name)
        detail::fail(at + ".name", "must be unique, \"" + stage.name + "\" names an earlier stage");
    ordered_json& merged = stage.doc;
    merged.erase("stages");
    for (const auto& [head, value] : item.items()) {
      if (head == "name") continue;
      const std::string path = at + "." + head;
      if (!detail::is_stage_block(head)) {
        const auto sections = detail::top_level_keys();
        if (std::find(sections.begin(), sections.end(), head) != sections.end())
          detail::fail(path, "is set per job, not per stage: give it at the top level");
        detail::fail(path, "unknown key" + detail::did_you_mean(head, stage_blocks()));
      }
      if (head == "transition_s") {
        if (k == 0) detail::fail(path, "the first stage has no transition (the job's start comes once)");
        merged[head] = value;
        stage.given[static_cast<std::size_t>(field::transition_s)] = true;
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
        if (field_value.is_null())
          merged[head].erase(key);
        else
          merged[head][key] = field_value;
        stage.given[f->index()] = true;
      }
    }
    const bool gives_work = item.contains("job") && item["job"].is_object() &&
                            ((item["job"].contains("tokens") && !item["job"]["tokens"].is_null()) ||
                             (item["job"].contains("effective_steps") && !item["job"]["effective_steps"].is_null()));
    if (!gives_work)
      detail::fail(at + ".job", "required: the stage's own work, job.tokens or job.effective_steps (each stage states "
                                "its work; none is taken from the top level or another stage)");
    stages.push_back(std::move(stage));
  }
  return stages;
}

/// A path into a stage, "stages[<index>].<field>" or "<stage name>/<field>" (the name its
/// inputs carry in a sensitivity analysis), against the stages `names`: the stage's index and
/// the field's path, checked (a bad index or name, or a field set per job, is an input_error
/// naming the path); nullopt for a path of the top level.
inline std::optional<std::pair<std::size_t, std::string>> parse_stage_path(const std::string& path,
                                                                           const std::vector<std::string>& names) {
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
    if (k >= names.size())
      detail::fail(path, names.empty() ? std::string("the scenario has no stages")
                                       : "no stage " + index + ": the scenario has " + std::to_string(names.size()) +
                                             " stages (" + detail::stage_list(names) + ")");
    rest = path.substr(close + 2);
  } else if (const auto slash = path.find('/'); slash != std::string::npos) {
    const std::string name = path.substr(0, slash);
    if (names.empty()) detail::fail(path, "the scenario has no stages (a stage's field is \"<stage name>/<field>\")");
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      detail::fail(path, "no stage named \"" + name + "\" (stages: " + detail::stage_list(names) + ")" +
                             detail::did_you_mean(name, names));
    k = static_cast<std::size_t>(it - names.begin());
    rest = path.substr(slash + 1);
  } else {
    return std::nullopt;
  }
  if (rest == "transition_s" || rest == "name") return std::make_pair(k, rest);
  const field_spec* f = find_field(rest);
  if (f == nullptr) detail::fail(path, "no such scenario field" + detail::did_you_mean(rest, detail::all_paths()));
  if (!detail::is_stage_block(rest.substr(0, rest.find('.'))) || f->id == field::cluster_platform)
    detail::fail(path, "is set per job, not per stage: give it at the top level");
  return std::make_pair(k, rest);
}

/// Sets the field `path` of one stage's JSON object to `value`; null removes the stage's own
/// value (back to the top level's).
inline void update_stage(ordered_json& stage, const std::string& path, const ordered_json& value) {
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

}  // namespace trnmodel
