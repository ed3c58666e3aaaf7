"""The calls a user waits for, in units of one 100k-sample ``tm.simulate`` of the same scenario
(a ratio that holds on any machine, and on a loaded one better than seconds do).

Measured in one process, after one untimed warm-up of each call (so quantile tables are
built, as in any session after the first call), best of ``--repeats``:

* unit: ``tm.simulate(LoRA trn2, samples=100_000)`` (default threads);
* the sign-off of ``make run``: ``tm.report(LoRA trn2, LoRA p5)`` written to HTML (two
  100k-sample simulations, drivers, Sobol, the comparison, a break-even, the figures);
* ``tm.checkpoint_interval(LoRA trn2)`` (its defaults: 20,000 samples per point);
* ``tm.compare(LoRA trn2, LoRA p5, samples=20_000).break_even("prices.node_hour_usd")``;
* ``tm.search_parallelism(samples=500)`` on the 70B Trn2 example with its step time
  extrapolated from a 2-node trial (built as tests/python/test_extrapolation.py builds it), in
  units of a 100k simulate of that scenario.

Run:  .venv/bin/python bench/bench_user_calls.py [--repeats 3]
Prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

import trnmodel as tm

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _best(f, repeats: int) -> float:
    f()  # warm-up: tables built, imports done
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        f()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lora = tm.Scenario.from_json(str(EXAMPLES / "llama3-8b-lora-trn2.json"))
    p5 = tm.Scenario.from_json(str(EXAMPLES / "llama3-8b-lora-p5.json"))
    sys.path.insert(0, str(EXAMPLES.parent / "tests" / "python"))
    from test_extrapolation import LLAMA70B, extrapolated_from_two_nodes

    trn2 = tm.Scenario.from_json(str(EXAMPLES / "llama3-70b-full-trn2x16.json")).updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 8}
    )
    big = extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1})
    out = pathlib.Path(tempfile.mkdtemp()) / "signoff.html"

    def unit(s: tm.Scenario):
        return lambda: tm.simulate(s, samples=100_000, seed=0, progress=False)

    rows = []
    unit_lora = _best(unit(lora), args.repeats)
    unit_big = _best(unit(big), args.repeats)
    calls = [
        ("sign-off (`make run`)", lambda: tm.report(lora, p5, path=str(out)), unit_lora, 8),
        ("`checkpoint_interval`", lambda: tm.checkpoint_interval(lora, progress=False), unit_lora, 10),
        (
            "`break_even`",
            lambda: tm.compare(lora, p5, samples=20_000, progress=False).break_even("prices.node_hour_usd"),
            unit_lora,
            6,
        ),
        (
            "`search_parallelism(samples=500)`, 70B Trn2 extrapolated",
            lambda: tm.search_parallelism(big, samples=500),
            unit_big,
            15,
        ),
    ]
    for name, call, unit_s, target in calls:
        seconds = _best(call, args.repeats)
        rows.append((name, seconds, seconds / unit_s, target))
    print(
        f"unit: 100k-sample simulate, LoRA trn2 {unit_lora:.3f} s, 70B trn2x16 {unit_big:.3f} s "
        f"(threads {os.cpu_count()}, ISA cap {os.environ.get('TRNMODEL_ISA', 'none')})\n"
    )
    print("| call | seconds | in 100k simulates | target |\n|---|---|---|---|")
    for name, seconds, units, target in rows:
        print(f"| {name} | {seconds:.3f} | {units:.1f} | ≤ {target} |")


if __name__ == "__main__":
    main()
