"""Configuration search (docs/throughput.md): for a scenario whose step time is derived from the
platform, enumerate valid parallel layouts of its chips and rank them."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from . import _core
from ._montecarlo import _check_threads, _check_whole
from ._progress import ProgressArg, progress_bar
from ._scenario import Scenario
from ._simulate import _warn_expectations_at
from .fields import ThroughputMode

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
    Returns a pandas DataFrame with a ``cp`` column beside ``tp pp dp micro_batch``.
    ``progress`` covers every layout simulated (one bar, or one callable over all samples).
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
    # The enumeration, the checks and the runs are C++ (sensitivity/parallelism_search.hpp):
    # rows in enumeration order, the fitting ones with their medians.
    with progress_bar(progress, "search") as callback:
        result = _core.search_parallelism(
            scenario._core,
            micro_batches=[int(mb) for mb in micro_batches],
            max_tp=int(max_tp or 0),
            max_cp=int(max_cp or 0),
            rank_by=rank_by,
            samples=_check_whole("samples", samples, 1),
            seed=_check_whole("seed", seed, 0),
            threads=_check_threads(threads),
            progress=callback,
        )
    rows: List[Dict[str, Any]] = []
    for c in result.layouts:
        row: Dict[str, Any] = dict(zip(result.dimension_names, c.values))
        row.update(dp=c.dp, micro_batch=c.micro_batch, fits=c.fits, reason=c.reason)
        if c.fits:  # the warnings tm.simulate gives about each layout it ran
            row.update(step_time_s=c.step_time_s, step_time_p90_s=c.step_time_p90_s, wall_h=c.wall_h)
            row.update(run_cost_usd=c.run_cost_usd)
            candidate = scenario.updated({f"parallelism.{k}": v for k, v in row.items() if k in _LAYOUT_COLUMNS})
            _warn_expectations_at(candidate, c.wall_h)
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    fits = frame[frame["fits"]].sort_values(rank_by) if "step_time_s" in frame else frame.iloc[0:0]
    return pd.concat([fits, frame[~frame["fits"]]], ignore_index=True)


__all__ = ["search_parallelism"]
