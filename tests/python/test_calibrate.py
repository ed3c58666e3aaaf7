"""Trial-run journals, calibration and backtests from Python (docs/journal.md, docs/journal.md),
including the closed loop: journals produced by the simulator itself are calibrated,
re-simulated and backtested, and the PIT values of held-out runs must look uniform."""

import json
import pathlib
import re

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOURNALS = sorted((ROOT / "examples" / "journals").glob("llama3-8b-lora-trn2-trial-*.json"))
BASE = ROOT / "examples" / "llama3-8b-lora-trn2.json"


def example_dict(k=0):
    return json.loads(JOURNALS[k].read_text())


def test_examples_load_without_warnings():
    journals = [tm.Journal.from_json(p) for p in JOURNALS]  # a JournalWarning would fail here
    assert [j.experiment_id for j in journals] == [p.stem for p in JOURNALS]
    assert [len(j.step_times_s) for j in journals] == [600, 747, 600]
    summary = journals[1].summary()
    assert summary.loc["node failures", "value"] == 1
    assert summary.loc["steps completed", "value"] == 600
    steady = journals[1].steady_state()
    assert steady["steady_mean_s"] == pytest.approx(3.879, abs=5e-4)
    assert summary.loc["useful steps per billed node-hour", "value"] == pytest.approx(600 / 1.4464)
    assert "step 400" in summary.loc["checkpoints never restore-tested", "note"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.pop("billed"), "billed: required key is missing"),
        (lambda d: d["phases"].__setitem__("compile_s", -5), "phases.compile_s: must be ≥ 0, got -5"),
        (lambda d: d["phases"].__setitem__("compile_cache_hits", True), "(did you mean compile_cache_hit?)"),
        (
            lambda d: d["training"].__setitem__("steps_completed", 700),
            "training.steps_completed: must be ≤ training.effective_steps_planned (600), got 700",
        ),
        (
            lambda d: d["checkpoints"][1].__setitem__("at", "2026-11-17T09:00:00Z"),
            "checkpoints[1].at: must be later than the previous entry's at",
        ),
        (
            lambda d: d.__setitem__("ended_at", "2026-11-17T10:29:06"),
            "ended_at: must be an RFC 3339 timestamp with a time zone",
        ),
    ],
)
def test_bad_journals_name_the_field(mutate, message):
    d = example_dict()
    mutate(d)
    with pytest.raises(tm.ScenarioError) as e:
        tm.Journal.from_dict(d)
    assert message in str(e.value)


def test_usable_journal_warns():
    d = example_dict()
    d.pop("utilisation")
    with pytest.warns(tm.JournalWarning, match="utilisation: absent"):
        j = tm.Journal.from_dict(d)
    assert any("utilisation" in w for w in j.warnings)


def test_missing_file_and_non_utf8(tmp_path):
    with pytest.raises(tm.ScenarioError, match="no such journal file"):
        tm.Journal.from_json(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"schema": "\xff"}')
    with pytest.raises(tm.ScenarioError, match="not UTF-8"):
        tm.Journal.from_json(bad)


def test_calibrate_examples_tags_sources():
    base = tm.Scenario.from_json(BASE)
    journals = [tm.Journal.from_json(p) for p in JOURNALS]
    with pytest.warns(tm.JournalWarning) as caught:
        scn = tm.calibrate(journals, base)
    said = [str(w.message) for w in caught]
    assert any("fewer than 10 values: throughput.step_time_s" in m for m in said)
    # Two posteriors weigh more prior than trials: labelled as the prior (test_evidence.py).
    assert any(m.startswith("failures.node_mtbf_h: prior-dominated") for m in said)
    assert isinstance(scn, tm.Scenario)
    report = scn.calibration
    measured = report.inputs[report.inputs["status"] == "measured"]
    for path in measured.index:
        d = scn[path].to_dict()
        assert d["source"] == "measured", path
        assert report.inputs.loc[path, "experiments"] in d["note"] or path in ("compile.cache_hit_prob",)
    assert scn["throughput.step_time_s"].to_dict()["dist"] == "empirical"
    assert sorted(report.values("throughput.step_time_s")) == pytest.approx(
        sorted(report.steady_state["step_time_s"]), rel=1e-15
    )
    assert report.inputs.loc["failures.warmup_s", "status"] == "flagged"
    assert scn["failures.warmup_s"].to_dict()["source"] == "assumption"  # kept from the base
    assert "job.effective_steps" in report.unmeasured.index
    assert scn["job.effective_steps"].to_dict() == base["job.effective_steps"].to_dict()
    # Calibrated P50/P90 come back from the simulator like for any scenario.
    s = tm.simulate(scn, samples=4000, seed=1).summary()
    assert 0 < s.loc["wall_h", "p50"] < s.loc["wall_h", "p90"]


def test_calibrate_refuses_mixed_configurations():
    base = tm.Scenario.from_json(BASE)
    d = example_dict(2)
    d["training"]["tp"], d["training"]["dp"], d["training"]["gradient_accumulation"] = 8, 8, 8
    other = tm.Journal.from_dict(d, directory=JOURNALS[0].parent)
    with pytest.raises(tm.ScenarioError, match="training.tp: .* has 8, .* has 4"):
        tm.calibrate([JOURNALS[0], other], base)


