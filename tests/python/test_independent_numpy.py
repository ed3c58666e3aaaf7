"""tm.simulate against an independent NumPy implementation of docs/lifecycle.md, docs/metrics.md
(bench/numpy_lifecycle.py: NumPy's own samplers, vectorized failure process).

The two sides use different random numbers, so only agreement within Monte Carlo error is
expected. For each scenario and metric, the means are compared with a two-sample z-test:

    |mean_tm − mean_np| ≤ 5 · sqrt(sd_tm²/n_tm + sd_np²/n_np)

5 combined standard errors: over the ~60 comparisons here, a false alarm from chance alone
has probability ~3e-5, while a semantic difference (a missing C, a wrong rounding, a
recovery that is not lost, ...) moves the mean by far more than 5 standard errors at these
sample counts. Metrics constant in both samples must agree to rounding.
"""

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
from numpy_lifecycle import simulate_numpy  # noqa: E402

TOLERANCE_SE = 5.0
SAMPLES = 40_000
COMPARED = ["wall_h", "failures", "lost_h", "compile_h", "rerun_h", "run_cost_usd"]

EXAMPLES = ["llama3-8b-lora-trn2", "llama3-8b-lora-p5", "llama3-70b-full-trn2x16", "llama3-70b-full-p5x16"]

# Constant inputs, exponential failures, many failures per run (~12-17): 64 nodes at a node
# MTBF of 40 h (job MTBF 37.5 min), 21 segments of ~17 min, recoveries of 9-23 min with a
# cache that misses 30% of the time. 10,000 steps are not a multiple of 480: the last segment
# holds 400 steps, and it has no save (checkpoint.final false).
DALY = {
    "schema": "trnmodel.scenario/1",
    "name": "daly-constant",
    "job": {"effective_steps": 10_000},
    "cluster": {"nodes": 64},
    "throughput": {"step_time_s": 2.0},
    "startup": {"queue_wait_s": 1800, "env_prep_s": 300, "data_load_s": 120},
    "compile": {"initial_s": 600, "recompile_s": 900, "cache_load_s": 60, "cache_hit_prob": 0.7},
    "checkpoint": {"every_steps": 480, "save_s": 40, "verify_s": 20, "load_s": 120, "final": False},
    "failures": {"node_mtbf_h": 40, "restart_s": 300, "warmup_s": 60, "during_recovery": True},
    "prices": {"node_hour_usd": 10.0, "storage_gb_month_usd": 0.023, "logs_gb_usd": 0.5},
    "data": {"dataset_gb": 100, "logs_gb_per_hour": 0.2},
}


def _daly(during_recovery: bool) -> dict:
    d = copy.deepcopy(DALY)
    d["name"] = f"daly-constant-recovery-{'exposed' if during_recovery else 'safe'}"
    d["failures"]["during_recovery"] = during_recovery
    return d


def _weibull_reruns() -> dict:
    """Weibull failures (shape 0.7: decreasing hazard, so the renewal at each failure
    matters), reruns after a failed quality gate half of the time, planned changes 2.5
    (std::round gives 3, banker's rounding would give 2), and uncertain step time."""
    d = copy.deepcopy(DALY)
    d["name"] = "weibull-reruns"
    d["throughput"]["step_time_s"] = {"dist": "lognormal", "p50": 2.0, "p90": 2.6}
    # A fixed count must be whole; a drawn one is rounded: one measured value of 2.5.
    d["compile"]["planned_changes"] = {"dist": "empirical", "samples": [2.5]}
    d["checkpoint"]["final"] = True
    d["failures"].update({"distribution": "weibull", "weibull_shape": 0.7})
    d["quality"] = {"rerun_prob": 0.5, "rerun_fraction": {"dist": "uniform", "lo": 0.1, "hi": 0.4}}
    return d


def _other_families() -> dict:
    """The input families the examples do not use: truncated normal, gamma, Weibull,
    exponential, uniform, empirical, Bernoulli; and eval every k steps with an uncertain k."""
    d = copy.deepcopy(DALY)
    d["name"] = "other-families"
    d["job"]["effective_steps"] = {"dist": "normal", "mean": 9000, "sd": 2000, "lo": 6000, "hi": 11000}
    d["throughput"]["step_time_s"] = {"dist": "empirical", "samples": [1.7, 1.9, 2.0, 2.05, 2.4, 3.1]}
    d["throughput"]["data_stall_fraction"] = {"dist": "uniform", "lo": 0.0, "hi": 0.1}
    d["startup"]["queue_wait_s"] = {"dist": "exponential", "mean": 3600}
    d["compile"]["recompile_s"] = {"dist": "gamma", "shape": 4, "scale": 250}
    d["failures"]["restart_s"] = {"dist": "weibull", "shape": 1.5, "scale": 400}
    d["failures"]["node_mtbf_h"] = {"dist": "triangular", "lo": 30, "mode": 40, "hi": 80}
    d["compile"]["planned_changes"] = {"dist": "bernoulli", "p": 0.3}
    d["eval"] = {"every_steps": 1000, "time_s": {"dist": "uniform", "lo": 60, "hi": 120}, "final_s": 600}
    return d


