"""Sensitivity, comparison and what-if (docs/sensitivity.md) from Python: tm.sobol, tm.sobol_function,
tm.tornado, tm.rank_correlations, tm.compare (+ break_even), tm.sweep, tm.checkpoint_interval."""

import math
import pathlib

import numpy as np
import pandas as pd
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
LORA = ROOT / "examples" / "llama3-8b-lora-trn2.json"
LORA_P5 = ROOT / "examples" / "llama3-8b-lora-p5.json"

PI = math.pi
ISHIGAMI_INPUTS = {"x1": tm.Uniform(-PI, PI), "x2": tm.Uniform(-PI, PI), "x3": tm.Uniform(-PI, PI)}
# Ishigami & Homma (1990), a = 7, b = 0.1.
ISHIGAMI_S1 = [0.3139, 0.4424, 0.0]
ISHIGAMI_ST = [0.5576, 0.4424, 0.2437]


def ishigami(x):
    return np.sin(x[:, 0]) + 7 * np.sin(x[:, 1]) ** 2 + 0.1 * x[:, 2] ** 4 * np.sin(x[:, 0])


def simple(step_time, **sections):
    d = {
        "schema": "trnmodel.scenario/1",
        "job": {"effective_steps": 1000},
        "cluster": {"nodes": 1},
        "throughput": {"step_time_s": step_time},
        "prices": {"node_hour_usd": 10},
    }
    d.update(sections)
    return tm.Scenario.from_dict(d)


def test_ishigami_indices_within_the_stated_intervals():
    r = tm.sobol_function(ishigami, ISHIGAMI_INPUTS, base_samples=2**14, seed=0)
    assert list(r.columns[:4]) == ["S1", "S1_conf", "ST", "ST_conf"]
    assert list(r.index) == ["x1", "x2", "x3"]  # by ST, largest first: 0.558, 0.442, 0.244
    # The tolerance is the estimator's own 95% interval (4-digit analytical values: + 1e-4).
    assert (np.abs(r["S1"] - ISHIGAMI_S1) <= r["S1_conf"] + 1e-4).all(), r
    assert (np.abs(r["ST"] - ISHIGAMI_ST) <= r["ST_conf"] + 1e-4).all(), r
    assert (r[["S1_conf", "ST_conf"]] < 0.04).all().all()
    assert r.attrs["evaluations"] == 5 * 2**14
    assert "delta-method" in r.attrs["method"]
    assert r.attrs["mean"] == pytest.approx(3.5, abs=0.05)


def test_linear_model_exact_indices():
    # y = x1 + 2 x2 + 3 x3, U(0, 1): S1 = ST = (1, 4, 9) / 14; the fixed input is no factor.
    inputs = {"x1": tm.Uniform(0, 1), "x2": tm.Uniform(0, 1), "k": 5.0, "x3": tm.Uniform(0, 1)}
    r = tm.sobol_function(
        lambda x: x[:, 0] + 2 * x[:, 1] + 3 * x[:, 3] + 0 * x[:, 2], inputs, base_samples=2**15, seed=3
    )
    exact = np.array([9, 4, 1]) / 14
    assert list(r.index) == ["x3", "x2", "x1"]  # by ST, largest first
    assert (np.abs(r["S1"] - exact) <= r["S1_conf"]).all(), r
    assert (np.abs(r["ST"] - exact) <= r["ST_conf"]).all(), r
    assert (r["ST_conf"] < 0.01).all()


def test_sobol_bitwise_identical_for_any_thread_count():
    f_runs = [
        tm.sobol_function(ishigami, ISHIGAMI_INPUTS, base_samples=20_000, seed=2, threads=t) for t in (1, 2, 3, 8)
    ]
    scn = tm.Scenario.from_json(LORA)
    s_runs = [tm.sobol(scn, base_samples=700, seed=2, threads=t) for t in (1, 2, 3, 8)]
    for runs in (f_runs, s_runs):
        for r in runs[1:]:
            pd.testing.assert_frame_equal(r, runs[0], check_exact=True)


