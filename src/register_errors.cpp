// C++ exceptions become Python exceptions of the same hierarchy (docs/architecture.md):
//   trnmodel::input_error         -> ScenarioError (a ValueError) with .problems
//   trnmodel::unknown_input_error -> UnknownInputError (a ScenarioError) with .paths
//   trnmodel::cancelled_error     -> KeyboardInterrupt (a signal stopped the run)
#include <pybind11/stl.h>

#include "register.hpp"
#include "trnmodel/errors.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {
// The exception types live as long as the interpreter: plain strong references, never freed.
PyObject* scenario_error_type = nullptr;
PyObject* unknown_input_error_type = nullptr;
}  // namespace

void register_errors(py::module_& m) {
  scenario_error_type = PyErr_NewException("trnmodel.ScenarioError", PyExc_ValueError, nullptr);
  unknown_input_error_type = PyErr_NewException("trnmodel.UnknownInputError", scenario_error_type, nullptr);
  m.attr("ScenarioError") = py::handle(scenario_error_type);
  m.attr("UnknownInputError") = py::handle(unknown_input_error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const unknown_input_error& e) {
      py::object error = py::handle(unknown_input_error_type)(e.what());
      error.attr("paths") = py::cast(e.paths());
      error.attr("_problems") = py::cast(e.problems());
      PyErr_SetObject(unknown_input_error_type, error.ptr());
    } catch (const input_error& e) {
      // .problems: every problem a validation found, one "<path>: <rule>" each.
      py::object error = py::handle(scenario_error_type)(e.what());
      error.attr("_problems") = py::cast(e.problems());
      PyErr_SetObject(scenario_error_type, error.ptr());
    } catch (const cancelled_error& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
}

}  // namespace trnmodel::python
