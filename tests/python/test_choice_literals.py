"""Code compares choices as enums, never as spellings: C++ compares `purchase_mode::spot` and
Python `tm.fields.PurchaseMode.SPOT`, so a misspelt value fails where it is written instead of
comparing false forever. This finds every comparison (==, !=, in) of a value with a string
literal that spells a choice of the formats (include/trnmodel/choices.hpp), in include/, src/
and python/; there must be none.

Other vocabularies share spellings with the choices ("measured" is also a provenance source
and a calibrated input's status; "weibull" and "exponential" are also distribution families;
"job" is also a section of the scenario format): a comparison whose other side is named
source, status, family, method or head (a path's first section) is of those, and is not
counted. Python code is searched for the scenario format's choices only: journals are read in
C++, and their own choices (units, causes, scopes: "s", "other", "job") never reach Python as
values to compare, while the same words do as labels."""

import ast
import pathlib
import re
from typing import List, Set

from code_files import code_files
from trnmodel import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
OTHER_VOCABULARIES = {"source", "status", "family", "method", "head"}
EXEMPT = {ROOT / "python" / "trnmodel" / "fields.py"}  # generated: the enums themselves


def spellings() -> Set[str]:
    """Every choice's spellings (choices.hpp), for C++."""
    found = {s for _, names in _core.choices() for s in names}
    assert {"spot", "measured", "lora", "node_health_check"} <= found  # the table was read
    return found


def scenario_spellings() -> Set[str]:
    """The spellings of the scenario format's choice fields, for Python."""
    found = {s for f in _core.scenario_fields() for s in f.choices}
    assert {"spot", "measured", "lora"} <= found and "node_health_check" not in found
    return found


def _names_other_vocabulary(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in OTHER_VOCABULARIES
    if isinstance(node, ast.Name):
        return node.id in OTHER_VOCABULARIES
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value in OTHER_VOCABULARIES
    return False


def _literals(node: ast.AST) -> List[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def python_comparisons(text: str, names: Set[str]) -> List[str]:
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if any(_names_other_vocabulary(o) for o in operands):
            continue
        found += [f"{node.lineno}: {s!r}" for o in operands for s in _literals(o) if s in names]
    return found


# `x == "spot"`, `"spot" != x`: the other side is the identifier-ish text next to the operator.
_CPP_LEFT = re.compile(r'([\w.\->()\[\]]+)\s*(?:==|!=)\s*"([a-z_0-9]+)"')
_CPP_RIGHT = re.compile(r'"([a-z_0-9]+)"\s*(?:==|!=)\s*([\w.\->()\[\]]+)')


def cpp_comparisons(text: str, names: Set[str]) -> List[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("//")[0]
        pairs = [(m.group(1), m.group(2)) for m in _CPP_LEFT.finditer(line)]
        pairs += [(m.group(2), m.group(1)) for m in _CPP_RIGHT.finditer(line)]
        for other, literal in pairs:
            last = re.findall(r"\w+", other)[-1:] or [""]
            if literal in names and last[0] not in OTHER_VOCABULARIES:
                found.append(f"{number}: {literal!r}")
    return found


def choice_comparisons(root: pathlib.Path = ROOT) -> List[str]:
    names, scenario_names = spellings(), scenario_spellings()
    found = []
    for file, text in code_files(root, EXEMPT):
        if file.suffix == ".py":
            hits = python_comparisons(text, scenario_names)
        else:
            hits = cpp_comparisons(text, names)
        found += [f"{file}:{hit}" for hit in hits]
    return found


def test_no_choice_is_compared_as_a_string():
    assert choice_comparisons() == []


def test_the_search_finds_a_comparison(tmp_path):
    # One comparison of a choice in each language is found; comparisons of the other
    # vocabularies, assignments and dictionary keys are not.
    (tmp_path / "include").mkdir()
    (tmp_path / "python").mkdir()
    (tmp_path / "include" / "a.hpp").write_text(
        'if (s.text(f) == "spot") {}\nif (input.status == "measured") {}\nq.source = "measured";\n'
        'if (family == "weibull") {}\nif (x.cause == "other") {}\nif (head == "job") {}\n'
    )
    (tmp_path / "python" / "b.py").write_text(
        'a = mode in ("measured", "flops")\nb = row.source == "measured"\nc = {"spot": 1}\nd = r["status"] != "measured"\n'
    )
    assert choice_comparisons(tmp_path) == [
        "include/a.hpp:1: 'spot'",
        "include/a.hpp:5: 'other'",
        "python/b.py:1: 'measured'",
        "python/b.py:1: 'flops'",
    ]
