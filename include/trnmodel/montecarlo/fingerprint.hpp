#pragma once
// What decides the bits a process computes (docs/scaling.md, "Same bits"): the library's version,
// the instruction-set path of its lane kernels, and the C library whose exp, log, log1p, expm1 and
// pow the simulator calls per value (glibc chooses an FMA variant at run time where the CPU has
// it). Two processes with the same fingerprint compute the same partials bit for bit; a fold
// refuses partials from a process with another one rather than mix roundings.
#include <string>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "trnmodel/random/isa.hpp"
#include "trnmodel/version.hpp"

namespace trnmodel {

/// This process's fingerprint, e.g. "trnmodel 0.1.0; lanes avx512; libm glibc 2.36 fma".
inline std::string bits_fingerprint() {
  std::string libm;
#if defined(__GLIBC__)
  libm = std::string("glibc ") + gnu_get_libc_version();
#else
  libm = "non-glibc";
#endif
#if defined(__x86_64__) || defined(__i386__)
  libm += __builtin_cpu_supports("fma") ? " fma" : " no-fma";
#endif
  return std::string("trnmodel ") + TRNMODEL_VERSION_STRING + "; lanes " + isa_name(active_isa()) + "; libm " + libm;
}

}  // namespace trnmodel
