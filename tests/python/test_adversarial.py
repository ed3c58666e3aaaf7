"""Adversarial inputs (docs/reliability.md): each gives a clear error or a correct answer within
bounded time and memory. Cases already covered elsewhere: duplicate keys and non-UTF-8 files
(test_scenario.py), kept samples that cannot fit (test_simulate.py), a job that could never
finish (C++ test_simulator), supports outside a field's range (test_scenario.py and
test_properties.py)."""

import json
import math
import pathlib
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASE = {
    "schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 1e18},
    "cluster": {"nodes": 1000},
    "throughput": {"step_time_s": 2},
    "checkpoint": {"every_steps": 3, "save_s": 1},
    "prices": {"node_hour_usd": 1},
}


def test_1e18_steps_give_the_exact_answer_quickly():
    start = time.perf_counter()
    res = tm.simulate(tm.Scenario.from_dict(BASE), samples=10_000, seed=0)
    assert time.perf_counter() - start < 10
    # 10^18 steps of 2 s, and a 1 s save every 3 steps.
    np.testing.assert_allclose(res["useful_h"], 2e18 / 3600, rtol=1e-12)
    np.testing.assert_allclose(res["wall_h"], (2e18 + math.ceil(1e18 / 3)) / 3600, rtol=1e-12)
    assert res["failures"].max() == 0


def test_1e18_steps_against_failures_are_refused_before_the_work():
    scn = tm.Scenario.from_dict({**BASE, "failures": {"node_mtbf_h": 1}})
    start = time.perf_counter()
    with pytest.raises(tm.ScenarioError) as info:
        tm.simulate(scn, samples=10_000, seed=0)
    assert time.perf_counter() - start < 2
    message = str(info.value)
    assert message.startswith(
        "failures.node_mtbf_h: with 1000 nodes and a node MTBF of 1 h, the job fails every 0.001 h"
    )
    assert "failures each" in message and "check job.effective_steps and the failure inputs" in message


def test_a_job_that_never_finishes_says_why_and_what_to_change():
    # A 10 h segment against a failure every 0.1 h: e^100 attempts.
    scn = tm.Scenario.from_dict(
        {
            **BASE,
            "job": {"effective_steps": 18_000},
            "cluster": {"nodes": 10},
            "checkpoint": {"every_steps": 18_000},
            "failures": {"node_mtbf_h": 1},
        }
    )
    with pytest.raises(tm.ScenarioError) as info:
        tm.simulate(scn, samples=100)
    message = str(info.value)
    assert "the job fails every 0.1 h, but a checkpoint segment takes 10 h" in message
    assert "failures are expected before one completes, so the job would never finish" in message
    assert "checkpoint more often (checkpoint.every_steps)" in message


def test_a_wall_time_beyond_the_largest_double_is_refused():
    scn = tm.Scenario.from_dict({**BASE, "job": {"effective_steps": 1e300}, "throughput": {"step_time_s": 1e10}})
    with pytest.raises(tm.ScenarioError, match="a sample's wall time is beyond the largest number"):
        tm.simulate(scn, samples=10)


DEEP = 100_000


def _nested_list(depth):
    value = None
    for _ in range(depth):
        value = [value]
    return value


def _nested_dict(depth):
    value = {}
    for _ in range(depth):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    "load",
    [
        lambda: tm.Scenario.from_json('{"schema": "trnmodel.scenario/1", "name": ' + "[" * DEEP + "]" * DEEP + "}"),
        lambda: tm.Scenario.from_dict({"schema": "trnmodel.scenario/1", "name": _nested_list(DEEP)}),
        lambda: tm.Scenario.from_dict({"schema": "trnmodel.scenario/1", "name": _nested_dict(DEEP)}),
        lambda: tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json").updated(
            {"name": _nested_list(DEEP)}
        ),
        lambda: tm.Distribution.from_dict({"dist": "empirical", "samples": _nested_list(DEEP)}),
    ],
    ids=["text", "dict-of-lists", "dict-of-dicts", "update", "distribution"],
)
def test_deeply_nested_input_is_refused_not_a_crash(load):
    with pytest.raises(tm.ScenarioError, match="JSON nested more than 64 levels deep"):
        load()


def test_text_that_is_not_valid_unicode_is_refused_with_its_place():
    with pytest.raises(tm.ScenarioError, match=r"scenario: not valid Unicode text \(character 10: '\\udcff'\)"):
        tm.Scenario.from_json('{"name": "\udcff"}')
    with pytest.raises(tm.ScenarioError, match="name: is not valid Unicode text"):
        tm.Scenario.from_dict({"schema": "trnmodel.scenario/1", "name": "\udcff"})
    with pytest.raises(tm.ScenarioError, match="is not valid Unicode text"):
        tm.Scenario.from_dict({"schema": "trnmodel.scenario/1", "\udcff": 1})


def _measure(code: str) -> dict:
    """Runs `code` in a fresh interpreter; returns its printed JSON and its peak memory (MiB)."""
    script = textwrap.dedent(code) + textwrap.dedent("""
        import resource
        result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_100_mb_scenario_loads_in_bounded_time_and_memory():
    # 10^7 measured values (100 MB of JSON text) as the empirical distribution of the steps.
    result = _measure(
        """
        import json, time
        import trnmodel as tm
        doc = json.loads(BASE_JSON)
        doc["job"] = {"effective_steps": "SAMPLES"}
        samples = '{"dist": "empirical", "samples": [' + "5400.125, " * 9_999_999 + '5400.125]}'
        text = json.dumps(doc).replace('"SAMPLES"', samples)
        assert len(text) > 100_000_000
        start = time.perf_counter()
        res = tm.simulate(tm.Scenario.from_json(text), samples=1000, seed=0)
        result = {"seconds": time.perf_counter() - start, "useful_h": float(res["useful_h"].mean())}
    """.replace("BASE_JSON", repr(json.dumps(BASE)))
    )
    assert result["useful_h"] == pytest.approx(5401 * 2 / 3600, rel=1e-12)  # 5400.125 steps round up
    assert result["seconds"] < 60, result
    assert result["peak_mib"] < 4096, result
