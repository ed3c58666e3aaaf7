"""The decision page that opens the sign-off (docs/decisions.md, "The decision page"): what to do
and why (the advisor's rules), what each strategy costs (GPU only, Trainium only with a
rollback, the dual track), when the port pays back, the evidence each side rests on, and what
to measure next (the inputs not yet measured with the largest total Sobol index of the
decision's metric, total cost with porting)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Tuple

import numpy as np

from . import _core
from ._advisor import Advice, advise
from ._document import Document
from ._evidence import evidence_class, evidence_line
from ._format import hours, short_money
from ._payback import PaybackResult, payback, payback_of_results
from ._plan import _LABELS as STRATEGY_LABELS
from ._plan import STRATEGIES, Plan, PlanResult
from ._progress import ProgressArg
from ._scenario import Scenario
from ._sensitivity import sobol
from ._simulate import simulate
from .fields import ENGINEERING_ADAPTATION_H, ENGINEERING_PORT_DAYS

if TYPE_CHECKING:
    from concurrent.futures import Future

    import pandas as pd

    from ._simulate import SimulationResult

#: The decision's metric: what the choice costs, porting included.
DECISION_METRIC = "total_cost_usd"

#: Evidence classes that count as measured for "what to measure next": a trial run's figure or
#: a price someone quoted. Everything else (a prior the trials barely moved, a vendor's figure,
#: a model, an assumption) is a candidate to measure.
MEASURED = ("measured", "quoted")

#: How many inputs "what to measure next" lists, and the smallest total index it lists (below
#: it an input moves less than 1 % of the variance: measuring it would not change the decision).
MEASURE_NEXT = 5
MEASURE_NEXT_MIN_INDEX = 0.01

#: How many inputs "what decides the choice" names, and the smallest |PRCC| it names.
CHOICE_DRIVERS = 3
CHOICE_MIN_PRCC = 0.1

#: The run counts the page reports P(paid back within n) at.
PAYBACK_WITHIN = 10


class DecisionRuns(NamedTuple):
    """What the decision page needs, computed beside the sign-off's other runs."""

    advice: Optional[Advice]
    advice_missing: str  # why there is no advice ("" when there is)
    plan: Optional[PlanResult]
    payback: Any  # PaybackResult, or the exception that says why there is none
    indices: Dict[str, Any]  # scenario name -> Sobol indices of DECISION_METRIC (None: unknown inputs)


def named_scenarios(a: Scenario, b: Optional[Scenario]) -> Dict[str, Scenario]:
    """The scenarios by the names a report gives them (B's marked when both have one name)."""
    for label, scn in (("a", a), ("b", b)):
        if scn is not None and not isinstance(scn, Scenario):
            raise _core.ScenarioError(f"{label}: must be a tm.Scenario, got {type(scn).__name__}")
    name_a = a.name or "A"
    scenarios = {name_a: a}
    if b is not None:
        name_b = b.name or "B"
        scenarios[name_b if name_b != name_a else name_b + " (B)"] = b
    return scenarios


def check_plan(plan: Any) -> None:
    if plan is not None and not isinstance(plan, Plan):
        raise _core.ScenarioError(f"plan: must be a tm.Plan (tm.Plan.from_json), got {type(plan).__name__}")


def _advice_of(scenarios: Dict[str, Scenario], plan: Optional[Plan]) -> Tuple[Optional[Advice], str]:
    """The advisor on the plan's project facts, else on the first scenario that states them."""
    if plan is not None and plan._core.project is not None:
        return plan.advise(), ""
    for scn in scenarios.values():
        if "project" in scn._as_given():
            return advise(scn), ""
    return None, (
        "not advised: no project facts stated (the `project` block of the plan or a scenario: architecture "
        "changes, experimental ops, custom CUDA kernels, the team's Neuron experience, ...; docs/decisions.md, "
        '"The advisor")'
    )


