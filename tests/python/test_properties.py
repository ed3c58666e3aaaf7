"""Property-based tests (hypothesis) of the input boundary (docs/reliability.md): distribution
parameters, scenario dicts and dotted-path updates. Whatever the input, the answer is a
correct value or a tm.ScenarioError that names the field; never another exception."""

import copy
import json
import math
import pathlib
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trnmodel as tm
from trnmodel._scenario import _FIELDS

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
# Bounded runtime: a few hundred examples per property, no example database on disk.
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

finite = st.floats(allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=1e-3, max_value=1e3)
location = st.floats(min_value=-1e6, max_value=1e6)
# Uniforms as the engine draws them, both tails included.
U = np.unique(
    np.concatenate(
        [np.ldexp(1.0, -np.arange(60, 1, -3)), np.linspace(0.01, 0.99, 99), 1 - np.ldexp(1.0, -np.arange(2, 54, 3))]
    )
)


@st.composite
def valid_distributions(draw, mixtures=True):
    family = draw(
        st.sampled_from(
            (["mixture"] if mixtures else [])
            + [
                "uniform",
                "normal",
                "lognormal",
                "triangular",
                "pert",
                "gamma",
                "weibull",
                "exponential",
                "beta",
                "bernoulli",
                "empirical",
                "fixed",
            ]
        )
    )
    if family == "mixture":  # of 1 to 3 components of the other families, weights summing to 1
        components = draw(st.lists(valid_distributions(mixtures=False), min_size=1, max_size=3))
        weights = draw(st.lists(st.floats(min_value=0.01, max_value=1), min_size=len(components), max_size=3))
        total = sum(weights[: len(components)])
        return tm.Mixture([(w / total, d) for w, d in zip(weights, components)])
    if family == "fixed":
        return tm.Fixed(draw(location))
    if family in ("uniform", "triangular", "pert"):
        lo = draw(location)
        hi = lo + draw(st.floats(min_value=1e-3, max_value=1e6))
        if family == "uniform":
            return tm.Uniform(lo, hi)
        mode = lo + (hi - lo) * draw(st.floats(min_value=0, max_value=1))
        return (tm.Triangular if family == "triangular" else tm.PERT)(lo, min(max(mode, lo), hi), hi)
    if family == "normal":
        mean, sd = draw(location), draw(positive)
        lo = draw(st.none() | st.floats(min_value=-6, max_value=3).map(lambda z: mean + z * sd))
        hi = None if lo is None else draw(st.none() | st.floats(min_value=0.5, max_value=6).map(lambda w: lo + w * sd))
        return tm.Normal(mean, sd, lo=lo, hi=hi)
    if family == "lognormal":
        if draw(st.booleans()):
            return tm.LogNormal(
                draw(st.floats(min_value=-10, max_value=10)), draw(st.floats(min_value=0.01, max_value=3))
            )
        p50 = draw(st.floats(min_value=1e-3, max_value=1e6))
        return tm.LogNormal.from_quantiles(p50=p50, p90=p50 * draw(st.floats(min_value=1.01, max_value=20)))
    if family == "gamma":
        return tm.Gamma(draw(st.floats(min_value=0.05, max_value=1e3)), draw(positive))
    if family == "weibull":
        return tm.Weibull(draw(st.floats(min_value=0.1, max_value=20)), draw(positive))
    if family == "exponential":
        return tm.Exponential(draw(positive))
    if family == "beta":
        return tm.Beta(draw(st.floats(min_value=0.05, max_value=100)), draw(st.floats(min_value=0.05, max_value=100)))
    if family == "bernoulli":
        return tm.Bernoulli(draw(st.floats(min_value=0, max_value=1)))
    return tm.Empirical(draw(st.lists(location, min_size=1, max_size=50)))


