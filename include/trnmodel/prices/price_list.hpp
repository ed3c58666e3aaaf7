#pragma once
// A price quote read from AWS's price list (docs/prices.md): the Price List Bulk API's offer
// file (`.../offers/v1.0/aws/AmazonEC2/current/<region>/index.json`) or the output of
// `aws pricing get-products` (the Price List Query API's GetProducts), narrowed by the
// attributes AWS documents to the one product that is "this instance type, in this region,
// bought this way", and its USD price per instance-hour (one node-hour).
//
// The two formats (AWS Billing User Guide, "Reading the service price list file" and the
// GetProducts API reference):
//   offer file    {formatVersion, offerCode, version, publicationDate,
//                  products: {SKU: {sku, productFamily, attributes: {name: value}}},
//                  terms: {OnDemand: {SKU: {SKU.TERM: TERM}}, Reserved: {...}}}
//   get-products  {FormatVersion: "aws_v1", NextToken?, PriceList: ["<JSON text>", ...]}, each
//                  text {product: {sku, productFamily, attributes}, serviceCode,
//                  terms: {OnDemand: {SKU.TERM: TERM}}, version, publicationDate}
//   TERM          {offerTermCode, sku, effectiveDate, priceDimensions:
//                  {SKU.TERM.RATE: {rateCode, unit, description, pricePerUnit: {USD: "55.04"}}}}
// Keys that AWS adds over time are ignored; the keys read are checked for their types.
//
// A product quoted on demand is the EC2 "Compute Instance" whose instanceType, regionCode
// (or location name), operatingSystem (Linux), tenancy (Shared), preInstalledSw (NA),
// capacitystatus (Used: not the rows billing an unused reservation) and marketoption
// (OnDemand) match. EC2 Capacity Blocks for ML are listed as their own products for the same
// instance types, with marketoption CapacityBlock and operation RunInstances:CB, and an
// OnDemand term of 0 USD per hour (the block's fee is quoted when it is booked); such a row
// is never taken for an on-demand price, even in an older list without marketoption.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/choices.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/did_you_mean.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/fields.hpp"

namespace trnmodel {

/// How the capacity is bought, as `prices.purchase` spells it (choices.hpp's purchase_mode).
inline const std::vector<std::string>& purchase_modes() { return choice_names<purchase_mode>(); }

/// What to quote. The defaults are the documented on-demand filters; `attributes` adds
/// exact matches on any further product attribute (e.g. licenseModel) to tell rows apart. A plain value:
/// copyable, owns its members; concurrent reads are safe.
struct price_filter {
  std::string instance_type;  ///< e.g. trn2.48xlarge
  std::string region;  ///< a region code (us-east-1) or its location name (US East (N. Virginia))
  purchase_mode purchase = purchase_mode::on_demand;  ///< how the capacity is bought
  std::string operating_system = "Linux";  ///< the operatingSystem attribute wanted
  std::string tenancy = "Shared";  ///< the tenancy attribute wanted
  std::string pre_installed_sw = "NA";  ///< the preInstalledSw attribute wanted (NA: no pre-installed software)
  std::string capacity_status = "Used";  ///< the capacitystatus attribute wanted (Used: not an unused reservation)
  std::vector<std::pair<std::string, std::string>> attributes;  ///< further (attribute, value) exact matches
};

/// One product of a price list with its terms, pointing into the list's parsed documents: valid while the
/// price_list that holds it (or a copy, which shares the documents) lives.
struct price_list_row {
  std::string sku;  ///< the product's SKU
  std::string where;  ///< the JSON path of the product, for messages
  std::string product_family;  ///< e.g. "Compute Instance"; "" when not written
  const ordered_json* attributes = nullptr;  ///< an object of strings
  const ordered_json* on_demand = nullptr;  ///< {SKU.TERM: TERM}, or null when the product has none
  std::string on_demand_path;  ///< its JSON path, for messages
  std::string publication_date;  ///< as written
  std::string version;  ///< the offer file's version, or the product document's; "" when not written
};

/// An AWS price list read from an offer file or get-products output: its rows and dates. A plain
/// value: copyable, owns its members; concurrent reads are safe.
struct price_list {
  std::string file;  ///< the name messages give (a path)
  std::string format;  ///< "offer file" or "get-products"
  std::string offer_code;  ///< AmazonEC2
  std::string version;  ///< the offer file's, or the first product document's that gives one; "" when none does
  std::string publication_date;  ///< of the list (an offer file) or of its first product (get-products)
  std::string next_token;  ///< get-products: set when the output is one page of several
  std::vector<price_list_row> rows;  ///< one per product, in the list's order
  std::vector<std::shared_ptr<const ordered_json>> documents;  ///< what the rows point into
};

/// A price read from a list, with everything needed to find the row again. A plain value: copyable, owns its
/// members; concurrent reads are safe.
struct price_quote {
  double usd_per_node_hour = 0;  ///< USD per instance-hour: one node for one hour
  purchase_mode purchase = purchase_mode::on_demand;  ///< the filter's purchase mode
  std::string instance_type;  ///< the filter's instance type
  std::string region;  ///< the region code, or the location name when the list gives no code
  std::string location;  ///< AWS's name of the region
  std::string operating_system;  ///< the product's operatingSystem attribute
  std::string tenancy;  ///< the product's tenancy attribute
  std::string date;  ///< YYYY-MM-DD: the day the list was published
  std::string publication_date;  ///< as written in the list
  std::string effective_date;  ///< the term's effectiveDate, as written: since when the price applies
  std::string sku;  ///< the product's SKU
  std::string offer_term_code;  ///< the OnDemand term's offerTermCode; "" when not written
  std::string rate_code;  ///< the price dimension's rateCode (its key when not written)
  std::string description;  ///< AWS's, e.g. "$55.04 per On Demand Linux p5.48xlarge Instance Hour"
  std::string offer_code;  ///< the list's offerCode (or get-products' serviceCode), e.g. AmazonEC2
  std::string version;  ///< the version of the list or product document the row came from
  std::string format;  ///< "offer file" or "get-products"
  std::string file;  ///< the name the list was read under (a path)

