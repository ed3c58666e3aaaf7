"""The user-facing product: rich display (golden files), plots, progress, the command line and
the sign-off report (its structure, and its rendering in headless Chromium).

Golden files live in tests/python/golden/; after a deliberate change of the display, rewrite
them with TRNMODEL_UPDATE_GOLDEN=1 and review the diff."""

import datetime as dt
import os
import pathlib
import re
import shutil
import subprocess
import sys

import matplotlib
import numpy as np
import pytest

import trnmodel as tm
from trnmodel._format import short_money
from trnmodel._html import STYLE, scenario_html, simulation_html

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = pathlib.Path(__file__).with_name("golden")
LORA_TRN2 = ROOT / "examples" / "llama3-8b-lora-trn2.json"
LORA_P5 = ROOT / "examples" / "llama3-8b-lora-p5.json"
LORA_PLAN = ROOT / "examples" / "plans" / "llama3-8b-lora-migration.json"
TODAY = dt.date(2026, 11, 30)


def check_golden(name: str, text: str) -> None:
    """Compares with tests/python/golden/NAME; HTML is compared without the shared stylesheet."""
    if text.startswith(STYLE):
        text = text[len(STYLE) :]
    path = GOLDEN / name
    if os.environ.get("TRNMODEL_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing golden file {path}; create it with TRNMODEL_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def test_scenario_card_html_golden():
    html = scenario_html(tm.Scenario.from_json(LORA_TRN2), today=TODAY)
    check_golden("scenario_llama3-8b-lora-trn2.html", html)
    # The marks a reader needs: the stale quote in red with its age, an assumption, a vendor figure.
    assert 'class="badge stale">quote 2025-11-30 us-east-2 (365 days old)' in html
    assert 'class="badge assumption">assumption' in html and 'class="badge vendor">vendor' in html
    assert "step time given (source: model)" in html  # a model's figure is not called measured


def test_simulation_html_golden():
    res = tm.simulate(tm.Scenario.from_json(LORA_TRN2), samples=20_000, seed=3, threads=2)
    html = simulation_html(res)
    check_golden("simulation_llama3-8b-lora-trn2.html", html)
    assert html.count("<tr>") == 9 + 11 + 2  # key metrics + phases + two header rows


def test_reprs_are_readable():
    scn = tm.Scenario.from_json(LORA_TRN2)
    assert repr(scn).startswith("Scenario llama3-8b-lora-trn2")
    res = tm.simulate(scn, samples=2000, seed=0)
    assert "wall_h" in repr(res) and res._repr_html_().startswith("<style>")
    assert scn._repr_html_().startswith("<style>")


@pytest.mark.parametrize("kind", ["distribution", "phases", "ledger"])
def test_result_plots_return_axes(kind):
    res = tm.simulate(tm.Scenario.from_json(LORA_TRN2), samples=5000, seed=0)
    ax = getattr(res.plot, kind)()
    assert isinstance(ax, matplotlib.axes.Axes)
    assert ax.get_title()
    matplotlib.pyplot.close("all")


def test_plot_values_are_the_results():
    res = tm.simulate(tm.Scenario.from_json(LORA_TRN2), samples=5000, seed=0)
    ax = tm.plot.distribution(res, "wall_h")
    p50 = float(np.quantile(res["wall_h"], 0.5))
    assert any(np.isclose(line.get_xdata()[0], p50) for line in ax.get_lines())  # the P50 marker is at P50
    ax = tm.plot.phases(res)
    widths = [p.get_width() for p in ax.patches[: len(tm.PHASES)]]
    assert sum(widths) == pytest.approx(res.summary().loc["wall_h", "mean"], rel=1e-9)  # phases stack to the wall
    matplotlib.pyplot.close("all")


def test_plot_errors_are_clear():
    res = tm.simulate(tm.Scenario.from_json(LORA_TRN2), samples=1000, seed=0, keep_samples=False)
    with pytest.raises(tm.ScenarioError, match="needs the samples; run with keep_samples=True"):
        res.plot.distribution()
    res = tm.simulate(tm.Scenario.from_json(LORA_TRN2), samples=1000, seed=0)
    with pytest.raises(tm.ScenarioError, match="no metric 'wall'"):
        res.plot.distribution("wall")


def test_sensitivity_plots():
    scn = tm.Scenario.from_json(LORA_TRN2)
    ax = tm.plot.tornado(tm.tornado(scn, samples=2000))
    assert ax.get_yticklabels()[0].get_text() == "throughput.step_time_s"
    ax = tm.plot.sobol(
        tm.sobol_function(
            lambda x: x[:, 0] + 2 * x[:, 1], {"a": tm.Uniform(0, 1), "b": tm.Uniform(0, 1)}, base_samples=1024
        )
    )
    assert len(ax.patches) == 4
    cmp = tm.compare(scn, tm.Scenario.from_json(LORA_P5), samples=4000)
    assert "P(A < B)" in tm.plot.comparison(cmp).get_title()
    grid = tm.sweep(scn, {"checkpoint.every_steps": [250, 500], "cluster.nodes": [1, 2]}, samples=1000)
    assert tm.plot.sweep(grid, "wall_h").images
    line = tm.sweep(scn, {"checkpoint.every_steps": [250, 500, 1000]}, samples=1000)
    assert len(tm.plot.sweep(line, "wall_h").get_lines()[0].get_xdata()) == 3
    matplotlib.pyplot.close("all")


def test_progress_argument():
    scn = tm.Scenario.from_json(LORA_TRN2)
    calls = []
    tm.simulate(scn, samples=50_000, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (50_000, 50_000) and all(a <= b for (a, _), (b, _) in zip(calls, calls[1:]))
    tm.simulate(scn, samples=1000, progress=False)
    with pytest.raises(tm.ScenarioError, match="progress: must be None, True, False or a callable"):
        tm.simulate(scn, samples=1000, progress="yes")


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "trnmodel", *args], capture_output=True, text=True, cwd=cwd)


