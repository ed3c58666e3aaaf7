"""The shape of the package: typed bindings whose stubs match the module, no import cycles,
one signature for every call that runs Monte Carlo, documented table orders, one way to
display a result, summaries computed once, and mypy clean."""

from __future__ import annotations

import ast
import importlib.resources
import inspect
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import trnmodel as tm
import trnmodel._core as core

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "trnmodel"
LORA_TRN2 = ROOT / "examples" / "llama3-8b-lora-trn2.json"
LORA_P5 = ROOT / "examples" / "llama3-8b-lora-p5.json"


def _stub() -> ast.Module:
    return ast.parse(importlib.resources.files("trnmodel").joinpath("_core.pyi").read_text(encoding="utf-8"))


def _doc_parameters(doc: str, name: str) -> list:
    """Parameter names of pybind11's first signature line ``name(a: T, *, b: U = 1) -> R``."""
    line = next(line for line in doc.splitlines() if line.startswith(name + "("))
    inside, depth, params, current = line[len(name) + 1 :], 0, [], ""
    for c in inside:
        if c in "([" and not (depth == 0 and c == ")"):
            depth += c in "(["
        if c in ")]":
            if depth == 0:
                break
            depth -= 1
        if c == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += c
    params.append(current)
    names = [p.split(":")[0].split("=")[0].strip() for p in params if p.strip()]
    return [n for n in names if n != "self"]


def _stub_parameters(node: ast.FunctionDef) -> list:
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.kwonlyargs:
        names += ["*"] + [a.arg for a in args.kwonlyargs]
    return [n for n in names if n != "self"]


def _module_callables() -> dict:
    out = {}
    for name in dir(core):
        obj = getattr(core, name)
        if name.startswith("_"):
            continue
        if isinstance(obj, type):
            for method, value in vars(obj).items():
                if callable(value) and not method.startswith("_") or method in ("__init__", "__getitem__"):
                    doc = getattr(value, "__doc__", "") or ""
                    if isinstance(value, staticmethod):
                        doc = value.__func__.__doc__ or ""
                    if f"{method}(" in doc:
                        out[f"{name}.{method}"] = (method, doc)
        elif callable(obj) and obj.__doc__:
            out[name] = (name, obj.__doc__)
    return out


def test_bindings_name_every_argument_and_the_stubs_match():
    stub_functions = {}
    for node in _stub().body:
        if isinstance(node, ast.FunctionDef):
            stub_functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    stub_functions[f"{node.name}.{item.name}"] = item
    checked = 0
    for qualified, (name, doc) in _module_callables().items():
        params = _doc_parameters(doc, name)
        unnamed = [p for p in params if re.fullmatch(r"arg\d+", p)]
        assert not unnamed, f'{qualified}: name its arguments ("name"_a), got {params}'
        assert qualified in stub_functions, f"declare {qualified} in _core.pyi"
        assert _stub_parameters(stub_functions[qualified]) == params, f"{qualified}: the stub's parameters differ"
        checked += 1
    assert checked > 40


def test_results_cross_the_binding_as_classes():
    scn = tm.Scenario.from_json(LORA_TRN2)
    info = core.lifecycle_info(scn._core)
    assert isinstance(info, core.LifecycleInfo) and info.mode == "measured" and info.uncertain_inputs
    fields = core.scenario_fields()
    assert all(isinstance(f, core.ScenarioField) for f in fields)
    assert {f.path for f in fields} >= {"cluster.nodes", "checkpoint.every_steps"}
    t = core.tornado(
        scn._core, "wall_h", probability=-1, samples=200, seed=0, threads=1, low=0.1, high=0.9, progress=None
    )
    assert isinstance(t, core.TornadoResult) and all(isinstance(b, core.TornadoBar) for b in t.bars)
    model = core.LifecycleModel(scn._core)
    assert isinstance(model.info, core.LifecycleInfo) and model.info.uncertain_inputs == info.uncertain_inputs
    with pytest.raises(TypeError):
        model.simulate(10, 0, 1, True, False, None)  # keyword-only