def decision_runs(
    scenarios: Dict[str, Scenario],
    plan: Optional[Plan],
    *,
    samples: int,
    sobol_base_samples: int,
    seed: int,
    threads: Optional[int],
    progress: ProgressArg,
    executor: Any = None,
    results: "Optional[Future[Dict[str, SimulationResult]]]" = None,
    indices: Optional[Mapping[str, Callable[[], Any]]] = None,
) -> DecisionRuns:
    """The decision's computations: the advice, the plan's strategies, payback of the pair (the
    first two scenarios) and each scenario's Sobol indices of total cost with porting. With
    ``results`` (the scenarios simulated on ``samples`` and ``seed``, once available), payback
    takes them instead of simulating the pair again. With ``indices`` (per scenario name, a call
    giving those Sobol indices on ``sobol_base_samples`` and ``seed``, or None for unknown
    inputs), they are taken from it instead of computed here."""
    advice, missing = _advice_of(scenarios, plan)
    plan_result = (
        plan.evaluate(samples=samples, seed=seed, threads=threads, progress=progress, executor=executor)
        if plan
        else None
    )
    # The Sobol indices first: they need no simulation, so they are found while the caller's
    # simulations (``results``) are still under way; payback waits for those.
    found: Dict[str, Any] = {}
    for name, scn in scenarios.items():
        unknown = DECISION_METRIC in _core.lifecycle_info(scn._core).unknown_metrics
        found[name] = (
            None
            if unknown
            else indices[name]()
            if indices is not None
            else sobol(
                scn,
                output=DECISION_METRIC,
                base_samples=sobol_base_samples,
                seed=seed,
                threads=threads,
                progress=progress,
                executor=executor,
            )
        )
    sides = list(scenarios.values())
    paid: Any = None
    if len(sides) == 2:
        try:
            if results is not None:
                ra, rb = list(results.result().values())[:2]
                paid = payback_of_results(ra, rb, threads=threads)
            else:
                paid = payback(
                    sides[0],
                    sides[1],
                    samples=samples,
                    seed=seed,
                    threads=threads,
                    progress=progress,
                    executor=executor,
                )
        except _core.ScenarioError as e:  # an unknown price: the page says why, the sign-off goes on
            paid = e
    return DecisionRuns(advice, missing, plan_result, paid, found)


def _source_of(scenario: Scenario) -> Dict[str, str]:
    return {r.path: r.source for r in scenario.provenance()}


def measure_next(scenarios: Dict[str, Scenario], indices: Dict[str, Any]) -> "pd.DataFrame":
    """The inputs not yet measured, by their total Sobol index of the decision's metric, largest
    first: one row per (scenario, input) with ``ST``, ``ST_conf`` and the ``evidence`` class.
    ``chance`` is left out (no measurement removes luck); hardware-profile figures count as
    vendor figures."""
    import pandas as pd

    rows: List[Dict[str, Any]] = []
    for name, found in indices.items():
        if found is None:
            continue
        sources = _source_of(scenarios[name])
        for factor, st, st_conf in zip(found.index, found["ST"], found["ST_conf"]):
            if factor == "chance":
                continue
            path = str(factor).split("/")[-1]  # a stage's own input: "<stage>/<path>"
            source = sources.get(str(factor), sources.get(path, "vendor" if path.startswith("platform.") else ""))
            klass = evidence_class(source)
            if klass in MEASURED:
                continue
            rows.append({"scenario": name, "input": str(factor), "ST": st, "ST_conf": st_conf, "evidence": klass})
    frame = pd.DataFrame(rows, columns=["scenario", "input", "ST", "ST_conf", "evidence"])
    return frame.sort_values("ST", ascending=False, kind="stable").reset_index(drop=True)


def _strategy_rows(runs: DecisionRuns, results: Dict[str, "SimulationResult"]) -> List[List[str]]:
    """The strategies' table: from the plan when one is given, else the two single tracks of the
    pair (total cost with porting) and the dual track marked as not costed."""
    if runs.plan is not None:
        t = runs.plan.table()
        dated = runs.plan.plan.deadline is not None
        return [
            [
                STRATEGY_LABELS[s],
                hours(t.loc[s, "time_p50_h"]),
                hours(t.loc[s, "time_p90_h"]),
                short_money(t.loc[s, "cost_p50_usd"]),
                short_money(t.loc[s, "cost_p90_usd"]),
                f"{t.loc[s, 'p_cheapest']:.0%}",
            ]
            + (
                [runs.plan.ready_date(s, 0.5), runs.plan.ready_date(s, 0.9), f"{t.loc[s, 'p_by_deadline']:.0%}"]
                if dated
                else []
            )
            for s in STRATEGIES
        ]
    rows = []
    for name, r in results.items():
        s = r._stats()
        cost = s[DECISION_METRIC]
        rows.append(
            [
                f"{name} alone",
                hours(s["wall_h"]["p50"]),
                hours(s["wall_h"]["p90"]),
                "unknown" if math.isnan(cost["p50"]) else short_money(cost["p50"]),
                "unknown" if math.isnan(cost["p90"]) else short_money(cost["p90"]),
                "—",
            ]
        )
    rows.append(["Dual track", "not costed", "—", "—", "—", "—"])
    return rows