  /// Where the price came from, for the scenario's note (the file by its name only: a note
  /// travels with the scenario, the directory it was read from does not).
  std::string note() const {
    const std::size_t slash = file.find_last_of("/\\");
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    std::string text = "AWS price list (" + format + " " + name;
    if (!offer_code.empty()) text += ", " + offer_code;
    if (!version.empty()) text += " version " + version;
    text += "): " + instance_type + " " + name_of_choice(purchase) + " " + operating_system + " " + tenancy + " in " + location +
            ", SKU " + sku + ", rate code " + rate_code;
    if (!effective_date.empty()) text += ", effective " + effective_date;
    if (!description.empty()) text += " (\"" + description + "\")";
    return text;
  }

  /// The price as a scenario quantity: fixed, `source: quote`, the list's date and the region.
  quantity to_quantity() const {
    quantity q = make_fixed(usd_per_node_hour, path_of(field::prices_node_hour_usd));
    q.prov() = provenance{"quote", note(), date, region};
    return q;
  }
};

namespace detail {

// "file: products.A" + "sku" -> "file: products.A.sku"; "file: " + "products" -> "file: products".
inline std::string price_list_path(const std::string& path, const std::string& key) {
  const bool top = path.size() >= 2 && path.compare(path.size() - 2, 2, ": ") == 0;
  return top ? path + key : path + "." + key;
}

inline std::string price_list_string(const ordered_json& object, const std::string& key, const std::string& path,
                                     bool required) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) detail::fail(price_list_path(path, key), "required in an AWS price list, absent");
    return std::string();
  }
  return json_string(*it, price_list_path(path, key));
}

inline const ordered_json* price_list_object(const ordered_json& object, const std::string& key,
                                             const std::string& path, bool required) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) detail::fail(price_list_path(path, key), "required in an AWS price list, absent");
    return nullptr;
  }
  if (!it->is_object()) detail::fail(price_list_path(path, key), "must be an object, got " + describe_json(*it));
  return &*it;
}

// A product's attributes must all be strings: the filters compare text.
inline void check_price_attributes(const ordered_json& attributes, const std::string& path) {
  for (const auto& [name, value] : attributes.items())
    if (!value.is_string()) detail::fail(path + "." + name, "must be a string, got " + describe_json(value));
}

inline std::string price_attribute(const price_list_row& row, const std::string& name) {
  const auto it = row.attributes->find(name);
  return it == row.attributes->end() ? std::string() : it->get<std::string>();
}

inline bool has_price_attribute(const price_list_row& row, const std::string& name) {
  return row.attributes->find(name) != row.attributes->end();
}

