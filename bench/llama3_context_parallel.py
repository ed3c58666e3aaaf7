"""The analytic step-time model on Llama 3's two pre-training layouts (arXiv:2407.21783, Table 4):
Llama-3-405B on 16,384 H100s, 8,192-token sequences without context parallelism (TP 8, PP 16,
DP 128; reported 41% BF16 MFU) and 131,072-token sequences with CP 16 (TP 8, CP 16, PP 16,
DP 8; reported 38%); 16M tokens per step in both. Prints the implied MFU of each layout, with
the compute efficiency calibrated on the 8K row, and the parts of the step time.
Run: .venv/bin/python bench/llama3_context_parallel.py (docs/validation.md, "Context parallelism")."""

from __future__ import annotations

from trnmodel import _core

# Llama 3 405B (Table 3 of the paper): 126 layers, model dimension 16,384, FFN 53,248, 128
# attention heads, 8 key/value heads, 128,256-token vocabulary, 405B parameters.
MODEL = dict(
    parameters=405e9, layers=126, hidden_size=16384, heads=128, kv_heads=8, ffn_size=53248, lora=False, lora_rank=0
)
# H100 SXM and a 400 Gbps-per-GPU network (Llama 3's RoCE fabric; p5.48xlarge's EFA gives the
# same 50 GB/s per GPU): the p5.48xlarge profile's medians.
PLATFORM = dict(
    peak_tflops=989,
    intra_gb_s=450,
    intra_latency_us=3,
    intra_efficiency=0.8,
    inter_gb_s=50,
    inter_latency_us=15,
    inter_efficiency=0.7,
    chips_per_domain=8,
)
# Assumptions (the paper does not state them): one sequence per micro-batch, an interleaved
# schedule of 4 model chunks per pipeline rank, ZeRO-1, no recomputation (flash attention), and
# 0% of the data-parallel traffic exposed (FSDP overlaps it with compute).
LAYOUTS = {
    "8K, no cp": dict(sequence_length=8192, tp=8, cp=1, pp=16, dp=128, global_batch=2048, reported=0.41),
    "131K, cp 16": dict(sequence_length=131072, tp=8, cp=16, pp=16, dp=8, global_batch=128, reported=0.38),
}
CHIPS = 16384


def step(layout: dict, compute_efficiency: float) -> "_core.AnalyticStep":
    args = {k: v for k, v in layout.items() if k != "reported"}
    return _core.analytic_step_time(
        **MODEL,
        **PLATFORM,
        **args,
        recompute="none",
        micro_batch=1,
        virtual_stages=4,
        zero_stage=1,
        compute_efficiency=compute_efficiency,
        dp_overlap=1.0,
    )


def implied_mfu(layout: dict, compute_efficiency: float) -> float:
    shape = {k: MODEL[k] for k in ("parameters", "layers", "hidden_size", "heads", "ffn_size")}
    flops = _core.flops_per_token(**shape, sequence_length=layout["sequence_length"])  # model FLOPs, as MFU counts
    tokens = layout["global_batch"] * layout["sequence_length"]
    return tokens * flops / (CHIPS * PLATFORM["peak_tflops"] * 1e12 * step(layout, compute_efficiency).step_time_s)


def calibrated_efficiency(target: float, layout: dict) -> float:
    lo, hi = 0.05, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if implied_mfu(layout, mid) < target else (lo, mid)
    return (lo + hi) / 2


def main() -> None:
    eff = calibrated_efficiency(LAYOUTS["8K, no cp"]["reported"], LAYOUTS["8K, no cp"])
    print(f"compute_efficiency calibrated on the 8K row: {eff:.3f}")
    for name, layout in LAYOUTS.items():
        parts = step(layout, eff)
        print(
            f"{name}: implied MFU {implied_mfu(layout, eff):.1%} (reported {layout['reported']:.0%}); step "
            f"{parts.step_time_s:.2f} s = compute {parts.compute_s:.2f} + tp {parts.tp_comm_s:.2f} + "
            f"cp {parts.cp_comm_s:.2f} + bubble {parts.pp_bubble_s:.2f} + pp {parts.pp_p2p_s:.2f} + "
            f"dp {parts.dp_comm_s:.2f}"
        )
    for eff in (0.5, 0.6):
        print(
            f"compute_efficiency {eff}: " + ", ".join(f"{n} {implied_mfu(lay, eff):.1%}" for n, lay in LAYOUTS.items())
        )


if __name__ == "__main__":
    main()
