// Quotes from AWS's price list (prices/price_list.hpp), on the hand-written fixtures in
// tests/data/prices: an offer file with trn2.48xlarge and p5.48xlarge in two regions each and
// the rows that must not be taken for them (capacity blocks, Windows, an unused reservation,
// dedicated tenancy), the output of `aws pricing get-products`, and the bad lists, each with
// the exact wording of its refusal.
#include <string>

#include "catch.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/price_list.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers may share names with other test files'
// (the tests are also compiled as unity translation units).
namespace test_price_list {

namespace {
const std::string data_dir = std::string(TRNMODEL_SOURCE_DIR) + "/tests/data/prices/";

price_list fixture(const std::string& name) { return read_price_list_file(data_dir + name); }

price_filter on_demand(const std::string& instance_type, const std::string& region) {
  price_filter f;
  f.instance_type = instance_type;
  f.region = region;
  return f;
}

std::string error_of(const std::string& name, price_filter filter) {
  try {
    quote_price(fixture(name), filter);
  } catch (const input_error& e) {
    const std::string what = e.what();
    return what.rfind(data_dir, 0) == 0 ? what.substr(data_dir.size()) : what;
  }
  return "no error";
}

const std::string filters_trn2 =
    "instanceType trn2.48xlarge, region us-east-2, operatingSystem Linux, tenancy Shared, preInstalledSw NA, "
    "capacitystatus Used, marketoption OnDemand";
}  // namespace

TEST_CASE("offer file: the on-demand row of each instance type in each region", "[price_list]") {
  const price_list list = fixture("offer-ec2.json");
  CHECK(list.format == "offer file");
  CHECK(list.offer_code == "AmazonEC2");
  CHECK(list.version == "20261124180211");
  CHECK(list.publication_date == "2026-11-24T18:02:11Z");
  CHECK(list.rows.size() == 10);

  const price_quote trn2 = quote_price(list, on_demand("trn2.48xlarge", "us-east-2"));
  CHECK(trn2.usd_per_node_hour == 35.76);
  CHECK(trn2.sku == "TRN2USE2ONDEMAND");
  CHECK(trn2.region == "us-east-2");
  CHECK(trn2.location == "US East (Ohio)");
  CHECK(trn2.date == "2026-11-24");
  CHECK(trn2.effective_date == "2026-11-01T00:00:00Z");
  CHECK(trn2.offer_term_code == "JRTCKXETXF");
  CHECK(trn2.rate_code == "TRN2USE2ONDEMAND.JRTCKXETXF.6YS6EN2CT7");
  CHECK(trn2.purchase == purchase_mode::on_demand);
  CHECK(trn2.operating_system == "Linux");
  CHECK(trn2.tenancy == "Shared");
  CHECK(quote_price(list, on_demand("trn2.48xlarge", "us-west-2")).usd_per_node_hour == 37.52);
  CHECK(quote_price(list, on_demand("p5.48xlarge", "us-west-2")).usd_per_node_hour == 56.21);

  // p5 in us-east-1 has six Compute Instance rows; only one is Linux, Shared, Used and on demand
  // (the capacity block beside it is 0 USD per hour, the Windows row 63.87).
  const price_quote p5 = quote_price(list, on_demand("p5.48xlarge", "us-east-1"));
  CHECK(p5.usd_per_node_hour == 55.04);
  CHECK(p5.sku == "P5USE1ONDEMAND00");
}

TEST_CASE("a region is given by its code or by its location name", "[price_list]") {
  const price_list list = fixture("offer-ec2.json");
  const price_quote by_name = quote_price(list, on_demand("p5.48xlarge", "US West (Oregon)"));
  CHECK(by_name.sku == "P5USW2ONDEMAND00");
  CHECK(by_name.region == "us-west-2");  // the quote carries the code whichever was given
  CHECK(by_name.location == "US West (Oregon)");
}

TEST_CASE("the other documented filters pick the other rows", "[price_list]") {
  const price_list list = fixture("offer-ec2.json");
  price_filter windows = on_demand("p5.48xlarge", "us-east-1");
  windows.operating_system = "Windows";
  CHECK(quote_price(list, windows).usd_per_node_hour == 63.87);
  price_filter dedicated = on_demand("p5.48xlarge", "us-east-1");
  dedicated.tenancy = "Dedicated";
  CHECK(quote_price(list, dedicated).sku == "P5USE1DEDICATED0");
  price_filter extra = on_demand("p5.48xlarge", "us-east-1");
  extra.attributes = {{"licenseModel", "No License required"}};
  CHECK(quote_price(list, extra).sku == "P5USE1ONDEMAND00");
}

TEST_CASE("the quote as a scenario quantity: fixed, source quote, the list's date and region", "[price_list]") {
  const price_quote q = quote_price(fixture("offer-ec2.json"), on_demand("trn2.48xlarge", "us-east-2"));
  const quantity x = q.to_quantity();
  CHECK(x.is_fixed());
  CHECK(x.mean() == 35.76);
  CHECK(x.prov().source == "quote");
  CHECK(x.prov().date == "2026-11-24");
  CHECK(x.prov().region == "us-east-2");
  // The note names the file, not its directory.
  CHECK(x.prov().note ==
        "AWS price list (offer file offer-ec2.json, AmazonEC2 version 20261124180211): trn2.48xlarge on_demand Linux "
        "Shared in US East (Ohio), SKU TRN2USE2ONDEMAND, rate code TRN2USE2ONDEMAND.JRTCKXETXF.6YS6EN2CT7, effective "
        "2026-11-01T00:00:00Z (\"$35.76 per On Demand Linux trn2.48xlarge Instance Hour\")");
  const ordered_json j = quantity_to_json(x);
  CHECK(j.at("source") == "quote");
  CHECK(quantity_from_json(j, "prices.node_hour_usd").prov().date == "2026-11-24");  // reads back
}

TEST_CASE("get-products output: each PriceList entry is JSON text", "[price_list]") {
  const price_list list = fixture("get-products-p5.json");
  CHECK(list.format == "get-products");
  CHECK(list.offer_code == "AmazonEC2");
  CHECK(list.rows.size() == 5);
  CHECK(list.next_token.empty());
  const price_quote q = quote_price(list, on_demand("p5.48xlarge", "US East (N. Virginia)"));
  CHECK(q.usd_per_node_hour == 55.04);
  CHECK(q.sku == "P5USE1ONDEMAND00");
  CHECK(q.region == "us-east-1");
  CHECK(q.date == "2026-11-24");
  CHECK(q.format == "get-products");
  // The same product and price as in the offer file.
  const price_quote same = quote_price(fixture("offer-ec2.json"), on_demand("p5.48xlarge", "us-east-1"));
  CHECK(q.rate_code == same.rate_code);
  CHECK(q.usd_per_node_hour == same.usd_per_node_hour);
}

TEST_CASE("a capacity-block row is never taken for on demand", "[price_list]") {
  // trn2.48xlarge in us-east-1 has only a capacity-block row, written as in a list older than
  // marketoption: the RunInstances:CB operation says what it is.
  CHECK(error_of("offer-ec2.json", on_demand("trn2.48xlarge", "us-east-1")) ==
        "offer-ec2.json: no product matches instanceType trn2.48xlarge, region us-east-1, operatingSystem Linux, "
        "tenancy Shared, preInstalledSw NA, capacitystatus Used, marketoption OnDemand; one filter away: SKU "
        "TRN2USE2ONDEMAND has region us-east-2 / US East (Ohio); SKU TRN2USW2ONDEMAND has region us-west-2 / US "
        "West (Oregon); SKU P5USE1ONDEMAND00 has instanceType p5.48xlarge; SKU TRN2USE1CAPBLOCK has marketoption "
        "CapacityBlock (an EC2 Capacity Block row, not an on-demand price)");
  // Bought as a capacity block, the row is found, and its 0 USD per hour refused.
  price_filter block = on_demand("p5.48xlarge", "us-east-1");
  block.purchase = purchase_mode::capacity_block;
  CHECK(error_of("offer-ec2.json", block) ==
        "offer-ec2.json: terms.OnDemand.P5USE1CAPBLOCK00.P5USE1CAPBLOCK00.JRTCKXETXF.priceDimensions."
        "P5USE1CAPBLOCK00.JRTCKXETXF.6YS6EN2CT7.pricePerUnit.USD: is 0 USD per hour, which is not the price of "
        "running the instance (AWS lists Capacity Blocks at 0 in the price list: a block's fee is quoted when it "
        "is booked, aws ec2 describe-capacity-block-offerings, UpfrontFee)");
  CHECK(error_of("bad/get-products-one-page.json", on_demand("p5.48xlarge", "us-east-1")) ==
        "bad/get-products-one-page.json: no product matches instanceType p5.48xlarge, region us-east-1, "
        "operatingSystem Linux, tenancy Shared, preInstalledSw NA, capacitystatus Used, marketoption OnDemand; one "
        "filter away: SKU P5USE1CAPBLOCK00 has marketoption CapacityBlock (an EC2 Capacity Block row, not an "
        "on-demand price); this get-products output is one page of several (NextToken is set): save every page, as "
        "the AWS CLI does without --max-items");
}

TEST_CASE("no matching product: the filters and the nearest rows", "[price_list]") {
  CHECK(error_of("offer-ec2.json", on_demand("trn2.48xlarge", "eu-west-1")) ==
        "offer-ec2.json: no product matches instanceType trn2.48xlarge, region eu-west-1, operatingSystem Linux, "
        "tenancy Shared, preInstalledSw NA, capacitystatus Used, marketoption OnDemand; one filter away: SKU "
        "TRN2USE2ONDEMAND has region us-east-2 / US East (Ohio); SKU TRN2USW2ONDEMAND has region us-west-2 / US "
        "West (Oregon)");
  price_filter far = on_demand("trn2.48xlarge", "eu-west-1");
  far.operating_system = "RHEL";
  CHECK(error_of("offer-ec2.json", far) ==
        "offer-ec2.json: no product matches instanceType trn2.48xlarge, region eu-west-1, operatingSystem RHEL, "
        "tenancy Shared, preInstalledSw NA, capacitystatus Used, marketoption OnDemand; trn2.48xlarge is listed in "
        "us-east-2 / US East (Ohio); us-west-2 / US West (Oregon); us-east-1 / US East (N. Virginia)");
  price_filter spot = on_demand("p5.48xlarge", "us-east-1");
  spot.purchase = purchase_mode::spot;
  CHECK(error_of("offer-ec2.json", spot) ==
        "offer-ec2.json: no product matches instanceType p5.48xlarge, region us-east-1, operatingSystem Linux, "
        "tenancy Shared, preInstalledSw NA, capacitystatus Used, marketoption Spot; one filter away: SKU "
        "P5USE1ONDEMAND00 has marketoption OnDemand; SKU P5USE1CAPBLOCK00 has marketoption CapacityBlock (an EC2 "
        "Capacity Block row, not an on-demand price); AWS's price list has no spot prices (they move with supply "
        "and demand: read the current one with aws ec2 describe-spot-price-history)");
  CHECK(error_of("bad/get-products-one-page.json", on_demand("trn2.48xlarge", "us-east-2")) ==
        "bad/get-products-one-page.json: no product matches " + filters_trn2 +
            "; the list has no instanceType trn2.48xlarge (it has p5.48xlarge); this get-products output is one "
            "page of several (NextToken is set): save every page, as the AWS CLI does without --max-items");
}

TEST_CASE("two matching rows: the SKUs and the attributes on which they differ", "[price_list]") {
  CHECK(error_of("bad/two-rows.json", on_demand("trn2.48xlarge", "us-east-2")) ==
        "bad/two-rows.json: 2 products match " + filters_trn2 +
            ": SKUs TRN2USE2LICENSE1 and TRN2USE2LICENSE2 differ on licenseModel (No License required / Bring your "
            "own license), operation (RunInstances / RunInstances:0800); add a filter on one of these attributes");
  price_filter licensed = on_demand("trn2.48xlarge", "us-east-2");
  licensed.attributes = {{"licenseModel", "Bring your own license"}};
  CHECK(quote_price(fixture("bad/two-rows.json"), licensed).usd_per_node_hour == 34.9);
}

TEST_CASE("bad lists: no USD price, a price that is not a number, no terms, not JSON, not a list", "[price_list]") {
  const price_filter trn2 = on_demand("trn2.48xlarge", "us-east-2");
  CHECK(error_of("bad/no-usd.json", trn2) ==
        "bad/no-usd.json: terms.OnDemand.TRN2USE2ONDEMAND.TRN2USE2ONDEMAND.JRTCKXETXF.priceDimensions."
        "TRN2USE2ONDEMAND.JRTCKXETXF.6YS6EN2CT7.pricePerUnit: has no USD price (it has CNY); trnmodel's costs are "
        "in USD");
  CHECK(error_of("bad/price-not-a-number.json", trn2) ==
        "bad/price-not-a-number.json: terms.OnDemand.TRN2USE2ONDEMAND.TRN2USE2ONDEMAND.JRTCKXETXF.priceDimensions."
        "TRN2USE2ONDEMAND.JRTCKXETXF.6YS6EN2CT7.pricePerUnit.USD: must be a decimal price such as \"55.0400000000\", "
        "got \"35,76\"");
  CHECK(error_of("bad/no-terms.json", trn2) ==
        "bad/no-terms.json: terms.OnDemand.TRN2USE2ONDEMAND: absent: SKU TRN2USE2ONDEMAND has no OnDemand terms in "
        "this list (no hourly price to quote)");
  CHECK(error_of("bad/not-json.json", trn2) ==
        "bad/not-json.json: JSON parse error at line 1, column 1: syntax error while parsing value - invalid "
        "literal; last read: '<'");
  CHECK(error_of("bad/not-a-price-list.json", trn2) ==
        "bad/not-a-price-list.json: not an AWS price list: expected an offer file (formatVersion, publicationDate, "
        "products, terms) or the output of aws pricing get-products (PriceList), got an object with keys schema, "
        "name");
  CHECK(error_of("missing.json", trn2) == "missing.json: cannot open the price list file");
}

TEST_CASE("malformed lists in memory are refused by path", "[price_list]") {
  const auto error = [](const std::string& text) {
    try {
      parse_price_list(text, "list.json");
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("[1, 2]") == "list.json: must be an AWS price list (a JSON object), got [1,2]");
  CHECK(error(R"({"products": {}, "terms": {}})") ==
        "list.json: publicationDate: required in an AWS price list, absent");
  CHECK(error(R"({"publicationDate": "2026-11-24T18:02:11Z", "products": {"A": {"sku": "B", "attributes": {}}},
                  "terms": {}})") == "list.json: products.A.sku: must be the product's key \"A\", got \"B\"");
  CHECK(error(R"({"publicationDate": "2026-11-24T18:02:11Z", "products": {"A": {"attributes": {"vcpu": 192}}},
                  "terms": {}})") == "list.json: products.A.attributes.vcpu: must be a string, got 192");
  CHECK(error(R"({"PriceList": "not a list"})") ==
        "list.json: PriceList: must be an array of product documents, got \"not a list\"");
  CHECK(error(R"({"PriceList": ["{\"product\": "]})").rfind("list.json: PriceList[0]: JSON parse error", 0) == 0);
  CHECK(error(R"({"PriceList": [{"terms": {}}]})") ==
        "list.json: PriceList[0].product: required in an AWS price list, absent");
  // The purchase mode is an enum: its spelling is refused where it is read (the binding, a file).
  CHECK_THROWS_WITH(parse_choice<purchase_mode>("purchase", "spott"),
                    "purchase: must be one of on_demand, capacity_block, spot, got \"spott\" (did you mean spot?)");
  CHECK_THROWS_WITH(quote_price(fixture("offer-ec2.json"), on_demand("", "us-east-2")),
                    "instance_type: required (e.g. trn2.48xlarge), got an empty name");
}

}  // namespace test_price_list
