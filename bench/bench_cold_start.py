"""Cold start: the cost of a freshly loaded scenario, of an ``updated()`` copy and of a reloaded
scenario, beside a warm run (20,000 samples of the LoRA Trn2 example, one thread).

Run it under two builds to compare them side by side (docs/benchmarks.md, "The calls a user
waits for"): ``python bench/bench_cold_start.py`` with each build's interpreter, alternating.
"""

from __future__ import annotations

import pathlib
import time

import trnmodel as tm

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "llama3-8b-lora-trn2.json"


def _timed(f) -> float:
    started = time.perf_counter()
    f()
    return time.perf_counter() - started


def main() -> None:
    scn = tm.Scenario.from_json(str(EXAMPLE))

    def run(s: tm.Scenario, samples: int = 20_000) -> None:
        tm.simulate(s, samples=samples, seed=0, threads=1, progress=False)

    first = _timed(lambda: run(scn))
    warm = _timed(lambda: run(scn))
    copy = _timed(lambda: run(scn.updated({"checkpoint.every_steps": 250})))
    reloaded = _timed(lambda: run(tm.Scenario.from_json(str(EXAMPLE)), samples=1))
    print(f"first {first:.3f} s, warm {warm:.3f} s, updated copy {copy:.3f} s, reloaded 1-sample {reloaded:.4f} s")


if __name__ == "__main__":
    main()
