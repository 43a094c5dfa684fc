"""Monte Carlo checks of the baseline mechanisms and of composed privacy profiles (fixed seeds, 4-SE tolerance)."""

import numpy as np
import pytest

import dpcore
from dpcore import baseline


@pytest.mark.parametrize("mech", ["gaussian", "laplace"])
@pytest.mark.parametrize("theta", [0.3, 1.0, 4.0])
def test_sampled_tail_mass_matches_within_probability(mech, theta):
    n = 1_000_000
    x = baseline.sample_noise(n, mechanism=mech, scale=1.7, rng=11)
    p_hat = np.mean(np.abs(x) <= theta)
    p = baseline.within_probability(theta, mechanism=mech, scale=1.7)
    se = np.sqrt(p * (1 - p) / n)
    assert abs(p_hat - p) <= 4 * se


def mc_delta(eps: float, loss: np.ndarray) -> tuple[float, float]:
    """δ(ε) = E_P[(1 − e^{ε−L})₊] and its standard error from sampled privacy losses L."""
    v = np.clip(-np.expm1(eps - loss), 0, None)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size))


@pytest.mark.parametrize("eps", [-1.0, 0.5, 2.0])
def test_composed_laplace_profile_by_monte_carlo(eps):
    rng = np.random.default_rng(5)
    b, sens, t, n = 1.2, 1.0, 10, 400_000
    x = rng.laplace(0.0, b, size=(n, t))
    loss = ((np.abs(x - sens) - np.abs(x)) / b).sum(axis=1)
    est, se = mc_delta(eps, loss)
    assert abs(dpcore.laplace_delta(eps, scale=b, sensitivity=sens, compositions=t) - est) <= 4 * se + 1e-6


@pytest.mark.parametrize("eps", [0.0, 1.0, 3.0])
def test_composed_gaussian_profile_by_monte_carlo(eps):
    rng = np.random.default_rng(6)
    sigma, sens, t, n = 2.0, 1.0, 20, 200_000
    x = rng.normal(0.0, sigma, size=(n, t))
    loss = ((np.square(x - sens) - np.square(x)) / (2 * sigma**2)).sum(axis=1)
    est, se = mc_delta(eps, loss)
    assert abs(dpcore.gaussian_delta(eps, sigma=sigma, sensitivity=sens, compositions=t) - est) <= 4 * se + 1e-9
