"""When a port pays back (docs/decisions.md, "Payback"): porting is paid once, a job may run many
times (continued training, weekly fine-tunes). For two scenarios on common random numbers, per
sample, the whole number of runs after which the side that is cheaper to run has earned back
its extra porting cost. The per-sample arithmetic is C++ (include/trnmodel/decisions/payback.hpp)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, Optional

import numpy as np

from . import _core
from ._display import Display
from ._executor import running_on
from ._format import short_money
from ._montecarlo import _check_threads, _check_whole
from ._progress import ProgressArg, progress_bar
from ._scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

    from ._simulate import SimulationResult

#: The run counts the summary reports P(paid back within n runs) at.
WITHIN = (1, 2, 5, 10, 20, 50)


class PaybackResult(Display):
    """Payback per sample of ``side`` (``"a"`` or ``"b"``, the scenario whose porting cost is
    paid back): ``runs`` (+inf: never), ``run_saving_usd`` (the other side's run cost less this
    side's), ``extra_porting_usd`` (this side's porting cost less the other's), all per sample;
    :meth:`p_within`, :meth:`summary`, :meth:`plot`."""

    def __init__(self, core: "_core.PaybackRun", a: Scenario, b: Scenario, samples: int, seed: int) -> None:
        self.side: str = core.side
        self.runs: np.ndarray = core.runs
        self.run_saving_usd: np.ndarray = core.run_saving_usd
        self.extra_porting_usd: np.ndarray = core.extra_porting_usd
        self.mean_run_cost_usd: Dict[str, float] = {"a": core.mean_run_cost_a_usd, "b": core.mean_run_cost_b_usd}
        self.scenario_a, self.scenario_b = a, b
        self.samples, self.seed = samples, seed

    @property
    def name(self) -> str:
        """The name of the side that pays back."""
        return (self.scenario_a if self.side == "a" else self.scenario_b).name

    def p_within(self, runs: int) -> float:
        """P(paid back within ``runs`` runs): the fraction of samples with runs ≤ ``runs``."""
        n = _check_whole("runs", runs, 0)
        return float(np.mean(self.runs <= n))

    @property
    def p_never(self) -> float:
        """P(never): the fraction of samples in which the side has an extra porting cost and is
        not cheaper to run."""
        return float(np.mean(np.isinf(self.runs)))

    def quantile(self, q: float) -> float:
        """The ``q`` quantile of the runs (+inf when more than 1 − q of the samples never pay back)."""
        if not 0 <= q <= 1:
            raise _core.ScenarioError(f"q: must be in [0, 1], got {q!r}")
        return float(np.quantile(self.runs, q, method="inverted_cdf"))

    def summary(self) -> "pd.Series":
        """P50 and P90 of the runs, P(within n) for n in 1, 2, 5, 10, 20, 50, P(never), and the
        means of the run saving and of the extra porting cost."""
        import pandas as pd

        rows: Dict[str, Any] = {"side": self.side, "p50_runs": self.quantile(0.5), "p90_runs": self.quantile(0.9)}
        rows.update({f"p_within_{n}": self.p_within(n) for n in WITHIN})
        rows["p_never"] = self.p_never
        rows["mean_run_saving_usd"] = float(np.mean(self.run_saving_usd))
        rows["mean_extra_porting_usd"] = float(np.mean(self.extra_porting_usd))
        return pd.Series(rows, name="payback")

    def sentence(self) -> str:
        """One line a manager reads: when the port pays back, and how likely within 10 runs."""
        p50 = self.quantile(0.5)
        saving = float(np.mean(self.run_saving_usd))
        extra = float(np.mean(self.extra_porting_usd))
        if extra <= 0:
            return (
                f"{self.name} costs no more to port than the other side: nothing to pay back "
                f"(it saves {short_money(saving)} a run on average)."
            )
        when = "never (at the median)" if math.isinf(p50) else f"after {p50:.0f} run{'s' if p50 != 1 else ''} (P50)"
        return (
            f"{self.name} pays back its extra porting cost of {short_money(extra)} {when}; "
            f"P(within 10 runs) = {self.p_within(10):.2f}, P(never) = {self.p_never:.2f}; "
            f"it saves {short_money(saving)} a run on average."
        )

    def plot(self, ax: Any = None, max_runs: int = 50) -> Any:
        """P(paid back within n runs) against n, 0 to ``max_runs``; the never-share marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, 3.2))
        n = np.arange(0, _check_whole("max_runs", max_runs, 1) + 1)
        finite = np.sort(self.runs[np.isfinite(self.runs)])
        p = np.searchsorted(finite, n, side="right") / len(self.runs)
        ax.step(n, p, where="post", color="tab:blue", label=f"{self.name} paid back")
        ax.axhline(1 - self.p_never, color="0.5", ls=":", lw=1, label=f"never: {self.p_never:.0%} of samples")
        ax.set_xlabel("runs of the job")
        ax.set_ylabel("P(paid back within n runs)")
        ax.set_ylim(0, 1.02)
        ax.set_xlim(0, max_runs)
        ax.legend(loc="lower right", fontsize="small")
        ax.set_title(f"Payback of the port: {short_money(float(np.mean(self.extra_porting_usd)))} extra porting")
        return ax

    def __repr__(self) -> str:
        return f"<PaybackResult {self.samples:,} samples: {self.sentence()}>"

    def _text(self) -> str:
        return f"{self!r}\n{self.summary().to_string()}"

    def _repr_html_(self) -> str:
        from ._format import card, esc

        s = self.summary()
        body = [f"<p>{esc(self.sentence())}</p>"] + [
            f"<div>{esc(k)}: {esc(f'{v:.4g}' if isinstance(v, float) else v)}</div>" for k, v in s.items()
        ]
        return card("Payback", body)


