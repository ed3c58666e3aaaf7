"""Quotes from AWS's price list (tm.quote, tm.read_price_list, `trnmodel quote`), on the
hand-written fixtures in tests/data/prices: the price each fixture gives, the quantity it
becomes in a scenario, and the exact refusal of every bad list."""

import datetime
import json
import pathlib
import subprocess
import sys

import pytest

import trnmodel as tm

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "prices"
OFFER = DATA / "offer-ec2.json"
GET_PRODUCTS = DATA / "get-products-p5.json"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

FILTERS = "operatingSystem Linux, tenancy Shared, preInstalledSw NA, capacitystatus Used, marketoption OnDemand"


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "trnmodel", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    "instance_type, region, usd, sku",
    [
        ("trn2.48xlarge", "us-east-2", 35.76, "TRN2USE2ONDEMAND"),
        ("trn2.48xlarge", "us-west-2", 37.52, "TRN2USW2ONDEMAND"),
        ("trn2.48xlarge", "US East (Ohio)", 35.76, "TRN2USE2ONDEMAND"),  # by location name
        ("p5.48xlarge", "us-east-1", 55.04, "P5USE1ONDEMAND00"),  # not the capacity block at 0 beside it
        ("p5.48xlarge", "US West (Oregon)", 56.21, "P5USW2ONDEMAND00"),
    ],
)
def test_offer_file_quotes(instance_type, region, usd, sku):
    q = tm.quote(OFFER, instance_type, region)
    assert q.usd_per_node_hour == usd
    assert q.sku == sku
    assert q.date == "2026-11-24"
    assert q.publication_date == "2026-11-24T18:02:11Z"
    assert q.effective_date == "2026-11-01T00:00:00Z"
    assert q.purchase == "on_demand"
    assert q.region.startswith("us-")  # the code, whichever form was given
    assert q.format == "offer file"


def test_get_products_quote_equals_the_offer_file():
    a = tm.quote(GET_PRODUCTS, "p5.48xlarge", "US East (N. Virginia)")
    b = tm.quote(OFFER, "p5.48xlarge", "us-east-1")
    assert a.format == "get-products"
    assert (a.usd_per_node_hour, a.sku, a.rate_code, a.region, a.date) == (
        b.usd_per_node_hour,
        b.sku,
        b.rate_code,
        b.region,
        b.date,
    )
    assert a.location == "US East (N. Virginia)"


def test_other_filters_pick_other_rows():
    assert tm.quote(OFFER, "p5.48xlarge", "us-east-1", operating_system="Windows").usd_per_node_hour == 63.87
    assert tm.quote(OFFER, "p5.48xlarge", "us-east-1", tenancy="Dedicated").sku == "P5USE1DEDICATED0"
    byol = {"licenseModel": "Bring your own license"}
    licensed = tm.quote(DATA / "bad" / "two-rows.json", "trn2.48xlarge", "us-east-2", attributes=byol)
    assert licensed.usd_per_node_hour == 34.9


def test_price_list_read_once_quoted_many_times():
    prices = tm.read_price_list(OFFER)
    assert len(prices) == 10
    assert prices.format == "offer file"
    assert prices.offer_code == "AmazonEC2"
    assert prices.version == "20261124180211"
    assert tm.read_price_list(prices) is prices
    assert prices.quote("trn2.48xlarge", "us-east-2") == tm.quote(OFFER, "trn2.48xlarge", "us-east-2")
    assert "10 products" in repr(prices)


def test_quote_as_scenario_quantity():
    q = tm.quote(OFFER, "trn2.48xlarge", "us-east-2")
    spec = q.to_dict()
    assert spec["dist"] == "fixed"
    assert spec["value"] == 35.76
    assert spec["source"] == "quote"
    assert spec["date"] == "2026-11-24"
    assert spec["region"] == "us-east-2"
    assert spec["note"].startswith("AWS price list (offer file offer-ec2.json, AmazonEC2 version 20261124180211): ")
    assert "SKU TRN2USE2ONDEMAND" in spec["note"]
    assert str(DATA) not in spec["note"]  # the file's name travels with the scenario, not its directory
    d = q.to_distribution()
    assert isinstance(d, tm.Fixed)
    assert d.mean() == 35.76
    scn = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-trn2x16.json")
    updated = scn.updated({"prices.node_hour_usd": d})
    assert updated.to_dict()["prices"]["node_hour_usd"] == spec
    assert q.age_days(datetime.date(2026, 12, 24)) == 30
    assert "35.76 USD per node-hour, price list of 2026-11-24" in str(q)


