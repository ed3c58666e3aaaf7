"""Same seed, same bits: every bundled example, the Daly cases, a Sobol run and a user
function give bitwise the numbers recorded in golden/bits.json (see golden_bits.py)."""

from __future__ import annotations

import json

import pytest

from golden_bits import GOLDEN, compute

RECORDED = json.loads(GOLDEN.read_text())


@pytest.fixture(scope="module")
def now() -> dict:
    return compute()


# Metrics added after the recording (multi-stage jobs, restore checks, purchase options): zero
# (NaN for block_fit: not a block) for every recorded case, which has none of them; every
# recorded metric keeps its bits.
ADDED = {
    "transition_h",
    "restore_fallbacks",
    "interruptions",
    "block_fit",
    "block_idle_h",
    "overflow_h",
    "block_idle_usd",
    "overflow_usd",
}


def _recorded_part(now_entry, recorded_entry):
    if not isinstance(recorded_entry, dict) or not isinstance(now_entry, dict):
        return now_entry
    extra = set(now_entry) - set(recorded_entry)
    if not extra or not extra <= ADDED:
        return now_entry
    return {k: _recorded_part(now_entry[k], v) for k, v in recorded_entry.items()}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_bitwise_as_recorded(now, key):
    entry = now[key]
    if isinstance(entry, dict) and "kept" in entry:
        for part in ("kept", "streamed"):
            for m in ADDED:
                assert all(v in ("0x0.0p+0", "nan") for v in entry[part][m][:-1]), (part, m)
        entry = {part: _recorded_part(v, RECORDED[key][part]) for part, v in entry.items()}
    assert entry == RECORDED[key]
