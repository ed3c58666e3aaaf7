"""Uncertain quantities from Python: the contract of docs/distributions.md, README.md."""

import json
import math
import pathlib

import numpy as np
import pytest

import trnmodel as tm
from trnmodel import _core

EXAMPLES_DIR = pathlib.Path(__file__).resolve().parents[2] / "examples"
SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schema"

# The step time with a 20 % chance that the ported attention kernel makes it ~1.3x slower.
PORTED_STEP_S = tm.Mixture(
    [(0.8, tm.LogNormal.from_quantiles(p50=3.65, p90=5.11)), (0.2, tm.LogNormal.from_quantiles(p50=4.75, p90=6.64))],
    source="assumption",
    note="20 % chance the ported attention kernel is 1.3x slower",
)
EXAMPLES = [
    tm.Fixed(3.5),
    tm.Uniform(1, 2),
    tm.Normal(5, 0.5),
    tm.Normal(5, 0.5, lo=4),
    tm.LogNormal(0.1, 0.2),
    tm.LogNormal.from_quantiles(p50=2, p90=3, source="measured", note="trial run 7"),
    tm.Triangular(1, 2, 5),
    tm.PERT(1, 2, 5, source="assumption"),
    tm.Gamma(2, 3),
    tm.Weibull(0.8, 100),
    tm.Exponential(7),
    tm.Beta(2, 3),
    tm.Beta(2, 3, lo=10, hi=20),
    tm.Bernoulli(0.25),
    tm.Empirical([1, 2, 3.5, 2.2]),
    tm.Uniform(30, 36, source="quote", date="2026-11-02", region="us-east-2"),
    PORTED_STEP_S,
    tm.Mixture([(0.3, tm.Normal(0, 1)), (0.7, tm.Normal(3, 1))]),
]


def test_lognormal_from_quantiles_hits_its_quantiles():
    d = tm.LogNormal.from_quantiles(p50=2, p90=3)
    np.testing.assert_allclose(d.ppf([0.5, 0.9]), [2, 3], rtol=1e-14)
    assert d.to_dict() == {"dist": "lognormal", "p50": 2.0, "p90": 3.0}


@pytest.mark.parametrize("d", EXAMPLES, ids=repr)
def test_dict_round_trip(d):
    again = tm.Distribution.from_dict(d.to_dict())
    assert again == d
    assert type(again) is type(d)
    u = np.linspace(0.01, 0.99, 17)
    np.testing.assert_array_equal(again.ppf(u), d.ppf(u))


@pytest.mark.parametrize("d", EXAMPLES, ids=repr)
def test_sample_is_ppf_of_the_counter_uniforms(d):
    x = d.sample(1000, seed=42)
    u = _core.uniforms(42, 0, 1000, 0)
    np.testing.assert_array_equal(x, d.ppf(u))
    np.testing.assert_array_equal(x, d.sample(1000, seed=42))
    assert (
        not np.array_equal(x, d.sample(1000, seed=43))
        or d.support()[0] == d.support()[1]
        or isinstance(d, tm.Bernoulli)
    )


@pytest.mark.parametrize("d", [e for e in EXAMPLES if not isinstance(e, (tm.Fixed, tm.Bernoulli))], ids=repr)
def test_quantile_round_trip(d):
    u = np.array([1e-9, 1e-4, 0.1, 0.5, 0.9, 1 - 1e-4])
    if isinstance(d, tm.Empirical):
        u = u[1:-1]
    np.testing.assert_allclose(d.cdf(d.ppf(u)), u, rtol=1e-8, atol=1e-14)


def test_empirical_quantiles_are_numpys_linear_quantiles():
    samples = [3.1, 2.7, 3.4, 2.9, 3.0, 3.8, 2.95]
    q = np.linspace(0, 1, 41)
    np.testing.assert_allclose(tm.Empirical(samples).ppf(q), np.quantile(samples, q), rtol=0, atol=1e-15)


def test_means_against_closed_forms():
    assert tm.PERT(10, 12, 30).mean() == pytest.approx((10 + 48 + 30) / 6, rel=1e-15)
    assert tm.Weibull(2, 3).mean() == pytest.approx(3 * math.gamma(1.5), rel=1e-14)
    assert tm.LogNormal(0.1, 0.2).mean() == pytest.approx(math.exp(0.1 + 0.02), rel=1e-15)
    assert tm.Beta(2, 3, lo=10, hi=20).mean() == pytest.approx(14.0, rel=1e-15)
    # Truncated normal: E = mu + sd * phi(a) / (1 - Phi(a)) for a lower bound only.
    a = (4 - 5) / 0.5
    phi = math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    big_phi = 0.5 * math.erfc(-a / math.sqrt(2))
    assert tm.Normal(5, 0.5, lo=4).mean() == pytest.approx(5 + 0.5 * phi / (1 - big_phi), rel=1e-12)


