"""Every privacy filter and ledger verdict refuses whatever takes the exact loss over the budget, and accepts a loss
exactly on it, checked against exact rational sums (``fractions.Fraction``) over adversarial sequences: thousands of
tiny answers just over budget/n each, answers equal to what is left, and 0.1 + 0.2 against a budget of 0.3 (as exact
numbers the floats 0.1 + 0.2 exceed the float 0.3)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpcore import filters as fl
from dpcore import ldp
from dpcore import ledger as L

F = Fraction


def _rr_loss(eps: float) -> Fraction:
    """The exact loss of one answer of the binary RR table for ε (the difference of its two log-probabilities)."""
    t = ldp.randomized_response(eps)
    return F(float(t.log_prob[1, 1])) - F(float(t.log_prob[0, 1]))


# ------------------------------------------------------------------------------------------ local-DP filters
@pytest.mark.parametrize("cls", [ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter])
def test_local_filters_many_tiny_answers(cls):
    """4000 answers of ε = budget/4000·(1 + 1e-9) at budget 1e-3 (the case that used to be accepted in full): the
    filter accepts exactly the largest k with k·ℓ ≤ ε_G, ℓ the exact loss of one answer."""
    budget, n = 1e-3, 4000
    rr = ldp.randomized_response(budget / n * (1 + 1e-9))
    step = _rr_loss(budget / n * (1 + 1e-9))
    f = cls(budget, domain_size=2)
    k = 0
    while f.would_accept(rr):
        f.submit(rr, 1)  # the same answer every time: |n₁ − n₀| = k, ℓ = k·ℓ₁
        k += 1
    assert k * step <= F(budget) < (k + 1) * step
    assert k == n - 1
    assert F(f.loss) >= k * step  # the odometer is never below the exact loss


@pytest.mark.parametrize("cls", [ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter])
@pytest.mark.parametrize("seed", range(4))
def test_local_filters_random_answers_decide_exactly(cls, seed):
    """Random RR answers of mixed ε: every decision equals the exact one (worst case |d|·ℓ + ℓ_q ≤ ε_G)."""
    gen = np.random.default_rng(seed)
    eps_pool = [0.1, 0.2, 0.3, 0.05, 0.7, 1e-3]
    budget = float(gen.choice([0.3, 0.6, 1.0, 1.3]))
    f = cls(budget, domain_size=2)
    d = F(0)  # the exact ln Λ(1) − ln Λ(0) of the transcript so far
    for _ in range(200):
        eps = float(gen.choice(eps_pool))
        rr, step = ldp.randomized_response(eps), _rr_loss(eps)
        exact = abs(d) + step <= F(budget)  # both filters: the worse answer moves |d| up by ℓ_q (Thm 4.2 is tight)
        assert f.would_accept(rr) is exact, (budget, d, eps)
        if exact:
            y = int(gen.integers(2))
            f.submit(rr, y)
            d += step if y == 1 else -step


def test_local_filters_answers_equal_to_what_is_left_and_one_ulp_over():
    """A state whose exact loss is ℓ, a budget of exactly ℓ + ℓ_q (accepted) and the float just below it (refused)."""
    rr = ldp.randomized_response(0.2)
    step = _rr_loss(0.2)
    for ll in ([0.0, 0.5], [-3.0, -2.25], [-1e4, -1e4 + 0.5]):
        gap = F(ll[1]) - F(ll[0])
        total = gap + step
        on = float(total)
        for budget, exact in ((on, F(on) >= total), (math.nextafter(on, 0.0), False), (math.nextafter(on, 9.0), True)):
            for cls in (ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter):
                assert cls(budget, domain_size=2, log_likelihood=ll).would_accept(rr) is exact, (ll, budget)


def test_local_filters_point_one_plus_point_two():
    """Budget 0.3, answers of ε = 0.1 then 0.2: the exact losses of the two RR tables are compared with 0.3."""
    exact = _rr_loss(0.1) + _rr_loss(0.2) <= F(0.3)
    for cls in (ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter):
        f = cls(0.3, domain_size=2)
        f.submit(ldp.randomized_response(0.1), 1)
        assert f.would_accept(ldp.randomized_response(0.2)) is exact


def test_approximate_filter_adds_up_exactly_while_adding_up():
    """The (ε, δ) filter's output-independent part: Σ ε_i ≤ ε_G and Σ δ_i ≤ δ_G on exact sums (0.1 + 0.2 at 0.3)."""
    f = ldp.ApproximateBayesianFilter(0.3, 1e-6, domain_size=2)
    rr1, rr2 = ldp.randomized_response(0.1), ldp.randomized_response(0.2)
    assert f.would_accept(rr1, delta=1e-7)
    f.submit(rr1, 1)
    fits = _rr_loss(0.1) + _rr_loss(0.2) <= F(0.3)
    accepted = f.would_accept(rr2, delta=1e-7)
    assert (f.mode == "OI") is fits and (accepted if fits else True)
    g = ldp.ApproximateBayesianFilter(1.0, 3e-7, domain_size=2)
    for _ in range(3):  # δ: 1e-7 three times against 3e-7, exactly (the float sum 3·1e-7 is not 3e-7)
        ok = g.mode == "OI" and g.would_accept(ldp.randomized_response(0.01), delta=1e-7)
        if ok:
            g.submit(ldp.randomized_response(0.01), 0)
    spent = F(g.spent[1])
    assert spent <= F(3e-7) and (g.mode == "OI") is (3 * F(1e-7) <= F(3e-7))