def payback(
    a: Scenario,
    b: Scenario,
    *,
    side: Optional[str] = None,
    samples: int = 100_000,
    seed: int = 0,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    executor: Any = None,
) -> PaybackResult:
    """How many runs until a port pays back (docs/decisions.md, "Payback").

    Simulates ``a`` and ``b`` on common random numbers (the same ``seed``) and, per sample, finds
    the smallest whole n with n × (run-cost saving) ≥ the extra porting cost (``adaptation_usd``:
    ``engineering.adaptation_h`` × ``engineering.rate_usd_per_h``) of ``side``: 0 when it has no
    extra porting cost in that sample, +inf ("never") when it has one and is not cheaper to run.
    ``side``: ``"a"``, ``"b"``, or None for the side with the lower mean run cost. Refuses a
    scenario with an unknown input the run or porting cost needs (a price nobody quoted).
    ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; both runs'
    blocks run there, with the local bits (docs/scaling.md)."""
    for name, scn in (("a", a), ("b", b)):
        if not isinstance(scn, Scenario):
            raise _core.ScenarioError(f"{name}: must be a tm.Scenario, got {type(scn).__name__}")
    if side not in (None, "a", "b"):
        raise _core.ScenarioError(f'side: must be "a", "b" or None, got {side!r}')
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    with progress_bar(progress, "payback") as callback, running_on(executor):
        core = _core.payback(
            a._core,
            b._core,
            side=side or "",
            samples=samples,
            seed=seed,
            threads=_check_threads(threads),
            progress=callback,
        )
    return PaybackResult(core, a, b, samples, seed)


def payback_of_results(
    ra: "SimulationResult", rb: "SimulationResult", side: Optional[str] = None, threads: Optional[int] = None
) -> PaybackResult:
    """:func:`payback` of two simulations already made on common random numbers (the same seed
    and sample count, samples kept): the same numbers, bit for bit, without simulating again.
    With an unknown input the run or porting cost needs, it refuses as :func:`payback` does."""
    if ra.seed != rb.seed or ra.samples != rb.samples:
        raise _core.ScenarioError(
            f"rb: must be simulated on ra's seed and samples ({ra.seed}, {ra.samples}), got ({rb.seed}, {rb.samples})"
        )
    needed = {"run_cost_usd", "adaptation_usd"}
    if any(needed & set(r.unknown_metrics) for r in (ra, rb)) or not (ra.kept and rb.kept):
        # The runs' own refusal (an unknown price named), or samples to keep.
        return payback(ra.scenario, rb.scenario, side=side, samples=ra.samples, seed=ra.seed, threads=threads)
    core = _core.payback_of(ra._core, rb._core, side=side or "")
    return PaybackResult(core, ra.scenario, rb.scenario, ra.samples, ra.seed)