# ---- the closed loop ------------------------------------------------------------------

STEPS, EVERY, SAVE_S, VERIFY_S, EVAL_S, FINAL_S = 300, 100, 10.0, 2.0, 30.0, 60.0
EPOCH = 1794903124.0  # 2026-11-17T08:12:04Z


def truth_scenario() -> tm.Scenario:
    """The 'real' process trials are drawn from: run-to-run variation in every phase."""
    return tm.Scenario.from_dict(
        {
            "schema": "trnmodel.scenario/1",
            "name": "closed-loop-truth",
            "job": {"kind": "lora", "effective_steps": STEPS},
            "cluster": {"nodes": 1},
            "throughput": {
                "step_time_s": tm.LogNormal.from_quantiles(p50=2.0, p90=2.4),
                "data_stall_fraction": tm.Beta(2, 40, lo=0, hi=0.99),
            },
            "startup": {
                "queue_wait_s": tm.LogNormal.from_quantiles(p50=600, p90=1800),
                "env_prep_s": tm.Gamma(shape=9, scale=35),
                "data_load_s": tm.Gamma(shape=4, scale=30),
            },
            "compile": {"initial_s": tm.LogNormal.from_quantiles(p50=900, p90=1200)},
            "checkpoint": {"every_steps": EVERY, "save_s": SAVE_S, "verify_s": VERIFY_S},
            "eval": {"every_steps": EVERY, "time_s": EVAL_S, "final_s": FINAL_S},
            "prices": {"node_hour_usd": 35.76},
        }
    )


def base_scenario() -> tm.Scenario:
    """What the team assumed before the trials: the same job with wrong, broad guesses."""
    return truth_scenario().updated(
        {
            "throughput.step_time_s": tm.PERT(1.0, 3.0, 6.0),
            "throughput.data_stall_fraction": tm.Uniform(0, 0.3),
            "startup.queue_wait_s": tm.PERT(0, 3600, 14400),
            "startup.env_prep_s": tm.PERT(60, 600, 1800),
            "startup.data_load_s": tm.PERT(10, 300, 900),
            "compile.initial_s": tm.PERT(300, 1800, 3600),
        }
    )


def simulated_journals(n: int, seed: int) -> list:
    """n journals, one per sample of the truth scenario: the simulator's own phases, a step
    series whose mean is the sample's t_eff, and the checkpoints and evaluations it implies."""
    r = tm.simulate(truth_scenario(), samples=n, seed=seed)
    out = []
    for i in range(n):
        m = {
            k: float(r[k][i])
            for k in ("queue_h", "setup_h", "compile_h", "warmup_h", "useful_h", "stall_h", "wall_h", "step_time_s")
        }
        stall = m["stall_h"] / (m["useful_h"] + m["stall_h"])
        t_eff = m["step_time_s"] / (1 - stall)
        series = t_eff * (1 + 0.01 * np.where(np.arange(STEPS) % 2 == 0, 1.0, -1.0))  # mean exactly t_eff
        marks = list(range(EVERY, STEPS + 1, EVERY))
        training_s = STEPS * t_eff + len(marks) * (SAVE_S + VERIFY_S + EVAL_S)
        start = EPOCH + 86400.0 * i
        wall_s = m["wall_h"] * 3600

        def stamp(s):
            return np.datetime_as_string(np.datetime64(int(round(s * 1000)), "ms"), unit="ms") + "Z"

        train_start = start + (m["queue_h"] + m["setup_h"] + m["compile_h"] + m["warmup_h"]) * 3600
        out.append(
            tm.Journal.from_dict(
                {
                    "schema": "trnmodel.journal/1",
                    "experiment_id": f"loop-{seed}-{i:03d}",
                    "notes": "SYNTHETIC: one sample of the closed-loop truth scenario",
                    "started_at": stamp(start),
                    "ended_at": stamp(start + wall_s),
                    "instance": {
                        "type": "trn2.48xlarge",
                        "nodes": 1,
                        "region": "us-east-2",
                        "purchase_option": "on_demand",
                    },
                    "versions": {"model": "m", "framework": "pytorch 2.9.0", "neuron_sdk": "2.31.0"},
                    "training": {
                        "kind": "lora",
                        "effective_steps_planned": STEPS,
                        "steps_completed": STEPS,
                        "global_batch": 64,
                        "micro_batch": 1,
                        "sequence_length": 4096,
                        "tp": 4,
                        "pp": 1,
                        "dp": 16,
                        "precision": "bf16",
                        "lora_rank": 16,
                    },
                    "phases": {
                        "queue_s": m["queue_h"] * 3600,
                        "setup_s": m["setup_h"] * 3600,
                        "compile_s": m["compile_h"] * 3600,
                        "compile_cache_hit": False,
                        "data_load_s": m["warmup_h"] * 3600,
                        "training_s": training_s,
                        "final_eval_s": FINAL_S,
                    },
                    "step_times": {"unit": "s", "values": series.tolist()},
                    "utilisation": {
                        "accelerator_busy_fraction": 0.95 - stall,
                        "data_wait_fraction": stall,
                        "sync_wait_fraction": 0.05,
                    },
                    "checkpoints": [
                        {
                            "step": s,
                            "at": stamp(train_start + s * t_eff + (k + 0.5) * (SAVE_S + VERIFY_S + EVAL_S)),
                            "save_s": SAVE_S,
                            "verify_s": VERIFY_S,
                            "size_gb": 0.6,
                            "checksum": "sha256:" + "0" * 64,
                            "location": "s3://loop/",
                            "restore_verified": True,
                        }
                        for k, s in enumerate(marks)
                    ],
                    "evaluations": [{"step": s, "time_s": EVAL_S} for s in marks],
                    "interruptions": [],
                    "billed": {"node_hours": (wall_s - m["queue_h"] * 3600) / 3600},
                    "quality": {
                        "metric": "eval_loss",
                        "better": "lower",
                        "target": 2.0,
                        "achieved": 1.9,
                        "passed": True,
                    },
                }
            )
        )
    return out


