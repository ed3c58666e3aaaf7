"""Validation of the analytic step-time model (docs/throughput.md) against 109 measured Megatron-DeepSpeed
GPT iteration times on 64-512 A100 GPUs (VIA-Research/vTrain, data/ground_truth_multi.csv).

bench/vtrain_validation.py holds the method (docs/validation.md discusses it): the hardware is
fixed from sources, at most three parameters are fitted on the five rows that
CALIBRATION_RULE picks (the first row of each model size + the first tp=16 row), and the
mean absolute percentage error (MAPE) is measured on the other 104 rows. Every prediction is
the library's own trnmodel._core.analytic_step_time.

Bounds = the measured held-out MAPE rounded up with a small margin (values measured with this
repository's library and the grid search in the bench script):

  library, elementwise_traffic = 0 (free: compute, intra, inter efficiency)   10.83% -> bound 11.5%
  library, elementwise term on (free: compute, inter efficiency, β)            6.81% -> bound  7.5%

Target 12%; vTrain's profiling simulator reports 14.73%. A lower MAPE after a model change
should lower the bounds here.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

from trnmodel import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import vtrain_validation as vt  # noqa: E402

NO_ELEMENTWISE_BOUND = 11.5
ELEMENTWISE_BOUND = 7.5
TARGET = 12.0
CALIBRATION_INDICES = [0, 26, 41, 88, 21]


@pytest.fixture(scope="module")
def rows():
    # The measurements ship with the project (bench/data/): a missing file is a failure.
    assert vt.find_csv() is not None, f"{vt.CSV_NAME} not found in bench/data/"
    rows = vt.load_rows()
    assert len(rows) == vt.EXPECTED_ROWS
    return rows


def _check_plausible(params):
    for name in ("compute_efficiency", "intra_efficiency", "inter_efficiency"):
        assert 0 < params[name] <= 1, (name, params[name])
    if "elementwise_traffic" in params:
        # bytes of HBM traffic per stored activation byte and pass: positive and not pinned at
        # the search bound (physically ~1-4: each elementwise kernel reads and writes its tensors)
        lo, hi = vt.BOUNDS["elementwise_traffic"]
        assert lo < params["elementwise_traffic"] < hi


def test_calibration_rows_follow_the_stated_rule(rows):
    cal = vt.calibration_rows(rows)
    assert [r.index for r in cal] == CALIBRATION_INDICES
    assert len(cal) <= 5
    assert sorted({r.parameters_b for r in cal}) == [3.6, 18.4, 39.1, 175.0]
    assert [r.tp for r in cal if r.tp > vt.CHIPS_PER_NODE] == [16]


def test_mape_definition():
    assert vt.mape([1.0, 2.0], [1.1, 1.8]) == pytest.approx(10.0)


def test_zero_elementwise_traffic_changes_nothing(rows):
    # elementwise_traffic = 0 gives exactly the result of omitting the optional arguments, with
    # the A100 HBM bandwidth the bench passes and with hbm_tb_s = 0, on every layout of the data.
    effs = dict(compute_efficiency=0.6, intra_efficiency=0.77, inter_efficiency=0.7)
    for r in rows:
        omitted = vt.library_step_time(r, **effs)  # neither hbm_tb_s nor elementwise_traffic passed
        assert vt.library_step_time(r, **effs, elementwise_traffic=0.0) == omitted, r.label
        explicit_zero = vt.step_parts(
            _core.analytic_step_time(
                parameters=r.parameters_b * 1e9,
                layers=r.layers,
                hidden_size=r.hidden_size,
                heads=r.heads,
                sequence_length=r.sequence_length,
                ffn_size=0.0,
                lora=False,
                lora_rank=0.0,
                recompute=vt.RECOMPUTE,
                tp=r.tp,
                pp=r.pp,
                dp=r.dp,
                micro_batch=r.micro_batch,
                global_batch=r.global_batch,
                virtual_stages=vt.VIRTUAL_STAGES,
                zero_stage=vt.ZERO_STAGE,
                peak_tflops=vt.PEAK_TFLOPS,
                intra_gb_s=vt.INTRA_GB_S,
                intra_latency_us=vt.INTRA_LATENCY_US,
                intra_efficiency=effs["intra_efficiency"],
                inter_gb_s=vt.INTER_GB_S,
                inter_latency_us=vt.INTER_LATENCY_US,
                inter_efficiency=effs["inter_efficiency"],
                chips_per_domain=vt.CHIPS_PER_NODE,
                compute_efficiency=effs["compute_efficiency"],
                dp_overlap=vt.DP_OVERLAP,
                hbm_tb_s=0.0,
                elementwise_traffic=0.0,
            )
        )
        assert explicit_zero == omitted, r.label
        # ... while a positive value does reach the library (the comparison is not vacuous)
        assert vt.library_step_time(r, **effs, elementwise_traffic=1.0)["compute_s"] > omitted["compute_s"]


def test_no_elementwise_heldout_mape(rows):
    res = vt.validate(rows, "no_elementwise")
    params = res["params"]
    assert params["calibration_rows"] == CALIBRATION_INDICES
    assert len(res["held_out"]) == len(rows) - 5
    assert not {r.index for r in res["held_out"]} & set(CALIBRATION_INDICES)
    assert "elementwise_traffic" not in params
    _check_plausible(params)
    assert res["mape"] <= NO_ELEMENTWISE_BOUND <= TARGET


def test_elementwise_heldout_mape(rows):
    res = vt.validate(rows, "elementwise")
    params = res["params"]
    assert params["calibration_rows"] == CALIBRATION_INDICES
    assert params["intra_efficiency"] == vt.FIXED_INTRA_EFFICIENCY
    assert set(vt.free_parameters("elementwise")) == {"compute_efficiency", "inter_efficiency", "elementwise_traffic"}
    _check_plausible(params)
    assert res["mape"] <= ELEMENTWISE_BOUND <= TARGET
    # no model size is left far behind
    for size in (3.6, 18.4, 39.1, 175.0):
        err = [e for r, e in zip(res["held_out"], res["errors"]) if r.parameters_b == size]
        assert np.mean(np.abs(err)) * 100 <= TARGET, size
