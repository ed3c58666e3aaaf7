// sensitivity/parallelism_search.hpp: the layouts enumerated from the dimensions (data), each
// checked by the scenario's validation and simulated, and their ranking.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "input_error_of.hpp"
#include "trnmodel/sensitivity/parallelism_search.hpp"
#include "trnmodel/throughput/profile_files.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_parallelism_search {

using namespace trnmodel::sensitivity;

namespace {


// Llama-3-70B on 16 trn2.48xlarge (256 chips, 16 per node, the fast domain), analytic step time.
scenario llama70b_analytic() {
  const std::string file = std::string(TRNMODEL_SOURCE_DIR) + "/examples/llama3-70b-full-trn2x16.json";
  return scenario::from_file(file, shipped_profiles())
      .updated({{"model.parameters", 70.6e9},
                {"model.layers", 80},
                {"model.hidden_size", 8192},
                {"model.heads", 64},
                {"model.ffn_size", 28672},
                {"model.vocab_size", 128256},
                {"model.sequence_length", 8192},
                {"parallelism.global_batch", 256},
                {"job.recompute", "selective"},
                {"throughput.step_time_s", nullptr},
                {"throughput.mode", "analytic"},
                {"throughput.compute_efficiency", 0.45},
                {"parallelism.tp", 8},
                {"parallelism.pp", 4},
                {"parallelism.dp", 8}});
}

run_options runs(std::uint64_t samples) {
  run_options o;
  o.samples = samples;
  o.seed = 2;
  return o;
}

std::vector<long long> divisors(long long n) {
  std::vector<long long> d;
  for (long long k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

}  // namespace

TEST_CASE("search: the layouts of nested loops, each fitting one simulated as the scenario itself") {
  const scenario s = llama70b_analytic();
  parallelism_search_options search;
  search.micro_batches = {1, 2};
  const auto r = search_parallelism(s, runs(200), search);
  // tp, cp, pp by default; cp only 1 at 8,192 tokens (each chip keeps at least 8,192).
  CHECK(r.dimension_names == std::vector<std::string>{"tp", "cp", "pp"});
  // The same enumeration written out: tp | 16 chips of a domain, pp | 80 layers, tp·pp | 256.
  REQUIRE(s.profile()->chips_per_domain() == 16);
  std::vector<std::vector<long long>> expected;
  for (const long long tp : divisors(16))
    for (const long long pp : divisors(80))
      if (256 % (tp * pp) == 0)
        for (const long long mb : {1LL, 2LL})
          if (256 % (256 / (tp * pp) * mb) == 0) expected.push_back({tp, pp, 256 / (tp * pp), mb});
  REQUIRE(r.layouts.size() == expected.size());
  std::size_t fits = 0;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const auto& c = r.layouts[k];
    CHECK(c.values[1] == 1);
    CHECK(std::vector<long long>{c.values[0], c.values[2], c.dp, c.micro_batch} == expected[k]);
    CHECK(c.fits == c.reason.empty());
    fits += c.fits;
  }
  CHECK(fits >= 5);
  CHECK(fits < r.layouts.size());  // some do not fit in device memory, with the reason
  for (const auto& c : r.layouts)
    if (!c.fits) CHECK(c.reason.find("GiB over") != std::string::npos);
  // A fitting layout's medians are its own streamed run's.
  for (const auto& c : r.layouts) {
    if (!c.fits) continue;
    run_options streamed = runs(200);
    streamed.keep_samples = false;
    const run_result own = simulate(s.updated({{"parallelism.tp", c.values[0]},
                                               {"parallelism.pp", c.values[2]},
                                               {"parallelism.dp", c.dp},
                                               {"parallelism.micro_batch", c.micro_batch}}),
                                    streamed, true);
    CHECK(test::same_bits(c.step_time_s, own.quantile(metric::step_time_s, 0.5)));
    CHECK(test::same_bits(c.step_time_p90_s, own.quantile(metric::step_time_s, 0.9)));
    CHECK(test::same_bits(c.wall_h, own.quantile(metric::wall_h, 0.5)));
    CHECK(test::same_bits(c.run_cost_usd, own.quantile(metric::run_cost_usd, 0.5)));
    break;
  }
  // Ranked: the fitting layouts by median cost, then the others in enumeration order.
  const auto order = r.ranked();
  REQUIRE(order.size() == r.layouts.size());
  for (std::size_t k = 1; k < fits; ++k)
    CHECK(r.layouts[order[k - 1]].run_cost_usd <= r.layouts[order[k]].run_cost_usd);
  for (std::size_t k = fits; k < order.size(); ++k) CHECK(!r.layouts[order[k]].fits);
  CHECK(std::is_sorted(order.begin() + static_cast<std::ptrdiff_t>(fits), order.end()));
}

TEST_CASE("search: over node counts, each count's layouts as the search at that count") {
  const scenario s = llama70b_analytic();
  parallelism_search_options search;
  search.micro_batches = {1};
  search.max_tp = 8;
  search.node_counts = {8, 16, 32};
  const auto r = search_parallelism(s, runs(100), search);
  // Node counts vary slowest: the layouts at 8 nodes, then 16, then 32, each block the search
  // of the scenario with that node count (the same values, bit for bit).
  std::size_t k = 0;
  std::size_t fitting_counts = 0;
  for (const long long nodes : search.node_counts) {
    parallelism_search_options one = search;
    one.node_counts.clear();
    // The scenario at that count (its own layout, tp 8 x pp 4, scaled by dp, to be valid).
    const auto alone =
        search_parallelism(s.updated({{"cluster.nodes", nodes}, {"parallelism.dp", nodes / 2}}), runs(100), one);
    REQUIRE(alone.layouts.size() > 0);
    bool any_fits = false;
    for (const auto& c : alone.layouts) {
      REQUIRE(k < r.layouts.size());
      const auto& got = r.layouts[k++];
      CHECK(got.nodes == nodes);
      CHECK(c.nodes == nodes);
      CHECK(got.values == c.values);
      // dp takes what the count's chips leave: nodes x 16 chips.
      long long product = 1;
      for (const long long v : got.values) product *= v;
      CHECK(got.dp * product == nodes * 16);
      CHECK(got.micro_batch == c.micro_batch);
      CHECK(got.fits == c.fits);
      CHECK(got.reason == c.reason);
      CHECK(test::same_bits(got.run_cost_usd, c.run_cost_usd));
      CHECK(test::same_bits(got.step_time_p90_s, c.step_time_p90_s));
      any_fits = any_fits || got.fits;
    }
    fitting_counts += any_fits;
  }
  CHECK(k == r.layouts.size());
  CHECK(fitting_counts == 3);
  // One layout evaluated alone, as a task of a split search would, is the search's.
  const auto layouts = enumerate_layouts(s, search);
  REQUIRE(layouts.layouts.size() == r.layouts.size());
  layout_candidate last = layouts.layouts.back();
  CHECK(std::isnan(last.run_cost_usd));  // enumerated, not evaluated
  run_options one_thread = runs(100);
  one_thread.threads = 1;
  evaluate_layout(s, layouts.dimension_paths, last, one_thread);
  CHECK(last.fits == r.layouts.back().fits);
  CHECK(test::same_bits(last.wall_h, r.layouts.back().wall_h));
  search.node_counts = {0};
  CHECK(test::input_error_of([&] { enumerate_layouts(s, search); }) == "nodes: node counts must be ≥ 1, got 0");
}

TEST_CASE("search: the dimensions are data (max_tp, one more dimension)") {
  const scenario s = llama70b_analytic();
  CHECK(default_layout_dimensions(s, 4)[0].values == std::vector<long long>{1, 2, 4});
  CHECK(default_layout_dimensions(s)[0].values == std::vector<long long>{1, 2, 4, 8, 16});
  CHECK(default_layout_dimensions(s)[1].name == "cp");
  CHECK(default_layout_dimensions(s)[1].values == std::vector<long long>{1});  // 8,192 tokens: no cp
  CHECK(default_layout_dimensions(s)[2].values == divisors(80));
  // Longer sequences: the divisors leaving each chip at least 8,192 tokens, capped by max_cp.
  CHECK(context_parallel_degrees(32768) == std::vector<long long>{1, 2, 4});
  CHECK(context_parallel_degrees(131072, 8) == std::vector<long long>{1, 2, 4, 8});
  CHECK(context_parallel_degrees(131072, 1) == std::vector<long long>{1});
  const scenario long_context =
      s.updated({{"model.sequence_length", 32768}, {"parallelism.cp", 4}, {"parallelism.dp", 2}});
  CHECK(default_layout_dimensions(long_context, 0, 2)[1].values == std::vector<long long>{1, 2});
  parallelism_search_options search;
  search.micro_batches = {1};
  search.dimensions = {{"tp", "parallelism.tp", {8}}, {"pp", "parallelism.pp", {4}}, {"cp", "parallelism.cp", {1, 2}}};
  const auto r = search_parallelism(s, runs(100), search);
  CHECK(r.dimension_names == std::vector<std::string>{"tp", "pp", "cp"});
  REQUIRE(r.layouts.size() == 2);
  CHECK(r.layouts[0].values == std::vector<long long>{8, 4, 1});
  CHECK(r.layouts[0].dp == 8);
  CHECK(r.layouts[1].values == std::vector<long long>{8, 4, 2});
  CHECK(r.layouts[1].dp == 4);  // 256 chips / (8 · 4 · 2)
  CHECK(r.layouts[0].fits);
}

TEST_CASE("search: what it refuses, by path") {
  const scenario s = llama70b_analytic();
  CHECK(test::input_error_of([&] {
          search_parallelism(s.updated({{"throughput.mode", "measured"}, {"throughput.step_time_s", 10}}), runs(10));
        }) ==
        "throughput.mode: the search needs a step time derived from the platform (flops, analytic or "
        "extrapolated), got measured");
  parallelism_search_options search;
  search.rank_by = metric::billed_h;
  CHECK(test::input_error_of([&] { search_parallelism(s, runs(10), search); }) ==
        "rank_by: must be run_cost_usd, step_time_s or wall_h, got billed_h");
  search = {};
  search.micro_batches = {0};
  CHECK(test::input_error_of([&] { search_parallelism(s, runs(10), search); }) == "micro_batches: must be ≥ 1, got 0");
}

}  // namespace test_parallelism_search
