#pragma once
// Python objects <-> trnmodel::json, so that dicts reach the C++ validators unchanged:
// a NaN in a dict arrives as a NaN number and is rejected with its path, rather than failing
// in a JSON encoder with a message that names nothing.
#include <string>

#include <pybind11/pybind11.h>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"

namespace trnmodel::python {

namespace py = pybind11;

inline trnmodel::json to_json(py::handle obj, const std::string& path) {
  if (obj.is_none()) return nullptr;
  if (PyBool_Check(obj.ptr())) return obj.cast<bool>();
  if (PyLong_Check(obj.ptr())) {
    try {
      return obj.cast<long long>();
    } catch (const py::cast_error&) {
      return obj.cast<double>();  // beyond 64 bits: keep the magnitude
    }
  }
  if (PyFloat_Check(obj.ptr())) return obj.cast<double>();
  if (PyUnicode_Check(obj.ptr())) return obj.cast<std::string>();
  if (PyDict_Check(obj.ptr())) {
    trnmodel::json out = trnmodel::json::object();
    for (const auto& item : py::reinterpret_borrow<py::dict>(obj)) {
      if (!PyUnicode_Check(item.first.ptr()))
        fail(path, "keys must be strings, got " + py::repr(item.first).cast<std::string>());
      const auto key = item.first.cast<std::string>();
      out[key] = to_json(item.second, path.empty() ? key : path + "." + key);
    }
    return out;
  }
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    trnmodel::json out = trnmodel::json::array();
    std::size_t i = 0;
    for (const auto& item : py::reinterpret_borrow<py::sequence>(obj))
      out.push_back(to_json(item, path + "[" + std::to_string(i++) + "]"));
    return out;
  }
  // NumPy scalars and arrays, and anything else that behaves like a number or a sequence.
  if (py::hasattr(obj, "tolist")) return to_json(obj.attr("tolist")(), path);
  if (py::hasattr(obj, "__float__")) return obj.cast<double>();
  fail(path.empty() ? "value" : path,
       "cannot be read as JSON, got " + py::repr(obj).cast<std::string>());
}

inline py::object from_json(const trnmodel::json& j) {
  switch (j.type()) {
    case trnmodel::json::value_t::null: return py::none();
    case trnmodel::json::value_t::boolean: return py::bool_(j.get<bool>());
    case trnmodel::json::value_t::number_integer: return py::int_(j.get<long long>());
    case trnmodel::json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case trnmodel::json::value_t::number_float: return py::float_(j.get<double>());
    case trnmodel::json::value_t::string: return py::str(j.get<std::string>());
    case trnmodel::json::value_t::array: {
      py::list out;
      for (const auto& item : j) out.append(from_json(item));
      return std::move(out);
    }
    case trnmodel::json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = from_json(value);
      return std::move(out);
    }
    default: return py::none();
  }
}

}  // namespace trnmodel::python
