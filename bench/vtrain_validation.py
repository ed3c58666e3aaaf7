"""Validation of the analytic step-time model (docs/throughput.md) against measured Megatron-DeepSpeed
GPT iteration times: VIA-Research/vTrain ``data/ground_truth_multi.csv`` (commit f8dda847,
MIT licence; 109 rows, 3.6B-175B parameters, 64-512 A100 GPUs, many TP/DP/PP layouts).

Every prediction is ``trnmodel._core.analytic_step_time``, i.e. the C++ library's
``analytic_step_time`` (include/trnmodel/throughput/step_time.hpp). This script only fixes the
inputs, fits at most three efficiency parameters and reports errors; it has no model of its own.

Method (docs/validation.md has the discussion):

1. The hardware is fixed from sources, not fitted: A100 SXM 312 TFLOPS BF16/FP16 dense,
   NVLink 300 GB/s per direction (docs/profiles.md), 8 GPUs per node and 800 Gbps of
   inter-node bandwidth per node = 12.5 GB/s per GPU per direction (vTrain's own validation
   configs, ``config/validation/multi/*.json``: ``node_size 8``, ``inter_node_bandwidth 800``
   [Gbps, "total bandwidth of inter-node communication", src/config.py]). Latencies are the
   modes of the shipped p4d.24xlarge profile (3 µs NVLink, 15 µs network; assumptions).
   HBM 2.039 TB/s (A100 80 GB; assumption, used only by the elementwise term, where it merely
   rescales the fitted multiple). The training setup is vTrain's: full activation
   recomputation (``use_checkpoint: true``), 1F1B schedule, no gradient bucketing
   (``use_gradient_bucket: false``, so dp_overlap = 0), no ZeRO, no interleaving.
2. At most three parameters are calibrated on FIVE rows chosen by a rule stated before any
   error was looked at (``CALIBRATION_RULE``): the first row, in file order, of each of the
   four model sizes, plus the first row whose tensor-parallel group spans two nodes (tp = 16 >
   8 GPUs per node; the only layout that sends tensor-parallel traffic over InfiniBand). The
   fit minimises the MAPE of those five rows by a deterministic coarse-to-fine grid search
   (NumPy only).
3. Every other row (104) is predicted and the mean absolute percentage error reported.

Two settings of the library's model are validated:

* ``no_elementwise``: ``elementwise_traffic = 0`` (the library default). Free parameters:
  compute_efficiency, intra_efficiency, inter_efficiency.
* ``elementwise``: the memory-bound elementwise term switched on, per micro-batch slot
  β · passes · (L/pp) · s·b·h·(10 + 24/t + 5·a·s/(h·t)) / HBM bandwidth (β =
  ``elementwise_traffic``). Free parameters: compute_efficiency, inter_efficiency and β;
  intra_efficiency fixed at 0.77 (8 × A100 all-reduce busbw 230.8 of 300 GB/s, nccl issue
  527, docs/profiles.md).

Both include what the library always does: the hierarchical all-reduce for a tensor-parallel
group larger than a node, and pipeline transfers partitioned over the tensor-parallel ranks.

Run:  .venv/bin/python bench/vtrain_validation.py                  both settings, per-row table
      .venv/bin/python bench/vtrain_validation.py --robustness 100 random 5-row calibrations
      --csv PATH (or TRNMODEL_VTRAIN_CSV) if the reference data is elsewhere.
Only numpy and trnmodel are needed (no scipy).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import pathlib
import sys
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from trnmodel import _core

ROOT = pathlib.Path(__file__).resolve().parents[1]
CSV_NAME = "vtrain_ground_truth_multi.csv"
CSV_ENV = "TRNMODEL_VTRAIN_CSV"
# Shipped with the project (bench/data/README.md gives its source and licence).
CSV_CANDIDATES = (ROOT / "bench" / "data" / CSV_NAME,)
EXPECTED_ROWS = 109

# --- fixed platform and training setup (sources in the module docstring) -------------------
PEAK_TFLOPS = 312.0  # A100 SXM dense BF16/FP16
INTRA_GB_S = 300.0  # NVLink, per GPU per direction (600 GB/s total)
INTRA_LATENCY_US = 3.0  # assumption: p4d.24xlarge profile mode
INTER_GB_S = 800 / 8 / 8  # 800 Gbps per node / 8 bits / 8 GPUs = 12.5 GB/s per GPU per direction
INTER_LATENCY_US = 15.0  # assumption: p4d.24xlarge profile mode
CHIPS_PER_NODE = 8
HBM_TB_S = 2.039  # A100 80 GB; only rescales β (the fitted product β/HBM is what matters)
FIXED_INTRA_EFFICIENCY = 0.77  # nccl issue 527 (elementwise setting only)
RECOMPUTE = "full"  # vTrain validation configs: use_checkpoint = true
DP_OVERLAP = 0.0  # use_gradient_bucket = false: gradient all-reduce after the backward pass
ZERO_STAGE = 0
VIRTUAL_STAGES = 1  # pipeline_scheduling "1f1b", no interleaving

MODELS = ("no_elementwise", "elementwise")
TITLES = {"no_elementwise": "library (no elementwise term)", "elementwise": "library with the elementwise term"}

CALIBRATION_RULE = (
    "the first row, in file order, of each of the four model sizes (3.6B, 18.4B, 39.1B, "
    "175B), plus the first row whose tensor-parallel group spans two nodes (tp = 16)"
)

BOUNDS = {
    "compute_efficiency": (0.02, 1.0),
    "intra_efficiency": (0.02, 1.0),
    "inter_efficiency": (0.02, 1.0),
    "elementwise_traffic": (0.0, 8.0),
}


@dataclass(frozen=True)
class Row:
    index: int  # 0-based data row of the CSV (file line = index + 2)
    parameters_b: float  # N, billions
    gpus: int
    global_batch: int
    micro_batch: int
    hidden_size: int
    heads: int
    layers: int
    sequence_length: int
    tp: int
    dp: int
    pp: int
    measured_s: float

    @property
    def label(self) -> str:
        return f"{self.parameters_b:g}B tp{self.tp} dp{self.dp} pp{self.pp} mb{self.micro_batch}"

    @property
    def micro_batches(self) -> float:
        return self.global_batch / (self.dp * self.micro_batch)

    @property
    def parallelism(self) -> str:
        """Layout class used in the error breakdown."""
        if self.tp > CHIPS_PER_NODE:
            return "TP across nodes (tp16) + DP"
        if self.pp == 1:
            return "DP only" if self.tp == 1 else "TP (in node) + DP"
        return "PP + DP" if self.tp == 1 else "TP + PP + DP (3D)"


def find_csv(path: Optional[os.PathLike] = None) -> Optional[pathlib.Path]:
    candidates = [pathlib.Path(path)] if path else []
    if os.environ.get(CSV_ENV):
        candidates.append(pathlib.Path(os.environ[CSV_ENV]))
    candidates.extend(CSV_CANDIDATES)
    for c in candidates:
        if c.is_file():
            return c
    return None


def load_rows(path: Optional[os.PathLike] = None) -> List[Row]:
    found = find_csv(path)
    if found is None:
        raise FileNotFoundError(f"{CSV_NAME} not found; pass --csv or set {CSV_ENV}")
    rows = []
    with open(found, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header[0].startswith("Parameters") and header[-1].startswith("iteration time"), header
        for i, rec in enumerate(reader):
            v = [float(x) for x in rec]
            rows.append(
                Row(
                    i,
                    v[0],
                    int(v[1]),
                    int(v[2]),
                    int(v[3]),
                    int(v[4]),
                    int(v[5]),
                    int(v[6]),
                    int(v[7]),
                    int(v[8]),
                    int(v[9]),
                    int(v[10]),
                    v[11] / 1000.0,
                )
            )
    for r in rows:
        assert r.tp * r.dp * r.pp == r.gpus, r
    return rows


def calibration_rows(rows: Sequence[Row]) -> List[Row]:
    """CALIBRATION_RULE, applied to the rows in file order."""
    chosen, sizes = [], set()
    for r in rows:
        if r.parameters_b not in sizes:
            sizes.add(r.parameters_b)
            chosen.append(r)
    chosen.append(next(r for r in rows if r.tp > CHIPS_PER_NODE))
    return chosen


def free_parameters(model: str) -> Tuple[str, ...]:
    if model == "no_elementwise":
        return ("compute_efficiency", "intra_efficiency", "inter_efficiency")
    if model == "elementwise":
        return ("compute_efficiency", "inter_efficiency", "elementwise_traffic")
    raise ValueError(f"model must be one of {MODELS}, got {model!r}")


# --- the library's model ---------------------------------------------------------------------

PARTS = ("compute_s", "tp_comm_s", "pp_bubble_s", "pp_p2p_s", "dp_comm_s")


def library_step_time(
    row: Row,
    compute_efficiency: float,
    intra_efficiency: float,
    inter_efficiency: float,
    elementwise_traffic: Optional[float] = None,
) -> Dict[str, float]:
    """``trnmodel._core.analytic_step_time`` for one row. ``elementwise_traffic=None`` omits the
    optional arguments (``hbm_tb_s`` and ``elementwise_traffic``) altogether."""
    args = dict(
        parameters=row.parameters_b * 1e9,
        layers=row.layers,
        hidden_size=row.hidden_size,
        heads=row.heads,
        sequence_length=row.sequence_length,
        ffn_size=0.0,
        lora=False,
        lora_rank=0.0,
        recompute=RECOMPUTE,
        tp=row.tp,
        pp=row.pp,
        dp=row.dp,
        micro_batch=row.micro_batch,
        global_batch=row.global_batch,
        virtual_stages=VIRTUAL_STAGES,
        zero_stage=ZERO_STAGE,
        peak_tflops=PEAK_TFLOPS,
        intra_gb_s=INTRA_GB_S,
        intra_latency_us=INTRA_LATENCY_US,
        intra_efficiency=intra_efficiency,
        inter_gb_s=INTER_GB_S,
        inter_latency_us=INTER_LATENCY_US,
        inter_efficiency=inter_efficiency,
        chips_per_domain=CHIPS_PER_NODE,
        compute_efficiency=compute_efficiency,
        dp_overlap=DP_OVERLAP,
    )
    if elementwise_traffic is None:
        return step_parts(_core.analytic_step_time(**args))
    return step_parts(_core.analytic_step_time(**args, hbm_tb_s=HBM_TB_S, elementwise_traffic=elementwise_traffic))


_PARTS = ("step_time_s", "compute_s", "tp_comm_s", "pp_bubble_s", "pp_p2p_s", "dp_comm_s", "cp_comm_s", "memory_bytes")


def step_parts(step: "_core.AnalyticStep") -> Dict[str, float]:
    """The step's parts by name (the tables below index them so)."""
    return {name: getattr(step, name) for name in _PARTS}


