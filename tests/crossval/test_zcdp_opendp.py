"""The tight zCDP → (ε, δ) conversion against OpenDP's ``make_zCDP_to_approxDP`` (Canonne, Kamath & Steinke 2020,
Cor. 13, as implemented in OpenDP's Rust core), and the inverse round trip."""

import math

import numpy as np
import pytest

import dpcore
from dpcore import accounting as acc

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib", "honest-but-curious")


def opendp_epsilon(rho: float, delta: float) -> float:
    """ε at δ of a measurement whose zCDP map returns exactly ρ, cast to approximate DP by OpenDP."""
    meas = dp.m.make_user_measurement(
        dp.atom_domain(T=float, nan=False),
        dp.absolute_distance(T=float),
        dp.zero_concentrated_divergence(),
        lambda x: x,
        lambda d_in: rho,
    )
    return dp.c.make_zCDP_to_approxDP(meas).map(1.0).epsilon(delta)


RHOS = [1e-8, 1e-6, 1e-4, 1e-3, 0.0749, 0.5, 2.556, 10.0, 100.0]
DELTAS = [1e-300, 1e-100, 1e-10, 1e-5, 1e-2, 0.3]
POINTS = [(r, d) for r in RHOS for d in DELTAS]  # 54 points


@pytest.mark.parametrize("rho,delta", POINTS)
def test_tight_conversion_matches_opendp(rho, delta):
    ref = opendp_epsilon(rho, delta)
    ours = dpcore.zcdp_to_dp(rho, delta)
    if ref == 0.0:
        assert ours == 0.0
    else:
        assert ours == pytest.approx(ref, rel=1e-9)


def test_vectorised_over_rho_equals_the_scalar_calls():
    rhos = np.array(RHOS)
    vec = dpcore.zcdp_to_dp(rhos, 1e-10)
    assert vec.shape == rhos.shape
    np.testing.assert_array_equal(vec, [dpcore.zcdp_to_dp(float(r), 1e-10) for r in rhos])


def test_census_2020_numbers():
    assert opendp_epsilon(2.556, 1e-10) == pytest.approx(17.14, abs=0.005)
    assert dpcore.zcdp_to_dp(2.556, 1e-10) == pytest.approx(opendp_epsilon(2.556, 1e-10), rel=1e-9)
    assert dpcore.zcdp_to_dp(0.0749, 1e-10) == pytest.approx(2.47, abs=0.005)


@pytest.mark.parametrize("rho,delta", POINTS[::5])
def test_inverse_is_the_largest_rho_within_opendp_epsilon(rho, delta):
    eps = opendp_epsilon(rho, delta)
    if eps == 0.0:
        return
    back = dpcore.dp_to_zcdp(eps, delta)
    assert back == pytest.approx(rho, rel=1e-9)
    assert dpcore.zcdp_to_dp(back, delta) <= eps
    assert opendp_epsilon(back * (1 + 1e-6), delta) > eps  # a larger ρ would exceed ε


def test_bun_steinke_is_looser_and_kept_by_name():
    for rho, delta in POINTS:
        assert dpcore.zcdp_to_dp(rho, delta) <= acc.zcdp_to_dp_bun_steinke(rho, delta) * (1 + 1e-15)
    assert acc.zcdp_to_dp_bun_steinke(1.0, math.exp(-4)) == pytest.approx(5.0)
    assert acc.dp_to_zcdp_bun_steinke(5.0, math.exp(-4)) == pytest.approx(1.0)
