// libFuzzer target: the text of a describe-spot-price-history output -> a spot quote
// (include/trnmodel/prices/spot_history.hpp). Every input must be read or refused with an
// input_error, and so must every quote asked of a history that was read; a quote that is given
// must hold finite prices > 0 within its zones' range, at most a year of hours per zone, and
// read back from its scenario form.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/spot_history.hpp"

using namespace trnmodel;

namespace {
void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_spot_history", what, text); }

void check_spot(const spot_price_history& history, const std::string& instance_type, const std::string& text) {
  spot_filter f;
  f.instance_type = instance_type;
  try {
    const spot_quote q = quote_spot_price(history, f);
    require(!q.hourly_usd.empty() && !q.zones.empty(), "a quote without prices", text);
    std::size_t hours = 0;
    for (const auto& z : q.zones) {
      require(z.hours >= 1 && z.hours <= 366 * 24 + 1, "a zone's hours outside one to a year", text);
      require(z.min_usd > 0 && z.min_usd <= z.mean_usd * (1 + 1e-12) && z.mean_usd <= z.max_usd * (1 + 1e-12),
              "a zone's min, mean and max are not ordered", text);
      hours += z.hours;
    }
    require(hours == q.hourly_usd.size(), "the zones' hours do not add up to the prices", text);
    for (const double p : q.hourly_usd) require(std::isfinite(p) && p > 0, "a price not finite and > 0", text);
    const quantity x = quantity_from_json(quantity_to_json(q.to_quantity()), "prices.spot_node_hour_usd");
    const auto [lo, hi] = std::minmax_element(q.hourly_usd.begin(), q.hourly_usd.end());
    require(x.prov().source == "quote" && x.prov().date == q.date && x.ppf(0.5) >= *lo && x.ppf(0.5) <= *hi,
            "the quote does not read back from its scenario form", text);
  } catch (const input_error&) {
    // No such price, or zones of two regions: a clear refusal.
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const spot_price_history history = parse_spot_price_history(text, "fuzz.json");
    check_spot(history, "p5.48xlarge", text);
    if (!history.points.empty()) check_spot(history, history.points.front().instance_type, text);
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  return 0;
}
