// Block fees and spot prices as EC2 quotes them (prices/block_offerings.hpp,
// prices/spot_history.hpp), on the hand-written fixtures in tests/data/prices: the saved
// outputs of `aws ec2 describe-capacity-block-offerings` and `aws ec2
// describe-spot-price-history`, and the bad files, each with the wording of its refusal.
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/block_offerings.hpp"
#include "trnmodel/prices/spot_history.hpp"

using namespace trnmodel;

namespace test_ec2_quotes {

namespace {
const std::string data_dir = std::string(TRNMODEL_SOURCE_DIR) + "/tests/data/prices/";

block_offerings offers() { return read_block_offerings_files({data_dir + "offerings-trn2-16.json"}); }
spot_price_history spot() { return read_spot_price_history_files({data_dir + "spot-history-p5.json"}); }

block_fee_filter trn2_block(int hours) {
  block_fee_filter f;
  f.instance_type = "trn2.48xlarge";
  f.instance_count = 16;
  f.hours = hours;
  f.date = "2026-12-03";
  return f;
}

spot_filter p5_spot(const std::string& zone = "") {
  spot_filter f;
  f.instance_type = "p5.48xlarge";
  f.availability_zone = zone;
  return f;
}

template <class F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const input_error& e) {
    std::string what = e.what();
    const auto at = what.find(data_dir);
    if (at != std::string::npos) what.erase(at, data_dir.size());
    return what;
  }
  return "no error";
}
}  // namespace

TEST_CASE("a zone's region: the name up to the part that starts with a digit, and its digits", "[prices]") {
  CHECK(detail::region_of_zone("us-east-2a") == "us-east-2");
  CHECK(detail::region_of_zone("ap-southeast-1c") == "ap-southeast-1");
  CHECK(detail::region_of_zone("us-west-2-lax-1a") == "us-west-2");
  CHECK(detail::region_of_zone("us-gov-west-1a") == "us-gov-west-1");
  CHECK(detail::region_of_zone("east").empty());
  CHECK(detail::region_of_zone("1a").empty());
}

TEST_CASE("a block's fee is the cheapest offering of its length and instance count", "[prices]") {
  const block_offerings o = offers();
  REQUIRE(o.offerings.size() == 8);
  // 336 h: two offerings for 16 instances (us-east-2a at 34.50, us-east-2b at 35.10 USD per
  // instance-hour); the one for 8 instances is another count.
  const block_fee_quote q = quote_block_fee(o, trn2_block(336));
  CHECK(q.fee_usd == 16 * 336 * 34.50);
  CHECK(q.fee_max_usd == 16 * 336 * 35.10);
  CHECK(q.matching == 2);
  CHECK(q.offering.availability_zone == "us-east-2a");
  CHECK(q.offering.region == "us-east-2");
  CHECK(q.offering.usd_per_node_hour() == Approx(34.50).epsilon(1e-12));
  const quantity fee = q.to_quantity();
  CHECK(fee.is_fixed());
  CHECK(fee.mean() == 185472.0);
  CHECK(fee.prov().source == "quote");
  CHECK(fee.prov().date == "2026-12-03");
  CHECK(fee.prov().region == "us-east-2");
  CHECK(fee.prov().note.find("cbr-00000000000001a2c") != std::string::npos);
  CHECK(fee.prov().note.find("the cheapest of 2 offerings (up to 188697.6 USD)") != std::string::npos);
  // One zone asked for: only its offering.
  block_fee_filter b = trn2_block(336);
  b.availability_zone = "us-east-2b";
  CHECK(quote_block_fee(o, b).fee_usd == Approx(16 * 336 * 35.10).epsilon(1e-15));
  CHECK(offered_block_hours(o, "trn2.48xlarge", 16) == std::vector<int>{168, 336, 672, 1176, 1344});
  CHECK(offered_block_hours(o, "trn2.48xlarge", 8) == std::vector<int>{336});
}

