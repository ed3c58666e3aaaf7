// Files a journal refers to (include/trnmodel/calibrate/journal_files.hpp): the step-time file
// (CSV, .npy), where it may lie, and its SHA-256 (detail/sha256.hpp).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "journal_examples.hpp"
#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/detail/sha256.hpp"

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_journal_files {

TEST_CASE("SHA-256 known answers (FIPS 180-4 examples)", "[journal][sha256]") {
  CHECK(detail::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(detail::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding needs a second block.
  CHECK(detail::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(detail::sha256_hex(std::string(1000, 'a')) ==
        "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST_CASE("step-time files: CSV, .npy, SHA-256 and where they may lie", "[journal][files]") {
  const scratch_dir dir;
  const std::vector<double> values = example(1).step_times_s;
  const std::string csv = csv_of(values);
  dir.write("steps.csv", csv);
  std::filesystem::copy_file(journal_dir / "llama3-8b-lora-trn2-trial-001.json", dir.path / "j.json");

  const journal loaded = journal::from_json(with_file({{"file", "steps.csv"},
                                                       {"column", "step_time_s"},
                                                       {"step_column", "step"},
                                                       {"sha256", detail::sha256_hex(csv)},
                                                       {"count", 600}}),
                                            dir.path);
  CHECK(loaded.step_times_s == values);
  CHECK(loaded.warnings.empty());

  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}, {"column", "t"}}), dir.path),
             test::contains("has no column \"t\" (its columns: step, step_time_s)"));
  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}}), dir.path),
             test::contains("step_times.column: required key is missing"));
  CHECK_THAT(
      journal_error(with_file({{"file", "steps.csv"}, {"column", "step_time_s"}, {"sha256", std::string(64, '0')}}),
                    dir.path),
      test::contains("step_times.sha256: the file's SHA-256 is " + detail::sha256_hex(csv)));
  CHECK_THAT(journal_error(with_file({{"file", "steps.csv"}, {"column", "step_time_s"}, {"count", 601}}), dir.path),
             test::contains("step_times.count: the file holds 600 values, the journal says 601"));
  CHECK_THAT(journal_error(with_file({{"file", "../steps.csv"}, {"column", "step_time_s"}}), dir.path),
             test::contains("step_times.file: must be a path relative to the journal's directory without \"..\""));
  CHECK_THAT(journal_error(with_file({{"file", "/etc/passwd"}, {"column", "x"}}), dir.path),
             test::contains("step_times.file: must be a path relative"));
  CHECK_THAT(journal_error(with_file({{"file", "missing.csv"}, {"column", "x"}}), dir.path),
             test::contains("step_times.file: no such file"));
  CHECK_THAT(journal_error(with_file({{"values", {1.0}}, {"file", "steps.csv"}}), dir.path),
             test::contains("step_times: must have exactly one of values and file, got both"));
  dir.write("bad.csv", "step,step_time_s\n1,3.5\n2,abc\n");
  CHECK_THAT(journal_error(with_file({{"file", "bad.csv"}, {"column", "step_time_s"}}), dir.path),
             test::contains("line 3, column step_time_s: must be a finite number, got \"abc\""));
  // A link that leads outside the journal's directory is refused after resolving it.
  std::filesystem::create_directories(dir.path / "inner");
  std::filesystem::create_symlink(dir.path / "steps.csv", dir.path / "inner" / "link.csv");
  CHECK_THAT(journal_error(with_file({{"file", "link.csv"}, {"column", "step_time_s"}}), dir.path / "inner"),
             test::contains("resolves outside the journal's directory"));

  // .npy, version 1.0, little-endian float64: the same values in milliseconds.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size() & 0xff);
  npy += static_cast<char>(header.size() >> 8);
  npy += header;
  for (double v : values) {
    const double ms = v * 1000;
    npy.append(reinterpret_cast<const char*>(&ms), sizeof ms);
  }
  dir.write("steps.npy", npy);
  ordered_json doc = with_file({{"file", "steps.npy"}});
  doc["step_times"]["unit"] = "ms";
  const journal from_npy = journal::from_json(doc, dir.path);
  REQUIRE(from_npy.step_times_s.size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) CHECK_THAT(from_npy.step_times_s[i], WithinRel(values[i], 1e-15));
  dir.write("short.npy", npy.substr(0, npy.size() - 8));
  CHECK_THAT(journal_error(with_file({{"file", "short.npy"}}), dir.path), test::contains("data bytes, expected 4800"));
  CHECK_THAT(journal_error(with_file({{"file", "steps.npy"}, {"column", "x"}}), dir.path),
             test::contains("step_times.column: not allowed for a .npy file"));
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("a .npy shape whose byte count wraps around is refused", "[edge][adversarial]") {
  const auto npy = [](const std::string& shape) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + shape + ",), }";
    header.resize(118, ' ');
    header += '\n';
    return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header +
           std::string(8, '\0');
  };
  CHECK(detail::read_npy_vector(npy("1"), "f.npy") == std::vector<double>{0.0});
  // 2^61 + 1 values of 8 bytes "need" 8 bytes once the product wraps around 2^64.
  CHECK_THROWS_WITH(
      detail::read_npy_vector(npy("2305843009213693953"), "f.npy"),
      test::contains(
          "f.npy: the .npy file holds 8 data bytes, expected more than 10^18 for 2305843009213693953 values"));
  CHECK_THROWS_WITH(
      detail::read_npy_vector(npy("123456789012345678901234567890"), "f.npy"),
      test::contains("holds 8 data bytes, expected more than 10^18 for 123456789012345678901234567890 values"));
  CHECK_THROWS_WITH(detail::read_npy_vector(npy("2"), "f.npy"),
                    test::contains("holds 8 data bytes, expected 16 for 2 values"));
  // A header of a million digits is refused before std::regex could recurse over it.
  std::string long_header = npy("1");
  long_header.insert(long_header.find("(1") + 1, 1'000'000, '0');
  long_header[8] = '\xff';
  long_header[9] = '\xff';
  CHECK_THROWS_WITH(detail::read_npy_vector(long_header, "f.npy"),
                    test::contains("f.npy: the .npy header is 65535 bytes"));
}

TEST_CASE("a megabyte checksum in a journal is checked without recursion", "[edge][adversarial]") {
  std::ifstream in(std::string(TRNMODEL_SOURCE_DIR) + "/examples/journals/llama3-8b-lora-trn2-trial-001.json");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string original = text.str(),
                    digest = "sha256:f5b31ceefe47a169205408a3f05effe5a695062475837e0e24ee25acbb142e00";
  const auto with_checksum = [&](const std::string& checksum) {
    std::string changed = original;
    return changed.replace(changed.find(digest), digest.size(), checksum);
  };
  const std::string directory = std::string(TRNMODEL_SOURCE_DIR) + "/examples/journals";
  CHECK(calibrate::journal::from_text(with_checksum("sha256:" + std::string(1'000'000, 'a')), directory)
            .checkpoints[0]
            .checksum.size() == 1'000'007);
  CHECK_THROWS_WITH(
      calibrate::journal::from_text(with_checksum("sha256:" + std::string(1'000'000, 'a') + "!"), directory),
      test::contains("checkpoints[0].checksum: must be algorithm:digest"));
  CHECK_THROWS_WITH(calibrate::journal::from_text(with_checksum("SHA256:ab"), directory),
                    test::contains("must be algorithm:digest"));
  CHECK_THROWS_WITH(calibrate::journal::from_text(with_checksum("sha256:"), directory),
                    test::contains("must be algorithm:digest"));
}

}  // namespace test_journal_files