def error(path, *args, **kwargs):
    with pytest.raises(tm.ScenarioError) as e:
        tm.quote(path, *args, **kwargs)
    return str(e.value)


def test_capacity_block_row_never_taken_for_on_demand():
    assert error(OFFER, "trn2.48xlarge", "us-east-1") == (
        f"{OFFER}: no product matches instanceType trn2.48xlarge, region us-east-1, {FILTERS}; one filter away: "
        "SKU TRN2USE2ONDEMAND has region us-east-2 / US East (Ohio); SKU TRN2USW2ONDEMAND has region us-west-2 / "
        "US West (Oregon); SKU P5USE1ONDEMAND00 has instanceType p5.48xlarge; SKU TRN2USE1CAPBLOCK has "
        "marketoption CapacityBlock (an EC2 Capacity Block row, not an on-demand price)"
    )
    assert error(OFFER, "p5.48xlarge", "us-east-1", purchase="capacity_block").endswith(
        "pricePerUnit.USD: is 0 USD per hour, which is not the price of running the instance (AWS lists Capacity "
        "Blocks at 0 in the price list: a block's fee is quoted when it is booked, aws ec2 "
        "describe-capacity-block-offerings, UpfrontFee)"
    )


def test_no_matching_product():
    assert error(OFFER, "trn2.48xlarge", "eu-west-1") == (
        f"{OFFER}: no product matches instanceType trn2.48xlarge, region eu-west-1, {FILTERS}; one filter away: "
        "SKU TRN2USE2ONDEMAND has region us-east-2 / US East (Ohio); SKU TRN2USW2ONDEMAND has region us-west-2 / "
        "US West (Oregon)"
    )
    page = DATA / "bad" / "get-products-one-page.json"
    assert error(page, "trn2.48xlarge", "us-east-2") == (
        f"{page}: no product matches instanceType trn2.48xlarge, region us-east-2, {FILTERS}; the list has no "
        "instanceType trn2.48xlarge (it has p5.48xlarge); this get-products output is one page of several "
        "(NextToken is set): save every page, as the AWS CLI does without --max-items"
    )
    assert error(OFFER, "p5.48xlarge", "us-east-1", purchase="spot").endswith(
        "; AWS's price list has no spot prices (they move with supply and demand: read the current one with aws "
        "ec2 describe-spot-price-history)"
    )


def test_two_matching_rows():
    path = DATA / "bad" / "two-rows.json"
    assert error(path, "trn2.48xlarge", "us-east-2") == (
        f"{path}: 2 products match instanceType trn2.48xlarge, region us-east-2, {FILTERS}: SKUs TRN2USE2LICENSE1 "
        "and TRN2USE2LICENSE2 differ on licenseModel (No License required / Bring your own license), operation "
        "(RunInstances / RunInstances:0800); add a filter on one of these attributes"
    )


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "no-usd.json",
            "terms.OnDemand.TRN2USE2ONDEMAND.TRN2USE2ONDEMAND.JRTCKXETXF.priceDimensions.TRN2USE2ONDEMAND.JRTCKXETXF."
            "6YS6EN2CT7.pricePerUnit: has no USD price (it has CNY); trnmodel's costs are in USD",
        ),
        (
            "price-not-a-number.json",
            "terms.OnDemand.TRN2USE2ONDEMAND.TRN2USE2ONDEMAND.JRTCKXETXF.priceDimensions.TRN2USE2ONDEMAND.JRTCKXETXF."
            '6YS6EN2CT7.pricePerUnit.USD: must be a decimal price such as "55.0400000000", got "35,76"',
        ),
        (
            "no-terms.json",
            "terms.OnDemand.TRN2USE2ONDEMAND: absent: SKU TRN2USE2ONDEMAND has no OnDemand terms in this list (no "
            "hourly price to quote)",
        ),
        (
            "not-json.json",
            "JSON parse error at line 1, column 1: syntax error while parsing value - invalid literal; last read: '<'",
        ),
        (
            "not-a-price-list.json",
            "not an AWS price list: expected an offer file (formatVersion, publicationDate, products, terms) or the "
            "output of aws pricing get-products (PriceList), got an object with keys schema, name",
        ),
    ],
)
def test_bad_lists(name, message):
    path = DATA / "bad" / name
    assert error(path, "trn2.48xlarge", "us-east-2") == f"{path}: {message}"


