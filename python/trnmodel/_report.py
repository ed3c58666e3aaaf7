"""The budget study and the sign-off report (README.md): what a manager signs off.

A report is built once as a small document (headings, paragraphs, lists, tables, figures)
and rendered twice: Markdown (the twin, figures as PNG files beside it) and a self-contained
HTML page (figures embedded). Sections: the job card and where each input comes from,
assumptions and unknowns, price quotes with their dates, P50/P80/P90 time and cost, the
phase breakdown, the cost of a useful step beside the lifecycle cost per step, the cost
ledger, the top drivers and how much is chance, and the comparison with break-even.
"""

from __future__ import annotations

import datetime as _dt
import math
import pathlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _core, plot
from ._decision_page import DECISION_METRIC, check_plan, decision_runs, decision_section, named_scenarios
from ._document import Document
from ._evidence import CLASSES as EVIDENCE_CLASSES
from ._evidence import evidence_line, unequal_evidence
from ._executor import running_on
from ._format import (
    QUOTE_MAX_AGE_DAYS,
    badge,
    esc,
    probability,
    quote_age_days,
)
from ._format import count as _count
from ._format import hours as _hours
from ._format import money as _money
from ._format import slug as _slug
from ._metrics import BLOCK_LEDGER_LINES, LEDGER_LINES, PHASES
from ._plan import Plan
from ._progress import ProgressArg
from ._scenario import ProvenanceRow, Scenario
from ._sensitivity import _comparison_of_results, sobol, tornado
from ._simulate import SimulationResult, simulate
from .fields import (
    CLUSTER_NODES,
    JOB_EFFECTIVE_STEPS,
    JOB_KIND,
    JOB_LORA_RANK,
    JOB_TOKENS,
    MODEL_FFN_SIZE,
    MODEL_HEADS,
    MODEL_HIDDEN_SIZE,
    MODEL_LAYERS,
    MODEL_PARAMETERS,
    MODEL_SEQUENCE_LENGTH,
    PARALLELISM_CP,
    PARALLELISM_GLOBAL_BATCH,
    PRICES_BLOCK_HOURS,
    PRICES_NODE_HOUR_USD,
    PRICES_PURCHASE,
    THROUGHPUT_PRECISION,
    JobKind,
    PurchaseMode,
)


def provenance_rows(scenario: Scenario) -> List[ProvenanceRow]:
    """(path, value, source, note, date, region) of every given quantity: ``scenario.provenance()``."""
    return scenario.provenance()


def stale_quotes(scenario: Scenario, today: Optional[_dt.date] = None) -> List[str]:
    """Warnings for price quotes older than 30 days. A quote without a date is the scenario's
    own expectation (``scenario.expectations()``), said there."""
    today = today or _dt.date.today()
    warnings = []
    for row in scenario.provenance():
        if row.source == "quote" and row.date:
            age = quote_age_days(row.date, today)
            if age is not None and age > QUOTE_MAX_AGE_DAYS:
                region = f" ({row.region})" if row.region else ""
                warnings.append(
                    f"{row.path}: quote of {row.date}{region} is {age} days old; confirm it before sign-off"
                )
    return warnings


# ---- sections --------------------------------------------------------------------------------


def _job_line(result: SimulationResult) -> str:
    card = result.scenario._as_given()
    job, cluster = card.get("job", {}), card.get("cluster", {})
    return (
        f"{cluster.get('nodes')} × {cluster.get('platform', 'nodes')}, job kind {job.get('kind', 'full')}; "
        f"{result.samples:,} Monte Carlo samples. Times in hours, costs in USD."
    )


def _quantiles(d: Any, probabilities: Sequence[float] = (0.1, 0.5, 0.9)) -> str:
    return " / ".join(f"{float(d.ppf(p)):,.4g}" for p in probabilities) if d is not None else "not given"


def _implied_mfu(result: SimulationResult) -> str:
    """Model FLOPs per step over (chips × peak × P50 step time): what the step time implies."""
    scn = result.scenario
    layers, hidden, heads = scn[MODEL_LAYERS], scn[MODEL_HIDDEN_SIZE], scn[MODEL_HEADS]
    seq, batch, shape = scn[MODEL_SEQUENCE_LENGTH], scn[PARALLELISM_GLOBAL_BATCH], scn._core.profile_shape
    if None in (layers, hidden, heads, seq, batch) or shape is None:
        return "n/a: needs the model block, the global batch and a hardware profile"
    params = scn[MODEL_PARAMETERS]
    per_token = _core.flops_per_token(
        parameters=float(params.ppf(0.5)) if params is not None else 0.0,
        layers=layers,
        hidden_size=hidden,
        heads=heads,
        sequence_length=seq,
        ffn_size=scn[MODEL_FFN_SIZE] or 0.0,
        lora=scn[JOB_KIND] == JobKind.LORA,
        lora_rank=scn[JOB_LORA_RANK],
    )
    profile = scn._core.profile_name
    peak = _shipped_peak_tflops(profile, scn[THROUGHPUT_PRECISION]) if profile else None
    step = float(result._stats()["step_time_s"]["p50"])
    if peak is None or not np.isfinite(step) or step <= 0:
        return "n/a: no peak for this platform and precision"
    chips = scn[CLUSTER_NODES] * shape.chips_per_node
    return f"{per_token * batch * seq / (chips * peak * 1e12 * step):.1%} (P50 step, {scn[THROUGHPUT_PRECISION]})"


def _shipped_peak_tflops(profile: str, precision: str) -> Optional[float]:
    from ._scenario import load_profile

    try:
        peak = load_profile(profile)["peak_tflops_per_chip"][precision]
    except (KeyError, _core.ScenarioError):
        return None
    return float(peak["value"]) if isinstance(peak, dict) and "value" in peak else None