def test_regression_filter_never_above_its_budget():
    """Many tiny linear queries: the certified loss bounds of the accepted ones, added exactly, stay ≤ the budget."""
    gen = np.random.default_rng(2)
    budget = 0.05
    f = ldp.RegressionFilter(budget, lower=[-1.0], upper=[1.0], group_size=5, method="exact_linear")
    accepted = 0
    for _ in range(200):
        q = ldp.linear_regression_query(gen.uniform(-1, 1, 2) / 2, epsilon=budget / 20 * (1 + 1e-9))
        if not f.would_accept(q):
            break
        f.submit(q, q.sample(np.zeros(1), gen))
        accepted += 1
        assert F(f.loss) <= F(budget)
    assert accepted >= 19


# ------------------------------------------------------------------------------------- noise-reduction filters
@pytest.mark.parametrize("make", [lambda b: fl.PrivacyFilter.from_rho(b), lambda b: fl.ZCDPFilter.from_rho(b)])
def test_zcdp_filters_tiny_charges_equal_rest_and_point_one_plus_point_two(make):
    budget = 1e-3
    f, spent = make(budget), F(0)
    x = budget / 4000 * (1 + 1e-9)
    while f.can_start(rho=x):
        f.charge_zcdp(x)
        spent += F(x)
    assert spent <= F(budget) < spent + F(x)  # exactly the largest number of charges that fit
    rest = f.remaining_rho
    assert f.can_start(rho=rest) and spent + F(rest) <= F(budget)  # what is left (rounded down) fits
    assert not f.can_start(rho=x)  # one more tiny charge would go over
    g = make(0.3)
    g.charge_zcdp(0.1)
    assert g.can_start(rho=0.2) is (F(0.1) + F(0.2) <= F(0.3))  # False: 0.1 + 0.2 > 0.3 exactly


def test_expost_and_concurrent_filters_exact():
    e = fl.ExPostFilter(0.3)
    e.start(0.1)
    e.charge(0.1)
    assert e.can_start(epsilon_max=0.2) is (F(0.1) + F(0.2) <= F(0.3))
    c = fl.ConcurrentFilter(1.0, 1e-6, 1e-3)
    spent, x = F(0), 1e-3 / 4000 * (1 + 1e-9)
    while c.expost.can_start(epsilon_max=x):
        c.expost.start(x)
        c.expost.charge(x)
        spent += F(x)
    assert spent <= F(1e-3) < spent + F(x)


def test_noise_reduction_admission_is_exact_in_epsilon_squared():
    """A noise reduction is admitted iff spent + ε_max²/2 ≤ ρ* with the exact square: sqrt(2ρ) squares to just
    over 2ρ and is refused; the largest level that fits (largest_level) is admitted."""
    f = fl.PrivacyFilter.from_rho(0.5)
    assert F(math.sqrt(1.0)) ** 2 / 2 <= F(0.5) and f.can_start(epsilon_max=1.0)
    for rho in (0.3, 1e-7, 2.7):
        g = fl.PrivacyFilter.from_rho(rho)
        top = fl.largest_level(rho)
        assert g.can_start(epsilon_max=top) and not g.can_start(epsilon_max=math.nextafter(top, 9.0))
        assert g.can_start(epsilon_max=math.sqrt(2 * rho)) is (F(math.sqrt(2 * rho)) ** 2 / 2 <= F(rho))


# ---------------------------------------------------------------------------------------------------- ledger
def test_ledger_basic_enforcer_and_within_budget_verdict_exact():
    led = L.Ledger(0.3, 1e-4, "basic").try_add(L.pure_release(0.1, label="a"))
    with pytest.raises(L.BudgetExceeded):
        led.try_add(L.pure_release(0.2, label="b"))  # 0.1 + 0.2 > 0.3 as exact numbers
    basic = L.basic([L.pure_release(0.1, label="a"), L.pure_release(0.2, label="b")], 0.3, 1e-4)
    assert not basic.within and F(basic.epsilon) >= F(0.1) + F(0.2)
    ok = L.basic([L.pure_release(0.1, label="a"), L.pure_release(0.2, label="b")], 0.30000000000000004, 1e-4)
    assert ok.within  # the next float above 0.3 holds the exact sum
    many = [L.pure_release(0.1, label=str(i)) for i in range(10)]
    assert L.basic(many, 1.0, 1e-4).within is (10 * F(0.1) <= 1)


def test_ledger_filter_enforcer_exact_at_the_boundary():
    eps, delta = 2.0, 1e-6
    led = L.Ledger(eps, delta)
    flt, _ = L.filter_replay((), eps, delta)
    top = fl.largest_level(flt.rho_budget)
    full = led.try_add(L.pure_release(top, label="all of it"))
    assert L.filter_replay(full.releases, eps, delta)[0].rho_spent <= flt.rho_budget
    with pytest.raises(L.BudgetExceeded):
        led.try_add(L.pure_release(math.nextafter(math.nextafter(top, 9.0), 9.0), label="an ulp more"))
