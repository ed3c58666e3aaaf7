"""Benchmark: tm.simulate (the C++ lifecycle simulator) against an independent NumPy
implementation of the same semantics (bench/numpy_lifecycle.py), in one run.

Measured, on every bundled example scenario (examples/llama3-*.json):

* wall time and samples/s of ``tm.simulate(scn, samples=n)`` with threads=1 and threads=2,
  samples kept and streamed (keep_samples True and False), and of ``simulate_numpy(scn, samples=n)`` (NumPy's own samplers,
  vectorized over samples, one core), at the same n. Both return one array per metric and
  sample; tm.simulate also accumulates its streaming statistics. Repeats are timed round
  robin (each repeat times every configuration once) after one untimed warm-up, so a
  disturbance from other work on the machine spreads over all rows; a block during which
  other processes used more than 0.1 core is measured again (up to 3 times, the least
  disturbed attempt is kept, and its load is printed);
* the thread scaling of tm.simulate, time(threads=1) / time(threads=2): in that table, and
  on its own (LoRA trn2, 4× the samples, only tm.simulate runs, keep_samples True and False);
* peak memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of a fresh subprocess per
  measurement) of ``tm.simulate(..., keep_samples=False)`` at 10^6 and 10^8 samples, against
  a subprocess that runs the same code on 1,000 samples (and, for contrast,
  keep_samples=True and the NumPy implementation at 10^6);
* where the time goes: the same scenario with every input fixed at its mean (no input
  draws) on both sides.

Targets: tm.simulate ≥ 3× the NumPy implementation's samples/s on one thread and ≥ 5.5× on two
(the LoRA trn2 example, kept and streamed), ≥ 1.8× from 1 to 2 threads, memory flat in the
sample count with keep_samples=False.

Run:  .venv/bin/python bench/bench_simulate.py            (~3-5 minutes; 10^8 samples is most of it)
      .venv/bin/python bench/bench_simulate.py --quick    (a smoke run of ~20 s: 10^5 samples, memory at 10^5 and 10^6)

Prints Markdown. Only numpy, pandas and trnmodel are needed.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import math
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import trnmodel as tm
from _machine import OtherLoad, build_id, machine_lines, wait_for_quiet  # bench/ is the script's own folder

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from numpy_lifecycle import simulate_numpy  # noqa: E402

EXAMPLES = sorted((ROOT / "examples").glob("llama3-*.json"))
LORA = ROOT / "examples" / "llama3-8b-lora-trn2.json"

TARGET_SPEEDUP_1 = 3.0  # samples/s against NumPy's, one thread
TARGET_SPEEDUP_2 = 5.5  # two threads
TARGET_SCALING = 1.8


# --------------------------------------------------------------------------------------------
# Machine
# --------------------------------------------------------------------------------------------


def platform_lines() -> list:
    lines = [
        f"date (local): {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"python {platform.python_version()}, numpy {np.__version__}, trnmodel {tm.__version__}",
        f"platform: {platform.platform()}",
        f"os.cpu_count(): {os.cpu_count()}",
    ]
    lines += machine_lines()
    return lines


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def round_robin(jobs: dict, repeats: int) -> dict:
    """{name: fn} -> {name: (best s, median s, last result)}; one untimed warm-up each."""
    for fn in jobs.values():
        fn()
    times = {name: [] for name in jobs}
    last = {}
    for _ in range(repeats):
        for name, fn in jobs.items():
            t0 = time.perf_counter()
            last[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {name: (min(t), statistics.median(t), last[name]) for name, t in times.items()}


def clean_round_robin(jobs: dict, repeats: int, wait_s: float, attempts: int = 3, threshold: float = 0.1):
    """round_robin, retried (up to ``attempts`` times) while other processes used more than
    ``threshold`` cores during it; returns (results, other load of the kept attempt)."""
    best = None
    for _ in range(attempts):
        wait_for_quiet(wait_s)
        other = OtherLoad()
        res = round_robin(jobs, repeats)
        load = other.cores()
        if best is None or (load is not None and (best[1] is None or load < best[1])):
            best = (res, load)
        if load is None or load < threshold:
            break
        print(f"  (other processes used {load:.2f} cores: measuring again)", file=sys.stderr, flush=True)
    return best


def z_mean(a: np.ndarray, b: np.ndarray) -> float:
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return float((a.mean() - b.mean()) / se) if se > 0 else 0.0


# --------------------------------------------------------------------------------------------
# Memory: a fresh interpreter per measurement
# --------------------------------------------------------------------------------------------

_MEMORY_SCRIPT = r"""
import json, resource, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import trnmodel as tm
kind, path, n = {kind!r}, {path!r}, {n}
scn = tm.Scenario.from_json(path)
t0 = time.perf_counter()
if kind == "tm-nokeep":
    r = tm.simulate(scn, samples=n, seed=0, keep_samples=False)
    check = float(r.summary().loc["wall_h", "mean"])
