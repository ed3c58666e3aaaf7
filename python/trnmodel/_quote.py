"""Quotes from AWS's price list (docs/prices.md): a price per node-hour read from a Price List
offer file or from the output of ``aws pricing get-products``, for one instance type, region
and purchase mode, with the list's date, the region and the SKU it came from.

    q = tm.quote("index.json", "trn2.48xlarge", "us-east-2")
    scn = scn.updated({"prices.node_hour_usd": q.to_distribution()})
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import pathlib
from typing import Any, Dict, Mapping, Optional, Union

from . import _core
from ._distributions import Distribution
from .fields import PRICES_PURCHASE_CHOICES

PathLike = Union[str, "os.PathLike[str]"]

PURCHASE_MODES = PRICES_PURCHASE_CHOICES


@dataclasses.dataclass(frozen=True)
class Quote:
    """One price read from a price list. ``usd_per_node_hour`` is AWS's price per
    instance-hour; ``date`` (YYYY-MM-DD) is the day the list was published, the date a
    scenario records; ``effective_date`` is since when AWS has charged that price."""

    usd_per_node_hour: float
    purchase: str
    instance_type: str
    region: str
    location: str
    operating_system: str
    tenancy: str
    date: str
    publication_date: str
    effective_date: str
    sku: str
    rate_code: str
    description: str
    offer_code: str
    version: str
    format: str
    file: str
    note: str
    spec: Dict[str, Any] = dataclasses.field(repr=False, compare=False)

    @classmethod
    def _from_core(cls, q: "_core.PriceQuote") -> "Quote":
        names = [f.name for f in dataclasses.fields(cls) if f.name != "spec"]
        return cls(**{name: getattr(q, name) for name in names}, spec=q.quantity_spec)

    def to_dict(self) -> Dict[str, Any]:
        """The scenario form: ``{"dist": "fixed", "value": ..., "source": "quote", "note": ...,
        "date": ..., "region": ...}``, e.g. for ``prices.node_hour_usd``."""
        return dict(self.spec)

    def to_distribution(self) -> Distribution:
        """The price as a fixed quantity with ``source`` quote, its date and region."""
        return Distribution.from_dict(self.spec)

    def age_days(self, today: Optional[datetime.date] = None) -> int:
        """Days from the list's publication to ``today`` (default: today, UTC)."""
        day = today or datetime.datetime.now(datetime.timezone.utc).date()
        return (day - datetime.date.fromisoformat(self.date)).days

    def __str__(self) -> str:
        return (
            f"{self.instance_type} {self.purchase} in {self.region} ({self.location}): "
            f"{self.usd_per_node_hour:g} USD per node-hour, price list of {self.date} "
            f"(SKU {self.sku}, {self.operating_system}, {self.tenancy} tenancy)"
        )


class PriceList:
    """A price list read once and quoted many times (an offer file can be large)."""

    __slots__ = ("_core",)

    def __init__(self, core: "_core.PriceList") -> None:
        self._core = core

    @property
    def file(self) -> str:
        return self._core.file

    @property
    def format(self) -> str:
        """``"offer file"`` or ``"get-products"``."""
        return self._core.format

    @property
    def publication_date(self) -> str:
        return self._core.publication_date

    @property
    def offer_code(self) -> str:
        return self._core.offer_code

    @property
    def version(self) -> str:
        return self._core.version

    def __len__(self) -> int:
        return len(self._core)

    def quote(
        self,
        instance_type: str,
        region: str,
        *,
        purchase: str = "on_demand",
        operating_system: str = "Linux",
        tenancy: str = "Shared",
        pre_installed_sw: str = "NA",
        capacity_status: str = "Used",
        attributes: Optional[Mapping[str, str]] = None,
    ) -> Quote:
        """The price of ``instance_type`` in ``region`` (a code such as us-east-1 or AWS's
        location name such as "US East (N. Virginia)") bought as ``purchase`` (on_demand,
        capacity_block or spot). Exactly one product must match the filters; ``attributes``
        adds exact matches on further product attributes (e.g. ``{"licenseModel": ...}``).
        Raises :class:`tm.ScenarioError` naming the file and the rule otherwise."""
        extra = [(str(k), str(v)) for k, v in (attributes or {}).items()]
        q = _core.quote_price(
            self._core,
            instance_type,
            region,
            purchase=purchase,
            operating_system=operating_system,
            tenancy=tenancy,
            pre_installed_sw=pre_installed_sw,
            capacity_status=capacity_status,
            attributes=extra,
        )
        return Quote._from_core(q)

    def __repr__(self) -> str:
        return (
            f"PriceList({self.format} {self.file!r}: {len(self)} products, {self.offer_code or 'no offer code'}, "
            f"published {self.publication_date or 'unknown'})"
        )


def read_price_list(source: Union[PathLike, PriceList]) -> PriceList:
    """Reads an AWS Price List offer file or a saved ``aws pricing get-products`` output."""
    if isinstance(source, PriceList):
        return source
    path = pathlib.Path(os.fspath(source))
    if not path.is_file():
        raise _core.ScenarioError(f"{path}: no such price list file")
    return PriceList(_core.read_price_list_file(str(path)))


def quote(
    price_list: Union[PathLike, PriceList],
    instance_type: str,
    region: str,
    *,
    purchase: str = "on_demand",
    operating_system: str = "Linux",
    tenancy: str = "Shared",
    pre_installed_sw: str = "NA",
    capacity_status: str = "Used",
    attributes: Optional[Mapping[str, str]] = None,
) -> Quote:
    """The price per node-hour of ``instance_type`` in ``region`` from a price list (a file or
    a :class:`PriceList`); see :meth:`PriceList.quote` for the filters."""
    return read_price_list(price_list).quote(
        instance_type,
        region,
        purchase=purchase,
        operating_system=operating_system,
        tenancy=tenancy,
        pre_installed_sw=pre_installed_sw,
        capacity_status=capacity_status,
        attributes=attributes,
    )


__all__ = ["PURCHASE_MODES", "PriceList", "Quote", "quote", "read_price_list"]
