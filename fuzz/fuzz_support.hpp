#pragma once
// What the fuzz targets share: a broken property aborts with the input that broke it, so
// that libFuzzer saves it as a reproducer.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {
inline void require(bool ok, const char* target, const char* what, const std::string& input) {
  if (ok) return;
  std::fprintf(stderr, "%s: %s\n", target, what);
  std::fwrite(input.data(), 1, input.size(), stderr);
  std::fputc('\n', stderr);
  std::abort();
}
}  // namespace fuzz
