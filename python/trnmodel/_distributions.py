"""Uncertain quantities (docs/distributions.md): thin Python facades over the C++ distributions.

Each class builds the JSON form of its distribution and hands it to the C++ loader, so
validation, error messages, sampling and serialisation are the same from Python, from C++
and from a scenario file. Sampling is by inverse CDF, ``x = ppf(u)``.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Type, Union

import numpy as np

from . import _core

ArrayLike = Union[float, Iterable[float], np.ndarray]

_PROVENANCE = ("source", "note", "date", "region")


class Distribution:
    """An uncertain quantity. Use a family class (``tm.Uniform``, ``tm.LogNormal`` ...) or
    :meth:`Distribution.from_dict`.

    Every distribution may carry provenance: ``source`` (``"measured"``, ``"vendor"``,
    ``"quote"``, ``"assumption"``, ``"model"``), ``note``, and for quotes ``date``
    (YYYY-MM-DD) and ``region``. Reports list assumptions and unknowns separately.
    """

    __slots__ = ("_core",)

    def __init__(self, spec: Union[float, Mapping[str, Any]], *, _path: Optional[str] = None) -> None:
        self._core = _core.Quantity(spec, _path or f"tm.{type(self).__name__}")

    # -- construction -----------------------------------------------------------------
    @staticmethod
    def from_dict(spec: Union[float, Mapping[str, Any]]) -> "Distribution":
        """The distribution of a JSON-style spec: a number, ``{"dist": ...}`` or ``{"unknown": ...}``."""
        return as_distribution(spec)

    @staticmethod
    def _spec(family: str, params: Mapping[str, Any], provenance: Mapping[str, Any]) -> dict:
        spec = {"dist": family}
        spec.update({k: v for k, v in params.items() if v is not None})
        spec.update({k: v for k, v in provenance.items() if v is not None})
        return spec

    # -- the contract: ppf, cdf, mean, sample, to_dict --------------------------------
    @property
    def family(self) -> str:
        """The family name as written in JSON (``"lognormal"``, ``"pert"`` ...)."""
        return self._core.family

    def ppf(self, u: ArrayLike) -> Union[float, np.ndarray]:
        """Quantile function: the value below which a fraction ``u`` of the mass lies.
        ``u`` is a probability in [0, 1] (scalar or array); returns the same shape."""
        arr = np.asarray(u, dtype=np.float64)
        out = self._core.ppf(arr)
        return float(out) if arr.ndim == 0 else out

    def cdf(self, x: ArrayLike) -> Union[float, np.ndarray]:
        """Distribution function P(X ≤ x), scalar or array."""
        arr = np.asarray(x, dtype=np.float64)
        out = self._core.cdf(arr)
        return float(out) if arr.ndim == 0 else out

    def mean(self) -> float:
        """The exact mean of the distribution that ``ppf`` samples."""
        return self._core.mean()

    def support(self) -> tuple:
        """(lowest, highest) value a draw can take (may be ±inf)."""
        return tuple(self._core.support())

    def sample(self, n: int, seed: int = 0) -> np.ndarray:
        """``n`` draws, ``ppf(u_i)`` with ``u_i`` the Philox uniform of sample ``i`` on stream 0
        under ``seed``: the same numbers on every machine and thread count."""
        if isinstance(n, bool) or int(n) != n or n < 0:
            raise _core.ScenarioError(f"n: must be a whole number ≥ 0, got {n!r}")
        return self._core.sample(int(n), int(seed))

    def to_dict(self) -> Union[float, dict]:
        """The JSON form (a plain number for a fixed value without provenance)."""
        return self._core.to_obj()

    @property
    def is_unknown(self) -> bool:
        return self._core.is_unknown

    # -- display ------------------------------------------------------------------------
    def __repr__(self) -> str:
        spec = self.to_dict()
        if not isinstance(spec, dict):
            return f"Fixed({spec!r})"
        args = ", ".join(f"{k}={v!r}" for k, v in spec.items() if k != "dist")
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Distribution) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(repr(self))


class Fixed(Distribution):
    """A known value."""

    def __init__(self, value: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec("fixed", {"value": value}, dict(source=source, note=note, date=date, region=region))
        )


class Uniform(Distribution):
    """Uniform on [lo, hi]; needs lo < hi."""

    def __init__(self, lo: float, hi: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec("uniform", {"lo": lo, "hi": hi}, dict(source=source, note=note, date=date, region=region))
        )


class Normal(Distribution):
    """Normal(mean, sd), optionally truncated to [lo, hi] (either bound may be omitted)."""

    def __init__(
        self,
        mean: float,
        sd: float,
        lo: Optional[float] = None,
        hi: Optional[float] = None,
        *,
        source=None,
        note=None,
        date=None,
        region=None,
    ) -> None:
        super().__init__(
            self._spec(
                "normal",
                {"mean": mean, "sd": sd, "lo": lo, "hi": hi},
                dict(source=source, note=note, date=date, region=region),
            )
        )


class LogNormal(Distribution):
    """exp(Normal(mu, sigma)). ``LogNormal.from_quantiles(p50=..., p90=...)`` gives the one
    with that median and 90th percentile, the usual way to write a measured spread."""

    def __init__(self, mu: float, sigma: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec(
                "lognormal", {"mu": mu, "sigma": sigma}, dict(source=source, note=note, date=date, region=region)
            )
        )

    @classmethod
    def from_quantiles(cls, p50: float, p90: float, *, source=None, note=None, date=None, region=None) -> "LogNormal":
        """The lognormal whose median is ``p50`` and 90th percentile ``p90`` (0 < p50 < p90)."""
        obj = cls.__new__(cls)
        Distribution.__init__(
            obj,
            cls._spec("lognormal", {"p50": p50, "p90": p90}, dict(source=source, note=note, date=date, region=region)),
            _path="tm.LogNormal.from_quantiles",
        )
        return obj


class Triangular(Distribution):
    """Triangular on [lo, hi] with its peak at mode; lo ≤ mode ≤ hi, lo < hi."""

    def __init__(self, lo: float, mode: float, hi: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec(
                "triangular",
                {"lo": lo, "mode": mode, "hi": hi},
                dict(source=source, note=note, date=date, region=region),
            )
        )


class PERT(Distribution):
    """PERT on [lo, hi] with mode: Beta(1 + 4(mode-lo)/(hi-lo), 1 + 4(hi-mode)/(hi-lo)) rescaled.
    Mean (lo + 4 mode + hi) / 6. The usual three-point expert estimate."""

    def __init__(self, lo: float, mode: float, hi: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec(
                "pert", {"lo": lo, "mode": mode, "hi": hi}, dict(source=source, note=note, date=date, region=region)
            )
        )


class Gamma(Distribution):
    """Gamma(shape k, scale θ): mean kθ."""

    def __init__(self, shape: float, scale: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec(
                "gamma", {"shape": shape, "scale": scale}, dict(source=source, note=note, date=date, region=region)
            )
        )


class Weibull(Distribution):
    """Weibull(shape k, scale λ): P(X > x) = exp(-(x/λ)^k)."""

    def __init__(self, shape: float, scale: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec(
                "weibull", {"shape": shape, "scale": scale}, dict(source=source, note=note, date=date, region=region)
            )
        )


class Exponential(Distribution):
    """Exponential with the given mean (> 0)."""

    def __init__(self, mean: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(
            self._spec("exponential", {"mean": mean}, dict(source=source, note=note, date=date, region=region))
        )


class Beta(Distribution):
    """Beta(a, b) on [0, 1], or rescaled to [lo, hi]."""

    def __init__(
        self,
        a: float,
        b: float,
        lo: Optional[float] = None,
        hi: Optional[float] = None,
        *,
        source=None,
        note=None,
        date=None,
        region=None,
    ) -> None:
        super().__init__(
            self._spec(
                "beta", {"a": a, "b": b, "lo": lo, "hi": hi}, dict(source=source, note=note, date=date, region=region)
            )
        )


class Bernoulli(Distribution):
    """1 with probability p, else 0 (sampled as 1 when u > 1 - p)."""

    def __init__(self, p: float, *, source=None, note=None, date=None, region=None) -> None:
        super().__init__(self._spec("bernoulli", {"p": p}, dict(source=source, note=note, date=date, region=region)))


class Empirical(Distribution):
    """Measured values; the quantile interpolates linearly between order statistics
    (NumPy's default 'linear' method), so ``ppf(q) == numpy.quantile(samples, q)``."""

    def __init__(self, samples: Iterable[float], *, source=None, note=None, date=None, region=None) -> None:
        values = np.asarray(samples, dtype=np.float64).ravel().tolist()
        super().__init__(
            self._spec("empirical", {"samples": values}, dict(source=source, note=note, date=date, region=region))
        )


Component = Union[Distribution, float, Mapping[str, Any]]


class Mixture(Distribution):
    """With probability ``weight`` the value follows that component: ``Mixture([(0.8,
    LogNormal.from_quantiles(p50=3.65, p90=5.11)), (0.2, LogNormal.from_quantiles(p50=4.75,
    p90=6.64))], source="assumption", note="20 % chance the ported kernel is 1.3x slower")``.

    Weights are > 0 and sum to 1 (within 1e-9); a component is any distribution but an
    Unknown or a Mixture (a number is a fixed value), without provenance of its own: give it
    on the mixture. The quantile is the inverse of the mixture's CDF, monotone in ``u``
    (docs/distributions.md, "Mixtures"); a draw costs a few component CDF evaluations.
    """

    def __init__(
        self, components: Iterable[Tuple[float, Component]], *, source=None, note=None, date=None, region=None
    ) -> None:
        parts = []
        for k, item in enumerate(components):
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise _core.ScenarioError(
                    f"tm.Mixture.components[{k}]: must be a (weight, distribution) pair, got {item!r}"
                )
            weight, component = item
            # {"weight": w, "value": Q}, Q as a field takes it: a number or a distribution object
            # (the loader refuses an unknown, a mixture or provenance in it, at this path).
            value = as_distribution(component, f"tm.Mixture.components[{k}].value").to_dict()
            parts.append({"weight": weight, "value": value})
        super().__init__(
            self._spec("mixture", {"components": parts}, dict(source=source, note=note, date=date, region=region))
        )

    @property
    def components(self) -> List[Tuple[float, Distribution]]:
        """The (weight, distribution) pairs, in the order given."""
        spec = self.to_dict()
        assert isinstance(spec, dict)
        return [(c["weight"], as_distribution(c["value"])) for c in spec["components"]]

    def __repr__(self) -> str:
        spec = self.to_dict()
        assert isinstance(spec, dict)
        parts = ", ".join(f"({w!r}, {d!r})" for w, d in self.components)
        rest = "".join(f", {k}={spec[k]!r}" for k in _PROVENANCE if k in spec)
        return f"Mixture([{parts}]{rest})"


class Unknown(Distribution):
    """A value nobody knows yet. Results that need it raise UnknownInputError (or are NaN with
    ``allow_unknown=True``): an unknown is never silently replaced by a guess."""

    def __init__(self, reason: str, *, note: Optional[str] = None) -> None:
        spec = {"unknown": reason}
        if note is not None:
            spec["note"] = note
        super().__init__(spec)

    @property
    def reason(self) -> str:
        spec = self.to_dict()
        return spec["unknown"] if isinstance(spec, dict) else ""


_FAMILIES: Dict[str, Type[Distribution]] = {
    "fixed": Fixed,
    "uniform": Uniform,
    "normal": Normal,
    "lognormal": LogNormal,
    "triangular": Triangular,
    "pert": PERT,
    "gamma": Gamma,
    "weibull": Weibull,
    "exponential": Exponential,
    "beta": Beta,
    "bernoulli": Bernoulli,
    "empirical": Empirical,
    "mixture": Mixture,
    "unknown": Unknown,
}


def as_distribution(value: Union[Distribution, float, Mapping[str, Any]], path: str = "quantity") -> Distribution:
    """A Distribution from a Distribution, a number or a JSON-style dict."""
    if isinstance(value, Distribution):
        return value
    quantity = _core.Quantity(value, path)
    cls = _FAMILIES.get(quantity.family, Distribution)
    obj = cls.__new__(cls)
    obj._core = quantity
    return obj


__all__ = [
    "Distribution",
    "Fixed",
    "Uniform",
    "Normal",
    "LogNormal",
    "Triangular",
    "PERT",
    "Gamma",
    "Weibull",
    "Exponential",
    "Beta",
    "Bernoulli",
    "Empirical",
    "Mixture",
    "Unknown",
    "as_distribution",
]