def test_scenario_factors_and_chance():
    scn = tm.Scenario.from_json(LORA)
    r = tm.sobol(scn, output="run_cost_usd", base_samples=2**11, seed=0)
    info = tm.simulate(scn, samples=10).uncertain_inputs
    assert sorted(r.index) == sorted(info + ["chance"])
    assert r.attrs["evaluations"] == (len(info) + 1 + 2) * 2**11  # d = inputs + chance
    # The step time drives the cost; chance (failures, cache, quality gate) is a real share.
    assert r["ST"].idxmax() == "throughput.step_time_s"
    assert r.loc["chance", "ST"] - r.loc["chance", "ST_conf"] > 0.05
    # Inconsistent or negative estimates are flagged, not hidden.
    flagged = r[(r["S1"] < 0) | (r["S1"] > r["ST"])]
    assert (flagged["note"] != "").all()
    assert (r.loc[(r["S1"] >= 0) & (r["S1"] <= r["ST"]) & (r["ST"] <= 1), "note"] == "").all()


def test_chance_is_zero_without_aleatory_randomness():
    r = tm.sobol(simple(tm.Uniform(1, 3)), output="wall_h", base_samples=256)
    assert list(r.index) == ["throughput.step_time_s", "chance"]
    assert r.loc["chance", "S1"] == 0 and r.loc["chance", "ST"] == 0


def test_sobol_of_several_outputs_is_each_outputs_own_table():
    scn = tm.Scenario.from_json(LORA)
    outputs = ["total_cost_usd", "run_cost_usd", "wall_h"]
    together = tm.sobol(scn, output=outputs, base_samples=700, seed=4)
    assert list(together) == outputs  # the list's order
    for name in outputs:
        alone = tm.sobol(scn, output=name, base_samples=700, seed=4)
        pd.testing.assert_frame_equal(together[name], alone, check_exact=True)
        assert together[name].attrs == alone.attrs
    # The outputs' tables differ: the porting effort drives the total cost, not the wall time.
    adaptation = "engineering.adaptation_h"
    assert together["total_cost_usd"].loc[adaptation, "ST"] > 0.01
    assert together["wall_h"].loc[adaptation, "ST"] == 0
    # With a pool as executor: each output's table is still the local one.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        split = tm.sobol(scn, output=outputs[:2], base_samples=700, seed=4, executor=pool)
    for name in outputs[:2]:
        pd.testing.assert_frame_equal(split[name], together[name], check_exact=True)
    with pytest.raises(tm.ScenarioError, match="output: must be a metric name or a non-empty list of them, got"):
        tm.sobol(scn, output=[])
    with pytest.raises(tm.ScenarioError, match="output: names an output twice"):
        tm.sobol(scn, output=["wall_h", "wall_h"])
    with pytest.raises(tm.ScenarioError, match="output: no metric named 'wall'"):
        tm.sobol(scn, output=["wall_h", "wall"])
    no_price = simple(tm.Uniform(1, 2), prices={})
    with pytest.raises(tm.UnknownInputError, match="prices.node_hour_usd"):
        tm.sobol(no_price, output=["wall_h", "run_cost_usd"], base_samples=16)


def test_sobol_errors_name_the_parameter():
    scn = tm.Scenario.from_json(LORA)
    with pytest.raises(tm.ScenarioError, match="output: no metric named 'run_cost'"):
        tm.sobol(scn, output="run_cost")
    with pytest.raises(tm.ScenarioError, match=r"base_samples: must be a whole number in \[2, "):
        tm.sobol(scn, base_samples=1)
    with pytest.raises(tm.ScenarioError, match=r"confidence: must be in \(0, 1\), got 1.5"):
        tm.sobol_function(ishigami, ISHIGAMI_INPUTS, base_samples=16, confidence=1.5)
    with pytest.raises(tm.ScenarioError, match="f: must return one value per row"):
        tm.sobol_function(lambda x: x[:5, 0], ISHIGAMI_INPUTS, base_samples=16)
    with pytest.raises(tm.ScenarioError, match="f: the model returned 16 non-finite values"):
        tm.sobol_function(lambda x: np.where(np.arange(len(x)) < 16, np.nan, x[:, 0]), ISHIGAMI_INPUTS, base_samples=16)
    with pytest.raises(tm.ScenarioError, match="no uncertain inputs"):
        tm.sobol_function(lambda x: x[:, 0], {"a": 1.0}, base_samples=16)
    no_price = simple(tm.Uniform(1, 2), prices={})
    with pytest.raises(tm.UnknownInputError, match="prices.node_hour_usd"):
        tm.sobol(no_price, output="run_cost_usd", base_samples=16)


