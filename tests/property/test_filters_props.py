"""Property tests (hypothesis) for dpcore.filters and the invariants of dpcore.noise_reduction it relies on.

Spec noise_reduction.md §5.2: M1 (conversions monotone and inverse), M2 (the filter never exceeds its
budget under any adversarial mechanism sequence; a noise reduction whose grid maximum does not fit is
refused before any noise is drawn), M3 (Brownian charge = ε_T²/2, independent of the noise), M6
(stopping rule = closed form), M10 (ψ monotone).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import filters as fl
from dpcore import noise_reduction as nr

SETTINGS = settings(max_examples=60, deadline=None)

eps_st = st.floats(0.01, 50.0)
delta_st = st.floats(1e-12, 0.5)

# one mechanism: ("zcdp", ρ, δ) or ("nr", ε_max, fraction of ε_max at which it stops)
mech_st = st.one_of(
    st.tuples(st.just("zcdp"), st.floats(0.0, 2.0), st.sampled_from([0.0, 0.0, 1e-7, 5e-7])),
    st.tuples(st.just("nr"), st.floats(1e-3, 2.5), st.floats(0.0, 1.0)),
)


@SETTINGS
@given(eps=eps_st, delta=delta_st, variant=st.sampled_from(["corrected", "as_printed"]),
       dmech=st.sampled_from([0.0, 1e-6]), mechs=st.lists(mech_st, max_size=40))
def test_M2_filter_never_exceeds_budget(eps, delta, variant, dmech, mechs):
    f = fl.PrivacyFilter(eps, delta, delta_mechanisms=dmech, variant=variant)
    budget = f.rho_budget
    slack = f.tol * max(1.0, budget)
    for kind, a, b in mechs:
        before = f.rho_spent
        if kind == "zcdp":
            fits = before + a <= budget + slack and f.delta_spent + b <= dmech + f.tol
            assert f.can_start(rho=a, delta=b) == fits
            if fits:
                f.charge_zcdp(a, delta=b)
                assert f.rho_spent == pytest.approx(before + a)
            else:
                with pytest.raises(fl.BudgetExceeded):
                    f.charge_zcdp(a, delta=b)
                assert f.rho_spent == before
        else:
            fits = before + a * a / 2 <= budget + slack
            assert f.can_start(epsilon_max=a) == fits
            if fits:
                f.start_noise_reduction(a)
                e_stop = max(a * b, 1e-9)
                f.charge_noise_reduction(e_stop)
                assert f.rho_spent == pytest.approx(before + e_stop**2 / 2)  # M3: only ε_T is charged
            else:
                with pytest.raises(fl.BudgetExceeded):
                    f.start_noise_reduction(a)
                assert f.rho_spent == before and not f.noise_reduction_open
        assert f.rho_spent <= budget + slack
        assert f.delta_spent <= dmech + f.tol
        assert 0.0 <= f.remaining_rho <= budget
    led = f.ledger
    acc = led[led["status"] == "accepted"]
    assert acc["charge"].sum() == pytest.approx(f.rho_spent, abs=1e-12)
    assert (acc["charge"] >= 0).all()
    assert (led["spent"] <= budget + slack).all()
    # a filter restored from its plain-dict form has the same state and keeps refusing
    g = fl.filter_from_dict(json.loads(json.dumps(f.to_dict())))
    assert g.rho_spent == f.rho_spent and g.remaining_rho == f.remaining_rho
    assert g.can_start(rho=g.remaining_rho + 1e-3 * max(1, budget)) is False


@SETTINGS
@given(
    eps=st.floats(0.05, 5.0),
    seed=st.integers(0, 2**32 - 1),
    ys=st.lists(st.floats(1, 300), min_size=1, max_size=8),
)
def test_M2_filter_with_real_noise_reductions(eps, seed, ys):
    """Drive the unified filter with actual Brownian releases whose grids use the whole remainder."""
    gen = np.random.default_rng(seed)
    f = fl.PrivacyFilter(eps, 1e-6)
    for y in ys:
        if f.exhausted(1e-6):
            assert not f.can_start(epsilon_max=math.sqrt(2 * 1e-6) * 1.01)
            break
        s_max = 2 * f.remaining_rho
        grid = np.sqrt(np.linspace(min(1e-4, s_max / 2), s_max, 50))
        f.start_noise_reduction(grid[-1])
        r = nr.release_with_stopping(y, epsilons=grid, alpha=0.1, rng=gen)
        assert r.charge == pytest.approx(r.epsilon_stop**2 / 2)
        f.charge_noise_reduction(r.epsilon_stop)
        assert f.rho_spent <= f.rho_budget * (1 + 1e-12)
        if not r.accepted:  # a failed run uses up the remaining budget (spec §3.9)
            assert f.remaining_rho <= 1e-12 * max(1, f.rho_budget)


@SETTINGS
@given(eps=st.floats(0.01, 10.0), delta=st.floats(0.0, 0.1),
       mechs=st.lists(
           st.tuples(st.floats(0.0, 3.0), st.floats(0.0, 1.0), st.sampled_from([0.0, 0.01])), max_size=30
       ))
def test_M2_expost_filter_never_exceeds_budget(eps, delta, mechs):
    f = fl.ExPostFilter(eps, delta)
    for e_max, frac, d in mechs:
        fits = f.epsilon_spent + e_max <= eps + f.tol * max(1.0, eps) and f.delta_spent + d <= delta + f.tol
        assert f.can_start(epsilon_max=e_max, delta=d) == fits
        if fits:
            f.start(e_max, delta=d)
            f.charge(e_max * frac)
        else:
            with pytest.raises(fl.BudgetExceeded):
                f.start(e_max, delta=d)
        assert f.epsilon_spent <= eps * (1 + 1e-12)
        assert f.delta_spent <= delta + f.tol


@SETTINGS
@given(eps=st.floats(1e-3, 100.0), delta=delta_st, factor=st.floats(1.01, 3.0))
def test_M1_conversions_monotone_and_inverse(eps, delta, factor):
    for var in ("corrected", "as_printed"):
        r = fl.rho_budget(eps, delta, variant=var)
        assert fl.zcdp_epsilon(r, delta, variant=var) == pytest.approx(eps, rel=1e-9)
        assert fl.rho_budget(eps * factor, delta, variant=var) > r  # increasing in ε
        assert fl.rho_budget(eps, min(delta * factor, 0.99), variant=var) >= r  # increasing in δ''
        assert fl.zcdp_epsilon(r * factor, delta, variant=var) > eps  # increasing in ρ
        assert fl.zcdp_epsilon(r, delta / factor, variant=var) > eps * (1 - 1e-12)  # decreasing in δ''
    assert fl.rho_budget(eps, delta, variant="as_printed") < fl.rho_budget(eps, delta)  # E1


@SETTINGS
@given(v=st.floats(0.0, 1e3), g=st.floats(1e-4, 10.0), d=st.floats(1e-12, 0.5), k=st.floats(1.01, 2.0))
def test_M10_psi_monotone(v, g, d, k):
    p = nr.psi(v, gamma=g, delta=d)
    assert nr.psi(v * k + 1e-9, gamma=g, delta=d) > p
    assert nr.psi(v, gamma=g, delta=min(d * k, 0.99)) < p
    assert nr.brownian_expost_bound(v, gamma=g, delta=d) >= nr.brownian_expost_bound(
        v, gamma=g, delta=d, variant="as_printed"
    )


@SETTINGS
@given(y=st.floats(-1e4, 1e4), eps=st.floats(1e-3, 1e2), alpha=st.floats(0.005, 0.9))
def test_M6_stop_rule_closed_form(y, eps, alpha):
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
def test_M3_charge_depends_only_on_stopping_level(seed, k, y):
    eps = np.sqrt(np.linspace(1e-3, 1.0, k))
    r = nr.release_with_stopping(y, epsilons=eps, alpha=0.1, rng=seed)
    assert r.charge == pytest.approx(eps[r.index] ** 2 / 2)
    assert r.charge <= r.charge_max
    lap = nr.release_with_stopping(y, epsilons=eps, alpha=0.1, mechanism="laplace", rng=seed)
    assert lap.charge == eps[lap.index] and abs(lap.loss) <= lap.charge + 1e-12  # M9


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
@given(eps=st.floats(0.05, 5.0), seed=st.integers(0, 2**32 - 1),
       plans=st.lists(st.tuples(st.floats(1.0, 300.0), st.floats(0.01, 3.0)), min_size=1, max_size=10))
def test_expost_filter_with_laplace_noise_reduction_bounds_realised_loss(eps, seed, plans):
    """Lemma 5.2 + Lemma A.1 (E18): LNRs admitted by the ex-post filter (ℰ = ε_T, δ = 0) have a total
    realised loss ≤ ε on every sample, against any neighbour within sensitivity 1."""
    gen = np.random.default_rng(seed)
    f = fl.ExPostFilter(eps)
    total = 0.0
    for y, e_max in plans:
        if not f.can_start(epsilon_max=e_max):
            continue
        f.start(e_max)
        grid = np.linspace(e_max / 20, e_max, 20)
        r = nr.release_with_stopping(y, epsilons=grid, alpha=0.1, mechanism="laplace",
                                     neighbour=y + gen.uniform(-1, 1), rng=gen)
        f.charge(r.charge)
        total += r.loss
        assert total <= f.epsilon_spent + 1e-9
    assert total <= eps * (1 + 1e-12) + 1e-9
