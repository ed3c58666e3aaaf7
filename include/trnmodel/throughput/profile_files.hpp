#pragma once
// Hardware profiles read from files (docs/profiles.md, docs/cpp.md "Profiles"): a directory of
// "trnmodel.profile/1" documents, one per file, named by the file's stem. The package ships one
// such directory; CMake installs it with the headers (PREFIX/share/trnmodel/profiles) and the
// package's targets carry its location, so an embedder finds the same profiles Python does.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/throughput/profile.hpp"

namespace trnmodel {

namespace detail {
inline std::string directory_from(const char* variable, const char* built_in) {
  const char* set = std::getenv(variable);
  if (set != nullptr && *set != '\0') return set;
  return built_in;
}
}  // namespace detail

/// The directory of the shipped hardware profiles: the environment variable
/// TRNMODEL_PROFILES_DIR when set and not empty, else the location the CMake target was
/// configured with (the source tree in a build tree, PREFIX/share/trnmodel/profiles once
/// installed). Empty when neither is known (the headers used without the CMake package).
/// Thread-safe (reads the environment; do not change it concurrently).
inline std::string shipped_profiles_dir() {
#ifdef TRNMODEL_PROFILES_DIR
  return detail::directory_from("TRNMODEL_PROFILES_DIR", TRNMODEL_PROFILES_DIR);
#else
  return detail::directory_from("TRNMODEL_PROFILES_DIR", "");
#endif
}

/// The directory of the JSON Schemas of the scenario and journal formats
/// (scenario-v1.schema.json, journal-v1.schema.json): TRNMODEL_SCHEMA_DIR when set, else the
/// configured location, as shipped_profiles_dir().
inline std::string shipped_schema_dir() {
#ifdef TRNMODEL_SCHEMA_DIR
  return detail::directory_from("TRNMODEL_SCHEMA_DIR", TRNMODEL_SCHEMA_DIR);
#else
  return detail::directory_from("TRNMODEL_SCHEMA_DIR", "");
#endif
}

/// Every "*.json" file of `dir` as a profile library (name = file stem -> document), each file
/// parsed strictly and checked as a profile: a bad file fails with an input_error naming it.
/// Throws input_error when `dir` is not a directory or holds no profile. Thread-safe.
inline profile_library load_profiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (dir.empty()) detail::fail("profiles", "no profile directory is known: set TRNMODEL_PROFILES_DIR or pass one");
  if (!fs::is_directory(dir, error)) detail::fail(dir, "is not a directory of hardware profiles");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, error))
    if (entry.path().extension() == ".json" && entry.is_regular_file(error)) files.push_back(entry.path());
  if (error) detail::fail(dir, "cannot be listed: " + error.message());
  std::sort(files.begin(), files.end());
  profile_library library;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) detail::fail(file.string(), "cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    const std::string name = file.stem().string();
    ordered_json doc = detail::parse_strict_json(text.str(), file.string());
    platform_profile::from_json(doc, "profile " + name);  // checked now, where the file is named
    library.emplace(name, std::move(doc));
  }
  if (library.empty()) detail::fail(dir, "holds no hardware profile (*.json)");
  return library;
}

/// The shipped profiles (load_profiles(shipped_profiles_dir())), read once per process on first
/// use; a library to pass to scenario::from_file and friends. Thread-safe; the reference stays
/// valid for the life of the process.
inline const profile_library& shipped_profiles() {
  static const profile_library library = load_profiles(shipped_profiles_dir());
  return library;
}

}  // namespace trnmodel
