"""Concurrency (docs/reliability.md): tm.simulate from several Python threads at once gives the
results of sequential calls, bit for bit; a cancelled or interrupted run leaves nothing
half-done. The library keeps no global mutable state: a run reads only its scenario and its
arguments (quantile tables built on first use belong to the distribution and are built once,
under std::call_once), so runs cannot see each other."""

import pathlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
LORA = ROOT / "examples" / "llama3-8b-lora-trn2.json"
P5 = ROOT / "examples" / "llama3-8b-lora-p5.json"


def gamma_beta_scenario() -> tm.Scenario:
    """Gamma and beta inputs build quantile tables on first use: concurrent first uses."""
    return tm.Scenario.from_json(LORA).updated(
        {
            "throughput.step_time_s": tm.Gamma(9, 0.2),
            "throughput.data_stall_fraction": tm.Beta(2, 30, hi=0.5),
            "failures.node_mtbf_h": tm.LogNormal.from_quantiles(p50=2000, p90=6000),
        }
    )


def assert_identical(a: tm.SimulationResult, b: tm.SimulationResult) -> None:
    for metric in tm.METRICS:
        np.testing.assert_array_equal(a[metric], b[metric], err_msg=metric)  # NaN == NaN here
    assert a.summary().equals(b.summary())


def test_simulate_from_several_threads_equals_sequential_bitwise():
    scenarios = {"lora": tm.Scenario.from_json(LORA), "p5": tm.Scenario.from_json(P5), "tables": gamma_beta_scenario()}
    calls = [(name, seed, threads) for name in scenarios for seed in (1, 2) for threads in (1, 2)]

    def run(call):
        name, seed, threads = call
        return tm.simulate(scenarios[name], samples=20_001, seed=seed, threads=threads)

    with ThreadPoolExecutor(max_workers=6) as pool:
        concurrent = list(pool.map(run, calls))
    fresh = {"lora": tm.Scenario.from_json(LORA), "p5": tm.Scenario.from_json(P5), "tables": gamma_beta_scenario()}
    for (name, seed, _threads), got in zip(calls, concurrent):
        expected = tm.simulate(fresh[name], samples=20_001, seed=seed, threads=1)
        assert_identical(got, expected)


def test_the_gil_is_released_while_simulating():
    # Another Python thread keeps running during a long simulation.
    scn = tm.Scenario.from_json(LORA)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    start = time.perf_counter()
    # Long enough (about 0.5-1 s at 2026-12's 0.3-0.5 µs per sample) for the ticker to tick often.
    tm.simulate(scn, samples=2_000_000, seed=0, threads=1, keep_samples=False)
    elapsed = time.perf_counter() - start
    done.set()
    ticker.join()
    during = [t for t in ticks if start < t < start + elapsed]
    assert elapsed > 0.2 and len(during) >= 10, (elapsed, len(during))


class Stop(Exception):
    pass


def test_a_run_cancelled_from_its_progress_callback_leaves_nothing_half_done():
    scn = gamma_beta_scenario()
    before = tm.simulate(scn, samples=30_000, seed=3, threads=2)
    seen = []

    def cancel(done, total):
        seen.append(done)
        if len(seen) == 2:
            raise Stop("enough")

    with pytest.raises(Stop, match="enough"):
        tm.simulate(scn, samples=50_000_000, seed=3, threads=2, progress=cancel)
    assert len(seen) == 2 and seen[1] < 50_000_000
    # The scenario (and its distributions' tables) is intact: the same call, the same numbers.
    assert_identical(tm.simulate(scn, samples=30_000, seed=3, threads=2), before)


def test_ctrl_c_during_simulate_leaves_a_usable_state(interrupt_main_soon, samples_lasting):
    scn = tm.Scenario.from_json(LORA)
    before = tm.simulate(scn, samples=10_000, seed=4)
    long_run = samples_lasting(lambda n: tm.simulate(scn, samples=n, seed=4, keep_samples=False, progress=False), 10)
    interrupt_main_soon()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        tm.simulate(scn, samples=long_run, seed=4, keep_samples=False)  # about 10 s if not stopped
    assert time.perf_counter() - start < 5
    assert_identical(tm.simulate(scn, samples=10_000, seed=4), before)
