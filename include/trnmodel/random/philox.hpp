#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator of the engine (docs/montecarlo.md). Every uniform is a pure function of
// (seed, sample index, stream id, draw index): no state, so any block of samples can be
// generated on any thread in any order and the results never depend on scheduling.
#include <array>
#include <cstdint>

namespace trnmodel {

/// Philox4x32's 128-bit counter.
using philox_counter = std::array<std::uint32_t, 4>;
/// Philox4x32's 64-bit key.
using philox_key = std::array<std::uint32_t, 2>;

namespace detail {
constexpr std::uint32_t philox_m0 = 0xD2511F53u;
constexpr std::uint32_t philox_m1 = 0xCD9E8D57u;
constexpr std::uint32_t philox_w0 = 0x9E3779B9u;  // golden ratio
constexpr std::uint32_t philox_w1 = 0xBB67AE85u;  // sqrt(3) - 1

inline philox_counter philox_round(const philox_counter& c, const philox_key& k) {
  const std::uint64_t p0 = std::uint64_t{philox_m0} * c[0];
  const std::uint64_t p1 = std::uint64_t{philox_m1} * c[2];
  const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
  const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}
}  // namespace detail

/// The raw bijection: 128 bits of counter -> 128 bits of output under a 64-bit key.
inline philox_counter philox4x32_10(philox_counter counter, philox_key key) {
  counter = detail::philox_round(counter, key);
  for (int round = 1; round < 10; ++round) {
    key[0] += detail::philox_w0;
    key[1] += detail::philox_w1;
    counter = detail::philox_round(counter, key);
  }
  return counter;
}

namespace detail {

/// 52 random bits mapped to the open interval (0, 1): the midpoint of one of 2^52 equal
/// cells, (2k + 1) 2^-53, so inverse CDFs never see 0 or 1. (With 53 bits the top midpoint,
/// 1 - 2^-54, is not a double and rounds to 1.)
inline double bits_to_open_unit(std::uint64_t bits) { return (static_cast<double>(bits >> 12) + 0.5) * 0x1.0p-52; }

/// The uniform number `draw` of stream `stream` for sample `sample` under `seed`.
/// Counter layout: (pair low, pair high, stream, draw) with pair = sample / 2; each Philox call
/// yields the uniforms of two neighbouring samples, 2p (output words 0, 1) and 2p + 1 (words
/// 2, 3), so a column of consecutive samples uses all 128 bits of every call.
inline double uniform(std::uint64_t seed, std::uint64_t sample, std::uint32_t stream, std::uint32_t draw = 0) {
  const std::uint64_t pair = sample >> 1;
  const philox_counter out =
      philox4x32_10({static_cast<std::uint32_t>(pair), static_cast<std::uint32_t>(pair >> 32), stream, draw},
                    {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  const std::uint64_t bits =
      (sample & 1u) == 0 ? (std::uint64_t{out[1]} << 32) | out[0] : (std::uint64_t{out[3]} << 32) | out[2];
  return detail::bits_to_open_unit(bits);
}

}  // namespace detail
}  // namespace trnmodel