def test_simulated_journals_are_consistent():
    # The generator must produce journals the loader accepts without a single warning.
    journals = simulated_journals(5, seed=11)
    assert all(not j.warnings for j in journals)
    for j in journals:
        a = j.steady_state()
        assert a["segments"][0]["warmup_values"] == 0


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_closed_loop_pit_is_uniform(seed):
    """Calibrate from 60 simulated trials, then backtest 120 held-out ones: their wall-time
    PIT values must pass a Kolmogorov–Smirnov test of uniformity at the 1 % level, and the
    uncalibrated base, whose guesses are wrong, must fail it."""
    with pytest.warns(tm.JournalWarning, match="failures.node_mtbf_h: not calibrated: no node failure"):
        calibrated = tm.calibrate(simulated_journals(60, seed), base_scenario())
    report = calibrated.calibration
    assert report.inputs.loc["throughput.step_time_s", "status"] == "measured"
    assert report.inputs.loc["throughput.step_time_s", "method"].split()[0] in ("lognormal", "gamma")
    held_out = simulated_journals(120, seed + 1)
    bt = tm.backtest(calibrated, held_out, samples=4000, seed=seed)
    pit = bt.pit("wall_h")
    assert len(pit) == 120 and np.all((pit >= 0) & (pit <= 1))
    assert bt.uniformity("wall_h")["p_value"] > 0.01, bt.pit_histogram("wall_h")
    assert tm.backtest(base_scenario(), held_out, samples=4000, seed=seed).uniformity("wall_h")["p_value"] < 1e-6


def test_backtest_examples():
    with pytest.warns(tm.JournalWarning) as caught:
        scn = tm.calibrate(JOURNALS, tm.Scenario.from_json(BASE))
    assert any("fewer than 10 values" in str(w.message) for w in caught)
    bt = tm.backtest(scn, JOURNALS, samples=2000, seed=0)
    assert bt.experiments == [p.stem for p in JOURNALS]
    assert set(bt.table.index.get_level_values("metric")) >= {
        "wall_h",
        "node_h",
        "cost_compute_usd",
        "queue_h",
        "compile_h",
        "checkpoint_h",
        "eval_h",
    }
    hist = bt.pit_histogram(bins=5)
    assert hist["count"].sum() == 3
    assert any("cache" in n for n in bt.notes[JOURNALS[1].stem])
    with pytest.raises(tm.ScenarioError, match="samples: must be a whole number in"):
        tm.backtest(scn, JOURNALS[0], samples=10)


def run_cli(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "trnmodel", *args], capture_output=True, text=True)


def test_cli_calibrate_and_validate(tmp_path):
    out = tmp_path / "calibrated.json"
    r = run_cli("calibrate", *map(str, JOURNALS), "--base", str(BASE), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert re.search(r"throughput.step_time_s +measured", r.stdout) and "3.701, 3.782, 3.743" in r.stdout
    assert "failures.warmup_s: measured once" in r.stdout  # why it is flagged
    scn = tm.Scenario.from_json(out)
    assert scn["throughput.step_time_s"].to_dict()["source"] == "measured"
    assert "Calibrated from trial-run journals" in scn.to_dict()["description"]
    r = run_cli("validate", *map(str, JOURNALS), str(out))
    assert r.returncode == 0 and r.stdout.count(": valid") == 4
    bad = tmp_path / "bad.json"
    d = example_dict()
    d["phases"]["compile_s"] = -5
    bad.write_text(json.dumps(d))
    r = run_cli("validate", str(bad))
    assert r.returncode == 2
    assert r.stderr.strip() == f"{bad}: phases.compile_s: must be ≥ 0, got -5"
    r = run_cli("calibrate", str(JOURNALS[0]), str(bad), "--base", str(BASE))
    assert r.returncode == 2
    assert r.stderr.strip() == f"trnmodel: {bad}: phases.compile_s: must be ≥ 0, got -5"  # which file is wrong
