"""The error of extrapolated mode (docs/validation.md, "Extrapolation error").

1. The shipped fit (include/trnmodel/throughput/extrapolation_error.hpp, fitted by
   bench/extrapolation_error.py on the pairs of even-indexed rows of the vTrain ground truth) is
   tested on the pairs it never saw: every pair of odd-indexed rows. Its 80 % intervals must
   cover 70-90 % of them; the constants are read from the header, the log errors recomputed here
   from the CSV with the library's analytic step time.
2. A Trn2-vs-H100 comparison whose step times are extrapolated from 2-node trials to 16 nodes
   no longer claims certainty: P(Trn2 cheaper) lies strictly between 2 % and 98 %.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import re
import sys

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import vtrain_validation as vt  # noqa: E402
from test_throughput import LLAMA70B as LLAMA70B_SHAPE  # noqa: E402

HEADER = ROOT / "include" / "trnmodel" / "throughput" / "extrapolation_error.hpp"
EXAMPLES = ROOT / "examples"
Z90 = 1.2815515655446004


def shipped_constants() -> dict:
    text = HEADER.read_text()
    found = dict(re.findall(r"inline constexpr double extrapolation_sigma_(\w+) = ([0-9.eE+-]+);", text))
    assert set(found) == {"base", "per_log_node_ratio", "per_changed_degree", "model_changed"}, found
    return {k: float(v) for k, v in found.items()}


def shipped_sigma(c: dict, ref: vt.Row, target: vt.Row) -> float:
    changed = sum(getattr(ref, k) != getattr(target, k) for k in ("tp", "pp", "dp", "micro_batch"))
    changed += ref.sequence_length != target.sequence_length
    model = (ref.parameters_b, ref.layers, ref.hidden_size, ref.heads) != (
        target.parameters_b,
        target.layers,
        target.hidden_size,
        target.heads,
    )
    return (
        c["base"]
        + c["per_log_node_ratio"] * abs(math.log(target.gpus / ref.gpus))
        + c["per_changed_degree"] * changed
        + c["model_changed"] * model
    )


@pytest.fixture(scope="module")
def rows():
    if vt.find_csv() is None:
        pytest.skip(f"{vt.CSV_NAME} not found")
    return vt.load_rows()


def test_held_out_pairs_are_covered_by_the_80_percent_intervals(rows):
    c = shipped_constants()
    params = vt.calibrate(vt.calibration_rows(rows), "no_elementwise")
    model = {r.index: vt.predict(params, r)["step_time_s"] for r in rows}
    held = [r for r in rows if r.index % 2 == 1]  # the fit used only pairs of even rows
    inside, same, other = [], [], []
    for ref, target in itertools.permutations(held, 2):
        predicted = ref.measured_s * model[target.index] / model[ref.index]  # what extrapolated mode does
        e = math.log(target.measured_s / predicted)
        ok = abs(e) <= Z90 * shipped_sigma(c, ref, target)
        inside.append(ok)
        (same if ref.parameters_b == target.parameters_b else other).append(ok)
    cov, cov_same, cov_other = (float(np.mean(x)) for x in (inside, same, other))
    print(
        f"held-out pairs: {len(inside)} ordered; 80 % interval coverage {cov:.1%} "
        f"(same model size {cov_same:.1%} of {len(same)}, another size {cov_other:.1%} of {len(other)})"
    )
    assert 0.70 <= cov <= 0.90
    assert 0.70 <= cov_same <= 0.90
    assert 0.70 <= cov_other <= 0.90


# The two 70B scenarios of notebook 02, in analytic mode (same model and job on both platforms).
LLAMA70B = {
    **LLAMA70B_SHAPE,
    "parallelism.dp_overlap": tm.Uniform(0.5, 0.9, source="assumption"),
    "throughput.mode": "analytic",
    "throughput.compute_efficiency": tm.PERT(0.3, 0.45, 0.6, source="assumption"),
}


def extrapolated_from_two_nodes(analytic: tm.Scenario, reference_layout: dict) -> tm.Scenario:
    """The scenario with its step time extrapolated from a 2-node trial. The trial's step time is
    the one the model predicts for it (a trial that confirms the model), measured to ±3 %."""
    reference = {
        "throughput.mode": "extrapolated",
        "reference.nodes": 2,
        "reference.micro_batch": 1,
        "reference.global_batch": 256,
        "reference.sequence_length": 8192,
        **{f"reference.{k}": v for k, v in reference_layout.items()},
    }
    # Extrapolated from 1 s, the median step time is the model's ratio target / reference.
    unit = analytic.updated({**reference, "reference.step_time_s": 1.0})
    ratio = float(np.median(tm.simulate(unit, samples=4000, seed=1)["step_time_s"]))
    target_s = float(np.median(tm.simulate(analytic, samples=4000, seed=1)["step_time_s"]))
    trial_s = target_s / ratio
    return analytic.updated(
        {
            **reference,
            "reference.step_time_s": tm.LogNormal.from_quantiles(
                p50=trial_s, p90=trial_s * 1.03, source="measured", note="2-node trial"
            ),
        }
    )


def test_trn2_vs_h100_from_two_node_trials_is_not_certain():
    trn2 = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-trn2x16.json").updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 8}
    )
    p5 = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-p5x16.json").updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 4}
    )
    a = extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1})
    b = extrapolated_from_two_nodes(p5, {"tp": 8, "pp": 2, "dp": 1})
    res = tm.simulate(a, samples=2000, seed=0)
    assert "extrapolation.error" in res.uncertain_inputs
    assert "fitted error" in res.summary().loc["step_time_s", "note"]
    assert "fitted error" in a._repr_html_()
    cmp = tm.compare(a, b, output="run_cost_usd", samples=20_000, seed=0)
    print(f"P(Trn2 run cheaper than H100), both extrapolated from 2-node trials to 16 nodes: {cmp.p_a_less_b:.3f}")
    assert 0.02 < cmp.p_a_less_b < 0.98


def test_the_extrapolation_error_is_a_factor_of_sensitivity_analysis():
    trn2 = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-trn2x16.json").updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 8}
    )
    a = extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1})
    tornado = tm.tornado(a, output="wall_h", samples=500, seed=0)
    assert "extrapolation.error" in tornado.index
    sobol = tm.sobol(a, output="wall_h", base_samples=256, seed=0)
    assert "extrapolation.error" in sobol.index
    # The error of a 2-to-16-node extrapolation is among the largest causes of the wall time's spread.
    assert tornado.index.get_loc("extrapolation.error") < 3, tornado


def test_a_trial_of_another_model_size_is_a_reference_with_a_larger_error():
    from trnmodel import _core

    trn2 = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-trn2x16.json").updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 8}
    )
    same = extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1})
    smaller = same.updated(
        {
            "reference.parameters": 8_030_000_000,
            "reference.layers": 32,
            "reference.hidden_size": 4096,
            "reference.heads": 32,
        }
    )
    c = shipped_constants()
    spread = _core.lifecycle_info(same._core).extrapolation_log_spread
    assert spread == pytest.approx(c["base"] + c["per_log_node_ratio"] * math.log(8))
    assert _core.lifecycle_info(smaller._core).extrapolation_log_spread == pytest.approx(spread + c["model_changed"])
    # The smaller model's 2-node step is modelled as that model's, so the same trial time means a slower target.
    a = np.median(tm.simulate(same, samples=4000, seed=0)["step_time_s"])
    b = np.median(tm.simulate(smaller, samples=4000, seed=0)["step_time_s"])
    assert b > 2 * a
    with pytest.raises(tm.ScenarioError, match=r"reference\.parameters: required"):
        same.updated({"reference.layers": 32})


def test_a_reference_measured_with_context_parallelism_gives_reference_cp():
    """reference.cp is the trial's context-parallel degree (absent: 1). A trial at the job's own
    layout, cp 2 included, extrapolates to itself: the median step is the trial's (within 4
    standard errors of the error factor's median). Without reference.cp the trial is modelled
    at cp 1, its layout must fill the chips without cp, and the ratio is the analytic model's."""
    job = {**LLAMA70B, "parallelism.tp": 8, "parallelism.cp": 2, "parallelism.pp": 4, "parallelism.dp": 4}
    analytic = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-trn2x16.json").updated(
        {**job, "model.kv_heads": 8, "throughput.step_time_s": None}
    )
    trial = {
        "throughput.mode": "extrapolated",
        "reference.step_time_s": 20.0,
        "reference.nodes": 16,
        "reference.tp": 8,
        "reference.pp": 4,
        "reference.micro_batch": 1,
        "reference.global_batch": 256,
        "reference.sequence_length": 8192,
    }
    same = analytic.updated({**trial, "reference.dp": 4, "reference.cp": 2})
    n, c = 4000, shipped_constants()
    assert same.extrapolation_log_spread() == pytest.approx(c["base"])  # the same layout: no distance
    se_median = 1.2533 * c["base"] * 20.0 / math.sqrt(n)
    assert abs(np.median(tm.simulate(same, samples=n, seed=1)["step_time_s"]) - 20.0) < 4 * se_median
    with pytest.raises(tm.ScenarioError, match=r"reference: tp x pp x dp = 128 must equal the chips"):
        same.updated({"reference.cp": None})
    with pytest.raises(tm.ScenarioError, match=r"reference\.cp: must divide reference\.sequence_length = 8192, got 3"):
        same.updated({"reference.cp": 3})
    without = same.updated({"reference.cp": None, "reference.dp": 8})
    ratio = np.median(
        tm.simulate(analytic, samples=n, seed=1)["step_time_s"]
        / tm.simulate(analytic.updated({"parallelism.cp": 1, "parallelism.dp": 8}), samples=n, seed=1)["step_time_s"]
    )
    assert abs(np.median(tm.simulate(without, samples=n, seed=1)["step_time_s"]) - 20.0 * ratio) < 4 * se_median
    assert abs(ratio - 1) > 6 * se_median / 20.0  # the two references are told apart