// A price as AWS writes it ("55.0400000000"): plain decimal digits, nothing else.
inline double parse_price_text(const std::string& text, const std::string& path) {
  bool digits = false, point = false, valid = !text.empty();
  for (const char c : text) {
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      valid = false;
    }
  }
  if (!valid || !digits)
    detail::fail(path, "must be a decimal price such as \"55.0400000000\", got \"" + detail::shorten(text) + "\"");
  const double value = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(value)) detail::fail(path, "must be a finite price, got \"" + detail::shorten(text) + "\"");
  return value;
}

// "CapacityBlock" for the rows that price EC2 Capacity Blocks, whatever the list's age:
// marketoption when given, else the RunInstances:CB operation or a CapacityBlock usage type.
inline std::string price_market(const price_list_row& row) {
  if (has_price_attribute(row, "marketoption")) return price_attribute(row, "marketoption");
  const std::string operation = price_attribute(row, "operation");
  const bool cb_operation = operation.size() >= 3 && operation.compare(operation.size() - 3, 3, ":CB") == 0;
  if (cb_operation || price_attribute(row, "usagetype").find("CapacityBlock") != std::string::npos)
    return "CapacityBlock";
  return "OnDemand";
}

inline std::string market_of_purchase(purchase_mode purchase) {
  switch (purchase) {
    case purchase_mode::capacity_block: return "CapacityBlock";
    case purchase_mode::spot: return "Spot";
    case purchase_mode::on_demand: break;
  }
  return "OnDemand";
}

// One filter: the attribute it reads (productFamily is the product's own field), the value
// wanted, and the row's value.
struct price_condition {
  std::string name;
  std::string wanted;
};

inline std::vector<price_condition> price_conditions(const price_filter& filter) {
  std::vector<price_condition> conditions{
      {"productFamily", "Compute Instance"},
      {"instanceType", filter.instance_type},
      {"region", filter.region},
      {"operatingSystem", filter.operating_system},
      {"tenancy", filter.tenancy},
      {"preInstalledSw", filter.pre_installed_sw},
      {"capacitystatus", filter.capacity_status},
      {"marketoption", market_of_purchase(filter.purchase)},
  };
  for (const auto& [name, value] : filter.attributes) conditions.push_back({name, value});
  return conditions;
}

inline std::string price_region_text(const price_list_row& row) {
  const std::string code = price_attribute(row, "regionCode"), location = price_attribute(row, "location");
  if (code.empty()) return location.empty() ? "no region" : location;
  return location.empty() ? code : code + " / " + location;
}

inline std::string price_row_value(const price_list_row& row, const std::string& name) {
  if (name == "productFamily") return row.product_family;
  if (name == "region") return price_region_text(row);
  if (name == "marketoption") return price_market(row);
  return has_price_attribute(row, name) ? price_attribute(row, name) : "absent";
}

inline bool price_condition_holds(const price_list_row& row, const price_condition& c) {
  if (c.name == "productFamily") return row.product_family == c.wanted;
  if (c.name == "region")
    return price_attribute(row, "regionCode") == c.wanted || price_attribute(row, "location") == c.wanted;
  if (c.name == "marketoption") return price_market(row) == c.wanted;
  return has_price_attribute(row, c.name) && price_attribute(row, c.name) == c.wanted;
}

inline std::string describe_price_filter(const price_filter& filter) {
  std::string text;
  for (const auto& c : price_conditions(filter)) {
    if (c.name == "productFamily") continue;
    text += (text.empty() ? "" : ", ") + c.name + " " + c.wanted;
  }
  return text;
}

// Reads the products and terms of an offer file.
inline void read_offer_file(const std::shared_ptr<const ordered_json>& document, price_list& list) {
  const ordered_json& doc = *document;
  const std::string file = list.file + ": ";
  list.format = "offer file";
  list.offer_code = price_list_string(doc, "offerCode", file, false);
  list.version = price_list_string(doc, "version", file, false);
  list.publication_date = price_list_string(doc, "publicationDate", file, true);
  price_list_string(doc, "formatVersion", file, false);
  const ordered_json& products = *price_list_object(doc, "products", file, true);
  const ordered_json& terms = *price_list_object(doc, "terms", file, true);
  const ordered_json* on_demand = price_list_object(terms, "OnDemand", file + "terms", false);
  list.rows.reserve(products.size());
  for (const auto& [sku, product] : products.items()) {
    const std::string where = file + "products." + sku;
    if (!product.is_object()) detail::fail(where, "must be an object (a product), got " + describe_json(product));
    price_list_row row;
    row.sku = sku;
    row.where = "products." + sku;
    const std::string written = price_list_string(product, "sku", where, false);
    if (!written.empty() && written != sku)
      detail::fail(where + ".sku", "must be the product's key \"" + detail::shorten(sku) + "\", got \"" +
                                       detail::shorten(written) + "\"");
    row.product_family = price_list_string(product, "productFamily", where, false);
    row.attributes = price_list_object(product, "attributes", where, true);
    check_price_attributes(*row.attributes, where + ".attributes");
    if (on_demand != nullptr) row.on_demand = price_list_object(*on_demand, sku, file + "terms.OnDemand", false);
    row.on_demand_path = "terms.OnDemand." + sku;
    row.publication_date = list.publication_date;
    row.version = list.version;
    list.rows.push_back(std::move(row));
  }
}

