"""The error of extrapolated mode, measured on ground truth and fitted as a function of distance.

Extrapolated mode (docs/throughput.md) predicts the step time at a target configuration from one
measured at a reference configuration: predicted = measured_ref × model(target) / model(ref),
where model() is the library's analytic step time. This script does exactly that for pairs of
the 109 measured Megatron-DeepSpeed iteration times of bench/data/vtrain_ground_truth_multi.csv
(bench/data/README.md): each row is predicted from the measurement of ANOTHER row, and the log
error ln(measured_target / predicted_target) is collected with the pair's distance.

Model: the library's ``analytic_step_time`` with the efficiencies that bench/vtrain_validation.py
calibrates on its five stated rows (setting ``no_elementwise``, the library default). Since
ln(measured_t / predicted_t) = r_t − r_ref with r = ln(measured / model) per row, a common
efficiency cancels, and what remains is how much the model's *shape* of the step time across
configurations is wrong.

Spread model (docs/validation.md, "Extrapolation error", discusses the choice):

    sigma(log error) = s0 + s1·|ln(gpus_target / gpus_ref)| + s2·(changed degrees among tp, pp,
                       dp, micro-batch) + s3·(model size changed)

fitted by maximum likelihood of a zero-mean normal log error (the shipped factor is lognormal),
coefficients constrained ≥ 0, by a deterministic coarse-to-fine grid search (NumPy only).

Split by configuration, so no held-out pair shares a row with a fitting pair: rows with an even
0-based index fit, rows with an odd index are held out; a pair is a fitting pair when both rows
are even, a held-out pair when both are odd (pairs mixing the two are not used). Each unordered
pair is counted once (its two directions have the same |error| and the same distance).

Run:  .venv/bin/python bench/extrapolation_error.py [--csv PATH]
Prints the fitted coefficients (paste them into include/trnmodel/throughput/
extrapolation_error.hpp) and the held-out coverage of the 80 % and 50 % intervals.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pathlib
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import vtrain_validation as vt  # noqa: E402

Z90 = 1.2815515655446004  # standard normal 90th percentile: the 80 % interval is ±Z90·sigma
Z75 = 0.6744897501960817  # 75th percentile: the 50 % interval
TERMS = ("s0 (distance 0)", "s1 per |ln node ratio|", "s2 per changed degree", "s3 model size changed")
BOUNDS = ((0.0, 0.3), (0.0, 0.3), (0.0, 0.15), (0.0, 0.3))


def changed_degrees(a: vt.Row, b: vt.Row) -> int:
    return int(a.tp != b.tp) + int(a.pp != b.pp) + int(a.dp != b.dp) + int(a.micro_batch != b.micro_batch)


def features(a: vt.Row, b: vt.Row) -> Tuple[float, float, float, float]:
    """The distance terms of a (reference, target) pair, in the order of TERMS."""
    return (1.0, abs(math.log(b.gpus / a.gpus)), float(changed_degrees(a, b)), float(a.parameters_b != b.parameters_b))


def residuals(rows: Sequence[vt.Row], params: Dict) -> Dict[int, float]:
    """r = ln(measured / model) per row, keyed by row index."""
    return {r.index: math.log(r.measured_s / vt.predict(params, r)["step_time_s"]) for r in rows}


def pairs(rows: Sequence[vt.Row], res: Dict[int, float]) -> Tuple[np.ndarray, np.ndarray, List[Tuple[int, int]]]:
    """Features X (n × 4) and log errors e (n) of every unordered pair of `rows`."""
    X, e, ids = [], [], []
    for a, b in itertools.combinations(rows, 2):
        X.append(features(a, b))
        e.append(res[b.index] - res[a.index])  # ln(measured_b / (measured_a · model_b / model_a))
        ids.append((a.index, b.index))
    return np.array(X), np.array(e), ids


def negative_log_likelihood(sigma: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Of zero-mean normal errors e under spreads sigma (columns: candidate coefficient sets)."""
    return np.sum(np.log(sigma) + 0.5 * (e[:, None] / sigma) ** 2, axis=0)


def fit(X: np.ndarray, e: np.ndarray, points: int = 13, rounds: int = 7) -> np.ndarray:
    """Coefficients s (≥ 0, s0 > 0) maximising the normal likelihood of e with sigma = X @ s
    (X may have fewer columns than TERMS: the first ones)."""
    lo0 = np.array([b[0] for b in BOUNDS[: X.shape[1]]])
    hi0 = np.array([b[1] for b in BOUNDS[: X.shape[1]]])
    lo, hi = lo0.copy(), hi0.copy()
    best, best_nll = None, np.inf
    for _ in range(rounds):
        grids = [np.linspace(lo[k], hi[k], points) for k in range(X.shape[1])]
        cand = np.array(list(itertools.product(*grids))).T  # columns × m
        cand = cand[:, cand[0] > 1e-4]
        nll = negative_log_likelihood(X @ cand, e)
        k = int(np.argmin(nll))
        if nll[k] < best_nll:
            best_nll, best = float(nll[k]), cand[:, k].copy()
        span = (hi - lo) / 6
        lo, hi = np.maximum(best - span, lo0), np.minimum(best + span, hi0)
    assert best is not None
    return best


