"""Block fees and spot prices as EC2 quotes them (docs/prices.md): the fee of a capacity block
read from saved ``aws ec2 describe-capacity-block-offerings`` outputs, and the spot price as a
distribution read from a saved ``aws ec2 describe-spot-price-history`` output, each a quote
with its date and region.

    offers = tm.read_block_offerings("offerings.json", date="2026-12-03")
    fee = offers.fee("trn2.48xlarge", nodes=16, hours=336)
    spot = tm.spot_price("spot.json", "p5.48xlarge", region="us-east-1")
    scn = scn.updated({"prices.block_usd": fee.to_distribution()})
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import pathlib
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _core
from ._distributions import Distribution

if TYPE_CHECKING:
    import pandas as pd

PathLike = Union[str, "os.PathLike[str]"]
Sources = Union[PathLike, Sequence[PathLike]]


def _paths(source: Sources, what: str) -> List[str]:
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if not items:
        raise _core.ScenarioError(f"{what}: must name at least one file, got none")
    paths = []
    for item in items:
        path = pathlib.Path(os.fspath(item))
        if not path.is_file():
            raise _core.ScenarioError(f"{path}: no such {what} file")
        paths.append(str(path))
    return paths


@dataclasses.dataclass(frozen=True)
class BlockFee:
    """The fee of one capacity block: ``fee_usd`` for the whole block (all nodes, paid up front),
    from the cheapest matching offering; ``fee_max_usd`` the dearest of the ``matching`` ones;
    ``date`` the day the offerings were read; ``region`` and ``availability_zone`` the offering's."""

    fee_usd: float
    usd_per_node_hour: float
    hours: int
    nodes: int
    instance_type: str
    availability_zone: str
    region: str
    offering_id: str
    start_date: str
    end_date: str
    matching: int
    fee_max_usd: float
    date: str
    file: str
    note: str
    spec: Dict[str, Any] = dataclasses.field(repr=False, compare=False)

    @classmethod
    def _from_core(cls, q: "_core.BlockFeeQuote") -> "BlockFee":
        o = q.offering
        return cls(
            fee_usd=q.fee_usd,
            usd_per_node_hour=o.usd_per_node_hour,
            hours=o.duration_hours,
            nodes=o.instance_count,
            instance_type=o.instance_type,
            availability_zone=o.availability_zone,
            region=o.region,
            offering_id=o.offering_id,
            start_date=o.start_date,
            end_date=o.end_date,
            matching=q.matching,
            fee_max_usd=q.fee_max_usd,
            date=q.date,
            file=q.file,
            note=q.note,
            spec=q.quantity_spec,
        )

    def to_dict(self) -> Dict[str, Any]:
        """The scenario form of ``prices.block_usd``: a fixed quantity with ``source`` quote."""
        return dict(self.spec)

    def to_distribution(self) -> Distribution:
        return Distribution.from_dict(self.spec)

    def __str__(self) -> str:
        return (
            f"{self.nodes} × {self.instance_type} for {self.hours} h ({self.hours / 24:g} days) in "
            f"{self.availability_zone}: {self.fee_usd:,.2f} USD up front ({self.usd_per_node_hour:,.4g} USD per "
            f"node-hour), offering {self.offering_id} from {self.start_date}, read {self.date}"
        )


class BlockOfferings:
    """Capacity block offerings read from one or more saved outputs (the AWS CLI asks one length
    at a time), with the day they were read: ``date`` as given, else the newest file's date."""

    __slots__ = ("_core", "date", "date_source")

    def __init__(self, core: "_core.BlockOfferings", date: str, date_source: str) -> None:
        self._core = core
        self.date = date
        self.date_source = date_source

    @property
    def file(self) -> str:
        return self._core.file

    def __len__(self) -> int:
        return len(self._core)

    def hours(self, instance_type: str, nodes: int) -> List[int]:
        """The whole-hour lengths offered for ``nodes`` × ``instance_type``, ascending."""
        return list(_core.offered_block_hours(self._core, instance_type, int(nodes)))

    def fee(
        self, instance_type: str, nodes: int, hours: int, *, region: Optional[str] = None, zone: Optional[str] = None
    ) -> BlockFee:
        """The fee of a block of ``hours`` for ``nodes`` × ``instance_type`` (in ``region`` or one
        ``zone`` when given): the cheapest matching offering. Raises :class:`tm.ScenarioError`
        naming the lengths and counts offered when none matches."""
        q = _core.quote_block_fee(
            self._core,
            instance_type,
            int(nodes),
            int(hours),
            self.date,
            region=region or "",
            availability_zone=zone or "",
        )
        return BlockFee._from_core(q)

    def to_pandas(self) -> "pd.DataFrame":
        """One row per offering, in the files' order."""
        import pandas as pd

        names = [
            "offering_id",
            "instance_type",
            "availability_zone",
            "region",
            "instance_count",
            "duration_hours",
            "start_date",
            "end_date",
            "upfront_fee_usd",
            "usd_per_node_hour",
            "tenancy",
        ]
        return pd.DataFrame([{n: getattr(o, n) for n in names} for o in self._core.offerings], columns=names)

    def __repr__(self) -> str:
        return f"BlockOfferings({self.file!r}: {len(self)} offerings, read {self.date} ({self.date_source}))"


