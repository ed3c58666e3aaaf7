"""Purchase options side by side (docs/lifecycle.md, "Purchase options"): the job on demand,
on capacity blocks of several lengths and on spot, every variant on the same seed (common
random numbers), and the shortest block whose chance of holding the whole job reaches a target.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _core
from ._display import Display
from ._ec2_quotes import BlockOfferings, Sources, SpotHistory, read_block_offerings, read_spot_history
from ._format import probability
from ._montecarlo import _check_whole
from ._progress import ProgressArg
from ._scenario import Scenario
from ._simulate import simulate
from .fields import (
    CLUSTER_NODES,
    CLUSTER_PLATFORM,
    PRICES_BLOCK_END_MARGIN_H,
    PRICES_BLOCK_HOURS,
    PRICES_BLOCK_LEAD_S,
    PRICES_BLOCK_USD,
    PRICES_NODE_HOUR_USD,
    PRICES_PURCHASE,
    PRICES_SPOT_NODE_HOUR_USD,
    SPOT_INTERRUPTIONS_PER_NODE_H,
    SPOT_NOTICE_S,
    SPOT_REACQUIRE_S,
    PurchaseMode,
)

if TYPE_CHECKING:
    import pandas as pd

#: The fields of each purchase mode (refused with another mode).
BLOCK_FIELDS = [PRICES_BLOCK_HOURS, PRICES_BLOCK_USD, PRICES_BLOCK_LEAD_S, PRICES_BLOCK_END_MARGIN_H]
SPOT_FIELDS = [PRICES_SPOT_NODE_HOUR_USD, SPOT_INTERRUPTIONS_PER_NODE_H, SPOT_NOTICE_S, SPOT_REACQUIRE_S]
#: The lengths AWS offers (hours): 1 to 14 days, then 7-day steps up to 182 days.
OFFERED_BLOCK_HOURS = [24 * d for d in range(1, 15)] + [24 * d for d in range(21, 183, 7)]
#: A block's idle hours and overflow, and their cost (the table holds their means).
BLOCK_COLUMNS = ["block_idle_h", "block_idle_usd", "overflow_h", "overflow_usd"]
COLUMNS = [
    "purchase",
    "block_hours",
    "p_fit",
    "p_fit_se",
    "fee_usd",
    "wall_h_p50",
    "wall_h_p90",
    "cost_mean",
    "cost_p50",
    "cost_p90",
    "block_idle_h",
    "block_idle_usd",
    "overflow_h",
    "overflow_usd",
    "interruptions",
    "note",
]


def _variant(scenario: Scenario, purchase: PurchaseMode, changes: Mapping[str, Any]) -> Scenario:
    """The scenario bought another way: the other modes' fields removed, `changes` set."""
    other = (SPOT_FIELDS if purchase != PurchaseMode.SPOT else []) + (
        BLOCK_FIELDS if purchase != PurchaseMode.CAPACITY_BLOCK else []
    )
    cleared: Dict[str, Any] = {p: None for p in other if scenario._core.has(p)}
    return scenario.updated({**cleared, PRICES_PURCHASE: purchase.value, **changes})


def _quote_region(scenario: Scenario) -> Optional[str]:
    """The region of the scenario's on-demand price quote, if it names one."""
    spec = scenario.to_dict().get("prices", {}).get(PRICES_NODE_HOUR_USD.split(".")[1])
    region = spec.get("region") if isinstance(spec, dict) else None
    return str(region) if region else None


def _mean(scenario: Scenario, path: str) -> Optional[float]:
    value = scenario[path]
    if value is None:
        return None
    return float(value.mean()) if hasattr(value, "mean") else float(value)


