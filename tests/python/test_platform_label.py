"""A measured job's cluster.platform that names no hardware profile: kept as a label, and
noted (Scenario.expectations, a CompletenessWarning from tm.simulate) with the known profiles."""

import pytest

import trnmodel as tm

JOB = {
    "schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1},
    "throughput": {"step_time_s": 1.5},
    "compile": {"initial_s": 0},
    "prices": {"node_hour_usd": 3},
}


def job(platform: str) -> tm.Scenario:
    return tm.Scenario.from_dict({**JOB, "cluster": {"nodes": 1, "platform": platform}})


def test_a_label_that_is_no_profile_is_noted_with_the_known_ones():
    (note,) = job("p5.48xlarqe").expectations()
    assert note.startswith('cluster.platform "p5.48xlarqe" is not a known hardware profile (did you mean p5.48xlarge?)')
    for name in tm.profiles():
        assert name in note
    with pytest.warns(tm.CompletenessWarning, match="is not a known hardware profile"):
        r = tm.simulate(job("p5.48xlarqe"), samples=100, progress=False)
    assert (
        r.summary().loc["wall_h", "p50"]
        == tm.simulate(job("p5.48xlarge"), samples=100, progress=False).summary().loc["wall_h", "p50"]
    )
    assert job("p5.48xlarge").expectations() == []


def test_a_mode_that_needs_the_profile_refuses_the_name():
    doc = {
        **JOB,
        "cluster": {"nodes": 1, "platform": "p5.48xlarqe"},
        "throughput": {"mode": "flops", "model_flops_utilization": 0.3},
    }
    doc["model"] = {"parameters": 8e9, "sequence_length": 4096}
    doc["parallelism"] = {"global_batch": 64, "dp": 8}
    with pytest.raises(tm.ScenarioError, match=r"cluster.platform: no hardware profile named \"p5.48xlarqe\".*known: "):
        tm.Scenario.from_dict(doc)
