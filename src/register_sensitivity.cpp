// Sensitivity and comparison (docs/sensitivity.md): Sobol indices of scenarios and of Python functions,
// tornado bars, rank correlations, comparison on common random numbers and break-even.
// Heavy loops run without the GIL; a Python function is called with it, one block at a time.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/sensitivity/checkpoint_interval.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/sensitivity/pairing.hpp"
#include "trnmodel/sensitivity/parallelism_search.hpp"
#include "trnmodel/sensitivity/run_request.hpp"
#include "trnmodel/sensitivity/rank_correlation.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/sweep.hpp"
#include "trnmodel/sensitivity/tornado.hpp"

namespace py = pybind11;

namespace trnmodel::python {

// The file's helpers, in a namespace of their own: the module is compiled as unity translation
// units (src/CMakeLists.txt), where an anonymous namespace and its using-directive would reach
// the other files of the unit.
namespace sensitivity_bindings {

using namespace trnmodel::sensitivity;

statistic statistic_from(double probability) {
  return probability < 0 ? statistic::mean() : statistic::quantile(probability);
}

// The uncertain inputs of a scenario beside their rank correlations with an output.
struct rank_correlation_table {
  std::vector<std::string> factors;
  std::vector<double> spearman, prcc;
};

// Runs body(sobol_options) without the GIL, Ctrl-C and progress hooked in.
template <class Body> auto run_sobol(std::uint64_t base_samples, std::uint64_t seed, int threads, double confidence,
                                     Eigen::Index base_block, const py::object& progress, const Body& body) {
  run_options run = make_run(base_samples, seed, threads);
  run.block_size = base_block;
  return with_python_hooks(run, progress, [&](const run_options& hooked) {
    sobol_options options;
    options.run = hooked;
    options.confidence = confidence;
    return body(options);
  });
}

// The outputs of the scenario from one design (one lifecycle per design row).
std::vector<sobol_result> sobol_scenario(const scenario& s, const std::vector<std::string>& outputs,
                                         std::uint64_t base_samples, std::uint64_t seed, int threads,
                                         double confidence, Eigen::Index block_size, const py::object& progress) {
  return run_sobol(base_samples, seed, threads, confidence, block_size, progress,
                   [&](const sobol_options& options) { return sobol(s, outputs, options); });
}

// The Saltelli design of a Python function of named inputs: its rows drawn without the GIL, f
// called with it, once per block of about block_rows rows.
class python_design {
 public:
  python_design(py::function f, const std::vector<std::string>& names, const std::vector<quantity>& values,
                Eigen::Index block_rows)
      : f_(std::move(f)), set_(input_set_of(names, values)), design_(set_), block_rows_(block_rows) {}

  void operator()(std::uint64_t block_seed, std::uint64_t base_first, Eigen::Index n, Eigen::ArrayXXd& y) const {
    Eigen::ArrayXXd x;
    design_.rows(block_seed, base_first, n, x);
    py::gil_scoped_acquire gil;
    py::array_t<double, py::array::f_style> x_py({static_cast<py::ssize_t>(x.rows()), columns()});
    std::copy(x.data(), x.data() + x.size(), x_py.mutable_data());
    const auto out = checked_block_outputs(f_(x_py), static_cast<py::ssize_t>(x.rows()), 1);
    const auto r = out.unchecked();
    for (Eigen::Index kind = 0; kind < y.cols(); ++kind)
      for (Eigen::Index i = 0; i < n; ++i) y(i, kind) = out.ndim() == 1 ? r(kind * n + i) : r(kind * n + i, 0);
  }
  std::vector<std::string> factors() const { return design_.factors(); }
  // Base samples per block: about block_rows rows per call of f, whatever the number of factors.
  Eigen::Index base_block() const { return std::max<Eigen::Index>(1, block_rows_ / design_.kinds()); }