def predict(params: Dict, row: Row) -> Dict[str, float]:
    """Predicted step-time parts (seconds) for one row. ``params`` as returned by calibrate()."""
    return library_step_time(
        row,
        params["compute_efficiency"],
        params["intra_efficiency"],
        params["inter_efficiency"],
        params.get("elementwise_traffic", 0.0),
    )


def elementwise_seconds(params: Dict, row: Row) -> float:
    """The elementwise term's share of ``compute_s``: the library's compute_s with β minus
    without it (the binding does not report the term separately)."""
    beta = params.get("elementwise_traffic", 0.0)
    if beta == 0:
        return 0.0
    without = {**params, "elementwise_traffic": 0.0}
    return predict(params, row)["compute_s"] - predict(without, row)["compute_s"]


def relative_errors(params: Dict, rows: Iterable[Row]) -> np.ndarray:
    """(predicted − measured) / measured for each row."""
    return np.array([predict(params, r)["step_time_s"] / r.measured_s - 1.0 for r in rows])


def mape(measured: Sequence[float], predicted: Sequence[float]) -> float:
    """Mean absolute percentage error, in percent."""
    measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
    return float(np.mean(np.abs(predicted - measured) / measured) * 100.0)


def rows_mape(params: Dict, rows: Sequence[Row]) -> float:
    return mape([r.measured_s for r in rows], [predict(params, r)["step_time_s"] for r in rows])


