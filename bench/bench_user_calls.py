"""The calls a user waits for, in units of one 100k-sample ``tm.simulate`` of the same scenario
(a ratio that holds on any machine, and on a loaded one better than seconds do).

Measured in one process, after one untimed warm-up of each call (so quantile tables are
built, as in any session after the first call), best of ``--repeats``. Each repeat of a call is
timed right after a repeat of its unit, and a call's ratio is its best over the best of the
units timed beside it: a machine whose speed drifts between the units and the calls (a busy
neighbour on a shared host) moves both alike.

* unit: ``tm.simulate(LoRA trn2, samples=100_000)`` (default threads);
* the sign-off of ``make run``: ``tm.report(LoRA trn2, LoRA p5)`` written to HTML (two
  100k-sample simulations, drivers, Sobol, the comparison, a break-even, the figures);
* ``tm.checkpoint_interval(LoRA trn2)`` (its defaults: 20,000 samples per point);
* ``tm.compare(LoRA trn2, LoRA p5, samples=20_000).break_even("prices.node_hour_usd")``;
* ``tm.search_parallelism(samples=500)`` on the 70B Trn2 example with its step time
  extrapolated from a 2-node trial (built as tests/python/test_extrapolation.py builds it), in
  units of a 100k simulate of that scenario.

Run:  .venv/bin/python bench/bench_user_calls.py [--repeats 3]
Prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

import trnmodel as tm

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _seconds(f) -> float:
    started = time.perf_counter()
    f()
    return time.perf_counter() - started


def _best(f, repeats: int) -> float:
    f()  # warm-up: tables built, imports done
    return min(_seconds(f) for _ in range(repeats))


def _best_beside(f, unit, repeats: int) -> tuple:
    """(best seconds of f, best seconds of unit), each repeat of f timed right after one of unit."""
    unit()
    f()  # warm-up
    pairs = [(_seconds(unit), _seconds(f)) for _ in range(repeats)]
    return min(p[1] for p in pairs), min(p[0] for p in pairs)


PLOTS = ("distribution", "tornado", "comparison", "phases", "stages")


class _Stub:
    """What a plot function returns when figures are left out: Document.figure is a no-op then."""

    figure = None


def _without_figures(call):
    from trnmodel import _document, plot

    saved = {name: getattr(plot, name) for name in PLOTS}
    saved_figure = _document.Document.figure
    try:
        for name in PLOTS:
            setattr(plot, name, lambda *a, **k: _Stub())
        _document.Document.figure = lambda self, *a, **k: None
        return call()
    finally:
        for name, f in saved.items():
            setattr(plot, name, f)
        _document.Document.figure = saved_figure


def _figure_time(call) -> tuple:
    """(seconds inside the plot functions and Document.figure, figures drawn) of one call."""
    from trnmodel import _document, plot

    spent = [0.0, 0]

    def timed(f, counts: bool):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - started
                spent[1] += 1 if counts else 0

        return wrapper

    saved = {name: getattr(plot, name) for name in PLOTS}
    saved_figure = _document.Document.figure
    try:
        for name in PLOTS:
            setattr(plot, name, timed(saved[name], False))
        _document.Document.figure = timed(saved_figure, True)
        call()
    finally:
        for name, f in saved.items():
            setattr(plot, name, f)
        _document.Document.figure = saved_figure
    return spent[0], spent[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lora = tm.Scenario.from_json(str(EXAMPLES / "llama3-8b-lora-trn2.json"))
    p5 = tm.Scenario.from_json(str(EXAMPLES / "llama3-8b-lora-p5.json"))
    sys.path.insert(0, str(EXAMPLES.parent / "tests" / "python"))
    from test_extrapolation import LLAMA70B, extrapolated_from_two_nodes

    trn2 = tm.Scenario.from_json(str(EXAMPLES / "llama3-70b-full-trn2x16.json")).updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 8}
    )
    big = extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1})
    out = pathlib.Path(tempfile.mkdtemp()) / "signoff.html"

    def unit(s: tm.Scenario):
        return lambda: tm.simulate(s, samples=100_000, seed=0, progress=False)

    rows = []
    unit_lora = _best(unit(lora), args.repeats)
    unit_big = _best(unit(big), args.repeats)
    calls = [
        ("sign-off (`make run`)", lambda: tm.report(lora, p5, path=str(out)), unit(lora), 8),
        ("`checkpoint_interval`", lambda: tm.checkpoint_interval(lora, progress=False), unit(lora), 10),
        (
            "`break_even`",
            lambda: tm.compare(lora, p5, samples=20_000, progress=False).break_even("prices.node_hour_usd"),
            unit(lora),
            6,
        ),
        (
            "`search_parallelism(samples=500)`, 70B Trn2 extrapolated",
            lambda: tm.search_parallelism(big, samples=500),
            unit(big),
            15,
        ),
    ]
    for name, call, unit_call, target in calls:
        seconds, beside = _best_beside(call, unit_call, args.repeats)
        rows.append((name, seconds, seconds / beside, target))
    # The sign-off in two parts: its own computations (the same call with every figure left
    # out: the plot functions return a stub, nothing is drawn), and the figures, each drawn
    # once (the time inside the plot functions and Document.figure's one savefig, summed over
    # the figures of a normal call).
    computations, beside = _best_beside(
        lambda: _without_figures(lambda: tm.report(lora, p5, path=str(out))), unit(lora), args.repeats
    )
    figure_seconds, figure_count = _figure_time(lambda: tm.report(lora, p5, path=str(out)))
    rows.insert(1, ("sign-off, its computations (figures left out)", computations, computations / beside, 8))
    rows.insert(
        2, (f"sign-off, its {figure_count} figures (each drawn once)", figure_seconds, figure_seconds / unit_lora, None)
    )
    print(
        f"unit: 100k-sample simulate, LoRA trn2 {unit_lora:.3f} s, 70B trn2x16 {unit_big:.3f} s "
        f"(threads {os.cpu_count()}, ISA cap {os.environ.get('TRNMODEL_ISA', 'none')})\n"
    )
    print("| call | seconds | in 100k simulates | target |\n|---|---|---|---|")
    for name, seconds, units, target in rows:
        print(f"| {name} | {seconds:.3f} | {units:.1f} | {'—' if target is None else f'≤ {target}'} |")


if __name__ == "__main__":
    main()
