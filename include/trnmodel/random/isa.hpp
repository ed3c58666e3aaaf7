#pragma once
// The instruction set of the lane-parallel kernels (uniform columns, quantile columns), chosen
// at run time on the machine that runs them: the library is compiled for the baseline (SSE2 on
// x86-64), and the AVX2 / AVX-512 variants of each kernel carry their own target attribute, so
// no build flag requires AVX. Every variant performs the same IEEE operations in the same order
// (integer Philox arithmetic, no FMA contraction: build with -ffp-contract=off, as the CMake
// target does), so the results do not depend on the path (tested bit for bit). The target also
// carries -fno-math-errno and -fno-trapping-math: nothing reads errno or the floating-point
// exception flags, and with them square roots and selects vectorise (without the flags the
// kernels are slower, not different).
//
// TRNMODEL_ISA=sse2|avx2|avx512 in the environment caps the path (benchmarks, tests);
// set_isa_limit() does the same from code.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace trnmodel {

/// The instruction sets the lane kernels have a path for, chosen at run time (active_isa()).
enum class isa : int { sse2 = 0, avx2 = 1, avx512 = 2 };

/// The instruction set's name ("avx2", ...).
inline const char* isa_name(isa i) {
  switch (i) {
    case isa::avx512: return "avx512";
    case isa::avx2: return "avx2";
    default: return "sse2";
  }
}

namespace detail {

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define TRNMODEL_X86_DISPATCH 1
#define TRNMODEL_TARGET_SSE2
#define TRNMODEL_TARGET_AVX2 __attribute__((target("avx2")))
#define TRNMODEL_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#else
#define
#define TRNMODEL_TARGET_SSE2
#endif

inline isa detected_isa() {
#ifdef TRNMODEL_X86_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw"))
    return isa::avx512;
  if (__builtin_cpu_supports("avx2")) return isa::avx2;
#endif
  return isa::sse2;
}

inline isa environment_limit() {
  const char* v = std::getenv("TRNMODEL_ISA");
  if (v == nullptr) return isa::avx512;
  if (std::strcmp(v, "sse2") == 0 || std::strcmp(v, "scalar") == 0) return isa::sse2;
  if (std::strcmp(v, "avx2") == 0) return isa::avx2;
  return isa::avx512;
}

// The machine's best path, resolved once.
inline isa machine_isa() {
  static const isa best = detected_isa();
  return best;
}

inline std::atomic<int>& isa_limit_slot() {
  static std::atomic<int> slot{static_cast<int>(environment_limit())};
  return slot;
}

}  // namespace detail

/// The paths this machine can run, baseline first.
inline std::vector<isa> available_isas() {
  std::vector<isa> out;
  for (int i = 0; i <= static_cast<int>(detail::machine_isa()); ++i) out.push_back(static_cast<isa>(i));
  return out;
}

/// Caps the path used from now on (never above what the machine has); returns the previous cap.
inline isa set_isa_limit(isa limit) {
  return static_cast<isa>(detail::isa_limit_slot().exchange(static_cast<int>(limit)));
}

/// The path the kernels take: the machine's best, capped by the limit.
inline isa active_isa() {
  const int best = static_cast<int>(detail::machine_isa());
  const int limit = detail::isa_limit_slot().load(std::memory_order_relaxed);
  return static_cast<isa>(best < limit ? best : limit);
}

}  // namespace trnmodel
