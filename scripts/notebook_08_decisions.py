"""Writes notebooks/08_should_we_migrate.ipynb (stored without outputs; the tests execute it).
Run: .venv/bin/python scripts/notebook_08_decisions.py"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_notebook import write_notebook  # noqa: E402

CELLS = [
    (
        "md",
        """# Should we migrate?

A manager asks three things before moving a training job from GPUs to Trainium:

1. Is this job a candidate at all?
2. If we port it, when does the port pay back?
3. What is the safest way to move it, and what does that cost?

This notebook answers them for the Llama-3-8B LoRA fine-tune, run weekly. The job's bundled
scenarios are p5 (H100) and trn2, and the bundled migration plan is
`examples/plans/llama3-8b-lora-migration.json`. The rules and formulas are in
docs/decisions.md.""",
    ),
    (
        "code",
        """import warnings
import matplotlib.pyplot as plt
import trnmodel as tm

warnings.simplefilter("ignore", tm.CompletenessWarning)  # the scenarios' gaps are listed by their own reports
plan = tm.Plan.from_json("../examples/plans/llama3-8b-lora-migration.json")
plan""",
    ),
    (
        "md",
        """## 1. Is the job a candidate? The advisor

The advisor reads ten facts the project states about itself (the plan's `project` block) and
applies the decision matrix as explicit rules, in a stated precedence. Every rule that fired is
shown with the facts that fired it. The suitability score sits beside the rules and never
decides instead of them.""",
    ),
    (
        "code",
        """advice = plan.advise()
advice""",
    ),
    (
        "md",
        """The job is a technical candidate: a stable LoRA with a long cycle. But a high cost of error
with no Neuron experience in the team puts a dual track first. What if the team had some
experience?""",
    ),
    (
        "code",
        """facts = {"architecture_changes": "rare", "experimental_ops": False, "custom_cuda_extensions": False,
         "fast_debug_loop": False, "mixed_nonstandard_models": False, "manual_compiler_tuning": False,
         "team_neuron_experience": "some", "error_cost": "high", "agreed_metrics": True,
         "training_cycle": "long"}
print(tm.advise(facts, job_kind="lora"))
print(tm.advise({**facts, "custom_cuda_extensions": True}, job_kind="lora"))""",
    ),
    (
        "md",
        """## 2. When does the port pay back?

The port is paid once, and the job runs every week. `tm.payback` finds, per sample on common
random numbers, the runs after which the side that is cheaper to run has earned back its extra
porting cost.""",
    ),
    (
        "code",
        """pb = tm.payback(plan.gpu_baseline, plan.trainium_production, samples=50_000, seed=1)
print(pb.sentence())
pb.plot(max_runs=800);""",
    ),
    (
        "md",
        """A run of this job costs little, so the saving per run is small against a port of
weeks. It takes years of weekly runs to pay back. On cost alone this job stays on GPU. A larger
job, or one that runs more often, is the place to start.""",
    ),
    (
        "md",
        """## 3. The strategies

The plan costs three strategies per sample, on common random numbers:

- **GPU only.**
- **Trainium only.** If the port fails, it is found partway through the first run, rolled back
  and finished on GPU.
- **Dual track.** A short pilot first. Production goes to Trainium if the pilot passed, else
  to GPU. The cost of keeping the GPU branch ready is paid through a Trainium production.""",
    ),
    (
        "code",
        """res = plan.evaluate(samples=50_000, seed=1)
print(res.sentence())
res.table().round(2)""",
    ),
    (
        "code",
        """res.plot();""",
    ),
    (
        "md",
        """### When is it ready, and what decides the choice?

The port takes calendar time before the job can run on Trainium: the plan's production
scenario states it as `engineering.port_days`, and the strategies' times include it. The plan's
`schedule` gives a start and a deadline, so each track gets a ready date and a chance of
meeting the deadline.""",
    ),
    (
        "code",
        """print(plan.start, "->", plan.deadline)
{s: (res.ready_date(s, 0.5), res.ready_date(s, 0.9), round(res.p_by_deadline(s), 3)) for s in tm._plan.STRATEGIES}""",
    ),
    (
        "md",
        """Which inputs decide between the strategy most often cheapest and the next? Their rank
correlations with the margin between the two, per sample. Here it is the port's engineering
hours: a short spike that measures them would settle the question.""",
    ),
    (
        "code",
        """res.choice_drivers().head(6).round(2)""",
    ),
    (
        "md",
        """## The two platforms on the same random numbers

The paired difference, sample by sample, with 0 marked. The share left of 0 is P(A < B). Money
on the axes is written as people write it.""",
    ),
    (
        "code",
        """cmp = tm.compare(plan.trainium_production, plan.gpu_baseline, output="total_cost_usd", samples=20_000, seed=1)
cmp.plot.comparison();""",
    ),
    (
        "md",
        """## The page a manager reads first

`tm.decision` puts it together: what to do and why, what each track costs, when the port pays
back, the evidence each side rests on, and what to measure next (the inputs not yet measured
that move the total cost with porting most). The sign-off report (`trnmodel report A B --plan
PLAN`) opens with the same page.""",
    ),
    (
        "code",
        """tm.decision(plan=plan, samples=20_000, sobol_base_samples=2**10, seed=1)""",
    ),
]

if __name__ == "__main__":
    write_notebook(pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "08_should_we_migrate.ipynb", CELLS)