TEST_CASE("a block length or count nobody offered is refused with what is offered", "[prices]") {
  const block_offerings o = offers();
  CHECK(error_of([&] { quote_block_fee(o, trn2_block(504)); }) ==
        "offerings-trn2-16.json: no offering of 16 × trn2.48xlarge for 504 h; they offer 16 × 168 h, 16 × 336 h, "
        "16 × 672 h, 16 × 1176 h, 16 × 1344 h, 8 × 336 h (instances × length): ask AWS for this length and count");
  block_fee_filter p5 = trn2_block(24);
  p5.instance_type = "p5.48xlarge";
  p5.region = "us-west-2";
  CHECK(error_of([&] { quote_block_fee(o, p5); }) ==
        "offerings-trn2-16.json: no offering of 16 × p5.48xlarge for 24 h in us-west-2; the files offer no "
        "p5.48xlarge there");
  block_fee_filter undated = trn2_block(336);
  undated.date = "";
  CHECK(error_of([&] { quote_block_fee(o, undated); }) ==
        "date: must be the day the offerings were read, YYYY-MM-DD (the output carries no date), got \"\"");
}

TEST_CASE("bad offerings files are refused naming the path and the rule", "[prices]") {
  const auto bad = [](const std::string& name) {
    return error_of([&] { read_block_offerings_files({data_dir + "offerings-bad/" + name}); });
  };
  CHECK(bad("not-offerings.json") ==
        "offerings-bad/not-offerings.json: not the output of aws ec2 describe-capacity-block-offerings: expected an "
        "object with CapacityBlockOfferings, got {\"SpotPriceHistory\":[]}");
  CHECK(bad("fee-not-a-number.json") ==
        "offerings-bad/fee-not-a-number.json: CapacityBlockOfferings[0].UpfrontFee: must be a decimal price such as "
        "\"55.0400000000\", got \"$96,768\"");
  CHECK(bad("no-instance-count.json") ==
        "offerings-bad/no-instance-count.json: CapacityBlockOfferings[0].InstanceCount: required in an offering, "
        "absent");
  CHECK(bad("not-usd.json") ==
        "offerings-bad/not-usd.json: CapacityBlockOfferings[0].CurrencyCode: must be USD (trnmodel's costs are in "
        "USD), got \"CNY\"");
  CHECK(bad("bad-start.json") ==
        "offerings-bad/bad-start.json: CapacityBlockOfferings[0].StartDate: must be a timestamp with its zone such as "
        "2026-12-10T11:30:00+00:00, got \"next Tuesday\"");
  CHECK(bad("truncated.json").find("offerings-bad/truncated.json") == 0);
  CHECK(bad("truncated.json").find("line 2") != std::string::npos);
  CHECK(error_of([] { read_block_offerings_files({data_dir + "none.json"}); }) ==
        "none.json: cannot open the capacity block offerings file");
}

TEST_CASE("the spot price is the price in effect at each whole hour of the history", "[prices]") {
  // us-east-1a: 21.9 from 11-28 00:00, 22.8 from 11-29 00:00, 24.5 from 11-30 06:00 (the
  // history's last timestamp): hours 0-23 at 21.9, 24-53 at 22.8, 54 at 24.5 (55 hours).
  const spot_quote a = quote_spot_price(spot(), p5_spot("us-east-1a"));
  REQUIRE(a.hourly_usd.size() == 55);
  CHECK(std::count(a.hourly_usd.begin(), a.hourly_usd.end(), 21.9) == 24);
  CHECK(std::count(a.hourly_usd.begin(), a.hourly_usd.end(), 22.8) == 30);
  CHECK(std::count(a.hourly_usd.begin(), a.hourly_usd.end(), 24.5) == 1);
  REQUIRE(a.zones.size() == 1);
  CHECK(a.zones[0].mean_usd == Approx((24 * 21.9 + 30 * 22.8 + 24.5) / 55).epsilon(1e-14));
  CHECK(a.zones[0].changes == 3);
  CHECK(a.zones[0].last_usd == 24.5);
  CHECK(a.region == "us-east-1");
  CHECK(a.date == "2026-11-30");
  CHECK(a.first == "2026-11-28T00:00:00+00:00");
  // Every zone of the region, pooled: us-east-1b adds 42 hours at 25.3 and 13 at 27.1; the
  // Windows and m5.xlarge prices are other products.
  const spot_quote all = quote_spot_price(spot(), p5_spot());
  CHECK(all.hourly_usd.size() == 110);
  CHECK(all.zones.size() == 2);
  CHECK(all.zones[1].mean_usd == Approx((42 * 25.3 + 13 * 27.1) / 55).epsilon(1e-14));
  const quantity q = all.to_quantity();
  CHECK(std::string(q.family()) == "empirical");
  CHECK(q.prov().source == "quote");
  CHECK(q.prov().date == "2026-11-30");
  CHECK(q.prov().region == "us-east-1");
  CHECK(q.ppf(1e-9) == Approx(21.9));
  CHECK(q.ppf(1 - 1e-9) == Approx(27.1));
  CHECK(q.prov().note.find("zones pooled") != std::string::npos);
}

