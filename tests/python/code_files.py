"""The project's code files that the literal searches read (test_path_literals.py,
test_choice_literals.py): every .hpp, .cpp and .py under include/, src/ and python/."""

import pathlib
from typing import Collection, Iterator, Tuple


def code_files(root: pathlib.Path, exempt: Collection[pathlib.Path] = ()) -> Iterator[Tuple[pathlib.Path, str]]:
    """(path relative to root, text) of each code file, in a stable order, the exempt ones left out."""
    for folder in ("include", "src", "python"):
        for file in sorted((root / folder).rglob("*")):
            if file in exempt or file.suffix not in (".hpp", ".cpp", ".py"):
                continue
            yield file.relative_to(root), file.read_text(encoding="utf-8")
