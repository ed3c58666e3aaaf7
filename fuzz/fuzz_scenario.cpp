// libFuzzer target: scenario JSON text -> scenario -> a short simulation (docs/reliability.md).
// Every input must load or be refused with an input_error: any other exception, a crash, a
// leak, a hang or a sanitizer report is a finding. A scenario that loads must survive a save
// and reload unchanged, and its simulation must keep the invariants that a silently wrong
// number would break: the phases sum to wall_h, no time or count is negative, goodput lies
// in [0, 1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/scenario/completeness.hpp"

using namespace trnmodel;

namespace {

// The hardware profiles shipped with the Python package, so that derived throughput modes
// (flops, analytic, extrapolated) are reachable.
profile_library shipped_profiles() {
  profile_library library;
  const std::filesystem::path dir = std::filesystem::path(TRNMODEL_SOURCE_DIR) / "python" / "trnmodel" / "profiles";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    library[entry.path().stem().string()] = ordered_json::parse(text.str());
  }
  return library;
}

void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_scenario", what, text); }

void check_invariants(const run_result& r, const std::string& text) {
  const auto& v = r.values();
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    const double wall = v(i, metric::wall_h);
    if (std::isnan(wall)) continue;  // time inputs unknown (allow_unknown)
    require(std::isfinite(wall) && wall >= 0, "wall_h is not a finite non-negative time", text);
    double sum = 0;
    for (const metric::id m : phase_metrics) {
      require(v(i, m) >= 0, "a phase time is negative", text);
      sum += v(i, m);
    }
    require(std::abs(sum - wall) <= 1e-9 * wall + 1e-12, "the phases do not sum to wall_h", text);
    require(v(i, metric::billed_h) >= 0 && v(i, metric::billed_h) <= wall * (1 + 1e-12), "billed_h outside [0, wall_h]",
            text);
    require(v(i, metric::failures) >= 0 && v(i, metric::recompiles) >= 0, "a negative count", text);
    require(v(i, metric::goodput) >= 0 && v(i, metric::goodput) <= 1 + 1e-12, "goodput outside [0, 1]", text);
    // A multi-stage job: the stages' wall times sum to the job's.
    double stages_wall = 0;
    bool staged = false;
    for (std::size_t k = metric::count; k < r.names().size(); ++k)
      if (unstaged(r.names()[k]) == "wall_h") {
        staged = true;
        stages_wall += v(i, static_cast<Eigen::Index>(k));
      }
    require(!staged || std::abs(stages_wall - wall) <= 1e-9 * wall + 1e-12, "the stages do not sum to wall_h", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const profile_library profiles = shipped_profiles();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const scenario s = scenario::from_text(text, profiles);
    const scenario again = scenario::from_json(s.to_json(), profiles);
    require(again.to_json() == s.to_json(), "save and reload changed the scenario", text);
    // Completeness per stage: a phase is "not described" exactly when an input is missing.
    for (const auto& p : completeness(s))
      require(p.missing.empty() == (p.status != phase_status::not_described),
              "a phase's status disagrees with its missing inputs", text);
    unmet_expectations(s);
    run_options options;
    options.samples = 32;
    options.threads = 1;
    options.block_size = 16;
    check_invariants(simulate(s, options, true), text);
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  return 0;
}
