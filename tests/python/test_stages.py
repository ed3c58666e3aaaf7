"""Multi-stage jobs (docs/lifecycle.md, "Stages"; docs/scenario.md, "Stages"): the loader, the
semantics against closed forms, the per-stage metrics and their sums."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import trnmodel as tm

# Constant inputs, exponential failures: 8 nodes at a node MTBF of 40 h (job MTBF 5 h).
TWO = {
    "schema": "trnmodel.scenario/1",
    "name": "two-stages",
    "cluster": {"nodes": 8},
    "throughput": {"step_time_s": 6.0},
    "startup": {"queue_wait_s": 600, "env_prep_s": 300, "data_load_s": 120},
    "compile": {"initial_s": 900, "cache_load_s": 60},
    "checkpoint": {"every_steps": 200, "save_s": 30, "load_s": 90},
    "failures": {"node_mtbf_h": 40, "restart_s": 240, "warmup_s": 30},
    "eval": {"final_s": 300},
    "prices": {"node_hour_usd": 40.0},
    "stages": [
        {"name": "short", "job": {"effective_steps": 2_000}},
        {
            "name": "long",
            "job": {"effective_steps": 600},
            "cluster": {"nodes": 16},
            "throughput": {"step_time_s": 20.0},
            "compile": {"initial_s": 1500, "cache_load_s": 90},
            "checkpoint": {"every_steps": 50, "load_s": 150},
            "transition_s": 400,
        },
    ],
}


def _z(a: np.ndarray, b: float | np.ndarray) -> float:
    if isinstance(b, np.ndarray):
        return (a.mean() - b.mean()) / math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return (a.mean() - b) / (a.std(ddof=1) / math.sqrt(a.size))


def _stage_expected_s(nodes, mtbf_h, steps, every, t, save, recovery_s):
    mtbf_s = mtbf_h * 3600 / nodes
    segment = every * t + save
    return steps / every * tm.theory.expected_segment_time(segment, recovery_s, mtbf_s, True)


def test_two_stages_match_the_closed_form():
    """start + Σ over stages (transition + Daly's expected time of its segments) + final eval."""
    res = tm.simulate(tm.Scenario.from_dict(TWO), samples=40_000, seed=1, progress=False)
    start = 600 + 300 + 900 + 120
    first = _stage_expected_s(8, 40, 2_000, 200, 6.0, 30, 240 + 60 + 90 + 30)
    transition = 400 + 1500 + 150 + 120
    mtbf2_s = 40 * 3600 / 16
    second = math.expm1(transition / mtbf2_s) * mtbf2_s + _stage_expected_s(
        16, 40, 600, 50, 20.0, 30, 240 + 90 + 150 + 30
    )
    expected_h = (start + first + second + 300) / 3600
    assert abs(_z(res["wall_h"], expected_h)) < 4
    # Per stage: the first holds the start, the second its transition and the final evaluation.
    assert abs(_z(res["short/wall_h"], (start + first) / 3600)) < 4
    assert abs(_z(res["long/wall_h"], (second + 300) / 3600)) < 4


def test_stages_sum_to_the_job_and_phases_to_wall():
    res = tm.simulate(tm.Scenario.from_dict(TWO), samples=5_000, seed=2, progress=False)
    assert res.stage_names == ["short", "long"]
    for m in ["wall_h", "node_h", "useful_h", "compile_h", "lost_h", "failures", "cost_compute_usd", "transition_h"]:
        np.testing.assert_allclose(res[f"short/{m}"] + res[f"long/{m}"], res[m], rtol=1e-12, atol=1e-12, err_msg=m)
    np.testing.assert_allclose(sum(res[p] for p in tm.PHASES), res["wall_h"], rtol=1e-12)
    np.testing.assert_allclose(res["useful_h"], (2_000 * 6.0 + 600 * 20.0) / 3600, rtol=1e-12)
    # The transition: relaunch and checkpoint load (its compile and data load are elsewhere).
    np.testing.assert_allclose(res["transition_h"], (400 + 150) / 3600, rtol=1e-12)
    # node_h: each stage's nodes times its billed time (the queue is not billed).
    np.testing.assert_allclose(res["short/node_h"], 8 * (res["short/wall_h"] - 600 / 3600), rtol=1e-12)
    np.testing.assert_allclose(res["long/node_h"], 16 * res["long/wall_h"], rtol=1e-12)
    table = res.stages()
    assert list(table.index) == ["short", "long"]
    assert table.loc["long", "step_time_s"] == 20.0
    assert table["wall_h"].sum() == pytest.approx(res.summary().loc["wall_h", "mean"], rel=1e-12)


def _unstaged(steps: int = 2_000) -> dict:
    """TWO without its stages: one job of `steps` steps at the top level's inputs."""
    d = copy.deepcopy(TWO)
    del d["stages"]
    d["job"] = {"effective_steps": steps}
    return d


def test_two_identical_stages_are_one_stage_plus_a_transition():
    one = _unstaged()
    two = copy.deepcopy(one)
    del two["job"]
    half = {"effective_steps": 1_000}
    two["stages"] = [
        {"name": "a", "job": half},
        {"name": "b", "job": half, "transition_s": 200, "compile": {"precompiled": True}},
    ]
    a = tm.simulate(tm.Scenario.from_dict(one), samples=40_000, seed=3, progress=False)["wall_h"]
    b = tm.simulate(tm.Scenario.from_dict(two), samples=40_000, seed=4, progress=False)["wall_h"]
    mtbf_s = 40 * 3600 / 8
    transition_s = 200 + 60 + 90 + 120  # relaunch, cached graphs (precompiled), load, data
    expected_extra_h = math.expm1(transition_s / mtbf_s) * mtbf_s / 3600
    assert abs(_z(b - expected_extra_h, a)) < 4


def test_transition_defaults_to_restart_and_can_be_safe():
    d = copy.deepcopy(TWO)
    del d["stages"][1]["transition_s"]
    d["failures"]["during_recovery"] = False
    res = tm.simulate(tm.Scenario.from_dict(d), samples=2_000, seed=5, progress=False)
    np.testing.assert_allclose(res["transition_h"], (240 + 150) / 3600, rtol=1e-12)


def test_a_scenario_with_one_plain_stage_gives_the_same_bits():
    plain = _unstaged()
    staged = copy.deepcopy(plain)
    staged["stages"] = [{"name": "only", "job": staged.pop("job")}]
    a = tm.simulate(tm.Scenario.from_dict(plain), samples=3_000, seed=6, progress=False)
    b = tm.simulate(tm.Scenario.from_dict(staged), samples=3_000, seed=6, progress=False)
    for m in a.outputs:
        assert np.array_equal(a[m], b[m], equal_nan=True), m
    np.testing.assert_array_equal(b["only/wall_h"], a["wall_h"])


def test_inherited_inputs_are_drawn_once_and_overrides_on_their_own_stream():
    d = copy.deepcopy(TWO)
    d["throughput"]["step_time_s"] = {"dist": "lognormal", "p50": 6, "p90": 7}
    d["stages"][1]["throughput"] = {"step_time_s": {"dist": "lognormal", "p50": 20, "p90": 24}}
    d["stages"].append({"name": "anneal", "job": {"effective_steps": 100}})
    res = tm.simulate(tm.Scenario.from_dict(d), samples=2_000, seed=7, progress=False)
    assert res.uncertain_inputs == ["throughput.step_time_s", "long/throughput.step_time_s"]
    np.testing.assert_array_equal(res["anneal/step_time_s"], res["short/step_time_s"])
    assert not np.array_equal(res["long/step_time_s"], res["short/step_time_s"])
    s = tm.sobol(tm.Scenario.from_dict(d), output="wall_h", base_samples=256, seed=1, progress=False)
    assert "long/throughput.step_time_s" in s.index


def _bad(mutate) -> dict:
    d = copy.deepcopy(TWO)
    mutate(d)
    return d


BAD = [
    (
        lambda d: d["stages"][1]["throughput"].update(step_time_s=-1),
        r"stages\[1\]\.throughput\.step_time_s: must be > 0",
    ),
    (
        lambda d: d["stages"][0].update(checkpoint={"every_stepz": 3}),
        r"stages\[0\]\.checkpoint\.every_stepz: unknown key \(did you mean every_steps\?\)",
    ),
    (lambda d: d["stages"][1].update(startup={"env_prep_s": 3}), r"stages\[1\]\.startup: is set per job"),
    (lambda d: d["stages"][1].update(cluster={"platform": "x"}), r"stages\[1\]\.cluster\.platform: is set per job"),
    (lambda d: d["stages"][0].update(transition_s=5), r"stages\[0\]\.transition_s: the first stage has no transition"),
    (lambda d: d["stages"][1].update(transition_s=-5), r"stages\[1\]\.transition_s: must be ≥ 0"),
    (lambda d: d["stages"][1].update(name="short"), r"stages\[1\]\.name: must be unique"),
    (lambda d: d["stages"][1].update(name="a/b"), r"stages\[1\]\.name: must not contain '/'"),
    (lambda d: d["stages"][1].pop("name"), r"stages\[1\]\.name: required"),
    (
        lambda d: d["stages"][1].update(compile={"precompiled": "yes"}),
        r"stages\[1\]\.compile\.precompiled: must be true",
    ),
    (lambda d: d["stages"][1].update(tranistion_s=1), r"stages\[1\]\.tranistion_s: unknown key \(did you mean"),
    (lambda d: d["stages"][1].update(job={"tokens": 5}), r"stages\[1\]\.model\.sequence_length: required"),
    (lambda d: d.update(stages=[]), r"stages: must be a non-empty array"),
    (lambda d: d.update(stages={"name": "x"}), r"stages: must be a non-empty array"),
    (lambda d: d["stages"].append(3), r"stages\[2\]: must be an object"),
    (lambda d: d.update(stagse=[]), r"stagse: unknown key \(did you mean stages\?\)"),
    # Each stage states its work: a stage without it would silently run another's again.
    (lambda d: d["stages"][1].pop("job"), r"stages\[1\]\.job: required: the stage's own work"),
    (lambda d: d.update(job={"tokens": 1e9}), r"job\.tokens: is not used in a job in stages"),
]


@pytest.mark.parametrize("mutate,message", BAD)
def test_bad_stage_fields_are_refused_with_their_path(mutate, message):
    with pytest.raises(tm.ScenarioError, match=message):
        tm.Scenario.from_dict(_bad(mutate))


def test_schema_describes_stages():
    schema = tm.json_schema()
    stage = schema["properties"]["stages"]["items"]
    assert stage["required"] == ["name", "job"]
    assert stage["properties"]["job"]["anyOf"] == [{"required": ["tokens"]}, {"required": ["effective_steps"]}]
    assert "platform" not in stage["properties"]["cluster"]["properties"]
    assert "precompiled" in stage["properties"]["compile"]["properties"]
    assert "startup" not in stage["properties"]


def test_the_job_card_says_what_each_stage_inherits():
    """Every field a stage runs with is either its own or shown as inherited from the top level."""
    from trnmodel._html import stage_inherits

    doc = copy.deepcopy(TWO)
    doc["stages"][1]["checkpoint"] = {"every_steps": 100}
    assert stage_inherits(doc, doc["stages"][0]) == [
        "cluster.nodes",
        "throughput",
        "compile",
        "checkpoint",
        "eval",
        "failures",
    ]
    # A block given in part inherits the rest of it, field by field.
    inherited = stage_inherits(doc, doc["stages"][1])
    assert "checkpoint.save_s" in inherited and "checkpoint.load_s" in inherited
    assert "checkpoint.every_steps" not in inherited and "checkpoint" not in inherited
    html = tm.Scenario.from_dict(doc)._repr_html_()
    assert "<th>inherits from the top level</th>" in html
    assert "checkpoint.save_s, checkpoint.load_s" in html
