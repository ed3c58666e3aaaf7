"""Writes notebooks/06_stages_and_restores.ipynb (stored without outputs; the tests execute it).
Run: .venv/bin/python scripts/notebook_06_stages.py"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_notebook import write_notebook  # noqa: E402

CELLS = [
    (
        "md",
        """# A job in stages, and checkpoints that fail to restore

Llama 3 was trained in stages (8K sequences, then six long-context stages up to 128K, then
annealing; arXiv:2407.21783, sec. 3.4). Each stage has its own step time, batch, checkpoint
spacing and, on Neuron, its own graphs to compile. This notebook takes Llama-3-70B continued
pre-training, **40B tokens at 8K then 2B tokens at 32K**, on 16 × trn2.48xlarge and on
16 × p5.48xlarge, and asks:

1. how long and how much each stage costs, and the two platforms side by side;
2. what a restored checkpoint that fails its check (`checkpoint.restore_fail_prob`) costs, and
   how many checkpoints to keep (`checkpoint.keep_last`).
3. which inputs move the long-context stage's own time, and how to change one of them.

The format is in docs/scenario.md ("Stages"), the semantics in docs/lifecycle.md ("Stages",
"Restore fidelity").""",
    ),
    (
        "code",
        """import pathlib
import warnings
import pandas as pd
import trnmodel as tm

warnings.simplefilter("ignore", tm.CompletenessWarning)
examples = pathlib.Path("../examples")
trn2 = tm.Scenario.from_json(examples / "llama3-70b-cpt-2stage-trn2x16.json")
p5 = tm.Scenario.from_json(examples / "llama3-70b-cpt-2stage-p5x16.json")
[s["name"] for s in trn2.to_dict()["stages"]]""",
    ),
    (
        "md",
        """## 1. Each stage's time and cost

The second stage overrides the sequence length, the batch, the tokens, the step time, the
checkpoint and eval spacing and, on Trn2, says that its graphs were compiled ahead
(`compile.precompiled`), so its transition loads them instead of compiling. Everything else
comes from the top level. `res.stages()` has one row per stage; the stages' `wall_h` sum to the
job's for every sample.""",
    ),
    (
        "code",
        """res_trn2 = tm.simulate(trn2, samples=50_000, seed=0)
res_p5 = tm.simulate(p5, samples=50_000, seed=0)
pd.concat({"trn2": res_trn2.stages(), "p5": res_p5.stages()})[
    ["wall_h", "node_h", "useful_h", "compile_h", "transition_h", "lost_h", "failures", "cost_compute_usd"]
].round(2)""",
    ),
    (
        "code",
        """assert abs(res_trn2.stages()["wall_h"].sum() - res_trn2.summary().loc["wall_h", "mean"]) < 1e-9
res_trn2.plot.stages();""",
    ),
    (
        "code",
        """cmp = tm.compare(trn2, p5, output="run_cost_usd", samples=50_000, seed=0)
print(f"P(trn2 cheaper than p5) = {cmp.p_a_less_b:.1%} on common random numbers")
cmp.summary()""",
    ),
    (
        "md",
        """## 2. Checkpoints that fail to restore

A restart that loads an incomplete checkpoint is caught at the restore check; the job then
falls back to the next older kept checkpoint, and with none left to the stage's start. The
example assumes a 2.5% chance per restore. Raise it, keep one checkpoint or three, and watch
`lost_h` (the work done again is lost time) and `restore_fallbacks`:""",
    ),
    (
        "code",
        """rows = []
for p in [0.0, 0.1, 0.3]:
    for keep in [1, 3]:
        scn = trn2.updated({"checkpoint.restore_fail_prob": p, "checkpoint.keep_last": keep})
        s = tm.simulate(scn, samples=20_000, seed=1).summary()
        rows.append({"restore_fail_prob": p, "keep_last": keep, "lost_h mean": s.loc["lost_h", "mean"],
                     "lost_h p90": s.loc["lost_h", "p90"], "fallbacks": s.loc["restore_fallbacks", "mean"],
                     "storage USD": s.loc["cost_storage_usd", "mean"], "run cost USD": s.loc["run_cost_usd", "mean"]})
table = pd.DataFrame(rows).set_index(["restore_fail_prob", "keep_last"])
table.round(2)""",
    ),
    (
        "code",
        """# keep_last 1: a failed check sends the stage back to its start; keep_last 3: one interval further back.
assert table.loc[(0.3, 1), "lost_h mean"] > table.loc[(0.3, 3), "lost_h mean"] > table.loc[(0.0, 3), "lost_h mean"]""",
    ),
    (
        "md",
        """Keeping three checkpoints costs two more copies in storage (`cost_storage_usd`) and buys
resilience: with a 30% chance that a restore fails, one kept checkpoint loses many hours
whenever a failed check sends the 19,000-step first stage back to its start; three keep the
loss to about an interval. The restore probability is an input like any other, so the
sensitivity analysis sees it, and its draws are part of the `chance` factor:""",
    ),
    (
        "code",
        """scn = trn2.updated({"checkpoint.restore_fail_prob": tm.Uniform(0, 0.3), "checkpoint.keep_last": 1})
tm.sobol(scn, output="lost_h", base_samples=2**10, seed=0).sort_values("ST", ascending=False).head(5)""",
    ),
    (
        "md",
        """## 3. What moves the long-context stage

A stage's own metrics are outputs like any other: `"32k/wall_h"` is the long-context stage's
time (its transition included). Its own inputs are factors named `"32k/<path>"`, and a factor
can be changed as it is printed:""",
    ),
    (
        "code",
        """bars = tm.tornado(trn2, output="32k/wall_h", samples=2_000, seed=0)
bars[["low_value", "high_value", "swing"]].head(5)""",
    ),
    (
        "code",
        """faster = trn2.updated({"32k/throughput.step_time_s": tm.LogNormal.from_quantiles(p50=25.0, p90=33.0)})
print(trn2["32k/throughput.step_time_s"], "->", faster["stages[1].throughput.step_time_s"])
tm.simulate(faster, samples=20_000, seed=1).stages()[["wall_h", "cost_compute_usd"]]""",
    ),
    (
        "md",
        """## The sign-off

`trnmodel report A.json B.json -o report.html` (or `tm.report`) writes the sign-off page; a
job with stages gets a per-stage table there too.""",
    ),
    (
        "code",
        """import tempfile
path = pathlib.Path(tempfile.mkdtemp()) / "signoff.html"
doc = tm.report(trn2, p5, path, samples=10_000, seed=0)
text = path.with_suffix(".md").read_text()
print(text[text.index("## Stages"):].split("\\n## ")[0])""",
    ),
]

if __name__ == "__main__":
    out = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "06_stages_and_restores.ipynb"
    write_notebook(out, CELLS)
    print(f"wrote {out}")