def reviewer_section(doc: Document, results: Dict[str, SimulationResult]) -> None:
    """What a reviewer checks first, the scenarios side by side: where the step time comes from
    and what it implies, the steps, the tokens per step and the layout."""
    doc.heading("What a reviewer checks first")
    rows: List[List[str]] = []
    columns = {name: r for name, r in results.items()}

    def row(label: str, value: Callable[[SimulationResult], str], staged: Optional[Callable[..., str]] = None) -> None:
        """`staged(scenario, result, prefix)`: the value for one stage; a job in stages lists each."""
        cells = []
        for r in columns.values():
            if staged is None or not r.stage_names:
                cells.append(value(r))
                continue
            stages = [Scenario(r.scenario._core.stage(k)) for k in range(len(r.stage_names))]
            values = [staged(s, r, f"{name}/") for name, s in zip(r.stage_names, stages)]
            cells.append(
                values[0] if len(set(values)) == 1 else "; ".join(f"{n}: {v}" for n, v in zip(r.stage_names, values))
            )
        rows.append([label] + cells)

    def cluster(s: Scenario) -> str:
        return f"{s['cluster.nodes']} × {s['cluster.platform'] or 'nodes'}"

    def tokens(s: Scenario) -> str:
        seq, batch = s[MODEL_SEQUENCE_LENGTH], s[PARALLELISM_GLOBAL_BATCH]
        return f"{seq * batch:,} ({batch} × {seq})" if seq and batch else "not given"

    def layout(s: Scenario) -> str:
        if "parallelism" not in s._as_given():
            return "not given"
        cp = f" × cp {s['parallelism.cp']}" if s[PARALLELISM_CP] != 1 else ""
        return (
            f"tp {s['parallelism.tp']}{cp} × pp {s['parallelism.pp']} × dp {s['parallelism.dp']}, "
            f"micro-batch {s['parallelism.micro_batch']}"
        )

    def step(r: SimulationResult, prefix: str = "") -> str:
        q = r._stats()[f"{prefix}step_time_s"]
        return f"{q['p10']:.4g} / {q['p50']:.4g} / {q['p90']:.4g} s"

    def steps(s: Scenario) -> str:
        if s[JOB_TOKENS] is None:
            return _quantiles(s[JOB_EFFECTIVE_STEPS])
        seq, batch = s[MODEL_SEQUENCE_LENGTH], s[PARALLELISM_GLOBAL_BATCH]
        per_step = seq * batch if seq and batch else 0
        steps_of = f" = {math.ceil(float(s['job.tokens'].ppf(0.5)) / per_step):,} steps at the P50" if per_step else ""
        return f"from job.tokens {_quantiles(s['job.tokens'])}{steps_of}"

    row("cluster", lambda r: cluster(r.scenario), lambda s, r, p: cluster(s))
    row("job kind", lambda r: str(r.scenario[JOB_KIND]))
    row("step time from", lambda r: r.step_time_source)
    row("step time P10 / P50 / P90", step, lambda s, r, p: step(r, p))
    row("effective steps P10 / P50 / P90", lambda r: steps(r.scenario), lambda s, r, p: steps(s))
    row("tokens per step", lambda r: tokens(r.scenario), lambda s, r, p: tokens(s))
    row("layout", lambda r: layout(r.scenario), lambda s, r, p: layout(s))
    row("implied MFU", _implied_mfu)
    doc.table(["", *columns], rows)


def time_and_cost(doc: Document, results: Dict[str, SimulationResult]) -> None:
    doc.heading("Time and cost")
    rows = []
    for name, result in results.items():
        s = result._stats()
        prefix = f"{name}: " if len(results) > 1 else ""
        for metric, label, fmt in [
            ("wall_h", "Wall time", _hours),
            ("billed_h", "Billed time", _hours),
            ("node_h", "Node-hours", _count),
            ("run_cost_usd", "Run cost", _money),
            ("adaptation_usd", "Porting effort (risk line)", _money),
            ("total_cost_usd", "Total cost", _money),
        ]:
            rows.append(
                [prefix + label] + [fmt(s[metric][q]) for q in ("p50", "p80", "p90")] + [fmt(s[metric]["mean"])]
            )
    doc.table(["", "P50", "P80", "P90", "mean"], rows)


def cost_per_step(doc: Document, results: Dict[str, SimulationResult]) -> None:
    doc.heading("Cost per step")
    items = []
    for name, result in results.items():
        s = result._stats()
        useful, lifecycle = s["useful_step_cost_usd"]["p50"], s["lifecycle_cost_per_step_usd"]["p50"]
        ratio = lifecycle / useful if np.isfinite(useful) and useful > 0 and np.isfinite(lifecycle) else float("nan")
        prefix = f"{name}: " if len(results) > 1 else ""
        items += [
            f"{prefix}Cost of a useful step (P50): **{_money(useful)}**, what one steady-state step costs.",
            f"{prefix}Lifecycle cost per step (P50): **{_money(lifecycle)}**, run cost ÷ effective steps.",
            f"{prefix}Ratio: **{ratio:.2f}×**, the overhead a price per accelerator-hour hides."
            if np.isfinite(ratio)
            else f"{prefix}Ratio: unknown (needs the node price).",
        ]
    doc.bullets(items)