def test_compare_with_itself_is_exactly_zero():
    scn = tm.Scenario.from_json(LORA)
    c = tm.compare(scn, scn, samples=20_000, seed=1)
    assert np.array_equal(c.difference, np.zeros(20_000))
    assert c.p_a_less_b == 0.0
    np.testing.assert_array_equal(c.a, tm.simulate(scn, samples=20_000, seed=1)["run_cost_usd"])


def test_p_a_less_b_for_a_shifted_scenario():
    # A queues N(1000, 300) s, B prepares N(1200, 300) s (distinct paths: independent streams):
    # A − B ~ N(−200, 300√2) seconds, so P(A < B) = Φ(200 / (300√2)).
    a = simple(2, startup={"queue_wait_s": tm.Normal(1000, 300, lo=0)}, prices={"node_hour_usd": 10})
    b = simple(2, startup={"env_prep_s": tm.Normal(1200, 300, lo=0)})
    c = tm.compare(a, b, output="wall_h", samples=200_000, seed=4)
    p = 0.5 * math.erfc(-200 / (300 * math.sqrt(2)) / math.sqrt(2))
    assert abs(c.p_a_less_b - p) < 4 * math.sqrt(p * (1 - p) / 200_000)
    assert list(c.summary().index) == ["a", "b", "difference"]


def test_break_even_price():
    # B takes twice the steps on the same random step times: it breaks even at half A's price.
    a = simple(tm.LogNormal.from_quantiles(p50=2, p90=3))
    b = a.updated({"job.effective_steps": 2000})
    c = tm.compare(a, b, samples=5000, seed=0)
    assert c.break_even("prices.node_hour_usd") == pytest.approx(5, rel=1e-8)
    assert c.break_even("prices.node_hour_usd", on="a") == pytest.approx(20, rel=1e-8)
    assert c.break_even("prices.node_hour_usd", statistic="p90", bracket=(1, 9)) == pytest.approx(5, rel=1e-8)
    with pytest.raises(tm.ScenarioError, match="does not bracket"):
        c.break_even("prices.node_hour_usd", bracket=(6, 9))
    with pytest.raises(tm.ScenarioError, match="statistic: must be"):
        c.break_even("prices.node_hour_usd", statistic="p101")
    with pytest.raises(tm.ScenarioError, match="prices.node_hour_usf: no such scenario field"):
        c.break_even("prices.node_hour_usf")


def test_tornado_linear_case():
    scn = simple(tm.Uniform(1, 3), eval={"final_s": tm.Uniform(0, 36)})
    t = tm.tornado(scn, output="run_cost_usd", samples=4000)
    assert list(t.index) == ["throughput.step_time_s", "eval.final_s"]
    assert t.loc["throughput.step_time_s", "swing"] == pytest.approx(1000 * 1.6 / 3600 * 10, rel=1e-9)
    assert t.loc["eval.final_s", "low_value"] == pytest.approx(3.6)
    p90 = tm.tornado(scn, statistic="p90", samples=4000)
    assert p90.attrs["statistic"] == "p90" and p90.index[0] == "throughput.step_time_s"


def test_rank_correlations_from_an_ordinary_run():
    scn = tm.Scenario.from_json(LORA)
    res = tm.simulate(scn, samples=20_000, seed=3)
    rc = tm.rank_correlations(res, output="run_cost_usd")
    assert rc.index[0] == "throughput.step_time_s"
    assert rc.loc["throughput.step_time_s", "spearman"] > 0.7
    # Spearman equals the rank correlation computed from the inputs a NumPy user would keep.
    x = res["step_time_s"]
    y = res["run_cost_usd"]
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    assert rc.loc["throughput.step_time_s", "spearman"] == pytest.approx(np.corrcoef(rx, ry)[0, 1], abs=1e-12)
    with pytest.raises(tm.ScenarioError, match="samples were not kept"):
        tm.rank_correlations(tm.simulate(scn, samples=100, keep_samples=False))


