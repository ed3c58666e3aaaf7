"""Rich display in Jupyter (``_repr_html_``): the job card with its provenance marks, result
summaries and tables. Plain HTML with a small scoped stylesheet, no scripts, so the same
markup goes into the self-contained sign-off report."""
from __future__ import annotations

import datetime as _dt
import html
from typing import Any, Iterable, List, Optional, Sequence

import numpy as np

QUOTE_MAX_AGE_DAYS = 30

STYLE = """<style>
.tm {font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 13px; color: #212121; max-width: 1100px}
.tm h3 {font-size: 15px; margin: 6px 0 4px}
.tm table {border-collapse: collapse; margin: 4px 0 10px}
.tm th, .tm td {border-bottom: 1px solid #e0e0e0; padding: 3px 8px; text-align: left; vertical-align: top}
.tm th {background: #f5f5f5; font-weight: 600}
.tm td.num {text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap}
.tm .note {color: #616161; max-width: 520px}
.tm .badge {display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; white-space: nowrap}
.tm .measured {background: #c8e6c9; color: #1b5e20}
.tm .vendor {background: #bbdefb; color: #0d47a1}
.tm .quote {background: #ffe0b2; color: #e65100}
.tm .model {background: #e1bee7; color: #4a148c}
.tm .assumption {background: #eeeeee; color: #424242}
.tm .unknown, .tm .stale {background: #ffcdd2; color: #b71c1c}
.tm .bar {display: inline-block; height: 9px; background: #1976d2; vertical-align: middle}
.tm .warn {color: #b71c1c}
</style>"""


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def number(x: Any, digits: int = 4) -> str:
    """A number as people read it: 4 significant digits, thousands separated, 'n/a' for NaN."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return esc(x)
    if not np.isfinite(v):
        return "n/a"
    if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
        return f"{v:.{digits - 1}e}"
    text = f"{v:,.{digits}g}" if abs(v) < 10 ** digits else f"{v:,.0f}"
    return text


def table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = ()) -> str:
    """An HTML table; cells are already HTML. ``numeric[i]`` right-aligns column i."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = "".join(f'<td class="num">{c}</td>' if i < len(numeric) and numeric[i] else f"<td>{c}</td>"
                        for i, c in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def quote_age_days(date: str, today: Optional[_dt.date] = None) -> Optional[int]:
    try:
        return ((today or _dt.date.today()) - _dt.date.fromisoformat(date)).days
    except ValueError:
        return None


def badge(source: str, date: str = "", region: str = "", today: Optional[_dt.date] = None) -> str:
    """The provenance mark of an input: measured, vendor, quote (with its date; red when older
    than 30 days), model, assumption, unknown."""
    source = source or "assumption"
    if source == "(none)":
        return '<span class="badge assumption">no source</span>'
    label = source
    css = source if source in ("measured", "vendor", "quote", "model", "assumption", "unknown") else "assumption"
    if source == "quote":
        age = quote_age_days(date, today) if date else None
        label = f"quote {date}" if date else "quote, undated"
        if region:
            label += f" {region}"
        if age is None or age > QUOTE_MAX_AGE_DAYS:
            css = "stale"
            label += f" ({age} days old)" if age is not None else ""
    return f'<span class="badge {css}">{esc(label)}</span>'


def card(title: str, body: List[str]) -> str:
    return f'{STYLE}<div class="tm"><h3>{esc(title)}</h3>{"".join(body)}</div>'


def _step_time_fact(scenario: Any) -> str:
    """Where the step time comes from: given in the scenario (with its source) or derived."""
    mode = scenario["throughput.mode"]
    if mode != "measured":
        return f"step time derived ({esc(mode)} mode)"
    step = scenario["throughput.step_time_s"]
    spec = step.to_dict() if step is not None else {}
    source = spec.get("source", "no source") if isinstance(spec, dict) else "no source"
    return f"step time given (source: {esc(source)})"


def scenario_html(scenario: Any, today: Optional[_dt.date] = None) -> str:
    """The job card: what runs where, and every given input with its provenance."""
    from ._report import provenance_rows

    d = scenario.to_dict()
    job, cluster = d.get("job", {}), d.get("cluster", {})
    body = []
    if d.get("description"):
        body.append(f'<p class="note">{esc(d["description"])}</p>')
    facts = [f"{esc(cluster.get('nodes', '?'))} × {esc(cluster.get('platform', 'nodes'))}",
             f"job kind {esc(job.get('kind', 'full'))}",
             _step_time_fact(scenario)]
    body.append(f"<p>{' · '.join(facts)}</p>")
    rows = [[f"<code>{esc(path)}</code>", esc(value), badge(source, date, region, today), f'<span class="note">{esc(note)}</span>']
            for path, value, source, note, date, region in provenance_rows(scenario)]
    body.append(table(["input", "value", "source", "note"], rows))
    counts: dict = {}
    for row in provenance_rows(scenario):
        counts[row[2]] = counts.get(row[2], 0) + 1
    body.append("<p>" + ", ".join(f"{n} {esc(source)}" for source, n in sorted(counts.items())) + "</p>")
    return card(f"Scenario {scenario.name or '(unnamed)'}", body)


KEY_METRICS = ["wall_h", "billed_h", "node_h", "run_cost_usd", "total_cost_usd", "useful_step_cost_usd",
               "lifecycle_cost_per_step_usd", "goodput", "failures"]


def simulation_html(result: Any) -> str:
    """A simulation's summary: the key metrics' quantiles and where the time goes."""
    from ._simulate import PHASES

    s = result.summary()
    cols = ["mean", "p10", "p50", "p80", "p90"]
    rows = [[f"<code>{esc(m)}</code>"] + [number(s.loc[m, c]) for c in cols] for m in KEY_METRICS if m in s.index]
    body = [table(["metric"] + cols, rows, numeric=[False] + [True] * len(cols))]
    wall = float(s.loc["wall_h", "mean"])
    phase_rows = []
    for p in PHASES:
        v = float(s.loc[p, "mean"])
        share = v / wall if wall > 0 and np.isfinite(v) else 0.0
        phase_rows.append([f"<code>{esc(p)}</code>", number(v), f"{100 * share:.1f}%",
                           f'<span class="bar" style="width:{max(1, round(240 * share))}px"></span>'])
    body.append("<h3>Where the time goes (mean hours)</h3>")
    body.append(table(["phase", "hours", "share", ""], phase_rows, numeric=[False, True, True, False]))
    if result.unknown_inputs:
        body.append('<p class="warn">Unknown inputs: ' + ", ".join(f"<code>{esc(p)}</code>" for p in result.unknown_inputs)
                    + "; NaN metrics: " + ", ".join(esc(m) for m in result.unknown_metrics) + "</p>")
    return card(f"{result.scenario.name or 'Scenario'}: {result.samples:,} samples", body)


def frame_html(frame: Any, title: str, float_format: str = "{:,.4g}") -> str:
    """A pandas DataFrame as a card."""
    return card(title, [frame.to_html(float_format=float_format.format, border=0, escape=True)])