def phases_section(doc: Document, results: Dict[str, SimulationResult], figures: bool) -> None:
    doc.heading("Where the time goes (mean)")
    names = list(results)
    rows = []
    staged = any(r.stage_names for r in results.values())
    for p in PHASES:
        if p == "transition_h" and not staged:
            continue  # no stages, no transitions
        row = [p]
        for name in names:
            s = results[name]._stats()
            wall = s["wall_h"]["mean"]
            row += [f"{s[p]['mean']:,.2f}", f"{100 * s[p]['mean'] / wall:.1f}%"]
        rows.append(row)
    header = ["phase"] + [
        h for n in names for h in ((f"{n} hours", f"{n} share") if len(names) > 1 else ("hours", "share"))
    ]
    doc.table(header, rows)
    for name, result in results.items():
        s = result._stats()
        doc.paragraph(
            f"{name + ': ' if len(names) > 1 else ''}Goodput (useful ÷ wall) P50 {s['goodput']['p50']:.1%}; "
            f"failures per run mean {s['failures']['mean']:.2f}, P90 {s['failures']['p90']:.0f}."
        )
        if figures and result.kept:
            doc.figure(
                f"phases-{_slug(name)}",
                plot.phases(result).figure,
                f"{name}: phase times, the mean run and the run at the P90 of wall time",
            )


def stages_section(doc: Document, results: Dict[str, SimulationResult], figures: bool) -> None:
    """A multi-stage job's stages, one row each: where its time and cost go."""
    staged = {name: r for name, r in results.items() if r.stage_names}
    if not staged:
        return
    doc.heading("Stages (mean)")
    columns = [
        ("wall_h", "wall h", _hours),
        ("node_h", "node-h", _count),
        ("useful_h", "useful h", _hours),
        ("compile_h", "compile h", _hours),
        ("transition_h", "transition h", _hours),
        ("lost_h", "lost h", _hours),
        ("failures", "failures", lambda v: f"{v:.2f}"),
        ("cost_compute_usd", "compute cost", _money),
    ]
    rows = []
    for name, result in staged.items():
        frame = result.stages()
        for stage in frame.index:
            label = f"{name}: {stage}" if len(results) > 1 else stage
            rows.append([label] + [fmt(frame.loc[stage, m]) for m, _, fmt in columns])
    doc.table(["stage"] + [label for _, label, _ in columns], rows)
    for name, result in staged.items():
        if figures and result.kept:
            doc.figure(
                f"stages-{_slug(name)}",
                plot.stages(result).figure,
                f"{name}: mean hours of each stage, by phase",
            )


def purchase_section(doc: Document, results: Dict[str, SimulationResult]) -> None:
    """How the nodes are bought (docs/lifecycle.md, "Purchase options"): for a capacity block,
    P(fit) with its standard error, the idle (paid, unused) and overflow hours; for spot, the
    interruptions. Shown only when a scenario is not bought on demand."""
    bought = {name: r for name, r in results.items() if r.scenario[PRICES_PURCHASE] != PurchaseMode.ON_DEMAND}
    if not bought:
        return
    doc.heading("Purchase options")
    items = []
    for name, result in bought.items():
        s = result._stats()
        scn = result.scenario
        prefix = f"{name}: " if len(results) > 1 else ""
        if scn[PRICES_PURCHASE] == PurchaseMode.CAPACITY_BLOCK:
            hours = scn[PRICES_BLOCK_HOURS]
            p = float(s["block_fit"]["mean"])
            items += [
                f"{prefix}Capacity block of {hours} h ({hours / 24:g} day{'' if hours == 24 else 's'}): "
                f"**P(fit) = {probability(p, result.samples)}**, the chance the job finishes inside the usable "
                "window.",
                f"{prefix}Idle block hours (paid, unused, the end margin included): P50 "
                f"{_hours(s['block_idle_h']['p50'])} costing {_money(s['block_idle_usd']['p50'])}, mean "
                f"{_hours(s['block_idle_h']['mean'])} costing {_money(s['block_idle_usd']['mean'])}; "
                f"overflow on demand: mean {_hours(s['overflow_h']['mean'])} costing "
                f"{_money(s['overflow_usd']['mean'])}, P90 {_hours(s['overflow_h']['p90'])} costing "
                f"{_money(s['overflow_usd']['p90'])}.",
            ]
        else:
            items.append(
                f"{prefix}Spot: **{s['interruptions']['mean']:.2f} interruptions** on average "
                f"(P90 {s['interruptions']['p90']:.0f}); their saves, waits for capacity and recoveries are in "
                "the phases above."
            )
    doc.bullets(items)


#: The block lengths the sign-off weighs: every whole-day block AWS offers up to 14 days, and
#: when none of them fits, the longer ones up to 182 days searched for the shortest that does.
SIGNOFF_BLOCK_HOURS = [24 * days for days in range(1, 15)]