def calibrate(rows: Sequence[Row], model: str = "no_elementwise", points: int = 15, rounds: int = 6) -> Dict:
    """Fit the model's (at most three) free parameters to ``rows`` by minimising their MAPE.

    Deterministic coarse-to-fine grid search: ``points`` values per parameter over its bounds,
    then ``rounds − 1`` times a new grid of ±1/7 of the previous span around the best point,
    clipped to the bounds. Returns the parameters as a dict usable by predict().
    """
    names = free_parameters(model)
    base = {"model": model}
    if "intra_efficiency" not in names:
        base["intra_efficiency"] = FIXED_INTRA_EFFICIENCY
    lo0 = np.array([BOUNDS[n][0] for n in names])
    hi0 = np.array([BOUNDS[n][1] for n in names])
    lo, hi = lo0.copy(), hi0.copy()
    best_err, best = np.inf, None
    for _ in range(rounds):
        grids = [np.linspace(lo[k], hi[k], points) for k in range(len(names))]
        for values in itertools.product(*grids):
            if any(v <= 0 for n, v in zip(names, values) if n.endswith("efficiency")):
                continue
            p = {**base, **dict(zip(names, (float(v) for v in values)))}
            e = rows_mape(p, rows)
            if e < best_err - 1e-12:
                best_err, best = e, p
        centre = np.array([best[n] for n in names])
        span = (hi - lo) / 7
        lo, hi = np.maximum(centre - span, lo0), np.minimum(centre + span, hi0)
    best = dict(best)
    best["calibration_mape"] = best_err
    best["calibration_rows"] = [r.index for r in rows]
    return best


