"""Training logs read into step times (docs/importing.md): TensorBoard event files, an MLflow
run, the Hugging Face Trainer's ``trainer_state.json``, a CSV of steps, or a console log
(Megatron-LM, NxD, or lines a regular expression of yours matches). The readers are C++
(``calibrate/log_*.hpp``); TensorBoard's events are decoded by TensorBoard's own loader after a
C++ pass has checked every record's framing and checksums, and a pattern of yours is matched
with :mod:`re`; both hand their records to the same C++ rules."""

from __future__ import annotations

import datetime as _dt
import math
import os
import pathlib
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from . import _core
from ._errors import ScenarioError, in_file
from ._files import read_utf8
from .fields import LogFormat, MetricMeaning

PathLike = Union[str, "os.PathLike[str]"]


class StepSeries:
    """A log's step times at one resolution: each value the mean seconds per step over
    ``steps_per_value`` steps, with the last step it covers and its part (run or restart)."""

    def __init__(self, core: Any):
        self._core = core
        #: Steps each value averages (the logging interval, or a moving window).
        self.steps_per_value: int = core.steps_per_value
        #: How the values were derived from the log, in words.
        self.rule: str = core.rule
        #: What was dropped or assumed.
        self.notes: List[str] = list(core.notes)
        #: One row per value: ``step`` (the last it covers), ``part``, ``step_time_s``.
        self.table = pd.DataFrame(
            {
                "step": np.asarray(core.steps, dtype=np.int64),
                "part": np.asarray(core.parts, dtype=np.int64),
                "step_time_s": np.asarray(core.step_times_s, dtype=float),
            }
        )

    def to_csv(self, path: PathLike) -> None:
        """Write the series as a CSV (``step,part,step_time_s``), the form a journal's
        ``step_times`` file takes (``column: step_time_s``, ``step_column: step``)."""
        self.table.to_csv(path, index=False, float_format="%.9g")

    def __repr__(self) -> str:
        t = self.table["step_time_s"]
        return (
            f"StepSeries({len(t)} values of {self.steps_per_value} step(s), median {np.median(t):.4g} s, "
            f"parts {self.table['part'].nunique()})"
        )


class StepLog:
    """What a training log holds about its steps, as read (``tm.read_log``)."""

    def __init__(self, core: Any):
        self._core = core
        #: Which kind of log it was read from (``tm.fields.LogFormat``).
        self.format = LogFormat(core.format)
        #: What was read: a path, a run id, the metric.
        self.source: str = core.source
        #: What the reader did or could not do, in words.
        self.notes: List[str] = list(core.notes)
        #: One row per logged point: ``step``, ``part`` (a new part is a restart), ``wall_time_s``
        #: (seconds since 1970, NaN without a clock), ``step_time_s`` (stated, NaN when none).
        self.points = pd.DataFrame(
            {"step": core.steps, "part": core.part, "wall_time_s": core.wall_time_s, "step_time_s": core.step_time_s}
        )
        #: Only a mean is known (the Trainer's state): seconds per step, over ``mean_over_steps``.
        self.mean_step_time_s: float = core.mean_step_time_s
        self.mean_over_steps: int = core.mean_over_steps
        #: Stated step times are moving averages over this many steps (NxD's throughput: 10).
        self.averaged_over_steps: int = core.averaged_over_steps
        #: A clock reading before the first step (TensorBoard's file_version event, MLflow's run
        #: start), seconds since 1970; NaN when the log has none.
        self.started_wall_time_s: float = core.started_wall_time_s

    def series(self) -> StepSeries:
        """The step-time series (docs/importing.md, "From points to step times"); refused for a
        log that holds only a mean."""
        return StepSeries(_core.step_times_of(self._core))

    def __repr__(self) -> str:
        if not len(self.points):
            return f"StepLog({self.format}, mean {self.mean_step_time_s:.4g} s over {self.mean_over_steps} steps)"
        return f"StepLog({self.format}, {len(self.points)} points, {self._core.parts} part(s), {self.source})"


def _guess_format(paths: Sequence[pathlib.Path]) -> LogFormat:
    first = paths[0]
    if "tfevents" in first.name or (first.is_dir() and any("tfevents" in p.name for p in first.iterdir())):
        return LogFormat.TENSORBOARD
    if first.is_dir() or _is_sqlite(first):
        return LogFormat.MLFLOW
    if first.name == "trainer_state.json":
        return LogFormat.HF_TRAINER
    if first.suffix.lower() == ".csv":
        return LogFormat.CSV
    return LogFormat.CONSOLE


