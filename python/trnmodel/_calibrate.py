"""Trial-run journals, calibration and backtests (docs/journal.md).

Loading, validation, warm-up detection, fits and the simulator run in C++; this module
turns their results into pandas tables and Python warnings."""

from __future__ import annotations

import os
import pathlib
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

import numpy as np

from . import _core
from ._display import Display
from ._errors import in_file
from ._executor import running_on
from ._files import read_utf8
from ._montecarlo import _check_threads, _check_whole
from ._progress import ProgressArg, progress_bar, shifted
from ._scenario import Scenario
from ._trial_summary import TrialSummary, is_trial_summary_file

PathLike = Union[str, os.PathLike]


class JournalWarning(UserWarning):
    """A journal (or a set of them) is usable, but something in it is odd: phases that do not
    add up, a step series of unexpected length, a missing utilisation or quality record…"""


def _analysis_dict(a: "_core.StepAnalysis") -> Dict[str, Any]:
    """A journal's step analysis as the public dict of :meth:`Journal.steady_state`."""
    segments = [
        {
            "first": s.first,
            "values": s.values,
            "warmup_values": s.warmup_values,
            "warmup_excess_s": s.warmup_excess_s,
            "steady_state_found": s.steady_state_found,
        }
        for s in a.segments
    ]
    return {
        "segments": segments,
        "steady_values": a.steady_values,
        "steady_mean_s": a.steady_mean_s,
        "ci_lo_s": a.ci_lo_s,
        "ci_hi_s": a.ci_hi_s,
        "lag1_autocorrelation": a.lag1_autocorrelation,
        "data_wait_fraction": a.data_wait_fraction,
        "step_time_s": a.step_time_s,
        "warnings": list(a.warnings),
    }


