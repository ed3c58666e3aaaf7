"""Closed forms of checkpoint/restart theory (seconds in, seconds out unless named _h).

Young (1974), Daly (2006) and the first-order ETTR of Meta's reliability study
(Kokolis et al., arXiv:2410.21680). They are the test oracle of the simulator and quick
answers without sampling; see include/trnmodel/lifecycle/theory.hpp for the derivations.
"""

from __future__ import annotations

from . import _core

_t = _core.theory


def young_interval(checkpoint_s: float, mtbf_s: float) -> float:
    """Young's optimal compute time between checkpoints, √(2 δ M), in seconds."""
    return _t.young_interval_s(checkpoint_s, mtbf_s)


def daly_interval(checkpoint_s: float, mtbf_s: float) -> float:
    """Daly's higher-order optimum √(2δM)[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ (δ < 2M; else M), seconds."""
    return _t.daly_interval_s(checkpoint_s, mtbf_s)


def daly_wall_time(
    solve_s: float,
    interval_s: float,
    checkpoint_s: float,
    recovery_s: float,
    mtbf_s: float,
    recovery_can_fail: bool = True,
) -> float:
    """Daly's expected wall time, seconds: M e^{R/M} (e^{(τ+δ)/M} − 1) T_s/τ when recoveries
    can fail, (M + R)(e^{(τ+δ)/M} − 1) T_s/τ when they cannot. Exact for T_s/τ whole segments
    each ending with a save, exponential failures of mean M."""
    return _t.daly_wall_time_s(solve_s, interval_s, checkpoint_s, recovery_s, mtbf_s, recovery_can_fail)


def expected_segment_time(segment_s: float, recovery_s: float, mtbf_s: float, recovery_can_fail: bool) -> float:
    """Expected seconds to complete one segment of ``segment_s`` (compute + save)."""
    return _t.expected_segment_time_s(segment_s, recovery_s, mtbf_s, recovery_can_fail)


def expected_failures_per_segment(segment_s: float, recovery_s: float, mtbf_s: float, recovery_can_fail: bool) -> float:
    """Expected failures before a segment completes: e^{λD} − 1 (× e^{λR} when recoveries can fail)."""
    return _t.expected_failures_per_segment(segment_s, recovery_s, mtbf_s, recovery_can_fail)


def expected_lost_per_failure(segment_s: float, mtbf_s: float) -> float:
    """Expected seconds lost per failure in a segment attempt: 1/λ − D/(e^{λD} − 1)."""
    return _t.expected_lost_per_failure_s(segment_s, mtbf_s)


def meta_ettr(
    nodes: float, node_mtbf_h: float, checkpoint_interval_h: float, checkpoint_save_h: float, restart_h: float
) -> float:
    """First-order expected ETTR: (1 − N/MTBF·(restart + interval/2)) / (1 + save/interval)."""
    return _t.meta_ettr_first_order(nodes, node_mtbf_h, checkpoint_interval_h, checkpoint_save_h, restart_h)


__all__ = [
    "young_interval",
    "daly_interval",
    "daly_wall_time",
    "expected_segment_time",
    "expected_failures_per_segment",
    "expected_lost_per_failure",
    "meta_ettr",
]
