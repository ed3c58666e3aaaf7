"""One way to show a result (as iminuit's FMin does): ``repr`` is one line, IPython's pretty
printer shows the text table, Jupyter the HTML card. Classes give ``__repr__``, ``_text()``
and ``_repr_html_()``."""

from __future__ import annotations

from typing import Any


class Display:
    """Mixin: ``_repr_pretty_`` prints ``_text()`` (the one-line repr inside a cycle)."""

    __slots__ = ()

    def _text(self) -> str:
        return repr(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self) if cycle else self._text())

    def __str__(self) -> str:
        return self._text()
