// libFuzzer target: trial-run journal JSON text -> journal -> calibration of the bundled LoRA
// scenario (docs/reliability.md); the same text as a trial summary -> calibration. Every input must load or be refused with an input_error;
// a journal that loads must survive a save and reload unchanged, and calibrating a scenario
// from it must give a scenario that loads again. Step-time files are looked for next to the
// example journals, whose series the seeds name.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "trnmodel/calibrate/calibrate.hpp"
#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/calibrate/trial_summary.hpp"

using namespace trnmodel;
using trnmodel::calibrate::journal;

namespace {
const std::string journals = std::string(TRNMODEL_SOURCE_DIR) + "/examples/journals";

void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_journal", what, text); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const scenario base =
      scenario::from_file(std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-8b-lora-trn2.json");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const journal j = journal::from_text(text, journals);
    require(journal::from_json(j.to_json(), journals).to_json() == j.to_json(), "save and reload changed the journal",
            text);
    const auto result = calibrate::calibrate({j}, base);
    require(scenario::from_json(result.calibrated.to_json()).to_json() == result.calibrated.to_json(),
            "the calibrated scenario does not load again", text);
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  try {
    const auto summary = calibrate::trial_summary::from_text(text);
    const auto result = calibrate::calibrate(summary, base);
    require(scenario::from_json(result.calibrated.to_json()).to_json() == result.calibrated.to_json(),
            "the scenario calibrated from a summary does not load again", text);
  } catch (const input_error&) {
  }
  return 0;
}