def _imports(path: pathlib.Path) -> set:
    """The package modules a module imports, anywhere in it (function-level imports count)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("trnmodel."):
            out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith("trnmodel.")}
    return out


def test_the_package_imports_without_cycles():
    modules = {p.stem: p for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    graph = {name: {m for m in _imports(path) if m in modules} for name, path in modules.items()}
    state: dict = {}

    def visit(name: str, trail: list) -> None:
        state[name] = "open"
        for child in sorted(graph[name]):
            if state.get(child) == "open":
                raise AssertionError("import cycle: " + " -> ".join(trail + [name, child]))
            if child not in state:
                visit(child, trail + [name])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    # The leaves import nothing of the package but the compiled core and the field paths.
    assert graph["fields"] == set()
    for leaf in ("_format", "_metrics", "_display", "_files", "_html"):
        assert graph[leaf] <= {"_format", "_metrics", "_core", "fields"}, (leaf, graph[leaf])


MONTE_CARLO_CALLS = [
    tm.simulate,
    tm.monte_carlo,
    tm.sobol,
    tm.sobol_function,
    tm.tornado,
    tm.rank_correlations,
    tm.compare,
    tm.sweep,
    tm.checkpoint_interval,
    tm.purchase_options,
    tm.search_parallelism,
    tm.backtest,
    tm.Comparison.break_even,
    tm.report,
]


@pytest.mark.parametrize("call", MONTE_CARLO_CALLS, ids=lambda f: f.__qualname__)
def test_every_monte_carlo_call_takes_seed_threads_and_progress(call):
    parameters = inspect.signature(call).parameters
    assert {"seed", "threads", "progress"} <= set(parameters), call.__qualname__


def test_progress_reaches_every_kind_of_run():
    scn = tm.Scenario.from_json(LORA_TRN2)
    for run in (
        lambda p: tm.tornado(scn, samples=500, progress=p),
        lambda p: tm.sweep(scn, {"checkpoint.every_steps": [250, 500]}, samples=500, progress=p),
        lambda p: tm.compare(scn, scn.updated({"prices.node_hour_usd": 50}), samples=500).break_even(
            "prices.node_hour_usd", progress=p
        ),
    ):
        calls: list = []
        run(lambda done, total, calls=calls: calls.append((done, total)))
        assert calls and all(done <= total for done, total in calls)
    sweep_calls: list = []
    tm.sweep(scn, {"checkpoint.every_steps": [250, 500]}, samples=500, progress=lambda d, t: sweep_calls.append((d, t)))
    assert sweep_calls[-1] == (1000, 1000)  # one count over the whole grid
    with pytest.raises(tm.ScenarioError, match="progress: must be None, True, False or a callable"):
        tm.tornado(scn, samples=100, progress="yes")


def test_sensitivity_tables_come_in_their_documented_order():
    scn = tm.Scenario.from_json(LORA_TRN2)
    bars = tm.tornado(scn, samples=2000)
    swing = bars["swing"].to_numpy()
    finite = swing[np.isfinite(swing)]
    assert (np.diff(finite) <= 0).all() and np.isfinite(swing[: len(finite)]).all()  # largest first, NaN last
    res = tm.simulate(scn, samples=3000, seed=1)
    rank = tm.rank_correlations(res)
    prcc = np.abs(rank["prcc"].to_numpy())
    assert (np.diff(prcc[np.isfinite(prcc)]) <= 0).all()
    sob = tm.sobol(scn, base_samples=128)
    assert sorted(sob.index) == sorted(res.uncertain_inputs + ["chance"])
    st = sob["ST"].to_numpy()
    assert (np.diff(st[np.isfinite(st)]) <= 0).all() and np.isfinite(st[: np.isfinite(st).sum()]).all()
    assert "largest first" in tm._sensitivity.__doc__


class _Printer:
    """IPython's pretty printer, as far as _repr_pretty_ uses it."""

    def __init__(self, out: list) -> None:
        self.out = out

    def text(self, s: str) -> None:
        self.out.append(s)


