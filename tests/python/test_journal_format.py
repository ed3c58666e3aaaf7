"""Trial-run journal format v1 (docs/journal.md): the JSON Schema generated from the journal's
field table (include/trnmodel/calibrate/journal_fields.hpp), the shipped copy of it, and the
bundled example journals."""

import json
import pathlib

import pytest

import trnmodel as tm
from trnmodel import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOURNALS = sorted((ROOT / "examples" / "journals").glob("*.json"))
SCHEMA = ROOT / "schema" / "journal-v1.schema.json"


def test_shipped_schema_is_the_generated_one():
    # Regenerate with (docs/journal.md):
    #   python -c "import json, trnmodel._core as c; print(json.dumps(c.journal_json_schema(), indent=2,
    #              ensure_ascii=False))" > schema/journal-v1.schema.json
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == _core.journal_json_schema(), (
        "regenerate schema/journal-v1.schema.json from trnmodel._core.journal_json_schema()"
    )


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_examples_validate(validator):
    assert len(JOURNALS) >= 3
    for path in JOURNALS:
        errors = [e.message for e in validator.iter_errors(json.loads(path.read_text()))]
        assert not errors, (path.name, errors[:3])


@pytest.mark.parametrize(
    "mutate",
    [
        lambda j: j.pop("billed"),
        lambda j: j["phases"].__setitem__("compile_s", -5),
        lambda j: j.__setitem__("unexpected", 1),
        lambda j: j["phases"].__setitem__("compile_cache_hits", True),
    ],
)
def test_bad_journals_are_rejected(validator, mutate):
    journal = json.loads(JOURNALS[0].read_text())
    mutate(journal)
    assert list(validator.iter_errors(journal))


@pytest.mark.parametrize(
    "mutate, loader_message",
    [
        (lambda j: j.pop("billed"), "billed: required key is missing"),
        (lambda j: j["phases"].__setitem__("compile_s", -5), "phases.compile_s: must be ≥ 0, got -5"),
        (lambda j: j.__setitem__("unexpected", 1), "unexpected: unknown key"),
        (lambda j: j["phases"].__setitem__("compile_cache_hits", True), "phases.compile_cache_hits: unknown key"),
        (lambda j: j.__setitem__("schema", "trnmodel.journal/2"), 'schema: must be "trnmodel.journal/1"'),
        (
            lambda j: j["training"].__setitem__("precision", "bf61"),
            "training.precision: must be one of bf16, fp8, fp32",
        ),
        (lambda j: j["instance"].__setitem__("nodes", 1.5), "instance.nodes: must be a whole number, got 1.5"),
        (lambda j: j["instance"].__setitem__("nodes", "one"), "instance.nodes: must be a number"),
        (
            lambda j: j["utilisation"].__setitem__("data_wait_fraction", 1.5),
            "utilisation.data_wait_fraction: must be in [0, 1]",
        ),
        (lambda j: j["versions"].__setitem__("cuda", "12.8"), "versions: must name exactly one of neuron_sdk and cuda"),
        (lambda j: j["training"].pop("lora_rank"), "training.lora_rank: required key is missing"),
        (lambda j: j.__setitem__("started_at", "2026-11-17 08:12"), "started_at: must be an RFC 3339 timestamp"),
        (
            lambda j: j["checkpoints"][0].__setitem__("checksum", "f5b31cee"),
            "checkpoints[0].checksum: must be algorithm:digest",
        ),
        (
            lambda j: j["step_times"].__setitem__("sha256", "0" * 64),
            "step_times: column, step_column, count and sha256 describe a file",
        ),
        (lambda j: j["training"].__setitem__("zero_stage", 4), "training.zero_stage: must be 0, 1, 2 or 3"),
    ],
)
def test_schema_rejects_what_the_loader_rejects(validator, mutate, loader_message):
    journal = json.loads((ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-001.json").read_text())
    mutate(journal)
    with pytest.raises(tm.ScenarioError) as caught:
        _core.Journal.from_obj(journal, str(ROOT / "examples" / "journals"))
    assert loader_message in str(caught.value)
    assert list(validator.iter_errors(journal)), loader_message