class Journal(Display):
    """One trial run as it happened ("trnmodel.journal/1", docs/journal.md).

    Load with :meth:`from_json` (a file; a step-time file it names is read from the same
    directory) or :meth:`from_dict`. Errors raise :class:`tm.ScenarioError` naming the field,
    the value and the rule; problems that leave the data usable are issued as
    :class:`tm.JournalWarning` and kept in :attr:`warnings`.
    """

    __slots__ = ("_core",)

    def __init__(self, core: "_core.Journal") -> None:
        self._core = core
        for message in core.warnings:
            warnings.warn(f"{core.experiment_id}: {message}", JournalWarning, stacklevel=3)

    @classmethod
    def from_json(cls, path: PathLike) -> "Journal":
        """From a journal file (JSON)."""
        path = pathlib.Path(path)
        text = read_utf8(path, "journal")
        with in_file(path):
            return cls(_core.Journal.from_text(text, str(path.parent)))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], directory: Optional[PathLike] = None) -> "Journal":
        """From a dict shaped like the JSON form. ``directory`` (default: the current one)
        is where a step-time file named in ``step_times.file`` is looked for."""
        return cls(_core.Journal.from_obj(dict(data), os.fspath(directory or ".")))

    @classmethod
    def from_log(cls, log: Any, **stated: Any) -> "Journal":
        """A run's journal from its training log (a :class:`tm.StepLog` from :func:`tm.read_log`)
        and what you state: ``platform``, ``nodes``, ``kind``, ``model``, ``global_batch``,
        ``micro_batch``, ``sequence_length``, ``tp``, ``pp``, ``dp``, ``precision``, and optionally
        ``lora_rank``, ``experiment_id``, ``steps_planned``, ``region``, ``framework``,
        ``neuron_sdk`` or ``cuda`` (:func:`tm.journal_from_log`, docs/importing.md). The fields a
        log cannot hold are listed in :attr:`unknown`, the computed ones in :attr:`derived`."""
        from ._log_journal import journal_from_log

        return cls.from_dict(journal_from_log(log, **stated))

    # -- reading ------------------------------------------------------------------------
    @property
    def experiment_id(self) -> str:
        return self._core.experiment_id

    @property
    def warnings(self) -> list:
        """The journal's warnings (also issued as JournalWarning when it was loaded)."""
        return list(self._core.warnings)

    @property
    def unknown(self) -> Dict[str, str]:
        """The fields the run did not record (dotted path -> why): calibration leaves what they
        would measure assumed, and the rules that need them are not checked."""
        return dict(self._core.unknown)

    @property
    def derived(self) -> Dict[str, str]:
        """The fields computed by a stated rule rather than recorded (dotted path -> the rule)."""
        return dict(self._core.derived)

    @property
    def step_times_s(self) -> np.ndarray:
        """The step-time series in seconds, in execution order (redone steps included)."""
        return self._core.step_times_s

    def to_dict(self) -> dict:
        return self._core.to_obj()

    def steady_state(self) -> Dict[str, Any]:
        """Warm-up (MSER-5 per segment) and the steady-state step time with its 95 %
        batch-means interval: ``steady_mean_s``, ``ci_lo_s``, ``ci_hi_s``, ``step_time_s``
        (= steady mean × (1 − data wait)), ``segments`` (with ``warmup_values`` and
        ``warmup_excess_s``)."""
        return _analysis_dict(self._core.analysis())

    def summary(self):
        """What the run measured, one row per figure: columns ``value``, ``unit``, ``note``."""
        import pandas as pd

        d = self.to_dict()
        a = self.steady_state()
        unknown, derived = self.unknown, self.derived
        phases, billed, training = d["phases"], d.get("billed", {}), d["training"]
        rows: list = []

        def add(name: str, value: Any, unit: str, note: str = "") -> None:
            rows.append((name, value, unit, note))

        def missing(path: str, name: str) -> bool:
            """A row saying the field was not recorded, and why; True when it was not."""
            if path not in unknown:
                return False
            add(name, None, "", f"not recorded: {unknown[path]}")
            return True

        if not (missing("started_at", "wall time") or missing("ended_at", "wall time")):
            add("wall time", self._core.duration_s / 3600, "h", "ended_at − started_at")
        if "before_first_step_s" in phases:
            add(
                "phases.before_first_step_s",
                float(phases["before_first_step_s"]),
                "s",
                derived.get("phases.before_first_step_s", "queue, set-up, compile and data load, not split"),
            )
        for key in ("queue_s", "setup_s", "compile_s", "data_load_s", "training_s", "final_eval_s", "teardown_s"):
            if missing(f"phases.{key}", f"phases.{key}"):
                continue
            note = derived.get(f"phases.{key}", "")
            if key == "compile_s" and "compile_cache_hit" in phases:
                note = "; ".join(filter(None, ["cache hit" if phases["compile_cache_hit"] else "cold compile", note]))
            add(f"phases.{key}", float(phases.get(key, 0.0)), "s", note)
        planned = training.get("effective_steps_planned")
        add(
            "steps completed",
            training["steps_completed"],
            "steps",
            f"of {planned} planned" if planned is not None else "planned steps not recorded",
        )
        warmup = sum(s["warmup_values"] for s in a["segments"])
        add(
            "step values",
            len(self.step_times_s),
            "values",
            f"{len(a['segments'])} segment(s); {warmup} warm-up value(s) removed by MSER-5",
        )
        add(
            "steady-state step time",
            a["steady_mean_s"],
            "s",
            f"95 % batch means: {a['ci_lo_s']:.4g} – {a['ci_hi_s']:.4g} s",
        )
        util = d.get("utilisation")
        if util:
            add("data wait", util["data_wait_fraction"], "fraction", "utilisation.data_wait_fraction")
            add("sync wait", util["sync_wait_fraction"], "fraction", "utilisation.sync_wait_fraction")
        add("step time without data wait", a["step_time_s"], "s", "the scenario's throughput.step_time_s")
        checkpoints = d.get("checkpoints", [])
        missing("checkpoints", "checkpoints")
        if checkpoints:
            add(
                "checkpoint save",
                float(np.mean([c["save_s"] for c in checkpoints])),
                "s",
                f"mean of {len(checkpoints)}",
            )
            add(
                "checkpoint verify",
                float(np.mean([c["verify_s"] for c in checkpoints])),
                "s",
                f"mean of {len(checkpoints)}",
            )
            untested = [c["step"] for c in checkpoints if not c["restore_verified"]]
            add(
                "checkpoints never restore-tested",
                len(untested),
                "checkpoints",
                ", ".join(f"step {s}" for s in untested),
            )
        evals = d.get("evaluations", [])
        if evals:
            add("evaluation", float(np.mean([e["time_s"] for e in evals])), "s", f"mean of {len(evals)}")
        interruptions = d["interruptions"]
        add(
            "interruptions",
            len(interruptions),
            "count",
            "; ".join(
                f"step {x['step']} {x.get('cause', 'cause not recorded')}, "
                + (f"recovery {x['recovery_s']} s, " if "recovery_s" in x else "")
                + f"{x['redone_steps']} steps redone"
                for x in interruptions
            ),
        )
        if not (interruptions and missing("interruptions[].cause", "node failures")):
            add("node failures", self._core.node_failures, "count", "causes counted in the failure rate")
        if not missing("billed", "billed"):
            add("billed", billed["node_hours"], "node-h", "")
        if "usd" in billed:
            add("billed cost", billed["usd"], "USD", "")
        done = training["steps_completed"]
        if billed.get("node_hours", 0) > 0 and done > 0:
            add(
                "useful steps per billed node-hour",
                done / billed["node_hours"],
                "steps/node-h",
                f"steady state: {3600 / a['steady_mean_s']:.4g} steps/h",
            )
            if "usd" in billed:
                add("cost per useful step", billed["usd"] / done, "USD/step", "billed.usd / steps_completed")
        q = d.get("quality")
        if q:
            add(
                f"quality: {q['metric']}",
                q["achieved"],
                "",
                f"target {q['target']} ({q['better']} is better): "
                f"{'passed' if q['passed'] else 'FAILED'}, scope {q.get('scope', 'trial')}",
            )
        frame = pd.DataFrame(rows, columns=["quantity", "value", "unit", "note"]).set_index("quantity")
        frame.attrs["experiment_id"] = self.experiment_id
        return frame

    def _repr_html_(self) -> str:
        from ._html import frame_html

        return frame_html(self.summary(), f"Journal {self.experiment_id}")

    def _text(self) -> str:
        return f"{self!r}\n{self.summary().to_string()}"

    def __repr__(self) -> str:
        d = self.to_dict()
        unknown = f", {len(self.unknown)} field(s) not recorded" if self.unknown else ""
        return (
            f"<Journal {self.experiment_id}: {d['instance']['nodes']} × {d['instance']['type']}, "
            f"{d['training']['steps_completed']} steps, {len(d['interruptions'])} interruption(s), "
            f"{len(self.warnings)} warning(s){unknown}>"
        )


