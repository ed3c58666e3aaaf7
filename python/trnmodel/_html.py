"""Rich display in Jupyter (``_repr_html_``): the job card with its provenance marks, result
summaries and tables. Plain HTML with a small scoped stylesheet, no scripts, so the same
markup goes into the self-contained sign-off report.

Renderers take data (a scenario's provenance rows, a result's summary table) and import no
domain module: the result classes import them, never the other way round."""

from __future__ import annotations

import datetime as _dt
from typing import Any, List, Optional

import numpy as np

from ._format import (  # noqa: F401  (STYLE, badge, card, esc, number, table: this module's public helpers)
    QUOTE_MAX_AGE_DAYS,
    STYLE,
    badge,
    card,
    esc,
    number,
    quote_age_days,
)
from ._format import html_table as table
from ._metrics import KEY_METRICS, PHASES
from .fields import CLUSTER_NODES, STAGE_BLOCKS, THROUGHPUT_MODE, THROUGHPUT_STEP_TIME_S, ThroughputMode


def extrapolation_text(log_spread: float) -> str:
    """What an extrapolated step time carries: the P10–P90 range of its fitted error factor
    (lognormal, median 1, sigma = ``log_spread``; docs/validation.md, "Extrapolation error")."""
    z90 = 1.2815515655446004  # standard normal 90th percentile
    low, high = (1 - np.exp(-z90 * log_spread)) * 100, (np.exp(z90 * log_spread) - 1) * 100
    return f"step time extrapolated from the reference measurement with a fitted error of −{low:.0f} %/+{high:.0f} % (P10–P90)"


def _step_time_fact(scenario: Any) -> str:
    """Where the step time comes from: given in the scenario (with its source) or derived."""
    mode = scenario[THROUGHPUT_MODE]
    spreads = scenario.extrapolation_log_spreads()
    if len(spreads) > 1 and any(spreads.values()):
        # A job in stages: each stage extrapolates its own layout, with its own error.
        return "; ".join(
            f"{esc(name)}: {esc(extrapolation_text(sigma)) if sigma > 0 else 'not extrapolated'}"
            for name, sigma in spreads.items()
        )
    if mode == ThroughputMode.EXTRAPOLATED:
        return esc(extrapolation_text(scenario.extrapolation_log_spread()))
    if mode != ThroughputMode.MEASURED:
        return f"step time derived ({esc(mode)} mode)"
    step = scenario[THROUGHPUT_STEP_TIME_S]
    spec = step.to_dict() if step is not None else {}
    source = spec.get("source", "no source") if isinstance(spec, dict) else "no source"
    return f"step time given (source: {esc(source)})"


def stage_inherits(top: dict, stage: dict) -> List[str]:
    """What a stage takes from the top level: a whole block by its name, the rest of a block it
    gives in part by each field's path (of cluster only the node count, the one cluster field a stage may give)."""
    inherited = []
    for block in STAGE_BLOCKS:
        fields = top.get(block)
        if not isinstance(fields, dict) or not fields:
            continue
        keys = ["nodes"] if block == "cluster" else list(fields)
        keys = [k for k in keys if k in fields]
        own = stage.get(block)
        if not isinstance(own, dict):
            if keys:
                inherited.append(block if block != "cluster" else CLUSTER_NODES)
            continue
        inherited += [f"{block}.{k}" for k in keys if k not in own]
    return inherited


def _stages_facts(d: dict) -> list:
    """A multi-stage job's stages, in order, with what each gives itself and what it inherits
    from the top level (nothing a stage runs with is left unsaid)."""
    stages = d.get("stages") or []
    if not stages:
        return []
    rows = []
    for k, stage in enumerate(stages):
        changed = [
            f"{block}.{key}" if isinstance(fields, dict) else block
            for block, fields in stage.items()
            if block != "name"
            for key in (fields if isinstance(fields, dict) else [None])
        ]
        rows.append(
            [
                str(k + 1),
                f"<code>{esc(stage.get('name', ''))}</code>",
                esc(", ".join(changed) or "(top level)"),
                esc(", ".join(stage_inherits(d, stage)) or "nothing"),
            ]
        )
    return [f"<h3>{len(stages)} stages</h3>", table(["", "stage", "gives itself", "inherits from the top level"], rows)]


def stages_html(result: Any) -> str:
    """The per-stage table of a multi-stage simulation (mean of each per-stage metric)."""
    frame = result.stages()
    cols = list(frame.columns)
    rows = [[f"<code>{esc(stage)}</code>"] + [number(frame.loc[stage, c]) for c in cols] for stage in frame.index]
    return "<h3>Stages (mean)</h3>" + table(["stage"] + cols, rows, numeric=[False] + [True] * len(cols))


