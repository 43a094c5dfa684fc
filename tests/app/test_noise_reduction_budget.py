"""The noise-reduction page never records less privacy loss than its releases cost (its filters' ledgers, exactly).

Rogers et al. (2023), Section 7.1: the doubling baseline releases fresh Gaussians at levels ε_i with ε_i² doubling,
and every attempt costs ρ_i = ε_i²/2 under the zCDP filter of Thm 2. The test records every level ε_i the doubling
loop (``dpcore.noise_reduction.doubling``) releases at, adds their costs ε_i²/2 exactly (fractions, no rounding) and
compares them with the exact sum of what the filter's ledger charged. Two roundings once put the record on the unsafe
side by an ulp: the attempts' float sum recorded afterwards, clipped to what the filter had left (in most runs), and a
level taken as the correctly rounded √s_i, whose square can be an ulp above the s_i charged.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from app.compute.noise_reduction.ledger import ledger_add, ledger_new
from app.compute.noise_reduction.releases import _release_doubling, _widest, odometer
from dpcore import filters as fl
from dpcore.noise_reduction import doubling


def _recorded(flt: fl.PrivacyFilter) -> Fraction:
    """The exact sum of every charge the filter's ledger accepted."""
    led = flt.ledger
    return sum((Fraction(float(c)) for c in led.loc[led["status"] == "accepted", "charge"]), Fraction(0))


@pytest.mark.parametrize("seed", range(12))
def test_doubling_records_at_least_what_its_released_levels_cost(monkeypatch, seed):
    levels: list[float] = []
    level_within = doubling._level_within

    def level(use: float) -> float:  # the doubling loop's level ε_i, once per released attempt
        levels.append(level_within(use))
        return levels[-1]

    monkeypatch.setattr(doubling, "_level_within", level)
    gen = np.random.default_rng([seed, 99])
    budget = float(gen.uniform(0.05, 3.0))
    flt = fl.ZCDPFilter.from_rho(budget, delta=1e-6)
    released = 0
    for j in range(40):  # small counts at a strict α run to the cap: the last attempt uses what is left
        y = float(gen.choice([1.0, 3.0, 40.0, 300.0]))
        out = _release_doubling(flt, y, alpha=0.01, rng=np.random.default_rng([seed, j]), label=f"count {j}")
        if out.status == "refused":
            break
        released += 1
        cost = sum((Fraction(e) ** 2 / 2 for e in levels), Fraction(0))
        recorded = _recorded(flt)
        assert recorded >= cost, f"count {j}: the filter recorded {float(cost - recorded):.3g} less than was released"
        assert recorded <= Fraction(budget), "never over the budget"
    assert released >= 1
    assert flt.remaining_rho < 1e-4 / 2.0, "the queue ran until the budget could not pay a first attempt"


def test_a_one_shot_gaussian_of_the_live_ledger_records_at_least_its_exact_cost():
    """The ledger's Gaussian release of y at level ε = (2+α)/(α·y) costs exactly ε²/2 (Thm 2); the float product ε·ε/2
    rounds to the nearest float, below ε²/2 for about half the levels."""
    from app.compute.noise_reduction.ledger import ledger_add, ledger_new
    from app.compute.noise_reduction.releases import queue

    state = ledger_new(10.0, 1e-6, "corrected")
    count, value, alpha = 30, 500.0, 0.07
    for _ in range(count):
        state, _ = ledger_add(state, "zcdp", value=value, count=count, alpha=alpha, levels=20, spacing="linear", seed=1)
    flt = fl.PrivacyFilter.from_dict(state.filter)
    led = flt.ledger[flt.ledger["status"] == "accepted"]
    assert len(led) >= 10
    for y, charge in zip(queue(value, count), led["charge"], strict=False):
        e = (2.0 + alpha) / (alpha * float(y))
        assert Fraction(float(charge)) >= Fraction(e) ** 2 / 2, f"y = {y}: recorded below ε²/2"


def test_the_concurrent_filters_gaussians_record_at_least_their_exact_cost():
    from app.compute.noise_reduction.releases import concurrent

    df = concurrent.__wrapped__(10.0, 1e-6, 1.0, 500.0, 0.07, 30, 20, 1).table
    zcdp = df[(df["part"] == "zCDP: Gaussian") & (df["status"] == "accepted")]
    assert len(zcdp) >= 5
    for y, charge in zip(zcdp["true_count"], zcdp["charge"], strict=True):
        e = (2.0 + 0.07) / (0.07 * float(y))
        assert Fraction(float(charge)) >= Fraction(e) ** 2 / 2, f"y = {y}: recorded below ε²/2"


def _admits(flt: fl.PrivacyFilter, eps_max: float) -> bool:
    """Whether a noise reduction whose grid ends at ``eps_max`` fits what the filter has left, in exact arithmetic:
    the charges it accepted plus ε_max²/2 within its budget ρ*."""
    return _recorded(flt) + Fraction(eps_max) ** 2 / 2 <= Fraction(float(flt.rho_budget))


@pytest.mark.parametrize("epsilon", [0.3, 0.5, 1.0, 2.0, 3.0, 10.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-5])
def test_a_noise_reduction_grid_ends_at_the_largest_level_the_budget_admits(epsilon, delta):
    """√(2ρ) rounds to the nearest float, and its exact half-square is above ρ for about half the budgets: a grid
    ending there was refused whole by the filter, which compares budgets exactly, and the page then released no count
    at all while doubling released several. The grid now ends at the largest float that fits, checked in fractions."""
    flt = fl.PrivacyFilter(epsilon, delta)
    for step in range(4):  # a fresh filter, then after charges of a few sizes
        top = _widest(flt)
        assert _admits(flt, top), "the grid's top level must fit"
        assert not _admits(flt, math.nextafter(top, math.inf)), "and be the largest level that fits"
        assert flt.can_start(epsilon_max=top)
        flt.charge_zcdp(float(flt.remaining_rho) * (0.1 + 0.2 * step), label=f"charge {step}")


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 3.0, 10.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-5])
def test_the_first_count_of_a_queue_is_never_refused_a_noise_reduction(epsilon, delta):
    """A fresh budget whose top level is above the grid's first one admits the first count's noise reduction (the
    whole remaining budget, Rogers et al. 2023, condition (4)); the live ledger's button says the same."""
    df = odometer(epsilon, delta, "corrected", 20, "geometric", 1000.0, 0.05, 20, 0)
    first = df[(df["method"] == "noise_reduction") & (df["count"] == 1)]
    assert first["status"].item() != "refused"
    state = ledger_new(epsilon, delta, "corrected")
    step = ledger_add(
        state, "noise_reduction", value=1000.0, count=20, alpha=0.05, levels=20, spacing="geometric", seed=0
    )
    assert not step.message.startswith("Refused"), step.message
