"""Progress bars for long runs (tqdm): shown only for runs that last more than about a
second, and only where someone is watching (a terminal or a Jupyter kernel)."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Optional, Union

ProgressArg = Union[None, bool, Callable[[int, int], None]]

#: A bar appears once a run has taken this long (seconds) and is not yet done.
DELAY_S = 1.0


def _interactive() -> bool:
    if "ipykernel" in sys.modules:
        try:
            from IPython import get_ipython

            shell = get_ipython()
            return shell is not None and getattr(shell, "kernel", None) is not None
        except ImportError:
            return False
    stream = sys.stderr
    return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())


def _tqdm_class() -> Any:
    try:
        import ipywidgets  # noqa: F401  (tqdm.auto needs it for a notebook widget)
        from tqdm.auto import tqdm
    except ImportError:
        from tqdm import tqdm
    return tqdm


class _Bar:
    """The engine's progress callback as a tqdm bar, which tqdm itself shows only once the run
    has lasted DELAY_S seconds (``delay=``): short runs print nothing."""

    def __init__(self, description: str) -> None:
        self.bar: Any = _tqdm_class()(
            total=None, desc=description, unit="samples", unit_scale=True, leave=False, delay=DELAY_S
        )

    def __call__(self, done: int, total: int) -> None:
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def progress_callback(progress: ProgressArg, description: str) -> tuple:
    """(callback for the engine, object to close afterwards or None).

    ``progress``: None shows a bar on interactive output for runs longer than about a second;
    True always shows one (after the same delay); False never; a callable ``f(done, total)``
    is called between waves of blocks instead."""
    if callable(progress) and not isinstance(progress, bool):
        return progress, None
    if progress is False or (progress is None and not _interactive()):
        return None, None
    if progress not in (None, True):
        from . import _core

        raise _core.ScenarioError(f"progress: must be None, True, False or a callable f(done, total), got {progress!r}")
    bar = _Bar(description)
    return bar, bar


@contextlib.contextmanager
def progress_bar(progress: ProgressArg, description: str) -> Iterator[Optional[Callable[[int, int], None]]]:
    """The engine's progress callback for ``progress`` (see :func:`progress_callback`); a bar
    it opened is closed on the way out, also when the run fails or is interrupted."""
    callback, bar = progress_callback(progress, description)
    try:
        yield callback
    finally:
        if bar is not None:
            bar.close()


Callback = Optional[Callable[[int, int], None]]


def shifted(callback: Callback, first: int, total: int) -> Callback:
    """The engine callback of one run among several: its (done, _) reported to ``callback`` as
    (first + done, total) of the whole; None without a callback."""
    if callback is None:
        return None
    whole = callback
    return lambda done, _part_total: whole(first + done, total)


def part_of(callback: Callback, first: int, total: int) -> ProgressArg:
    """The ``progress`` argument of one public call among several (see :func:`shifted`); False
    (no bar of its own) when there is no callback."""
    part = shifted(callback, first, total)
    return False if part is None else part
