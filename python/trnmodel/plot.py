"""Plots of trnmodel results (matplotlib, imported only when a plot is drawn).

Every function draws on ``ax`` (a new figure when None) and returns the Axes:

    tm.plot.distribution(res, "run_cost_usd")   # histogram + CDF, P50/P80/P90 marked
    tm.plot.phases(res)                         # where the time goes: mean and a P90 run
    tm.plot.ledger(res)                         # the cost ledger, mean with P10–P90
    tm.plot.pit(backtest)                       # calibration (PIT) histogram of backtests
    tm.plot.tornado(tm.tornado(scn))            # swing of each input from its P10 to its P90
    tm.plot.sobol(tm.sobol(scn))                # S1 and ST with their intervals
    tm.plot.comparison(tm.compare(a, b))        # the paired difference A − B (0 marked) beside both
    tm.plot.sweep(tm.sweep(scn, grid))          # a line (one path) or a heat map (two)

The same plots hang off results: ``res.plot.distribution("wall_h")``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from . import _core
from ._format import short_value
from ._metrics import COST_PARTS, PHASES, unit_of
from .fields import PRICES_BLOCK_HOURS, PurchaseMode

#: Colours of the lifecycle phases (stable across plots, so a phase is recognised at a glance).
PHASE_COLOURS = {
    "queue_h": "#9e9e9e",
    "setup_h": "#bcaaa4",
    "compile_h": "#ff8a65",
    "warmup_h": "#ffd54f",
    "useful_h": "#4caf50",
    "stall_h": "#aed581",
    "eval_h": "#4fc3f7",
    "checkpoint_h": "#1976d2",
    "lost_h": "#e53935",
    "recovery_h": "#ab47bc",
    "rerun_h": "#795548",
    "transition_h": "#00897b",
}


def _axes(ax: Any, size: tuple = (7.0, 3.6)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _legend_below(ax: Any, **options: Any) -> None:
    """A legend under the axes. In a figure of our own (constrained layout) it is the figure's,
    for which the layout makes room, so a plain ``savefig`` keeps it whole (no
    ``bbox_inches="tight"``, which draws the figure twice); on a caller's axes it hangs below them."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    figure = ax.get_figure()
    if isinstance(figure.get_layout_engine(), ConstrainedLayoutEngine) and len(figure.axes) == 1:
        figure.legend(loc="outside lower center", **options)
    else:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), **options)


