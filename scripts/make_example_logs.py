"""Writes the step times of the synthetic trial 002 (examples/journals/llama3-8b-lora-trn2-trial-002
and its -steps.csv) as its training logs would hold them: examples/logs/llama3-8b-lora-trn2-trial-002.log
as an NxD training script prints them (`step N step_time Xs throughput Y seq/s`, global batch 64),
and examples/logs/llama3-8b-lora-trn2-trial-002-tensorboard/, a TensorBoard run of two event files
(the first process, and the one relaunched after the failure at step 347), the loss logged at
every step on a clock that runs from the journal's phases. Synthetic like the journal;
`tm.read_log` reads both back to the journal's values (tests/python/test_logs.py, notebook 05).

It also writes examples/logs/llama3-70b-cpt-trn2-2node-tensorboard/: the TensorBoard run of a
2-node Llama-3-70B continued pre-training trial (tp 8, dp 4, global batch 16, sequence 8,192),
drawn from a stated truth: a 40-minute compile inside the first step, a warm-up, a steady step
of 9.2 s (sd 0.25 s), a failure after step 460 and a restart from the step-400 checkpoint, 600
steps in all. The README's five lines start from it (tests/python/test_readme_trial.py).

    python scripts/make_example_logs.py"""

from __future__ import annotations

import csv
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
STEPS = ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-002-steps.csv"
TARGET = ROOT / "examples" / "logs" / "llama3-8b-lora-trn2-trial-002.log"
JOURNAL = ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-002.json"
TENSORBOARD = ROOT / "examples" / "logs" / "llama3-8b-lora-trn2-trial-002-tensorboard"
GLOBAL_BATCH = 64


def render() -> str:
    lines = [
        "# Synthetic: trial 002 of examples/journals (its step times), printed as NxD prints them.",
        "Neuron compiler cache: /var/tmp/neuron-compile-cache",
        "Loading base weights meta-llama/Meta-Llama-3-8B ...",
    ]
    with STEPS.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            step, seconds = int(row["step"]), float(row["step_time_s"])
            lines.append(f"step {step} step_time {seconds:.4f}s throughput {GLOBAL_BATCH / seconds:.2f} seq/s")
            if step % 250 == 0:
                lines.append(f"saving checkpoint at step {step}")
    lines.append("training done")
    return "\n".join(lines) + "\n"


def _seconds(stamp: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def write_tensorboard() -> None:
    """Two event files written record by record with TensorBoard's own RecordWriter (fixed file
    names, so that the files are the same at every run): a file_version event when the process
    opened it, then train/loss at every step on the clock."""
    import json

    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.record_writer import RecordWriter

    journal = json.loads(JOURNAL.read_text(encoding="utf-8"))
    phases, stop = journal["phases"], journal["interruptions"][0]
    with STEPS.open(newline="", encoding="utf-8") as f:
        rows = [(int(r["step"]), float(r["step_time_s"])) for r in csv.DictReader(f)]
    restart = next(i for i in range(1, len(rows)) if rows[i][0] <= rows[i - 1][0])
    opened = _seconds(journal["started_at"]) + phases["queue_s"] + phases["setup_s"]
    first_step_at = opened + phases["compile_s"] + phases["data_load_s"]
    relaunched = _seconds(stop["at"]) + stop["detection_s"] + stop["restart_s"]
    parts = [
        (opened, first_step_at, rows[:restart]),
        (relaunched, relaunched + stop["compile_s"] + stop["load_s"], rows[restart:]),
    ]
    if TENSORBOARD.exists():
        for old in TENSORBOARD.iterdir():
            old.unlink()
    TENSORBOARD.mkdir(parents=True, exist_ok=True)
    for k, (open_at, clock, part_rows) in enumerate(parts):
        name = f"events.out.tfevents.{int(open_at)}.trial-002.{k}"
        with (TENSORBOARD / name).open("wb") as f:
            writer = RecordWriter(f)
            writer.write(event_pb2.Event(wall_time=open_at, file_version="brain.Event:2").SerializeToString())
            for step, seconds in part_rows:
                clock += seconds
                value = summary_pb2.Summary.Value(tag="train/loss", simple_value=2.0)
                event = event_pb2.Event(wall_time=clock, step=step, summary=summary_pb2.Summary(value=[value]))
                writer.write(event.SerializeToString())
            writer.close()


TRIAL_70B = ROOT / "examples" / "logs" / "llama3-70b-cpt-trn2-2node-tensorboard"
TRIAL_70B_START = 1_796_000_000.0  # 2026-11-30T00:53:20Z, the training script's start


def write_trial_70b() -> None:
    """The 2-node trial's two processes, each an event file written record by record (fixed
    names, so the files are the same at every run), train/loss at every step."""
    import numpy as np
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.record_writer import RecordWriter

    rng = np.random.default_rng(70)
    steady_s, sd_s, load_s, compile_s = 9.2, 0.25, 310.0, 2400.0
    parts = [(TRIAL_70B_START, range(1, 461)), (None, range(401, 601))]
    if TRIAL_70B.exists():
        for old in TRIAL_70B.iterdir():
            old.unlink()
    TRIAL_70B.mkdir(parents=True, exist_ok=True)
    clock = TRIAL_70B_START
    for k, (opened, steps) in enumerate(parts):
        if opened is None:  # the relaunch: detection, a new node, the process starting again
            opened = clock + 900.0
        clock = opened + load_s  # weights and data (and, after the restart, the checkpoint)
        name = f"events.out.tfevents.{int(opened)}.trn2-trial-70b.{k}"
        with (TRIAL_70B / name).open("wb") as f:
            writer = RecordWriter(f)
            writer.write(event_pb2.Event(wall_time=opened, file_version="brain.Event:2").SerializeToString())
            for i, step in enumerate(steps):
                seconds = steady_s + 6.0 * np.exp(-i / 8) + rng.normal(0, sd_s)
                if i == 0:
                    seconds += compile_s if k == 0 else 95.0  # a compile, then the cache's load
                clock += seconds
                value = summary_pb2.Summary.Value(tag="train/loss", simple_value=float(2.1 - 1e-4 * step))
                event = event_pb2.Event(wall_time=clock, step=step, summary=summary_pb2.Summary(value=[value]))
                writer.write(event.SerializeToString())
            writer.close()


if __name__ == "__main__":
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
    write_tensorboard()
    write_trial_70b()