TEST_CASE("a spot price the history lacks, or a bad history, is refused with what it has", "[prices]") {
  spot_filter trn2 = p5_spot();
  trn2.instance_type = "trn2.48xlarge";
  CHECK(error_of([&] { quote_spot_price(spot(), trn2); }) ==
        "spot-history-p5.json: no spot price of trn2.48xlarge Linux/UNIX; the history has p5.48xlarge Linux/UNIX, "
        "p5.48xlarge Windows, m5.xlarge Linux/UNIX");
  spot_filter west = p5_spot();
  west.region = "us-west-2";
  CHECK(error_of([&] { quote_spot_price(spot(), west); }) ==
        "spot-history-p5.json: no spot price of p5.48xlarge Linux/UNIX in us-west-2; the history has zone "
        "us-east-1a, zone us-east-1b, p5.48xlarge Windows, m5.xlarge Linux/UNIX");
  const auto bad = [](const std::string& name) {
    return error_of(
        [&] { quote_spot_price(read_spot_price_history_files({data_dir + "spot-bad/" + name}), p5_spot()); });
  };
  CHECK(bad("not-history.json") ==
        "spot-bad/not-history.json: not the output of aws ec2 describe-spot-price-history: expected an object with "
        "SpotPriceHistory, got {\"CapacityBlockOfferings\":[]}");
  CHECK(bad("bad-timestamp.json") ==
        "spot-bad/bad-timestamp.json: SpotPriceHistory[0].Timestamp: must be a timestamp with its zone such as "
        "2026-11-20T08:00:00+00:00, got \"2026-11-30 06:00\"");
  CHECK(bad("no-price.json") ==
        "spot-bad/no-price.json: SpotPriceHistory[0].SpotPrice: required in a spot price, absent");
  CHECK(bad("zero-price.json") ==
        "spot-bad/zero-price.json: SpotPriceHistory[0].SpotPrice: must be a price above 0 USD per hour, got "
        "\"0.000000\"");
  CHECK(bad("two-prices.json") ==
        "spot-bad/two-prices.json: SpotPriceHistory[1]: gives us-east-1a two prices at 2026-11-30T06:00:00+00:00 "
        "(24.5 at SpotPriceHistory[0] and 25)");
  CHECK(bad("bad-zone.json") ==
        "spot-bad/bad-zone.json: SpotPriceHistory[0].AvailabilityZone: must be a zone name such as us-east-2a, got "
        "\"east\"");
}

TEST_CASE("a spot history longer than a year is refused before it is sampled", "[prices]") {
  const std::string text =
      R"({"SpotPriceHistory": [
        {"AvailabilityZone": "us-east-1a", "InstanceType": "p5.48xlarge", "ProductDescription": "Linux/UNIX",
         "SpotPrice": "20.0", "Timestamp": "1970-01-01T00:00:00Z"},
        {"AvailabilityZone": "us-east-1a", "InstanceType": "p5.48xlarge", "ProductDescription": "Linux/UNIX",
         "SpotPrice": "21.0", "Timestamp": "2026-11-30T00:00:00Z"}]})";
  CHECK(error_of([&] { quote_spot_price(parse_spot_price_history(text, "old.json"), p5_spot()); }) ==
        "old.json: SpotPriceHistory[0]: starts 20787 days before the history's last timestamp; a spot quote reads "
        "at most 366 days (AWS keeps 90)");
  // A price that never moved is a fixed quote.
  const std::string flat =
      R"({"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "InstanceType": "p5.48xlarge",
          "ProductDescription": "Linux/UNIX", "SpotPrice": "20.5", "Timestamp": "2026-11-30T00:00:00Z"}]})";
  const quantity q = quote_spot_price(parse_spot_price_history(flat, "flat.json"), p5_spot()).to_quantity();
  CHECK(q.is_fixed());
  CHECK(q.mean() == 20.5);
}

}  // namespace test_ec2_quotes
