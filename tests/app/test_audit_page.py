"""AppTest of the Privacy audit page: renders, controls move the numbers, numbers match dpcore, the counterexample."""

from __future__ import annotations

import json

import pytest

from app.notation import number
from dpcore import audit as dpaudit
from dpcore import brdp, r2dp
from tests.app.conftest import open_page, page_ok, shown_metrics, shown_numbers

PAGE = "audit.py"
SMALL = {"draws": "10000"}  # small samples keep each run fast


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_renders_at_defaults():
    at = open_page(PAGE)
    page_ok(at)
    m = shown_metrics(at)
    assert m["claimed ε"] == "1" and m["verdict"] == "consistent"
    assert len(_charts(at)) == 2  # panel 3 (bound vs n) only when asked for
    assert at.success  # the "consistent" message


def test_bound_vs_n_panel_on_request_never_beats_the_claim():
    at = open_page(PAGE, {"curve": "true"})
    page_ok(at)
    charts = _charts(at)
    assert len(charts) == 3
    m = shown_metrics(at)
    assert float(m["ε lower bound (95.0 % conf.)"]) <= 1.0


# (widget kind, key, new value, URL query that shows the control)
CONTROLS = [
    ("radio", "mech", "rr", {}),
    ("select_slider", "eps", 2.0, {}),
    ("select_slider", "delta", 1e-3, {}),
    ("select_slider", "sens", 2.0, {}),
    ("select_slider", "draws", 30_000, {}),
    ("select_slider", "level", 0.99, {}),
    ("number_input", "seed", 5, {}),
    ("select_slider", "atheta", 0.5, {"mech": "brdp"}),
    ("select_slider", "ratio", 0.3, {"mech": "brdp_paper"}),
    ("toggle", "curve", True, {}),
]


@pytest.mark.parametrize("kind,key,value,query", CONTROLS, ids=[c[1] for c in CONTROLS])
def test_each_control_changes_the_numbers(kind, key, value, query):
    at = open_page(PAGE, {**SMALL, **query})
    page_ok(at)
    before = _shown(at), [json.dumps(c) for c in _charts(at)]
    getattr(at, kind)(key=key).set_value(value).run()
    page_ok(at)
    after = _shown(at), [json.dumps(c) for c in _charts(at)]
    assert after[0] != before[0]
    assert after[1] != before[1]


def _shown(at) -> tuple:
    """Metrics, tables and the captions (the mechanism's setting line carries its noise scale: ε_lb itself is
    invariant under Δ for Laplace, since the outputs just rescale)."""
    return shown_numbers(at) + tuple(c.value for c in at.caption)


@pytest.mark.parametrize("mech", dpaudit.MECHANISMS)
def test_every_mechanism_renders_and_matches_dpcore(mech):
    eps, delta, n, seed = 2.0, 1e-3, 10_000, 3
    at = open_page(PAGE, {"mech": mech, "eps": str(eps), "delta": str(delta), "draws": str(n), "seed": str(seed)})
    assert not at.exception, at.exception
    res = dpaudit.audit(mech, epsilon=eps, delta=delta, n=n, rng=seed, alpha=0.05, theta=1.0, epsilon_y_ratio=0.6)
    m = shown_metrics(at)
    assert m["claimed ε"] == number(res.claimed_epsilon, 4)
    assert m["ε lower bound (95.0 % conf.)"] == number(res.epsilon_lb, 4)
    assert m[f"δ lower bound at ε = {res.claimed_epsilon:.3g}"] == number(res.delta_lb, 4)
    assert m["verdict"] == ("VIOLATION" if res.caught else "consistent")


def test_r2dp_claim_is_the_exact_epsilon_of_the_law():
    at = open_page(PAGE, {"mech": "r2dp", "eps": "3", **SMALL})
    law = r2dp.Gamma(2.0, float(r2dp.gamma_theta_for_epsilon(2.0, epsilon=3.0)))
    assert shown_metrics(at)["claimed ε"] == number(r2dp.epsilon(law), 4)


def test_counterexample_preset_is_caught():
    at = open_page(PAGE, SMALL)
    at.button(key="preset").click().run()
    assert not at.exception, at.exception
    m = shown_metrics(at)
    assert m["verdict"] == "VIOLATION"
    plan = brdp.make_plan(kernel="gaussian", epsilon=0.1, delta=1e-3, theta=0.1, sensitivity=5.0, epsilon_y=0.06)
    assert m["δ at the claimed ε — paper's accountant"] == number(plan.paper_delta, 3)
    assert m["δ at the claimed ε — exact"] == number(plan.exact_delta, 3)
    assert float(m["δ lower bound at ε = 0.1"]) > 0.99
    assert any("claim is beaten" in e.value for e in at.error)
    assert any("under-reports" in w.value for w in at.warning)


def test_audit_every_mechanism_flags_the_counterexample():
    at = open_page(PAGE, SMALL)
    assert not at.dataframe
    at.button(key="all").click().run()
    assert not at.exception, at.exception
    df = at.dataframe[0].value
    assert len(df) == len(dpaudit.MECHANISMS) + 1
    assert list(df["verdict"]).count("VIOLATION") == 1 and df["verdict"].iloc[-1] == "VIOLATION"
    assert len(at.error) == 1 and "at its counterexample is caught" in at.error[0].value
    assert "BR-DP (paper's accountant)" in at.error[0].value
    # the table stays after another control moves
    at.select_slider(key="eps").set_value(0.5).run()
    assert at.dataframe and not at.exception


def test_bad_link_shows_a_message_and_the_page_keeps_working():
    at = open_page(PAGE, {"mech": "nope", "draws": "7", **{}})
    assert not at.exception, at.exception
    assert len(at.error) == 2
    assert shown_metrics(at)["verdict"] == "consistent"


def test_screen_shows_display_names_only():
    """No registry id (brdp_paper, svt_exp, rr …) anywhere on screen, in the options or in the table."""
    import re

    from dpcore import mechanisms

    at = open_page(PAGE, SMALL)
    at.button(key="all").click().run()
    assert not at.exception, at.exception
    texts = [m.label for m in at.metric] + [c.value for c in at.caption] + [e.value for e in at.error]
    texts += [str(o) for o in at.radio(key="mech").options]
    texts += [str(v) for v in at.dataframe[0].value["mechanism"]]
    ids = [m for m in mechanisms.IDS if "_" in m or m == "rr"] + list(mechanisms.ALIASES)
    for text in texts:
        for mid in ids:
            assert not re.search(rf"\b{re.escape(mid)}\b", text), (mid, text)
