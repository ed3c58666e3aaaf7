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


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_bitwise_as_recorded(now, key):
    assert now[key] == RECORDED[key]
