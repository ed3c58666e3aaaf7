"""Sensitivity, comparison and what-if (docs/sensitivity.md): Sobol indices, tornado, rank
correlations, comparison on common random numbers, break-even, sweeps.

The heavy parts run in C++ (include/trnmodel/sensitivity/); this module owns the user
experience: argument checks, pandas tables, docs. Every call that runs Monte Carlo takes
``seed``, ``threads`` and ``progress``.

The order of the tables: a table ranked by a sensitivity measure lists the largest first
(:func:`tornado` by ``swing``, :func:`rank_correlations` by ``|prcc|``, :func:`sobol` and
:func:`sobol_function` by the total index ``ST`` — what a factor moves, interactions included,
the usual ranking for screening — then ``S1``; NaN last, ties in the model's input order).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._display import Display
from ._distributions import Distribution
from ._executor import Run, request_task, run_many, running_on, scenario_state, sobol_function_task, sobol_task
from ._metrics import METRICS, STAGE_METRICS, SUMMARY_COLUMNS
from ._montecarlo import PYTHON_BLOCK_ROWS, _check_threads, _check_whole, _function_inputs, summary_frame
from ._progress import ProgressArg, progress_bar, shifted
from ._scenario import Scenario, _plain
from ._simulate import SimulationResult, _warn_expectations, _warn_expectations_at, simulate
from .fields import CHECKPOINT_EVERY_STEPS

if TYPE_CHECKING:
    import pandas as pd

#: Base samples per block of a scenario's Saltelli design (each block evaluates
#: (d + 2) × this many samples). Part of the result's definition, so fixed.
SCENARIO_BASE_BLOCK = 256

SOBOL_COLUMNS = ["S1", "S1_conf", "ST", "ST_conf"]

StatisticArg = Union[str, float]


def _check_scenario(name: str, scenario: Any) -> Scenario:
    if not isinstance(scenario, Scenario):
        raise _core.ScenarioError(f"{name}: must be a tm.Scenario, got {type(scenario).__name__}")
    return scenario


def _check_output(output: Any, stages: Sequence[str] = ()) -> str:
    """A metric, or, for a job in ``stages``, a stage's ``"<stage>/<metric>"`` (tm.STAGE_METRICS)."""
    if output in METRICS:
        return output
    stage, _, metric = str(output).partition("/") if isinstance(output, str) else ("", "", "")
    if stage in stages and metric in STAGE_METRICS:
        return output
    per_stage = (
        f"; per stage '<stage>/<metric>' for the stages {', '.join(stages)} and the metrics {', '.join(STAGE_METRICS)}"
        if stages
        else (
            "; '<stage>/<metric>' outputs need a scenario with stages (in tm.sobol, tm.tornado, tm.rank_correlations)"
            if "/" in str(output)
            else ""
        )
    )
    raise _core.ScenarioError(f"output: no metric named {output!r} (metrics: {', '.join(METRICS)}{per_stage})")


def _stages_of(scenario: Scenario) -> List[str]:
    return list(_core.lifecycle_info(scenario._core).stage_names)


def _probability(statistic: StatisticArg) -> float:
    """-1 for the mean, else the quantile's probability: "mean", "median", "p90", or 0.9."""
    if isinstance(statistic, str):
        text = statistic.strip().lower()
        if text == "mean":
            return -1.0
        if text == "median":
            return 0.5
        if text.startswith("p") and text[1:].replace(".", "", 1).isdigit() and 0 <= float(text[1:]) <= 100:
            return float(text[1:]) / 100
    elif isinstance(statistic, (int, float, np.floating)) and not isinstance(statistic, bool) and 0 <= statistic <= 1:
        return float(statistic)
    raise _core.ScenarioError(
        f"statistic: must be 'mean', 'median', 'pNN' (e.g. 'p90') or a probability in [0, 1], got {statistic!r}"
    )


def _statistic_label(statistic: StatisticArg) -> str:
    p = _probability(statistic)
    return "mean" if p < 0 else f"p{100 * p:g}"


def _check_confidence(confidence: Any) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise _core.ScenarioError(f"confidence: must be in (0, 1), got {confidence!r}")
    return float(confidence)


def _check_base_samples(base_samples: Any) -> int:
    return _check_whole("base_samples", base_samples, 2, 2**62)


# ------------------------------------------------------------------------------------------
# Sobol indices
# ------------------------------------------------------------------------------------------


