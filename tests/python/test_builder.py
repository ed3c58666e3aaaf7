"""The scenario builder (docs/scenario.md, "Building a scenario"): Scenario.new and `trnmodel new`
from a Hugging Face config.json, a platform and the job, tried end to end as a new user would."""

import json
import math
import pathlib
import subprocess
import sys
import warnings

import jsonschema
import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "examples" / "configs"
LLAMA_8B = CONFIGS / "llama3-8b.json"
LLAMA_70B = CONFIGS / "llama3-70b.json"
LLAMA_1B = CONFIGS / "llama3.2-1b.json"

# Every lifecycle phase and the inputs that describe it (failures modelled: a node MTBF given).
PHASES = {
    "queue": ["startup.queue_wait_s"],
    "set-up": ["startup.env_prep_s"],
    "compile": ["compile.initial_s", "compile.recompile_s", "compile.cache_load_s", "compile.cache_hit_prob"],
    "data load and warm-up": ["startup.data_load_s", "failures.warmup_s"],
    "checkpoints": ["checkpoint.every_steps", "checkpoint.save_s"],
    "failures": ["failures.node_mtbf_h", "failures.restart_s"],
    "evaluation": ["eval.every_steps", "eval.final_s", "eval.time_s"],
    "quality gate": ["quality.rerun_prob"],
    "storage": ["data.dataset_gb", "checkpoint.size_gb", "prices.storage_gb_month_usd"],
    "transfer": ["data.transfer_gb", "prices.transfer_gb_usd"],
    "logs": ["data.logs_gb_per_hour", "prices.logs_gb_usd"],
    "porting": ["engineering.adaptation_h", "engineering.rate_usd_per_h"],
    "compute price": ["prices.node_hour_usd"],
}


def at(doc, path):
    section, key = path.split(".")
    return doc[section][key]


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "trnmodel", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    "path, published",
    [
        (LLAMA_8B, 8.03e9),  # Meta-Llama-3-8B model card
        (LLAMA_70B, 70.6e9),  # Meta-Llama-3-70B model card
        # meta-llama/Llama-3.2-1B model card: 1.23B parameters; tie_word_embeddings true.
        (LLAMA_1B, 1.23e9),
    ],
)
def test_parameter_count_matches_the_published_one(path, published):
    model = tm.read_hf_config(path)
    assert abs(model.parameters / published - 1) < 0.005
    assert tm.read_hf_config(json.loads(path.read_text())).parameters == model.parameters


def test_config_errors_name_the_key_the_value_and_the_rule(tmp_path):
    bad = json.loads(LLAMA_8B.read_text())
    bad["num_key_value_heads"] = 5
    with pytest.raises(tm.ScenarioError, match=r"num_key_value_heads: must divide num_attention_heads \(32\), got 5"):
        tm.read_hf_config(bad)
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": 4096.5}')
    with pytest.raises(tm.ScenarioError, match=r"config.json: hidden_size: must be a whole number, got 4096.5"):
        tm.read_hf_config(path)


@pytest.fixture(scope="module")
def lora_trn2():
    return tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", kind="lora", tokens="786M")


def test_every_phase_is_present_as_an_assumption_or_unknown(lora_trn2):
    doc = lora_trn2.to_dict()
    for phase, paths in PHASES.items():
        for path in paths:
            value = at(doc, path)
            assert isinstance(value, dict), f"{phase}: {path} is not given"
            if "unknown" in value:
                assert path.startswith("prices."), f"{phase}: {path} is unknown"
                continue
            assert value["source"] in ("assumption", "model"), path
            assert len(value["note"]) > 20, f"{path}: the note must say where the range comes from"
    # A price nobody quoted is unknown, never a guess.
    assert set(lora_trn2.unknowns()) == {
        p
        for p in PHASES["storage"] + PHASES["transfer"] + PHASES["logs"] + PHASES["compute price"]
        if p.startswith("prices.")
    }


