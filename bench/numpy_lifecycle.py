"""An independent NumPy implementation of the trnmodel lifecycle simulator (docs/scenario.md, docs/metrics.md).

This is the peer that ``bench/bench_simulate.py`` times ``tm.simulate`` against and that
``tests/python/test_independent_numpy.py`` checks it with. It is written the way a competent
NumPy user would write it, from the design document and not from the C++ code:

* every input is drawn with NumPy's own samplers on one ``numpy.random.Generator``
  (``lognormal`` with mu/sigma from p50/p90, ``beta`` rescaled for PERT and ranged beta,
  ``triangular``, ``gamma``, ``weibull * scale``, ``uniform``, ``normal``, ``exponential``;
  empirical inputs are ``np.quantile`` of the measured values at uniform draws, linear
  interpolation between order statistics);
* a normal with ``lo``/``hi`` is truncated (renormalised), drawn by rejection: out-of-range
  draws are redrawn until every sample is inside. Clipping would put mass on the bounds and
  change the mean, so it is not used;
* the work that every sample completes is closed form (the phases of successful attempts do
  not depend on failures: ``useful_h = S·t``, ``stall_h = S·(t_eff − t)``, ``eval_h = S·e +
  final``, saves = segments · C, ``rerun_h = redo · (t_eff + e)``);
* the failure process is vectorized over samples: one loop per group of identical segments
  and one per recovery, each iteration working on the index set of the samples that still
  have a failure to handle (boolean masks compress it), so the number of iterations is the
  largest number of failures in any one sample, not the number of segments or steps.

Semantics (docs/lifecycle.md, with the conventions trnmodel's C++ simulator documents): effective
steps ``S = max(1, ceil(drawn))``; ``checkpoint.every_steps`` and ``compile.planned_changes``
rounded to the nearest integer, halves away from zero (as ``std::round``; ``np.round`` rounds
halves to even and is not used); ``k`` with ``0 < k < S`` gives ``ceil(S/k)`` segments, all
of ``k`` steps but the last, otherwise one segment of ``S`` steps; a segment lasts
``steps·(t_eff + e) + C``, the last one of a run without ``C`` when ``checkpoint.final`` is
false; failures arrive at rate ``λ = nodes / (node_mtbf_h·3600)`` per second of exposed time,
times between failures are i.i.d. exponential (mean 1/λ) or Weibull (given shape, mean 1/λ),
renewed at each failure, the first one drawn when the first segment starts; a failure loses
the time since its attempt began; a recovery is restart + compile (cache hit with
probability ``cache_hit_prob``: ``cache_load_s``, else ``recompile_s``, drawn per attempt) +
``checkpoint.load_s`` + ``failures.warmup_s``, exposed only when ``during_recovery``; an
interrupted recovery is lost entirely and starts again with a new cache draw. Planned
changes cost one ``recompile_s`` each (not exposed). The quality gate is checked once: with
probability ``rerun_prob``, ``ceil(rerun_fraction·S)`` steps are redone as further segments
under the same rules. Then ``eval.final_s``.

Usage::

    from numpy_lifecycle import simulate_numpy
    out = simulate_numpy("examples/llama3-8b-lora-trn2.json", samples=100_000, seed=0)
    out["wall_h"].mean()

The scenario may be a path, a JSON dict (the scenario format v1) or any object with a
``to_dict()`` method (``tm.Scenario``); trnmodel itself is not imported.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, Optional, Union

import numpy as np

Z90 = 1.2815515655446004  # standard normal quantile at 0.9

#: Metric names, in docs/metrics.md order.
METRICS = [
    "queue_h",
    "setup_h",
    "compile_h",
    "warmup_h",
    "useful_h",
    "stall_h",
    "eval_h",
    "checkpoint_h",
    "lost_h",
    "recovery_h",
    "rerun_h",
    "transition_h",
    "wall_h",
    "billed_h",
    "node_h",
    "goodput",
    "failures",
    "recompiles",
    "restore_fallbacks",
    "cost_compute_usd",
    "cost_storage_usd",
    "cost_transfer_usd",
    "cost_logs_usd",
    "run_cost_usd",
    "adaptation_usd",
    "total_cost_usd",
    "useful_step_cost_usd",
    "lifecycle_cost_per_step_usd",
]
PHASES = METRICS[:12]

# Defaults of the optional quantities (docs/scenario.md). None: absent.
QUANTITY_DEFAULTS = {
    "job.effective_steps": None,
    "throughput.step_time_s": None,
    "throughput.data_stall_fraction": 0.0,
    "startup.queue_wait_s": 0.0,
    "startup.env_prep_s": 0.0,
    "startup.data_load_s": 0.0,
    "compile.initial_s": 0.0,
    "compile.recompile_s": 0.0,
    "compile.cache_load_s": 0.0,
    "compile.cache_hit_prob": 1.0,
    "compile.planned_changes": 0.0,
    "checkpoint.every_steps": 0.0,
    "checkpoint.save_s": 0.0,
    "checkpoint.verify_s": 0.0,
    "checkpoint.load_s": 0.0,
    "checkpoint.size_gb": 0.0,
    "checkpoint.restore_fail_prob": 0.0,
    "eval.every_steps": 0.0,
    "eval.time_s": 0.0,
    "eval.final_s": 0.0,
    "failures.node_mtbf_h": None,  # absent: no failures
    "failures.weibull_shape": 1.0,
    "failures.restart_s": 0.0,
    "failures.warmup_s": 0.0,
    "quality.rerun_prob": 0.0,
    "quality.rerun_fraction": 0.0,
    "prices.node_hour_usd": None,  # absent: costs unknown (NaN)
    "prices.storage_gb_month_usd": 0.0,
    "prices.transfer_gb_usd": 0.0,
    "prices.logs_gb_usd": 0.0,
    "data.dataset_gb": 0.0,
    "data.transfer_gb": 0.0,
    "data.logs_gb_per_hour": 0.0,
    "engineering.adaptation_h": 0.0,
    "engineering.rate_usd_per_h": 0.0,
}
SETTING_DEFAULTS = {
    "cluster.nodes": None,
    "checkpoint.keep_last": 1,
    "startup.queue_billed": False,
    "checkpoint.final": True,
    "failures.during_recovery": True,
    "failures.distribution": "exponential",
}

# A sample whose attempts would need more failures than this on average before one completes
# cannot finish; refuse it rather than loop for ever.
MAX_EXPECTED_FAILURES_PER_ATTEMPT = 1e4

Quantity = Union[float, np.ndarray]


# ------------------------------------------------------------------------------------------
# Scenario access
# ------------------------------------------------------------------------------------------


def _scenario_dict(scenario: Any) -> dict:
    if isinstance(scenario, dict):
        return scenario
    if hasattr(scenario, "to_dict"):
        return scenario.to_dict()
    if isinstance(scenario, (str, os.PathLike)):
        text = str(scenario)
        if not text.lstrip().startswith("{"):
            with open(text) as fh:
                text = fh.read()
        return json.loads(text)
    raise TypeError(
        f"scenario: expected a path, JSON text, dict or object with to_dict(), got {type(scenario).__name__}"
    )


def _lookup(d: dict, path: str) -> Any:
    node: Any = d
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


# ------------------------------------------------------------------------------------------
# Sampling one quantity with NumPy's samplers
# ------------------------------------------------------------------------------------------


def _truncated_normal(rng: np.random.Generator, mean: float, sd: float, lo: float, hi: float, n: int) -> np.ndarray:
    """Normal(mean, sd) conditioned on [lo, hi]: rejection (redraw the samples outside)."""
    x = rng.normal(mean, sd, n)
    bad = np.flatnonzero((x < lo) | (x > hi))
    while bad.size:
        y = rng.normal(mean, sd, bad.size)
        x[bad] = y
        bad = bad[(y < lo) | (y > hi)]
    return x


def sample_quantity(rng: np.random.Generator, spec: Any, n: int) -> Quantity:
    """``n`` draws of one quantity (a Python float when it is constant; NaN when unknown)."""
    if spec is None:
        raise ValueError("absent quantity without a default")
    if isinstance(spec, bool):
        return float(spec)
    if isinstance(spec, (int, float)):
        return float(spec)
    if not isinstance(spec, dict):
        raise TypeError(f"not a quantity: {spec!r}")
    if "unknown" in spec:
        return math.nan
    kind = spec["dist"]
    if kind == "fixed":
        return float(spec["value"])
    if kind == "uniform":
        return rng.uniform(spec["lo"], spec["hi"], n)
    if kind == "normal":
        lo, hi = spec.get("lo", -math.inf), spec.get("hi", math.inf)
        if math.isinf(lo) and math.isinf(hi):
            return rng.normal(spec["mean"], spec["sd"], n)
        return _truncated_normal(rng, spec["mean"], spec["sd"], lo, hi, n)
    if kind == "lognormal":
        if "p50" in spec:
            mu = math.log(spec["p50"])
            sigma = math.log(spec["p90"] / spec["p50"]) / Z90
        else:
            mu, sigma = spec["mu"], spec["sigma"]
        return rng.lognormal(mu, sigma, n)
    if kind == "triangular":
        return rng.triangular(spec["lo"], spec["mode"], spec["hi"], n)
    if kind == "pert":
        lo, mode, hi = spec["lo"], spec["mode"], spec["hi"]
        a = 1 + 4 * (mode - lo) / (hi - lo)
        b = 1 + 4 * (hi - mode) / (hi - lo)
        return lo + (hi - lo) * rng.beta(a, b, n)
    if kind == "gamma":
        return rng.gamma(spec["shape"], spec["scale"], n)
    if kind == "weibull":
        return spec["scale"] * rng.weibull(spec["shape"], n)
    if kind == "exponential":
        return rng.exponential(spec["mean"], n)
    if kind == "beta":
        x = rng.beta(spec["a"], spec["b"], n)
        if "lo" in spec or "hi" in spec:
            lo, hi = spec.get("lo", 0.0), spec.get("hi", 1.0)
            x = lo + (hi - lo) * x
        return x
    if kind == "bernoulli":
        return (rng.random(n) < spec["p"]).astype(np.float64)
    if kind == "empirical":
        return np.quantile(np.asarray(spec["samples"], dtype=np.float64), rng.random(n))
    raise ValueError(f"unsupported distribution {kind!r}")


def _round_half_away(x: Quantity) -> Quantity:
    """std::round for the non-negative values used here (np.round rounds halves to even)."""
    f = np.floor(x)
    return np.where(x - f >= 0.5, f + 1, f) if isinstance(x, np.ndarray) else float(f + 1 if x - f >= 0.5 else f)


def _take(x: Quantity, idx: np.ndarray) -> Quantity:
    return x[idx] if isinstance(x, np.ndarray) else x


def _gamma_fn(x: Quantity) -> Quantity:
    if isinstance(x, np.ndarray):
        try:
            from scipy.special import gamma

            return gamma(x)
        except ImportError:  # pragma: no cover
            return np.frompyfunc(math.gamma, 1, 1)(x).astype(np.float64)
    return math.gamma(x)


# ------------------------------------------------------------------------------------------
# The simulator
# ------------------------------------------------------------------------------------------


def draw_inputs(scenario: Any, samples: int, rng: np.random.Generator) -> dict:
    """Every quantity of docs/scenario.md drawn ``samples`` times (floats for constants), plus the
    settings. Absent MTBF: ``failures.node_mtbf_h`` is None; absent price: NaN."""
    d = _scenario_dict(scenario)
    x: Dict[str, Any] = {}
    for path, default in QUANTITY_DEFAULTS.items():
        spec = _lookup(d, path)
        if spec is None:
            if path == "failures.node_mtbf_h":
                x[path] = None
                continue
            if path == "prices.node_hour_usd":
                x[path] = math.nan
                continue
            if default is None:
                raise ValueError(f"{path}: required")
            spec = default
        x[path] = sample_quantity(rng, spec, samples)
    for path, default in SETTING_DEFAULTS.items():
        value = _lookup(d, path)
        if value is None:
            if default is None:
                raise ValueError(f"{path}: required")
            value = default
        x[path] = value
    return x


class _FailureProcess:
    """Per-sample state of the failure renewal process and the accounts it feeds."""

    def __init__(self, x: dict, n: int, rng: np.random.Generator) -> None:
        self.rng = rng
        self.n = n
        nodes = float(x["cluster.nodes"])
        mtbf = x["failures.node_mtbf_h"]
        self.enabled = mtbf is not None
        self.weibull = x["failures.distribution"] == "weibull"
        self.during_recovery = bool(x["failures.during_recovery"])
        self.rate = nodes / (mtbf * 3600.0) if self.enabled else 0.0
        if self.enabled and self.weibull:
            self.shape = x["failures.weibull_shape"]
            self.scale = 1.0 / (self.rate * _gamma_fn(1.0 + 1.0 / self.shape))
        self.restart = x["failures.restart_s"]
        self.load = x["checkpoint.load_s"]
        self.warmup = x["failures.warmup_s"]
        self.hit_prob = x["compile.cache_hit_prob"]
        self.cache_load = x["compile.cache_load_s"]
        self.recompile = x["compile.recompile_s"]
        # accounts, seconds (counts for failures / recompiles)
        self.lost = np.zeros(n)
        self.recovery = np.zeros(n)
        self.compile = np.zeros(n)
        self.warm = np.zeros(n)
        self.failures = np.zeros(n)
        self.recompiles = np.zeros(n)
        # time to the next failure, in exposed seconds; drawn when the first segment starts
        self.ttf = self.draw_ttf(np.arange(n)) if self.enabled else None

    def draw_ttf(self, idx: np.ndarray) -> np.ndarray:
        if self.weibull:
            return _take(self.scale, idx) * self.rng.weibull(_take(self.shape, idx), idx.size)
        return self.rng.exponential(1.0, idx.size) / _take(self.rate, idx)

    def _check_finishable(self, idx: np.ndarray, duration: Quantity, what: str) -> None:
        if idx.size == 0:
            return
        expected = np.expm1(_take(self.rate, idx) * duration)
        if np.any(expected > MAX_EXPECTED_FAILURES_PER_ATTEMPT):
            raise ValueError(
                f"failures.node_mtbf_h: a {what} would need more than "
                f"{MAX_EXPECTED_FAILURES_PER_ATTEMPT:g} failures on average before it completes"
            )

    def run_segments(self, idx: np.ndarray, count: Quantity, duration: Quantity) -> None:
        """``count`` identical segments of ``duration`` seconds each (arrays aligned with
        ``idx``, or scalars) for the samples ``idx``, in order; failures and recoveries."""
        if not self.enabled or idx.size == 0:
            return
        count = np.broadcast_to(np.asarray(count, dtype=np.float64), idx.shape).copy()
        duration = np.broadcast_to(np.asarray(duration, dtype=np.float64), idx.shape)
        keep = count > 0
        idx, count, duration = idx[keep], count[keep], duration[keep]
        self._check_finishable(idx, duration, "checkpoint segment")
        while idx.size:
            ttf = self.ttf[idx]
            # segments that end before the next failure all complete
            with np.errstate(invalid="ignore", divide="ignore"):
                done = np.minimum(count, np.floor(ttf / duration))
            ttf = ttf - done * duration
            count -= done
            self.ttf[idx] = ttf
            failing = count > 0
            idx, count, duration = idx[failing], count[failing], duration[failing]
            if not idx.size:
                break
            # the next attempt fails after ttf seconds: all of it is lost
            self.lost[idx] += self.ttf[idx]
            self.failures[idx] += 1
            self.recover(idx)

    def recover(self, idx: np.ndarray) -> None:
        """Rule 5 for the samples ``idx`` (each has just failed)."""
        while idx.size:
            self.ttf[idx] = self.draw_ttf(idx)  # renewal at the failure
            hit = self.rng.random(idx.size) < _take(self.hit_prob, idx)
            compile_s = np.where(hit, _take(self.cache_load, idx), _take(self.recompile, idx))
            restart, load, warmup = _take(self.restart, idx), _take(self.load, idx), _take(self.warmup, idx)
            duration = restart + compile_s + load + warmup
            if self.during_recovery:
                self._check_finishable(idx, duration, "recovery")
                ttf = self.ttf[idx]
                cut = ttf < duration
                # interrupted recoveries: lost, a failure, and again from scratch
                bad = idx[cut]
                self.lost[bad] += ttf[cut]
                self.failures[bad] += 1
                ok = ~cut
                self.ttf[idx[ok]] = ttf[ok] - duration[ok]
            else:  # recoveries are not exposed: the clock to the next failure waits
                cut = np.zeros(idx.size, dtype=bool)
                ok = ~cut
            good = idx[ok]
            self.recovery[good] += _take(restart + load, ok)
            self.compile[good] += compile_s[ok]
            self.warm[good] += _take(warmup, ok)
            self.recompiles[good] += ~hit[ok]
            idx = idx[cut]


def _segments(steps: np.ndarray, every: Quantity):
    """(number of full segments of ``every`` steps, steps of the last segment) per sample."""
    every = np.broadcast_to(np.asarray(every, dtype=np.float64), steps.shape)
    split = (every > 0) & (every < steps)
    with np.errstate(invalid="ignore", divide="ignore"):
        full = np.where(split, np.ceil(steps / np.where(split, every, 1.0)) - 1, 0.0)
    last = steps - full * every
    last = np.where(split, last, steps)
    return full, last


def simulate_numpy(
    scenario: Any, samples: int = 100_000, seed: Optional[int] = 0, rng: Optional[np.random.Generator] = None
) -> Dict[str, np.ndarray]:
    """Simulate the scenario's lifecycle ``samples`` times; returns {metric: array}."""
    n = int(samples)
    rng = rng if rng is not None else np.random.default_rng(seed)
    x = draw_inputs(scenario, n, rng)
    if np.any(np.asarray(x["checkpoint.restore_fail_prob"]) > 0) or "stages" in _scenario_dict(scenario):
        raise ValueError("simulate_numpy: restore checks and stages are not modelled here (simulate_restore_numpy)")

    steps = np.maximum(1.0, np.ceil(np.broadcast_to(x["job.effective_steps"], (n,)).astype(np.float64)))
    t = x["throughput.step_time_s"]
    t_eff = t / (1.0 - x["throughput.data_stall_fraction"])
    every_eval = x["eval.every_steps"]
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.where(
            np.asarray(every_eval) > 0, x["eval.time_s"] / np.where(np.asarray(every_eval) > 0, every_eval, 1.0), 0.0
        )
    per_step = t_eff + e
    k = _round_half_away(x["checkpoint.every_steps"])
    save = x["checkpoint.save_s"] + x["checkpoint.verify_s"]
    final_save = save if x["checkpoint.final"] else 0.0

    proc = _FailureProcess(x, n, rng)
    all_idx = np.arange(n)

    # 2-5: the run. Full segments first, then the last one.
    full, last = _segments(steps, k)
    proc.run_segments(all_idx, full, np.broadcast_to(k * per_step + save, (n,)))
    proc.run_segments(all_idx, 1.0, np.broadcast_to(last * per_step + final_save, (n,)))
    saves = full * save + final_save

    # 6: planned changes
    changes = _round_half_away(x["compile.planned_changes"])
    planned_s = changes * x["compile.recompile_s"]

    # 7: quality gate (one check)
    gate = rng.random(n) < x["quality.rerun_prob"]
    redo = np.where(gate, np.ceil(x["quality.rerun_fraction"] * steps), 0.0)
    rerun_idx = np.flatnonzero(redo >= 1)
    redo = np.where(redo >= 1, redo, 0.0)
    if rerun_idx.size:
        r_full, r_last = _segments(redo[rerun_idx], _take(np.broadcast_to(k, (n,)), rerun_idx))
        ps = _take(np.broadcast_to(per_step, (n,)), rerun_idx)
        kk = _take(np.broadcast_to(k, (n,)), rerun_idx)
        sv = _take(np.broadcast_to(save, (n,)), rerun_idx)
        fs = _take(np.broadcast_to(final_save, (n,)), rerun_idx)
        proc.run_segments(rerun_idx, r_full, kk * ps + sv)
        proc.run_segments(rerun_idx, 1.0, r_last * ps + fs)
        saves = np.broadcast_to(saves, (n,)).copy()
        saves[rerun_idx] += r_full * sv + fs

    h = 1.0 / 3600.0
    out: Dict[str, np.ndarray] = {}
    full_n = lambda v: np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)).astype(np.float64)  # noqa: E731
    out["queue_h"] = full_n(x["startup.queue_wait_s"]) * h
    out["setup_h"] = full_n(x["startup.env_prep_s"]) * h
    out["compile_h"] = (full_n(x["compile.initial_s"]) + proc.compile + planned_s) * h
    out["warmup_h"] = (full_n(x["startup.data_load_s"]) + proc.warm) * h
    out["useful_h"] = steps * t * h
    out["stall_h"] = steps * (t_eff - t) * h
    out["eval_h"] = (steps * e + x["eval.final_s"]) * h
    out["checkpoint_h"] = full_n(saves) * h
    out["lost_h"] = proc.lost * h
    out["recovery_h"] = proc.recovery * h
    out["rerun_h"] = full_n(redo * per_step) * h
    out["transition_h"] = np.zeros(n)  # one stage: no transition (see simulate_restore_numpy for restores)
    wall = np.zeros(n)
    for p in PHASES:
        out[p] = full_n(out[p])
        wall += out[p]
    out["wall_h"] = wall
    billed = wall if x["startup.queue_billed"] else wall - out["queue_h"]
    nodes = float(x["cluster.nodes"])
    out["billed_h"] = billed
    out["node_h"] = nodes * billed
    with np.errstate(invalid="ignore", divide="ignore"):
        out["goodput"] = np.where(wall > 0, out["useful_h"] / wall, 0.0)
    out["failures"] = proc.failures
    out["recompiles"] = proc.recompiles + changes
    out["restore_fallbacks"] = np.zeros(n)

    price = x["prices.node_hour_usd"]
    out["cost_compute_usd"] = out["node_h"] * price
    out["cost_storage_usd"] = (
        (x["data.dataset_gb"] + x["checkpoint.size_gb"] * float(x["checkpoint.keep_last"]))
        * x["prices.storage_gb_month_usd"]
        * wall
        / 730.0
    )
    out["cost_transfer_usd"] = x["data.transfer_gb"] * x["prices.transfer_gb_usd"]
    out["cost_logs_usd"] = x["data.logs_gb_per_hour"] * wall * x["prices.logs_gb_usd"]
    out["run_cost_usd"] = (
        out["cost_compute_usd"] + out["cost_storage_usd"] + out["cost_transfer_usd"] + out["cost_logs_usd"]
    )
    out["adaptation_usd"] = x["engineering.adaptation_h"] * x["engineering.rate_usd_per_h"]
    out["total_cost_usd"] = out["run_cost_usd"] + out["adaptation_usd"]
    out["useful_step_cost_usd"] = nodes * t * price / 3600.0
    out["lifecycle_cost_per_step_usd"] = out["run_cost_usd"] / steps
    return {m: full_n(out[m]) for m in METRICS}


