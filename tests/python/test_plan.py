"""tm.Plan: the bundled migration plan's three strategies against an independent NumPy
computation (the three scenarios simulated on their own, the plan's own quantities drawn by
tm.monte_carlo on the same named streams), P(cheapest) summing to 1, the advisor on the plan's
project block, every problem of a bad plan at once, and the CLI. Hand computations with constant
inputs are tests/cpp/test_plan.cpp."""

import datetime as dt
import json
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLAN = ROOT / "examples" / "plans" / "llama3-8b-lora-migration.json"


def _load():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tm.CompletenessWarning)
        return tm.Plan.from_json(PLAN)


def test_the_strategies_against_an_independent_computation():
    plan = _load()
    n, seed, samples = 52, 4, 20_000
    result = plan.evaluate(samples=samples, seed=seed)
    sims = {
        k: tm.simulate(getattr(plan, k), samples=samples, seed=seed)
        for k in ("gpu_baseline", "trainium_pilot", "trainium_production")
    }
    doc = json.loads(PLAN.read_text(encoding="utf-8"))
    quantities = {
        "plan/pilot.pass_prob": doc["pilot"]["pass_prob"],
        "plan/pilot.passed": {"dist": "uniform", "lo": 0, "hi": 1},
        "plan/rollback.convert_s": doc["rollback"]["convert_s"],
        "plan/rollback.engineering_h": doc["rollback"]["engineering_h"],
        "plan/rollback.found_after_fraction": doc["rollback"]["found_after_fraction"],
        "plan/dual.overhead_h": doc["dual"]["overhead_h"],
        "plan/engineering.rate_usd_per_h": doc["engineering"]["rate_usd_per_h"],
        # The ports' calendar days, on the platform-keyed streams the lifecycle draws them on.
        "engineering.port_days@p5.48xlarge": doc["scenarios"]["gpu_baseline"]["changes"]["engineering.port_days"],
        "engineering.port_days@trn2.48xlarge": doc["scenarios"]["trainium_production"]["changes"][
            "engineering.port_days"
        ],
    }
    names = list(quantities)
    drawn = tm.monte_carlo(lambda x: x, quantities, samples=samples, seed=seed, outputs=names)
    x = {k: drawn[k] for k in names}
    g, p, t = (sims[k] for k in ("gpu_baseline", "trainium_pilot", "trainium_production"))
    passed = x["plan/pilot.passed"] < x["plan/pilot.pass_prob"]
    c, e = x["plan/rollback.convert_s"] / 3600, x["plan/rollback.engineering_h"]
    f, o, r = x["plan/rollback.found_after_fraction"], x["plan/dual.overhead_h"], x["plan/engineering.rate_usd_per_h"]
    gpu_usd = n * g["run_cost_usd"] + g["adaptation_usd"]
    port = t["adaptation_usd"]
    pg, pt = 24 * x["engineering.port_days@p5.48xlarge"], 24 * x["engineering.port_days@trn2.48xlarge"]
    expected = {
        "gpu_only_h": pg + g["wall_h"],
        "gpu_only_usd": gpu_usd,
        "trainium_only_h": pt + np.where(passed, t["wall_h"], f * t["wall_h"] + c + g["wall_h"]),
        "trainium_only_usd": np.where(
            passed, n * t["run_cost_usd"] + port, f * t["run_cost_usd"] + port + e * r + gpu_usd
        ),
        "dual_track_h": pt + p["wall_h"] + np.where(passed, t["wall_h"], c + g["wall_h"]),
        "dual_track_usd": p["run_cost_usd"] + port + np.where(passed, n * t["run_cost_usd"] + o * r, e * r + gpu_usd),
    }
    for name, want in expected.items():
        np.testing.assert_allclose(result.values(name), want, rtol=1e-12, err_msg=name)
    assert result.p_pilot_passed == pytest.approx(np.mean(passed), abs=1e-12)
    assert sum(result.p_cheapest.values()) == pytest.approx(1, abs=1e-12)
    costs = np.stack([expected[f"{s}_usd"] for s in tm._plan.STRATEGIES])
    for k, s in enumerate(tm._plan.STRATEGIES):
        assert result.p_cheapest[s] == pytest.approx(np.mean(np.argmin(costs, axis=0) == k), abs=1e-12)
    table = result.table()
    assert list(table.index) == list(tm._plan.STRATEGIES)
    assert "P(cheapest)" in result.sentence()
    # The schedule: 2027-01-11 to 2027-03-01 is 49 days.
    assert plan.days_to_deadline == 49
    for s in tm._plan.STRATEGIES:
        h = expected[f"{s}_h"]
        assert table.loc[s, "p_by_deadline"] == pytest.approx(np.mean(h <= 49 * 24), abs=1e-12)
        days = int(np.ceil(np.quantile(h, 0.9) / 24))
        assert result.ready_date(s, 0.9) == (dt.date(2027, 1, 11) + dt.timedelta(days=days)).isoformat()
    # What decides the choice: the pilot's luck against the margin, by an independent Spearman.
    drivers = result.choice_drivers()
    favourite, runner_up = drivers.attrs["favourite"], drivers.attrs["runner_up"]
    assert (favourite, runner_up) == ("gpu_only", "trainium_only")
    margin = pd.Series(expected[f"{runner_up}_usd"] - expected[f"{favourite}_usd"])
    for factor, u in (("plan/pilot.passed", x["plan/pilot.passed"]), ("plan/rollback.found_after_fraction", f)):
        spearman = np.corrcoef(pd.Series(u).rank(), margin.rank())[0, 1]
        assert drivers.loc[factor, "spearman"] == pytest.approx(spearman, abs=1e-9)
    assert drivers.index[0] == "engineering.adaptation_h (trainium_production)"  # the port's hours decide it
    with pytest.raises(tm.ScenarioError, match="strategy: must be one of gpu_only, trainium_only, dual_track"):
        result.p_by_deadline("gpu")


