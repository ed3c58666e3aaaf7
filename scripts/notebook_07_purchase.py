"""Writes notebooks/07_purchase_options.ipynb (stored without outputs; the tests execute it).
Run: .venv/bin/python scripts/notebook_07_purchase.py"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_notebook import write_notebook  # noqa: E402

CELLS = [
    (
        "md",
        """# Buying the nodes: on demand, a capacity block, or spot

The same job can be bought three ways on EC2. **On demand** waits in a queue and pays by the
second. A **capacity block** reserves the nodes for a fixed window booked ahead (1 to 14 days,
then 7-day steps up to 182 days), paid up front in full, used or not; if the job outlives the
window, the work since the last checkpoint is lost and the rest runs on demand. **Spot** is
cheaper and can be taken back with a two-minute notice.

This notebook takes the Llama-3-70B full fine-tune on 16 × trn2.48xlarge and asks how long a
block to book, and the Llama-3-8B LoRA job on one p5.48xlarge on spot. The semantics are in
docs/lifecycle.md ("Purchase options").""",
    ),
    (
        "code",
        """import pathlib
import warnings
import trnmodel as tm

warnings.simplefilter("ignore", tm.CompletenessWarning)
examples = pathlib.Path("../examples")
on_demand = tm.Scenario.from_json(examples / "llama3-70b-full-trn2x16.json")
week = tm.Scenario.from_json(examples / "llama3-70b-full-trn2x16-block7d.json")
fortnight = tm.Scenario.from_json(examples / "llama3-70b-full-trn2x16-block14d.json")
{k: week[k] for k in ["prices.purchase", "prices.block_hours"]}""",
    ),
    (
        "md",
        """## 1. Does the job fit in the block?

`block_fit` is 1 for a sample that finished inside the usable window (the block less its
30-minute end margin), so its mean is P(fit). `block_idle_h` is what was paid and not used;
`overflow_h` the wall time after the window, on demand. Their costs stand beside them:
`block_idle_usd` is the idle hours' share of the fee, `overflow_usd` the on-demand bill after
the window; both are parts of `cost_compute_usd` (the fee plus the overflow), not additions.""",
    ),
    (
        "code",
        """rows = ["wall_h", "block_fit", "block_idle_h", "block_idle_usd", "overflow_h", "overflow_usd", "run_cost_usd"]
runs = {name: tm.simulate(s, samples=20_000, seed=0) for name, s in
        [("on demand", on_demand), ("7-day block", week), ("14-day block", fortnight)]}
import pandas as pd
pd.concat({name: r.summary().loc[rows, ["mean", "p50", "p90"]] for name, r in runs.items()}, axis=1).round(3)""",
    ),
    (
        "md",
        """## 2. The shortest block that holds the job

`tm.purchase_options` simulates each block length on the same seed (common random numbers),
with the fee scaled from the scenario's block rate, and answers with the shortest block whose
P(fit) reaches 0.9, beside on demand and spot. The 70B job's scenario gives no spot inputs, so
its spot row says "not described" rather than disappearing.""",
    ),
    (
        "code",
        """options = tm.purchase_options(week, block_hours=[72, 96, 120, 168, 336], fit_prob=0.9,
                               samples=10_000, seed=0)
options""",
    ),
    (
        "code",
        """options.plot();""",
    ),
    (
        "code",
        """frame = tm.sweep(week, {"prices.block_hours": [72, 96, 120, 168]}, output=["block_fit"], samples=5_000)
tm.plot.sweep(frame, "block_fit");""",
    ),
    (
        "md",
        """### From a price list