def block_choice_section(
    doc: Document, results: Dict[str, SimulationResult], samples: int, seed: int, quotes: Mapping[str, Any]
) -> None:
    """For a job on a capacity block, or on demand with block fees quoted (offerings): the shortest
    block that holds it with probability 0.9, its cost beside on demand and spot (tm.purchase_options over 1 to 14 days, and the longer lengths
    up to 182 days searched when none of those fits, on the same seed)."""
    from ._purchase import purchase_options

    for name, result in results.items():
        scn = result.scenario
        on_block = scn[PRICES_PURCHASE] == PurchaseMode.CAPACITY_BLOCK
        if not on_block and quotes.get("offerings") is None:
            continue
        if not on_block:  # on demand, with block fees quoted: the block that would hold the job, beside it
            doc.heading("Capacity blocks beside on demand" + (f": {name}" if len(results) > 1 else ""))
        hours = None if quotes.get("offerings") is not None else SIGNOFF_BLOCK_HOURS
        options = purchase_options(
            scn, block_hours=hours, samples=min(samples, 20_000), seed=seed, progress=False, **quotes
        )
        fees = (
            "each fee is the one quoted in the capacity block offerings, for the lengths offered"
            if hours is None
            else "the fee scales with the block's length at the scenario's own rate per node-hour"
        )
        doc.paragraph(
            f"{name + ': ' if len(results) > 1 else ''}{options.headline()} "
            f"({options.samples:,} samples per option, seed {options.seed}; {fees}.)"
        )
        rows = []
        for _, r in options.table.iterrows():
            if r["purchase"] == PurchaseMode.CAPACITY_BLOCK:
                label = f"block, {int(r['block_hours']) // 24} d"
                fit = probability(r["p_fit"], options.samples)
            else:
                label, fit = str(r["purchase"]).replace("_", " "), "—"
            cost = "not described" if np.isnan(r["cost_p50"]) else f"{_money(r['cost_p50'])} / {_money(r['cost_p90'])}"
            fee = "—" if np.isnan(r["fee_usd"]) else _money(r["fee_usd"])
            idle = "—" if np.isnan(r["block_idle_usd"]) else _money(r["block_idle_usd"])
            rows.append([label, fit, fee, idle, cost, r["note"] or ""])
        doc.table(["option", "P(fit)", "fee", "idle (mean)", "run cost P50 / P90", "note"], rows)


def ledger_section(doc: Document, results: Dict[str, SimulationResult]) -> None:
    doc.heading("Cost ledger (mean)")
    names = list(results)
    summaries = {n: results[n]._stats() for n in names}
    blocks = [n for n in names if results[n].scenario[PRICES_PURCHASE] == PurchaseMode.CAPACITY_BLOCK]
    lines = list(LEDGER_LINES)
    if blocks:
        # A block's compute cost is its fee and the overflow; the fee's idle share is shown
        # inside it, so that the lines above run_cost_usd still sum to it.
        at = lines.index("cost_compute_usd") + 1
        lines[at:at] = BLOCK_LEDGER_LINES
    rows = []
    for m in lines:
        label = f"of which {m}" if m in BLOCK_LEDGER_LINES else m
        cells = [_money(summaries[n][m]["mean"]) if n in blocks or m not in BLOCK_LEDGER_LINES else "—" for n in names]
        rows.append([label] + cells)
    doc.table(["line"] + (names if len(names) > 1 else ["USD"]), rows)


def completeness_section(doc: Document, results: Dict[str, SimulationResult]) -> None:
    """Every phase and whether each scenario describes it: what a reviewer checks first."""
    doc.heading("Completeness: what the estimate includes")
    # Plain dicts, phase -> column -> value: a DataFrame lookup per cell costs tens of microseconds.
    frames = {name: result.scenario.completeness().to_dict("index") for name, result in results.items()}
    first = next(iter(frames.values()))
    rows = []
    for phase in first:
        cells = []
        for frame in frames.values():
            r = frame[phase]
            cells.append(
                r["status"]
                + (f": {r['missing']}, {r['counted as']}" if r["status"] == "not described" else "")
                + (f": {r['unknown']}" if r["status"] == "unknown" else "")
            )
        rows.append([phase, *cells, first[phase]["why"]])
    doc.table(["phase", *frames, "why it matters"], rows)
    for name, result in results.items():
        unmet = [w for w in result.scenario.expectations() if (name, w) not in doc.said]
        if unmet:
            doc.paragraph(f"**{name}: platform expectations not met**")
            doc.bullets(unmet)


def card_section(doc: Document, results: Dict[str, SimulationResult]) -> None:
    """The job card: which of its fields each scenario fills, and which it leaves missing."""
    doc.heading("Job card: the fields filled and missing")
    cards = {name: result.scenario.card().to_dict("index") for name, result in results.items()}
    first = next(iter(cards.values()))
    rows = [
        [
            field,
            *(str(c[field]["value"]) if c[field]["status"] == "filled" else "missing" for c in cards.values()),
        ]
        for field in first
    ]
    doc.table(["field", *(cards if len(cards) > 1 else ["value"])], rows)
    for name, c in cards.items():
        missing = [f for f in c if c[f]["status"] == "missing"]
        if missing:
            label = f"{name}: " if len(cards) > 1 else ""
            doc.paragraph(f"{label}{len(missing)} of {len(c)} job-card fields missing: {', '.join(missing)}.")


