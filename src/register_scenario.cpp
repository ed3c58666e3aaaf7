// Scenarios: loading (text or dict), saving, dotted-path updates, and the field table (one
// ScenarioField per path) that the Python layer turns into a JSON Schema and documentation.
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "register.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/scenario/completeness.hpp"
#include "trnmodel/scenario/hf_config.hpp"
#include "trnmodel/scenario/plausibility.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/scenario/schema.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {
// The layout figures of the profile a scenario resolved (the layout search and the report's
// implied MFU need them).
struct profile_shape {
  long long chips_per_node, nodes_per_domain;
};
// A stage's field named by "stages[k].<path>" or "<stage>/<path>": the stage and the path in it.
struct stage_field_at {
  std::size_t stage;
  std::string path;
};
}  // namespace

void register_scenario(py::module_& m) {
  py::class_<profile_shape>(m, "ProfileShape")
      .def_readonly("chips_per_node", &profile_shape::chips_per_node)
      .def_readonly("nodes_per_domain", &profile_shape::nodes_per_domain);
  py::class_<stage_field_at>(m, "StageField")
      .def_readonly("stage", &stage_field_at::stage)
      .def_readonly("path", &stage_field_at::path);
  py::class_<scenario>(m, "Scenario")
      .def_static(
          "from_text",
          [](const std::string& text, const py::dict& profiles) {
            return scenario::from_text(text, library_of(profiles));
          },
          py::arg("text"), py::arg("profiles") = py::dict())
      .def_static(
          "from_obj",
          [](py::handle obj, const py::dict& profiles) {
            return scenario::from_json(to_json(obj, ""), library_of(profiles));
          },
          py::arg("obj"), py::arg("profiles") = py::dict())
      .def("profile_document",
           [](const scenario& s) -> py::object {
             const ordered_json* doc = s.profile_document();
             return doc == nullptr ? py::none() : from_json(*doc);
           })
      .def_property_readonly("mode", [](const scenario& s) { return name_of_choice(s.mode()); })
      .def_property_readonly("profile_shape",
                             [](const scenario& s) -> std::optional<profile_shape> {
                               if (const auto* p = s.profile()) return profile_shape{p->chips_per_node, p->nodes_per_domain};
                               return std::nullopt;
                             })
      .def_property_readonly("profile_name",
                             [](const scenario& s) -> py::object {
                               if (const auto* p = s.profile()) return py::str(p->name);
                               return py::none();
                             })
      .def("to_obj", [](const scenario& s) { return from_json(s.to_json()); })
      .def(
          "to_text", [](const scenario& s, int indent) { return s.to_json().dump(indent); }, py::arg("indent") = 2)
      .def(
          "updated",
          [](const scenario& s, const py::dict& changes) {
            std::vector<std::pair<std::string, ordered_json>> list;
            for (const auto& [key, value] : changes) {
              const auto path = py::str(key).cast<std::string>();
              list.emplace_back(path, to_json(value, path));
            }
            return s.updated(list);
          },
          py::arg("changes"))
      .def(
          "quantity",
          [](const scenario& s, const std::string& path) -> py::object {
            if (const quantity* q = s.find(path)) return py::cast(*q);
            return py::none();
          },
          py::arg("path"))
      .def(
          "has", [](const scenario& s, const std::string& path) { return s.has(path); }, py::arg("path"))
      .def_property_readonly("name", &scenario::name)
      // A job in stages: each stage as a scenario of its own, its name, whether it gives a
      // field itself, and a path into a stage resolved to (index, field path) or None.
      .def_property_readonly("stage_count", &scenario::stage_count)
      .def(
          "stage", [](const scenario& s, std::size_t k) { return s.stage(k); }, py::arg("k"))
      .def(
          "stage_name", [](const scenario& s, std::size_t k) { return s.stage_name(k); }, py::arg("k"))
      .def(
          "stage_gives",
          [](const scenario& s, std::size_t k, const std::string& path) {
            return path == "transition_s" ? s.stage_gives(k, field::transition_s) : s.stage_gives(k, field_at(path));
          },
          py::arg("k"), py::arg("path"))
      .def(
          "stage_field",
          [](const scenario& s, const std::string& path) -> std::optional<stage_field_at> {
            if (const auto at = s.stage_field(path)) return stage_field_at{at->first, at->second};
            return std::nullopt;
          },
          py::arg("path"));

  py::class_<field_spec>(m, "ScenarioField")
      .def_readonly("path", &field_spec::path)
      .def_property_readonly("kind", [](const field_spec& f) { return name_of(f.kind); })
      .def_property_readonly("rule", [](const field_spec& f) { return name_of(f.rule); })
      .def_property_readonly("default",
                             [](const field_spec& f) {
                               return f.default_value.empty() ? py::object(py::none())
                                                              : from_json(ordered_json::parse(f.default_value));
                             })
      .def_readonly("required", &field_spec::required)
      .def_readonly("doc", &field_spec::doc)
      .def_readonly("choices", &field_spec::choices)
      .def_readonly("choice_type", &field_spec::choice_type);
  py::class_<phase_completeness>(m, "PhaseCompleteness")
      .def_readonly("phase", &phase_completeness::phase)
      .def_readonly("metric", &phase_completeness::metric)
      .def_property_readonly("status", [](const phase_completeness& p) { return name_of(p.status); })
      .def_readonly("inputs", &phase_completeness::inputs)
      .def_readonly("missing", &phase_completeness::missing)
      .def_readonly("unknown", &phase_completeness::unknown)
      .def_readonly("absent_means", &phase_completeness::absent_means)
      .def_readonly("why", &phase_completeness::why)
      .def_property_readonly("counted_as_zero", &phase_completeness::counted_as_zero)
      .def_property_readonly("default_assumed", &phase_completeness::default_assumed);
  m.def("completeness", &completeness, py::arg("scenario"));
  m.def("unmet_expectations", &unmet_expectations, py::arg("scenario"));
  m.def("multi_node_without_failures", py::overload_cast<const scenario&>(&multi_node_without_failures),
        py::arg("scenario"));
  m.def("implausible_values", &implausible_values, py::arg("scenario"));
  m.def("scenario_fields", [] { return scenario_fields(); });
  // Every choice of the formats: its enum's name in C++ -> its spellings (tm.fields' enums).
  m.def("choices", [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;
    for (const auto& c : all_choices()) lists.emplace_back(c.type, c.spellings);
    return lists;
  });
  // The keys a stage may give (scenario/stages.hpp): its name, transition_s and the stage blocks.
  m.def("stage_keys", [] { return stage_blocks(); });
  m.def("scenario_json_schema", [] { return from_json(scenario_json_schema()); });
  // The one did-you-mean rule (include/trnmodel/detail/did_you_mean.hpp), for Python's messages too.
  m.def(
      "closest_name",
      [](const std::string& key, const std::vector<std::string>& candidates) {
        return detail::closest_name(key, candidates);
      },
      py::arg("key"), py::arg("candidates"));
  // A Hugging Face config.json read into a model shape and its parameter count (hf_config.hpp).
  py::class_<hf_model>(m, "HFConfig")
      .def_readonly("model_type", &hf_model::model_type)
      .def_readonly("hidden_size", &hf_model::hidden_size)
      .def_readonly("layers", &hf_model::layers)
      .def_readonly("heads", &hf_model::heads)
      .def_readonly("kv_heads", &hf_model::kv_heads)
      .def_readonly("head_dim", &hf_model::head_dim)
      .def_readonly("ffn_size", &hf_model::ffn_size)
      .def_readonly("vocab_size", &hf_model::vocab_size)
      .def_readonly("tied_embeddings", &hf_model::tied_embeddings)
      .def_readonly("max_position_embeddings", &hf_model::max_position_embeddings)
      .def_property_readonly("parameters", &hf_model::parameters)
      .def_property_readonly("embedding_parameters", &hf_model::embedding_parameters)
      .def("lora_parameters", &hf_model::lora_parameters, py::arg("rank"))
      .def("__repr__", [](const hf_model& c) {
        return "HFConfig(model_type='" + c.model_type + "', layers=" + detail::format_number(c.layers) +
               ", hidden_size=" + detail::format_number(c.hidden_size) +
               ", parameters=" + detail::format_approx(c.parameters(), 4) + ")";
      });
  m.def("read_hf_config", &parse_hf_config, py::arg("text"));
  m.attr("SCENARIO_SCHEMA_V1") = scenario_schema_v1;
  m.attr("MAX_JSON_DEPTH") = detail::max_json_depth;
}

}  // namespace trnmodel::python
