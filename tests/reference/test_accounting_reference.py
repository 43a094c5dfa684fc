"""Reference numbers of the shared accountant: calibrations and compositions quoted by the papers, zCDP conversions."""

import pytest

import dpcore


def test_kernel_profiles():
    assert dpcore.gaussian_delta(1.0, sigma=1.0, sensitivity=1.0) == pytest.approx(0.126937, abs=1e-6)
    assert dpcore.laplace_delta(0.5, scale=1.0, sensitivity=1.0) == pytest.approx(0.221199, abs=1e-6)


def test_calibrations():
    s = dpcore.gaussian_sigma(1.0, 1e-5)
    assert s == pytest.approx(3.73063, rel=1e-5)
    assert dpcore.gaussian_sigma(1.0, 1e-5, method="classic") == pytest.approx(4.84481, rel=1e-5)
    assert dpcore.laplace_scale(1.0, delta=1e-5) == pytest.approx(0.999980, abs=1e-6)
    assert dpcore.gaussian_delta(1.0, sigma=s) == pytest.approx(1e-5, abs=1e-12)


def test_gaussian_t_fold():
    assert dpcore.gaussian_epsilon(1e-5, sigma=3.7306, compositions=10) == pytest.approx(3.6186, rel=1e-3)
    assert dpcore.gaussian_epsilon(1e-5, sigma=3.7306, compositions=100) == pytest.approx(14.4293, rel=1e-3)


def test_gaussian_t_fold_at_small_epsilon():
    s = dpcore.gaussian_sigma(0.1, 1e-5)
    assert dpcore.gaussian_epsilon(1e-5, sigma=s, compositions=1000) == pytest.approx(4.522, rel=1e-3)
    assert dpcore.gaussian_epsilon(1e-10, sigma=s, compositions=1000) == pytest.approx(6.752, rel=1e-3)


def test_rho_star_bun_steinke():
    # The accuracy-first filter's budget: the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε; ρ* = 1.353015 for ε = 10, δ = 1e-6
    assert dpcore.accounting.dp_to_zcdp_bun_steinke(10.0, 1e-6) == pytest.approx(1.353015, abs=1e-6)


def test_tight_zcdp_reference_numbers():
    # Canonne, Kamath & Steinke 2020, Cor. 13; US Census 2020: persons ρ = 2.556, housing units ρ = 0.0749, δ = 1e-10
    assert dpcore.zcdp_to_dp(2.556, 1e-10) == pytest.approx(17.14, abs=0.005)
    assert dpcore.zcdp_to_dp(0.0749, 1e-10) == pytest.approx(2.47, abs=0.005)
    assert dpcore.zcdp_to_dp(0.001, 1e-5) == pytest.approx(0.157, abs=0.0005)


def _gaussian_epsilon_mpmath(sigma: float, compositions: int, delta: float) -> float:
    """T Gaussian releases with noise σ (Δ = 1) are one release with μ = √T/σ; bisect the exact
    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) at 80 digits, where e^ε never overflows."""
    import mpmath as mp

    with mp.workdps(80):
        mu, target = mp.sqrt(compositions) / mp.mpf(sigma), mp.mpf(delta)
        lo, hi = mp.mpf(0), mp.mpf(10) ** 5
        for _ in range(120):
            mid = (lo + hi) / 2
            if mp.ncdf(mu / 2 - mid / mu) - mp.exp(mid) * mp.ncdf(-mu / 2 - mid / mu) > target:
                lo = mid
            else:
                hi = mid
        return float(lo)


@pytest.mark.parametrize(("epsilon", "compositions"), [(1.0, 10), (5.0, 100), (1.0, 1000), (5.0, 1000), (20.0, 100)])
def test_composed_gaussian_matches_80_digit_arithmetic(epsilon, compositions):
    # includes totals past 709 (778.87 and 740.46), where e^ε overflows double precision
    sigma = dpcore.gaussian_sigma(epsilon, 1e-5)
    expected = _gaussian_epsilon_mpmath(sigma, compositions, 1e-5)
    assert dpcore.gaussian_epsilon(1e-5, sigma=sigma, compositions=compositions) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("epsilon", "compositions"), [(1.0, 10), (5.0, 100), (1.0, 1000), (20.0, 10)])
def test_the_lessons_dp_accounting_cross_check_is_accurate_below_the_overflow(epsilon, compositions):
    from app import compute

    sigma = dpcore.gaussian_sigma(epsilon, 1e-5)
    expected = _gaussian_epsilon_mpmath(sigma, compositions, 1e-5)
    assert expected < compute.EXP_OVERFLOW
    assert compute.gaussian_reference_epsilon.__wrapped__(sigma, 1.0, compositions, 1e-5) == pytest.approx(
        expected, abs=2e-4
    )
