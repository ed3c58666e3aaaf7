#pragma once
// Calendar arithmetic for dates and RFC 3339 timestamps: real calendar days only
// (2026-02-30 is refused), and timestamps as instants (seconds since 1970-01-01T00:00:00Z)
// so that records written in different time zones compare correctly.
#include <cstdint>
#include <optional>
#include <regex>
#include <string>

namespace trnmodel::detail {

inline bool is_leap_year(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

inline int days_in_month(int year, int month) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : days[month - 1];
}

// Days from 1970-01-01 to the given proleptic Gregorian date, counted in 400-year eras of
// 146097 days with March as the first month, so that leap days fall at the end of a year.
inline std::int64_t days_since_epoch(int year, int month, int day) {
  const std::int64_t y = year - (month <= 2 ? 1 : 0);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t year_of_era = y - era * 400;
  const std::int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// "YYYY-MM-DD", a real calendar day.
inline bool is_iso_date(const std::string& text) {
  static const std::regex pattern(R"((\d{4})-(\d{2})-(\d{2}))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  const int year = std::stoi(m[1]), month = std::stoi(m[2]), day = std::stoi(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month);
}

// An RFC 3339 timestamp with a zone ("2026-11-17T08:12:04Z", "…04.5-05:00") as seconds
// since the epoch; nothing when the text is not one (or names no zone, whose instant is
// unknown).
inline std::optional<double> parse_timestamp(const std::string& text) {
  static const std::regex pattern(
      R"((\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2})))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return std::nullopt;
  const int year = std::stoi(m[1]), month = std::stoi(m[2]), day = std::stoi(m[3]);
  const int hour = std::stoi(m[4]), minute = std::stoi(m[5]), second = std::stoi(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return std::nullopt;
  if (hour > 23 || minute > 59 || second > 59) return std::nullopt;  // leap seconds are not accepted
  double seconds =
      static_cast<double>(days_since_epoch(year, month, day)) * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
  if (m[7].matched) seconds += std::stod("0" + m[7].str());
  if (m[9].matched) {
    const int offset_h = std::stoi(m[10]), offset_min = std::stoi(m[11]);
    if (offset_h > 23 || offset_min > 59) return std::nullopt;
    const double offset_s = offset_h * 3600.0 + offset_min * 60.0;
    seconds += m[9] == "+" ? -offset_s : offset_s;  // local = UTC + offset
  }
  return seconds;
}

}  // namespace trnmodel::detail
