"""Writes notebooks/04_sensitivity.ipynb (stored without outputs; the tests execute it).
Run: .venv/bin/python scripts/notebook_04_sensitivity.py"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_notebook import write_notebook  # noqa: E402

CELLS = [
    (
        "md",
        """# What drives the budget? Sensitivity, luck, Trn2 against H100, and the sign-off

A budget signed off on one number is a bet. For the Llama-3-8B LoRA example this notebook asks,
as a new user would:

1. which three inputs drive the run cost (Sobol indices, a tornado, rank correlations);
2. how much of the spread is **chance** (failures, cache misses, the quality gate) rather than
   inputs we could pin down with a trial run;
3. the probability that Trn2 is cheaper than H100 (p5), on common random numbers;
4. the node-hour price at which they break even;
5. as a what-if, the checkpoint interval that minimises wall time, beside Young's and Daly's;
6. and the report a manager signs off.

See docs/sensitivity.md for the methods.""",
    ),
    (
        "code",
        """import pathlib
import numpy as np
import pandas as pd
import trnmodel as tm

examples = pathlib.Path("../examples")
trn2 = tm.Scenario.from_json(examples / "llama3-8b-lora-trn2.json")
p5 = tm.Scenario.from_json(examples / "llama3-8b-lora-p5.json")
tm.simulate(trn2, samples=50_000, seed=0)""",
    ),
    (
        "md",
        """## 1. Sobol indices: which inputs move the cost

`S1` is the share of the variance of `run_cost_usd` that an input explains alone, `ST` its
share including interactions. The `_conf` columns are 95% interval half-widths; `note` flags
estimates that are noise (a negative S1, S1 above ST). The design costs (d + 2) · N runs.""",
    ),
    (
        "code",
        """sob = tm.sobol(trn2, output="run_cost_usd", base_samples=2**13, seed=0)
print(f"{sob.attrs['evaluations']:,} lifecycle runs; {sob.attrs['method']}")
sob.sort_values("ST", ascending=False).head(8)""",
    ),
    ("code", """tm.plot.sobol(sob.sort_values("ST", ascending=False).head(10));"""),
    (
        "code",
        """top3 = sob.drop(index="chance").sort_values("ST", ascending=False).head(3)
chance = sob.loc["chance"]
print("The three inputs that drive the trn2 run cost:")
for path, row in top3.iterrows():
    print(f"  {path:28s} ST = {row.ST:.3f} ± {row.ST_conf:.3f}   (alone: S1 = {row.S1:.3f})")
print(f"Chance (failures, cache draws, quality gate): S1 = {chance.S1:.3f}, ST = {chance.ST:.3f} ± {chance.ST_conf:.3f}")
assert top3.index[0] == "throughput.step_time_s\"""",
    ),
    (
        "md",
        """**Reading.** The step time (an MFU assumption until a trial run measures it) dominates;
the number of steps to the quality bar comes next. `chance` is the luck that no trial run can
remove: it bounds how far measurement can narrow the budget.

## 2. Tornado and rank correlations

The tornado holds one input at its P10, then its P90, all else random on the same random
numbers. Rank correlations come from an ordinary run, at no extra model cost.""",
    ),
    (
        "code",
        """tor = tm.tornado(trn2, output="run_cost_usd", statistic="p90", samples=20_000, seed=0)
print(f"baseline P90 cost: {tor.attrs['baseline']:.0f} USD")
tor.head(6)""",
    ),
    ("code", """tm.plot.tornado(tor);"""),
    (
        "code",
        """res = tm.simulate(trn2, samples=50_000, seed=0)
tm.rank_correlations(res, output="run_cost_usd").head(6)""",
    ),
    (
        "md",
        """## 3. Trn2 against H100 on common random numbers

Inputs shared by the two scenarios (same JSON path) draw the same random numbers, and so do the
chance draws: the per-sample difference is what differs between the platforms.""",
    ),
    (
        "code",
        """cmp = tm.compare(trn2, p5, output="run_cost_usd", samples=100_000, seed=0)
print(f"P(Trn2 run cost < p5 run cost) = {cmp.p_a_less_b:.3f}")
cmp.plot.comparison()
cmp""",
    ),
    (
        "code",
        """# The same question for total cost, where porting effort (engineering.*) weighs on Trn2.
total = tm.compare(trn2, p5, output="total_cost_usd", samples=100_000, seed=0)
print(f"P(Trn2 total cost < p5 total cost) = {total.p_a_less_b:.3f}")
total.summary()""",
    ),
    (
        "md",
        """## 4. Break-even node-hour price

The Trn2 price at which Trn2's mean run cost equals p5's, and the p5 price at which p5 matches
Trn2 (every evaluation on the same seed).""",
    ),
    (
        "code",
        """trn2_price = cmp.break_even("prices.node_hour_usd", on="a")
p5_price = cmp.break_even("prices.node_hour_usd", on="b")
print(f"Trn2 quote {trn2['prices.node_hour_usd'].mean():.2f} USD/node-hour; break-even against p5 at {trn2_price:.2f}")
print(f"p5 quote   {p5['prices.node_hour_usd'].mean():.2f} USD/node-hour; break-even against Trn2 at {p5_price:.2f}")
p90_price = cmp.break_even("prices.node_hour_usd", on="a", statistic="p90")
print(f"On the P90 a budget is signed on, Trn2 breaks even at {p90_price:.2f} USD/node-hour")""",
    ),
    (
        "md",
        """## 5. What-if: checkpoint interval and cluster size

A sweep runs every grid point on the same seed. The 70B full fine-tune on 16 Trn2 nodes fails
often enough for the checkpoint interval to matter: the simulated optimum sits beside Young's
and Daly's closed forms.""",
    ),
    (
        "code",
        """full = tm.Scenario.from_json(examples / "llama3-70b-full-trn2x16.json")
ci = tm.checkpoint_interval(full, output="wall_h", samples=4000, seed=0)
ci""",
    ),
    (
        "code",
        """grid = tm.sweep(trn2, {"checkpoint.every_steps": [100, 500, 1000], "cluster.nodes": [1, 2]},
               output="run_cost_usd", samples=10_000, seed=0)
tm.plot.sweep(grid, "run_cost_usd", statistic="p90")
grid.pivot(index="checkpoint.every_steps", columns="cluster.nodes", values="p90")""",
    ),
    (
        "md",
        """## 6. The sign-off

`tm.report` (or `trnmodel report A.json B.json -o report.html` on the command line) writes the
page a manager signs off: a self-contained HTML file with the plots embedded, and its Markdown
twin. It holds the job cards, assumptions and unknowns, the price quotes with their dates
(flagged when older than 30 days), P50/P80/P90 time and cost, where the time goes, the cost of a
useful step beside the lifecycle cost per step, the top drivers, how much is chance, and the
comparison with its break-even.""",
    ),
    (
        "code",
        """import tempfile
path = pathlib.Path(tempfile.mkdtemp()) / "signoff.html"
doc = tm.report(trn2, p5, path, samples=20_000, seed=0)
print(f"{path}: {path.stat().st_size / 1e3:.0f} kB; Markdown twin {path.with_suffix('.md').name}")
doc""",
    ),
]

if __name__ == "__main__":
    out = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "04_sensitivity.ipynb"
    write_notebook(out, CELLS)
    print(f"wrote {out}")
