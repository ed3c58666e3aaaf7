"""tm.fields: one constant per row of the C++ field table, named after its C++ id, and the
file is what scripts/gen_fields.py writes from the table."""

import pathlib
import subprocess
import sys

import pytest

import trnmodel as tm
from trnmodel import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_one_constant_per_field_in_format_order():
    paths = [f.path for f in _core.scenario_fields()]
    assert list(tm.fields.ALL) == paths
    for path in paths:
        assert getattr(tm.fields, path.replace(".", "_").upper()) == path
    constants = [
        n for n in vars(tm.fields) if n.isupper() and n not in ("ALL", "STAGE_BLOCKS") and not n.endswith("_CHOICES")
    ]
    assert len(constants) == len(paths)  # nothing left over from a removed field


def test_the_stage_blocks_are_the_loaders():
    """STAGE_BLOCKS is C++'s list of a stage's keys less its name and transition_s (test_stages.py
    checks that the loader refuses a per-job block inside a stage)."""
    assert tm.fields.STAGE_BLOCKS == tuple(k for k in _core.stage_keys() if k not in ("name", "transition_s"))
    assert "prices" not in tm.fields.STAGE_BLOCKS and "compile" in tm.fields.STAGE_BLOCKS


def test_each_choice_field_lists_its_spellings():
    choice_fields = [f for f in _core.scenario_fields() if f.kind == "choice"]
    assert len(choice_fields) == 10  # six of the job, four facts of its project (docs/decisions.md)
    for f in choice_fields:
        assert getattr(tm.fields, f.path.replace(".", "_").upper() + "_CHOICES") == tuple(f.choices)
    assert tm.fields.THROUGHPUT_MODE_CHOICES == ("measured", "extrapolated", "flops", "analytic")
    assert tm.fields.PRICES_PURCHASE_CHOICES == ("on_demand", "capacity_block", "spot")


def test_each_choice_is_an_enum_of_its_spellings():
    for type_name, spellings in _core.choices():
        enum = getattr(tm.fields, "".join(part.capitalize() for part in type_name.split("_")))
        assert [m.value for m in enum] == list(spellings)
        assert [m.name for m in enum] == [s.upper() for s in spellings]
    for f in _core.scenario_fields():
        if f.kind == "choice":
            assert f.choice_type in dict(_core.choices())
    spot = tm.fields.PurchaseMode.SPOT
    # A member is the spelling: it equals, hashes, prints and formats as the plain string.
    assert spot == "spot" and "spot" == spot and hash(spot) == hash("spot")
    assert str(spot) == "spot" and f"{spot}" == "spot" and f"{spot:>6}" == "  spot"
    assert tm.fields.PurchaseMode("capacity_block") is tm.fields.PurchaseMode.CAPACITY_BLOCK
    assert tm.fields.JobKind.LORA in tm.fields.JOB_KIND_CHOICES


def test_the_constants_name_what_the_scenario_reads():
    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    assert scn[tm.fields.CLUSTER_NODES] == scn["cluster.nodes"]
    with pytest.raises(AttributeError):
        tm.fields.CLUSTER_NODEZ  # noqa: B018 - a misspelt constant fails where it is written


def test_the_file_is_generated_from_the_table():
    r = subprocess.run([sys.executable, "scripts/gen_fields.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