def _kept(result: Any, metric: str) -> np.ndarray:
    if metric not in result.outputs:
        raise _core.ScenarioError(f"metric: no metric {metric!r} (metrics: {', '.join(result.outputs)})")
    if not result.kept:
        raise _core.ScenarioError("result: this plot needs the samples; run with keep_samples=True")
    values = np.asarray(result[metric], dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        raise _core.ScenarioError(f"{metric}: no finite values to plot (an unknown input?)")
    return values


def distribution(
    result: Any,
    metric: str = "wall_h",
    ax: Any = None,
    bins: int = 60,
    label: Optional[str] = None,
    color: str = "#1976d2",
) -> Any:
    """Histogram (density, left axis) and CDF (right axis) of ``metric``, with P50, P80 and
    P90 marked. Needs ``keep_samples=True``."""
    values = _kept(result, metric)
    ax = _axes(ax)
    ax.hist(values, bins=bins, density=True, color=color, alpha=0.35, label=label)
    ax.set_xlabel(f"{metric} ({unit_of(metric)})" if unit_of(metric) else metric)
    ax.set_ylabel("share of samples")
    cdf_ax = ax.twinx()
    x = np.sort(values)
    cdf_ax.plot(x, np.arange(1, x.size + 1) / x.size, color=color, lw=1.4)
    cdf_ax.set_ylim(0, 1)
    cdf_ax.set_ylabel("P(≤ x)")
    for q, style in ((0.5, "-"), (0.8, "--"), (0.9, ":")):
        v = float(np.quantile(values, q))
        ax.axvline(v, color="0.2", ls=style, lw=1)
        ax.annotate(
            f"P{int(q * 100)} {short_value(v, metric)}",
            (v, 0.98),
            xycoords=("data", "axes fraction"),
            rotation=90,
            ha="right",
            va="top",
            fontsize=8,
        )
    low, high = float(x[0]), float(np.quantile(values, 0.999))  # a far tail would squash the body
    if not high > low:  # every sample alike (a job without chance): a narrow window around it
        low, high = low - max(abs(low) * 0.05, 1e-9), high + max(abs(high) * 0.05, 1e-9)
    ax.set_xlim(low, high)
    _people_axis(ax.xaxis, metric)
    ax.set_yticks([])  # a density's scale means nothing to a reader (and is 1e-6 for dollars)
    ax.set_title(label or metric)
    return ax


def _p90_sample(result: Any) -> int:
    wall = np.asarray(result["wall_h"], dtype=float)
    return int(np.nanargmin(np.abs(wall - np.nanquantile(wall, 0.9))))


def phases(result: Any, ax: Any = None, phase_names: Optional[Sequence[str]] = None) -> Any:
    """Stacked bars of the phase times: the mean over all samples, and the one sample whose
    wall time is nearest the P90 (a bad-but-plausible run). Needs ``keep_samples=True``."""
    names = list(phase_names or PHASES)
    _kept(result, "wall_h")
    s = result.summary()
    rows = {"mean": [float(s.loc[p, "mean"]) for p in names]}
    k = _p90_sample(result)
    rows["P90 run"] = [float(result[p][k]) for p in names]
    ax = _axes(ax, (8.0, 3.0))
    for i, values in enumerate(rows.values()):
        left = 0.0
        for p, v in zip(names, values):
            ax.barh(
                i,
                v,
                left=left,
                color=PHASE_COLOURS.get(p, None),
                edgecolor="white",
                lw=0.5,
                label=p if i == 0 else None,
            )
            left += v
    ax.set_yticks(range(len(rows)), list(rows))
    ax.invert_yaxis()
    ax.set_xlabel("hours")
    _people_axis(ax.xaxis, "wall_h")
    _legend_below(ax, ncol=6, fontsize=7, frameon=False)
    ax.set_title("Where the time goes")
    return ax


def stages(result: Any, ax: Any = None) -> Any:
    """A multi-stage job: one stacked bar per stage of its mean hours (useful compute,
    compile, transition, lost, and the rest of its wall time)."""
    frame = result.stages()
    if frame.empty:
        raise _core.ScenarioError("result: the scenario has no stages (see docs/scenario.md, Stages)")
    parts = ["useful_h", "compile_h", "transition_h", "lost_h"]
    ax = _axes(ax, (8.0, 1.0 + 0.5 * len(frame)))
    for i, stage in enumerate(frame.index):
        left = 0.0
        for p in parts + ["other"]:
            v = (
                float(frame.loc[stage, "wall_h"]) - sum(float(frame.loc[stage, q]) for q in parts)
                if p == "other"
                else (float(frame.loc[stage, p]))
            )
            colour = PHASE_COLOURS.get(p, "#b0bec5")
            ax.barh(i, v, left=left, color=colour, edgecolor="white", lw=0.5, label=p if i == 0 else None)
            left += v
    ax.set_yticks(range(len(frame)), list(frame.index))
    ax.invert_yaxis()
    ax.set_xlabel("hours (mean)")
    _people_axis(ax.xaxis, "wall_h")
    ax.legend(ncol=5, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.5), frameon=False)
    ax.set_title("Stages")
    return ax


def ledger(result: Any, ax: Any = None) -> Any:
    """The cost ledger: each line's mean with a P10–P90 bar, and the run and total costs."""
    s = result.summary()
    lines = COST_PARTS + ["run_cost_usd", "total_cost_usd"]
    lines = [m for m in lines if m in s.index and np.isfinite(s.loc[m, "mean"])]
    if not lines:
        raise _core.ScenarioError("result: no cost line could be computed (is the node price unknown?)")
    mean = s.loc[lines, "mean"].to_numpy(dtype=float)
    lo = s.loc[lines, "p10"].to_numpy(dtype=float)
    hi = s.loc[lines, "p90"].to_numpy(dtype=float)
    ax = _axes(ax, (7.0, 3.0))
    colours = ["#90a4ae"] * (len(lines) - 2) + ["#1976d2", "#0d47a1"] if len(lines) >= 2 else ["#1976d2"]
    y = np.arange(len(lines))
    ax.barh(y, mean, color=colours[: len(lines)], xerr=np.vstack([mean - lo, hi - mean]), capsize=3)
    ax.set_yticks(y, [m.removesuffix("_usd") for m in lines])
    ax.invert_yaxis()
    ax.set_xscale("symlog", linthresh=max(1.0, float(np.min(mean[mean > 0])) if np.any(mean > 0) else 1.0))
    _people_axis(ax.xaxis, "cost_usd")
    ax.set_xlabel("USD (mean, bar P10–P90)")
    ax.set_title("Cost ledger")
    return ax


