"""The README's Python examples run as written (from the repository root)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_readme_python_blocks_run(monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["res"].samples == 100_000
