"""A one-number trial (tm.TrialSummary): calibrated as a journal's step time is — the reference of
extrapolated mode for another configuration, the step time itself for the scenario's own — with
the mean's standard error sd / √steps as its uncertainty; every problem reported at once; the
CLI validates and calibrates it."""

import json
import math
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "configs" / "llama3-8b.json"
JOURNAL = ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-001.json"


def _target(nodes=16):
    return tm.Scenario.new(CONFIG, "trn2.48xlarge", kind="lora", tokens="786M", nodes=nodes, node_hour_usd=35.76)


def _summary(**changes):
    stated = dict(
        experiment_id="llama8b-lora-trn2-2node",
        platform="trn2.48xlarge",
        nodes=2,
        model="meta-llama/Meta-Llama-3-8B",
        kind="lora",
        lora_rank=16,
        global_batch=32,
        micro_batch=1,
        sequence_length=4096,
        tp=4,
        pp=1,
        dp=8,
        precision="bf16",
        step_time_mean_s=2.4,
        step_time_sd_s=0.3,
        steps=225,
    )
    stated.update(changes)
    return tm.TrialSummary(**stated)


def _calibrate(given, base):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", tm.JournalWarning)
        scn = tm.calibrate(given, base)
    return scn, [str(w.message) for w in caught]


def test_a_summary_of_another_configuration_fills_the_reference():
    base = _target(16)
    scn, said = _calibrate(_summary(), base)
    assert scn["throughput.mode"] == tm.fields.ThroughputMode.EXTRAPOLATED
    assert (scn["reference.nodes"], scn["reference.global_batch"], scn["reference.dp"]) == (2, 32, 8)
    ref = scn["reference.step_time_s"].to_dict()
    assert ref["dist"] == "normal" and ref["source"] == "measured"
    assert ref["mean"] == 2.4
    assert ref["sd"] == pytest.approx(0.3 / math.sqrt(225), rel=1e-12)  # 0.02 s: the mean's, not a step's
    differences = next(m for m in said if m.startswith("the trials ran another configuration"))
    assert f"nodes 2 → 16, global batch 32 → {base['parallelism.global_batch']}" in differences
    assert any("treats the 225 steps as independent" in m for m in said)
    report = scn.calibration
    assert list(report.inputs.index) == ["reference.step_time_s"]
    assert report.inputs.loc["reference.step_time_s", "experiments"] == "llama8b-lora-trn2-2node"
    assert report.steady_state.loc["llama8b-lora-trn2-2node", "steady_mean_s"] == 2.4
    # The sign-off: measured at 2 nodes with the trial's id, extrapolated to 16 by the model.
    klass, detail = tm._evidence.step_time_evidence(scn)
    assert klass == "extrapolated"
    assert detail.startswith("measured at 2 node(s) (llama8b-lora-trn2-2node)")
    assert "to 16 node(s) of trn2.48xlarge" in detail


def test_the_extrapolated_mean_follows_the_summary():
    """Doubling the trial's mean doubles the extrapolated median (the model's ratio is fixed)."""
    base = _target(16)
    one, _ = _calibrate(_summary(step_time_sd_s=0.0), base)
    two, _ = _calibrate(_summary(step_time_mean_s=4.8, step_time_sd_s=0.0), base)
    a = tm.simulate(one, samples=4_000, seed=5, allow_unknown=True)["step_time_s"]
    b = tm.simulate(two, samples=4_000, seed=5, allow_unknown=True)["step_time_s"]
    assert float(np.median(b)) == pytest.approx(2 * float(np.median(a)), rel=1e-9)


def test_a_summary_of_the_scenarios_configuration_is_its_step_time():
    base = _target(2)
    same = _summary(
        nodes=2,
        global_batch=base["parallelism.global_batch"],
        micro_batch=base["parallelism.micro_batch"],
        sequence_length=base["model.sequence_length"],
        tp=base["parallelism.tp"],
        pp=base["parallelism.pp"],
        dp=base["parallelism.dp"],
    )
    scn, said = _calibrate(same, base)
    assert scn["throughput.mode"] == tm.fields.ThroughputMode.MEASURED
    step = scn["throughput.step_time_s"]
    assert step.ppf(0.5) == pytest.approx(2.4, rel=1e-12)
    assert step.ppf(0.975) - step.ppf(0.025) == pytest.approx(2 * 1.959963984540054 * 0.02, rel=1e-9)
    assert not any(m.startswith("the trials ran another configuration") for m in said)


def test_every_problem_at_once():
    with pytest.raises(tm.ScenarioError) as e:
        _summary(nodes=0, kind="lora", lora_rank=None, step_time_mean_s=-1.0, steps=1, precision="bf17")
    problems = e.value.problems
    assert len(problems) == 5, problems
    for path in ("instance.nodes", "training.lora_rank", "step_time_s.mean", "step_time_s.steps", "training.precision"):
        assert any(p.startswith(path + ":") for p in problems), path


def test_a_summary_is_calibrated_alone():
    with pytest.raises(tm.ScenarioError, match="calibrate a trial summary alone"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tm.JournalWarning)
            tm.calibrate([_summary(), tm.Journal.from_json(JOURNAL)], _target(16))


def test_the_file_form_round_trips_and_the_cli_takes_it(tmp_path):
    path = tmp_path / "trial.json"
    _summary().to_json(path)
    loaded = tm.TrialSummary.from_json(path)
    assert loaded.to_dict() == _summary().to_dict()
    assert json.loads(path.read_text())["schema"] == "trnmodel.trial-summary/1"
    _target(16).to_json(tmp_path / "target.json")
    cli = [sys.executable, "-m", "trnmodel"]
    ok = subprocess.run(cli + ["validate", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0 and f"{path}: valid" in ok.stdout
    out = tmp_path / "calibrated.json"
    run = subprocess.run(
        cli + ["calibrate", str(path), "--base", str(tmp_path / "target.json"), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "reference.step_time_s" in run.stdout and "treats the 225 steps as independent" in run.stderr
    assert tm.Scenario.from_json(out)["reference.nodes"] == 2
    # A duplicate key is refused by the strict reader, naming the file.
    path.write_text(path.read_text().replace('"nodes": 2', '"nodes": 2, "nodes": 3'))
    bad = subprocess.run(cli + ["validate", str(path)], capture_output=True, text=True)
    assert bad.returncode == 2 and str(path) in bad.stderr and "nodes" in bad.stderr


def test_journals_may_come_as_a_generator():
    """calibrate reads its journals once: a generator is not exhausted by the summary check."""
    base = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    journals = sorted((ROOT / "examples" / "journals").glob("llama3-8b-lora-trn2-trial-*.json"))
    scn, _ = _calibrate((tm.Journal.from_json(p) for p in journals), base)
    assert scn.calibration.inputs.loc["throughput.step_time_s", "n"] == 3
