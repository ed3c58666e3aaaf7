// One embedder's file against the compiled target (docs/cpp.md, "Compile cost"): load a
// scenario, simulate, read a P90 by name. Its twin header_only.cpp makes the same calls.
#include <cstdio>

#include <trnmodel/embed.hpp>

int main(int argc, char** argv) {
  namespace te = trnmodel::embed;
  trnmodel::run_options options;
  options.samples = 20'000;
  const te::result r = te::simulate(te::scenario::from_file(argc > 1 ? argv[1] : "scenario.json"), options);
  std::printf("P90 wall time %.6g h\n", r.quantile("wall_h", 0.9));
}
