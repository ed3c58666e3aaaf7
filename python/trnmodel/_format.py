"""Formatting leaves: numbers, money, hours, inline markup, the one HTML table, provenance
badges and the scoped stylesheet. Imports nothing of the package, so that every renderer
(the Jupyter cards, the sign-off report, the plots) shares one way of writing a value."""

from __future__ import annotations

import datetime as _dt
import html
import math
from typing import Any, Iterable, List, Optional, Sequence

import numpy as np

#: A price quote older than this many days is flagged (red badge, sign-off warning).
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
    return f"{v:,.{digits}g}" if abs(v) < 10**digits else f"{v:,.0f}"


def money(x: float) -> str:
    """USD: whole dollars from $100, cents from $1, four decimals below; 'unknown' for NaN."""
    if not np.isfinite(x):
        return "unknown"
    sign, x = ("−", -x) if x < 0 else ("", x)
    return sign + (f"${x:,.0f}" if x >= 100 else f"${x:,.2f}" if x >= 1 else f"${x:,.4f}")


def short_money(x: float) -> str:
    """USD as a manager writes it: $950, $12.4k, $403k, $1.25M; 'unknown' for NaN."""
    if not np.isfinite(x):
        return "unknown"
    sign, x = ("−", -x) if x < 0 else ("", x)
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= scale * 0.9995:
            v = x / scale
            return f"{sign}${v:.3g}{suffix}" if v < 1000 else f"{sign}${v:,.0f}{suffix}"
    if x == 0:
        return "$0"
    return f"{sign}${x:.0f}" if x >= 1 else f"{sign}${x:.2f}"


def short_hours(x: float) -> str:
    """A duration in hours as people write it: 45 min, 14.2 h, 2.5 d, 29 d; 'unknown' for NaN."""
    if not np.isfinite(x):
        return "unknown"
    sign, x = ("−", -x) if x < 0 else ("", x)
    if x < 1:
        return f"{sign}{x * 60:.0f} min"
    if x < 48:
        return f"{sign}{x:.3g} h"
    days = x / 24
    return f"{sign}{days:.2g} d" if days < 10 else f"{sign}{days:,.0f} d"


def short_value(x: float, metric: str) -> str:
    """A metric's value as people write it: money for *_usd, durations for *_h, else 4 digits."""
    if metric.endswith("_usd"):
        return short_money(x)
    if metric.endswith("_h"):
        return short_hours(x)
    return number(x)


def hours(x: float) -> str:
    """Hours with one decimal; from three days on, whole hours and days."""
    if not np.isfinite(x):
        return "unknown"
    return f"{x:,.1f} h" if x < 72 else f"{x:,.0f} h ({x / 24:,.1f} d)"


def count(x: float) -> str:
    return f"{x:,.0f}" if np.isfinite(x) else "unknown"


def probability(p: float, samples: int) -> str:
    """An estimated probability with its binomial standard error, both to the decimal place of
    the error's first significant digit (at least three decimals): ``0.0047 ± 0.0005``, never
    ``0.005 ± 0.000``. None or all of the samples: the 95 % bound of the rule of three."""
    if not np.isfinite(p) or samples < 1:
        return "unknown"
    if p <= 0:
        return f"0 (none of {samples:,} samples; below {3 / samples:.2g} at 95 %)"
    if p >= 1:
        return f"1 (all {samples:,} samples; above {1 - 3 / samples:.4g} at 95 %)"
    se = math.sqrt(p * (1 - p) / samples)
    decimals = max(3, -math.floor(math.log10(se)))
    return f"{p:.{decimals}f} ± {se:.{decimals}f}"


def slug(name: str) -> str:
    """A file-name stem of a name: letters and digits, the rest as dashes."""
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") or "scenario"


def inline_html(text: str) -> str:
    """Escaped text with its **bold** and `code` spans as HTML."""
    parts = esc(text).split("**")
    text = "".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(parts))
    parts = text.split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)) if len(parts) % 2 else text


def html_table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = ()) -> str:
    """The HTML table of every renderer; cells are already HTML. ``numeric[i]`` right-aligns column i."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="num">{c}</td>' if i < len(numeric) and numeric[i] else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> List[str]:
    """A Markdown table's lines ('|' escaped, newlines folded)."""

    def cell(c: Any) -> str:
        return str(c).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(map(cell, r)) + " |" for r in rows]


def card(title: str, body: List[str]) -> str:
    """A titled block under the scoped stylesheet (a Jupyter display)."""
    return f'{STYLE}<div class="tm"><h3>{esc(title)}</h3>{"".join(body)}</div>'


def quote_age_days(date: str, today: Optional[_dt.date] = None) -> Optional[int]:
    try:
        return ((today or _dt.date.today()) - _dt.date.fromisoformat(date)).days
    except ValueError:
        return None


def badge(source: str, date: str = "", region: str = "", today: Optional[_dt.date] = None) -> str:
    """The provenance mark of an input: measured, prior (a posterior mostly its prior), vendor,
    quote (with its date; red when older than 30 days), model, assumption, unknown."""
    source = source or "assumption"
    if source == "(none)":
        return '<span class="badge assumption">no source</span>'
    label = source
    if source == "prior":  # labelled as what it is: the prior, not a measurement
        return '<span class="badge assumption">prior-dominated</span>'
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
