"""The advisor (docs/decisions.md, "The advisor"): should a training job move to Trainium, and
how? The seed's decision matrix as explicit rules over a project's facts, in a stated
precedence (include/trnmodel/decisions/advisor.hpp); every rule that fired comes back with the
facts that fired it, and the suitability score beside them, never instead of them."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Union

from . import _core
from ._display import Display
from ._format import card, esc
from ._scenario import Scenario
from .fields import JOB_KIND

#: The recommendations, in the rules' precedence.
RECOMMENDATIONS = ("gpu", "gpu_baseline_first", "dual_track", "trainium_after_checks", "trainium_pilot")

#: The facts a project states (the `project` block of a scenario or a plan).
FACTS = (
    "architecture_changes",
    "experimental_ops",
    "custom_cuda_extensions",
    "fast_debug_loop",
    "mixed_nonstandard_models",
    "manual_compiler_tuning",
    "team_neuron_experience",
    "error_cost",
    "agreed_metrics",
    "training_cycle",
)


class Advice(Display):
    """What the advisor says: ``recommendation`` (one of :data:`RECOMMENDATIONS`), ``label`` in
    words, ``rules`` (every rule that fired, in precedence: ``makes``, ``rule``, ``because``),
    ``score`` (the seed's suitability of LoRA on Trainium, of 5, higher is safer; None for other
    job kinds)."""

    def __init__(self, core: "_core.Advice", job_kind: str) -> None:
        self.recommendation: str = core.recommendation
        self.label: str = core.label
        self.rules: List[Dict[str, str]] = [
            {"makes": r.makes, "rule": r.rule, "because": r.because} for r in core.rules
        ]
        self.score: Optional[int] = core.score
        self.job_kind = job_kind

    def why(self) -> List[str]:
        """One line a rule: "<rule> (<facts>)", the deciding rule first."""
        return [f"{r['rule']} ({r['because']})" for r in self.rules]

    def __repr__(self) -> str:
        score = f", suitability {self.score} of 5" if self.score is not None else ""
        return f"<Advice {self.recommendation}: {self.label}{score}>"

    def _text(self) -> str:
        return "\n".join([repr(self), *(f"  {'→' if k == 0 else ' '} {line}" for k, line in enumerate(self.why()))])

    def _repr_html_(self) -> str:
        body = [f"<p><b>{esc(self.label)}</b> (<code>{esc(self.recommendation)}</code>)</p>"]
        body += [f"<div>{'→ ' if k == 0 else ''}{esc(line)}</div>" for k, line in enumerate(self.why())]
        if self.score is not None:
            body.append(f"<div>suitability of LoRA on Trainium: {self.score} of 5 (higher is safer)</div>")
        return card("Advice", body)


def advise(project: Union[Scenario, Mapping[str, Any]], job_kind: Optional[str] = None) -> Advice:
    """The advisor's recommendation for a project (docs/decisions.md, "The advisor").

    ``project``: a :class:`tm.Scenario` with a ``project`` block (its ``job.kind`` is the job
    kind unless ``job_kind`` is given), or a dict of the ten facts (then ``job_kind`` is
    required: ``"lora"``, ``"full"`` or ``"continued"``). Every fact is needed; the missing and
    misspelt ones are listed at once in one :class:`tm.ScenarioError`."""
    if isinstance(project, Scenario):
        kind = job_kind if job_kind is not None else str(project[JOB_KIND])
        return Advice(_core.advise_scenario(project._core, kind), kind)
    if not isinstance(project, Mapping):
        raise _core.ScenarioError(
            f"project: must be a tm.Scenario or a dict of the project's facts, got {type(project).__name__}"
        )
    if job_kind is None:
        raise _core.ScenarioError("job_kind: required with a dict of facts (lora, full or continued)")
    return Advice(_core.advise_facts(dict(project), job_kind), job_kind)
