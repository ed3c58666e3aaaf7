// The choices of the scenario format (choices.hpp): each enum's spellings, the round trip between
// them, the refusal of a misspelling, and the field table naming the same spellings.
#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "input_error_of.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"

using namespace trnmodel;

namespace test_choices {

template <class E>
void check_round_trip() {
  const auto& names = choice_names<E>();
  REQUIRE(!names.empty());
  for (std::size_t k = 0; k < names.size(); ++k) {
    const E value = parse_choice<E>("x", names[k]);
    CHECK(static_cast<std::size_t>(value) == k);
    CHECK(name_of_choice(value) == names[k]);
  }
}

TEST_CASE("each choice spells its enumerators in order, and reads them back", "[choices]") {
  CHECK(choice_names<throughput_mode>() == std::vector<std::string>{"measured", "extrapolated", "flops", "analytic"});
  CHECK(choice_names<purchase_mode>() == std::vector<std::string>{"on_demand", "capacity_block", "spot"});
  CHECK(choice_names<job_kind>() == std::vector<std::string>{"lora", "full", "continued"});
  CHECK(choice_names<recompute_kind>() == std::vector<std::string>{"none", "selective", "full"});
  CHECK(choice_names<failure_distribution>() == std::vector<std::string>{"exponential", "weibull"});
  CHECK(choice_names<compute_precision>() == std::vector<std::string>{"bf16", "fp8", "fp32"});
  CHECK(choice_names<no_choice>().empty());
  CHECK(name_of_choice(throughput_mode::flops) == "flops");
  check_round_trip<job_kind>();
  check_round_trip<recompute_kind>();
  check_round_trip<throughput_mode>();
  check_round_trip<compute_precision>();
  check_round_trip<failure_distribution>();
  check_round_trip<purchase_mode>();
  check_round_trip<change_rate>();
  check_round_trip<neuron_experience>();
  check_round_trip<error_cost>();
  check_round_trip<cycle_length>();
}

TEST_CASE("a misspelt choice is refused with the spellings and the closest one", "[choices]") {
  CHECK(test::input_error_of([] { parse_choice<throughput_mode>("throughput.mode", "analitic"); }) ==
        "throughput.mode: must be one of measured, extrapolated, flops, analytic, got \"analitic\" "
        "(did you mean analytic?)");
  CHECK(test::input_error_of([] { parse_choice<purchase_mode>("purchase", ""); }) ==
        "purchase: must be one of on_demand, capacity_block, spot, got \"\"");
}

TEST_CASE("the field table's choice fields allow exactly their enum's spellings", "[choices]") {
  CHECK(spec(field::throughput_mode).choices == choice_names<throughput_mode>());
  CHECK(spec(field::prices_purchase).choices == choice_names<purchase_mode>());
  CHECK(spec(field::job_kind).choices == choice_names<job_kind>());
  CHECK(spec(field::job_recompute).choices == choice_names<recompute_kind>());
  CHECK(spec(field::failures_distribution).choices == choice_names<failure_distribution>());
  CHECK(spec(field::throughput_precision).choices == choice_names<compute_precision>());
  int choice_fields = 0;
  for (const auto& f : scenario_fields()) {
    if (f.kind != field_kind::choice) {
      CHECK(f.choices.empty());
      continue;
    }
    ++choice_fields;
    // The default, a JSON string, is one of the spellings; a project fact has none (stated or absent).
    if (f.default_value.empty()) {
      CHECK(f.path.rfind("project.", 0) == 0);
      continue;
    }
    const std::string plain = f.default_value.substr(1, f.default_value.size() - 2);
    CHECK(std::find(f.choices.begin(), f.choices.end(), plain) != f.choices.end());
  }
  CHECK(choice_fields == 10);
}

TEST_CASE("a scenario answers its choices as enums", "[choices]") {
  const scenario s = scenario::from_text(R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10},
    "cluster": {"nodes": 1}, "throughput": {"step_time_s": 2}, "prices": {"purchase": "spot",
    "spot_node_hour_usd": 3}, "spot": {"interruptions_per_node_h": 0.01}})");
  CHECK(s.mode() == throughput_mode::measured);
  CHECK(s.purchase() == purchase_mode::spot);
  CHECK(s.choice<failure_distribution>(field::failures_distribution) == failure_distribution::exponential);
  CHECK(s.kind().recompute == recompute_kind::none);
  CHECK(!s.kind().lora);
}

}  // namespace test_choices
