"""dpcore.ledger against independent accountants: dp_accounting's event-based PLD and RDP accountants, and the
exact optimal composition of pure-DP releases (Kairouz, Oh & Viswanath 2015, Thm 3.3)."""

from __future__ import annotations

import math

import dp_accounting
import pytest
from dp_accounting import rdp
from dp_accounting.pld import pld_privacy_accountant
from scipy import optimize, special

from dpcore import ledger as L

GAUSS_LAPLACE = (
    L.gaussian_release(4.0, sensitivity=1.0, delta=1e-6, compositions=20, label="g"),
    L.laplace_release(5.0, sensitivity=1.0, compositions=10, label="l"),
    L.gaussian_release(10.0, sensitivity=2.0, delta=1e-6, compositions=3, label="g2"),
    L.noise_reduction_release(0.2, epsilon_max=0.8, label="nr"),
)


def _events():
    return [
        dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(4.0), 20),
        dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(5.0), 10),
        dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(5.0), 3),
        dp_accounting.GaussianDpEvent(1 / 0.8),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("delta", [1e-4, 1e-6, 1e-8])
def test_pld_matches_dp_accounting_event_accountant(delta):
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)  # finer grid than ours
    acc.compose(dp_accounting.ComposedDpEvent(_events()))
    reference = acc.get_epsilon(delta)
    got = L.pld(GAUSS_LAPLACE, 100.0, delta).epsilon
    assert got == pytest.approx(reference, abs=5e-3)


def test_pld_below_rdp_accountant():
    acc = rdp.RdpAccountant()
    acc.compose(dp_accounting.ComposedDpEvent(_events()))
    for delta in (1e-5, 1e-8):
        assert L.pld(GAUSS_LAPLACE, 100.0, delta).epsilon <= acc.get_epsilon(delta) + 1e-9


def _exact_pure_delta(eps: float, eps0: float, k: int) -> float:
    """δ(ε) of the k-fold composition of ε0-DP, tight (KOV 2015 Thm 3.3), in log space."""
    terms = []
    for i in range(k + 1):
        a, b = (k - i) * eps0, i * eps0  # the binomial term's two likelihoods (up to the common normaliser)
        if a > eps + b:
            log_diff = a + math.log1p(-math.exp(eps + b - a))
            terms.append(math.log(special.comb(k, i, exact=True)) + log_diff)
    if not terms:
        return 0.0
    return math.exp(special.logsumexp(terms) - k * math.log1p(math.exp(eps0)))


def _exact_pure_epsilon(delta: float, eps0: float, k: int) -> float:
    return optimize.brentq(lambda e: _exact_pure_delta(e, eps0, k) - delta, 0.0, k * eps0, xtol=1e-10)


@pytest.mark.parametrize("eps0,k,delta", [(0.1, 50, 1e-5), (0.5, 20, 1e-6), (1.0, 5, 1e-3)])
def test_pure_releases_pld_and_advanced_against_exact_optimal_composition(eps0, k, delta):
    rel = (L.pure_release(eps0, compositions=k, label="p"),)
    exact = _exact_pure_epsilon(delta, eps0, k)
    pld = L.pld(rel, 1e3, delta).epsilon
    assert exact - 1e-9 <= pld <= exact + 5e-3 * max(1.0, math.sqrt(k) / 2)
    adv = L.advanced(rel, 1e3, delta).epsilon
    assert adv >= exact - 1e-9  # KOV Thm 3.5 is an upper bound on the optimum of Thm 3.3
