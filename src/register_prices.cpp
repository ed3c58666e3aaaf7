// Quotes from AWS's price list (prices/price_list.hpp, docs/prices.md). The list and the quote
// cross to Python as classes with read-only fields; python/trnmodel/_quote.py is the facade.
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "register.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/price_list.hpp"

namespace py = pybind11;

namespace trnmodel::python {

void register_prices(py::module_& m) {
  py::class_<price_list>(m, "PriceList")
      .def_readonly("file", &price_list::file)
      .def_readonly("format", &price_list::format)
      .def_readonly("offer_code", &price_list::offer_code)
      .def_readonly("version", &price_list::version)
      .def_readonly("publication_date", &price_list::publication_date)
      .def_readonly("next_token", &price_list::next_token)
      .def("__len__", [](const price_list& list) { return list.rows.size(); });
  py::class_<price_quote>(m, "PriceQuote")
      .def_readonly("usd_per_node_hour", &price_quote::usd_per_node_hour)
      .def_property_readonly("purchase", [](const price_quote& q) { return name_of_choice(q.purchase); })
      .def_readonly("instance_type", &price_quote::instance_type)
      .def_readonly("region", &price_quote::region)
      .def_readonly("location", &price_quote::location)
      .def_readonly("operating_system", &price_quote::operating_system)
      .def_readonly("tenancy", &price_quote::tenancy)
      .def_readonly("date", &price_quote::date)
      .def_readonly("publication_date", &price_quote::publication_date)
      .def_readonly("effective_date", &price_quote::effective_date)
      .def_readonly("sku", &price_quote::sku)
      .def_readonly("offer_term_code", &price_quote::offer_term_code)
      .def_readonly("rate_code", &price_quote::rate_code)
      .def_readonly("description", &price_quote::description)
      .def_readonly("offer_code", &price_quote::offer_code)
      .def_readonly("version", &price_quote::version)
      .def_readonly("format", &price_quote::format)
      .def_readonly("file", &price_quote::file)
      .def_property_readonly("note", &price_quote::note)
      // The scenario form: {"dist": "fixed", "value": ..., "source": "quote", "note", "date", "region"}.
      .def_property_readonly("quantity_spec",
                             [](const price_quote& q) { return from_json(quantity_to_json(q.to_quantity())); });
  // The GIL is released while a list of hundreds of megabytes is parsed.
  m.def("parse_price_list", &parse_price_list, py::arg("text"), py::arg("file"),
        py::call_guard<py::gil_scoped_release>());
  m.def("read_price_list_file", &read_price_list_file, py::arg("file"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "quote_price",
      [](const price_list& list, const std::string& instance_type, const std::string& region,
         const std::string& purchase, const std::string& operating_system, const std::string& tenancy,
         const std::string& pre_installed_sw, const std::string& capacity_status,
         const std::vector<std::pair<std::string, std::string>>& attributes) {
        price_filter f;
        f.instance_type = instance_type;
        f.region = region;
        f.purchase = parse_choice<purchase_mode>("purchase", purchase);
        f.operating_system = operating_system;
        f.tenancy = tenancy;
        f.pre_installed_sw = pre_installed_sw;
        f.capacity_status = capacity_status;
        f.attributes = attributes;
        return quote_price(list, f);
      },
      py::arg("price_list"), py::arg("instance_type"), py::arg("region"), py::arg("purchase") = "on_demand",
      py::arg("operating_system") = "Linux", py::arg("tenancy") = "Shared", py::arg("pre_installed_sw") = "NA",
      py::arg("capacity_status") = "Used", py::arg("attributes") = std::vector<std::pair<std::string, std::string>>{});
  m.attr("PURCHASE_MODES") = purchase_modes();
}

}  // namespace trnmodel::python