def coverage(X: np.ndarray, e: np.ndarray, s: np.ndarray, z: float) -> float:
    return float(np.mean(np.abs(e) <= z * (X @ s)))


def split(rows: Sequence[vt.Row]) -> Tuple[List[vt.Row], List[vt.Row]]:
    """Fitting rows (even index) and held-out rows (odd index)."""
    return [r for r in rows if r.index % 2 == 0], [r for r in rows if r.index % 2 == 1]


def run(rows: Sequence[vt.Row]) -> Dict:
    params = vt.calibrate(vt.calibration_rows(rows), "no_elementwise")
    res = residuals(rows, params)
    fit_rows, held_rows = split(rows)
    Xf, ef, _ = pairs(fit_rows, res)
    Xh, eh, _ = pairs(held_rows, res)
    s = fit(Xf, ef)
    return {"params": params, "s": s, "fit": (Xf, ef), "held": (Xh, eh), "fit_rows": fit_rows, "held_rows": held_rows}


def _groups(X: np.ndarray) -> Dict[str, np.ndarray]:
    same = X[:, 3] == 0
    return {"all pairs": np.ones(len(X), bool), "same model size": same, "different model size": ~same}


def report(out: Dict) -> None:
    p, s = out["params"], out["s"]
    fitted = {k: round(v, 4) for k, v in p.items() if isinstance(v, float) and k != "calibration_mape"}
    print(f"Step-time model: library analytic_step_time, no elementwise term, efficiencies {fitted}")
    print(f"Rows: {len(out['fit_rows'])} fitting (even index), {len(out['held_rows'])} held out (odd index)")
    print(
        "\nFitted sigma(log error) = s0 + s1·|ln(gpus_t/gpus_r)| + s2·(changed tp/pp/dp/micro-batch) + s3·(model changed)"
    )
    for name, v in zip(TERMS, s):
        print(f"  {name}: {v:.4f}")
    for title, (X, e) in (("fitting", out["fit"]), ("held-out", out["held"])):
        print(f"\n{title} pairs:\n\n| pairs | n | RMS log error | mean sigma | 80 % coverage | 50 % coverage |")
        print("|---|---:|---:|---:|---:|---:|")
        for g, m in _groups(X).items():
            if not m.any():
                continue
            print(
                f"| {g} | {int(m.sum())} | {np.sqrt(np.mean(e[m] ** 2)):.4f} | {np.mean(X[m] @ s):.4f} | "
                f"{coverage(X[m], e[m], s, Z90) * 100:.1f} % | {coverage(X[m], e[m], s, Z75) * 100:.1f} % |"
            )
    Xh, eh = out["held"]
    print("\nHeld-out RMS log error by number of changed degrees (same model size):\n")
    print("| changed degrees | n | RMS log error | sigma |\n|---:|---:|---:|---:|")
    same = Xh[:, 3] == 0
    for k in range(5):
        m = same & (Xh[:, 2] == k)
        if m.any():
            print(f"| {k} | {int(m.sum())} | {np.sqrt(np.mean(eh[m] ** 2)):.4f} | {np.mean(Xh[m] @ s):.4f} |")
    Xf, ef = out["fit"]
    c = fit(Xf[:, :1], ef)
    print("\nAgainst one constant spread (sigma = s0, fitted the same way on the fitting pairs):\n")
    print("| form | s | held-out mean −log-likelihood | held-out 80 % coverage: same size | other size |")
    print("|---|---|---:|---:|---:|")
    for name, X1, coef in (("distance form", Xh, s), ("constant", Xh[:, :1], c)):
        nll = float(negative_log_likelihood((X1 @ coef)[:, None], eh)[0]) / len(eh)
        cov = [coverage(X1[m], eh[m], coef, Z90) * 100 for m in (same, ~same)]
        print(f"| {name} | {np.round(coef, 4).tolist()} | {nll:.4f} | {cov[0]:.1f} % | {cov[1]:.1f} % |")
    print("\nFor include/trnmodel/throughput/extrapolation_error.hpp:")
    names = ("base", "per_log_node_ratio", "per_changed_degree", "model_changed")
    for n, v in zip(names, s):
        print(f"  inline constexpr double extrapolation_sigma_{n} = {v:.4f};")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", help=f"path to {vt.CSV_NAME}")
    args = ap.parse_args(argv)
    rows = vt.load_rows(args.csv)
    report(run(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
