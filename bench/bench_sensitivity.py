"""Benchmark: Sobol indices with trnmodel against SALib, at equal N, in one run.

Measured:

* **Ishigami** (a = 7, b = 0.1, three U(-π, π) inputs). SALib: ``SALib.sample.sobol.sample``
  (N (d + 2) rows, ``calc_second_order=False``) + the NumPy Ishigami function on the whole
  matrix + ``SALib.analyze.sobol.analyze(calc_second_order=False, num_resamples=100)`` (its
  bootstrap confidence intervals). trnmodel: ``tm.sobol_function`` with the same NumPy
  function (called on blocks of ~16,384 rows) and its asymptotic intervals.
* **Llama-3-8B LoRA on Trn2** (examples/llama3-8b-lora-trn2.json, output run_cost_usd, 25
  factors: 24 drawn inputs + chance). trnmodel: ``tm.sobol(scn)``. SALib: the same sample +
  analyze, and the model evaluated by trnmodel's own C++ lifecycle model on SALib's uniforms
  (``_core.evaluate_uniforms``: one column per input, the chance column u mapped to the
  aleatory index ⌊u·2^53⌋), single-threaded. So both sides pay the same per-evaluation model
  cost; the difference is the design, the estimators and their intervals.
* **Memory as N grows**: peak RSS (ru_maxrss) of a fresh subprocess per measurement, for
  ``tm.sobol_function`` on Ishigami and ``tm.sobol`` on the LoRA example at growing N, and
  SALib on Ishigami for contrast.

Timings are best of ``--repeats`` (round robin), one thread and all threads for trnmodel
(SALib's analyze runs in one process). Target (issue 6): trnmodel ≥ 10× SALib's time at equal
N with confidence intervals, and memory independent of N.

Run:  .venv/bin/python bench/bench_sensitivity.py            (~2-3 minutes)
      .venv/bin/python bench/bench_sensitivity.py --quick    (a smoke run, ~20 s)
Needs SALib (requirements-bench.txt). Prints Markdown.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import math
import pathlib
import platform
import subprocess
import sys
import time
import warnings

import numpy as np

import trnmodel as tm
from _machine import OtherLoad, machine_lines, wait_for_quiet  # bench/ is the script's own folder

ROOT = pathlib.Path(__file__).resolve().parents[1]
LORA = ROOT / "examples" / "llama3-8b-lora-trn2.json"
TARGET_SPEEDUP = 10.0
PI = math.pi


def ishigami(x: np.ndarray) -> np.ndarray:
    return np.sin(x[:, 0]) + 7 * np.sin(x[:, 1]) ** 2 + 0.1 * x[:, 2] ** 4 * np.sin(x[:, 0])


ISHIGAMI = {"x1": tm.Uniform(-PI, PI), "x2": tm.Uniform(-PI, PI), "x3": tm.Uniform(-PI, PI)}
ISHIGAMI_PROBLEM = {"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-PI, PI]] * 3}


def salib_ishigami(n: int):
    from SALib.analyze import sobol as analyze
    from SALib.sample import sobol as sample

    x = sample.sample(ISHIGAMI_PROBLEM, n, calc_second_order=False, seed=0)
    return analyze.analyze(ISHIGAMI_PROBLEM, ishigami(x), calc_second_order=False, num_resamples=100, seed=0)


def lora_factors(scn: tm.Scenario) -> list:
    return list(tm.simulate(scn, samples=1).uncertain_inputs) + ["chance"]


def salib_scenario(scn: tm.Scenario, n: int, factors: list):
    from SALib.analyze import sobol as analyze
    from SALib.sample import sobol as sample

    problem = {"num_vars": len(factors), "names": factors, "bounds": [[0.0, 1.0]] * len(factors)}
    u = sample.sample(problem, n, calc_second_order=False, seed=0)
    # Uniforms strictly inside (0, 1), as the inverse CDFs expect (Sobol' points can be 0).
    u = np.clip(u, 2.0**-53, 1 - 2.0**-53)
    chance = np.floor(u[:, -1] * 2.0**53).astype(np.uint64)
    y = tm._core.evaluate_uniforms(scn._core, "run_cost_usd", 0, np.asfortranarray(u[:, :-1]), chance)
    return analyze.analyze(problem, y, calc_second_order=False, num_resamples=100, seed=0)


def best_of(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def timing_table(title: str, cases: list, repeats: int) -> list:
    """cases: (n, {label: fn}); returns Markdown lines."""
    lines = [
        f"### {title}",
        "",
        "| N (base samples) | evaluations | SALib (s) | tm, 1 thread (s) | tm, all threads (s) | speed-up, 1 thread | "
        "speed-up, all threads | other load |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    results = {}
    for fn in cases[0][1].values():  # untimed warm-up: imports, first-call costs
        fn()
    for n, fns, evaluations in cases:
        load = OtherLoad()
        best = {label: math.inf for label in fns}
        for _ in range(repeats):  # round robin: a disturbance spreads over every column
            for label, fn in fns.items():
                t, out = best_of(fn, 1)
                best[label] = min(best[label], t)
                results[(n, label)] = out
        other = load.cores()
        lines.append(
            f"| {n:,} | {evaluations:,} | {best['salib']:.3f} | {best['tm1']:.3f} | {best['tm']:.3f} | "
            f"{best['salib'] / best['tm1']:.1f}× | {best['salib'] / best['tm']:.1f}× | "
            f"{other if other is not None else float('nan'):.2f} |"
        )
        print(
            f"  {title}: N={n:,} SALib {best['salib']:.3f} s, tm1 {best['tm1']:.3f} s, tm {best['tm']:.3f} s",
            file=sys.stderr,
        )
    return lines + [""], results


def agreement(tm_frame, salib_result, factors) -> list:
    lines = [
        "| factor | tm S1 ± conf | SALib S1 ± conf | tm ST ± conf | SALib ST ± conf |",
        "|---|---:|---:|---:|---:|",
    ]
    for i, f in enumerate(factors):
        r = tm_frame.loc[f]
        lines.append(
            f"| {f} | {r.S1:.4f} ± {r.S1_conf:.4f} | {salib_result['S1'][i]:.4f} ± {salib_result['S1_conf'][i]:.4f}"
            f" | {r.ST:.4f} ± {r.ST_conf:.4f} | {salib_result['ST'][i]:.4f} ± {salib_result['ST_conf'][i]:.4f} |"
        )
    return lines + [""]


MEMORY_CODE = {
    "tm.sobol_function, Ishigami": (
        "import math, trnmodel as tm, numpy as np\n"
        "f = lambda x: np.sin(x[:,0]) + 7*np.sin(x[:,1])**2 + 0.1*x[:,2]**4*np.sin(x[:,0])\n"
        "u = tm.Uniform(-math.pi, math.pi)\n"
        "tm.sobol_function(f, {'x1': u, 'x2': u, 'x3': u}, base_samples=N)\n"
    ),
    "tm.sobol, LoRA trn2": (f"import trnmodel as tm\ntm.sobol(tm.Scenario.from_json({str(LORA)!r}), base_samples=N)\n"),
    "SALib sample + NumPy + analyze, Ishigami": (
        "import math, numpy as np, warnings\nwarnings.simplefilter('ignore')\n"
        "from SALib.sample import sobol as s\nfrom SALib.analyze import sobol as a\n"
        "p = {'num_vars': 3, 'names': ['x1','x2','x3'], 'bounds': [[-math.pi, math.pi]]*3}\n"
        "x = s.sample(p, N, calc_second_order=False, seed=0)\n"
        "y = np.sin(x[:,0]) + 7*np.sin(x[:,1])**2 + 0.1*x[:,2]**4*np.sin(x[:,0])\n"
        "a.analyze(p, y, calc_second_order=False, num_resamples=100, seed=0)\n"
    ),
}


def peak_rss_mb(code: str, n: int) -> tuple:
    """ru_maxrss (MB) and wall time of a fresh interpreter running `code` with N = n. Linux
    keeps ru_maxrss across execve, so the interpreter is forked by a small /bin/sh (not as its
    last command, so it cannot exec in place) and starts from the shell's few MB, not from
    this benchmark's high-water mark (as in bench_simulate.py)."""
    script = (
        "import resource, time\nN = %d\nt0 = time.perf_counter()\n%s"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, time.perf_counter() - t0)\n"
    ) % (n, code)
    out = subprocess.run(
        ["/bin/sh", "-c", '"$0" "$@"; exit $?', sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=str(ROOT / "bench"),
        timeout=1200,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    rss, seconds = out.stdout.split()[-2:]
    return float(rss), float(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--wait-s", type=float, default=300, help="wait up to this long for a quiet machine")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.quick else 3)
    warnings.simplefilter("ignore")  # SALib's FutureWarnings from pandas/NumPy are not ours to fix

    print("# Sobol indices: trnmodel against SALib\n")
    print(f"Command: `.venv/bin/python bench/bench_sensitivity.py{' --quick' if args.quick else ''}`\n")
    for line in [
        f"date (local): {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"python {platform.python_version()}, numpy {np.__version__}, SALib {importlib.metadata.version('SALib')}, "
        f"trnmodel {tm.__version__}",
        *machine_lines(),
    ]:
        print(f"- {line}")
    busy = wait_for_quiet(args.wait_s)
    print(f"- other processes before the timings: {busy:.2f} cores busy\n" if busy is not None else "")

    ishigami_n = [2**12, 2**14] if args.quick else [2**12, 2**14, 2**16, 2**18]
    cases = [
        (
            n,
            {
                "salib": lambda n=n: salib_ishigami(n),
                "tm1": lambda n=n: tm.sobol_function(ishigami, ISHIGAMI, base_samples=n, threads=1),
                "tm": lambda n=n: tm.sobol_function(ishigami, ISHIGAMI, base_samples=n),
            },
            5 * n,
        )
        for n in ishigami_n
    ]
    lines, results = timing_table("Ishigami (d = 3), with confidence intervals", cases, repeats)
    print("\n".join(lines))
    n = ishigami_n[-1]
    print(f"Indices at N = {n:,} (analytical S1 = 0.3139, 0.4424, 0; ST = 0.5576, 0.4424, 0.2437):\n")
    print("\n".join(agreement(results[(n, "tm")], results[(n, "salib")], ["x1", "x2", "x3"])))

    scn = tm.Scenario.from_json(LORA)
    factors = lora_factors(scn)
    lora_n = [2**10, 2**12] if args.quick else [2**10, 2**12, 2**14]
    d = len(factors)
    cases = [
        (
            n,
            {
                "salib": lambda n=n: salib_scenario(scn, n, factors),
                "tm1": lambda n=n: tm.sobol(scn, base_samples=n, threads=1),
                "tm": lambda n=n: tm.sobol(scn, base_samples=n),
            },
            (d + 2) * n,
        )
        for n in lora_n
    ]
    lines, results = timing_table(f"Llama-3-8B LoRA on Trn2, run_cost_usd (d = {d}: inputs + chance)", cases, repeats)
    print("\n".join(lines))
    n = lora_n[-1]
    frame = results[(n, "tm")]
    top = list(frame.sort_values("ST", ascending=False).index[:5])
    print(
        f"Top five factors by ST at N = {n:,} (different designs and random numbers: agreement within the intervals "
        "is expected):\n"
    )
    print(
        "\n".join(
            agreement(
                frame,
                {
                    k: [results[(n, "salib")][k][factors.index(f)] for f in top]
                    for k in ("S1", "S1_conf", "ST", "ST_conf")
                },
                top,
            )
        )
    )

    print("### Peak memory as N grows (fresh subprocess per row, ru_maxrss)\n")
    print("| run | N (base samples) | evaluations | peak RSS (MB) | run time (s) |")
    print("|---|---:|---:|---:|---:|")
    grid = {
        "tm.sobol_function, Ishigami": [2**10, 2**16] if args.quick else [2**10, 2**16, 2**20],
        "tm.sobol, LoRA trn2": [2**8, 2**12] if args.quick else [2**8, 2**12, 2**15],
        "SALib sample + NumPy + analyze, Ishigami": [2**10, 2**16] if args.quick else [2**10, 2**16, 2**18],
    }
    for label, ns in grid.items():
        per = d + 2 if "LoRA" in label else 5
        for n in ns:
            rss, seconds = peak_rss_mb(MEMORY_CODE[label], n)
            print(f"| {label} | {n:,} | {per * n:,} | {rss:.1f} | {seconds:.2f} |")
            print(f"  memory: {label} N={n:,}: {rss:.1f} MB", file=sys.stderr)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
