"""Writes python/trnmodel/fields.py: the scenario format's field paths as constants, one per row
of the C++ field table (include/trnmodel/scenario/fields.hpp), named as the C++ ids in capitals.

    python scripts/gen_fields.py          # rewrites the file from the built module
    python scripts/gen_fields.py --check  # exit 1 when the file is stale

tests/python/test_fields_module.py fails when the file and the table disagree."""

from __future__ import annotations

import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARGET = ROOT / "python" / "trnmodel" / "fields.py"

HEAD = '''"""The scenario format's field paths and the formats' choices as constants, for code that
names them: a misspelt constant is an AttributeError at once (and tab-completes in Jupyter),
where a misspelt string would reach the loader. ``tm.fields.CHECKPOINT_EVERY_STEPS ==
"checkpoint.every_steps"``; ``tm.fields.ALL`` lists every path in format order; each choice field's
spellings are ``<NAME>_CHOICES`` (``tm.fields.PRICES_PURCHASE_CHOICES``), and each choice is an
enum of str whose members equal the spellings (``tm.fields.PurchaseMode.SPOT == "spot"``), so
code compares members, never spellings. Generated from the C++ field table and choices.hpp by
scripts/gen_fields.py; do not edit by hand."""

import enum
from typing import Tuple


class Choice(str, enum.Enum):
    """A spelling of a choice: a str equal to the spelling, printed and formatted as it."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
'''


#: The choices of tm.read_log (docs/importing.md), not of a file format.
IMPORT_CHOICES = ("log_format", "metric_meaning")


def _load_core():
    """The compiled module alone: the package's __init__ imports fields.py, which may be the
    stale file this script is about to rewrite."""
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec("trnmodel")
    assert spec is not None and spec.submodule_search_locations, "install the package first (make install)"
    folder = pathlib.Path(next(iter(spec.submodule_search_locations)))
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    binary = next(p for p in folder.iterdir() if p.name.startswith("_core") and p.name.endswith(suffixes))
    core_spec = importlib.util.spec_from_file_location("trnmodel._core", binary)
    assert core_spec is not None and core_spec.loader is not None
    module = importlib.util.module_from_spec(core_spec)
    core_spec.loader.exec_module(module)
    return module


def render() -> str:
    _core = _load_core()

    lines = [HEAD]
    users: dict = {}
    for field in _core.scenario_fields():
        if field.kind == "choice":
            users.setdefault(field.choice_type, []).append(field.path)
    for type_name, spellings in _core.choices():
        class_name = "".join(part.capitalize() for part in type_name.split("_"))
        used = ", ".join(users.get(type_name, []))
        if used:
            what = f"The spellings of {used}"
        elif type_name in IMPORT_CHOICES:
            what = "A choice of the log importers (docs/importing.md)"
        else:
            what = "A choice of the journal format (docs/journal.md)"
        lines.append(f"\n\nclass {class_name}(Choice):\n")
        lines.append(f'    """{what} (C++: trnmodel::{type_name})."""\n\n')
        lines.extend(f'    {spelling.upper()} = "{spelling}"\n' for spelling in spellings)
    lines.append("\n\n")
    names = []
    for field in _core.scenario_fields():
        name = field.path.replace(".", "_").upper()
        names.append(name)
        doc = " ".join(field.doc.split())
        for part in textwrap.wrap(f"{field.kind}: {doc}", width=110):
            lines.append(f"#: {part}\n")
        lines.append(f'{name} = "{field.path}"\n')
        if field.kind == "choice":
            lines.append(f"#: The spellings {field.path} allows.\n")
            spellings = ", ".join(f'"{c}"' for c in field.choices)
            lines.append(f"{name}_CHOICES: Tuple[str, ...] = ({spellings})\n")
    fields = _core.scenario_fields()
    blocks = [k for k in _core.stage_keys() if any(f.path.startswith(k + ".") for f in fields)]
    lines.append("\n#: The blocks a stage may give (the others belong to the whole job), in the format's order.\n")
    lines.append("STAGE_BLOCKS: Tuple[str, ...] = (\n")
    lines.extend(f'    "{b}",\n' for b in blocks)
    lines.append(")\n")
    lines.append("\n#: Every field path, in the format's order.\n")
    lines.append("ALL: Tuple[str, ...] = (\n")
    lines.extend(f"    {name},\n" for name in names)
    lines.append(")\n")
    return "".join(lines)


def main(argv: list) -> int:
    text = render()
    if argv[1:] == ["--check"]:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: python scripts/gen_fields.py")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
