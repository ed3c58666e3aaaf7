"""A journal from what a log holds (python/trnmodel/_log_journal.py, docs/importing.md): the
fields a log cannot hold are listed as unknown, the computed ones as derived with their rule;
calibration measures what is known and lists what stayed assumed; validation lists every
problem at once."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
TENSORBOARD_RUN = ROOT / "examples" / "logs" / "llama3-8b-lora-trn2-trial-002-tensorboard"
TRIAL_002 = ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-002.json"
SCENARIO = ROOT / "examples" / "llama3-8b-lora-trn2.json"

# Trial 002's configuration, as its owner would state it beside the log.
STATED = dict(
    platform="trn2.48xlarge",
    nodes=1,
    kind="lora",
    model="meta-llama/Meta-Llama-3-8B",
    global_batch=64,
    micro_batch=1,
    sequence_length=4096,
    tp=4,
    pp=1,
    dp=16,
    precision="bf16",
    lora_rank=16,
    steps_planned=600,
)


# What a log never holds, and the loader warns about once each: no utilisation, no quality.
ABSENT = [
    "utilisation: absent, so the data-loader stall cannot be calibrated",
    "quality: absent, so the quality outcome is unknown",
]


def _journal(log, **stated):
    """The log's journal; the loader's warnings are exactly the two a log always gives."""
    with pytest.warns(tm.JournalWarning) as caught:
        journal = tm.Journal.from_log(log, **{**STATED, **stated})
    assert [str(w.message).split(": ", 1)[1] for w in caught] == ABSENT
    assert journal.warnings == ABSENT
    return journal


def _calibrate(journal):
    with pytest.warns(tm.JournalWarning):
        return tm.calibrate(journal, tm.Scenario.from_json(SCENARIO))


def _tensorboard_journal():
    pytest.importorskip("tensorboard")
    return _journal(tm.read_log(TENSORBOARD_RUN), experiment_id="trial-002-from-tensorboard")


def test_a_tensorboard_run_becomes_a_journal_with_its_unknowns_listed():
    journal = _tensorboard_journal()
    truth = tm.Journal.from_json(TRIAL_002)
    d = journal.to_dict()
    # What the log holds: the steps, the restart, the clock.
    assert d["training"]["steps_completed"] == 600
    (x,) = d["interruptions"]
    assert (x["step"], x["restored_from_step"], x["redone_steps"]) == (347, 200, 147)
    assert "cause" not in x and "interruptions[].cause" in journal.unknown
    # Every executed step has a value, and each equals the trial's own but each part's first
    # (the time before a part's first logged step is the start's or the restart's: taken as the next).
    got, want = journal.step_times_s, truth.step_times_s
    assert len(got) == len(want) == 747
    same = np.ones(len(want), dtype=bool)
    same[[0, 347]] = False
    np.testing.assert_allclose(got[same], want[same], rtol=1e-6)
    # What it cannot hold is listed with the reason, never filled in.
    for path in ("phases.queue_s", "phases.setup_s", "phases.data_load_s", "checkpoints", "billed"):
        assert path in journal.unknown and journal.unknown[path]
    assert "checkpoints" not in d and "billed" not in d
    # The start-up before the first step is one number, by the first-step rule.
    before = d["phases"]["before_first_step_s"]
    t = truth.to_dict()["phases"]
    # The log starts at the script's start (the set-up's end): data load and compile before step 1.
    assert before == pytest.approx(t["compile_s"] + t["data_load_s"], abs=5.0)
    assert "phases.before_first_step_s" in journal.derived
    assert "unsplit" in journal.derived["phases.before_first_step_s"]


def test_calibration_measures_what_the_log_holds_and_says_what_stayed_assumed():
    journal = _tensorboard_journal()
    scn = _calibrate(journal)
    report = scn.calibration
    assumed = "\n".join(report.stayed_assumed)
    for line in (
        "startup.queue_wait_s: trial-002-from-tensorboard did not record phases.queue_s",
        "checkpoint.save_s: trial-002-from-tensorboard did not record checkpoints",
        "failures.node_mtbf_h: trial-002-from-tensorboard did not record interruptions[].cause",
        "failures.restart_s: trial-002-from-tensorboard did not record interruptions[].detection_s",
    ):
        assert line in assumed
    assert "throughput.step_time_s" in report.inputs.index
    assert not any(p.startswith(("startup.", "checkpoint.")) for p in report.inputs.index)
    assert "Stayed assumed (not in the trials' records): startup.queue_wait_s" in scn.to_dict()["description"]


def _csv_log(tmp_path, first_s, steady_s=1.9, steps=200):
    rng = np.random.default_rng(5)
    times = steady_s * (1 + 0.02 * rng.standard_normal(steps))
    times[0] = first_s
    path = tmp_path / "steps.csv"
    path.write_text("step,step_time_s\n" + "".join(f"{k + 1},{t:.6f}\n" for k, t in enumerate(times)))
    return tm.read_log(path), times


def test_a_first_step_far_above_the_steady_one_is_split_into_a_compile(tmp_path):
    log, times = _csv_log(tmp_path, first_s=2431.0)
    journal = _journal(log, steps_planned=200)
    d = journal.to_dict()
    assert d["phases"]["compile_s"] == pytest.approx(2431.0 - times[1], rel=1e-6)
    assert d["phases"]["compile_cache_hit"] is False
    assert "the graphs' compile" in journal.derived["phases.compile_s"]
    assert journal.step_times_s[0] == pytest.approx(times[1], rel=1e-6)
    assert "phases.compile_s" not in journal.unknown
    # Calibration then measures the compile (once: the base is kept and the value cited).
    report = _calibrate(journal).calibration
    assert report.inputs.loc["compile.initial_s", "n"] == 1


def test_a_first_step_near_the_steady_one_stays_a_step(tmp_path):
    log, times = _csv_log(tmp_path, first_s=5.0)  # 2.6 × the steady step: warm-up, not a compile
    journal = _journal(log, steps_planned=200)
    assert "compile_s" not in journal.to_dict()["phases"]
    assert "phases.compile_s" in journal.unknown
    assert journal.step_times_s[0] == pytest.approx(5.0)


def test_a_journal_lists_every_problem_at_once():
    doc = json.loads(TRIAL_002.read_text())
    doc["instance"]["nodes"] = 0
    doc["phases"]["queue_s"] = -1
    del doc["billed"]
    with pytest.raises(tm.ScenarioError) as caught:
        tm.Journal.from_dict(doc, directory=TRIAL_002.parent)
    problems = caught.value.problems
    assert len(problems) == 3
    assert problems[0].startswith("instance.nodes: ")
    assert problems[1] == "phases.queue_s: must be ≥ 0, got -1"
    assert problems[2] == "billed: required key is missing"
    assert str(caught.value).startswith("3 problems:\n  instance.nodes")


def test_a_scenario_lists_every_problem_at_once_and_one_error_keeps_its_message():
    doc = json.loads(SCENARIO.read_text())
    doc["cluster"]["nodes"] = -2
    doc["job"]["kind"] = "lorra"
    with pytest.raises(tm.ScenarioError) as caught:
        tm.Scenario.from_dict(doc)
    # In the document's order (job comes before cluster in the example).
    assert [p.split(":")[0] for p in caught.value.problems] == ["job.kind", "cluster.nodes"]
    doc["job"]["kind"] = "lora"
    with pytest.raises(tm.ScenarioError) as one:
        tm.Scenario.from_dict(doc)
    assert one.value.problems == [str(one.value)]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "trnmodel", *args], capture_output=True, text=True)


def test_the_cli_writes_the_journal_and_refuses_missing_arguments_all_at_once(tmp_path):
    pytest.importorskip("tensorboard")
    out = tmp_path / "trial.json"
    missing = _cli("import", "tensorboard", str(TENSORBOARD_RUN), "-o", str(out), "--nodes", "1")
    assert missing.returncode != 0
    assert "missing: --platform, --job-kind, --model, --global-batch, --micro-batch" in missing.stderr
    flags = [
        "--platform=trn2.48xlarge",
        "--nodes=1",
        "--job-kind=lora",
        "--model=meta-llama/Meta-Llama-3-8B",
        "--global-batch=64",
        "--micro-batch=1",
        "--seq-len=4096",
        "--tp=4",
        "--pp=1",
        "--dp=16",
        "--precision=bf16",
        "--lora-rank=16",
    ]
    done = _cli("import", "tensorboard", str(TENSORBOARD_RUN), "-o", str(out), *flags)
    assert done.returncode == 0, done.stderr
    assert "not recorded (unknown): " in done.stdout
    with pytest.warns(tm.JournalWarning):
        journal = tm.Journal.from_json(out)
    assert journal.experiment_id == "llama3-8b-lora-trn2-trial-002-tensorboard"
    assert "billed" in journal.unknown
    bad = tmp_path / "bad.json"
    doc = json.loads(out.read_text())
    doc["unknown"]["instance.type"] = "not stated"
    doc["training"]["tp"] = 0
    bad.write_text(json.dumps(doc))
    checked = _cli("validate", str(bad))
    assert checked.returncode == 2
    assert "2 problems:" in checked.stderr
    assert "unknown.instance.type: cannot be unknown" in checked.stderr
    assert "training.tp: must be" in checked.stderr