def _value(x: Quantity, i: int) -> float:
    return float(x[i]) if isinstance(x, np.ndarray) else float(x)


def simulate_restore_numpy(scenario: Any, samples: int = 2_000, seed: Optional[int] = 0) -> Dict[str, np.ndarray]:
    """The lifecycle with restore checks (docs/lifecycle.md, "Restore fidelity"), one sample at
    a time and one segment at a time, with an explicit list of kept checkpoints: a peer for the
    C++ simulator's fallback logic, written from the docs. For jobs of few segments (its cost
    grows with segments and failures); no quality gate, no planned changes, no stages.

    Each recovery: restart, compile (cache draw), then loads: the newest kept checkpoint is
    loaded and checked (fails with probability ``checkpoint.restore_fail_prob``, then dropped
    and the next older one is loaded); with none left the job goes back to the start of the
    run without a further load; then warm-up. Exposed to failures when ``during_recovery``
    (an interrupted recovery is lost; the dropped checkpoints stay dropped). With no kept
    checkpoint when the failure comes, the recovery is v1's (one load, no check). Segments done
    again count as lost. Returns {metric: array} for the time metrics and the counts."""
    n = int(samples)
    rng = np.random.default_rng(seed)
    x = draw_inputs(scenario, n, rng)
    if np.any(np.asarray(x["quality.rerun_prob"]) > 0) or np.any(np.asarray(x["compile.planned_changes"]) > 0):
        raise ValueError("simulate_restore_numpy: no quality gate or planned changes")
    names = ["lost_h", "recovery_h", "compile_h", "warmup_h", "checkpoint_h", "wall_h", "failures", "restore_fallbacks"]
    out = {m: np.zeros(n) for m in names}
    mtbf = x["failures.node_mtbf_h"]
    keep = int(x["checkpoint.keep_last"])
    exposed = bool(x["failures.during_recovery"])
    for i in range(n):
        v = {p: _value(q, i) for p, q in x.items() if p in QUANTITY_DEFAULTS and q is not None}
        steps = max(1.0, math.ceil(v["job.effective_steps"]))
        t_eff = v["throughput.step_time_s"] / (1 - v["throughput.data_stall_fraction"])
        e = v["eval.time_s"] / v["eval.every_steps"] if v["eval.every_steps"] > 0 else 0.0
        k = float(_round_half_away(v["checkpoint.every_steps"]))
        save = v["checkpoint.save_s"] + v["checkpoint.verify_s"]
        # The segments of the run: (duration, leaves a checkpoint).
        count = int(math.ceil(steps / k)) if 0 < k < steps else 1
        last = steps - (count - 1) * k if count > 1 else steps
        segments = [
            ((k if j < count - 1 else last) * (t_eff + e), j < count - 1 or bool(x["checkpoint.final"]))
            for j in range(count)
        ]
        segments = [(d + (save if ckpt else 0.0), ckpt) for d, ckpt in segments]
        rate = float(x["cluster.nodes"]) / (_value(mtbf, i) * 3600) if mtbf is not None else 0.0
        ttf = rng.exponential(1 / rate) if rate > 0 else math.inf
        acc = dict.fromkeys(names, 0.0)
        acc["compile_h"] = v["compile.initial_s"]
        acc["warmup_h"] = v["startup.data_load_s"]
        base = v["startup.queue_wait_s"] + v["startup.env_prep_s"]
        kept: list = []  # segment positions of the kept checkpoints, oldest first
        position, done_ever = 0, 0
        while position < count:
            duration, ckpt = segments[position]
            if ttf >= duration:  # the segment completes
                ttf -= duration
                if position < done_ever:
                    acc["lost_h"] += duration
                else:
                    acc["checkpoint_h"] += save if ckpt else 0.0
                    acc["wall_h"] += duration
                    done_ever = position + 1
                position += 1
                if ckpt:
                    kept = (kept + [position])[-keep:]
                continue
            acc["lost_h"] += ttf
            acc["failures"] += 1
            checks = bool(kept) and v["checkpoint.restore_fail_prob"] > 0
            while True:  # the recovery, until one completes
                ttf = rng.exponential(1 / rate)
                hit = rng.random() < v["compile.cache_hit_prob"]
                compile_s = v["compile.cache_load_s"] if hit else v["compile.recompile_s"]
                spent, loads, resume = v["failures.restart_s"] + compile_s, 0, position
                interrupted = False
                if checks:
                    resume = 0
                    while kept:
                        spent += v["checkpoint.load_s"]
                        loads += 1
                        if exposed and ttf < spent:
                            interrupted = True
                            break
                        if rng.random() >= v["checkpoint.restore_fail_prob"]:
                            resume = kept[-1]
                            break
                        kept.pop()
                        acc["restore_fallbacks"] += 1
                else:
                    spent += v["checkpoint.load_s"]
                    loads = 1
                spent += v["failures.warmup_s"]
                if exposed and (interrupted or ttf < spent):
                    acc["lost_h"] += ttf
                    acc["failures"] += 1
                    continue
                if exposed:
                    ttf -= spent
                acc["recovery_h"] += v["failures.restart_s"] + loads * v["checkpoint.load_s"]
                acc["compile_h"] += compile_s
                acc["warmup_h"] += v["failures.warmup_s"]
                position = resume
                break
        acc["wall_h"] += (
            base + acc["lost_h"] + acc["recovery_h"] + acc["compile_h"] + acc["warmup_h"] + v["eval.final_s"]
        )
        for m in names:
            out[m][i] = acc[m] / 3600 if m.endswith("_h") else acc[m]
    return out


def summarize(out: Dict[str, np.ndarray]) -> Dict[str, Dict[str, float]]:
    """mean sd p10 p50 p80 p90 p99 min max of every metric (the columns of res.summary())."""
    stats = {}
    for m, v in out.items():
        q = np.quantile(v, [0.10, 0.50, 0.80, 0.90, 0.99])
        stats[m] = {
            "mean": float(v.mean()),
            "sd": float(v.std(ddof=1)),
            "p10": q[0],
            "p50": q[1],
            "p80": q[2],
            "p90": q[3],
            "p99": q[4],
            "min": float(v.min()),
            "max": float(v.max()),
        }
    return stats


__all__ = [
    "simulate_numpy",
    "simulate_restore_numpy",
    "draw_inputs",
    "sample_quantity",
    "summarize",
    "METRICS",
    "PHASES",
]
