"""The pricer of docs/cpp.md, in Python: every number the C++ pricer printed (its output file is
the first argument) must be bitwise the number the same call gives here; likewise the numbers
of the header-only consumer's what-if searches (its output file, the optional second argument)."""

from __future__ import annotations

import math
import struct
import sys
import warnings
from pathlib import Path
from typing import Optional

import trnmodel as tm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def job() -> tm.Scenario:
    return tm.Scenario.from_json(EXAMPLES / "llama3-8b-lora-trn2.json").updated(
        {
            "throughput.mode": "flops",
            "throughput.step_time_s": None,
            "throughput.model_flops_utilization": {"dist": "pert", "lo": 0.17, "mode": 0.25, "hi": 0.37},
            "model.parameters": 8.03e9,
            "model.sequence_length": 4096,
            "parallelism.global_batch": 64,
            "parallelism.dp": 16,
        }
    )


def expected() -> dict:
    warnings.simplefilter("ignore")  # the example's completeness notes are not under test here
    base = job()
    trn2 = base.updated({"prices.node_hour_usd": 35.76})
    p5 = base.updated({"cluster.platform": "p5.48xlarge", "parallelism.dp": 8, "prices.node_hour_usd": 55.04})
    run = tm.simulate(trn2, samples=20_000, seed=1, progress=False)
    s = run.summary()
    streamed = tm.simulate(trn2, samples=20_000, seed=1, keep_samples=False, progress=False).summary()
    c = tm.compare(trn2, p5, "run_cost_usd", samples=20_000, seed=1, progress=False)
    cs = c.summary()
    unquoted = trn2.updated({"prices.node_hour_usd": {"unknown": "not quoted yet"}})
    partial = tm.simulate(unquoted, samples=20_000, seed=1, allow_unknown=True, progress=False)
    return {
        "trn2.wall_h.p50": s.loc["wall_h", "p50"],
        "trn2.wall_h.p90": s.loc["wall_h", "p90"],
        "trn2.run_cost_usd.p50": s.loc["run_cost_usd", "p50"],
        "trn2.run_cost_usd.p90": s.loc["run_cost_usd", "p90"],
        "trn2.run_cost_usd.mean": s.loc["run_cost_usd", "mean"],
        "trn2.step_time_s.mean": s.loc["step_time_s", "mean"],
        "trn2.streamed.run_cost_usd.p90": streamed.loc["run_cost_usd", "p90"],
        "trn2.streamed.run_cost_usd.mean": streamed.loc["run_cost_usd", "mean"],
        "compare.p_a_less_b": c.p_a_less_b,
        "compare.difference.mean": cs.loc["difference", "mean"],
        "compare.difference.p50": cs.loc["difference", "p50"],
        "compare.b.p90": cs.loc["b", "p90"],
        "break_even.value": c.break_even("prices.node_hour_usd", "mean", progress=False),
        "break_even.target": s.loc["run_cost_usd", "mean"],
        "unknown.unknown_metrics": float(len(partial.unknown_metrics)),
    }


def expected_searches() -> dict:
    """tests/consumer/main.cpp's checkpoint interval and layout search, the same calls."""
    warnings.simplefilter("ignore")
    lora = tm.Scenario.from_json(EXAMPLES / "llama3-8b-lora-trn2.json")
    ci = tm.checkpoint_interval(lora, statistic="p90", samples=5_000, seed=3, progress=False)
    value = ci.columns[-1]  # "wall_h p90"
    flops = job().updated({"model.layers": 32})
    layouts = tm.search_parallelism(flops, micro_batches=(1, 2), samples=500, seed=3, progress=False)
    best = layouts.iloc[0]
    return {
        "checkpoint_interval.best_steps": ci.loc["simulated", "every_steps"],
        "checkpoint_interval.young_steps": ci.loc["young", "every_steps"],
        "checkpoint_interval.daly_steps": ci.loc["daly", "every_steps"],
        "checkpoint_interval.best_value": ci.loc["simulated", value],
        "checkpoint_interval.daly_value": ci.loc["daly", value],
        "search.layouts": float(len(layouts)),
        "search.fitting": float(layouts["fits"].sum()),
        "search.best.tp": best["tp"],
        "search.best.cp": best["cp"],
        "search.best.pp": best["pp"],
        "search.best.dp": best["dp"],
        "search.best.micro_batch": best["micro_batch"],
        "search.best.run_cost_usd": best["run_cost_usd"],
        "search.best.step_time_s": best["step_time_s"],
    }


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def main(path: str, searches: Optional[str] = None) -> int:
    printed = {}
    for file in [path] + ([searches] if searches else []):
        for line in Path(file).read_text().splitlines():
            if line and not line.startswith("#"):
                key, value = line.split()
                printed[key] = float(value)
    want = expected()
    if searches:
        want.update(expected_searches())
    bad = [k for k in want if k not in printed or bits(printed[k]) != bits(float(want[k]))]
    for k in want:
        mark = "FAILED" if k in bad else "ok"
        print(f"  {mark}: {k} C++ {printed.get(k, math.nan)!r} Python {float(want[k])!r}")
    extra = sorted(set(printed) - set(want))
    if extra:
        print(f"  FAILED: printed but not checked: {', '.join(extra)}")
    print(f"{len(want) - len(bad)} of {len(want)} numbers bitwise equal in C++ and Python")
    return 1 if bad or extra else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
