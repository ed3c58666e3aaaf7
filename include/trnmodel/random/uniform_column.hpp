#pragma once
// A column of uniforms: the one way the library draws the uniforms of many samples at once
// (a block of an ordinary run, a column of a Saltelli design, the inputs recomputed for rank
// correlations). The Philox rounds run lane-parallel, one call per pair of neighbouring
// samples (both halves of its 128 bits used), on the widest instruction set the machine has
// (random/isa.hpp). Every step is integer arithmetic, and the map to (0, 1) is exact, so the
// numbers are those of uniform() bit for bit on every path (tested).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "trnmodel/random/isa.hpp"
#include "trnmodel/random/philox.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace trnmodel {

namespace detail {

// Which halves of each pair's call a column keeps.
enum class pair_halves { both, even, odd };

// 64-bit lanes holding 32-bit words; store_pd turns bit patterns 1 + k 2^-52 into
// (k + 1/2) 2^-52 by subtracting 1 - 2^-53, which is exact (Sterbenz): the double of
// bits_to_open_unit.
#if defined(__SSE2__)
struct lanes_sse2 {
  using v = __m128i;
  static constexpr std::size_t width = 2;
  static v set1(std::uint64_t x) { return _mm_set1_epi64x(static_cast<long long>(x)); }
  static v load(const std::uint64_t* p) { return _mm_load_si128(reinterpret_cast<const __m128i*>(p)); }
  static v add(v a, v b) { return _mm_add_epi64(a, b); }
  static v mul32(v a, v b) { return _mm_mul_epu32(a, b); }
  static v srl32(v a) { return _mm_srli_epi64(a, 32); }
  static v srl12(v a) { return _mm_srli_epi64(a, 12); }
  static v sll20(v a) { return _mm_slli_epi64(a, 20); }
  static v band(v a, v b) { return _mm_and_si128(a, b); }
  static v bor(v a, v b) { return _mm_or_si128(a, b); }
  static v bxor(v a, v b) { return _mm_xor_si128(a, b); }
  static void store_pd(double* p, v bits, double offset) {
    _mm_store_pd(p, _mm_sub_pd(_mm_castsi128_pd(bits), _mm_set1_pd(offset)));
  }
};

#define TRNMODEL_LANES lanes_sse2
#define TRNMODEL_LANES_ATTR
#define TRNMODEL_LANES_NAME philox_pairs_sse2
#include "trnmodel/random/philox_lanes.ipp"
#undef TRNMODEL_LANES
#undef TRNMODEL_LANES_ATTR
#undef TRNMODEL_LANES_NAME
#else
// No vector baseline known here: the scalar generator, pair by pair.
inline void philox_pairs_sse2(std::uint64_t seed, std::uint32_t stream, std::uint32_t draw, std::uint64_t first_pair,
                              std::size_t pairs, pair_halves halves, double* out) {
  for (std::size_t j = 0; j < pairs; ++j) {
    const std::uint64_t even = 2 * (first_pair + j);
    if (halves == pair_halves::both) {
      out[2 * j] = detail::uniform(seed, even, stream, draw);
      out[2 * j + 1] = detail::uniform(seed, even + 1, stream, draw);
    } else {
      out[j] = detail::uniform(seed, even + (halves == pair_halves::odd ? 1 : 0), stream, draw);
    }
  }
}
#endif

#if defined(TRNMODEL_X86_DISPATCH) && defined(__SSE2__)
struct lanes_avx2 {
  using v = __m256i;
  static constexpr std::size_t width = 4;
  TRNMODEL_TARGET_AVX2 static v set1(std::uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  TRNMODEL_TARGET_AVX2 static v load(const std::uint64_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  TRNMODEL_TARGET_AVX2 static v add(v a, v b) { return _mm256_add_epi64(a, b); }
  TRNMODEL_TARGET_AVX2 static v mul32(v a, v b) { return _mm256_mul_epu32(a, b); }
  TRNMODEL_TARGET_AVX2 static v srl32(v a) { return _mm256_srli_epi64(a, 32); }
  TRNMODEL_TARGET_AVX2 static v srl12(v a) { return _mm256_srli_epi64(a, 12); }
  TRNMODEL_TARGET_AVX2 static v sll20(v a) { return _mm256_slli_epi64(a, 20); }
  TRNMODEL_TARGET_AVX2 static v band(v a, v b) { return _mm256_and_si256(a, b); }
  TRNMODEL_TARGET_AVX2 static v bor(v a, v b) { return _mm256_or_si256(a, b); }
  TRNMODEL_TARGET_AVX2 static v bxor(v a, v b) { return _mm256_xor_si256(a, b); }
  TRNMODEL_TARGET_AVX2 static void store_pd(double* p, v bits, double offset) {
    _mm256_store_pd(p, _mm256_sub_pd(_mm256_castsi256_pd(bits), _mm256_set1_pd(offset)));
  }
};
struct lanes_avx512 {
  using v = __m512i;
  static constexpr std::size_t width = 8;
  TRNMODEL_TARGET_AVX512 static v set1(std::uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  TRNMODEL_TARGET_AVX512 static v load(const std::uint64_t* p) { return _mm512_load_si512(p); }
  TRNMODEL_TARGET_AVX512 static v add(v a, v b) { return _mm512_add_epi64(a, b); }
  TRNMODEL_TARGET_AVX512 static v mul32(v a, v b) { return _mm512_mul_epu32(a, b); }
  TRNMODEL_TARGET_AVX512 static v srl32(v a) { return _mm512_srli_epi64(a, 32); }
  TRNMODEL_TARGET_AVX512 static v srl12(v a) { return _mm512_srli_epi64(a, 12); }
  TRNMODEL_TARGET_AVX512 static v sll20(v a) { return _mm512_slli_epi64(a, 20); }
  TRNMODEL_TARGET_AVX512 static v band(v a, v b) { return _mm512_and_si512(a, b); }
  TRNMODEL_TARGET_AVX512 static v bor(v a, v b) { return _mm512_or_si512(a, b); }
  TRNMODEL_TARGET_AVX512 static v bxor(v a, v b) { return _mm512_xor_si512(a, b); }
  TRNMODEL_TARGET_AVX512 static void store_pd(double* p, v bits, double offset) {
    _mm512_store_pd(p, _mm512_sub_pd(_mm512_castsi512_pd(bits), _mm512_set1_pd(offset)));
  }
};

#define TRNMODEL_LANES lanes_avx2
#define TRNMODEL_LANES_ATTR TRNMODEL_TARGET_AVX2
#define TRNMODEL_LANES_NAME philox_pairs_avx2
#include "trnmodel/random/philox_lanes.ipp"
#undef TRNMODEL_LANES
#undef TRNMODEL_LANES_ATTR
#undef TRNMODEL_LANES_NAME

// GCC 12 warns that _mm512_set1_epi64's internal placeholder may be uninitialised (a false
// positive of its own header).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define TRNMODEL_LANES lanes_avx512
#define TRNMODEL_LANES_ATTR TRNMODEL_TARGET_AVX512
#define TRNMODEL_LANES_NAME philox_pairs_avx512
#include "trnmodel/random/philox_lanes.ipp"
#undef TRNMODEL_LANES
#undef TRNMODEL_LANES_ATTR
#undef TRNMODEL_LANES_NAME
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

inline void philox_pairs(std::uint64_t seed, std::uint32_t stream, std::uint32_t draw, std::uint64_t first_pair,
                         std::size_t pairs, pair_halves halves, double* out) {
#if defined(TRNMODEL_X86_DISPATCH) && defined(__SSE2__)
  switch (active_isa()) {
    case isa::avx512: return philox_pairs_avx512(seed, stream, draw, first_pair, pairs, halves, out);
    case isa::avx2: return philox_pairs_avx2(seed, stream, draw, first_pair, pairs, halves, out);
    default: break;
  }
#endif
  philox_pairs_sse2(seed, stream, draw, first_pair, pairs, halves, out);
}

}  // namespace detail

/// out[i] = uniform(seed, first_sample + i · sample_stride, stream, draw) for i in [0, n).
/// A stride of 1 is a block of consecutive samples; 2 picks every other sample (matrix A or B
/// of a Saltelli design, whose base index j takes samples 2j and 2j + 1).
inline void uniform_column(std::uint64_t seed, std::uint32_t stream, std::uint32_t draw, std::uint64_t first_sample,
                           std::uint64_t sample_stride, std::size_t n, double* out) {
  if (n == 0) return;
  if (sample_stride == 1) {
    std::size_t i = 0;
    if ((first_sample & 1u) != 0) out[i++] = detail::uniform(seed, first_sample, stream, draw);  // odd half of a pair
    const std::size_t pairs = (n - i) / 2;
    detail::philox_pairs(seed, stream, draw, (first_sample + i) >> 1, pairs, detail::pair_halves::both, out + i);
    i += 2 * pairs;
    if (i < n) out[i] = detail::uniform(seed, first_sample + i, stream, draw);
  } else if (sample_stride == 2) {
    // One half of consecutive pairs.
    const auto halves = (first_sample & 1u) == 0 ? detail::pair_halves::even : detail::pair_halves::odd;
    detail::philox_pairs(seed, stream, draw, first_sample >> 1, n, halves, out);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = detail::uniform(seed, first_sample + i * sample_stride, stream, draw);
  }
}

}  // namespace trnmodel
