#pragma once
// One check function per rule, so that every rejection reads the same way:
//   "<path>: must be > 0, got -5"
// (the stan-dev/math pattern). `path` is a JSON path such as "checkpoint.every_steps"
// or, for a standalone distribution, its family name.
#include <cmath>
#include <cstdio>
#include <string>

#include "trnmodel/errors.hpp"

namespace trnmodel {

/// The largest whole number up to which a double (JSON's number) holds every integer exactly:
/// 2^53. The bound of every count the library reads (scenario integers, journal counts,
/// config.json shapes, ranks).
inline constexpr double max_whole_number = 9007199254740992.0;

namespace detail {

/// Shortest decimal text that reads back to the same double (like Python's repr), so that
/// messages show the value the user wrote.
inline std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

/// A derived figure in a message, to `digits` significant digits (0.001, not
/// 0.0009999999999999998): what the user computes from their inputs is shown as they would.
inline std::string format_approx(double value, int digits = 3) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

/// `text` cut to at most `max_bytes` with "..." at a UTF-8 character boundary: a message cut
/// inside a character is not valid UTF-8, and Python cannot even decode it.
inline std::string shorten(const std::string& text, std::size_t max_bytes = 80) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // a continuation byte
  return text.substr(0, end) + "...";
}

/// Throws input_error("<path>: <rule>"): every bad input is reported this way.
[[noreturn]] inline void fail(const std::string& path, const std::string& rule) {
  throw input_error(path + ": " + rule);
}

/// input_error unless `value` is a finite number.
inline void check_finite(const std::string& path, double value) {
  if (!std::isfinite(value)) detail::fail(path, "must be a finite number, got " + detail::format_number(value));
}

/// input_error unless `value` is finite and > 0.
inline void check_positive(const std::string& path, double value) {
  detail::check_finite(path, value);
  if (!(value > 0)) detail::fail(path, "must be > 0, got " + detail::format_number(value));
}

/// input_error unless `value` is finite and ≥ 0.
inline void check_nonnegative(const std::string& path, double value) {
  detail::check_finite(path, value);
  if (!(value >= 0)) detail::fail(path, "must be ≥ 0, got " + detail::format_number(value));
}

/// input_error unless `value` lies in [0, 1].
inline void check_probability(const std::string& path, double value) {
  detail::check_finite(path, value);
  if (!(value >= 0 && value <= 1)) detail::fail(path, "must be in [0, 1], got " + detail::format_number(value));
}

// The one rule for whole numbers (scenario integers, journal counts, config.json shapes,
// ranks): a finite, integer-valued number in [lo, hi]. Bounds beyond 2^53 are meaningless for
// a double, so callers pass at most max_whole_number.
inline long long whole_number(const std::string& path, double x, double lo, double hi = max_whole_number) {
  detail::check_finite(path, x);
  if (x != std::floor(x) || std::fabs(x) > max_whole_number)
    detail::fail(path, "must be a whole number, got " + detail::format_number(x));
  if (x >= lo && x <= hi) return static_cast<long long>(x);
  if (lo == 0 && hi == 3) detail::fail(path, "must be 0, 1, 2 or 3, got " + detail::format_number(x));
  if (hi >= max_whole_number)
    detail::fail(path, "must be ≥ " + detail::format_number(lo) + ", got " + detail::format_number(x));
  detail::fail(path, "must be in [" + detail::format_number(lo) + ", " + detail::format_number(hi) + "], got " +
                         detail::format_number(x));
}

}  // namespace detail
}  // namespace trnmodel
