// The Monte Carlo engine for Python callables: the engine draws each block's inputs in
// parallel without the GIL, then takes the GIL to call f on the block (NumPy releases it
// again inside its kernels). Between waves, on the calling thread, it checks for signals
// (Ctrl-C stops the run promptly) and reports progress.
#include <array>
#include <atomic>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/montecarlo/array_cache.hpp"
#include "trnmodel/montecarlo/fingerprint.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/montecarlo/partial.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {

using f_array = py::array_t<double, py::array::f_style>;

// run_fold, made by the first partial it is given (which says what run it belongs to).
class partial_fold {
 public:
  void add(const run_partial& p) {
    if (!fold_) fold_.emplace(run_fold::for_partial(p));
    fold_->add(p);
  }
  std::uint64_t next_block() const { return fold_ ? fold_->next_block() : 0; }
  run_result finish() {
    if (!fold_) detail::fail("partials", "nothing to fold");
    run_result r = std::move(*fold_).finish();
    fold_.reset();
    return r;
  }

 private:
  std::optional<run_fold> fold_;
};

// One output's moments; mean, min and max are NaN when it had no finite value.
struct output_moments {
  std::uint64_t count, nan_count;
  double mean, sd, min, max;
};

// summary_row's statistics as columns (one entry per output), which is how pandas takes them.
struct summary_table {
  static constexpr std::array<double summary_row::*, 9> statistics{
      &summary_row::mean, &summary_row::sd,  &summary_row::p10, &summary_row::p50, &summary_row::p80,
      &summary_row::p90,  &summary_row::p99, &summary_row::min, &summary_row::max};
  static constexpr std::array<const char*, 9> labels{"mean", "sd", "p10", "p50", "p80", "p90", "p99", "min", "max"};
  std::vector<std::string> name;
  std::vector<std::uint64_t> nan_count;
  std::array<std::vector<double>, 9> columns;
};

// A Python function of named inputs as an engine model: the inputs drawn without the GIL, f
// called with it on each block.
class python_function_model {
 public:
  python_function_model(py::function f, const std::vector<std::string>& names, const std::vector<quantity>& values,
                        Eigen::Index outputs)
      : f_(std::move(f)), set_(input_set_of(names, values)), outputs_(outputs) {}

  void operator()(const block_view& block, Eigen::Ref<Eigen::ArrayXXd> out) const {
    // Declared first, released last: every Python object below dies with the GIL held.
    py::gil_scoped_acquire gil;
    const auto n_inputs = static_cast<py::ssize_t>(set_.size());
    f_array x({static_cast<py::ssize_t>(block.size), n_inputs});
    {
      py::gil_scoped_release no_gil;
      set_.draw(block, Eigen::Map<Eigen::ArrayXXd>(x.mutable_data(), block.size, n_inputs));
    }
    const auto y =
        checked_block_outputs(f_(x), static_cast<py::ssize_t>(block.size), static_cast<py::ssize_t>(outputs_));
    const bool one_output = y.ndim() == 1;
    const auto r = y.unchecked();
    for (Eigen::Index k = 0; k < outputs_; ++k)
      for (Eigen::Index i = 0; i < block.size; ++i) out(i, k) = one_output ? r(i) : r(i, k);
  }

 private:
  py::function f_;
  input_set set_;
  Eigen::Index outputs_;
};

run_options function_run(std::uint64_t samples, std::uint64_t seed, int threads, bool keep_samples,
                         Eigen::Index block_size) {
  run_options options = make_run(samples, seed, threads, keep_samples);
  options.block_size = block_size;
  return options;
}

run_result run_python_function(py::function f, std::vector<std::string> names, std::vector<quantity> values,
                               std::vector<std::string> outputs, std::uint64_t samples, std::uint64_t seed, int threads,
                               bool keep_samples, Eigen::Index block_size, py::object progress) {
  const python_function_model model(std::move(f), names, values, static_cast<Eigen::Index>(outputs.size()));
  return run_from_python(model, std::move(outputs), function_run(samples, seed, threads, keep_samples, block_size),
                         progress);
}

}  // namespace