def _schedule(doc: Document, result: PlanResult) -> List[str]:
    """The schedule's line: the deadline and each track's chance to meet it, and the ports whose
    calendar time is not described (their tracks' times then start when the port is done)."""
    plan = result.plan
    lines = []
    if plan.deadline is not None:
        odds = ", ".join(f"{STRATEGY_LABELS[s].split(' (')[0]} {result.p_by_deadline(s):.0%}" for s in STRATEGIES)
        lines.append(
            f"**Schedule**: the work starts {plan.start}, the first production result is due {plan.deadline} "
            f"({plan.days_to_deadline:.0f} days); P(ready by then): {odds}. Times run from the start, the port's "
            "calendar time (`engineering.port_days`) included."
        )
    for role, scn in (("GPU baseline", plan.gpu_baseline), ("Trainium production", plan.trainium_production)):
        if scn[ENGINEERING_PORT_DAYS] is None and float(scn[ENGINEERING_ADAPTATION_H].mean()) > 0:
            lines.append(
                f"**Not described**: the calendar time of the {role}'s port (`engineering.port_days` of {scn.name}); "
                "its tracks' times start when the port is done, not when the work starts."
            )
    for line in lines:
        doc.paragraph(line)
    return lines


def _choice_drivers(doc: Document, plan: PlanResult) -> List[str]:
    """What decides the choice between the strategy most often cheapest and the next."""
    drivers = plan.choice_drivers()
    top = drivers[drivers["prcc"].abs() >= CHOICE_MIN_PRCC].head(CHOICE_DRIVERS)
    favourite = STRATEGY_LABELS[drivers.attrs["favourite"]].split(" (")[0]
    runner_up = STRATEGY_LABELS[drivers.attrs["runner_up"]].split(" (")[0]
    if top.empty:
        line = (
            f"**What decides the choice** between {favourite} and {runner_up}: no input has a partial rank "
            f"correlation of {CHOICE_MIN_PRCC} or more with the margin; chance decides it."
        )
    else:
        parts = [
            f"`{factor}` (PRCC {r.prcc:+.2f}: larger favours {favourite if r.prcc > 0 else runner_up})"
            for factor, r in top.iterrows()
        ]
        line = (
            f"**What decides the choice** between {favourite} and {runner_up} (the runner-up's cost less the "
            "favourite's, per sample; partial rank correlations, docs/decisions.md): " + "; ".join(parts) + "."
        )
    doc.paragraph(line)
    return [line]


