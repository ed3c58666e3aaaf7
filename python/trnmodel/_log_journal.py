"""A journal from what a training log holds (docs/importing.md, "A journal from a log").

A log records steps and, often, a clock; it does not record the queue, the set-up, the data
load, checkpoints, billing or why a run stopped. The journal built here gives what the log
holds and what you state (instance, layout, batch), lists every other field under ``unknown``
with the reason, and lists under ``derived`` each field computed by a rule, with the rule and
its figures. Nothing is invented to fill a gap: calibration then measures what is known and
says what stayed assumed.

Two rules, stated once (and in each journal they apply to):

* **The first step.** When the first value the log gives (the first step's stated time, or
  the clock from the log's start to the end of the first logged step) exceeds both 10 × the
  steady step and the steady step + 60 s, it holds a compile or a start-up, not a step: the
  first value is taken as the second's, and the excess goes to ``phases.compile_s`` (a stated
  step time: the graphs compile inside the first step) or to ``phases.before_first_step_s`` (a
  clock: set-up, data load and compile, unsplit).
* **A restart.** A part after the first (a step that goes back, or a new event file) is an
  interruption: the last step logged before it, restored from the step before the new part's
  first value; its cause, detection and recovery are not in a log, and the gap between the two
  parts is written in its detail.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import numpy as np

from ._errors import ScenarioError

if TYPE_CHECKING:
    from ._logs import StepLog

#: The first-step rule's factors: a first value above both is a compile or a start-up.
FIRST_STEP_FACTOR = 10.0
FIRST_STEP_MARGIN_S = 60.0


def _rfc3339(seconds: float) -> str:
    import datetime as dt

    moment = dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _experiment_id(source: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._:/-]+", "-", source.split(" (")[0].rstrip("/").split("/")[-1]).strip("-._:/")
    return (stem or "trial")[:128]


def journal_from_log(
    log: "StepLog",
    *,
    platform: str,
    nodes: int,
    kind: str,
    model: str,
    global_batch: int,
    micro_batch: int,
    sequence_length: int,
    tp: int,
    pp: int,
    dp: int,
    precision: str,
    lora_rank: Optional[int] = None,
    experiment_id: Optional[str] = None,
    steps_planned: Optional[int] = None,
    region: Optional[str] = None,
    framework: Optional[str] = None,
    neuron_sdk: Optional[str] = None,
    cuda: Optional[str] = None,
) -> Dict[str, Any]:
    """The journal document ("trnmodel.journal/1") of a run from its log and what you state.

    The log gives the step times, the steps completed, the restarts and, with a clock, the
    run's start, end and training time; you state where it ran and how it was laid out
    (``platform``, ``nodes``, ``kind``, ``model``, the batch and the layout, ``precision``), and
    may state ``steps_planned``, ``region``, ``framework`` and ``neuron_sdk`` or ``cuda``. Every
    other field is listed under ``unknown`` with the reason, and each computed one under
    ``derived`` with its rule. Load it with :meth:`tm.Journal.from_dict` (which checks it)."""
    points = log.points
    if not len(points):
        raise ScenarioError(
            f"{log.source}: the log holds only a mean step time, no series: a journal needs the steps "
            "(docs/importing.md, the Trainer's state)"
        )
    series = log.series()
    table = series.table
    d = series.steps_per_value
    values = table["step_time_s"].to_numpy(dtype=float)
    steady = float(np.median(values))
    clocked = bool(np.isfinite(points["wall_time_s"]).all())
    stated = bool(np.isfinite(points["step_time_s"]).all())
    unknown: Dict[str, str] = {}
    derived: Dict[str, str] = {}
    phases: Dict[str, Any] = {}
    far = lambda v: v > max(FIRST_STEP_FACTOR * steady, steady + FIRST_STEP_MARGIN_S / d)  # noqa: E731

    # Each part's values, the first part's first value by the first-step rule.
    parts: List[List[float]] = [rows["step_time_s"].tolist() for _, rows in table.groupby("part", sort=True)]
    first_point = points[points["part"] == 0].iloc[0]
    k0 = int(first_point["step"])
    before_first_step_s: Optional[float] = None
    if stated:
        first = parts[0][0]
        if len(parts[0]) > 1 and far(first):
            parts[0][0] = parts[0][1]
            phases["compile_s"] = d * (first - parts[0][1])
            phases["compile_cache_hit"] = False
            derived["phases.compile_s"] = (
                f"the first step took {first:.6g} s against a steady {steady:.4g} s (above 10 × and + 60 s): "
                f"its excess over the second ({phases['compile_s']:.6g} s) is the graphs' compile"
            )
            derived["phases.compile_cache_hit"] = "a compile inside the first step is a cache miss"
    elif clocked and k0 == d and math.isfinite(log.started_wall_time_s):
        span = float(first_point["wall_time_s"]) - log.started_wall_time_s
        per_step = span / k0
        if far(per_step):
            parts[0].insert(0, parts[0][0])
            before_first_step_s = span - k0 * parts[0][0]
            derived["phases.before_first_step_s"] = (
                f"from the log's start to the end of step {k0}: {span:.6g} s against a steady {steady:.4g} s per "
                f"step (above 10 × and + 60 s): all but the second value's time is before the first step "
                "(set-up, data load and compile, unsplit)"
            )
        else:
            parts[0].insert(0, per_step)
            before_first_step_s = 0.0
    else:
        # No clock before the first logged point: its interval is not in the log.
        parts[0].insert(0, parts[0][0])
        derived["step_times.values"] = (
            f"the first {k0} step(s) have no time in the log (its first clock reading ends them): taken as the next value"
        )

    # Restarts: every part after the first.
    interruptions: List[Dict[str, Any]] = []
    for j in range(1, len(parts)):
        before = points[points["part"] == j - 1].iloc[-1]
        after = points[points["part"] == j].iloc[0]
        first_step = int(after["step"])
        restored = max(first_step - d, 0)
        reload = ""
        if not stated:  # the new part's first interval has no value: take its next one's
            parts[j].insert(0, parts[j][0])
        elif len(parts[j]) > 1 and far(parts[j][0]):
            # The first step's rule again: a restarted process loads (or recompiles) its graphs and
            # the checkpoint inside its first step, which is recovery, not a step.
            excess = d * (parts[j][0] - parts[j][1])
            reload = (
                f"; its first step took {parts[j][0]:.6g} s against a steady {steady:.4g} s (above 10 × and + 60 s): "
                f"the excess, {excess:.6g} s, is the restart's graph and checkpoint load, part of its recovery, "
                "and is not counted as a step"
            )
            parts[j][0] = parts[j][1]
            derived["step_times.values"] = (
                "a restarted process's first step far above the steady step (10 × and + 60 s) is taken as its "
                "second's: its excess is recovery (each interruption's detail gives it)"
            )
        step = int(before["step"])
        gap = float(after["wall_time_s"] - before["wall_time_s"]) if clocked else math.nan
        x: Dict[str, Any] = {
            "step": step,
            "detail": (
                f"restart seen in the log: steps went back from {step} to {first_step}"
                + (f", {gap:.0f} s between the two (detection, recovery and the first steps again)" if clocked else "")
                + reload
            ),
            "restored_from_step": restored,
            "redone_steps": step - restored,
        }
        if clocked:
            x["at"] = _rfc3339(float(before["wall_time_s"]))
        interruptions.append(x)
    if interruptions:
        unknown["interruptions[].cause"] = "a training log does not say why a run stopped"
        unknown["interruptions[].detection_s"] = "the log cannot split detection from recovery"
        unknown["interruptions[].recovery_s"] = "the log cannot split recovery from detection and the redone steps"
        unknown["interruptions[].recompiled"] = "the log does not say whether the restart hit the compile cache"
        derived["interruptions[].restored_from_step"] = (
            f"the step before the first value logged after the restart (logging every {d} step(s))"
        )
        if not clocked:
            unknown["interruptions[].at"] = "the log has no clock"

    steps_completed = int(points["step"].max())
    series_values = [v for part in parts for v in part]
    for key in ("queue_s", "setup_s", "data_load_s"):
        unknown[f"phases.{key}"] = (
            "the log starts when the training script starts" if key != "data_load_s" else "not in the log"
        )
    if "compile_s" not in phases:
        unknown["phases.compile_s"] = (
            "inside phases.before_first_step_s with the set-up and data load: the log cannot split them"
            if before_first_step_s
            else "no compile inside the first step, and the log records none before it"
        )
        unknown["phases.compile_cache_hit"] = "the log does not say"
    unknown["phases.final_eval_s"] = "the log does not separate a final evaluation"
    unknown["checkpoints"] = "a training log does not record checkpoint saves"
    unknown["billed"] = "billing is not in a training log"
    if before_first_step_s is not None:
        phases["before_first_step_s"] = before_first_step_s
    if clocked and math.isfinite(log.started_wall_time_s):
        started = log.started_wall_time_s
        derived["started_at"] = "the log's first clock reading (the training script's start, not the job's submission)"
    else:
        started = math.nan
        unknown["started_at"] = "the log has no clock reading before its first step"
    if clocked:
        ended = float(points["wall_time_s"].max())
        derived["ended_at"] = "the end of the last logged step (the log does not see the nodes released)"
        start_of_training = float(first_point["wall_time_s"]) - k0 * parts[0][0]
        phases["training_s"] = ended - start_of_training
        derived["phases.training_s"] = "from the start of the first step to the end of the last logged step"
    else:
        unknown["ended_at"] = "the log has no clock"
        unknown["phases.training_s"] = "the log has no clock"
    if steps_planned is None:
        unknown["training.effective_steps_planned"] = "not stated"
    if region is None:
        unknown["instance.region"] = "not stated"
    if framework is None:
        unknown["versions.framework"] = "not stated"
    if neuron_sdk is None and cuda is None:
        unknown["versions.neuron_sdk"] = unknown["versions.cuda"] = "not stated"

    training: Dict[str, Any] = {"kind": kind, "steps_completed": steps_completed}
    if steps_planned is not None:
        training["effective_steps_planned"] = steps_planned
    training.update(
        global_batch=global_batch,
        micro_batch=micro_batch,
        sequence_length=sequence_length,
        tp=tp,
        pp=pp,
        dp=dp,
        precision=precision,
    )
    if lora_rank is not None:
        training["lora_rank"] = lora_rank
    versions: Dict[str, Any] = {"model": model}
    if framework is not None:
        versions["framework"] = framework
    if neuron_sdk is not None:
        versions["neuron_sdk"] = neuron_sdk
    if cuda is not None:
        versions["cuda"] = cuda
    instance: Dict[str, Any] = {"type": platform, "nodes": nodes}
    if region is not None:
        instance["region"] = region
    doc: Dict[str, Any] = {
        "schema": "trnmodel.journal/1",
        "experiment_id": experiment_id or _experiment_id(log.source),
        "notes": f"imported from {log.format} log {log.source}: {series.rule}"
        + "".join(f"; {n}" for n in log.notes + series.notes),
    }
    if math.isfinite(started):
        doc["started_at"] = _rfc3339(started)
    if clocked:
        doc["ended_at"] = _rfc3339(ended)
    doc.update(
        instance=instance,
        versions=versions,
        training=training,
        phases=phases,
        step_times={"unit": "s", "steps_per_value": d, "values": series_values},
        interruptions=interruptions,
        unknown=dict(sorted(unknown.items())),
        derived=derived,
    )
    return doc
