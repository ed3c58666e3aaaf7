// Partial statistics (partial.hpp): a run split into ranges of blocks, each computed on its
// own, sent as bytes and folded in block order, is the single run bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/montecarlo/fingerprint.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/throughput/profile_files.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_partial {

namespace {


input_set test_inputs() {
  return input_set({{"a", make_lognormal(0, 1)}, {"b", make_uniform(-1, 2)}, {"c", make_normal(3, 0.5)}});
}

// Outputs with a large offset (a merge that loses bits shows), negatives and zeros (every part
// of the histogram), NaNs and infinities.
void test_function(const Eigen::ArrayXXd& x, Eigen::Ref<Eigen::ArrayXXd> y) {
  y.col(0) = 1e6 + x.col(0) * x.col(1).exp();
  y.col(1) = (x.col(1) < 0).select(0.0, x.col(1) - x.col(2));
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    y(i, 2) =
        x(i, 1) > 1.9 ? std::numeric_limits<double>::quiet_NaN() : (x(i, 1) < -0.99 ? -INFINITY : std::log(x(i, 0)));
}

const std::vector<std::string> names{"y", "z", "w"};

run_options test_options(bool keep) {
  run_options options;
  options.samples = 50'003;  // a partial last block
  options.seed = 17;
  options.block_size = 1000;
  options.keep_samples = keep;
  options.threads = 2;
  return options;
}

struct model_of {
  const input_set& inputs;
  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    Eigen::ArrayXXd x(block.size, static_cast<Eigen::Index>(inputs.size()));
    inputs.draw(block, x);
    test_function(x, out);
  }
};

void check_same(const run_result& a, const run_result& b) {
  REQUIRE(a.names() == b.names());
  for (std::size_t k = 0; k < a.names().size(); ++k) {
    INFO("output " << a.names()[k]);
    CHECK(a.stats(k).count == b.stats(k).count);
    CHECK(a.stats(k).nan_count == b.stats(k).nan_count);
    CHECK(test::same_bits(a.stats(k).mean, b.stats(k).mean));
    CHECK(test::same_bits(a.stats(k).m2, b.stats(k).m2));
    CHECK(test::same_bits(a.stats(k).min, b.stats(k).min));
    CHECK(test::same_bits(a.stats(k).max, b.stats(k).max));
    const std::vector<double> p{0, 0.001, 0.1, 0.5, 0.9, 0.999, 1};
    const auto qa = a.quantiles(k, p), qb = b.quantiles(k, p);
    for (std::size_t j = 0; j < p.size(); ++j) CHECK(test::same_bits(qa[j], qb[j]));
  }
  const auto sa = a.summary(), sb = b.summary();
  for (std::size_t k = 0; k < sa.size(); ++k)
    for (const auto field :
         {&summary_row::mean, &summary_row::sd, &summary_row::p10, &summary_row::p50, &summary_row::p80,
          &summary_row::p90, &summary_row::p99, &summary_row::min, &summary_row::max})
      CHECK(test::same_bits(sa[k].*field, sb[k].*field));
  CHECK(a.kept() == b.kept());
  if (a.kept()) CHECK((a.values() == b.values() || (a.values().isNaN() && b.values().isNaN())).all());
}

}  // namespace

TEST_CASE("a run split in two, sent as bytes and folded, is the single run bit for bit", "[partial]") {
  const input_set inputs = test_inputs();
  const model_of model{inputs};
  for (const bool keep : {false, true}) {
    INFO("keep " << keep);
    const run_options options = test_options(keep);
    const run_result whole = run(model, names, options);
    const std::uint64_t blocks = detail::block_grid{options.samples, 1000}.blocks();
    for (const std::uint64_t split : {std::uint64_t{1}, std::uint64_t{23}, blocks - 1}) {
      INFO("split at block " << split);
      // Each half on its own, with a thread count of its own: neither changes a bit.
      run_options first_options = options, second_options = options;
      first_options.threads = 1;
      second_options.threads = 3;
      const std::string first = compute_partial(model, names, first_options, 0, split).to_bytes();
      const std::string second = compute_partial(model, names, second_options, split, blocks).to_bytes();
      const run_result folded = fold({run_partial::from_bytes(first), run_partial::from_bytes(second)});
      check_same(folded, whole);
    }
  }
}

