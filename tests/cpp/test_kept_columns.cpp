// Kept columns of one value (kept_columns.hpp): a run that stores them as their value hands out
// the same samples, quantiles and summary, bit for bit, as one that writes every column; the
// value's pages stay untouched until asked for; writing out is safe from many threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "array_cache_capacity.hpp"
#include "catch.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/order_statistics.hpp"
#include "trnmodel/montecarlo/partial.hpp"
#include "trnmodel/montecarlo/prefault.hpp"
#include "same_bits.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

// The sanitizers' allocators may touch memory they hand out: the page test is left to the
// ordinary build.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TRNMODEL_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRNMODEL_TEST_SANITIZED 1
#endif

using namespace trnmodel;

namespace test_kept_columns {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// Sample i's outputs: a varying column; four columns of one value (2.5, NaN, −0 and +∞); one
// whose value changes from block to block of 256 (one value per block only); one of 1.0 but at
// sample 777.
double expected(std::uint64_t i, int k) {
  switch (k) {
    case 0: return std::sin(static_cast<double>(i));
    case 1: return 2.5;
    case 2: return nan;
    case 3: return -0.0;
    case 4: return inf;
    case 5: return static_cast<double>(i / 256);
    default: return i == 777 ? 2.0 : 1.0;
  }
}
constexpr int outputs = 7;
const std::vector<std::string> names{"varying", "two_and_a_half", "nan", "minus_zero", "inf", "by_block", "but_one"};

struct table_model {
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    for (int k = 0; k < outputs; ++k)
      for (Eigen::Index r = 0; r < block.size; ++r) out(r, k) = expected(block.first + static_cast<std::uint64_t>(r), k);
  }
};

run_options kept_run(std::uint64_t samples, Eigen::Index block_size, int threads) {
  run_options o;
  o.samples = samples;
  o.block_size = block_size;
  o.threads = threads;
  o.keep_samples = true;
  return o;
}

// Every sample of every column, through values(k), the same bits as expected().
void check_samples(const run_result& r) {
  for (int k = 0; k < outputs; ++k) {
    const auto column = r.values(static_cast<std::size_t>(k));
    REQUIRE(column.size() == static_cast<Eigen::Index>(r.samples()));
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < r.samples(); ++i)
      wrong += test::same_bits(column(static_cast<Eigen::Index>(i)), expected(i, k)) ? 0 : 1;
    INFO("column " << names[static_cast<std::size_t>(k)]);
    CHECK(wrong == 0);
  }
}

const std::vector<double> probabilities{0, 0.1, 0.5, 0.9, 0.99, 1};

// Three outputs: the sample's index, `middle` in every sample, minus the index.
struct three {
  double middle = 0;
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    for (Eigen::Index r = 0; r < block.size; ++r) {
      out(r, 0) = static_cast<double>(block.first) + static_cast<double>(r);
      out(r, 1) = middle;
      out(r, 2) = -out(r, 0);
    }
  }
};

}  // namespace

TEST_CASE("kept columns: one value stored as the value, the same samples and quantiles", "[kept]") {
  const std::uint64_t samples = 3'001;  // a short last block (185 rows)
  // Block size 32 notes nothing (below single_value_block_rows): every column written out, the
  // reference the stored columns must match bit for bit.
  const run_result written = run(table_model{}, names, kept_run(samples, 32, 1));
  for (int k = 0; k < outputs; ++k) CHECK(written.single_value(static_cast<std::size_t>(k)) == nullptr);
  for (const int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    const run_result r = run(table_model{}, names, kept_run(samples, 256, threads));
    // Exactly the columns of one value throughout are stored as it.
    for (int k = 0; k < outputs; ++k) {
      const double* single = r.single_value(static_cast<std::size_t>(k));
      INFO("column " << names[static_cast<std::size_t>(k)]);
      CHECK((single != nullptr) == (k >= 1 && k <= 4));
      if (single != nullptr) CHECK(test::same_bits(*single, expected(0, k)));
    }
    // Quantiles of a stored column are its value (NaN without a number), as the written run's.
    for (std::size_t k = 0; k < static_cast<std::size_t>(outputs); ++k) {
      const auto q = r.quantiles(k, probabilities), q_written = written.quantiles(k, probabilities);
      for (std::size_t j = 0; j < probabilities.size(); ++j) CHECK(test::same_bits(q[j], q_written[j]));
    }
    CHECK(test::same_bits(r.quantile(1, 0.37), 2.5));
    CHECK(std::isnan(r.quantile(2, 0.5)));
    CHECK(test::same_bits(r.quantile(3, 0.5), -0.0));
    CHECK(r.quantile(4, 0.5) == inf);
    // A copy taken before anything is written out: the same values, each written on demand.
    const run_result copy = r;
    CHECK(copy.single_value(1) != nullptr);
    CHECK(copy.single_value(1) != r.single_value(1));  // its own value
    check_samples(copy);
    check_samples(r);
    // The whole array, every column written out.
    const Eigen::ArrayXXd& all = r.values();
    for (int k = 0; k < outputs; ++k)
      for (Eigen::Index i = 0; i < all.rows(); ++i)
        REQUIRE(test::same_bits(all(i, k), expected(static_cast<std::uint64_t>(i), k)));
    // Written out, still the same: single_value keeps naming the value.
    CHECK(r.single_value(1) != nullptr);
    const auto s = r.summary(), s_written = written.summary();
    for (std::size_t k = 0; k < s.size(); ++k) {
      CHECK(test::same_bits(s[k].p50, s_written[k].p50));
      CHECK(test::same_bits(s[k].p99, s_written[k].p99));
      CHECK(s[k].nan_count == s_written[k].nan_count);
    }
  }
}

