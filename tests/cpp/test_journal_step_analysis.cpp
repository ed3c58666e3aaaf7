// From a journal's step times to the steady-state step time
// (include/trnmodel/calibrate/step_analysis.hpp), against the figures docs/journal.md states.
#include "journal_examples.hpp"
#include "trnmodel/calibrate/step_analysis.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_step_analysis {

TEST_CASE("the step analysis of the examples reproduces docs/journal.md", "[journal][steady]") {
  // docs/journal.md: warm-ups of 35, 30 and 25 steps (≈ 60 s each), 20 steps (37 s) after
  // trial 002's restart; t̄_eff 3.761 ± 0.017, 3.879 ± 0.019, 3.812 ± 0.018 s; t = 3.701,
  // 3.782, 3.743 s after the data-wait correction.
  const double mean[] = {3.761, 3.879, 3.812}, half[] = {0.017, 0.019, 0.018}, t[] = {3.701, 3.782, 3.743};
  const std::size_t warm[] = {35, 30, 25};
  for (int trial = 1; trial <= 3; ++trial) {
    const auto a = analyze_steps(example(trial));
    const auto k = static_cast<std::size_t>(trial - 1);
    INFO("trial " << trial);
    CHECK(a.segments.front().warmup_values == warm[k]);
    CHECK_THAT(a.segments.front().warmup_excess_s, WithinAbs(61, 3));
    CHECK_THAT(a.steady_mean_s, WithinAbs(mean[k], 0.0005));
    CHECK_THAT((a.ci_hi_s - a.ci_lo_s) / 2, WithinAbs(half[k], 0.0005));
    CHECK_THAT(a.step_time_s, WithinAbs(t[k], 0.0005));
    CHECK_THAT(a.step_time_s, WithinRel(a.steady_mean_s * (1 - a.data_wait_fraction), 1e-15));
  }
  const auto a2 = analyze_steps(example(2));
  REQUIRE(a2.segments.size() == 2);
  CHECK(a2.segments[0].values == 347);
  CHECK(a2.segments[1].values == 400);
  CHECK(a2.segments[1].warmup_values == 20);
  CHECK_THAT(a2.segments[1].warmup_excess_s, WithinAbs(37.3, 0.1));
}

TEST_CASE("segments follow the interruptions when the series has no step numbers", "[journal][steady]") {
  // Trial 002's series inline: the segment boundary then comes from the interruption
  // (step 347, restored from 200), and the analysis is the same as with the step column.
  const journal from_file = example(2);
  ordered_json doc = example_json(2);
  doc["step_times"] = ordered_json{{"unit", "ms"}, {"values", ordered_json::array()}};
  for (double t : from_file.step_times_s) doc["step_times"]["values"].push_back(t * 1000);
  const journal inline_ms = journal::from_json(doc, journal_dir);
  CHECK(inline_ms.warnings.empty());
  const auto a = analyze_steps(inline_ms), b = analyze_steps(from_file);
  REQUIRE(a.segments.size() == 2);
  CHECK(a.segments[0].values == 347);
  CHECK(a.segments[1].warmup_values == b.segments[1].warmup_values);
  CHECK_THAT(a.steady_mean_s, WithinRel(b.steady_mean_s, 1e-12));
}

}  // namespace test_journal_step_analysis
