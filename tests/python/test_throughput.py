"""Step time from the platform (docs/throughput.md) from Python: profiles, collectives, FLOPs,
derived modes in the lifecycle, memory fit and the configuration search."""

import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import trnmodel as tm
from trnmodel import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
LLAMA70B = {
    "model.parameters": 70.6e9,
    "model.layers": 80,
    "model.hidden_size": 8192,
    "model.heads": 64,
    "model.ffn_size": 28672,
    "model.vocab_size": 128256,
    "model.sequence_length": 8192,
    "parallelism.global_batch": 256,
    "job.recompute": "selective",
    "throughput.step_time_s": None,
}


def trn2_analytic(**extra):
    changes = {
        **LLAMA70B,
        "throughput.mode": "analytic",
        "throughput.compute_efficiency": 0.45,
        "parallelism.tp": 8,
        "parallelism.pp": 4,
        "parallelism.dp": 8,
        **extra,
    }
    return tm.Scenario.from_json(ROOT / "examples" / "llama3-70b-full-trn2x16.json").updated(changes)


def test_every_shipped_profile_loads_with_sources():
    names = tm.profiles()
    for expected in [
        "trn1.32xlarge",
        "trn2.48xlarge",
        "trn2-ultraserver",
        "trn3-gen1-ultraserver",
        "trn3-gen2-ultraserver",
        "p4d.24xlarge",
        "p5.48xlarge",
        "p5en.48xlarge",
    ]:
        assert expected in names
    for name in names:
        doc = tm.load_profile(name)
        assert doc["schema"] == "trnmodel.profile/1"
        for key, value in doc.items():
            if isinstance(value, dict) and "dist" in value:
                assert value.get("source") in ("vendor", "assumption", "quote", "measured"), (name, key)
                assert value.get("note"), (name, key)
    with pytest.raises(tm.ScenarioError, match="no shipped profile or file named 'trn9'"):
        tm.load_profile("trn9")


def test_collectives_from_python():
    c = tm.collectives
    n, b, a = 2**30, 300e9, 5e-6
    assert c.ring_all_reduce_s(8, n, a, b) == pytest.approx(2 * 7 * a + 2 * 7 / 8 * n / b, rel=1e-15)
    assert c.ring_all_reduce_s(1, n, a, b) == 0
    # NCCL-tests: busbw = algbw · 2(n-1)/n recovers the link bandwidth when latency is 0.
    t = c.ring_all_reduce_s(64, n, 0.0, b)
    assert c.all_reduce_busbw_bytes_per_s(64, n, t) == pytest.approx(b, rel=1e-14)
    with pytest.raises(tm.ScenarioError, match="bytes: must be ≥ 0"):
        c.ring_all_reduce_s(8, -1, a, b)


def test_flops_identities():
    N, L, H, T = 8.03e9, 32, 4096, 8192
    attention = 12 * L * H * T
    assert _core.flops_per_token(N, L, H, 32, T) == 6 * N + attention
    assert _core.flops_per_token(N, L, H, 32, T, recompute="full", hardware=True) == pytest.approx(
        8 * N + attention * 4 / 3
    )
    lora = _core.flops_per_token(N, L, H, 32, T, ffn_size=14336, lora=True, lora_rank=16)
    assert 4 * N + attention < lora < 4 * N + attention * 1.01 + 1e9


def test_trn1_measured_rows_imply_their_mfu():
    # hardware.md: Llama-3.1-8B on 32 x trn1.32xlarge, seq 8192: 47.95 sequences/s.
    peak = tm.load_profile("trn1.32xlarge")["peak_tflops_per_chip"]["bf16"]["value"] * 1e12
    flops = _core.flops_per_token(8.03e9, 32, 4096, 32, 8192)
    mfu = 47.95 * 8192 * flops / (32 * 16 * peak)
    assert mfu == pytest.approx(0.247, abs=0.002)
    # In flops mode that MFU gives back the measured throughput.
    scn = tm.Scenario.from_dict(
        {
            "schema": "trnmodel.scenario/1",
            "job": {"effective_steps": 10},
            "cluster": {"nodes": 32, "platform": "trn1.32xlarge"},
            "model": {"parameters": 8.03e9, "layers": 32, "hidden_size": 4096, "heads": 32, "sequence_length": 8192},
            "parallelism": {"tp": 32, "dp": 16, "global_batch": 1024},
            "throughput": {"mode": "flops", "model_flops_utilization": mfu},
            "prices": {"node_hour_usd": 21.5},
        }
    )
    step = tm.simulate(scn, samples=2)["step_time_s"][0]
    assert 1024 / step == pytest.approx(47.95, rel=1e-9)


