#pragma once
#include <pybind11/pybind11.h>

namespace trnmodel::python {
void register_errors(pybind11::module_& m);
void register_random(pybind11::module_& m);
void register_dist(pybind11::module_& m);
void register_montecarlo(pybind11::module_& m);
void register_scenario(pybind11::module_& m);
void register_lifecycle(pybind11::module_& m);
void register_throughput(pybind11::module_& m);
void register_calibrate(pybind11::module_& m);
void register_sensitivity(pybind11::module_& m);
void register_prices(pybind11::module_& m);
void register_logs(pybind11::module_& m);
void register_decisions(pybind11::module_& m);
}  // namespace trnmodel::python
