"""What each number rests on: a calibrated posterior the trials barely moved is labelled as its
prior (by a stated rule, checked here against an independent computation of the prior's weight),
every input carries its evidence class, a derived step time carries its model's validation scope,
calibration's caveats travel with the scenario, and the sign-off says when two compared scenarios
rest on unequal evidence."""

import glob
import math
import pathlib
import warnings

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASE = ROOT / "examples" / "llama3-8b-lora-trn2.json"
JOURNALS = sorted(glob.glob(str(ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-*.json")))


def _calibrated(base):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tm.JournalWarning)
        return tm.calibrate([tm.Journal.from_json(p) for p in JOURNALS], base)


def _prior_pseudo_exposure_node_h(p50_h, p90_h):
    """The Gamma prior's rate b0 = E[λ] / Var[λ] of λ = 1 / MTBF, MTBF lognormal(p50, p90):
    1/MTBF is lognormal(-μ, σ), so E = exp(-μ + σ²/2), Var = (exp(σ²) - 1) exp(-2μ + σ²)."""
    mu, sigma = math.log(p50_h), math.log(p90_h / p50_h) / 1.2815515655446004
    mean = math.exp(-mu + sigma**2 / 2)
    var = (math.exp(sigma**2) - 1) * math.exp(-2 * mu + sigma**2)
    return mean / var


def test_an_mtbf_from_a_few_node_hours_is_labelled_as_its_prior():
    base = tm.Scenario.from_json(BASE)
    exposure = sum(tm.Journal.from_json(p).to_dict()["billed"]["node_hours"] for p in JOURNALS)
    b0 = _prior_pseudo_exposure_node_h(6150, 10250)
    assert exposure < b0  # 3.95 node-hours against tens of thousands: the rule's premise, computed here
    scn = _calibrated(base)
    row = scn.calibration.inputs.loc["failures.node_mtbf_h"]
    assert row["status"] == "prior-dominated"
    d = scn["failures.node_mtbf_h"].to_dict()
    assert d["source"] == "prior" and d["note"].startswith("prior-dominated: the trials weigh 3.95 node-hours")
    assert f"{b0:.2g}".replace("e+0", "e+") in d["note"] or f"{b0:.3g}" in d["note"]
    assert scn.evidence().loc["failures.node_mtbf_h", "evidence"] == "prior-dominated"
    # The label survives the file: a scenario written and read back keeps source "prior".
    again = tm.Scenario.from_dict(scn.to_dict())
    assert again.evidence().loc["failures.node_mtbf_h", "evidence"] == "prior-dominated"


def test_with_a_vague_prior_the_same_trials_are_a_measurement():
    """A prior so wide that its pseudo-exposure is below the trials' node-hours: measured."""
    vague = tm.Scenario.from_json(BASE).updated(
        {"failures.node_mtbf_h": tm.LogNormal.from_quantiles(p50=3.0, p90=300.0, source="assumption")}
    )
    assert _prior_pseudo_exposure_node_h(3.0, 300.0) < 3.95
    scn = _calibrated(vague)
    assert scn.calibration.inputs.loc["failures.node_mtbf_h", "status"] == "measured"
    assert scn["failures.node_mtbf_h"].to_dict()["source"] == "measured"


def test_each_input_has_its_evidence_class():
    scn = _calibrated(tm.Scenario.from_json(BASE))
    table = scn.evidence()
    assert set(table["evidence"]) <= set(tm._evidence.CLASSES)
    assert table.loc["throughput.step_time_s", "evidence"] == "measured"
    assert "llama3-8b-lora-trn2-trial-001" in table.loc["throughput.step_time_s", "detail"]
    assert table.loc["prices.node_hour_usd", "evidence"] == "quoted"
    assert table.loc["job.effective_steps", "evidence"] == "assumed"
    assert table.loc["compile.cache_hit_prob", "evidence"] == "prior-dominated"  # 3 trials against Beta(18, 2)
    # Calibration's caveats travel with the scenario, each once.
    description = scn.to_dict()["description"]
    assert "Calibration caveats: " in description
    caveats = description.split("Calibration caveats: ", 1)[1].split("; ")
    assert len(caveats) == len(set(caveats)) and any("failures.node_mtbf_h: prior-dominated" in c for c in caveats)


def test_a_derived_step_time_carries_its_models_validation_scope():
    analytic = tm.Scenario.new(
        ROOT / "examples" / "configs" / "llama3-8b.json", "p5.48xlarge", kind="lora", tokens="786M"
    )
    table = analytic.evidence()
    assert table.loc["step time (derived)", "evidence"] == "model"
    assert "A100 GPUs only" in table.loc["step time (derived)", "detail"]
    assert "p5.48xlarge" in table.loc["step time (derived)", "detail"]


def test_the_signoff_says_when_the_two_sides_rest_on_unequal_evidence():
    trn2 = _calibrated(tm.Scenario.from_json(BASE))
    p5 = tm.Scenario.new(
        ROOT / "examples" / "configs" / "llama3-8b.json",
        "p5.48xlarge",
        kind="lora",
        tokens="786M",
        node_hour_usd=55.04,
        storage_gb_month_usd=0.023,
        transfer_gb_usd=0.02,
        logs_gb_usd=0.5,
    )
    md = tm.report(trn2, p5, samples=2_000, progress=False).markdown()
    assert "**Unequal evidence**: A's step time is measured" not in md  # names, not letters
    comparison = md.split("## Comparison", 1)[1]
    assert "**Unequal evidence**:" in comparison and "A100 GPUs only" in comparison
    assert "rests on**: step time measured" in md
    # The same scenario on both sides rests on equal evidence: nothing to say.
    assert tm._evidence.unequal_evidence("a", trn2, "b", trn2) == ""