// Reads one product document of get-products (`at` names it: "PriceList[3]").
inline void read_product_document(const ordered_json& doc, const std::string& at, price_list& list) {
  const std::string where = list.file + ": " + at;
  if (!doc.is_object()) detail::fail(where, "must be a product document (an object), got " + describe_json(doc));
  const ordered_json& product = *price_list_object(doc, "product", where, true);
  price_list_row row;
  row.where = at + ".product";
  row.sku = price_list_string(product, "sku", where + ".product", true);
  row.product_family = price_list_string(product, "productFamily", where + ".product", false);
  row.attributes = price_list_object(product, "attributes", where + ".product", true);
  check_price_attributes(*row.attributes, where + ".product.attributes");
  const ordered_json& terms = *price_list_object(doc, "terms", where, true);
  row.on_demand = price_list_object(terms, "OnDemand", where + ".terms", false);
  row.on_demand_path = at + ".terms.OnDemand";
  row.publication_date = price_list_string(doc, "publicationDate", where, true);
  row.version = price_list_string(doc, "version", where, false);
  if (list.offer_code.empty()) list.offer_code = price_list_string(doc, "serviceCode", where, false);
  if (list.publication_date.empty()) list.publication_date = row.publication_date;
  if (list.version.empty()) list.version = row.version;
  list.rows.push_back(std::move(row));
}

inline void read_get_products(const ordered_json& doc, price_list& list) {
  const std::string& file = list.file;
  list.format = "get-products";
  price_list_string(doc, "FormatVersion", file + ": ", false);
  list.next_token = price_list_string(doc, "NextToken", file + ": ", false);
  const ordered_json& items = doc.at("PriceList");
  if (!items.is_array())
    detail::fail(file + ": PriceList", "must be an array of product documents, got " + describe_json(items));
  list.rows.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "PriceList[" + std::to_string(i) + "]";
    if (items[i].is_string()) {
      // The API returns each product as JSON text inside the JSON.
      auto product =
          std::make_shared<const ordered_json>(parse_strict_json(items[i].get<std::string>(), file + ": " + at));
      list.documents.push_back(product);
      read_product_document(*product, at, list);
    } else {
      read_product_document(items[i], at, list);
    }
  }
}

}  // namespace detail

/// Reads a parsed price list; `file` names it in messages.
inline price_list read_price_list(std::shared_ptr<const ordered_json> document, const std::string& file) {
  price_list list;
  list.file = file;
  list.documents.push_back(document);
  const ordered_json& doc = *document;
  detail::check_json_depth(doc, file);
  if (!doc.is_object())
    detail::fail(file, "must be an AWS price list (a JSON object), got " + detail::describe_json(doc));
  if (doc.contains("PriceList")) {
    detail::read_get_products(doc, list);
  } else if (doc.contains("products") || doc.contains("terms")) {
    detail::read_offer_file(document, list);
  } else if (doc.contains("product")) {
    detail::read_product_document(doc, "product document", list);
    list.format = "get-products";
  } else {
    std::string keys;
    for (const auto& [key, value] : doc.items()) {
      (void)value;
      keys += (keys.empty() ? "" : ", ") + key;
    }
    detail::fail(
        file,
        "not an AWS price list: expected an offer file (formatVersion, publicationDate, products, terms) or the "
        "output of aws pricing get-products (PriceList), got an object with keys " +
            (keys.empty() ? std::string("none") : detail::shorten(keys)));
  }
  return list;
}

/// Parses price-list JSON text strictly (syntax errors with line and column, duplicate keys).
inline price_list parse_price_list(const std::string& text, const std::string& file) {
  return read_price_list(std::make_shared<const ordered_json>(detail::parse_strict_json(text, file)), file);
}

