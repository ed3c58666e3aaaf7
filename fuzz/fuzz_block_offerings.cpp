// libFuzzer target: the text of a describe-capacity-block-offerings output -> a block fee
// (include/trnmodel/prices/block_offerings.hpp). Every input must be read or refused with an
// input_error, and so must every fee asked of offerings that were read; a fee that is given must
// be the smallest finite fee > 0 of the matching offerings, and read back from its scenario form.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/block_offerings.hpp"

using namespace trnmodel;

namespace {
void require(bool ok, const char* what, const std::string& text) {
  fuzz::require(ok, "fuzz_block_offerings", what, text);
}

void check_fee(const block_offerings& offers, const std::string& instance_type, int count, int hours,
               const std::string& text) {
  block_fee_filter f;
  f.instance_type = instance_type;
  f.instance_count = count;
  f.hours = hours;
  f.date = "2026-12-03";
  try {
    const block_fee_quote q = quote_block_fee(offers, f);
    require(std::isfinite(q.fee_usd) && q.fee_usd > 0, "the fee is not finite and > 0", text);
    require(q.matching >= 1 && q.fee_max_usd >= q.fee_usd, "the fee's range is not ordered", text);
    for (const auto& o : offers.offerings)
      if (o.instance_type == instance_type && o.instance_count == count && o.duration_hours == hours &&
          o.duration_minutes == 0)
        require(o.upfront_fee_usd >= q.fee_usd, "a matching offering is cheaper than the quoted fee", text);
    const quantity x = quantity_from_json(quantity_to_json(q.to_quantity()), "prices.block_usd");
    require(x.mean() == q.fee_usd && x.prov().source == "quote" && x.prov().date == q.date,
            "the fee does not read back from its scenario form", text);
  } catch (const input_error&) {
    // No such offering: a clear refusal.
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const block_offerings offers = parse_block_offerings(text, "fuzz.json");
    for (const auto& o : offers.offerings)
      require(o.instance_count >= 1 && !o.region.empty() && o.upfront_fee_usd > 0, "an offering read unchecked", text);
    check_fee(offers, "trn2.48xlarge", 16, 336, text);
    check_fee(offers, "p5.48xlarge", 4, 24, text);
    if (!offers.offerings.empty()) {
      const auto& o = offers.offerings.front();
      check_fee(offers, o.instance_type, o.instance_count, std::max(o.duration_hours, 1), text);
    }
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  return 0;
}
