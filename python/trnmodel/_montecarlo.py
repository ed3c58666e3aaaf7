"""Monte Carlo of any vectorized function of uncertain inputs (docs/montecarlo.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._display import Display
from ._distributions import Distribution, as_distribution
from ._executor import function_task, run_ranges, task_blocks
from ._metrics import SUMMARY_COLUMNS
from ._progress import ProgressArg, progress_bar

if TYPE_CHECKING:
    import pandas as pd

#: Rows per call of a Python function: large enough to amortise the call, small enough that
#: a run of 10^5 samples still spreads over both cores. Part of the result's definition
#: (statistics merge block by block), so it is fixed.
PYTHON_BLOCK_ROWS = 16_384


def _check_whole(name: str, value: Any, minimum: int, maximum: int = 2**64 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not minimum <= value <= maximum:
        raise _core.ScenarioError(f"{name}: must be a whole number in [{minimum}, {maximum}], got {value!r}")
    return int(value)


def _check_threads(threads: Optional[int]) -> int:
    return 0 if threads is None else _check_whole("threads", threads, 1, 1024)


def _function_inputs(f: Any, inputs: Any) -> Tuple[List[str], List["_core.Quantity"]]:
    """Checks a user function and its inputs; returns (names, core quantities) in dict order."""
    if not callable(f):
        raise _core.ScenarioError(f"f: must be callable, got {type(f).__name__}")
    if not isinstance(inputs, Mapping) or len(inputs) == 0:
        raise _core.ScenarioError("inputs: must be a non-empty dict of name -> distribution")
    return [str(k) for k in inputs], [as_distribution(v, path=str(k))._core for k, v in inputs.items()]


def array_cache(capacity_mb: Optional[float] = None) -> Dict[str, float]:
    """The memory of freed large arrays (kept samples, drawn inputs) that the next run of the
    same size reuses instead of fresh memory, whose every page costs a fault on first write
    (docs/montecarlo.md, "Freed arrays kept for reuse"). ``capacity_mb``: a new capacity in MiB
    (0 turns the cache off and frees what it holds); the default, 256 MiB, or the environment's
    ``TRNMODEL_ARRAY_CACHE_MB``, holds one budget sign-off's arrays. Returns ``capacity_mb`` and
    ``held_mb`` (what it holds now). The kept pages are ones the kernel may take back when memory
    runs short. Results do not depend on it."""
    if capacity_mb is not None:
        if isinstance(capacity_mb, bool) or not isinstance(capacity_mb, (int, float)) or not capacity_mb >= 0:
            raise _core.ScenarioError(f"capacity_mb: must be a number of MiB, 0 or more, got {capacity_mb!r}")
        if not np.isfinite(capacity_mb):
            raise _core.ScenarioError(f"capacity_mb: must be finite, got {capacity_mb!r}")
        _core.set_array_cache_capacity(int(capacity_mb * 2**20))
    capacity, held = _core.array_cache_state()
    return {"capacity_mb": capacity / 2**20, "held_mb": held / 2**20}


def summary_frame(table: "_core.SummaryTable", index_name: str) -> "pd.DataFrame":
    """A summary table from the core as a DataFrame, one row per output; a ``nan_count``
    column when some values were NaN (the statistics leave them out)."""
    import pandas as pd

    frame = pd.DataFrame({k: getattr(table, k) for k in SUMMARY_COLUMNS}, index=pd.Index(table.name, name=index_name))
    if any(table.nan_count):
        frame["nan_count"] = table.nan_count
    return frame


class MonteCarloResult(Display):
    """The outcome of :func:`monte_carlo`: per-sample outputs (when kept) and their statistics.

    Results are immutable: :meth:`summary` is computed once and handed out as a copy."""

    def __init__(self, core: "_core.RunResult") -> None:
        self._core = core
        self._summary: Any = None
        self._summary_rows: Optional[Dict[str, Dict[str, Any]]] = None

    @property
    def outputs(self) -> List[str]:
        """Output names, in order."""
        return list(self._core.names)

    @property
    def samples(self) -> int:
        return self._core.samples

    @property
    def kept(self) -> bool:
        """Whether the per-sample values were kept (``keep_samples=True``)."""
        return bool(self._core.kept)

    def __getitem__(self, name: str) -> np.ndarray:
        """The samples of one output (a read-only NumPy view; needs ``keep_samples=True``)."""
        return self._core.values(name)

    @property
    def values(self) -> np.ndarray:
        """The samples of the first output (``keep_samples=True``)."""
        return self._core.values(self.outputs[0])

    def quantile(self, q: Union[float, Sequence[float]], output: Union[None, str, Sequence[str]] = None) -> Any:
        """Quantiles of an output: exact (NumPy's 'linear' method, NaN values left out) from
        kept samples, else from the streaming histogram (relative accuracy 1e-3).

        ``output`` a list of names: a DataFrame, one row per output and one column per ``q``,
        the outputs computed in parallel on all cores."""
        if output is not None and not isinstance(output, str):
            import pandas as pd

            names = [str(name) for name in output]
            rows = self._core.quantiles_of(names, list(np.atleast_1d(q).astype(float)))
            return pd.DataFrame(rows, index=pd.Index(names, name="output"), columns=list(np.atleast_1d(q)))
        name = output or self.outputs[0]
        scalar = np.ndim(q) == 0
        values = self._core.quantiles(name, list(np.atleast_1d(q).astype(float)))
        return values[0] if scalar else np.asarray(values)

    def _summary_frame(self) -> Any:
        return summary_frame(self._core.summary(), "output")

    def summary(self) -> "pd.DataFrame":
        """A pandas DataFrame, one row per output: mean sd p10 p50 p80 p90 p99 min max."""
        if self._summary is None:
            self._summary = self._summary_frame()
        return self._summary.copy()

    def _stats(self) -> Dict[str, Dict[str, Any]]:
        """:meth:`summary` as plain dicts, output -> column -> value, made once and shared (for
        reading only): the sign-off reads some 300 of its cells, and a DataFrame lookup costs
        tens of microseconds."""
        if self._summary_rows is None:
            if self._summary is None:
                self._summary = self._summary_frame()
            frame = self._summary
            self._summary_rows = {
                name: dict(zip(frame.columns, row)) for name, row in zip(frame.index, frame.itertuples(index=False))
            }
        return self._summary_rows

    @property
    def plot(self) -> Any:
        """``res.plot.distribution(output)``: histogram and CDF (see :mod:`trnmodel.plot`)."""
        from .plot import MonteCarloPlots

        return MonteCarloPlots(self)

    def __repr__(self) -> str:
        return f"<MonteCarloResult {self.samples} samples of {', '.join(self.outputs)}>"

    def _text(self) -> str:
        return f"{self!r}\n{self.summary().to_string()}"

    def _repr_html_(self) -> str:
        from ._html import monte_carlo_html

        return monte_carlo_html(self.outputs, self.samples, self.summary())


def monte_carlo(
    f: Callable[[np.ndarray], np.ndarray],
    inputs: Mapping[str, Union[Distribution, float, Mapping[str, Any]]],
    samples: int = 100_000,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    keep_samples: bool = True,
    outputs: Union[str, Sequence[str]] = "y",
    progress: ProgressArg = None,
    executor: Any = None,
) -> MonteCarloResult:
    """Monte Carlo of a vectorized function of uncertain inputs.

    ``f`` takes a 2-D float64 array (rows = samples, columns = the inputs in dict order) and
    returns a 1-D array with one value per row (or a 2-D array with one column per name in
    ``outputs``). Each input draws from its own random stream, named after its key, so the
    same key draws the same numbers in every run with the same seed (common random numbers).
    Results do not depend on ``threads`` (None: all cores), bitwise.

    ``keep_samples=False`` keeps only streaming statistics (memory flat in ``samples``;
    quantiles within 0.1% relative). ``progress``: None shows a progress bar for runs
    longer than about a second on interactive output, True always, False never; a callable
    ``f(done, total)`` is called between blocks instead. Ctrl-C stops the run
    (KeyboardInterrupt).

    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; the blocks
    run there, with the local bits (docs/scaling.md). ``f`` travels to the workers pickled: a
    process pool needs a function it can import, Dask also takes lambdas and closures.
    """
    names, quantities = _function_inputs(f, inputs)
    output_names = [outputs] if isinstance(outputs, str) else [str(o) for o in outputs]
    if len(set(output_names)) != len(output_names):
        raise _core.ScenarioError(f"outputs: names must be distinct, got {output_names}")
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    with progress_bar(progress, "monte_carlo") as callback:
        if executor is not None:
            specs = {name: q.to_obj() for name, q in zip(names, quantities)}
            args = (f, specs, output_names, samples, seed, bool(keep_samples), PYTHON_BLOCK_ROWS)
            blocks = _core.block_count(samples, PYTHON_BLOCK_ROWS)
            return MonteCarloResult(
                run_ranges(executor, function_task, args, blocks, callback, task_blocks(keep_samples))
            )
        core = _core.run_function(
            f,
            names,
            quantities,
            outputs=output_names,
            samples=samples,
            seed=seed,
            threads=_check_threads(threads),
            keep_samples=bool(keep_samples),
            block_size=PYTHON_BLOCK_ROWS,
            progress=callback,
        )
    return MonteCarloResult(core)


__all__ = ["monte_carlo", "MonteCarloResult"]
