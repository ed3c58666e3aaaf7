"""Stages seen from the rest of the API (docs/scenario.md, "Stages"): completeness and
expectations per stage, the job card's stage inputs, paths into stages in updated() and
Scenario[...], and sensitivity analyses of a stage's own metrics."""

from __future__ import annotations

import copy
import math
import pathlib
import warnings

import numpy as np
import pytest

import trnmodel as tm
from test_stages import TWO, _unstaged

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _scn(mutate=None) -> tm.Scenario:
    doc = copy.deepcopy(TWO)
    if mutate is not None:
        mutate(doc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tm.PlausibilityWarning)
        return tm.Scenario.from_dict(doc)


def _phase(scn: tm.Scenario, phase: str):
    return scn.completeness().loc[phase]


# -- completeness and expectations ---------------------------------------------------------


def test_completeness_names_the_inputs_a_stage_gives_itself():
    row = _phase(_scn(), "checkpoints")
    assert row["status"] == "described"
    # short takes every_steps from the top level, long gives its own; both take save_s.
    assert row["inputs"] == "checkpoint.every_steps, checkpoint.save_s, stages[1].checkpoint.every_steps"
    # Cost lines are the job's: no stage paths there.
    assert "stages[" not in _phase(_scn(), "storage")["inputs"]


def test_a_stage_lacking_an_input_the_top_level_lacks_is_named_with_its_path():
    def top_lacks_initial(doc):
        del doc["compile"]["initial_s"]  # long gives its own, short has none

    row = _phase(_scn(top_lacks_initial), "compile")
    assert row["status"] == "not described"
    # initial_s: only short lacks it; recompile_s and cache_hit_prob: no stage gives them.
    assert row["missing"] == "stages[0].compile.initial_s, compile.recompile_s, compile.cache_hit_prob"
    assert row["inputs"].startswith("compile.initial_s, compile.recompile_s")
    assert "stages[1].compile.initial_s" in row["inputs"]
    assert "stages[0].compile.initial_s (stages[0].compile.initial_s)" not in _scn(top_lacks_initial).not_described()
    assert any("stages[0].compile.initial_s" in p for p in _scn(top_lacks_initial).not_described())

    def nobody_gives_it(doc):
        del doc["compile"]["initial_s"]
        del doc["stages"][1]["compile"]["initial_s"]

    # No stage gives it and every stage lacks it: the top-level path is the one to fill in.
    assert _phase(_scn(nobody_gives_it), "compile")["missing"].split(", ")[0] == "compile.initial_s"

    def stage_removes_it(doc):
        doc["stages"][1]["checkpoint"]["save_s"] = None  # null: back to the default for long

    row = _phase(_scn(stage_removes_it), "checkpoints")
    assert row["status"] == "not described" and row["missing"] == "stages[1].checkpoint.save_s"


def test_an_unknown_in_a_stage_is_named_with_its_path():
    def unknown_restart(doc):
        doc["stages"][1]["failures"] = {"restart_s": {"unknown": "no relaunch measured on 16 nodes"}}

    row = _phase(_scn(unknown_restart), "failures")
    assert row["status"] == "unknown" and row["unknown"] == "stages[1].failures.restart_s"


def test_failures_modelled_in_one_stage_only_count_there():
    """A stage's failure model makes its recovery inputs needed in that stage only."""

    def long_fails(doc):
        del doc["failures"]
        doc["stages"][1]["failures"] = {"node_mtbf_h": 40, "restart_s": 240}

    row = _phase(_scn(long_fails), "data load and warm-up")
    assert row["missing"] == "stages[1].failures.warmup_s"
    failures = _phase(_scn(long_fails), "failures")
    assert failures["missing"] == "stages[0].failures.node_mtbf_h, stages[0].failures.restart_s"


def test_expectations_are_checked_per_stage():
    def long_without_checkpoints(doc):
        doc["stages"][1]["checkpoint"]["every_steps"] = None

    assert _scn().expectations() == []
    assert _scn(long_without_checkpoints).expectations() == [
        "failures are modelled but stages[1].checkpoint.every_steps is not given: without checkpoints a failure "
        "loses every step done so far"
    ]

    def long_fails_nowhere(doc):
        del doc["failures"]
        doc["cluster"]["nodes"] = 1

    sentences = _scn(long_fails_nowhere).expectations()
    assert sentences == [
        "stage long runs on 16 nodes without a failure model (failures.node_mtbf_h): multi-node jobs fail, and "
        "each failure costs lost work and a recovery"
    ]


