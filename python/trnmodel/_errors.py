"""Exceptions shared with the C++ core (docs/scenario.md, "Errors"), and the project's warnings."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List

from . import _core

#: Bad input: a ValueError whose message names the path, the value and the rule.
ScenarioError = _core.ScenarioError
ScenarioError.__doc__ = "Bad input (a ValueError): the message names the JSON path, the value and the rule."


def _problems(self: BaseException) -> list[str]:
    return list(getattr(self, "_problems", None) or [str(self)])


# A property on the class the C++ module made: its instances carry the list as _problems.
setattr(  # noqa: B010
    ScenarioError,
    "problems",
    property(
        _problems,
        doc="Every problem the validation found, one '<path>: <rule>, got <value>' each "
        "(a file with five mistakes gets five; the message lists them too).",
    ),
)

#: A computation needs inputs marked unknown; ``.paths`` lists every one of them.
UnknownInputError = _core.UnknownInputError
UnknownInputError.__doc__ = "A ScenarioError raised when a result needs inputs marked unknown; `.paths` lists them all."


class UnknownFieldError(ScenarioError, KeyError):
    """A path that names no scenario field, with the closest field as a hint (the message
    :meth:`Scenario.updated` gives): a ScenarioError, and a KeyError for ``scenario[path]``."""

    __str__ = BaseException.__str__  # the message as given, not KeyError's quoted repr


class CompletenessWarning(UserWarning):
    """A scenario is almost surely incomplete for its platform (a Neuron job without a compile
    time, a multi-node job without failures, failures without checkpoints, a quote without a
    date, a measured step time reused at another node count): the estimate is likely low."""


class PlausibilityWarning(UserWarning):
    """A value is legal but almost surely a unit mistake (40 training tokens, a node MTBF in
    seconds, a price per chip typed as per node): the message says what was probably meant."""


def scenario_error(message: str, problems: List[str]) -> Any:
    """A ScenarioError whose ``.problems`` are ``problems`` (its message says them all)."""
    error: Any = ScenarioError(message)
    error._problems = list(problems)
    return error


@contextlib.contextmanager
def in_file(path: Any) -> Iterator[None]:
    """Prefixes the message of a ScenarioError raised inside with the file it came from, so
    that commands reading several files say which one is wrong."""
    try:
        yield
    except ScenarioError as e:
        if type(e) is not ScenarioError or str(e).startswith(f"{path}:"):
            raise
        raise scenario_error(f"{path}: {e}", [f"{path}: {p}" for p in e.problems]) from None


__all__ = [
    "scenario_error",
    "ScenarioError",
    "UnknownInputError",
    "CompletenessWarning",
    "PlausibilityWarning",
    "in_file",
]
