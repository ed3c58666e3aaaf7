// Thread scaling of the lifecycle simulator in C++ alone (no Python in the timing): wall time of
// `simulate` with 1 and with 2 threads, samples kept and streamed, round robin, best and median
// of the repeats. bench/bench_simulate.py reports the same ratio through the Python binding.
//
// Build:  cmake -S . -B build/bench -G Ninja -DTRNMODEL_BUILD_BENCH=ON -DTRNMODEL_BUILD_TESTS=OFF
//         cmake --build build/bench --target bench_threads
// Run:    build/bench/bench/bench_threads [scenario.json] [samples] [repeats]
//         (default examples/llama3-8b-lora-trn2.json, 4,000,000 samples, 5 repeats)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_args.hpp"
#include "trnmodel/trnmodel.hpp"

int main(int argc, char** argv) {
  using namespace trnmodel;
  const bench_args args = parse_bench_args(argc, argv, 4'000'000);
  const std::string& path = args.path;
  const std::uint64_t samples = args.samples;
  const int repeats = args.repeats;
  const scenario s = warmed_scenario(path);
  std::map<std::pair<bool, int>, std::vector<double>> seconds;
  for (int r = 0; r < repeats; ++r)
    for (const bool keep : {true, false})
      for (const int threads : {1, 2}) {
        run_options o;
        o.samples = samples;
        o.threads = threads;
        o.keep_samples = keep;
        const auto t0 = std::chrono::steady_clock::now();
        const run_result result = simulate(s, o);
        seconds[{keep, threads}].push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (result.samples() != samples) return 1;
      }
  std::printf("%s, %llu samples, %d repeats (round robin)\n\n", path.c_str(), static_cast<unsigned long long>(samples),
              repeats);
  std::printf("| keep_samples | 1 thread, best (s) | 2 threads, best (s) | scaling, best | scaling, median |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const bool keep : {true, false}) {
    std::vector<double>& one = seconds[{keep, 1}];
    std::vector<double>& two = seconds[{keep, 2}];
    std::sort(one.begin(), one.end());
    std::sort(two.begin(), two.end());
    const double median_one = one[one.size() / 2], median_two = two[two.size() / 2];
    std::printf("| %s | %.3f | %.3f | %.2fx | %.2fx |\n", keep ? "true" : "false", one[0], two[0], one[0] / two[0],
                median_one / median_two);
  }
}
