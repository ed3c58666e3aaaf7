// Trial-run journals (DESIGN §10, docs/journal.md): the loader's field and cross-field rules,
// its warnings, the step-time file (CSV, .npy, SHA-256), timestamps, and what the bundled
// example journals give: warm-up, steady state and the calibrated inputs, each checked
// against an independent computation or the figures docs/journal.md states.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>

#include "catch.hpp"
#include "trnmodel/calibrate/backtest.hpp"
#include "trnmodel/calibrate/calibrate.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/sha256.hpp"
#include "trnmodel/random/philox.hpp"

using namespace trnmodel;
using namespace trnmodel::calibrate;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

const std::filesystem::path examples = std::filesystem::path(TRNMODEL_SOURCE_DIR) / "examples";
const std::filesystem::path journal_dir = examples / "journals";

journal example(int trial) {
  return journal::from_file(journal_dir / ("llama3-8b-lora-trn2-trial-00" + std::to_string(trial) + ".json"));
}

json example_json(int trial) {
  std::ifstream in(journal_dir / ("llama3-8b-lora-trn2-trial-00" + std::to_string(trial) + ".json"));
  return json::parse(in);
}

std::string journal_error(const json& doc, const std::filesystem::path& directory = journal_dir) {
  try {
    journal::from_json(doc, directory);
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> journal_warnings(const json& doc) { return journal::from_json(doc, journal_dir).warnings; }

bool any_contains(const std::vector<std::string>& messages, const std::string& text) {
  for (const auto& m : messages)
    if (m.find(text) != std::string::npos) return true;
  return false;
}

// A scratch directory for step-time files, removed at the end of the test.
struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() : path(std::filesystem::temp_directory_path() / ("trnmodel-journal-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
  }
};

// Trial 001 with its inline series replaced by a file reference.
json with_file(const json& fields) {
  json doc = example_json(1);
  doc["step_times"] = json{{"unit", "s"}};
  for (const auto& [key, value] : fields.items()) doc["step_times"][key] = value;
  return doc;
}

std::string csv_of(const std::vector<double>& values) {
  std::string text = "step,step_time_s\n";
  for (std::size_t i = 0; i < values.size(); ++i) text += std::to_string(i + 1) + "," + format_number(values[i]) + "\n";
  return text;
}

}  // namespace

TEST_CASE("SHA-256 known answers (FIPS 180-4 examples)", "[journal][sha256]") {
  CHECK(detail::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(detail::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding needs a second block.
  CHECK(detail::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(detail::sha256_hex(std::string(1000, 'a')) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST_CASE("RFC 3339 timestamps are instants; dates are real calendar days", "[journal][time]") {
  // Epoch seconds from Python's datetime(…, tzinfo=timezone.utc).timestamp().
  CHECK(*detail::parse_timestamp("2026-11-17T08:12:04Z") == 1794903124.0);
  CHECK(*detail::parse_timestamp("2026-11-17T03:12:04-05:00") == 1794903124.0);
  CHECK(*detail::parse_timestamp("2026-11-17T09:42:04+01:30") == 1794903124.0);
  CHECK(*detail::parse_timestamp("2024-02-29T23:59:59Z") == 1709251199.0);
  CHECK(*detail::parse_timestamp("1969-12-31T00:00:00Z") == -86400.0);
  CHECK(*detail::parse_timestamp("2026-11-17T08:12:04.25Z") == 1794903124.25);
  CHECK_FALSE(detail::parse_timestamp("2026-11-17T08:12:04"));     // no zone: instant unknown
  CHECK_FALSE(detail::parse_timestamp("2026-02-29T00:00:00Z"));    // not a leap year
  CHECK_FALSE(detail::parse_timestamp("2026-11-17T24:00:00Z"));
  CHECK_FALSE(detail::parse_timestamp("2026-11-17"));
  CHECK(detail::is_iso_date("2000-02-29"));
  CHECK_FALSE(detail::is_iso_date("1900-02-29"));
}

TEST_CASE("the bundled journals load without warnings", "[journal]") {
  for (int trial = 1; trial <= 3; ++trial) {
    const journal j = example(trial);
    INFO(j.experiment_id);
    CHECK(j.warnings.empty());
    CHECK(j.training.steps_completed == 600);
  }
  const journal j2 = example(2);
  CHECK(j2.step_times_s.size() == 747);  // 600 + 147 redone steps, from the CSV file
  CHECK(j2.step_numbers.size() == 747);
  CHECK(j2.step_numbers[347] == 201);  // redone steps restart after the step-200 checkpoint
  REQUIRE(j2.interruptions.size() == 1);
  CHECK(j2.interruptions[0].node_failure());
}

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
  json doc = example_json(2);
  doc["step_times"] = json{{"unit", "ms"}, {"values", json::array()}};
  for (double t : from_file.step_times_s) doc["step_times"]["values"].push_back(t * 1000);
  const journal inline_ms = journal::from_json(doc, journal_dir);
  CHECK(inline_ms.warnings.empty());
  const auto a = analyze_steps(inline_ms), b = analyze_steps(from_file);
  REQUIRE(a.segments.size() == 2);
  CHECK(a.segments[0].values == 347);
  CHECK(a.segments[1].warmup_values == b.segments[1].warmup_values);
  CHECK_THAT(a.steady_mean_s, WithinRel(b.steady_mean_s, 1e-12));
}

TEST_CASE("bad journals are refused with the field, the value and the rule", "[journal][errors]") {
  struct bad_case {
    const char* what;
    void (*mutate)(json&);
    const char* message;
  };
  const bad_case cases[] = {
      {"wrong schema", [](json& d) { d["schema"] = "trnmodel.journal/2"; }, "schema: must be \"trnmodel.journal/1\""},
      {"missing section", [](json& d) { d.erase("billed"); }, "billed: required key is missing"},
      {"unknown key", [](json& d) { d["phases"]["compile_cache_hits"] = true; },
       "phases.compile_cache_hits: unknown key (did you mean compile_cache_hit?)"},
      {"negative duration", [](json& d) { d["phases"]["compile_s"] = -5; }, "phases.compile_s: must be ≥ 0, got -5"},
      {"completed above planned", [](json& d) { d["training"]["steps_completed"] = 700; },
       "training.steps_completed: must be ≤ training.effective_steps_planned (600), got 700"},
      {"timestamp without zone", [](json& d) { d["started_at"] = "2026-11-17T08:12:04"; },
       "started_at: must be an RFC 3339 timestamp with a time zone"},
      {"end before start", [](json& d) { d["ended_at"] = "2026-11-17T08:00:00Z"; }, "ended_at: must be later than started_at"},
      {"non-monotone checkpoints", [](json& d) { std::swap(d["checkpoints"][0]["at"], d["checkpoints"][1]["at"]); },
       "checkpoints[1].at: must be later than the previous entry's at"},
      {"event outside the run", [](json& d) { d["evaluations"][0]["at"] = "2026-11-18T00:00:00Z"; },
       "evaluations[0].at: must lie between started_at and ended_at"},
      {"fraction above 1", [](json& d) { d["utilisation"]["data_wait_fraction"] = 1.5; },
       "utilisation.data_wait_fraction: must be in [0, 1], got 1.5"},
      {"step time 0", [](json& d) { d["step_times"]["values"][3] = 0; },
       "step_times.values[3]: a step time must be > 0, got 0"},
      {"lora without rank", [](json& d) { d["training"].erase("lora_rank"); }, "training.lora_rank: required key is missing"},
      {"both SDKs", [](json& d) { d["versions"]["cuda"] = "12.8"; }, "versions: must name exactly one of neuron_sdk and cuda, got both"},
      {"batch arithmetic", [](json& d) { d["training"]["global_batch"] = 32; },
       "training.global_batch: must equal micro_batch × dp × gradient_accumulation (64), got 32"},
      {"bad checksum", [](json& d) { d["checkpoints"][0]["checksum"] = "f5b31cee"; }, "checkpoints[0].checksum: must be algorithm:digest"},
      {"wrong type", [](json& d) { d["instance"]["nodes"] = "one"; }, "instance.nodes: must be a number, got \"one\""},
      {"fractional count", [](json& d) { d["instance"]["nodes"] = 1.5; }, "instance.nodes: must be an integer, got 1.5"},
      {"enum", [](json& d) { d["training"]["precision"] = "bf61"; }, "training.precision: must be one of bf16, fp8, fp32, got \"bf61\" (did you mean bf16?)"},
      {"misspelt required key", [](json& d) {
         d["phases"]["compile_cache_hits"] = d["phases"]["compile_cache_hit"];
         d["phases"].erase("compile_cache_hit");
       },
       "phases.compile_cache_hit: required key is missing (found compile_cache_hits, a misspelling?)"},
      {"checkpoint beyond the run", [](json& d) { d["checkpoints"][2]["step"] = 601; },
       "checkpoints[2].step: must be ≤ training.steps_completed (600), got 601"},
  };
  for (const auto& c : cases) {
    json doc = example_json(1);
    c.mutate(doc);
    INFO(c.what);
    CHECK_THAT(journal_error(doc), test::contains(c.message));
  }
}

TEST_CASE("interruption rules", "[journal][errors]") {
  const json good = example_json(2);
  json doc = good;
  doc["interruptions"][0]["restored_from_step"] = 300;  // no checkpoint at step 300
  CHECK_THAT(journal_error(doc), test::contains("interruptions[0].restored_from_step: names no checkpoint listed before the interruption, got 300"));
  doc = good;
  doc["interruptions"][0]["redone_steps"] = 400;
  CHECK_THAT(journal_error(doc), test::contains("interruptions[0].redone_steps: must be ≤ its step (347), got 400"));
  doc = good;
  doc["interruptions"][0]["recovered"] = false;
  CHECK_THAT(journal_error(doc), test::contains("interruptions[0].redone_steps: must be 0 for an unrecovered interruption"));
  doc = good;
  doc["interruptions"][0]["redone_steps"] = 140;
  CHECK(any_contains(journal_warnings(doc), "interruptions[0].redone_steps: expected step − restored_from_step = 147, got 140"));
  doc = good;
  doc["interruptions"][0]["restart_s"] = 1000;
  CHECK(any_contains(journal_warnings(doc), "exceed recovery_s"));
}

TEST_CASE("usable but odd journals load with warnings", "[journal][warnings]") {
  json doc = example_json(1);
  doc["phases"]["training_s"] = 3550.7;  // 1000 s more than the listed steps, saves and evals
  auto w = journal_warnings(doc);
  CHECK(any_contains(w, "phases: the phases sum to"));
  CHECK(any_contains(w, "phases.training_s: 3550.7 s, but the steps, saves, evaluations and recoveries listed account for"));
  doc = example_json(1);
  doc.erase("utilisation");
  doc.erase("quality");
  w = journal_warnings(doc);
  CHECK(any_contains(w, "utilisation: absent"));
  CHECK(any_contains(w, "quality: absent"));
  doc = example_json(1);
  doc["quality"]["achieved"] = 1.5;  // above the 1.39 target, lower is better, yet "passed"
  CHECK(any_contains(journal_warnings(doc), "quality.passed: true, but achieved 1.5 against target 1.39"));
  doc = example_json(1);
  doc["billed"]["node_hours"] = 2.0;
  CHECK(any_contains(journal_warnings(doc), "billed.node_hours: 2, but nodes × billed time is"));
  doc = example_json(1);
  doc["training"]["effective_steps_planned"] = 800;
  CHECK(any_contains(journal_warnings(doc), "training.steps_completed: 600 of 800 planned"));
  doc = example_json(1);
  doc["step_times"]["values"].erase(doc["step_times"]["values"].begin());
  CHECK(any_contains(journal_warnings(doc), "step_times: 599 values, expected"));
}

TEST_CASE("step-time files: CSV, .npy, SHA-256 and where they may lie", "[journal][files]") {
  const scratch_dir dir;
  const std::vector<double> values = example(1).step_times_s;
  const std::string csv = csv_of(values);
  dir.write("steps.csv", csv);
  std::filesystem::copy_file(journal_dir / "llama3-8b-lora-trn2-trial-001.json", dir.path / "j.json");

  const journal loaded = journal::from_json(with_file({{"file", "steps.csv"}, {"column", "step_time_s"},
                                                       {"step_column", "step"}, {"sha256", detail::sha256_hex(csv)},
                                                       {"count", 600}}),
                                            dir.path);
  CHECK(loaded.step_times_s == values);
  CHECK(loaded.warnings.empty());

  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}, {"column", "t"}}), dir.path),
             test::contains("has no column \"t\" (its columns: step, step_time_s)"));
  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}}), dir.path),
             test::contains("step_times.column: required key is missing"));
  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}, {"column", "step_time_s"}, {"sha256", std::string(64, '0')}}), dir.path),
             test::contains("step_times.sha256: the file's SHA-256 is " + detail::sha256_hex(csv)));
  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}, {"column", "step_time_s"}, {"count", 601}}), dir.path),
             test::contains("step_times.count: the file holds 600 values, the journal says 601"));
  CHECK_THAT(journal_error(with_file({{"file", "../steps.csv"}, {"column", "step_time_s"}}), dir.path),
             test::contains("step_times.file: must be a path relative to the journal's directory without \"..\""));
  CHECK_THAT(journal_error(with_file({{"file", "/etc/passwd"}, {"column", "x"}}), dir.path),
             test::contains("step_times.file: must be a path relative"));
  CHECK_THAT(journal_error(with_file({{"file", "missing.csv"}, {"column", "x"}}), dir.path),
             test::contains("step_times.file: no such file"));
  CHECK_THAT(journal_error(with_file({{"values", {1.0}}, {"file", "steps.csv"}}), dir.path),
             test::contains("step_times: must have exactly one of values and file, got both"));
  dir.write("bad.csv", "step,step_time_s\n1,3.5\n2,abc\n");
  CHECK_THAT(journal_error(with_file({{"file", "bad.csv"}, {"column", "step_time_s"}}), dir.path),
             test::contains("line 3, column step_time_s: must be a finite number, got \"abc\""));
  // A link that leads outside the journal's directory is refused after resolving it.
  std::filesystem::create_directories(dir.path / "inner");
  std::filesystem::create_symlink(dir.path / "steps.csv", dir.path / "inner" / "link.csv");
  CHECK_THAT(journal_error(with_file({{"file", "link.csv"}, {"column", "step_time_s"}}), dir.path / "inner"),
             test::contains("resolves outside the journal's directory"));

  // .npy, version 1.0, little-endian float64: the same values in milliseconds.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size() & 0xff);
  npy += static_cast<char>(header.size() >> 8);
  npy += header;
  for (double v : values) {
    const double ms = v * 1000;
    npy.append(reinterpret_cast<const char*>(&ms), sizeof ms);
  }
  dir.write("steps.npy", npy);
  json doc = with_file({{"file", "steps.npy"}});
  doc["step_times"]["unit"] = "ms";
  const journal from_npy = journal::from_json(doc, dir.path);
  REQUIRE(from_npy.step_times_s.size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) CHECK_THAT(from_npy.step_times_s[i], WithinRel(values[i], 1e-15));
  dir.write("short.npy", npy.substr(0, npy.size() - 8));
  CHECK_THAT(journal_error(with_file({{"file", "short.npy"}}), dir.path), test::contains("data bytes, expected 4800"));
  CHECK_THAT(journal_error(with_file({{"file", "steps.npy"}, {"column", "x"}}), dir.path),
             test::contains("step_times.column: not allowed for a .npy file"));
}

