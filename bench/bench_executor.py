"""Benchmark: a split run on Dask worker processes against the local run (docs/scaling.md).

Measured on the LoRA trn2 example, streamed (keep_samples=False), in one run:

* the local run with threads=1 and threads=2 (the same cores as 1 and 2 worker processes);
* tm.simulate(..., executor=client) on a LocalCluster of 1 and of 2 worker processes, one
  thread each (the cluster started before the clock starts, one untimed warm-up run on it);
* scaling: time(1 worker) / time(2 workers), target ≥ 1.8×;
* overhead: time(k workers) / time(local, k threads) − 1, target ≤ 5 % at 10^8 samples;
* the driver's peak memory growth during the split run (ru_maxrss before and after).

Every split result is checked bit for bit against the local one. The machine's load average is
printed beside the figures: record them only from a quiet machine.

Run:  .venv/bin/python bench/bench_executor.py [--samples 100000000]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import time
import warnings

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    from dask.distributed import Client, LocalCluster

    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=10**8)
    args = parser.parse_args()
    n = args.samples
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    print(f"samples {n:,}, streamed; load average before: {os.getloadavg()}")
    local = {}
    for threads in (1, 2):
        seconds, result = timed(lambda t=threads: tm.simulate(scn, samples=n, seed=1, threads=t, keep_samples=False))
        local[threads] = (seconds, result)
    rows = []
    for workers in (1, 2):
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            tm.simulate(scn, samples=min(n, 10**6), seed=1, keep_samples=False, executor=client)  # warm-up
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            seconds, result = timed(lambda: tm.simulate(scn, samples=n, seed=1, keep_samples=False, executor=client))
            grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert result.summary().equals(local[workers][1].summary()), "not the local bits"
        rows.append((workers, seconds, grown_kib))
    print("\n| run | seconds | samples/s | vs local, same cores | driver memory growth |")
    print("|---|---|---|---|---|")
    for threads, (seconds, _) in local.items():
        print(f"| local, {threads} thread(s) | {seconds:.2f} | {n / seconds:,.0f} | — | — |")
    for workers, seconds, grown in rows:
        overhead = seconds / local[workers][0] - 1
        print(
            f"| Dask, {workers} worker process(es) | {seconds:.2f} | {n / seconds:,.0f} | {overhead:+.1%} | {grown:,} KiB |"
        )
    print(f"\nscaling 1 → 2 worker processes: {rows[0][1] / rows[1][1]:.2f}× (target ≥ 1.8×)")
    print("bit for bit: every split summary equals the local run's")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