# --- reporting -------------------------------------------------------------------------------


def validate(rows: Sequence[Row], model: str) -> Dict:
    cal = calibration_rows(rows)
    params = calibrate(cal, model)
    held = [r for r in rows if r.index not in set(params["calibration_rows"])]
    err = relative_errors(params, held)
    return {
        "params": params,
        "calibration": cal,
        "held_out": held,
        "errors": err,
        "mape": float(np.mean(np.abs(err)) * 100),
        "median_ape": float(np.median(np.abs(err)) * 100),
    }


def _breakdown(held: Sequence[Row], err: np.ndarray, key) -> List[Tuple[str, int, float, float]]:
    groups: Dict[str, List[float]] = {}
    for r, e in zip(held, err):
        groups.setdefault(key(r), []).append(e)
    return [(k, len(v), float(np.mean(np.abs(v)) * 100), float(np.mean(v) * 100)) for k, v in groups.items()]


def print_report(rows: Sequence[Row], result: Dict, per_row: bool = True) -> None:
    p = result["params"]
    print(f"\n## {TITLES[p['model']]}\n")
    print(f"Calibration rule: {CALIBRATION_RULE}.")
    print(
        "Calibration rows (0-based data row, file line = +2): "
        + "; ".join(f"#{r.index} {r.label} {r.measured_s * 1000:.1f} ms" for r in result["calibration"])
    )
    fitted = {k: round(v, 4) for k, v in p.items() if isinstance(v, float) and k != "calibration_mape"}
    print(f"Fitted: {fitted}; calibration-row MAPE {p['calibration_mape']:.2f}%")
    print(
        f"Held-out rows: {len(result['held_out'])}; MAPE {result['mape']:.2f}%, median APE {result['median_ape']:.2f}%"
    )
    cal_idx = set(p["calibration_rows"])
    if per_row:
        print(
            "\n| row | model | layout | measured ms | predicted ms | error % | compute s | (of it elementwise) "
            "| tp s | bubble s | p2p s | dp s |"
        )
        print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            d = predict(p, r)
            e = (d["step_time_s"] / r.measured_s - 1) * 100
            tag = " (cal)" if r.index in cal_idx else ""
            print(
                f"| {r.index}{tag} | {r.parameters_b:g}B | tp{r.tp} dp{r.dp} pp{r.pp} mb{r.micro_batch} | "
                f"{r.measured_s * 1000:.1f} | {d['step_time_s'] * 1000:.1f} | {e:+.1f} | {d['compute_s']:.2f} | "
                f"{elementwise_seconds(p, r):.2f} | " + " | ".join(f"{d[k]:.2f}" for k in PARTS[1:]) + " |"
            )
    held, err = result["held_out"], result["errors"]
    for name, key in (("model size", lambda r: f"{r.parameters_b:g}B"), ("parallelism", lambda r: r.parallelism)):
        print(f"\nHeld-out MAPE by {name}:\n\n| {name} | rows | MAPE % | mean signed error % |\n|---|---:|---:|---:|")
        for k, n, m, b in _breakdown(held, err, key):
            print(f"| {k} | {n} | {m:.1f} | {b:+.1f} |")
    order = np.argsort(-np.abs(err))[:10]
    print("\nWorst held-out rows:\n\n| row | layout | measured ms | error % |\n|---:|---|---:|---:|")
    for i in order:
        r = held[i]
        print(f"| {r.index} | {r.label} | {r.measured_s * 1000:.1f} | {err[i] * 100:+.1f} |")


