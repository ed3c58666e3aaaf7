// The one wave loop (parallel.hpp): every block once, in waves, the hooks and the caller's
// fold on the calling thread between waves, cancellation polled before each wave. The same
// tests pass with and without TBB (make test-serial).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/parallel.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_parallel {

TEST_CASE("the wave loop runs every block once and folds each wave in order on the calling thread", "[parallel]") {
  for (const int threads : {1, 2, 3}) {
    const detail::block_grid grid{10'001, 100};  // 101 blocks, the last of one sample
    CHECK(grid.blocks() == 101);
    CHECK(grid.size(100) == 1);
    CHECK(grid.samples_before(101) == 10'001);
    std::vector<std::atomic<int>> seen(grid.blocks());
    std::vector<std::uint64_t> slot_of(grid.blocks());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> waves;
    std::vector<std::uint64_t> reported;
    const auto caller = std::this_thread::get_id();
    detail::wave_hooks hooks;
    hooks.threads = threads;
    hooks.progress = [&](std::uint64_t done, std::uint64_t total) {
      CHECK(std::this_thread::get_id() == caller);
      CHECK(total == 10'001 - 300);
      reported.push_back(done);
    };
    int polls = 0;
    hooks.cancelled = [&] {
      CHECK(std::this_thread::get_id() == caller);
      ++polls;
      return false;
    };
    detail::for_each_wave(
        grid, 3, grid.blocks(), hooks,
        [&](std::uint64_t b, std::size_t slot) {
          ++seen[b];
          slot_of[b] = slot;
        },
        [&](std::uint64_t first, std::uint64_t last) {
          CHECK(std::this_thread::get_id() == caller);
          for (std::uint64_t b = first; b < last; ++b) CHECK(seen[b] == 1);  // the whole wave is done
          waves.emplace_back(first, last);
        });
    INFO("threads " << threads);
    const std::uint64_t wave = detail::blocks_per_wave(threads);
    CHECK(wave == static_cast<std::uint64_t>(std::max(4, 4 * threads)));
    for (std::uint64_t b = 0; b < grid.blocks(); ++b) {
      CHECK(seen[b] == (b < 3 ? 0 : 1));
      if (b >= 3) CHECK(slot_of[b] == (b - 3) % wave);
    }
    REQUIRE(!waves.empty());
    CHECK(waves.front().first == 3);
    CHECK(waves.back().second == grid.blocks());
    for (std::size_t w = 1; w < waves.size(); ++w) CHECK(waves[w].first == waves[w - 1].second);
    CHECK(static_cast<std::size_t>(polls) == waves.size());
    CHECK(std::is_sorted(reported.begin(), reported.end()));
    CHECK(reported.back() == 10'001 - 300);
  }
}

TEST_CASE("progress may count from blocks the caller did before the loop", "[parallel]") {
  const detail::block_grid grid{1000, 10};
  detail::wave_hooks hooks;
  hooks.threads = 1;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reported;
  hooks.progress = [&](std::uint64_t done, std::uint64_t total) { reported.emplace_back(done, total); };
  detail::for_each_wave(
      grid, 1, grid.blocks(), hooks, [](std::uint64_t, std::size_t) {}, [](std::uint64_t, std::uint64_t) {}, 0);
  REQUIRE(!reported.empty());
  CHECK(reported.front() == std::make_pair(std::uint64_t{50}, std::uint64_t{1000}));  // blocks 0..4 done
  CHECK(reported.back() == std::make_pair(std::uint64_t{1000}, std::uint64_t{1000}));
}

TEST_CASE("cancellation stops the loop before the next wave", "[parallel]") {
  const detail::block_grid grid{100'000, 1000};
  detail::wave_hooks hooks;
  hooks.threads = 2;
  int polls = 0;
  std::atomic<int> blocks{0};
  hooks.cancelled = [&] { return ++polls > 2; };
  CHECK_THROWS_AS(detail::for_each_wave(
                      grid, 0, grid.blocks(), hooks, [&](std::uint64_t, std::size_t) { ++blocks; },
                      [](std::uint64_t, std::uint64_t) {}),
                  cancelled_error);
  CHECK(polls == 3);
  CHECK(blocks == 2 * static_cast<int>(detail::blocks_per_wave(2)));
}

TEST_CASE("per-thread state is combined once the loop is over", "[parallel]") {
  detail::per_thread<std::uint64_t> sums(0);
  detail::wave_hooks hooks;
  hooks.threads = 2;
  const detail::block_grid grid{1000, 1};
  detail::for_each_wave(
      grid, 0, grid.blocks(), hooks, [&](std::uint64_t b, std::size_t) { sums.local() += b; },
      [](std::uint64_t, std::uint64_t) {});
  std::uint64_t total = 0;
  sums.combine_each([&](std::uint64_t s) { total += s; });
  CHECK(total == 999 * 1000 / 2);
  CHECK(default_threads() >= 1);  // 1 without TBB
}

}  // namespace test_parallel