SUBCOMMANDS = ["estimate", "report", "compare", "sensitivity", "sweep", "validate", "calibrate"]


def test_cli_help_is_enough():
    r = run_cli("--help")
    assert r.returncode == 0
    for command in SUBCOMMANDS:
        assert command in r.stdout
        h = run_cli(command, "--help")
        assert h.returncode == 0 and "usage: trnmodel " + command in h.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["report", "{bad}"],
        ["compare", "{bad}", str(LORA_P5)],
        ["sensitivity", "{bad}"],
        ["sweep", "{bad}", "checkpoint.every_steps=100,200"],
        ["estimate", "{bad}"],
    ],
)
def test_cli_bad_scenario_exit_2_one_line(tmp_path, args):
    bad = tmp_path / "bad.json"
    bad.write_text(LORA_TRN2.read_text().replace('"every_steps": {', '"every_step": {', 1))
    r = run_cli(*[a.replace("{bad}", str(bad)) for a in args])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"trnmodel: {bad}: checkpoint.every_step: unknown key (did you mean every_steps?)")


def test_cli_other_errors(tmp_path):
    r = run_cli("sweep", str(LORA_TRN2), "checkpoint.every_steps")
    assert r.returncode == 2 and "grid: must be PATH=V1,V2,..." in r.stderr
    r = run_cli("estimate", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "no such scenario file" in r.stderr
    r = run_cli("compare", str(LORA_TRN2), str(LORA_P5), "-n", "2000", "--metric", "wall")
    assert r.returncode == 2 and "wall" in r.stderr


def test_cli_compare_sensitivity_sweep():
    r = run_cli("compare", str(LORA_TRN2), str(LORA_P5), "-n", "5000", "--break-even", "prices.node_hour_usd")
    assert r.returncode == 0, r.stderr
    assert re.search(r"P\(llama3-8b-lora-trn2 < llama3-8b-lora-p5\) = 0\.\d+", r.stdout)
    assert "break-even: prices.node_hour_usd of llama3-8b-lora-p5 = " in r.stdout
    r = run_cli("sensitivity", str(LORA_TRN2), "-n", "2000")
    assert r.returncode == 0 and r.stdout.splitlines()[2].startswith("throughput.step_time_s")
    r = run_cli("sweep", str(LORA_TRN2), "checkpoint.every_steps=250,500", "-n", "2000")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 3


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "signoff.html"
    r = run_cli("report", str(LORA_TRN2), str(LORA_P5), "--plan", str(LORA_PLAN), "-n", "20000", "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def decision_page(markdown: str) -> str:
    """The decision page of a sign-off's Markdown: from its heading to the estimates."""
    start = markdown.index("\n## Decision")
    return markdown[start + 1 : markdown.index("\n## The estimates")] + "\n"


def test_the_report_opens_with_the_decision(report):
    md = report.with_suffix(".md").read_text(encoding="utf-8")
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings[0].startswith("## Decision: ") and headings[1] == "## The estimates"
    page = decision_page(md)
    check_golden("signoff_decision.md", page)
    # What the done-when asks of the first page, each from its own computation.
    plan = tm.Plan.from_json(LORA_PLAN)
    advice = plan.advise()
    assert f"**What to do: {advice.label}** (`{advice.recommendation}`)" in page
    assert advice.why()[0] in page  # the deciding rule, with its facts
    strategies = plan.evaluate(samples=20_000, seed=0).table()
    for label, s in (("GPU only", "gpu_only"), ("Trainium only", "trainium_only"), ("Dual track", "dual_track")):
        row = next(line for line in page.splitlines() if line.startswith(f"| {label}"))
        assert short_money(strategies.loc[s, "cost_p90_usd"]) in row, row
    pb = tm.payback(tm.Scenario.from_json(LORA_TRN2), tm.Scenario.from_json(LORA_P5), samples=20_000, seed=0)
    p50 = pb.quantile(0.5)
    assert ("P50 never" if np.isinf(p50) else f"P50 {p50:.0f} runs") in page
    assert f"P(within 10 runs) = {pb.p_within(10):.0%}" in page
    measure = page[page.index("**What to measure next**") :]
    rows = [line for line in measure.splitlines() if line.startswith("| llama3")]
    assert 1 <= len(rows) <= 5
    indices = [float(re.search(r"\| ([0-9.]+) ± ", line).group(1)) for line in rows]
    assert indices == sorted(indices, reverse=True)
    assert not any("measured |" in line or "quoted |" in line or "chance" in line for line in rows)
    # The first thing a browser shows is the decision: the first h2 of the page.
    html = report.read_text(encoding="utf-8")
    assert re.search(r"<h2[^>]*>([^<]*)</h2>", html).group(1).startswith("Decision: ")


def test_report_structure(report):
    md = report.with_suffix(".md").read_text(encoding="utf-8")
    headings = [line for line in md.splitlines() if line.startswith("#")]
    check_golden("signoff_headings.txt", "\n".join(headings) + "\n")
    for needle in [
        "P(llama3-8b-lora-trn2 cheaper than llama3-8b-lora-p5, run_cost_usd) = **",
        "With only the inputs both scenarios describe identically paired",
        "Including the porting effort",
        "Break-even:",
        "Cost of a useful step (P50)",
        "Lifecycle cost per step (P50)",
        "Chance (failures",
    ]:
        assert needle in md, needle
    assert re.search(r"prices.node_hour_usd: quote of 2025-11-30 \(us-east-2\) is \d+ days old; confirm it", md)
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(figures) == 7 and all((report.parent / f).is_file() for f in figures)
    html = report.read_text(encoding="utf-8")
    assert html.count('src="data:image/png;base64,') == 7  # self-contained: figures embedded
    assert "<script" not in html and "http://" not in html and "https://" not in html


def test_report_renders_in_headless_chromium(report, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (make test installs it)")
        pytest.skip("chromium not installed")
    shot = tmp_path / "report.png"
    r = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,3000",
            f"--screenshot={shot}",
            report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    console = [line for line in r.stderr.splitlines() if ":CONSOLE(" in line or "Uncaught" in line]
    assert not console, console
    from PIL import Image

    image = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert image.shape == (3000, 1200)
    assert image.std() > 20  # text, tables and plots, not a blank page


def test_core_stub_declares_every_public_name():
    import ast
    import importlib.resources

    import trnmodel._core as core

    stub = importlib.resources.files("trnmodel").joinpath("_core.pyi").read_text(encoding="utf-8")
    tree = ast.parse(stub)
    declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    declared |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    public = {n for n in dir(core) if not n.startswith("_")} | {"__version__"}
    assert public - declared == set(), "declare these in python/trnmodel/_core.pyi"
    assert declared - public == set(), "the stub declares names the module does not have"
    assert importlib.resources.files("trnmodel").joinpath("py.typed").is_file()


def test_report_from_python(tmp_path):
    a, b = tm.Scenario.from_json(LORA_TRN2), tm.Scenario.from_json(LORA_P5)
    doc = tm.report(a, b, tmp_path / "s.html", samples=4000, seed=1)
    assert (tmp_path / "s.html").is_file() and (tmp_path / "s.md").is_file()
    assert len(list((tmp_path / "s_files").glob("*.png"))) == 7
    # The decision first (advice, payback, what to measure next), then the estimates.
    assert doc.summary[0].startswith("Decision: Run a dual track")
    assert any(line.startswith("**Payback**: llama3-8b-lora-trn2 recovers") for line in doc.summary)
    assert any(line.startswith("Measure next: engineering.adaptation_h") for line in doc.summary)
    first = next(k for k, line in enumerate(doc.summary) if line.startswith("**llama3"))
    assert doc.summary[first].startswith("**llama3-8b-lora-trn2**: run cost P50")
    assert doc.summary[first + 1].startswith("**llama3-8b-lora-p5**: run cost P50")
    assert sum(line.startswith("**Warning**") for line in doc.summary) == 2  # both price quotes are old
    assert any("P(llama3-8b-lora-trn2 finishes first)" in line for line in doc.summary)
    assert "Budget sign-off" in doc._repr_html_()
    single = tm.report(a, samples=2000)  # one scenario, nothing written
    assert single.summary[0].startswith("**llama3-8b-lora-trn2**") and "## Comparison" not in single.markdown()


def test_comparison_display():
    cmp = tm.compare(tm.Scenario.from_json(LORA_TRN2), tm.Scenario.from_json(LORA_P5), samples=4000)
    html = cmp._repr_html_()
    assert f"P(A &lt; B) = {cmp.p_a_less_b:.3f}" in html
    assert isinstance(cmp.plot.comparison(), matplotlib.axes.Axes)
    matplotlib.pyplot.close("all")