@SETTINGS
@given(valid_distributions())
def test_valid_parameters_give_a_monotone_quantile_inside_the_support(d):
    lo, hi = d.support()
    x = d.ppf(U)
    assert np.all(np.diff(x) >= 0), "ppf decreased"
    assert np.all((x >= lo) & (x <= hi)), "ppf left the support"
    mean = d.mean()
    assert math.isfinite(mean) and lo <= mean <= hi
    # Saving and loading again gives the same distribution.
    assert tm.Distribution.from_dict(d.to_dict()).to_dict() == d.to_dict()


# Numeric parameters of each family, and whether they must be > 0.
PARAMETERS = {
    "uniform": {"lo": False, "hi": False},
    "normal": {"mean": False, "sd": True},
    "lognormal": {"mu": False, "sigma": True},
    "triangular": {"lo": False, "mode": False, "hi": False},
    "pert": {"lo": False, "mode": False, "hi": False},
    "gamma": {"shape": True, "scale": True},
    "weibull": {"shape": True, "scale": True},
    "exponential": {"mean": True},
    "beta": {"a": True, "b": True},
    "bernoulli": {"p": False},
}
VALID = {
    "uniform": {"lo": 1, "hi": 2},
    "normal": {"mean": 2, "sd": 1},
    "lognormal": {"mu": 0, "sigma": 1},
    "triangular": {"lo": 1, "mode": 2, "hi": 3},
    "pert": {"lo": 1, "mode": 2, "hi": 3},
    "gamma": {"shape": 2, "scale": 1},
    "weibull": {"shape": 2, "scale": 1},
    "exponential": {"mean": 1},
    "beta": {"a": 2, "b": 3},
    "bernoulli": {"p": 0.5},
}


@SETTINGS
@given(st.sampled_from(sorted(PARAMETERS)), st.data())
def test_invalid_parameters_are_refused_naming_the_field(family, data):
    param = data.draw(st.sampled_from(sorted(PARAMETERS[family])))
    spec = {"dist": family, **VALID[family]}
    bad = data.draw(
        st.sampled_from([math.nan, math.inf, -math.inf, "2", None, [1]])
        | (st.floats(max_value=0) if PARAMETERS[family][param] else st.nothing())
    )
    spec[param] = bad
    with pytest.raises(tm.ScenarioError) as info:
        tm.Distribution.from_dict(spec)
    assert f"quantity.{param}: must be" in str(info.value)


@SETTINGS
@given(st.sampled_from(["uniform", "triangular", "pert"]), location, st.floats(min_value=0, max_value=1e6))
def test_out_of_order_bounds_are_refused_with_the_values(family, hi, gap):
    spec = {"dist": family, "lo": hi + gap, "hi": hi} | ({"mode": hi} if family != "uniform" else {})
    with pytest.raises(tm.ScenarioError, match=f"quantity: {family} needs .*lo"):
        tm.Distribution.from_dict(spec)


SECTIONS = {path.split(".")[0] for path in _FIELDS} | {"schema", "scenario"}


def _names_a_field(message: str, path: str) -> bool:
    """Whether a refusal names the path it was given (control characters written out as
    \\u00xx), or a field or section of the format."""
    head = message.split(":")[0]
    printable = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04x}", path)
    return (
        printable in message or head in SECTIONS or head.split("[")[0].rsplit(".", 1)[0] in _FIELDS or head in _FIELDS
    )


