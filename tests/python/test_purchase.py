"""Purchase options (docs/lifecycle.md, "Purchase options"): capacity blocks and spot from
Python, against hand computations, closed forms and invariants; tm.purchase_options."""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

import trnmodel as tm
from trnmodel._format import probability

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _block_job(step, hours, **prices):
    return tm.Scenario.from_dict(
        {
            "schema": "trnmodel.scenario/1",
            "job": {"effective_steps": 1000},
            "cluster": {"nodes": 2},
            "throughput": {"step_time_s": step},
            "startup": {"queue_wait_s": 1800, "env_prep_s": 360},
            "checkpoint": {"every_steps": 100, "save_s": 36, "load_s": 300},
            "failures": {"restart_s": 600},
            "prices": {
                "node_hour_usd": 40,
                "purchase": "capacity_block",
                "block_hours": hours,
                "block_usd": 1000,
                "block_lead_s": 7200,
                **prices,
            },
        }
    )


def _phase_gap(res):
    total = sum(res[p] for p in tm.PHASES)
    return float(np.max(np.abs(total - res["wall_h"]) / res["wall_h"]))


def test_block_that_fits_is_exact():
    res = tm.simulate(_block_job(36, 24), samples=50, progress=False)
    assert set(res["block_fit"]) == {1.0}
    np.testing.assert_allclose(res["wall_h"], 2 + 0.1 + 10.1, rtol=1e-12)
    np.testing.assert_allclose(res["block_idle_h"], 24 - 10.2, rtol=1e-12)
    assert not res["overflow_h"].any() and not res["overflow_usd"].any()
    assert (res["cost_compute_usd"] == 1000).all()
    # The fee buys the 24 hours alike: the 13.8 idle ones cost their share.
    np.testing.assert_allclose(res["block_idle_usd"], 1000 * (24 - 10.2) / 24, rtol=1e-12)


def test_block_overflow_is_the_hand_computation():
    # 4 segments of 36036 s fit in the 171000 s window after a 360 s start; the 26496 s since the
    # last checkpoint are lost; then a 1800 s queue, a 900 s recovery and 6 segments on demand.
    res = tm.simulate(_block_job(360, 48), samples=50, progress=False)
    overflow_s = 1800 + 900 + 6 * 36036
    assert not res["block_fit"].any()
    np.testing.assert_allclose(res["overflow_h"], overflow_s / 3600, rtol=1e-12)
    np.testing.assert_allclose(res["lost_h"], 26496 / 3600, rtol=1e-12)
    np.testing.assert_allclose(res["block_idle_h"], 0.5, atol=1e-9)
    np.testing.assert_allclose(res["cost_compute_usd"], 1000 + 2 * (900 + 6 * 36036) / 3600 * 40, rtol=1e-12)
    np.testing.assert_allclose(res["overflow_usd"], 2 * (900 + 6 * 36036) / 3600 * 40, rtol=1e-12)
    np.testing.assert_allclose(res["block_idle_usd"], 1000 * 0.5 / 48, rtol=1e-9)
    assert _phase_gap(res) < 1e-12


def test_p_fit_is_the_step_time_cdf_at_the_window():
    scn = _block_job({"dist": "lognormal", "p50": 165, "p90": 200}, 48)
    n = 40_000
    res = tm.simulate(scn, samples=n, seed=4, progress=False)
    threshold = (47.5 * 3600 - 360 - 10 * 36) / 1000  # seconds per step that just fit
    p = float(tm.LogNormal.from_quantiles(p50=165, p90=200).cdf(threshold))
    assert 0.2 < p < 0.8
    assert abs(res["block_fit"].mean() - p) < 4 * math.sqrt(p * (1 - p) / n)


def _spot_job(save_s, rate, **extra):
    return tm.Scenario.from_dict(
        {
            "schema": "trnmodel.scenario/1",
            "job": {"effective_steps": 20_000},
            "cluster": {"nodes": 1},
            "throughput": {"step_time_s": 30},
            "checkpoint": {"every_steps": 100, "save_s": save_s},
            "prices": {"purchase": "spot", "spot_node_hour_usd": 30},
            "spot": {"interruptions_per_node_h": rate, "reacquire_s": 600, **extra},
        }
    )