SCENARIOS = {name: ROOT / "examples" / f"{name}.json" for name in EXAMPLES}
SCENARIOS.update(
    {
        "daly-recovery-exposed": _daly(True),
        "daly-recovery-safe": _daly(False),
        "weibull-reruns": _weibull_reruns(),
        "other-families": _other_families(),
    }
)


def _scenario(spec) -> "tm.Scenario":
    if isinstance(spec, dict):
        return tm.Scenario.from_dict(spec)
    return tm.Scenario.from_json(str(spec))


def _z(a: np.ndarray, b: np.ndarray) -> float:
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    diff = float(a.mean() - b.mean())
    if se == 0:
        return 0.0 if math.isclose(a.mean(), b.mean(), rel_tol=1e-12, abs_tol=1e-12) else math.inf
    return diff / se


@pytest.fixture(scope="module")
def runs():
    cache = {}

    def get(name):
        if name not in cache:
            scn = _scenario(SCENARIOS[name])
            res = tm.simulate(scn, samples=SAMPLES, seed=11, keep_samples=True)
            ref = simulate_numpy(scn, samples=SAMPLES, seed=12)
            cache[name] = (res, ref)
        return cache[name]

    return get


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_means_agree_with_numpy(runs, name):
    res, ref = runs(name)
    report = []
    bad = []
    for metric in COMPARED:
        a, b = np.asarray(res[metric]), ref[metric]
        z = _z(a, b)
        report.append(f"{metric}: tm {a.mean():.6g} numpy {b.mean():.6g} z {z:+.2f}")
        if not abs(z) <= TOLERANCE_SE:
            bad.append(metric)
    assert not bad, f"{name}: means differ by more than {TOLERANCE_SE} SE in {bad}\n" + "\n".join(report)


@pytest.mark.parametrize("name", ["daly-recovery-exposed", "daly-recovery-safe", "weibull-reruns"])
def test_failure_heavy_scenarios_have_many_failures(runs, name):
    # the comparisons above only test the failure process if failures actually happen
    res, _ = runs(name)
    assert np.asarray(res["failures"]).mean() > 5


def test_numpy_reference_matches_closed_form():
    """The NumPy side itself against the exact expectation of a constant scenario: with
    exponential failures, a segment of duration D costs on average
    (e^{λD} − 1)(1/λ + E[R]) when recoveries cannot fail, and, when they can, each failure
    is followed by recovery attempts until one fits before the next failure: expected
    recovery time E[min(T, R)] / P(T ≥ R), T ~ Exp(λ) (Daly 2006 for a fixed R)."""
    lam = 64 / (40 * 3600)
    recoveries = [(300 + 60 + 120 + 60, 0.7), (300 + 900 + 120 + 60, 0.3)]  # (R, probability)
    segments = [(480 * 2.0 + 60, 20), (400 * 2.0, 1)]  # (D, count): final segment has no save
    for during_recovery in (True, False):
        if during_recovery:
            p_ok = sum(p * math.exp(-lam * r) for r, p in recoveries)
            spent = sum(p * -math.expm1(-lam * r) / lam for r, p in recoveries)
            per_failure = 1 / lam + spent / p_ok
        else:
            per_failure = 1 / lam + sum(p * r for r, p in recoveries)
        expected_s = 1800 + 300 + 600 + 120 + sum(m * math.expm1(lam * d) * per_failure for d, m in segments)
        wall = simulate_numpy(_daly(during_recovery), samples=100_000, seed=5)["wall_h"]
        se = wall.std(ddof=1) / math.sqrt(wall.size)
        assert abs(wall.mean() - expected_s / 3600) <= TOLERANCE_SE * se, (
            during_recovery,
            wall.mean(),
            expected_s / 3600,
        )


def test_numpy_reference_phases_sum_to_wall():
    ref = simulate_numpy(_weibull_reruns(), samples=5_000, seed=3)
    total = sum(ref[p] for p in tm.PHASES)
    np.testing.assert_allclose(total, ref["wall_h"], rtol=1e-12)
