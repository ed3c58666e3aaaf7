"""tm.advise: the advisor's rules from Python, with the facts from a dict or a scenario's project
block; every missing or wrong fact listed at once; the CLI. The rules' table (one case per rule
and per precedence pair) is tests/cpp/test_advisor.cpp."""

import json
import pathlib
import subprocess
import sys

import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRN2 = ROOT / "examples" / "llama3-8b-lora-trn2.json"
P5 = ROOT / "examples" / "llama3-8b-lora-p5.json"  # states no project facts

STABLE = {
    "architecture_changes": "rare",
    "experimental_ops": False,
    "custom_cuda_extensions": False,
    "fast_debug_loop": False,
    "mixed_nonstandard_models": False,
    "manual_compiler_tuning": False,
    "team_neuron_experience": "some",
    "error_cost": "low",
    "agreed_metrics": True,
    "training_cycle": "long",
}


@pytest.mark.parametrize(
    "change, kind, expected",
    [
        ({}, "lora", "trainium_pilot"),
        ({}, "full", "trainium_after_checks"),
        ({"custom_cuda_extensions": True}, "lora", "gpu"),
        ({"agreed_metrics": False}, "lora", "gpu_baseline_first"),
        ({"error_cost": "high", "team_neuron_experience": "none"}, "lora", "dual_track"),
        ({"training_cycle": "short"}, "lora", "dual_track"),
    ],
)
def test_each_recommendation_from_a_dict(change, kind, expected):
    advice = tm.advise({**STABLE, **change}, job_kind=kind)
    assert advice.recommendation == expected
    assert advice.rules[0]["makes"] == expected and advice.rules[0]["because"]
    assert advice.label and advice.why()[0].startswith(advice.rules[0]["rule"])


def test_the_score_and_every_rule_that_fired():
    advice = tm.advise({**STABLE, "fast_debug_loop": True}, job_kind="lora")
    assert [r["makes"] for r in advice.rules] == ["gpu", "trainium_pilot"]
    assert advice.rules[0]["because"] == "fast_debug_loop is true"
    assert advice.score == 4  # the seed's score follows the architecture's stability, not the rules
    assert tm.advise({**STABLE, "architecture_changes": "frequent"}, job_kind="lora").score == 2
    assert tm.advise(STABLE, job_kind="full").score is None


def test_a_scenarios_project_block_and_its_job_kind():
    scn = tm.Scenario.from_json(TRN2).updated({f"project.{k}": v for k, v in STABLE.items()})
    assert scn["project.training_cycle"] == tm.fields.CycleLength.LONG
    assert tm.advise(scn).recommendation == "trainium_pilot"  # job.kind lora
    assert tm.advise(scn, job_kind="full").recommendation == "trainium_after_checks"
    # The bundled trn2 scenario states the plan's facts: a dual track.
    assert tm.advise(tm.Scenario.from_json(TRN2)).recommendation == "dual_track"
    with pytest.raises(tm.ScenarioError) as e:
        tm.advise(tm.Scenario.from_json(P5))
    assert len(e.value.problems) == 10 and e.value.problems[0].startswith("project.architecture_changes:")


def test_bad_facts_are_listed_at_once():
    with pytest.raises(tm.ScenarioError) as e:
        tm.advise({**STABLE, "error_cost": "medium", "experimental_ops": "no", "team_size": 4}, job_kind="lora")
    problems = e.value.problems
    assert len(problems) == 3, problems
    assert any(p.startswith("project.team_size: unknown fact") for p in problems)
    assert any(p.startswith("project.error_cost: must be one of low, high") for p in problems)
    with pytest.raises(tm.ScenarioError, match="job_kind: required"):
        tm.advise(STABLE)
    with pytest.raises(tm.ScenarioError, match="job_kind: must be one of lora, full, continued"):
        tm.advise(STABLE, job_kind="pretrain")


def test_the_cli(tmp_path):
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({**STABLE, "custom_cuda_extensions": True}), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "trnmodel", "advise", "--project", str(facts), "--job-kind", "lora"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "<Advice gpu: Keep the job on GPU, suitability 4 of 5>" in run.stdout
    assert "custom_cuda_extensions is true" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "trnmodel", "advise"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--project" in bad.stderr
