"""tm.monte_carlo: correctness, determinism, control, memory (docs/montecarlo.md)."""

import math
import os
import pathlib
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import trnmodel as tm
from trnmodel import _core

PI = math.pi
ISHIGAMI_INPUTS = {f"x{i}": tm.Uniform(-PI, PI) for i in (1, 2, 3)}


def ishigami(x, a=7.0, b=0.1):
    return np.sin(x[:, 0]) + a * np.sin(x[:, 1]) ** 2 + b * x[:, 2] ** 4 * np.sin(x[:, 0])


def test_ishigami_mean_and_variance():
    r = tm.monte_carlo(ishigami, ISHIGAMI_INPUTS, samples=300_000, seed=1)
    mean, var = 3.5, 49 / 8 + 0.1 * PI**4 / 5 + 0.01 * PI**8 / 18 + 0.5
    y = r.values
    assert y.shape == (300_000,)
    assert abs(y.mean() - mean) < 5 * math.sqrt(var / y.size)
    assert y.var(ddof=1) == pytest.approx(var, rel=0.02)
    s = r.summary()
    assert list(s.columns) == ["mean", "sd", "p10", "p50", "p80", "p90", "p99", "min", "max"]
    assert s.loc["y", "mean"] == pytest.approx(y.mean(), rel=1e-12)
    np.testing.assert_allclose(
        s.loc["y", ["p10", "p50", "p80", "p90", "p99"]].to_numpy(dtype=float),
        np.quantile(y, [0.1, 0.5, 0.8, 0.9, 0.99]),
        rtol=1e-15,
    )


def test_inputs_are_the_inverse_cdf_of_their_named_streams():
    seen = {}

    def f(x):
        seen.setdefault("block", x.copy())
        return x[:, 0]

    d = tm.Gamma(2.0, 3.0)
    r = tm.monte_carlo(f, {"compile_s": d, "steps": 1000}, samples=100, seed=9, threads=1)
    u = _core.uniforms(9, 0, 100, _core.stream_id("compile_s"))
    np.testing.assert_array_equal(r.values, d.ppf(u))
    np.testing.assert_array_equal(seen["block"][:, 1], 1000.0)


@pytest.mark.parametrize("keep", [True, False])
def test_bitwise_identical_for_any_thread_count(keep):
    runs = [
        tm.monte_carlo(ishigami, ISHIGAMI_INPUTS, samples=70_001, seed=4, threads=t, keep_samples=keep)
        for t in (1, 2, 3, 8)
    ]
    first = runs[0].summary()
    for r in runs[1:]:
        assert r.summary().equals(first)
        if keep:
            np.testing.assert_array_equal(r.values, runs[0].values)


def test_common_random_numbers_across_runs():
    # The same input name draws the same uniforms whatever else the model has.
    a = tm.monte_carlo(lambda x: x[:, 0], {"step_s": tm.Uniform(1, 2)}, samples=1000, seed=3)
    b = tm.monte_carlo(lambda x: x[:, 1], {"price": tm.Uniform(5, 6), "step_s": tm.Uniform(1, 2)}, samples=1000, seed=3)
    np.testing.assert_array_equal(a.values, b.values)


def test_streamed_quantiles_within_stated_accuracy():
    inputs = {"t": tm.LogNormal(1, 0.5)}
    exact = tm.monte_carlo(lambda x: x[:, 0], inputs, samples=200_000, seed=2)
    streamed = tm.monte_carlo(lambda x: x[:, 0], inputs, samples=200_000, seed=2, keep_samples=False)
    q = [0.1, 0.5, 0.9, 0.99]
    np.testing.assert_allclose(streamed.quantile(q), exact.quantile(q), rtol=1e-3 + 1e-9)
    with pytest.raises(tm.ScenarioError, match="samples were not kept"):
        streamed["y"]


