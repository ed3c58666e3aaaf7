"""The metric lists, each defined once: every per-sample metric, the phases, the parts of a
derived step time, the summary's statistics, the cost ledger. Times in hours, costs in USD
(docs/metrics.md)."""

from __future__ import annotations

from typing import List

from . import _core

#: Every per-sample metric, in order.
METRICS: List[str] = list(_core.metric_names())
#: The phase times; for every sample they sum to wall_h.
PHASES: List[str] = list(_core.phase_metric_names())
#: The metrics of each stage of a multi-stage job, reported as "<stage>/<metric>".
STAGE_METRICS: List[str] = list(_core.stage_metric_names())
#: The parts of a derived step time (NaN when the step time was measured).
STEP_PARTS = ["compute_s", "tp_comm_s", "pp_bubble_s", "pp_p2p_s", "dp_comm_s"]
#: The statistics of a summary, in column order.
SUMMARY_COLUMNS = ["mean", "sd", "p10", "p50", "p80", "p90", "p99", "min", "max"]
#: What a simulation's card shows first.
KEY_METRICS = [
    "wall_h",
    "billed_h",
    "node_h",
    "run_cost_usd",
    "total_cost_usd",
    "useful_step_cost_usd",
    "lifecycle_cost_per_step_usd",
    "goodput",
    "failures",
]
#: The parts of the cost: the run's lines and the porting effort, a risk line outside the run.
COST_PARTS = ["cost_compute_usd", "cost_storage_usd", "cost_transfer_usd", "cost_logs_usd", "adaptation_usd"]
#: The cost ledger as the report lists it: the run's lines, their sum, the porting effort, the total.
LEDGER_LINES = [
    "cost_compute_usd",
    "cost_storage_usd",
    "cost_transfer_usd",
    "cost_logs_usd",
    "run_cost_usd",
    "adaptation_usd",
    "total_cost_usd",
]
#: A capacity block's parts of cost_compute_usd: the fee's share for the idle hours, and the
#: on-demand overflow after the window.
BLOCK_LEDGER_LINES = ["block_idle_usd", "overflow_usd"]


def unit_of(metric: str) -> str:
    """The unit a metric name carries (names carry units)."""
    for suffix, unit in (("_usd", "USD"), ("_h", "hours"), ("_s", "seconds")):
        if metric.endswith(suffix):
            return unit
    return ""
