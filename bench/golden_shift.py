"""The golden results before and after a change that is meant to alter the random numbers
(a new counter layout, a new quantile formula): every mean of every summary, and every Sobol
index, must agree with the recorded one within 4 standard errors of the difference of two
independent Monte Carlo estimates.

Run:  .venv/bin/python bench/golden_shift.py [OLD_BITS_JSON]
      (default: the bits.json of git HEAD; the new numbers are computed by golden_bits.compute())

Means: |new - old| <= 4 sqrt(sd_old^2 + sd_new^2) / sqrt(n). Sobol indices:
|new - old| <= 4 sqrt(se_old^2 + se_new^2) with se = conf / 1.96 (conf is the half width of a
95 % interval). Metrics without spread must be equal. Prints one line per example and exits
non-zero on any disagreement.
"""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
TESTS = HERE.parent / "tests" / "python"
sys.path.insert(0, str(TESTS))

import golden_bits  # noqa: E402
import trnmodel as tm  # noqa: E402


def _old(path: str | None) -> dict:
    if path:
        return json.loads(pathlib.Path(path).read_text())
    text = subprocess.run(
        ["git", "show", "HEAD:tests/python/golden/bits.json"],
        cwd=HERE.parent,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(text)


def _columns() -> list[str]:
    res = tm.monte_carlo(lambda x: x[:, 0], {"a": tm.Normal(0, 1)}, samples=10, seed=1)
    return [c for c in res.summary().columns if c != "note"]


def _floats(values: list[str]) -> list[float]:
    return [float.fromhex(v) for v in values]


def _compare_summary(old: dict, new: dict, n: int, columns: list[str]) -> tuple[int, float]:
    """Number of metrics compared and the largest |difference| in standard errors."""
    mean, sd = columns.index("mean"), columns.index("sd")
    worst, count = 0.0, 0
    for metric, old_values in old.items():
        a, b = _floats(old_values), _floats(new[metric])
        if any(math.isnan(v) for v in (a[mean], b[mean])):
            continue
        se = math.sqrt((a[sd] ** 2 + b[sd] ** 2) / n)
        diff = abs(a[mean] - b[mean])
        count += 1
        if diff <= 1e-12 * max(1.0, abs(a[mean])):
            # A difference of rounding, not of Monte Carlo: a metric constant across samples has a
            # "standard deviation" of a few units in the last place, which the order of the sums
            # decides; its mean moves by as little, and that is no shift.
            continue
        if se == 0:
            worst = max(worst, 0.0 if diff <= 1e-12 * max(1.0, abs(a[mean])) else math.inf)
        else:
            worst = max(worst, diff / se)
    return count, worst


def main() -> int:
    old = _old(sys.argv[1] if len(sys.argv) > 1 else None)
    new = golden_bits.compute()
    columns = _columns()
    failed = False
    print("| entry | metrics compared | largest difference (standard errors) |\n|---|---|---|")
    for name in sorted(old):
        if name.startswith("sobol:"):
            worst = 0.0
            for factor, values in old[name].items():
                a, b = _floats(values), _floats(new[name][factor])
                for i in (0, 2):  # S1, ST with their conf at i + 1
                    se = math.hypot(a[i + 1], b[i + 1]) / 1.96
                    worst = max(worst, abs(a[i] - b[i]) / se if se > 0 else 0.0)
            rows = [(f"{name} (S1, ST)", len(old[name]), worst)]
        elif name == "monte_carlo":
            a, b = _floats(old[name]["summary"]), _floats(new[name]["summary"])
            mean, sd = columns.index("mean"), columns.index("sd")
            rows = [(name, 1, abs(a[mean] - b[mean]) / math.sqrt((a[sd] ** 2 + b[sd] ** 2) / 30_000))]
        else:
            rows = []
            for kind in ("kept", "streamed"):
                count, worst = _compare_summary(old[name][kind], new[name][kind], golden_bits.SAMPLES, columns)
                rows.append((f"{name} ({kind})", count, worst))
        for label, count, worst in rows:
            failed = failed or not worst <= 4
            print(f"| {label} | {count} | {worst:.2f}{'' if worst <= 4 else '  FAIL'} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
