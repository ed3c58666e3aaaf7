"""Benchmark: exact quantiles of kept samples, trnmodel's order statistics against NumPy, in one run.

Measured on one kept run of the LoRA Trn2 example (every metric, ``--samples`` samples):

* the summary's five quantiles (P10, P50, P80, P90, P99) of every output: trnmodel's
  ``result.quantile(q, outputs)`` (order statistics, the outputs in parallel) on 1 and 2 threads,
  against ``numpy.quantile`` of each output's non-NaN values (what a user holding the array
  would write; NumPy's default method is the same type 7), one column after another;
* two quantiles of one output (P50 and P99.9 of the wall time, what ``tm.simulate`` checks for
  an implausible tail): ``result.quantile([0.5, 0.999], "wall_h")`` against ``numpy.quantile``.

Both sides give the same values, bit for bit (checked here before timing). Best of
``--repeats`` after a warm-up, the machine's load recorded.

Run:  .venv/bin/python bench/bench_quantiles.py [--samples 1000000] [--repeats 5]

Prints Markdown. Only numpy and trnmodel are needed.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time
import warnings

import numpy as np

import trnmodel as tm
from _machine import OtherLoad, build_id, machine_lines, wait_for_quiet  # bench/ is the script's own folder

ROOT = pathlib.Path(__file__).resolve().parents[1]
SUMMARY_Q = [0.1, 0.5, 0.8, 0.9, 0.99]


def _best(f, repeats: int) -> float:
    f()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def _numpy_quantiles(columns, q):
    return [np.quantile(c[~np.isnan(c)], q) if not np.isnan(c).all() else np.full(len(q), np.nan) for c in columns]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    scenario = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    result = tm.simulate(scenario, samples=args.samples, seed=0, progress=False)
    names = result.outputs
    columns = [np.asarray(result[name]) for name in names]

    # The same values on both sides, bit for bit, before anything is timed.
    ours = result.quantile(SUMMARY_Q, names).to_numpy()
    np.testing.assert_array_equal(ours, np.array(_numpy_quantiles(columns, SUMMARY_Q)))
    wall = np.asarray(result["wall_h"])
    np.testing.assert_array_equal(result.quantile([0.5, 0.999], "wall_h"), np.quantile(wall, [0.5, 0.999]))

    print("# Exact quantiles of kept samples: trnmodel against NumPy\n")
    print(f"command: `.venv/bin/python bench/bench_quantiles.py --samples {args.samples} --repeats {args.repeats}`\n")
    for line in machine_lines() + [f"trnmodel build: {build_id()}"]:
        print(f"- {line}")
    print(f"- {args.samples:,} kept samples of llama3-8b-lora-trn2, {len(names)} outputs; best of {args.repeats}")
    busy = wait_for_quiet(20)
    print(f"- other processes before the timings: {busy if busy is not None else float('nan'):.2f} cores busy\n")

    load = OtherLoad()
    core = result._core
    rows = [
        (
            f"the summary's 5 quantiles of all {len(names)} outputs",
            _best(lambda: _numpy_quantiles(columns, SUMMARY_Q), args.repeats),
            _best(lambda: core.quantiles_of(names, SUMMARY_Q, threads=1), args.repeats),
            _best(lambda: core.quantiles_of(names, SUMMARY_Q, threads=2), args.repeats),
        ),
        (
            "P50 and P99.9 of wall_h",
            _best(lambda: np.quantile(wall, [0.5, 0.999]), args.repeats),
            _best(lambda: core.quantiles("wall_h", [0.5, 0.999]), args.repeats),
            None,
        ),
    ]
    other = load.cores()
    print(f"Other processes used {other if other is not None else float('nan'):.2f} cores on average while timed.\n")
    print("| quantiles | NumPy (s) | tm, 1 thread (s) | tm, 2 threads (s) | speed-up, 1 thread | speed-up, 2 threads |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, numpy_s, one_s, two_s in rows:
        two = f"{two_s:.4f}" if two_s is not None else "—"
        two_ratio = f"{numpy_s / two_s:.1f}×" if two_s is not None else "—"
        print(f"| {name} | {numpy_s:.4f} | {one_s:.4f} | {two} | {numpy_s / one_s:.1f}× | {two_ratio} |")
    print(f"\nload average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
