// The advisor (include/trnmodel/decisions/advisor.hpp): one case per rule, one per precedence
// pair, and the facts read from a scenario's project block with every missing one listed.
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/decisions/advisor.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_advisor {

namespace {

// A project that fires only the pilot rule with a LoRA job: stable, agreed, experienced, long.
project_facts pilot_project() {
  project_facts p;
  p.architecture_changes = change_rate::rare;
  p.team_neuron_experience = neuron_experience::some;
  p.cost_of_error = error_cost::low;
  p.agreed_metrics = true;
  p.training_cycle = cycle_length::long_;
  return p;
}

std::vector<std::string> codes(const advice& a) {
  std::vector<std::string> out;
  for (const auto& r : a.rules) out.push_back(code_of(r.makes));
  return out;
}

struct rule_case {
  const char* name;
  void (*change)(project_facts&);
  job_kind kind;
  std::vector<std::string> fired;  // every rule that fires, in precedence; the first is the advice
};

}  // namespace

TEST_CASE("the advisor's rules, one case each and each precedence pair", "[decisions][advisor]") {
  using p_t = project_facts;
  const std::vector<rule_case> cases{
      // One rule each.
      {"pilot: stable LoRA, long cycle", [](p_t&) {}, job_kind::lora, {"trainium_pilot"}},
      {"pilot: continued training", [](p_t&) {}, job_kind::continued, {"trainium_pilot"}},
      {"after checks: full training", [](p_t&) {}, job_kind::full, {"trainium_after_checks"}},
      {"gpu: frequent changes", [](p_t& p) { p.architecture_changes = change_rate::frequent; }, job_kind::full,
       {"gpu", "trainium_after_checks"}},
      {"gpu: experimental ops", [](p_t& p) { p.experimental_ops = true; }, job_kind::lora, {"gpu", "trainium_pilot"}},
      {"gpu: custom CUDA", [](p_t& p) { p.custom_cuda_extensions = true; }, job_kind::lora, {"gpu", "trainium_pilot"}},
      {"gpu: fast debug loop", [](p_t& p) { p.fast_debug_loop = true; }, job_kind::lora, {"gpu", "trainium_pilot"}},
      {"gpu: mixed models", [](p_t& p) { p.mixed_nonstandard_models = true; }, job_kind::lora,
       {"gpu", "trainium_pilot"}},
      {"gpu: compiler tuning", [](p_t& p) { p.manual_compiler_tuning = true; }, job_kind::lora,
       {"gpu", "trainium_pilot"}},
      {"baseline first: no agreed metrics", [](p_t& p) { p.agreed_metrics = false; }, job_kind::lora,
       {"gpu_baseline_first", "trainium_pilot"}},
      {"dual track: high cost, no experience",
       [](p_t& p) {
         p.cost_of_error = error_cost::high;
         p.team_neuron_experience = neuron_experience::none;
       },
       job_kind::lora, {"dual_track", "trainium_pilot"}},
      {"otherwise: a short cycle", [](p_t& p) { p.training_cycle = cycle_length::short_; }, job_kind::lora,
       {"dual_track"}},
      {"no dual track with some experience", [](p_t& p) { p.cost_of_error = error_cost::high; }, job_kind::lora,
       {"trainium_pilot"}},
      // Precedence pairs: the higher rule wins whenever both fire.
      {"gpu over baseline first",
       [](p_t& p) {
         p.custom_cuda_extensions = true;
         p.agreed_metrics = false;
       },
       job_kind::lora, {"gpu", "gpu_baseline_first", "trainium_pilot"}},
      {"gpu over dual track",
       [](p_t& p) {
         p.fast_debug_loop = true;
         p.cost_of_error = error_cost::high;
         p.team_neuron_experience = neuron_experience::none;
       },
       job_kind::lora, {"gpu", "dual_track", "trainium_pilot"}},
      {"baseline first over dual track",
       [](p_t& p) {
         p.agreed_metrics = false;
         p.cost_of_error = error_cost::high;
         p.team_neuron_experience = neuron_experience::none;
       },
       job_kind::full, {"gpu_baseline_first", "dual_track", "trainium_after_checks"}},
      {"dual track over after checks",
       [](p_t& p) {
         p.cost_of_error = error_cost::high;
         p.team_neuron_experience = neuron_experience::none;
       },
       job_kind::full, {"dual_track", "trainium_after_checks"}},
      {"baseline first over after checks", [](p_t& p) { p.agreed_metrics = false; }, job_kind::full,
       {"gpu_baseline_first", "trainium_after_checks"}},
      {"baseline first over pilot", [](p_t& p) { p.agreed_metrics = false; }, job_kind::continued,
       {"gpu_baseline_first", "trainium_pilot"}},
      {"gpu over after checks", [](p_t& p) { p.manual_compiler_tuning = true; }, job_kind::full,
       {"gpu", "trainium_after_checks"}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    project_facts p = pilot_project();
    c.change(p);
    const advice a = advise(p, c.kind);
    CHECK(codes(a) == c.fired);
    CHECK(code_of(a.what) == c.fired.front());
    for (const auto& r : a.rules) CHECK_FALSE(r.because.empty());
  }
}

TEST_CASE("the advisor says which facts fired a rule, and the seed's score", "[decisions][advisor]") {
  project_facts p = pilot_project();
  p.custom_cuda_extensions = true;
  p.architecture_changes = change_rate::frequent;
  const advice a = advise(p, job_kind::lora);
  REQUIRE(a.rules.size() == 1);
  CHECK(a.rules[0].because == "architecture_changes is frequent, custom_cuda_extensions is true");
  CHECK(a.score == 2);
  CHECK(advise(pilot_project(), job_kind::lora).score == 4);
  CHECK_FALSE(advise(pilot_project(), job_kind::full).score.has_value());
  CHECK(std::string(label_of(recommendation::trainium_pilot)) == "Pilot the job on Trainium");
}

TEST_CASE("the facts come from a scenario's project block, every missing one listed", "[decisions][advisor]") {
  const std::string head = R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 1}, "prices": {"node_hour_usd": 1}, )";
  const auto s = scenario::from_text(head + R"("project": {"architecture_changes": "rare",
    "experimental_ops": false, "custom_cuda_extensions": false, "fast_debug_loop": false,
    "mixed_nonstandard_models": false, "manual_compiler_tuning": false, "team_neuron_experience": "some",
    "error_cost": "high", "agreed_metrics": true, "training_cycle": "long"}})");
  const project_facts p = project_facts::from_scenario(s);
  CHECK(p.training_cycle == cycle_length::long_);
  CHECK(p.cost_of_error == error_cost::high);
  CHECK(code_of(advise(p, job_kind::lora).what) == std::string("trainium_pilot"));
  // "short" and "long" are spelt without the enumerators' underscore.
  CHECK(name_of_choice(cycle_length::short_) == "short");
  const auto partial = scenario::from_text(head + R"("project": {"architecture_changes": "rare"}})");
  try {
    project_facts::from_scenario(partial);
    FAIL("no error");
  } catch (const input_error& e) {
    CHECK(e.problems().size() == 9);
    CHECK_THAT(e.problems().front(), test::contains("project.experimental_ops: required to advise"));
  }
  CHECK_THROWS_WITH(scenario::from_text(head + R"("project": {"training_cycle": "lengthy"}})"),
                    test::contains("project.training_cycle: must be one of short, long"));
}

}  // namespace test_advisor

