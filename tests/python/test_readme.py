"""The README's Python examples run as written (from the repository root)."""

import pathlib
import re
import warnings

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_readme_python_blocks_run(monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        # A reader sees calibration's JournalWarnings (three runs are few); nothing else may warn.
        warnings.simplefilter("always")
        for block in blocks:
            exec(compile(block, "README.md", "exec"), namespace)
    assert all(issubclass(w.category, tm.JournalWarning) for w in caught), [str(w.message) for w in caught]
    assert namespace["res"].samples == 100_000
