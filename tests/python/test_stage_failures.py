"""Failures across a stage boundary (docs/lifecycle.md, "Stages"): a boundary is not a failure,
so the renewal process of the failures goes on with its age; the new stage's hazard applies
from that age on."""

from __future__ import annotations

import copy
import math

import numpy as np

import trnmodel as tm

# Constant inputs; the job fails every 10 h at 8 nodes. No quality gate, no planned changes.
ONE = {
    "schema": "trnmodel.scenario/1",
    "name": "weibull",
    "job": {"effective_steps": 4_000},
    "cluster": {"nodes": 8},
    "throughput": {"step_time_s": 30.0},
    "compile": {"initial_s": 600, "cache_load_s": 60, "cache_hit_prob": 0.5, "recompile_s": 600},
    "checkpoint": {"every_steps": 100, "save_s": 60, "load_s": 120},
    "failures": {"node_mtbf_h": 80, "restart_s": 300, "warmup_s": 60, "distribution": "weibull", "weibull_shape": 0.5},
    "prices": {"node_hour_usd": 10.0},
}


def _staged(one: dict, second: dict, **top) -> dict:
    doc = copy.deepcopy(one)
    doc.update(top)
    doc.pop("job", None)  # each stage states its work
    work = {"effective_steps": 2_000}
    doc["stages"] = [{"name": "a", "job": work}, {"name": "b", "job": work, **second}]
    return doc


def _z2(a: np.ndarray, b: np.ndarray) -> float:
    return (a.mean() - b.mean()) / math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)


def test_a_boundary_that_changes_nothing_leaves_the_failures_as_they_were():
    """Two stages of 2,000 steps whose transition takes no time are one job of 4,000 steps,
    sample by sample: the failure clock carries its age over the boundary (a renewal there
    would make a Weibull of shape 0.5 fail sooner after it)."""
    plain = copy.deepcopy(ONE)
    plain["checkpoint"]["load_s"] = 0  # the transition loads a checkpoint: make that free
    two = _staged(plain, {"compile": {"initial_s": 0}, "transition_s": 0})
    one = tm.simulate(tm.Scenario.from_dict(plain), samples=4_000, seed=7, progress=False)
    staged = tm.simulate(tm.Scenario.from_dict(two), samples=4_000, seed=7, progress=False)
    # Time to the next failure re-expressed at the boundary: equal up to rounding.
    same = np.isclose(one["wall_h"], staged["wall_h"], rtol=1e-9, atol=0)
    assert same.mean() > 0.999
    assert (one["failures"] == staged["failures"]).mean() > 0.999
    assert staged["failures"].mean() > 1  # the case has failures to carry


def test_weibull_of_shape_one_is_exponential_across_stages():
    """With shape 1 the carried-over clock is memoryless: the same distribution as the
    exponential model (which draws afresh at the boundary), here with the failure rate
    doubling at the boundary (16 nodes in the second stage)."""
    second = {"cluster": {"nodes": 16}, "transition_s": 600}
    weibull = copy.deepcopy(ONE)
    weibull["failures"]["weibull_shape"] = 1.0
    exponential = copy.deepcopy(ONE)
    exponential["failures"] = {k: v for k, v in ONE["failures"].items() if not k.startswith("weibull")}
    exponential["failures"]["distribution"] = "exponential"
    a = tm.simulate(tm.Scenario.from_dict(_staged(weibull, second)), samples=20_000, seed=8, progress=False)
    b = tm.simulate(tm.Scenario.from_dict(_staged(exponential, second)), samples=20_000, seed=9, progress=False)
    for m in ["wall_h", "failures", "lost_h", "a/failures", "b/failures", "b/lost_h"]:
        assert abs(_z2(a[m], b[m])) < 4, m
    assert b["b/failures"].mean() > 0.5


def test_the_new_stage_hazard_applies_from_the_carried_age():
    """Shape 2 (wear-out), one checkpoint segment per stage: when stage a (30,000 s of exposure)
    does not fail, stage b starts at age 30,000 s, and fails within its 6,000 s with the
    probability of stage b's hazard (16 nodes: half the scale) from that age on."""
    doc = {
        "schema": "trnmodel.scenario/1",
        "name": "wear-out",
        "cluster": {"nodes": 8},
        "throughput": {"step_time_s": 30.0},
        "failures": {"node_mtbf_h": 80, "distribution": "weibull", "weibull_shape": 2.0, "during_recovery": False},
        "prices": {"node_hour_usd": 10.0},
        "stages": [
            {"name": "a", "job": {"effective_steps": 1_000}},
            {"name": "b", "job": {"effective_steps": 200}, "cluster": {"nodes": 16}, "transition_s": 0},
        ],
    }
    res = tm.simulate(tm.Scenario.from_dict(doc), samples=40_000, seed=10, progress=False)
    failed_in_b = (res["b/failures"] > 0)[res["a/failures"] == 0]
    s_b = 80 * 3600 / 16 / math.gamma(1.5)  # scale of stage b's Weibull (mean = its MTBF)
    age, length = 30_000.0, 6_000.0
    p = 1 - math.exp(-(((age + length) / s_b) ** 2 - (age / s_b) ** 2))
    se = math.sqrt(p * (1 - p) / failed_in_b.size)
    assert abs(failed_in_b.mean() - p) < 4 * se
    # A renewal at the boundary would give 1 - exp(-(length / s_b)^2), far from it.
    assert abs(1 - math.exp(-((length / s_b) ** 2)) - p) > 20 * se
