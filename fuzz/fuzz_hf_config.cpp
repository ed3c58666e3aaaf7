// libFuzzer target: Hugging Face config.json text -> model shape and parameter count
// (include/trnmodel/scenario/hf_config.hpp). Every input must be read or refused with an
// input_error; a model that is read must have a finite, positive count no smaller than its
// embedding, kv heads that divide the heads, and a finite LoRA adapter count.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "trnmodel/scenario/hf_config.hpp"

using namespace trnmodel;

namespace {
void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_hf_config", what, text); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const hf_model m = parse_hf_config(text);
    const double n = m.parameters();
    require(std::isfinite(n) && n > 0, "the parameter count is not finite and positive", text);
    require(n >= m.embedding_parameters(), "the count is smaller than the embedding", text);
    require(m.heads == m.kv_heads * std::round(m.heads / m.kv_heads), "kv heads do not divide the heads", text);
    const double lora = m.lora_parameters(16);
    require(std::isfinite(lora) && lora >= 0, "the LoRA count is not finite and non-negative", text);
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  return 0;
}
