"""tm.payback: the runs until a port pays back, per sample on common random numbers — equal to a
hand computation for constant scenarios, and to an independent NumPy computation from the two
sides' own simulations for the bundled Llama-3-8B LoRA pair; the CLI line."""

import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRN2 = ROOT / "examples" / "llama3-8b-lora-trn2.json"
P5 = ROOT / "examples" / "llama3-8b-lora-p5.json"


def _constant(step_s, adaptation_h, name):
    """3,600 steps of step_s on 2 nodes at $40/node-hour: $80 × step_s a run; porting × $150."""
    doc = {
        "schema": "trnmodel.scenario/1",
        "name": name,
        "job": {"effective_steps": 3600},
        "cluster": {"nodes": 2, "platform": "trn2.48xlarge"},
        "throughput": {"step_time_s": step_s},
        "prices": {"node_hour_usd": 40},
        "compile": {"initial_s": 0},
        "failures": {"node_mtbf_h": 1e12},
    }
    if adaptation_h:
        doc["engineering"] = {"adaptation_h": adaptation_h, "rate_usd_per_h": 150}
    return tm.Scenario.from_dict(doc)


def test_constant_scenarios_equal_the_hand_computation():
    port, gpu = _constant(10, 100, "port"), _constant(12, 0, "gpu")
    r = tm.payback(port, gpu, samples=500, seed=2)
    # $15,000 of porting over a saving of $960 − $800 = $160 a run: 93.75, so 94 runs.
    assert r.side == "a" and r.name == "port"
    assert (r.runs == 94).all()
    assert r.p_within(93) == 0 and r.p_within(94) == 1 and r.p_never == 0
    assert r.summary()["p50_runs"] == 94
    assert "after 94 runs (P50)" in r.sentence() and "$15k" in r.sentence()
    # The GPU side ports nothing: 0 runs; porting the dearer side: never.
    assert (tm.payback(port, gpu, side="b", samples=100).runs == 0).all()
    never = tm.payback(_constant(12, 100, "slow port"), _constant(10, 0, "gpu"), side="a", samples=100)
    assert np.isinf(never.runs).all() and never.p_never == 1 and math.isinf(never.quantile(0.5))


def test_the_bundled_pair_against_an_independent_computation():
    trn2, p5 = tm.Scenario.from_json(TRN2), tm.Scenario.from_json(P5)
    r = tm.payback(trn2, p5, samples=20_000, seed=11)
    assert r.side == "a"  # Trainium is cheaper to run on average, and costs more to port
    a = tm.simulate(trn2, samples=20_000, seed=11)
    b = tm.simulate(p5, samples=20_000, seed=11)
    saving = b["run_cost_usd"] - a["run_cost_usd"]
    extra = a["adaptation_usd"] - b["adaptation_usd"]
    expected = np.where(extra <= 0, 0.0, np.where(saving <= 0, np.inf, np.ceil(extra / saving)))
    close = np.isclose(extra / np.where(saving > 0, saving, 1), np.round(extra / np.where(saving > 0, saving, 1)))
    # Where the quotient is a whole number up to rounding, the C++ keeps the smallest n that covers it.
    assert np.array_equal(r.runs[~close], expected[~close])
    np.testing.assert_array_equal(r.run_saving_usd, saving)
    np.testing.assert_array_equal(r.extra_porting_usd, extra)
    assert r.p_within(10) == pytest.approx(np.mean(expected <= 10), abs=1e-4)
    assert r.p_never == pytest.approx(np.mean(np.isinf(expected)), abs=1e-4)
    # The two platforms' step times are independent unknowns (docs/sensitivity.md, "What two
    # scenarios share"): in about a fifth of the samples trn2 is not cheaper to run at all.
    assert 0.1 < r.p_never < 0.35 and r.quantile(0.5) > 100  # a small LoRA run saves little a run


def test_bad_arguments_and_the_cli(tmp_path):
    trn2 = tm.Scenario.from_json(TRN2)
    with pytest.raises(tm.ScenarioError, match="side: must be"):
        tm.payback(trn2, trn2, side="c")
    with pytest.raises(tm.ScenarioError, match="b: must be a tm.Scenario"):
        tm.payback(trn2, str(P5))
    unpriced = trn2.updated({"prices.node_hour_usd": {"unknown": "no quote yet"}})
    with pytest.raises(tm.ScenarioError, match="prices.node_hour_usd"):
        tm.payback(unpriced, trn2, samples=100)
    run = subprocess.run(
        [sys.executable, "-m", "trnmodel", "payback", str(TRN2), str(P5), "-n", "5000"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "llama3-8b-lora-trn2 pays back its extra porting cost" in run.stdout and "p_within_10" in run.stdout


def test_the_plot_draws_the_cumulative_share():
    import matplotlib

    matplotlib.use("Agg")
    r = tm.payback(_constant(10, 100, "port"), _constant(12, 0, "gpu"), samples=200)
    ax = r.plot(max_runs=120)
    (line,) = [x for x in ax.get_lines() if x.get_label() == "port paid back"]
    y = np.asarray(line.get_ydata())
    assert y[93] == 0 and y[94] == 1


def test_the_sign_off_takes_payback_and_the_comparison_from_its_own_simulations():
    """The sign-off pays back and compares from the two simulations it already made (the same
    seed and samples): the same numbers, bit for bit, as tm.payback and tm.compare running both
    scenarios again; an unknown price is refused as they refuse it."""
    from trnmodel._payback import payback_of_results
    from trnmodel._sensitivity import _comparison_of_results

    trn2, p5 = tm.Scenario.from_json(TRN2), tm.Scenario.from_json(P5)
    a = tm.simulate(trn2, samples=7_001, seed=5)
    b = tm.simulate(p5, samples=7_001, seed=5)
    for side in (None, "a", "b"):
        own, kept = tm.payback(trn2, p5, side=side, samples=7_001, seed=5), payback_of_results(a, b, side)
        assert kept.side == own.side
        np.testing.assert_array_equal(kept.runs, own.runs)
        np.testing.assert_array_equal(kept.run_saving_usd, own.run_saving_usd)
        assert kept.mean_run_cost_usd == own.mean_run_cost_usd
    for output in ("run_cost_usd", "wall_h"):
        own_cmp, kept_cmp = tm.compare(trn2, p5, output, samples=7_001, seed=5), _comparison_of_results(a, b, output)
        assert kept_cmp.summary().equals(own_cmp.summary())
        assert kept_cmp.p_a_less_b == own_cmp.p_a_less_b
        np.testing.assert_array_equal(kept_cmp.difference, own_cmp.difference)
    unpriced = trn2.updated({"prices.node_hour_usd": {"unknown": "no quote yet"}})
    u = tm.simulate(unpriced, samples=7_001, seed=5, allow_unknown=True)
    with pytest.raises(tm.ScenarioError, match="prices.node_hour_usd"):
        payback_of_results(u, b)
    with pytest.raises(tm.ScenarioError, match="prices.node_hour_usd"):
        _comparison_of_results(u, b)
    with pytest.raises(tm.ScenarioError, match="must be simulated on ra's seed and samples"):
        payback_of_results(a, tm.simulate(p5, samples=100, seed=5))
