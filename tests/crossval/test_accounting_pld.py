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
    cdf = lambda loss: 0.5 * np.exp(-(eps0 - loss) / 2)  # noqa: E731  ∫_{−ε₀}^{l} e^{−(ε₀−u)/2}/4 du + const
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
def test_default_profile_is_pessimistic_and_within_1e4_epsilon_of_a_fine_pld(eps0, t):
    """δ(ε) on the adaptive grid never under-reports a PLD 16× finer, and over-reports by less than a shift of ε by
    1e-4·max(ε, 1): δ_ours(ε) ≤ δ_fine(ε − 1e-4·max(ε, 1)) (near ε = 0, where δ is close to 1, the shift is absolute).
    """
    h = dpcore.accounting.laplace_discretization(eps0, t) / 16
    fine = pld.from_laplace_mechanism(1 / eps0, value_discretization_interval=h).self_compose(t)
    grid = np.linspace(0.05, min(t * eps0, 60.0), 60)
    ours = dpcore.laplace_delta(grid, scale=1 / eps0, compositions=t)
    ref = np.clip(fine.get_delta_for_epsilon(grid), 0, 1)
    shifted = np.clip(fine.get_delta_for_epsilon(grid - 1e-4 * np.maximum(grid, 1.0)), 0, 1)
    assert np.all(ours >= ref - 1e-12)
    assert np.all(ours <= shifted + 1e-8)  # + 1e-8: where δ is within 1e-5 of 1 the curve is flat in ε


# (ε₀, T) spread over [1e-3, 20] × [2, 10⁴]: the composed ε on the adaptive grid against dp_accounting's own δ(ε)
# on a grid 8× finer (the reference of the brief's "fine grid"): never below it, at most 1e-4 relative above.
LAPLACE_POINTS = [
    (1e-3, 1000),
    (2.3e-3, 2000),
    (0.03, 30),
    (0.1, 100),
    (0.3, 1000),
    (1.0, 10),
    (3.0, 300),
    (8.0, 2),
    (20.0, 1000),
    pytest.param(0.05, 10_000, marks=pytest.mark.slow),
    pytest.param(20.0, 10_000, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("eps0,t", LAPLACE_POINTS)
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-8])
def test_composed_laplace_epsilon_within_1e4_of_a_finer_dp_accounting_pld(eps0, t, delta):
    h = dpcore.accounting.laplace_discretization(eps0, t) / 8
    fine = _fine_pld(eps0, t, h)
    e = dpcore.laplace_epsilon(delta, scale=1 / eps0, compositions=t)
    # ε is not below the fine ε: the fine δ at ε already meets the target ...
    assert fine.get_delta_for_epsilon(e) <= delta * (1 + 1e-9)
    # ... and at most 1e-4 relative above it: the fine δ just below ε(1 − 1e-4) still exceeds the target
    assert fine.get_delta_for_epsilon(e * (1 - 1e-4) if e > 0 else e * (1 + 1e-4)) > delta


_FINE: dict = {}


def _fine_pld(eps0: float, t: int, h: float):
    key = (eps0, t, h)
    if key not in _FINE:
        _FINE.clear()
        _FINE[key] = pld.from_laplace_mechanism(1 / eps0, value_discretization_interval=h).self_compose(t)
    return _FINE[key]


def test_tiny_epsilon0_laplace_inside_an_exact_bracket():
    """ε₀ = 1e-4 (a finer dp_accounting grid loses digits to cancellation there): an independent bracket from exact
    cell masses rounded down / up on a grid that holds ±ε₀, composed by numpy FFT, contains ε and is 1e-5 wide."""
    eps0, t, delta, m = 1e-4, 1000, 1e-6, 400
    losses, lo, up = laplace_pld_bracket_aligned(eps0, t, m)
    e = dpcore.laplace_epsilon(delta, scale=1 / eps0, compositions=t)
    d_lo, d_up = delta_from_pmf(e, losses, lo), delta_from_pmf(e, losses, up)
    assert d_lo <= delta * (1 + 1e-9)  # the lower bracket meets δ at ε: ε is not below the truth's lower end
    e_up = e * (1 + 1e-4)
    assert delta_from_pmf(e_up, losses, up) <= delta  # within 1e-4 of the bracket's upper end
    assert d_up >= d_lo


def laplace_pld_bracket_aligned(eps0: float, t: int, m: int):
    """Like :func:`laplace_pld_bracket` with h = ε₀/m and the cell masses from expm1 (no cancellation at tiny ε₀)."""
    h = eps0 / m
    j = np.arange(2 * m)
    cell = 0.5 * np.exp(-(2 * eps0 - j * h) / 2) * math.expm1(h / 2)
    up, lo = np.zeros(2 * m + 1), np.zeros(2 * m + 1)
    up[1:] += cell
    lo[:-1] += cell
    for arr in (up, lo):
        arr[-1] += 0.5
        arr[0] += 0.5 * math.exp(-eps0)
    n = 2 * m * t + 1
    size = 1 << (n - 1).bit_length()
    out = [np.clip(np.fft.irfft(np.fft.rfft(a, size) ** t, size)[:n], 0, None) for a in (lo, up)]
    return -t * eps0 + h * np.arange(n), out[0], out[1]


@pytest.mark.parametrize(("eps0", "t"), [(0.05, 7), (0.5, 2), (1.0, 10), (3.0, 100), (20.0, 30)])
def test_fast_laplace_composition_equals_dp_accounting(eps0, t):
    """dpcore composes Laplace PLDs with its own vectorised copy of dp_accounting's algorithm (for speed): δ(ε) and
    ε(δ) must equal dp_accounting's ``from_laplace_mechanism(...).self_compose(T)`` at the same discretisation."""
    for h in (dpcore.PLD_DISCRETIZATION, dpcore.accounting.laplace_discretization(eps0, t)):
        ref = pld.from_laplace_mechanism(1 / eps0, value_discretization_interval=h).self_compose(t)
        grid = np.linspace(-1.0, min(t * eps0, 60.0), 41)
        ours = dpcore.laplace_delta(grid, scale=1 / eps0, compositions=t, discretization=h)
        theirs = np.array([ref.get_delta_for_epsilon(float(e)) for e in grid])
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-13)
        for delta in (1e-3, 1e-6, 1e-10):
            assert dpcore.laplace_epsilon(delta, scale=1 / eps0, compositions=t, discretization=h) == pytest.approx(
                ref.get_epsilon_for_delta(delta), rel=1e-9, abs=1e-9
            )
