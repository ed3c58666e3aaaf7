"""Block fees and spot prices as EC2 quotes them (docs/prices.md): tm.read_block_offerings,
tm.block_fee, tm.spot_price, their CLI commands, and purchase_options / the sign-off with
offerings and a spot history, on the hand-written fixtures in tests/data/prices."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import trnmodel as tm
from trnmodel.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
PRICES = ROOT / "tests" / "data" / "prices"
OFFERS = PRICES / "offerings-trn2-16.json"
SPOT = PRICES / "spot-history-p5.json"
BLOCK_70B = ROOT / "examples" / "llama3-70b-full-trn2x16-block14d.json"
SPOT_8B = ROOT / "examples" / "llama3-8b-lora-p5-spot.json"


def _hourly(points, end):
    """The price in effect at each whole hour from the first point to `end`, computed apart from
    the library: numpy's searchsorted over the sorted change times."""
    times = np.array([np.datetime64(t[:19], "s").astype(np.int64) for t, _ in points])
    prices = np.array([p for _, p in points])
    order = np.argsort(times, kind="stable")
    times, prices = times[order], prices[order]
    end_s = np.datetime64(end[:19], "s").astype(np.int64)
    grid = np.arange(times[0], end_s + 1, 3600)
    return prices[np.searchsorted(times, grid, side="right") - 1]


def test_block_fee_is_the_cheapest_offering_with_its_date_and_region():
    offers = tm.read_block_offerings(OFFERS, date="2026-12-03")
    assert len(offers) == 8 and offers.date_source == "given"
    assert offers.hours("trn2.48xlarge", 16) == [168, 336, 672, 1176, 1344]
    fee = offers.fee("trn2.48xlarge", 16, 336)
    assert fee.fee_usd == 16 * 336 * 34.50 and fee.fee_max_usd == pytest.approx(16 * 336 * 35.10)
    assert (fee.availability_zone, fee.region, fee.matching) == ("us-east-2a", "us-east-2", 2)
    spec = fee.to_dict()
    assert spec["value"] == 185472.0 and spec["source"] == "quote"
    assert (spec["date"], spec["region"]) == ("2026-12-03", "us-east-2")
    assert fee.to_distribution().mean() == 185472.0
    frame = offers.to_pandas()
    assert len(frame) == 8
    np.testing.assert_allclose(
        frame["usd_per_node_hour"], frame["upfront_fee_usd"] / (frame["instance_count"] * frame["duration_hours"])
    )
    # Undated: the file's own date, said so.
    assert tm.read_block_offerings(OFFERS).date_source == "the file's date"
    with pytest.raises(tm.ScenarioError, match=r"no offering of 16 × trn2.48xlarge for 504 h; they offer"):
        tm.block_fee(OFFERS, "trn2.48xlarge", 16, 504, date="2026-12-03")
    with pytest.raises(tm.ScenarioError, match=r"date: must be the day the offerings were read, YYYY-MM-DD"):
        tm.read_block_offerings(OFFERS, date="3 Dec")


@pytest.mark.parametrize(
    "name, message",
    [
        ("not-offerings.json", "not the output of aws ec2 describe-capacity-block-offerings"),
        ("fee-not-a-number.json", r"CapacityBlockOfferings\[0\].UpfrontFee: must be a decimal price"),
        ("no-instance-count.json", r"CapacityBlockOfferings\[0\].InstanceCount: required in an offering"),
        ("not-usd.json", r"CurrencyCode: must be USD"),
        ("bad-start.json", r"StartDate: must be a timestamp with its zone"),
        ("truncated.json", r"truncated.json"),
    ],
)
def test_bad_offerings_files_name_the_path_and_the_rule(name, message):
    with pytest.raises(tm.ScenarioError, match=message):
        tm.read_block_offerings(PRICES / "offerings-bad" / name)


