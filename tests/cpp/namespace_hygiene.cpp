// Compiled by the test "headers_compile_alone": an embedder's usual preamble next to the whole
// API. `using namespace trnmodel` must not make an unqualified `json` ambiguous (trnmodel's
// ordered JSON type is trnmodel::ordered_json), nor collide with other common names.
#include <nlohmann/json.hpp>

#include "trnmodel/trnmodel.hpp"

using namespace trnmodel;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;  // the same type as trnmodel's: no ambiguity

int hygiene_check() {
  const json plain = json::parse(R"({"b": 1, "a": 2})");
  const ordered_json ordered = ordered_json::parse(R"({"b": 1, "a": 2})");
  const scenario s = scenario::from_json(ordered_json::parse(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 10}, "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1}})"));
  return static_cast<int>(plain.size() + ordered.size() + s.to_json().size());
}