def test_monte_carlo_means_agree_with_mean():
    for d in EXAMPLES:
        x = d.sample(200_000, seed=3)
        se = x.std(ddof=1) / math.sqrt(x.size)
        assert abs(x.mean() - d.mean()) <= 6 * se + 1e-12, repr(d)


def test_scalar_and_array_shapes():
    d = tm.Uniform(0, 10)
    assert isinstance(d.ppf(0.5), float) and d.ppf(0.5) == 5.0
    assert d.ppf(np.full((2, 3), 0.5)).shape == (2, 3)
    assert d.cdf(2.5) == 0.25


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: tm.Uniform(3, 1), "tm.Uniform: uniform needs lo < hi, got lo=3, hi=1"),
        (lambda: tm.Normal(0, -1), "tm.Normal.sd: must be > 0, got -1"),
        (lambda: tm.Normal(0, 1, lo=2, hi=1), "normal needs lo < hi"),
        (lambda: tm.LogNormal(0, 0), "tm.LogNormal.sigma: must be > 0, got 0"),
        (lambda: tm.LogNormal.from_quantiles(p50=3, p90=2), "lognormal needs 0 < p50 < p90, got p50=3, p90=2"),
        (lambda: tm.Triangular(0, 5, 4), "triangular needs lo ≤ mode ≤ hi and lo < hi, got lo=0, mode=5, hi=4"),
        (lambda: tm.PERT(0, -1, 4), "pert needs lo ≤ mode ≤ hi"),
        (lambda: tm.Gamma(0, 1), "tm.Gamma.shape: must be > 0, got 0"),
        (lambda: tm.Weibull(1, -3), "tm.Weibull.scale: must be > 0, got -3"),
        (lambda: tm.Exponential(0), "tm.Exponential.mean: must be > 0, got 0"),
        (lambda: tm.Beta(1, 0), "tm.Beta.b: must be > 0, got 0"),
        (lambda: tm.Bernoulli(1.5), "tm.Bernoulli.p: must be in [0, 1], got 1.5"),
        (lambda: tm.Empirical([]), "must hold at least one value"),
        (lambda: tm.Empirical([1, float("nan")]), "tm.Empirical.samples[1]: must be a finite number, got nan"),
        (lambda: tm.Fixed(float("inf")), "tm.Fixed.value: must be a finite number, got inf"),
        (lambda: tm.Uniform(float("nan"), 1), "tm.Uniform.lo: must be a finite number, got nan"),
        (lambda: tm.Uniform(0, 1, source="guess"), "must be one of measured, prior, vendor, quote, assumption, model"),
        (lambda: tm.Uniform(0, 1, date="yesterday"), "must be an ISO date YYYY-MM-DD"),
        (lambda: tm.Unknown(""), "unknown needs a reason"),
        (
            lambda: tm.Distribution.from_dict({"dist": "lognormal", "p50": 2, "p9": 3}),
            "quantity.p9: unknown key for a lognormal distribution (did you mean p90?)",
        ),
        (
            lambda: tm.Distribution.from_dict({"dist": "gama", "shape": 2, "scale": 1}),
            'unknown distribution "gama" (did you mean gamma?)',
        ),
        (lambda: tm.Uniform(0, 1).ppf(1.5), "u: probabilities must lie in [0, 1], got 1.5"),
        (lambda: tm.Uniform(0, 1).sample(-1), "n: must be a whole number ≥ 0, got -1"),
    ],
)
def test_invalid_parameters_raise_value_errors_naming_rule_and_value(make, message):
    with pytest.raises(tm.ScenarioError) as info:
        make()
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_unknown_blocks_what_needs_it():
    d = tm.Unknown("no quote yet")
    assert d.is_unknown and d.reason == "no quote yet"
    assert d.to_dict() == {"unknown": "no quote yet"}
    with pytest.raises(tm.UnknownInputError, match="no quote yet"):
        d.ppf(0.5)
    with pytest.raises(tm.UnknownInputError):
        d.mean()
    assert issubclass(tm.UnknownInputError, tm.ScenarioError)


def test_numpy_scalars_are_accepted():
    d = tm.Uniform(np.float32(1), np.int64(3))
    assert d.to_dict() == {"dist": "uniform", "lo": 1.0, "hi": 3}


# -- mixtures (docs/distributions.md, "Mixtures") ------------------------------------------
def _normal_cdf(x, mean):
    return 0.5 * math.erfc(-(x - mean) / math.sqrt(2))