def test_each_stage_extrapolates_with_an_error_input_of_its_own():
    """A job in stages whose second stage runs on twice the nodes: each stage is its own distance
    from the 2-node trial, so each draws its own "<stage>/extrapolation.error" (the wider stage
    the larger spread), and sensitivity analysis of a stage's wall time names that stage's error."""
    trn2 = tm.Scenario.from_json(EXAMPLES / "llama3-70b-full-trn2x16.json").updated(
        {**LLAMA70B, "parallelism.tp": 8, "parallelism.pp": 4, "parallelism.dp": 8}
    )
    single = extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1}).to_dict()
    single["job"].pop("tokens", None)
    single["job"].pop("effective_steps", None)
    single["stages"] = [
        {"name": "8k", "job": {"effective_steps": 2000}},
        {"name": "wide", "job": {"effective_steps": 2000}, "cluster": {"nodes": 32}, "parallelism": {"dp": 16}},
    ]
    staged = tm.Scenario.from_dict(single)
    spreads = staged.extrapolation_log_spreads()
    assert list(spreads) == ["8k", "wide"]
    assert 0 < spreads["8k"] < spreads["wide"]
    # The first stage is as far from the trial as the single-stage job: the same spread.
    assert spreads["8k"] == pytest.approx(
        extrapolated_from_two_nodes(trn2, {"tp": 8, "pp": 4, "dp": 1}).extrapolation_log_spread()
    )

    res = tm.simulate(staged, samples=2000, seed=0)
    assert {"8k/extrapolation.error", "wide/extrapolation.error"} <= set(res.uncertain_inputs)
    assert "extrapolation.error" not in res.uncertain_inputs
    assert "8k: " in res.step_time_source and "wide: " in res.step_time_source

    tornado = tm.tornado(staged, output="wide/wall_h", samples=500, seed=0)
    # The first stage's error moves the second stage's wall time only through where the failure
    # process stands when the stage starts (a small fraction); the stage's own error leads.
    swing = tornado["swing"].abs()
    assert swing["8k/extrapolation.error"] < 0.05 * swing["wide/extrapolation.error"], tornado
    assert tornado.index.get_loc("wide/extrapolation.error") < 3, tornado
    sobol = tm.sobol(staged, output="wide/wall_h", base_samples=256, seed=0)
    assert sobol.loc["wide/extrapolation.error", "ST"] > sobol.loc["8k/extrapolation.error", "ST"]