def _sobol_frame(raw: "_core.SobolResult", output: str) -> Any:
    import pandas as pd

    frame = pd.DataFrame({k: getattr(raw, k) for k in SOBOL_COLUMNS}, index=pd.Index(raw.factors, name="factor"))
    frame["note"] = raw.notes
    # Like the tornado and the rank correlations: the factor that matters most first (by ST,
    # then S1; a NaN index last; ties keep the factors' order).
    order = np.lexsort(
        (-np.nan_to_num(frame["S1"].to_numpy(), nan=-np.inf), -np.nan_to_num(frame["ST"].to_numpy(), nan=-np.inf))
    )
    frame = frame.iloc[order]
    frame.attrs.update(
        {
            "output": output,
            "mean": raw.mean,
            "variance": raw.variance,
            "base_samples": raw.base_samples,
            "evaluations": raw.evaluations,
            "confidence": raw.confidence,
            "note": raw.note,
            "method": "Saltelli design; S1: Saltelli et al. 2010; ST: Jansen 1999; *_conf: half-width of the "
            f"{100 * raw.confidence:g}% asymptotic (delta-method) normal interval",
        }
    )
    return frame


def sobol(
    scenario: Scenario,
    output: Union[str, Sequence[str]] = "run_cost_usd",
    base_samples: int = 2**13,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    confidence: float = 0.95,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Any:
    """First-order and total Sobol indices of a scenario's metric.

    Factors are the scenario's uncertain (drawn) inputs, by JSON path, plus ``chance``: all
    aleatory randomness (failures, cache draws, the quality gate). ``chance``'s indices say how
    much of the spread is luck rather than missing knowledge. In a job in stages, ``output`` may
    be a stage's own metric (``"32k/wall_h"``, tm.STAGE_METRICS) and a stage's own input is a
    factor named ``"<stage>/<path>"``.

    Returns a DataFrame, one row per factor sorted by ``ST`` (largest first), with SALib's columns ``S1 S1_conf ST ST_conf``
    (the ``_conf`` columns are half-widths of ``confidence`` intervals, asymptotic normal by
    the delta method) and ``note``, which flags estimates not to be taken at face value (a
    negative S1, S1 above ST). ``frame.attrs`` holds the output's mean and variance, the
    number of model evaluations ((d + 2) · base_samples) and the method.

    ``output`` a list of names: a dict of such tables, one per output, in the list's order,
    from one design whose lifecycles are evaluated once for all of them (each table is bit for
    bit the one a call with that output alone gives; ``evaluations`` counts the design's rows).

    The Saltelli design is generated from the random streams' counters (never stored): memory
    does not grow with ``base_samples``, and the result is identical, bitwise, for any
    ``threads``. ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``;
    the design's blocks run there, with the local bits (docs/scaling.md).
    """
    _check_scenario("scenario", scenario)
    names = _sobol_output_names(scenario, output)
    base = _check_base_samples(base_samples)
    seed = _check_whole("seed", seed, 0)
    level = _check_confidence(confidence)
    with progress_bar(progress, "sobol") as callback:
        if executor is not None:
            # One split run per output, all sent at once, each with the shift of its first block
            # from here (which also checks the scenario before any task).
            design = dict(base_samples=base, seed=seed, block_size=SCENARIO_BASE_BLOCK)
            shifts = [_core.sobol_scenario_shift(scenario._core, name, **design) for name in names]
            blocks = _core.block_count(base, SCENARIO_BASE_BLOCK)
            state = scenario_state(scenario)
            parts = run_many(
                executor,
                [
                    Run(sobol_task, (state, name, base, seed, SCENARIO_BASE_BLOCK, shift), blocks)
                    for name, shift in zip(names, shifts)
                ],
                callback,
                fold=lambda partials: partials,
            )
            raws = [
                _core.sobol_scenario_fold(scenario._core, name, confidence=level, partials=partials, **design)
                for name, partials in zip(names, parts)
            ]
        else:
            raws = _core.sobol_scenario(
                scenario._core,
                names,
                base_samples=base,
                seed=seed,
                threads=_check_threads(threads),
                confidence=level,
                block_size=SCENARIO_BASE_BLOCK,
                progress=callback,
            )
    frames = {name: _sobol_frame(raw, name) for name, raw in zip(names, raws)}
    return frames[names[0]] if isinstance(output, str) else frames


def _sobol_output_names(scenario: Scenario, output: Any) -> List[str]:
    """:func:`sobol`'s outputs: one name, or a non-empty list of distinct ones."""
    stages = _stages_of(scenario)
    if isinstance(output, str):
        return [_check_output(output, stages)]
    if isinstance(output, (bytes, Mapping)) or not isinstance(output, Sequence) or len(output) == 0:
        raise _core.ScenarioError(f"output: must be a metric name or a non-empty list of them, got {output!r}")
    names = [_check_output(o, stages) for o in output]
    if len(set(names)) != len(names):
        raise _core.ScenarioError(f"output: names an output twice: {names}")
    return names


def sobol_function(
    f: Callable[[np.ndarray], np.ndarray],
    inputs: Mapping[str, Union[Distribution, float, Mapping[str, Any]]],
    base_samples: int = 2**14,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    confidence: float = 0.95,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Any:
    """First-order and total Sobol indices of a vectorized function of uncertain inputs.

    ``f`` takes a 2-D float64 array (rows = samples, columns = the inputs in dict order) and
    returns one value per row. It is called on blocks of about 16,384 rows: the rows of the
    Saltelli design's matrices A, B and AB_i for a block of base samples, (d + 2) · base_samples
    rows in all, d being the number of non-constant inputs (the factors; constants are passed
    to ``f`` but are not factors). Same table as :func:`sobol`. ``executor``: a
    ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; the design's blocks run
    there, with the local bits, ``f`` pickled to the workers (docs/scaling.md).
    """
    names, quantities = _function_inputs(f, inputs)
    base = _check_base_samples(base_samples)
    seed = _check_whole("seed", seed, 0)
    level = _check_confidence(confidence)
    with progress_bar(progress, "sobol") as callback:
        if executor is not None:
            # The shift of the first block here (it also checks f's outputs before any task).
            design = dict(base_samples=base, seed=seed, block_rows=PYTHON_BLOCK_ROWS)
            shift, blocks = _core.sobol_function_shift(f, names, quantities, **design)
            specs = {name: q.to_obj() for name, q in zip(names, quantities)}
            raw = run_many(
                executor,
                [Run(sobol_function_task, (f, specs, base, seed, PYTHON_BLOCK_ROWS, shift), blocks)],
                callback,
                fold=lambda parts: _core.sobol_function_fold(
                    names, quantities, confidence=level, partials=parts, **design
                ),
            )[0]
        else:
            raw = _core.sobol_function(
                f,
                names,
                quantities,
                base_samples=base,
                seed=seed,
                threads=_check_threads(threads),
                confidence=level,
                block_rows=PYTHON_BLOCK_ROWS,
                progress=callback,
            )
    return _sobol_frame(raw, "f")


# ------------------------------------------------------------------------------------------
# Tornado and rank correlations
# ------------------------------------------------------------------------------------------


def tornado(
    scenario: Scenario,
    output: str = "run_cost_usd",
    statistic: StatisticArg = "mean",
    samples: int = 20_000,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    low: float = 0.1,
    high: float = 0.9,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Any:
    """Each uncertain input held at its P10, then at its P90 (``low``/``high``), every other
    input and the chance draws left random on common random numbers; the output statistic
    (``"mean"``, ``"median"``, ``"p90"`` or a probability) in each case.

    Returns a DataFrame sorted by ``swing`` = |high − low|, one row per input, with the input
    values (``low_value``, ``high_value``), the statistic there (``low``, ``high``) and the
    baseline statistic with every input random in ``frame.attrs["baseline"]``. ``chance`` has no
    P10 and no bar: see :func:`sobol`. Costs 2·d + 1 runs of ``samples``. ``output`` may be a
    stage's own metric, ``"<stage>/<metric>"``. ``executor``: a ``concurrent.futures.Executor``
    or a ``dask.distributed.Client``; each run's blocks run there, with the local bits
    (docs/scaling.md).
    """
    import pandas as pd

    _check_scenario("scenario", scenario)
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise _core.ScenarioError(f"{name}: must be a probability in [0, 1], got {value!r}")
    with progress_bar(progress, "tornado") as callback, running_on(executor):
        raw = _core.tornado(
            scenario._core,
            _check_output(output, _stages_of(scenario)),
            probability=_probability(statistic),
            samples=_check_whole("samples", samples, 1),
            seed=_check_whole("seed", seed, 0),
            threads=_check_threads(threads),
            low=float(low),
            high=float(high),
            progress=callback,
        )
    columns = ["factor", "low_value", "high_value", "low", "high", "swing"]
    frame = pd.DataFrame([[getattr(bar, c) for c in columns] for bar in raw.bars], columns=columns).set_index("factor")
    frame.attrs.update(
        {"output": output, "statistic": _statistic_label(statistic), "baseline": raw.baseline, "low": low, "high": high}
    )
    return frame


def rank_correlations(
    result: Union[SimulationResult, Scenario],
    output: str = "run_cost_usd",
    *,
    samples: int = 20_000,
    seed: int = 0,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Any:
    """Spearman and partial rank correlation (PRCC) of every uncertain input with an output.

    From a :class:`SimulationResult` (with kept samples) this costs no model run: the inputs
    are recomputed from the random streams' counters. Given a Scenario, it is simulated first
    (``samples``, ``seed``; on ``executor`` when given, as :func:`simulate`). Returns a
    DataFrame (``spearman``, ``prcc``), sorted by |prcc|.
    Constant inputs, and ``chance`` (not a scalar input), have no rank correlation. ``output``
    may be a stage's own metric, ``"<stage>/<metric>"``.
    """
    import pandas as pd

    if isinstance(result, Scenario):
        result = simulate(result, samples=samples, seed=seed, threads=threads, progress=progress, executor=executor)
    if not isinstance(result, SimulationResult):
        raise _core.ScenarioError(
            f"result: must be a tm.SimulationResult or a tm.Scenario, got {type(result).__name__}"
        )
    if not result._core.kept:
        raise _core.ScenarioError("result: samples were not kept (simulate with keep_samples=True)")
    y = np.asarray(result[_check_output(output, result.stage_names)], dtype=float)
    raw = _core.rank_correlations(result.scenario._core, result.seed, y)
    frame = pd.DataFrame({"spearman": raw.spearman, "prcc": raw.prcc}, index=pd.Index(raw.factors, name="factor"))
    frame = frame.iloc[np.argsort(-np.nan_to_num(np.abs(frame["prcc"].to_numpy()), nan=-1), kind="stable")]
    frame.attrs["output"] = output
    return frame


# ------------------------------------------------------------------------------------------
# Comparison and break-even
# ------------------------------------------------------------------------------------------


class Comparison(Display):
    """Two scenarios on common random numbers: per sample ``a``, ``b`` and ``difference``
    (a − b), ``p_a_less_b``, ``summary()`` and :meth:`break_even`."""

    def __init__(
        self,
        core: "_core.RunResult",
        a: Scenario,
        b: Scenario,
        output: str,
        samples: int,
        seed: int,
        threads: Optional[int],
        simulated_a: Optional[SimulationResult] = None,
        simulated_b: Optional[SimulationResult] = None,
    ) -> None:
        self._core = core
        self.scenario_a, self.scenario_b = a, b
        self.output, self.samples, self.seed, self.threads = output, samples, seed, threads
        self._summary: Any = None
        self._pairing: Optional[_Pairing] = None
        # Partly paired samples per output (pairing_check), both sides.
        self._paired_a: Dict[str, np.ndarray] = {}
        self._paired_b: Dict[str, np.ndarray] = {}
        # A's kept simulation on this seed and sample count, when the comparison was made from
        # one: the pairing check's side a (see _Pairing) without running it again.
        self._simulated_a = simulated_a
        # The kept simulations the comparison was made from (both, or neither): their drawn
        # inputs, when they kept them (the sign-off's), serve the break-even and the pairing check.
        self._simulated_b = simulated_b

    def _values(self, name: str) -> np.ndarray:
        return self._core.values(name)

    @property
    def a(self) -> np.ndarray:
        """The output of scenario A, per sample (keep_samples=True)."""
        return self._values("a")

    @property
    def b(self) -> np.ndarray:
        return self._values("b")

    @property
    def difference(self) -> np.ndarray:
        """a − b, per sample: the same random numbers on both sides."""
        return self._values("difference")

    @property
    def p_a_less_b(self) -> float:
        """P(A < B): the fraction of samples in which A's output is below B's."""
        return self._core.moments("a_less_b").mean

    def summary(self) -> "pd.DataFrame":
        """mean sd p10 p50 p80 p90 p99 min max of a, b and the difference (rows); computed once."""
        if self._summary is None:
            frame = summary_frame(self._core.summary(), self.output)
            self._summary = frame[SUMMARY_COLUMNS].loc[["a", "b", "difference"]]
        return self._summary.copy()

    def break_even(
        self,
        path: str,
        statistic: StatisticArg = "mean",
        *,
        on: str = "b",
        bracket: Optional[Sequence[float]] = None,
        seed: Optional[int] = None,
        threads: Optional[int] = None,
        progress: ProgressArg = None,
        executor: Any = None,
    ) -> float:
        """The value of ``path`` (a quantity, e.g. ``"prices.node_hour_usd"``) in scenario ``on``
        (``"b"`` or ``"a"``), set to a fixed value, at which its ``statistic`` of the output equals
        the other scenario's, every run on this comparison's sample count and seed (``seed``,
        ``threads``: None for the comparison's own). ``bracket`` = (lo, hi) around the answer; by
        default it grows from the path's current median. Solved by TOMS 748 to a relative 1e-9
        of the value. ``executor``: a ``concurrent.futures.Executor`` or a
        ``dask.distributed.Client``; each evaluation's blocks run there, with the local bits
        (docs/scaling.md)."""
        if on not in ("a", "b"):
            raise _core.ScenarioError(f"on: must be 'a' or 'b', got {on!r}")
        fixed, varied = (self.scenario_a, self.scenario_b) if on == "b" else (self.scenario_b, self.scenario_a)
        lo, hi = (math.nan, math.nan) if bracket is None else (float(bracket[0]), float(bracket[1]))
        probability = _probability(statistic)
        target = math.nan  # the fixed side's statistic: run again unless this comparison has it
        if (seed is None or seed == self.seed) and self.output in _core.metric_names():
            column = "a" if on == "b" else "b"  # the fixed scenario's output, on the same runs
            if probability < 0:
                target = self._core.moments(column).mean
            elif self._core.kept:
                target = self._core.quantiles(column, [probability])[0]
        varied_run = self._simulated_b if on == "b" else self._simulated_a
        draws = varied_run._draws if varied_run is not None and (seed is None or seed == self.seed) else None
        with progress_bar(progress, "break-even") as callback, running_on(executor):
            raw = _core.break_even(
                fixed._core,
                varied._core,
                self.output,
                str(path),
                probability=probability,
                samples=self.samples,
                seed=self.seed if seed is None else _check_whole("seed", seed, 0),
                threads=_check_threads(self.threads if threads is None else threads),
                lo=lo,
                hi=hi,
                progress=callback,
                target=target,
                draws=draws,
            )
        return raw.value

    def pairing_check(self) -> Dict[str, Any]:
        """P(A < B) again, pairing only the inputs that both scenarios describe identically.

        Common random numbers draw a job input with the same JSON path at the same quantile in
        both scenarios (the platform's inputs are keyed by the platform already). For an input
        that is the same unknown in both (the job's step count, its data pipeline) that is
        right; two scenarios may still describe one differently. Here inputs whose streams or
        distributions differ, and the chance draws, are independent.
        Returns ``p_a_less_b``, ``p_equal``, ``paired`` and ``unpaired`` (input paths), and
        ``difference`` (a − b per sample)."""
        ya, yb, paired, unpaired = self._partly_paired(self.output)
        return {
            "p_a_less_b": float(np.mean(ya < yb)),
            "p_equal": float(np.mean(ya == yb)),
            "paired": paired,
            "unpaired": unpaired,
            "difference": ya - yb,
        }

    def _partly_paired(self, output: str) -> Tuple[np.ndarray, np.ndarray, List[str], List[str]]:
        """Both scenarios' ``output`` per sample as :meth:`pairing_check` draws them."""
        self._partly_paired_outputs([output])
        assert self._pairing is not None
        return self._paired_a[output], self._paired_b[output], self._pairing.paired, self._pairing.unpaired

    def _partly_paired_outputs(self, outputs: List[str]) -> None:
        """Runs the partly paired sides of the ``outputs`` not run yet, in one run per side."""
        missing = [o for o in dict.fromkeys(outputs) if o not in self._paired_a]
        if missing:
            ya, yb, self._pairing = _partly_paired(
                self.scenario_a,
                self.scenario_b,
                missing,
                self.samples,
                self.seed,
                self.threads,
                self._pairing,
                self._known_a(missing),
                draws=tuple(None if r is None else r._draws for r in (self._simulated_a, self._simulated_b)),
            )
            self._paired_a.update(ya)
            self._paired_b.update(yb)

    def _known_a(self, outputs: List[str]) -> Dict[str, np.ndarray]:
        """The ``outputs`` of A's own simulation on this seed and sample count that are at hand:
        every one from the kept simulation the comparison was made from, else the compared
        output from this comparison's kept samples (its ``a``)."""
        if self._simulated_a is not None:
            return {name: self._simulated_a[name] for name in outputs}
        return {self.output: self.a} if self._core.kept and self.output in outputs else {}

    @property
    def plot(self) -> Any:
        """``cmp.plot.comparison()``: both distributions overlaid, with P(A < B)."""
        from .plot import ComparisonPlots

        return ComparisonPlots(self)

    def _repr_html_(self) -> str:
        from ._html import comparison_html

        return comparison_html(
            self.output,
            self.scenario_a.name or "A",
            self.scenario_b.name or "B",
            self.samples,
            self.p_a_less_b,
            self.summary(),
        )

    def __repr__(self) -> str:
        return (
            f"<Comparison of {self.output}: A = {self.scenario_a.name or 'a'}, B = {self.scenario_b.name or 'b'}, "
            f"{self.samples} samples, P(A < B) = {self.p_a_less_b:.4f}>"
        )

    def _text(self) -> str:
        return f"{self!r}\n{self.summary().to_string()}"


def _distribution_only(scenario: Scenario, path: str) -> Any:
    """An input's distribution without its provenance, or None for inputs that are not
    scenario fields (hardware-profile figures, ``platform.*``)."""
    try:
        d = scenario[path]
    except KeyError:
        return None
    spec = d.to_dict() if isinstance(d, Distribution) else d
    if isinstance(spec, dict):
        return {k: v for k, v in spec.items() if k not in ("source", "note", "date", "region")}
    return spec


class _Pairing(NamedTuple):
    """The streams of a partly paired comparison: identically described inputs share a stream,
    the others (and every chance draw) have one per side. Side a draws everything as its own
    simulation does (so a kept simulation of a on the same seed and samples is side a); side b
    draws the inputs not described alike on ``"<path>@b"``."""

    paired: List[str]
    unpaired: List[str]
    streams_a: List[int]
    streams_b: List[int]


def _pairing(a: Scenario, b: Scenario) -> _Pairing:
    info_a, info_b = _core.lifecycle_info(a._core), _core.lifecycle_info(b._core)
    inputs_a, inputs_b = info_a.uncertain_inputs, info_b.uncertain_inputs
    # Paired: the same stream in both runs (an input of the platform on two platforms is not)
    # and the same distribution.
    streams_a = dict(zip(inputs_a, info_a.input_streams))
    streams_b = dict(zip(inputs_b, info_b.input_streams))
    paired = [
        p
        for p in inputs_b
        if streams_a.get(p) == streams_b[p]
        and _distribution_only(a, p) is not None
        and _distribution_only(a, p) == _distribution_only(b, p)
    ]
    unpaired = sorted((set(inputs_a) | set(inputs_b)) - set(paired))
    on_b = [streams_b[p] if p in paired else _core.stream_id(f"{p}@b") for p in inputs_b]
    return _Pairing(paired, unpaired, list(info_a.input_streams), on_b)


def _partly_paired(
    a: Scenario,
    b: Scenario,
    outputs: List[str],
    samples: int,
    seed: int,
    threads: Optional[int] = None,
    pairing: Optional[_Pairing] = None,
    known_a: Optional[Mapping[str, np.ndarray]] = None,
    draws: Tuple[Any, ...] = (None, None),
) -> Tuple[Dict[str, np.ndarray], Dict[str, np.ndarray], _Pairing]:
    """Both scenarios' ``outputs`` per sample, with only identically described inputs on
    common uniforms (sample i of their streams); side a's chance draws are those of sample i,
    side b's those of sample samples + i. Side a is a's own simulation: its outputs in
    ``known_a`` (a's kept samples on ``seed`` and ``samples``) are taken, not run again.
    ``draws``: each side's inputs already drawn on this seed and sample count (or None); an
    input on one of their streams with their distribution is read back, not drawn again."""
    pairing = pairing or _pairing(a, b)
    n = int(samples)
    known_a = known_a or {}
    sides = []
    for scenario, streams, offset, drawn in ((a, pairing.streams_a, 0, draws[0]), (b, pairing.streams_b, n, draws[1])):
        side = {name: np.asarray(known_a[name]) for name in outputs if offset == 0 and name in known_a}
        to_run = [name for name in outputs if name not in side]
        if to_run:
            run = _core.restreamed_run(
                scenario._core,
                to_run,
                streams=streams,
                chance_offset=offset,
                samples=n,
                seed=seed,
                threads=_check_threads(threads),
                draws=drawn,
            )
            side.update({name: np.asarray(run.values(name)) for name in to_run})
        sides.append(side)
    return sides[0], sides[1], pairing


def compare(
    a: Scenario,
    b: Scenario,
    output: str = "run_cost_usd",
    samples: int = 100_000,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    keep_samples: bool = True,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Comparison:
    """Compare two scenarios on common random numbers.

    Both run on the same seed and sample indices. An input of the job (its steps, data,
    checkpoints; same JSON path) draws the same uniforms in both, and so does the job's luck
    (quality gate, restore checks); an input that describes the platform (step time, prices,
    compiler, reliability, porting effort) and the platform's luck (failures, cache, spot) are
    drawn on streams keyed by ``cluster.platform``, independent between two platforms and
    shared by two scenarios on one (docs/sensitivity.md, "What two scenarios share"). The
    per-sample difference is therefore the effect of what differs between A and B, not of two
    different guesses of the same work: a scenario compared with itself differs by exactly zero.

    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client`` to run on,
    with the local run's bits (docs/scaling.md).
    """
    _check_scenario("a", a)
    _check_scenario("b", b)
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    output = _check_output(output)
    with progress_bar(progress, "compare") as callback, running_on(executor):
        core = _core.compare(
            a._core,
            b._core,
            output,
            samples=samples,
            seed=seed,
            threads=_check_threads(threads),
            keep_samples=bool(keep_samples),
            progress=callback,
        )
    return Comparison(core, a, b, output, samples, seed, threads)


def _comparison_of_results(
    ra: SimulationResult, rb: SimulationResult, output: str = "run_cost_usd", threads: Optional[int] = None
) -> Comparison:
    """:func:`compare` of two simulations already made on the same seed and sample count with
    their samples kept: the same result, bit for bit (the same per-sample values, folded in the
    same blocks), without simulating again."""
    if ra.seed != rb.seed or ra.samples != rb.samples:
        raise _core.ScenarioError(
            f"rb: must be simulated on ra's seed and samples ({ra.seed}, {ra.samples}), got ({rb.seed}, {rb.samples})"
        )
    if output in ra.unknown_metrics or output in rb.unknown_metrics or not (ra.kept and rb.kept):
        # compare's own refusal (the unknown inputs named), or samples to keep.
        return compare(ra.scenario, rb.scenario, output, samples=ra.samples, seed=ra.seed, threads=threads)
    core = _core.compare_kept(ra._core, rb._core, output, seed=ra.seed, threads=_check_threads(threads))
    return Comparison(
        core, ra.scenario, rb.scenario, output, ra.samples, ra.seed, threads, simulated_a=ra, simulated_b=rb
    )


# ------------------------------------------------------------------------------------------
# Sweeps
# ------------------------------------------------------------------------------------------


def sweep(
    scenario: Scenario,
    grid: Union[Mapping[str, Sequence[Any]], Sequence[Mapping[str, Any]]],
    output: Union[str, Sequence[str]] = ("wall_h", "run_cost_usd"),
    samples: int = 20_000,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Any:
    """The scenario on a grid of one or two dotted paths, or on a list of points, every point
    on the same seed (common random numbers: differences between points are the change's
    effect, not noise).

    ``grid``: ``{path: [values], ...}`` (one or two paths; every combination), or paired values,
    ``[{path: value, ...}, ...]`` (those points only, each naming the same paths: a node count
    with its data-parallel degree, say). Returns a tidy DataFrame: one row per point and
    output, the path columns, ``output``, and mean sd p10 p50 p80 p90 p99 min max (streamed
    statistics, quantiles within 0.1%). ``progress`` covers the whole sweep (one bar, or one
    callable over every point's samples). ``executor``: a ``concurrent.futures.Executor`` or a
    ``dask.distributed.Client``; every point's blocks run there, with the local bits
    (docs/scaling.md).
    """

    _check_scenario("scenario", scenario)
    points = _sweep_points(grid)
    outputs = [output] if isinstance(output, str) else list(output)
    for o in outputs:
        _check_output(o)
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    # Each point validated here first: its errors and warnings as Scenario.updated gives them.
    updated = [scenario.updated(changes) for changes in points]
    with progress_bar(progress, "sweep") as callback:
        if executor is not None or not isinstance(grid, Mapping):
            cores = _sweep_points_run(updated, samples, seed, threads, callback, executor)
            return _sweep_table(points, updated, cores, outputs, seed)
        axes = {str(path): list(values) for path, values in grid.items()}
        cores = _core.sweep(
            scenario._core,
            [(path, [_plain(v) for v in values]) for path, values in axes.items()],
            samples=samples,
            seed=seed,
            threads=_check_threads(threads),
            progress=callback,
        )
    return _sweep_table(points, updated, cores, outputs, seed)


def _sweep_points(grid: Any) -> List[Dict[str, Any]]:
    """The points of a sweep: every combination of a grid's values, or the paired points given."""
    if isinstance(grid, Mapping):
        if not 1 <= len(grid) <= 2:
            raise _core.ScenarioError(f"grid: must map one or two dotted paths to lists of values, got {grid!r}")
        axes = {}
        for path, values in grid.items():
            values = list(values) if not isinstance(values, (str, bytes)) else []
            if not values:
                raise _core.ScenarioError(f"grid[{path!r}]: must be a non-empty list of values")
            axes[str(path)] = values
        return [dict(zip(axes, point)) for point in itertools.product(*axes.values())]
    points = list(grid) if isinstance(grid, Sequence) and not isinstance(grid, (str, bytes)) else []
    if not points or not all(isinstance(p, Mapping) and p for p in points):
        raise _core.ScenarioError(
            "grid: must map dotted paths to lists of values, or be a non-empty list of points "
            f"{{path: value, ...}}, got {grid!r}"
        )
    paths = list(points[0])
    for k, p in enumerate(points):
        if list(p) != paths:
            raise _core.ScenarioError(
                f"grid[{k}]: every point must name the same paths in the same order ({', '.join(paths)}), "
                f"got {', '.join(map(str, p))}"
            )
    return [{str(path): value for path, value in p.items()} for p in points]


def _sweep_points_run(
    updated: List[Scenario],
    samples: int,
    seed: int,
    threads: Optional[int],
    callback: Any,
    executor: Any,
) -> List[Any]:
    """Each point's streamed run, as the C++ sweep runs it (simulate of the updated scenario):
    split on ``executor`` when one is given, else one after another here."""
    if executor is not None:
        # Every point's ranges submitted at once (the workers stay busy across points).
        requests = [
            _core.LifecycleModel(point._core).run_request(
                samples=samples, seed=seed, keep_samples=False, allow_unknown=False
            )
            for point in updated
        ]
        runs = [Run(request_task, (request,), _core.block_count(samples)) for request in requests]
        return run_many(executor, runs, callback)
    cores = []
    for k, point in enumerate(updated):
        part = shifted(callback, k * samples, len(updated) * samples)
        cores.append(
            _core.LifecycleModel(point._core).simulate(
                samples=samples,
                seed=seed,
                threads=_check_threads(threads),
                keep_samples=False,
                allow_unknown=False,
                progress=part,
            )
        )
    return cores


def _sweep_table(
    points: List[Dict[str, Any]], updated: List[Scenario], cores: List[Any], outputs: List[str], seed: int
) -> Any:
    """The tidy table of a sweep's results (one row per point and output), warning each point's
    unmet expectations as tm.simulate would."""
    import pandas as pd

    rows = []
    for changes, point, core in zip(points, updated, cores):
        # The warnings tm.simulate gives about a result (a day or more without failures).
        _warn_expectations(point, SimulationResult(core, point, _core.lifecycle_info(point._core), seed))
        # The summary's columns read directly: a DataFrame per point took most of a default
        # checkpoint_interval's Python time (22 ms of 27 points).
        table = core.summary()
        row_of = {name: i for i, name in enumerate(table.name)}
        columns = {c: getattr(table, c) for c in SUMMARY_COLUMNS}
        for o in outputs:
            rows.append(
                {
                    **{p: _plain_value(v) for p, v in changes.items()},
                    "output": o,
                    **{c: columns[c][row_of[o]] for c in SUMMARY_COLUMNS},
                }
            )
    return pd.DataFrame(rows)


def _plain_value(value: Any) -> Any:
    return value.to_dict() if isinstance(value, Distribution) else value


def _mean_of(scenario: Scenario, path: str, default: float) -> float:
    d = scenario[path]
    return default if d is None else float(d.mean())


def checkpoint_interval(
    scenario: Scenario,
    every_steps: Optional[Sequence[int]] = None,
    output: str = "wall_h",
    statistic: StatisticArg = "mean",
    samples: int = 20_000,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    progress: ProgressArg = None,
    executor: Any = None,
) -> Any:
    """The simulated optimal ``checkpoint.every_steps`` beside Young's and Daly's intervals.

    Young's and Daly's intervals (compute seconds between checkpoints) come from the inputs'
    means: checkpoint cost δ = save_s + verify_s, job MTBF M = node_mtbf_h · 3600 / nodes; they
    are converted to steps by the mean seconds per step (step time with stalls, plus periodic
    eval per step). ``every_steps`` (default: 25 values from Daly/4 to 4·Daly) is swept on common
    random numbers and the value with the lowest ``statistic`` of ``output`` is the simulated
    optimum. Returns a DataFrame indexed by method (simulated, young, daly) with every_steps,
    interval_s and the statistic; ``frame.attrs["sweep"]`` holds the sweep. ``executor``: a
    ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; every run's blocks run
    there, with the local bits (docs/scaling.md).
    """
    import pandas as pd

    _check_scenario("scenario", scenario)
    _check_output(output)
    label = _statistic_label(statistic)
    probability = _probability(statistic)
    if probability >= 0:  # the sweep streams p10 .. p99; other quantiles need kept samples
        if round(probability, 6) not in (0.1, 0.5, 0.8, 0.9, 0.99):
            raise _core.ScenarioError(
                f"statistic: checkpoint_interval supports mean, p10, p50, p80, p90 and p99, got {statistic!r}"
            )
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    # The pilot, the closed forms and the sweep are C++ (sensitivity/checkpoint_interval.hpp).
    with progress_bar(progress, "checkpoint interval") as callback, running_on(executor):
        r = _core.checkpoint_interval(
            scenario._core,
            [] if every_steps is None else [int(s) for s in every_steps],
            output,
            probability=probability,
            samples=samples,
            seed=seed,
            threads=_check_threads(threads),
            progress=callback,
        )
    _warn_expectations_at(scenario, math.nan)  # the pilot's (it needs a failure model: no P50 check)
    points = [{CHECKPOINT_EVERY_STEPS: int(c)} for c in r.candidates]
    table = _sweep_table(points, [scenario.updated(p) for p in points], r.sweep, [output], seed)
    step_s, save_s, mtbf_s = r.step_s, r.checkpoint_s, r.mtbf_s
    young_s, daly_s, young_steps, daly_steps = r.young_s, r.daly_s, r.young_steps, r.daly_steps
    best = r.best_steps
    values = dict(zip(r.candidates, r.values))
    frame = pd.DataFrame(
        {
            "every_steps": [best, young_steps, daly_steps],
            "interval_s": [best * step_s, young_s, daly_s],
            f"{output} {label}": [values[best], values[young_steps], values[daly_steps]],
        },
        index=pd.Index(["simulated", "young", "daly"], name="method"),
    )
    frame.attrs.update({"sweep": table, "step_s": step_s, "checkpoint_s": save_s, "mtbf_s": mtbf_s})
    return frame


__all__ = [
    "sobol",
    "sobol_function",
    "tornado",
    "rank_correlations",
    "compare",
    "Comparison",
    "sweep",
    "checkpoint_interval",
]