TEST_CASE("strict JSON: syntax with line and column, duplicate keys", "[journal][errors]") {
  try {
    journal::from_text("{\n  \"schema\": \"trnmodel.journal/1\",\n  \"experiment_id\" 5\n}");
    FAIL("accepted bad JSON");
  } catch (const input_error& e) {
    CHECK_THAT(e.what(), test::contains("journal: JSON parse error at line 3"));
  }
  try {
    journal::from_text(R"({"schema": "trnmodel.journal/1", "phases": {"queue_s": 1, "queue_s": 2}})");
    FAIL("accepted a duplicate key");
  } catch (const input_error& e) {
    CHECK_THAT(e.what(), test::contains("phases.queue_s: duplicate key"));
  }
}

TEST_CASE("calibration of the example scenario from the three journals", "[journal][calibrate]") {
  const std::vector<journal> journals{example(1), example(2), example(3)};
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const auto r = calibrate::calibrate(journals, base);
  const auto input = [&](const std::string& path) -> const calibrated_input& {
    for (const auto& in : r.inputs)
      if (in.path == path) return in;
    FAIL("no calibrated input " << path);
    throw;
  };
  REQUIRE(r.warnings.size() == 1);  // the inputs from 2–9 values keep only the spread the runs showed
  CHECK_THAT(r.warnings[0], test::contains("fewer than 10 values: throughput.step_time_s"));
  CHECK(input("checkpoint.load_s").values.size() == 4);  // trial 002's recovery load is on its checkpoint too: once

  // Step time: the per-run values themselves (three runs → empirical), tagged measured.
  const auto& step = input("throughput.step_time_s");
  CHECK(step.status == "measured");
  CHECK(step.method == "empirical");
  REQUIRE(step.values.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(step.values[k] == r.step_analyses[k].step_time_s);
  const quantity& calibrated_step = r.calibrated.q("throughput.step_time_s");
  CHECK(calibrated_step.prov().source == "measured");
  CHECK_THAT(calibrated_step.prov().note, test::contains("llama3-8b-lora-trn2-trial-002"));
  CHECK_THAT(calibrated_step.ppf(0.0), WithinRel(3.7012, 1e-4));
  CHECK_THAT(calibrated_step.ppf(1.0), WithinRel(3.7817, 1e-4));

  // Cache hits: 2 warm starts + 1 recovery hit; trial 001's cold start is not a trial.
  const auto* hit = std::get_if<dist::beta>(&r.calibrated.q("compile.cache_hit_prob").dist());
  REQUIRE(hit != nullptr);
  CHECK(hit->a == 21);
  CHECK(hit->b == 2);

  // Failure rate: the base MTBF lognormal(p50 6150, p90 10250) moment-matched on λ = 1/MTBF
  // in closed form (λ is lognormal with σ = ln(10250/6150)/z₀.₉), against the quadrature.
  const double sigma = std::log(10250.0 / 6150.0) / 1.2815515655446004;
  const double mean_rate = std::exp(sigma * sigma / 2) / 6150, var_rate = mean_rate * mean_rate * std::expm1(sigma * sigma);
  const double a0 = mean_rate * mean_rate / var_rate, b0 = mean_rate / var_rate;
  CHECK_THAT(a0, WithinAbs(5.81, 0.005));
  const double exposure = 1.4539 + 1.4464 + 1.0494;
  const boost::math::gamma_distribution<double> posterior(a0 + 1, 1 / (b0 + exposure));
  const quantity& mtbf = r.calibrated.q("failures.node_mtbf_h");
  CHECK(mtbf.prov().source == "measured");
  CHECK_THAT(mtbf.ppf(0.5), WithinRel(1 / boost::math::quantile(posterior, 0.5), 1e-6));
  CHECK_THAT(mtbf.ppf(0.9), WithinRel(1 / boost::math::quantile(posterior, 0.1), 1e-6));

  // Measured once: the base is kept; the restart warm-up (37 s) is below the base's P5.
  CHECK(input("compile.initial_s").status == "kept");
  CHECK(input("compile.initial_s").values == std::vector<double>{1630.3});
  CHECK(input("failures.warmup_s").status == "flagged");
  CHECK(r.calibrated.q("compile.initial_s").prov().source == "assumption");
  const auto& x = journals[1].interruptions.at(0);
  CHECK(input("failures.restart_s").values == std::vector<double>{x.detection_s + *x.restart_s});

  // Everything measured is tagged; the unmeasured uncertain inputs keep the base's values.
  for (const auto& in : r.inputs)
    if (in.status == "measured") CHECK(r.calibrated.q(in.path).prov().source == "measured");
  CHECK(std::find(r.unmeasured.begin(), r.unmeasured.end(), "job.effective_steps") != r.unmeasured.end());
  CHECK(r.calibrated.q("job.effective_steps").ppf(0.5) == base.q("job.effective_steps").ppf(0.5));
}

TEST_CASE("one run: the step time's spread is its batch-means interval", "[journal][calibrate]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const auto r = calibrate::calibrate({example(3)}, base);
  const quantity& step = r.calibrated.q("throughput.step_time_s");
  const auto& a = r.step_analyses.at(0);
  CHECK(step.prov().source == "measured");
  CHECK_THAT(step.ppf(0.5), WithinRel(a.step_time_s, 1e-12));
  // The 95 % interval of the quantity is the batch-means interval, scaled by (1 − data wait).
  CHECK_THAT(step.ppf(0.975) - step.ppf(0.025), WithinRel((a.ci_hi_s - a.ci_lo_s) * (1 - a.data_wait_fraction), 1e-9));
  CHECK(std::any_of(r.warnings.begin(), r.warnings.end(),
                    [](const std::string& w) { return w.find("from one run") != std::string::npos; }));
}

TEST_CASE("journals of another platform are refused", "[journal][calibrate]") {
  const auto p5 = scenario::from_file((examples / "llama3-8b-lora-p5.json").string());
  CHECK_THROWS_WITH(calibrate::calibrate({example(1)}, p5),
                    test::contains("instance.type: the journals ran on trn2.48xlarge, the scenario is on p5.48xlarge"));
}

TEST_CASE("pooling rules: one configuration, each run once", "[journal][calibrate]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  CHECK_THROWS_WITH(calibrate::calibrate({example(1), example(1)}, base),
                    test::contains("experiment_id llama3-8b-lora-trn2-trial-001 appears twice"));
  json doc = example_json(3);
  doc["training"]["tp"] = 8;
  doc["training"]["dp"] = 8;
  doc["training"]["gradient_accumulation"] = 8;  // the same global batch, 64
  const journal other = journal::from_json(doc, journal_dir);
  CHECK_THROWS_WITH(calibrate::calibrate({example(1), other}, base),
                    test::contains("training.tp: llama3-8b-lora-trn2-trial-003 has 8, llama3-8b-lora-trn2-trial-001 has 4"));
  CHECK_THROWS_WITH(calibrate::calibrate({}, base), test::contains("journals: must hold at least one journal"));
}

