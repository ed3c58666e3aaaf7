"""Configuration search (docs/throughput.md): for a scenario whose step time is derived from the
platform, enumerate valid parallel layouts of its chips and rank them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _core
from ._executor import LAYOUT_RESULT, layout_task, run_each, scenario_state
from ._montecarlo import _check_threads, _check_whole
from ._progress import ProgressArg, progress_bar
from ._scenario import Scenario
from ._simulate import _warn_expectations_at
from .fields import CLUSTER_NODES, ThroughputMode

#: The columns of a row that are parallelism.* fields.
_LAYOUT_COLUMNS = ("tp", "pp", "cp", "dp", "micro_batch")


def search_parallelism(
    scenario: Scenario,
    micro_batches: Sequence[int] = (1, 2, 4, 8),
    max_tp: Optional[int] = None,
    max_cp: Optional[int] = None,
    samples: int = 2_000,
    seed: int = 0,
    rank_by: str = "run_cost_usd",
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    *,
    nodes: Optional[Sequence[int]] = None,
    executor: Any = None,
) -> Any:
    """Rank the (tp, cp, pp, dp, micro_batch) layouts of the scenario's chips.

    Every layout with tp dividing the chips of one fast domain (a node or UltraServer), pp
    dividing the layers, dp = chips / (tp·cp·pp) and a global batch divisible by dp·micro_batch
    is tried. Context parallelism (cp, each sequence split over cp chips, its activations
    divided by cp) is tried for sequences longer than 8,192 tokens, with every degree that
    divides the sequence length and leaves each chip at least 8,192 of its tokens (at most
    ``max_cp``; ``max_cp=1`` turns it off). Layouts that do not fit in device memory are
    listed with the reason; the others are simulated (``samples`` samples, common random
    numbers) and ranked by the median of ``rank_by`` (``run_cost_usd`` or ``step_time_s``).
    Returns a pandas DataFrame with a ``cp`` column beside ``tp pp dp micro_batch``, and a
    ``nodes`` column. ``nodes``: node counts to search as well (``cluster.nodes``; by default
    the scenario's own), every layout of each count's chips tried and all ranked together.
    ``progress`` covers every layout simulated (one bar, or one callable over all samples).
    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; each layout
    runs as one task there, with the local bits (docs/scaling.md).
    """
    import pandas as pd

    if scenario._core.mode == ThroughputMode.MEASURED:
        raise _core.ScenarioError(
            "throughput.mode: the search needs a step time derived from the platform "
            "(flops, analytic or extrapolated), got measured"
        )
    if rank_by not in ("run_cost_usd", "step_time_s", "wall_h"):
        raise _core.ScenarioError(f"rank_by: must be run_cost_usd, step_time_s or wall_h, got {rank_by!r}")
    if scenario._core.profile_shape is None:  # the profile the scenario itself resolved
        raise _core.ScenarioError("cluster.platform: the search needs a hardware profile")
    node_counts = [] if nodes is None else _node_counts(nodes)
    search: Dict[str, Any] = dict(
        micro_batches=[int(mb) for mb in micro_batches],
        max_tp=int(max_tp or 0),
        max_cp=int(max_cp or 0),
        nodes=node_counts,
        rank_by=rank_by,
    )
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    # The enumeration, the checks and the runs are C++ (sensitivity/parallelism_search.hpp):
    # rows in enumeration order, the fitting ones with their medians.
    with progress_bar(progress, "search") as callback:
        if executor is not None:
            names, candidates = _search_on(executor, scenario, search, samples, seed, callback)
        else:
            result = _core.search_parallelism(
                scenario._core,
                **search,
                samples=samples,
                seed=seed,
                threads=_check_threads(threads),
                progress=callback,
            )
            names, candidates = list(result.dimension_names), list(result.layouts)
    rows: List[Dict[str, Any]] = []
    for c in candidates:
        row: Dict[str, Any] = {"nodes": c.nodes, **dict(zip(names, c.values))}
        row.update(dp=c.dp, micro_batch=c.micro_batch, fits=c.fits, reason=c.reason)
        if c.fits:  # the warnings tm.simulate gives about each layout it ran
            row.update(step_time_s=c.step_time_s, step_time_p90_s=c.step_time_p90_s, wall_h=c.wall_h)
            row.update(run_cost_usd=c.run_cost_usd)
            layout = {f"parallelism.{k}": v for k, v in row.items() if k in _LAYOUT_COLUMNS}
            candidate = scenario.updated({CLUSTER_NODES: c.nodes, **layout})
            _warn_expectations_at(candidate, c.wall_h)
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    fits = frame[frame["fits"]].sort_values(rank_by) if "step_time_s" in frame else frame.iloc[0:0]
    return pd.concat([fits, frame[~frame["fits"]]], ignore_index=True)


def _node_counts(nodes: Any) -> List[int]:
    counts = list(nodes) if isinstance(nodes, Sequence) and not isinstance(nodes, (str, bytes)) else []
    if not counts or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in counts):
        raise _core.ScenarioError(f"nodes: must be a non-empty list of node counts ≥ 1, got {nodes!r}")
    return [int(n) for n in counts]


def _search_on(
    executor: Any, scenario: Scenario, search: Dict[str, Any], samples: int, seed: int, callback: Any
) -> Tuple[List[str], List[Any]]:
    """The search split into its layouts: enumerated (and every option checked) here, each layout
    evaluated in a task, as the local search evaluates it. Returns the searched dimensions'
    names and the layouts, with LayoutCandidate's attributes."""
    layouts = _core.enumerate_layouts(scenario._core, **search)
    state = scenario_state(scenario)
    paths = list(layouts.dimension_paths)
    calls = [
        (layout_task, (state, paths, (c.nodes, list(c.values), c.dp, c.micro_batch), samples, seed))
        for c in layouts.layouts
    ]
    results = run_each(executor, calls, callback, weight=samples)
    evaluated = [
        SimpleNamespace(
            nodes=c.nodes, values=list(c.values), dp=c.dp, micro_batch=c.micro_batch, **dict(zip(LAYOUT_RESULT, r))
        )
        for c, r in zip(layouts.layouts, results)
    ]
    return list(layouts.dimension_names), evaluated


__all__ = ["search_parallelism"]
