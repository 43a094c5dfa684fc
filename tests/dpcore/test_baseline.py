import math

import numpy as np
import pytest
from scipy import integrate

import dpcore
from dpcore import baseline


@pytest.mark.parametrize("mech", ["gaussian", "laplace"])
def test_density_integrates_to_one_and_within_probability_is_its_integral(mech):
    total = integrate.quad(lambda x: baseline.noise_density(x, mechanism=mech, scale=1.7), -np.inf, np.inf)[0]
    assert total == pytest.approx(1.0, abs=1e-9)
    inside = integrate.quad(lambda x: baseline.noise_density(x, mechanism=mech, scale=1.7), -2.0, 2.0, points=[0])[0]
    assert baseline.within_probability(2.0, mechanism=mech, scale=1.7) == pytest.approx(inside, abs=1e-10)


def test_within_probability_closed_forms():
    assert baseline.within_probability(1.0, mechanism="gaussian", scale=2.0) == pytest.approx(
        math.erf(1 / (2 * 2**0.5))
    )
    assert baseline.within_probability(1.0, mechanism="laplace", scale=2.0) == pytest.approx(1 - math.exp(-0.5))


@pytest.mark.parametrize("mech", ["gaussian", "laplace"])
def test_error_bound_inverts_within_probability(mech):
    th = baseline.error_bound(0.95, mechanism=mech, scale=3.0)
    assert baseline.within_probability(th, mechanism=mech, scale=3.0) == pytest.approx(0.95, abs=1e-12)
    assert baseline.error_bound(0.0, mechanism=mech, scale=3.0) == 0.0


def test_calibrate_bundles_both_scales():
    c = dpcore.calibrate(1.0, 1e-5)
    assert c.scale("gaussian") == c.sigma == pytest.approx(3.73063, rel=1e-5)
    assert c.scale("laplace") == c.laplace_scale == pytest.approx(0.999980, rel=1e-6)


def test_sampler_is_seeded_and_shaped():
    a = baseline.sample_noise(1000, mechanism="laplace", scale=1.0, rng=3)
    b = baseline.sample_noise(1000, mechanism="laplace", scale=1.0, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert baseline.sample_noise(0, mechanism="gaussian", scale=1.0, rng=0).shape == (0,)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: baseline.noise_density(0.0, mechanism="cauchy", scale=1.0), "mechanism"),
        (lambda: baseline.within_probability(-1.0, mechanism="gaussian", scale=1.0), "theta"),
        (lambda: baseline.error_bound(1.0, mechanism="gaussian", scale=1.0), "confidence"),
        (lambda: baseline.sample_noise(-1, mechanism="gaussian", scale=1.0), "n"),
        (lambda: baseline.sample_noise(5, mechanism="gaussian", scale=math.inf), "scale"),
    ],
)
def test_bad_inputs(call, name):
    with pytest.raises(ValueError, match=name):
        call()