def inputs_section(doc: Document, results: Dict[str, SimulationResult], today: Optional[_dt.date]) -> None:
    for name, result in results.items():
        scn = result.scenario
        prov = scn.provenance()
        suffix = f": {name}" if len(results) > 1 else ""
        assumptions = [r for r in prov if r.source in ("assumption", "(none)")]
        doc.heading("Assumptions" + suffix)
        if assumptions:
            doc.table(
                ["input", "value", "note"], [[r.path, r.value, r.note or "(no source given)"] for r in assumptions]
            )
        else:
            doc.paragraph("None: every input has a source.")
        doc.heading("Unknowns" + suffix)
        if result.unknown_inputs:
            doc.bullets([f"`{p}`: {why}" for p, why in result.unknown_inputs.items()])
            doc.paragraph("Metrics that could not be computed: " + ", ".join(result.unknown_metrics) + ".")
        else:
            doc.paragraph("None.")
        doc.heading("What each number rests on" + suffix)
        table = scn.evidence()
        counts = table["evidence"].value_counts()
        doc.paragraph(
            "Evidence classes: "
            + ", ".join(f"{int(counts[c])} {c}" for c in EVIDENCE_CLASSES if c in counts.index)
            + ". Measured: from trial runs (their ids in the note); prior-dominated: a calibrated posterior the "
            "trials barely moved from its prior (an assumption in substance); extrapolated: measured at another "
            "configuration and carried here by the step-time model; model: derived by a model, within its "
            "validation scope; assumed: a stated assumption or no source."
        )
        weak = table[table["evidence"].isin(["prior-dominated", "extrapolated", "model"])]
        if len(weak):
            doc.table(
                ["input", "evidence", "detail"],
                [[path, row.evidence, row.detail] for path, row in weak.iterrows()],
            )
        doc.heading("Measured, vendor and quoted inputs" + suffix)
        sourced = [r for r in prov if r.source in ("measured", "prior", "vendor", "quote", "model")]
        rows = [
            [r.path, r.value, r.source + (f" {r.date} {r.region}".rstrip() if r.source == "quote" else ""), r.note]
            for r in sourced
        ]
        html_rows = [
            [f"<code>{esc(r.path)}</code>", esc(r.value), badge(r.source, r.date, r.region, today), esc(r.note)]
            for r in sourced
        ]
        doc.table(["input", "value", "source", "note"], rows, html_rows)
        warnings = [w for w in stale_quotes(scn, today) if (name, w) not in doc.said]
        if warnings:
            doc.paragraph("**Warnings**")
            doc.bullets(warnings)


# ---- the two reports -----------------------------------------------------------------------------


def budget_report(result: SimulationResult, today: Optional[_dt.date] = None) -> str:
    """The budget study of one simulated scenario, as Markdown (no figures)."""
    doc = Document()
    scn = result.scenario
    doc.heading(f"Budget study: {scn.name or 'scenario'}", 1)
    if scn._as_given().get("description"):
        doc.paragraph(scn._as_given()["description"])
    doc.paragraph(_job_line(result))
    results = {scn.name or "scenario": result}
    reviewer_section(doc, results)
    time_and_cost(doc, results)
    cost_per_step(doc, results)
    phases_section(doc, results, figures=False)
    stages_section(doc, results, figures=False)
    purchase_section(doc, results)
    ledger_section(doc, results)
    completeness_section(doc, results)
    card_section(doc, results)
    inputs_section(doc, results, today)
    return doc.markdown()


class _Stopped(BaseException):
    """Raised in a background run's progress callback to stop it (the sign-off was interrupted)."""


class _Background:
    """The sign-off's later runs (tornado, Sobol, the comparison and its break-even) on one worker
    thread, while this thread draws the figures: the engine releases the GIL, so the two overlap.
    The same runs on the same seeds, one after the other, so the same numbers (the engine's
    results do not depend on the thread that runs them). Interrupting the sign-off stops the
    run under way at its next wave."""

    def __init__(self, progress: ProgressArg, executor: Any = None) -> None:
        self._executor = executor
        self._cancelled = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trnmodel-signoff")
        user = progress if callable(progress) and not isinstance(progress, bool) else None

        def checked(done: int, total: int) -> None:
            if self._cancelled.is_set():
                raise _Stopped()
            if user is not None:
                user(done, total)

        #: The progress argument of a background run (no bar: they run beside the figures).
        self.progress = checked

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> "Future[Any]":
        def call() -> Any:
            with running_on(self._executor):  # where runs go is set per thread
                return fn(*args, **kwargs)

        return self._pool.submit(call)

    def close(self, cancel: bool) -> None:
        if cancel:
            self._cancelled.set()
        self._pool.shutdown(wait=True, cancel_futures=cancel)


class _Drivers(NamedTuple):
    """What drives a scenario's outputs: the tornado of the report's output (None when it needs
    unknown inputs) and the Sobol indices of each output asked for that the scenario knows."""

    bars: Any
    indices: Dict[str, Any]


def _indices_of(drivers: "Future[_Drivers]", output: str) -> Callable[[], Any]:
    """The Sobol indices of ``output`` from a scenario's driver runs, once they are done (None
    when the output needs unknown inputs)."""
    return lambda: drivers.result().indices.get(output)


def _driver_runs(
    scenario: Scenario,
    output: str,
    samples: int,
    sobol_base_samples: int,
    seed: int,
    threads: Optional[int],
    progress: ProgressArg,
    executor: Any = None,
    sobol_outputs: Sequence[str] = (),
) -> _Drivers:
    """The tornado of ``output`` and the Sobol indices of ``output`` and of ``sobol_outputs``
    (the decision page's metric), all of them from one Saltelli design."""
    unknown = _core.lifecycle_info(scenario._core).unknown_metrics
    known = [o for o in dict.fromkeys([output, *sobol_outputs]) if o not in unknown]
    bars = (
        None
        if output in unknown
        else tornado(scenario, output=output, samples=samples, seed=seed, threads=threads, progress=progress)
    )
    indices = (
        sobol(
            scenario,
            output=known,
            base_samples=sobol_base_samples,
            seed=seed,
            threads=threads,
            progress=progress,
            executor=executor,
        )
        if known
        else {}
    )
    return _Drivers(bars, indices)


def _comparison_runs(
    results: "Future[Dict[str, SimulationResult]]",
    output: str,
    threads: Optional[int],
    break_even_path: str,
    progress: ProgressArg,
) -> Tuple[Any, ...]:
    """The comparison of the sign-off: the two simulations (``results``, once the main thread
    has them) compared on their common random numbers, the partly paired check (of ``output``
    and of wall time) and the break-even (or why it was not found)."""
    ra, rb = results.result().values()
    cmp = _comparison_of_results(ra, rb, output, threads)
    cmp._partly_paired_outputs([output, "wall_h"])  # both in one run per side
    check = cmp.pairing_check()
    wall_unpaired = cmp._partly_paired("wall_h")
    try:
        break_even: Any = cmp.break_even(break_even_path, progress=progress)
    except Exception as e:  # noqa: BLE001 (a break-even outside the bracket is reported, not fatal)
        break_even = e
    return cmp, check, wall_unpaired, break_even


