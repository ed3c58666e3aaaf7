// Where one sample's time goes, on one thread, in C++ alone: the uniforms of every drawn input,
// their quantiles (the draws), the lifecycle model's call (draws, lifecycle, outputs written),
// and `simulate` with samples kept and streamed (the model plus the block statistics, and the
// kept copy or the histograms); then the model call with every sample run by the per-sample
// simulator (the lifecycle without the common path of a block), and the statistics beside their
// floors (the block moments beside one plain pass over the same values, the kept copy beside a
// memcpy of the same bytes into a fresh buffer). Each part is timed over the same samples, round robin, and the
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
#include <cstring>
#include <memory>
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
  // The draws of the part of `rows` samples from `first` into x, as the model makes them
  // (the uniforms alone when not `quantiles`).
  const auto draw_part = [&](std::uint64_t first, Eigen::Index rows, bool quantiles) {
    block_view part;
    part.seed = 0;
    part.first = first;
    part.size = rows;
    for (Eigen::Index j = 0; j < inputs; ++j) {
      double* column = x.col(j).data();
      part.uniforms(model.input_stream(static_cast<std::size_t>(j)), column);
      if (quantiles)
        model.input_quantity(static_cast<std::size_t>(j)).ppf(column, column, static_cast<std::size_t>(rows));
    }
  };
  const auto part_rows = [&](std::uint64_t first) {
    return static_cast<Eigen::Index>(std::min<std::uint64_t>(chunk_rows, samples - first));
  };
  const auto draw_columns = [&](bool quantiles) {
    for (std::uint64_t first = 0; first < samples; first += chunk_rows) {
      draw_part(first, part_rows(first), quantiles);
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
  // The lifecycle as the per-sample simulator alone runs it (no common path of a block): the
  // same draws and outputs, for the "before" of the lifecycle's own cost.
  const auto per_sample_calls = [&] {
    for (std::uint64_t first = 0; first < samples; first += chunk_rows) {
      const Eigen::Index rows = part_rows(first);
      draw_part(first, rows, true);
      model.evaluate_per_sample(
          0, x.topRows(rows), [&](Eigen::Index row) { return first + static_cast<std::uint64_t>(row); },
          out.topRows(rows));
      sink += out(0, 0);
    }
  };
  // The statistics' floors: one block of outputs, its moments (the engine's add_columns)
  // beside one plain pass adding every value of the same bytes; the kept copy (the engine's
  // assignment of each block to its rows of a fresh array) beside one memcpy of the same bytes
  // into a fresh buffer. Every block is the same block here: what is timed is the statistics.
  const auto outputs = static_cast<Eigen::Index>(model.output_names().size());
  model(block_view{0, 0, block_rows}, out);
  std::vector<moments> block_moments(static_cast<std::size_t>(outputs));
  const auto blocks = (samples + static_cast<std::uint64_t>(block_rows) - 1) / static_cast<std::uint64_t>(block_rows);
  const auto moments_of_blocks = [&] {
    for (std::uint64_t b = 0; b < blocks; ++b) {
      std::fill(block_moments.begin(), block_moments.end(), moments{});
      moments::add_columns(out.data(), out.outerStride(), static_cast<std::size_t>(block_rows),
                           static_cast<std::size_t>(outputs), block_moments.data());
      sink += block_moments[0].mean;
    }
  };
  const auto plain_pass = [&] {
    for (std::uint64_t b = 0; b < blocks; ++b) {
      double sums[4] = {0, 0, 0, 0};
      for (Eigen::Index k = 0; k < outputs; ++k) {
        const double* column = out.col(k).data();
        for (Eigen::Index i = 0; i + 3 < block_rows; i += 4)
          for (int l = 0; l < 4; ++l) sums[l] += column[i + l];
      }
      sink += sums[0] + sums[1] + sums[2] + sums[3];
    }
  };
  const auto kept_copy = [&] {
    Eigen::ArrayXXd kept(static_cast<Eigen::Index>(blocks) * block_rows, outputs);
    for (std::uint64_t b = 0; b < blocks; ++b) kept.middleRows(static_cast<Eigen::Index>(b) * block_rows, block_rows) = out;
    sink += kept(0, 0);
  };
  const auto plain_copy = [&] {
    const std::size_t bytes = static_cast<std::size_t>(blocks) * static_cast<std::size_t>(block_rows * outputs) * sizeof(double);
    std::vector<double> source(bytes / sizeof(double), 1.0);  // filled outside the timing below
    const auto t0 = clock_type::now();
    std::unique_ptr<double[]> fresh(new double[bytes / sizeof(double)]);
    std::memcpy(fresh.get(), source.data(), bytes);
    sink += fresh[0];
    return std::chrono::duration<double>(clock_type::now() - t0).count();
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
      {"model call, every sample by the per-sample simulator", per_sample_calls},
      {"block moments (add_columns)", moments_of_blocks},
      {"floor: one plain pass adding the same values", plain_pass},
      {"kept copy into a fresh array", kept_copy},
  };
  std::vector<double> least(parts.size() + 1, 1e300);
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t k = 0; k < parts.size(); ++k) least[k] = std::min(least[k], seconds_of(parts[k].second));
    least[parts.size()] = std::min(least[parts.size()], plain_copy());
  }
  std::vector<double> ns(least.size());
  for (std::size_t k = 0; k < least.size(); ++k) ns[k] = 1e9 * least[k] / static_cast<double>(samples);

  std::printf("%s: %lld drawn inputs, %zu outputs; %llu samples, least of %d (round robin), one thread\n\n",
              path.c_str(), static_cast<long long>(inputs), model.output_names().size(),
              static_cast<unsigned long long>(samples), repeats);
  std::printf("| part | ns per sample |\n|---|---:|\n");
  for (std::size_t k = 0; k < parts.size(); ++k) std::printf("| %s | %.1f |\n", parts[k].first, ns[k]);
  std::printf("| quantiles (draws - uniforms) | %.1f |\n", ns[1] - ns[0]);
  std::printf("| lifecycle and outputs (model - draws) | %.1f |\n", ns[2] - ns[1]);
  std::printf("| statistics and kept copy (kept - model) | %.1f |\n", ns[3] - ns[2]);
  std::printf("| statistics and histograms (streamed - model) | %.1f |\n", ns[4] - ns[2]);
  std::printf("| floor: memcpy of the same bytes into a fresh buffer | %.1f |\n", ns[parts.size()]);
  std::printf("| lifecycle and outputs, per-sample simulator alone (its model call - draws) | %.1f |\n",
              ns[5] - ns[1]);
  std::printf("\nBlock moments %.2f x their floor; the kept copy %.2f x its floor.\n", ns[6] / ns[7],
              ns[8] / ns[parts.size()]);
  std::printf(
      "\nThe draws are %.0f %% of a kept sample; with the lifecycle and the statistics free, a thread would "
      "run at most %.2f M samples/s (kept today: %.2f M/s).\n",
      100 * ns[1] / ns[3], 1e3 / ns[1], 1e3 / ns[3]);
  return sink == 0.125 ? 2 : 0;
}
