"""A small trial becomes the reference: trials of another configuration than the scenario's are
not calibrated as its step time (which they are not) but fill reference.* of extrapolated mode,
with the spread of the mean as the reference's uncertainty and a warning naming each difference;
the extrapolated step time is then the step-time model's ratio times the trials' mean."""

import glob
import math
import pathlib
import warnings

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOURNALS = sorted(glob.glob(str(ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-*.json")))
CONFIG = ROOT / "examples" / "configs" / "llama3-8b.json"


def _target(nodes=2):
    """The trials' job on `nodes` trn2.48xlarge, built as a new user would (analytic mode)."""
    return tm.Scenario.new(CONFIG, "trn2.48xlarge", kind="lora", tokens="786M", nodes=nodes, node_hour_usd=35.76)


def _calibrate(base):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", tm.JournalWarning)
        scn = tm.calibrate([tm.Journal.from_json(p) for p in JOURNALS], base)
    return scn, [str(w.message) for w in caught]


def test_trials_of_another_configuration_fill_the_reference():
    base = _target(nodes=2)
    scn, said = _calibrate(base)
    journals = [tm.Journal.from_json(p) for p in JOURNALS]
    trial = journals[0].to_dict()
    training, instance = trial["training"], trial["instance"]
    assert scn["throughput.mode"] == tm.fields.ThroughputMode.EXTRAPOLATED
    assert scn["reference.nodes"] == 1 and scn["cluster.nodes"] == 2
    for key in ("pp", "micro_batch", "global_batch", "sequence_length"):
        assert scn[f"reference.{key}"] == training[key], key
    # The journal counts ranks (64 logical NeuronCores on 16 chips): its tp-4 groups are one chip each.
    per_chip = instance["ranks_per_node"] // instance["chips_per_node"]
    assert (training["tp"], per_chip) == (4, 4)
    assert scn["reference.tp"] == training["tp"] // per_chip and scn["reference.dp"] == training["dp"]
    # The reference's uncertainty is the standard error of the runs' mean, not the steps' spread.
    steady = np.array([j.steady_state()["step_time_s"] for j in journals])
    ref = scn["reference.step_time_s"].to_dict()
    assert ref["dist"] == "normal" and ref["source"] == "measured"
    assert ref["mean"] == pytest.approx(steady.mean(), rel=1e-12)
    assert ref["sd"] == pytest.approx(steady.std(ddof=1) / math.sqrt(len(steady)), rel=1e-12)
    assert "throughput.step_time_s" not in scn.calibration.inputs.index
    differences = next(m for m in said if m.startswith("the trials ran another configuration"))
    assert "nodes 1 → 2" in differences and "64 ranks on 16 chips (4 a chip)" in differences
    assert scn.calibration.inputs.loc["reference.step_time_s", "status"] == "measured"


def test_the_extrapolated_step_time_is_the_models_ratio_times_the_trials_mean():
    scn, _ = _calibrate(_target(nodes=2))
    mean = scn["reference.step_time_s"].to_dict()["mean"]
    # The model's ratio, from the same scenario extrapolating a reference of exactly 1 s; the
    # extrapolation error's median is 1, so the medians compare.
    unit = scn.updated({"reference.step_time_s": 1.0})
    ratio = float(np.median(tm.simulate(unit, samples=20_000, seed=3, allow_unknown=True)["step_time_s"]))
    extrapolated = float(np.median(tm.simulate(scn, samples=20_000, seed=3, allow_unknown=True)["step_time_s"]))
    assert extrapolated == pytest.approx(ratio * mean, rel=0.02)
    # One node more than the trials: each step is no slower than the trials' (same global batch).
    assert ratio < 1.05


def test_the_same_configuration_is_still_the_step_time_itself():
    """Trials of the scenario's own configuration calibrate its step time, as before."""
    base = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    scn, said = _calibrate(base)
    assert scn["throughput.mode"] == tm.fields.ThroughputMode.MEASURED
    assert scn.calibration.inputs.loc["throughput.step_time_s", "status"] == "measured"
    assert not any(m.startswith("the trials ran another configuration") for m in said)


def test_a_scenario_that_cannot_extrapolate_is_refused_with_the_rule():
    """A measured-mode scenario without the model's shape cannot take a reference."""
    base = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json").updated({"cluster.nodes": 2})
    with pytest.raises(tm.ScenarioError, match=r"the trials ran another configuration \(nodes 1 → 2\)"):
        _calibrate(base)


def test_the_signoff_shows_the_step_time_measured_there_and_extrapolated_here():
    scn, _ = _calibrate(_target(nodes=2))
    klass, detail = tm._evidence.step_time_evidence(scn)
    assert klass == "extrapolated"
    assert detail.startswith("measured at 1 node(s) (llama3-8b-lora-trn2-trial-001, ")
    assert "extrapolated by the step-time model to 2 node(s) of trn2.48xlarge" in detail
    p5 = tm.Scenario.new(CONFIG, "p5.48xlarge", kind="lora", tokens="786M", nodes=2, node_hour_usd=55.04)
    said = tm._evidence.unequal_evidence("trn2", scn, "p5", p5)
    assert "trn2's step time is extrapolated (measured at 1 node(s)" in said and "p5's is a model estimate" in said
