#pragma once
// A Hugging Face `config.json` of a Llama/Mistral/Qwen-style decoder (pre-norm blocks, a
// gated SwiGLU MLP, grouped-query attention), read into the model shape of a scenario and
// its parameter count (docs/scenario.md, "Building a scenario").
//
// The count adds, with h the hidden size, a/g the query/key-value heads, d the head size,
// f the MLP inner size, V the vocabulary and L the layers:
//   embedding                V·h (counted once when tie_word_embeddings is true)
//   per layer  q, o          h·a·d each
//              k, v          h·g·d each (grouped-query attention: g ≤ a heads)
//              gate, up, down h·f each (gated MLP)
//              two RMSNorms  2·h (and, in Qwen3, the q/k norms, 2·d)
//              biases        a·d + 2·g·d on q, k, v (Qwen2; attention_bias adds h on o too)
//   final norm               h
//   output head              V·h unless tied
// Public counts it reproduces (tests/cpp/test_hf_config.cpp): Llama-3-8B 8.03e9,
// Llama-3-70B 70.6e9, Llama-3.2-1B (tied) 1.23e9.
#include <cmath>
#include <string>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"

namespace trnmodel {

/// The model figures read from a Hugging Face config.json (docs/scenario.md). A plain value. The counts are
/// whole numbers (at most 2^53) held as doubles.
struct hf_model {
  std::string model_type;  ///< as written ("" when absent)
  double hidden_size = 0;  ///< h
  double layers = 0;  ///< L (num_hidden_layers)
  double heads = 0;  ///< a (num_attention_heads)
  double kv_heads = 0;  ///< g (num_key_value_heads; a when absent)
  double head_dim = 0;  ///< d (head_dim; h / a when absent)
  double ffn_size = 0;  ///< f (intermediate_size)
  double vocab_size = 0;  ///< V
  bool tied_embeddings = false;  ///< tie_word_embeddings (false when absent, as in LlamaConfig)
  double max_position_embeddings = 0;  ///< longest sequence the positions allow; 0 when absent
  bool attention_bias = false;  ///< biases on q, k, v and o
  bool qkv_bias = false;  ///< biases on q, k, v only (Qwen2)
  bool qk_norm = false;  ///< RMSNorm of size d on q and k in every layer (Qwen3)

  /// The input embedding, V·h (the output head is as many again unless tied).
  double embedding_parameters() const { return vocab_size * hidden_size; }

  /// One decoder layer: the attention and MLP projections, the two norms, and the q/k norms and biases the
  /// architecture has.
  double layer_parameters() const {
    const double h = hidden_size, q = heads * head_dim, kv = kv_heads * head_dim;
    double n = h * q + 2 * h * kv + q * h  // q, k, v, o
               + 3 * h * ffn_size  // gate, up, down
               + 2 * h;  // the norms before attention and before the MLP
    if (qk_norm) n += 2 * head_dim;
    if (attention_bias || qkv_bias) n += q + 2 * kv;
    if (attention_bias) n += h;
    return n;
  }

  /// Every parameter of the model, N.
  double parameters() const {
    return embedding_parameters() * (tied_embeddings ? 1 : 2) + layers * layer_parameters() + hidden_size;
  }

  /// Trainable parameters of LoRA with rank r on the seven projections of every layer:
  /// r·(inputs + outputs) each, with the k/v projections as narrow as grouped-query attention
  /// makes them.
  double lora_parameters(double rank) const {
    const double h = hidden_size, q = heads * head_dim, kv = kv_heads * head_dim;
    return layers * rank * ((h + q) * 2 + (h + kv) * 2 + 3 * (h + ffn_size));
  }
};

namespace detail {

// The value at `key` as a whole number ≥ 1, or `fallback` (0: required) when absent.
inline double hf_count(const ordered_json& config, const std::string& key, double fallback) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) {
    if (fallback > 0) return fallback;
    detail::fail(key, "required in a Llama/Mistral/Qwen-style config.json (a whole number ≥ 1), absent");
  }
  if (!it->is_number()) detail::fail(key, "must be a whole number, got " + detail::shorten(it->dump()));
  const double value = it->get<double>();
  detail::whole_number(key, value, 1);
  return value;
}

