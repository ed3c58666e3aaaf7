"""tm.simulate: the lifecycle semantics of docs/lifecycle.md, docs/metrics.md from Python."""

import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
LORA = ROOT / "examples" / "llama3-8b-lora-trn2.json"


def daly_dict(mtbf_h, delta_s, restart_s, solve_h, tau_s, interruptible):
    return {
        "schema": "trnmodel.scenario/1",
        "name": "daly",
        "job": {"effective_steps": solve_h * 3600 / tau_s},
        "cluster": {"nodes": 1},
        "throughput": {"step_time_s": tau_s},
        "checkpoint": {"every_steps": 1, "save_s": delta_s},
        "failures": {"node_mtbf_h": mtbf_h, "restart_s": restart_s, "during_recovery": interruptible},
        "prices": {"node_hour_usd": 1.0},
    }


def test_result_contract():
    res = tm.simulate(tm.Scenario.from_json(LORA), samples=20_000, seed=0)
    assert isinstance(res["wall_h"], np.ndarray) and res["wall_h"].shape == (20_000,)
    s = res.summary()
    assert list(s.index) == tm.METRICS
    assert list(s.columns)[:7] == ["mean", "sd", "p10", "p50", "p80", "p90", "p99"]
    df = res.to_pandas()
    assert isinstance(df, pd.DataFrame) and df.shape == (20_000, len(tm.METRICS))
    # Phase times sum to wall_h for every sample (to rounding).
    np.testing.assert_allclose(df[tm.PHASES].sum(axis=1), df["wall_h"], rtol=1e-12)
    # The cost of a useful step and the lifecycle cost per step, side by side.
    assert (df["lifecycle_cost_per_step_usd"] > df["useful_step_cost_usd"]).mean() > 0.99


def test_a_column_of_one_value_is_a_read_only_broadcast_view():
    # LoRA on Trn2 has no spot market: its spot metrics are 0 in every sample. Such a column is
    # kept as its value and viewed with stride 0 (as numpy.broadcast_to does), never written out;
    # a varying column is an ordinary view. Its quantiles are NumPy's of the expanded column.
    res = tm.simulate(tm.Scenario.from_json(LORA), samples=5_000, seed=2)
    single = [m for m in res.outputs if res[m].strides == (0,)]
    assert 5 <= len(single) < len(res.outputs) - 20, single
    q = [0.0, 0.1, 0.5, 0.9, 1.0]
    for m in res.outputs:
        x = res[m]
        assert x.shape == (5_000,) and not x.flags.writeable
        if m in single:
            assert np.all(x.view(np.uint64) == x[:1].view(np.uint64)), m
        else:
            assert x.strides == (8,) and x.flags.c_contiguous, m
        expanded = np.array(x)
        with np.errstate(invalid="ignore"):
            expected = np.full(len(q), np.nan) if np.isnan(expanded).all() else np.nanquantile(expanded, q)
        np.testing.assert_array_equal(res.quantile(q, m), expected)
    with pytest.raises(ValueError, match="read-only"):
        res[single[0]][0] = 1.0
    df = res.to_pandas()
    assert (df[single].nunique(dropna=False) == 1).all()
    assert df["wall_h"].nunique() > 4_000


def test_daly_fig3_from_python():
    res = tm.simulate(tm.Scenario.from_dict(daly_dict(24, 300, 600, 500, 7200, True)), samples=20_000, seed=3)
    expected_h = tm.theory.daly_wall_time(500 * 3600, 7200, 300, 600, 24 * 3600) / 3600
    assert expected_h == pytest.approx(547.90, abs=0.01)
    w = res["wall_h"]
    assert abs(w.mean() - expected_h) < 4 * w.std(ddof=1) / math.sqrt(w.size)


def test_same_seed_same_result_any_thread_count():
    scn = tm.Scenario.from_json(LORA)
    runs = [tm.simulate(scn, samples=30_001, seed=5, threads=t) for t in (1, 2, 3)]
    for r in runs[1:]:
        assert r.summary().equals(runs[0].summary())
        np.testing.assert_array_equal(r["run_cost_usd"], runs[0]["run_cost_usd"])


