"""Code names scenario fields by id, never by a string: a C++ `field::cluster_nodes` or a Python
`tm.fields.CLUSTER_NODES` cannot be misspelt silently, a "cluster.nodez" can. This counts the
string literals equal to a dotted field path in include/, src/ and python/, outside the field
table (scenario/fields.hpp) and its generated Python twin (fields.py); there must be none."""

import ast
import io
import pathlib
import re
import tokenize
from typing import List

from code_files import code_files

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = ROOT / "include" / "trnmodel" / "scenario" / "fields.hpp"
EXEMPT = {TABLE, ROOT / "python" / "trnmodel" / "fields.py"}


def field_paths() -> set:
    rows = re.findall(r'X\([a-z_0-9]+, "([a-z_.0-9]+)"', TABLE.read_text(encoding="utf-8"))
    assert len(rows) > 100  # the table was read
    return {p for p in rows if "." in p}  # "name" and the like are also other formats' keys


def cpp_strings(text: str) -> List[str]:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    found = []
    for line in text.splitlines():
        line = re.sub(r'R"\((.*?)\)"', "", line)  # raw JSON texts are data, not names
        for literal in re.findall(r'"((?:[^"\\]|\\.)*)"|//.*', line):
            found.append(literal)
    return found


def python_strings(text: str) -> List[str]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):  # f-strings
                continue
            if isinstance(value, str):
                found.append(value)
    return found


def path_literals(root: pathlib.Path = ROOT) -> List[str]:
    paths = field_paths()
    found = []
    for file, text in code_files(root, EXEMPT):
        strings = python_strings(text) if file.suffix == ".py" else cpp_strings(text)
        found += [f"{file}: {s!r}" for s in strings if s in paths]
    return found


def test_no_field_path_is_spelt_as_a_string_outside_the_table():
    assert path_literals() == []


def test_the_count_finds_a_literal(tmp_path):
    # The same count over a tree with one literal in C++ and one in Python, and the same paths
    # in a comment, a raw JSON text and an f-string, which are not names in code.
    (tmp_path / "include").mkdir()
    (tmp_path / "python").mkdir()
    (tmp_path / "include" / "a.hpp").write_text(
        '// "cluster.nodes" in a comment\nauto p = "cluster.nodes";\nauto j = R"({"a": "cluster.nodes"})";\n'
    )
    (tmp_path / "python" / "b.py").write_text('x = "checkpoint.save_s"\ny = f"{x} checkpoint.save_s"\n')
    assert path_literals(tmp_path) == ["include/a.hpp: 'cluster.nodes'", "python/b.py: 'checkpoint.save_s'"]
