#pragma once
// Reading a numeric series from a file beside a record: a CSV column or a 1-D NumPy .npy
// array (format version 1–3, little-endian float64 or float32, C order). Errors name the
// record's field, the file and, for CSV, the line.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"

namespace trnmodel::detail {

inline std::string read_file_bytes(const std::filesystem::path& file, const std::string& path) {
  std::ifstream in(file, std::ios::binary);
  if (!in) detail::fail(path, "cannot read the file " + file.string());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    const auto first = cell.find_first_not_of(" \t\r\"");
    const auto last = cell.find_last_not_of(" \t\r\"");
    cells.push_back(first == std::string::npos ? std::string() : cell.substr(first, last - first + 1));
  }
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

struct csv_columns {
  std::vector<double> values;
  std::vector<double> labels;  // the optional second column (e.g. step numbers), else empty
};

// Column `column` (and `label_column` when not empty) of a CSV file with a header row.
inline csv_columns read_csv_columns(const std::string& bytes, const std::string& column,
                                    const std::string& label_column, const std::string& path) {
  std::istringstream in(bytes);
  std::string line;
  if (!std::getline(in, line)) detail::fail(path, "the CSV file is empty");
  const auto header = split_csv_line(line);
  const auto index_of = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    std::string names;
    for (const auto& h : header) names += (names.empty() ? "" : ", ") + h;
    detail::fail(path, "the CSV file has no column \"" + name + "\" (its columns: " + names + ")");
  };
  const std::size_t value_index = index_of(column);
  const std::size_t label_index = label_column.empty() ? 0 : index_of(label_column);
  csv_columns out;
  std::size_t line_number = 1;
  const auto parse = [&](const std::vector<std::string>& cells, std::size_t i, const std::string& name) {
    const std::string where = "line " + std::to_string(line_number) + ", column " + name;
    if (i >= cells.size() || cells[i].empty()) detail::fail(path, where + ": missing value");
    char* end = nullptr;
    const double x = std::strtod(cells[i].c_str(), &end);
    if (end != cells[i].c_str() + cells[i].size() || !std::isfinite(x))
      detail::fail(path, where + ": must be a finite number, got \"" + cells[i] + "\"");
    return x;
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto cells = split_csv_line(line);
    out.values.push_back(parse(cells, value_index, column));
    if (!label_column.empty()) out.labels.push_back(parse(cells, label_index, label_column));
  }
  return out;
}

// A 1-D float64 or float32 .npy array (NumPy's format description, NEP 1).
inline std::vector<double> read_npy_vector(const std::string& bytes, const std::string& path) {
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, magic, 6) != 0) detail::fail(path, "not a NumPy .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_length = 0, offset = 0;
  if (major == 1) {
    header_length =
        static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) detail::fail(path, "truncated .npy header");
    for (std::size_t i = 4; i-- > 0;) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[8 + i]);
    offset = 12;
  } else {
    detail::fail(path, ".npy format version " + std::to_string(major) + " is not supported");
  }
  if (offset + header_length > bytes.size()) detail::fail(path, "truncated .npy header");
  // A one-dimensional array's header is about a hundred bytes; a longer one is refused before
  // std::regex, which recurses once per character, could overflow the stack on it.
  if (header_length > 4096)
    detail::fail(path, "the .npy header is " + std::to_string(header_length) +
                           " bytes, more than the 4096 a one-dimensional array needs");
  const std::string header = bytes.substr(offset, header_length);
  std::smatch m;
  static const std::regex descr(R"('descr':\s*'([<>|=]?)([fi])(\d)')"), order(R"('fortran_order':\s*(True|False))"),
      shape(R"('shape':\s*\((\d+),?\s*\))");
  if (!std::regex_search(header, m, descr) || m[2] != "f" || (m[3] != "8" && m[3] != "4") || m[1] == ">")
    detail::fail(path, "the .npy array must hold little-endian float64 or float32 values");
  const std::size_t item = m[3] == "8" ? 8 : 4;
  if (std::regex_search(header, m, order) && m[1] == "True") detail::fail(path, "the .npy array must be in C order");
  if (!std::regex_search(header, m, shape)) detail::fail(path, "the .npy array must be one-dimensional");
  const std::string count = m[1];
  const std::size_t data = offset + header_length, data_bytes = bytes.size() - data;
  // Below 10^18 values the byte count cannot wrap around 2^64 (a huge shape once "needed" 8
  // bytes and then asked for an impossible vector); above, no file holds them anyway.
  const bool countable = count.size() <= 18;
  const std::size_t n = countable ? std::stoull(count) : 0;
  if (!countable || n * item != data_bytes)
    detail::fail(path, "the .npy file holds " + std::to_string(data_bytes) + " data bytes, expected " +
                           (countable ? std::to_string(n * item) : std::string("more than 10^18")) + " for " + count +
                           " values");
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (item == 8) {
      std::memcpy(&values[i], bytes.data() + data + 8 * i, 8);
    } else {
      float x;
      std::memcpy(&x, bytes.data() + data + 4 * i, 4);
      values[i] = x;
    }
  }
  return values;
}

}  // namespace trnmodel::detail
