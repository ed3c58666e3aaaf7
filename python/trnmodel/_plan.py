"""A migration plan ("trnmodel.plan/1", docs/decisions.md, "The plan"): a GPU baseline, a
Trainium pilot and a Trainium production scenario, with the decision's own uncertain quantities.
Three strategies are costed per sample on common random numbers (GPU only; Trainium only with a
rollback; a dual track), in C++ (include/trnmodel/decisions/plan.hpp)."""

from __future__ import annotations

import datetime as _dt
import math
import os
import pathlib
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Union

import numpy as np

from . import _core
from ._advisor import Advice
from ._display import Display
from ._errors import in_file
from ._executor import running_on
from ._files import read_utf8
from ._format import card, esc, hours, short_money
from ._montecarlo import _check_threads, _check_whole
from ._progress import ProgressArg, progress_bar
from ._scenario import ProfilesArg, Scenario, _library
from .fields import JOB_KIND

if TYPE_CHECKING:
    import pandas as pd

PathLike = Union[str, "os.PathLike[str]"]

#: The strategies, in the order of the plan's outputs.
STRATEGIES = ("gpu_only", "trainium_only", "dual_track")

_LABELS = {
    "gpu_only": "GPU only",
    "trainium_only": "Trainium only (rollback to GPU if the port fails)",
    "dual_track": "Dual track (pilot, then Trainium if it passed, else GPU)",
}


