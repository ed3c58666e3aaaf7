"""A one-number trial ("trnmodel.trial-summary/1", docs/journal.md, "A trial summary"): where
it ran, the model and its layout, and the step time as mean ± sd over a count of steps — what a
team keeps when it kept no log. :func:`tm.calibrate` takes it as it takes journals: the step time
of the scenario's configuration, or the reference (``reference.*``) extrapolated mode carries to
another, with the mean's standard error sd / √steps as its uncertainty."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Dict, Mapping, Optional, Union

from . import _core
from ._display import Display
from ._errors import in_file
from ._files import read_utf8

PathLike = Union[str, "os.PathLike[str]"]

#: The tag a trial summary's "schema" holds.
TRIAL_SUMMARY_SCHEMA = _core.TRIAL_SUMMARY_SCHEMA_V1


def is_trial_summary_file(path: PathLike) -> bool:
    """Whether a file is a trial summary (its text names the summary schema near its start);
    False when it cannot be read (the loader then says why)."""
    try:
        return TRIAL_SUMMARY_SCHEMA in pathlib.Path(path).read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return False


class TrialSummary(Display):
    """A trial known only by its mean step time. Build it from what you know::

        tm.TrialSummary(experiment_id="llama70b-trn2-2node", platform="trn2.48xlarge", nodes=2,
                        model="meta-llama/Meta-Llama-3-70B", kind="continued", global_batch=16,
                        micro_batch=1, sequence_length=8192, tp=8, pp=4, dp=1, precision="bf16",
                        step_time_mean_s=21.5, step_time_sd_s=0.8, steps=400)

    or load one with :meth:`from_json` / :meth:`from_dict`. ``step_time_sd_s`` is the standard
    deviation of single steps (warm-up excluded) over ``steps`` (≥ 2) steps. Every problem is
    reported at once in one :class:`tm.ScenarioError` (``.problems``)."""

    __slots__ = ("_core", "_doc")

    def __init__(
        self,
        *,
        experiment_id: str,
        platform: str,
        nodes: int,
        model: str,
        kind: str,
        global_batch: int,
        micro_batch: int,
        sequence_length: int,
        tp: int,
        pp: int,
        dp: int,
        precision: str,
        step_time_mean_s: float,
        step_time_sd_s: float,
        steps: int,
        lora_rank: Optional[int] = None,
        chips_per_node: Optional[int] = None,
        notes: Optional[str] = None,
    ) -> None:
        instance: Dict[str, Any] = {"type": platform, "nodes": nodes}
        if chips_per_node is not None:
            instance["chips_per_node"] = chips_per_node
        training: Dict[str, Any] = {"kind": kind}
        if lora_rank is not None:
            training["lora_rank"] = lora_rank
        training.update(
            global_batch=global_batch,
            micro_batch=micro_batch,
            sequence_length=sequence_length,
            tp=tp,
            pp=pp,
            dp=dp,
            precision=precision,
        )
        doc: Dict[str, Any] = {
            "schema": TRIAL_SUMMARY_SCHEMA,
            "experiment_id": experiment_id,
            "instance": instance,
            "model": model,
            "training": training,
            "step_time_s": {"mean": step_time_mean_s, "sd": step_time_sd_s, "steps": steps},
        }
        if notes is not None:
            doc["notes"] = notes
        self._load(doc)

    def _load(self, doc: Dict[str, Any]) -> None:
        self._core = _core.TrialSummary.from_obj(doc)
        self._doc = doc

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TrialSummary":
        """From a dict shaped like the JSON form (docs/journal.md, "A trial summary")."""
        out = cls.__new__(cls)
        out._load(json.loads(json.dumps(dict(data))))
        return out

    @classmethod
    def from_json(cls, path: PathLike) -> "TrialSummary":
        """From a trial-summary file (JSON)."""
        path = pathlib.Path(path)
        text = read_utf8(path, "trial summary")
        with in_file(path):
            core = _core.TrialSummary.from_text(text)  # the strict reader: duplicate keys refused
        out = cls.__new__(cls)
        out._core, out._doc = core, json.loads(text)
        return out

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(json.dumps(self._doc))

    def to_json(self, path: PathLike) -> None:
        pathlib.Path(path).write_text(json.dumps(self._doc, indent=2) + "\n", encoding="utf-8")

    @property
    def experiment_id(self) -> str:
        return self._core.experiment_id

    @property
    def nodes(self) -> int:
        return self._core.nodes

    @property
    def step_time_mean_s(self) -> float:
        return self._core.step_time_mean_s

    @property
    def step_time_sd_s(self) -> float:
        return self._core.step_time_sd_s

    @property
    def steps(self) -> int:
        return self._core.steps

    def __repr__(self) -> str:
        c = self._core
        return (
            f"<TrialSummary {c.experiment_id}: {c.model} on {c.nodes} × {c.platform}, step "
            f"{c.step_time_mean_s:.4g} s ± {c.step_time_sd_s:.3g} s (sd) over {c.steps} steps>"
        )
