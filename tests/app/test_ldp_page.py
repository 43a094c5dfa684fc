"""AppTest of the Local-DP page (paper 003): renders, every control moves the numbers, metrics match dpcore."""

from __future__ import annotations

import math

import pytest

from app.compute import ldp as C
from dpcore import ldp
from tests.app.conftest import open_page, shown_numbers

SCRIPT = "ldp.py"


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("part", C.PARTS)
def test_each_part_renders_at_defaults_without_errors_or_warnings(part):
    at = open_page(SCRIPT, {"part": part})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # no erratum warning at the sound defaults
    assert at.title
    assert len(at.metric) >= 8


# (widget kind, key, new value, part where the effect is visible)
CONTROLS = [
    ("select_slider", "eps", 0.5, "beliefs"),
    ("select_slider", "budget", 2.0, "filter"),
    ("select_slider", "k", 8, "beliefs"),
    ("select_slider", "n", 21, "beliefs"),
    ("select_slider", "x", 2, "beliefs"),
    ("select_slider", "alpha", 1e-4, "beliefs"),
    ("radio", "query", "rr", "beliefs"),
    ("radio", "prior", "bimodal", "beliefs"),
    ("radio", "stmt", "even", "beliefs"),
    ("number_input", "seed", 3, "beliefs"),
    ("toggle", "ratio", True, "beliefs"),
    ("radio", "part", "filter", "beliefs"),
    ("select_slider", "eps", 0.5, "filter"),
    ("select_slider", "x", 2, "filter"),
    ("number_input", "seed", 3, "filter"),
    ("select_slider", "eps", 2.0, "continuous"),
    ("select_slider", "k", 4, "continuous"),
    ("radio", "view", "reproduce", "beliefs"),
]


@pytest.mark.parametrize("kind,key,value,part", CONTROLS, ids=[f"{c[1]}-{c[3]}" for c in CONTROLS])
def test_each_control_changes_the_numbers_shown(kind, key, value, part):
    at = open_page(SCRIPT, {"part": part})
    before = shown_numbers(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert shown_numbers(at) != before


def test_rr_closed_form_metric_matches_dpcore():
    at = open_page(SCRIPT, {"part": "filter", "eps": "0.5", "budget": "3"})
    value = _metrics(at)["E[# answered], binary RR stream (closed form)"]
    assert value == f"{ldp.rr_expected_accepted(0.5, 3.0):.3f}"


def test_realized_loss_metric_matches_dpcore_for_randomized_response():
    """Binary RR answers: ℓ = ε|n₁ − n₀| (spec §4.1); the headline metric equals dpcore's realized loss."""
    at = open_page(SCRIPT, {"query": "rr", "n": "2", "k": "6", "eps": "0.5", "x": "1", "seed": "4"})
    shown = _metrics(at)["Realized loss ℓ of the 6 answers"]
    drawn = next(c.value for c in at.caption if "answers drawn" in c.value)
    outs = [int(v) for v in drawn.split("`")[1].split()]
    rr = ldp.randomized_response(0.5)
    loss = ldp.realized_loss(ldp.transcript_log_likelihood([rr] * 6, outs))
    assert shown == f"{loss:.4f}"
    assert loss == pytest.approx(0.5 * abs(outs.count(1) - outs.count(0)), abs=1e-12)


def test_ratio_toggle_shows_exp_of_the_loss():
    at = open_page(SCRIPT, {"eps": "0.5"})
    loss = float(_metrics(at)["Realized loss ℓ of the 25 answers"])
    at.toggle(key="ratio").set_value(True).run()
    ratio = float(_metrics(at)["Realized loss e^ℓ of the 25 answers"])
    assert ratio == pytest.approx(math.exp(loss), rel=1e-3)


def test_true_value_outside_the_domain_shows_a_message():
    at = open_page(SCRIPT, {"x": "50", "n": "11"})
    assert not at.exception
    assert not at.error
    assert any("outside the domain" in w.value for w in at.warning)


def test_budget_below_epsilon_shows_a_message():
    at = open_page(SCRIPT, {"budget": "0.5", "eps": "1", "part": "filter"})
    assert not at.exception and not at.error
    assert any("below the per-query" in i.value for i in at.info)
    assert _metrics(at)["Answered under basic composition"] == "0 of 25"


def test_reproduce_view_examples_and_erratum_warning():
    at = open_page(SCRIPT, {"view": "reproduce"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    m = _metrics(at)
    assert m["e^ℓ (paper: 1.5)"] == "1.5000"
    assert m["ℓ (ε units)"] == f"{ldp.example2().loss:.6f}"
    assert m["Λ(2) as printed in the paper"] == "0.109"
    assert m["Λ(2) from the reconstructed queries"] == "0.1046"
    assert m["Transcripts of the interaction"] == "39"
    assert m["Worst transcript ratio (Eq. 12)"] == "2.25"
    # the paper's odometer-decrease rule under-reports the loss (spec §8.7): the warning appears here only
    assert any("under-reports" in w.value for w in at.warning)
    rr = at.dataframe[1].value
    assert list(rr["closed form"].round(3)) == [8.344, 21.638, 31.489, 92.5]


def test_reproduce_linear_evaluation_shows_both_numbers_and_the_reason():
    at = open_page(SCRIPT, {"view": "reproduce"})
    at.button(key="run_linear").click().run()
    assert not at.exception, at.exception
    m = _metrics(at)
    assert m["Median answered at ε_G = 10 — paper"] == "47"
    reproduced = float(m["Median answered at ε_G = 10 — reproduced (groups of 10)"])
    assert reproduced == ldp.linear_median_mismatch().reproduced
    assert 31 <= reproduced <= 38
    assert any("not reproducible" in w.value for w in at.warning)


OWN_BAD_LINKS = [
    {"budget": "-1"},
    {"k": "0"},
    {"n": "1000"},
    {"x": "abc"},
    {"alpha": "2"},
    {"query": "<script>alert(1)</script>"},
    {"prior": "evil"},
    {"stmt": "nan"},
    {"part": "zzz"},
    {"view": "zzz"},
    {"ratio": "maybe"},
]


@pytest.mark.parametrize("query", OWN_BAD_LINKS, ids=lambda q: "&".join(f"{k}={v}" for k, v in q.items()))
def test_bad_values_of_the_page_controls_show_a_clear_message(query):
    at = open_page(SCRIPT, query)
    assert not at.exception, at.exception
    key = next(iter(query))
    assert any(f"{key}=" in e.value for e in at.error), [e.value for e in at.error]
    assert len(at.metric) >= 4  # the page still renders with the default in place
