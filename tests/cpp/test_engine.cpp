#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/montecarlo/prefault.hpp"
#include "trnmodel/montecarlo/scratch.hpp"
#include "same_bits.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_engine {

namespace {

// Ishigami's function, a = 7, b = 0.1, on three U(-pi, pi) inputs: mean a/2, variance
// a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2 (Ishigami & Homma 1990).
input_set ishigami_inputs() {
  const double pi = 3.14159265358979323846;
  return input_set({{"x1", make_uniform(-pi, pi)}, {"x2", make_uniform(-pi, pi)}, {"x3", make_uniform(-pi, pi)}});
}
void ishigami(const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) {
  y.col(0) = x.col(0).sin() + 7 * x.col(1).sin().square() + 0.1 * x.col(2).pow(4) * x.col(0).sin();
  y.col(1) = x.col(0);
}


}  // namespace

TEST_CASE("the engine reproduces Ishigami's mean and variance", "[engine]") {
  run_options options;
  options.samples = 400'000;
  options.seed = 11;
  const auto result = monte_carlo(ishigami_inputs(), ishigami, {"y", "x1"}, options);
  const double pi = 3.14159265358979323846;
  const double mean = 3.5, variance = 49.0 / 8 + 0.1 * std::pow(pi, 4) / 5 + 0.01 * std::pow(pi, 8) / 18 + 0.5;
  const auto& m = result.stats(0);
  CHECK(m.count == options.samples);
  CHECK(std::abs(m.mean - mean) < 5 * std::sqrt(variance / options.samples));
  CHECK_THAT(m.variance(), Catch::Matchers::WithinRel(variance, 0.02));
  // x1 is uniform on (-pi, pi): its median is 0 within 5 standard errors of a quantile.
  const double median = result.quantiles(1, {0.5})[0];
  CHECK(std::abs(median) < 5 * pi / std::sqrt(options.samples));
}

TEST_CASE("results are bitwise identical for any thread count", "[engine]") {
  for (const bool keep : {true, false}) {
    std::vector<run_result> results;
    for (const int threads : {1, 2, 3, 8}) {
      run_options options;
      options.samples = 100'003;  // a partial last block
      options.seed = 5;
      options.threads = threads;
      options.keep_samples = keep;
      options.block_size = 1000;
      results.push_back(monte_carlo(ishigami_inputs(), ishigami, {"y", "x1"}, options));
    }
    for (const auto& r : results) {
      INFO("keep " << keep);
      CHECK(test::same_bits(r.stats(0).mean, results[0].stats(0).mean));
      CHECK(test::same_bits(r.stats(0).m2, results[0].stats(0).m2));
      const auto q = r.quantiles(0, {0.1, 0.5, 0.9});
      const auto q0 = results[0].quantiles(0, {0.1, 0.5, 0.9});
      for (int k = 0; k < 3; ++k) CHECK(test::same_bits(q[k], q0[k]));
      if (keep) CHECK((r.values() == results[0].values()).all());
    }
  }
}

// Several outputs' quantiles (and the summary) run the outputs in parallel: the same values as
// one output at a time, for any thread count.
TEST_CASE("quantiles of several outputs equal each output's, for any thread count", "[engine]") {
  run_options options;
  options.samples = 50'001;
  options.seed = 3;
  const auto r = monte_carlo(ishigami_inputs(), ishigami, {"y", "x1"}, options);
  const std::vector<double> p{0.001, 0.5, 0.999};
  for (const int threads : {1, 2, 0}) {
    const auto rows = r.quantiles_of({1, 0, 1}, p, threads);
    REQUIRE(rows.size() == 3);
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t j = 0; j < p.size(); ++j)
        CHECK(test::same_bits(rows[k][j], r.quantiles(k == 1 ? 0 : 1, p)[j]));
  }
  const auto summary = r.summary();
  for (std::size_t k = 0; k < 2; ++k) {
    const auto q = r.quantiles(k, summary_probabilities());
    CHECK(summary[k].name == r.names()[k]);
    CHECK(test::same_bits(summary[k].p10, q[0]));
    CHECK(test::same_bits(summary[k].p99, q[4]));
  }
  CHECK_THROWS_AS(r.quantiles_of({0, 2}, p), input_error);
}

