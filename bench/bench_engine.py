"""Benchmark: trnmodel's Monte Carlo engine against the same computation written with NumPy's
own samplers, in one run.

The model has 15 uncertain inputs of a training-job flavour and one vectorized NumPy function
``cost_usd`` computing the job's cost from them. Both sides evaluate that same function and
compute the same summary (mean, sd, p10 p50 p80 p90 p99, min, max):

* trnmodel: ``tm.monte_carlo(cost_usd, INPUTS, ...)`` then ``.summary()``. Inputs are drawn by
  inverse CDF from a counter-based Philox stream in C++ (TBB, GIL released); ``cost_usd`` is
  called on blocks of 16,384 rows.
* NumPy: ``numpy.random.default_rng(seed)`` with NumPy's own samplers (lognormal, triangular,
  beta for PERT, gamma, weibull * scale, exponential, beta, uniform, normal, binomial(1, p))
  written into one Fortran-ordered (n, 15) array, ``cost_usd`` called once on all of it, then
  ``mean``, ``std(ddof=1)``, ``np.quantile``, ``min``, ``max``.

Run:  make bench   (that is: .venv/bin/python bench/bench_engine.py)
      .venv/bin/python bench/bench_engine.py --quick     a smoke run of a few seconds

Prints the platform, a Markdown table of wall times (best and median of several repeats),
samples per second and the ratio trnmodel / NumPy (below 1: trnmodel is faster), a check that
both sides give statistically consistent results, and a breakdown of where the time goes.
Only numpy, pandas and trnmodel are needed.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

try:
    import resource  # Unix: system (kernel) time, page faults
except ImportError:  # pragma: no cover - Windows
    resource = None

import trnmodel as tm
from _machine import OtherLoad, busy_cores, machine_lines  # bench/ is the script's own folder

# --------------------------------------------------------------------------------------------
# The model: a training job on NODES nodes, 15 uncertain inputs.
# --------------------------------------------------------------------------------------------

NODES = 16
Z90 = 1.2815515655446004  # standard normal quantile at 0.9

# Lognormal step time written as (p50, p90), as measured in a trial run.
STEP_P50, STEP_P90 = 1.8, 2.6
STEP_MU, STEP_SIGMA = math.log(STEP_P50), math.log(STEP_P90 / STEP_P50) / Z90
STORAGE_MU, STORAGE_SIGMA = math.log(400.0), 0.3


def _pert_ab(lo: float, mode: float, hi: float) -> tuple:
    return 1 + 4 * (mode - lo) / (hi - lo), 1 + 4 * (hi - mode) / (hi - lo)


COMPILE = (0.5, 1.0, 4.0)  # PERT lo, mode, hi (hours)
COMPILE_A, COMPILE_B = _pert_ab(*COMPILE)

# name: (trnmodel distribution, NumPy sampler (rng, n) -> array). Same distributions, each
# side's own way of drawing them.
MODEL = {
    # seconds per training step (lognormal, median 1.8 s, p90 2.6 s)
    "step_s": (
        tm.LogNormal.from_quantiles(p50=STEP_P50, p90=STEP_P90),
        lambda rng, n: rng.lognormal(STEP_MU, STEP_SIGMA, n),
    ),
    # optimizer steps to reach the target loss
    "steps": (tm.Triangular(180_000, 200_000, 260_000), lambda rng, n: rng.triangular(180_000, 200_000, 260_000, n)),
    # graph compile before the first step (hours), three-point estimate
    "compile_h": (
        tm.PERT(*COMPILE),
        lambda rng, n: COMPILE[0] + (COMPILE[2] - COMPILE[0]) * rng.beta(COMPILE_A, COMPILE_B, n),
    ),
    # data preparation and warm-up (hours)
    "warmup_h": (tm.Gamma(3.0, 0.5), lambda rng, n: rng.gamma(3.0, 0.5, n)),
    # minutes to write one checkpoint
    "ckpt_write_min": (tm.Gamma(4.0, 0.75), lambda rng, n: rng.gamma(4.0, 0.75, n)),
    # hours between checkpoints
    "ckpt_every_h": (tm.Uniform(1.0, 3.0), lambda rng, n: rng.uniform(1.0, 3.0, n)),
    # hours between job-level failures (Weibull, wear-in shape 3)
    "mtbf_h": (tm.Weibull(3.0, 40.0), lambda rng, n: 40.0 * rng.weibull(3.0, n)),
    # minutes to detect a failure and restart from the last checkpoint
    "restart_min": (tm.Exponential(20.0), lambda rng, n: rng.exponential(20.0, n)),
    # fraction of step time not lost to stragglers and input stalls
    "efficiency": (tm.Beta(18.0, 2.0), lambda rng, n: rng.beta(18.0, 2.0, n)),
    # evaluation overhead as a fraction of training time, on [0.02, 0.15]
    "eval_frac": (tm.Beta(2.0, 8.0, lo=0.02, hi=0.15), lambda rng, n: 0.02 + 0.13 * rng.beta(2.0, 8.0, n)),
    # on-demand price per node-hour (USD), between two quotes
    "node_usd_h": (tm.Uniform(28.0, 40.0), lambda rng, n: rng.uniform(28.0, 40.0, n)),
    # throughput drift of the full cluster against the trial run (multiplies step time)
    "drift": (tm.Normal(1.0, 0.05), lambda rng, n: rng.normal(1.0, 0.05, n)),
    # whether the job is requeued once (capacity loss)
    "requeue": (tm.Bernoulli(0.2), lambda rng, n: rng.binomial(1, 0.2, n).astype(np.float64)),
    # hours lost when requeued
    "requeue_h": (tm.Gamma(2.0, 3.0), lambda rng, n: rng.gamma(2.0, 3.0, n)),
    # storage and egress for checkpoints and logs (USD)
    "storage_usd": (
        tm.LogNormal(STORAGE_MU, STORAGE_SIGMA),
        lambda rng, n: rng.lognormal(STORAGE_MU, STORAGE_SIGMA, n),
    ),
}
NAMES = list(MODEL)
INPUTS = {name: dist for name, (dist, _) in MODEL.items()}
QUANTILES = [0.10, 0.50, 0.80, 0.90, 0.99]
STAT_KEYS = ["mean", "sd", "p10", "p50", "p80", "p90", "p99", "min", "max"]


def cost_usd(x: np.ndarray) -> np.ndarray:
    """The job's cost in USD, one value per row of ``x`` (columns in NAMES order)."""
    (
        step_s,
        steps,
        compile_h,
        warmup_h,
        ckpt_write_min,
        ckpt_every_h,
        mtbf_h,
        restart_min,
        efficiency,
        eval_frac,
        node_usd_h,
        drift,
        requeue,
        requeue_h,
        storage_usd,
    ) = x.T
    train_h = steps * step_s * drift / efficiency / 3600.0
    ckpt_h = train_h / ckpt_every_h * (ckpt_write_min / 60.0)
    run_h = train_h * (1.0 + eval_frac) + ckpt_h
    # each failure costs a restart and, on average, half a checkpoint interval of lost work
    lost_h = run_h / mtbf_h * (restart_min / 60.0 + 0.5 * ckpt_every_h)
    total_h = compile_h + warmup_h + run_h + lost_h + requeue * requeue_h
    return total_h * NODES * node_usd_h + storage_usd


