"""Unit tests for dpcore.filters (Rogers et al. 2023: Thm 2, Lemma 5.2, Thm 3, Lemma 6.2, Thm 6)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq

from dpcore import filters as fl


def _rho_by_root(eps, delta, c=1.0):
    """Independent inverse of ρ + 2√(cρ ln(1/δ)) = ε by bracketing root-finding."""
    lg = math.log(1 / delta)
    return brentq(lambda r: r + 2 * math.sqrt(c * r * lg) - eps, 0.0, eps, xtol=1e-15, rtol=1e-14)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-5), (1.0, 1e-6), (10.0, 1e-6), (50.0, 0.3)])
def test_rho_budget_is_root_of_conversion(eps, delta):
    assert fl.rho_budget(eps, delta) == pytest.approx(_rho_by_root(eps, delta), rel=1e-10)
    printed = fl.rho_budget(eps, delta, variant="as_printed")
    assert printed == pytest.approx(_rho_by_root(eps, delta, 2.0), rel=1e-10)
    assert fl.zcdp_epsilon(fl.rho_budget(eps, delta), delta) == pytest.approx(eps, rel=1e-12)
    r = fl.rho_budget(eps, delta, variant="as_printed")
    assert fl.zcdp_epsilon(r, delta, variant="as_printed") == pytest.approx(eps, rel=1e-12)


def test_rho_budget_vectorised_and_variants_differ():
    eps = np.array([0.5, 1.0, 10.0])
    out = fl.rho_budget(eps, 1e-6)
    assert out.shape == (3,)
    np.testing.assert_allclose(out, [_rho_by_root(e, 1e-6) for e in eps], rtol=1e-10)
    out2 = fl.rho_budget(10.0, np.array([1e-6, 1e-3]))
    np.testing.assert_allclose(out2, [_rho_by_root(10, 1e-6), _rho_by_root(10, 1e-3)], rtol=1e-10)
    # the printed Thm 6 constant gives a strictly smaller budget
    assert np.all(fl.rho_budget(eps, 1e-6, variant="as_printed") < out)
    assert fl.rho_budget(0.0, 1e-6) == 0.0


def test_conversion_bad_inputs():
    for bad in (0.0, 1.0, -0.1, 2.0):
        with pytest.raises(ValueError, match="delta"):
            fl.rho_budget(1.0, bad)
        with pytest.raises(ValueError, match="delta"):
            fl.zcdp_epsilon(1.0, bad)
    with pytest.raises(ValueError, match="epsilon"):
        fl.rho_budget(-1.0, 1e-6)
    with pytest.raises(ValueError, match="rho"):
        fl.zcdp_epsilon(-1.0, 1e-6)
    with pytest.raises(ValueError, match="variant"):
        fl.rho_budget(1.0, 1e-6, variant="paper")


def test_filter_construction_and_bad_inputs():
    f = fl.PrivacyFilter(10, 1e-6)
    assert f.rho_budget == pytest.approx(_rho_by_root(10, 1e-6), rel=1e-12)
    assert f.remaining_rho == f.rho_budget
    assert f.guarantee == (10.0, 1e-6)
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="epsilon"):
            fl.PrivacyFilter(bad, 1e-6)
    for bad in (0.0, 1.0, 1.5, -1e-3):
        with pytest.raises(ValueError, match="delta"):
            fl.PrivacyFilter(1.0, bad)
    with pytest.raises(ValueError, match="variant"):
        fl.PrivacyFilter(1.0, 1e-6, variant="tight")
    assert fl.PrivacyFilter(10, 1e-6, variant="as_printed").rho_budget == pytest.approx(0.770693, abs=1e-6)


def test_budget_exceeded_is_value_error():
    assert issubclass(fl.BudgetExceeded, ValueError)


def test_zcdp_charges_and_refusal():
    f = fl.PrivacyFilter.from_rho(1.0)
    assert f.rho_budget == 1.0
    assert f.can_start(rho=0.6)
    f.charge_zcdp(0.6, label="gauss 1")
    assert f.remaining_rho == pytest.approx(0.4)
    assert not f.can_start(rho=0.5)
    with pytest.raises(fl.BudgetExceeded, match="rho"):
        f.charge_zcdp(0.5)
    assert f.rho_spent == pytest.approx(0.6)  # refusal charges nothing
    f.charge_zcdp(0.4)  # exact fit is accepted
    assert f.exhausted()
    assert f.remaining_rho == 0.0
    led = f.ledger
    assert list(led["status"]) == ["accepted", "refused", "accepted"]
    assert list(led["label"])[0] == "gauss 1"
    assert led["spent"].iloc[-1] == pytest.approx(1.0)
    assert led["remaining"].iloc[-1] == pytest.approx(0.0)


def test_zcdp_delta_budget():
    f = fl.PrivacyFilter(1.0, 1e-6, delta_mechanisms=1e-5)
    f.charge_zcdp(0.001, delta=6e-6)
    assert not f.can_start(rho=0.001, delta=6e-6)
    with pytest.raises(fl.BudgetExceeded):
        f.charge_zcdp(0.001, delta=6e-6)
    f.charge_zcdp(0.001, delta=4e-6)
    assert f.guarantee == (1.0, pytest.approx(1.1e-5))


def test_noise_reduction_flow():
    f = fl.PrivacyFilter.from_rho(1.0)
    # the float sqrt(2) squares to 2.0000000000000004: its exact ε_max²/2 is over 1 and refused; the level below fits
    assert not f.can_start(epsilon_max=math.sqrt(2.0))
    top = f.remaining_epsilon_max
    assert top == math.nextafter(math.sqrt(2.0), 0.0) and Fraction(top) ** 2 / 2 <= 1
    assert f.can_start(epsilon_max=top)
    assert not f.can_start(epsilon_max=1.5)
    with pytest.raises(fl.BudgetExceeded, match="epsilon_max"):
        f.start_noise_reduction(1.5)
    f.start_noise_reduction(1.0, label="count A")
    assert f.noise_reduction_open
    assert not f.can_start(rho=0.01)  # sequential: one mechanism at a time
    with pytest.raises(ValueError, match="rho"):
        f.charge_zcdp(0.01)
    with pytest.raises(ValueError, match="epsilon_stop"):
        f.charge_noise_reduction(1.1)
    rem = f.charge_noise_reduction(0.6)
    assert rem == pytest.approx(1 - 0.18)  # charged ε_T²/2 only
    assert not f.noise_reduction_open
    # one-call form: the grid maximum defaults to the stopping level
    f.charge_noise_reduction(0.2)
    assert f.rho_spent == pytest.approx(0.18 + 0.02)
    with pytest.raises(fl.BudgetExceeded):
        f.charge_noise_reduction(0.1, epsilon_max=2.0)  # grid max would not fit
    with pytest.raises(ValueError, match="epsilon_stop"):
        f.charge_noise_reduction(0.5, epsilon_max=0.4)
    led = f.ledger
    acc = led[led["status"] == "accepted"]
    np.testing.assert_allclose(acc["charge"], [0.18, 0.02])
    assert acc["label"].iloc[0] == "count A"
    assert set(led["mechanism"]) == {"noise_reduction"}


def test_can_start_argument_errors():
    f = fl.PrivacyFilter(1.0, 1e-6)
    with pytest.raises(ValueError, match="rho"):
        f.can_start()
    with pytest.raises(ValueError, match="rho"):
        f.can_start(rho=0.1, epsilon_max=0.1)
    with pytest.raises(ValueError, match="rho"):
        f.can_start(rho=-0.1)
    with pytest.raises(ValueError, match="epsilon_max"):
        f.can_start(epsilon_max=0.0)
    with pytest.raises(ValueError, match="delta"):
        f.can_start(rho=0.1, delta=2.0)
    with pytest.raises(ValueError, match="epsilon_stop"):
        f.charge_noise_reduction(-1.0)


def test_zcdp_filter_refuses_noise_reduction():
    f = fl.ZCDPFilter(10, 1e-6)
    f.charge_zcdp(0.1)
    with pytest.raises(ValueError, match="epsilon_max"):
        f.start_noise_reduction(0.1)
    with pytest.raises(ValueError, match="epsilon_max"):
        f.can_start(epsilon_max=0.1)
    with pytest.raises(ValueError, match="epsilon_stop"):
        f.charge_noise_reduction(0.1)


def test_spent_epsilon_tracks_conversion():
    f = fl.PrivacyFilter(10, 1e-6)
    assert f.spent_epsilon == 0.0
    f.charge_zcdp(f.rho_budget)
    assert f.spent_epsilon == pytest.approx(10.0, rel=1e-12)


def test_ledger_roundtrip_through_json():
    f = fl.PrivacyFilter(2.0, 1e-5, delta_mechanisms=1e-6)
    f.charge_zcdp(0.01, delta=1e-7, label="g")
    f.start_noise_reduction(0.2, label="nr")
    d = json.loads(json.dumps(f.to_dict()))
    g = fl.filter_from_dict(d)
    assert isinstance(g, fl.PrivacyFilter)
    assert g.rho_spent == f.rho_spent and g.rho_budget == f.rho_budget
    assert g.noise_reduction_open
    g.charge_noise_reduction(0.1)
    pd.testing.assert_frame_equal(g.ledger.iloc[:2], f.ledger)
    h = fl.filter_from_dict(json.loads(json.dumps(fl.ZCDPFilter(1.0, 1e-6).to_dict())))
    assert isinstance(h, fl.ZCDPFilter)


def test_from_dict_rejects_tampering():
    f = fl.PrivacyFilter(1.0, 1e-6)
    f.charge_zcdp(0.01)
    d = f.to_dict()
    d["rho_spent"] = 0.0
    with pytest.raises(ValueError, match="rho_spent"):
        fl.PrivacyFilter.from_dict(d)
    d = fl.PrivacyFilter(1.0, 1e-6).to_dict()
    d["rho_spent"] = 1.0
    with pytest.raises(ValueError, match="rho_spent"):
        fl.PrivacyFilter.from_dict(d)
    with pytest.raises(ValueError, match="type"):
        fl.filter_from_dict({"type": "Nope"})
    with pytest.raises(ValueError, match="data"):
        fl.filter_from_dict([])


def test_record_false_keeps_totals_only():
    f = fl.PrivacyFilter(1.0, 1e-6, record=False)
    f.charge_zcdp(0.001)
    assert f.ledger.empty and f.rho_spent == pytest.approx(0.001)


def test_expost_filter():
    f = fl.ExPostFilter(1.0, 0.01)
    assert f.can_start(epsilon_max=0.7)
    f.start(0.7, delta=0.004, label="lnr")
    with pytest.raises(ValueError, match="epsilon_stop"):
        f.charge(0.8)
    f.charge(0.3)  # realised ℰ = ε_T
    assert f.remaining_epsilon == pytest.approx(0.7)
    # Lemma 5.2 with the admission rule its proof needs: the worst case of the next mechanism must fit, not just the
    # past
    assert not f.can_start(epsilon_max=0.71)
    with pytest.raises(fl.BudgetExceeded):
        f.start(0.71)
    assert not f.can_start(epsilon_max=0.1, delta=0.007)
    f.start(0.7)
    f.charge(0.7)
    # the running total is exact: 1 − 0.3 − 0.7 in binary is 2⁻⁵⁴, not the 0 that float rounding gives
    assert f.remaining_epsilon == float(Fraction(1) - Fraction(0.3) - Fraction(0.7)) == 2.0**-54
    g = fl.filter_from_dict(json.loads(json.dumps(f.to_dict())))
    assert isinstance(g, fl.ExPostFilter) and g.epsilon_spent == pytest.approx(1.0)
    assert list(g.ledger["status"]) == ["started", "accepted", "refused", "started", "accepted"]
    with pytest.raises(ValueError, match="epsilon"):
        fl.ExPostFilter(0.0)
    with pytest.raises(ValueError, match="delta"):
        fl.ExPostFilter(1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon_stop"):
        fl.ExPostFilter(1.0).charge(0.1)


def test_concurrent_filter():
    f = fl.ConcurrentFilter(1.0, 1e-6, 0.5, delta_expost=1e-3)
    assert f.guarantee == (1.5, pytest.approx(1e-6 + 1e-3))
    f.zcdp.charge_zcdp(0.01, label="gauss")
    f.expost.start(0.3, label="lnr")
    f.expost.charge(0.2)
    with pytest.raises(fl.BudgetExceeded):
        f.expost.start(0.31)  # each part keeps its own budget
    with pytest.raises(ValueError, match="epsilon_max"):
        f.zcdp.start_noise_reduction(0.1)  # noise reductions are not zCDP rounds of Thm 3
    led = f.ledger
    assert set(led["part"]) == {"zcdp", "ex_post"}
    g = fl.filter_from_dict(json.loads(json.dumps(f.to_dict())))
    assert isinstance(g, fl.ConcurrentFilter)
    assert g.expost.epsilon_spent == pytest.approx(0.2) and g.zcdp.rho_spent == pytest.approx(0.01)
    with pytest.raises(ValueError, match="data"):
        fl.ConcurrentFilter.from_dict({"type": "ConcurrentFilter"})


def test_run_noise_reduction_admits_runs_and_charges():
    f = fl.PrivacyFilter.from_rho(0.5)
    grid = np.sqrt(np.linspace(1e-4, 0.5, 300))
    res = f.run_noise_reduction(80.0, epsilons=grid, alpha=0.1, label="count", rng=3)
    assert f.rho_spent == pytest.approx(res.epsilon_stop**2 / 2)
    assert f.ledger["status"].tolist() == ["started", "accepted"]
    # a grid that does not fit is refused before any noise is drawn: the generator is untouched
    gen = np.random.default_rng(5)
    with pytest.raises(fl.BudgetExceeded):
        f.run_noise_reduction(80.0, epsilons=[0.1, 1.0, 2.0], alpha=0.1, rng=gen)
    assert gen.random() == np.random.default_rng(5).random()
    assert not f.noise_reduction_open
    with pytest.raises(ValueError, match="alpha"):
        f.run_noise_reduction(80.0, epsilons=[0.1, 0.2], alpha=0.0)
    assert not f.noise_reduction_open and f.ledger["status"].iloc[-1] == "withdrawn"
    with pytest.raises(ValueError, match="epsilons"):
        f.run_noise_reduction(80.0, epsilons=[0.2, 0.1], alpha=0.1)


def test_from_dict_rejects_delta_overspend():
    d = fl.PrivacyFilter(1.0, 1e-6, delta_mechanisms=1e-6).to_dict()
    d["delta_spent"] = 1e-3
    with pytest.raises(ValueError, match="delta_spent"):
        fl.PrivacyFilter.from_dict(d)
