"""Properties of the privacy ledger (hypothesis): the accountants' order, never over budget, round trips, and hostile
files or arguments give ValueError only."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcore import ledger as L
from dpcore.filters import BudgetExceeded

H = 1e-3  # the PLD grid: pessimistic rounding adds at most one step per composed release
labels = st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs", "P", "S")), min_size=1, max_size=20).filter(
    lambda s: s.strip() and not s.strip().startswith(("=", "+", "-", "@"))
)
small_t = st.integers(1, 20)

pure_like = st.one_of(
    st.builds(lambda e, t, lab: L.pure_release(e, compositions=t, label=lab), st.floats(0.01, 2.0), small_t, labels),
    st.builds(
        lambda b, d, t, lab: L.laplace_release(b, sensitivity=d, compositions=t, label=lab),
        st.floats(0.5, 50.0),
        st.floats(0.1, 2.0),
        small_t,
        labels,
    ),
)
any_release = st.one_of(
    pure_like,
    st.builds(lambda s, t: L.gaussian_release(s, delta=1e-7, compositions=t, label="g"), st.floats(0.5, 50.0), small_t),
    st.builds(lambda e, d: L.approx_release(e, d, label="a"), st.floats(0.01, 2.0), st.floats(1e-9, 1e-7)),
    st.builds(
        lambda f, m: L.noise_reduction_release(f * m, epsilon_max=m, label="nr"),
        st.floats(0.01, 1.0),
        st.floats(0.05, 3.0),
    ),
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(rel=st.lists(pure_like, min_size=1, max_size=5), delta=st.sampled_from([1e-3, 1e-6, 1e-9]))
def test_pld_below_basic_and_zcdp_for_pure_releases(rel, delta):
    res = {r.name: r.epsilon for r in L.accountants(rel, 1e3, delta)}
    k = sum(r.compositions for r in rel)
    assert res["pld"] <= res["basic"] + k * H + 1e-9
    assert res["pld"] <= res["zcdp"] + k * H + 1e-9
    assert res["advanced"] <= res["basic"] + 1e-12


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rel=st.lists(any_release, min_size=1, max_size=8),
    eps=st.floats(0.5, 8.0),
    delta=st.sampled_from([1e-5, 1e-6]),
    enforce=st.sampled_from(L.ENFORCERS),
)
def test_ledger_never_accepts_beyond_the_budget(rel, eps, delta, enforce):
    led = L.Ledger(eps, delta, enforce)
    for r in rel:
        try:
            led = led.try_add(r)
        except BudgetExceeded as exc:
            assert "left" in str(exc)
    if enforce == "basic":  # Σ T·ε ≤ ε and Σ T·δ ≤ δ, by hand
        assert sum(r.compositions * r.dp_epsilon for r in led.releases) <= eps * (1 + 1e-9) + 1e-9
        assert sum(r.compositions * r.delta for r in led.releases) <= delta * (1 + 1e-9)
    else:  # ρ charged (noise reduction ex-post ε_T²/2) within ρ*(ε, δ/2), by hand
        lg = math.log(2 / delta)
        star = (math.sqrt(lg + eps) - math.sqrt(lg)) ** 2
        rho = sum(r.epsilon**2 / 2 if r.kind == "noise_reduction" else L.zcdp_cost(r)[0] for r in led.releases)
        assert rho <= star * (1 + 1e-9) + 1e-12
        assert sum(L.zcdp_cost(r)[1] for r in led.releases) <= delta / 2 * (1 + 1e-9)
    assert not led.over_budget


@settings(max_examples=30, deadline=None)
@given(rel=st.lists(any_release, max_size=6), eps=st.floats(0.5, 20.0), enforce=st.sampled_from(L.ENFORCERS))
def test_json_and_csv_round_trip(rel, eps, enforce):
    led = L.Ledger(eps, 1e-5, enforce)
    for r in rel:
        try:
            led = led.try_add(r)
        except BudgetExceeded:
            pass
    back = L.from_json(led.to_json())
    assert back.ledger == led and not back.refused
    assert L.from_csv(led.to_csv(), base=led.clear()).ledger == led


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=10),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=30,
)
_FIELDS = ("label", "source", "kind", "epsilon", "delta", "sensitivity", "scale", "compositions", "epsilon_max")
release_like = st.fixed_dictionaries({f: json_values for f in _FIELDS})
ledger_like = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["dp-explorer-ledger", "x"]),
        "version": st.sampled_from([1, 2, "1"]),
        "budget": st.fixed_dictionaries(
            {"epsilon": json_values, "delta": json_values, "enforce": st.sampled_from(["filter", "basic", "x"])}
        )
        | json_values,
        "releases": st.lists(release_like, max_size=3) | json_values,
    }
)


def _only_value_error(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except ValueError:
        pass


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=ledger_like | json_values)
def test_hostile_json_structures_raise_value_error_only(data):
    _only_value_error(L.from_json, json.dumps(data))


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=300) | st.text(max_size=300))
def test_hostile_bytes_raise_value_error_only(raw):
    _only_value_error(L.from_json, raw)
    _only_value_error(L.from_csv, raw, base=L.Ledger())


@settings(max_examples=200, deadline=None)
@given(cells=st.lists(st.lists(st.text(max_size=12), min_size=9, max_size=9), max_size=4))
def test_hostile_csv_rows_raise_value_error_only(cells):
    rows = [",".join(_FIELDS)] + [",".join(c) for c in cells]
    _only_value_error(L.from_csv, "\n".join(rows), base=L.Ledger())


hostile = st.sampled_from([float("nan"), float("inf"), -float("inf"), -1.0, 0.0, 1e308, "1", None, True, [1.0], 1.5])


@settings(max_examples=300, deadline=None)
@given(a=hostile, b=hostile, which=st.integers(0, 4))
def test_hostile_arguments_raise_value_error_only(a, b, which):
    calls = [
        lambda: L.gaussian_release(a, delta=b, label="g"),
        lambda: L.laplace_release(a, sensitivity=b, label="l"),
        lambda: L.approx_release(a, b, label="a"),
        lambda: L.noise_reduction_release(a, epsilon_max=b, label="n"),
        lambda: L.accountants((L.pure_release(1.0, label="p"),), a, b),
    ]
    _only_value_error(calls[which])
