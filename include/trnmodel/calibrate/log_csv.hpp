#pragma once
// A CSV of steps (docs/importing.md, "CSV"): a header row naming a column `step` and a column
// `wall_time` (seconds since 1970-01-01T00:00:00Z, or an RFC 3339 timestamp with its zone) or
// `step_time_s` (seconds), or both; other columns are ignored. Each file is a run: a step at or
// below the one before is a restart (the relaunched job goes on from its checkpoint's step, as in
// a journal's step file) and starts a new part, said in the notes. With a column `part` (0, 1,
// 2, ...: the run and its restarts, in order; the form `trnmodel import --steps-csv` writes) the
// parts are as stated and steps must increase within each. Several files are read in order,
// each a part of its own.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "trnmodel/calibrate/step_log.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/series_file.hpp"

namespace trnmodel::calibrate {

/// The points of one CSV's text, appended to `log` as a part of their own. `source` names the
/// file in errors ("steps.csv, line 7, column wall_time: ...").
inline void read_csv_steps(step_log& log, const std::string& text, const std::string& source) {
  std::size_t start = 0, line_number = 0;
  const auto next_line = [&](std::string& line) {
    if (start >= text.size()) return false;
    const auto end = text.find('\n', start);
    line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    ++line_number;
    return true;
  };
  std::string line;
  while (next_line(line) && line.find_first_not_of(" \t\r") == std::string::npos) {
  }
  if (line_number == 0 || line.find_first_not_of(" \t\r") == std::string::npos)
    detail::fail(source, "the CSV file is empty (a header row with step and wall_time or step_time_s is needed)");
  const auto header = detail::split_csv_line(line);
  constexpr std::size_t none = std::string::npos;
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    return none;
  };
  const std::size_t step_col = column("step"), wall_col = column("wall_time"), time_col = column("step_time_s"),
                    part_col = column("part");
  if (step_col == none || (wall_col == none && time_col == none)) {
    std::string names;
    for (const auto& h : header) names += (names.empty() ? "" : ", ") + h;
    detail::fail(source, "the CSV needs a column step and a column wall_time or step_time_s (its columns: " +
                             names + ")");
  }
  const std::size_t part = log.points.empty() ? 0 : log.points.back().part + 1;
  const std::size_t before = log.points.size();
  std::size_t restarts = 0;
  while (next_line(line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto cells = detail::split_csv_line(line);
    const std::string where = source + ", line " + std::to_string(line_number);
    const auto cell = [&](std::size_t i, const char* name) -> const std::string& {
      if (i >= cells.size() || cells[i].empty())
        detail::fail(where + ", column " + name, "missing value");
      return cells[i];
    };
    log_point p;
    p.part = part;
    const auto step = detail::parse_step_number(cell(step_col, "step"));
    if (!step)
      detail::fail(where + ", column step", "must be a whole number ≥ 0, got \"" + detail::shorten(cells[step_col]) + "\"");
    p.step = *step;
    if (part_col != none) {
      // Parts count 0, 1, 2, ... in order: each row is in the part of the row before, or the next.
      const std::size_t previous = log.points.size() > before ? log.points.back().part - part : 0;
      const auto k = detail::parse_step_number(cell(part_col, "part"));
      const bool first_row = log.points.size() == before;
      const auto stated = k ? static_cast<std::size_t>(*k) : none;
      if (!k || (first_row ? stated != 0 : (stated != previous && stated != previous + 1)))
        detail::fail(where + ", column part",
                     "parts count 0, 1, 2, ... in order (a row is in the part of the row before, or the next), got \"" +
                         detail::shorten(cells[part_col]) + "\"");
      p.part = part + stated;
    }
    if (wall_col != none) {
      const std::string& text = cell(wall_col, "wall_time");
      auto wall = detail::parse_finite(text);
      if (!wall) wall = detail::parse_timestamp(text);
      if (!wall)
        detail::fail(where + ", column wall_time",
                     "must be seconds since 1970 or an RFC 3339 timestamp with its zone, got \"" + detail::shorten(text) +
                         "\"");
      p.wall_time_s = *wall;
    }
    if (time_col != none) {
      const auto t = detail::parse_finite(cell(time_col, "step_time_s"));
      if (!t || *t <= 0)
        detail::fail(where + ", column step_time_s",
                     "must be a number of seconds > 0, got \"" + detail::shorten(cells[time_col]) + "\"");
      p.step_time_s = *t;
    }
    const std::size_t parts_before = log.parts();
    detail::append_point(log, p, part_col == none, where);
    if (log.parts() > parts_before && log.points.size() > before + 1 && part_col == none) ++restarts;
  }
  if (restarts > 0)
    log.notes.push_back(source + ": " + std::to_string(restarts) +
                        " restart(s): a step at or below the one before, read as a new part");
  if (log.points.size() == before) detail::fail(source, "the CSV file has a header but no rows");
}

/// A CSV log of one or more files (a run and its restarts, in order), read into a step_log.
inline step_log read_csv_log(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) detail::fail("csv", "no file given");
  step_log log;
  log.format = log_format::csv;
  for (const auto& file : files) {
    read_csv_steps(log, detail::read_file_bytes(file, file.string()), file.string());
    log.source += (log.source.empty() ? "" : ", ") + file.string();
  }
  return log;
}

}  // namespace trnmodel::calibrate