def test_derived_step_time_flows_through_the_lifecycle():
    res = tm.simulate(trn2_analytic(**{"throughput.compute_efficiency": tm.PERT(0.3, 0.45, 0.6)}), samples=5000)
    df = res.to_pandas()
    parts = df[["compute_s", "tp_comm_s", "pp_bubble_s", "pp_p2p_s", "dp_comm_s"]].sum(axis=1)
    np.testing.assert_allclose(parts, df["step_time_s"], rtol=1e-12)
    assert df["step_time_s"].std() > 0  # the uncertain efficiency spreads the step time
    s = res.summary()
    assert s.loc["step_time_s", "note"] == "derived (analytic mode, profile trn2.48xlarge)"
    # useful time = steps x step time, sample by sample
    steps = df["useful_h"] * 3600 / df["step_time_s"]
    np.testing.assert_allclose(steps, np.round(steps), rtol=0, atol=1e-6)


def test_extrapolated_from_two_nodes():
    scn = trn2_analytic(
        **{
            "throughput.mode": "extrapolated",
            "reference.step_time_s": tm.LogNormal.from_quantiles(p50=150, p90=165),
            "reference.nodes": 2,
            "reference.tp": 8,
            "reference.pp": 4,
            "reference.dp": 1,
            "reference.micro_batch": 1,
            "reference.global_batch": 256,
            "reference.sequence_length": 8192,
        }
    )
    res = tm.simulate(scn, samples=4000)
    step = res["step_time_s"]
    # Eight replicas instead of one for the same global batch: close to 1/8 of the time.
    assert 150 / 8 * 0.9 < np.median(step) < 150 / 8 * 1.3
    assert "extrapolated" in res.summary().loc["step_time_s", "note"]


def test_memory_fit_and_layout_errors():
    with pytest.raises(tm.ScenarioError, match=r"GiB per chip .* GiB over; raise tp or pp"):
        trn2_analytic(**{"parallelism.tp": 1, "parallelism.pp": 1, "parallelism.dp": 256, "job.recompute": "none"})
    with pytest.raises(tm.ScenarioError, match="tp x pp x dp = 64 must equal the chips of 16 x trn2.48xlarge = 256"):
        trn2_analytic(**{"parallelism.pp": 1})
    with pytest.raises(tm.ScenarioError, match="throughput.compute_efficiency: required"):
        trn2_analytic(**{"throughput.compute_efficiency": None})


def test_user_profile_overrides_a_shipped_one(tmp_path):
    doc = tm.load_profile("trn2.48xlarge")
    doc["peak_tflops_per_chip"]["bf16"] = {"dist": "fixed", "value": 667 * 2, "source": "measured", "note": "test"}
    base = trn2_analytic()
    faster = tm.Scenario.from_dict(base.to_dict(), profiles={"trn2.48xlarge": doc})
    a = tm.simulate(base, samples=10)["compute_s"][0]
    b = tm.simulate(faster, samples=10)["compute_s"][0]
    assert b == pytest.approx(a / 2, rel=1e-12)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc))
    assert (
        tm.Scenario.from_dict(
            {**base.to_dict(), "cluster": {"nodes": 16, "platform": "mine"}}, profiles={"mine": path}
        )._core.profile_name
        == "trn2.48xlarge"
    )


def test_a_user_profile_list_price_is_range_checked():
    doc = tm.load_profile("trn2.48xlarge")
    doc["price_node_hour_usd"] = {"dist": "uniform", "lo": -5, "hi": 40}
    with pytest.raises(
        tm.ScenarioError, match=r"price_node_hour_usd: must be > 0 over its whole range, got \[-5, 40\]"
    ):
        tm.Scenario.from_dict(trn2_analytic().to_dict(), profiles={"trn2.48xlarge": doc})
    priced = {**trn2_analytic().to_dict(), "prices": {"node_hour_usd": 2.2}}
    with pytest.warns(tm.PlausibilityWarning, match="far below the trn2.48xlarge list price"):
        tm.Scenario.from_dict(priced)  # the shipped profile's known list price
    # An unknown list price is compared with nothing: no plausibility warning, no error.
    doc["price_node_hour_usd"] = {"unknown": "no public price yet"}
    scn = tm.Scenario.from_dict(priced, profiles={"trn2.48xlarge": doc})
    assert not [w for w in scn.implausible() if "list price" in w]


def test_search_parallelism_ranks_fitting_layouts():
    table = tm.search_parallelism(trn2_analytic(), micro_batches=(1, 2), samples=300)
    fits = table[table["fits"]]
    assert len(fits) >= 5
    assert (np.diff(fits["run_cost_usd"].to_numpy()) >= 0).all()
    assert (fits["tp"] * fits["pp"] * fits["dp"] == 256).all()
    assert (~table["fits"]).sum() >= 1 and table.loc[~table["fits"], "reason"].str.contains("GiB over").all()