def _numbers_as_floats(value):
    """JSON numbers compare as numbers: an integer beyond 64 bits comes back as a float."""
    if isinstance(value, dict):
        return {k: _numbers_as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_as_floats(v) for v in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


# -- scenario dicts --------------------------------------------------------------------
json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["normal", "weibull", "exponential", "lora", "flops"])
)
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=12) | st.sampled_from(["dist", "lo", "hi", "mean", "sd"]), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(doc, prefix=()):
    """Every (path to a container, key) in a JSON document."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for key, value in items:
        yield prefix, key
        if isinstance(value, (dict, list)) and value:
            yield from _paths(value, prefix + (key,))


@st.composite
def mutated_examples(draw):
    doc = json.loads(draw(st.sampled_from(EXAMPLES)).read_text())
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        prefix, key = draw(st.sampled_from(list(_paths(doc))))
        parent = doc
        for part in prefix:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[key] = draw(json_values)
        elif action == "delete" and isinstance(parent, dict):
            del parent[key]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=12) | st.sampled_from(sorted(_FIELDS)))] = draw(json_values)
    return doc


@SETTINGS
@given(mutated_examples())
def test_mutated_examples_load_or_give_a_scenario_error(doc):
    try:
        scn = tm.Scenario.from_dict(copy.deepcopy(doc))
    except tm.ScenarioError as e:
        assert str(e).strip()
        return
    assert tm.Scenario.from_dict(scn.to_dict()) == scn
    try:
        res = tm.simulate(scn, samples=64, seed=1, threads=1, allow_unknown=True)
    except tm.ScenarioError as e:  # e.g. a job that could never finish
        assert _names_a_field(str(e), "")
        return
    frame = res.to_pandas()
    finite = frame["wall_h"].notna()
    np.testing.assert_allclose(frame.loc[finite, tm.PHASES].sum(axis=1), frame.loc[finite, "wall_h"], rtol=1e-9)
    assert (frame.loc[finite, tm.PHASES] >= 0).all().all()


# -- dotted-path updates ---------------------------------------------------------------
BASE = tm.Scenario.from_json(ROOT / "examples" / "llama3-8b-lora-trn2.json")


@SETTINGS
@given(st.sampled_from(sorted(_FIELDS)) | st.text(max_size=20), json_values | valid_distributions())
def test_dotted_path_updates_apply_or_give_a_scenario_error(path, value):
    before = BASE.to_dict()
    try:
        new = BASE.updated({path: value})
    except tm.ScenarioError as e:
        assert _names_a_field(str(e), path)
    else:
        assert path in _FIELDS
        got = new.to_dict()
        written = got
        for key in path.split("."):  # sections nest: card.owners.operations
            written = written.get(key) if isinstance(written, dict) else None
        expected = value.to_dict() if isinstance(value, tm.Distribution) else value
        if expected is None:
            assert written is None  # back to the default
        else:
            assert _numbers_as_floats(written) == _numbers_as_floats(expected)
    assert BASE.to_dict() == before  # the original never changes


NONNEGATIVE = sorted(
    path
    for path, field in _FIELDS.items()
    if field.kind == "quantity"
    and field.rule in ("nonnegative", "positive")
    and path not in ("throughput.step_time_s", "job.tokens", "model.parameters")
    and not path.startswith("reference.")
    # Bounded above by prices.block_hours: an unbounded normal is refused whatever its lower bound.
    and path != "prices.block_end_margin_h"
)

# The fields of a purchase option are read only with that purchase (docs/lifecycle.md,
# "Purchase options"): they are tried on the base bought that way.
PURCHASE_BASES = {
    "prices.block": {"prices.purchase": "capacity_block", "prices.block_hours": 336, "prices.block_usd": 1000},
    "prices.spot": {"prices.purchase": "spot", "spot.interruptions_per_node_h": 0.01},
    "spot.": {"prices.purchase": "spot", "spot.interruptions_per_node_h": 0.01},
}


def _base_for(path):
    for prefix, changes in PURCHASE_BASES.items():
        if path.startswith(prefix):
            return BASE.updated(changes)
    return BASE


@SETTINGS
@given(st.sampled_from(NONNEGATIVE), st.floats(min_value=1, max_value=1e4), st.floats(min_value=0.01, max_value=1e4))
def test_a_normal_that_can_go_negative_is_refused_and_truncated_it_never_does(path, mean, sd):
    base = _base_for(path)
    with pytest.raises(tm.ScenarioError) as info:
        base.updated({path: tm.Normal(mean, sd)})
    assert str(info.value).startswith(f"{path}: must be ") and 'truncate it with "lo": 0' in str(info.value)
    scn = base.updated({path: tm.Normal(mean, sd, lo=0)})
    assert scn[path].support()[0] == 0 and (scn[path].ppf(U) >= 0).all()