TEST_CASE("a partial round-trips through bytes exactly", "[partial]") {
  const input_set inputs = test_inputs();
  const model_of model{inputs};
  for (const bool keep : {false, true}) {
    const run_partial p = compute_partial(model, names, test_options(keep), 7, 19);
    const std::string bytes = p.to_bytes();
    const run_partial q = run_partial::from_bytes(bytes);
    CHECK(q.to_bytes() == bytes);
    CHECK(q.names == p.names);
    CHECK(q.first_block == 7);
    CHECK(q.last_block == 19);
    CHECK(q.first_sample() == 7000);
    CHECK(q.block_moments.size() == 12 * names.size());
    CHECK(q.values.rows() == (keep ? 12'000 : 0));
    CHECK(q.histograms.size() == (keep ? 0 : names.size()));
  }
}

TEST_CASE("folding refuses partials out of order, of another run or corrupt", "[partial]") {
  const input_set inputs = test_inputs();
  const model_of model{inputs};
  const run_options options = test_options(false);
  const run_partial a = compute_partial(model, names, options, 0, 10);
  const run_partial b = compute_partial(model, names, options, 10, 51);
  CHECK_THROWS_WITH(fold({b, a}), test::contains("partial.first_block: is 10, but the fold is at block 0"));
  CHECK_THROWS_WITH(fold({a}), test::contains("partials: blocks [10, 51) of the run were never folded"));
  CHECK_THROWS_WITH(fold({a, a}), test::contains("partial.first_block: is 0, but the fold is at block 10"));
  run_options other_seed = options;
  other_seed.seed = 18;
  CHECK_THROWS_WITH(fold({a, compute_partial(model, names, other_seed, 10, 51)}),
                    test::contains("partial.seed: is 18, but the run being folded has 17"));
  CHECK_THROWS_WITH(fold({a, compute_partial(model, {"y", "z", "v"}, options, 10, 51)}),
                    test::contains("partial.names: is [y, z, v], but the run being folded has [y, z, w]"));
  CHECK_THROWS_WITH(compute_partial(model, names, options, 10, 52),
                    test::contains("blocks: [10, 52) is not a non-empty range"));
  const std::string bytes = a.to_bytes();
  CHECK_THROWS_WITH(run_partial::from_bytes(bytes.substr(0, bytes.size() - 1)), test::contains("partial: truncated"));
  CHECK_THROWS_WITH(run_partial::from_bytes(bytes + "x"), test::contains("partial: trailing bytes"));
  CHECK_THROWS_WITH(run_partial::from_bytes("nonsense"), test::contains("partial: truncated"));
  CHECK(fold({a, b}).stats(0).count + fold({a, b}).stats(0).nan_count == options.samples);
}

TEST_CASE("a process's fingerprint names the library, the lane path and the C library", "[partial]") {
  const std::string mine = bits_fingerprint();
  CHECK(mine.rfind(std::string("trnmodel ") + TRNMODEL_VERSION_STRING + "; lanes " + isa_name(active_isa()) + "; libm ",
                   0) == 0);
  CHECK(bits_fingerprint() == mine);  // a pure function of the process
}

TEST_CASE("a scenario carries the JSON of its hardware profile to another process", "[partial]") {
  const profile_library shipped = load_profiles(shipped_profiles_dir());
  const scenario s = scenario::from_text(
      R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1,
          "platform": "trn2.48xlarge"}, "throughput": {"step_time_s": 2}})",
      shipped);
  REQUIRE(s.profile_document() != nullptr);
  CHECK(*s.profile_document() == shipped.at("trn2.48xlarge"));
  // Rebuilt from its own JSON and that profile alone, it is the same scenario.
  const scenario again = scenario::from_json(s.to_json(), {{"trn2.48xlarge", *s.profile_document()}});
  CHECK(again.to_json() == s.to_json());
  CHECK(again.profile() != nullptr);
  const scenario free_text = scenario::from_text(
      R"({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1,
          "platform": "my-own-cluster"}, "throughput": {"step_time_s": 2}})");
  CHECK(free_text.profile_document() == nullptr);
}

}  // namespace test_partial
