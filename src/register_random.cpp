#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "register.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/stream_id.hpp"

namespace py = pybind11;

namespace trnmodel::python {

void register_random(py::module_& m) {
  m.def("philox4x32_10", &philox4x32_10, py::arg("counter"), py::arg("key"),
        "Philox4x32-10 of a 4-word counter under a 2-word key (Random123).");
  m.def(
      "stream_id", [](const std::string& name) { return stream_id(name); }, py::arg("name"),
      "The random stream id of a name (32-bit FNV-1a).");
  m.def(
      "uniforms",
      [](std::uint64_t seed, std::uint64_t first_sample, std::uint64_t count, std::uint32_t stream,
         std::uint32_t draw) {
        py::array_t<double> out(static_cast<py::ssize_t>(count));
        double* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          for (std::uint64_t i = 0; i < count; ++i) data[i] = detail::uniform(seed, first_sample + i, stream, draw);
        }
        return out;
      },
      py::arg("seed"), py::arg("first_sample"), py::arg("count"), py::arg("stream"), py::arg("draw") = 0,
      "Uniforms in (0, 1) for samples [first_sample, first_sample + count) of one stream.");
}

}  // namespace trnmodel::python