def test_mixture_ppf_is_the_inverse_of_its_cdf_and_monotone():
    d = tm.Mixture([(0.3, tm.Normal(0, 1)), (0.7, tm.Normal(3, 1))])
    u = np.concatenate([np.ldexp(1.0, -np.arange(50, 1, -1)), np.linspace(0.001, 0.999, 999)])
    u = np.sort(np.concatenate([u, 1 - np.ldexp(1.0, -np.arange(2, 51))]))
    x = d.ppf(u)
    assert np.all(np.diff(x) >= 0)
    # The cdf, independently: 0.3 Φ(x) + 0.7 Φ(x − 3).
    reference = np.array([0.3 * _normal_cdf(v, 0) + 0.7 * _normal_cdf(v, 3) for v in x])
    np.testing.assert_allclose(reference, u, rtol=0, atol=1e-12)
    assert d.mean() == pytest.approx(0.7 * 3, rel=1e-15)
    assert d.support() == (-math.inf, math.inf)
    assert (d.ppf(0.0), d.ppf(1.0)) == (-math.inf, math.inf)


def test_mixture_of_atoms_steps_at_the_weights():
    d = tm.Mixture([(0.8, 1.0), (0.2, tm.Fixed(1.3))])
    assert [d.ppf(u) for u in (0.5, 0.8, 0.85)] == [1.0, 1.0, 1.3]
    assert d.to_dict() == {
        "dist": "mixture",
        "components": [{"weight": 0.8, "value": 1.0}, {"weight": 0.2, "value": 1.3}],
    }
    assert tm.Distribution.from_dict(d.to_dict()).to_dict() == d.to_dict()
    assert d.mean() == pytest.approx(1.06, rel=1e-15)
    x = d.sample(100_000, seed=7)
    assert set(np.unique(x)) == {1.0, 1.3}
    assert abs(np.mean(x == 1.3) - 0.2) < 5 * math.sqrt(0.2 * 0.8 / x.size)


def test_disjoint_uniforms_have_the_closed_form_quantile():
    d = tm.Mixture([(0.4, tm.Uniform(0, 1)), (0.6, tm.Uniform(2, 5))])
    u = np.linspace(0, 1, 101)
    np.testing.assert_allclose(d.ppf(u), np.where(u <= 0.4, u / 0.4, 2 + 3 * (u - 0.4) / 0.6), rtol=1e-13, atol=1e-15)


def test_mixture_components_and_repr():
    slow = tm.LogNormal.from_quantiles(p50=4.75, p90=6.64)
    d = tm.Mixture([(0.8, PORTED_STEP_S.components[0][1]), [0.2, slow]], source="assumption")  # a list is a pair too
    assert d.family == "mixture" and isinstance(d, tm.Mixture)
    assert d.components[1] == (0.2, slow)
    assert repr(d) == (
        "Mixture([(0.8, LogNormal(p50=3.65, p90=5.11)), (0.2, LogNormal(p50=4.75, p90=6.64))], source='assumption')"
    )
    again = tm.Distribution.from_dict(d.to_dict())
    assert isinstance(again, tm.Mixture) and again == d
    # The mean is the weighted mean of the components'.
    assert d.mean() == pytest.approx(0.8 * d.components[0][1].mean() + 0.2 * slow.mean(), rel=1e-15)