TEST_CASE("kept samples are the inputs' inverse CDFs of the counter uniforms", "[engine]") {
  // Independent recomputation of sample 1234's x1 from its definition.
  run_options options;
  options.samples = 5000;
  options.seed = 3;
  const auto result = monte_carlo(ishigami_inputs(), ishigami, {"y", "x1"}, options);
  const double pi = 3.14159265358979323846;
  const double u = detail::uniform(3, 1234, stream_id("x1"));
  CHECK(result.values()(1234, 1) == -pi + 2 * pi * u);
}

TEST_CASE("histogram quantiles track exact quantiles when samples are not kept", "[engine]") {
  run_options options;
  options.samples = 200'000;
  options.seed = 2;
  options.relative_accuracy = 1e-3;
  const input_set inputs({{"t", make_lognormal(1, 0.5)}});
  const auto f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) { y.col(0) = x.col(0); };
  const auto exact = monte_carlo(inputs, f, {"t"}, options);
  options.keep_samples = false;
  const auto streamed = monte_carlo(inputs, f, {"t"}, options);
  CHECK(streamed.values().size() == 0);
  CHECK(streamed.stats(0).mean == exact.stats(0).mean);
  const auto qe = exact.quantiles(0, summary_probabilities());
  const auto qs = streamed.quantiles(0, summary_probabilities());
  for (std::size_t k = 0; k < qe.size(); ++k) CHECK(std::abs(qs[k] / qe[k] - 1) <= 1e-3 + 1e-6);
}

TEST_CASE("progress, cancellation and bad options", "[engine]") {
  const auto f = [](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) { y.col(0) = x.col(0); };
  const input_set inputs({{"t", make_uniform(0, 1)}});
  run_options options;
  options.samples = 100'000;
  options.block_size = 1000;
  options.threads = 2;
  std::vector<std::uint64_t> reported;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    CHECK(total == 100'000);
    reported.push_back(done);
  };
  monte_carlo(inputs, f, {"t"}, options);
  REQUIRE(!reported.empty());
  CHECK(reported.back() == 100'000);
  CHECK(std::is_sorted(reported.begin(), reported.end()));

  int polls = 0;
  options.progress = nullptr;
  options.cancelled = [&] { return ++polls > 2; };
  CHECK_THROWS_AS(monte_carlo(inputs, f, {"t"}, options), cancelled_error);
  CHECK(polls == 3);

  run_options bad;
  bad.samples = 0;
  CHECK_THROWS_WITH(monte_carlo(inputs, f, {"t"}, bad), test::contains("samples: must be ≥ 1, got 0"));
  bad.samples = 10;
  bad.threads = -1;
  CHECK_THROWS_WITH(monte_carlo(inputs, f, {"t"}, bad), test::contains("threads: must be ≥ 0"));
  CHECK_THROWS_AS(input_set({{"a", make_unknown("no trial yet")}, {"b", make_unknown("no quote")}}),
                  unknown_input_error);
  CHECK_THROWS_WITH(input_set({{"a", 1.0}, {"a", 2.0}}), test::contains("a: input named twice"));
}

// ---- Edge cases found in review: each once hung, crashed or returned a silently wrong number ----

TEST_CASE("infinite outputs keep their place in the order", "[edge]") {
  log_histogram h(1e-3);
  for (const double x :
       {1.0, 2.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 3.0})
    h.add(x);
  CHECK(h.count() == 5);
  CHECK(h.at_rank(0) == -std::numeric_limits<double>::infinity());
  CHECK(h.at_rank(4) == std::numeric_limits<double>::infinity());
  CHECK(h.quantile(1.0) == std::numeric_limits<double>::infinity());
  CHECK_THAT(h.quantile(0.5), Catch::Matchers::WithinRel(2.0, 1e-3));
}

TEST_CASE("scratch: a thread's buffer is lent to one scope at a time and kept between blocks", "[engine]") {
  detail::scratch_slot slot;
  const double* first = nullptr;
  {
    detail::scratch a(slot, 100, 3);
    first = a.array().data();
    CHECK(slot.lent);
    a.array().setConstant(1.0);
    {
      // The same call site entered again on this thread (a nested run): an array of its own.
      detail::scratch b(slot, 100, 3);
      CHECK(b.array().data() != first);
      b.array().setConstant(2.0);
    }
    CHECK(slot.lent);
    CHECK((a.array() == 1.0).all());  // not touched by the nested scope
  }
  CHECK(!slot.lent);
  {
    detail::scratch again(slot, 100, 3);  // the same shape: the same memory, not allocated again
    CHECK(again.array().data() == first);
  }
  detail::scratch other(slot, 50, 3);  // another shape: reshaped
  CHECK(other.array().rows() == 50);
  CHECK(other.array().cols() == 3);
}

// A model that runs another run of the same model type inside each block (as a Python
// function calling tm.monte_carlo may): the engine's per-thread buffer of that model type must
// not be shared by the two, or the nested run would overwrite the outer block's values.
TEST_CASE("scratch: a run nested inside a model's block leaves the outer block's values alone", "[engine]") {
  using function = std::function<void(const Eigen::ArrayXXd&, Eigen::Ref<Eigen::ArrayXXd>)>;
  const input_set inputs({{"x", make_uniform(0, 1)}});
  run_options options;
  options.samples = 3000;
  options.seed = 5;
  options.block_size = 1000;
  options.threads = 1;
  options.keep_samples = true;
  int depth = 0;
  double nested_mean = 0;
  function f;
  f = [&](const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) {
    y.col(0) = x.col(0);
    if (depth > 0) return;
    ++depth;
    nested_mean = monte_carlo(inputs, f, {"x"}, options).stats(0).mean;  // the same model type
    --depth;
  };
  const run_result nested = monte_carlo(inputs, f, {"x"}, options);
  depth = 1;  // now f never nests
  const run_result plain = monte_carlo(inputs, f, {"x"}, options);
  CHECK((nested.values() == plain.values()).all());
  CHECK(test::same_bits(nested_mean, plain.stats(0).mean));
}

}  // namespace test_engine