def _choose_metric(
    counts: Dict[str, int], metric: Optional[str], missing: str, listed: str, noted: str
) -> Tuple[str, List[str]]:
    """The metric (or tag) to read and the note saying which: the one asked for, refused as
    ``missing "<metric>" (<listed>: ...)`` when absent, or by default the one logged most (ties by
    name), said as ``noted`` formatted with the name and its count."""
    if metric is None:
        chosen = max(sorted(counts), key=lambda k: counts[k])
        return chosen, [noted.format(chosen, counts[chosen])] if len(counts) > 1 else []
    if metric not in counts:
        raise ScenarioError(f'{missing} "{metric}" ({listed}: {", ".join(sorted(counts))})')
    return metric, []


def _records(steps: List[int], clock: List[float], values: List[float], parts: List[int], where: List[str]) -> Any:
    """The decoded records as the C++ rules take them (calibrate/step_log.hpp, logged_values)."""
    records = _core.LoggedValues()
    records.steps, records.wall_time_s, records.values, records.parts, records.where = (
        steps,
        clock,
        values,
        parts,
        where,
    )
    return records


def _is_sqlite(path: pathlib.Path) -> bool:
    """SQLite's file header (https://www.sqlite.org/fileformat.html): the 16 bytes "SQLite format 3\\0"."""
    try:
        with path.open("rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _read_mlflow_sqlite(
    path: pathlib.Path, run: Optional[str], metric: Optional[str], meaning: MetricMeaning, batch: int, window: int
) -> StepLog:
    """An MLflow run from the SQLite store (``mlflow.db``, the default backend of recent MLflow
    versions), read with the standard library's sqlite3, without MLflow: table ``runs``
    (``run_uuid``, ``name``, ``start_time`` ms) and table ``metrics`` (``key``, ``value``,
    ``timestamp`` ms, ``step``, ``run_uuid``), in logging order (timestamp, then step). The
    records go through the same C++ rules as the file store's."""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ScenarioError(f"{path}: cannot open the SQLite store ({e})") from None
    try:
        try:
            runs = db.execute("SELECT run_uuid, name, start_time FROM runs ORDER BY start_time").fetchall()
        except sqlite3.Error as e:
            raise ScenarioError(f"{path}: not an MLflow SQLite store: no table runs ({e})") from None
        listed = ", ".join(f"{r[0]} ({r[1]})" for r in runs) or "none"
        if run is None:
            if len(runs) != 1:
                raise ScenarioError(f"{path}: run: required: the store holds {len(runs)} runs: {listed}")
            run = runs[0][0]
        found = [r for r in runs if run in (r[0], r[1])]
        if len(found) != 1:
            raise ScenarioError(f'{path}: run: no single run "{run}" in the store (its runs: {listed})')
        run_id, _, start_ms = found[0]
        counts = dict(
            db.execute("SELECT key, COUNT(*) FROM metrics WHERE run_uuid = ? GROUP BY key", (run_id,)).fetchall()
        )
        if not counts:
            raise ScenarioError(f"{path}: run {run_id} logged no metric")
        metric, notes = _choose_metric(
            counts,
            metric,
            f"{path}: metric: run {run_id} has no metric",
            "its metrics",
            'the clock is metric "{}", the one logged at the most points ({})',
        )
        rows = db.execute(
            "SELECT step, timestamp, value FROM metrics WHERE run_uuid = ? AND key = ? ORDER BY timestamp, step",
            (run_id, metric),
        ).fetchall()
    finally:
        db.close()
    records = _records(
        [int(r[0]) for r in rows],
        [float(r[1]) / 1000.0 for r in rows],
        [float(r[2]) if r[2] is not None else math.nan for r in rows],
        [0] * len(rows),
        [f"{path}: run {run_id}, metric {metric}, step {r[0]}" for r in rows],
    )
    core = _core.step_log_of_values(
        str(LogFormat.MLFLOW),
        f"mlflow run {run_id} ({path}), metric {metric}",
        records,
        meaning=str(meaning),
        global_batch=batch,
        throughput_window_steps=window,
        restart_starts_part=True,
        started_wall_time_s=float(start_ms) / 1000.0 if start_ms is not None else math.nan,
    )
    log = StepLog(core)
    log.notes = notes + log.notes
    return log


