"""Writes notebooks/01_quickstart.ipynb (stored without outputs; the tests execute it).
Run: .venv/bin/python scripts/notebook_01_quickstart.py"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_notebook import write_notebook  # noqa: E402

CELLS = [
    (
        "md",
        """# trnmodel quickstart: uncertain inputs and the Monte Carlo engine

Every input of a cost estimate is uncertain. trnmodel writes each one as a distribution with
its provenance (measured, vendor, quote, assumption), samples it by inverse CDF from a
counter-based random generator, and propagates it through any vectorized function.""",
    ),
    (
        "code",
        """import numpy as np
import trnmodel as tm
tm.__version__""",
    ),
    (
        "md",
        """## Uncertain quantities

A step time measured in a trial run is often best written by its median and 90th percentile.""",
    ),
    (
        "code",
        """step_s = tm.LogNormal.from_quantiles(p50=2.1, p90=2.6, source="measured", note="trial run, 3 repeats")
step_s.ppf([0.5, 0.9]), step_s.mean()""",
    ),
    (
        "code",
        """compile_s = tm.PERT(600, 1500, 3600, source="assumption", note="Neuron compile, cold cache")
price = tm.Uniform(30, 36, source="quote", date="2026-11-01", region="us-east-2")
[compile_s, price, compile_s.to_dict()]""",
    ),
    (
        "md",
        """Bad parameters are refused with the rule and the value:""",
    ),
    (
        "code",
        """try:
    tm.Triangular(0, 5, 4)
except tm.ScenarioError as e:
    print(e)""",
    ),
    (
        "md",
        """## Monte Carlo of any vectorized function

`f` receives one block of samples: rows are samples, columns are the inputs in dict order.""",
    ),
    (
        "code",
        """def cost_usd(x):
    steps, step_s, compile_s, price = x.T
    return (steps * step_s + compile_s) / 3600 * price

inputs = {"steps": tm.Triangular(9000, 10000, 12000), "step_s": step_s, "compile_s": compile_s, "price": price}
result = tm.monte_carlo(cost_usd, inputs, samples=200_000, seed=0)
result.summary()""",
    ),
    (
        "md",
        """Same seed, same numbers, whatever the number of threads:""",
    ),
    (
        "code",
        """one = tm.monte_carlo(cost_usd, inputs, samples=50_000, seed=7, threads=1)
two = tm.monte_carlo(cost_usd, inputs, samples=50_000, seed=7, threads=2)
assert np.array_equal(one.values, two.values)
one.summary().equals(two.summary())""",
    ),
    (
        "md",
        """## A whole training job

A scenario (job card) lists every input of the job with its uncertainty and where it comes from:
measured, vendor, a price quote with its date (red when older than 30 days), a model, an
assumption, or unknown. `tm.simulate` runs its lifecycle many times.""",
    ),
    (
        "code",
        """import matplotlib.pyplot as plt
scn = tm.Scenario.from_json("../examples/llama3-8b-lora-trn2.json")
scn   # the job card, with provenance marks""",
    ),
    (
        "code",
        """res = tm.simulate(scn, samples=100_000, seed=0)
res   # P10 … P90 of time and cost, and where the time goes""",
    ),
    (
        "code",
        """fig, axes = plt.subplots(1, 2, figsize=(12, 3.6), layout="constrained")
res.plot.distribution("wall_h", ax=axes[0])
res.plot.distribution("run_cost_usd", ax=axes[1], color="#ef6c00");""",
    ),
    (
        "code",
        """res.plot.phases();""",
    ),
    (
        "md",
        """The same study as a report a manager can sign off: `trnmodel report SCENARIO [SCENARIO_B] -o report.html`
on the command line (`make run` writes the Trn2-vs-H100 one to `out/`).""",
    ),
    (
        "md",
        """## Starting from a model's config.json

No scenario yet? `tm.Scenario.new` builds a complete one from the model's Hugging Face
`config.json`, a platform and the job (`trnmodel new` on the command line). The model and its
parameter count come from the config, the step time from the platform, and every other phase
is a stated assumption with its source in the note (docs/scenario.md, "Building a scenario").
Prices stay unknown until you give a quote, and the costs say so.""",
    ),
    (
        "code",
        """mine = tm.Scenario.new("../examples/configs/llama3-8b.json", "trn2.48xlarge", kind="lora", tokens="786M")
print(f"{tm.read_hf_config('../examples/configs/llama3-8b.json').parameters:.4g} parameters,",
      mine.to_dict()["parallelism"])
mine.unknowns()""",
    ),
    (
        "code",
        """tm.simulate(mine, samples=20_000, seed=0, allow_unknown=True).summary().loc[["step_time_s", "wall_h", "run_cost_usd"]]""",
    ),
    (
        "md",
        """## Nothing silently left out

A scenario written by hand with only a step time, a step count and a price leaves most of the
lifecycle out: those phases count as 0. `completeness()` says, phase by phase, what the scenario
describes; the summary, the job card and the sign-off report say it too, and `tm.simulate` warns
(`tm.CompletenessWarning`) where a platform almost surely needs more (a Neuron job without a
compile time, several nodes without failures).""",
    ),
    (
        "code",
        """bare = tm.Scenario.from_dict({"schema": "trnmodel.scenario/1", "job": {"effective_steps": 3000},
                             "cluster": {"nodes": 1, "platform": "trn2.48xlarge"},
                             "throughput": {"step_time_s": 3.8}, "prices": {"node_hour_usd": 35.76}})
print(bare.expectations())
bare.completeness()[["status", "missing", "why"]]""",
    ),
    (
        "code",
        """mine.completeness()[["status", "inputs"]]  # the built scenario: every phase present""",
    ),
    (
        "md",
        """### The job card

What the team states before asking for capacity (code version, data set, who accepts the
result, ...) goes in the optional `card` block; `card()` shows what is filled and what is
missing, and so do the job card display and the report. The one number in it,
`max_error_to_restart_h`, is checked against the model's time from a failure to resumed
training (its P90; docs/scenario.md, "The job card block").""",
    ),
    (
        "code",
        """carded = mine.updated({"card.code_version": "v1.4.2", "card.owners.quality": "A. Chen",
                       "card.max_error_to_restart_h": 0.25})
print(f"modelled P90 from a failure to resumed training: {carded.restart_time().quantile(0.9):.2f} h")
print([e for e in carded.expectations() if e.startswith("card.")])
carded.card()[["status", "value"]]""",
    ),
]

if __name__ == "__main__":
    out = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "01_quickstart.ipynb"
    write_notebook(out, CELLS)
    print(f"wrote {out}")
