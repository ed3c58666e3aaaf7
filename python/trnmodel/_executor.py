"""Runs split across processes or machines (docs/scaling.md): ``executor=`` on a call takes any
``concurrent.futures.Executor`` or a ``dask.distributed.Client`` (used through
``client.get_executor()``). The run's blocks are cut into contiguous ranges, one task each; a
task rebuilds its scenario from JSON (with its hardware profile), computes the partial
statistics of its range in C++ and returns them as exact bytes with the fingerprint of the
process that computed them; the caller checks every fingerprint against its own and folds the
partials in block order. The result is the local run's, bit for bit, for any number of workers
and any order in which the tasks finish."""

from __future__ import annotations

import concurrent.futures as cf
from typing import Any, Callable, List, Optional, Sequence, Tuple

from . import _core
from ._progress import Callback

#: Tasks per run: enough to keep a cluster busy and to balance uneven workers, few enough that
#: the per-task overhead (a scenario rebuilt, a partial sent) stays small beside the work.
TASKS_PER_RUN = 16

#: The threads a task uses in its worker: one, so that a worker process running several tasks
#: at once does not oversubscribe its cores (the results do not depend on it).
TASK_THREADS = 1


def as_executor(executor: Any) -> cf.Executor:
    """A ``concurrent.futures.Executor``: the one given, or a Dask client's own executor."""
    if isinstance(executor, cf.Executor):
        return executor
    get_executor = getattr(executor, "get_executor", None)
    if callable(get_executor):  # dask.distributed.Client
        pool = get_executor()
        if isinstance(pool, cf.Executor):
            return pool
    raise _core.ScenarioError(
        f"executor: must be a concurrent.futures.Executor or a dask.distributed.Client, got {type(executor).__name__}"
    )


def block_ranges(blocks: int, tasks: int = TASKS_PER_RUN) -> List[Tuple[int, int]]:
    """[first, last) block ranges, contiguous and in order, as even as whole blocks allow."""
    tasks = max(1, min(tasks, blocks))
    edges = [blocks * k // tasks for k in range(tasks + 1)]
    return [(edges[k], edges[k + 1]) for k in range(tasks)]


def run_ranges(
    executor: Any,
    task: Callable[..., Tuple[str, bytes]],
    args: Sequence[Any],
    blocks: int,
    progress: Callback,
) -> "_core.RunResult":
    """Submits ``task(*args, first, last)`` for each block range and folds the partials it
    returns, in block order, after checking their fingerprints. Ctrl-C (or any error) cancels
    the tasks not yet started; a task's error is raised as it was raised in the worker."""
    return run_many(executor, [(task, args, blocks)], progress)[0]


def run_many(
    executor: Any,
    runs: Sequence[Tuple[Callable[..., Tuple[str, bytes]], Sequence[Any], int]],
    progress: Callback,
    fold: Callable[[List[bytes]], Any] = _core.fold_partials,
) -> List[Any]:
    """Several runs at once (the points of a sweep): every run's ranges are submitted together,
    so the workers stay busy across runs; each run's partials are folded on their own, in block
    order, by ``fold``. ``runs``: (task, args, blocks) per run."""
    pool = as_executor(executor)
    mine = _core.bits_fingerprint()
    jobs = [(r, first, last) for r, (_, _, blocks) in enumerate(runs) for first, last in block_ranges(blocks)]
    futures = [pool.submit(runs[r][0], *runs[r][1], first, last) for r, first, last in jobs]
    index = {f: k for k, f in enumerate(futures)}
    parts: List[Optional[bytes]] = [None] * len(futures)
    total = sum(blocks for _, _, blocks in runs)
    done_blocks = 0
    try:
        for future in cf.as_completed(futures):
            fingerprint, partial = future.result()
            k = index[future]
            _, first, last = jobs[k]
            if fingerprint != mine:
                raise _core.ScenarioError(
                    f"executor: blocks [{first}, {last}) were computed by a process whose bits may differ "
                    f"from this one's ({fingerprint!r}, here {mine!r}): run every worker with the same "
                    "trnmodel build on the same kind of CPU and C library (docs/scaling.md, 'Same bits')"
                )
            parts[k] = partial
            done_blocks += last - first
            if progress is not None:
                progress(done_blocks, total)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    return [fold([p for (r, _, _), p in zip(jobs, parts) if r == run and p is not None]) for run in range(len(runs))]


def scenario_state(scenario: Any) -> Tuple[dict, dict]:
    """What rebuilds a scenario in another process: its JSON and its hardware profile's."""
    _, state = scenario.__reduce__()
    return state


def simulate_task(
    state: Tuple[dict, dict], samples: int, seed: int, keep_samples: bool, allow_unknown: bool, first: int, last: int
) -> Tuple[str, bytes]:
    """One task of a split simulate: the partial of blocks [first, last)."""
    data, profiles = state
    scenario = _core.Scenario.from_obj(data, profiles)
    partial = _core.LifecycleModel(scenario).simulate_partial(
        samples=samples,
        seed=seed,
        threads=TASK_THREADS,
        keep_samples=keep_samples,
        allow_unknown=allow_unknown,
        first_block=first,
        last_block=last,
    )
    return _core.bits_fingerprint(), partial


def compare_task(
    state_a: Tuple[dict, dict],
    state_b: Tuple[dict, dict],
    output: str,
    samples: int,
    seed: int,
    keep_samples: bool,
    first: int,
    last: int,
) -> Tuple[str, bytes]:
    """One task of a split comparison: the partial of blocks [first, last)."""
    a = _core.Scenario.from_obj(*state_a)
    b = _core.Scenario.from_obj(*state_b)
    partial = _core.compare_partial(
        a,
        b,
        output,
        samples=samples,
        seed=seed,
        threads=TASK_THREADS,
        keep_samples=keep_samples,
        first_block=first,
        last_block=last,
    )
    return _core.bits_fingerprint(), partial


def sobol_task(
    state: Tuple[dict, dict],
    output: str,
    base_samples: int,
    seed: int,
    block_size: int,
    shift: float,
    first: int,
    last: int,
) -> Tuple[str, bytes]:
    """One task of a split Sobol analysis: the block statistics of blocks [first, last)."""
    scenario = _core.Scenario.from_obj(*state)
    partial = _core.sobol_scenario_partial(
        scenario,
        output,
        base_samples=base_samples,
        seed=seed,
        block_size=block_size,
        shift=shift,
        first_block=first,
        last_block=last,
    )
    return _core.bits_fingerprint(), partial