def test_a_precompiled_stage_needs_no_compile_time_on_neuron():
    def neuron(precompiled):
        def mutate(doc):
            doc["cluster"]["platform"] = "trn2.48xlarge"
            doc["stages"][1]["compile"] = {"initial_s": None, "precompiled": precompiled}

        return mutate

    assert _scn(neuron(True)).expectations() == []
    # Completeness agrees: the precompiled stage loads its graphs (its cache_load_s) instead.
    compile_row = _phase(_scn(neuron(True)), "compile")
    assert "stages[1].compile.initial_s" not in compile_row["missing"]
    assert "stages[1].compile.initial_s" in _phase(_scn(neuron(False)), "compile")["missing"]
    assert _scn(neuron(False)).expectations() == [
        "cluster.platform is trn2.48xlarge (Neuron) but stages[1].compile.initial_s is not given: Neuron compiles "
        "every graph before the first step, typically tens of minutes; give it, or 0 if the graphs are precompiled"
    ]


def test_the_job_card_shows_the_stages_own_inputs():
    scn = tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-cpt-2stage-trn2x16.json")
    rows = {r.path: r for r in scn.provenance()}
    own = rows["stages[1].throughput.step_time_s"]
    assert own.source == "model" and own.value == "lognormal(p50=30.9, p90=46.4)"
    assert "32,768" in own.note
    assert rows["stages[1].transition_s"].value == "pert(lo=300, mode=600, hi=1800)"
    assert rows["stages[1].checkpoint.every_steps"].value == "fixed(value=100)"
    assert "stages[1].checkpoint.every_steps" in scn.assumptions()
    assert "stages[1].throughput.step_time_s" not in scn.assumptions()  # source model
    html = scn._repr_html_()
    assert "stages[1].throughput.step_time_s" in html and "2 stages" in html


# -- paths into stages ---------------------------------------------------------------------


def test_updated_reaches_a_stage_by_index_and_by_name():
    base = _scn()
    by_index = base.updated({"stages[1].throughput.step_time_s": 25.0})
    by_name = base.updated({"long/throughput.step_time_s": 25.0})
    assert by_index == by_name
    assert by_index["long/throughput.step_time_s"].ppf(0.5) == 25.0
    assert by_index["stages[0].throughput.step_time_s"].ppf(0.5) == 6.0
    res = tm.simulate(by_name, samples=200, seed=3, progress=False)
    np.testing.assert_allclose(res["useful_h"], (2_000 * 6.0 + 600 * 25.0) / 3600, rtol=1e-12)
    # None removes the stage's own value: long takes the top level's step time again.
    back = base.updated({"long/throughput.step_time_s": None})
    assert "throughput" not in back.to_dict()["stages"][1]
    res = tm.simulate(back, samples=200, seed=3, progress=False)
    np.testing.assert_allclose(res["useful_h"], (2_000 + 600) * 6.0 / 3600, rtol=1e-12)
    # A block the stage did not have, and the transition.
    more = base.updated({"stages[0].checkpoint.every_steps": 100, "long/transition_s": 0})
    assert more.to_dict()["stages"][0]["checkpoint"] == {"every_steps": 100}
    res = tm.simulate(more, samples=200, seed=3, progress=False)
    np.testing.assert_allclose(res["transition_h"], 150 / 3600, rtol=1e-12)  # only long's checkpoint load
    assert (
        base["stages[1].name"] == "long" and base["long/cluster.nodes"] == 16 and base["stages[0].cluster.nodes"] == 8
    )


@pytest.mark.parametrize(
    "path, message",
    [
        (
            "stages[5].throughput.step_time_s",
            "stages[5].throughput.step_time_s: no stage 5: the scenario has 2 stages (stages[0] short, stages[1] long)",
        ),
        (
            "lng/throughput.step_time_s",
            'no stage named "lng" (stages: stages[0] short, stages[1] long) (did you mean long?)',
        ),
        ("stages[1].startup.queue_wait_s", "stages[1].startup.queue_wait_s: is set per job, not per stage"),
        ("long/cluster.platform", "long/cluster.platform: is set per job, not per stage"),
        (
            "stages[1].throughput.step_tim_s",
            "stages[1].throughput.step_tim_s: no such scenario field (did you mean throughput.step_time_s?)",
        ),
        ("stages[one].job.tokens", "a path into a stage is stages[<index>].<field>"),
        ("stages[1]", "a path into a stage is stages[<index>].<field>"),
    ],
)
def test_bad_stage_paths_are_refused_with_the_path(path, message):
    with pytest.raises(tm.ScenarioError) as e:
        _scn().updated({path: 1.0})
    assert message in str(e.value)


def test_a_stage_change_is_validated_like_the_stage():
    with pytest.raises(tm.ScenarioError, match=r"stages\[1\]\.throughput\.step_time_s: must be > 0, got -1"):
        _scn().updated({"long/throughput.step_time_s": -1})
    unstaged = tm.Scenario.from_dict(_unstaged())
    with pytest.raises(tm.ScenarioError, match="the scenario has no stages"):
        unstaged.updated({"long/throughput.step_time_s": 2.0})
    with pytest.raises(tm.ScenarioError, match="the scenario has no stages"):
        unstaged.updated({"stages[0].throughput.step_time_s": 2.0})