def test_bad_arguments():
    assert (
        error(DATA / "missing.json", "trn2.48xlarge", "us-east-2")
        == f"{DATA / 'missing.json'}: no such price list file"
    )
    assert error(OFFER, "trn2.48xlarge", "us-east-2", purchase="spott") == (
        'purchase: must be one of on_demand, capacity_block, spot, got "spott" (did you mean spot?)'
    )
    assert (
        error(OFFER, "trn2.48xlarge", "") == "region: required (a region code such as us-east-1 or its location name)"
    )


def test_cli_prints_a_quote():
    r = run_cli("quote", str(OFFER), "--instance-type", "p5.48xlarge", "--region", "US East (N. Virginia)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(
        "p5.48xlarge on_demand in us-east-1 (US East (N. Virginia)): 55.04 USD per node-hour, price list of 2026-11-24"
    )
    r = run_cli("quote", str(GET_PRODUCTS), "--instance-type", "p5.48xlarge", "--region", "us-east-1", "--json")
    assert r.returncode == 0, r.stderr
    spec = json.loads(r.stdout)
    assert (spec["value"], spec["source"], spec["date"], spec["region"]) == (55.04, "quote", "2026-11-24", "us-east-1")


def test_cli_writes_the_quote_into_a_scenario(tmp_path):
    # The platform (trn2.48xlarge) and the region of the current quote (us-east-2) are the defaults.
    out = tmp_path / "requoted.json"
    r = run_cli("quote", str(OFFER), "--scenario", str(EXAMPLES / "llama3-70b-full-trn2x16.json"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "prices.node_hour_usd = 35.76 (quote of 2026-11-24, us-east-2) written" in r.stderr
    doc = json.loads(out.read_text())
    price = doc["prices"]["node_hour_usd"]
    assert (price["value"], price["source"], price["date"], price["region"]) == (
        35.76,
        "quote",
        "2026-11-24",
        "us-east-2",
    )
    before = json.loads((EXAMPLES / "llama3-70b-full-trn2x16.json").read_text())
    before["prices"]["node_hour_usd"] = price
    assert doc == before  # nothing else changed
    tm.Scenario.from_json(out)  # and it loads


def test_cli_errors_exit_2(tmp_path):
    r = run_cli("quote", str(OFFER), "--instance-type", "trn2.48xlarge", "--region", "us-east-1")
    assert r.returncode == 2
    assert r.stderr.startswith(f"trnmodel: {OFFER}: no product matches instanceType trn2.48xlarge")
    assert "marketoption CapacityBlock (an EC2 Capacity Block row, not an on-demand price)" in r.stderr
    r = run_cli("quote", str(OFFER), "--region", "us-east-1")
    assert (r.returncode, r.stderr) == (
        2,
        "trnmodel: --instance-type: required (e.g. trn2.48xlarge) unless --scenario names a platform\n",
    )
    r = run_cli("quote", str(OFFER), "--instance-type", "trn2.48xlarge", "--region", "us-east-2", "-o", "x.json")
    assert (r.returncode, r.stderr) == (2, "trnmodel: -o: writes an updated scenario, so it needs --scenario\n")
    r = run_cli("quote", str(OFFER), "--instance-type", "trn2.48xlarge", "--region", "us-east-2", "--attribute", "x")
    assert (r.returncode, r.stderr) == (
        2,
        "trnmodel: --attribute: must be NAME=VALUE (a product attribute), got 'x'\n",
    )
    scenario = str(EXAMPLES / "llama3-70b-full-trn2x16.json")
    r = run_cli(
        "quote", str(OFFER), "--scenario", scenario, "--field", "prices.node_hour", "-o", str(tmp_path / "x.json")
    )
    assert (r.returncode, r.stderr) == (
        2,
        "trnmodel: --field: prices.node_hour is not a quantity of the scenario format (did you mean "
        "prices.node_hour_usd?)\n",
    )
    assert not (tmp_path / "x.json").exists()
