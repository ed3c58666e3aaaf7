// The lane-parallel Philox4x32-10 kernel, included once per instruction set by
// uniform_column.hpp with TRNMODEL_LANES (a struct of vector operations on 64-bit lanes that
// hold 32-bit words), TRNMODEL_LANES_ATTR (its target attribute) and TRNMODEL_LANES_NAME (the
// kernel's name) defined. Each lane computes one Philox call, for one pair of samples; the
// lanes' values never leave 32 bits (products are split into their halves at once), so the
// kernel is the scalar Philox of philox.hpp, lane by lane.

TRNMODEL_LANES_ATTR inline void TRNMODEL_LANES_NAME(std::uint64_t seed, std::uint32_t stream, std::uint32_t draw,
                                                    std::uint64_t first_pair, std::size_t pairs, pair_halves halves,
                                                    double* out) {
  using L = TRNMODEL_LANES;
  using v = typename L::v;
  constexpr std::size_t width = L::width;
  constexpr std::size_t unroll = 4;  // independent vectors in flight: the round's multiply latency is hidden
  constexpr std::size_t chunk = width * unroll;
  const v low32 = L::set1(0xFFFFFFFFull), m0 = L::set1(philox_m0), m1 = L::set1(philox_m1);
  const v stream_v = L::set1(stream), draw_v = L::set1(draw);
  const v exponent = L::set1(0x3FF0000000000000ull);
  constexpr double offset = 1.0 - 0x1.0p-53;
  alignas(64) std::uint64_t lane_offsets[width];
  for (std::size_t j = 0; j < width; ++j) lane_offsets[j] = j;
  const v iota = L::load(lane_offsets);
  for (std::size_t done = 0; done < pairs; done += chunk) {
    v c0[unroll], c1[unroll], c2[unroll], c3[unroll];
    for (std::size_t u = 0; u < unroll; ++u) {
      const v pair = L::add(L::set1(first_pair + done + u * width), iota);
      c0[u] = L::band(pair, low32);
      c1[u] = L::srl32(pair);
      c2[u] = stream_v;
      c3[u] = draw_v;
    }
    std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      if (round > 0) k0 += philox_w0, k1 += philox_w1;
      const v key0 = L::set1(k0), key1 = L::set1(k1);
      for (std::size_t u = 0; u < unroll; ++u) {
        const v p0 = L::mul32(m0, c0[u]), p1 = L::mul32(m1, c2[u]);
        c0[u] = L::bxor(L::bxor(L::srl32(p1), c1[u]), key0);
        c2[u] = L::bxor(L::bxor(L::srl32(p0), c3[u]), key1);
        c1[u] = L::band(p1, low32);
        c3[u] = L::band(p0, low32);
      }
    }
    // The top 52 of each half's 64 bits, as the mantissa of a double in [1, 2): 1 + k 2^-52.
    alignas(64) double even[chunk], odd[chunk];
    for (std::size_t u = 0; u < unroll; ++u) {
      L::store_pd(even + u * width, L::bor(exponent, L::bor(L::sll20(c1[u]), L::srl12(c0[u]))), offset);
      L::store_pd(odd + u * width, L::bor(exponent, L::bor(L::sll20(c3[u]), L::srl12(c2[u]))), offset);
    }
    const std::size_t m = pairs - done < chunk ? pairs - done : chunk;
    if (halves == pair_halves::both) {
      double* o = out + 2 * done;
      for (std::size_t j = 0; j < m; ++j) {
        o[2 * j] = even[j];
        o[2 * j + 1] = odd[j];
      }
    } else {
      const double* h = halves == pair_halves::even ? even : odd;
      for (std::size_t j = 0; j < m; ++j) out[done + j] = h[j];
    }
  }
}