def read_block_offerings(source: Union[Sources, BlockOfferings], date: Optional[str] = None) -> BlockOfferings:
    """Reads saved ``aws ec2 describe-capacity-block-offerings`` outputs (a path or a list of
    paths). The output carries no date of its own: ``date`` (YYYY-MM-DD) is the day they were
    read; by default the newest file's modification date (UTC), said so in ``date_source``."""
    if isinstance(source, BlockOfferings):
        if date is None or date == source.date:
            return source
        return BlockOfferings(source._core, date, "given")
    paths = _paths(source, "capacity block offerings")
    core = _core.read_block_offerings_files(paths)
    if date is None:
        newest = max(pathlib.Path(p).stat().st_mtime for p in paths)
        date = datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).date().isoformat()
        return BlockOfferings(core, date, "the file's date")
    try:
        datetime.date.fromisoformat(date)
    except (TypeError, ValueError):
        raise _core.ScenarioError(f"date: must be the day the offerings were read, YYYY-MM-DD, got {date!r}") from None
    return BlockOfferings(core, date, "given")


def block_fee(
    offerings: Union[Sources, BlockOfferings],
    instance_type: str,
    nodes: int,
    hours: int,
    *,
    date: Optional[str] = None,
    region: Optional[str] = None,
    zone: Optional[str] = None,
) -> BlockFee:
    """The fee of a block of ``hours`` for ``nodes`` × ``instance_type`` from saved offerings
    (see :meth:`BlockOfferings.fee`)."""
    return read_block_offerings(offerings, date).fee(instance_type, nodes, hours, region=region, zone=zone)


@dataclasses.dataclass(frozen=True)
class SpotPrice:
    """A spot price read from its history: ``hourly_usd`` the price in effect at each whole hour
    (zone after zone), ``zones`` one summary per zone (changes, hours, min, time-weighted mean,
    max, last), ``date`` the day of the history's last timestamp."""

    instance_type: str
    region: str
    availability_zone: str
    product_description: str
    first: str
    last: str
    date: str
    hourly_usd: Tuple[float, ...]
    zones: Tuple[Dict[str, Any], ...]
    file: str
    note: str
    spec: Dict[str, Any] = dataclasses.field(repr=False, compare=False)

    @classmethod
    def _from_core(cls, q: "_core.SpotQuote") -> "SpotPrice":
        fields = ["availability_zone", "changes", "hours", "min_usd", "mean_usd", "max_usd", "last_usd"]
        return cls(
            instance_type=q.instance_type,
            region=q.region,
            availability_zone=q.availability_zone,
            product_description=q.product_description,
            first=q.first,
            last=q.last,
            date=q.date,
            hourly_usd=tuple(q.hourly_usd),
            zones=tuple({f: getattr(z, f) for f in fields} for z in q.zones),
            file=q.file,
            note=q.note,
            spec=q.quantity_spec,
        )

    @property
    def mean_usd(self) -> float:
        """The time-weighted mean over the sampled hours."""
        return sum(self.hourly_usd) / len(self.hourly_usd)

    def zones_frame(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame(list(self.zones))

    def to_dict(self) -> Dict[str, Any]:
        """The scenario form of ``prices.spot_node_hour_usd``: the hourly prices as an empirical
        quantity (fixed when the price never moved) with ``source`` quote, its date and region."""
        return dict(self.spec)

    def to_distribution(self) -> Distribution:
        return Distribution.from_dict(self.spec)

    def __str__(self) -> str:
        where = self.availability_zone or f"{self.region} ({len(self.zones)} zones pooled)"
        low = min(self.hourly_usd)
        high = max(self.hourly_usd)
        return (
            f"{self.instance_type} {self.product_description} spot in {where}: {low:,.4g}–{high:,.4g} USD per "
            f"node-hour, mean {self.mean_usd:,.4g} over {len(self.hourly_usd)} hours to {self.last}"
        )


class SpotHistory:
    """The points of one or more saved describe-spot-price-history outputs."""

    __slots__ = ("_core",)

    def __init__(self, core: "_core.SpotPriceHistory") -> None:
        self._core = core

    @property
    def file(self) -> str:
        return self._core.file

    def __len__(self) -> int:
        return len(self._core)

    def price(
        self,
        instance_type: str,
        *,
        region: Optional[str] = None,
        zone: Optional[str] = None,
        product: str = "Linux/UNIX",
    ) -> SpotPrice:
        """The spot price of ``instance_type`` (in ``region``, or one ``zone``; every zone pooled by
        default). Raises :class:`tm.ScenarioError` naming what the history has when nothing matches."""
        q = _core.quote_spot_price(
            self._core, instance_type, region=region or "", availability_zone=zone or "", product_description=product
        )
        return SpotPrice._from_core(q)

    def __repr__(self) -> str:
        return f"SpotHistory({self.file!r}: {len(self)} price changes)"


def read_spot_history(source: Union[Sources, SpotHistory]) -> SpotHistory:
    """Reads saved ``aws ec2 describe-spot-price-history`` outputs (a path or a list of paths)."""
    if isinstance(source, SpotHistory):
        return source
    return SpotHistory(_core.read_spot_price_history_files(_paths(source, "spot price history")))


def spot_price(
    history: Union[Sources, SpotHistory],
    instance_type: str,
    *,
    region: Optional[str] = None,
    zone: Optional[str] = None,
    product: str = "Linux/UNIX",
) -> SpotPrice:
    """The spot price of ``instance_type`` from a saved history (see :meth:`SpotHistory.price`)."""
    return read_spot_history(history).price(instance_type, region=region, zone=zone, product=product)


__all__ = [
    "BlockFee",
    "BlockOfferings",
    "SpotHistory",
    "SpotPrice",
    "block_fee",
    "read_block_offerings",
    "read_spot_history",
    "spot_price",
]
