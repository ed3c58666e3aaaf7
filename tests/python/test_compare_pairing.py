"""What two scenarios share on common random numbers (docs/sensitivity.md, "What two scenarios
share"): the job's inputs and luck are drawn once for both; the inputs and luck of a platform
are keyed by it, independent between two platforms and shared by two runs on one."""

import math
from pathlib import Path

import numpy as np

import trnmodel as tm

ROOT = Path(__file__).resolve().parents[2]
N = 100_000


def job(platform, step_time, **sections):
    """1000 steps on one node of ``platform``; ``sections`` add or replace scenario sections."""
    d = {
        "schema": "trnmodel.scenario/1",
        "name": platform,
        "job": {"effective_steps": 1000},
        "cluster": {"nodes": 1, "platform": platform},
        "throughput": {"step_time_s": step_time},
        "prices": {"node_hour_usd": 10.0},
    }
    d.update(sections)
    return tm.Scenario.from_dict(d)


def within(p_hat, p, n, se_count=4):
    return abs(p_hat - p) < se_count * math.sqrt(p * (1 - p) / n)


def test_two_platforms_step_times_are_independent():
    # A: U(1, 2) s, B: U(1.2, 2.2) s. wall_A < wall_B iff X < Y + 0.2, X, Y ~ U(0, 1):
    # independent, P = 1 − 0.8² / 2 = 0.68; one stream for both would make it 1.
    a = job("trn2.48xlarge", {"dist": "uniform", "lo": 1, "hi": 2})
    b = job("p5.48xlarge", {"dist": "uniform", "lo": 1.2, "hi": 2.2})
    cmp = tm.compare(a, b, "wall_h", samples=N, seed=4)
    assert within(cmp.p_a_less_b, 0.68, N)
    # The independent-draws computation: each side on a seed of its own.
    wall_a = tm.simulate(a, samples=N, seed=11)["wall_h"]
    wall_b = tm.simulate(b, samples=N, seed=12)["wall_h"]
    assert abs(cmp.p_a_less_b - float(np.mean(wall_a < wall_b))) < 4 * math.sqrt(2 * 0.68 * 0.32 / N)
    # Uncorrelated sides: |r| within 4 / sqrt(N) of 0.
    assert abs(np.corrcoef(cmp.a, cmp.b)[0, 1]) < 4 / math.sqrt(N)
    # pairing_check agrees: nothing is described alike on both sides but the fixed inputs.
    check = cmp.pairing_check()
    assert check["paired"] == []
    assert within(check["p_a_less_b"], 0.68, N)


def test_one_platform_shares_its_draws():
    # Two runs on one platform differ only by 0.2 s a step: B is slower in every sample.
    a = job("trn2.48xlarge", {"dist": "uniform", "lo": 1, "hi": 2})
    b = job("trn2.48xlarge", {"dist": "uniform", "lo": 1.2, "hi": 2.2})
    cmp = tm.compare(a, b, "wall_h", samples=20_000, seed=4)
    assert cmp.p_a_less_b == 1.0
    np.testing.assert_allclose(cmp.difference * 3600, -200.0, rtol=1e-9)
    # A scenario compared with itself: exactly 0, with failures and spot luck included.
    spot = job(
        "p5.48xlarge",
        {"dist": "lognormal", "p50": 2, "p90": 3},
        failures={"node_mtbf_h": 3.0, "restart_s": 300},
        checkpoint={"every_steps": 100, "save_s": 30},
    )
    assert (tm.compare(spot, spot, "wall_h", samples=20_000).difference == 0).all()


def test_the_job_inputs_stay_common_across_platforms():
    # The work is the same unknown on both platforms: with B's step 10 % slower, B takes
    # longer in every sample, and the two walls move together.
    steps = {"effective_steps": {"dist": "uniform", "lo": 500, "hi": 1500}}
    a = job("trn2.48xlarge", 1.0, job=steps)
    b = job("p5.48xlarge", 1.1, job=steps)
    cmp = tm.compare(a, b, "wall_h", samples=20_000, seed=2)
    assert cmp.p_a_less_b == 1.0
    np.testing.assert_allclose(cmp.b, 1.1 * cmp.a, rtol=1e-12)


def test_platform_luck_is_independent_and_the_quality_gate_shared():
    common = {
        "failures": {"node_mtbf_h": 2.0, "restart_s": 600},
        "checkpoint": {"every_steps": 100, "save_s": 30},
        "quality": {"rerun_prob": 0.5, "rerun_fraction": 0.5},
    }
    a = job("trn2.48xlarge", 3.0, **common)
    b = job("p5.48xlarge", 3.0, **common)
    ra, rb = tm.simulate(a, samples=N, seed=9), tm.simulate(b, samples=N, seed=9)
    # The job's luck: the quality gate sends the same samples back on both platforms.
    np.testing.assert_array_equal(ra["rerun_h"] > 0, rb["rerun_h"] > 0)
    assert within(float(np.mean(ra["rerun_h"] > 0)), 0.5, N)
    # The platforms' luck: lost work uncorrelated between two platforms ...
    assert abs(np.corrcoef(ra["lost_h"], rb["lost_h"])[0, 1]) < 4 / math.sqrt(N)
    # ... and identical between two scenarios on one.
    again = tm.simulate(job("trn2.48xlarge", 3.0, **common), samples=N, seed=9)
    np.testing.assert_array_equal(ra["lost_h"], again["lost_h"])


