"""Property tests (hypothesis) for dpcore.filters and the invariants of dpcore.noise_reduction it relies on.

Rogers et al. 2023: the filters of Thm 2, Lemma 5.2, Thm 3 and Thm 6 never let the spend exceed the budget, under
any adversarial sequence of mechanisms (a noise reduction whose largest level does not fit is refused before any
noise is drawn). Budget decisions are checked against exact rational arithmetic (``fractions.Fraction``): a release
that fits exactly is always accepted, and no accepted release overspends at all, not even by an ulp, for budgets
from 1e-6 to 1e3 and thousands of small releases (a noise reduction's charge ε²/2 is the exact square, rounded up).
Also: the zCDP conversions are monotone and inverse to each other,
a Brownian release is charged ε_T²/2 whatever its noise, the stopping rule equals its closed form, ψ is monotone.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import filters as fl
from dpcore import noise_reduction as nr

SETTINGS = settings(max_examples=60, deadline=None)
LONG = settings(max_examples=25, deadline=None)

eps_st = st.floats(0.01, 50.0)
delta_st = st.floats(1e-12, 0.5)
budget_st = st.floats(1e-6, 1e3)
REL = Fraction(0)  # the promise: accepted totals never exceed the budget, exactly

# one mechanism: ("zcdp", ρ, δ) or ("nr", ε_max, fraction of ε_max at which it stops)
mech_st = st.one_of(
    st.tuples(st.just("zcdp"), st.floats(0.0, 2.0), st.sampled_from([0.0, 0.0, 1e-7, 5e-7])),
    st.tuples(st.just("nr"), st.floats(1e-3, 2.5), st.floats(0.0, 1.0)),
)


def _half_square(e: float) -> Fraction:
    """The exact charge ε²/2 of a noise-reduction level (no rounding)."""
    return Fraction(e) ** 2 / 2


def _rounded_up(reported: float, exact: Fraction) -> bool:
    """``reported`` is the smallest float ≥ ``exact`` (a total reported rounded up, never too low)."""
    return Fraction(reported) >= exact and (
        Fraction(reported) == exact or Fraction(math.nextafter(reported, 0.0)) < exact
    )


def _check_decision(accepted: bool, spent: Fraction, charge: float | Fraction, budget: float) -> None:
    """Exact reference: whatever fits exactly is accepted; nothing accepted overspends at all."""
    excess = spent + Fraction(charge) - Fraction(budget)
    if excess <= 0:
        assert accepted, f"refused a charge that fits exactly (excess {float(excess):.3g})"
    if accepted:
        assert excess <= REL * Fraction(budget), f"accepted an overspend of {float(excess / Fraction(budget)):.3g}"


def _last_charge(f) -> float:
    return float(f.entries[-1]["charge"])


@SETTINGS
@given(
    eps=eps_st,
    delta=delta_st,
    variant=st.sampled_from(["corrected", "as_printed"]),
    dmech=st.sampled_from([0.0, 1e-6]),
    mechs=st.lists(mech_st, max_size=40),
)
def test_filter_never_exceeds_budget(eps, delta, variant, dmech, mechs):
    f = fl.PrivacyFilter(eps, delta, delta_mechanisms=dmech, variant=variant)
    budget = f.rho_budget
    spent, dspent = Fraction(0), Fraction(0)
    for kind, a, b in mechs:
        before = f.rho_spent
        if kind == "zcdp":
            ok = f.can_start(rho=a, delta=b)
            if b == 0 or dspent + Fraction(b) <= Fraction(dmech):  # the δ part fits: the ρ decision is exact
                _check_decision(ok, spent, a, budget)
            if ok and b:
                _check_decision(True, dspent, b, dmech)
            if ok:
                f.charge_zcdp(a, delta=b)
                assert _last_charge(f) == a
                spent += Fraction(a)
                dspent += Fraction(b)
            else:
                with pytest.raises(fl.BudgetExceeded):
                    f.charge_zcdp(a, delta=b)
                assert f.rho_spent == before
        else:
            ok = f.can_start(epsilon_max=a)
            _check_decision(ok, spent, _half_square(a), budget)
            if ok:
                f.start_noise_reduction(a)
                e_stop = max(a * b, 1e-9)
                f.charge_noise_reduction(e_stop)
                assert _rounded_up(_last_charge(f), _half_square(e_stop))  # only ε_T is charged: ε_T²/2, rounded up
                spent += _half_square(e_stop)  # the filter adds the exact ε_T²/2
            else:
                with pytest.raises(fl.BudgetExceeded):
                    f.start_noise_reduction(a)
                assert f.rho_spent == before and not f.noise_reduction_open
        assert spent <= Fraction(budget) * (1 + REL)
        assert dspent <= Fraction(dmech) * (1 + REL)
        assert _rounded_up(f.rho_spent, spent)  # reported: rounded up
        assert 0.0 <= f.remaining_rho <= budget
    led = f.ledger
    acc = led[led["status"] == "accepted"]
    assert math.fsum(acc["charge"]) == pytest.approx(f.rho_spent, rel=1e-15, abs=1e-300)
    assert (acc["charge"] >= 0).all()
    assert (led["spent"] <= budget).all()
    # a filter restored from its plain-dict form has the same state and keeps refusing
    g = fl.filter_from_dict(json.loads(json.dumps(f.to_dict())))
    assert g.rho_spent == f.rho_spent and g.remaining_rho == f.remaining_rho
    assert g.can_start(rho=g.remaining_rho + 1e-3 * max(1, budget)) is False


@LONG
@given(
    budget=budget_st,
    n=st.integers(1000, 3000),
    jitter=st.floats(0.0, 0.5),
    seed=st.integers(0, 2**32 - 1),
    over=st.floats(2e-15, 1e-9),
)
def test_thousands_of_small_releases_fill_the_budget_exactly(budget, n, jitter, seed, over):
    """Thousands of small zCDP charges: every one that fits is accepted, the total never overspends, the last bit of
    budget can be spent, and anything beyond it is refused."""
    gen = np.random.default_rng(seed)
    f = fl.PrivacyFilter.from_rho(budget, record=False)
    spent = Fraction(0)
    parts = budget / n * (1 + jitter * (gen.random(n) - 0.5))
    for x in parts:
        x = float(x)
        ok = f.can_start(rho=x)
        _check_decision(ok, spent, x, budget)
        if not ok:
            break
        f.charge_zcdp(x)
        spent += Fraction(x)
        assert _rounded_up(f.rho_spent, spent)
    # spend what is left (as the filter reports it), then try to go over by a relative `over`
    rest = f.remaining_rho
    if rest > 0:
        ok = f.can_start(rho=rest)
        _check_decision(ok, spent, rest, budget)
        assert ok
        f.charge_zcdp(rest)
        spent += Fraction(rest)
    assert spent <= Fraction(budget)
    assert Fraction(budget) - spent <= Fraction(math.ulp(budget))  # what is left is below one ulp of the budget
    assert not f.can_start(rho=budget * over)
    with pytest.raises(fl.BudgetExceeded):
        f.charge_zcdp(budget * over)


@LONG
@given(budget=budget_st, n=st.integers(1000, 3000), seed=st.integers(0, 2**32 - 1))
def test_thousands_of_noise_reductions_never_overspend(budget, n, seed):
    """Brownian noise reductions whose largest level uses what is left (or sqrt(2ρ), an ulp above it half the time):
    every decision exact, the exact total never above the budget."""
    gen = np.random.default_rng(seed)
    f = fl.PrivacyFilter.from_rho(budget)
    spent = Fraction(0)
    for i in range(n):
        left = min(f.remaining_rho, budget / n * 3)
        e_max = fl.largest_level(left) if i % 2 else math.sqrt(2 * left)  # sqrt(2ρ)²/2 may exceed ρ by an ulp
        if e_max == 0:
            break
        ok = f.can_start(epsilon_max=e_max)
        if e_max >= 2.0**-480:  # below, ε²/2 needs bits under the smallest float: charged a float above it (sound)
            _check_decision(ok, spent, _half_square(e_max), budget)
        elif ok:
            assert spent + _half_square(e_max) <= Fraction(budget)
        if not ok:
            continue
        f.start_noise_reduction(e_max)
        e_stop = min(e_max * float(gen.uniform(0.5, 1.0)), e_max)
        f.charge_noise_reduction(e_stop)
        assert _rounded_up(_last_charge(f), _half_square(e_stop))  # charged ε_T²/2, rounded up
        spent += _half_square(e_stop)  # the filter adds the exact ε_T²/2
        assert spent <= Fraction(budget)
    assert Fraction(f.rho_spent) >= spent


@LONG
@given(budget=budget_st, n=st.integers(1000, 3000), seed=st.integers(0, 2**32 - 1))
def test_expost_and_concurrent_filters_never_overspend(budget, n, seed):
    gen = np.random.default_rng(seed)
    c = fl.ConcurrentFilter(1.0, 1e-6, budget, delta_expost=1e-6)
    f = c.expost
    spent, dspent = Fraction(0), Fraction(0)
    parts = budget / n * gen.uniform(0.5, 1.5, n)
    for x in parts:
        x = float(x)
        d = 1e-6 / n * 1.5
        ok = f.can_start(epsilon_max=x, delta=d)
        if dspent + Fraction(d) <= Fraction(1e-6):
            _check_decision(ok, spent, x, budget)
        if not ok:
            with pytest.raises(fl.BudgetExceeded):
                f.start(x, delta=d)
            continue
        f.start(x, delta=d)
        f.charge(x)
        spent += Fraction(x)
        dspent += Fraction(d)
        assert spent <= Fraction(budget) and dspent <= Fraction(1e-6)
    assert c.guarantee[0] == pytest.approx(1.0 + budget)


@pytest.mark.parametrize("budget", [1e-6, 1e-3, 1.0, 1e3])
def test_overspend_by_a_relative_1e_13_is_refused_at_every_budget_scale(budget):
    """The old absolute slack of 1e-12 let a 1e-6 budget be overspent by a relative 5e-7; now nothing above
    a relative 1e-15 passes, for ρ, for the δ of approximate-zCDP mechanisms and for ex-post ε."""
    over = budget * (1 + 1e-13)
    f = fl.PrivacyFilter.from_rho(budget)
    assert not f.can_start(rho=over)
    with pytest.raises(fl.BudgetExceeded):
        f.charge_zcdp(over)
    assert not f.can_start(epsilon_max=math.sqrt(2 * over))
    f.charge_zcdp(budget)  # exactly the budget fits
    assert f.remaining_rho == 0.0 and f.exhausted()
    g = fl.PrivacyFilter(1.0, 1e-6, delta_mechanisms=budget * 1e-6)
    with pytest.raises(fl.BudgetExceeded):
        g.charge_zcdp(0.0, delta=budget * 1e-6 * (1 + 1e-13))
    g.charge_zcdp(0.0, delta=budget * 1e-6)
    e = fl.ExPostFilter(budget)
    assert not e.can_start(epsilon_max=over)
    e.start(budget)
    e.charge(budget)
    assert e.remaining_epsilon == 0.0


@SETTINGS
@given(
    eps=st.floats(0.05, 5.0),
    seed=st.integers(0, 2**32 - 1),
    ys=st.lists(st.floats(1, 300), min_size=1, max_size=8),
)
def test_filter_with_real_noise_reductions(eps, seed, ys):
    """Drive the unified filter with actual Brownian releases whose grids use the whole remainder."""
    gen = np.random.default_rng(seed)
    f = fl.PrivacyFilter(eps, 1e-6)
    for y in ys:
        if f.exhausted(1e-6):
            assert not f.can_start(epsilon_max=math.sqrt(2 * 1e-6) * 1.01)
            break
        e_max = f.remaining_epsilon_max  # the largest level whose ε²/2 fits exactly
        assert _half_square(e_max) <= Fraction(f.remaining_rho) < _half_square(math.nextafter(e_max, math.inf))
        s_max = e_max * e_max
        grid = np.sqrt(np.linspace(min(1e-4, s_max / 2), s_max, 50))
        grid[-1] = min(grid[-1], e_max)
        f.start_noise_reduction(grid[-1])
        r = nr.release_with_stopping(y, epsilons=grid, alpha=0.1, rng=gen)
        assert r.charge == pytest.approx(r.epsilon_stop**2 / 2)
        f.charge_noise_reduction(r.epsilon_stop)
        assert f.rho_spent <= f.rho_budget
        if not r.accepted:  # a failed run stops at its last level, which used up the remaining budget
            assert f.remaining_rho <= 1e-15 * f.rho_budget


@SETTINGS
@given(
    eps=st.floats(0.01, 10.0),
    delta=st.floats(0.0, 0.1),
    mechs=st.lists(st.tuples(st.floats(0.0, 3.0), st.floats(0.0, 1.0), st.sampled_from([0.0, 0.01])), max_size=30),
)
def test_expost_filter_never_exceeds_budget(eps, delta, mechs):
    f = fl.ExPostFilter(eps, delta)
    spent, dspent = Fraction(0), Fraction(0)
    for e_max, frac, d in mechs:
        ok = f.can_start(epsilon_max=e_max, delta=d)
        if dspent + Fraction(d) <= Fraction(delta):
            _check_decision(ok, spent, e_max, eps)
        if ok:
            f.start(e_max, delta=d)
            f.charge(e_max * frac)
            spent += Fraction(f.entries[-1]["charge"])
            dspent += Fraction(d)
        else:
            with pytest.raises(fl.BudgetExceeded):
                f.start(e_max, delta=d)
        assert spent <= Fraction(eps) * (1 + REL)
        assert dspent <= Fraction(delta) * (1 + REL)


@SETTINGS
@given(eps=st.floats(1e-3, 100.0), delta=delta_st, factor=st.floats(1.01, 3.0))
def test_conversions_monotone_and_inverse(eps, delta, factor):
    for var in ("corrected", "as_printed"):
        r = fl.rho_budget(eps, delta, variant=var)
        assert fl.zcdp_epsilon(r, delta, variant=var) == pytest.approx(eps, rel=1e-9)
        assert fl.rho_budget(eps * factor, delta, variant=var) > r  # increasing in ε
        assert fl.rho_budget(eps, min(delta * factor, 0.99), variant=var) >= r  # increasing in δ''
        assert fl.zcdp_epsilon(r * factor, delta, variant=var) > eps  # increasing in ρ
        assert fl.zcdp_epsilon(r, delta / factor, variant=var) > eps * (1 - 1e-12)  # decreasing in δ''
    assert fl.rho_budget(eps, delta, variant="as_printed") < fl.rho_budget(eps, delta)  # printed constant: looser


@SETTINGS
@given(v=st.floats(0.0, 1e3), g=st.floats(1e-4, 10.0), d=st.floats(1e-12, 0.5), k=st.floats(1.01, 2.0))
def test_psi_monotone(v, g, d, k):
    p = nr.psi(v, gamma=g, delta=d)
    assert nr.psi(v * k + 1e-9, gamma=g, delta=d) > p
    assert nr.psi(v, gamma=g, delta=min(d * k, 0.99)) < p
    assert nr.brownian_expost_bound(v, gamma=g, delta=d) >= nr.brownian_expost_bound(
        v, gamma=g, delta=d, variant="as_printed"
    )


@SETTINGS
@given(y=st.floats(-1e4, 1e4), eps=st.floats(1e-3, 1e2), alpha=st.floats(0.005, 0.9))
def test_stop_rule_closed_form(y, eps, alpha):
    got = nr.relative_error_stop(y, eps, alpha=alpha)
    sig = 1 / eps
    ye = y * eps
    pos, neg = (2 + alpha) / alpha, (2 - alpha) / alpha
    # avoid float ties at the boundaries
    for edge in (1.0, pos, -1.0, -neg):
        if abs(ye - edge) <= 1e-9 * max(1.0, abs(edge)):
            return
    if y > sig:
        want = ye >= pos
    elif y < -sig:
        want = -ye > neg
    else:
        want = False
    assert got == want


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 60), y=st.floats(1.0, 500.0))
def test_charge_depends_only_on_stopping_level(seed, k, y):
    eps = np.sqrt(np.linspace(1e-3, 1.0, k))
    r = nr.release_with_stopping(y, epsilons=eps, alpha=0.1, rng=seed)
    assert r.charge == pytest.approx(eps[r.index] ** 2 / 2)
    assert r.charge <= r.charge_max
    lap = nr.release_with_stopping(y, epsilons=eps, alpha=0.1, mechanism="laplace", rng=seed)
    assert lap.charge == eps[lap.index] and abs(lap.loss) <= lap.charge + 1e-12  # Lemma A.1: |ℒ| ≤ ε_T


@SETTINGS
@given(
    grid=st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=30, unique=True),
    seed=st.integers(0, 2**32 - 1),
)
def test_paths_accept_any_increasing_grid(grid, seed):
    g = np.sort(np.asarray(grid))
    if g.size > 1 and np.min(np.diff(g)) <= 0:
        return
    for fn in (nr.brownian_path, nr.laplace_path):
        out = fn(g, n_paths=2, rng=seed)
        assert out.shape == (2, g.size) and np.all(np.isfinite(out))
    out = nr.laplace_path(g, n_paths=2, method="reverse", rng=seed)
    assert np.all(np.isfinite(out))


@SETTINGS
@given(
    eps=st.floats(0.05, 5.0),
    seed=st.integers(0, 2**32 - 1),
    plans=st.lists(st.tuples(st.floats(1.0, 300.0), st.floats(0.01, 3.0)), min_size=1, max_size=10),
)
def test_expost_filter_with_laplace_noise_reduction_bounds_realised_loss(eps, seed, plans):
    """Lemma 5.2 + Lemma A.1: Laplace noise reductions admitted by the ex-post filter (ℰ = ε_T, δ = 0) have a total
    realised loss ≤ ε on every sample, against any neighbour within sensitivity 1."""
    gen = np.random.default_rng(seed)
    f = fl.ExPostFilter(eps)
    total = 0.0
    for y, e_max in plans:
        if not f.can_start(epsilon_max=e_max):
            continue
        f.start(e_max)
        grid = np.linspace(e_max / 20, e_max, 20)
        r = nr.release_with_stopping(
            y, epsilons=grid, alpha=0.1, mechanism="laplace", neighbour=y + gen.uniform(-1, 1), rng=gen
        )
        f.charge(r.charge)
        total += r.loss
        assert total <= f.epsilon_spent + 1e-9
    assert total <= eps * (1 + 1e-12) + 1e-9
