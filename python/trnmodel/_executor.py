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
import functools
from contextlib import closing, contextmanager
from typing import Any, Callable, Dict, Generator, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from . import _core
from ._progress import Callback

#: Tasks per run at least: enough to keep a cluster busy and to balance uneven workers, few
#: enough that the per-task overhead (a scenario rebuilt, a partial sent) stays small beside the
#: work.
TASKS_PER_RUN = 16

#: The most blocks one task computes, so that no task holds more than one chunk: streamed, its
#: partial is 48 bytes per block and output (about 2 MB at 1,024 blocks of 4,096 samples and 40
#: outputs); keeping samples, it also holds the chunk's rows (64 blocks: 262,144 rows).
MAX_TASK_BLOCKS = 1024
MAX_TASK_BLOCKS_KEPT = 64

#: Tasks in flight at once, at least (twice the executor's workers when it says more): the
#: caller holds at most this many partials, whatever the run's size (docs/scaling.md, "Memory").
MIN_TASKS_IN_FLIGHT = 32

#: The threads a task uses in its worker: one, so that a worker process running several tasks
#: at once does not oversubscribe its cores (the results do not depend on it).
TASK_THREADS = 1


class Run(NamedTuple):
    """One run split into tasks: ``task(*args, first, last)`` returns (fingerprint, partial) for
    blocks [first, last) of ``blocks``, at most ``most_blocks`` per task."""

    task: Callable[..., Tuple[str, bytes]]
    args: Sequence[Any]
    blocks: int
    most_blocks: int = MAX_TASK_BLOCKS


def task_blocks(keep_samples: bool) -> int:
    """The most blocks per task of a run that keeps its samples, or streams them."""
    return MAX_TASK_BLOCKS_KEPT if keep_samples else MAX_TASK_BLOCKS


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


def tasks_in_flight(executor: Any) -> int:
    """How many tasks to keep submitted: twice the executor's worker threads (a Dask client's
    or a pool's, where it says), and at least MIN_TASKS_IN_FLIGHT."""
    slots = 0
    nthreads = getattr(executor, "nthreads", None)
    if callable(nthreads):  # dask.distributed.Client: {worker address: threads}
        try:
            slots = sum(int(n) for n in nthreads().values())
        except Exception:  # a client that cannot answer: the default window
            slots = 0
    else:
        slots = int(getattr(executor, "_max_workers", 0) or 0)
    return max(MIN_TASKS_IN_FLIGHT, 2 * slots)