def test_sweep_is_tidy_and_on_common_random_numbers():
    scn = tm.Scenario.from_json(LORA)
    table = tm.sweep(scn, {"checkpoint.every_steps": [250, 500], "cluster.nodes": [1, 2]}, samples=3000, seed=1)
    assert list(table.columns[:3]) == ["checkpoint.every_steps", "cluster.nodes", "output"]
    assert len(table) == 2 * 2 * 2
    # Same seed at every point: the point equal to the scenario reproduces tm.simulate exactly.
    row = table[
        (table["checkpoint.every_steps"] == 500) & (table["cluster.nodes"] == 1) & (table["output"] == "wall_h")
    ]
    ref = tm.simulate(scn, samples=3000, seed=1, keep_samples=False).summary().loc["wall_h"]
    assert row["mean"].item() == ref["mean"]
    with pytest.raises(tm.ScenarioError, match="chekpoint.every_steps: no such scenario field"):
        tm.sweep(scn, {"chekpoint.every_steps": [1]})
    with pytest.raises(tm.ScenarioError, match="grid: must map one or two"):
        tm.sweep(scn, {"a": [1], "b": [1], "c": [1]})


def test_swept_checkpoint_optimum_near_daly():
    # Constant inputs: job MTBF 1 h, checkpoint 60 s, 10 s steps: Daly's optimum is ~618 s
    # (62 steps); the expected wall time is flat near it, so "near" is within 25%.
    scn = tm.Scenario.from_dict(
        {
            "schema": "trnmodel.scenario/1",
            "job": {"effective_steps": 3000},
            "cluster": {"nodes": 1},
            "throughput": {"step_time_s": 10},
            "checkpoint": {"every_steps": 100, "save_s": 60},
            "failures": {"node_mtbf_h": 1, "restart_s": 60},
            "prices": {"node_hour_usd": 1},
        }
    )
    ci = tm.checkpoint_interval(scn, samples=20_000, seed=0)
    daly_steps = ci.loc["daly", "every_steps"]
    assert daly_steps == round(tm.theory.daly_interval(60, 3600) / 10) == 62
    assert ci.loc["young", "every_steps"] == round(tm.theory.young_interval(60, 3600) / 10)
    assert abs(ci.loc["simulated", "every_steps"] / daly_steps - 1) <= 0.25, ci.attrs["sweep"]
    assert ci.loc["simulated", "wall_h mean"] <= ci.loc["daly", "wall_h mean"]


def test_sobol_function_errors_propagate_and_progress_is_reported():
    calls = []

    def failing(x):
        if len(calls) == 2:
            raise ZeroDivisionError("from the user's f")
        calls.append(len(x))
        return x[:, 0]

    with pytest.raises(ZeroDivisionError, match="from the user's f"):
        tm.sobol_function(failing, {"a": tm.Uniform(0, 1), "b": tm.Uniform(0, 1)}, base_samples=2**16, threads=2)
    assert calls == [16_384 // 4 * 4] * 2  # blocks of ~16,384 design rows: 4,096 base samples x (d + 2)
    seen = []
    tm.sobol(
        simple(tm.Uniform(1, 3)), output="wall_h", base_samples=1000, progress=lambda done, total: seen.append(done)
    )
    assert seen[0] == 256 and seen[-1] == 1000


def test_compare_sides_are_the_ordinary_runs():
    # Each side of a comparison is exactly that scenario's own run with the same seed.
    trn2, p5 = tm.Scenario.from_json(LORA), tm.Scenario.from_json(LORA_P5)
    c = tm.compare(trn2, p5, output="wall_h", samples=5000, seed=9)
    np.testing.assert_array_equal(c.a, tm.simulate(trn2, samples=5000, seed=9)["wall_h"])
    np.testing.assert_array_equal(c.b, tm.simulate(p5, samples=5000, seed=9)["wall_h"])
    np.testing.assert_array_equal(c.difference, c.a - c.b)
    assert c.p_a_less_b == np.mean(c.a < c.b)


def test_pairing_check_pairs_only_identical_inputs():
    """Inputs described identically stay paired, different ones become independent: for two
    scenarios differing only in a fixed-vs-uncertain step time the check must differ from CRN,
    and a scenario against itself keeps every input paired (only chance is independent)."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    a = tm.Scenario.from_json(root / "examples" / "llama3-8b-lora-trn2.json")
    b = tm.Scenario.from_json(root / "examples" / "llama3-8b-lora-p5.json")
    check = tm.compare(a, b, samples=20_000, seed=3).pairing_check()
    assert "throughput.step_time_s" in check["unpaired"] and "job.effective_steps" in check["paired"]
    assert 0.5 < check["p_a_less_b"] < 0.95  # far from the 0.997 of common random numbers
    own = tm.compare(a, a, samples=20_000, seed=3).pairing_check()
    assert own["unpaired"] == [] and own["p_equal"] > 0.5  # unequal only where chance differs
