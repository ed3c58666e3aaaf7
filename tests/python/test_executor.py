"""Runs split across processes (docs/scaling.md): the same bits as the local run for any executor,
worker count and finishing order; the scenario checked before any task is sent; partials from a
process with other bits refused."""

import concurrent.futures as cf
import multiprocessing
import pathlib
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import trnmodel as tm
from trnmodel import _core
from trnmodel._executor import block_ranges, run_ranges, scenario_state, simulate_task

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


def test_partials_from_a_process_with_other_bits_are_refused(scenario):
    def other_bits(*args):
        _, partial = simulate_task(*args)
        return "trnmodel 0.0.0; lanes sse2; libm musl", partial

    with cf.ThreadPoolExecutor(2) as pool, pytest.raises(tm.ScenarioError, match=r"whose bits may differ"):
        run_ranges(pool, other_bits, (scenario_state(scenario), 5000, 0, False, False), _core.block_count(5000), None)


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