def test_spot_interruptions_at_rate_times_exposed_time_and_no_lost_steps():
    res = tm.simulate(_spot_job(60, 0.05), samples=20_000, seed=2, progress=False)
    exposed_h = 200 * 3060 / 3600
    count = res["interruptions"]
    assert abs(count.mean() - 0.05 * exposed_h) < 4 * count.std() / math.sqrt(len(count))
    assert not res["lost_h"].any()
    np.testing.assert_allclose(res["useful_h"], 20_000 * 30 / 3600, rtol=1e-12)
    np.testing.assert_allclose(res["wall_h"], exposed_h + count * 660 / 3600, rtol=1e-12)
    np.testing.assert_allclose(res["cost_compute_usd"], 30 * res["node_h"], rtol=1e-12)
    assert _phase_gap(res) < 1e-12


def test_spot_save_beyond_the_notice_loses_the_attempt():
    # One attempt of D = 3240 s: e^{mu D} - 1 interruptions per segment (recoveries take no time).
    res = tm.simulate(_spot_job(240, 0.2), samples=20_000, seed=3, progress=False)
    expected = 200 * math.expm1(0.2 / 3600 * 3240)
    count = res["interruptions"]
    assert abs(count.mean() - expected) < 4 * count.std() / math.sqrt(len(count))
    assert res["lost_h"].mean() > 0
    assert _phase_gap(res) < 1e-12


def test_without_purchase_the_new_metrics_say_not_applicable():
    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    res = tm.simulate(scn, samples=500, progress=False)
    assert np.isnan(res["block_fit"]).all()
    assert not res["interruptions"].any() and not res["overflow_h"].any() and not res["block_idle_h"].any()
    assert res.summary().loc["block_fit", "note"] == "not a capacity block (prices.purchase on_demand)"


BAD = [
    ({"prices": {"purchase": "capacity_block", "block_usd": 1, "block_hours": 25}}, "prices.block_hours: must be a"),
    ({"prices": {"purchase": "capacity_block", "block_usd": 1, "block_hours": 360}}, "then 7-day steps up to 182"),
    ({"prices": {"purchase": "capacity_block", "block_usd": 1, "block_hours": 4536}}, "got 4536 h"),
    ({"prices": {"purchase": "capacity_block", "block_usd": 1, "block_hours": 0}}, "prices.block_hours"),
    ({"prices": {"purchase": "capacity_block", "block_hours": 24}}, "prices.block_usd: required"),
    ({"prices": {"purchase": "capacity_block", "block_usd": 1}}, "prices.block_hours: required"),
    ({"prices": {"purchase": "capacity_block", "block_usd": -1, "block_hours": 24}}, "prices.block_usd: must be ≥ 0"),
    (
        {"prices": {"purchase": "capacity_block", "block_usd": 1, "block_hours": 24, "block_end_margin_h": 30}},
        "prices.block_end_margin_h: must be less than prices.block_hours",
    ),
    (
        {"prices": {"purchase": "capacity_block", "block_usd": 1, "block_hours": 24, "block_lead_s": -1}},
        "prices.block_lead_s: must be ≥ 0",
    ),
    ({"prices": {"purchase": "bulk"}}, "prices.purchase: must be one of on_demand, capacity_block, spot"),
    ({"prices": {"block_usd": 5}}, "prices.block_usd: is used only when prices.purchase is capacity_block"),
    ({"prices": {"purchase": "spot"}}, "spot.interruptions_per_node_h: required when prices.purchase is spot"),
    ({"prices": {"spot_node_hour_usd": 5}}, "prices.spot_node_hour_usd: is used only when prices.purchase is spot"),
    ({"spot": {"notice_s": 60}}, "spot.notice_s: is used only when prices.purchase is spot"),
    (
        {"prices": {"purchase": "spot"}, "spot": {"interruptions_per_node_h": -0.1}},
        "spot.interruptions_per_node_h: must",
    ),
    ({"prices": {"purchase": "spot"}, "spot": {"interruptions_per_node_h": 1, "notice_s": -1}}, "spot.notice_s: must"),
    ({"prices": {"purchase": "spot"}, "spot": {"interruptions_per_node_h": 1, "reacquire_s": -1}}, "spot.reacquire_s"),
    ({"prices": {"purchase": "spot"}, "spot": {"interruptions_per_node_h": 1, "notise_s": 1}}, "spot.notise_s"),
]


@pytest.mark.parametrize("change,message", BAD, ids=[m for _, m in BAD])
def test_every_bad_purchase_field_is_refused_with_its_path(change, message):
    doc = {
        "schema": "trnmodel.scenario/1",
        "job": {"effective_steps": 10},
        "cluster": {"nodes": 1},
        "throughput": {"step_time_s": 1},
        **change,
    }
    with pytest.raises(tm.ScenarioError, match=None) as caught:
        tm.Scenario.from_dict(doc)
    assert message in str(caught.value)


