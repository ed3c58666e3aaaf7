"""The job card block: every field optional and shown filled or missing (display, report), and
the restart promise checked against the model's time from a failure to resumed training."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import trnmodel as tm

# One recovery: 600 s restart + 1200 s recompile (no cache hits) + 300 s load + 100 s warm-up.
JOB = {
    "schema": "trnmodel.scenario/1",
    "name": "carded",
    "job": {"effective_steps": 1000},
    "cluster": {"nodes": 4},
    "throughput": {"step_time_s": 2},
    "checkpoint": {"every_steps": 100, "load_s": 300},
    "compile": {"recompile_s": 1200, "cache_load_s": 60, "cache_hit_prob": 0},
    "failures": {"restart_s": 600, "warmup_s": 100, "node_mtbf_h": 2},
    "prices": {"node_hour_usd": 40},
    "card": {"code_version": "v1.4.2", "owners": {"quality": "A. Chen"}},
}
RECOVERY_H = (600 + 1200 + 300 + 100) / 3600


def scenario(**card):
    d = json.loads(json.dumps(JOB))
    d["card"].update(card)
    return tm.Scenario.from_dict(d)


def test_card_table_lists_every_field_filled_or_missing():
    card = scenario().card()
    assert list(card.index) == [
        "code_version",
        "dataset",
        "sequence_lengths",
        "micro_batch_and_accumulation",
        "restore_conditions",
        "max_error_to_restart_h",
        "baseline_match_criteria",
        "expected_loss_range",
        "control_answers",
        "checkpoint_format",
        "owners.quality",
        "owners.trajectory",
        "owners.operations",
    ]
    filled = card[card.status == "filled"]
    assert filled["value"].to_dict() == {"code_version": "v1.4.2", "owners.quality": "A. Chen"}
    assert (card.drop(filled.index).status == "missing").all()


def test_nested_paths_read_and_update():
    scn = scenario()
    assert scn["card.owners.quality"] == "A. Chen"
    assert scn["card.owners.trajectory"] is None
    moved = scn.updated({"card.owners.trajectory": "B. Diaz", "card.owners.quality": None})
    assert moved["card.owners.trajectory"] == "B. Diaz"
    assert moved["card.owners.quality"] is None
    with pytest.raises(tm.ScenarioError, match=r"card\.owners\.qualty: unknown key \(did you mean quality\?\)"):
        tm.Scenario.from_dict({**JOB, "card": {"owners": {"qualty": "x"}}})
    with pytest.raises(tm.ScenarioError, match=r"card\.max_error_to_restart_h: must be > 0, got 0"):
        scenario(max_error_to_restart_h=0)


def test_restart_time_without_interruptions_is_the_sum_of_its_parts():
    scn = scenario().updated({"failures.during_recovery": False})
    t = scn.restart_time(samples=500)
    assert t.name == "restart_h" and len(t) == 500
    assert np.all(t.to_numpy() == RECOVERY_H)


def test_restart_time_with_interruptions_matches_the_closed_form():
    # Failures at rate 2/h restart a recovery of R from scratch: E[T] = (e^{λR} − 1)/λ.
    t = scenario().restart_time(samples=100_000, seed=3)
    expected = math.expm1(2 * RECOVERY_H) / 2
    assert abs(t.mean() - expected) < 4 * t.std() / math.sqrt(len(t))


def test_a_broken_restart_promise_warns_everywhere(tmp_path):
    kept = scenario(max_error_to_restart_h=3)
    assert not any("max_error_to_restart_h" in e for e in kept.expectations())
    broken = scenario(max_error_to_restart_h=0.5)
    sentence = next(e for e in broken.expectations() if e.startswith("card.max_error_to_restart_h"))
    p90 = float(np.quantile(broken.restart_time(), 0.9))
    assert p90 > 0.5
    assert "is 0.5 h, but the modelled time from a failure to resumed training" in sentence
    assert f"{p90:.3g} h at P90" in sentence
    with pytest.warns(tm.CompletenessWarning, match="card.max_error_to_restart_h is 0.5 h"):
        tm.simulate(broken, samples=200, progress=False)
    html = broken._repr_html_()
    assert "card.max_error_to_restart_h is 0.5 h" in html
    path = tmp_path / "carded.json"
    broken.to_json(path)
    out = subprocess.run(
        [sys.executable, "-m", "trnmodel", "validate", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "warning: card.max_error_to_restart_h is 0.5 h" in out


def test_display_and_report_show_the_card():
    scn = scenario()
    html = scn._repr_html_()
    assert "Job card: 2 of 13 fields filled" in html
    assert "missing: dataset, sequence_lengths" in html
    assert "<code>owners.quality</code>" in html and "A. Chen" in html
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        md = tm.report(scn, samples=500, progress=False).markdown()
    assert "## Job card: the fields filled and missing" in md
    assert "| code_version | v1.4.2 |" in md
    assert "| dataset | missing |" in md
    assert "11 of 13 job-card fields missing: dataset, sequence_lengths" in md


def test_a_number_beyond_double_range_names_its_field(tmp_path):
    path = tmp_path / "big.json"
    path.write_text('{"schema": "trnmodel.scenario/1",\n "job": {"effective_steps": 1e400}}')
    with pytest.raises(tm.ScenarioError, match=r"job\.effective_steps: JSON number overflow parsing '1e400' at line 2"):
        tm.Scenario.from_json(path)


def test_a_staged_job_promises_its_slowest_stage():
    # Without interruptions each stage's recovery is the sum of its parts; the second stage
    # restarts in 6000 s instead of 600 s, so every sample is that stage's recovery.
    d = json.loads(json.dumps(JOB))
    d["failures"]["during_recovery"] = False
    del d["job"]  # each stage states its work
    d["stages"] = [
        {"name": "short", "job": {"effective_steps": 500}},
        {"name": "long", "job": {"effective_steps": 500}, "failures": {"restart_s": 6000}},
    ]
    t = tm.Scenario.from_dict(d).restart_time(samples=200)
    assert np.all(t.to_numpy() == (6000 + 1200 + 300 + 100) / 3600)