def test_the_model_block_comes_from_the_config(lora_trn2):
    doc = lora_trn2.to_dict()
    assert doc["model"]["layers"] == 32 and doc["model"]["hidden_size"] == 4096 and doc["model"]["heads"] == 32
    assert doc["model"]["ffn_size"] == 14336 and doc["model"]["vocab_size"] == 128256
    assert doc["model"]["sequence_length"] == 4096
    assert abs(doc["model"]["parameters"]["value"] / 8.03e9 - 1) < 0.005
    assert doc["job"] == {**doc["job"], "kind": "lora", "lora_rank": 16}
    assert doc["job"]["tokens"]["value"] == 786e6
    assert doc["throughput"]["mode"] == "analytic"
    # LoRA: only the adapter is saved, 41.9M parameters x 14 bytes.
    assert doc["checkpoint"]["size_gb"]["value"] == pytest.approx(0.587, abs=0.001)
    par = doc["parallelism"]
    assert par["tp"] * par["pp"] * par["dp"] == 16 and par["global_batch"] % (par["dp"] * par["micro_batch"]) == 0


def test_the_output_validates_against_the_schema_and_reloads(lora_trn2):
    schema = json.loads((ROOT / "schema" / "scenario-v1.schema.json").read_text())
    doc = json.loads(lora_trn2.to_json())
    jsonschema.validate(doc, schema)
    assert tm.Scenario.from_dict(doc) == lora_trn2


def test_the_checkpoint_interval_is_daly_at_the_assumed_mtbf(lora_trn2):
    doc = lora_trn2.to_dict()
    save = doc["checkpoint"]["save_s"]["mode"]
    step = tm.simulate(lora_trn2, samples=512, seed=0, threads=1, allow_unknown=True, progress=False)
    step_s = step.summary().loc["step_time_s", "p50"]
    expected = max(1, round(tm.theory.daly_interval(save, 6150 * 3600) / step_s))
    assert doc["checkpoint"]["every_steps"]["value"] == pytest.approx(expected, rel=0.005)


def test_simulate_runs_with_unknown_prices(lora_trn2):
    r = tm.simulate(lora_trn2, samples=2_000, seed=1, allow_unknown=True, progress=False)
    s = r.summary()
    assert np.isfinite(s.loc["wall_h", "p50"]) and s.loc["wall_h", "p50"] > 0
    assert math.isnan(s.loc["run_cost_usd", "p50"])
    with pytest.raises(tm.UnknownInputError):
        tm.simulate(lora_trn2, samples=100, progress=False)


@pytest.mark.parametrize(
    "config, platform, nodes, kind, amount",
    [
        (LLAMA_8B, "p5.48xlarge", 1, "lora", {"tokens": "786M"}),
        (LLAMA_70B, "trn2.48xlarge", 16, "full", {"tokens": "40B"}),
        (LLAMA_70B, "p5.48xlarge", 16, "continued", {"steps": 2000}),
        (LLAMA_1B, "trn1.32xlarge", 2, "full", {"steps": "10k"}),
    ],
)
def test_other_platforms_and_kinds(config, platform, nodes, kind, amount):
    scn = tm.Scenario.new(config, platform, nodes=nodes, kind=kind, node_hour_usd=50.0, **amount)
    doc = scn.to_dict()
    assert doc["cluster"] == {"nodes": nodes, "platform": platform}
    assert doc["prices"]["node_hour_usd"]["source"] == "quote"
    if kind != "lora":
        # bf16 weights + fp32 master and Adam state of every parameter.
        assert doc["checkpoint"]["size_gb"]["value"] == pytest.approx(
            14 * tm.read_hf_config(config).parameters / 1e9, rel=0.005
        )
    gpu = platform.startswith("p")
    assert (doc["compile"]["initial_s"]["mode"] == 180) == gpu
    assert doc["throughput"]["compute_efficiency"]["mode"] == (0.45 if gpu else 0.4)
    r = tm.simulate(scn, samples=500, seed=0, allow_unknown=True, progress=False).summary()
    assert np.isfinite(r.loc["cost_compute_usd", "p50"])