def pit(backtest: Any, metric: str = "wall_h", bins: int = 10, ax: Any = None) -> Any:
    """The calibration (PIT) histogram of a backtest over several runs: flat when the
    predictions are calibrated, U-shaped when too narrow, hump-shaped when too wide."""
    h = backtest.pit_histogram(metric, bins)
    ax = _axes(ax, (5.0, 3.0))
    ax.bar(h["lo"], h["count"], width=h["hi"] - h["lo"], align="edge", color="#90a4ae", edgecolor="white")
    expected = h["count"].sum() / len(h)
    ax.axhline(expected, color="0.2", ls="--", lw=1, label="uniform")
    ax.set_xlabel(f"percentile of the observed {metric} in the prediction")
    ax.set_ylabel("runs")
    ax.legend(loc="upper right")
    return ax


def tornado(frame: Any, ax: Any = None, top: int = 12) -> Any:
    """Bars from the statistic at each input's P10 to its P90 (``tm.tornado``), largest swing
    on top, around the baseline with every input random."""
    rows = frame[frame["swing"].notna()].head(top)
    baseline = float(frame.attrs.get("baseline", np.nan))
    ax = _axes(ax, (7.5, 0.45 * len(rows) + 1.2))
    y = np.arange(len(rows))
    low, high = rows["low"].to_numpy(dtype=float), rows["high"].to_numpy(dtype=float)
    ax.barh(
        y, low - baseline, left=baseline, color="#64b5f6", label=f"input at P{round(100 * frame.attrs.get('low', 0.1))}"
    )
    ax.barh(
        y,
        high - baseline,
        left=baseline,
        color="#ef5350",
        label=f"input at P{round(100 * frame.attrs.get('high', 0.9))}",
    )
    ax.axvline(baseline, color="0.2", lw=1)
    ax.set_yticks(y, list(rows.index), fontsize=8)
    ax.invert_yaxis()
    output = frame.attrs.get("output", "")
    ax.set_xlabel(
        f"{frame.attrs.get('statistic', 'mean')} of {output}" + (f" ({unit_of(output)})" if unit_of(output) else "")
    )
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("What moves the estimate")
    return ax


def sobol(frame: Any, ax: Any = None) -> Any:
    """First-order (S1) and total (ST) Sobol indices with their confidence intervals."""
    ax = _axes(ax, (7.5, 0.42 * len(frame) + 1.2))
    y = np.arange(len(frame))
    ax.barh(y - 0.2, frame["S1"], height=0.4, xerr=frame["S1_conf"], color="#1976d2", capsize=2, label="S1 (alone)")
    ax.barh(
        y + 0.2,
        frame["ST"],
        height=0.4,
        xerr=frame["ST_conf"],
        color="#90caf9",
        capsize=2,
        label="ST (with interactions)",
    )
    ax.set_yticks(y, list(frame.index), fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="0.2", lw=0.8)
    ax.set_xlabel("share of the output's variance")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(f"Sobol indices of {frame.attrs.get('output', 'the output')}")
    return ax


def _people_axis(axis: Any, metric: str) -> None:
    """Tick labels as people write the metric's unit ($403k, 29 d), never 4.03e+05 or an offset.
    Hours take one unit for the whole axis (minutes, hours or days, by the axis's reach), so
    that 0 reads "0 d" beside "12 d", not "0 min"."""
    from matplotlib.ticker import FuncFormatter

    def hours_tick(x: float, _: Any) -> str:
        reach = max(abs(v) for v in axis.get_view_interval())
        if reach >= 48:
            return f"{x / 24:.3g} d"
        return f"{x:.3g} h" if reach >= 1 else f"{x * 60:.3g} min"

    if metric.endswith("_usd"):
        axis.set_major_formatter(FuncFormatter(lambda x, _: short_value(x, metric)))
    elif metric.endswith("_h"):
        axis.set_major_locator(_hours_locator())
        axis.set_major_formatter(FuncFormatter(hours_tick))


def _hours_locator() -> Any:
    """Ticks at round days on an axis reaching two days or more (4 d, 8 d, not 4.17 d)."""
    from matplotlib.ticker import Locator, MaxNLocator

    class HoursLocator(Locator):
        def __call__(self) -> Any:
            axis: Any = self.axis
            lo, hi = axis.get_view_interval()
            nice = MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10])
            if max(abs(lo), abs(hi)) < 48:
                return nice.tick_values(lo, hi)
            return np.asarray(nice.tick_values(lo / 24, hi / 24), dtype=float) * 24

    return HoursLocator()


