"""Scenario v1 from Python: loading, validation messages, round trips, updates, schema."""

import json
import pathlib

import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
MINIMAL = {
    "schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 1000},
    "cluster": {"nodes": 2},
    "throughput": {"step_time_s": 1.5},
}


def with_(**sections):
    d = json.loads(json.dumps(MINIMAL))
    for section, fields in sections.items():
        d.setdefault(section, {}).update(fields)
    return d


def test_examples_exist_and_load():
    assert len(EXAMPLES) >= 4
    for path in EXAMPLES:
        scn = tm.Scenario.from_json(path)
        assert scn.name
        assert tm.Scenario.from_json(str(path)) == scn


def test_examples_validate_against_the_shipped_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schema" / "scenario-v1.schema.json").read_text())
    assert schema == tm.json_schema(), "regenerate schema/scenario-v1.schema.json from tm.json_schema()"
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in EXAMPLES:
        errors = list(validator.iter_errors(json.loads(path.read_text())))
        assert not errors, (path.name, [e.message for e in errors[:3]])
    # The schema rejects what the loader rejects, for the common mistakes.
    assert list(validator.iter_errors(with_(chekpoint={"every_steps": 5})))
    assert list(validator.iter_errors(with_(checkpoint={"every_step": 5})))
    assert list(validator.iter_errors(with_(checkpoint={"final": "yes"})))


def test_round_trips_dict_and_json(tmp_path):
    for path in EXAMPLES:
        scn = tm.Scenario.from_json(path)
        assert tm.Scenario.from_dict(scn.to_dict()) == scn
        out = tmp_path / path.name
        scn.to_json(out)
        assert tm.Scenario.from_json(out) == scn
        assert json.loads(out.read_text()) == json.loads(path.read_text())


def test_updated_and_getitem():
    scn = tm.Scenario.from_dict(MINIMAL)
    new = scn.updated({"checkpoint.every_steps": 500, "failures.node_mtbf_h": tm.Uniform(100, 200)})
    assert new["checkpoint.every_steps"].ppf(0.5) == 500
    assert isinstance(new["failures.node_mtbf_h"], tm.Uniform)
    assert scn["checkpoint.every_steps"].ppf(0.5) == 0  # the original is unchanged
    assert scn["failures.node_mtbf_h"] is None
    assert scn["checkpoint.final"] is True and scn["cluster.nodes"] == 2 and scn["job.kind"] == "full"
    assert new.updated({"checkpoint.every_steps": None}).to_dict().get("checkpoint", {}).get("every_steps") is None
    with pytest.raises(KeyError):
        scn["checkpoint.nope"]
    # The card's plain fields are read from one shared dict, which to_dict() never hands out.
    assert scn["cluster.nodes"] == 2
    given = scn.to_dict()
    given["cluster"]["nodes"] = 7
    given["cluster"]["platform"] = "elsewhere"
    assert scn["cluster.nodes"] == 2 and scn["cluster.platform"] is None
    assert scn.to_dict()["cluster"] == {"nodes": 2}


def test_getitem_of_a_misspelt_path_says_what_updated_says():
    scn = tm.Scenario.from_dict(MINIMAL)
    with pytest.raises(tm.ScenarioError) as by_update:
        scn.updated({"cluster.nodez": 3})
    with pytest.raises(tm.UnknownFieldError) as by_index:
        scn["cluster.nodez"]
    assert (
        str(by_index.value)
        == str(by_update.value)
        == "cluster.nodez: no such scenario field (did you mean cluster.nodes?)"
    )
    assert isinstance(by_index.value, KeyError) and isinstance(by_index.value, tm.ScenarioError)


@pytest.mark.parametrize(
    "data, message",
    [
        (with_(checkpoint={"every_steps": -5}), "checkpoint.every_steps: must be ≥ 0, got -5"),
        (with_(chekpoint={"every_steps": 5}), "chekpoint: unknown key (did you mean checkpoint?)"),
        (with_(checkpoint={"evry_steps": 5}), "checkpoint.evry_steps: unknown key (did you mean every_steps?)"),
        (
            with_(throughput={"step_time_s": {"dist": "lognormal", "p50": 3, "p90": 2}}),
            "throughput.step_time_s: lognormal needs 0 < p50 < p90, got p50=3, p90=2",
        ),
        (with_(throughput={"step_time_s": tm.Normal(2, 0.5)}), 'truncate it with "lo": 0'),
        (with_(checkpoint={"save_s": float("nan")}), "checkpoint.save_s: must be a finite number, got nan"),
        (with_(checkpoint={"save_s": float("inf")}), "checkpoint.save_s: must be a finite number, got inf"),
        (with_(cluster={"nodes": 0}), "cluster.nodes: must be ≥ 1, got 0"),
        (with_(failures={"distribution": "weibul"}), "(did you mean weibull?)"),
        ({"schema": "trnmodel.scenario/1"}, "cluster.nodes: required"),
        ({"schema": "trnmodel.scenario/1", "cluster": {"nodes": 1}}, "job.effective_steps: required"),
    ],
)
def test_every_mistake_gets_a_clear_message(data, message):
    with pytest.raises(tm.ScenarioError) as info:
        tm.Scenario.from_dict(data)
    assert message in str(info.value)


def test_json_text_errors(tmp_path):
    with pytest.raises(tm.ScenarioError, match=r"line 2, column \d+"):
        tm.Scenario.from_json('{"schema": "trnmodel.scenario/1",\n "job": {"effective_steps": 10,}}')
    with pytest.raises(tm.ScenarioError, match="checkpoint.save_s: duplicate key"):
        tm.Scenario.from_json('{"checkpoint": {"save_s": 1, "save_s": 2}}')
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"name": "\xff"}')
    with pytest.raises(tm.ScenarioError, match="not UTF-8"):
        tm.Scenario.from_json(bad)
    with pytest.raises(tm.ScenarioError, match="no such scenario file"):
        tm.Scenario.from_json(tmp_path / "missing.json")


def test_assumptions_and_unknowns_are_listed():
    scn = tm.Scenario.from_dict(
        with_(
            checkpoint={"save_s": tm.PERT(5, 15, 60, source="assumption")},
            prices={"node_hour_usd": {"unknown": "no quote yet"}},
        )
    )
    assert "checkpoint.save_s" in scn.assumptions()
    assert scn.unknowns() == {"prices.node_hour_usd": "no quote yet"}