def test_a_stage_may_not_give_both_steps_and_tokens():
    def both(doc):
        doc["stages"][1]["job"] = {"effective_steps": 600, "tokens": 1e9}
        doc["model"] = {"sequence_length": 4096}
        doc["parallelism"] = {"global_batch": 64}

    with pytest.raises(tm.ScenarioError, match=r"stages\[1\]\.job\.tokens: give either job.effective_steps or"):
        _scn(both)


def test_a_stage_layout_change_of_a_measured_step_time_warns():
    with pytest.warns(
        tm.CompletenessWarning, match="long/cluster.nodes changed but throughput.step_time_s is measured"
    ):
        _scn().updated({"long/cluster.nodes": 32})
    with warnings.catch_warnings():
        warnings.simplefilter("error", tm.CompletenessWarning)
        _scn().updated({"long/cluster.nodes": 16})  # unchanged: no warning


# -- sensitivity of a stage's metrics --------------------------------------------------------


def _uncertain(doc):
    """Step times drawn in both stages, no failures: a stage's metrics then depend on its own
    inputs only, and exactly so."""
    del doc["failures"]
    doc["throughput"]["step_time_s"] = {"dist": "lognormal", "p50": 6.0, "p90": 8.0}
    doc["stages"][1]["throughput"]["step_time_s"] = {"dist": "lognormal", "p50": 20.0, "p90": 30.0}


def test_tornado_of_a_stage_metric_sees_the_stage_inputs():
    scn = _scn(_uncertain)
    bars = tm.tornado(scn, "long/wall_h", samples=2_000, seed=4, progress=False)
    own = bars.loc["long/throughput.step_time_s"]
    # long/wall_h is linear in long's step time: the swing is 600 steps x (P90 - P10).
    assert own["swing"] == pytest.approx(600 * (own["high_value"] - own["low_value"]) / 3600, rel=1e-9)
    # short's step time is not in long/wall_h (a difference of clocks: rounding only).
    assert bars.loc["throughput.step_time_s", "swing"] < 1e-12 * bars.attrs["baseline"]
    assert bars.attrs["output"] == "long/wall_h"
    job = tm.tornado(scn, "wall_h", samples=2_000, seed=4, progress=False)
    assert job.loc["throughput.step_time_s", "swing"] > 0


def test_sobol_of_a_stage_metric():
    scn = _scn(_uncertain)
    s = tm.sobol(scn, "long/wall_h", base_samples=1024, seed=5, progress=False)
    # short's step time and chance are not in long/wall_h (a difference of clocks: rounding only).
    for factor in ("throughput.step_time_s", "chance"):
        assert abs(s.loc[factor, "ST"]) < 1e-12 and abs(s.loc[factor, "S1"]) < 1e-12
    own = s.loc["long/throughput.step_time_s"]
    # The only input long/wall_h depends on: all of its variance (within 4 standard errors; the
    # _conf columns are 95 % half-widths).
    assert abs(own["ST"] - 1.0) < 4 * own["ST_conf"] / 1.96
    assert abs(own["S1"] - 1.0) < 4 * own["S1_conf"] / 1.96
    # The stage's mean: 600 steps at the lognormal's mean, plus what is fixed in long/wall_h.
    sigma = math.log(30.0 / 20.0) / 1.2815515655446004
    fixed_s = 400 + 1500 + 150 + 120 + 600 / 50 * 30 + 300
    assert s.attrs["mean"] == pytest.approx((fixed_s + 600 * 20.0 * math.exp(sigma**2 / 2)) / 3600, rel=0.02)


def test_rank_correlations_of_a_stage_metric():
    res = tm.simulate(_scn(_uncertain), samples=4_000, seed=6, keep_samples=True, progress=False)
    rc = tm.rank_correlations(res, "long/wall_h")
    assert rc.loc["long/throughput.step_time_s", "spearman"] == pytest.approx(1.0, abs=1e-12)
    assert abs(rc.loc["throughput.step_time_s", "spearman"]) < 4 / math.sqrt(4_000)


def test_a_bad_stage_metric_is_refused():
    scn = _scn(_uncertain)
    with pytest.raises(tm.ScenarioError, match="per stage '<stage>/<metric>' for the stages short, long"):
        tm.tornado(scn, "lng/wall_h", samples=10, progress=False)
    with pytest.raises(tm.ScenarioError, match="no metric named 'long/goodput'"):
        tm.sobol(scn, "long/goodput", base_samples=8, progress=False)
    plain = tm.Scenario.from_dict(_unstaged())
    with pytest.raises(tm.ScenarioError, match="'<stage>/<metric>' outputs need a scenario with stages"):
        tm.sobol(plain, "long/wall_h", base_samples=8, progress=False)