def test_the_llama_pair_shares_the_work_not_the_platform():
    trn2 = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    p5 = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    cmp = tm.compare(trn2, p5, "run_cost_usd", samples=2_000, seed=1)
    check = cmp.pairing_check()
    shared = set(check["paired"])
    assert {"job.effective_steps", "startup.data_load_s", "throughput.data_stall_fraction"} <= shared
    assert not shared & {"throughput.step_time_s", "startup.queue_wait_s", "prices.node_hour_usd"}


def test_the_pairing_check_draws_each_side_as_defined():
    """pairing_check's samples against their definition, computed independently: each drawn
    input's uniforms from its stream (A: its own, as in A's simulation; B: the shared one when
    paired, "<path>@b" otherwise), mapped by the C++ model row by row with chance indices
    0..n-1 for A and n..2n-1 for B. Bit for bit, for both outputs of one run; side A is A's own
    simulation, whether taken from kept samples or run."""
    from trnmodel import _core

    a = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")
    b = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-p5.json")
    n, seed = 3_001, 7
    cmp = tm.compare(a, b, samples=n, seed=seed, threads=2)
    cmp._partly_paired_outputs(["run_cost_usd", "wall_h"])
    check = cmp.pairing_check()
    for output in ("run_cost_usd", "wall_h"):
        ya, yb, paired, _ = cmp._partly_paired(output)
        for scenario, side, y, chance in ((a, "a", ya, np.arange(n)), (b, "b", yb, np.arange(n, 2 * n))):
            info = _core.lifecycle_info(scenario._core)
            streams = [
                own if side == "a" or p in paired else _core.stream_id(f"{p}@b")
                for p, own in zip(info.uncertain_inputs, info.input_streams)
            ]
            u = np.column_stack([_core.uniforms(seed, 0, n, stream, 0) for stream in streams])
            expected = _core.evaluate_uniforms(scenario._core, output, seed, u, chance.astype(np.uint64))
            np.testing.assert_array_equal(y, expected)
        np.testing.assert_array_equal(ya, tm.simulate(a, samples=n, seed=seed)[output])
    # The same sides from a comparison made of kept simulations (side A taken, not run) and from
    # a comparison that keeps only the compared output (side A of that output taken).
    from trnmodel._sensitivity import _comparison_of_results

    ra, rb = tm.simulate(a, samples=n, seed=seed), tm.simulate(b, samples=n, seed=seed)
    for other in (_comparison_of_results(ra, rb), tm.compare(a, b, samples=n, seed=seed)):
        for output in ("run_cost_usd", "wall_h"):
            for mine, theirs in zip(other._partly_paired(output)[:2], cmp._partly_paired(output)[:2]):
                np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(
        check["difference"], cmp._partly_paired("run_cost_usd")[0] - cmp._partly_paired("run_cost_usd")[1]
    )


def test_the_signoffs_drawn_inputs_change_no_bit():
    # The sign-off simulates B with its inputs drawn into an array (_keep_draws), which its
    # break-even and its side of the pairing check read back: every number the same, bit for
    # bit, as drawing them again.
    from trnmodel._sensitivity import _comparison_of_results

    a = tm.Scenario.from_json(str(ROOT / "examples" / "llama3-8b-lora-trn2.json"))
    b = tm.Scenario.from_json(str(ROOT / "examples" / "llama3-8b-lora-p5.json"))
    n = 6_001
    ra = tm.simulate(a, samples=n, seed=4, progress=False)
    rb = tm.simulate(b, samples=n, seed=4, progress=False)
    rb_drawn = tm.simulate(b, samples=n, seed=4, progress=False, _keep_draws=True)
    assert rb._draws is None and (rb_drawn._draws.samples, rb_drawn._draws.seed) == (n, 4)
    assert rb_drawn._draws.inputs == len(rb_drawn.uncertain_inputs)
    for m in rb.outputs:
        np.testing.assert_array_equal(rb[m], rb_drawn[m])
    plain = _comparison_of_results(ra, rb)
    drawn = _comparison_of_results(ra, rb_drawn)
    assert plain.break_even("prices.node_hour_usd") == drawn.break_even("prices.node_hour_usd")
    check, check_drawn = plain.pairing_check(), drawn.pairing_check()
    assert check.keys() == check_drawn.keys()
    for key, value in check.items():
        np.testing.assert_array_equal(value, check_drawn[key], err_msg=key)
    np.testing.assert_array_equal(plain._partly_paired("wall_h")[1], drawn._partly_paired("wall_h")[1])
    # Another seed's break-even draws for itself: the draws kept are not of its run.
    assert plain.break_even("prices.node_hour_usd", seed=5) == drawn.break_even("prices.node_hour_usd", seed=5)
