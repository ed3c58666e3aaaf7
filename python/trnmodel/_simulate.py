"""tm.simulate: the lifecycle simulator (docs/lifecycle.md) on the Monte Carlo engine."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Union

import numpy as np

from . import _core
from ._errors import CompletenessWarning, PlausibilityWarning
from ._executor import running_on
from ._html import extrapolation_text
from ._metrics import METRICS, PHASES, STAGE_METRICS, STEP_PARTS, SUMMARY_COLUMNS
from ._montecarlo import MonteCarloResult, _check_threads, _check_whole
from ._progress import ProgressArg, progress_bar
from ._scenario import Scenario
from .fields import (
    CHECKPOINT_KEEP_LAST,
    CHECKPOINT_RESTORE_FAIL_PROB,
    FAILURES_NODE_MTBF_H,
    PRICES_PURCHASE,
    PurchaseMode,
    ThroughputMode,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["simulate", "SimulationResult", "METRICS", "PHASES", "STAGE_METRICS", "STEP_PARTS"]


#: The plausibility horizon of a wall time's tail: a P99.9 beyond TAIL_RATIO x the P50, or
#: beyond TAIL_HORIZON_H (a year), is flagged (SimulationResult.implausible_tail).
TAIL_RATIO = 10.0
TAIL_HORIZON_H = 8766.0


def _plain_hours(h: float) -> str:
    text = f"{h:,.0f} h" if h >= 100 else f"{h:.3g} h"
    return f"{text} ({h / 8766:,.1f} years)" if h > TAIL_HORIZON_H else text


class SimulationResult(MonteCarloResult):
    """Per-sample lifecycle metrics of a scenario and their statistics.

    ``res["wall_h"]`` is a NumPy array (one value per sample, ``keep_samples=True``);
    ``res.summary()`` a DataFrame (rows = metrics); ``res.to_pandas()`` one row per sample.
    """

    def __init__(self, core: "_core.RunResult", scenario: Scenario, info: "_core.LifecycleInfo", seed: int = 0) -> None:
        super().__init__(core)
        self.scenario = scenario
        #: The seed of the run: with the sample index it determines every input drawn
        #: (tm.rank_correlations recomputes them from it).
        self.seed = seed
        self._implausible_tail: Optional[List[str]] = None
        #: The run's inputs drawn into an array (tm.simulate's _keep_draws), else None.
        self._draws: Any = None
        #: {path: reason} of the unknown inputs (their metrics are NaN).
        self.unknown_inputs: Dict[str, str] = dict(zip(info.unknown_inputs, info.unknown_reasons))
        #: Metrics that could not be computed because they need an unknown input.
        self.unknown_metrics: List[str] = list(info.unknown_metrics)
        #: Inputs that were drawn (non-constant, known), by JSON path.
        self.uncertain_inputs: List[str] = list(info.uncertain_inputs)
        #: Where the step time came from: "measured", or derived ("flops", "analytic",
        #: "extrapolated") with the hardware profile used.
        self._step_time_measured = info.mode == ThroughputMode.MEASURED
        self.step_time_source = (
            info.mode
            if self._step_time_measured
            else f"derived ({info.mode} mode" + (f", profile {info.profile})" if info.profile else ")")
        )
        #: The stages of a multi-stage job, in order (empty without ``stages``).
        self.stage_names: List[str] = list(info.stage_names)
        spreads = list(info.extrapolation_log_spreads)
        if self.stage_names and any(spreads):
            # Each stage extrapolates its own layout, with an error input of its own.
            self.step_time_source += "; " + "; ".join(
                f"{name}: {extrapolation_text(sigma)}" if sigma > 0 else f"{name}: not extrapolated"
                for name, sigma in zip(self.stage_names, spreads)
            )
        elif info.mode == ThroughputMode.EXTRAPOLATED:
            self.step_time_source += "; " + extrapolation_text(info.extrapolation_log_spread)

    def stages(self, statistic: str = "mean") -> "pd.DataFrame":
        """One row per stage (in order), one column per per-stage metric (``wall_h``,
        ``node_h``, ``useful_h``, ``compile_h``, ``lost_h``, ``failures``, ``cost_compute_usd``,
        ...): the ``statistic`` (a summary column: mean, p50, p90, ...) of ``"<stage>/<metric>"``.
        The stages' ``wall_h`` sum to the job's. Empty for a job without stages."""
        import pandas as pd

        if statistic not in SUMMARY_COLUMNS:
            raise _core.ScenarioError(f"statistic: must be one of {', '.join(SUMMARY_COLUMNS)}, got {statistic!r}")
        s = self.summary()
        rows = {
            stage: {m: float(s.loc[f"{stage}/{m}", statistic]) for m in STAGE_METRICS} for stage in self.stage_names
        }
        frame = pd.DataFrame.from_dict(rows, orient="index", columns=STAGE_METRICS)
        frame.index.name = "stage"
        return frame

    def implausible_tail(self) -> List[str]:
        """The wall time's tail beyond the plausibility horizon (docs/lifecycle.md, "A tail beyond
        the plausible"): a P99.9 more than 10x the P50, or beyond a year, said in a sentence that
        names the phase making it and the inputs behind that phase; empty otherwise (a tail of
        10 P50s made of the queue wait is the wait its input states: not flagged). A restore
        that can fail with one checkpoint kept sends the job (or its stage) back to its start,
        again and again: the sentence says so. Computed once (results are immutable)."""
        if self._implausible_tail is None:
            self._implausible_tail = self._find_implausible_tail()
        return list(self._implausible_tail)

    def _find_implausible_tail(self) -> List[str]:
        # The phase with the largest P99.9 is the one the tail is made of. A phase whose maximum
        # lies below the largest P99.9 found so far cannot have a larger one (nor an equal one),
        # so phases are taken by falling maximum and those skipped: the same phase and value as
        # every phase's P99.9 (ties go to the first in PHASES), mostly for one exact quantile
        # instead of a dozen (64 ms at 4·10⁶ kept samples; docs/benchmarks.md). The first is
        # computed beside the wall time's, on another core.
        maxima = {m: float(self._core.moments(m).max) for m in PHASES}
        order = sorted(PHASES, key=lambda m: -maxima[m])
        wall, first = self._core.quantiles_of(["wall_h", order[0]], [0.5, 0.999])
        p50, p999 = float(wall[0]), float(wall[1])
        if not (p999 > TAIL_RATIO * p50 or p999 > TAIL_HORIZON_H) or not np.isfinite(p999):
            return []
        phase_p999: Dict[str, float] = {order[0]: float(first[1])}
        largest = phase_p999[order[0]]
        for m in order[1:]:
            if maxima[m] < largest:
                continue
            phase_p999[m] = float(self._core.quantiles(m, [0.999])[0])
            largest = max(largest, phase_p999[m])
        worst = max((m for m in PHASES if m in phase_p999), key=lambda m: phase_p999[m])
        # A tail made of the queue wait is the wait its input states (a heavy lognormal wait for
        # scarce capacity, holding no nodes), not one the lifecycle compounds: only a year flags it.
        if worst == "queue_h" and p999 <= TAIL_HORIZON_H:
            return []
        table = self.scenario.completeness()
        inputs = [i for row in table[table.metric == worst]["inputs"] for i in row.split(", ") if i]
        over = []
        if p999 > TAIL_RATIO * p50:
            over.append(f"{p999 / p50:,.0f}x the P50 of {_plain_hours(p50)}")
        if p999 > TAIL_HORIZON_H:
            over.append("over a year")
        sentence = (
            f"the P99.9 wall time is {_plain_hours(p999)}, {' and '.join(over)}: a tail beyond what a job "
            f"plausibly takes, made of {worst} (its P99.9 {_plain_hours(phase_p999[worst])}"
            + (f"; inputs {', '.join(inputs)}" if inputs else "")
            + ")"
        )
        fail = self.scenario[CHECKPOINT_RESTORE_FAIL_PROB]
        if worst == "lost_h" and float(fail.ppf(0.999)) > 0 and self.scenario[CHECKPOINT_KEEP_LAST] == 1:
            sentence += (
                ": a restore that fails (checkpoint.restore_fail_prob) with one checkpoint kept "
                "(checkpoint.keep_last 1) sends the job back to its start, again and again; keep more "
                "checkpoints or test the restore"
            )
        return [sentence]

    def _summary_frame(self) -> Any:
        """mean sd p10 p50 p80 p90 p99 min max per metric; with unknown inputs, a ``note``
        column says which metrics are NaN and why."""
        frame = super()._summary_frame()
        frame.index.name = "metric"
        notes = {"step_time_s": self.step_time_source}
        for part in STEP_PARTS:
            notes[part] = "not modelled: step time measured" if self._step_time_measured else ""
        # A phase the scenario does not describe is not silently zero: its metric says so.
        for p in _core.completeness(self.scenario._core):
            if p.counted_as_zero:
                notes[p.metric] = f"not described ({', '.join(p.missing)}): counted as 0"
        purchase = self.scenario[PRICES_PURCHASE]
        if purchase != PurchaseMode.CAPACITY_BLOCK:
            notes["block_fit"] = f"not a capacity block (prices.purchase {purchase})"
        notes.update({m: "unknown: " + ", ".join(self.unknown_inputs) for m in self.unknown_metrics})
        frame["note"] = [notes.get(m, "") for m in frame.index]
        return frame

    def summary(self) -> "pd.DataFrame":
        """mean sd p10 p50 p80 p90 p99 min max per metric; with unknown inputs, a ``note``
        column says which metrics are NaN and why. Computed once (results are immutable)."""
        return super().summary()

    @property
    def plot(self) -> Any:
        """Plots of this result: ``res.plot.distribution("wall_h")``, ``.phases()``, ``.ledger()``
        (matplotlib Axes; see :mod:`trnmodel.plot`)."""
        from .plot import ResultPlots

        return ResultPlots(self)

    def to_pandas(self) -> "pd.DataFrame":
        """One row per sample, one column per metric (needs ``keep_samples=True``)."""
        import pandas as pd

        return pd.DataFrame({m: self[m] for m in self.outputs})

    def __repr__(self) -> str:
        s = self.summary()
        return (
            f"<SimulationResult of {self.scenario.name or 'a scenario'}: {self.samples} samples, "
            f"wall_h P50 {s.loc['wall_h', 'p50']:.4g}, run_cost_usd P50 {s.loc['run_cost_usd', 'p50']:.4g}>"
        )

    def _text(self) -> str:
        rows = ["wall_h", "run_cost_usd", "useful_step_cost_usd", "lifecycle_cost_per_step_usd"]
        return f"{self!r}\n{self.summary().loc[rows, ['mean', 'p50', 'p80', 'p90']].to_string()}"

    def _repr_html_(self) -> str:
        from ._html import simulation_html

        return simulation_html(self)


def simulate(
    scenario: Scenario,
    samples: int = 100_000,
    seed: int = 0,
    threads: Optional[int] = None,
    keep_samples: bool = True,
    allow_unknown: bool = False,
    progress: ProgressArg = None,
    *,
    executor: Any = None,
    _keep_draws: bool = False,
) -> SimulationResult:
    """Simulate a scenario's lifecycle ``samples`` times.

    Every uncertain input is drawn once per sample on its own random stream (named by its
    JSON path); failures, cache hits and the quality gate are drawn per event. Results are
    identical, bitwise, for any ``threads`` (None: all cores) with the same ``seed``.

    Metrics (docs/metrics.md): phase times in hours (``queue_h`` ... ``rerun_h``, summing to
    ``wall_h``), ``billed_h``, ``node_h``, ``goodput``, ``failures``, ``recompiles`` and the
    cost ledger in USD (``cost_compute_usd`` ... ``lifecycle_cost_per_step_usd``).

    Nothing is silently left out: the summary's ``note`` says which phase metrics are "not
    described: counted as 0" (see :meth:`Scenario.completeness`), and the platform expectations
    the scenario does not meet are warned about (:class:`tm.CompletenessWarning`), as is a P50
    wall time of a day or more without a failure model.

    An input marked unknown (or an absent ``prices.node_hour_usd``) raises
    :class:`tm.UnknownInputError` listing every one; with ``allow_unknown=True`` the metrics
    that need them are NaN and the summary says so. ``keep_samples=False`` keeps memory
    flat in ``samples`` (quantiles then within 0.1% relative).

    ``progress``: None (default) shows a progress bar for runs longer than about a second when
    output is interactive (a terminal or Jupyter); True always, False never; or a callable
    ``f(done, total)`` called between waves of blocks. Ctrl-C stops the run within one wave and
    raises KeyboardInterrupt; nothing is left half-done.

    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client`` to run on
    (docs/scaling.md). The blocks are split into ranges, one task each; the scenario is checked
    here before any task is sent; the result is the local run's, bit for bit.
    """
    if not isinstance(scenario, Scenario):
        raise _core.ScenarioError(f"scenario: must be a tm.Scenario, got {type(scenario).__name__}")
    model = _core.LifecycleModel(scenario._core)
    info = model.info
    seed = _check_whole("seed", seed, 0)
    samples = _check_whole("samples", samples, 1)
    # _keep_draws (the sign-off's): the inputs are drawn into an array first and the result keeps
    # it (result._draws), for the runs that draw the same inputs again (its break-even, its side
    # of the pairing check); not with an executor, whose tasks draw for themselves.
    draws = None
    with progress_bar(progress, scenario.name or "simulate") as callback, running_on(executor):
        if _keep_draws and executor is None:
            draws = _core.draw_inputs(model, samples=samples, seed=seed, threads=_check_threads(threads))
        core = model.simulate(
            samples=samples,
            seed=seed,
            threads=_check_threads(threads),
            keep_samples=bool(keep_samples),
            allow_unknown=bool(allow_unknown),
            progress=callback,
            draws=draws,
        )
    result = SimulationResult(core, scenario, info, seed)
    result._draws = draws
    _warn_expectations(scenario, result)
    for sentence in result.implausible_tail():
        warnings.warn(sentence, PlausibilityWarning, stacklevel=2)
    return result


def _warn_expectations(scenario: Scenario, result: SimulationResult) -> None:
    _warn_expectations_at(scenario, lambda: float(result.summary().loc["wall_h", "p50"]), stacklevel=4)


def _warn_expectations_at(
    scenario: Scenario, wall_p50_h: Union[float, Callable[[], float]], stacklevel: int = 3
) -> None:
    """The expectations the scenario does not meet, warned, and a P50 wall time (``wall_p50_h``,
    or a function giving it) of a day or more without a failure model."""
    unmet = scenario.expectations()
    # The multi-node rule already says "without a failure model": the day-long rule is not repeated.
    if scenario[FAILURES_NODE_MTBF_H] is None and not _core.multi_node_without_failures(scenario._core):
        p50_h = float(wall_p50_h() if callable(wall_p50_h) else wall_p50_h)
        if p50_h >= 24:
            unmet.append(
                f"the P50 wall time is {p50_h:.3g} h without a failure model (failures.node_mtbf_h): a job of a day "
                "or more meets failures"
            )
    for sentence in unmet:
        warnings.warn(sentence, CompletenessWarning, stacklevel=stacklevel)
