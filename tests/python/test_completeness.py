"""Nothing silently left out: completeness of each phase, the platform expectations as
warnings, fixed counts that must be whole, and where each shows (summary note, job card,
validate, the sign-off report)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import trnmodel as tm
from trnmodel._simulate import _plain_hours

THREE_FIELDS = {
    "schema": "trnmodel.scenario/1",
    "job": {"effective_steps": 1000},
    "cluster": {"nodes": 1},
    "throughput": {"step_time_s": 1.5},
    "prices": {"node_hour_usd": 30},
}


def test_completeness_table_of_a_three_field_scenario():
    c = tm.Scenario.from_dict(THREE_FIELDS).completeness()
    assert list(c.columns) == ["status", "inputs", "missing", "unknown", "counted as", "metric", "why"]
    assert c.loc["compute price", "status"] == "described"
    left = c.index[c.status == "not described"].tolist()
    assert left == ["queue", "set-up", "compile", "data load and warm-up", "checkpoints", "failures", "evaluation",
                    "quality gate", "storage", "transfer", "logs", "porting"]  # fmt: skip
    assert c.loc["queue", "counted as"] == "counted as 0"
    assert all(c.why.str.len() > 20)


def test_examples_leave_nothing_out(root):
    for path in sorted((root / "examples").glob("*.json")):
        scn = tm.Scenario.from_json(str(path))
        assert scn.not_described() == [], path.name
        assert (scn.completeness().status == "described").all(), path.name


def test_summary_note_says_counted_as_0():
    res = tm.simulate(tm.Scenario.from_dict(THREE_FIELDS), samples=100, progress=False)
    notes = res.summary()["note"]
    assert notes["queue_h"] == "not described (startup.queue_wait_s): counted as 0"
    assert notes["checkpoint_h"] == "not described (checkpoint.every_steps, checkpoint.save_s): counted as 0"
    assert notes["useful_h"] == ""


def test_expectations_are_warnings_naming_the_fields():
    d = json.loads(json.dumps(THREE_FIELDS))
    d["cluster"] = {"nodes": 4, "platform": "trn2.48xlarge"}
    scn = tm.Scenario.from_dict(d)
    with pytest.warns(tm.CompletenessWarning) as caught:
        tm.simulate(scn, samples=100, progress=False)
    messages = [str(w.message) for w in caught]
    assert any("compile.initial_s is not given" in m for m in messages)
    assert any("4 nodes without a failure model" in m for m in messages)
    # A long single-node job without failures warns after the run.
    long = dict(THREE_FIELDS, job={"effective_steps": 100_000})
    with pytest.warns(tm.CompletenessWarning, match="P50 wall time is 41.7 h without a failure model"):
        tm.simulate(tm.Scenario.from_dict(long), samples=100, progress=False)
    # A complete example raises none.
    with warnings.catch_warnings():
        warnings.simplefilter("error", tm.CompletenessWarning)
        tm.Scenario.from_dict(THREE_FIELDS)


def test_measured_step_time_with_more_nodes_warns():
    scn = tm.Scenario.from_dict(THREE_FIELDS)
    with pytest.warns(tm.CompletenessWarning, match="cluster.nodes changed but throughput.step_time_s is measured"):
        scn.updated({"cluster.nodes": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error", tm.CompletenessWarning)
        scn.updated({"cluster.nodes": 1, "checkpoint.save_s": 10})  # unchanged nodes: no warning


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("job.effective_steps", 0, "job.effective_steps: a fixed count must be a whole number ≥ 1, got 0"),
        ("checkpoint.every_steps", 0.3, "checkpoint.every_steps: a fixed count must be a whole number ≥ 0, got 0.3"),
        ("compile.planned_changes", 1.5, "compile.planned_changes: a fixed count must be a whole number ≥ 0, got 1.5"),
    ],
)
def test_fixed_counts_must_be_whole(path, value, message):
    with pytest.raises(tm.ScenarioError, match=message.replace("(", r"\(")):
        tm.Scenario.from_dict(THREE_FIELDS).updated({path: value})


def test_drawn_counts_are_rounded():
    scn = tm.Scenario.from_dict(THREE_FIELDS).updated({"checkpoint.every_steps": tm.Uniform(0.2, 0.4)})
    res = tm.simulate(scn, samples=50, progress=False)
    assert res.summary().loc["checkpoint_h", "max"] == 0  # rounded to 0: one segment, no save time given


def test_empty_update_path_is_named():
    with pytest.raises(tm.ScenarioError, match=r"\(empty path\): no such scenario field"):
        tm.Scenario.from_dict(THREE_FIELDS).updated({"": 5})


def _validate(tmp_path, document) -> str:
    """What `trnmodel validate` prints for the scenario `document`."""
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(document))
    command = [sys.executable, "-m", "trnmodel", "validate", str(path)]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def test_job_card_and_validate_list_what_is_left_out(tmp_path):
    d = json.loads(json.dumps(THREE_FIELDS))
    d["cluster"]["platform"] = "trn2.48xlarge"
    html = tm.Scenario.from_dict(d)._repr_html_()
    assert "Not described, counted as 0: queue (startup.queue_wait_s); set-up (startup.env_prep_s)" in html
    assert "compile.initial_s is not given" in html
    out = _validate(tmp_path, d)
    assert "not described (counted as 0): queue (startup.queue_wait_s)" in out
    assert "warning: cluster.platform is trn2.48xlarge (Neuron) but compile.initial_s is not given" in out


def test_report_headline_says_how_many_phases_it_leaves_out(tmp_path):
    d = dict(THREE_FIELDS, name="three", throughput={"step_time_s": {"dist": "uniform", "lo": 1.4, "hi": 1.6}})
    doc = tm.report(tm.Scenario.from_dict(d), samples=2_000, progress=False)
    headline = "\n".join(doc.summary)
    assert "**three leaves out 12 phases** (not described, counted as 0): queue (startup.queue_wait_s)" in headline
    md = doc.markdown()
    assert "## Completeness: what the estimate includes" in md
    assert "| queue | not described: startup.queue_wait_s, counted as 0 |" in md


def test_built_scenario_is_complete_and_meets_the_expectations(root):
    scn = tm.Scenario.new(root / "examples" / "configs" / "llama3-8b.json", "trn2.48xlarge", kind="lora", tokens="786M")
    assert scn.not_described() == []
    # Every phase is present; the only unknowns are the prices no quote was given for.
    c = scn.completeness()
    assert set(c.index[c.status == "unknown"]) <= {"storage", "transfer", "logs", "compute price"}
    assert "described" in set(c.status)
    assert scn.expectations() == []


def test_report_shows_what_a_reviewer_checks_first_side_by_side(root):
    config = root / "examples" / "configs" / "llama3-8b.json"
    prices = {"storage_gb_month_usd": 0.023, "transfer_gb_usd": 0.02, "logs_gb_usd": 0.5}
    a = tm.Scenario.new(config, "trn2.48xlarge", kind="lora", tokens="786M", node_hour_usd=35.76, name="trn2", **prices)
    b = tm.Scenario.new(config, "p5.48xlarge", kind="lora", tokens="786M", node_hour_usd=55.04, name="p5", **prices)
    md = tm.report(a, b, samples=2_000, progress=False).markdown()
    section = md[md.index("## What a reviewer checks first") :].split("\n## ")[0]
    assert "|  | trn2 | p5 |" in section  # one table, the two scenarios side by side
    assert "| tokens per step | 262,144 (64 × 4096) | 262,144 (64 × 4096) |" in section
    mfu_row = next(line for line in section.splitlines() if line.startswith("| implied MFU"))
    assert mfu_row.count("%") == 2, mfu_row


def test_report_of_two_scenarios_with_unknown_prices_says_why_it_cannot_compare(root):
    config = root / "examples" / "configs" / "llama3-8b.json"
    a = tm.Scenario.new(config, "trn2.48xlarge", kind="lora", tokens="786M", name="trn2")
    b = tm.Scenario.new(config, "p5.48xlarge", kind="lora", tokens="786M", name="p5")
    md = tm.report(a, b, samples=2_000, progress=False).markdown()
    assert "## Comparison: trn2 vs p5" in md
    assert "Not computed: run_cost_usd needs unknown inputs (prices.logs_gb_usd, prices.node_hour_usd" in md


def test_unit_slips_warn_with_what_was_probably_meant(tmp_path):
    d = json.loads(json.dumps(THREE_FIELDS))
    d["failures"] = {"node_mtbf_h": 22_140_000}
    with pytest.warns(tm.PlausibilityWarning, match="if it is in seconds, that is 6.15e.03 h"):
        scn = tm.Scenario.from_dict(d)
    assert scn.implausible() == [
        "failures.node_mtbf_h: 2.214e+07 h per node is over a century; if it is in seconds, that is 6.15e+03 h"
    ]
    d = json.loads(json.dumps(THREE_FIELDS))
    d["cluster"]["platform"] = "trn2"
    d["prices"]["node_hour_usd"] = 30
    with pytest.warns(
        tm.PlausibilityWarning, match=r'cluster.platform: "trn2" names no hardware profile; did you mean'
    ):
        tm.Scenario.from_dict(d)
    path = tmp_path / "slip.json"
    path.write_text(json.dumps(d))
    out = subprocess.run(
        [sys.executable, "-m", "trnmodel", "validate", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert out.count('"trn2" names no hardware profile') == 1, out


CHECKPOINTED = dict(
    THREE_FIELDS,
    checkpoint={"every_steps": 100, "save_s": 30, "load_s": 60},
    failures={"node_mtbf_h": 5000, "restart_s": 300},
)


def test_defaults_that_are_not_zeros_are_said_aloud():
    c = tm.Scenario.from_dict(CHECKPOINTED).completeness()
    assert c.loc["restore checks", "status"] == "not described"
    assert c.loc["restore checks", "missing"] == "checkpoint.restore_fail_prob"
    assert c.loc["restore checks", "counted as"] == "assumed to always succeed"
    assert c.loc["checkpoints kept", "counted as"] == "1 (default)"
    # They are defaults, not phases left out and counted as 0.
    left = " ".join(tm.Scenario.from_dict(CHECKPOINTED).not_described())
    assert "restore_fail_prob" not in left and "keep_last" not in left
    given = dict(CHECKPOINTED, checkpoint=dict(CHECKPOINTED["checkpoint"], keep_last=2, restore_fail_prob=0.01))
    c = tm.Scenario.from_dict(given).completeness()
    assert c.loc[["restore checks", "checkpoints kept"], "status"].tolist() == ["described", "described"]
    doc = tm.report(tm.Scenario.from_dict(dict(CHECKPOINTED, name="ck")), samples=500, progress=False).markdown()
    assert "| restore checks | not described: checkpoint.restore_fail_prob, assumed to always succeed |" in doc
    assert "| checkpoints kept | not described: checkpoint.keep_last, 1 (default) |" in doc


def _restart_loop(restore_fail_prob, keep_last):
    # 32 nodes of 400 h MTBF: a failure every 12.5 h on a job of 100 h. A restore that fails with
    # one checkpoint kept sends the job back to its start, where the loop begins again.
    d = json.loads(json.dumps(CHECKPOINTED))
    d["job"] = {"effective_steps": 10_000}
    d["cluster"]["nodes"] = 32
    d["throughput"] = {"step_time_s": 36}
    d["failures"]["node_mtbf_h"] = 400
    d["checkpoint"].update(keep_last=keep_last, restore_fail_prob=restore_fail_prob)
    return tm.Scenario.from_dict(d)


def test_a_tail_beyond_a_year_or_ten_p50s_is_flagged_with_its_inputs():
    with pytest.warns(tm.PlausibilityWarning, match="P99.9 wall time") as caught:
        res = tm.simulate(_restart_loop(0.6, 1), samples=20_000, seed=0, progress=False)
    p50, p999 = res.quantile([0.5, 0.999], "wall_h")
    assert p999 > 8766  # the condition the flag states (P99.9 about 2 years), on the same samples
    (sentence,) = res.implausible_tail()
    assert sentence in [str(w.message) for w in caught]
    assert "over a year" in sentence and "made of lost_h" in sentence and "failures.node_mtbf_h" in sentence
    assert "checkpoint.restore_fail_prob" in sentence and "checkpoint.keep_last 1" in sentence
    # The phase named has the largest P99.9 of all phases (NumPy's, on the kept samples): the
    # search that skips phases by their maximum finds the one every quantile would.
    p999s = {m: float(np.quantile(res[m], 0.999)) for m in tm.PHASES}
    assert max(p999s, key=lambda m: p999s[m]) == "lost_h"
    assert f"made of lost_h (its P99.9 {_plain_hours(p999s['lost_h'])}" in sentence
    # Keeping three checkpoints of a restore that seldom fails bounds the loop: no flag, no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", tm.PlausibilityWarning)
        calm = tm.simulate(_restart_loop(0.05, 3), samples=20_000, seed=0, progress=False)
    p50, p999 = calm.quantile([0.5, 0.999], "wall_h")
    assert p999 <= 10 * p50 and calm.implausible_tail() == []


def test_the_examples_tails_are_plausible(root):
    for path in sorted((root / "examples").glob("*.json")):
        res = tm.simulate(tm.Scenario.from_json(str(path)), samples=2_000, seed=0, progress=False)
        assert res.implausible_tail() == [], path.name


def test_the_defaults_assumed_show_in_validate_and_the_job_card(tmp_path):
    scn = tm.Scenario.from_dict(CHECKPOINTED)
    assert scn.defaults_assumed() == [
        "checkpoints kept (checkpoint.keep_last): 1 (default)",
        "restore checks (checkpoint.restore_fail_prob): assumed to always succeed",
    ]
    assert "Defaults assumed: checkpoints kept (checkpoint.keep_last): 1 (default)" in scn._repr_html_()
    out = _validate(tmp_path, CHECKPOINTED)
    assert "  defaults assumed: checkpoints kept (checkpoint.keep_last): 1 (default); restore checks" in out