def test_common_random_numbers_across_platforms():
    # The job's inputs the two LoRA scenarios share draw the same numbers (the steps, the data
    # pipeline); the platform's (the queue for its capacity) are drawn on each platform's own
    # streams (docs/sensitivity.md, "What two scenarios share"; test_compare_pairing.py).
    trn2 = tm.simulate(tm.Scenario.from_json(LORA), samples=5000, seed=1)
    p5 = tm.simulate(tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json"), samples=5000, seed=1)
    # Checkpoints: the job's steps and its storage, one unknown on both platforms.
    assert np.corrcoef(trn2["checkpoint_h"], p5["checkpoint_h"])[0, 1] > 0.99
    assert abs(np.corrcoef(trn2["queue_h"], p5["queue_h"])[0, 1]) < 4 / np.sqrt(5000)  # same law, own draws


def test_unknowns_raise_or_give_nan_for_exactly_those_metrics():
    d = daly_dict(24, 300, 600, 50, 7200, True)
    d["prices"] = {"node_hour_usd": {"unknown": "no quote yet"}}
    scn = tm.Scenario.from_dict(d)
    with pytest.raises(tm.UnknownInputError) as info:
        tm.simulate(scn, samples=100)
    assert info.value.paths == ["prices.node_hour_usd"]
    assert "no quote yet" in str(info.value)
    res = tm.simulate(scn, samples=1000, allow_unknown=True)
    s = res.summary()
    assert np.isnan(s.loc["cost_compute_usd", "mean"]) and np.isnan(s.loc["run_cost_usd", "p90"])
    assert np.isfinite(s.loc["wall_h", "mean"]) and np.isfinite(s.loc["cost_transfer_usd", "mean"])
    assert s.loc["run_cost_usd", "note"] == "unknown: prices.node_hour_usd"
    assert s.loc["wall_h", "note"] == ""
    # Absent price: time estimates never need prices.
    del d["prices"]
    res = tm.simulate(tm.Scenario.from_dict(d), samples=1000, allow_unknown=True)
    assert res.unknown_inputs == {"prices.node_hour_usd": "absent"}


def test_streamed_summary_without_kept_samples():
    scn = tm.Scenario.from_json(LORA)
    kept = tm.simulate(scn, samples=50_000, seed=2)
    streamed = tm.simulate(scn, samples=50_000, seed=2, keep_samples=False)
    a, b = kept.summary(), streamed.summary()
    np.testing.assert_array_equal(a["mean"], b["mean"])
    for col in ["p10", "p50", "p90", "p99"]:
        np.testing.assert_allclose(b[col], a[col], rtol=1.1e-3, atol=1e-12)
    with pytest.raises(tm.ScenarioError, match="samples were not kept"):
        streamed["wall_h"]


def test_the_reports_plain_summary_is_the_summary_cell_for_cell():
    # The sign-off reads the summary through _stats() (plain dicts); every cell is summary()'s.
    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16-block7d.json")
    r = tm.simulate(scn, samples=3_000, seed=1)
    frame, stats = r.summary(), r._stats()
    assert list(stats) == list(frame.index)
    for metric, row in frame.iterrows():
        assert list(stats[metric]) == list(frame.columns)
        for column, value in row.items():
            got = stats[metric][column]
            assert got == value or (isinstance(value, float) and math.isnan(value) and math.isnan(got)), (
                metric,
                column,
            )


def test_bad_arguments():
    scn = tm.Scenario.from_json(LORA)
    with pytest.raises(
        tm.ScenarioError, match=r"samples: must be a whole number in \[1, 18446744073709551615\], got 0"
    ):
        tm.simulate(scn, samples=0)
    with pytest.raises(tm.ScenarioError, match="scenario: must be a tm.Scenario"):
        tm.simulate({"schema": "x"})


def test_theory_module():
    assert tm.theory.young_interval(300, 24 * 3600) == pytest.approx(7200)
    assert tm.theory.daly_interval(300, 24 * 3600) / 60 == pytest.approx(116.69, abs=0.01)
    with pytest.raises(tm.ScenarioError, match="checkpoint_s: must be > 0, got -5"):
        tm.theory.young_interval(-5, 100)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "trnmodel", *args], capture_output=True, text=True)


def test_cli_estimate_writes_the_budget_study(tmp_path):
    out = tmp_path / "report.md"
    r = run_cli("estimate", str(LORA), "-n", "5000", "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    for heading in [
        "## Time and cost",
        "## Cost per step",
        "## Where the time goes",
        "## Cost ledger",
        "## Assumptions",
        "## Unknowns",
    ]:
        assert heading in text
    assert re.search(r"quote of 2025-11-30 \(us-east-2\) is \d+ days old", text)


def test_cli_bad_input_exit_code_2_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"schema": "trnmodel.scenario/1", "job": {"effective_steps": 10}, "cluster": {"nodes": 1},'
        ' "throughput": {"step_time_s": 1}, "chekpoint": {}}'
    )
    r = run_cli("estimate", str(bad))
    assert r.returncode == 2
    assert r.stderr.strip() == f"trnmodel: {bad}: chekpoint: unknown key (did you mean checkpoint?)"
    r = run_cli("validate", str(bad))
    assert r.returncode == 2


def test_kept_samples_that_cannot_fit_are_refused_before_allocating():
    scn = tm.Scenario.from_json(LORA)
    with pytest.raises(
        tm.ScenarioError,
        match=rf"samples: keeping 100000000000 samples of {len(tm.METRICS)} outputs needs .* GiB.*keep_samples=False",
    ):
        tm.simulate(scn, samples=10**11)
