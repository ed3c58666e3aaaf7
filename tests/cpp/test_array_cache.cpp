// Freed large arrays kept for the next run of their size (array_cache.hpp): which arrays are
// kept and handed out, and that a run in a reused array gives fresh memory's bits, the old
// values never showing through.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "array_cache_capacity.hpp"
#include "catch.hpp"
#include "trnmodel/montecarlo/array_cache.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

namespace test_array_cache {

namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

// Three outputs: the index, a middle column that varies with the index or holds 7 throughout,
// and minus the index.
struct middle_model {
  bool varies = true;
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    for (Eigen::Index r = 0; r < block.size; ++r) {
      const double i = static_cast<double>(block.first) + static_cast<double>(r);
      out(r, 0) = i;
      out(r, 1) = varies ? 0.5 * i : 7.0;
      out(r, 2) = -i;
    }
  }
};

run_options kept_run(std::uint64_t samples, int threads) {
  run_options o;
  o.samples = samples;
  o.block_size = 4'096;
  o.threads = threads;
  o.keep_samples = true;
  return o;
}

}  // namespace

TEST_CASE("array cache: a freed array's memory serves the next request of its size", "[array_cache]") {
  detail::array_cache cache(64 * mib);
  Eigen::ArrayXXd a = cache.take(1'000, 1'000);  // 8 MB
  REQUIRE(a.rows() == 1'000);
  const double* memory = a.data();
  REQUIRE(cache.keep(a));
  CHECK(a.size() == 0);
  CHECK(cache.bytes() == 8'000'000);
  // Another shape of the same size: the same memory.
  const Eigen::ArrayXXd b = cache.take(500, 2'000);
  CHECK(b.data() == memory);
  CHECK((b.rows() == 500 && b.cols() == 2'000));
  CHECK(cache.bytes() == 0);
  // A size it does not hold: fresh memory, and what it held is freed.
  Eigen::ArrayXXd c = cache.take(1'000, 1'000);
  REQUIRE(cache.keep(c));
  const Eigen::ArrayXXd d = cache.take(1'000, 700);
  CHECK(d.size() == 700'000);
  CHECK(cache.bytes() == 0);
}

TEST_CASE("array cache: small arrays and arrays beyond the capacity are not kept, and the oldest goes first",
          "[array_cache]") {
  detail::array_cache cache(20 * mib);
  Eigen::ArrayXXd small = Eigen::ArrayXXd::Zero(1'000, 100);  // 0.8 MB: left to the C library
  CHECK_FALSE(cache.keep(small));
  CHECK(small.size() == 100'000);
  Eigen::ArrayXXd large(1'000, 3'000);  // 24 MB: beyond the capacity
  CHECK_FALSE(cache.keep(large));
  CHECK(large.size() == 3'000'000);
  Eigen::ArrayXXd first(1'000, 1'000), second(1'000, 1'000), third(1'000, 1'000);
  const double* third_memory = third.data();
  const double* second_memory = second.data();
  REQUIRE(cache.keep(first));
  REQUIRE(cache.keep(second));
  REQUIRE(cache.keep(third));  // evicts the first
  CHECK(cache.bytes() == 16'000'000);
  CHECK(cache.take(1'000, 1'000).data() == third_memory);  // the most recent first
  CHECK(cache.take(1'000, 1'000).data() == second_memory);
  Eigen::ArrayXXd again(1'000, 1'000);
  REQUIRE(cache.keep(again));
  cache.set_capacity(0);  // frees what no longer fits
  CHECK(cache.bytes() == 0);
  CHECK(cache.capacity() == 0);
  Eigen::ArrayXXd refused(1'000, 1'000);
  CHECK_FALSE(cache.keep(refused));
}

TEST_CASE("array cache: the environment's capacity is a whole number of MiB", "[array_cache]") {
  CHECK(detail::array_cache::whole_mib("0") == 0);
  CHECK(detail::array_cache::whole_mib("512") == 512);
  for (const std::string bad : {"", "-1", "1.5", "12MB", " 8", "1e3", "9999999999999"})
    CHECK(detail::array_cache::whole_mib(bad) == detail::array_cache::not_whole);
}

TEST_CASE("array cache: threads taking and keeping at once", "[array_cache]") {
  detail::array_cache cache(64 * mib);
  std::atomic<int> wrong{0};  // counted here and checked after the join: Catch2 is not thread-safe
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t)
    workers.emplace_back([&cache, &wrong, t] {
      for (int k = 0; k < 50; ++k) {
        Eigen::ArrayXXd a = cache.take(1'000, 600 + 100 * (t % 2));
        a.setConstant(t);
        if (!(a == t).all() || a.rows() != 1'000) ++wrong;
        cache.keep(a);
      }
    });
  for (auto& w : workers) w.join();
  CHECK(wrong == 0);
  CHECK(cache.bytes() <= 64 * mib);
}

TEST_CASE("array cache: a run in a reused array gives fresh memory's bits", "[array_cache][kept]") {
  const std::uint64_t samples = 200'000;  // 4.8 MB of 3 outputs: above smallest_bytes
  const std::vector<std::string> names{"index", "middle", "minus"};
  // The reference: the constant run in fresh memory.
  run_result fresh = [&] {
    const test::array_cache_capacity off(0);
    return run(middle_model{false}, names, kept_run(samples, 2));
  }();
  const test::array_cache_capacity on(64 * mib);
  const double* memory = nullptr;
  {
    const run_result varying = run(middle_model{true}, names, kept_run(samples, 2));
    memory = varying.values(0).data();
    CHECK(varying.values(1)(samples - 1) == 0.5 * static_cast<double>(samples - 1));
  }
  CHECK(detail::array_cache::instance().bytes() == samples * 3 * sizeof(double));
  for (const int threads : {1, 2}) {
    // The middle column held 0.5 i: stored as 7 now, and written out as 7 when asked.
    const run_result reused = run(middle_model{false}, names, kept_run(samples, threads));
    CHECK(reused.values(0).data() == memory);
    REQUIRE(reused.single_value(1) != nullptr);
    for (std::size_t k = 0; k < 3; ++k) {
      const auto column = reused.values(k), reference = fresh.values(k);
      std::uint64_t wrong = 0;
      for (Eigen::Index i = 0; i < column.size(); ++i) wrong += test::same_bits(column(i), reference(i)) ? 0 : 1;
      INFO("column " << names[k] << ", threads " << threads);
      CHECK(wrong == 0);
    }
    const auto s = reused.summary(), s_fresh = fresh.summary();
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(test::same_bits(s[k].p10, s_fresh[k].p10));
      CHECK(test::same_bits(s[k].p99, s_fresh[k].p99));
      CHECK(test::same_bits(s[k].mean, s_fresh[k].mean));
    }
  }
}

}  // namespace test_array_cache
