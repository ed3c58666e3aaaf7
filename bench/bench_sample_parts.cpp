// Where one sample's time goes, on one thread, in C++ alone: the uniforms of every drawn input,
// their quantiles (the draws), the lifecycle model's call (draws, lifecycle, outputs written),
// and `simulate` with samples kept and streamed (the model plus the block statistics, and the
// kept copy or the histograms). Each part is timed over the same samples, round robin, and the
// least of the repeats is reported per sample; the differences between rows give the lifecycle
// and the statistics. The draws' floating-point operations are fixed by the golden results, so
// their cost bounds from below what any faster lifecycle could reach (docs/benchmarks.md).
//
// Build:  cmake -S . -B build/bench -G Ninja -DTRNMODEL_BUILD_BENCH=ON -DTRNMODEL_BUILD_TESTS=OFF
//         cmake --build build/bench --target bench_sample_parts
// Run:    build/bench/bench/bench_sample_parts [scenario.json] [samples] [repeats]
//         (default examples/llama3-8b-lora-trn2.json, 2,000,000 samples, 5 repeats)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_args.hpp"
#include "trnmodel/trnmodel.hpp"

namespace {
using clock_type = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& part) {
  const auto t0 = clock_type::now();
  part();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  using namespace trnmodel;
  const bench_args args = parse_bench_args(argc, argv, 2'000'000);
  const std::string& path = args.path;  // plain names: lambdas below capture them (C++17)
  const std::uint64_t samples = args.samples;
  const int repeats = args.repeats;
  const scenario s = warmed_scenario(path);
  const lifecycle_model model(s);
  const auto inputs = static_cast<Eigen::Index>(model.input_count());
  // The model's own chunk of rows, so that the draws alone run as they do inside the model.
  constexpr Eigen::Index chunk_rows = 256;
  Eigen::ArrayXXd x(chunk_rows + 8, inputs);
  double sink = 0;  // read after the timing, so that no part is optimised away
  const auto draw_columns = [&](bool quantiles) {
    for (std::uint64_t first = 0; first < samples; first += chunk_rows) {
      block_view part;
      part.seed = 0;
      part.first = first;
      part.size = static_cast<Eigen::Index>(std::min<std::uint64_t>(chunk_rows, samples - first));
      for (Eigen::Index j = 0; j < inputs; ++j) {
        double* column = x.col(j).data();
        part.uniforms(model.input_stream(static_cast<std::size_t>(j)), column);
        if (quantiles)
          model.input_quantity(static_cast<std::size_t>(j)).ppf(column, column, static_cast<std::size_t>(part.size));
      }
      sink += x(0, 0);
    }
  };
  const run_options defaults = with_block_size(run_options{});
  const auto block_rows = static_cast<Eigen::Index>(defaults.block_size);
  Eigen::ArrayXXd out(block_rows, static_cast<Eigen::Index>(model.output_names().size()));
  const auto model_calls = [&] {
    for (std::uint64_t first = 0; first < samples; first += static_cast<std::uint64_t>(block_rows)) {
      block_view block;
      block.seed = 0;
      block.first = first;
      block.size = static_cast<Eigen::Index>(std::min<std::uint64_t>(block_rows, samples - first));
      model(block, out.topRows(block.size));
      sink += out(0, 0);
    }
  };
  const auto simulate_once = [&](bool keep) {
    run_options o;
    o.samples = samples;
    o.threads = 1;
    o.keep_samples = keep;
    sink += simulate(s, o).stats("wall_h").mean;
  };
  const std::vector<std::pair<const char*, std::function<void()>>> parts{
      {"uniforms of every drawn input", [&] { draw_columns(false); }},
      {"draws (uniforms and quantiles)", [&] { draw_columns(true); }},
      {"model call (draws, lifecycle, outputs)", model_calls},
      {"simulate, samples kept", [&] { simulate_once(true); }},
      {"simulate, samples streamed", [&] { simulate_once(false); }},
  };
  std::vector<double> least(parts.size(), 1e300);
  for (int r = 0; r < repeats; ++r)
    for (std::size_t k = 0; k < parts.size(); ++k) least[k] = std::min(least[k], seconds_of(parts[k].second));
  std::vector<double> ns(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) ns[k] = 1e9 * least[k] / static_cast<double>(samples);

  std::printf("%s: %lld drawn inputs, %zu outputs; %llu samples, least of %d (round robin), one thread\n\n",
              path.c_str(), static_cast<long long>(inputs), model.output_names().size(),
              static_cast<unsigned long long>(samples), repeats);
  std::printf("| part | ns per sample |\n|---|---:|\n");
  for (std::size_t k = 0; k < parts.size(); ++k) std::printf("| %s | %.1f |\n", parts[k].first, ns[k]);
  std::printf("| quantiles (draws - uniforms) | %.1f |\n", ns[1] - ns[0]);
  std::printf("| lifecycle and outputs (model - draws) | %.1f |\n", ns[2] - ns[1]);
  std::printf("| statistics and kept copy (kept - model) | %.1f |\n", ns[3] - ns[2]);
  std::printf("| statistics and histograms (streamed - model) | %.1f |\n", ns[4] - ns[2]);
  std::printf(
      "\nThe draws are %.0f %% of a kept sample; with the lifecycle and the statistics free, a thread would "
      "run at most %.2f M samples/s (kept today: %.2f M/s).\n",
      100 * ns[1] / ns[3], 1e3 / ns[1], 1e3 / ns[3]);
  return sink == 0.125 ? 2 : 0;
}
