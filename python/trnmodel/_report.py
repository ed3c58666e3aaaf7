"""The budget study as Markdown: what a manager signs off (DESIGN §1).

P50/P80/P90 time and cost, the cost of a useful step beside the lifecycle cost per step,
where the time goes, the cost ledger, and the assumptions, quotes and unknowns behind it.
"""
from __future__ import annotations

import datetime as _dt
from typing import List, Optional

import numpy as np

from ._scenario import Scenario
from ._simulate import PHASES, SimulationResult

QUOTE_MAX_AGE_DAYS = 30


def _money(x: float) -> str:
    if not np.isfinite(x):
        return "unknown"
    return f"${x:,.0f}" if abs(x) >= 100 else f"${x:,.2f}" if abs(x) >= 1 else f"${x:,.4f}"


def _hours(x: float) -> str:
    if not np.isfinite(x):
        return "unknown"
    return f"{x:,.1f} h" if x < 72 else f"{x:,.0f} h ({x / 24:,.1f} d)"


def _table(header: List[str], rows: List[List[str]]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def provenance_rows(scenario: Scenario):
    """(path, value, source, note, date, region) of every given quantity."""
    for path, d, given in scenario.inputs():
        if not given or d is None:
            continue
        spec = d.to_dict()
        meta = spec if isinstance(spec, dict) else {}
        if d.is_unknown:
            yield path, "unknown", "unknown", meta.get("unknown", ""), "", ""
            continue
        shown = {k: v for k, v in meta.items() if k not in ("source", "note", "date", "region")} or spec
        yield (path, _describe(shown), meta.get("source", "(none)"), meta.get("note", ""),
               meta.get("date", ""), meta.get("region", ""))


def _describe(spec) -> str:
    if not isinstance(spec, dict):
        return f"{spec:g}"
    family = spec.get("dist", "")
    params = ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}=…" for k, v in spec.items() if k != "dist")
    return f"{family}({params})"


def stale_quotes(scenario: Scenario, today: Optional[_dt.date] = None) -> List[str]:
    """Warnings for price quotes older than 30 days."""
    today = today or _dt.date.today()
    warnings = []
    for path, _, source, _, date, region in provenance_rows(scenario):
        if source == "quote" and date:
            age = (today - _dt.date.fromisoformat(date)).days
            if age > QUOTE_MAX_AGE_DAYS:
                warnings.append(f"{path}: quote of {date}{' (' + region + ')' if region else ''} is {age} days old; "
                                f"confirm it before sign-off")
        elif source == "quote":
            warnings.append(f"{path}: quote without a date; confirm it before sign-off")
    return warnings


def budget_report(result: SimulationResult, today: Optional[_dt.date] = None) -> str:
    """The budget study of one simulated scenario, as Markdown."""
    scn = result.scenario
    s = result.summary()
    card = scn.to_dict()
    lines = [f"# Budget study: {scn.name or 'scenario'}", ""]
    if card.get("description"):
        lines += [card["description"], ""]
    job, cluster = card.get("job", {}), card.get("cluster", {})
    lines += [f"{cluster.get('nodes')} × {cluster.get('platform', 'nodes')}, job kind {job.get('kind', 'full')}; "
              f"{result.samples:,} Monte Carlo samples. Times in hours, costs in USD.", ""]

    lines += ["## Time and cost", ""]
    rows = []
    for metric, label, fmt in [("wall_h", "Wall time", _hours), ("billed_h", "Billed time", _hours),
                               ("node_h", "Node-hours", lambda x: f"{x:,.0f}" if np.isfinite(x) else "unknown"),
                               ("run_cost_usd", "Run cost", _money), ("adaptation_usd", "Porting effort (risk line)", _money),
                               ("total_cost_usd", "Total cost", _money)]:
        rows.append([label] + [fmt(s.loc[metric, q]) for q in ("p50", "p80", "p90")] + [fmt(s.loc[metric, "mean"])])
    lines += _table(["", "P50", "P80", "P90", "mean"], rows) + [""]

    useful = s.loc["useful_step_cost_usd", "p50"]
    lifecycle = s.loc["lifecycle_cost_per_step_usd", "p50"]
    ratio = lifecycle / useful if np.isfinite(useful) and useful > 0 and np.isfinite(lifecycle) else float("nan")
    lines += ["## Cost per step", "",
              f"- Cost of a useful step (P50): **{_money(useful)}**, what one steady-state step costs.",
              f"- Lifecycle cost per step (P50): **{_money(lifecycle)}**, run cost ÷ effective steps.",
              f"- Ratio: **{ratio:.2f}×**, the overhead a price per accelerator-hour hides." if np.isfinite(ratio)
              else "- Ratio: unknown (needs the node price).", ""]

    wall_mean = s.loc["wall_h", "mean"]
    lines += ["## Where the time goes (mean)", ""]
    lines += _table(["phase", "hours", "share"],
                    [[p, f"{s.loc[p, 'mean']:,.2f}", f"{100 * s.loc[p, 'mean'] / wall_mean:.1f}%"] for p in PHASES])
    lines += ["", f"Goodput (useful ÷ wall) P50 {s.loc['goodput', 'p50']:.1%}; "
                  f"failures per run mean {s.loc['failures', 'mean']:.2f}, P90 {s.loc['failures', 'p90']:.0f}.", ""]

    lines += ["## Cost ledger (mean)", ""]
    lines += _table(["line", "USD"], [[m, _money(s.loc[m, "mean"])] for m in
                                      ["cost_compute_usd", "cost_storage_usd", "cost_transfer_usd", "cost_logs_usd",
                                       "run_cost_usd", "adaptation_usd", "total_cost_usd"]]) + [""]

    prov = list(provenance_rows(scn))
    assumptions = [r for r in prov if r[2] in ("assumption", "(none)")]
    lines += ["## Assumptions", ""]
    if assumptions:
        lines += _table(["input", "value", "note"], [[r[0], r[1], r[3] or "(no source given)"] for r in assumptions])
    else:
        lines += ["None: every input has a source."]
    lines += ["", "## Unknowns", ""]
    if result.unknown_inputs:
        lines += [f"- `{p}`: {why}" for p, why in result.unknown_inputs.items()]
        lines += ["", "Metrics that could not be computed: " + ", ".join(result.unknown_metrics) + "."]
    else:
        lines += ["None."]
    lines += ["", "## Measured, vendor and quoted inputs", ""]
    sourced = [r for r in prov if r[2] in ("measured", "vendor", "quote", "model")]
    lines += _table(["input", "value", "source", "note"],
                    [[r[0], r[1], r[2] + (f" {r[4]} {r[5]}".rstrip() if r[2] == "quote" else ""), r[3]] for r in sourced])
    warnings = stale_quotes(scn, today)
    if warnings:
        lines += ["", "**Warnings**", ""] + [f"- {w}" for w in warnings]
    return "\n".join(lines) + "\n"


__all__ = ["budget_report", "stale_quotes", "provenance_rows"]