def signoff_report(
    a: Scenario,
    b: Optional[Scenario] = None,
    samples: int = 100_000,
    seed: int = 0,
    output: str = "run_cost_usd",
    drivers_samples: int = 10_000,
    sobol_base_samples: int = 2**11,
    break_even_path: str = PRICES_NODE_HOUR_USD,
    today: Optional[_dt.date] = None,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    quotes: Optional[Mapping[str, Any]] = None,
    plan: Optional[Plan] = None,
    executor: Any = None,
) -> Document:
    """The budget sign-off of scenario ``a`` (and its comparison with ``b``), as a Document.

    Simulates each scenario ``samples`` times (``seed``), ranks the inputs that move
    ``output`` (tornado, ``drivers_samples`` per run), measures how much of its variance is
    chance (Sobol, ``sobol_base_samples``), and with ``b``: P(A < B) on common random numbers
    and the value of ``break_even_path`` in B at which B's mean equals A's. ``progress`` goes
    to every run (see :func:`tm.simulate`). ``quotes`` passes ``offerings``,
    ``offerings_date`` and ``spot_history`` to the block choice (see :func:`tm.purchase_options`).
    With ``b`` or a ``plan`` (:class:`tm.Plan`) the document opens with the decision page
    (docs/decisions.md, "The decision page"): the advice, the strategies' costs (the dual track
    from the plan), payback and what to measure next. ``executor``: a
    ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; every run's blocks run
    there, with the local bits (docs/scaling.md)."""
    today = today or _dt.date.today()
    check_plan(plan)  # before any run starts
    scenarios = named_scenarios(a, b)
    background = _Background(progress, executor)
    try:
        # The later runs start first, in the order the document needs them, beside the simulations.
        # The decision page's Sobol indices come from the drivers' design (one lifecycle per row).
        deciding = b is not None or plan is not None
        drivers = {
            name: background.submit(
                _driver_runs,
                scn,
                output,
                drivers_samples,
                sobol_base_samples,
                seed,
                threads,
                background.progress,
                executor,
                [DECISION_METRIC] if deciding else [],
            )
            for name, scn in scenarios.items()
        }
        # A comparison of an output one side cannot compute (an unknown price) is left out, and
        # the document says why, rather than failing the whole sign-off.
        comparable = b is not None and all(output not in _core.lifecycle_info(x._core).unknown_metrics for x in (a, b))
        # The comparison and the payback take the simulations below (the same seed and samples:
        # the same common random numbers) rather than simulating both scenarios again.
        simulated: "Future[Dict[str, SimulationResult]]" = Future()
        decision = (
            background.submit(
                decision_runs,
                scenarios,
                plan,
                samples=samples,
                sobol_base_samples=sobol_base_samples,
                seed=seed,
                threads=threads,
                progress=background.progress,
                executor=executor,
                results=simulated,
                indices={name: _indices_of(found, DECISION_METRIC) for name, found in drivers.items()},
            )
            if deciding
            else None
        )
        comparison = (
            background.submit(_comparison_runs, simulated, output, threads, break_even_path, background.progress)
            if comparable
            else None
        )
        try:
            # B's inputs are drawn into an array its break-even and pairing check read back
            # (the same numbers on the same seed and samples), instead of drawing them twice more.
            results = {
                name: simulate(
                    s,
                    samples=samples,
                    seed=seed,
                    threads=threads,
                    allow_unknown=True,
                    progress=progress,
                    executor=executor,
                    _keep_draws=comparable and name == list(scenarios)[1],
                )
                for name, s in scenarios.items()
            }
        except BaseException as e:
            simulated.set_exception(e)  # the runs waiting for the simulations stop too
            raise
        simulated.set_result(results)
        with running_on(executor):  # the runs the document makes itself (a block's length)
            return _signoff_document(
                scenarios,
                results,
                drivers,
                comparison,
                decision,
                samples=samples,
                seed=seed,
                output=output,
                break_even_path=break_even_path,
                today=today,
                quotes=quotes or {},
            )
    except BaseException:
        background.close(cancel=True)
        raise
    finally:
        background.close(cancel=False)


