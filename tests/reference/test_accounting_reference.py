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