def decision_section(
    doc: Document,
    scenarios: Dict[str, Scenario],
    results: Dict[str, "SimulationResult"],
    runs: DecisionRuns,
) -> List[str]:
    """Writes the decision page into ``doc``; returns its lines for the document's summary."""
    summary: List[str] = []
    if runs.advice is not None:
        a = runs.advice
        doc.heading(f"Decision: {a.label}")
        lead = f"**What to do: {a.label}** (`{a.recommendation}`)."
        if a.score is not None:
            lead += f" Suitability of LoRA on Trainium: {a.score} of 5 (higher is safer)."
        doc.paragraph(lead)
        doc.paragraph('Why, the deciding rule first (docs/decisions.md, "The advisor"):')
        doc.bullets(a.why())
        summary.append(f"Decision: {a.label} ({a.why()[0]}).")
    else:
        doc.heading("Decision")
        doc.paragraph(f"**What to do**: {runs.advice_missing}. The costs below still compare.")
        summary.append(f"Decision: {runs.advice_missing}.")

    doc.paragraph(
        "**What each track costs** ("
        + (
            "time from the start of the work to the first production result, the port's calendar time "
            f"included; cost of the plan's {runs.plan.plan.runs} runs with "
            f"the porting paid once; {runs.plan.samples:,} samples on common random numbers; the pilot passes in "
            f"{runs.plan.p_pilot_passed:.0%} of them):"
            if runs.plan is not None
            else "wall time and total cost with porting of one run; no plan given, so the dual track is not "
            "costed: `trnmodel report A B --plan PLAN.json`, "
            'docs/decisions.md, "The plan"):'
        )
    )
    dated = runs.plan is not None and runs.plan.plan.deadline is not None
    doc.table(
        ["strategy", "time P50", "time P90", "cost P50", "cost P90", "P(cheapest)"]
        + (["ready P50", "ready P90", "P(by deadline)"] if dated else []),
        _strategy_rows(runs, results),
    )
    if runs.plan is not None:
        summary += _schedule(doc, runs.plan)
    if runs.plan is not None:
        summary += _choice_drivers(doc, runs.plan)
        odds = runs.plan.p_cheapest
        best = max(STRATEGIES, key=lambda k: odds[k])
        line = (
            f"On cost alone, {STRATEGY_LABELS[best].split(' (')[0]} is the cheapest in {odds[best]:.0%} of the "
            "samples; the advice above weighs the risks the costs do not show."
        )
        doc.paragraph(line)
        summary += ["Strategies: " + runs.plan.sentence(), line]

    if isinstance(runs.payback, PaybackResult):
        pb = runs.payback
        p50 = pb.quantile(0.5)
        extra, saving = float(np.mean(pb.extra_porting_usd)), float(np.mean(pb.run_saving_usd))
        line = (
            f"**Payback**: {pb.sentence()}"  # no extra porting cost: nothing to pay back
            if extra <= 0
            else f"**Payback**: {pb.name} recovers its extra porting cost of {short_money(extra)} "
            f"(it saves {short_money(saving)} a run on average) after P50 "
            + ("never" if math.isinf(p50) else f"{p50:.0f} runs")
            + f"; P(within {PAYBACK_WITHIN} runs) = {pb.p_within(PAYBACK_WITHIN):.0%}, "
            f"P(never) = {pb.p_never:.0%}."
        )
        if runs.plan is not None and runs.plan.plan.runs > 1:
            n = runs.plan.plan.runs
            line += f" The plan expects {n} runs: P(paid back within them) = {pb.p_within(n):.0%}."
        doc.paragraph(line)
        summary.append(line)
    elif runs.payback is not None:
        doc.paragraph(f"**Payback**: not computed ({runs.payback}).")

    doc.paragraph("**The evidence each side rests on**:")
    doc.bullets([f"{name}: {evidence_line(scn, detail=False)}." for name, scn in scenarios.items()])

    table = measure_next(scenarios, runs.indices)
    table = table[table["ST"] >= MEASURE_NEXT_MIN_INDEX]
    if len(table):
        top = table.head(MEASURE_NEXT)
        doc.paragraph(
            "**What to measure next**: the inputs not yet measured that move the total cost with porting most "
            "(total Sobol index: the share of its variance the input accounts for, with its interactions; "
            f"at most {MEASURE_NEXT}, each {MEASURE_NEXT_MIN_INDEX} or more):"
        )
        doc.table(
            ["scenario", "input", "total index", "evidence now"],
            [[r.scenario, f"`{r.input}`", f"{r.ST:.2f} ± {r.ST_conf:.2f}", r.evidence] for r in top.itertuples()],
        )
        summary.append(
            "Measure next: "
            + ", ".join(f"{r.input} ({r.scenario}, {r.ST:.2f})" for r in top.head(3).itertuples())
            + "."
        )
    else:
        doc.paragraph(
            "**What to measure next**: no input that is not yet measured or quoted moves the total cost with "
            f"porting by a total Sobol index of {MEASURE_NEXT_MIN_INDEX} or more."
        )
    return summary


def decision(
    a: Optional[Scenario] = None,
    b: Optional[Scenario] = None,
    *,
    plan: Optional[Plan] = None,
    samples: int = 100_000,
    seed: int = 0,
    sobol_base_samples: int = 2**11,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Document:
    """The decision page alone, as the sign-off opens with it (docs/decisions.md, "The decision
    page"): the advice on the plan's or the scenarios' project facts, each track's cost (the dual
    track from ``plan``, a :class:`tm.Plan`), payback of ``a`` against ``b``, the evidence each
    rests on and what to measure next. With a plan and no scenarios, ``a`` and ``b`` are the
    plan's Trainium production and GPU baseline. Returns a Document (shown as HTML in a
    notebook; ``.markdown()``, ``.html(title)``, ``.summary``). ``executor``: a
    ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; every run's blocks run
    there, with the local bits (docs/scaling.md)."""
    check_plan(plan)
    if a is None:
        if plan is None:
            raise _core.ScenarioError("a: required without a plan (a tm.Scenario)")
        a, b = plan.trainium_production, plan.gpu_baseline
    scenarios = named_scenarios(a, b)
    runs = decision_runs(
        scenarios,
        plan,
        samples=samples,
        sobol_base_samples=sobol_base_samples,
        seed=seed,
        threads=threads,
        progress=progress,
        executor=executor,
    )
    results = (
        {}  # the plan costs every track
        if plan is not None
        else {
            name: simulate(
                s, samples=samples, seed=seed, threads=threads, allow_unknown=True, progress=progress, executor=executor
            )
            for name, s in scenarios.items()
        }
    )
    doc = Document("Decision")
    doc.summary += decision_section(doc, scenarios, results, runs)
    return doc
