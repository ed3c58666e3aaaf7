"""Exceptions shared with the C++ core (DESIGN §12-§13)."""
from __future__ import annotations

from . import _core

#: Bad input: a ValueError whose message names the path, the value and the rule.
ScenarioError = _core.ScenarioError
ScenarioError.__doc__ = "Bad input (a ValueError): the message names the JSON path, the value and the rule."

#: A computation needs inputs marked unknown; ``.paths`` lists every one of them.
UnknownInputError = _core.UnknownInputError
UnknownInputError.__doc__ = (
    "A ScenarioError raised when a result needs inputs marked unknown; `.paths` lists them all."
)

__all__ = ["ScenarioError", "UnknownInputError"]