def test_mixture_components_are_weight_and_value():
    # A number, a spec dict and a Distribution each become the "value" of a component.
    d = tm.Mixture([(0.5, 2), (0.25, {"dist": "uniform", "lo": 0, "hi": 1}), (0.25, tm.Bernoulli(0.5))])
    assert d.to_dict() == {
        "dist": "mixture",
        "components": [
            {"weight": 0.5, "value": 2.0},
            {"weight": 0.25, "value": {"dist": "uniform", "lo": 0.0, "hi": 1.0}},
            {"weight": 0.25, "value": {"dist": "bernoulli", "p": 0.5}},
        ],
    }
    assert d.components == [(0.5, tm.Fixed(2)), (0.25, tm.Uniform(0, 1)), (0.25, tm.Bernoulli(0.5))]
    assert json.loads(json.dumps(d.to_dict())) == d.to_dict()


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: tm.Mixture([(1.2, tm.Fixed(1)), (-0.2, tm.Fixed(2))]),
            "tm.Mixture.components[1].weight: must be > 0, got -0.2",
        ),
        (
            lambda: tm.Mixture([(0.8, tm.Fixed(1)), (0.3, tm.Fixed(2))]),
            "tm.Mixture.components: the weights must sum to 1 (within 1e-9), got 0.8 + 0.3 = 1.1",
        ),
        (lambda: tm.Mixture([]), "tm.Mixture.components: a mixture needs at least one component, got none"),
        (
            lambda: tm.Mixture([(1, tm.Unknown("no trial run"))]),
            "tm.Mixture.components[0].value.unknown: a mixture component cannot be unknown",
        ),
        (
            lambda: tm.Mixture([(1, tm.Mixture([(1, tm.Fixed(1))]))]),
            "tm.Mixture.components[0].value.dist: a mixture component cannot be a mixture",
        ),
        (
            lambda: tm.Mixture([(1, tm.Fixed(1, source="measured"))]),
            "tm.Mixture.components[0].value.source: a component carries no provenance",
        ),
        (lambda: tm.Mixture([tm.Fixed(1)]), "tm.Mixture.components[0]: must be a (weight, distribution) pair"),
        (
            lambda: tm.Mixture([(1, {"dist": "normal", "mean": 0, "sd": -1})]),
            "tm.Mixture.components[0].value.sd: must be > 0",
        ),
        (lambda: tm.Mixture([(float("nan"), 1)]), "tm.Mixture.components[0].weight: must be a finite number, got nan"),
        (
            lambda: tm.Distribution.from_dict(
                {"dist": "mixture", "components": [{"weight": 1, "value": {"dist": "lognormal", "p50": 3, "p90": 2}}]}
            ),
            "quantity.components[0].value: lognormal needs 0 < p50 < p90, got p50=3, p90=2",
        ),
        # A component is exactly {"weight": w, "value": Q} (docs/distributions.md, "Mixtures").
        (
            lambda: tm.Distribution.from_dict({"dist": "mixture", "components": [{"weigth": 1, "value": 2}]}),
            "quantity.components[0].weigth: unknown key (did you mean weight?)",
        ),
        (
            lambda: tm.Distribution.from_dict({"dist": "mixture", "components": [{"weight": 1}]}),
            "quantity.components[0].value: required key is missing",
        ),
        (
            lambda: tm.Distribution.from_dict(
                {"dist": "mixture", "components": [{"weight": 1, "dist": "fixed", "value": 2}]}
            ),
            "quantity.components[0].dist: unknown key",
        ),
    ],
)
def test_bad_mixtures_are_refused_naming_path_and_rule(make, message):
    with pytest.raises(tm.ScenarioError) as info:
        make()
    assert message in str(info.value)


def test_a_mixture_step_time_in_a_scenario():
    scn = tm.Scenario.from_json(str(EXAMPLES_DIR / "llama3-8b-lora-trn2.json"))
    step = PORTED_STEP_S
    mixed = scn.updated({"throughput.step_time_s": step})
    assert mixed["throughput.step_time_s"] == step
    assert tm.Scenario.from_dict(mixed.to_dict()) == mixed
    # The shipped JSON Schema knows the form, and refuses provenance on a component.
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json.loads((SCHEMA_DIR / "scenario-v1.schema.json").read_text()))
    doc = mixed.to_dict()
    assert not list(validator.iter_errors(doc))
    for bad in ({"source": "measured"}, {"weigth": 0.8}):  # provenance on a component, a misspelt key
        wrong = json.loads(json.dumps(doc))
        wrong["throughput"]["step_time_s"]["components"][0].update(bad)
        assert list(validator.iter_errors(wrong)), bad
    wrong = json.loads(json.dumps(doc))
    wrong["throughput"]["step_time_s"]["components"][0]["value"]["source"] = "measured"
    assert list(validator.iter_errors(wrong))
    # A bare number is a fixed component, in the schema as in the loader.
    doc["throughput"]["step_time_s"]["components"][1]["value"] = 4.4
    assert not list(validator.iter_errors(doc))
    rows = {r.path: r for r in mixed.provenance()}
    assert rows["throughput.step_time_s"].value == (
        "mixture(0.8 lognormal(p50=3.65, p90=5.11), 0.2 lognormal(p50=4.75, p90=6.64))"
    )
    assert rows["throughput.step_time_s"].source == "assumption"
    # Slower in the mean than the 80 % branch alone, faster than the 20 % branch alone.
    walls = {}
    for name, d in [("mixed", step), *[(f"only {w}", c) for w, c in step.components]]:
        res = tm.simulate(scn.updated({"throughput.step_time_s": d}), samples=2000, seed=1, threads=1)
        walls[name] = res.to_pandas()["wall_h"].mean()
    assert walls["only 0.8"] < walls["mixed"] < walls["only 0.2"]
    # A component with an atom at 0 would draw a step time of 0: refused.
    with pytest.raises(tm.ScenarioError, match=r"throughput.step_time_s: must be > 0, got .*which can be 0"):
        scn.updated({"throughput.step_time_s": tm.Mixture([(0.9, step.components[0][1]), (0.1, 0)])})