def test_quantiles_of_several_outputs_are_numpys_with_nan_left_out():
    # A heavy tail (lognormal sigma 4), ties (a count) and NaN: each output's quantiles are
    # NumPy's linear ones over its non-NaN values, bit for bit.
    def f(x):
        heavy = np.exp(4 * x[:, 0])
        count = np.floor(6 * x[:, 1])
        gap = np.where(x[:, 1] < 0.05, np.nan, x[:, 0])
        return np.column_stack([heavy, count, gap])

    r = tm.monte_carlo(
        f, {"z": tm.Normal(0, 1), "u": tm.Uniform(0, 1)}, samples=60_001, outputs=["heavy", "count", "gap"]
    )
    q = [0.0, 0.001, 0.1, 0.5, 0.9, 0.999, 1.0]
    table = r.quantile(q, ["gap", "heavy", "count"])
    assert list(table.index) == ["gap", "heavy", "count"] and list(table.columns) == q
    for name in table.index:
        np.testing.assert_array_equal(table.loc[name].to_numpy(), np.nanquantile(r[name], q))
        np.testing.assert_array_equal(table.loc[name].to_numpy(), r.quantile(q, name))
    with pytest.raises(tm.ScenarioError, match="no such output"):
        r.quantile(0.5, ["heavy", "nope"])


def test_two_outputs():
    r = tm.monte_carlo(
        lambda x: np.column_stack([x[:, 0], 2 * x[:, 0]]), {"a": tm.Uniform(0, 1)}, samples=5000, outputs=["a", "twice"]
    )
    np.testing.assert_array_equal(r["twice"], 2 * r["a"])
    assert list(r.summary().index) == ["a", "twice"]


