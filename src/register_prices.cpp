// Quotes from AWS's price list (prices/price_list.hpp), capacity block offerings
// (prices/block_offerings.hpp) and the spot price history (prices/spot_history.hpp):
// docs/prices.md. Each read document and each quote crosses to Python as a class with read-only
// fields; python/trnmodel/_quote.py and _ec2_quotes.py are the facades.
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "register.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/block_offerings.hpp"
#include "trnmodel/prices/price_list.hpp"
#include "trnmodel/prices/spot_history.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {

// The quantity of a quote in its scenario form ({"dist": ..., "source": "quote", ...}).
template <class Quote>
py::object quantity_spec(const Quote& q) {
  return from_json(quantity_to_json(q.to_quantity()));
}

void register_ec2_quotes(py::module_& m) {
  py::class_<block_offering>(m, "BlockOffering")
      .def_readonly("offering_id", &block_offering::offering_id)
      .def_readonly("instance_type", &block_offering::instance_type)
      .def_readonly("availability_zone", &block_offering::availability_zone)
      .def_readonly("region", &block_offering::region)
      .def_readonly("instance_count", &block_offering::instance_count)
      .def_readonly("duration_hours", &block_offering::duration_hours)
      .def_readonly("duration_minutes", &block_offering::duration_minutes)
      .def_readonly("start_date", &block_offering::start_date)
      .def_readonly("end_date", &block_offering::end_date)
      .def_readonly("upfront_fee_usd", &block_offering::upfront_fee_usd)
      .def_readonly("tenancy", &block_offering::tenancy)
      .def_property_readonly("usd_per_node_hour", &block_offering::usd_per_node_hour);
  py::class_<block_offerings>(m, "BlockOfferings")
      .def_readonly("file", &block_offerings::file)
      .def_readonly("next_token", &block_offerings::next_token)
      .def_readonly("offerings", &block_offerings::offerings)
      .def("__len__", [](const block_offerings& o) { return o.offerings.size(); });
  py::class_<block_fee_quote>(m, "BlockFeeQuote")
      .def_readonly("fee_usd", &block_fee_quote::fee_usd)
      .def_readonly("offering", &block_fee_quote::offering)
      .def_readonly("matching", &block_fee_quote::matching)
      .def_readonly("fee_max_usd", &block_fee_quote::fee_max_usd)
      .def_readonly("date", &block_fee_quote::date)
      .def_readonly("file", &block_fee_quote::file)
      .def_property_readonly("note", &block_fee_quote::note)
      .def_property_readonly("quantity_spec", &quantity_spec<block_fee_quote>);
  m.def("read_block_offerings_files", &read_block_offerings_files, py::arg("files"),
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "quote_block_fee",
      [](const block_offerings& offers, const std::string& instance_type, int instance_count, int hours,
         const std::string& date, const std::string& region, const std::string& availability_zone) {
        block_fee_filter f;
        f.instance_type = instance_type;
        f.instance_count = instance_count;
        f.hours = hours;
        f.date = date;
        f.region = region;
        f.availability_zone = availability_zone;
        return quote_block_fee(offers, f);
      },
      py::arg("offerings"), py::arg("instance_type"), py::arg("instance_count"), py::arg("hours"), py::arg("date"),
      py::arg("region") = "", py::arg("availability_zone") = "");
  m.def("offered_block_hours", &offered_block_hours, py::arg("offerings"), py::arg("instance_type"),
        py::arg("instance_count"));

  py::class_<spot_price_history>(m, "SpotPriceHistory")
      .def_readonly("file", &spot_price_history::file)
      .def_readonly("next_token", &spot_price_history::next_token)
      .def("__len__", [](const spot_price_history& h) { return h.points.size(); });
  py::class_<spot_zone_summary>(m, "SpotZoneSummary")
      .def_readonly("availability_zone", &spot_zone_summary::availability_zone)
      .def_readonly("changes", &spot_zone_summary::changes)
      .def_readonly("hours", &spot_zone_summary::hours)
      .def_readonly("min_usd", &spot_zone_summary::min_usd)
      .def_readonly("mean_usd", &spot_zone_summary::mean_usd)
      .def_readonly("max_usd", &spot_zone_summary::max_usd)
      .def_readonly("last_usd", &spot_zone_summary::last_usd);
  py::class_<spot_quote>(m, "SpotQuote")
      .def_readonly("instance_type", &spot_quote::instance_type)
      .def_readonly("region", &spot_quote::region)
      .def_readonly("availability_zone", &spot_quote::availability_zone)
      .def_readonly("product_description", &spot_quote::product_description)
      .def_readonly("first", &spot_quote::first)
      .def_readonly("last", &spot_quote::last)
      .def_readonly("date", &spot_quote::date)
      .def_readonly("hourly_usd", &spot_quote::hourly_usd)
      .def_readonly("zones", &spot_quote::zones)
      .def_readonly("file", &spot_quote::file)
      .def_property_readonly("note", &spot_quote::note)
      .def_property_readonly("quantity_spec", &quantity_spec<spot_quote>);
  m.def("read_spot_price_history_files", &read_spot_price_history_files, py::arg("files"),
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "quote_spot_price",
      [](const spot_price_history& history, const std::string& instance_type, const std::string& region,
         const std::string& availability_zone, const std::string& product_description) {
        spot_filter f;
        f.instance_type = instance_type;
        f.region = region;
        f.availability_zone = availability_zone;
        f.product_description = product_description;
        return quote_spot_price(history, f);
      },
      py::arg("history"), py::arg("instance_type"), py::arg("region") = "", py::arg("availability_zone") = "",
      py::arg("product_description") = "Linux/UNIX");
}

}  // namespace

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
  register_ec2_quotes(m);
}

}  // namespace trnmodel::python
