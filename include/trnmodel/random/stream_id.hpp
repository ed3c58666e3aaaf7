#pragma once
// Stream ids are derived from names (an input's JSON path, or an event kind such as
// "chance.failures"), so the same input draws the same uniforms in every scenario that has
// it: common random numbers across platforms come for free (docs/sensitivity.md).
#include <cstdint>
#include <string_view>

namespace trnmodel {

/// The random stream of a name: its 32-bit FNV-1a hash, so that an input named the same draws the same
/// numbers in every run (common random numbers). Callers that register several names check for
/// collisions.
constexpr std::uint32_t stream_id(std::string_view name) {
  std::uint32_t hash = 2166136261u;
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return hash;
}

}  // namespace trnmodel
