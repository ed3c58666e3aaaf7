#pragma once
// One include for Catch2 v2 (single header, Debian 12) and v3 (split headers, Debian 13).
#include <string>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

namespace test {
// Substring matcher: Contains in v2, ContainsSubstring in v3 (where Contains is for ranges).
inline auto contains(const std::string& text) {
#if CATCH_VERSION_MAJOR >= 3
  return Catch::Matchers::ContainsSubstring(text);
#else
  return Catch::Matchers::Contains(text);
#endif
}
}  // namespace test