def _journals(journals: Union[Journal, PathLike, Iterable[Union[Journal, PathLike]]]) -> List[Journal]:
    if isinstance(journals, (Journal, str, os.PathLike)):
        journals = [journals]
    out = [j if isinstance(j, Journal) else Journal.from_json(j) for j in journals]
    if not out:
        raise _core.ScenarioError("journals: must hold at least one journal")
    return out


class CalibrationReport(Display):
    """Where every input of a calibrated scenario came from.

    ``inputs``: one row per input the journals measured (``status`` measured = replaced;
    kept = measured once, base kept; flagged = kept, and the measurement lies outside the
    base's P5–P95), with method, n, experiment ids and the note written into the scenario.
    ``unmeasured``: the base's uncertain inputs no journal measured, kept as they were.
    ``steady_state``: per journal, the warm-up and steady-state step time.
    """

    def __init__(self, result: "_core.CalibrationResult", journals: List[Any], base: Scenario) -> None:
        import pandas as pd

        inputs, unmeasured, analyses = result.inputs, result.unmeasured, result.step_analyses
        self.inputs = pd.DataFrame(
            [
                {
                    "path": i.path,
                    "status": i.status,
                    "method": i.method,
                    "n": len(i.values),
                    "experiments": ", ".join(i.experiments),
                    "note": i.note,
                }
                for i in inputs
            ],
            columns=["path", "status", "method", "n", "experiments", "note"],
        ).set_index("path")
        self.unmeasured = pd.DataFrame(
            [
                {
                    "path": p,
                    "source": (base[p].to_dict().get("source") if base[p] is not None else None) or "",
                    "value": repr(base[p]),
                }
                for p in unmeasured
            ],
            columns=["path", "source", "value"],
        ).set_index("path")
        self.warnings = list(result.warnings)
        #: Inputs a journal would have measured but whose fields it did not record, each
        #: "<input>: <experiment_id> did not record <field> (<why>)": they keep the base's value.
        self.stayed_assumed: List[str] = list(result.stayed_assumed)
        self.steady_state = pd.DataFrame(
            [
                {
                    "experiment": j.experiment_id,
                    "warmup_values": sum(s.warmup_values for s in a.segments),
                    "steady_values": a.steady_values,
                    "steady_mean_s": a.steady_mean_s,
                    "ci_lo_s": a.ci_lo_s,
                    "ci_hi_s": a.ci_hi_s,
                    "data_wait_fraction": a.data_wait_fraction,
                    "step_time_s": a.step_time_s,
                }
                for j, a in zip(journals, analyses)
            ]
            or [
                {  # a trial summary: its mean is the steady step time; no series, so no warm-up or interval
                    "experiment": s.experiment_id,
                    "steady_values": s.steps,
                    "steady_mean_s": s.step_time_mean_s,
                    "step_time_s": s.step_time_mean_s,
                }
                for s in journals
                if isinstance(s, TrialSummary)
            ],
            columns=[
                "experiment",
                "warmup_values",
                "steady_values",
                "steady_mean_s",
                "ci_lo_s",
                "ci_hi_s",
                "data_wait_fraction",
                "step_time_s",
            ],
        ).set_index("experiment")
        self._measured = {i.path: list(i.values) for i in inputs}

    def values(self, path: str) -> list:
        """The measured values behind an input."""
        if path not in self._measured:
            raise KeyError(path)
        return list(self._measured[path])

    def _repr_html_(self) -> str:
        from ._html import calibration_html

        return calibration_html(self.inputs, self.unmeasured, self.warnings)

    def __repr__(self) -> str:
        return (
            f"<CalibrationReport: {int((self.inputs['status'] == 'measured').sum())} inputs measured, "
            f"{int((self.inputs['status'] != 'measured').sum())} measured once and kept, "
            f"{len(self.unmeasured)} unmeasured, {len(self.stayed_assumed)} stayed assumed (not recorded), "
            f"{len(self.warnings)} warning(s)>"
        )

    def _text(self) -> str:
        return f"{self!r}\n{self.inputs[['status', 'method', 'n']].to_string()}"