def block_ranges(blocks: int, tasks: int = TASKS_PER_RUN, most_blocks: int = MAX_TASK_BLOCKS) -> List[Tuple[int, int]]:
    """[first, last) block ranges, contiguous and in order, as even as whole blocks allow: at
    least ``tasks`` of them (fewer only when there are fewer blocks) and none longer than
    ``most_blocks``."""
    tasks = max(1, min(max(tasks, -(-blocks // most_blocks)), blocks))
    edges = [blocks * k // tasks for k in range(tasks + 1)]
    return [(edges[k], edges[k + 1]) for k in range(tasks)]


def run_ranges(
    executor: Any,
    task: Callable[..., Tuple[str, bytes]],
    args: Sequence[Any],
    blocks: int,
    progress: Callback,
    most_blocks: int = MAX_TASK_BLOCKS,
) -> "_core.RunResult":
    """Submits ``task(*args, first, last)`` for each block range and folds the partials it
    returns, in block order, after checking their fingerprints. Ctrl-C (or any error) cancels
    the tasks not yet started; a task's error is raised as it was raised in the worker."""
    return run_many(executor, [Run(task, args, blocks, most_blocks)], progress)[0]


class _InOrder:
    """One run's partials handed to ``add`` as they arrive, in block order: a partial that
    arrives before an earlier range waits here until that range is handed on."""

    def __init__(self, add: Callable[[bytes], Any]) -> None:
        self.add_next = add
        self.waiting: Dict[int, Tuple[int, bytes]] = {}  # first block -> (last block, partial)
        self.next = 0

    def add(self, first: int, last: int, partial: bytes) -> None:
        self.waiting[first] = (last, partial)
        while self.next in self.waiting:
            last, partial = self.waiting.pop(self.next)
            self.add_next(partial)
            self.next = last


def _completed(
    executor: Any, calls: Sequence[Tuple[Callable[..., Tuple[str, Any]], Sequence[Any]]], what: Callable[[int], str]
) -> Generator[Tuple[int, Any], None, None]:
    """(index, result) of each ``call = (task, args)`` as it finishes. The calls are submitted in
    order, at most tasks_in_flight(executor) at a time; every result's fingerprint is checked
    against this process's (``what(index)`` names the work in the error). Ctrl-C, or any error,
    cancels the tasks not yet started."""
    pool = as_executor(executor)
    window = tasks_in_flight(executor)
    mine = _core.bits_fingerprint()
    in_flight: Dict[cf.Future, int] = {}
    submitted = 0
    try:
        while submitted < len(calls) or in_flight:
            while submitted < len(calls) and len(in_flight) < window:
                task, args = calls[submitted]
                in_flight[pool.submit(task, *args)] = submitted
                submitted += 1
            finished, _ = cf.wait(list(in_flight), return_when=cf.FIRST_COMPLETED)
            for future in finished:
                k = in_flight.pop(future)
                try:
                    fingerprint, result = future.result()
                except BaseException as e:
                    if _lost(e):
                        raise _core.ScenarioError(
                            f"executor: {what(k)} lost: the executor's "
                            f"scheduler or workers went away ({type(e).__name__}: {e}); nothing was folded "
                            "from the run (docs/scaling.md, 'Faults')"
                        ) from e
                    raise  # the task's own error, as it was raised in the worker
                if fingerprint != mine:
                    raise _core.ScenarioError(
                        f"executor: {what(k)} came from a process whose bits may differ from this one's "
                        f"({fingerprint!r}, here {mine!r}): run every worker with the same trnmodel build on the "
                        "same kind of CPU and C library (docs/scaling.md, 'Same bits')"
                    )
                yield k, result
    finally:
        for f in in_flight:
            f.cancel()


def _lost(error: BaseException) -> bool:
    """Whether an error says the executor lost a task (its scheduler or workers went away:
    Dask cancels the futures or closes the connection; a process pool breaks), rather than
    that the task itself failed."""
    return isinstance(error, (cf.CancelledError, cf.BrokenExecutor)) or type(error).__name__ == "CommClosedError"


def _hand_on_in_order(
    executor: Any, runs: Sequence[Run], adds: Sequence[Callable[[bytes], Any]], progress: Callback
) -> None:
    """The ranges of every run submitted in order, a bounded number in flight (tasks_in_flight),
    and each run's partials handed to its ``add`` in block order as they arrive."""
    jobs = [
        (r, first, last)
        for r, run in enumerate(runs)
        for first, last in block_ranges(run.blocks, TASKS_PER_RUN, run.most_blocks)
    ]
    calls = [(runs[r].task, (*runs[r].args, first, last)) for r, first, last in jobs]
    in_order = [_InOrder(add) for add in adds]
    total = sum(run.blocks for run in runs)
    done_blocks = 0
    # closing(): an error here (a partial that does not fold, Ctrl-C in progress) cancels the rest.
    with closing(_completed(executor, calls, lambda k: f"blocks [{jobs[k][1]}, {jobs[k][2]})")) as results:
        for k, partial in results:
            r, first, last = jobs[k]
            in_order[r].add(first, last, partial)
            done_blocks += last - first
            if progress is not None:
                progress(done_blocks, total)


def run_many(
    executor: Any,
    runs: Sequence[Run],
    progress: Callback,
    fold: Optional[Callable[[List[bytes]], Any]] = None,
) -> List[Any]:
    """Several runs at once (the points of a sweep), so the workers stay busy across runs while
    the caller holds only the partials in flight; each run's partials are folded on their own,
    in block order, as they arrive (``fold``: None folds them into a RunResult one by one; else
    a function of the run's whole list, in block order)."""
    if fold is None:
        running = [_core.PartialFold() for _ in runs]
        _hand_on_in_order(executor, runs, [f.add for f in running], progress)
        return [f.finish() for f in running]
    kept: List[List[bytes]] = [[] for _ in runs]
    _hand_on_in_order(executor, runs, [k.append for k in kept], progress)
    return [fold(k) for k in kept]


def run_each(
    executor: Any,
    calls: Sequence[Tuple[Callable[..., Tuple[str, Any]], Sequence[Any]]],
    progress: Callback,
    weight: int = 1,
) -> List[Any]:
    """Each call's result, in the calls' order (the layouts of a search: one task each);
    ``progress`` counts ``weight`` per call finished."""
    results: List[Any] = [None] * len(calls)
    done = 0
    with closing(_completed(executor, calls, lambda k: f"task {k}")) as finished:
        for k, result in finished:
            results[k] = result
            done += 1
            if progress is not None:
                progress(done * weight, len(calls) * weight)
    return results


def scenario_state(scenario: Any) -> Tuple[dict, dict]:
    """What rebuilds a scenario in another process: its JSON and its hardware profile's."""
    _, state = scenario.__reduce__()
    return state


def request_task(request: bytes, first: int, last: int) -> Tuple[str, bytes]:
    """One task of a split run: the partial of blocks [first, last) of the run ``request``
    describes (its model's JSON with the run's size, seed and outputs)."""
    return _core.bits_fingerprint(), _core.request_partial(request, first, last)


def _dispatch(executor: Any, request: bytes, blocks: int, keep_samples: bool, fold: Callable[[bytes], None]) -> None:
    """Runs one request on ``executor``, handing its partials to ``fold`` in block order (the
    C++ run that asked for it folds them, and reports progress)."""
    _hand_on_in_order(executor, [Run(request_task, (request,), blocks, task_blocks(keep_samples))], [fold], None)


@contextmanager
def running_on(executor: Any) -> Iterator[None]:
    """Within it, every run of this thread whose model describes itself (a scenario's
    simulation, a comparison, a tornado's or a break-even's runs, a recovery's time) is split
    into tasks on ``executor`` (None: computed here, as without it)."""
    if executor is None:
        yield
        return
    as_executor(executor)  # a bad executor is refused before any work
    previous = _core.set_dispatch(functools.partial(_dispatch, executor))
    try:
        yield
    finally:
        _core.set_dispatch(previous)


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


def _inputs_of(specs: Dict[str, Any]) -> Tuple[List[str], List["_core.Quantity"]]:
    """A function's inputs rebuilt in a worker from their JSON forms ({name: spec})."""
    return list(specs), [_core.Quantity(spec, name) for name, spec in specs.items()]


def function_task(
    f: Callable[..., Any],
    specs: Dict[str, Any],
    outputs: List[str],
    samples: int,
    seed: int,
    keep_samples: bool,
    block_size: int,
    first: int,
    last: int,
) -> Tuple[str, bytes]:
    """One task of a split tm.monte_carlo: the partial of blocks [first, last) of the run of
    ``f`` (pickled by the executor) on the inputs ``specs`` ({name: JSON form})."""
    partial = _core.function_partial(
        f,
        *_inputs_of(specs),
        outputs=outputs,
        samples=samples,
        seed=seed,
        keep_samples=keep_samples,
        block_size=block_size,
        first_block=first,
        last_block=last,
    )
    return _core.bits_fingerprint(), partial


def sobol_function_task(
    f: Callable[..., Any],
    specs: Dict[str, Any],
    base_samples: int,
    seed: int,
    block_rows: int,
    shift: float,
    first: int,
    last: int,
) -> Tuple[str, bytes]:
    """One task of a split tm.sobol_function: the block statistics of blocks [first, last)."""
    partial = _core.sobol_function_partial(
        f,
        *_inputs_of(specs),
        base_samples=base_samples,
        seed=seed,
        block_rows=block_rows,
        shift=shift,
        first_block=first,
        last_block=last,
    )
    return _core.bits_fingerprint(), partial


#: What a layout task returns, in order: the evaluated LayoutCandidate's attributes.
LAYOUT_RESULT = ("fits", "reason", "step_time_s", "step_time_p90_s", "wall_h", "run_cost_usd")


def layout_task(
    state: Tuple[dict, dict],
    paths: List[str],
    layout: Tuple[int, List[int], int, int],
    samples: int,
    seed: int,
) -> Tuple[str, Tuple[Any, ...]]:
    """One task of a split layout search: one layout (nodes, dimension values, dp, micro-batch)
    evaluated; its LAYOUT_RESULT (fits, reason, step_time_s P50 and P90, wall_h P50,
    run_cost_usd P50)."""
    scenario = _core.Scenario.from_obj(*state)
    nodes, values, dp, micro_batch = layout
    c = _core.evaluate_layout(
        scenario,
        paths,
        nodes=nodes,
        values=values,
        dp=dp,
        micro_batch=micro_batch,
        samples=samples,
        seed=seed,
        threads=TASK_THREADS,
    )
    return _core.bits_fingerprint(), tuple(getattr(c, name) for name in LAYOUT_RESULT)