 private:
  py::ssize_t columns() const { return static_cast<py::ssize_t>(set_.size()); }

  py::function f_;
  input_set set_;
  function_design design_;
  Eigen::Index block_rows_;
};

sobol_result sobol_python_function(py::function f, std::vector<std::string> names, std::vector<quantity> values,
                                   std::uint64_t base_samples, std::uint64_t seed, int threads, double confidence,
                                   Eigen::Index block_rows, const py::object& progress) {
  const python_design design(std::move(f), names, values, block_rows);
  return run_sobol(base_samples, seed, threads, confidence, design.base_block(), progress,
                   [&](const sobol_options& options) { return sobol(design, design.factors(), options, "f"); });
}

}  // namespace sensitivity_bindings

void register_sensitivity(py::module_& m) {
  using namespace trnmodel::sensitivity;
  using namespace sensitivity_bindings;
  // Result types by name: SALib's column names for Sobol indices, the C++ names elsewhere.
  py::class_<sobol_result>(m, "SobolResult")
      .def_readonly("factors", &sobol_result::factors)
      .def_readonly("S1", &sobol_result::first_order)
      .def_readonly("S1_conf", &sobol_result::first_order_conf)
      .def_readonly("ST", &sobol_result::total)
      .def_readonly("ST_conf", &sobol_result::total_conf)
      .def_readonly("notes", &sobol_result::notes)
      .def_readonly("note", &sobol_result::note)
      .def_readonly("mean", &sobol_result::output_mean)
      .def_readonly("variance", &sobol_result::output_variance)
      .def_readonly("base_samples", &sobol_result::base_samples)
      .def_readonly("evaluations", &sobol_result::evaluations)
      .def_readonly("confidence", &sobol_result::confidence);
  py::class_<tornado_bar>(m, "TornadoBar")
      .def_readonly("factor", &tornado_bar::factor)
      .def_readonly("low_value", &tornado_bar::low_value)
      .def_readonly("high_value", &tornado_bar::high_value)
      .def_readonly("low", &tornado_bar::low_statistic)
      .def_readonly("high", &tornado_bar::high_statistic)
      .def_readonly("swing", &tornado_bar::swing);
  py::class_<tornado_result>(m, "TornadoResult")
      .def_readonly("baseline", &tornado_result::baseline)
      .def_readonly("bars", &tornado_result::bars);
  py::class_<break_even_result>(m, "BreakEvenResult")
      .def_readonly("value", &break_even_result::value)
      .def_readonly("target", &break_even_result::target)
      .def_readonly("achieved", &break_even_result::achieved)
      .def_readonly("evaluations", &break_even_result::evaluations);
  py::class_<rank_correlation_table>(m, "RankCorrelations")
      .def_readonly("factors", &rank_correlation_table::factors)
      .def_readonly("spearman", &rank_correlation_table::spearman)
      .def_readonly("prcc", &rank_correlation_table::prcc);

  // The split form of a scenario's Sobol analysis (docs/scaling.md): the shift, a range's block
  // statistics as bytes, and their fold in block order (bit for bit sobol_scenario's result).
  const auto sobol_run = [](std::uint64_t base_samples, std::uint64_t seed, double confidence,
                            std::ptrdiff_t block_size) {
    sobol_options options;
    options.run = make_run(base_samples, seed, 1);
    options.run.block_size = block_size;
    options.confidence = confidence;
    return options;
  };
  m.def(
      "sobol_scenario_shift",
      [sobol_run](const scenario& s, const std::string& output, std::uint64_t base_samples, std::uint64_t seed,
                  std::ptrdiff_t block_size) {
        const scenario_design design(s, output);
        py::gil_scoped_release release;
        return sobol_shift(design, design.factors().size(), sobol_run(base_samples, seed, 0.95, block_size));
      },
      py::arg("scenario"), py::arg("output"), py::kw_only(), py::arg("base_samples"), py::arg("seed"),
      py::arg("block_size"));
  m.def(
      "sobol_scenario_partial",
      [sobol_run](const scenario& s, const std::string& output, std::uint64_t base_samples, std::uint64_t seed,
                  std::ptrdiff_t block_size, double shift, std::uint64_t first_block, std::uint64_t last_block) {
        const scenario_design design(s, output);
        std::string bytes;
        {
          py::gil_scoped_release release;
          bytes = sobol_partial(design, design.factors().size(), sobol_run(base_samples, seed, 0.95, block_size), shift,
                                first_block, last_block);
        }
        return py::bytes(bytes);
      },
      py::arg("scenario"), py::arg("output"), py::kw_only(), py::arg("base_samples"), py::arg("seed"),
      py::arg("block_size"), py::arg("shift"), py::arg("first_block"), py::arg("last_block"));
  m.def(
      "sobol_scenario_fold",
      [sobol_run](const scenario& s, const std::string& output, std::uint64_t base_samples, std::uint64_t seed,
                  double confidence, std::ptrdiff_t block_size, const std::vector<py::bytes>& partials) {
        const scenario_design design(s, output);
        std::vector<std::string> bytes;
        for (const auto& b : partials) bytes.push_back(std::string(b));
        py::gil_scoped_release release;
        return sobol_fold(design.factors(), sobol_run(base_samples, seed, confidence, block_size), bytes, output);
      },
      py::arg("scenario"), py::arg("output"), py::kw_only(), py::arg("base_samples"), py::arg("seed"),
      py::arg("confidence"), py::arg("block_size"), py::arg("partials"));
  // The same split for a Python function (tm.sobol_function with executor=): f travels with
  // each task, pickled by the executor.
  m.def(
      "sobol_function_shift",
      [sobol_run](py::function f, const std::vector<std::string>& names, const std::vector<quantity>& values,
                  std::uint64_t base_samples, std::uint64_t seed, Eigen::Index block_rows) {
        // (shift, blocks): the run's block count with it, as the base block depends on the factors.
        const python_design design(std::move(f), names, values, block_rows);
        const sobol_options options = sobol_run(base_samples, seed, 0.95, design.base_block());
        const std::uint64_t blocks = trnmodel::detail::block_grid{base_samples, static_cast<std::uint64_t>(design.base_block())}.blocks();
        double shift = 0;
        {
          py::gil_scoped_release release;
          shift = sobol_shift(design, design.factors().size(), options);
        }
        return std::make_pair(shift, blocks);
      },
      py::arg("f"), py::arg("names"), py::arg("quantities"), py::kw_only(), py::arg("base_samples"), py::arg("seed"),
      py::arg("block_rows"));
  m.def(
      "sobol_function_partial",
      [sobol_run](py::function f, const std::vector<std::string>& names, const std::vector<quantity>& values,
                  std::uint64_t base_samples, std::uint64_t seed, Eigen::Index block_rows, double shift,
                  std::uint64_t first_block, std::uint64_t last_block) {
        const python_design design(std::move(f), names, values, block_rows);
        std::string bytes;
        {
          py::gil_scoped_release release;
          bytes = sobol_partial(design, design.factors().size(),
                                sobol_run(base_samples, seed, 0.95, design.base_block()), shift, first_block, last_block);
        }
        return py::bytes(bytes);
      },
      py::arg("f"), py::arg("names"), py::arg("quantities"), py::kw_only(), py::arg("base_samples"), py::arg("seed"),
      py::arg("block_rows"), py::arg("shift"), py::arg("first_block"), py::arg("last_block"));
  m.def(
      "sobol_function_fold",
      [sobol_run](const std::vector<std::string>& names, const std::vector<quantity>& values,
                  std::uint64_t base_samples, std::uint64_t seed, double confidence, Eigen::Index block_rows,
                  const std::vector<py::bytes>& partials) {
        const python_design design(py::function(), names, values, block_rows);
        std::vector<std::string> bytes;
        for (const auto& b : partials) bytes.push_back(std::string(b));
        py::gil_scoped_release release;
        return sobol_fold(design.factors(), sobol_run(base_samples, seed, confidence, design.base_block()), bytes,
                          "f");
      },
      py::arg("names"), py::arg("quantities"), py::kw_only(), py::arg("base_samples"), py::arg("seed"),
      py::arg("confidence"), py::arg("block_rows"), py::arg("partials"));
  m.def("sobol_scenario", &sobol_scenario, py::arg("scenario"), py::arg("outputs"), py::kw_only(),
        py::arg("base_samples"), py::arg("seed"), py::arg("threads"), py::arg("confidence"), py::arg("block_size"),
        py::arg("progress"));
  m.def("sobol_function", &sobol_python_function, py::arg("f"), py::arg("names"), py::arg("quantities"), py::kw_only(),
        py::arg("base_samples"), py::arg("seed"), py::arg("threads"), py::arg("confidence"), py::arg("block_rows"),
        py::arg("progress"));

  m.def(
      "tornado",
      [](const scenario& s, const std::string& output, double probability, std::uint64_t samples, std::uint64_t seed,
         int threads, double low, double high, const py::object& progress) {
        const statistic stat = statistic_from(probability);
        return with_python_hooks(make_run(samples, seed, threads), progress,
                                 [&](const run_options& o) { return tornado(s, output, stat, o, low, high); });
      },
      py::arg("scenario"), py::arg("output"), py::kw_only(), py::arg("probability"), py::arg("samples"),
      py::arg("seed"), py::arg("threads"), py::arg("low"), py::arg("high"), py::arg("progress"));
  m.def(
      "compare",
      [](const scenario& a, const scenario& b, const std::string& output, std::uint64_t samples, std::uint64_t seed,
         int threads, bool keep_samples, const py::object& progress) {
        const comparison_model model(a, b, metric_named(output));
        const run_options options = make_run(samples, seed, threads, keep_samples);
        return run_from_python(model, comparison_model::output_names(), options, progress);
      },
      py::arg("a"), py::arg("b"), py::arg("output"), py::kw_only(), py::arg("samples"), py::arg("seed"),
      py::arg("threads"), py::arg("keep_samples"), py::arg("progress"));
  // A comparison of two kept simulations on the comparison's seed and samples (the sign-off's
  // own runs): compare's result, bit for bit, without simulating again.
  m.def(
      "compare_kept",
      [](const run_result& a, const run_result& b, const std::string& output, std::uint64_t seed, int threads) {
        run_options options = make_run(a.samples(), seed, threads, true);
        py::gil_scoped_release release;
        return static_cast<run_result>(compare_kept(a, b, metric_named(output), options));
      },
      py::arg("a"), py::arg("b"), py::arg("output"), py::kw_only(), py::arg("seed"), py::arg("threads"));
  // tm.sweep: the points' results, in grid order (the last path varying fastest), samples
  // streamed (keep_samples false) as Python's sweep has always run them.
  m.def(
      "sweep",
      [](const scenario& s, const std::vector<std::pair<std::string, py::list>>& grid, std::uint64_t samples,
         std::uint64_t seed, int threads, const py::object& progress) {
        std::vector<sweep_axis> axes;
        for (const auto& [path, values] : grid) {
          sweep_axis axis{path, {}};
          for (const auto& value : values) axis.values.push_back(to_json(value, path));
          axes.push_back(std::move(axis));
        }
        run_options options = make_run(samples, seed, threads);
        options.keep_samples = false;
        return with_python_hooks(options, progress, [&](const run_options& o) {
          std::vector<run_result> results;
          for (auto& point : sweep(s, axes, o)) results.push_back(std::move(point.result));
          return results;
        });
      },
      py::arg("scenario"), py::arg("grid"), py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("threads"),
      py::arg("progress"));

  // tm.checkpoint_interval: the closed forms, the candidates and the statistic at each, and the
  // sweep's results (in candidates' order) for the table Python shows.
  py::class_<checkpoint_interval_result>(m, "CheckpointIntervalResult")
      .def_readonly("step_s", &checkpoint_interval_result::step_s)
      .def_readonly("checkpoint_s", &checkpoint_interval_result::checkpoint_s)
      .def_readonly("mtbf_s", &checkpoint_interval_result::mtbf_s)
      .def_readonly("young_s", &checkpoint_interval_result::young_s)
      .def_readonly("daly_s", &checkpoint_interval_result::daly_s)
      .def_readonly("young_steps", &checkpoint_interval_result::young_steps)
      .def_readonly("daly_steps", &checkpoint_interval_result::daly_steps)
      .def_readonly("best_steps", &checkpoint_interval_result::best_steps)
      .def_readonly("candidates", &checkpoint_interval_result::candidates)
      .def_readonly("values", &checkpoint_interval_result::values)
      .def_property_readonly("sweep", [](const checkpoint_interval_result& r) {
        std::vector<run_result> points;
        for (const auto& point : r.sweep) points.push_back(point.result);
        return points;
      });
  m.def(
      "checkpoint_interval",
      [](const scenario& s, const std::vector<long long>& every_steps, const std::string& output, double probability,
         std::uint64_t samples, std::uint64_t seed, int threads, const py::object& progress) {
        checkpoint_interval_options search;
        search.every_steps = every_steps;
        search.output = metric_named(output);
        search.stat = statistic_from(probability);
        return with_python_hooks(make_run(samples, seed, threads), progress,
                                 [&](const run_options& o) { return checkpoint_interval(s, o, search); });
      },
      py::arg("scenario"), py::arg("every_steps"), py::arg("output"), py::kw_only(), py::arg("probability"),
      py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("progress"));

  // A task of a run split across processes: the partial bytes of blocks [first, last) of the
  // run a request describes (sensitivity/run_request.hpp), on one thread.
  m.def(
      "request_partial",
      [](const py::bytes& request, std::uint64_t first_block, std::uint64_t last_block) {
        std::string text(request);
        std::string partial;
        {
          py::gil_scoped_release release;
          partial = request_partial(text, first_block, last_block, 1).to_bytes();
        }
        return py::bytes(partial);
      },
      py::arg("request"), py::arg("first_block"), py::arg("last_block"));

  m.def("context_parallel_degrees", &context_parallel_degrees, py::arg("sequence_length"), py::arg("max_cp"),
        "The context-parallel degrees the layout search tries for this sequence length.");

  // tm.search_parallelism: every layout tried, in enumeration order (Python ranks the table).
  py::class_<layout_candidate>(m, "LayoutCandidate")
      .def_readonly("nodes", &layout_candidate::nodes)
      .def_readonly("values", &layout_candidate::values)
      .def_readonly("dp", &layout_candidate::dp)
      .def_readonly("micro_batch", &layout_candidate::micro_batch)
      .def_readonly("fits", &layout_candidate::fits)
      .def_readonly("reason", &layout_candidate::reason)
      .def_readonly("step_time_s", &layout_candidate::step_time_s)
      .def_readonly("step_time_p90_s", &layout_candidate::step_time_p90_s)
      .def_readonly("wall_h", &layout_candidate::wall_h)
      .def_readonly("run_cost_usd", &layout_candidate::run_cost_usd);
  py::class_<parallelism_search_result>(m, "ParallelismSearchResult")
      .def_readonly("dimension_names", &parallelism_search_result::dimension_names)
      .def_readonly("dimension_paths", &parallelism_search_result::dimension_paths)
      .def_readonly("layouts", &parallelism_search_result::layouts);
  const auto search_options = [](const std::vector<long long>& micro_batches, long long max_tp, long long max_cp,
                                  const std::vector<long long>& nodes, const std::string& rank_by) {
    parallelism_search_options search;
    search.micro_batches = micro_batches;
    search.max_tp = max_tp;
    search.max_cp = max_cp;
    search.node_counts = nodes;
    search.rank_by = metric_named(rank_by, "rank_by");
    return search;
  };
  m.def(
      "search_parallelism",
      [search_options](const scenario& s, const std::vector<long long>& micro_batches, long long max_tp,
                       long long max_cp, const std::vector<long long>& nodes, const std::string& rank_by,
                       std::uint64_t samples, std::uint64_t seed, int threads, const py::object& progress) {
        const parallelism_search_options search = search_options(micro_batches, max_tp, max_cp, nodes, rank_by);
        return with_python_hooks(make_run(samples, seed, threads), progress,
                                 [&](const run_options& o) { return search_parallelism(s, o, search); });
      },
      py::arg("scenario"), py::kw_only(), py::arg("micro_batches"), py::arg("max_tp"), py::arg("max_cp"),
      py::arg("nodes"), py::arg("rank_by"), py::arg("samples"), py::arg("seed"), py::arg("threads"),
      py::arg("progress"));
  // The search split into its layouts (tm.search_parallelism with executor=): the layouts, then
  // each one evaluated in a task.
  m.def(
      "enumerate_layouts",
      [search_options](const scenario& s, const std::vector<long long>& micro_batches, long long max_tp,
                       long long max_cp, const std::vector<long long>& nodes, const std::string& rank_by) {
        return enumerate_layouts(s, search_options(micro_batches, max_tp, max_cp, nodes, rank_by));
      },
      py::arg("scenario"), py::kw_only(), py::arg("micro_batches"), py::arg("max_tp"), py::arg("max_cp"),
      py::arg("nodes"), py::arg("rank_by"));
  m.def(
      "evaluate_layout",
      [](const scenario& s, const std::vector<std::string>& paths, long long nodes, const std::vector<long long>& values,
         long long dp, long long micro_batch, std::uint64_t samples, std::uint64_t seed, int threads) {
        layout_candidate c;
        c.nodes = nodes;
        c.values = values;
        c.dp = dp;
        c.micro_batch = micro_batch;
        py::gil_scoped_release release;
        evaluate_layout(s, paths, c, make_run(samples, seed, threads));
        return c;
      },
      py::arg("scenario"), py::arg("paths"), py::kw_only(), py::arg("nodes"), py::arg("values"), py::arg("dp"),
      py::arg("micro_batch"), py::arg("samples"), py::arg("seed"), py::arg("threads"));

  // A scenario's inputs drawn once for a seed and sample count (the sign-off's), read back by
  // LifecycleModel.simulate, break_even and restreamed_run (draws=): the same bits as drawing.
  py::class_<input_draws>(m, "InputDraws")
      .def_readonly("seed", &input_draws::seed)
      .def_readonly("samples", &input_draws::samples)
      .def_property_readonly("inputs", [](const input_draws& d) { return d.values.cols(); });
  m.def(
      "draw_inputs",
      [](const lifecycle_model& model, std::uint64_t samples, std::uint64_t seed, int threads) {
        auto own = std::make_shared<const lifecycle_model>(model);
        py::gil_scoped_release release;
        return draw_inputs(std::move(own), make_run(samples, seed, threads));
      },
      py::arg("model"), py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("threads"));

  m.def(
      "break_even",
      [](const scenario& fixed, const scenario& varied, const std::string& output, const std::string& path,
         double probability, std::uint64_t samples, std::uint64_t seed, int threads, double lo, double hi,
         const py::object& progress, double target, const py::object& draws) {
        const metric::id id = metric_named(output);
        const statistic stat = statistic_from(probability);
        const input_draws* drawn = draws.is_none() ? nullptr : &draws.cast<const input_draws&>();
        return with_python_hooks(make_run(samples, seed, threads), progress, [&](const run_options& o) {
          return break_even(fixed, varied, id, path, stat, o, lo, hi, break_even_drawn_bytes, target, drawn);
        });
      },
      py::arg("fixed"), py::arg("varied"), py::arg("output"), py::arg("path"), py::kw_only(), py::arg("probability"),
      py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("lo"), py::arg("hi"), py::arg("progress"),
      py::arg("target") = std::numeric_limits<double>::quiet_NaN(), py::arg("draws") = py::none());
  // A scenario metric at given uniforms: an external design (SALib's, in bench/) evaluated by
  // the same C++ model. u: rows x drawn inputs (lifecycle_info's uncertain_inputs order);
  // chance: the index of each row's aleatory draws.
  m.def(
      "evaluate_uniforms",
      [](const scenario& s, const std::string& output, std::uint64_t seed, Eigen::ArrayXXd u,
         const Eigen::Array<std::uint64_t, Eigen::Dynamic, 1>& chance) {
        const lifecycle_model model(s);
        const output_column id = output_named(model, output);
        require_known_for(model, id.metric);
        if (u.cols() != static_cast<Eigen::Index>(model.input_count()) || chance.size() != u.rows())
          trnmodel::detail::fail("u", "needs one column per drawn input (" + std::to_string(model.input_count()) +
                                          ") and one chance index per row, got " + std::to_string(u.rows()) + " x " +
                                          std::to_string(u.cols()) + " and " + std::to_string(chance.size()));
        Eigen::ArrayXd y(u.rows());
        {
          py::gil_scoped_release release;
          model.to_values(u);
          Eigen::ArrayXXd metrics(u.rows(), id.columns(model));
          model.evaluate(
              seed, u, [&](Eigen::Index r) { return chance(r); }, metrics);
          y = metrics.col(id.column);
        }
        return y;
      },
      py::arg("scenario"), py::arg("output"), py::arg("seed"), py::arg("u"), py::arg("chance"));

  // One side of a partly paired comparison (Comparison.pairing_check): the outputs per sample,
  // kept, with drawn input j on streams[j] and the chance draws of sample chance_offset + i.
  m.def(
      "restreamed_run",
      [](const scenario& s, const std::vector<std::string>& outputs, std::vector<std::uint32_t> streams,
         std::uint64_t chance_offset, std::uint64_t samples, std::uint64_t seed, int threads, const py::object& draws) {
        lifecycle_model model(s);
        std::vector<output_column> columns;
        for (const auto& name : outputs) {
          columns.push_back(output_named(model, name));
          require_known_for(model, columns.back().metric);
        }
        const run_options options = make_run(samples, seed, threads, true);
        const input_draws* drawn = draws.is_none() ? nullptr : &draws.cast<const input_draws&>();
        const restreamed_model restreamed(std::move(model), std::move(streams), chance_offset, std::move(columns),
                                          drawn != nullptr && drawn->fits(options) ? drawn : nullptr);
        py::gil_scoped_release release;
        return run(restreamed, outputs, options);
      },
      py::arg("scenario"), py::arg("outputs"), py::kw_only(), py::arg("streams"), py::arg("chance_offset"),
      py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("draws") = py::none());

  m.def(
      "rank_correlations",
      [](const scenario& s, std::uint64_t seed, const Eigen::ArrayXd& y) {
        const lifecycle_model model(s);
        rank_correlations r;
        {
          py::gil_scoped_release release;
          r = rank_correlate(drawn_inputs(model, seed, static_cast<std::uint64_t>(y.size())), y);
        }
        return rank_correlation_table{model.uncertain_inputs(), std::move(r.spearman), std::move(r.prcc)};
      },
      py::arg("scenario"), py::arg("seed"), py::arg("y"));
}

}  // namespace trnmodel::python
