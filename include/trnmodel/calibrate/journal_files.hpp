#pragma once
// Files a journal refers to (docs/journal.md, "Step times"): where a step-time file may lie
// (relative to the journal's directory, never outside it), the checksums that tie a journal
// to its data (the file's SHA-256, a checkpoint's algorithm:digest), and reading the series
// from a CSV column or a .npy array (detail/series_file.hpp parses the bytes).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/calibrate/journal_reader.hpp"
#include "trnmodel/detail/series_file.hpp"
#include "trnmodel/detail/sha256.hpp"

namespace trnmodel::detail {

// "algorithm:digest" ([a-z0-9][a-z0-9-]* ":" [A-Za-z0-9+/=_-]+), checked by hand: libstdc++'s
// std::regex recurses once per character and overflows the stack on a long string.
inline bool is_checksum(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  const auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  const auto digest_char = [&](char c) {
    return lower_or_digit(c) || (c >= 'A' && c <= 'Z') || c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
  };
  return lower_or_digit(text[0]) &&
         std::all_of(text.begin() + 1, text.begin() + static_cast<std::ptrdiff_t>(colon),
                     [&](char c) { return lower_or_digit(c) || c == '-'; }) &&
         std::all_of(text.begin() + static_cast<std::ptrdiff_t>(colon) + 1, text.end(), digest_char);
}

// The file `name` (the value at `origin`) in `directory`: a relative path without "..", that
// exists and that does not resolve (through links) outside the directory.
inline std::filesystem::path journal_file(const std::filesystem::path& directory, const std::string& name,
                                          const std::string& origin) {
  const std::filesystem::path relative(name);
  bool escapes = relative.is_absolute() || name.empty();
  for (const auto& part : relative) escapes = escapes || part == "..";
  if (escapes)
    detail::fail(origin, "must be a path relative to the journal's directory without \"..\", got \"" + name + "\"");
  const std::filesystem::path file = directory / relative;
  std::error_code error;
  const auto resolved = std::filesystem::weakly_canonical(file, error);
  const auto root = std::filesystem::weakly_canonical(directory, error);
  if (!std::filesystem::is_regular_file(file, error)) detail::fail(origin, "no such file: " + file.string());
  const auto inside = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (inside.first != root.end())
    detail::fail(origin, "resolves outside the journal's directory: " + resolved.string());
  return file;
}

// `expected` (the value at `path`) must be the SHA-256 of `bytes` in lower-case hex.
inline void check_sha256(const std::string& bytes, const std::string& expected, const std::string& path) {
  static const std::regex hex(R"([0-9a-f]{64})");
  if (!std::regex_match(expected, hex))
    detail::fail(path, "must be 64 lower-case hex digits, got \"" + expected + "\"");
  const std::string actual = sha256_hex(bytes);
  if (actual != expected)
    detail::fail(path, "the file's SHA-256 is " + actual + ", the journal says " + expected +
                           " (the journal and its series have drifted apart)");
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// A step-time series as a file holds it: the values in the file's unit, and the step number
/// of each row when a step column was named.
struct step_series {
  std::vector<double> values;  ///< one time per row, in the file's unit (the journal's step_times.unit)
  std::vector<std::int64_t> step_numbers;  ///< the step column's value per row; empty without a step column
};

/// Reads the file that the step_times object `r` names (keys file, column, step_column, count,
/// sha256), relative to `directory`.
inline step_series read_step_file(detail::journal_reader& r, const std::filesystem::path& directory) {
  using key = journal_key;
  const std::string origin = journal_path(key::step_times_file);
  const std::string name = r.optional_text(key::step_times_file);
  const std::filesystem::path file = detail::journal_file(directory, name, origin);
  const std::string bytes = detail::read_file_bytes(file, origin);
  const std::string extension = std::filesystem::path(name).extension().string();
  const std::string column = r.optional_text(key::step_times_column);
  const std::string step_column = r.optional_text(key::step_times_step_column);
  step_series series;
  if (extension == ".csv") {
    if (column.empty())
      detail::fail(journal_path(key::step_times_column),
                   "required key is missing (a .csv file needs the column of the times)");
    auto cells = detail::read_csv_columns(bytes, column, step_column, origin + " (" + name + ")");
    series.values = std::move(cells.values);
    for (std::size_t i = 0; i < cells.labels.size(); ++i) {
      if (cells.labels[i] != std::floor(cells.labels[i]) || cells.labels[i] < 0)
        detail::fail(origin, "column " + step_column + ", row " + std::to_string(i + 1) +
                                 ": must be a step number, got " + detail::format_number(cells.labels[i]));
      series.step_numbers.push_back(static_cast<std::int64_t>(cells.labels[i]));
    }
  } else if (extension == ".npy") {
    if (r.has(key::step_times_column) || r.has(key::step_times_step_column))
      detail::fail(journal_path(key::step_times_column), "not allowed for a .npy file (it holds one array)");
    series.values = detail::read_npy_vector(bytes, origin + " (" + name + ")");
  } else {
    detail::fail(origin, "must name a .csv or .npy file, got \"" + name + "\"");
  }
  const auto count = r.optional_integer(key::step_times_count);
  if (count && static_cast<std::size_t>(*count) != series.values.size())
    detail::fail(journal_path(key::step_times_count), "the file holds " + std::to_string(series.values.size()) +
                                                          " values, the journal says " + std::to_string(*count));
  if (r.has(key::step_times_sha256))
    detail::check_sha256(bytes, r.optional_text(key::step_times_sha256), journal_path(key::step_times_sha256));
  return series;
}

}  // namespace trnmodel::calibrate
