// The pricer of docs/cpp.md: a tool that prices a training job on a platform before admitting
// it, built against the compiled target trnmodel::trnmodel_lib with only <trnmodel/embed.hpp>.
// It prints every number as "key value" (%.17g, which round-trips a double exactly);
// check_pricer.py computes the same calls in Python and requires the same bits.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <trnmodel/embed.hpp>

namespace te = trnmodel::embed;

namespace {

int failed = 0;

void print(const std::string& key, double value) { std::printf("%s %.17g\n", key.c_str(), value); }

void check(bool ok, const std::string& what) {
  std::printf("# %s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  failed += ok ? 0 : 1;
}

// The job: Llama-3-8B LoRA from the bundled example, its step time derived from FLOPs on the
// platform's profile (model FLOPs utilization 17-37%) instead of assumed.
te::scenario job(const std::string& examples, const te::profiles& profiles) {
  return te::scenario::from_file(examples + "/llama3-8b-lora-trn2.json", profiles)
      .updated({{"throughput.mode", R"("flops")"},
                {"throughput.step_time_s", "null"},
                {"throughput.model_flops_utilization", R"({"dist": "pert", "lo": 0.17, "mode": 0.25, "hi": 0.37})"},
                {"model.parameters", "8.03e9"},
                {"model.sequence_length", "4096"},
                {"parallelism.global_batch", "64"},
                {"parallelism.dp", "16"}});
}

// The same job on another platform (a shipped profile name), at its chips and price.
te::scenario on(const te::scenario& base, const std::string& platform, int chips, double node_hour_usd) {
  return base.updated({{"cluster.platform", "\"" + platform + "\""},
                       {"parallelism.dp", std::to_string(chips)},
                       {"prices.node_hour_usd", std::to_string(node_hour_usd)}});
}

}  // namespace

int main(int argc, char** argv) {
  const std::string examples = argc > 1 ? argv[1] : TRNMODEL_EXAMPLES_DIR;

  // Profiles: the shipped ones, installed with the package.
  const te::profiles profiles = te::shipped_profiles();
  check(profiles.contains("trn2.48xlarge") && profiles.contains("p5.48xlarge"), "the shipped profiles are found");

  const te::profiles again = te::load_profiles(TRNMODEL_PROFILES_DIR);  // a directory of profiles
  check(again.names() == profiles.names(), "load_profiles of the installed directory gives the shipped profiles");
  const te::profiles mine = profiles.with_file("mine", std::string(TRNMODEL_PROFILES_DIR) + "/trn2.48xlarge.json");
  check(mine.contains("mine") && !profiles.contains("mine"), "with_file adds a profile to a copy");

  // The README's lines: the shipped profiles are the default library.
  const te::scenario readme =
      te::scenario::from_file(examples + "/llama3-8b-lora-trn2.json").updated("prices.node_hour_usd", 35.76);
  check(readme.profile_name() == "trn2.48xlarge", "a scenario file finds the shipped profiles by default");

  // Load, then update: the price of a fresh quote.
  const te::scenario base = job(examples, profiles);
  const te::scenario trn2 = base.updated("prices.node_hour_usd", 35.76);
  const te::scenario p5 = on(base, "p5.48xlarge", 8, 55.04);
  check(trn2.mode() == "flops" && trn2.profile_name() == "trn2.48xlarge", "the step time comes from the profile");

  // Simulate with options; P50/P90 by name.
  trnmodel::run_options options;
  options.samples = 20'000;
  options.seed = 1;
  std::uint64_t reported = 0;
  options.progress = [&](std::uint64_t done, std::uint64_t) { reported = done; };
  const te::result run = te::simulate(trn2, options);
  print("trn2.wall_h.p50", run.quantile("wall_h", 0.5));
  print("trn2.wall_h.p90", run.quantile("wall_h", 0.9));
  print("trn2.run_cost_usd.p50", run.quantile("run_cost_usd", 0.5));
  print("trn2.run_cost_usd.p90", run.quantile("run_cost_usd", 0.9));
  print("trn2.run_cost_usd.mean", run.stats("run_cost_usd").mean);
  print("trn2.step_time_s.mean", run.stats("step_time_s").mean);
  check(reported == options.samples, "progress reached every sample");
  const std::size_t wall = run.index("wall_h");
  check(te::metric_names()[wall] == "wall_h" && run.summary("wall_h").p90 == run.quantile(wall, 0.9),
        "outputs by name or index, in metric_names() order");

  // Only two metrics, streamed (flat memory): the same moments, quantiles within 0.1%.
  trnmodel::run_options streamed = options;
  streamed.keep_samples = false;
  const te::result lean = te::simulate(trn2, streamed, {"wall_h", "run_cost_usd"}, false);
  print("trn2.streamed.run_cost_usd.p90", lean.quantile("run_cost_usd", 0.9));
  print("trn2.streamed.run_cost_usd.mean", lean.stats("run_cost_usd").mean);
  check(lean.names().size() == 2 && lean.stats("run_cost_usd").mean == run.stats("run_cost_usd").mean,
        "two metrics kept, with the bits of the full run's moments");

  // Compare two platforms on common random numbers.
  const te::comparison c = te::compare(trn2, p5, "run_cost_usd", options);
  print("compare.p_a_less_b", c.p_a_less_b());
  print("compare.difference.mean", c.difference().mean);
  print("compare.difference.p50", c.difference_quantile(0.5));
  print("compare.b.p90", c.quantile("b", 0.9));

  // Break-even: the p5 price at which its mean cost equals trn2's.
  const te::break_even_result even =
      te::break_even(trn2, p5, "run_cost_usd", "prices.node_hour_usd", te::statistic::mean(), options);
  print("break_even.value", even.value);
  print("break_even.target", even.target);
  check(std::abs(even.achieved / even.target - 1) < 1e-6, "at the break-even price the means agree");

  // Unknowns: an unquoted price blocks the costs, and says so; allowed, the costs are NaN.
  const te::scenario unquoted = trn2.updated({{"prices.node_hour_usd", R"({"unknown": "not quoted yet"})"}});
  try {
    te::simulate(unquoted, options);
    check(false, "an unknown price is refused");
  } catch (const trnmodel::unknown_input_error& e) {
    check(e.paths() == std::vector<std::string>{"prices.node_hour_usd"}, std::string("refused: ") + e.what());
  }
  const te::result partial = te::simulate(unquoted, options, true);
  check(std::isnan(partial.stats("run_cost_usd").mean) && partial.stats("wall_h").mean == run.stats("wall_h").mean,
        "allowed, the cost is NaN and the wall time unchanged");
  print("unknown.unknown_metrics", static_cast<double>(unquoted.unknown_metrics().size()));
  check(unquoted.unknown_inputs() == std::vector<std::string>{"prices.node_hour_usd (not quoted yet)"},
        "the scenario says what it leaves open");
  const auto drawn = trn2.uncertain_inputs();
  check(std::find(drawn.begin(), drawn.end(), "throughput.model_flops_utilization") != drawn.end(),
        "and what it draws");

  // Errors: bad input names the path, the value and the rule.
  try {
    trn2.updated("checkpoint.every_steps", -5);
    check(false, "a negative interval is refused");
  } catch (const trnmodel::input_error& e) {
    check(std::string(e.what()).find("checkpoint.every_steps") == 0, std::string("refused: ") + e.what());
  }
  try {
    on(base, "trn9.48xlarge", 16, 40);
    check(false, "an unknown platform is refused");
  } catch (const std::invalid_argument& e) {
    check(std::string(e.what()).find("known: ") != std::string::npos, std::string("refused: ") + e.what());
  }

  try {
    te::statistic::quantile(-0.1);
    check(false, "a quantile's probability below 0 is refused");
  } catch (const trnmodel::input_error& e) {
    check(std::string(e.what()) == "statistic: a quantile's probability must be in [0, 1], got -0.1",
          std::string("refused: ") + e.what());
  }

  // Threads and cancellation: any thread count gives the same bits; a hook stops a run.
  trnmodel::run_options one_thread = options;
  one_thread.threads = 1;
  check(te::simulate(trn2, one_thread).quantile("wall_h", 0.9) == run.quantile("wall_h", 0.9),
        "one thread gives the bits of all cores");
  trnmodel::run_options stop = options;
  stop.samples = 10'000'000;
  stop.cancelled = [] { return true; };
  try {
    te::simulate(trn2, stop);
    check(false, "a cancelled run stops");
  } catch (const trnmodel::cancelled_error&) {
    check(true, "a cancelled run throws cancelled_error");
  }

  return failed == 0 ? 0 : 1;
}