namespace test_advisor {

TEST_CASE("the facts come from a project object too, every problem listed", "[decisions][advisor]") {
  const auto facts = project_facts::from_json(ordered_json::parse(R"({"architecture_changes": "frequent",
    "experimental_ops": false, "custom_cuda_extensions": false, "fast_debug_loop": false,
    "mixed_nonstandard_models": false, "manual_compiler_tuning": false, "team_neuron_experience": "none",
    "error_cost": "low", "agreed_metrics": true, "training_cycle": "short"})"));
  CHECK(code_of(advise(facts, job_kind::lora).what) == std::string("gpu"));
  try {
    project_facts::from_json(ordered_json::parse(R"({"architecture_change": "rare", "experimental_ops": "no",
      "custom_cuda_extensions": false, "fast_debug_loop": false, "mixed_nonstandard_models": false,
      "manual_compiler_tuning": false, "team_neuron_experience": "expert", "error_cost": "low",
      "agreed_metrics": true, "training_cycle": "long"})"));
    FAIL("no error");
  } catch (const input_error& e) {
    const auto& p = e.problems();
    REQUIRE(p.size() == 4);
    CHECK_THAT(p[0], test::contains("project.architecture_change: unknown fact (did you mean architecture_changes?)"));
    CHECK_THAT(p[1], test::contains("project.architecture_changes: required to advise"));
    CHECK_THAT(p[2], test::contains("project.experimental_ops: must be true or false, got \"no\""));
    CHECK_THAT(p[3], test::contains("project.team_neuron_experience: must be one of none, some, experienced"));
  }
}

}  // namespace test_advisor
