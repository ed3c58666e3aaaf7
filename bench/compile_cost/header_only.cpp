// The twin of thin.cpp against the header-only target: the same calls, the whole library
// (Eigen, Boost.Math, oneTBB, nlohmann/json) compiled into this file.
#include <cstdio>

#include <trnmodel/trnmodel.hpp>

int main(int argc, char** argv) {
  trnmodel::run_options options;
  options.samples = 20'000;
  const trnmodel::run_result r = trnmodel::simulate(
      trnmodel::scenario::from_file(argc > 1 ? argv[1] : "scenario.json", trnmodel::shipped_profiles()), options);
  std::printf("P90 wall time %.6g h\n", r.quantile("wall_h", 0.9));
}