class CalibratedScenario(Scenario):
    """A Scenario calibrated from journals; :attr:`calibration` says where each input came from."""

    __slots__ = ("calibration",)
    calibration: CalibrationReport


def calibrate(
    journals: Union[Journal, TrialSummary, PathLike, Iterable[Union[Journal, PathLike]]], base: Scenario
) -> CalibratedScenario:
    """The base scenario with every input the journals measure replaced (docs/journal.md).

    ``journals``: :class:`Journal` objects or journal file paths, all runs of one
    configuration (instance type, nodes, parallelism, batch, precision…). Measured inputs
    are written with ``"source": "measured"`` and a note citing the experiment ids, n, the
    method and the values; inputs no journal measured keep the base's values. The rule from
    values to a quantity: 10 or more values are fitted (lognormal or gamma, by AIC), 2–9
    become an empirical distribution, a single value keeps the base (and is flagged when it
    falls outside the base's P5–P95). The failure rate is a Gamma posterior with the base's
    MTBF as prior; cache-hit and quality-gate probabilities are Beta posteriors.

    Trials of another node count, batch, sequence or layout than the base's fill its reference
    (``reference.*``, extrapolated mode) instead, with the spread of their mean as its
    uncertainty. A :class:`TrialSummary` (or its file), given alone, calibrates the step time
    (or the reference) the same way from its mean ± sd over its steps.

    Returns a :class:`CalibratedScenario` whose ``calibration`` (:class:`CalibrationReport`)
    lists the measured, kept and unmeasured inputs; warnings are issued as JournalWarning.
    """
    if not isinstance(base, Scenario):
        raise _core.ScenarioError(f"base: must be a tm.Scenario, got {type(base).__name__}")
    # Once into a list: a generator of journals is read once, here.
    given = [journals] if isinstance(journals, (Journal, TrialSummary, str, os.PathLike)) else list(journals)
    summary = _summary(given)
    if summary is not None:
        raw = _core.calibrate_summary(summary._core, base._core)
        loaded: List[Any] = [summary]
    else:
        loaded = _journals(given)  # type: ignore[arg-type]  # no summary among them: checked above
        raw = _core.calibrate([j._core for j in loaded], base._core)
    # Each warning once: a journal's own were issued when it was loaded.
    issued = {f"{j.experiment_id}: {w}" for j in loaded if isinstance(j, Journal) for w in j.warnings}
    for message in dict.fromkeys(raw.warnings):
        if message not in issued:
            warnings.warn(message, JournalWarning, stacklevel=2)
    result = CalibratedScenario(raw.calibrated)
    result.calibration = CalibrationReport(raw, loaded, base)
    return result


def _summary(items: List[Any]) -> Optional[TrialSummary]:
    """The trial summary when `items` holds one (an object or a file), None when it holds
    journals; a summary among journals is refused: a summary is calibrated alone."""
    found = [
        x if isinstance(x, TrialSummary) else TrialSummary.from_json(x)
        for x in items
        if isinstance(x, TrialSummary) or (isinstance(x, (str, os.PathLike)) and is_trial_summary_file(x))
    ]
    if not found:
        return None
    if len(items) > 1:
        raise _core.ScenarioError(
            f"journals: {found[0].experiment_id} is a trial summary, given with {len(items) - 1} other record(s): "
            "calibrate a trial summary alone (it holds one mean step time; journals pool runs)"
        )
    return found[0]


