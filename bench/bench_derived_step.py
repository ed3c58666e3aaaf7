"""Cost of a derived step time: tm.simulate on llama3-70b-full-trn2x16 with its measured step time
against the same scenario with throughput.mode "analytic" (issue target: at most +20% per sample).
Single thread, keep_samples=False, 200,000 samples, best of 5, two rounds."""

import time

import trnmodel as tm

base = tm.Scenario.from_json("examples/llama3-70b-full-trn2x16.json")
llama70b = {
    "model.parameters": 70.6e9,
    "model.layers": 80,
    "model.hidden_size": 8192,
    "model.heads": 64,
    "model.ffn_size": 28672,
    "model.vocab_size": 128256,
    "model.sequence_length": 8192,
    "parallelism.global_batch": 256,
    "job.recompute": "selective",
    "parallelism.dp_overlap": tm.Uniform(0.5, 0.9),
    "throughput.mode": "analytic",
    "throughput.step_time_s": None,
    "throughput.compute_efficiency": tm.PERT(0.3, 0.45, 0.6),
    "parallelism.tp": 8,
    "parallelism.pp": 4,
    "parallelism.dp": 8,
}
derived = base.updated(llama70b)


def best(s):
    b = 1e9
    for _ in range(5):
        t = time.perf_counter()
        tm.simulate(s, samples=200_000, threads=1, keep_samples=False)
        b = min(b, time.perf_counter() - t)
    return b


for _ in range(2):
    m, d = best(base), best(derived)
    print(
        f"measured {m / 2e5 * 1e9:.0f} ns/sample, analytic {d / 2e5 * 1e9:.0f} ns/sample, overhead {100 * (d / m - 1):.1f}%"
    )