def test_bad_job_inputs_are_refused():
    with pytest.raises(tm.ScenarioError, match="tokens, steps: give exactly one"):
        tm.Scenario.new(LLAMA_8B, "trn2.48xlarge")
    with pytest.raises(tm.ScenarioError, match=r"tokens: must be a positive number, optionally with k, M, B or T"):
        tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", tokens="lots")
    with pytest.raises(
        tm.ScenarioError,
        match=r"sequence_length: must be ≤ max_position_embeddings of config.json "
        r"\(8192\), got 16384 \(a longer context is a context extension: kind continued\)",
    ):
        tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", tokens="1B", sequence_length=16384)
    with pytest.raises(tm.ScenarioError, match="kind: must be one of lora, full, continued, got 'pretrain'"):
        tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", kind="pretrain", tokens="1B")
    with pytest.raises(tm.ScenarioError, match="profile: no shipped profile"):
        tm.Scenario.new(LLAMA_8B, "trn9.huge", tokens="1B")
    with pytest.raises(tm.ScenarioError, match="node_hour_usd: must be a price ≥ 0"):
        tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", tokens="1B", node_hour_usd=-1)


def test_a_new_user_builds_a_scenario_and_gets_a_report(tmp_path):
    r = run_cli(
        *"new --platform trn2.48xlarge --kind lora --tokens 786M -o my.json".split(),
        "--config",
        str(LLAMA_8B),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "scenario written: my.json" in r.stdout and "prices.node_hour_usd" in r.stdout
    jsonschema.validate(
        json.loads((tmp_path / "my.json").read_text()),
        json.loads((ROOT / "schema" / "scenario-v1.schema.json").read_text()),
    )
    r = run_cli("validate", "my.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_cli("report", "my.json", "-o", "r.html", "-n", "2000", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "r.html").read_text()
    markdown = (tmp_path / "r.md").read_text()
    assert "prices.node_hour_usd" in markdown and "run cost P50 **unknown**" in markdown
    # The analysed metric cannot be plotted without prices: the report says so instead of failing.
    assert "run_cost_usd is unknown (unknown inputs: prices.node_hour_usd" in markdown
    assert "<html" in html.lower()


@pytest.mark.parametrize(
    "config, extra, message",
    [
        ("missing.json", [], "missing.json"),  # bad input: one line naming the file
        (str(LLAMA_8B), ["--steps", "5"], "not allowed with argument"),  # a usage error, from argparse
    ],
    ids=["no config file", "tokens and steps"],
)
def test_cli_new_errors_exit_2(tmp_path, config, extra, message):
    r = run_cli(*"new --platform trn2.48xlarge --tokens 1B -o x.json".split(), "--config", config, *extra, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr.strip().splitlines()[-1], r.stderr
    assert not (tmp_path / "x.json").exists()


def test_the_key_value_heads_come_from_the_config(lora_trn2, tmp_path):
    """num_key_value_heads (grouped-query attention) becomes model.kv_heads; a config without
    it has as many key/value heads as heads (multi-head attention)."""
    assert lora_trn2.to_dict()["model"]["kv_heads"] == 8  # Llama 3 8B: 32 heads, 8 KV heads
    config = json.loads(LLAMA_8B.read_text())
    del config["num_key_value_heads"]
    mha = tm.Scenario.new(config, "trn2.48xlarge", kind="lora", tokens="786M")
    assert mha.to_dict()["model"]["kv_heads"] == 32
    # The CLI writes it too.
    out = tmp_path / "new.json"
    r = run_cli(
        "new",
        "--config",
        str(LLAMA_70B),
        "--platform",
        "trn2.48xlarge",
        "--nodes",
        "16",
        "--tokens",
        "1B",
        "-o",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["model"]["kv_heads"] == 8


def test_a_context_extension_is_continued_training_with_a_rope_warning():
    with pytest.warns(tm.PlausibilityWarning, match=r"beyond max_position_embeddings .*\(8192\).*RoPE scaling"):
        scn = tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", kind="continued", tokens="1B", sequence_length=32768)
    assert scn["model.sequence_length"] == 32768


STAGES = ["8k:180B:8192", "32k:20B:32768"]


@pytest.fixture(scope="module")
def two_stages():
    with pytest.warns(tm.PlausibilityWarning, match="RoPE"):
        return tm.Scenario.new(LLAMA_70B, "trn2.48xlarge", nodes=16, kind="continued", stages=STAGES)


def test_new_builds_stages_each_as_its_own_job(two_stages):
    """Each stage of a built job in stages runs what the same job built alone would: its tokens,
    sequence length, global batch (the first stage's tokens per step kept), layout and the
    checkpoint spacing of its own step time."""
    doc = two_stages.to_dict()
    assert "tokens" not in doc["job"] and "effective_steps" not in doc["job"]
    assert [s["name"] for s in doc["stages"]] == ["8k", "32k"]
    for k, (tokens, seq, batch) in enumerate([("180B", 8192, 256), ("20B", 32768, 64)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tm.PlausibilityWarning)
            alone = tm.Scenario.new(
                LLAMA_70B,
                "trn2.48xlarge",
                nodes=16,
                kind="continued",
                tokens=tokens,
                sequence_length=seq,
                global_batch=batch,
            )
        stage = tm.Scenario(two_stages._core.stage(k))
        for path in [
            "job.tokens",
            "model.sequence_length",
            "parallelism.global_batch",
            "parallelism.tp",
            "parallelism.pp",
            "parallelism.dp",
            "checkpoint.every_steps",
            "eval.every_steps",
            "throughput.compute_efficiency",
        ]:
            assert stage[path] == alone[path], (k, path)
    assert doc["stages"][1]["model"] == {"sequence_length": 32768}  # only where it differs
    # The job's data is the whole job's: 200B tokens, not the first stage's 180B.
    whole = tm.Scenario.new(LLAMA_70B, "trn2.48xlarge", nodes=16, kind="continued", tokens="200B", sequence_length=8192)
    assert two_stages["data.dataset_gb"] == whole["data.dataset_gb"]
    res = tm.simulate(two_stages, samples=300, seed=0, allow_unknown=True, progress=False)
    assert res.stage_names == ["8k", "32k"]
    np.testing.assert_allclose(res["8k/wall_h"] + res["32k/wall_h"], res["wall_h"], rtol=1e-12)


def test_the_cli_builds_stages(tmp_path, two_stages):
    args = ["new", "--config", str(LLAMA_70B), "--platform", "trn2.48xlarge", "--nodes", "16", "--kind", "continued"]
    r = run_cli(*args, *[a for st in STAGES for a in ("--stage", st)], "-o", "staged.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "stage 32k: gives job, model, parallelism" in r.stdout
    written = json.loads((tmp_path / "staged.json").read_text())
    assert written == two_stages.to_dict()
    jsonschema.validate(written, json.loads((ROOT / "schema" / "scenario-v1.schema.json").read_text()))
    r = run_cli(*args, "--stage", "8k:180B", "-o", "bad.json", cwd=tmp_path)
    assert r.returncode == 2 and "stages[0]: must be NAME:TOKENS:SEQ_LEN" in r.stderr, r.stderr
    r = run_cli(*args, "--stage", "8k:1B:8192", "--seq-len", "4096", "-o", "bad.json", cwd=tmp_path)
    assert r.returncode == 2 and "not used with stages" in r.stderr, r.stderr


@pytest.mark.parametrize(
    "stages, message",
    [
        ([("a", "1B", 4096), {"name": "b", "sequence_length": 4096}], r"stages\[1\]: give exactly one of tokens"),
        ([{"name": "", "tokens": "1B", "sequence_length": 4096}], r"stages\[0\]\.name: required"),
        ([{"name": "a", "tokens": "1B"}], r"stages\[0\]\.sequence_length: required"),
        ([{"name": "a", "tokens": "1B", "sequence_length": 4096, "batch": 3}], r"stages\[0\]\.batch: unknown key"),
        ([("a", "1B", 16384)], r"stages\[0\] \(a\): sequence_length: must be ≤ max_position_embeddings"),
    ],
)
def test_bad_stages_are_refused_with_their_path(stages, message):
    with pytest.raises(tm.ScenarioError, match=message):
        tm.Scenario.new(LLAMA_8B, "trn2.48xlarge", kind="full", stages=stages)
