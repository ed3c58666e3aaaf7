#pragma once
// Bit-for-bit equality of two doubles (NaN equals NaN of the same payload, +0 differs from -0):
// what the determinism tests mean by "the same result".
#include <cstring>

namespace test {
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace test