def _clock(text: str, where: str) -> float:
    """A ``timestamp`` group: seconds since 1970, or an ISO 8601 time with its zone."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = _dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ScenarioError(
            f'{where}: timestamp: must be seconds since 1970 or an ISO 8601 time with its zone, got "{text}"'
        ) from None
    if moment.tzinfo is None:
        raise ScenarioError(f'{where}: timestamp: "{text}" names no zone, so its instant is unknown')
    return moment.timestamp()


def _read_pattern(path: pathlib.Path, pattern: str) -> StepLog:
    """A console log read with a user's regular expression: named groups ``step`` and
    ``step_time_s`` (seconds) or ``timestamp`` (seconds since 1970 or ISO 8601 with a zone)."""
    try:
        regex = re.compile(pattern)
    except re.error as e:
        raise ScenarioError(f"pattern: not a regular expression ({e}): {pattern!r}") from None
    groups = set(regex.groupindex)
    if "step" not in groups or not groups & {"step_time_s", "timestamp"}:
        raise ScenarioError(
            f"pattern: needs the named groups step and step_time_s or timestamp, e.g. "
            rf"'step (?P<step>\d+) .* time (?P<step_time_s>[\d.]+)s'; it has {sorted(groups) or 'none'}"
        )
    steps: List[int] = []
    clock: List[float] = []
    values: List[float] = []
    where: List[str] = []
    for number, line in enumerate(read_utf8(path, "log").splitlines(), start=1):
        m = regex.search(line)
        if m is None:
            continue
        here = f"{path}, line {number}"
        text = m.group("step")
        try:
            step = float(text)
        except (TypeError, ValueError):
            raise ScenarioError(f'{here}: step: must be a whole number ≥ 0, got "{text}"') from None
        if not (math.isfinite(step) and step == int(step) and step >= 0):
            raise ScenarioError(f'{here}: step: must be a whole number ≥ 0, got "{text}"')
        steps.append(int(step))
        where.append(here)
        t = m.groupdict().get("step_time_s")
        try:
            values.append(float(t) if t is not None else math.nan)
        except ValueError:
            raise ScenarioError(f'{here}: step_time_s: must be a number of seconds > 0, got "{t}"') from None
        stamp = m.groupdict().get("timestamp")
        clock.append(_clock(stamp, here) if stamp is not None else math.nan)
    if not steps:
        raise ScenarioError(f"{path}: the pattern matches no line: {pattern!r}")
    records = _records(steps, clock, values, [0] * len(steps), where)
    meaning = MetricMeaning.STEP_TIME_S if "step_time_s" in groups else MetricMeaning.CLOCK
    return StepLog(
        _core.step_log_of_values(
            str(LogFormat.CONSOLE), str(path), records, meaning=str(meaning), restart_starts_part=True
        )
    )


def _event_files(path: pathlib.Path) -> List[pathlib.Path]:
    """A TensorBoard run's event files: the file given, or those in the folder given."""
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and "tfevents" in p.name)
    if not files:
        runs = sorted(d.name for d in path.iterdir() if d.is_dir() and any("tfevents" in q.name for q in d.iterdir()))
        where = f"; its runs: {', '.join(runs)} (read one of them)" if runs else ""
        raise ScenarioError(f"{path}: no TensorBoard event files (events.out.tfevents.*){where}")
    return files


def _read_tensorboard(
    path: pathlib.Path, tag: Optional[str], meaning: MetricMeaning, global_batch: int, window: int
) -> StepLog:
    """Every event of one tag, from every event file of a run: each file a part, in the order
    the files were opened (their first event's clock). Each file's records are checked by the C++
    pass (framing and CRC-32C) before TensorBoard's loader decodes them, so a truncated or corrupt
    file is an error, not a quiet end; no event is sampled away or purged."""
    try:
        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
        from tensorboard.util import tensor_util
    except ImportError:
        raise ScenarioError(
            "tensorboard: reading event files needs TensorBoard's loader: pip install 'trnmodel[tensorboard]'"
        ) from None
    files = []
    for f in _event_files(path):
        count = _core.tfrecord_count(f.read_bytes(), str(f))
        events = list(EventFileLoader(str(f)).Load())
        if len(events) != count:
            raise ScenarioError(f"{f}: TensorBoard's loader read {len(events)} of the file's {count} records")
        files.append((events[0].wall_time if events else math.inf, f.name, f, events))
    files.sort(key=lambda item: (item[0], item[1]))
    counts: dict = {}
    for *_, events in files:
        for e in events:
            for v in e.summary.value:
                counts[v.tag] = counts.get(v.tag, 0) + 1
    if not counts:
        raise ScenarioError(f"{path}: the event files hold no summary values")
    tag, notes = _choose_metric(
        counts,
        tag,
        f"{path}: metric: the event files have no tag",
        "their tags",
        'the clock is tag "{}", the one logged most ({} events)',
    )
    steps: List[int] = []
    clock: List[float] = []
    values: List[float] = []
    parts: List[int] = []
    where: List[str] = []
    for part, (_, _, f, events) in enumerate(files):
        for k, e in enumerate(events):
            for v in e.summary.value:
                if v.tag != tag:
                    continue
                if v.HasField("tensor"):
                    array = tensor_util.make_ndarray(v.tensor)
                    if array.size != 1:
                        raise ScenarioError(f"{f}: record {k}: tag {tag} holds {array.size} values, not a scalar")
                    values.append(float(array.reshape(-1)[0]))
                else:
                    values.append(float(v.simple_value))
                steps.append(int(e.step))
                clock.append(float(e.wall_time))
                parts.append(part)
                where.append(f"{f}: record {k}")
    records = _records(steps, clock, values, parts, where)
    opened = files[0][0]
    with in_file(str(path)):
        core = _core.step_log_of_values(
            str(LogFormat.TENSORBOARD),
            f"{path} (tag {tag})",
            records,
            meaning=str(meaning),
            global_batch=global_batch,
            throughput_window_steps=window,
            restart_starts_part=False,
            started_wall_time_s=opened if math.isfinite(opened) else math.nan,
        )
    log = StepLog(core)
    log.notes = notes + log.notes + [f"{len(steps)} events of tag {tag} in {len(files)} event file(s), every one kept"]
    return log