def test_spot_price_is_the_hourly_price_of_the_history():
    raw = json.loads(SPOT.read_text())["SpotPriceHistory"]
    end = max(p["Timestamp"] for p in raw)
    price = tm.spot_price(SPOT, "p5.48xlarge", region="us-east-1")
    expected = []
    for zone in ("us-east-1a", "us-east-1b"):
        points = [
            (p["Timestamp"], float(p["SpotPrice"]))
            for p in raw
            if p["AvailabilityZone"] == zone
            and p["InstanceType"] == "p5.48xlarge"
            and p["ProductDescription"] == "Linux/UNIX"
        ]
        hourly = _hourly(points, end)
        zone_row = [z for z in price.zones if z["availability_zone"] == zone][0]
        assert zone_row["hours"] == len(hourly)
        assert zone_row["mean_usd"] == pytest.approx(hourly.mean(), rel=1e-14)
        assert (zone_row["min_usd"], zone_row["max_usd"]) == (hourly.min(), hourly.max())
        expected.append(hourly)
    np.testing.assert_array_equal(price.hourly_usd, np.concatenate(expected))
    assert price.date == "2026-11-30" and price.region == "us-east-1"
    d = price.to_distribution()
    spec = price.to_dict()
    assert spec["dist"] == "empirical" and spec["source"] == "quote" and spec["date"] == "2026-11-30"
    # The empirical distribution is the hourly prices: its quantiles are numpy's (type 7).
    all_hours = np.concatenate(expected)
    np.testing.assert_allclose(d.ppf([0.1, 0.5, 0.9]), np.quantile(all_hours, [0.1, 0.5, 0.9]), rtol=1e-14)
    one = tm.spot_price(SPOT, "p5.48xlarge", zone="us-east-1a")
    assert len(one.zones) == 1 and len(one.hourly_usd) == 55
    frame = one.zones_frame()
    assert list(frame["availability_zone"]) == ["us-east-1a"]


@pytest.mark.parametrize(
    "name, message",
    [
        ("not-history.json", "not the output of aws ec2 describe-spot-price-history"),
        ("bad-timestamp.json", r"SpotPriceHistory\[0\].Timestamp: must be a timestamp with its zone"),
        ("no-price.json", r"SpotPriceHistory\[0\].SpotPrice: required in a spot price, absent"),
        ("zero-price.json", r"must be a price above 0 USD per hour"),
        ("two-prices.json", r"two prices at 2026-11-30T06:00:00\+00:00"),
        ("bad-zone.json", r"AvailabilityZone: must be a zone name"),
    ],
)
def test_bad_spot_histories_name_the_path_and_the_rule(name, message):
    with pytest.raises(tm.ScenarioError, match=message):
        tm.spot_price(PRICES / "spot-bad" / name, "p5.48xlarge")


def test_spot_price_the_history_lacks_is_refused_with_what_it_has():
    with pytest.raises(tm.ScenarioError, match=r"no spot price of trn2.48xlarge Linux/UNIX; the history has p5"):
        tm.spot_price(SPOT, "trn2.48xlarge")
    with pytest.raises(tm.ScenarioError, match=r"no such spot price history file"):
        tm.spot_price(PRICES / "none.json", "p5.48xlarge")


