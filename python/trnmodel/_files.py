"""Reading the package's input files: UTF-8 text, and which kind of document a file is."""

from __future__ import annotations

import pathlib
from typing import Union

from . import _core

JOURNAL_TAG = '"trnmodel.journal/1"'
SCENARIO_TAG = '"trnmodel.scenario/1"'


def read_utf8(path: pathlib.Path, kind: str) -> str:
    """A file's text; a missing file or bytes that are not UTF-8 are refused naming the file."""
    if not path.is_file():
        raise _core.ScenarioError(f"{path}: no such {kind} file")
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(f"{path}: not UTF-8 text (byte {e.start}: {raw[e.start : e.start + 1]!r})") from None


def is_journal_text(text: str) -> bool:
    """Whether a document's text is a trial-run journal rather than a scenario: it names the
    journal schema near its start and never the scenario schema."""
    return JOURNAL_TAG in text[:2000] and SCENARIO_TAG not in text


def is_journal_file(path: Union[str, pathlib.Path]) -> bool:
    """:func:`is_journal_text` of a file; False when it cannot be read (the loader says why)."""
    try:
        return is_journal_text(pathlib.Path(path).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return False