def _signoff_document(
    scenarios: Dict[str, Scenario],
    results: Dict[str, SimulationResult],
    drivers: Dict[str, "Future[Any]"],
    comparison: Optional["Future[Any]"],
    decision: Optional["Future[Any]"],
    *,
    samples: int,
    seed: int,
    output: str,
    break_even_path: str,
    today: _dt.date,
    quotes: Mapping[str, Any],
) -> Document:
    names = list(results)
    doc = Document()
    doc.heading("Budget sign-off: " + " vs ".join(names), 1)
    doc.paragraph(
        f"Prepared {today.isoformat()} with trnmodel. {samples:,} Monte Carlo samples per scenario, seed {seed}; "
        "times in hours, costs in USD. Every input is uncertain; P50 is the middle outcome, P90 the outcome "
        "not exceeded in nine runs out of ten."
    )
    # The decision page opens the document but is written last, once its background runs are
    # done: the sections below are written meanwhile instead of waiting for them.
    decision_at = (len(doc.blocks), len(doc.summary))
    if decision is not None:
        doc.heading("The estimates")
    headline = []
    for name, result in results.items():
        s = result._stats()
        headline.append(
            f"**{name}**: run cost P50 **{_money(s['run_cost_usd']['p50'])}**, P90 "
            f"**{_money(s['run_cost_usd']['p90'])}**; total cost with porting effort P50 "
            f"{_money(s['total_cost_usd']['p50'])}, P90 {_money(s['total_cost_usd']['p90'])}; "
            f"wall time P50 {_hours(s['wall_h']['p50'])}, P90 {_hours(s['wall_h']['p90'])}."
        )
    for name, result in results.items():
        left_out = result.scenario.not_described()
        if left_out:
            headline.append(
                f"**{name} leaves out {len(left_out)} phase{'s' if len(left_out) != 1 else ''}** (not described, "
                f"counted as 0): {'; '.join(left_out)}."
            )
    for name, result in results.items():
        headline.append(f"**{name} rests on**: {evidence_line(result.scenario)}.")
    for name, result in results.items():
        for w in stale_quotes(result.scenario, today):
            doc.said.add((name, w))
            headline.append(f"**Warning**: {name}: {w}")
    said = doc.said  # each warning once: the sections below leave out what the headline said
    for name, result in results.items():
        for w in result.scenario.implausible() + result.scenario.expectations() + result.implausible_tail():
            if (name, w) not in said:
                said.add((name, w))
                headline.append(f"**Warning**: {name}: {w}")
    doc.bullets(headline)
    doc.summary += headline

    doc.heading("Job card")
    for name, result in results.items():
        d = result.scenario._as_given()
        if d.get("description"):
            doc.paragraph(f"**{name}**: {d['description']}")
        doc.paragraph(_job_line(result))
    reviewer_section(doc, results)

    time_and_cost(doc, results)
    for name, result in results.items():
        if output in result.unknown_metrics:  # no price quoted yet: say so rather than plot nothing
            doc.paragraph(f"{name}: {output} is unknown (unknown inputs: {', '.join(result.unknown_inputs)}); no plot.")
            continue
        doc.figure(
            f"distribution-{_slug(name)}",
            plot.distribution(result, output, label=f"{name}: {output}").figure,
            f"{name}: distribution of {output} (histogram and CDF; P50, P80, P90 marked)",
        )
    cost_per_step(doc, results)
    phases_section(doc, results, figures=True)
    stages_section(doc, results, figures=True)
    purchase_section(doc, results)
    block_choice_section(doc, results, samples, seed, quotes)
    ledger_section(doc, results)

    doc.heading("What drives the estimate")
    for name in scenarios:
        found = drivers[name].result()
        if found.bars is None:
            doc.paragraph(f"{name}: {output} needs unknown inputs; no drivers.")
            continue
        bars, indices = found.bars, found.indices[output]
        top = bars[bars["swing"].notna()].head(3)
        doc.paragraph(
            f"**{name}**: the inputs that move the mean {output} most, each from its P10 to its P90 "
            f"(others random): " + "; ".join(f"{f} (swing {_money(r.swing)})" for f, r in top.iterrows()) + "."
        )
        doc.figure(
            f"tornado-{_slug(name)}",
            plot.tornado(bars).figure,
            f"{name}: mean {output} with each input at its P10 and P90",
        )
        if "chance" in indices.index:
            chance = indices.loc["chance"]
            doc.paragraph(
                f"Chance (failures, cache misses, the quality gate) explains {chance.ST:.0%} ± {chance.ST_conf:.0%} of "
                f"the variance of {output} (total Sobol index); the rest is what we do not know yet about the "
                "inputs, which measurements can reduce."
            )
    if comparison is None and len(names) == 2:
        doc.heading(f"Comparison: {names[0]} vs {names[1]}")
        unknown = sorted({p for r in results.values() for p in r.unknown_inputs})
        doc.paragraph(
            f"Not computed: {output} needs unknown inputs ({', '.join(unknown)}). Give them (a quote for each "
            "price) to compare the costs; the times above compare without them."
        )
        unequal = unequal_evidence(names[0], scenarios[names[0]], names[1], scenarios[names[1]])
        if unequal:
            doc.paragraph(unequal)
    comparison_at = (len(doc.blocks), len(doc.summary))
    completeness_section(doc, results)
    card_section(doc, results)
    inputs_section(doc, results, today)
    # The sections that wait for the background runs are written last, in the order those runs
    # end (the decision's, then the comparison's), and put at their places (the later place
    # first, so that the earlier one has not moved).
    pages = []
    if decision is not None:
        page = Document()
        page.summary += decision_section(page, scenarios, results, decision.result())
        pages.append((decision_at, page))
    if comparison is not None:
        page = Document()
        _comparison_section(page, scenarios, results, comparison.result(), output, break_even_path)
        pages.append((comparison_at, page))
    for (block, line), page in sorted(pages, key=lambda placed: placed[0], reverse=True):
        doc.blocks[block:block] = page.blocks
        doc.summary[line:line] = page.summary
    return doc


