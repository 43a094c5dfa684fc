"""Reference numbers from the specs that concern the shared accountant (brdp.md §11, noise_reduction.md §5)."""

import pytest

import dpcore


def test_R1_kernel_profiles():
    assert dpcore.gaussian_delta(1.0, sigma=1.0, sensitivity=1.0) == pytest.approx(0.126937, abs=1e-6)
    assert dpcore.laplace_delta(0.5, scale=1.0, sensitivity=1.0) == pytest.approx(0.221199, abs=1e-6)


def test_R2_calibrations():
    s = dpcore.gaussian_sigma(1.0, 1e-5)
    assert s == pytest.approx(3.73063, rel=1e-5)
    assert dpcore.gaussian_sigma(1.0, 1e-5, method="classic") == pytest.approx(4.84481, rel=1e-5)
    assert dpcore.laplace_scale(1.0, delta=1e-5) == pytest.approx(0.999980, abs=1e-6)
    assert dpcore.gaussian_delta(1.0, sigma=s) == pytest.approx(1e-5, abs=1e-12)


def test_R21_gaussian_t_fold():
    assert dpcore.gaussian_epsilon(1e-5, sigma=3.7306, compositions=10) == pytest.approx(3.6186, rel=1e-3)
    assert dpcore.gaussian_epsilon(1e-5, sigma=3.7306, compositions=100) == pytest.approx(14.4293, rel=1e-3)


def test_R23_gaussian_table_one_context():
    s = dpcore.gaussian_sigma(0.1, 1e-5)
    assert dpcore.gaussian_epsilon(1e-5, sigma=s, compositions=1000) == pytest.approx(4.522, rel=1e-3)
    assert dpcore.gaussian_epsilon(1e-10, sigma=s, compositions=1000) == pytest.approx(6.752, rel=1e-3)


def test_rho_star_noise_reduction_spec():
    # noise_reduction.md: ρ* = 1.353015 for ε = 10, δ″ = 1e-6
    assert dpcore.dp_to_zcdp(10.0, 1e-6) == pytest.approx(1.353015, abs=1e-6)
