#pragma once
// What the C++ simulate benchmarks share: their command line (scenario, samples, repeats) and the
// scenario loaded with its quantile tables already built, so that no timing pays for them.
#include <cstdint>
#include <string>

#include "trnmodel/trnmodel.hpp"

struct bench_args {
  std::string path;  ///< the scenario file (default: the Llama-3-8B LoRA Trn2 example)
  std::uint64_t samples;  ///< samples per timed run
  int repeats;  ///< timed repeats of each part (default 5)
};

/// argv[1..3]: scenario file, samples, repeats; each may be left out.
inline bench_args parse_bench_args(int argc, char** argv, std::uint64_t default_samples) {
  return {argc > 1 ? argv[1] : TRNMODEL_BENCH_SOURCE_DIR "/examples/llama3-8b-lora-trn2.json",
          argc > 2 ? std::stoull(argv[2]) : default_samples, argc > 3 ? std::stoi(argv[3]) : 5};
}

/// The scenario at `path` after a 1,000-sample run, which builds its quantile tables.
inline trnmodel::scenario warmed_scenario(const std::string& path) {
  trnmodel::scenario s = trnmodel::scenario::from_file(path);
  trnmodel::run_options warm;
  warm.samples = 1000;
  trnmodel::simulate(s, warm);
  return s;
}