def _comparison_section(
    doc: Document,
    scenarios: Dict[str, Scenario],
    results: Dict[str, SimulationResult],
    found: Tuple[Any, ...],
    output: str,
    break_even_path: str,
) -> None:
    """The comparison of the two scenarios: P(A < B) on common random numbers and partly paired,
    the difference's quantiles, the break-even and the comparison's figure."""
    names = list(results)
    name_a, name_b = names
    doc.heading(f"Comparison: {name_a} vs {name_b}")
    # The comparison is made of the two simulations above (the same seed and samples: common
    # random numbers), so the other metrics' P(A < B) come from those runs too.
    cmp, check, wall_unpaired, value = found
    diff = np.asarray(cmp.difference, dtype=float)
    ties = float(np.mean(diff == 0))
    p10, p50, p90 = cmp._core.quantiles("difference", [0.1, 0.5, 0.9])  # exact, as numpy.quantile's

    def p_less(metric: str) -> float:
        return float(np.mean(results[name_a][metric] < results[name_b][metric]))

    unpaired = [p for p in check["unpaired"] if not p.startswith("engineering.")]
    items = [
        f"P({name_a} cheaper than {name_b}, {output}) = **{cmp.p_a_less_b:.1%}** on common random numbers "
        "(the job's inputs and luck drawn once for both, each platform's step time, prices, compiler, "
        'reliability and porting effort drawn on its own: docs/sensitivity.md, "What two scenarios share")'
        + (f"; the two are equal in {ties:.1%} of the samples" if ties > 0 else "")
        + ".",
        "With only the inputs both scenarios describe identically paired, and the others ("
        + ", ".join(f"`{p}`" for p in unpaired[:6])
        + (", …" if len(unpaired) > 6 else "")
        + ") and all chance events drawn independently: **"
        f"{check['p_a_less_b']:.1%}**. The two figures differ by the job's inputs the scenarios describe "
        "differently and by the job's shared luck (its quality gate and restore checks).",
        f"Difference in {output} ({name_a} − {name_b}), common random numbers: P10 {_money(p10)}, "
        f"P50 {_money(p50)}, P90 {_money(p90)}.",
        f"P({name_a} finishes first) = {p_less('wall_h'):.1%} on common random numbers, "
        f"{float(np.mean(wall_unpaired[0] < wall_unpaired[1])):.1%} with only identical inputs paired.",
    ]
    unequal = unequal_evidence(name_a, scenarios[name_a], name_b, scenarios[name_b])
    if unequal:
        items.insert(1, unequal)
    if output != "total_cost_usd" and not any("total_cost_usd" in r.unknown_metrics for r in results.values()):
        items.append(
            f"Including the porting effort (`total_cost_usd`): P({name_a} cheaper) = "
            f"**{p_less('total_cost_usd'):.1%}** on common random numbers."
        )
    if not isinstance(value, Exception):
        items.append(
            f"Break-even: {name_b}'s mean {output} equals {name_a}'s when `{break_even_path}` of "
            f"{name_b} is **{value:,.2f}** (now {scenarios[name_b][break_even_path].mean():,.2f})."
        )
    else:
        items.append(f"Break-even on `{break_even_path}`: not found ({value}).")
    doc.bullets(items)
    doc.summary += items
    doc.figure(
        "comparison",
        plot.comparison(cmp).figure,
        f"{output}: the paired difference A − B, sample by sample on the same random numbers, with 0 marked "
        "(the share left of 0 is P(A < B)), beside each side's distribution",
    )


def report(
    a: Scenario,
    b: Optional[Scenario] = None,
    path: Optional[Any] = None,
    samples: int = 100_000,
    seed: int = 0,
    output: str = "run_cost_usd",
    break_even_path: str = PRICES_NODE_HOUR_USD,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    *,
    offerings: Any = None,
    offerings_date: Optional[str] = None,
    spot_history: Any = None,
    plan: Optional[Plan] = None,
    executor: Any = None,
) -> Document:
    """The budget sign-off of scenario ``a`` (and its comparison with ``b``), as in
    ``trnmodel report``: simulates each scenario ``samples`` times (default 100,000, ``seed``
    0), ranks the drivers of ``output`` (default ``run_cost_usd``), measures how much is chance,
    and with ``b`` gives P(A < B) and the break-even of ``break_even_path`` (default
    ``prices.node_hour_usd``) in B. With ``path`` (an .html file) it also writes the
    self-contained HTML page and its Markdown twin beside it. With ``offerings`` (saved
    ``aws ec2 describe-capacity-block-offerings`` outputs; ``offerings_date`` the day they were
    read) and ``spot_history`` (a saved ``aws ec2 describe-spot-price-history`` output), a
    capacity-block job's choice of length uses the quoted fees and the spot price's history (see
    :func:`tm.purchase_options`). With ``plan`` (a :class:`tm.Plan`), the decision page that
    opens the report costs the dual track beside the two single tracks. Returns the document:
    ``doc.summary`` (the headline lines), ``doc.html(title)``, ``doc.markdown()``.
    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; every
    run's blocks run there, with the local bits (docs/scaling.md)."""
    doc = signoff_report(
        a,
        b,
        samples=samples,
        seed=seed,
        output=output,
        break_even_path=break_even_path,
        threads=threads,
        progress=progress,
        quotes={
            k: v
            for k, v in dict(offerings=offerings, offerings_date=offerings_date, spot_history=spot_history).items()
            if v is not None
        },
        plan=plan,
        executor=executor,
    )
    if path is not None:
        write_signoff(
            doc, pathlib.Path(path), f"Budget sign-off: {a.name}" + (f" vs {b.name}" if b is not None else "")
        )
    return doc


def write_signoff(doc: Document, html_path: pathlib.Path, title: str) -> pathlib.Path:
    """Writes ``report.html`` (self-contained) and its Markdown twin ``report.md`` with its
    figures in ``report_files/``; returns the Markdown path."""
    html_path.parent.mkdir(parents=True, exist_ok=True)
    html_path.write_text(doc.html(title), encoding="utf-8")
    md_path = html_path.with_suffix(".md")
    figure_dir = html_path.with_name(html_path.stem + "_files")
    md_path.write_text(doc.markdown(figure_dir, figure_dir.name), encoding="utf-8")
    return md_path


__all__ = ["report", "budget_report", "signoff_report", "write_signoff", "stale_quotes", "provenance_rows", "Document"]