def test_every_result_displays_one_line_pretty_text_and_html():
    scn = tm.Scenario.from_json(LORA_TRN2)
    results = [
        tm.monte_carlo(lambda x: x[:, 0], {"a": tm.Uniform(0, 1)}, samples=1000),
        tm.simulate(scn, samples=1000),
        tm.compare(scn, tm.Scenario.from_json(LORA_P5), samples=1000),
    ]
    for r in results:
        text = repr(r)
        assert "\n" not in text and text.startswith("<")
        printed: list = []

        r._repr_pretty_(_Printer(printed), False)
        assert printed[0].startswith(text) and "\n" in printed[0]
        r._repr_pretty_(_Printer(printed), True)
        assert printed[1] == text
        assert r._repr_html_().startswith("<style>")


def test_summary_is_computed_once_and_cannot_be_changed_from_outside(monkeypatch):
    res = tm.simulate(tm.Scenario.from_json(LORA_TRN2), samples=1000)
    calls = []
    original = res._summary_frame
    monkeypatch.setattr(res, "_summary_frame", lambda: calls.append(1) or original())
    first = res.summary()
    first.loc["wall_h", "mean"] = -1.0
    second = res.summary()
    assert len(calls) == 1 and second.loc["wall_h", "mean"] > 0


def test_did_you_mean_is_the_core_rule():
    assert core.closest_name("prices.node_hour_us", ["prices.node_hour_usd", "cluster.nodes"]) == "prices.node_hour_usd"
    assert core.closest_name("zzz", ["prices.node_hour_usd"]) == ""
    with pytest.raises(tm.ScenarioError, match=r"did you mean prices\.node_hour_usd\?"):
        tm._scenario.check_quantity_path("prices.node_hour_us", "--break-even")
    assert "difflib" not in (PACKAGE / "cli.py").read_text(encoding="utf-8")


def test_one_file_sniffer_for_scenarios_and_journals(tmp_path):
    from trnmodel._files import is_journal_file, is_journal_text

    assert is_journal_text('{"schema": "trnmodel.journal/1"}')
    assert not is_journal_text('{"schema": "trnmodel.scenario/1", "note": "trnmodel.journal/1"}')
    assert not is_journal_file(tmp_path / "absent.json")
    sources = "".join(p.read_text(encoding="utf-8") for p in PACKAGE.glob("*.py") if p.stem != "_files")
    assert not re.search(r"""'"trnmodel\.journal/1"'\s+in\b""", sources)  # no second sniffer


def test_mypy_checks_the_package():
    # Configured in pyproject.toml ([tool.mypy]); mypy comes from requirements-dev.txt.
    r = subprocess.run([sys.executable, "-m", "mypy", "python/trnmodel"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_interrupted_signoff_stops_its_background_runs(interrupt_main_soon):
    import threading
    import time

    a, b = tm.Scenario.from_json(LORA_TRN2), tm.Scenario.from_json(LORA_P5)
    # A small sign-off first, so that every module the report imports lazily (matplotlib's) is
    # loaded: an interrupt that lands while Python reads a module's file leaves that file for
    # the garbage collector, and its ResourceWarning would fail the test for the wrong reason.
    tm.report(a, b, samples=1_000, progress=False)
    interrupt_main_soon(0.5)  # installs Python's SIGINT handler, whatever the shell ignores
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        tm.report(a, b, samples=100_000, progress=False)
        time.sleep(5)  # the report finished first: the interrupt lands within the sleep
    assert time.monotonic() - start < 30
    assert not [t for t in threading.enumerate() if t.name.startswith("trnmodel-signoff")]