# --------------------------------------------------------------------------------------------
# The two implementations.
# --------------------------------------------------------------------------------------------


def run_trnmodel(n: int, seed: int, threads: int, keep: bool) -> dict:
    r = tm.monte_carlo(cost_usd, INPUTS, samples=n, seed=seed, threads=threads, keep_samples=keep, outputs="cost_usd")
    row = r.summary().iloc[0]
    return {k: float(row[k]) for k in STAT_KEYS}


def draw_numpy(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.empty((n, len(NAMES)), order="F")
    for j, name in enumerate(NAMES):
        x[:, j] = MODEL[name][1](rng, n)
    return x


def run_numpy(n: int, seed: int) -> dict:
    y = cost_usd(draw_numpy(n, seed))
    q = np.quantile(y, QUANTILES)
    stats = {"mean": float(y.mean()), "sd": float(y.std(ddof=1)), "min": float(y.min()), "max": float(y.max())}
    stats.update({f"p{round(p * 100)}": float(v) for p, v in zip(QUANTILES, q)})
    return stats


# --------------------------------------------------------------------------------------------
# Timing.
# --------------------------------------------------------------------------------------------


def timed(fn, repeats: int, warmup: bool = True):
    """(best s, median s, last result, median CPU s) over ``repeats`` calls, after one
    untimed call. CPU time is the process's (all threads): CPU / wall is the cores used."""
    if warmup:
        fn()
    times, cpu = [], []
    result = None
    for _ in range(repeats):
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(times), statistics.median(times), result, statistics.median(cpu)


def sys_time() -> float:
    """This process's kernel CPU time so far (page faults, zeroing fresh memory ...); 0 where
    unavailable."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime if resource else 0.0


def fmt_rate(rate: float) -> str:
    return f"{rate / 1e6:.2f} M"


def platform_info() -> list:
    lines = [
        f"date (local): {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"python {platform.python_version()}, numpy {np.__version__}, trnmodel {tm.__version__}",
        f"platform: {platform.platform()}",
        f"processor: {platform.processor() or '(platform.processor() empty)'}, machine {platform.machine()}",
        f"os.cpu_count(): {os.cpu_count()}",
    ]
    try:
        import pandas

        lines[1] += f", pandas {pandas.__version__}"
    except ImportError:  # pragma: no cover - pandas is a dependency of summary()
        pass
    lines += machine_lines()
    blas_env = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    if blas_env:
        lines.append(
            "environment: "
            + " ".join(f"{k}={v}" for k, v in sorted(blas_env.items()))
            + " (BLAS only: no effect on these samplers)"
        )
    return lines


# --------------------------------------------------------------------------------------------
# Checks that both sides compute the same thing.
# --------------------------------------------------------------------------------------------


def check_inputs(n: int, seed: int) -> list:
    """Each input: the exact mean of trnmodel's distribution against the mean of NumPy's draws
    (z-score with the draws' own standard error)."""
    rows = []
    rng = np.random.default_rng(seed + 1)
    for name in NAMES:
        dist, sampler = MODEL[name]
        draws = sampler(rng, n)
        exact = dist.mean()
        z = (draws.mean() - exact) / (draws.std(ddof=1) / math.sqrt(n))
        rows.append((name, dist.family, exact, float(draws.mean()), float(z)))
    return rows


# --------------------------------------------------------------------------------------------
# Main.
# --------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (small n, 2 repeats)")
    parser.add_argument("--samples", type=float, nargs="+", help="sample counts (default 1e6 4e6; quick 1e5)")
    parser.add_argument("--repeats", type=int, help="timed repeats per configuration (default 5; quick 2)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    sizes = [int(s) for s in (args.samples or ([100_000] if args.quick else [1_000_000, 4_000_000]))]
    repeats = args.repeats or (2 if args.quick else 5)
    seed = args.seed
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    thread_counts = [1, 2] if cores >= 2 else [1]

    print("# trnmodel Monte Carlo engine vs NumPy samplers\n")
    print(f"command: {sys.executable} {' '.join(sys.argv)}")
    for line in platform_info():
        print(f"- {line}")
    busy = busy_cores()
    if busy is not None:
        print(f"- machine busy before the run: {busy:.2f} cores in use by other processes")
        if busy > 0.2:
            print(f"- WARNING: other processes use {busy:.2f} cores: the timings below are not clean")
    print(
        f"- model: {len(NAMES)} uncertain inputs ({', '.join(sorted({d.family for d, _ in MODEL.values()}))}), "
        f"output cost_usd; {repeats} timed repeats per row (round robin over the rows) after one untimed warm-up; seed {seed}"
    )

    whole_run = OtherLoad()

    # -- 1. are the inputs the same distributions? ------------------------------------------
    n_check = 200_000 if args.quick else 1_000_000
    print(f"\n## Inputs: exact trnmodel mean vs mean of {n_check:,} NumPy draws\n")
    print("| input | family | trnmodel exact mean | NumPy sample mean | z |")
    print("|---|---|---:|---:|---:|")
    worst = 0.0
    for name, family, exact, sampled, z in check_inputs(n_check, seed):
        worst = max(worst, abs(z))
        print(f"| {name} | {family} | {exact:.6g} | {sampled:.6g} | {z:+.2f} |")
    print(f"\nlargest |z|: {worst:.2f} (over {len(NAMES)} inputs; above ~3.5 would mean a mis-specified peer)")

    # -- 2. timings --------------------------------------------------------------------------
    configs = [("NumPy", None, None)]
    for t in thread_counts:
        for keep in (True, False):
            configs.append(("trnmodel", t, keep))

    other = OtherLoad()
    # Round robin: each repeat times every configuration once, so a disturbance from other
    # work on the machine spreads over all rows instead of spoiling one.
    results = []  # dicts: n, impl, threads, keep, best, median, cpu, stats
    for n in sizes:
        jobs = []
        for impl, threads, keep in configs:
            if impl == "NumPy":
                fn = lambda n=n: run_numpy(n, seed)  # noqa: E731
            else:
                fn = lambda n=n, t=threads, k=keep: run_trnmodel(n, seed, t, k)  # noqa: E731
            fn()  # untimed warm-up (builds quantile tables, faults in memory)
            jobs.append((dict(n=n, impl=impl, threads=threads, keep=keep), fn, [], [], []))
        for _ in range(repeats):
            for row, fn, times, cpu, kernel in jobs:
                s0 = sys_time()
                c0 = time.process_time()
                t0 = time.perf_counter()
                row["stats"] = fn()
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                kernel.append(sys_time() - s0)
        for row, _, times, cpu, kernel in jobs:
            row.update(
                best=min(times),
                median=statistics.median(times),
                cpu=statistics.median(cpu),
                sys=statistics.median(kernel),
            )
            results.append(row)
            print(
                f"  timed n={n:,} {row['impl']} threads={row['threads']} keep={row['keep']}: "
                f"best {row['best']:.3f} s, median {row['median']:.3f} s",
                file=sys.stderr,
                flush=True,
            )

    other_cores = other.cores()
    print("\n## Wall time: draw 15 inputs, evaluate cost_usd, summarise\n")
    if other_cores is not None:
        print(
            f"Other processes used {other_cores:.2f} cores on average while these were timed"
            f"{' (clean)' if other_cores < 0.1 else ': WARNING, the figures are disturbed'}.\n"
        )
    print(
        "Ratio = trnmodel time / NumPy time at the same n (below 1: trnmodel faster). "
        "NumPy is single-threaded (its samplers and ufuncs use one core).\n"
    )
    print(
        "| samples | implementation | threads | keep_samples | best (s) | median (s) | samples/s (best) "
        "| ratio (best) | ratio (median) | cores busy (CPU/wall, median) | of which kernel (s, median) |"
    )
    print("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        base = next(r for r in results if r["n"] == n and r["impl"] == "NumPy")
        for r in (r for r in results if r["n"] == n):
            threads = "1" if r["impl"] == "NumPy" else str(r["threads"])
            keep = "(all in memory)" if r["impl"] == "NumPy" else str(r["keep"])
            ratio_best = "1" if r is base else f"{r['best'] / base['best']:.2f}"
            ratio_med = "1" if r is base else f"{r['median'] / base['median']:.2f}"
            print(
                f"| {n:,} | {r['impl']} | {threads} | {keep} | {r['best']:.3f} | {r['median']:.3f} | "
                f"{fmt_rate(n / r['best'])} | {ratio_best} | {ratio_med} | {r['cpu'] / r['median']:.2f} | {r['sys']:.3f} |"
            )

    # -- 3. same computation? ------------------------------------------------------------------
    print("\n## Same computation: output statistics (USD)\n")
    print(
        "z = (trnmodel mean - NumPy mean) / combined standard error; the two sides use different "
        "random numbers, so only agreement within Monte Carlo error is expected. keep_samples=False "
        "quantiles come from the streaming histogram (0.1% relative).\n"
    )
    print("| samples | implementation | threads | keep_samples | mean | sd | p10 | p50 | p90 | p99 | z (mean) |")
    print("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    consistent = True
    for n in sizes:
        base = next(r for r in results if r["n"] == n and r["impl"] == "NumPy")["stats"]
        tm_rows = [r for r in results if r["n"] == n and r["impl"] == "trnmodel"]
        for r in [next(r for r in results if r["n"] == n and r["impl"] == "NumPy")] + tm_rows:
            s = r["stats"]
            if r["impl"] == "NumPy":
                z = ""
            else:
                se = math.sqrt(s["sd"] ** 2 / n + base["sd"] ** 2 / n)
                zv = (s["mean"] - base["mean"]) / se
                consistent &= abs(zv) < 4
                z = f"{zv:+.2f}"
            threads = "1" if r["impl"] == "NumPy" else str(r["threads"])
            keep = "" if r["impl"] == "NumPy" else str(r["keep"])
            print(
                f"| {n:,} | {r['impl']} | {threads} | {keep} | {s['mean']:,.0f} | {s['sd']:,.0f} | "
                f"{s['p10']:,.0f} | {s['p50']:,.0f} | {s['p90']:,.0f} | {s['p99']:,.0f} | {z} |"
            )
        means = {(r["threads"], r["keep"]): r["stats"]["mean"] for r in tm_rows}
        if len(set(means.values())) != 1:
            print(f"\nnote: trnmodel means differ across threads/keep_samples at n={n:,}: {means}")
    same_bits = all(
        len({r["stats"]["mean"] for r in results if r["n"] == n and r["impl"] == "trnmodel"}) == 1 for n in sizes
    )
    print(
        f"\nconsistent (|z| < 4 everywhere): {'yes' if consistent else 'NO'}; trnmodel's mean is the same "
        f"bitwise for every threads / keep_samples setting: {'yes' if same_bits else 'no'}"
    )

    # -- 4. where the time goes ----------------------------------------------------------------
    n = sizes[-1] if args.quick else sizes[0]
    print(f"\n## Where the time goes, n = {n:,} (best of {repeats})\n")
    x = draw_numpy(n, seed)
    parts = []
    parts.append(("NumPy: draw all 15 inputs", timed(lambda: draw_numpy(n, seed), repeats)[0]))
    parts.append(("cost_usd on all rows in one call (NumPy side)", timed(lambda: cost_usd(x), repeats)[0]))
    block = 16_384

    def f_blocks():
        for i in range(0, n, block):
            cost_usd(x[i : i + block])

    parts.append((f"cost_usd in blocks of {block:,} rows (trnmodel side, 1 thread)", timed(f_blocks, repeats)[0]))
    y = cost_usd(x)
    parts.append(
        (
            "NumPy: mean, sd, 5 quantiles, min, max",
            timed(lambda: (y.mean(), y.std(ddof=1), np.quantile(y, QUANTILES), y.min(), y.max()), repeats)[0],
        )
    )
    first = lambda x: x[:, 0]  # noqa: E731  a trivial f: the engine's draw + overhead only
    for t in thread_counts:
        for keep in (True, False):
            parts.append(
                (
                    f"trnmodel: draw all 15 inputs, trivial f, threads={t}, keep_samples={keep}",
                    timed(
                        lambda t=t, k=keep: tm.monte_carlo(
                            first, INPUTS, samples=n, seed=seed, threads=t, keep_samples=k
                        ),
                        repeats,
                    )[0],
                )
            )
    print("| step | best (s) | per sample (ns) |")
    print("|---|---:|---:|")
    for label, secs in parts:
        print(f"| {label} | {secs:.3f} | {secs / n * 1e9:.0f} |")

    # -- 5. per family, one thread -------------------------------------------------------------
    print(
        f"\n## Per input, one thread: trnmodel `dist.sample(n)` (Philox + inverse CDF) vs NumPy sampler, "
        f"n = {n:,} (best of {repeats})\n"
    )
    print(
        "First use of a gamma, beta or PERT distribution in trnmodel builds its quantile table once; "
        "`setup` times that on a fresh object (it is excluded from the timings above by the warm-up).\n"
    )
    print("| input | family | trnmodel (ms) | NumPy (ms) | ratio | setup on first use (ms) |")
    print("|---|---|---:|---:|---:|---:|")
    total_tm = total_np = 0.0
    for name in NAMES:
        dist, sampler = MODEL[name]
        fresh = tm.Distribution.from_dict(dist.to_dict())
        t0 = time.perf_counter()
        fresh.sample(1, seed)
        setup = time.perf_counter() - t0
        t_tm = timed(lambda dist=dist: dist.sample(n, seed), repeats)[0]
        t_np = timed(lambda sampler=sampler: sampler(np.random.default_rng(seed), n), repeats)[0]
        total_tm += t_tm
        total_np += t_np
        print(
            f"| {name} | {dist.family} | {t_tm * 1e3:.1f} | {t_np * 1e3:.1f} | {t_tm / t_np:.2f} | {setup * 1e3:.2f} |"
        )
    print(f"| **all 15** | | **{total_tm * 1e3:.1f}** | **{total_np * 1e3:.1f}** | **{total_tm / total_np:.2f}** | |")
    other_cores = whole_run.cores()
    if other_cores is not None:
        print(f"\nother processes used {other_cores:.2f} cores on average over the whole run")
    if hasattr(os, "getloadavg"):
        print("load average (1, 5, 15 min) at the end: " + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    return 0 if consistent and worst < 4.5 else 1


if __name__ == "__main__":
    sys.exit(main())
