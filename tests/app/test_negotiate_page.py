"""AppTest of the "Negotiate a budget" page: renders, shows dpcore's numbers, every control matters, bad links."""

from __future__ import annotations

import math

import pytest
from scipy import optimize, stats

import dpcore
from dpcore import negotiate as ng
from dpcore import r2dp
from tests.app.conftest import open_page, shown_numbers

PAGE = "negotiate.py"


def _table(at, i: int = 0):
    return at.dataframe[i].value.set_index("mechanism")


@pytest.fixture(scope="module")
def default_page():
    return open_page(PAGE)


def test_renders_at_defaults_without_error(default_page):
    at = default_page
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.dataframe) == 3  # forward table, reverse table, deployments
    assert at.get("plotly_chart") and len(at.get("plotly_chart")) == 2


def test_table_matches_independent_calls_for_pm1_at_95(default_page):
    """±1 at 95 % (the defaults): the ε column equals independent computations."""
    t = _table(default_page)
    col = "smallest ε"
    assert float(t.loc["Laplace", col]) == pytest.approx(math.log(20), rel=1e-4)  # shown to 5 digits
    sigma = 1 / stats.norm.ppf(0.975)
    gauss = float(dpcore.gaussian_epsilon(1e-5, sigma=sigma))
    assert float(t.loc["Gaussian", col]) == pytest.approx(gauss, rel=1e-4)
    stair = optimize.brentq(lambda e: float(r2dp.staircase_usefulness(e, gamma=1.0)) - 0.95, 0.1, 20, xtol=1e-12)
    assert float(t.loc["Staircase", col]) == pytest.approx(stair, rel=1e-4)
    rows = ng.epsilon_for_accuracy(theta=1.0, confidence=0.95, mechanisms=["brdp", "brdp_paper"]).set_index("label")
    for label in rows.index:
        assert float(t.loc[label, col]) == pytest.approx(float(rows.loc[label, "epsilon"]), rel=1e-4)
    assert t.loc["SVT, exponential noise + optimal correction", col] == "n/a"


def test_reverse_table_and_meaning_match_dpcore(default_page):
    at = default_page
    rev = _table(at, 1)
    assert float(rev.loc["Laplace", "accuracy"].rstrip(" %")) == pytest.approx(100 * (1 - math.exp(-1)), abs=0.006)
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Largest factor on an observer's odds, e^ε"]) == pytest.approx(math.e, rel=1e-3)
    post = float(dpcore.posterior_bound(0.01, 1.0))
    assert float(metrics["Largest posterior from a 1 % prior"].rstrip(" %")) == pytest.approx(100 * post, rel=1e-2)


# (query that makes the control visible, widget kind, key, new value)
CONTROLS = [
    ({}, "select_slider", "theta", 2.0),
    ({}, "select_slider", "conf", 0.9),
    ({}, "select_slider", "sens", 2.0),
    ({}, "select_slider", "delta", 1e-3),
    ({}, "radio", "kernel", "laplace"),
    ({}, "select_slider", "eps", 2.0),
    ({}, "radio", "req", "topc"),
    ({"req": "relative"}, "select_slider", "alpha", 0.2),
    ({"req": "relative"}, "select_slider", "x", 50.0),
    ({"req": "relative"}, "number_input", "seed", 5),
    ({"req": "topc"}, "select_slider", "margin", 10.0),
    ({"req": "topc"}, "select_slider", "c", 2),
    ({"req": "topc"}, "select_slider", "k", 20),
]


@pytest.mark.slow
@pytest.mark.parametrize("query,kind,key,value", CONTROLS, ids=[f"{c[2]}-{c[0].get('req', 'error')}" for c in CONTROLS])
def test_each_control_changes_the_numbers(query, kind, key, value):
    at = open_page(PAGE, query)
    before = shown_numbers(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert shown_numbers(at) != before


@pytest.mark.slow
def test_topc_table_matches_dpcore():
    at = open_page(PAGE, {"req": "topc", "margin": "5", "conf": "0.9"})
    assert not at.exception and not at.error
    t = _table(at)
    ref = ng.epsilon_for_accuracy(requirement="topc", theta=5.0, confidence=0.9, mechanisms=["svt_exp", "svt_laplace"])
    for _, row in ref.iterrows():
        assert float(t.loc[row["label"], "smallest ε"]) == pytest.approx(row["epsilon"], rel=1e-4)
    assert t.loc["Laplace", "smallest ε"] == "n/a"


@pytest.mark.parametrize("query,needle", [
    ({"req": "foo"}, "req=foo"),
    ({"theta": "-1"}, "theta=-1"),
    ({"conf": "abc"}, "conf=abc"),
    ({"eps": "1e9"}, "eps=1e9"),
])
def test_hostile_links_show_a_message_and_the_page_works(query, needle):
    at = open_page(PAGE, query)
    assert not at.exception
    assert any(needle in e.value for e in at.error), [e.value for e in at.error]
    assert len(at.dataframe) == 3
    assert float(_table(at).loc["Laplace", "smallest ε"]) == pytest.approx(math.log(20), rel=1e-4)


@pytest.mark.slow
def test_paper_accountant_warning_where_it_underreports():
    # θ = 0.3 at 90 % with the Laplace kernel: the paper's BR-DP plan breaks its δ (exact δ ≈ 3× the target)
    at = open_page(PAGE, {"theta": "0.3", "conf": "0.9", "kernel": "laplace"})
    assert not at.exception and not at.error
    texts = [w.value for w in at.warning]
    assert any("under-reports" in w for w in texts), texts
    assert _table(at).loc["BR-DP (paper's accountant)", "privacy sound"].startswith("NO")
