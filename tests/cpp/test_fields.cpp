// The scenario field table (scenario/fields.hpp) and the JSON Schema generated from it
// (scenario/schema.hpp): one row per field, every consumer reading the same row.
#include <set>
#include <string>

#include "catch.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/schema.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_fields {

namespace {
const std::string minimal = R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
  "cluster": {"nodes": 2}, "throughput": {"step_time_s": 1.5}})";

std::string message_of(void (*f)()) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("field ids index the table in row order, and paths are unique", "[fields]") {
  std::set<std::string> paths;
  for (std::size_t i = 0; i < scenario_fields().size(); ++i) {
    const field_spec& f = scenario_fields()[i];
    CHECK(f.index() == i);
    CHECK(paths.insert(f.path).second);
    CHECK(field_at(f.path) == f.id);
  }
  CHECK(scenario_fields().size() == field_count);
  CHECK(path_of(field::checkpoint_save_s) == "checkpoint.save_s");
  CHECK(spec(field::job_kind).choices == std::vector<std::string>{"lora", "full", "continued"});
}

TEST_CASE("quantities, and only they, have a slot, no two share one", "[fields]") {
  lifecycle_inputs in;
  std::set<const double*> slots;  // member pointers have no order; the members' addresses do
  for (const auto& f : scenario_fields()) {
    CHECK((f.kind == field_kind::quantity) == (f.slot != nullptr));
    CHECK((f.kind == field_kind::quantity) == (f.group != input_group::setting));
    if (f.slot != nullptr) CHECK(slots.insert(&(in.*(f.slot))).second);
  }
  CHECK(detail::lifecycle_input_fields().size() == slots.size());
}

TEST_CASE("a drawn field lands in its slot", "[fields]") {
  // Each quantity is given a distinct constant and the simulator's inputs are read back: a
  // row whose slot pointed at another member would put the wrong value there.
  const auto s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 1000},
    "cluster": {"nodes": 2}, "throughput": {"step_time_s": 1.5}, "checkpoint": {"save_s": 17, "verify_s": 3},
    "failures": {"node_mtbf_h": 5000, "restart_s": 250}, "prices": {"node_hour_usd": 40}})");
  lifecycle_inputs in;
  for (const field_spec* f : detail::lifecycle_input_fields())
    if (const quantity* q = s.find(f->id); q != nullptr && !q->is_unknown()) in.*(f->slot) = q->ppf(0.5);
  CHECK(in.save_s == 17);
  CHECK(in.verify_s == 3);
  CHECK(in.node_mtbf_h == 5000);
  CHECK(in.restart_s == 250);
  CHECK(in.node_hour_usd == 40);
  CHECK(in.step_time_s == 1.5);
  CHECK(in.effective_steps == 1000);
}

TEST_CASE("unknown paths are input errors naming the path, never out_of_range", "[fields]") {
  CHECK(message_of([] { scenario::from_text(minimal).integer("cluster.nodez"); }) ==
        "cluster.nodez: no such scenario field");
  CHECK(message_of([] { scenario::from_text(minimal).flag("cluster.nodes"); }) ==
        "cluster.nodes: is not a field of this kind");
  CHECK(message_of([] { scenario::from_text(minimal).integer("model.layers"); }) ==
        "model.layers: not given and has no default");
  CHECK(message_of([] { field_at(""); }) == "(empty path): no such scenario field");
}

TEST_CASE("one whole-number rule for integer fields", "[fields]") {
  CHECK(detail::whole_number("x", 3, 0, 3) == 3);
  CHECK(message_of([] { detail::whole_number("x", 2.5, 1, max_whole_number); }) ==
        "x: must be a whole number, got 2.5");
  CHECK(message_of([] { detail::whole_number("x", 0, 1, max_whole_number); }) == "x: must be ≥ 1, got 0");
  CHECK(message_of([] { detail::whole_number("x", 4, 0, 3); }) == "x: must be 0, 1, 2 or 3, got 4");
  CHECK(message_of([] { detail::whole_number("x", 2 * max_whole_number, 1, max_whole_number); }) ==
        "x: must be a whole number, got 18014398509481984");
  CHECK(message_of([] { detail::whole_number("x", 5, 1, 4); }) == "x: must be in [1, 4], got 5");
}

TEST_CASE("the JSON Schema has every field, with its default and rule", "[fields][schema]") {
  const ordered_json schema = scenario_json_schema();
  for (const auto& f : scenario_fields()) {
    // Each section of the path is an object of properties (card.owners.quality nests twice).
    const ordered_json* prop = &schema;
    std::string rest = f.path;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      prop = &(*prop)["properties"][rest.substr(0, dot)];
      CHECK((*prop)["additionalProperties"] == false);
      rest = rest.substr(dot + 1);
    }
    prop = &(*prop)["properties"][rest];
    INFO(f.path);
    CHECK((*prop)["description"] == f.doc);
    CHECK(prop->contains("default") == !f.default_value.empty());
    if (f.kind == field_kind::quantity) CHECK((*prop)["$ref"] == "#/$defs/quantity");
    if (f.kind == field_kind::number) CHECK((*prop)["type"] == "number");
  }
  CHECK(schema["properties"]["parallelism"]["properties"]["zero_stage"]["maximum"] == 3);
  CHECK(schema["properties"]["card"]["properties"]["max_error_to_restart_h"]["exclusiveMinimum"] == 0);
  CHECK(schema["properties"]["cluster"]["required"] == ordered_json::array({"nodes"}));
  CHECK(schema["required"] == ordered_json::array({"schema", "cluster"}));
  // One branch per distribution family (two for lognormal's two forms), a number and unknown.
  CHECK(schema["$defs"]["quantity"]["oneOf"].size() == detail::families().size() + 3);
}

}  // namespace test_fields