class PurchaseOptions(Display):
    """The answer of :func:`purchase_options`: ``table`` (one row per option: on_demand, each
    block length, spot), ``choice`` (the row of the shortest block with P(fit) ≥ ``fit_prob``,
    or None when no block length given reaches it) and ``fit_prob``."""

    __slots__ = ("table", "choice", "fit_prob", "samples", "seed", "name")

    def __init__(self, table: Any, fit_prob: float, samples: int, seed: int, name: str) -> None:
        self.table = table
        self.fit_prob = fit_prob
        self.samples = samples
        self.seed = seed
        self.name = name
        blocks = table[(table["purchase"] == PurchaseMode.CAPACITY_BLOCK) & (table["p_fit"] >= fit_prob)]
        self.choice = None if blocks.empty else blocks.sort_values("block_hours").iloc[0]

    def headline(self) -> str:
        """One sentence: the shortest block that fits with the target probability, its cost
        (P50/P90) and the on-demand and spot costs beside it."""

        def cost(row: Any) -> str:
            if math.isnan(row["cost_p50"]):
                return "cost unknown (" + row["note"] + ")"
            return f"run cost P50 {row['cost_p50']:,.0f} / P90 {row['cost_p90']:,.0f} USD"

        rows = {r["purchase"]: r for _, r in self.table.iterrows() if r["purchase"] != PurchaseMode.CAPACITY_BLOCK}
        if self.choice is None:
            best = self.table[self.table["purchase"] == PurchaseMode.CAPACITY_BLOCK]["p_fit"].max()
            longest = int(self.table["block_hours"].max())
            text = (
                f"No block length tried (up to {longest} h, {longest / 24:g} days) has P(fit) ≥ {self.fit_prob:g} "
                f"(the best: {probability(best, self.samples)})"
            )
        else:
            hours = int(self.choice["block_hours"])
            fee = self.choice["fee_usd"]
            fee_text = "fee unknown" if math.isnan(fee) else f"fee {fee:,.0f} USD"
            idle = self.choice["block_idle_usd"]
            idle_text = "" if math.isnan(idle) else f", expected idle {idle:,.0f} USD"
            text = (
                f"Shortest block with P(fit) ≥ {self.fit_prob:g}: {hours} h ({hours / 24:g} day"
                f"{'' if hours == 24 else 's'}), "
                f"P(fit) {probability(self.choice['p_fit'], self.samples)}, {fee_text}{idle_text}, "
                f"{cost(self.choice)}" + (f" ({self.choice['note']})" if self.choice["note"] else "")
            )
        text += f"; on demand: {cost(rows[PurchaseMode.ON_DEMAND])}"
        spot = rows[PurchaseMode.SPOT]
        text += "; spot: " + (spot["note"] if spot["note"].startswith("not described") else cost(spot))
        return text + "."

    def plot(self, ax: Any = None) -> Any:
        """P(fit) and the run cost per block length, on demand and spot beside (``tm.plot.purchase``)."""
        from .plot import purchase

        return purchase(self, ax)

    def to_pandas(self) -> "pd.DataFrame":
        return self.table.copy()

    def __repr__(self) -> str:
        return f"<PurchaseOptions of {self.name or 'a scenario'}: {self.samples} samples, seed {self.seed}>"

    def _text(self) -> str:
        return f"{self!r}\n{self.headline()}\n{self.table.to_string(index=False)}"

    def _repr_html_(self) -> str:
        from ._html import card, esc

        html = self.table.to_html(index=False, float_format="{:,.4g}".format, border=0, na_rep="—")
        return card(
            f"Purchase options: {self.name or 'scenario'} ({self.samples:,} samples)",
            [f"<p><b>{esc(self.headline())}</b></p>", html],
        )


