#pragma once
// Python objects <-> trnmodel::json, so that dicts reach the C++ validators unchanged:
// a NaN in a dict arrives as a NaN number and is rejected with its path, rather than failing
// in a JSON encoder with a message that names nothing.
#include <map>
#include <string>

#include <pybind11/pybind11.h>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"

namespace trnmodel::python {

namespace py = pybind11;

// Text as UTF-8; a str that cannot be encoded (a lone surrogate such as "\udcff", which is
// what Python makes of undecodable bytes) is refused with its path, not a UnicodeEncodeError.
inline std::string utf8_text(py::handle obj, const std::string& path) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
  if (data == nullptr) {
    PyErr_Clear();
    detail::fail(path.empty() ? "value" : path,
                 "is not valid Unicode text (it holds a lone surrogate, as undecodable bytes do), got " +
                     detail::shorten(py::repr(obj).cast<std::string>()));
  }
  return std::string(data, static_cast<std::size_t>(size));
}

// `depth` counts the lists and dicts around `obj`: nesting deeper than max_json_depth is
// refused before this recursion could exhaust the stack.
inline trnmodel::ordered_json to_json(py::handle obj, const std::string& path, int depth = 0) {
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
  if (PyUnicode_Check(obj.ptr())) return utf8_text(obj, path);
  const bool structured = PyDict_Check(obj.ptr()) || PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr());
  if (structured && depth >= trnmodel::detail::max_json_depth)
    trnmodel::detail::fail_too_deep(path.empty() ? "value" : path);
  if (PyDict_Check(obj.ptr())) {
    trnmodel::ordered_json out = trnmodel::ordered_json::object();
    for (const auto& item : py::reinterpret_borrow<py::dict>(obj)) {
      if (!PyUnicode_Check(item.first.ptr()))
        detail::fail(path, "keys must be strings, got " + py::repr(item.first).cast<std::string>());
      const auto key = utf8_text(item.first, path);
      out[key] = to_json(item.second, path.empty() ? key : path + "." + key, depth + 1);
    }
    return out;
  }
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    trnmodel::ordered_json out = trnmodel::ordered_json::array();
    std::size_t i = 0;
    for (const auto& item : py::reinterpret_borrow<py::sequence>(obj))
      out.push_back(to_json(item, path + "[" + std::to_string(i++) + "]", depth + 1));
    return out;
  }
  // NumPy scalars and arrays, and anything else that behaves like a number or a sequence.
  if (py::hasattr(obj, "tolist")) return to_json(obj.attr("tolist")(), path, depth);
  if (py::hasattr(obj, "__float__")) return obj.cast<double>();
  detail::fail(path.empty() ? "value" : path, "cannot be read as JSON, got " + py::repr(obj).cast<std::string>());
}

inline py::object from_json(const trnmodel::ordered_json& j) {
  switch (j.type()) {
    case trnmodel::ordered_json::value_t::null: return py::none();
    case trnmodel::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
    case trnmodel::ordered_json::value_t::number_integer: return py::int_(j.get<long long>());
    case trnmodel::ordered_json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case trnmodel::ordered_json::value_t::number_float: return py::float_(j.get<double>());
    case trnmodel::ordered_json::value_t::string: return py::str(j.get<std::string>());
    case trnmodel::ordered_json::value_t::array: {
      py::list out;
      for (const auto& item : j) out.append(from_json(item));
      return std::move(out);
    }
    case trnmodel::ordered_json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = from_json(value);
      return std::move(out);
    }
    default: return py::none();
  }
}

// name -> profile document (a dict) from Python: the hardware profiles a scenario may name.
inline std::map<std::string, trnmodel::ordered_json> library_of(const py::dict& profiles) {
  std::map<std::string, trnmodel::ordered_json> library;
  for (const auto& [name, doc] : profiles) {
    const auto key = py::str(name).cast<std::string>();
    library[key] = to_json(doc, "profiles." + key);
  }
  return library;
}

}  // namespace trnmodel::python