The on-demand price should come from a current quote for the region, not from an old
calculation. `tm.quote` reads an AWS Price List offer file (or a saved `aws pricing
get-products` output) and returns the price with its source, date and region; it never takes
a capacity-block row for an on-demand price. Here the file is the hand-written fixture of the
tests, in AWS's format: use the offer file you download. The block's own rate is not in the
price list (AWS quotes blocks per booking), so it stays the scenario's stated assumption.""",
    ),
    (
        "code",
        """quote = tm.quote("../tests/data/prices/offer-ec2.json", "trn2.48xlarge", "us-east-2")
print(quote)
quoted = week.updated({"prices.node_hour_usd": quote.to_dict()})
tm.purchase_options(quoted, block_hours=[24 * days for days in range(1, 15)], fit_prob=0.9,
                    samples=5_000, seed=0).headline()""",
    ),
    (
        "md",
        """## 3. The LoRA job on spot

A LoRA adapter saves in seconds, well inside the two-minute notice, so an interruption keeps
the work: it costs a save, the wait for capacity (`spot.reacquire_s`, in `queue_h`, not
billed) and a recovery.""",
    ),
    (
        "code",
        """lora = tm.Scenario.from_json(examples / "llama3-8b-lora-p5.json")
spot = tm.Scenario.from_json(examples / "llama3-8b-lora-p5-spot.json")
cmp = tm.compare(spot, lora, output="run_cost_usd", samples=20_000, seed=0)
print(f"P(spot cheaper than on demand) = {cmp.p_a_less_b:.1%}")
res = tm.simulate(spot, samples=20_000, seed=0)
res.summary().loc[["wall_h", "interruptions", "queue_h", "lost_h", "run_cost_usd"], ["mean", "p50", "p90"]]""",
    ),
    (
        "code",
        """# 39.33 USD per instance-hour: the p5.48xlarge effective rate on the AWS Capacity Blocks pricing
# page (a 2024 snapshot, re-quote before use); the spot figures are illustrative assumptions.
tm.purchase_options(lora, block_hours=[24], samples=5_000, seed=0, block_node_hour_usd=39.33,
                    spot={"prices.spot_node_hour_usd": 25, "spot.interruptions_per_node_h": 0.002})""",
    ),
    (
        "md",
        """## 4. Restores: the default said aloud, and a tail that is not plausible

Every interruption above ends in a restore. By default a restore always succeeds
(`checkpoint.restore_fail_prob` 0) and one checkpoint is kept (`checkpoint.keep_last` 1); the
completeness table says so when a scenario leaves them out, and the bundled examples state
both. An untested restore path is a risk: here the 70B job on a young fleet (a node MTBF of
500 h, a what-if), with half its restores failing and a single checkpoint kept, so that a
failed restore goes back to the start. The draws are kept as the inputs say; the result flags
the tail (a P99.9 more than 10 times the P50, or beyond a year) and names what makes it.""",
    ),
    (
        "code",
        """bare = on_demand.to_dict()
del bare["checkpoint"]["restore_fail_prob"], bare["checkpoint"]["keep_last"]
tm.Scenario.from_dict(bare).completeness().loc[["checkpoints kept", "restore checks"], ["status", "counted as"]]""",
    ),
    (
        "code",
        """fragile = on_demand.updated({"checkpoint.restore_fail_prob": 0.5, "checkpoint.keep_last": 1,
                             "failures.node_mtbf_h": 500})
with warnings.catch_warnings():
    warnings.simplefilter("ignore", tm.PlausibilityWarning)
    loop = tm.simulate(fragile, samples=5_000, seed=0)
print(loop.quantile([0.5, 0.999], "wall_h").round(0))
print(loop.implausible_tail())""",
    ),
    (
        "md",
        """## 5. Fees and spot prices as AWS quotes them

A block's fee is quoted per offering (instance type, count, length, start), not as one rate
for every length: `aws ec2 describe-capacity-block-offerings` gives each offering's
`UpfrontFee`, one length per call. The spot price moves, so its quote is its history:
`aws ec2 describe-spot-price-history` gives each price change per zone, and the quote is the
price in effect at each whole hour (docs/prices.md). The files here are hand-written in the
documented shape, with illustrative prices; save your own outputs and pass them the same way.""",
    ),
    (
        "code",
        """fixtures = pathlib.Path("../tests/data/prices")
offers = tm.read_block_offerings(fixtures / "offerings-trn2-16.json", date="2026-12-03")
print(offers)
print(offers.fee("trn2.48xlarge", nodes=16, hours=336))
offers.to_pandas()[["instance_count", "duration_hours", "availability_zone", "upfront_fee_usd", "usd_per_node_hour"]]""",
    ),
    (
        "code",
        """# The shortest offered block with P(fit) >= 0.9, its quoted fee and expected idle dollars,
# beside on demand and spot priced from its history (the interruption rate is an assumption:
# the history does not say how often capacity is reclaimed).
trn2_history = fixtures / "spot-history-trn2.json"
quoted = tm.purchase_options(fortnight, samples=5_000, seed=0, offerings=offers, spot_history=trn2_history,
                             spot={"spot.interruptions_per_node_h": 0.001})
print(quoted.headline())
quoted.table[["purchase", "block_hours", "p_fit", "fee_usd", "block_idle_usd", "cost_p50", "cost_p90"]]""",
    ),
    (
        "code",
        """history = fixtures / "spot-history-p5.json"
price = tm.spot_price(history, "p5.48xlarge", region="us-east-1")
print(price)
print(price.zones_frame())
# The LoRA job on spot priced from the history (the interruption rate stays an assumption).
tm.purchase_options(spot, block_hours=[24], samples=5_000, seed=0, block_node_hour_usd=39.33,
                    spot_history=history).table[["purchase", "cost_p50", "cost_p90", "note"]]""",
    ),
]

if __name__ == "__main__":
    out = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "07_purchase_options.ipynb"
    write_notebook(out, CELLS)
    print(f"wrote {out}")
