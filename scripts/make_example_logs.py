"""Writes examples/logs/llama3-8b-lora-trn2-trial-002.log: the step times of the synthetic trial
002 (examples/journals/llama3-8b-lora-trn2-trial-002-steps.csv) as an NxD training script prints
them (`step N step_time Xs throughput Y seq/s`, global batch 64), among the other lines such a log
holds. Synthetic like the journal it comes from; `tm.read_log` reads it back to the journal's values
(tests/python/test_logs.py).

    python scripts/make_example_logs.py"""

from __future__ import annotations

import csv
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
STEPS = ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-002-steps.csv"
TARGET = ROOT / "examples" / "logs" / "llama3-8b-lora-trn2-trial-002.log"
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


if __name__ == "__main__":
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
