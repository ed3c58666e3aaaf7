#pragma once
// Runs an engine model from Python: the GIL is released for the whole run and taken back
// only between waves, to check for signals (Ctrl-C raises KeyboardInterrupt promptly) and
// to call the progress callback.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "trnmodel/errors.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/function_model.hpp"

namespace trnmodel::python {

namespace py = pybind11;

// The inputs of a Python function (tm.monte_carlo, tm.sobol_function): names and their
// quantities, in the function's column order.
inline input_set input_set_of(const std::vector<std::string>& names, const std::vector<quantity>& values) {
  std::vector<named_quantity> inputs;
  for (std::size_t j = 0; j < names.size(); ++j) inputs.push_back({names[j], values.at(j)});
  return input_set(std::move(inputs));
}

// The Python function that runs requests elsewhere, on this thread (set by
// trnmodel._executor.running_on through set_dispatch; nullptr: runs are computed here).
// Called as dispatch(request: bytes, blocks, keep_samples, fold), it hands every range's
// partial bytes to fold(partial), in block order (docs/scaling.md).
inline PyObject*& current_dispatch() {
  static thread_local PyObject* dispatch = nullptr;
  return dispatch;
}

// options.remote calling the current dispatch, if any. The function is held through a
// shared_ptr whose deleter takes the GIL: C++ copies and drops run_options without it.
inline void set_python_remote(run_options& options) {
  if (current_dispatch() == nullptr) return;
  const std::shared_ptr<py::object> dispatch(new py::object(py::reinterpret_borrow<py::object>(current_dispatch())),
                                             [](py::object* f) {
                                               py::gil_scoped_acquire gil;
                                               delete f;
                                             });
  options.remote = [dispatch](const std::string& request, std::uint64_t blocks, bool keep_samples,
                              const std::function<void(const std::string&)>& fold) {
    py::gil_scoped_acquire gil;
    const py::cpp_function fold_next([&fold](const py::bytes& partial) {
      std::string bytes(partial);
      try {
        py::gil_scoped_release release;
        fold(bytes);
      } catch (const cancelled_error&) {
        if (PyErr_Occurred() != nullptr) throw py::error_already_set();  // Ctrl-C's KeyboardInterrupt
        throw;
      }
    });
    (*dispatch)(py::bytes(request), blocks, keep_samples, fold_next);
  };
}

// Calls body(options) with the GIL released, options' hooks polling Ctrl-C and reporting
// progress to `progress` (a callable(done, total) or None); runs go to the current dispatch
// when one is set.
template <class Body> auto with_python_hooks(run_options options, const py::object& progress, const Body& body) {
  set_python_remote(options);
  bool interrupted = false;
  options.cancelled = [&] {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      return true;
    }
    return false;
  };
  if (!progress.is_none()) {
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      py::gil_scoped_acquire gil;
      progress(done, total);
    };
  }
  try {
    py::gil_scoped_release release;
    return body(static_cast<const run_options&>(options));
  } catch (const cancelled_error&) {
    if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt set by the signal
    throw;
  }
}

// The options of a run from its Python arguments (the hooks are added by with_python_hooks).
inline run_options make_run(std::uint64_t samples, std::uint64_t seed, int threads, bool keep_samples = false) {
  run_options options;
  options.samples = samples;
  options.seed = seed;
  options.threads = threads;
  options.keep_samples = keep_samples;
  return options;
}

template <class Model> run_result run_from_python(const Model& model, std::vector<std::string> outputs,
                                                  run_options options, const py::object& progress) {
  return with_python_hooks(std::move(options), progress,
                           [&](const run_options& o) { return run(model, std::move(outputs), o); });
}

// What a user function returned for `rows` rows, checked: one value per row (a 1-D array when
// there is one output) or one column per output. Needs the GIL.
inline py::array_t<double, py::array::forcecast> checked_block_outputs(const py::object& returned, py::ssize_t rows,
                                                                       py::ssize_t outputs) {
  const auto y = py::array_t<double, py::array::forcecast>::ensure(returned);
  if (!y)
    detail::fail("f", "must return an array of numbers, got " + py::repr(py::type::of(returned)).cast<std::string>());
  const bool one_output = outputs == 1 && y.ndim() == 1;
  const bool matrix = y.ndim() == 2 && y.shape(1) == outputs;
  if (!(one_output || matrix) || y.shape(0) != rows) {
    std::string shape;
    for (py::ssize_t d = 0; d < y.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(y.shape(d));
    detail::fail("f", "must return one value per row of its input (shape (" + std::to_string(rows) +
                          (outputs == 1 ? ",)" : ", " + std::to_string(outputs) + ")") + "), got shape (" + shape +
                          ")");
  }
  return y;
}

}  // namespace trnmodel::python
