"""Runs split across processes (docs/scaling.md): the same bits as the local run for any executor,
worker count and finishing order; the scenario checked before any task is sent; partials from a
process with other bits refused."""

import concurrent.futures as cf
import multiprocessing
import pathlib
import pickle
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import trnmodel as tm
from test_throughput import trn2_analytic
from trnmodel import _core, _executor
from trnmodel._executor import (
    MAX_TASK_BLOCKS,
    MIN_TASKS_IN_FLIGHT,
    block_ranges,
    request_task,
    run_ranges,
    tasks_in_flight,
)
from trnmodel._montecarlo import summary_frame

ROOT = pathlib.Path(__file__).resolve().parents[2]
LORA = ROOT / "examples" / "llama3-8b-lora-trn2.json"
SAMPLES = 50_001  # not a whole number of blocks


def same(a, b):
    """Bit for bit: every summary statistic, and every kept sample."""
    assert a.summary().equals(b.summary())
    assert a.kept == b.kept
    if a.kept:
        for metric in ("wall_h", "run_cost_usd", "failures"):
            np.testing.assert_array_equal(a[metric], b[metric])


@pytest.fixture(scope="module")
def scenario():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tm.CompletenessWarning)
        return tm.Scenario.from_json(LORA)


@pytest.mark.parametrize("keep", [True, False])
def test_a_thread_pool_gives_the_local_bits(scenario, keep):
    local = tm.simulate(scenario, samples=SAMPLES, seed=7, keep_samples=keep)
    with cf.ThreadPoolExecutor(3) as pool:
        split = tm.simulate(scenario, samples=SAMPLES, seed=7, keep_samples=keep, executor=pool)
    same(split, local)


def test_worker_processes_give_the_local_bits(scenario):
    local = tm.simulate(scenario, samples=SAMPLES, seed=3, keep_samples=False)
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        split = tm.simulate(scenario, samples=SAMPLES, seed=3, keep_samples=False, executor=pool)
    same(split, local)


