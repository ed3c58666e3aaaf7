// libFuzzer target: AWS price-list text (an offer file or aws pricing get-products output) ->
// a quote (include/trnmodel/prices/price_list.hpp). Every input must be read or refused with
// an input_error, and so must every quote asked of a list that was read; a quote that is
// given must be a finite price > 0 with an ISO date, a SKU of the list, and read back from
// its scenario form unchanged.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/price_list.hpp"

using namespace trnmodel;

namespace {
void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_price_list", what, text); }

void check_quote(const price_list& list, const std::string& instance_type, const std::string& region,
                 const std::string& purchase, const std::string& text) {
  price_filter filter;
  filter.instance_type = instance_type;
  filter.region = region;
  try {
    filter.purchase = parse_choice<purchase_mode>("purchase", purchase);
    const price_quote q = quote_price(list, filter);
    require(std::isfinite(q.usd_per_node_hour) && q.usd_per_node_hour > 0, "the price is not finite and > 0", text);
    require(detail::is_iso_date(q.date), "the quote's date is not YYYY-MM-DD", text);
    bool listed = false;
    for (const auto& row : list.rows) listed = listed || row.sku == q.sku;
    require(listed, "the quoted SKU is not a product of the list", text);
    const quantity x = quantity_from_json(quantity_to_json(q.to_quantity()), "prices.node_hour_usd");
    require(x.mean() == q.usd_per_node_hour && x.prov().source == "quote" && x.prov().date == q.date,
            "the quote does not read back from its scenario form", text);
  } catch (const input_error&) {
    // No such product, two of them, or a term without a usable price: a clear refusal.
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const price_list list = parse_price_list(text, "fuzz.json");
    for (const auto& row : list.rows) require(row.attributes != nullptr, "a row without attributes", text);
    check_quote(list, "trn2.48xlarge", "us-east-2", "on_demand", text);
    check_quote(list, "p5.48xlarge", "US East (N. Virginia)", "on_demand", text);
    check_quote(list, "p5.48xlarge", "us-east-1", "capacity_block", text);
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  return 0;
}
