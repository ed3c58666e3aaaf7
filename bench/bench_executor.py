"""Benchmark: a split run on Dask worker processes against the local run (docs/scaling.md).

Measured on the LoRA trn2 example, streamed (keep_samples=False), in one run:

* the local run with threads=1 and threads=2 (the same cores as 1 and 2 worker processes);
* tm.simulate(..., executor=client) on a LocalCluster of 1 and of 2 worker processes, one
  thread each (the cluster started before the clock starts, one untimed warm-up run on it);
* each timing the least of --repeat rounds, the rounds alternating local and Dask runs, so that
  a slow spell of the machine (a shared host varies by about 10 %) does not fall on one side;
* scaling: time(1 worker) / time(2 workers), target ≥ 1.8×;
* overhead: time(k workers) / time(local, k threads) − 1, target ≤ 5 % at 10^8 samples.

With --memory, instead: the peak memory of the driver (its own process, which also runs the
local cluster's scheduler) and of each worker for a streamed split run of each sample count
given, each in a fresh process: flat when the peaks do not grow with the count.

Every split result is checked bit for bit against the local one. The machine's load average is
printed beside the figures: record them only from a quiet machine.

Run:  .venv/bin/python bench/bench_executor.py [--samples 100000000] [--repeat 2]
      .venv/bin/python bench/bench_executor.py --memory 10000000 1000000000
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pathlib
import resource
import subprocess
import sys
import time
import warnings

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[1]


def scenario() -> tm.Scenario:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def cluster(workers: int):
    from dask.distributed import Client, LocalCluster

    c = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
    return c, Client(c)


def speed(n: int, repeat: int) -> None:
    scn = scenario()
    print(f"samples {n:,}, streamed, least of {repeat} rounds; load average before: {os.getloadavg()}")
    local = {1: [], 2: []}
    split = {1: [], 2: []}
    results = {}
    clusters = {w: cluster(w) for w in (1, 2)}
    try:
        for _, client in clusters.values():
            tm.simulate(scn, samples=min(n, 10**6), seed=1, keep_samples=False, executor=client)  # warm-up
        for _ in range(repeat):
            for k in (1, 2):
                seconds, results[("local", k)] = timed(
                    lambda k=k: tm.simulate(scn, samples=n, seed=1, threads=k, keep_samples=False)
                )
                local[k].append(seconds)
                client = clusters[k][1]
                seconds, results[("dask", k)] = timed(
                    lambda client=client: tm.simulate(scn, samples=n, seed=1, keep_samples=False, executor=client)
                )
                split[k].append(seconds)
                assert results[("dask", k)].summary().equals(results[("local", k)].summary()), "not the local bits"
    finally:
        for c, client in clusters.values():
            client.close()
            c.close()
    print("\n| run | seconds (least) | every round | samples/s | vs local, same cores |")
    print("|---|---|---|---|---|")
    for k in (1, 2):
        print(
            f"| local, {k} thread(s) | {min(local[k]):.2f} | {', '.join(f'{s:.1f}' for s in local[k])} | "
            f"{n / min(local[k]):,.0f} | — |"
        )
    for k in (1, 2):
        overhead = min(split[k]) / min(local[k]) - 1
        print(
            f"| Dask, {k} worker process(es) | {min(split[k]):.2f} | {', '.join(f'{s:.1f}' for s in split[k])} | "
            f"{n / min(split[k]):,.0f} | {overhead:+.1%} |"
        )
    print(f"\nscaling 1 → 2 worker processes: {min(split[1]) / min(split[2]):.2f}× (target ≥ 1.8×)")
    print("bit for bit: every split summary equals the local run's")
    print(f"load average after: {os.getloadavg()}")


def peak_memory(n: int) -> dict:
    """In this (fresh) process: a streamed split run of n samples on 2 worker processes; the
    driver's and the workers' peak resident memory before and after it."""
    scn = scenario()
    c, client = cluster(2)
    try:
        tm.simulate(scn, samples=10**6, seed=1, keep_samples=False, executor=client)  # warm-up
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        seconds, _ = timed(lambda: tm.simulate(scn, samples=n, seed=1, keep_samples=False, executor=client))
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        workers = client.run(lambda: __import__("resource").getrusage(0).ru_maxrss)
    finally:
        client.close()
        c.close()
    return {
        "samples": n,
        "seconds": seconds,
        "driver_before_kib": before,
        "driver_after_kib": after,
        "workers_kib": sorted(workers.values()),
    }


def memory(counts: list) -> None:
    print(f"streamed split runs on 2 worker processes, each in a fresh driver; load average before: {os.getloadavg()}")
    print("\n| samples | seconds | driver peak before → after (MiB) | worker peaks (MiB) |")
    print("|---|---|---|---|")
    for n in counts:
        out = subprocess.run(
            [sys.executable, __file__, "--peak-memory", str(n)], capture_output=True, text=True, check=True
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(
            f"| {n:,} | {r['seconds']:.1f} | {r['driver_before_kib'] / 1024:.0f} → {r['driver_after_kib'] / 1024:.0f} "
            f"| {', '.join(f'{w / 1024:.0f}' for w in r['workers_kib'])} |",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=10**8)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--memory", type=int, nargs="+", metavar="SAMPLES")
    parser.add_argument("--peak-memory", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_memory:
        print(json.dumps(peak_memory(args.peak_memory)))
    elif args.memory:
        memory(args.memory)
    else:
        speed(args.samples, args.repeat)


if __name__ == "__main__":
    main()
