"""Trial-run journal format v1 (DESIGN §10): the schema and the bundled example journals.
(The loader and calibration come next; until then the format is checked by its schema.)"""
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOURNALS = sorted((ROOT / "examples" / "journals").glob("*.json"))


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schema" / "journal-v1.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_examples_validate(validator):
    assert len(JOURNALS) >= 3
    for path in JOURNALS:
        errors = [e.message for e in validator.iter_errors(json.loads(path.read_text()))]
        assert not errors, (path.name, errors[:3])


@pytest.mark.parametrize("mutate", [
    lambda j: j.pop("billed"),
    lambda j: j["phases"].__setitem__("compile_s", -5),
    lambda j: j.__setitem__("unexpected", 1),
    lambda j: j["phases"].__setitem__("compile_cache_hits", True),
])
def test_bad_journals_are_rejected(validator, mutate):
    journal = json.loads(JOURNALS[0].read_text())
    mutate(journal)
    assert list(validator.iter_errors(journal))