def read_log(
    path: Union[PathLike, Sequence[PathLike]],
    kind: Optional[Union[str, LogFormat]] = None,
    *,
    metric: Optional[str] = None,
    metric_is: Union[str, MetricMeaning] = MetricMeaning.CLOCK,
    global_batch: Optional[int] = None,
    throughput_window_steps: int = 10,
    resumed_from_step: Optional[int] = None,
    pattern: Optional[str] = None,
    run: Optional[str] = None,
) -> StepLog:
    """Read a training log's steps (docs/importing.md).

    ``kind`` is one of ``tm.fields.LogFormat`` (``tensorboard``, ``mlflow``, ``hf_trainer``,
    ``csv``, ``console``); by default a folder with event files or a ``tfevents`` file is
    TensorBoard's, another folder an MLflow run, ``trainer_state.json`` the Trainer's state, a
    ``.csv`` a CSV, anything else a console log. Several CSV paths are one run and its restarts,
    in order. ``metric``: the TensorBoard tag or MLflow metric to read (default: the one logged
    most); ``metric_is`` what its values are (``tm.fields.MetricMeaning``): ``clock`` (only its
    timestamps count), ``step_time_s``, or ``throughput`` (sequences/s). ``global_batch``:
    sequences per step, to turn a throughput into step times (NxD averages it over
    ``throughput_window_steps``). ``resumed_from_step``: where the
    Trainer's last training call resumed. ``run``: the run's id or name in an MLflow SQLite store
    (``mlflow.db``; needed when it holds several runs). ``pattern``: a regular expression for a console log
    of your own shape, with named groups ``step`` and ``step_time_s`` or ``timestamp``."""
    given: Sequence[Any] = path if isinstance(path, (list, tuple)) else [path]
    paths = [pathlib.Path(p) for p in given]
    if not paths:
        raise ScenarioError("path: no log given")
    for p in paths:
        if not p.exists():
            raise ScenarioError(f"{p}: no such file or folder")
    if kind is None:
        fmt = _guess_format(paths)
    else:
        try:
            fmt = LogFormat(str(kind))
        except ValueError:
            choices = ", ".join(m.value for m in LogFormat)
            raise ScenarioError(f'kind: must be one of {choices}, got "{kind}"') from None
    if fmt != LogFormat.CSV and len(paths) > 1:
        raise ScenarioError(f"path: a {fmt} log is one path; several paths are a CSV run and its restarts")
    try:
        meaning = MetricMeaning(str(metric_is))
    except ValueError:
        choices = ", ".join(m.value for m in MetricMeaning)
        raise ScenarioError(f'metric_is: must be one of {choices}, got "{metric_is}"') from None
    if pattern is not None and fmt != LogFormat.CONSOLE:
        raise ScenarioError(f"pattern: applies to a console log, not to a {fmt} log")
    if fmt == LogFormat.TENSORBOARD:
        return _read_tensorboard(paths[0], metric, meaning, global_batch or 0, throughput_window_steps)
    with in_file(str(paths[0])):
        if fmt == LogFormat.CSV:
            return StepLog(_core.read_csv_log([str(p) for p in paths]))
        if fmt == LogFormat.MLFLOW and _is_sqlite(paths[0]):
            return _read_mlflow_sqlite(paths[0], run, metric, meaning, global_batch or 0, throughput_window_steps)
        if fmt == LogFormat.MLFLOW:
            return StepLog(
                _core.read_mlflow_run(
                    str(paths[0]),
                    metric=metric or "",
                    meaning=str(meaning),
                    global_batch=global_batch or 0,
                    throughput_window_steps=throughput_window_steps,
                )
            )
        if fmt == LogFormat.HF_TRAINER:
            return StepLog(_core.read_hf_trainer_state(str(paths[0]), resumed_from_step=resumed_from_step))
        if pattern is not None:
            return _read_pattern(paths[0], pattern)
        return StepLog(
            _core.read_console_log(
                str(paths[0]), global_batch=global_batch or 0, throughput_window_steps=throughput_window_steps
            )
        )
