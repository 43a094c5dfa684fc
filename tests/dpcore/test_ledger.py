"""dpcore.ledger: releases, the five accountants against independent computations, the filter's boundary,
export/import with hostile files."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcore
from dpcore import filters as fl
from dpcore import ledger as L
from dpcore.filters import BudgetExceeded


def _delta_gauss(eps: float, mu: float) -> float:
    """Balle & Wang 2018 Thm 8, written out with scipy (independent of dpcore.accounting)."""
    return stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)


def _kov(eps_list, slack):
    """KOV 2015 Thm 3.5, literally as printed (three bounds, min)."""
    s1 = sum(eps_list)
    s2 = sum(e * e for e in eps_list)
    first = sum((math.exp(e) - 1) * e / (math.exp(e) + 1) for e in eps_list)
    b2 = first + math.sqrt(2 * s2 * math.log(math.e + math.sqrt(s2) / slack))
    b3 = first + math.sqrt(2 * s2 * math.log(1 / slack))
    return min(s1, b2, b3)


# ---- releases ------------------------------------------------------------------------------------------------


def test_gaussian_release_epsilon_meets_its_delta():
    r = L.gaussian_release(2.0, sensitivity=1.5, delta=1e-6, compositions=4, label="g", source="baselines")
    assert r.kind == "gaussian" and r.compositions == 4 and r.scale == 2.0
    assert _delta_gauss(r.epsilon, 1.5 / 2.0) == pytest.approx(1e-6, rel=1e-6)
    assert r.rho == pytest.approx(4 * 1.5**2 / (2 * 4.0))


def test_other_constructors():
    lap = L.laplace_release(0.5, sensitivity=2.0, compositions=3, label="l")
    assert (lap.epsilon, lap.delta, lap.rho) == (4.0, 0.0, pytest.approx(3 * 16 / 2))
    assert L.approx_release(1.0, 0.0, label="a").kind == "pure"
    a = L.approx_release(1.0, 1e-6, compositions=2, label="a")
    assert L.zcdp_cost(a) == (1.0, 2e-6, "Tε²/2, δ-approximate")
    nr = L.noise_reduction_release(0.3, epsilon_max=2.0, label="nr")
    assert nr.rho == 2.0 and nr.epsilon == 0.3
    assert nr.dp_epsilon == pytest.approx(float(dpcore.gaussian_epsilon(1e-6, sigma=0.5)))


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"kind": "exotic"}, "kind"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": 1e6}, "epsilon"),
        ({"delta": 1.0}, "delta"),
        ({"delta": 1e-3}, "delta"),  # a pure release with δ > 0
        ({"label": "x" * 81}, "label"),
        ({"label": "=HYPERLINK(1)"}, "label"),
        ({"label": "a\x00b"}, "label"),
        ({"label": ""}, "label"),
        ({"label": 3}, "label"),
        ({"source": "../etc"}, "source"),
        ({"compositions": 0}, "compositions"),
        ({"compositions": 1.5}, "compositions"),
        ({"scale": 2.0}, "scale"),
        ({"epsilon_max": 2.0}, "epsilon_max"),
        ({"sensitivity": -1.0}, "sensitivity"),
    ],
)
def test_release_validation_names_the_field(kwargs, field):
    base = {
        "label": "ok",
        "source": "svt",
        "kind": "pure",
        "epsilon": 1.0,
        "delta": 0.0,
        "sensitivity": 1.0,
        "scale": None,
        "compositions": 1,
        "epsilon_max": None,
    }
    with pytest.raises(ValueError, match=field):
        L.Release(**(base | kwargs))


def test_tampered_gaussian_and_noise_reduction_are_refused():
    g = L.gaussian_release(2.0, delta=1e-6, label="g").to_dict()
    with pytest.raises(ValueError, match="epsilon"):
        L.Release.from_dict(g | {"epsilon": 0.01})  # claims less loss than σ gives
    with pytest.raises(ValueError, match="epsilon"):
        L.noise_reduction_release(3.0, epsilon_max=2.0, label="nr")
    with pytest.raises(ValueError, match="epsilon"):
        L.Release.from_dict(L.laplace_release(1.0, label="l").to_dict() | {"epsilon": 0.5})


# ---- accountants ---------------------------------------------------------------------------------------------

MIXED = (
    L.gaussian_release(3.0, delta=1e-7, compositions=5, label="g"),
    L.laplace_release(4.0, compositions=3, label="l"),
    L.pure_release(0.2, compositions=2, label="p"),
    L.approx_release(0.3, 1e-7, label="a"),
    L.noise_reduction_release(0.4, epsilon_max=1.0, delta=1e-7, label="nr"),
)


def test_basic_by_hand():
    e_g = float(dpcore.gaussian_epsilon(1e-7, sigma=3.0))
    e_nr = float(dpcore.gaussian_epsilon(1e-7, sigma=1.0))
    res = L.basic(MIXED, 20.0, 1e-5)
    assert res.epsilon == pytest.approx(5 * e_g + 3 * 0.25 + 2 * 0.2 + 0.3 + e_nr)
    assert res.delta == pytest.approx(5e-7 + 1e-7 + 1e-7)
    assert res.within and not L.basic(MIXED, 14.0, 1e-5).within and not L.basic(MIXED, 20.0, 6e-7).within


def test_advanced_matches_kov_formula():
    eps_list = (
        [float(dpcore.gaussian_epsilon(1e-7, sigma=3.0))] * 5
        + [0.25] * 3
        + [0.2] * 2
        + [0.3]
        + [float(dpcore.gaussian_epsilon(1e-7, sigma=1.0))]
    )
    deltas = [1e-7] * 5 + [0.0] * 5 + [1e-7] + [1e-7]
    slack = 1 - (1 - 1e-5) / np.prod([1 - d for d in deltas])
    res = L.advanced(MIXED, 10.0, 1e-5)
    assert res.epsilon == pytest.approx(_kov(eps_list, slack), rel=1e-12)
    assert res.delta == 1e-5


def test_advanced_beats_basic_and_drv_for_many_small_releases():
    rel = (L.pure_release(0.05, compositions=1000, label="p"),)
    res = L.advanced(rel, 100.0, 1e-6)
    drv = math.sqrt(2 * 1000 * math.log(1e6)) * 0.05 + 1000 * 0.05 * math.expm1(0.05)  # DRV 2010 Thm III.3
    assert res.epsilon < drv < 50.0


@pytest.mark.parametrize("eps0,k,delta", [(0.1, 100, 1e-6), (0.5, 30, 1e-5), (1.0, 10, 1e-3), (0.05, 400, 1e-8)])
def test_advanced_is_sound_against_exact_laplace_composition(eps0, k, delta):
    rel = (L.laplace_release(1 / eps0, compositions=k, label="l"),)
    exact = dpcore.laplace_epsilon(delta, scale=1 / eps0, compositions=k)
    assert L.advanced(rel, 1e3, delta).epsilon >= exact - 1e-9


def test_advanced_without_slack_is_basic_and_over_budget():
    rel = (L.approx_release(1.0, 1e-5, compositions=2, label="a"),)
    res = L.advanced(rel, 10.0, 1e-5)
    assert res.epsilon == 2.0 and not res.within


def test_zcdp_closed_form():
    rho = 5 / (2 * 9) + 3 * 0.25**2 / 2 + 2 * 0.2**2 / 2 + 0.3**2 / 2 + 1.0 / 2
    d = 1e-5 - 1e-7
    res = L.zcdp(MIXED, 10.0, 1e-5)
    # ρ is summed by hand above (Bun & Steinke 2016, Prop. 1.4 and 1.6); the ρ → ε conversion is dpcore's (tested in
    # the accountant's own tests) and never above the classic ρ + 2√(ρ ln(1/δ')) (Prop. 1.3)
    assert res.epsilon == pytest.approx(float(dpcore.zcdp_to_dp(rho, d)), rel=1e-12)
    assert res.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / d)) * (1 + 1e-12)
    no_slack = L.zcdp((L.approx_release(1.0, 1e-5, label="a"),), 10.0, 1e-5)
    assert no_slack.epsilon == math.inf and not no_slack.within


@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9])
def test_pld_gaussian_only_is_exact(delta):
    rel = (
        L.gaussian_release(2.0, sensitivity=1.0, delta=1e-6, compositions=7, label="a"),
        L.gaussian_release(5.0, sensitivity=2.0, delta=1e-6, compositions=3, label="b"),
        L.noise_reduction_release(0.2, epsilon_max=0.5, label="nr"),
    )
    mu = math.sqrt(7 / 4 + 3 * 4 / 25 + 0.25)
    exact = float(dpcore.gaussian_epsilon(delta, sigma=1 / mu))
    got = L.pld(rel, 100.0, delta).epsilon
    assert exact - 1e-9 <= got <= exact + 5e-3  # pessimistic grid of width 1e-3


def test_pld_tightest_on_mixed_ledger_and_empty_ledger():
    res = {r.name: r for r in L.accountants(MIXED, 10.0, 1e-5)}
    assert res["pld"].epsilon < res["zcdp"].epsilon
    assert res["pld"].epsilon < res["advanced"].epsilon <= res["basic"].epsilon
    empty = L.accountants((), 1.0, 1e-6)
    assert all(r.epsilon == 0 and r.within for r in empty)


def test_pld_falls_back_beyond_its_loss_range():
    rel = (L.pure_release(60.0, compositions=2, label="p"),)
    res = L.pld(rel, 1e3, 1e-6)
    assert res.epsilon == pytest.approx(min(120.0, L.zcdp(rel, 1e3, 1e-6).epsilon)) and "not built" in res.note


# ---- the enforcing filter ------------------------------------------------------------------------------------


def _rho_star(eps, delta_pp):
    lg = math.log(1 / delta_pp)
    return (math.sqrt(lg + eps) - math.sqrt(lg)) ** 2


def test_filter_refuses_exactly_at_the_boundary():
    eps, delta = 2.0, 1e-6
    star = _rho_star(eps, delta / 2)
    first = L.pure_release(math.sqrt(star), label="first")  # ρ = ε²/2 = ρ*/2
    led = L.Ledger(eps, delta).try_add(first)
    flt, _ = L.filter_replay(led.releases, eps, delta)
    exact_rest = fl.largest_level(flt.remaining_rho)  # the largest ε whose exact ε²/2 fits what is left
    assert Fraction(exact_rest) ** 2 / 2 <= Fraction(flt.remaining_rho)
    led2 = led.try_add(L.pure_release(exact_rest, label="fits"))  # the rest, to the last ulp
    assert len(led2.releases) == 2
    with pytest.raises(BudgetExceeded):  # one float more does not fit: the filter's decision is exact
        led.try_add(L.pure_release(math.nextafter(math.nextafter(exact_rest, 9.0), 9.0), label="an ulp more"))
    with pytest.raises(BudgetExceeded, match=r"ρ = .* left; this release needs ρ"):
        led.try_add(L.pure_release(exact_rest * (1 + 1e-6), label="too much"))
    with pytest.raises(BudgetExceeded):
        led2.try_add(L.pure_release(1e-4, label="crumb"))


def test_filter_charges_noise_reduction_ex_post_but_admits_on_the_maximum():
    eps, delta = 3.0, 1e-6
    led = L.Ledger(eps, delta)
    star = L.filter_replay((), eps, delta)[0].rho_budget  # the filter's own ρ budget for (ε, δ'' = δ/2)
    assert star >= _rho_star(eps, delta / 2) * (1 - 1e-9)  # at least the classic conversion's
    top = math.sqrt(2 * star) * (1 - 1e-9)  # a worst case that just fits
    led = led.try_add(L.noise_reduction_release(0.1 * top, epsilon_max=top, label="nr"))
    flt, refused = L.filter_replay(led.releases, eps, delta)
    assert not refused and flt.rho_spent == pytest.approx((0.1 * top) ** 2 / 2)
    with pytest.raises(BudgetExceeded, match="ε_max"):  # the next one may not start: its worst case no longer fits
        led.try_add(L.noise_reduction_release(0.01, epsilon_max=top, label="nr2"))
    # zCDP (data-independent) charges ε_max²/2: the whole budget
    assert L.zcdp(led.releases, eps, delta).epsilon > L.accountants(led.releases, eps, delta)[-1].epsilon


def test_filter_delta_split_for_approximate_releases():
    led = L.Ledger(5.0, 1e-5)
    led = led.try_add(L.approx_release(0.1, 5e-6, label="half"))  # δ_mech = δ/2 exactly
    with pytest.raises(BudgetExceeded, match="δ"):
        led.try_add(L.approx_release(0.1, 1e-9, label="more δ"))


def test_basic_enforcer_boundary():
    led = L.Ledger(1.0, 1e-6, "basic").try_add(L.pure_release(0.25, compositions=2, label="a"))
    led = led.try_add(L.pure_release(0.5, label="b"))
    with pytest.raises(BudgetExceeded, match="basic composition has ε = 0 left"):
        led.try_add(L.pure_release(1e-3, label="c"))


def test_lowering_the_budget_flags_and_blocks():
    led = L.Ledger(10.0, 1e-5).try_add(L.pure_release(1.5, label="a"))
    low = led.with_budget(1.0, 1e-5)
    assert low.over_budget and low.refusals()[0][0] == 0
    with pytest.raises(BudgetExceeded, match="already over"):
        low.try_add(L.pure_release(0.01, label="b"))
    assert not low.with_budget(10.0, 1e-5).over_budget


def test_cumulative_ends_at_the_accountants():
    df = L.cumulative(MIXED, 10.0, 1e-5)
    last = df[df["releases"] == len(MIXED)].set_index("accountant")["epsilon"]
    for r in L.accountants(MIXED, 10.0, 1e-5):
        assert last[r.name] == pytest.approx(r.epsilon, rel=1e-9)
    assert (df[df["releases"] == 0]["epsilon"] == 0).all()


# ---- export / import -----------------------------------------------------------------------------------------


def _full():
    led = L.Ledger(20.0, 1e-4)
    for r in MIXED:
        led = led.try_add(r)
    return led


def test_json_and_csv_round_trip():
    led = _full()
    assert len(led.releases) == len(MIXED)
    back = L.from_json(led.to_json())
    assert back.ledger == led and back.refused == ()
    back = L.from_csv(led.to_csv(), base=L.Ledger(20.0, 1e-4))
    assert back.ledger == led
    assert L.from_json(led.to_json().encode("utf-8")).ledger == led


def test_import_reports_what_no_longer_fits():
    data = json.loads(_full().to_json())
    data["budget"]["epsilon"] = 1.0
    got = L.from_json(json.dumps(data))
    assert len(got.ledger.releases) + len(got.refused) == len(MIXED)
    assert got.refused and all("left" in reason for _, reason in got.refused)


def test_restore_keeps_a_stored_ledger_as_accepted_without_replaying_it():
    lowered = _full().with_budget(1.0, 1e-4)  # its releases no longer fit: an import would refuse most of them
    assert lowered.over_budget
    assert L.restore(lowered.to_json()) == lowered
    assert L.from_json(lowered.to_json()).refused


HOSTILE_JSON = [
    ("", "not valid JSON"),
    ("[" * 100_000, "larger than"),
    ("[" * 30_000 + "]" * 30_000, "nested|not a DP Explorer"),
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": NaN, "delta": '
            '1e-5, "enforce": "filter"},'
            ' "releases": []}'
        ),
        "NaN",
    ),
    ('{"format": "dp-explorer-ledger", "version": 2}', "version"),
    ('{"format": "nope"}', "not a DP Explorer ledger"),
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": 1, "delta": 1e-5, '
            '"enforce": "eval"}, '
            '"releases": []}'
        ),
        "enforce",
    ),
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": "1", "delta": '
            '1e-5, "enforce": "basic"}, '
            '"releases": []}'
        ),
        "epsilon",
    ),
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": 1, "delta": 1e-5, '
            '"enforce": "basic"}, '
            '"releases": [{"__class__": "os.system"}]}'
        ),
        "unknown release field",
    ),
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": 1, "delta": 1e-5, '
            '"enforce": "basic"}, '
            '"releases": {}}'
        ),
        "releases",
    ),
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": 1, "delta": 1e-5, '
            '"enforce": "basic"}, '
            '"releases": [], "code": "import os"}'
        ),
        "unknown field",
    ),
    # a whole number longer than Python converts by default: our message, not the interpreter's
    (
        (
            '{"format": "dp-explorer-ledger", "version": 1, "budget": {"epsilon": ' + "9" * 5000 + ', "delta": 1e-5, '
            '"enforce": "basic"}, "releases": []}'
        ),
        "whole number with 5000 digits",
    ),
    (('{"format": "dp-explorer-ledger", "version": ' + "1" * 5000 + "}"), "whole number with 5000 digits"),
    # a version is the whole number 1: true and 1.0 equal 1 in Python but are not it
    (
        '{"format": "dp-explorer-ledger", "version": true, "budget": {"epsilon": 1, "delta": 1e-5, '
        '"enforce": "basic"}, '
        '"releases": []}',
        "version: unsupported ledger version true",
    ),
    (
        '{"format": "dp-explorer-ledger", "version": 1.0, "budget": {"epsilon": 1, "delta": 1e-5, "enforce": "basic"}, '
        '"releases": []}',
        "version: unsupported ledger version 1.0",
    ),
    (
        '{"format": "dp-explorer-ledger", "version": "1", "budget": {"epsilon": 1, "delta": 1e-5, "enforce": "basic"}, '
        '"releases": []}',
        "version",
    ),
]


@pytest.mark.parametrize("text,match", HOSTILE_JSON)
def test_hostile_json_gives_a_clear_value_error(text, match):
    with pytest.raises(ValueError, match=match) as raised:
        L.from_json(text)
    assert "sys.set_int_max_str_digits" not in str(raised.value) and "Exceeds the limit" not in str(raised.value)


def test_the_version_one_as_written_by_the_export_is_read():
    data = json.loads(_full().to_json())
    assert type(data["version"]) is int and data["version"] == 1
    assert L.from_json(json.dumps(data)).ledger == _full()
    # numbers as long as a ledger may hold still read (the limit is on digits, far beyond any field's range)
    data["releases"][0]["compositions"] = int("1" + "0" * (L.MAX_INT_DIGITS - 1))
    with pytest.raises(ValueError, match="release 1: compositions .*integer with 1000 digits"):
        L.from_json(json.dumps(data))


def test_too_many_releases_and_bad_bytes():
    data = json.loads(_full().to_json())
    data["releases"] = data["releases"][:1] * (L.MAX_RELEASES + 1)
    with pytest.raises(ValueError, match="at most 200"):
        L.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="UTF-8"):
        L.from_json(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="release 1: epsilon"):
        d2 = json.loads(_full().to_json())
        d2["releases"][0]["epsilon"] = True
        L.from_json(json.dumps(d2))


@pytest.mark.parametrize(
    "text,match",
    [
        ("", "empty"),
        ("a,b,c\n1,2,3\n", "header"),
        (
            "label,source,kind,epsilon,delta,sensitivity,scale,compositions,epsilon_max\nx,svt,pure,nan,0,1,,1,\n",
            "epsilon",
        ),
        (
            "label,source,kind,epsilon,delta,sensitivity,scale,compositions,epsilon_max\nx,svt,pure,1,0,1,,1\n",
            "columns",
        ),
        (
            (
                "label,source,kind,epsilon,delta,sensitivity,scale,compositions,epsilon_max\n=cmd|' "
                "/C calc'!A0,svt,pure,1,0,"
                "1,,1,\n"
            ),
            "label",
        ),
        (
            "label,source,kind,epsilon,delta,sensitivity,scale,compositions,epsilon_max\nx,svt,pure,1e400,0,1,,1,\n",
            "epsilon",
        ),
        (
            "label,source,kind,epsilon,delta,sensitivity,scale,compositions,epsilon_max\nx,svt,pure,1,0,1,,1e3,\n",
            "compositions",
        ),
        (
            'label,source,kind,epsilon,delta,sensitivity,scale,compositions,epsilon_max\n"x,svt,pure,1,0,1,,1,\n',
            "CSV|columns",
        ),
    ],
)
def test_hostile_csv_gives_a_clear_value_error(text, match):
    with pytest.raises(ValueError, match=match):
        L.from_csv(text, base=L.Ledger())


# ---- imported budgets are kept exactly or refused, naming the field ---------------------------------------------


def _with(path: tuple, value) -> str:
    data = json.loads(_full().to_json())
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return json.dumps(data)


@pytest.mark.parametrize("eps", [17.14, 20.0, 33.3, 999.5, 1000.0, 0.0123])
def test_imported_budget_is_kept_exactly(eps):
    got = L.from_json(_with(("budget", "epsilon"), eps))
    assert got.ledger.epsilon == eps  # bit for bit, not snapped to a slider value
    assert json.loads(got.ledger.to_json())["budget"]["epsilon"] == eps


@pytest.mark.parametrize(
    "path,value,match",
    [
        (("budget", "epsilon"), 1e6, r"budget\.epsilon must be in \(0, 1000\], got 1000000\.0"),
        (("budget", "epsilon"), 10**400, r"budget\.epsilon is out of range, got an integer with 401 digits"),
        (("budget", "delta"), 5e-324, r"budget\.delta must be in \[1e-300, 1\), got 5e-324"),
        (("budget", "delta"), 10**30, r"budget\.delta is out of range"),
        (("releases", 0, "delta"), 5e-324, r"release 1: delta must be 0 or in \[1e-300, 1\), got 5e-324"),
        (("releases", 0, "compositions"), 10**400, r"release 1: compositions .*integer with 401 digits"),
        (("releases", 0, "epsilon"), 10**400, r"release 1: epsilon is out of range"),
        (("releases", 0, "sensitivity"), 10**25, r"release 1: sensitivity is out of range"),
        (("releases", 0, "scale"), 10**25, r"release 1: scale"),
    ],
)
def test_import_refuses_what_it_cannot_keep_naming_the_field(path, value, match):
    with pytest.raises(ValueError, match=match):
        L.from_json(_with(path, value))


def test_subnormal_delta_is_refused_by_the_constructors_and_accountants():
    with pytest.raises(ValueError, match="delta"):
        L.gaussian_release(1.0, delta=5e-324, label="g")
    with pytest.raises(ValueError, match="delta"):
        L.approx_release(1.0, 1e-310, label="a")
    with pytest.raises(ValueError, match="budget_delta"):
        L.basic([], 1.0, 5e-324)
    with pytest.raises(ValueError, match="delta"):
        L.Ledger(1.0, 1e-320)
    assert L.Ledger(1.0, 1e-300, delta_share=0.0).delta == 1e-300  # the smallest supported δ is kept
    with pytest.raises(ValueError, match="delta_share"):  # but not split into two sub-normal halves
        L.Ledger(1.0, 1e-300, delta_share=0.5)


def test_csv_import_keeps_the_base_budget_and_the_numbers():
    led = _full()
    back = L.from_csv(led.to_csv(), base=L.Ledger(17.14, 1e-4))
    assert back.ledger.epsilon == 17.14
    for a, b in zip(back.ledger.releases, led.releases, strict=True):
        assert a.to_dict() == b.to_dict()


def test_ledger_modules_do_not_import_dp_accounting():
    import ast
    import pathlib

    root = pathlib.Path(L.__file__).parent
    for name in ("ledger.py", "ledger_accountants.py", "ledger_releases.py"):
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        mods = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        mods += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in mods if m.startswith("dp_accounting")], name


def test_zcdp_total_goes_through_dpcore_zcdp_to_dp():
    rel = (L.gaussian_release(3.0, delta=1e-6, compositions=5, label="g"), L.pure_release(0.3, label="p"))
    rho = 5 / (2 * 9.0) + 0.3**2 / 2  # Bun & Steinke 2016, Prop. 1.6 and 1.4, by hand
    got = L.zcdp(rel, 100.0, 1e-5)
    assert got.epsilon == pytest.approx(float(dpcore.zcdp_to_dp(rho, 1e-5)), rel=1e-12)


# ---- the mechanism registry's ledger releases -------------------------------------------------------------------


def test_registry_releases_are_accounted_like_the_mechanism():
    from dpcore import mechanisms as M

    lap = M.release("laplace", 0.5, sensitivity=2.0, compositions=3)
    assert lap.kind == "laplace" and lap.scale == pytest.approx(4.0) and lap.epsilon == pytest.approx(0.5)
    assert lap.label == "Laplace" and lap.rho == pytest.approx(3 * 0.5**2 / 2)
    g = M.release("gaussian", 1.0, delta=1e-5)
    assert g.kind == "gaussian" and g.delta == 1e-5 and g.epsilon == pytest.approx(1.0, rel=1e-6)
    assert _delta_gauss(1.0, 1.0 / g.scale) == pytest.approx(1e-5, rel=1e-5)  # σ calibrated exactly to (1, 1e-5)
    assert M.release("brdp", 0.8, delta=2e-6).delta == 2e-6
    assert M.release("brdp_exact", 0.8, delta=2e-6).label == "BR-DP (exact accountant)"
    assert M.release("svt_exp", 0.7).kind == "pure"
    nr = M.release("noise_reduction", 0.2, cap=3.0)
    assert nr.kind == "pure" and nr.epsilon == 3.0  # Laplace noise reduction is charged its ex-ante ε
    assert set(M.ids_for("ledger")) == set(M.IDS)
    with pytest.raises(ValueError, match="mechanism"):
        M.release("nope", 1.0)