void register_montecarlo(py::module_& m) {
  py::class_<output_moments>(m, "Moments")
      .def_readonly("count", &output_moments::count)
      .def_readonly("nan_count", &output_moments::nan_count)
      .def_readonly("mean", &output_moments::mean)
      .def_readonly("sd", &output_moments::sd)
      .def_readonly("min", &output_moments::min)
      .def_readonly("max", &output_moments::max);
  py::class_<summary_table> summary(m, "SummaryTable");
  summary.def_readonly("name", &summary_table::name).def_readonly("nan_count", &summary_table::nan_count);
  for (std::size_t c = 0; c < summary_table::statistics.size(); ++c)
    summary.def_property_readonly(summary_table::labels[c], [c](const summary_table& t) { return t.columns[c]; });

  py::class_<run_result>(m, "RunResult")
      .def_property_readonly("names", &run_result::names)
      .def_property_readonly("samples", &run_result::samples)
      .def_property_readonly("kept", &run_result::kept)
      .def(
          "values",
          [](py::object self, const std::string& name) {
            const auto& r = self.cast<const run_result&>();
            const std::size_t k = r.index(name);
            if (!r.kept()) detail::fail(name, "samples were not kept (run with keep_samples=True)");
            const auto rows = static_cast<py::ssize_t>(r.samples());
            // A read-only view that keeps the result alive. A column of one value throughout is
            // viewed as numpy.broadcast_to views one, with stride 0, and is not written out.
            const double* single = r.single_value(k);
            py::array_t<double> view({rows}, {single ? py::ssize_t{0} : py::ssize_t{sizeof(double)}},
                                     single ? single : r.values(k).data(), self);
            py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
            return view;
          },
          py::arg("name"))
      .def(
          "moments",
          [](const run_result& r, const std::string& name) {
            const moments& m = r.stats(r.index(name));
            const double nan = std::nan("");
            return output_moments{m.count, m.nan_count,           m.count ? m.mean : nan,
                                  m.sd(),  m.count ? m.min : nan, m.count ? m.max : nan};
          },
          py::arg("name"))
      .def(
          "quantiles",
          [](const run_result& r, const std::string& name, const std::vector<double>& p) {
            for (const double v : p)
              if (!(v >= 0 && v <= 1))
                detail::fail("q", "probabilities must lie in [0, 1], got " + detail::format_number(v));
            py::gil_scoped_release release;
            return r.quantiles(r.index(name), p);
          },
          py::arg("name"), py::arg("p"))
      .def(
          "quantiles_of",
          [](const run_result& r, const std::vector<std::string>& names, const std::vector<double>& p, int threads) {
            for (const double v : p)
              if (!(v >= 0 && v <= 1))
                detail::fail("q", "probabilities must lie in [0, 1], got " + detail::format_number(v));
            std::vector<std::size_t> outputs;
            for (const auto& name : names) outputs.push_back(r.index(name));
            py::gil_scoped_release release;
            return r.quantiles_of(outputs, p, threads);
          },
          py::arg("names"), py::arg("p"), py::arg("threads") = 0)
      .def("summary", [](const run_result& r) {
        summary_table table;
        std::vector<summary_row> rows;
        {
          py::gil_scoped_release release;
          rows = r.summary();
        }
        for (const auto& row : rows) {
          table.name.push_back(row.name);
          table.nan_count.push_back(row.nan_count);
          for (std::size_t c = 0; c < summary_table::statistics.size(); ++c)
            table.columns[c].push_back(row.*summary_table::statistics[c]);
        }
        return table;
      });

  m.def("run_function", &run_python_function, py::arg("f"), py::arg("names"), py::arg("quantities"), py::kw_only(),
        py::arg("outputs"), py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("keep_samples"),
        py::arg("block_size"), py::arg("progress"));
  m.def("default_threads", &default_threads);
  // The cache of freed large arrays (array_cache.hpp): (capacity, bytes held), and a new capacity.
  m.def("array_cache_state", [] {
    const auto& cache = detail::array_cache::instance();
    return std::make_pair(cache.capacity(), cache.bytes());
  });
  m.def(
      "set_array_cache_capacity",
      [](std::size_t capacity_bytes) { detail::array_cache::instance().set_capacity(capacity_bytes); },
      py::arg("capacity_bytes"));
  // One task of a split tm.monte_carlo (docs/scaling.md): the partial of blocks [first, last)
  // of the run of f, as bytes; f travels with the task, pickled by the executor.
  m.def(
      "function_partial",
      [](py::function f, const std::vector<std::string>& names, const std::vector<quantity>& values,
         std::vector<std::string> outputs, std::uint64_t samples, std::uint64_t seed, bool keep_samples,
         Eigen::Index block_size, std::uint64_t first_block, std::uint64_t last_block) {
        const python_function_model model(std::move(f), names, values, static_cast<Eigen::Index>(outputs.size()));
        const run_options options = function_run(samples, seed, 1, keep_samples, block_size);
        std::string bytes;
        {
          py::gil_scoped_release release;
          bytes = compute_partial(model, std::move(outputs), options, first_block, last_block).to_bytes();
        }
        return py::bytes(bytes);
      },
      py::arg("f"), py::arg("names"), py::arg("quantities"), py::kw_only(), py::arg("outputs"), py::arg("samples"),
      py::arg("seed"), py::arg("keep_samples"), py::arg("block_size"), py::arg("first_block"), py::arg("last_block"));

  // Runs split across processes (docs/scaling.md): a run's blocks, the partial of a range of
  // them as exact bytes, and the fold of all partials, in block order, into the run's result.
  m.def("bits_fingerprint", &bits_fingerprint);
  // Where this thread's runs go (trnmodel._executor.running_on): a function, or None to compute
  // them here. Returns the one it replaces.
  m.def(
      "set_dispatch",
      [](const py::object& dispatch) {
        PyObject* previous = current_dispatch();
        current_dispatch() = dispatch.is_none() ? nullptr : dispatch.inc_ref().ptr();
        return previous == nullptr ? py::none() : py::reinterpret_steal<py::object>(previous);
      },
      py::arg("dispatch"));
  m.def(
      "block_count",
      [](std::uint64_t samples, std::ptrdiff_t block_size) {
        run_options options;
        options.samples = samples;
        options.block_size = block_size;  // 0: the engine's default
        return detail::block_grid{samples, static_cast<std::uint64_t>(with_block_size(options).block_size)}.blocks();
      },
      py::arg("samples"), py::arg("block_size") = 0);
  // The fold one partial at a time (as the ranges arrive, in block order), so that a caller
  // holds only the partials that arrived before an earlier one: its memory does not grow with
  // the run (docs/scaling.md, "Memory").
  py::class_<partial_fold>(m, "PartialFold")
      .def(py::init<>())
      .def(
          "add",
          [](partial_fold& f, const py::bytes& part) {
            std::string bytes(part);
            py::gil_scoped_release release;
            f.add(run_partial::from_bytes(bytes));
          },
          py::arg("partial"))
      .def_property_readonly("next_block", &partial_fold::next_block)
      .def("finish", [](partial_fold& f) {
        py::gil_scoped_release release;
        return f.finish();
      });
}

}  // namespace trnmodel::python
