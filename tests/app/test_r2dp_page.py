"""AppTest for the R²DP page (pages/r2dp.py): defaults, every control, numbers vs dpcore, errata, reproduce view."""

from __future__ import annotations

import pytest

from dpcore import r2dp
from tests.app.conftest import open_page, shown_numbers

PAGE = "r2dp.py"


def _charts(at) -> tuple:
    return tuple(c.proto.spec for c in at.get("plotly_chart"))


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_renders_at_defaults_without_error_or_warning():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # sound defaults: no erratum warning
    assert len(_charts(at)) >= 10
    assert {"exact ε — this law", "U(γ) — this law", "Laplace U(γ) at ε"} <= set(_metrics(at))


# (query that makes the control visible, widget kind, key, new value)
CONTROLS = [
    ({}, "select_slider", "eps", 2.0),
    ({}, "select_slider", "gamma", 0.5),
    ({}, "select_slider", "sens", 2.0),
    ({}, "radio", "fam", "uniform"),
    ({}, "toggle", "lock", False),
    ({}, "select_slider", "k", 5.0),
    ({"lock": "false"}, "select_slider", "theta", 5.0),
    ({"fam": "uniform"}, "select_slider", "a", 2.0),
    ({"fam": "uniform"}, "select_slider", "b", 50.0),
    ({"fam": "truncnorm"}, "select_slider", "mu", -1.0),
    ({"fam": "truncnorm"}, "select_slider", "sigma", 0.5),
    ({"fam": "truncnorm"}, "select_slider", "low", 1.0),
    ({}, "select_slider", "u0", 0.2),
    ({}, "select_slider", "u1", 10.0),
    ({}, "select_slider", "p", 0.6),
    ({}, "select_slider", "n", 100),
    ({}, "toggle", "reveal", True),
    ({}, "number_input", "seed", 7),
    ({}, "radio", "view", "reproduce"),
    ({"view": "reproduce"}, "radio", "f3g", "0.5"),
]


@pytest.mark.parametrize("query,kind,key,value", CONTROLS, ids=[c[2] for c in CONTROLS])
def test_each_control_changes_the_numbers_or_charts(query, kind, key, value):
    at = open_page(PAGE, query)
    before = (shown_numbers(at), _charts(at))
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    after = (shown_numbers(at), _charts(at))
    if key in ("f3g",):
        assert after[1] != before[1]
    else:
        assert after[0] != before[0], key


@pytest.mark.parametrize("query,kind,key,value", [
    ({}, "radio", "map", "uniform"),
    ({}, "toggle", "logf", True),
    ({"view": "reproduce"}, "radio", "f3f", "uniform"),
], ids=["map", "logf", "f3f"])
def test_display_controls_change_a_chart(query, kind, key, value):
    at = open_page(PAGE, query)
    before = _charts(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert _charts(at) != before


def test_metrics_match_dpcore_for_a_free_gamma_law():
    at = open_page(PAGE, {"fam": "gamma", "lock": "false", "k": "3", "theta": "0.5", "gamma": "0.5", "sens": "1"})
    values = _metrics(at)
    law = r2dp.Gamma(3.0, 0.5)
    assert values["exact ε — this law"] == f"{r2dp.epsilon(law, sensitivity=1.0):.4f}" == "1.6219"  # 4 ln 1.5 (R3)
    assert values["U(γ) — this law"] == f"{r2dp.usefulness(law, gamma=0.5):.4f}" == "0.4880"  # R2
    assert values["Laplace U(γ) at ε"] == f"{r2dp.laplace_usefulness(5.0, gamma=0.5):.4f}"
    assert not at.error


def test_lock_solves_the_scale_to_the_slider_epsilon():
    for fam in ("two_point", "gamma", "uniform", "truncnorm", "combo"):
        at = open_page(PAGE, {"fam": fam, "eps": "3"})
        assert not at.exception and not at.error, fam
        assert _metrics(at)["exact ε — this law"] == "3.0000", fam


def test_over_budget_law_is_flagged_when_unlocked():
    at = open_page(PAGE, {"fam": "combo", "lock": "false", "k": "100", "theta": "100"})
    assert any("more than your budget" in w.value for w in at.warning)


def test_bernoulli_erratum_warning_where_the_paper_understates_epsilon():
    at = open_page(PAGE, {"u0": "0.2", "u1": "0.8", "p": "0.5"})
    assert not at.exception
    values = _metrics(at)
    assert values["ε (Thm 4.4) — paper's accountant"] == "0.544341"
    assert values["ε (Thm 4.4) — exact"] == "0.647774"
    assert values["brute-force sup of the privacy-loss profile"] == "0.647774"
    assert any("under-reports" in w.value for w in at.warning)
    assert not at.error  # the atoms do not straddle u* = 5: panel 9 explains it with an info box
    assert any("do not straddle" in i.value for i in at.info)


def test_bad_family_parameters_show_the_value_error_and_the_page_keeps_working():
    at = open_page(PAGE, {"fam": "uniform", "a": "10", "b": "5"})
    assert not at.exception, at.exception
    assert any("b must be > a" in e.value for e in at.error)
    assert len(_charts(at)) >= 5  # the law-independent panels still render


def test_reproduce_view_shows_the_headline_points_and_errata():
    at = open_page(PAGE, {"view": "reproduce"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    values = _metrics(at)
    assert values["Uniform U* / U_Lap (paper: 230 %)"] == "230.0 %"
    assert values["Gamma improvement (paper: up to 125 %)"] == "+123.9 %"
    assert values["ε (Lemma 4.10) — exact"] == "1.180112"
    assert values["ε (Lemma 4.10) — paper's accountant"] == "1.170300"
    warnings = " ".join(w.value for w in at.warning)
    assert "Lemma 4.10" in warnings and "u0 = 0.2" in warnings
    assert len(_charts(at)) == 2  # Figs. 3 and 4