elif kind == "tm-keep":
    r = tm.simulate(scn, samples=n, seed=0, keep_samples=True)
    check = float(r["wall_h"].mean())
elif kind == "numpy":
    from numpy_lifecycle import simulate_numpy
    check = float(simulate_numpy(scn, samples=n, seed=0)["wall_h"].mean())
else:  # baseline: everything loaded and initialised (pandas, quantile tables), 1,000 samples
    r = tm.simulate(scn, samples=1000, seed=0, keep_samples=False)
    check = float(r.summary().loc["wall_h", "mean"])
seconds = time.perf_counter() - t0
with open("/proc/self/status") as fh:
    hwm = [int(line.split()[1]) for line in fh if line.startswith("VmHWM:")]
print(json.dumps({{"maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "vmhwm_kb": hwm[0] if hwm else None,
                  "seconds": seconds, "check": check}}))
"""


def peak_memory(kind: str, n: int, path: pathlib.Path = LORA) -> dict:
    """Peak RSS of a fresh interpreter running one measurement.

    Linux keeps ru_maxrss across execve, and a child forked (or vforked) straight from this
    benchmark would inherit this process's high-water mark (hundreds of MB of timing
    results). So the interpreter is started by a small /bin/sh that forks it (the command is
    not the shell's last, so the shell cannot exec it in place): its ru_maxrss then starts
    from the shell's few MB. /proc/self/status VmHWM (per address space, reset at exec) is
    printed next to it as a cross-check."""
    code = _MEMORY_SCRIPT.format(bench=str(ROOT / "bench"), kind=kind, path=str(path), n=int(n))
    out = subprocess.run(
        ["/bin/sh", "-c", '"$0" "$@"; exit $?', sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------------------
# Where the time goes
# --------------------------------------------------------------------------------------------


def fixed_at_means(scn: "tm.Scenario") -> "tm.Scenario":
    """The scenario with every uncertain quantity replaced by its mean (nothing to draw but
    the failure process, cache draws and the quality gate)."""
    d = copy.deepcopy(scn.to_dict())
    fixed = {}  # path -> (the dict holding it, its key)

    def walk(node: dict, prefix: str) -> None:
        for key, value in list(node.items()):
            path = prefix + key
            if isinstance(value, dict) and "dist" in value:
                node[key] = float(scn[path].mean())
                fixed[path] = (node, key)
            elif isinstance(value, dict) and "unknown" not in value:
                walk(value, path + ".")

    walk(d, "")
    # A count (optimizer steps, segments) fixed at a mean that is not whole is refused by the
    # loader, which names the field: such a field is rounded up, as its drawn values are.
    # The loader lists every problem, one per line ("path: rule"), after a count when several.
    for _ in range(len(fixed) + 1):
        try:
            return tm.Scenario.from_dict(d)
        except tm.ScenarioError as error:
            lines = [line.strip() for line in str(error).splitlines() if ":" in line]
            problems = [line.split(":", 1) for line in lines if "whole" in line]
            if not problems or any(path not in fixed for path, _ in problems):
                raise
            for path, _ in problems:
                node, key = fixed.pop(path)
                node[key] = float(math.ceil(node[key]))
    return tm.Scenario.from_dict(d)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def oracle_covers(scn: "tm.Scenario") -> bool:
    """Whether bench/numpy_lifecycle.py implements this scenario's rules: one stage, bought on
    demand (stages and purchase options are tested against closed forms instead)."""
    return not scn.to_dict().get("stages") and scn["prices.purchase"] == "on_demand"


def fmt_rate(rate: float) -> str:
    return f"{rate / 1e6:.3f} M" if rate >= 1e5 else f"{rate / 1e3:.1f} k"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a fast smoke run (10^5 samples, 2 repeats, memory at 10^5 and 10^6)"
    )
    parser.add_argument("--samples", type=float, help="samples per timed run (default 10^6; quick 10^5)")
    parser.add_argument("--repeats", type=int, help="timed repeats per configuration (default 5; quick 2)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=300.0,
        metavar="S",
        help="before each timed block, wait up to S seconds for other processes to go quiet (default 300)",
    )
    args = parser.parse_args(argv)

    n = int(args.samples or (100_000 if args.quick else 1_000_000))
    repeats = args.repeats or (2 if args.quick else 5)
    mem_sizes = [100_000, 1_000_000] if args.quick else [1_000_000, 100_000_000]
    seed = args.seed

    start_build = build_id()
    print("# tm.simulate vs an independent NumPy lifecycle simulator\n")
    print(
        f"command: `{os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(str(ROOT)) else sys.executable} "
        f"{' '.join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])}`\n"
    )
    for line in platform_lines():
        print(f"- {line}")
    print(
        f"- {n:,} samples per timed run, {repeats} timed repeats per row (round robin) after one "
        f"untimed warm-up; seed {seed}"
    )

    # -- 1. every example: NumPy, tm threads=1, tm threads=2 ------------------------------------
    busy = wait_for_quiet(args.wait_quiet)
    if busy is not None:
        print(
            f"- other processes before the timings: {busy:.2f} cores busy"
            f"{'' if busy < 0.2 else ' (WARNING: still busy after waiting ' + str(args.wait_quiet) + ' s)'}"
        )
    rows = []
    for path in EXAMPLES:
        scn = tm.Scenario.from_json(str(path))
        if not oracle_covers(scn):
            print(f"- {path.stem}: not timed (stages or a purchase other than on demand: not in the NumPy oracle)")
            continue
        jobs = {
            "NumPy": lambda scn=scn: simulate_numpy(scn, samples=n, seed=seed),
            "tm1": lambda scn=scn: tm.simulate(scn, samples=n, seed=seed, threads=1, keep_samples=True),
            "tm2": lambda scn=scn: tm.simulate(scn, samples=n, seed=seed, threads=2, keep_samples=True),
            "tm1s": lambda scn=scn: tm.simulate(scn, samples=n, seed=seed, threads=1, keep_samples=False) and None,
            "tm2s": lambda scn=scn: tm.simulate(scn, samples=n, seed=seed, threads=2, keep_samples=False) and None,
        }
        res, load = clean_round_robin(jobs, repeats, args.wait_quiet)
        z = z_mean(np.asarray(res["tm2"][2]["wall_h"]), res["NumPy"][2]["wall_h"])
        rows.append((path.stem, res, z, load))
        print(
            f"  timed {path.stem}: " + ", ".join(f"{k} {v[0]:.3f} s" for k, v in res.items()),
            file=sys.stderr,
            flush=True,
        )

    print("\n## Samples per second, every example\n")
    print(
        "Speed-up = tm samples/s ÷ NumPy samples/s (best of the repeats); scaling = time with "
        "1 thread ÷ time with 2. z = (tm − NumPy) / combined SE of the mean of wall_h (different "
        "random numbers: agreement within a few SE is expected). 'other load' = cores used by other "
        "processes while that row was timed (/proc/stat less this process): above ~0.1 the row is "
        "disturbed.\n"
    )
    print(
        "| scenario | NumPy samples/s | tm 1 thread, kept | tm 2 threads, kept | tm 1 thread, streamed "
        "| tm 2 threads, streamed | speed-up 1 thread (kept / streamed) | speed-up 2 threads (kept / streamed) "
        "| scaling 1→2 (kept / streamed) | z wall_h | other load |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, res, z, load in rows:
        np_best, t1, t2, s1, s2 = (res[k][0] for k in ("NumPy", "tm1", "tm2", "tm1s", "tm2s"))
        print(
            f"| {name} | {fmt_rate(n / np_best)} | {fmt_rate(n / t1)} | {fmt_rate(n / t2)} | {fmt_rate(n / s1)} | "
            f"{fmt_rate(n / s2)} | {np_best / t1:.2f}× / {np_best / s1:.2f}× | {np_best / t2:.2f}× / {np_best / s2:.2f}× | "
            f"{t1 / t2:.2f}× / {s1 / s2:.2f}× | {z:+.2f} | {'n/a' if load is None else f'{load:.2f}'} |"
        )
    print(
        f"\nTargets: ≥ {TARGET_SPEEDUP_1:g}× NumPy on one thread, ≥ {TARGET_SPEEDUP_2:g}× on two, kept and streamed; "
        f"scaling ≥ {TARGET_SCALING:g}×."
    )
    print(
        "\nMedians (s) for the same runs: "
        + "; ".join(
            f"{name}: NumPy {res['NumPy'][1]:.3f}, tm1 {res['tm1'][1]:.3f}, tm2 {res['tm2'][1]:.3f}, "
            f"tm1 streamed {res['tm1s'][1]:.3f}, tm2 streamed {res['tm2s'][1]:.3f}"
            for name, res, _, _ in rows
        )
    )

    # -- 2. thread scaling on its own ----------------------------------------------------------
    n_scale = 4 * n
    scn = tm.Scenario.from_json(str(LORA))
    scale, busy_scale = clean_round_robin(
        {
            (threads, keep): (
                lambda threads=threads, keep=keep: (
                    tm.simulate(scn, samples=n_scale, seed=seed, threads=threads, keep_samples=keep) and None
                )
            )
            for keep in (True, False)
            for threads in (1, 2)
        },
        repeats,
        args.wait_quiet,
    )
    print(f"\n## Thread scaling: {LORA.stem}, {n_scale:,} samples, tm.simulate alone\n")
    print(
        "Timed without NumPy runs in between (the NumPy implementation allocates ~0.7 KB per "
        "sample, which can disturb the memory behaviour of the run after it); best and median of "
        "the repeats."
        + ("" if busy_scale is None else f" Other processes used {busy_scale:.2f} cores on average.")
        + "\n"
    )
    print(
        "| keep_samples | 1 thread (s) | 2 threads (s) | samples/s, 2 threads | scaling 1→2 (best) | scaling 1→2 (median) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    scaling_alone = {}
    for keep in (True, False):
        t1, t2 = scale[(1, keep)], scale[(2, keep)]
        scaling_alone[keep] = t1[0] / t2[0]
        print(
            f"| {keep} | {t1[0]:.3f} | {t2[0]:.3f} | {fmt_rate(n_scale / t2[0])} | {t1[0] / t2[0]:.2f}× | {t1[1] / t2[1]:.2f}× |"
        )

    # -- 3. where the time goes -----------------------------------------------------------------
    scn = tm.Scenario.from_json(str(LORA))
    fixed = fixed_at_means(scn)
    n_drawn = len(tm.simulate(scn, samples=16, seed=0).uncertain_inputs)
    parts, busy2 = clean_round_robin(
        {
            "NumPy full": lambda: simulate_numpy(scn, samples=n, seed=seed),
            "NumPy fixed": lambda: simulate_numpy(fixed, samples=n, seed=seed),
            "tm full": lambda: tm.simulate(scn, samples=n, seed=seed, threads=1, keep_samples=True),
            "tm fixed": lambda: tm.simulate(fixed, samples=n, seed=seed, threads=1, keep_samples=True),
            "tm full nokeep": lambda: tm.simulate(scn, samples=n, seed=seed, threads=1, keep_samples=False),
        },
        repeats,
        args.wait_quiet,
    )
    print(f"\n## Where the time goes: {LORA.stem}, {n:,} samples, one thread, best of {repeats}\n")
    if busy2 is not None:
        print(f"Other processes used {busy2:.2f} cores on average while these were timed.\n")
    print(
        f"'inputs at their means' replaces every one of the {n_drawn} uncertain inputs by its mean: "
        "what is left is the lifecycle itself (failure process, cache draws, quality gate), the "
        "metrics and, for tm, its streaming statistics. The difference is the cost of drawing "
        "the inputs.\n"
    )
    print(
        "| implementation | all inputs drawn (s) | inputs at their means (s) | input draws (s) | "
        "input draws, ns per sample per input |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, full, fix in (("NumPy", "NumPy full", "NumPy fixed"), ("tm.simulate, 1 thread", "tm full", "tm fixed")):
        a, b = parts[full][0], parts[fix][0]
        print(f"| {label} | {a:.3f} | {b:.3f} | {a - b:.3f} | {(a - b) / n / n_drawn * 1e9:.0f} |")
    print(
        f"\ntm.simulate, 1 thread, keep_samples=False: {parts['tm full nokeep'][0]:.3f} s "
        f"(keep_samples=True: {parts['tm full'][0]:.3f} s)"
    )

    # -- 4. memory ------------------------------------------------------------------------------
    print(f"\n## Peak memory (ru_maxrss of a fresh subprocess), {LORA.stem}, default threads\n")
    mem = [("baseline: import, load the scenario, tm.simulate 1,000 samples + summary()", "baseline", 0)]
    mem += [(f"tm.simulate keep_samples=False, {m:,} samples", "tm-nokeep", m) for m in mem_sizes]
    mem += [
        (f"tm.simulate keep_samples=True, {mem_sizes[0]:,} samples (contrast)", "tm-keep", mem_sizes[0]),
        (f"NumPy implementation, {mem_sizes[0]:,} samples (contrast)", "numpy", mem_sizes[0]),
    ]
    print(
        "Peak RSS = ru_maxrss; VmHWM of /proc/self/status as a cross-check. The subprocess is "
        "forked by an intermediate /bin/sh so that it does not inherit this benchmark's own "
        "high-water mark (Linux keeps ru_maxrss across exec).\n"
    )
    print("| run | peak RSS, ru_maxrss (MB) | over baseline (MB) | VmHWM (MB) | run time (s) |")
    print("|---|---:|---:|---:|---:|")
    measured = {}
    base_mb = None
    for label, kind, m in mem:
        print(f"  memory: {label} ...", file=sys.stderr, flush=True)
        wait_for_quiet(args.wait_quiet)
        r = peak_memory(kind, m)
        mb = r["maxrss_kb"] / 1024
        if kind == "baseline":
            base_mb = mb
        measured[(kind, m)] = mb
        hwm = f"{r['vmhwm_kb'] / 1024:.1f}" if r.get("vmhwm_kb") else "n/a"
        print(f"| {label} | {mb:.1f} | {mb - base_mb:+.1f} | {hwm} | {r['seconds']:.2f} |")
    small, big = measured[("tm-nokeep", mem_sizes[0])], measured[("tm-nokeep", mem_sizes[1])]
    growth = big - small

    final_build = build_id()
    if final_build != start_build:
        print(
            f"\nWARNING: trnmodel was rebuilt during the run ({start_build} → {final_build}): the timings "
            "above used the first build (loaded at import), the memory subprocesses may have used the new one."
        )

    # -- 5. targets -----------------------------------------------------------------------------
    lora = next(res for name, res, _, _ in rows if name == LORA.stem)
    scaling = lora["tm1"][0] / lora["tm2"][0]
    print("\n## Targets\n")
    print("| target | measured | met |")
    print("|---|---:|---|")
    for threads, target in ((1, TARGET_SPEEDUP_1), (2, TARGET_SPEEDUP_2)):
        kept = lora["NumPy"][0] / lora[f"tm{threads}"][0]
        streamed = lora["NumPy"][0] / lora[f"tm{threads}s"][0]
        met = kept >= target and streamed >= target
        print(
            f"| ≥ {target:g}× the NumPy samples/s on {LORA.stem} ({threads} thread{'s' if threads > 1 else ''}) | "
            f"{kept:.2f}× kept, {streamed:.2f}× streamed | {'yes' if met else 'NO'} |"
        )
    print(
        f"| ≥ {TARGET_SCALING:g}× from 1 to 2 threads ({LORA.stem}, {n_scale:,} samples, tm alone) | "
        f"{scaling_alone[True]:.2f}× (keep_samples=False: {scaling_alone[False]:.2f}×; in the table with "
        f"NumPy runs interleaved: {scaling:.2f}×) | {'yes' if scaling_alone[True] >= TARGET_SCALING else 'NO'} |"
    )
    print(
        f"| flat memory, keep_samples=False, {mem_sizes[0]:,} → {mem_sizes[1]:,} samples | "
        f"{growth:+.1f} MB | {'yes' if growth < 5 else 'NO'} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
