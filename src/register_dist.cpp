// Uncertain quantities. The Python classes (tm.Uniform, ...) build a dict and hand it to
// Quantity, so that parsing, validation and messages live in one place: the C++ loader.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "register.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/random/philox.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {

using array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Applies f elementwise over any array shape, without the GIL.
template <class F> array map_array(const array& in, F f) {
  array out(std::vector<py::ssize_t>(in.shape(), in.shape() + in.ndim()));
  const double* src = in.data();
  double* dst = out.mutable_data();
  const auto n = static_cast<std::size_t>(in.size());
  py::gil_scoped_release release;
  for (std::size_t i = 0; i < n; ++i) dst[i] = f(src[i]);
  return out;
}

}  // namespace

void register_dist(py::module_& m) {
  py::class_<quantity>(m, "Quantity")
      .def(py::init(
               [](py::handle spec, const std::string& path) { return quantity_from_json(to_json(spec, path), path); }),
           py::arg("spec"), py::arg("path") = "quantity")
      .def_property_readonly("family", &quantity::family)
      .def_property_readonly("is_fixed", &quantity::is_fixed)
      .def_property_readonly("is_unknown", &quantity::is_unknown)
      .def_property_readonly("is_constant", &quantity::is_constant)
      .def("to_obj", [](const quantity& q) { return from_json(quantity_to_json(q)); })
      .def("mean", &quantity::mean)
      .def("support", &quantity::support)
      .def(
          "ppf",
          [](const quantity& q, const array& u) {
            for (py::ssize_t i = 0; i < u.size(); ++i) {
              const double v = u.data()[i];
              if (!(v >= 0 && v <= 1))
                detail::fail("u", "probabilities must lie in [0, 1], got " + detail::format_number(v));
            }
            if (q.is_unknown()) q.ppf(0.5);  // raises, with the reason
            return map_array(u, [&q](double v) { return q.ppf(v); });
          },
          py::arg("u"))
      .def(
          "cdf",
          [](const quantity& q, const array& x) {
            if (q.is_unknown()) q.cdf(0.0);
            return map_array(x, [&q](double v) { return std::isnan(v) ? v : q.cdf(v); });
          },
          py::arg("x"))
      .def(
          "sample",
          [](const quantity& q, std::uint64_t n, std::uint64_t seed, std::uint32_t stream) {
            if (q.is_unknown()) q.ppf(0.5);
            array out(static_cast<py::ssize_t>(n));
            double* x = out.mutable_data();
            py::gil_scoped_release release;
            for (std::uint64_t i = 0; i < n; ++i) x[i] = detail::uniform(seed, i, stream);
            q.ppf(x, x, static_cast<std::size_t>(n));
            return out;
          },
          py::arg("n"), py::arg("seed") = 0, py::arg("stream") = 0);
}

}  // namespace trnmodel::python
