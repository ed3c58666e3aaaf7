"""Pictures a manager reads: money and hours on every axis and label as people write them
($403k, 29 d), never 4.03e+05 or an offset 1e6; the comparison shows the paired difference with
0 marked beside the marginals."""

import pathlib

import matplotlib
import numpy as np
import pytest

import trnmodel as tm
from trnmodel._format import short_hours, short_money

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "x, text",
    [(0.5, "$0.50"), (950, "$950"), (12_400, "$12.4k"), (403_210, "$403k"), (1_250_000, "$1.25M"), (-4e5, "−$400k")],
)
def test_money_as_people_write_it(x, text):
    assert short_money(x) == text


@pytest.mark.parametrize("x, text", [(0.75, "45 min"), (14.2, "14.2 h"), (60, "2.5 d"), (29 * 24, "29 d")])
def test_hours_as_people_write_them(x, text):
    assert short_hours(x) == text


def _labels(axis):
    axis.figure.canvas.draw()
    return [t.get_text() for t in axis.get_ticklabels() if t.get_text()], axis.get_offset_text().get_text()


def test_the_comparison_is_the_paired_difference_beside_the_marginals():
    trn2 = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16.json")
    p5 = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-p5x16.json")
    cmp = tm.compare(trn2, p5, output="run_cost_usd", samples=4_000, seed=1)
    left = tm.plot.comparison(cmp)
    right = [ax for ax in left.figure.axes if ax is not left][0]
    # Left: A − B with 0 marked and P(A < B) in the title.
    assert any(np.allclose(line.get_xdata(), 0) for line in left.get_lines())
    assert f"P(A < B) = {cmp.p_a_less_b:.3f}" in left.get_title()
    for axis in (left.xaxis, right.xaxis):
        labels, offset = _labels(axis)
        assert labels and all("$" in t for t in labels), labels
        assert not any("e+" in t or "e-" in t for t in labels) and offset == ""
    # The marginals' legend gives each P50 in money.
    legend = [t.get_text() for t in right.get_legend().get_texts()]
    assert all(": P50 $" in t for t in legend), legend
    matplotlib.pyplot.close("all")


def test_distributions_of_money_and_hours_read_as_people_write_them():
    res = tm.simulate(tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16.json"), samples=4_000)
    for metric, mark in (("run_cost_usd", "$"), ("wall_h", " d")):
        ax = tm.plot.distribution(res, metric)
        labels, offset = _labels(ax.xaxis)
        assert labels and all(mark in t for t in labels), (metric, labels)
        assert offset == "" and ax.get_yticks().size == 0  # no density scale to misread
        notes = [t.get_text() for t in ax.texts]
        assert any(t.startswith("P50 ") and mark in t for t in notes), notes
    matplotlib.pyplot.close("all")