def purchase_options(
    scenario: Scenario,
    block_hours: Optional[Sequence[int]] = None,
    fit_prob: float = 0.9,
    samples: int = 20_000,
    seed: int = 0,
    threads: Optional[int] = None,
    *,
    block_node_hour_usd: Optional[float] = None,
    block_lead_s: Optional[float] = None,
    spot: Optional[Mapping[str, Any]] = None,
    offerings: Union[Sources, BlockOfferings, None] = None,
    offerings_date: Optional[str] = None,
    spot_history: Union[Sources, SpotHistory, None] = None,
    search: bool = True,
    progress: ProgressArg = None,
    executor: Any = None,
) -> PurchaseOptions:
    """The job on demand, on a capacity block of each length in ``block_hours`` and on spot,
    every variant on the same seed, and the shortest block with P(fit) ≥ ``fit_prob``.

    A block's fee is its length × nodes × ``block_node_hour_usd`` (AWS quotes a block as an
    effective hourly rate per instance); by default that rate is the scenario's own block fee
    per node-hour when the scenario is a capacity block (its mean, as a fixed value). With
    ``offerings`` (saved ``aws ec2 describe-capacity-block-offerings`` outputs, a path, a list of
    paths or a :class:`tm.BlockOfferings`; ``offerings_date`` the day they were read) each
    length's fee is the quoted one (the cheapest offering of that length for the scenario's
    platform, node count and quoted region), ``block_hours`` defaults to the lengths offered, and
    a length nobody offered has an unknown fee (or the given ``block_node_hour_usd``), said in
    its note. With ``spot_history`` (a saved ``aws ec2 describe-spot-price-history`` output) the
    spot price is the history's hourly prices as a distribution. The lead
    time is the scenario's ``prices.block_lead_s`` when it is a block, else ``block_lead_s``
    (default 0). Spot is simulated when the scenario is a spot purchase or ``spot`` gives its
    fields (``{"prices.spot_node_hour_usd": ..., "spot.interruptions_per_node_h": ...}``);
    otherwise its row says "not described", never left out silently. ``block_hours`` defaults to
    the scenario's length, or 7 and 14 days. With ``search`` (the default), when none of them
    fits with P(fit) ≥ ``fit_prob``, the longer lengths AWS offers (up to 182 days) are searched
    for the shortest that does, by bisection: on the same seed a sample that fits a block fits
    every longer one (the block's length moves only its deadline), so P(fit) is monotone in the
    length and each length tried is a row of the table. Costs are ``run_cost_usd``; unknown
    prices give NaN with a note. Returns a :class:`PurchaseOptions` (``.table``, ``.choice``, a
    notebook display). ``executor``: a ``concurrent.futures.Executor`` or a
    ``dask.distributed.Client``; every variant's blocks run there, with the local bits
    (docs/scaling.md).
    """
    import pandas as pd

    if not isinstance(scenario, Scenario):
        raise _core.ScenarioError(f"scenario: must be a tm.Scenario, got {type(scenario).__name__}")
    if isinstance(fit_prob, bool) or not isinstance(fit_prob, (int, float)) or not 0 < fit_prob <= 1:
        raise _core.ScenarioError(f"fit_prob: must be a probability in (0, 1], got {fit_prob!r}")
    samples = _check_whole("samples", samples, 1)
    seed = _check_whole("seed", seed, 0)
    purchase = scenario[PRICES_PURCHASE]
    nodes = scenario[CLUSTER_NODES]
    platform = scenario[CLUSTER_PLATFORM]
    region = _quote_region(scenario)
    offers = read_block_offerings(offerings, offerings_date) if offerings is not None else None
    offered = offers.hours(platform, nodes) if offers is not None else []
    if block_hours is None:
        if offered:
            block_hours = offered
        else:
            block_hours = [scenario[PRICES_BLOCK_HOURS]] if purchase == PurchaseMode.CAPACITY_BLOCK else [168, 336]
    hours_list = [int(h) for h in block_hours]
    if not hours_list:
        raise _core.ScenarioError("block_hours: must be a non-empty list of block lengths in hours")
    rate = block_node_hour_usd
    rate_note = "fee = hours × nodes × the given rate"
    if rate is None and purchase == PurchaseMode.CAPACITY_BLOCK and offers is None:
        rate = _mean(scenario, PRICES_BLOCK_USD) / (scenario[PRICES_BLOCK_HOURS] * nodes)
        rate_note = f"fee scaled from the scenario's block ({rate:,.4g} USD per node-hour)"
    if block_lead_s is None:
        block_lead_s = 0.0
    options = dict(
        samples=samples,
        seed=seed,
        threads=threads,
        keep_samples=False,
        allow_unknown=True,
        progress=progress,
        executor=executor,
    )

    rows: List[dict] = []

    def add(
        kind: PurchaseMode, hours: Optional[int], variant: Optional[Scenario], note: str, fee: float = math.nan
    ) -> None:
        row: Dict[str, Any] = {c: math.nan for c in COLUMNS}
        row.update(purchase=kind.value, block_hours=hours if hours is not None else math.nan, note=note, fee_usd=fee)
        if variant is not None:
            res = simulate(variant, **options)
            s = res.summary()
            if kind == PurchaseMode.CAPACITY_BLOCK:
                p = float(s.loc["block_fit", "mean"])
                row.update(p_fit=p, p_fit_se=math.sqrt(max(p * (1 - p), 0.0) / samples))
                row.update({m: float(s.loc[m, "mean"]) for m in BLOCK_COLUMNS})
            if kind == PurchaseMode.SPOT:
                row["interruptions"] = float(s.loc["interruptions", "mean"])
            row.update(
                wall_h_p50=float(s.loc["wall_h", "p50"]),
                wall_h_p90=float(s.loc["wall_h", "p90"]),
                cost_mean=float(s.loc["run_cost_usd", "mean"]),
                cost_p50=float(s.loc["run_cost_usd", "p50"]),
                cost_p90=float(s.loc["run_cost_usd", "p90"]),
            )
            if "run_cost_usd" in res.unknown_metrics:
                row["note"] = (note + "; " if note else "") + "cost unknown: " + ", ".join(res.unknown_inputs)
        rows.append(row)

    add(PurchaseMode.ON_DEMAND, None, _variant(scenario, PurchaseMode.ON_DEMAND, {}), "")
    for hours in sorted(set(hours_list)):
        if hours not in OFFERED_BLOCK_HOURS and hours not in offered:
            raise _core.ScenarioError(
                f"block_hours: {hours} h is not a length AWS offers (1 to 14 days in whole days, "
                "then 7-day steps up to 182 days)"
            )

    def add_block(hours: int, searched: bool = False) -> float:
        """Simulates a block of `hours`; its P(fit)."""
        changes: Dict[str, Any] = {PRICES_BLOCK_HOURS: hours}
        if purchase != PurchaseMode.CAPACITY_BLOCK:
            changes[PRICES_BLOCK_LEAD_S] = block_lead_s
        fee = math.nan
        quoted = None
        missing = ""
        if offers is not None:
            try:
                quoted = offers.fee(platform, nodes, hours, region=region)
            except _core.ScenarioError as e:
                # "file: no offering of 16 × trn2.48xlarge for 504 h; they offer ..." -> its first clause.
                missing = str(e).split(": ", 1)[-1].split(";")[0]
        if quoted is not None:
            changes[PRICES_BLOCK_USD] = quoted.to_dict()
            fee = quoted.fee_usd
            note = f"fee quoted: {quoted.offering_id} in {quoted.availability_zone}, read {quoted.date}"
            if quoted.matching > 1:
                note += f", the cheapest of {quoted.matching} (up to {quoted.fee_max_usd:,.0f} USD)"
        elif rate is None:
            reason = missing or "no block price: give block_node_hour_usd or offerings"
            changes[PRICES_BLOCK_USD] = {"unknown": reason}
            note = "fee unknown" + (f": {missing}" if missing else "")
        else:
            fee = rate * hours * nodes
            changes[PRICES_BLOCK_USD] = fee
            note = rate_note if not missing else f"{missing}: {rate_note}"
        if searched:
            note = (note + "; " if note else "") + f"searched: the shortest length with P(fit) ≥ {fit_prob:g}"
        add(PurchaseMode.CAPACITY_BLOCK, hours, _variant(scenario, PurchaseMode.CAPACITY_BLOCK, changes), note, fee)
        return float(rows[-1]["p_fit"])

    fits = [add_block(hours) >= fit_prob for hours in sorted(set(hours_list))]
    longer = [h for h in OFFERED_BLOCK_HOURS if h > max(hours_list)]
    if search and not any(fits) and longer:
        # Bisection over the longer lengths: lo never fits (or is below them), hi fits (or is past them).
        lo, hi = -1, len(longer)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if add_block(longer[mid], searched=True) >= fit_prob:
                hi = mid
            else:
                lo = mid
    spot_changes: Dict[str, Any] = dict(spot or {})
    spot_notes = ["spot inputs given to purchase_options"] if spot else []
    if spot_history is not None:
        price = read_spot_history(spot_history).price(platform, region=region)
        spot_changes[PRICES_SPOT_NODE_HOUR_USD] = price.to_dict()
        where = (
            price.availability_zone or f"{price.region}, {len(price.zones)} zone{'s' if len(price.zones) > 1 else ''}"
        )
        spot_notes.append(
            f"spot price: the history's {len(price.hourly_usd)} hours to {price.date} in {where}, "
            f"mean {price.mean_usd:,.4g} USD per node-hour"
        )
    if purchase == PurchaseMode.SPOT:
        add(
            PurchaseMode.SPOT, None, scenario.updated(spot_changes) if spot_changes else scenario, "; ".join(spot_notes)
        )
    elif SPOT_INTERRUPTIONS_PER_NODE_H in spot_changes:
        add(PurchaseMode.SPOT, None, _variant(scenario, PurchaseMode.SPOT, spot_changes), "; ".join(spot_notes))
    else:
        missing_spot = (
            SPOT_INTERRUPTIONS_PER_NODE_H
            if spot_history is not None
            else f"{PRICES_SPOT_NODE_HOUR_USD}, {SPOT_INTERRUPTIONS_PER_NODE_H}"
        )
        add(
            PurchaseMode.SPOT,
            None,
            None,
            f"not described: give spot= ({missing_spot})" + "".join(f"; {n}" for n in spot_notes),
        )
    table = pd.DataFrame(rows, columns=COLUMNS)
    # On demand first, then the blocks by length, then spot.
    order = {PurchaseMode.ON_DEMAND: 0, PurchaseMode.CAPACITY_BLOCK: 1, PurchaseMode.SPOT: 2}
    table["_order"] = [order[PurchaseMode(p)] for p in table["purchase"]]
    table = table.sort_values(["_order", "block_hours"], kind="stable").drop(columns="_order").reset_index(drop=True)
    return PurchaseOptions(table, float(fit_prob), samples, seed, scenario.name)
