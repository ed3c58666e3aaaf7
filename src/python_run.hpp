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

template <class Model>
run_result run_from_python(const Model& model, std::vector<std::string> outputs, run_options options,
                           const py::object& progress) {
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
    return run(model, std::move(outputs), options);
  } catch (const cancelled_error&) {
    if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt set by the signal
    throw;
  }
}

}  // namespace trnmodel::python