def test_the_examples_compare_on_common_random_numbers():
    on_demand = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16.json")
    week = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16-block7d.json")
    a = tm.simulate(on_demand, samples=2000, seed=1, progress=False)
    b = tm.simulate(week, samples=2000, seed=1, progress=False)
    # Same inputs, same streams: the steps and the step times are the same samples.
    np.testing.assert_array_equal(a["useful_h"], b["useful_h"])
    assert b["block_fit"].mean() > 0.5
    fits = b["block_fit"] == 1
    np.testing.assert_allclose(b["cost_compute_usd"][fits], 35.76 * 16 * 168, rtol=1e-12)
    spot = tm.simulate(
        tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5-spot.json"), samples=2000, progress=False
    )
    assert _phase_gap(spot) < 1e-12
    doc = json.loads((ROOT / "examples" / "llama3-8b-lora-p5-spot.json").read_text())
    assert doc["spot"]["notice_s"]["source"] == "vendor"


def test_purchase_options_finds_the_shortest_block_that_fits():
    scn = _block_job({"dist": "lognormal", "p50": 165, "p90": 200}, 48)
    spot = {"prices.spot_node_hour_usd": 15, "spot.interruptions_per_node_h": 0.01}
    options = tm.purchase_options(scn, block_hours=[48, 72, 96], fit_prob=0.9, samples=4000, seed=2, spot=spot)
    table = options.table
    assert list(table["purchase"]) == ["on_demand", "capacity_block", "capacity_block", "capacity_block", "spot"]
    blocks = table[table["purchase"] == "capacity_block"]
    assert blocks["p_fit"].is_monotonic_increasing
    assert options.choice is not None and options.choice["p_fit"] >= 0.9
    shorter = blocks[blocks["block_hours"] < options.choice["block_hours"]]
    assert (shorter["p_fit"] < 0.9).all()
    # The fee scales with the length: the scenario's 1000 USD for 48 h × 2 nodes.
    fee = 1000 / (48 * 2)
    long_block = blocks[blocks["block_hours"] == 96].iloc[0]
    assert long_block["cost_p50"] == pytest.approx(fee * 96 * 2, rel=2e-3)  # streamed quantile, within 0.1%
    assert "Shortest block with P(fit) ≥ 0.9" in options.headline()
    assert "<table" in options._repr_html_()
    ax = options.plot()
    assert [round(y, 6) for y in ax.lines[0].get_ydata()] == [round(p, 6) for p in blocks["p_fit"]]
    assert not math.isnan(table[table["purchase"] == "spot"].iloc[0]["cost_p50"])
    # Without spot inputs the spot row is there and says so.
    plain = tm.purchase_options(scn, block_hours=[96], samples=500)
    row = plain.table[plain.table["purchase"] == "spot"].iloc[0]
    assert row["note"].startswith("not described") and math.isnan(row["cost_p50"])
    assert "spot: not described" in plain.headline()


def test_purchase_options_searches_longer_blocks_until_one_fits():
    # 1000 steps of about 1,800 s (P50) on 2 nodes: about 21 days, far past 14.
    scn = _block_job({"dist": "lognormal", "p50": 1800, "p90": 2100}, 336)
    options = tm.purchase_options(scn, block_hours=[168, 336], fit_prob=0.9, samples=2000, seed=3)
    blocks = options.table[options.table["purchase"] == "capacity_block"]
    assert list(blocks["block_hours"]) == sorted(blocks["block_hours"]) and blocks["p_fit"].is_monotonic_increasing
    assert options.choice is not None and options.choice["block_hours"] > 336 and options.choice["p_fit"] >= 0.9
    assert "searched" in options.choice["note"]
    # The shortest: the next shorter length AWS offers does not fit on the same seed.
    offered = [24 * d for d in range(1, 15)] + [24 * d for d in range(21, 183, 7)]
    before = offered[offered.index(int(options.choice["block_hours"])) - 1]
    alone = tm.purchase_options(scn, block_hours=[before], fit_prob=0.9, samples=2000, seed=3, search=False)
    assert alone.table[alone.table["purchase"] == "capacity_block"].iloc[0]["p_fit"] < 0.9
    assert len(blocks) <= 2 + 6  # a bisection over the 24 longer lengths, not all of them
    # A job no block holds: every length tried says so, up to 182 days.
    never = tm.purchase_options(_block_job(30_000, 336), block_hours=[336], samples=200, seed=3)
    assert never.choice is None and "up to 4368 h, 182 days" in never.headline()


