"""The bits a redesign must not change: summaries and per-sample digests of every bundled
example and of the constant-input Daly cases, for fixed seeds, kept and streamed, plus a
Sobol run and a user-function Monte Carlo run.

``python tests/python/golden_bits.py --record`` writes golden/bits.json; the test
(test_golden_bits.py) recomputes every entry and asserts bitwise equality. Floats are stored
with ``float.hex`` so that equality is exact. Re-record only when a change is meant to alter
the numbers (and show, in the same commit, that the new numbers agree with the old within
Monte Carlo error).
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys

import numpy as np

import trnmodel as tm

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "bits.json"
SAMPLES = 12_000  # three engine blocks of 4096 (the last one partial)


def _hex(x: float) -> str:
    return float(x).hex()


def _scenarios() -> dict:
    sys.path.insert(0, str(HERE))
    from test_independent_numpy import SCENARIOS, _scenario  # the examples and the Daly cases

    return {name: _scenario(spec) for name, spec in SCENARIOS.items()}


def _digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def _summary_bits(res) -> dict:
    frame = res.summary()
    numeric = [c for c in frame.columns if c != "note"]
    return {m: [_hex(v) for v in frame.loc[m, numeric]] for m in frame.index}


def compute() -> dict:
    out: dict = {}
    for name, scn in _scenarios().items():
        kept = tm.simulate(scn, samples=SAMPLES, seed=11, threads=2, progress=False)
        streamed = tm.simulate(scn, samples=SAMPLES, seed=11, threads=2, keep_samples=False, progress=False)
        out[name] = {
            "kept": _summary_bits(kept),
            "streamed": _summary_bits(streamed),
            "samples": {m: _digest(kept[m]) for m in kept.outputs},
        }
    scn = tm.Scenario.from_json(str(HERE.parents[1] / "examples" / "llama3-8b-lora-trn2.json"))
    s = tm.sobol(scn, output="wall_h", base_samples=1024, seed=5, progress=False)
    out["sobol:llama3-8b-lora-trn2:wall_h"] = {
        str(f): [_hex(v) for v in s.loc[f, ["S1", "S1_conf", "ST", "ST_conf"]]] for f in s.index
    }
    r = tm.monte_carlo(
        lambda x: x[:, 0] * x[:, 1] + x[:, 2],
        {"a": tm.LogNormal.from_quantiles(p50=2, p90=3), "b": tm.PERT(1, 2, 5), "c": tm.Gamma(2, 3)},
        samples=30_000,
        seed=3,
    )
    out["monte_carlo"] = {"values": _digest(r.values), "summary": [_hex(v) for v in r.summary().iloc[0]]}
    return out


if __name__ == "__main__":
    if "--record" not in sys.argv:
        sys.exit("usage: python golden_bits.py --record")
    GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
