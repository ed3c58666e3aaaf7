"""The decision page (docs/decisions.md, "The decision page"): what it says with and without a
plan and project facts, what it lists to measure next, and what it refuses. The page of the
bundled pair is checked against its golden file in test_report.py."""

import json
import pathlib

import pytest

import trnmodel as tm
from trnmodel._decision_page import measure_next
from trnmodel._format import short_money

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLAN = ROOT / "examples" / "plans" / "llama3-8b-lora-migration.json"


def job(platform, step_time_source, **sections):
    """1000 to 3000 steps of U(1, 2) s on one node of ``platform``, porting 100 h at $100."""
    d = {
        "schema": "trnmodel.scenario/1",
        "name": platform,
        "job": {"effective_steps": {"dist": "uniform", "lo": 1000, "hi": 3000, "source": "assumption"}},
        "cluster": {"nodes": 1, "platform": platform},
        "throughput": {"step_time_s": {"dist": "uniform", "lo": 1, "hi": 2, "source": step_time_source}},
        "prices": {"node_hour_usd": 50.0},
        "engineering": {"adaptation_h": 100, "rate_usd_per_h": 100},
    }
    d.update(sections)
    return tm.Scenario.from_dict(d)


def test_with_the_plan_every_track_is_costed():
    plan = tm.Plan.from_json(PLAN)
    doc = tm.decision(plan=plan, samples=4000, sobol_base_samples=2**9, seed=3)
    md = doc.markdown()
    assert md.startswith("## Decision: Run a dual track")
    res = plan.evaluate(samples=4000, seed=3)
    t = res.table()
    labels = ("| GPU only |", "| Trainium only (rollback", "| Dual track (pilot")
    rows = [line for line in md.splitlines() if line.startswith(labels)]
    assert len(rows) == 3
    for row, s in zip(rows, ("gpu_only", "trainium_only", "dual_track")):
        assert f"| {t.loc[s, 'p_cheapest']:.0%} |" in row
        # The schedule's columns: the ready dates and P(ready by the deadline).
        assert row.endswith(
            f"| {res.ready_date(s, 0.5)} | {res.ready_date(s, 0.9)} | {t.loc[s, 'p_by_deadline']:.0%} |"
        )
    assert "The plan expects 52 runs" in md
    assert "**Schedule**: the work starts 2027-01-11, the first production result is due 2027-03-01 (49 days)" in md
    assert "**What decides the choice** between GPU only and Trainium only" in md
    assert "**Not described**" not in md  # both ports state their calendar time
    # A production port without its calendar time is said to be not described.
    bare = tm.Plan.from_dict(
        {
            **_plan_doc(),
            "scenarios": {**_plan_doc()["scenarios"], "trainium_production": "../llama3-8b-lora-trn2.json"},
        },
        directory=PLAN.parent,
    )
    md = tm.decision(plan=bare, samples=2000, sobol_base_samples=2**8).markdown()
    assert "**Not described**: the calendar time of the Trainium production's port" in md
    assert doc._repr_html_().count("<table>") == 2  # shown whole in a notebook: tracks, measure next


def _plan_doc():
    return json.loads(PLAN.read_text(encoding="utf-8"))


def test_without_a_plan_the_dual_track_is_not_costed_and_without_facts_nothing_is_advised():
    a, b = job("trn2.48xlarge", "assumption"), job("p5.48xlarge", "assumption")
    md = tm.decision(a, b, samples=4000, sobol_base_samples=2**9).markdown()
    assert md.startswith("## Decision\n")
    assert "**What to do**: not advised: no project facts stated" in md
    assert "| Dual track | not costed |" in md
    assert "`trnmodel report A B --plan PLAN.json`" in md
    # The single tracks are the scenarios' own total cost with porting.
    s = tm.simulate(a, samples=4000).summary()
    row = next(line for line in md.splitlines() if line.startswith("| trn2.48xlarge alone"))
    assert short_money(s.loc["total_cost_usd", "p90"]) in row
    # Equal porting on both sides: nothing to pay back.
    assert "**Payback**: " in md and "nothing to pay back" in md


def test_measured_inputs_are_not_listed_to_measure_next():
    # The step time moves the total cost most but is measured: the steps come first.
    measured = job("trn2.48xlarge", "measured")
    indices = {"m": tm.sobol(measured, output="total_cost_usd", base_samples=2**10, seed=1)}
    assert indices["m"].loc["throughput.step_time_s", "ST"] > 0.2
    table = measure_next({"m": measured}, indices)
    assert list(table["input"]) == ["job.effective_steps"]
    assert table.loc[0, "evidence"] == "assumed"
    # The same inputs, the step time assumed: both listed, the larger index first.
    assumed = job("trn2.48xlarge", "assumption")
    indices = {"a": tm.sobol(assumed, output="total_cost_usd", base_samples=2**10, seed=1)}
    table = measure_next({"a": assumed}, indices)
    assert set(table["input"]) == {"job.effective_steps", "throughput.step_time_s"}
    assert list(table["ST"]) == sorted(table["ST"], reverse=True)


def test_bad_arguments():
    a = job("trn2.48xlarge", "assumption")
    with pytest.raises(tm.ScenarioError, match=r"plan: must be a tm.Plan \(tm.Plan.from_json\), got str"):
        tm.decision(a, plan="plan.json")
    with pytest.raises(tm.ScenarioError, match="plan: must be a tm.Plan"):
        tm.report(a, plan={"schema": "trnmodel.plan/1"})
    with pytest.raises(tm.ScenarioError, match="a: required without a plan"):
        tm.decision()
    with pytest.raises(tm.ScenarioError, match="b: must be a tm.Scenario, got dict"):
        tm.decision(a, {"name": "b"})
