"""The sign-off's computations by part: each run the budget sign-off of ``make run`` makes
(LoRA Trn2 against LoRA p5, its default sizes), timed alone, wall time and process CPU time.

The sign-off runs these on two threads of its own at once, so its wall time is bounded by their
CPU time over the cores (docs/benchmarks.md, "The sign-off's computations, again"). Each call is
timed after one untimed warm-up, best of ``--repeats`` (wall and CPU from the same repeat).

Run:  .venv/bin/python bench/bench_signoff_parts.py [--repeats 5]
Prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time
from concurrent.futures import Future

import trnmodel as tm
from trnmodel import _decision_page, _sensitivity

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _best(f, repeats: int) -> tuple:
    f()
    best = (float("inf"), float("inf"))
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        f()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    a = tm.Scenario.from_json(str(EXAMPLES / "llama3-8b-lora-trn2.json"))
    b = tm.Scenario.from_json(str(EXAMPLES / "llama3-8b-lora-p5.json"))
    n, seed = 100_000, 0
    ra = tm.simulate(a, samples=n, seed=seed, progress=False)
    rb = tm.simulate(b, samples=n, seed=seed, progress=False)
    simulated: Future = Future()
    simulated.set_result({"a": ra, "b": rb})
    cmp = _sensitivity._comparison_of_results(ra, rb)
    calls = [
        ("`simulate`, 10⁵ samples (the unit)", lambda: tm.simulate(a, samples=n, seed=seed, progress=False)),
        (
            "`summary()` of a fresh kept result (less the simulate above)",
            lambda: tm.simulate(a, samples=n, seed=seed, progress=False)._core.summary(),
        ),
        ("`tornado`, 10⁴ samples", lambda: tm.tornado(a, samples=10_000, seed=seed, progress=False)),
        ("`sobol`, N = 2^11", lambda: tm.sobol(a, base_samples=2**11, seed=seed, progress=False)),
        (
            "pairing check, side B (side A from the kept simulation)",
            lambda: _sensitivity._partly_paired(
                a,
                b,
                ["run_cost_usd", "wall_h"],
                n,
                seed,
                known_a={"run_cost_usd": ra["run_cost_usd"], "wall_h": ra["wall_h"]},
            ),
        ),
        ("break-even on `prices.node_hour_usd`", lambda: cmp.break_even("prices.node_hour_usd")),
        (
            "decision runs (Sobol of total cost for both, payback)",
            lambda: _decision_page.decision_runs(
                {"a": a, "b": b},
                None,
                samples=n,
                sobol_base_samples=2**11,
                seed=seed,
                threads=None,
                progress=None,
                results=simulated,
            ),
        ),
    ]
    rows = [(name, *_best(f, args.repeats)) for name, f in calls]
    unit_wall, unit_cpu = rows[0][1], rows[0][2]
    rows[1] = (rows[1][0], rows[1][1] - unit_wall, rows[1][2] - unit_cpu)
    load = os.getloadavg()[0]
    print(f"threads {os.cpu_count()}, load average {load:.2f}, best of {args.repeats}\n")
    print("| call | wall (ms) | process CPU (ms) |\n|---|---:|---:|")
    for name, wall, cpu in rows:
        print(f"| {name} | {wall * 1e3:.1f} | {cpu * 1e3:.1f} |")


if __name__ == "__main__":
    main()
