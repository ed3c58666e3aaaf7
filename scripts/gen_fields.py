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

HEAD = '''"""The scenario format's field paths as constants, for code that names fields: a misspelt
constant is an AttributeError at once (and tab-completes in Jupyter), where a misspelt string
would reach the loader. ``tm.fields.CHECKPOINT_EVERY_STEPS == "checkpoint.every_steps"``;
``tm.fields.ALL`` lists every path in format order; each choice field's spellings are
``<NAME>_CHOICES`` (``tm.fields.PRICES_PURCHASE_CHOICES``). Generated from the C++ field table by
scripts/gen_fields.py; do not edit by hand."""

from typing import Tuple

'''


def render() -> str:
    from trnmodel import _core

    lines = [HEAD]
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
