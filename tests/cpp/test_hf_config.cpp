// The Hugging Face config.json reader (scenario/hf_config.hpp): the shape it reads, the
// parameter count against published counts, and the wording of every refusal.
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "trnmodel/scenario/hf_config.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_hf_config {

namespace {
std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TRNMODEL_SOURCE_DIR) + "/examples/configs/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(const std::string& text) {
  try {
    parse_hf_config(text);
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

const std::string small = R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
  "intermediate_size": 128, "vocab_size": 100)";
}  // namespace

TEST_CASE("Llama-3-8B: shape and 8.03e9 parameters (Meta model card)", "[hf_config]") {
  const hf_model m = parse_hf_config(fixture("llama3-8b.json"));
  CHECK(m.model_type == "llama");
  CHECK(m.hidden_size == 4096);
  CHECK(m.layers == 32);
  CHECK(m.heads == 32);
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(m.ffn_size == 14336);
  CHECK(m.vocab_size == 128256);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.max_position_embeddings == 8192);
  CHECK(std::abs(m.parameters() / 8.03e9 - 1) < 0.005);
  // The exact sum of the published safetensors shapes: 8,030,261,248.
  CHECK(m.parameters() == 8030261248.0);
  // LoRA rank 16 on all seven projections: 41.9M (examples/llama3-8b-lora-trn2.json).
  CHECK(m.lora_parameters(16) == 16.0 * (2 * 8192 + 2 * 5120 + 3 * 18432) * 32);
}

TEST_CASE("Llama-3-70B: 70.6e9 parameters (Meta model card)", "[hf_config]") {
  const hf_model m = parse_hf_config(fixture("llama3-70b.json"));
  CHECK(m.layers == 80);
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(std::abs(m.parameters() / 70.6e9 - 1) < 0.005);
  CHECK(m.parameters() == 70553706496.0);
}

TEST_CASE("Llama-3.2-1B: tied embeddings counted once, 1.23e9 parameters", "[hf_config]") {
  // meta-llama/Llama-3.2-1B model card: 1.23B parameters; tie_word_embeddings true.
  const hf_model m = parse_hf_config(fixture("llama3.2-1b.json"));
  CHECK(m.tied_embeddings);
  CHECK(m.head_dim == 64);
  CHECK(std::abs(m.parameters() / 1.23e9 - 1) < 0.005);
  CHECK(m.parameters() == 1235814400.0);
  hf_model untied = m;
  untied.tied_embeddings = false;
  CHECK(untied.parameters() - m.parameters() == m.embedding_parameters());
}

TEST_CASE("defaults: kv heads = heads, head size = h / heads, untied", "[hf_config]") {
  const hf_model m = parse_hf_config(small + "}");
  CHECK(m.kv_heads == 4);
  CHECK(m.head_dim == 16);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.max_position_embeddings == 0);
  // 2·V·h + L·(4h² + 3·h·f + 2h) + h
  CHECK(m.parameters() == 2 * 100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 64);
}

TEST_CASE("biases and q/k norms of Qwen-style configs are counted", "[hf_config]") {
  const hf_model plain = parse_hf_config(small + "}");
  const hf_model qwen2 = parse_hf_config(small + R"(, "model_type": "qwen2"})");
  CHECK(qwen2.parameters() - plain.parameters() == 2 * (64 + 2 * 64));
  const hf_model biased = parse_hf_config(small + R"(, "attention_bias": true})");
  CHECK(biased.parameters() - plain.parameters() == 2 * (64 + 2 * 64 + 64));
  const hf_model qwen3 = parse_hf_config(small + R"(, "model_type": "qwen3"})");
  CHECK(qwen3.parameters() - plain.parameters() == 2 * (2 * 16));
}

TEST_CASE("bad configs are refused naming the key, the value and the rule", "[hf_config]") {
  CHECK(error_of("[1]") == "config.json: must be a JSON object, got [1]");
  CHECK(error_of("{").rfind("config.json: JSON", 0) == 0);
  CHECK(error_of(R"({"hidden_size": 1, "hidden_size": 2})") ==
        "hidden_size: duplicate key (JSON parsers would silently keep one of them)");
  CHECK(error_of(R"({"num_hidden_layers": 2})") ==
        "hidden_size: required in a Llama/Mistral/Qwen-style config.json (a whole number ≥ 1), absent");
  CHECK(error_of(R"({"hidden_size": 4096.5})") == "hidden_size: must be a whole number, got 4096.5");
  CHECK(error_of(R"({"hidden_size": "4096"})") == "hidden_size: must be a whole number, got \"4096\"");
  CHECK(error_of(R"({"hidden_size": 0})") == "hidden_size: must be ≥ 1, got 0");
  CHECK(error_of(small + R"(, "num_key_value_heads": 3})") ==
        "num_key_value_heads: must divide num_attention_heads (4), got 3");
  const std::string five_heads = R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 5,
    "intermediate_size": 128, "vocab_size": 100)";
  CHECK(error_of(five_heads + "}") ==
        "num_attention_heads: must divide hidden_size (64) when head_dim is absent, got 5");
  CHECK(error_of(small + R"(, "tie_word_embeddings": 1})") == "tie_word_embeddings: must be true or false, got 1");
  CHECK(error_of(small + R"(, "model_type": "gpt_neox"})") ==
        "model_type: must be a decoder with a gated MLP whose count trnmodel knows (llama, mistral, qwen2, qwen3), "
        "got \"gpt_neox\"");
  CHECK(error_of(small + R"(, "num_local_experts": 8})") ==
        "num_local_experts: mixture-of-experts models are not supported (the count assumes one dense MLP per "
        "layer), got 8");
  CHECK(error_of(small + R"(, "mlp_bias": true})") ==
        "mlp_bias: must be false: the count assumes an MLP without biases (as Llama, Mistral and Qwen), got true");
  CHECK(error_of(small + R"(, "max_position_embeddings": -1})") ==
        "max_position_embeddings: must be ≥ 1, got -1");
  // A head size that the config states may differ from h / heads (Gemma, Qwen3).
  CHECK(error_of(five_heads + R"(, "head_dim": 16})") == "no error");
}

}  // namespace test_hf_config