inline bool hf_flag(const ordered_json& config, const std::string& key) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return false;
  if (!it->is_boolean()) detail::fail(key, "must be true or false, got " + detail::shorten(it->dump()));
  return it->get<bool>();
}

}  // namespace detail

/// Reads a parsed config.json. Keys that do not change the shape or the count (activation,
/// rope settings, token ids, dtype...) are ignored; an architecture the count does not
/// describe (mixture of experts, an MLP without a gate) is refused by name.
inline hf_model read_hf_config(const ordered_json& config) {
  if (!config.is_object()) detail::fail("config.json", "must be a JSON object, got " + detail::shorten(config.dump()));
  hf_model m;
  if (const auto it = config.find("model_type"); it != config.end()) {
    if (!it->is_string()) detail::fail("model_type", "must be a string, got " + detail::shorten(it->dump()));
    m.model_type = it->get<std::string>();
    static const char* const gated[] = {"llama", "mistral", "qwen2", "qwen3"};
    bool known = false;
    for (const char* name : gated) known = known || m.model_type == name;
    if (!known)
      detail::fail("model_type",
                   "must be a decoder with a gated MLP whose count trnmodel knows (llama, mistral, qwen2, "
                   "qwen3), got \"" +
                       detail::shorten(m.model_type) + "\"");
  }
  for (const char* moe : {"num_local_experts", "num_experts", "n_routed_experts"})
    if (const auto it = config.find(moe); it != config.end() && !it->is_null() && !(it->is_number() && *it == 0))
      detail::fail(moe,
                   "mixture-of-experts models are not supported (the count assumes one dense MLP per layer), got " +
                       detail::shorten(it->dump()));
  m.hidden_size = detail::hf_count(config, "hidden_size", 0);
  m.layers = detail::hf_count(config, "num_hidden_layers", 0);
  m.heads = detail::hf_count(config, "num_attention_heads", 0);
  m.kv_heads = detail::hf_count(config, "num_key_value_heads", m.heads);
  m.ffn_size = detail::hf_count(config, "intermediate_size", 0);
  m.vocab_size = detail::hf_count(config, "vocab_size", 0);
  if (std::fmod(m.heads, m.kv_heads) != 0)
    detail::fail("num_key_value_heads", "must divide num_attention_heads (" + detail::format_number(m.heads) +
                                            "), got " + detail::format_number(m.kv_heads));
  if (const auto it = config.find("head_dim"); it != config.end() && !it->is_null()) {
    m.head_dim = detail::hf_count(config, "head_dim", 0);
  } else {
    if (std::fmod(m.hidden_size, m.heads) != 0)
      detail::fail("num_attention_heads", "must divide hidden_size (" + detail::format_number(m.hidden_size) +
                                              ") when head_dim is absent, got " + detail::format_number(m.heads));
    m.head_dim = m.hidden_size / m.heads;
  }
  m.tied_embeddings = detail::hf_flag(config, "tie_word_embeddings");
  m.attention_bias = detail::hf_flag(config, "attention_bias");
  m.qkv_bias = m.model_type == "qwen2";  // Qwen2 always has q/k/v biases (and writes no key for them)
  m.qk_norm = m.model_type == "qwen3";
  if (detail::hf_flag(config, "mlp_bias"))
    detail::fail("mlp_bias",
                 "must be false: the count assumes an MLP without biases (as Llama, Mistral and Qwen), got true");
  if (config.contains("max_position_embeddings") && !config.at("max_position_embeddings").is_null())
    m.max_position_embeddings = detail::hf_count(config, "max_position_embeddings", 0);
  return m;
}

/// Reads config.json text with the project's strict JSON reader (duplicate keys refused).
inline hf_model parse_hf_config(const std::string& text) {
  return read_hf_config(detail::parse_strict_json(text, "config.json"));
}

}  // namespace trnmodel