def test_a_dask_cluster_gives_the_local_bits_for_one_two_and_three_workers(scenario):
    distributed = pytest.importorskip("distributed")
    local = tm.simulate(scenario, samples=SAMPLES, seed=5, keep_samples=False)
    kept = tm.simulate(scenario, samples=20_000, seed=5)
    sobol_local = tm.sobol(scenario, "total_cost_usd", base_samples=2**11, seed=5)
    p5 = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    compared = tm.compare(scenario, p5, "total_cost_usd", samples=SAMPLES, seed=5)
    swept = tm.sweep(scenario, {"checkpoint.every_steps": [250, 500], "cluster.nodes": [1, 2]}, samples=8000, seed=5)
    # A parallelism search over node counts: each layout one task.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tm.CompletenessWarning)
        big = trn2_analytic()  # Llama-3-70B on 16 Trn2 nodes, its step time from the platform
    search = dict(micro_batches=(1,), max_tp=8, samples=300, seed=5, nodes=[8, 16])
    search_local = tm.search_parallelism(big, **search)
    assert set(search_local["nodes"]) == {8, 16} and search_local["fits"].sum() >= 4
    for workers in (1, 2, 3):
        with (
            distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            same(tm.simulate(scenario, samples=SAMPLES, seed=5, keep_samples=False, executor=client), local)
            if workers == 2:
                same(tm.simulate(scenario, samples=20_000, seed=5, executor=client), kept)
                split = tm.sobol(scenario, "total_cost_usd", base_samples=2**11, seed=5, executor=client)
                assert split.equals(sobol_local)
                on_cluster = tm.search_parallelism(big, **search, executor=client)
                pd.testing.assert_frame_equal(on_cluster, search_local, check_exact=True)
                p5 = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
                pair = tm.compare(scenario, p5, "total_cost_usd", samples=SAMPLES, seed=5, executor=client)
                assert pair.summary().equals(compared.summary()) and pair.p_a_less_b == compared.p_a_less_b
                grid = {"checkpoint.every_steps": [250, 500], "cluster.nodes": [1, 2]}
                assert tm.sweep(scenario, grid, samples=8000, seed=5, executor=client).equals(swept)
                # A function of the user's, pickled by value to the workers (a closure).
                f, inputs = ishigami()
                assert tm.sobol_function(f, inputs, base_samples=2**11, seed=5, executor=client).equals(
                    tm.sobol_function(f, inputs, base_samples=2**11, seed=5)
                )


def test_a_comparison_on_worker_processes_gives_the_local_bits(scenario):
    p5 = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    local = tm.compare(scenario, p5, "total_cost_usd", samples=SAMPLES, seed=4)
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        split = tm.compare(scenario, p5, "total_cost_usd", samples=SAMPLES, seed=4, executor=pool)
    assert split.summary().equals(local.summary())
    assert split.p_a_less_b == local.p_a_less_b
    np.testing.assert_array_equal(split.difference, local.difference)


def test_a_sweep_on_a_pool_and_paired_values_give_the_grids_bits(scenario):
    grid = {"checkpoint.every_steps": [250, 500], "cluster.nodes": [1, 2]}
    local = tm.sweep(scenario, grid, samples=8000, seed=6)
    with cf.ThreadPoolExecutor(3) as pool:
        split = tm.sweep(scenario, grid, samples=8000, seed=6, executor=pool)
    assert split.equals(local)
    # Paired values: only the points given, each with the grid's bits at that point.
    paired = [{"checkpoint.every_steps": 250, "cluster.nodes": 2}, {"checkpoint.every_steps": 500, "cluster.nodes": 1}]
    rows = tm.sweep(scenario, paired, samples=8000, seed=6)
    expected = pd.concat(
        [
            local[
                (local["checkpoint.every_steps"] == p["checkpoint.every_steps"])
                & (local["cluster.nodes"] == p["cluster.nodes"])
            ]
            for p in paired
        ]
    ).reset_index(drop=True)
    assert rows.equals(expected)
    with pytest.raises(tm.ScenarioError, match=r"grid\[1\]: every point must name the same paths"):
        tm.sweep(scenario, [{"cluster.nodes": 1}, {"checkpoint.every_steps": 500}], samples=100)


def test_a_sobol_analysis_on_a_pool_gives_the_local_bits(scenario):
    local = tm.sobol(scenario, "run_cost_usd", base_samples=3000, seed=8)  # the last block short
    with cf.ThreadPoolExecutor(3) as pool:
        split = tm.sobol(scenario, "run_cost_usd", base_samples=3000, seed=8, executor=pool)
    assert split.equals(local) and split.attrs == local.attrs


def test_the_finishing_order_does_not_matter(scenario):
    # The tasks finish last first; the fold is still in block order, so the bits are the same.
    tasks = len(block_ranges(_core.block_count(SAMPLES)))

    class LastFirst(cf.Executor):
        def __init__(self):
            self.jobs = []

        def submit(self, fn, *args):
            self.jobs.append((cf.Future(), fn, args))
            if len(self.jobs) == tasks:
                for future, f, a in reversed(self.jobs):
                    future.set_result(f(*a))
            return self.jobs[-1][0]

    local = tm.simulate(scenario, samples=SAMPLES, seed=2, keep_samples=False)
    same(tm.simulate(scenario, samples=SAMPLES, seed=2, keep_samples=False, executor=LastFirst()), local)


def test_block_ranges_cover_the_run_in_order():
    assert block_ranges(10, 4) == [(0, 2), (2, 5), (5, 7), (7, 10)]
    assert block_ranges(3, 16) == [(0, 1), (1, 2), (2, 3)]
    assert block_ranges(1) == [(0, 1)]
    # No task holds more than one chunk: a run of 10^9 samples (244,141 blocks) in chunks of at
    # most MAX_TASK_BLOCKS blocks, more tasks rather than bigger ones.
    blocks = _core.block_count(10**9)
    ranges = block_ranges(blocks)
    assert ranges[0][0] == 0 and ranges[-1][1] == blocks
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert max(last - first for first, last in ranges) <= MAX_TASK_BLOCKS
    assert len(ranges) == -(-blocks // MAX_TASK_BLOCKS)


def test_the_caller_holds_only_the_tasks_in_flight_and_folds_in_any_finishing_order(scenario):
    # 75 tasks of 2 blocks each, finishing in random order on 4 threads: at most
    # tasks_in_flight() are ever submitted and not yet folded, and the bits are the local run's.
    samples = 300_001
    blocks = _core.block_count(samples)
    rng = np.random.default_rng(0)
    delays = iter(rng.uniform(0, 0.004, size=10_000))
    outstanding, most = [0], [0]

    class Counting(cf.ThreadPoolExecutor):
        def submit(self, fn, *args):
            outstanding[0] += 1
            most[0] = max(most[0], outstanding[0])
            delay = next(delays)

            def late(*a):
                time.sleep(delay)
                return fn(*a)

            future = super().submit(late, *args)
            future.add_done_callback(lambda _: None)
            return future

    folded = []

    def progress(done, total):
        outstanding[0] -= 1
        folded.append(done)

    local = tm.simulate(scenario, samples=samples, seed=11, keep_samples=False)
    with Counting(4) as pool:
        split = run_ranges(pool, request_task, (request_of(scenario, samples, 11),), blocks, progress, most_blocks=2)
    assert len(folded) == -(-blocks // 2) > tasks_in_flight(pool)
    assert most[0] == tasks_in_flight(pool) == MIN_TASKS_IN_FLIGHT
    assert summary_frame(split.summary(), "metric").equals(summary_frame(local._core.summary(), "metric"))


def request_of(scenario, samples, seed, keep=False):
    """The request of a streamed simulate run of ``scenario`` (what a task computes from)."""
    model = _core.LifecycleModel(scenario._core)
    return model.run_request(samples=samples, seed=seed, keep_samples=keep, allow_unknown=False)


def test_partials_from_a_process_with_other_bits_are_refused(scenario, monkeypatch):
    def other_bits(*args):
        _, partial = request_task(*args)
        return "trnmodel 0.0.0; lanes sse2; libm musl", partial

    with cf.ThreadPoolExecutor(2) as pool, pytest.raises(tm.ScenarioError, match=r"whose bits may differ"):
        run_ranges(pool, other_bits, (request_of(scenario, 5000, 0),), _core.block_count(5000), None)
    # The same through a call: its runs' partials are checked before they are folded.
    monkeypatch.setattr(_executor, "request_task", other_bits)
    with cf.ThreadPoolExecutor(2) as pool, pytest.raises(tm.ScenarioError, match=r"whose bits may differ"):
        tm.simulate(scenario, samples=5000, keep_samples=False, executor=pool)


def test_the_scenario_is_checked_before_any_task_is_sent():
    class Recording(cf.Executor):
        submitted = 0

        def submit(self, fn, *args):
            Recording.submitted += 1
            raise AssertionError("no task should be sent")

    d = tm.Scenario.from_json(LORA).to_dict()
    d["prices"]["node_hour_usd"] = {"unknown": "no quote yet"}
    scn = tm.Scenario.from_dict(d)
    with pytest.raises(tm.UnknownInputError, match="prices.node_hour_usd"):
        tm.simulate(scn, samples=1000, executor=Recording())
    assert Recording.submitted == 0
    with pytest.raises(tm.ScenarioError, match="executor: must be a concurrent.futures.Executor or a dask"):
        tm.simulate(scn, samples=1000, allow_unknown=True, executor=object())


def test_a_scenario_pickles_with_its_hardware_profile(scenario):
    profile = tm.load_profile("trn2.48xlarge")
    profile["name"] = "my-trn2"
    d = scenario.to_dict()
    d["cluster"]["platform"] = "my-trn2"
    mine = tm.Scenario.from_dict(d, profiles={"my-trn2": profile})
    again = pickle.loads(pickle.dumps(mine))
    assert again.to_dict() == mine.to_dict()
    same(tm.simulate(again, samples=3000, seed=1), tm.simulate(mine, samples=3000, seed=1))


def test_the_command_line_runs_on_a_local_cluster_and_names_a_scheduler_that_does_not_answer(capsys, monkeypatch):
    pytest.importorskip("distributed")
    from trnmodel import cli

    p5 = str(ROOT / "examples" / "llama3-8b-lora-p5.json")
    assert cli.main(["compare", str(LORA), p5, "-n", "20000"]) == 0
    local = capsys.readouterr().out
    assert cli.main(["compare", str(LORA), p5, "-n", "20000", "--workers", "2"]) == 0
    assert capsys.readouterr().out == local  # the same bits, printed the same
    monkeypatch.setattr(cli, "SCHEDULER_TIMEOUT_S", 1)
    assert cli.main(["compare", str(LORA), p5, "-n", "1000", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler tcp://127.0.0.1:9: no Dask scheduler answered within 1 s" in err


def test_a_worker_killed_mid_run_is_replaced_and_the_bits_are_the_same(scenario):
    distributed = pytest.importorskip("distributed")
    import os

    local = tm.simulate(scenario, samples=2_000_000, seed=9, keep_samples=False)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        killed = []

        def exit_soon():
            # Dies a moment after answering (pickled by value: workers cannot import this file).
            import threading

            threading.Timer(0.05, os._exit, args=(1,)).start()

        def kill_one_worker(done, total):
            # At the first finished task, one worker process dies; its nanny starts another,
            # and the scheduler runs the lost tasks again.
            if not killed:
                victim = sorted(client.scheduler_info()["workers"])[0]
                client.run(exit_soon, workers=[victim])
                killed.append((victim, done < total))

        split = tm.simulate(
            scenario, samples=2_000_000, seed=9, keep_samples=False, executor=client, progress=kill_one_worker
        )
        ((victim, mid_run),) = killed
        assert mid_run and victim not in client.scheduler_info()["workers"]  # it died while tasks remained
    same(split, local)


class Counting(cf.ThreadPoolExecutor):
    """A thread pool that counts the tasks it is given."""

    def __init__(self, workers):
        super().__init__(workers)
        self.tasks = 0

    def submit(self, fn, *args, **kwargs):
        self.tasks += 1
        return super().submit(fn, *args, **kwargs)


def test_every_call_that_runs_the_model_sends_its_runs_to_the_executor_with_the_local_bits(scenario):
    # Composite calls need no code of their own: each run they make goes to the executor as a
    # request, split into ranges, and comes back folded bit for bit.
    p5 = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    n = dict(samples=6000, seed=3)
    calls = {
        "tornado": lambda **e: tm.tornado(scenario, "run_cost_usd", "p90", **n, **e),
        "rank_correlations": lambda **e: tm.rank_correlations(scenario, "wall_h", **n, **e),
        "checkpoint_interval": lambda **e: tm.checkpoint_interval(scenario, [200, 400, 800], **n, **e),
        "break_even": lambda **e: tm.compare(scenario, p5, samples=4000, seed=3).break_even(
            "prices.node_hour_usd", **e
        ),
        "restart_time": lambda **e: scenario.restart_time(samples=5000, seed=3, **e),
        "payback": lambda **e: tm.payback(scenario, p5, **n, **e).runs,
        "purchase_options": lambda **e: tm.purchase_options(scenario, [168, 336], **n, **e).table,
    }
    for name, call in calls.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            local = call()
            with Counting(3) as pool:
                split = call(executor=pool)
        assert pool.tasks > 0, name  # the runs went to the executor, not computed here
        if isinstance(local, (pd.DataFrame, pd.Series)):
            pd.testing.assert_frame_equal(pd.DataFrame(split), pd.DataFrame(local), check_exact=True, obj=name)
        elif isinstance(local, np.ndarray):
            np.testing.assert_array_equal(split, local, err_msg=name)
        else:
            assert split == local, name


def test_a_plan_and_the_decision_page_on_an_executor_give_the_local_bits():
    plan = tm.Plan.from_json(ROOT / "examples" / "plans" / "llama3-8b-lora-migration.json")
    local = plan.evaluate(samples=5000, seed=2)
    with Counting(2) as pool:
        split = plan.evaluate(samples=5000, seed=2, executor=pool)
        page = tm.decision(plan=plan, samples=3000, seed=2, sobol_base_samples=2**9, executor=pool)
    assert pool.tasks > 0
    pd.testing.assert_frame_equal(split.table(), local.table(), check_exact=True)
    for name in ("gpu_only_usd", "dual_track_h"):
        np.testing.assert_array_equal(split.values(name), local.values(name))
    assert page.markdown() == tm.decision(plan=plan, samples=3000, seed=2, sobol_base_samples=2**9).markdown()


def ishigami():
    """The Ishigami function on U(-π, π)³ (a closure: Dask pickles it by value)."""
    a, b = 7.0, 0.1

    def f(x):
        return np.sin(x[:, 0]) + a * np.sin(x[:, 1]) ** 2 + b * x[:, 2] ** 4 * np.sin(x[:, 0])

    return f, {name: tm.Uniform(-np.pi, np.pi) for name in ("x1", "x2", "x3")}


def two_outputs(x):
    """A module-level function: a process pool imports it in its workers."""
    return np.column_stack([x[:, 0] * np.exp(x[:, 1]), np.where(x[:, 1] > 1.5, np.nan, x[:, 1] - x[:, 0])])


def test_a_python_function_runs_on_an_executor_with_the_local_bits():
    inputs = {"a": tm.LogNormal(0, 1), "b": tm.Uniform(-1, 2), "c": 3.0}
    n = dict(samples=70_001, seed=4, outputs=["y", "z"])
    for keep in (True, False):
        local = tm.monte_carlo(two_outputs, inputs, keep_samples=keep, **n)
        with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
            split = tm.monte_carlo(two_outputs, inputs, keep_samples=keep, executor=pool, **n)
        assert split.summary().equals(local.summary())
        if keep:
            np.testing.assert_array_equal(split["z"], local["z"])
    f, factors = ishigami()
    local = tm.sobol_function(f, factors, base_samples=5000, seed=2)  # a short last block
    with cf.ThreadPoolExecutor(3) as pool:
        split = tm.sobol_function(f, factors, base_samples=5000, seed=2, executor=pool)
    assert split.equals(local) and split.attrs == local.attrs


def test_ctrl_c_stops_a_split_run_and_cancels_the_tasks_not_started(scenario, interrupt_main_soon):
    # 10^8 samples in 24 tasks on one worker thread: the interrupt lands while the caller waits
    # for the first ones; it is raised as KeyboardInterrupt and the tasks still queued never run.
    started = []

    class Recording(cf.ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            future = super().submit(lambda *a: (started.append(1), fn(*a))[1], *args)
            return future

    with Recording(1) as pool:
        interrupt_main_soon(0.5)
        begin = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            tm.simulate(scenario, samples=10**8, keep_samples=False, executor=pool)
            time.sleep(5)  # (not reached: the run takes far longer than the interrupt's delay)
    assert time.monotonic() - begin < 30
    assert len(started) < 10  # the queued tasks were cancelled, not run


def dies(*args):
    """A task whose worker process dies under it (module level: a spawned worker imports it)."""
    import os

    os._exit(1)


def test_an_executor_that_loses_its_workers_says_so():
    # A process pool whose worker dies is broken; Dask cancels the futures of a scheduler that
    # went away: either way the run stops with an error that says the tasks were lost, not a
    # task's error, and nothing is folded.
    with (
        cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool,
        pytest.raises(
            tm.ScenarioError, match=r"executor: blocks \[\d+, \d+\) lost: the executor's scheduler or workers went away"
        ),
    ):
        run_ranges(pool, dies, (), 4, None)
    cancelled: cf.Future = cf.Future()
    cancelled.cancel()
    cancelled.set_running_or_notify_cancel()  # as an executor does: now done, and cancelled

    class Cancelling(cf.Executor):
        def submit(self, fn, *args, **kwargs):
            return cancelled

    with pytest.raises(tm.ScenarioError, match=r"lost: .*\(CancelledError"):
        run_ranges(Cancelling(), dies, (), 4, None)