def test_purchase_options_refuses_lengths_aws_does_not_offer():
    with pytest.raises(tm.ScenarioError, match="not a length AWS offers"):
        tm.purchase_options(_block_job(36, 24), block_hours=[30], samples=10)


def test_sweep_over_block_hours_gives_p_fit_per_length():
    scn = _block_job({"dist": "lognormal", "p50": 165, "p90": 200}, 48)
    frame = tm.sweep(scn, {"prices.block_hours": [48, 72]}, output=["block_fit", "run_cost_usd"], samples=2000)
    fit = frame[frame["output"] == "block_fit"]
    n = 2000
    for hours, value in zip([48, 72], fit["mean"]):
        threshold = ((hours - 0.5) * 3600 - 360 - 10 * 36) / 1000
        p = float(tm.LogNormal.from_quantiles(p50=165, p90=200).cdf(threshold))
        assert abs(value - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-12, hours


def test_the_report_shows_the_purchase_p_fit_and_idle_hours():
    from trnmodel._report import budget_report

    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16-block7d.json")
    text = budget_report(tm.simulate(scn, samples=2000, seed=0, progress=False))
    section = text[text.index("## Purchase options") :].split("\n## ")[0]
    assert "Capacity block of 168 h (7 days)" in section and "P(fit) = " in section
    assert "Idle block hours" in section
    # The ledger shows the idle share of the fee and the overflow inside the compute line, so the
    # lines above the run cost still sum to it.
    ledger = text[text.index("## Cost ledger") :].split("\n## ")[0]
    assert "| of which block_idle_usd |" in ledger and "| of which overflow_usd |" in ledger
    res = tm.simulate(scn, samples=2000, seed=0, progress=False)
    means = res.summary()["mean"]
    assert means["block_idle_usd"] + means["overflow_usd"] <= means["cost_compute_usd"] + 1e-9
    assert means["block_idle_usd"] > 0
    spot = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5-spot.json")
    assert "interruptions" in budget_report(tm.simulate(spot, samples=500, progress=False))
    plain = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    assert "## Purchase options" not in budget_report(tm.simulate(plain, samples=500, progress=False))


def test_the_signoff_names_the_shortest_block_that_fits_beside_on_demand():
    # The question of the 70B job on a block: which block length, and what it costs beside on
    # demand. The sign-off answers it with purchase_options over 1 to 14 days, same seed.
    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16-block7d.json")
    doc = tm.report(scn, samples=2000, seed=3, progress=False)
    text = doc.markdown()
    section = text[text.index("## Purchase options") :].split("\n## ")[0]
    options = tm.purchase_options(scn, block_hours=[24 * d for d in range(1, 15)], samples=2000, seed=3)
    assert options.headline() in section
    assert options.choice is not None and "Shortest block with P(fit) ≥ 0.9" in section
    rows = [line for line in section.splitlines() if line.startswith("| block, ")]
    assert len(rows) == 14
    fit = probability(options.choice["p_fit"], options.samples)
    chosen = f"| block, {int(options.choice['block_hours']) // 24} d | {fit} |"
    assert any(line.startswith(chosen) for line in rows)
    assert "| on demand | — |" in section


def test_an_on_demand_signoff_with_quoted_offerings_names_the_block_that_would_hold_it():
    """The user's question for a job planned on demand: with the offerings file given, the
    sign-off answers which block would hold it, at what fee and idle dollars, beside on demand."""
    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16.json")
    offerings = [ROOT / "tests" / "data" / "prices" / "offerings-trn2-16.json"]
    text = tm.report(scn, samples=2000, seed=3, progress=False, offerings=offerings).markdown()
    section = text[text.index("## Capacity blocks beside on demand") :].split("\n## ")[0]
    options = tm.purchase_options(scn, offerings=offerings, samples=2000, seed=3)
    assert options.headline() in section and "fee quoted: cbr-" in section
    assert "## Capacity blocks beside on demand" not in tm.report(scn, samples=500, progress=False).markdown()


def test_probabilities_print_with_their_interval():
    """P(fit) and the like with the binomial standard error, to the decimal place of the error's
    first significant digit: never "0.005 (± 0.000)"."""
    assert probability(0.0047, 20_000) == "0.0047 ± 0.0005"
    assert probability(0.5, 10_000) == "0.500 ± 0.005"
    assert probability(0.005, 10**6) == "0.00500 ± 0.00007"
    assert probability(0.0, 20_000) == "0 (none of 20,000 samples; below 0.00015 at 95 %)"
    assert probability(1.0, 1_000) == "1 (all 1,000 samples; above 0.997 at 95 %)"
    assert probability(float("nan"), 10) == "unknown"