def test_progress_reports_monotone_to_total():
    calls = []
    tm.monte_carlo(
        lambda x: x[:, 0], {"a": tm.Uniform(0, 1)}, samples=200_000, progress=lambda d, t: calls.append((d, t))
    )
    assert calls and calls[-1] == (200_000, 200_000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_errors_in_f_and_bad_arguments():
    def broken(x):
        raise RuntimeError("boom in f")

    with pytest.raises(RuntimeError, match="boom in f"):
        tm.monte_carlo(broken, {"a": tm.Uniform(0, 1)}, samples=1000)
    with pytest.raises(
        tm.ScenarioError,
        match=r"f: must return one value per row of its input \(shape \(1000,\)\), got shape \(1000, 2\)",
    ):
        tm.monte_carlo(lambda x: np.zeros((x.shape[0], 2)), {"a": tm.Uniform(0, 1)}, samples=1000)
    with pytest.raises(
        tm.ScenarioError, match=r"samples: must be a whole number in \[1, 18446744073709551615\], got 0"
    ):
        tm.monte_carlo(lambda x: x[:, 0], {"a": 1.0}, samples=0)
    with pytest.raises(tm.ScenarioError, match=r"threads: must be a whole number in \[1, 1024\], got -2"):
        tm.monte_carlo(lambda x: x[:, 0], {"a": 1.0}, threads=-2)
    with pytest.raises(tm.ScenarioError, match="inputs: must be a non-empty dict"):
        tm.monte_carlo(lambda x: x[:, 0], {})
    with pytest.raises(tm.ScenarioError, match="b.hi: must be a finite number, got nan"):
        tm.monte_carlo(lambda x: x[:, 0], {"b": {"dist": "uniform", "lo": 0, "hi": float("nan")}})
    with pytest.raises(tm.UnknownInputError) as info:
        tm.monte_carlo(lambda x: x[:, 0], {"a": tm.Unknown("no trial"), "b": 2.0, "c": tm.Unknown("no quote")})
    assert info.value.paths == ["a", "c"]


def test_ctrl_c_stops_a_long_run_promptly(interrupt_main_soon, samples_lasting):
    def long_run(samples: int) -> None:
        tm.monte_carlo(lambda x: np.sin(x[:, 0]), {"a": tm.Gamma(2, 1)}, samples=samples, keep_samples=False)

    samples = samples_lasting(long_run, 10, probe=2_000_000)
    interrupt_main_soon()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        long_run(samples)  # about 10 s of work if nothing stopped it
    assert time.perf_counter() - start < 5


def _peak_rss_mb(samples: int) -> float:
    code = textwrap.dedent(f"""
        import resource, trnmodel as tm
        tm.monte_carlo(lambda x: x[:, 0] * x[:, 1], {{"a": tm.LogNormal(0, 1), "b": tm.Uniform(1, 2)}},
                       samples={samples}, seed=0, keep_samples=False)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def test_memory_is_flat_in_the_sample_count_without_kept_samples():
    small, large = _peak_rss_mb(100_000), _peak_rss_mb(20_000_000)
    # Kept samples at 2e7 would need 160 MB for the output alone; streaming must stay flat.
    assert large - small < 20, (small, large)


def test_nan_outputs_are_counted_and_seeds_bounded():
    r = tm.monte_carlo(lambda x: np.where(x[:, 0] < 0.25, np.nan, x[:, 0]), {"a": tm.Uniform(0, 1)}, samples=10_000)
    s = r.summary()
    assert 2000 < s.loc["y", "nan_count"] < 3000
    with pytest.raises(tm.ScenarioError, match="seed: must be a whole number"):
        tm.monte_carlo(lambda x: x[:, 0], {"a": 1.0}, seed=2**64)
    with pytest.raises(tm.ScenarioError, match="outputs: names must be distinct"):
        tm.monte_carlo(lambda x: np.column_stack([x[:, 0], x[:, 0]]), {"a": 1.0}, outputs=["y", "y"])


def test_freed_arrays_are_reused_and_the_results_do_not_depend_on_it():
    scn = tm.Scenario.from_json(pathlib.Path(__file__).resolve().parents[2] / "examples" / "llama3-8b-lora-trn2.json")
    saved = tm.array_cache()["capacity_mb"]
    try:
        tm.array_cache(0)  # off: fresh memory for the reference
        assert tm.array_cache()["held_mb"] == 0
        reference = tm.simulate(scn, samples=50_000, seed=3)
        expected = {m: reference[m].copy() for m in reference.outputs}
        del reference
        assert tm.array_cache()["held_mb"] == 0
        tm.array_cache(64)
        first = tm.simulate(scn, samples=50_000, seed=3)
        del first  # 50,000 x 40 outputs: 16 MB kept for the next run of that size
        assert tm.array_cache()["held_mb"] == pytest.approx(50_000 * 40 * 8 / 2**20)
        again = tm.simulate(scn, samples=50_000, seed=3)
        assert tm.array_cache()["held_mb"] == 0  # taken by the run
        for m in again.outputs:
            np.testing.assert_array_equal(again[m], expected[m], strict=True)
        del again
        tm.array_cache(0)
        assert tm.array_cache() == {"capacity_mb": 0.0, "held_mb": 0.0}
        with pytest.raises(tm.ScenarioError, match=r"capacity_mb: must be a number of MiB, 0 or more, got -1"):
            tm.array_cache(-1)
        with pytest.raises(tm.ScenarioError, match=r"capacity_mb: must be finite, got inf"):
            tm.array_cache(math.inf)
    finally:
        tm.array_cache(saved)


def test_a_bad_array_cache_capacity_in_the_environment_is_named():
    code = "import trnmodel as tm; tm.monte_carlo(lambda x: x[:, 0], {'a': tm.Uniform(0, 1)}, samples=1_000_000)"
    env = {**os.environ, "TRNMODEL_ARRAY_CACHE_MB": "lots"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode != 0
    assert (
        'TRNMODEL_ARRAY_CACHE_MB: must be a whole number of MiB (0 turns the cache of freed arrays off), got "lots"'
        in (out.stderr)
    )