def robustness(rows: Sequence[Row], draws: int, seed: int = 0) -> None:
    """Held-out MAPE when the five calibration rows are drawn at random instead of by the rule."""
    rng = np.random.default_rng(seed)
    out: Dict[str, List[float]] = {TITLES[m]: [] for m in MODELS}
    for _ in range(draws):
        idx = set(int(i) for i in rng.choice(len(rows), size=5, replace=False))
        cal = [r for r in rows if r.index in idx]
        held = [r for r in rows if r.index not in idx]
        for model in MODELS:
            p = calibrate(cal, model, points=11, rounds=5)
            out[TITLES[model]].append(rows_mape(p, held))
    print(f"\n## Robustness: {draws} random 5-row calibration sets (seed {seed})\n")
    print("| model | p10 | median | p90 | max | share ≤ 12% |\n|---|---:|---:|---:|---:|---:|")
    for name, v in out.items():
        v = np.array(v)
        print(
            f"| {name} | {np.quantile(v, 0.1):.1f} | {np.median(v):.1f} | {np.quantile(v, 0.9):.1f} | "
            f"{v.max():.1f} | {np.mean(v <= 12) * 100:.0f}% |"
        )


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", help=f"path to {CSV_NAME} (default: ${CSV_ENV} or bench/data/)")
    ap.add_argument("--model", choices=list(MODELS) + ["both"], default="both")
    ap.add_argument("--no-rows", action="store_true", help="omit the per-row table")
    ap.add_argument("--robustness", type=int, default=0, metavar="N", help="N random 5-row calibrations")
    args = ap.parse_args(argv)
    rows = load_rows(args.csv)
    if len(rows) != EXPECTED_ROWS:
        print(f"warning: {len(rows)} rows, expected {EXPECTED_ROWS}", file=sys.stderr)
    models = list(MODELS) if args.model == "both" else [args.model]
    summary = []
    for model in models:
        res = validate(rows, model)
        print_report(rows, res, per_row=not args.no_rows)
        summary.append((model, res["mape"]))
    if args.robustness:
        robustness(rows, args.robustness)
    print(
        "\n"
        + "; ".join(f"{TITLES[m]}: held-out MAPE {v:.2f}%" for m, v in summary)
        + " (vTrain's profiling simulator: 14.73%; target 12%)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