def difference(cmp: Any, ax: Any = None, bins: int = 60) -> Any:
    """The paired difference A − B of the compared output, sample by sample on the same random
    numbers, with 0 marked: the share left of 0 is P(A < B)."""
    d = np.asarray(cmp.difference, dtype=float)
    d = d[np.isfinite(d)]
    ax = _axes(ax)
    lo, hi = (float(v) for v in np.quantile(d, [0.001, 0.999]))
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else bins
    ax.hist(d, bins=edges, color="#6a1b9a", alpha=0.45)
    ax.axvline(0, color="0.1", lw=1.2)
    a_name, b_name = cmp.scenario_a.name or "A", cmp.scenario_b.name or "B"
    ax.annotate(f"{a_name} cheaper ←", (0, 0.97), xycoords=("data", "axes fraction"), ha="right", va="top", fontsize=8)
    ax.annotate(f"→ {b_name} cheaper", (0, 0.90), xycoords=("data", "axes fraction"), ha="left", va="top", fontsize=8)
    median = float(np.median(d))
    ax.axvline(median, color="#6a1b9a", ls="--", lw=1)
    _people_axis(ax.xaxis, cmp.output)
    ax.set_xlabel(f"{cmp.output}: A − B, sample by sample (P50 {short_value(median, cmp.output)})")
    ax.set_ylabel("samples")
    ax.set_title(f"P(A < B) = {cmp.p_a_less_b:.3f}: the share left of 0")
    return ax