def test_the_advisor_on_the_plans_project():
    advice = _load().advise()
    assert advice.recommendation == "dual_track"  # a high cost of error, no Neuron experience
    assert [r["makes"] for r in advice.rules] == ["dual_track", "trainium_pilot"]


def test_a_bad_plan_lists_every_problem(tmp_path):
    doc = json.loads(PLAN.read_text(encoding="utf-8"))
    doc["pilot"]["pass_prob"] = 1.2
    doc["rollback"].pop("convert_s")
    doc["scenarios"]["trainium_pilot"]["changes"]["job.effective_stepz"] = 3
    doc["project"]["error_cost"] = "medium"
    with pytest.raises(tm.ScenarioError) as e:
        tm.Plan.from_dict(doc, directory=PLAN.parent)
    problems = e.value.problems
    for start in ("pilot.pass_prob:", "rollback.convert_s:", "scenarios.trainium_pilot:", "project.error_cost:"):
        assert any(p.startswith(start) for p in problems), (start, problems)


def test_the_cli():
    run = subprocess.run(
        [sys.executable, "-m", "trnmodel", "plan", str(PLAN), "-n", "4000"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert "<PlanResult llama3-8b-lora-migration" in run.stdout and "dual_track" in run.stdout
    assert "<Advice dual_track" in run.stdout
    assert "p_by_deadline" in run.stdout  # the schedule's column
    assert "what decides gpu_only against trainium_only" in run.stdout
    assert "engineering.adaptation_h (trainium_production)" in run.stdout


def test_the_json_schema_agrees_with_the_reader():
    """schema/plan-v1.schema.json validates the bundled plan, and every key it requires is one
    the reader refuses to go without."""
    import jsonschema
    from referencing import Registry, Resource

    scenario = json.loads((ROOT / "schema" / "scenario-v1.schema.json").read_text(encoding="utf-8"))
    schema = json.loads((ROOT / "schema" / "plan-v1.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resource(scenario["$id"], Resource.from_contents(scenario))
    doc = json.loads(PLAN.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema, registry=registry).validate(doc)
    assert schema["properties"]["schema"]["const"] == tm._core.PLAN_SCHEMA_V1
    for section in [None, "pilot", "rollback", "dual", "engineering", "scenarios", "schedule"]:
        where = schema if section is None else schema["properties"][section]
        for key in where["required"]:
            broken = json.loads(json.dumps(doc))
            (broken if section is None else broken[section]).pop(key)
            with pytest.raises(tm.ScenarioError):
                tm.Plan.from_dict(broken, directory=PLAN.parent)