class PlanResult(Display):
    """The strategies of a plan, per sample: ``values(name)`` for each of ``_core.PLAN_OUTPUTS``
    (``<strategy>_h``, ``<strategy>_usd``, ``cheapest_<strategy>``, ``pilot_passed``);
    :meth:`table`, :attr:`p_cheapest`, :meth:`plot`."""

    def __init__(self, core: "_core.RunResult", plan: "Plan", samples: int, seed: int) -> None:
        self._core = core
        self.plan, self.samples, self.seed = plan, samples, seed
        self._drivers: Any = None

    def values(self, name: str) -> np.ndarray:
        return self._core.values(name)

    @property
    def p_cheapest(self) -> Dict[str, float]:
        """P(each strategy is the cheapest), by strategy: they sum to 1 (ties go to the first)."""
        return {s: float(self._core.moments(f"cheapest_{s}").mean) for s in STRATEGIES}

    @property
    def p_pilot_passed(self) -> float:
        return float(self._core.moments("pilot_passed").mean)

    def p_by_deadline(self, strategy: str) -> float:
        """P(the strategy's first production result is ready by schedule.deadline): the share
        of samples whose time from schedule.start, the port's calendar time included, is at most
        the days between them. ScenarioError when the plan states no schedule."""
        if strategy not in STRATEGIES:
            raise _core.ScenarioError(f"strategy: must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
        if self.plan.deadline is None:
            raise _core.ScenarioError("schedule: the plan states no schedule.start and schedule.deadline")
        return float(np.mean(self.values(f"{strategy}_h") <= 24 * self.plan.days_to_deadline))

    def ready_date(self, strategy: str, q: float) -> str:
        """The ``q`` quantile of the day the strategy's first production result is ready
        (schedule.start plus its time, rounded up to a whole day), YYYY-MM-DD."""
        if self.plan.start is None:
            raise _core.ScenarioError("schedule: the plan states no schedule.start")
        days = math.ceil(float(np.quantile(self.values(f"{strategy}_h"), q)) / 24)
        return (_dt.date.fromisoformat(self.plan.start) + _dt.timedelta(days=days)).isoformat()

    def table(self) -> "pd.DataFrame":
        """One row per strategy: time P50 and P90 (hours from the start of the work, the port's
        calendar time included), cost mean, P50 and P90 (USD), P(cheapest), and with a
        schedule, P(ready by the deadline)."""
        import pandas as pd

        rows = []
        for s in STRATEGIES:
            h, usd = self.values(f"{s}_h"), self.values(f"{s}_usd")
            row = {
                "strategy": s,
                "time_p50_h": float(np.quantile(h, 0.5)),
                "time_p90_h": float(np.quantile(h, 0.9)),
                "cost_mean_usd": float(np.mean(usd)),
                "cost_p50_usd": float(np.quantile(usd, 0.5)),
                "cost_p90_usd": float(np.quantile(usd, 0.9)),
                "p_cheapest": self.p_cheapest[s],
            }
            if self.plan.deadline is not None:
                row["p_by_deadline"] = self.p_by_deadline(s)
            rows.append(row)
        return pd.DataFrame(rows).set_index("strategy")

    def choice_drivers(self) -> "pd.DataFrame":
        """Which inputs decide the choice (docs/decisions.md, "What decides the choice"): the
        rank correlations (``spearman``, ``prcc``) of every uncertain input with the margin of
        the strategy most often cheapest over the next (the runner-up's cost less its own, per
        sample), sorted by |prcc|. A positive coefficient: a larger value favours the favourite.
        ``attrs``: ``favourite``, ``runner_up``, ``p_favourite``. Computed once, from this run's
        samples (no model run)."""
        import pandas as pd

        if self._drivers is None:
            raw = _core.plan_choice_drivers(self.plan._core, self._core, self.seed)
            frame = pd.DataFrame(
                {"spearman": raw.spearman, "prcc": raw.prcc}, index=pd.Index(raw.factors, name="factor")
            )
            frame = frame.iloc[np.argsort(-np.nan_to_num(np.abs(frame["prcc"].to_numpy()), nan=-1), kind="stable")]
            frame.attrs.update(favourite=raw.favourite, runner_up=raw.runner_up, p_favourite=raw.p_favourite)
            self._drivers = frame
        return self._drivers.copy()

    def sentence(self) -> str:
        """The strategies' P90 costs and P(cheapest), one line."""
        t = self.table()
        parts = [
            f"{_LABELS[s].split(' (')[0]}: P90 {short_money(t.loc[s, 'cost_p90_usd'])}, "
            f"P(cheapest) {t.loc[s, 'p_cheapest']:.2f}"
            for s in STRATEGIES
        ]
        return "; ".join(parts) + f" (the pilot passes in {self.p_pilot_passed:.0%} of samples)."

    def plot(self, ax: Any = None) -> Any:
        """Each strategy's cost distribution (P10–P90 bar, P50 tick), money as people write it."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 2.6))
        for k, s in enumerate(STRATEGIES):
            usd = self.values(f"{s}_usd")
            p10, p50, p90 = np.quantile(usd, [0.1, 0.5, 0.9])
            ax.plot([p10, p90], [k, k], lw=6, color="tab:blue", alpha=0.35, solid_capstyle="butt")
            ax.plot([p50], [k], "|", ms=16, color="tab:blue")
            ax.annotate(f"P50 {short_money(p50)}", (p50, k), xytext=(0, 9), textcoords="offset points", ha="center")
        ax.set_yticks(range(len(STRATEGIES)), [_LABELS[s].split(" (")[0] for s in STRATEGIES])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: short_money(x)))
        ax.set_xlabel("cost of the strategy (P10–P90, P50 marked)")
        ax.set_ylim(-0.6, len(STRATEGIES) - 0.4)
        return ax

    def __repr__(self) -> str:
        return f"<PlanResult {self.plan.name or 'plan'}, {self.samples:,} samples: {self.sentence()}>"

    def _text(self) -> str:
        return f"{self!r}\n{self.table().to_string()}"

    def _repr_html_(self) -> str:
        t = self.table()
        body = [f"<p>{esc(self.sentence())}</p>"] + [
            f"<div><b>{esc(_LABELS[s])}</b>: time P50 {esc(hours(t.loc[s, 'time_p50_h']))}, "
            f"P90 {esc(hours(t.loc[s, 'time_p90_h']))}; cost P50 {esc(short_money(t.loc[s, 'cost_p50_usd']))}, "
            f"P90 {esc(short_money(t.loc[s, 'cost_p90_usd']))}; P(cheapest) {t.loc[s, 'p_cheapest']:.2f}</div>"
            for s in STRATEGIES
        ]
        return card(f"Plan: {self.plan.name}", body)


class Plan(Display):
    """A migration plan (docs/decisions.md, "The plan"). Load with :meth:`from_json` (scenario
    paths in it are relative to the plan's file) or :meth:`from_dict`; every problem of the plan
    is listed at once in one :class:`tm.ScenarioError`."""

    __slots__ = ("_core",)

    def __init__(self, core: "_core.Plan") -> None:
        self._core = core

    @classmethod
    def from_json(cls, path: PathLike, profiles: ProfilesArg = None) -> "Plan":
        path = pathlib.Path(path)
        text = read_utf8(path, "plan")
        with in_file(path):
            return cls(_core.Plan.from_text(text, str(path.parent), _library(profiles)))

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], directory: Optional[PathLike] = None, profiles: ProfilesArg = None
    ) -> "Plan":
        """From a dict shaped like the JSON form; scenario paths are relative to ``directory``."""
        return cls(_core.Plan.from_obj(dict(data), os.fspath(directory or "."), _library(profiles)))

    @property
    def name(self) -> str:
        return self._core.name

    @property
    def description(self) -> str:
        return self._core.description

    @property
    def start(self) -> Optional[str]:
        """schedule.start: the day the work starts (YYYY-MM-DD), or None."""
        return self._core.start or None

    @property
    def deadline(self) -> Optional[str]:
        """schedule.deadline: the day the first production result is due (YYYY-MM-DD), or None."""
        return self._core.deadline or None

    @property
    def runs(self) -> int:
        """The runs of the production job the port serves (paid once); the strategies' costs are
        over these runs."""
        return int(self._core.runs)

    @property
    def gpu_baseline(self) -> Scenario:
        return Scenario(self._core.gpu_baseline)

    @property
    def trainium_pilot(self) -> Scenario:
        return Scenario(self._core.trainium_pilot)

    @property
    def trainium_production(self) -> Scenario:
        return Scenario(self._core.trainium_production)

    def advise(self) -> Advice:
        """The advisor on the plan's project block, for the production scenario's job kind."""
        if self._core.project is None:
            raise _core.ScenarioError("project: the plan states no project facts (docs/decisions.md, 'The advisor')")
        kind = str(self.trainium_production[JOB_KIND])
        return Advice(_core.advise_plan(self._core.project, kind), kind)

    @property
    def days_to_deadline(self) -> float:
        """Calendar days from schedule.start to schedule.deadline."""
        if self.deadline is None or self.start is None:
            raise _core.ScenarioError("schedule: the plan states no schedule.start and schedule.deadline")
        return float((_dt.date.fromisoformat(self.deadline) - _dt.date.fromisoformat(self.start)).days)

    def evaluate(
        self,
        *,
        samples: int = 100_000,
        seed: int = 0,
        threads: Optional[int] = None,
        progress: ProgressArg = None,
        executor: Any = None,
    ) -> PlanResult:
        """The three strategies, per sample on common random numbers (docs/decisions.md).
        ``executor``: a ``concurrent.futures.Executor`` or a ``dask.distributed.Client``; the
        three scenarios' blocks run there, with the local bits (docs/scaling.md)."""
        samples = _check_whole("samples", samples, 1)
        seed = _check_whole("seed", seed, 0)
        with progress_bar(progress, "plan") as callback, running_on(executor):
            core = _core.plan_strategies(
                self._core, samples=samples, seed=seed, threads=_check_threads(threads), progress=callback
            )
        return PlanResult(core, self, samples, seed)

    def __repr__(self) -> str:
        names = (self.gpu_baseline.name, self.trainium_pilot.name, self.trainium_production.name)
        return f"<Plan {self.name or '(unnamed)'}: GPU {names[0]}, pilot {names[1]}, production {names[2]}>"