def comparison(cmp: Any, ax: Any = None, bins: int = 60) -> Any:
    """Both scenarios on the same random numbers. Without ``ax``: the paired difference A − B
    with 0 marked (left, the axes returned) beside the two marginal distributions (right); with
    ``ax``: the marginals only, in it."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
        difference(cmp, left, bins)
        comparison(cmp, right, bins)
        return left
    a, b = np.asarray(cmp.a, dtype=float), np.asarray(cmp.b, dtype=float)
    hi = float(np.quantile(np.concatenate([a, b]), 0.999))
    lo = float(min(a.min(), b.min()))
    edges = np.linspace(lo, hi, bins + 1)
    for values, name, colour in (
        (a, cmp.scenario_a.name or "A", "#1976d2"),
        (b, cmp.scenario_b.name or "B", "#ef6c00"),
    ):
        ax.hist(
            values,
            bins=edges,
            density=True,
            alpha=0.4,
            color=colour,
            label=f"{name}: P50 {short_value(float(np.median(values)), cmp.output)}",
        )
    _people_axis(ax.xaxis, cmp.output)
    ax.set_xlabel(f"{cmp.output} ({unit_of(cmp.output)})" if unit_of(cmp.output) else cmp.output)
    ax.set_ylabel("share of samples")
    ax.set_yticks([])  # a density's scale means nothing to a reader (and is 1e-6 for dollars)
    # A fixed corner: "best" searches the 2 × bins bars for the emptiest place, which matplotlib
    # warns is slow (and the test suite turns warnings into errors).
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title("each side's distribution")
    return ax


def sweep(frame: Any, output: Optional[str] = None, statistic: str = "mean", ax: Any = None) -> Any:
    """A sweep (``tm.sweep``): the statistic against the swept value (one path, P10–P90 band
    for ``mean``), or a heat map over the grid (two paths)."""
    outputs = list(dict.fromkeys(frame["output"]))
    output = output or outputs[0]
    if output not in outputs:
        raise _core.ScenarioError(f"output: the sweep has no output {output!r} (it has {', '.join(outputs)})")
    if statistic not in frame.columns:
        raise _core.ScenarioError(
            f"statistic: must be a column of the sweep ({', '.join(frame.columns)}), got {statistic!r}"
        )
    rows = frame[frame["output"] == output]
    paths = [c for c in frame.columns[: list(frame.columns).index("output")]]
    label = f"{statistic} of {output}" + (f" ({unit_of(output)})" if unit_of(output) else "")
    if len(paths) == 1:
        ax = _axes(ax)
        x = rows[paths[0]].to_numpy(dtype=float)
        ax.plot(x, rows[statistic], marker="o", color="#1976d2", label=statistic)
        if statistic == "mean":
            ax.fill_between(x, rows["p10"], rows["p90"], color="#1976d2", alpha=0.15, label="P10–P90")
            ax.legend(fontsize=8)
        ax.set_xlabel(paths[0])
        ax.set_ylabel(label)
        _people_axis(ax.yaxis, output)
        return ax
    grid = rows.pivot(index=paths[0], columns=paths[1], values=statistic)
    ax = _axes(ax, (6.5, 4.5))
    image = ax.imshow(grid.to_numpy(dtype=float), origin="lower", aspect="auto", cmap="viridis")
    ax.set_yticks(range(len(grid.index)), [f"{v:g}" if isinstance(v, (int, float)) else str(v) for v in grid.index])
    ax.set_xticks(range(len(grid.columns)), [f"{v:g}" if isinstance(v, (int, float)) else str(v) for v in grid.columns])
    ax.set_ylabel(paths[0])
    ax.set_xlabel(paths[1])
    ax.figure.colorbar(image, ax=ax, label=label)
    return ax


def purchase(options: Any, ax: Any = None) -> Any:
    """Purchase options (``tm.purchase_options``): P(fit) of each block length (left axis) and
    the run cost P50 with a bar to P90 (right axis), on demand and spot as horizontal lines."""
    table = options.table
    blocks = table[table["purchase"] == PurchaseMode.CAPACITY_BLOCK]
    ax = _axes(ax)
    hours = blocks["block_hours"].to_numpy(dtype=float)
    ax.plot(hours, blocks["p_fit"], marker="o", color="#1976d2", label="P(fit)")
    ax.axhline(options.fit_prob, color="#1976d2", linestyle=":", linewidth=1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(PRICES_BLOCK_HOURS)
    ax.set_ylabel("P(fit)")
    cost = ax.twinx()
    p50, p90 = blocks["cost_p50"].to_numpy(dtype=float), blocks["cost_p90"].to_numpy(dtype=float)
    cost.errorbar(
        hours, p50, yerr=[np.zeros_like(p50), p90 - p50], fmt="s", color="#e65100", label="block cost P50–P90"
    )
    for kind, style in ((PurchaseMode.ON_DEMAND, "--"), (PurchaseMode.SPOT, "-.")):
        row = table[table["purchase"] == kind].iloc[0]
        if np.isfinite(row["cost_p50"]):
            cost.axhline(row["cost_p50"], color="#6d4c41", linestyle=style, linewidth=1, label=f"{kind} cost P50")
    cost.set_ylabel("run_cost_usd (USD)")
    _people_axis(cost.yaxis, "run_cost_usd")
    lines = ax.get_legend_handles_labels()
    more = cost.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8, loc="center right")
    return ax


class _Bound:
    """``result.plot.<kind>()``: the plots of this module bound to one result (every result's
    ``.plot`` is one of the classes below)."""

    def __init__(self, result: Any) -> None:
        self._result = result


class MonteCarloPlots(_Bound):
    """``res.plot.distribution(output)`` of a :class:`tm.MonteCarloResult`."""

    def distribution(self, metric: str = "y", **kwargs: Any) -> Any:
        return distribution(self._result, metric, **kwargs)


class ResultPlots(MonteCarloPlots):
    """``res.plot.distribution()``, ``.phases()``, ``.ledger()`` of a :class:`tm.SimulationResult`."""

    def distribution(self, metric: str = "wall_h", **kwargs: Any) -> Any:
        return distribution(self._result, metric, **kwargs)

    def phases(self, **kwargs: Any) -> Any:
        return phases(self._result, **kwargs)

    def ledger(self, **kwargs: Any) -> Any:
        return ledger(self._result, **kwargs)

    def stages(self, **kwargs: Any) -> Any:
        return stages(self._result, **kwargs)


class ComparisonPlots(_Bound):
    """``cmp.plot.comparison()`` (the paired difference beside the marginals) and
    ``cmp.plot.difference()`` of a :class:`tm.Comparison`."""

    def comparison(self, **kwargs: Any) -> Any:
        return comparison(self._result, **kwargs)

    def difference(self, **kwargs: Any) -> Any:
        return difference(self._result, **kwargs)


class BacktestPlots(_Bound):
    """``bt.plot.pit(metric="wall_h")`` of a :class:`tm.BacktestResult`."""

    def pit(self, metric: str = "wall_h", **kwargs: Any) -> Any:
        return pit(self._result, metric, **kwargs)


__all__ = [
    "distribution",
    "phases",
    "ledger",
    "stages",
    "pit",
    "tornado",
    "sobol",
    "comparison",
    "difference",
    "sweep",
    "ResultPlots",
    "MonteCarloPlots",
    "ComparisonPlots",
    "BacktestPlots",
    "unit_of",
    "PHASE_COLOURS",
]