def scenario_html(scenario: Any, today: Optional[_dt.date] = None) -> str:
    """The job card: what runs where, and every given input with its provenance
    (``scenario.provenance()``)."""
    d = scenario.to_dict()
    job, cluster = d.get("job", {}), d.get("cluster", {})
    body = []
    if d.get("description"):
        body.append(f'<p class="note">{esc(d["description"])}</p>')
    facts = [
        f"{esc(cluster.get('nodes', '?'))} × {esc(cluster.get('platform', 'nodes'))}",
        f"job kind {esc(job.get('kind', 'full'))}",
        _step_time_fact(scenario),
    ]
    body.append(f"<p>{' · '.join(facts)}</p>")
    body.extend(_stages_facts(d))
    provenance = scenario.provenance()
    rows = [
        [
            f"<code>{esc(r.path)}</code>",
            esc(r.value),
            badge(r.source, r.date, r.region, today),
            f'<span class="note">{esc(r.note)}</span>',
        ]
        for r in provenance
    ]
    body.append(table(["input", "value", "source", "note"], rows))
    left_out = scenario.not_described()
    if left_out:
        body.append('<p class="warn">Not described, counted as 0: ' + "; ".join(esc(m) for m in left_out) + "</p>")
    else:
        body.append("<p>Every lifecycle phase is described.</p>")
    assumed = scenario.defaults_assumed()
    if assumed:
        body.append('<p class="warn">Defaults assumed: ' + "; ".join(esc(m) for m in assumed) + "</p>")
    body.extend(f'<p class="warn">{esc(w)}</p>' for w in scenario.expectations())
    job_card = scenario.card()
    missing = [f for f in job_card.index if job_card.loc[f, "status"] == "missing"]
    filled = len(job_card) - len(missing)
    body.append(
        f"<p>Job card: {filled} of {len(job_card)} fields filled"
        + (f'; <span class="warn">missing: {esc(", ".join(missing))}</span>' if missing else "")
        + "</p>"
    )
    if filled:
        body.append(
            table(
                ["job card", "value"],
                [
                    [f"<code>{esc(f)}</code>", esc(job_card.loc[f, "value"])]
                    for f in job_card.index
                    if job_card.loc[f, "status"] == "filled"
                ],
            )
        )
    # What each number rests on (Scenario.evidence()): a derived step time counts as a model's.
    evidence = scenario.evidence()
    counts = evidence["evidence"].value_counts()
    body.append("<p>Rests on: " + ", ".join(f"{int(n)} {esc(str(k))}" for k, n in sorted(counts.items())) + "</p>")
    shown = {r.path for r in provenance}  # the table above has the inputs' notes; add what it lacks
    body.extend(
        f'<p class="note"><code>{esc(str(path))}</code>: {esc(str(row.evidence))}: {esc(str(row.detail))}</p>'
        for path, row in evidence.iterrows()
        if path not in shown
    )
    return card(f"Scenario {scenario.name or '(unnamed)'}", body)


def simulation_html(result: Any) -> str:
    """A simulation's summary: the key metrics' quantiles and where the time goes."""
    s = result.summary()
    cols = ["mean", "p10", "p50", "p80", "p90"]
    rows = [[f"<code>{esc(m)}</code>"] + [number(s.loc[m, c]) for c in cols] for m in KEY_METRICS if m in s.index]
    body = [table(["metric"] + cols, rows, numeric=[False] + [True] * len(cols))]
    wall = float(s.loc["wall_h", "mean"])
    phase_rows = []
    staged = bool(getattr(result, "stage_names", None))
    for p in PHASES:
        if p == "transition_h" and not staged:
            continue  # a job without stages has no transitions
        v = float(s.loc[p, "mean"])
        share = v / wall if wall > 0 and np.isfinite(v) else 0.0
        phase_rows.append(
            [
                f"<code>{esc(p)}</code>",
                number(v),
                f"{100 * share:.1f}%",
                f'<span class="bar" style="width:{max(1, round(240 * share))}px"></span>',
            ]
        )
    body.append("<h3>Where the time goes (mean hours)</h3>")
    body.append(table(["phase", "hours", "share", ""], phase_rows, numeric=[False, True, True, False]))
    if getattr(result, "stage_names", None):
        body.append(stages_html(result))
    if result.unknown_inputs:
        body.append(
            '<p class="warn">Unknown inputs: '
            + ", ".join(f"<code>{esc(p)}</code>" for p in result.unknown_inputs)
            + "; NaN metrics: "
            + ", ".join(esc(m) for m in result.unknown_metrics)
            + "</p>"
        )
    counts = result.scenario.evidence()["evidence"].value_counts()
    body.append(
        "<p>Rests on: "
        + ", ".join(f"{int(n)} {esc(str(k))}" for k, n in sorted(counts.items()))
        + " (scenario.evidence())</p>"
    )
    return card(f"{result.scenario.name or 'Scenario'}: {result.samples:,} samples", body)


def frame_html(frame: Any, title: str, float_format: str = "{:,.4g}") -> str:
    """A pandas DataFrame as a card."""
    return card(title, [frame.to_html(float_format=float_format.format, border=0, escape=True)])


def comparison_html(output: str, name_a: str, name_b: str, samples: int, p_a_less_b: float, summary: Any) -> str:
    """Two scenarios compared on common random numbers: P(A < B) and the summary of a, b, a − b."""
    table_html = summary[["mean", "p10", "p50", "p90"]].to_html(float_format="{:,.4g}".format, border=0)
    return card(
        f"Comparison of {output}",
        [
            f"<p>A = {esc(name_a)}, B = {esc(name_b)}; {samples:,} samples on common random "
            f"numbers. <b>P(A &lt; B) = {p_a_less_b:.3f}</b></p>",
            table_html,
        ],
    )


def calibration_html(inputs: Any, unmeasured: Any, warnings: Any) -> str:
    """A calibration: the measured inputs, those kept from the base, and the warnings."""
    body = [inputs.to_html(border=0), "<h3>Unmeasured (kept from the base)</h3>", unmeasured.to_html(border=0)]
    body += [f'<p class="warn">{esc(w)}</p>' for w in warnings]
    return card("Calibration", body)


def monte_carlo_html(outputs: Any, samples: int, summary: Any) -> str:
    """A Monte Carlo run's summary table."""
    return frame_html(summary, f"Monte Carlo: {samples:,} samples of {', '.join(outputs)}")
