// Shared by the journal tests (tests/cpp/test_journal*.cpp): the bundled example journals,
// the error and warnings a document gives, and scratch step-time files.
#pragma once
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/calibrate/journal.hpp"

using namespace trnmodel;
using namespace trnmodel::calibrate;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace journal_test {

inline const std::filesystem::path examples = std::filesystem::path(TRNMODEL_SOURCE_DIR) / "examples";
inline const std::filesystem::path journal_dir = examples / "journals";

inline journal example(int trial) {
  return journal::from_file(journal_dir / ("llama3-8b-lora-trn2-trial-00" + std::to_string(trial) + ".json"));
}

inline ordered_json example_json(int trial) {
  std::ifstream in(journal_dir / ("llama3-8b-lora-trn2-trial-00" + std::to_string(trial) + ".json"));
  return ordered_json::parse(in);
}

inline std::string journal_error(const ordered_json& doc, const std::filesystem::path& directory = journal_dir) {
  try {
    journal::from_json(doc, directory);
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

inline std::vector<std::string> journal_warnings(const ordered_json& doc) {
  return journal::from_json(doc, journal_dir).warnings;
}

inline bool any_contains(const std::vector<std::string>& messages, const std::string& text) {
  for (const auto& m : messages)
    if (m.find(text) != std::string::npos) return true;
  return false;
}

// A scratch directory for step-time files, removed at the end of the test.
struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() : path(std::filesystem::temp_directory_path() / ("trnmodel-journal-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
  }
};

// Trial 001 with its inline series replaced by a file reference.
inline ordered_json with_file(const ordered_json& fields) {
  ordered_json doc = example_json(1);
  doc["step_times"] = ordered_json{{"unit", "s"}};
  for (const auto& [key, value] : fields.items()) doc["step_times"][key] = value;
  return doc;
}

inline std::string csv_of(const std::vector<double>& values) {
  std::string text = "step,step_time_s\n";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += std::to_string(i + 1) + "," + detail::format_number(values[i]) + "\n";
  return text;
}

}  // namespace journal_test

using namespace journal_test;