TEST_CASE("kept columns: a run folded from partials stores the same columns", "[kept]") {
  const run_options o = kept_run(5'000, 256, 2);
  const run_result whole = run(table_model{}, names, o);
  const std::uint64_t blocks = detail::block_grid{o.samples, 256}.blocks();
  const run_result folded = fold({compute_partial(table_model{}, names, o, 0, 7),
                                  compute_partial(table_model{}, names, o, 7, blocks)});
  for (std::size_t k = 0; k < static_cast<std::size_t>(outputs); ++k)
    CHECK((folded.single_value(k) != nullptr) == (whole.single_value(k) != nullptr));
  check_samples(folded);
}

TEST_CASE("kept columns: written out once, whatever the threads asking", "[kept]") {
  const run_result r = run(table_model{}, names, kept_run(20'000, 1'024, 2));
  REQUIRE(r.single_value(1) != nullptr);
  std::vector<const double*> seen(8);
  std::vector<std::thread> askers;
  for (std::size_t t = 0; t < seen.size(); ++t)
    askers.emplace_back([&, t] {
      // Half the threads ask for one column, half for all of them, at once.
      seen[t] = t % 2 == 0 ? r.values(1).data() : &r.values()(0, 1);
    });
  for (auto& a : askers) a.join();
  for (const double* p : seen) CHECK(p == seen[0]);
  check_samples(r);
}

// A large kept array's pages go back on the run's threads before it is freed: the results of
// a 2-thread run of 75 MB, moved, assigned over and destroyed, leave nothing behind but the
// values of the one kept (the sanitizer builds check the memory).
TEST_CASE("kept columns: a large array is given back on the run's threads", "[kept]") {
  const test::array_cache_capacity off(0);  // else the cache of freed arrays takes them (array_cache.hpp)
  const std::uint64_t samples = 3'125'000;  // 75 MB of 3 outputs, above the 64 MB of release()
  run_result kept = run(three{1}, {"a", "one", "b"}, kept_run(samples, 4'096, 2));
  {
    run_result other = run(three{1}, {"a", "one", "b"}, kept_run(samples, 4'096, 2));
    run_result moved = std::move(other);
    moved = run(three{1}, {"a", "one", "b"}, kept_run(1'000, 256, 2));  // the large array goes here
    CHECK(moved.values(0)(999) == 999);
  }
  CHECK(kept.values(2)(samples - 1) == -static_cast<double>(samples - 1));
  CHECK((kept.values(1) == 1).all());
#if defined(__linux__)
  // release_pages: the whole pages inside the range only, read as zero afterwards.
  const std::size_t page = 4096, pages = 16;
  void* mapped = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(mapped);
  std::fill(bytes, bytes + pages * page, static_cast<unsigned char>(7));
  detail::release_pages(bytes + 2 * page + 10, 5 * page);  // pages 3 .. 6 lie wholly inside
  std::vector<unsigned char> resident(pages);
  REQUIRE(::mincore(mapped, pages * page, resident.data()) == 0);
  for (std::size_t p = 0; p < pages; ++p) {
    INFO("page " << p);
    CHECK(((resident[p] & 1) != 0) == (p < 3 || p > 6));
    CHECK(bytes[p * page + 100] == (p < 3 || p > 6 ? 7 : 0));
  }
  ::munmap(mapped, pages * page);
#endif
}

#if defined(__linux__) && !defined(TRNMODEL_TEST_SANITIZED)
// The point of storing the value: its column's pages are never touched. 1.6·10^6 samples of 3
// outputs (38 MB) lie above glibc's largest mmap threshold (32 MiB), so the array is a fresh
// mapping whose pages are resident only once written.
TEST_CASE("kept columns: the pages of a column of one value stay untouched until asked for", "[kept]") {
  const test::array_cache_capacity off(0);  // fresh memory, not a freed array's
  const std::uint64_t samples = 1'600'000;
  const run_result r = run(three{}, {"a", "zero", "b"}, kept_run(samples, 4'096, 2));
  REQUIRE(r.single_value(1) != nullptr);
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  // The whole pages inside column k's memory, and how many of them are resident.
  const auto resident_pages = [&](const double* column) {
    const auto begin = (reinterpret_cast<std::uintptr_t>(column) + page - 1) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(column + samples)) & ~(page - 1);
    std::vector<unsigned char> resident((end - begin) / page);
    REQUIRE(::mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()) == 0);
    std::size_t count = 0;
    for (const unsigned char p : resident) count += (p & 1) != 0 ? 1 : 0;
    return std::make_pair(count, resident.size());
  };
  // Columns a and b are written: their pages are resident. The zero column lies between them.
  const double* a = r.values(0).data();
  const auto written = resident_pages(a);
  CHECK(written.first == written.second);
  const double* zero = a + samples;  // column-major: column 1 follows column 0
  CHECK(resident_pages(zero).first == 0);
  CHECK(r.values(1).data() == zero);
  const auto after = resident_pages(zero);
  CHECK(after.first == after.second);
  CHECK((r.values(1) == 0).all());
}
#endif

}  // namespace test_kept_columns
