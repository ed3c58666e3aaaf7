"""Restore fidelity (docs/lifecycle.md, "Restore fidelity"): a restored checkpoint that fails
its check is dropped and the job falls back to an older kept one, or to the start.

tm.simulate is compared with an independent per-sample, per-segment implementation
(bench/numpy_lifecycle.py: simulate_restore_numpy, NumPy's generator, an explicit list of
kept checkpoints) by a two-sample z-test on the means, within 5 combined standard errors, on
failure-heavy jobs (several failures and fallbacks per sample)."""

from __future__ import annotations

import copy
import math
import pathlib
import sys

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from numpy_lifecycle import simulate_restore_numpy  # noqa: E402

TOLERANCE_SE = 5.0
COMPARED = ["wall_h", "lost_h", "recovery_h", "compile_h", "failures", "restore_fallbacks"]

# 16 nodes at a node MTBF of 24 h: the job fails every 1.5 h; 10 segments of 30 min.
BASE = {
    "schema": "trnmodel.scenario/1",
    "name": "restore-heavy",
    "job": {"effective_steps": 1_000},
    "cluster": {"nodes": 16},
    "throughput": {"step_time_s": 17.0},
    "startup": {"env_prep_s": 300, "data_load_s": 120},
    "compile": {"initial_s": 600, "recompile_s": 900, "cache_load_s": 60, "cache_hit_prob": 0.7},
    "checkpoint": {
        "every_steps": 100,
        "save_s": 60,
        "verify_s": 40,
        "load_s": 240,
        "keep_last": 2,
        "restore_fail_prob": 0.3,
    },
    "failures": {"node_mtbf_h": 24, "restart_s": 300, "warmup_s": 60, "during_recovery": True},
    "eval": {"final_s": 600},
    "prices": {"node_hour_usd": 40.0},
}


def _variant(**changes) -> dict:
    d = copy.deepcopy(BASE)
    for path, value in changes.items():
        section, key = path.split("__")
        d[section][key] = value
    return d


CASES = {
    "keep2-exposed": _variant(),
    "keep1-safe-recovery": _variant(checkpoint__keep_last=1, failures__during_recovery=False),
    "keep3-p05-no-final": _variant(checkpoint__keep_last=3, checkpoint__restore_fail_prob=0.5, checkpoint__final=False),
    "drawn-prob": _variant(checkpoint__restore_fail_prob={"dist": "beta", "a": 2, "b": 5}),
}


def _z(a: np.ndarray, b: np.ndarray) -> float:
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    if se == 0:
        return 0.0 if math.isclose(a.mean(), b.mean(), rel_tol=1e-12, abs_tol=1e-12) else math.inf
    return (a.mean() - b.mean()) / se


@pytest.mark.parametrize("name", sorted(CASES))
def test_fallbacks_agree_with_numpy(name):
    spec = CASES[name]
    res = tm.simulate(tm.Scenario.from_dict(spec), samples=20_000, seed=3, progress=False)
    ref = simulate_restore_numpy(spec, samples=6_000, seed=4)
    assert res["restore_fallbacks"].mean() > 0.3, "the case must exercise the fallback"
    assert res["failures"].mean() > 1.5
    bad = {m: _z(res[m], ref[m]) for m in COMPARED}
    bad = {m: z for m, z in bad.items() if not abs(z) <= TOLERANCE_SE}
    assert not bad, f"{name}: means differ by more than {TOLERANCE_SE} SE: {bad}"


def test_phases_sum_to_wall_and_useful_stays():
    res = tm.simulate(tm.Scenario.from_dict(BASE), samples=4_000, seed=1, progress=False)
    total = sum(res[p] for p in tm.PHASES)
    np.testing.assert_allclose(total, res["wall_h"], rtol=1e-12)
    # Redone work is lost, never useful twice.
    np.testing.assert_allclose(res["useful_h"], 1_000 * 17.0 / 3600, rtol=1e-12)
    assert (
        res["lost_h"].mean()
        > tm.simulate(
            tm.Scenario.from_dict(_variant(checkpoint__restore_fail_prob=0)), samples=4_000, seed=1, progress=False
        )["lost_h"].mean()
    )


def test_keep_last_buys_resilience():
    """restore_fail_prob 0.2: keeping 3 checkpoints loses less than keeping 1 (a failed check
    with one kept goes back to the start), and both lose more than perfect restores."""
    lost = {}
    for keep in (1, 3):
        spec = _variant(checkpoint__keep_last=keep, checkpoint__restore_fail_prob=0.2)
        res = tm.simulate(tm.Scenario.from_dict(spec), samples=20_000, seed=5, progress=False)
        lost[keep] = res["lost_h"]
    perfect = tm.simulate(
        tm.Scenario.from_dict(_variant(checkpoint__restore_fail_prob=0)), samples=20_000, seed=5, progress=False
    )["lost_h"]
    assert _z(lost[1], lost[3]) > 4
    assert _z(lost[3], perfect) > 4


def test_zero_probability_draws_nothing():
    """restore_fail_prob 0 (given or default) is the job without checks, bit for bit."""
    with_zero = tm.simulate(
        tm.Scenario.from_dict(_variant(checkpoint__restore_fail_prob=0)), samples=3_000, seed=2, progress=False
    )
    d = copy.deepcopy(BASE)
    del d["checkpoint"]["restore_fail_prob"]
    without = tm.simulate(tm.Scenario.from_dict(d), samples=3_000, seed=2, progress=False)
    for m in with_zero.outputs:
        assert np.array_equal(with_zero[m], without[m], equal_nan=True), m
    assert not with_zero["restore_fallbacks"].any()


def test_restore_fail_prob_is_a_factor_and_chance_includes_the_checks():
    scn = tm.Scenario.from_dict(_variant(checkpoint__restore_fail_prob={"dist": "uniform", "lo": 0, "hi": 0.6}))
    s = tm.sobol(scn, output="lost_h", base_samples=512, seed=1, progress=False)
    assert "checkpoint.restore_fail_prob" in s.index
    assert s.loc["checkpoint.restore_fail_prob", "ST"] > 0.05
    # With the probability fixed, the restore draws are luck: 'chance' carries the spread.
    fixed = tm.sobol(tm.Scenario.from_dict(BASE), output="lost_h", base_samples=256, seed=1, progress=False)
    assert list(fixed.index) == ["chance"]


def test_bad_restore_fail_prob_is_refused():
    with pytest.raises(tm.ScenarioError, match=r"checkpoint\.restore_fail_prob: must be in \[0, 1\], got 1\.5"):
        tm.Scenario.from_dict(_variant(checkpoint__restore_fail_prob=1.5))
    with pytest.raises(tm.ScenarioError, match=r"checkpoint\.restore_fail_probb: unknown key.*restore_fail_prob"):
        d = copy.deepcopy(BASE)
        d["checkpoint"]["restore_fail_probb"] = 0.1
        tm.Scenario.from_dict(d)
