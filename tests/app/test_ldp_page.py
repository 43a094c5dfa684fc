"""AppTest of the Local DP page (Pan 2023): renders, every control moves the numbers, metrics match dpcore."""

from __future__ import annotations

import math

import pytest

from app.compute import ldp as C
from app.notation import tex
from app.views import ldp as view
from dpcore import ldp
from tests.app.conftest import open_page, shown_metrics, shown_numbers

SCRIPT = "ldp.py"
PARTS = tuple(view.EXPLORE_PARTS)


@pytest.mark.parametrize("part", PARTS)
def test_each_part_renders_at_defaults_without_errors_or_warnings(part):
    at = open_page(SCRIPT, {"part": part})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # no erratum warning at the sound defaults
    assert at.title
    assert len(at.metric) >= 8


def test_the_page_opens_with_the_idea_before_any_number():
    at = open_page(SCRIPT)
    assert any(view.IDEA.split("*")[0] in m.value for m in at.markdown)
    assert at.header[0].value == "The idea in one picture"  # the picture comes before the headline metrics


# (widget kind, key, new value, part where the effect is visible)
CONTROLS = [
    ("select_slider", "eps", 0.5, "Beliefs"),
    ("select_slider", "epsg", 2.0, "Filter"),
    ("select_slider", "nq", 8, "Beliefs"),
    ("select_slider", "dsize", 21, "Beliefs"),
    ("select_slider", "xtrue", 2, "Beliefs"),
    ("select_slider", "weight", 1e-4, "Beliefs"),
    ("radio", "family", "rr", "Beliefs"),
    ("radio", "prior", "bimodal", "Beliefs"),
    ("radio", "stmt", "even", "Beliefs"),
    ("number_input", "seed", 3, "Beliefs"),
    ("toggle", "showratio", True, "Beliefs"),
    ("select_slider", "eps", 0.5, "Filter"),
    ("select_slider", "xtrue", 2, "Filter"),
    ("number_input", "seed", 3, "Filter"),
    ("toggle", "mc", True, "Filter"),
    ("select_slider", "eps", 2.0, "Continuous"),
    ("select_slider", "nq", 4, "Continuous"),
    ("radio", "regkind", "truncated", "Continuous"),
    ("radio", "view", "reproduce", "Beliefs"),
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
    at = open_page(SCRIPT, {"part": "Filter", "eps": "0.5", "epsg": "3"})
    value = shown_metrics(at)["Expected answered, binary randomized response"]
    assert value == f"{ldp.rr_expected_accepted(0.5, 3.0):.3f}"


def test_realized_loss_metric_matches_an_independent_count_for_randomized_response():
    """Binary randomized response: ℓ = ε|n₁ − n₀| (Example 1); the headline metric equals it for the shown answers."""
    at = open_page(SCRIPT, {"family": "rr", "dsize": "2", "nq": "6", "eps": "0.5", "xtrue": "1", "seed": "4"})
    shown = shown_metrics(at)["Realized loss ℓ of the 6 answers"]
    drawn = next(c.value for c in at.caption if "answers drawn" in c.value)
    outs = [int(v) for v in drawn.split(": ")[-1].split()]
    assert len(outs) == 6
    assert shown == f"{0.5 * abs(outs.count(1) - outs.count(0)):.4f}"


def test_ratio_toggle_shows_exp_of_the_loss():
    at = open_page(SCRIPT, {"eps": "0.5"})
    loss = float(shown_metrics(at)["Realized loss ℓ of the 25 answers"])
    at.toggle(key="showratio").set_value(True).run()
    ratio = float(shown_metrics(at)[tex("Realized loss e^ℓ of the 25 answers")])
    assert ratio == pytest.approx(math.exp(loss), rel=1e-3)


def test_true_value_outside_the_domain_shows_a_message():
    at = open_page(SCRIPT, {"xtrue": "50", "dsize": "11"})
    assert not at.exception
    assert not at.error
    assert any("outside the values" in i.value for i in at.info)


def test_budget_below_epsilon_shows_a_message():
    at = open_page(SCRIPT, {"epsg": "0.5", "eps": "1", "part": "Filter"})
    assert not at.exception and not at.error
    assert any("below the per-query" in i.value for i in at.info)
    assert shown_metrics(at)["Answered under basic composition"] == "0 of 25"


def test_approximate_filter_panel_matches_dpcore():
    """The (ε, δ) variant: with pure queries it first answers ⌊ε_G/ε⌋ by adding up ε, then switches."""
    at = open_page(SCRIPT, {"part": "Filter"})
    m = shown_metrics(at)
    assert m["Switches to the look-ahead at"] == f"query {math.floor(4.0 / 1.0) + 1}"
    run = C.approximate_run("powers", 1.0, 4.0, 11, 25, 7, 0)
    assert m["Answered by the (ε, δ) variant"] == f"{run.accepted} of 25"


def test_continuous_part_certified_loss_brackets_the_grid():
    at = open_page(SCRIPT, {"part": "Continuous", "regkind": "truncated", "nq": "4"})
    assert not at.exception and not at.error
    m = shown_metrics(at)
    certified, attained, grid = (
        float(m[k]) for k in ("Certified loss U − Lo", "Attained loss (two real points)", "31 × 31 grid search")
    )
    assert grid <= certified + 1e-9 and attained <= certified <= attained + 1e-4


def test_reproduce_view_examples_and_erratum_warning():
    at = open_page(SCRIPT, {"view": "reproduce"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    m = shown_metrics(at)
    assert m[tex("e^ℓ (paper: 1.5)")] == "1.5000"
    assert m["ℓ (ε units)"] == f"{math.log(1.5):.6f}"
    assert m["Λ(2) as printed in the paper"] == "0.109"
    assert m["Λ(2) from the queries of Eq. 11"] == "0.1046"
    assert m["Transcripts of the interaction"] == "39"
    assert m["Worst transcript ratio (Eq. 12)"] == "2.25"
    # the paper's odometer-decrease rule under-reports the loss: the warning appears here only
    assert any("under-reports" in w.value for w in at.warning)
    rr = at.dataframe[1].value
    assert list(rr["closed form"].round(3)) == [8.344, 21.638, 31.489, 92.5]


def test_reproduce_linear_evaluation_shows_both_numbers_and_the_reason():
    at = open_page(SCRIPT, {"view": "reproduce", "part": "Regressions"})
    at.button(key="run_linear").click().run()
    assert not at.exception, at.exception
    m = shown_metrics(at)
    assert m[tex("Median answered at ε_G = 10 — paper")] == "47"
    reproduced = float(m[tex("Median answered at ε_G = 10 — reproduced (groups of 10)")])
    assert reproduced == ldp.linear_median_mismatch().reproduced
    assert 31 <= reproduced <= 38
    assert any("not reproducible" in w.value for w in at.warning)


OWN_BAD_LINKS = [
    {"epsg": "-1"},
    {"nq": "0"},
    {"dsize": "1000"},
    {"xtrue": "abc"},
    {"weight": "2"},
    {"family": "<script>alert(1)</script>"},
    {"prior": "evil"},
    {"stmt": "nan"},
    {"regkind": "probit"},
    {"part": "zzz"},
    {"view": "zzz"},
    {"showratio": "maybe"},
]


@pytest.mark.parametrize("query", OWN_BAD_LINKS, ids=lambda q: "&".join(f"{k}={v}" for k, v in q.items()))
def test_bad_values_of_the_page_controls_show_a_clear_message(query):
    at = open_page(SCRIPT, query)
    assert not at.exception, at.exception
    key = next(iter(query))
    assert any(f"{key}=" in e.value for e in at.error), [e.value for e in at.error]
    assert len(at.metric) >= 4  # the page still renders with the default in place


def test_realized_path_of_randomized_response_is_epsilon_times_the_running_imbalance():
    """The idea picture for binary randomized response: after j answers ℓ = ε·|#1 − #0| (Example 1's count), and
    basic composition charges j·ε; the answers are the ones the beliefs panel shows."""
    eps, k = 0.5, 12
    df = C.realized_path("rr", eps, 2, k, 1, 4)
    outs = [int(v) for v in C.beliefs("rr", eps, 2, k, 1, 4, "uniform").outputs]
    imbalance = [abs(sum(1 if y else -1 for y in outs[:j])) for j in range(1, k + 1)]
    assert df["realized"].tolist() == pytest.approx([eps * d for d in imbalance], abs=1e-12)
    assert df["basic"].tolist() == pytest.approx([eps * j for j in range(1, k + 1)], rel=1e-12)
    assert df["realized_ratio"].tolist() == pytest.approx([math.exp(eps * d) for d in imbalance], rel=1e-12)


def test_approximate_run_adds_up_epsilon_until_basic_composition_would_stop():
    """Algorithm 4 with pure queries: exactly ⌊ε_G/ε⌋ answers while adding up ε, then the look-ahead."""
    run = C.approximate_run("rr", 1.0, 3.0, 2, 20, 1, 2)
    adding = run.table[run.table["mode"].str.startswith("adding")]
    assert len(adding) == 3 and adding["accepted"].all() and adding["spent"].tolist() == [1.0, 2.0, 3.0]
    assert run.switch_step == 4 and not run.halted
    assert (run.table["loss"] <= 3.0 + 1e-12).all()


def test_hover_text_writes_small_and_large_numbers_as_a_reader_does():
    """Plotly's own ``:.3g`` hover format writes 3e-06 or 2.5e+6; the LDP charts' hover text is written by the app's
    number formatter instead (3·10⁻⁶, 2.5·10⁶)."""
    import pandas as pd

    from app.figures import ldp as fig

    bands = pd.DataFrame(
        {"item": ["realized band", "LDP band", "", ""], "low": [3e-6, 0.5, 2.5e6, 1.0], "high": [0.25, 2.0, 3e6, 2.0]}
    )
    band = fig.statement_band(bands, ratio=False, text="x is large")
    assert list(band.data[0].customdata[0]) == ["3·10⁻⁶", "0.25"]
    assert list(band.data[1].customdata) == ["2.5·10⁶", "1"]
    patterns = pd.DataFrame(
        {
            "pattern": ["00", "01"],
            "rank": [1, 2],
            "probability": [3e-6, 0.999997],
            "loss": [0.5, 1.0],
            "basic": [2.0, 2.0],
        }
    )
    losses = fig.output_losses(patterns, ratio=False)
    assert [row[1] for row in losses.data[0].customdata] == ["3·10⁻⁶", "1"]
    assert "%{customdata[1]}" in losses.data[0].hovertemplate and "%{customdata}" in band.data[1].hovertemplate