def test_search_parallelism_over_node_counts_ranks_every_counts_layouts_together():
    scn = trn2_analytic()
    table = tm.search_parallelism(scn, micro_batches=(1,), max_tp=8, samples=200, nodes=[8, 16])
    assert set(table["nodes"]) == {8, 16}
    assert (table["tp"] * table["cp"] * table["pp"] * table["dp"] == table["nodes"] * 16).all()
    fits = table[table["fits"]]
    assert set(fits["nodes"]) == {8, 16}  # ranked together, by median cost
    assert (np.diff(fits["run_cost_usd"].to_numpy()) >= 0).all()
    # Each count's rows are the search of the scenario at that count, bit for bit.
    at8 = tm.search_parallelism(
        scn.updated({"cluster.nodes": 8, "parallelism.dp": 4}), micro_batches=(1,), max_tp=8, samples=200
    )
    mine = table[table["nodes"] == 8].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, at8, check_exact=True)
    with pytest.raises(tm.ScenarioError, match=r"nodes: must be a non-empty list of node counts ≥ 1, got \[0\]"):
        tm.search_parallelism(scn, nodes=[0])


def test_analytic_step_time_is_keyword_only_and_names_bad_fields():
    args = dict(
        parameters=8e9,
        layers=32,
        hidden_size=4096,
        heads=32,
        sequence_length=4096,
        ffn_size=0.0,
        lora=False,
        lora_rank=0.0,
        recompute="none",
        tp=8,
        pp=1,
        dp=4,
        micro_batch=1,
        global_batch=32,
        virtual_stages=1,
        zero_stage=0,
        peak_tflops=667,
        intra_gb_s=640,
        intra_latency_us=2,
        intra_efficiency=0.77,
        inter_gb_s=25,
        inter_latency_us=15,
        inter_efficiency=0.7,
        chips_per_domain=16,
        compute_efficiency=0.5,
        dp_overlap=0.0,
    )
    parts = _core.analytic_step_time(**args)
    assert parts.step_time_s == pytest.approx(
        sum(getattr(parts, k) for k in ("compute_s", "tp_comm_s", "pp_bubble_s", "pp_p2p_s", "dp_comm_s")), rel=1e-12
    )
    with pytest.raises(TypeError):
        _core.analytic_step_time(*args.values())
    with pytest.raises(tm.ScenarioError, match=r"intra_efficiency: must be in \(0, 1\], got 77"):
        _core.analytic_step_time(**{**args, "intra_efficiency": 77})
    with pytest.raises(tm.ScenarioError, match="hbm_tb_s: must be > 0, got 0"):
        _core.analytic_step_time(**args, elementwise_traffic=1.0)


def test_search_tries_context_parallelism_for_long_sequences():
    from trnmodel import _core

    degrees = _core.context_parallel_degrees  # the search's rule (max_cp 0: no cap)
    assert degrees(8192, 0) == [1]  # at 8K: not tried (the 8K search above is unchanged)
    assert degrees(32768, 0) == [1, 2, 4]  # each chip keeps at least 8,192 tokens
    assert degrees(131072, 8) == [1, 2, 4, 8]
    assert degrees(32768, 1) == [1]
    long = trn2_analytic(
        **{
            "model.sequence_length": 32768,
            "parallelism.global_batch": 64,
            "model.kv_heads": 8,
            "parallelism.cp": 2,  # at cp 1 this layout is over by 22 GiB
            "parallelism.dp": 4,
        }
    )
    table = tm.search_parallelism(long, micro_batches=(1,), samples=50)
    assert set(table["cp"]) == {1, 2, 4}
    assert (table["tp"] * table["cp"] * table["pp"] * table["dp"] == 256).all()
    # The memory rule (docs/throughput.md, "Memory fit"): activations per chip are
    # (layers / pp) x min(pp, micro-batches in flight) / (tp x cp) times one constant, so a layout
    # over at cp 1 is told 1/cp of the activations at cp (for the same micro-batches in flight).
    over = table[~table["fits"]].copy()
    over["gib"] = over["reason"].str.extract(r"activations ([0-9.]+) GiB")[0].astype(float)
    in_flight = np.minimum(over["pp"], 64 // over["dp"])
    unit = over["gib"] * over["tp"] * over["cp"] * over["pp"] / in_flight
    assert set(over["cp"]) == {1, 2, 4}
    np.testing.assert_allclose(unit, unit.iloc[0], rtol=0.01)
    assert (table.loc[table["fits"], "cp"] > 1).any()