/// Reads and checks a price list file; input_error naming the file and the JSON path.
inline price_list read_price_list_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) detail::fail(file, "cannot open the price list file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_price_list(text.str(), file);
}

namespace detail {

// The one product matching every condition, or an error that says why there is none (the
// rows one condition away, or the instance types the list has) or which attributes tell
// two matches apart.
inline const price_list_row& match_price_row(const price_list& list, const price_filter& filter) {
  const auto conditions = price_conditions(filter);
  std::vector<const price_list_row*> matches;
  std::vector<std::pair<const price_list_row*, const price_condition*>> near;
  for (const auto& row : list.rows) {
    const price_condition* failed = nullptr;
    int failures = 0;
    for (const auto& c : conditions)
      if (!price_condition_holds(row, c)) {
        failed = &c;
        ++failures;
      }
    if (failures == 0) matches.push_back(&row);
    if (failures == 1) near.emplace_back(&row, failed);
  }
  if (matches.size() == 1) return *matches.front();

  const std::string filters = describe_price_filter(filter);
  if (matches.empty()) {
    std::string why = "no product matches " + filters;
    if (!near.empty()) {
      why += "; one filter away:";
      std::size_t shown = 0;
      for (const auto& [row, c] : near) {
        if (shown++ == 5) {
          why += " and " + std::to_string(near.size() - 5) + " more";
          break;
        }
        why += (shown > 1 ? ";" : "") + std::string(" SKU ") + row->sku + " has " + c->name + " " +
               price_row_value(*row, c->name);
        if (c->name == "marketoption" && price_market(*row) == "CapacityBlock")
          why += " (an EC2 Capacity Block row, not an on-demand price)";
      }
    } else {
      std::vector<std::string> types;
      for (const auto& row : list.rows) {
        const std::string type = price_attribute(row, "instanceType");
        if (!type.empty() && std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
      }
      const bool listed = std::find(types.begin(), types.end(), filter.instance_type) != types.end();
      if (!listed) {
        std::string names;
        for (std::size_t i = 0; i < types.size() && i < 8; ++i) names += (i ? ", " : "") + types[i];
        if (types.size() > 8) names += ", ...";
        why += "; the list has no instanceType " + filter.instance_type +
               (types.empty() ? " (it has no instances at all)" : " (it has " + names + ")");
      } else {
        std::vector<std::string> regions;
        for (const auto& row : list.rows)
          if (price_attribute(row, "instanceType") == filter.instance_type) {
            const std::string region = price_region_text(row);
            if (std::find(regions.begin(), regions.end(), region) == regions.end()) regions.push_back(region);
          }
        std::string names;
        for (std::size_t i = 0; i < regions.size() && i < 6; ++i) names += (i ? "; " : "") + regions[i];
        why += "; " + filter.instance_type + " is listed in " + names;
      }
    }
    if (filter.purchase == purchase_mode::spot)
      why +=
          "; AWS's price list has no spot prices (they move with supply and demand: read the current one with "
          "aws ec2 describe-spot-price-history)";
    if (!list.next_token.empty())
      why +=
          "; this get-products output is one page of several (NextToken is set): save every page, as the AWS "
          "CLI does without --max-items";
    detail::fail(list.file, why);
  }

  // Two or more: name the attributes on which the first two differ.
  const price_list_row& a = *matches[0];
  const price_list_row& b = *matches[1];
  std::vector<std::string> names;
  for (const auto* attributes : {a.attributes, b.attributes})
    for (const auto& [name, value] : attributes->items()) {
      (void)value;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  std::string differ;
  for (const auto& name : names) {
    const std::string va = price_row_value(a, name), vb = price_row_value(b, name);
    if (va != vb) differ += (differ.empty() ? "" : ", ") + name + " (" + va + " / " + vb + ")";
  }
  if (differ.empty()) differ = "no attribute (the same product listed twice)";
  detail::fail(list.file, std::to_string(matches.size()) + " products match " + filters + ": SKUs " + a.sku + " and " +
                              b.sku + " differ on " + differ + "; add a filter on one of these attributes");
}

}  // namespace detail

/// The price of `filter` in `list`: exactly one product must match, with one on-demand term
/// of one price dimension per instance-hour ("Hrs") in USD.
inline price_quote quote_price(const price_list& list, const price_filter& filter) {
  if (filter.instance_type.empty()) detail::fail("instance_type", "required (e.g. trn2.48xlarge), got an empty name");
  if (filter.region.empty()) detail::fail("region", "required (a region code such as us-east-1 or its location name)");

  const price_list_row& row = detail::match_price_row(list, filter);
  const std::string where = list.file + ": " + row.on_demand_path;
  if (row.on_demand == nullptr || row.on_demand->empty())
    detail::fail(where, "absent: SKU " + row.sku + " has no OnDemand terms in this list (no hourly price to quote)");
  if (row.on_demand->size() > 1) {
    std::string codes;
    for (const auto& [code, term] : row.on_demand->items()) {
      (void)term;
      codes += (codes.empty() ? "" : ", ") + code;
    }
    detail::fail(where, "SKU " + row.sku + " has " + std::to_string(row.on_demand->size()) + " OnDemand terms (" +
                            detail::shorten(codes) + "); a quote needs one");
  }
  const auto term_it = row.on_demand->begin();
  const std::string term_key = term_it.key();
  const ordered_json& term = term_it.value();
  const std::string term_path = where + "." + term_key;
  if (!term.is_object())
    detail::fail(term_path, "must be an object (an offer term), got " + detail::describe_json(term));
  price_quote q;
  q.offer_term_code = detail::price_list_string(term, "offerTermCode", term_path, false);
  q.effective_date = detail::price_list_string(term, "effectiveDate", term_path, false);
  const ordered_json& dimensions = *detail::price_list_object(term, "priceDimensions", term_path, true);
  if (dimensions.size() != 1)
    detail::fail(term_path + ".priceDimensions", "must hold one price dimension (one rate per instance-hour), got " +
                                                     std::to_string(dimensions.size()));
  const auto rate_it = dimensions.begin();
  const std::string rate_key = rate_it.key();
  const ordered_json& dimension = rate_it.value();
  const std::string rate_path = term_path + ".priceDimensions." + rate_key;
  if (!dimension.is_object())
    detail::fail(rate_path, "must be an object (a price dimension), got " + detail::describe_json(dimension));
  q.rate_code = detail::price_list_string(dimension, "rateCode", rate_path, false);
  if (q.rate_code.empty()) q.rate_code = rate_key;
  q.description = detail::price_list_string(dimension, "description", rate_path, false);
  const std::string unit = detail::price_list_string(dimension, "unit", rate_path, true);
  if (unit != "Hrs")
    detail::fail(rate_path + ".unit", "must be Hrs (a price per instance-hour), got \"" + detail::shorten(unit) + "\"");
  const ordered_json& prices = *detail::price_list_object(dimension, "pricePerUnit", rate_path, true);
  const auto usd = prices.find("USD");
  if (usd == prices.end()) {
    std::string currencies;
    for (const auto& [currency, value] : prices.items()) {
      (void)value;
      currencies += (currencies.empty() ? "" : ", ") + currency;
    }
    detail::fail(rate_path + ".pricePerUnit",
                 "has no USD price (it has " +
                     (currencies.empty() ? std::string("none") : detail::shorten(currencies)) +
                     "); trnmodel's costs are in USD");
  }
  const double price = detail::parse_price_text(detail::json_string(*usd, rate_path + ".pricePerUnit.USD"),
                                                rate_path + ".pricePerUnit.USD");
  if (!(price > 0))
    detail::fail(
        rate_path + ".pricePerUnit.USD",
        std::string("is 0 USD per hour, which is not the price of running the instance") +
            (detail::price_market(row) == "CapacityBlock"
                 ? " (AWS lists Capacity Blocks at 0 in the price list: a block's fee is quoted when it is booked, "
                   "aws ec2 describe-capacity-block-offerings, UpfrontFee)"
                 : ""));

  const std::string published = row.publication_date.substr(0, 10);
  if (!detail::is_iso_date(published))
    detail::fail(list.file + ": " + row.where, "the list's publicationDate must begin with a date YYYY-MM-DD, got \"" +
                                                   detail::shorten(row.publication_date) + "\"");
  q.usd_per_node_hour = price;
  q.purchase = filter.purchase;
  q.instance_type = filter.instance_type;
  const std::string code = detail::price_attribute(row, "regionCode");
  q.location = detail::price_attribute(row, "location");
  q.region = code.empty() ? q.location : code;
  q.operating_system = detail::price_attribute(row, "operatingSystem");
  q.tenancy = detail::price_attribute(row, "tenancy");
  q.date = published;
  q.publication_date = row.publication_date;
  q.sku = row.sku;
  q.offer_code = list.offer_code;
  q.version = row.version;
  q.format = list.format;
  q.file = list.file;
  return q;
}

}  // namespace trnmodel
