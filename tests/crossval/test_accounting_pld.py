"""Cross-validation of dpcore.accounting against dp_accounting PLDs and an independent numpy convolution."""

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from scipy import signal

import dpcore

EPS_GRID = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0, 8.0])


@pytest.mark.parametrize("t", [1, 10, 100])
def test_gaussian_closed_form_matches_dp_accounting(t):
    sigma = dpcore.gaussian_sigma(1.0, 1e-5)
    ref = pld.from_gaussian_mechanism(sigma, sensitivity=1.0, value_discretization_interval=1e-4).self_compose(t)
    ours = dpcore.gaussian_delta(EPS_GRID, sigma=sigma, compositions=t)
    theirs = np.array([ref.get_delta_for_epsilon(float(e)) for e in EPS_GRID])
    np.testing.assert_allclose(ours, theirs, atol=2e-6)
    # ε at δ = 1e-5: the PLD is pessimistic, so it may only overshoot, and by little
    e_ours = dpcore.gaussian_epsilon(1e-5, sigma=sigma, compositions=t)
    e_pld = ref.get_epsilon_for_delta(1e-5)
    assert e_ours - 1e-9 <= e_pld <= e_ours + 2e-3 * max(1.0, e_ours)


def test_laplace_single_closed_form_matches_dp_accounting():
    b = 0.7
    ref = pld.from_laplace_mechanism(b, sensitivity=1.0, value_discretization_interval=1e-5)
    ours = dpcore.laplace_delta(EPS_GRID, scale=b)
    theirs = np.array([ref.get_delta_for_epsilon(float(e)) for e in EPS_GRID])
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def laplace_pld_bracket(eps0: float, t: int, cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower/upper T-fold PLD of Laplace by exact cell masses placed at the cells' low/high ends (numpy only).

    Under P = Lap(0, b): loss ε₀ w.p. ½, −ε₀ w.p. e^{−ε₀}/2, and density e^{−(ε₀−l)/2}/4 on (−ε₀, ε₀).
    """
    h = 2 * eps0 / cells
    grid = -eps0 + h * np.arange(cells + 1)
    cdf = lambda l: 0.5 * np.exp(-(eps0 - l) / 2)  # noqa: E731  ∫_{−ε₀}^{l} e^{−(ε₀−u)/2}/4 du + const
    cell = cdf(grid[1:]) - cdf(grid[:-1])
    up = np.zeros(cells + 1)
    lo = np.zeros(cells + 1)
    up[1:] += cell
    lo[:-1] += cell
    for arr in (up, lo):
        arr[-1] += 0.5
        arr[0] += 0.5 * math.exp(-eps0)
    out_up, out_lo = up.copy(), lo.copy()
    for _ in range(t - 1):
        out_up = np.clip(signal.fftconvolve(out_up, up), 0, None)
        out_lo = np.clip(signal.fftconvolve(out_lo, lo), 0, None)
    losses = -t * eps0 + h * np.arange(out_up.size)
    return losses, out_lo, out_up


def delta_from_pmf(eps: float, losses: np.ndarray, pmf: np.ndarray) -> float:
    mask = losses > eps
    return float(np.sum(pmf[mask] * -np.expm1(eps - losses[mask])))


@pytest.mark.parametrize("t,eps0", [(10, 1.0), (10, 0.25)])
def test_laplace_t_fold_inside_independent_bracket(t, eps0):
    losses, lo, up = laplace_pld_bracket(eps0, t, cells=4000)
    for eps in (-1.0, 0.0, 0.7, 2.0, 4.0):
        d_lo, d_up = delta_from_pmf(eps, losses, lo), delta_from_pmf(eps, losses, up)
        assert d_up - d_lo < 2e-3  # the bracket itself is informative
        ours = dpcore.laplace_delta(eps, scale=1.0 / eps0, compositions=t)
        assert d_lo - 1e-6 <= ours <= d_up + 1e-6


@pytest.mark.parametrize(
    "eps0,t",
    [(0.1, 1000), (1.0, 100), (5.0, 10), (1.0, 2), pytest.param(1.0, 1000, marks=pytest.mark.slow)],
)
def test_default_discretization_within_1e6_of_a_fine_pld(eps0, t):
    fine = pld.from_laplace_mechanism(1 / eps0, value_discretization_interval=2e-5).self_compose(t)
    grid = np.linspace(-2.0, min(t * eps0, 60.0), 60)
    ours = dpcore.laplace_delta(grid, scale=1 / eps0, compositions=t)
    ref = np.clip(fine.get_delta_for_epsilon(grid), 0, 1)
    assert np.max(np.abs(ours - ref)) <= 1e-6


@pytest.mark.parametrize(("eps0", "t"), [(0.05, 7), (0.5, 2), (1.0, 10), (3.0, 100), (20.0, 30)])
def test_fast_laplace_composition_equals_dp_accounting(eps0, t):
    """dpcore composes Laplace PLDs with its own vectorised copy of dp_accounting's algorithm (for speed): δ(ε) and
    ε(δ) must equal dp_accounting's ``from_laplace_mechanism(...).self_compose(T)`` at the same discretisation."""
    ref = pld.from_laplace_mechanism(1 / eps0, value_discretization_interval=dpcore.PLD_DISCRETIZATION).self_compose(t)
    grid = np.linspace(-1.0, min(t * eps0, 60.0), 41)
    ours = dpcore.laplace_delta(grid, scale=1 / eps0, compositions=t)
    theirs = np.array([ref.get_delta_for_epsilon(float(e)) for e in grid])
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-13)
    for delta in (1e-3, 1e-6, 1e-10):
        assert dpcore.laplace_epsilon(delta, scale=1 / eps0, compositions=t) == pytest.approx(
            ref.get_epsilon_for_delta(delta), rel=1e-9, abs=1e-9)