TEST_CASE("backtest: the trial scenario and percentiles", "[journal][backtest]") {
  const auto base = scenario::from_file((examples / "llama3-8b-lora-trn2.json").string());
  const journal j = example(2);
  std::vector<std::string> notes;
  const scenario trial = trial_scenario(base, j, &notes);
  CHECK(trial.q("job.effective_steps").ppf(0.5) == 600);
  CHECK(trial.q("checkpoint.every_steps").ppf(0.5) == 200);
  CHECK(trial.q("eval.every_steps").ppf(0.5) == 200);
  CHECK(trial.q("eval.final_s").ppf(0.5) == 336.0);
  CHECK(trial.q("quality.rerun_prob").ppf(0.5) == 0);
  CHECK(quantity_to_json(trial.q("compile.initial_s")) == quantity_to_json(base.q("compile.cache_load_s")));

  run_options options;
  options.samples = 4000;
  options.seed = 3;
  const auto r = backtest(base, j, options);
  const auto& wall = r.row("wall_h");
  CHECK_THAT(wall.observed, WithinRel((j.duration_s() - 63.4) / 3600, 1e-12));
  CHECK(wall.percentile >= 0);
  CHECK(wall.percentile <= 1);
  CHECK(wall.predicted_p10 <= wall.predicted_p50);
  CHECK(wall.predicted_p50 <= wall.predicted_p90);
  // The percentile agrees with the quantiles: below p10 ⇒ percentile ≤ 0.1, and so on.
  for (const auto& row : r.rows) {
    INFO(row.metric);
    if (row.observed < row.predicted_p10) CHECK(row.percentile <= 0.1 + 1e-9);
    if (row.observed > row.predicted_p90) CHECK(row.percentile >= 0.9 - 1e-9);
  }
  CHECK(r.row("failures").observed == 1);
  CHECK_THAT(r.row("checkpoint_h").observed, WithinRel((13.7 + 2.5 + 18.9 + 3.1 + 15.0 + 2.7) / 3600, 1e-12));
  CHECK_THAT(r.row("compile_h").observed, WithinRel((133.2 + 94.0) / 3600, 1e-12));  // start + the recovery's cache load
  CHECK_THAT(r.row("eval_h").observed, WithinRel((59.1 + 61.9 + 60.4 + 336.0) / 3600, 1e-12));
  options.samples = 10;
  CHECK_THROWS_WITH(backtest(base, j, options), test::contains("samples: must be ≥ 1000 for a backtest, got 10"));
  json doc = example_json(2);
  doc["instance"]["nodes"] = 2;
  doc["instance"].erase("ranks_per_node");
  doc["billed"]["node_hours"] = 2 * 1.4464;
  CHECK_THROWS_WITH(trial_scenario(base, journal::from_json(doc, journal_dir)),
                    test::contains("instance.nodes: llama3-8b-lora-trn2-trial-002 ran on 2 node(s), the scenario on 1"));
}

TEST_CASE("PIT uniformity test", "[journal][backtest]") {
  std::vector<double> uniform_values, skewed;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const double u = uniform(7, i, 1, 0);
    uniform_values.push_back(u);
    skewed.push_back(u * u);  // too many low percentiles: predictions biased high
  }
  CHECK(test_pit_uniformity(uniform_values).p_value > 0.01);
  CHECK(test_pit_uniformity(skewed).p_value < 1e-6);
  CHECK_THROWS_WITH(test_pit_uniformity({0.5, 1.5}), test::contains("pit[1]: must be in [0, 1], got 1.5"));
}