// prefault_for_writing maps fresh pages without changing any byte: a range already written
// keeps its contents, an unaligned range and an empty one are fine, and on Linux (5.14 or
// later) the pages of a fresh anonymous mapping are resident afterwards (mincore).
TEST_CASE("prefault: fresh pages mapped for writing, contents unchanged", "[engine]") {
  std::vector<double> written(10'000);
  for (std::size_t i = 0; i < written.size(); ++i) written[i] = static_cast<double>(i) * 0.5;
  detail::prefault_for_writing(written.data() + 3, 5'000 * sizeof(double));
  detail::prefault_for_writing(written.data(), 0);
  for (std::size_t i = 0; i < written.size(); ++i) REQUIRE(written[i] == static_cast<double>(i) * 0.5);
#if defined(__linux__)
  const std::size_t page = 4096, pages = 64;
  void* fresh = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(fresh != MAP_FAILED);
  std::vector<unsigned char> resident(pages);
  REQUIRE(::mincore(fresh, pages * page, resident.data()) == 0);
  CHECK(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return (r & 1) != 0; }) == 0);
  // Pages 2 .. 9, from a pointer inside page 2.
  detail::prefault_for_writing(static_cast<char*>(fresh) + 2 * page + 100, 7 * page);
  REQUIRE(::mincore(fresh, pages * page, resident.data()) == 0);
  std::size_t mapped = 0;
  for (std::size_t p = 0; p < pages; ++p) mapped += (resident[p] & 1) != 0 ? 1 : 0;
  if (mapped == 0) {
    WARN("this kernel does not know MADV_POPULATE_WRITE (before Linux 5.14): the hint did nothing");
  } else {
    for (std::size_t p = 0; p < pages; ++p) CHECK(((resident[p] & 1) != 0) == (p >= 2 && p <= 9));
  }
  for (std::size_t b = 0; b < pages * page; ++b) REQUIRE(static_cast<const unsigned char*>(fresh)[b] == 0);
  ::munmap(fresh, pages * page);
#endif
}

// padded_scratch lends the rows asked for, with columns padding_rows further apart (the cache
// sets rule in scratch.hpp), from the same per-thread memory block after block.
TEST_CASE("padded scratch: the rows asked, columns a cache line further apart", "[engine]") {
  detail::scratch_slot slot;
  const double* first = nullptr;
  {
    detail::padded_scratch a(slot, 256, 40);
    auto all = a.array();
    CHECK(all.rows() == 256);
    CHECK(all.cols() == 40);
    CHECK(all.outerStride() == 256 + detail::padding_rows);
    first = all.data();
  }
  detail::padded_scratch again(slot, 256, 40);
  CHECK(again.array().data() == first);
}
