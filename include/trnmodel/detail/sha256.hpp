#pragma once
// SHA-256 (FIPS 180-4, §6.2) of a byte string, as 64 lower-case hex digits. Journals name
// the SHA-256 of their step-time file so that a journal and its series cannot drift apart;
// none of the project's dependencies offers the hash, and it is short.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace trnmodel::detail {

inline std::string sha256_hex(std::string_view bytes) {
  // FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
  // first 64 primes; §5.3.3: the initial hash value from the square roots of the first 8.
  static constexpr std::array<std::uint32_t, 64> k{
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::array<std::uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };

  // §5.1.1 padding: a 1 bit, zeros, then the message length in bits (64-bit big-endian).
  std::string message(bytes);
  const std::uint64_t length_bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  message.push_back(static_cast<char>(0x80));
  while (message.size() % 64 != 56) message.push_back('\0');
  for (int i = 7; i >= 0; --i) message.push_back(static_cast<char>((length_bits >> (8 * i)) & 0xff));

  std::array<std::uint32_t, 64> w{};
  for (std::size_t block = 0; block < message.size(); block += 64) {
    for (std::size_t t = 0; t < 16; ++t) {
      w[t] = 0;
      for (std::size_t b = 0; b < 4; ++b) w[t] = (w[t] << 8) | static_cast<unsigned char>(message[block + 4 * t + b]);
    }
    for (std::size_t t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;  // a b c d e f g h
    for (std::size_t t = 0; t < 64; ++t) {
      const std::uint32_t big_s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      const std::uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const std::uint32_t t1 = v[7] + big_s1 + choose + k[t] + w[t];
      const std::uint32_t big_s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      const std::uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      const std::uint32_t t2 = big_s0 + majority;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (std::size_t i = 0; i < 8; ++i) h[i] += v[i];
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string digest;
  for (const std::uint32_t word : h)
    for (int shift = 28; shift >= 0; shift -= 4) digest.push_back(hex[(word >> shift) & 0xf]);
  return digest;
}

}  // namespace trnmodel::detail
