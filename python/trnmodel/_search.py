"""Configuration search (docs/throughput.md): for a scenario whose step time is derived from the
platform, enumerate valid parallel layouts of its chips and rank them."""

from __future__ import annotations

import itertools
from typing import Any, List, Optional, Sequence

from . import _core
from ._progress import ProgressArg, part_of, progress_bar
from ._scenario import Scenario
from ._simulate import simulate

#: Context parallelism is searched only for sequences longer than this, and each chip keeps at
#: least this many tokens of a sequence: below it attention is a small share of the step and
#: the key/value exchange is not worth it (Llama 3 trained its 8K stage without it and used it
#: for long context, arXiv:2407.21783 sec. 3.3.2).
CP_MIN_CHUNK_TOKENS = 8192


def _divisors(n: int) -> List[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _cp_degrees(sequence_length: int, max_cp: Optional[int]) -> List[int]:
    """The context-parallel degrees worth trying: 1, and the divisors of the sequence length
    that leave each chip at least CP_MIN_CHUNK_TOKENS tokens (at most ``max_cp``)."""
    return [
        c
        for c in _divisors(sequence_length)
        if (c == 1 or sequence_length // c >= CP_MIN_CHUNK_TOKENS) and (not max_cp or c <= max_cp)
    ]


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

    if scenario._core.mode == "measured":
        raise _core.ScenarioError(
            "throughput.mode: the search needs a step time derived from the platform "
            "(flops, analytic or extrapolated), got measured"
        )
    if rank_by not in ("run_cost_usd", "step_time_s", "wall_h"):
        raise _core.ScenarioError(f"rank_by: must be run_cost_usd, step_time_s or wall_h, got {rank_by!r}")
    shape = scenario._core.profile_shape  # the profile the scenario itself resolved
    if shape is None:
        raise _core.ScenarioError("cluster.platform: the search needs a hardware profile")
    doc = scenario.to_dict()
    chips_per_node, nodes_per_domain = shape
    chips = int(doc["cluster"]["nodes"]) * chips_per_node
    domain = chips_per_node * nodes_per_domain
    layers = int(doc["model"]["layers"])
    global_batch = int(doc["parallelism"]["global_batch"])
    cps = _cp_degrees(int(doc["model"]["sequence_length"]), max_cp)
    layouts = []
    for tp, cp, pp in itertools.product(_divisors(domain), cps, _divisors(layers)):
        if (max_tp and tp > max_tp) or chips % (tp * cp * pp):
            continue
        dp = chips // (tp * cp * pp)
        layouts += [(tp, cp, pp, dp, mb) for mb in micro_batches if global_batch % (dp * mb) == 0]
    rows = []
    with progress_bar(progress, "search") as callback:
        for k, (tp, cp, pp, dp, mb) in enumerate(layouts):
            layout = {
                "parallelism.tp": tp,
                "parallelism.cp": cp,
                "parallelism.pp": pp,
                "parallelism.dp": dp,
                "parallelism.micro_batch": mb,
            }
            row: dict = {"tp": tp, "cp": cp, "pp": pp, "dp": dp, "micro_batch": mb}
            try:
                candidate = scenario.updated(layout)
            except _core.ScenarioError as e:
                row["fits"] = False
                row["reason"] = str(e)
                rows.append(row)
                continue
            s = simulate(
                candidate,
                samples=samples,
                seed=seed,
                threads=threads,
                keep_samples=False,
                allow_unknown=True,
                progress=part_of(callback, k * samples, len(layouts) * samples),
            ).summary()
            row.update(
                fits=True,
                reason="",
                step_time_s=s.loc["step_time_s", "p50"],
                step_time_p90_s=s.loc["step_time_s", "p90"],
                wall_h=s.loc["wall_h", "p50"],
                run_cost_usd=s.loc["run_cost_usd", "p50"],
            )
            rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    fits = frame[frame["fits"]].sort_values(rank_by) if "step_time_s" in frame else frame.iloc[0:0]
    return pd.concat([fits, frame[~frame["fits"]]], ignore_index=True)


__all__ = ["search_parallelism"]
