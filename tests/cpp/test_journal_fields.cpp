// The journal's field table (include/trnmodel/calibrate/journal_fields.hpp) against the loader
// (journal.hpp): every key the table lists is read and type-checked by the loader, every
// required key is required, and the choices, integer minimums and number rules are the
// loader's. The schema generated from the table (journal_schema.hpp) lists the same keys.
#include <functional>
#include <set>

#include "journal_examples.hpp"
#include "trnmodel/calibrate/journal_fields.hpp"
#include "trnmodel/calibrate/journal_schema.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_fields {

namespace {

// The JSON pointer of a field's parent in an example document: "checkpoints[]" is the
// first checkpoint; the examples hold at least one entry of each list.
ordered_json& parent_of(ordered_json& doc, const std::string& object) {
  ordered_json* node = &doc;
  std::size_t start = 0;
  while (start < object.size()) {
    const std::size_t dot = object.find('.', start);
    std::string part = object.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool entry = part.size() > 2 && part.compare(part.size() - 2, 2, "[]") == 0;
    if (entry) part.resize(part.size() - 2);
    node = &(*node)[part];
    if (entry) node = &(*node)[0];
    start = dot == std::string::npos ? object.size() : dot + 1;
  }
  return *node;
}

// The message path of a field in an example: "checkpoints[0].step".
std::string message_path(const journal_field& f) {
  std::string object = f.object;
  for (std::size_t at = object.find("[]"); at != std::string::npos; at = object.find("[]"))
    object.replace(at, 2, "[0]");
  return object.empty() ? f.key : object + "." + f.key;
}

// Trial 002 has an interruption and its series in a file; trial 001 has everything else.
ordered_json example_for(const journal_field& f) {
  return example_json(f.object.rfind("interruptions", 0) == 0 ? 2 : 1);
}

// The keys of step_times that describe a file are checked by the file tests (test_journal_files.cpp):
// an example with inline values refuses them before reading them.
bool describes_a_file(const journal_field& f) {
  return f.object == "step_times" && (f.key == "file" || f.key == "column" || f.key == "step_column" ||
                                      f.key == "count" || f.key == "sha256" || f.key == "values");
}

}  // namespace

TEST_CASE("every field of the table is read and type-checked by the loader", "[journal][fields]") {
  for (const auto& f : journal_fields()) {
    if (describes_a_file(f)) continue;
    INFO(f.path());
    ordered_json doc = example_for(f);
    const bool array_kind =
        f.value == journal_value::list || f.value == journal_value::text_list || f.value == journal_value::number_list;
    parent_of(doc, f.object)[f.key] = array_kind ? ordered_json(5) : ordered_json::array();
    CHECK_THAT(journal_error(doc), test::contains(message_path(f) + ": must be "));
  }
}

TEST_CASE("the table's required fields are the loader's", "[journal][fields]") {
  for (const auto& f : journal_fields()) {
    if (!f.required || f.object == "step_times") continue;  // step_times.unit: below
    INFO(f.path());
    ordered_json doc = example_for(f);
    parent_of(doc, f.object).erase(f.key);
    CHECK_THAT(journal_error(doc), test::contains(message_path(f) + ": required key is missing"));
  }
  ordered_json doc = example_json(1);
  doc["step_times"].erase("unit");
  CHECK_THAT(journal_error(doc), test::contains("step_times.unit: required key is missing"));
  // An optional field can be left out (sections and list entries aside, whose absence has its own rules).
  for (const auto& f : journal_fields()) {
    if (f.required || describes_a_file(f) || f.key == "lora_rank") continue;
    INFO(f.path());
    ordered_json doc = example_for(f);
    parent_of(doc, f.object).erase(f.key);
    CHECK_THAT(journal_error(doc), !test::contains(message_path(f) + ": required"));
  }
}

TEST_CASE("the table's choices, minimums and number rules are the loader's", "[journal][fields]") {
  for (const auto& f : journal_fields()) {
    if (describes_a_file(f)) continue;
    INFO(f.path());
    ordered_json doc = example_for(f);
    ordered_json& parent = parent_of(doc, f.object);
    if (f.value == journal_value::choice) {
      std::string list;
      for (const auto& c : f.choices) list += (list.empty() ? "" : ", ") + c;
      parent[f.key] = "not-a-choice";
      CHECK_THAT(journal_error(doc), test::contains(message_path(f) + ": must be one of " + list + ", got"));
    } else if (f.value == journal_value::integer) {
      parent[f.key] = f.minimum - 1;
      CHECK_THAT(journal_error(doc), test::contains(message_path(f) + ": must be ≥ " + std::to_string(f.minimum)));
    } else if (f.value == journal_value::number && f.rule != detail::number_rule::any) {
      const bool unit = f.rule == detail::number_rule::unit_interval;
      parent[f.key] = unit ? 1.5 : f.rule == detail::number_rule::positive ? 0.0 : -1.0;
      const std::string rule = unit                                      ? "must be in [0, 1]"
                               : f.rule == detail::number_rule::positive ? "must be > 0"
                                                                         : "must be ≥ 0";
      CHECK_THAT(journal_error(doc), test::contains(message_path(f) + ": " + rule));
    }
  }
  ordered_json doc = example_json(1);
  doc["training"]["zero_stage"] = 4;
  CHECK_THAT(journal_error(doc), test::contains("training.zero_stage: must be 0, 1, 2 or 3, got 4"));
  CHECK(journal_field_at("training", "zero_stage").maximum == 3);
}

TEST_CASE("the generated schema lists the table's keys, and only those", "[journal][schema]") {
  const ordered_json schema = journal_json_schema();
  CHECK(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  CHECK(schema["properties"]["schema"]["const"] == journal_schema);
  std::size_t listed = 0;
  const std::function<void(const ordered_json&, const std::string&)> walk = [&](const ordered_json& node,
                                                                                const std::string& object) {
    CHECK(node["additionalProperties"] == false);
    std::set<std::string> required;
    for (const auto& key : node.value("required", ordered_json::array())) required.insert(key.get<std::string>());
    for (const auto& [key, property] : node["properties"].items()) {
      const journal_field& f = journal_field_at(object, key);
      ++listed;
      CHECK(f.required == (required.count(key) == 1));
      if (f.value == journal_value::section) walk(property, f.path());
      if (f.value == journal_value::list) walk(property["items"], f.path() + "[]");
    }
  };
  walk(schema, "");
  CHECK(listed == journal_fields().size());
  // The cross-field rules a schema can state.
  CHECK(schema["properties"]["versions"]["oneOf"].size() == 2);
  CHECK(schema["properties"]["step_times"]["oneOf"].size() == 2);
  CHECK(schema["properties"]["training"]["allOf"][0]["then"]["required"][0] == "lora_rank");
}

TEST_CASE("each field's id names its own row, and its path is unique", "[journal][fields]") {
  std::set<std::string> paths;
  for (std::size_t k = 0; k < journal_fields().size(); ++k) {
    const journal_field& f = journal_fields()[k];
    INFO(f.path());
    CHECK(static_cast<std::size_t>(f.id) == k);
    CHECK(&journal_field_of(f.id) == &f);
    CHECK(paths.insert(f.path()).second);
  }
  CHECK(journal_path(journal_key::training_global_batch) == "training.global_batch");
  CHECK(journal_path(journal_key::checkpoint_step) == "checkpoints[].step");
  CHECK(journal_field_of(journal_key::training_kind).choices == choice_names<job_kind>());
  CHECK(journal_field_of(journal_key::interruption_cause).choices == choice_names<interruption_cause>());
}

}  // namespace test_journal_fields
