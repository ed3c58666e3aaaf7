"""What each number rests on (docs/journal.md, "Evidence"): every input's evidence class, read
from its provenance, and the step time's, which in the model modes is no input at all but a
model's output. The sign-off prints these beside the figures, and says so when two compared
scenarios rest on unequal evidence."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

if TYPE_CHECKING:
    import pandas as pd

from .fields import (
    CLUSTER_NODES,
    CLUSTER_PLATFORM,
    REFERENCE_NODES,
    REFERENCE_STEP_TIME_S,
    THROUGHPUT_MODE,
    THROUGHPUT_STEP_TIME_S,
    ThroughputMode,
)

#: The evidence classes, strongest first.
CLASSES: Tuple[str, ...] = (
    "measured",
    "prior-dominated",
    "extrapolated",
    "quoted",
    "vendor",
    "model",
    "assumed",
    "unknown",
)

#: Provenance source -> evidence class ("prior" marks a calibrated posterior that the trials
#: barely moved from its prior: labelled as the prior, not as measured).
_CLASS_OF_SOURCE: Dict[str, str] = {
    "measured": "measured",
    "prior": "prior-dominated",
    "quote": "quoted",
    "vendor": "vendor",
    "model": "model",
    "assumption": "assumed",
    "(none)": "assumed",
    "unknown": "unknown",
}

#: Where the analytic step-time model has been checked against measured runs (docs/validation.md).
MODEL_VALIDATION_SCOPE = "validated on 109 Megatron-DeepSpeed runs on A100 GPUs only (docs/validation.md)"


def evidence_class(source: str) -> str:
    """The evidence class of a provenance source."""
    return _CLASS_OF_SOURCE.get(source or "(none)", "assumed")


def step_time_evidence(scenario: Any, provenance: Optional[List[Any]] = None) -> Tuple[str, str]:
    """(class, detail) of the scenario's step time: its input's provenance when given (measured
    mode), the model and its validation scope when derived (flops, analytic), and the
    reference's evidence with the model that carries it to the target (extrapolated)."""
    mode = scenario[THROUGHPUT_MODE]
    rows = {r.path: r for r in (scenario.provenance() if provenance is None else provenance)}
    if mode == ThroughputMode.MEASURED:
        row = rows.get(THROUGHPUT_STEP_TIME_S)
        if row is None:
            return "unknown", "no step time given"
        return evidence_class(row.source), row.note or f"source: {row.source}"
    platform = scenario[CLUSTER_PLATFORM]
    if mode == ThroughputMode.EXTRAPOLATED:
        # A reference step time (measured at another layout, or not) carried to this one by the model.
        ref = rows.get(REFERENCE_STEP_TIME_S)
        ref_class = evidence_class(ref.source) if ref is not None else "unknown"
        cited = re.search(r"\(([^()]*)\)\s*$", ref.note) if ref is not None and ref.note else None
        where = f"{ref_class} at {scenario[REFERENCE_NODES]} node(s)" + (f" ({cited.group(1)})" if cited else "")
        return "extrapolated", (
            f"{where}, extrapolated by the step-time model to {scenario[CLUSTER_NODES]} node(s) of {platform}; "
            f"the model is {MODEL_VALIDATION_SCOPE}"
        )
    return "model", f"{mode} step-time model on the {platform} profile, {MODEL_VALIDATION_SCOPE}"


def evidence_table(scenario: Any) -> "pd.DataFrame":
    """One row per given input (and the step time when a model derives it): ``evidence`` (one
    of :data:`CLASSES`), ``source`` as written, ``detail`` (the note: runs and experiment ids
    for measured inputs, the prior's weight for prior-dominated ones, the date for quotes)."""
    import pandas as pd

    rows = _evidence_rows(scenario)
    return pd.DataFrame(rows, columns=["input", "evidence", "source", "detail"]).set_index("input")


def _evidence_rows(scenario: Any) -> List[Dict[str, str]]:
    """evidence_table's rows, as dicts."""
    provenance = scenario.provenance()
    rows: List[Dict[str, str]] = []
    for r in provenance:
        rows.append({"input": r.path, "evidence": evidence_class(r.source), "source": r.source, "detail": r.note})
    if scenario[THROUGHPUT_MODE] != ThroughputMode.MEASURED:
        klass, detail = step_time_evidence(scenario, provenance)
        rows.append({"input": "step time (derived)", "evidence": klass, "source": "model", "detail": detail})
    return rows


def evidence_line(scenario: Any, detail: bool = True) -> str:
    """One line: the step time's evidence (with its note unless ``detail`` is False), then how
    many inputs rest on each class."""
    counts = Counter(row["evidence"] for row in _evidence_rows(scenario))
    parts = [f"{counts[c]} {c}" for c in CLASSES if c in counts]
    klass, note = step_time_evidence(scenario)
    return f"step time {klass}" + (f" ({note})" if detail else "") + "; inputs: " + ", ".join(parts)


def unequal_evidence(name_a: str, a: Any, name_b: str, b: Any) -> str:
    """A sentence when the two scenarios' step times rest on different evidence classes (for
    the comparison, beside P(A < B)); "" when they rest on the same."""
    (ka, da), (kb, db) = step_time_evidence(a), step_time_evidence(b)
    if ka == kb:
        return ""
    what = {
        "model": "a model estimate",
        "extrapolated": "extrapolated",
        "unknown": "unknown",
        "assumed": "an assumption",
    }
    return (
        f"**Unequal evidence**: {name_a}'s step time is {what.get(ka, ka)} ({da}); "
        f"{name_b}'s is {what.get(kb, kb)} ({db}). "
        "P(A < B) weighs one kind of evidence against another: a model's range is its stated efficiency range, "
        "not a spread of runs, and a model outside its validation scope may be off by more than its range shows."
    )
