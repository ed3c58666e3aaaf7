// Compiled by the test "headers_compile_alone": an embedder's usual preamble next to the whole
// API. `using namespace trnmodel` must not make an unqualified `json` ambiguous (trnmodel's
// ordered JSON type is trnmodel::ordered_json), nor collide with other common names: the
// library's helpers (fail, check_*, format_number, shorten, uniform, ...) live in
// trnmodel::detail, so an embedder's own functions of those names are called unambiguously.
#include <nlohmann/json.hpp>

#include "trnmodel/trnmodel.hpp"

using namespace trnmodel;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;  // the same type as trnmodel's: no ambiguity

// An embedder's own helpers with the names trnmodel uses internally.
[[noreturn]] void fail(const std::string& path, const std::string& rule) { throw std::runtime_error(path + rule); }
void check_positive(const std::string& path, double value) {
  if (!(value > 0)) fail(path, " must be > 0");
}
std::string format_number(double value) { return std::to_string(value); }
std::string shorten(const std::string& text) { return text.substr(0, 8); }
double uniform(double lo, double hi) { return 0.5 * (lo + hi); }
int threads_for(int requested) { return requested; }
std::string metric_name_list() { return "mine"; }

int hygiene_check() {
  check_positive("x", uniform(1, 2));
  const std::string mine = shorten(format_number(1.5)) + metric_name_list() + std::to_string(threads_for(2));
  const json plain = json::parse(R"({"b": 1, "a": 2})");
  const ordered_json ordered = ordered_json::parse(R"({"b": 1, "a": 2})");
  const scenario s = scenario::from_json(ordered_json::parse(R"({"schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 10}, "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1}})"));
  return static_cast<int>(plain.size() + ordered.size() + s.to_json().size() + mine.size());
}