def test_purchase_options_take_the_quoted_fees_and_search_among_the_offered_lengths():
    scn = tm.Scenario.from_json(BLOCK_70B)
    opts = tm.purchase_options(scn, samples=2000, offerings=OFFERS, offerings_date="2026-12-03", progress=False)
    blocks = opts.table[opts.table["purchase"] == "capacity_block"]
    # The offered lengths by default, each with its quoted fee.
    assert list(blocks["block_hours"]) == [168, 336, 672, 1176, 1344]
    rates = {168: 36.00, 336: 34.50, 672: 33.00, 1176: 31.50, 1344: 31.20}
    for _, row in blocks.iterrows():
        assert row["fee_usd"] == pytest.approx(16 * row["block_hours"] * rates[int(row["block_hours"])], rel=1e-12)
        assert row["note"].startswith("fee quoted: cbr-")
    # The idle dollars are the idle hours at the block's own rate (fee per block-hour): the
    # means of a per-sample identity.
    for _, row in blocks.iterrows():
        per_hour = row["fee_usd"] / row["block_hours"]
        assert row["block_idle_usd"] == pytest.approx(row["block_idle_h"] * per_hour, rel=1e-9)
    # P(fit) grows with the length on common random numbers.
    assert list(blocks["p_fit"]) == sorted(blocks["p_fit"])
    if opts.choice is not None:
        assert f"fee {opts.choice['fee_usd']:,.0f} USD" in opts.headline()
        assert "expected idle" in opts.headline()
    # A length nobody offered has an unknown fee, said in its note, and an unknown cost.
    odd = tm.purchase_options(
        scn, block_hours=[504], samples=500, offerings=OFFERS, offerings_date="2026-12-03", search=False, progress=False
    )
    row = odd.table[odd.table["purchase"] == "capacity_block"].iloc[0]
    assert np.isnan(row["fee_usd"]) and np.isnan(row["cost_p50"])
    assert "fee unknown: no offering of 16 × trn2.48xlarge for 504 h in us-east-2" in row["note"]


def test_purchase_options_price_spot_from_its_history():
    scn = tm.Scenario.from_json(SPOT_8B)
    opts = tm.purchase_options(scn, samples=1000, spot_history=SPOT, progress=False)
    spot = opts.table[opts.table["purchase"] == "spot"].iloc[0]
    assert "spot price: the history's 110 hours to 2026-11-30 in us-east-1, 2 zones" in spot["note"]
    assert not np.isnan(spot["cost_p50"])
    # On demand, the spot price comes from the history, and without an interruption rate the
    # row says what is missing.
    on_demand = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    opts = tm.purchase_options(on_demand, samples=500, spot_history=SPOT, search=False, progress=False)
    spot = opts.table[opts.table["purchase"] == "spot"].iloc[0]
    assert spot["note"].startswith("not described: give spot= (spot.interruptions_per_node_h)")
    assert np.isnan(spot["cost_p50"])


def test_cli_quotes_block_fees_and_spot_prices_into_a_scenario(tmp_path, capsys):
    out = tmp_path / "quoted.json"
    code = main(["quote-block", str(OFFERS), "--scenario", str(BLOCK_70B), "--date", "2026-12-03", "-o", str(out)])
    assert code == 0
    printed = capsys.readouterr()
    assert "16 × trn2.48xlarge for 336 h (14 days) in us-east-2a: 185,472.00 USD up front" in printed.out
    fee = json.loads(out.read_text())["prices"]["block_usd"]
    assert fee["value"] == 185472.0 and fee["source"] == "quote" and fee["date"] == "2026-12-03"
    code = main(["quote-spot", str(SPOT), "--scenario", str(SPOT_8B), "--zone", "us-east-1b", "-o", str(out)])
    assert code == 0
    spot = json.loads(out.read_text())["prices"]["spot_node_hour_usd"]
    assert spot["dist"] == "empirical" and len(spot["samples"]) == 55 and spot["region"] == "us-east-1"
    assert (
        main(["quote-block", str(OFFERS), "--instance-type", "trn2.48xlarge", "--nodes", "16", "--hours", "504"]) == 2
    )
    assert "no offering of 16 × trn2.48xlarge for 504 h" in capsys.readouterr().err
    assert main(["quote-spot", str(PRICES / "spot-bad" / "two-prices.json"), "--instance-type", "p5.48xlarge"]) == 2
    assert "two prices at" in capsys.readouterr().err


def test_cli_purchase_with_offerings_prints_the_quoted_choice(capsys):
    code = main(
        ["purchase", str(BLOCK_70B), "-n", "1000", "--offerings", str(OFFERS), "--offerings-date", "2026-12-03"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "fee quoted: cbr-" in out
