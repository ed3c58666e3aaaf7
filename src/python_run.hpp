#pragma once
// Runs an engine model from Python: the GIL is released for the whole run and taken back
// only between waves, to check for signals (Ctrl-C raises KeyboardInterrupt promptly) and
// to call the progress callback.
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "trnmodel/errors.hpp"
#include "trnmodel/montecarlo/engine.hpp"

namespace trnmodel::python {

namespace py = pybind11;

// Calls `work(options)` with the GIL released, after installing hooks that check for
// signals between waves (KeyboardInterrupt on Ctrl-C) and report progress.
template <class Work>
auto with_python_hooks(run_options options, const py::object& progress, const Work& work) {
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
    return work(options);
  } catch (const cancelled_error&) {
    if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt set by the signal
    throw;
  }
}

template <class Model>
run_result run_from_python(const Model& model, std::vector<std::string> outputs, const run_options& options,
                           const py::object& progress) {
  return with_python_hooks(options, progress, [&](const run_options& hooked) { return run(model, outputs, hooked); });
}

}  // namespace trnmodel::python