class BacktestResult(Display):
    """Where finished runs fell in the predicted distributions.

    ``table``: one row per (experiment, metric): observed, predicted p10/p50/p90, and the
    percentile of the observation (the PIT value). ``pit(metric)``: the PIT values of one
    metric over the runs; ``pit_histogram``; ``uniformity`` (Kolmogorov–Smirnov against
    U(0, 1)).
    """

    def __init__(self, rows: List[Dict[str, Any]], notes: Dict[str, List[str]]) -> None:
        import pandas as pd

        self.table = pd.DataFrame(
            rows, columns=["experiment", "metric", "observed", "p10", "p50", "p90", "percentile", "observed_from"]
        ).set_index(["experiment", "metric"])
        #: How the scenario was reduced to each trial.
        self.notes = notes

    @property
    def experiments(self) -> list:
        return list(dict.fromkeys(self.table.index.get_level_values("experiment")))

    def pit(self, metric: str = "wall_h") -> np.ndarray:
        """The percentiles of ``metric`` over the runs, in run order."""
        frame = self.table.xs(metric, level="metric")
        return frame["percentile"].to_numpy(dtype=float)

    def pit_histogram(self, metric: str = "wall_h", bins: int = 10):
        """Counts of the PIT values in ``bins`` equal bins of [0, 1]: flat when calibrated,
        U-shaped when the predictions are too narrow, hump-shaped when too wide."""
        import pandas as pd

        counts, edges = np.histogram(self.pit(metric), bins=_check_whole("bins", bins, 1, 1000), range=(0.0, 1.0))
        return pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "count": counts})

    def uniformity(self, metric: str = "wall_h") -> Dict[str, Any]:
        """Kolmogorov–Smirnov test of the PIT values against U(0, 1): ``runs``, ``ks_d``,
        ``p_value`` (asymptotic with Stephens' correction; rough below ~20 runs)."""
        r = _core.pit_uniformity(list(self.pit(metric)))
        return {"runs": r.runs, "ks_d": r.ks_d, "p_value": r.p_value}

    @property
    def plot(self) -> Any:
        """``bt.plot.pit(metric="wall_h")``: the PIT histogram."""
        from .plot import BacktestPlots

        return BacktestPlots(self)

    def _repr_html_(self) -> str:
        from ._html import frame_html

        return frame_html(self.table.drop(columns="observed_from"), f"Backtest of {len(self.experiments)} run(s)")

    def __repr__(self) -> str:
        return f"<BacktestResult: {len(self.experiments)} run(s)>"

    def _text(self) -> str:
        return f"{self!r}\n{self.table.drop(columns='observed_from').to_string()}"


def backtest(
    scenario: Scenario,
    journals: Union[Journal, PathLike, Iterable[Union[Journal, PathLike]]],
    samples: int = 20_000,
    seed: int = 0,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    *,
    executor: Any = None,
) -> BacktestResult:
    """Places each finished run in the distribution the scenario predicts for it.

    The scenario is reduced to each trial (its completed steps, checkpoint and evaluation
    cadence and final evaluation; no planned recompiles or quality rerun; the compile-cache
    load instead of a cold compile when the trial started warm) and simulated ``samples``
    times (≥ 1,000; same ``seed`` for every run, so the runs share random numbers). Observed
    wall time, node-hours and compute cost exclude the teardown, which scenario v1 does not
    model. Percentiles near 0 or 1 say the run was outside what the scenario expected.
    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; every
    trial's blocks run there, with the local bits (docs/scaling.md).
    """
    if not isinstance(scenario, Scenario):
        raise _core.ScenarioError(f"scenario: must be a tm.Scenario, got {type(scenario).__name__}")
    rows: List[Dict[str, Any]] = []
    notes: Dict[str, List[str]] = {}
    loaded = _journals(journals)
    samples = _check_whole("samples", samples, 1000)
    seed = _check_whole("seed", seed, 0)
    columns = ["metric", "observed", "p10", "p50", "p90", "percentile", "observed_from"]
    with progress_bar(progress, "backtest") as callback, running_on(executor):
        for k, j in enumerate(loaded):
            run = _core.backtest(
                scenario._core,
                j._core,
                samples=samples,
                seed=seed,
                threads=_check_threads(threads),
                progress=shifted(callback, k * samples, len(loaded) * samples),
            )
            rows += [{"experiment": run.experiment_id, **{c: getattr(r, c) for c in columns}} for r in run.rows]
            notes[run.experiment_id] = list(run.notes)
    return BacktestResult(rows, notes)


__all__ = [
    "Journal",
    "JournalWarning",
    "calibrate",
    "backtest",
    "CalibratedScenario",
    "CalibrationReport",
    "BacktestResult",
]
