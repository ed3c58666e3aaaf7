#include "register.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "trnmodel's compiled core; use the Python package trnmodel instead.";
  m.attr("__version__") = TRNMODEL_VERSION_INFO;
  trnmodel::python::register_errors(m);
  trnmodel::python::register_random(m);
  trnmodel::python::register_dist(m);
  trnmodel::python::register_montecarlo(m);
  trnmodel::python::register_scenario(m);
  trnmodel::python::register_lifecycle(m);
  trnmodel::python::register_throughput(m);
  trnmodel::python::register_calibrate(m);
  trnmodel::python::register_sensitivity(m);
  trnmodel::python::register_prices(m);
  trnmodel::python::register_logs(m);
  trnmodel::python::register_decisions(m);
}
