"""A first study with trnmodel's Monte Carlo engine (until the lifecycle simulator lands):
the training time of a job whose step time was measured in a trial run and whose step count
and overheads are uncertain."""
import pathlib

import trnmodel as tm

inputs = {
    "effective_steps": tm.Triangular(9_000, 10_000, 12_000, source="assumption"),
    "step_time_s": tm.LogNormal.from_quantiles(p50=2.1, p90=2.6, source="measured", note="trial run"),
    "compile_s": tm.PERT(600, 1_500, 3_600, source="assumption", note="Neuron compile, cold cache"),
    "node_hour_usd": tm.Uniform(30, 36, source="quote", date="2026-11-01", region="us-east-2"),
}


def job(x):
    steps, step_s, compile_s, price = x.T
    hours = (steps * step_s + compile_s) / 3600
    return hours * price


result = tm.monte_carlo(job, inputs, samples=200_000, seed=0, outputs="cost_usd")
table = result.summary()
print("Cost of a single-node training job (USD), 200,000 samples:\n")
print(table.round(2).to_string())
out = pathlib.Path("out")
out.mkdir(exist_ok=True)
table.to_csv(out / "montecarlo_demo.csv")
print(f"\nwritten: {out / 'montecarlo_demo.csv'}")
