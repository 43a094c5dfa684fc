"""AppTest for the R²DP page (pages/r2dp.py): defaults, every control, numbers vs dpcore, errata, reproduce view."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpcore import r2dp
from tests.app.conftest import open_page, shown_metrics, shown_numbers

PAGE = "r2dp.py"


def _charts(at) -> tuple:
    return tuple(c.proto.spec for c in at.get("plotly_chart"))


def _chart_text(at, i: int) -> str:
    """The i-th chart's figure as readable JSON (Plotly escapes "/" and non-ASCII characters; a long title's line
    breaks read as spaces)."""
    return json.dumps(json.loads(_charts(at)[i]), ensure_ascii=False).replace("<br>", " ")


DEFAULT = {"eps": "5"}  # the page starts at ε = 5 (it says why on screen); the catalogue default is 1


def test_renders_at_defaults_without_error_or_warning():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # sound defaults: no erratum warning
    # the idea's picture, then part "law": noise, privacy loss, MGF, scale law, releases, reuse
    assert len(_charts(at)) == 7
    assert {
        "exact ε — this law",
        "U(γ) — this law",
        "Laplace U(γ) at ε",
        "best R²DP law (two-point) U(γ)",
        "optimal staircase U(γ)",
    } <= set(shown_metrics(at))
    assert shown_metrics(at)["exact ε — this law"] == "5.0000"
    # the per-family optima are in part families
    assert not any("(Algorithm 1)" in label for label in shown_metrics(at))
    text = " ".join(m.value for m in at.markdown)
    assert "e^{t u}" not in text.replace(r"e^{t u}\right]", "")  # raw braces only inside rendered LaTeX


@pytest.mark.parametrize("part,charts", [("families", 4), ("explorers", 3)])
def test_other_parts_render_without_error(part, charts):
    at = open_page(PAGE, {"part": part})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(_charts(at)) == charts


# (query that makes the control visible, widget kind, key, new value)
EXPLORERS = {"part": "explorers"}
CONTROLS = [
    ({}, "select_slider", "eps", 2.0),
    (EXPLORERS, "select_slider", "eps", 2.0),
    ({}, "select_slider", "gamma", 0.5),
    ({}, "select_slider", "sens", 2.0),
    ({}, "radio", "fam", "uniform"),
    ({}, "toggle", "lock", False),
    ({}, "select_slider", "shape", 5.0),
    ({"lock": "false"}, "select_slider", "gscale", 5.0),
    ({"fam": "uniform"}, "select_slider", "ulo", 2.0),
    ({"fam": "uniform"}, "select_slider", "uhi", 50.0),
    ({"fam": "truncnorm"}, "select_slider", "nmu", -1.0),
    ({"fam": "truncnorm"}, "select_slider", "nsigma", 0.5),
    ({"fam": "truncnorm"}, "select_slider", "ncut", 1.0),
    (EXPLORERS, "select_slider", "u0", 0.2),
    (EXPLORERS, "select_slider", "u1", 10.0),
    (EXPLORERS, "select_slider", "p0", 0.6),
    ({"fam": "two_point"}, "select_slider", "u1", 10.0),
    ({"fam": "two_point", "lock": "false"}, "select_slider", "p0", 0.6),
    ({"fam": "laplace", "lock": "false"}, "select_slider", "u0", 0.2),
    ({}, "select_slider", "nrel", 100),
    ({}, "toggle", "reveal", True),
    ({}, "number_input", "seed", 7),
    ({}, "radio", "view", "reproduce"),
    ({"view": "reproduce", "part": "figures"}, "radio", "f3g", "0.5"),
]


@pytest.mark.parametrize("query,kind,key,value", CONTROLS, ids=[f"{c[2]}-{'-'.join(c[0].values())}" for c in CONTROLS])
def test_each_control_changes_the_numbers_or_charts(query, kind, key, value):
    at = open_page(PAGE, query)
    before = (shown_numbers(at), _charts(at))
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    after = (shown_numbers(at), _charts(at))
    if key in ("f3g", "seed"):
        assert after[1] != before[1]
    else:
        assert after[0] != before[0], key


@pytest.mark.parametrize(
    "query,kind,key,value",
    [
        ({"part": "families"}, "radio", "mapfam", "uniform"),
        ({}, "toggle", "logf", True),
        ({"view": "reproduce", "part": "figures"}, "radio", "f3f", "uniform"),
        ({"view": "reproduce", "part": "experiments"}, "radio", "squery", "average"),
    ],
    ids=["mapfam", "logf", "f3f", "query"],
)
def test_display_controls_change_a_chart(query, kind, key, value):
    at = open_page(PAGE, query)
    before = _charts(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert _charts(at) != before


def test_metrics_match_dpcore_for_a_free_gamma_law():
    at = open_page(PAGE, {"fam": "gamma", "lock": "false", "shape": "3", "gscale": "0.5", "gamma": "0.5", "sens": "1"})
    values = shown_metrics(at)
    law = r2dp.Gamma(3.0, 0.5)
    assert values["exact ε — this law"] == f"{r2dp.epsilon(law, sensitivity=1.0):.4f}" == "1.6219"  # 4 ln 1.5
    # U = 1 − (1 + sγ)^(−ν) (Thm 4.5) written out
    assert values["U(γ) — this law"] == f"{1 - (1 + 0.5 * 0.5) ** -3:.4f}" == "0.4880"
    assert values["Laplace U(γ) at ε"] == f"{1 - np.exp(-5.0 * 0.5):.4f}"
    assert not at.error


def test_lock_solves_the_scale_to_the_slider_epsilon():
    for fam in ("two_point", "gamma", "uniform", "truncnorm", "combo"):
        at = open_page(PAGE, {"fam": fam, "eps": "3"})
        assert not at.exception and not at.error, fam
        assert shown_metrics(at)["exact ε — this law"] == "3.0000", fam


def test_over_budget_law_is_flagged_when_unlocked():
    at = open_page(PAGE, {"fam": "combo", "lock": "false", "shape": "100", "gscale": "100"})
    assert any("more than your budget" in w.value for w in at.warning)


def test_two_point_formula_warning_where_the_paper_understates_epsilon():
    at = open_page(PAGE, {"part": "explorers", "u0": "0.2", "u1": "0.8", "p0": "0.5"})
    assert not at.exception
    values = shown_metrics(at)
    assert values["ε (Thm 4.4) — paper's accountant"] == "0.544341"
    # exact ε of the two-point law written out (Cor. 3.3): ln(E[u] / E[u e^(−u)])
    exact = np.log((0.5 * 0.2 + 0.5 * 0.8) / (0.5 * 0.2 * np.exp(-0.2) + 0.5 * 0.8 * np.exp(-0.8)))
    assert values["ε (Thm 4.4) — exact"] == f"{exact:.6f}" == "0.647774"
    assert values["brute-force sup of the privacy-loss profile"] == "0.647774"
    assert any("under-reports" in w.value for w in at.warning)
    assert not at.error  # the values do not straddle u* = 5: the explorer explains it with an info box
    assert any("do not straddle" in i.value for i in at.info)


def test_bad_family_parameters_show_the_value_error_and_the_page_keeps_working():
    at = open_page(PAGE, {"fam": "uniform", "ulo": "10", "uhi": "5"})
    assert not at.exception, at.exception
    assert any("b must be > a" in e.value for e in at.error)
    assert "Laplace U(γ) at ε" in shown_metrics(at)  # the law-independent headline numbers still show
    at = open_page(PAGE, {"fam": "uniform", "ulo": "10", "uhi": "5", "part": "explorers"})
    assert not at.exception, at.exception
    assert len(_charts(at)) == 2  # the law-independent panels still render


@pytest.mark.parametrize(
    "part,charts", [("headlines", 2), ("errata", 1), ("figures", 3), ("experiments", 4), ("gaussian", 1)]
)
def test_reproduce_parts_render(part, charts):
    at = open_page(PAGE, {"view": "reproduce", "part": part})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(_charts(at)) == charts  # the idea's picture + the part's figures


def test_reproduce_view_shows_the_headline_points_and_errata():
    at = open_page(PAGE, {"view": "reproduce"})
    values = shown_metrics(at)
    assert values["best Uniform law, as % of Laplace (paper: 230 %)"] == "230.0 %"
    assert values["best Gamma law's gain over Laplace (paper: up to 125 %)"] == "+123.9 %"
    at = open_page(PAGE, {"view": "reproduce", "part": "errata"})
    values = shown_metrics(at)
    assert values["ε (Lemma 4.10) — exact"] == "1.180112"
    assert values["ε (Lemma 4.10) — paper's accountant"] == "1.170300"
    warnings = " ".join(w.value for w in at.warning)
    assert "Lemma 4.10" in warnings and "u₀ = 0.2" in warnings
    at = open_page(PAGE, {"view": "reproduce", "part": "gaussian"})
    values = shown_metrics(at)
    assert values["exact δ of that Gaussian"] == "0.0069" and values["δ as the paper's calibration claims"] == "0.0500"
    at = open_page(PAGE, {"view": "reproduce", "part": "experiments"})
    assert any("Stand-in data" in m.value for m in at.markdown)


# ----------------------------------------------------------------------------------- the panels' own controls


def _locked_gamma(eps: float = 5.0) -> r2dp.Gamma:
    """The default law: Gamma ν = 2 with s solved for the exact ε (s = expm1(ε/(ν+1))/Δ, Thm 4.5)."""
    return r2dp.Gamma(2.0, float(np.expm1(eps / 3.0)))


def test_scale_panel_draws_the_law_of_the_laplace_scale():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    text = " ".join(_chart_text(at, i) for i in range(len(_charts(at))))
    assert "b = 1/u (Laplace scale)" in text and "Laplace b* = Δ/ε = 0.2" in text
    at = open_page(PAGE, {"fam": "two_point"})  # atoms 1/u of a discrete law
    assert not at.exception and not at.error
    assert "P(b = atom)" in " ".join(_chart_text(at, i) for i in range(len(_charts(at))))


def test_sample_button_draws_a_hundred_thousand_and_back():
    at = open_page(PAGE)
    few = "sampled share within ±γ (20,000 draws)"
    assert few in shown_metrics(at)
    charts = _charts(at)
    at.button(key="r2dp_many").click().run()
    assert not at.exception, at.exception
    many = shown_metrics(at)["sampled share within ±γ (100,000 draws)"]
    exact = 1 - (1 + _locked_gamma().theta * 0.1) ** -2.0
    assert abs(float(many) - exact) < 4 * np.sqrt(exact * (1 - exact) / 100_000)
    assert _charts(at)[1] != charts[1]
    at.select_slider(key="eps").set_value(2.0).run()  # the choice persists over other moves
    assert any("(100,000 draws)" in label for label in shown_metrics(at))
    at.button(key="r2dp_few").click().run()
    assert not at.exception and few in shown_metrics(at)


def test_release_button_adds_one_release_and_keeps_u_secret():
    at = open_page(PAGE, {"nrel": "100"})
    assert shown_metrics(at)["secret u of the latest release"] == "hidden"
    before = shown_metrics(at)["latest release"]
    at.button(key="r2dp_release").click().run()
    assert not at.exception, at.exception
    values = shown_metrics(at)
    assert "share within ±γ after 101 releases" in values
    law = _locked_gamma()
    expected = 100.0 + r2dp.sample_noise(1, law, np.random.default_rng([0, 1]))[0]  # release 101: rng (seed, 1)
    assert values["latest release"] == f"{expected:.4f}" != before
    assert values["secret u of the latest release"] == "hidden"
    assert not any("secret u" in df.value.columns for df in at.dataframe)
    at.button(key="r2dp_release").click().run()
    assert "share within ±γ after 102 releases" in shown_metrics(at)
    at.toggle(key="reveal").set_value(True).run()  # revealing shows the secret of exactly that release
    u = law.sample(1, np.random.default_rng([0, 2]))[0]
    assert shown_metrics(at)["secret u of the latest release"] == f"{u:.4f}"
    table = next(df.value for df in at.dataframe if "secret u" in df.value.columns)
    assert table["release"].iloc[-1] == 102 and table["secret u"].iloc[-1] == pytest.approx(u)
    assert any("breaks R²DP" in w.value for w in at.warning)


def test_families_part_compares_every_family_including_gamma_plus_truncated_normal():
    at = open_page(PAGE, {"part": "families"})
    values = shown_metrics(at)
    best = r2dp.optimize(epsilon=5.0, gamma=0.1, sensitivity=1.0, family="gamma")
    assert values["best gamma U(γ) (Alg. 1)"] == f"{best.usefulness:.4f}"
    table = at.dataframe[0].value
    combo = table.set_index("mechanism").loc["Gamma + truncated normal (Algorithm 1)", "U(γ)"]
    assert combo == pytest.approx(r2dp.optimize(epsilon=5.0, gamma=0.1, family="combo").usefulness)
    vs_eps, vs_g = _chart_text(at, 1), _chart_text(at, 2)
    assert "Gamma + truncated normal* (Algorithm 1)" in vs_eps and "Gamma + truncated normal* (Algorithm 1)" in vs_g
    at.radio(key="mapfam").set_value("combo").run()
    assert not at.exception and not at.error
    assert "Region of improvement of Gamma + truncated normal* (Algorithm 1)" in _chart_text(at, 3)


# ----------------------------------------------------------------------------------- compute tables of the new panels


def test_gaussian_appendix_numbers_against_closed_forms():
    from scipy import stats

    from app.compute import r2dp as compute

    eps, delta = np.log(2.0), 0.05
    cal = compute.gaussian_appendix(eps, delta, 1.0)
    k = stats.norm.isf(delta)
    assert cal.kappa == pytest.approx((k + np.sqrt(k * k + 2 * eps)) / (2 * eps), rel=1e-14)
    assert cal.kappa == pytest.approx(2.645674, abs=1e-6)  # the paper's "about 2.65"
    assert cal.delta_printed == pytest.approx(0.05, abs=1e-12)
    # exact δ of N(0, σ²) at ε (Balle & Wang 2018, Thm 8), Δq = 1
    s = cal.kappa
    exact = stats.norm.cdf(1 / (2 * s) - eps * s) - np.exp(eps) * stats.norm.cdf(-1 / (2 * s) - eps * s)
    assert cal.delta_exact == pytest.approx(exact, rel=1e-6) and round(cal.delta_exact, 4) == 0.0069
    assert cal.usefulness == pytest.approx(1 - 2 * stats.norm.sf(1.0 / s), rel=1e-12)


def test_reuse_table_against_the_gamma_closed_form():
    from app.compute import r2dp as compute

    key = compute.law_key("gamma", lock=False, epsilon=5.0, sensitivity=1.0, k=3.0, theta=0.5)
    assert key == ("gamma", False, None, None, 3.0, 0.5)  # an unlocked Gamma law is its shape and scale alone
    df = compute.reuse(key, 1.0, 4)
    n = df["queries"].to_numpy()
    # Gamma(k, θ): M⁽ⁿ⁾(t) ∝ (1 − θt)^(−k−n), so one reused draw costs (k + n) ln(1 + nΔqθ)
    assert df["one reused draw"].to_numpy() == pytest.approx((3 + n) * np.log1p(0.5 * n), rel=1e-12)
    assert df["fresh draws"].to_numpy() == pytest.approx(n * 4 * np.log(1.5), rel=1e-12)
    assert df["one reused draw"].iloc[1] == pytest.approx(5 * np.log(2), rel=1e-12)  # 3.465736 > 3.243721 fresh


def test_fig5_and_fig6_tables():
    from app.compute import r2dp as compute

    df = compute.fig5()
    assert df["laplace_usefulness"].to_numpy() == pytest.approx(1 - np.exp(-df["epsilon"] * df["g"]), rel=1e-12)
    assert np.all(df["usefulness"] >= df["laplace_usefulness"] - 1e-12)
    top = df[(df["epsilon"] == 10.0) & (df["g"] == 0.05)].iloc[0]
    assert top["ratio"] - 1 == pytest.approx(1.239, abs=1e-3)  # Fig. 5's "up to 125 %"
    acc = compute.fig6("average", 0)
    se = np.sqrt(acc["exact"] * (1 - acc["exact"]) / 10_000)
    assert np.all(np.abs(acc["accuracy"] - acc["exact"]) <= 4.5 * se + 1e-12)
    lap = acc[acc["mechanism"] == "laplace"]
    assert lap["exact"].to_numpy() == pytest.approx(1 - np.exp(-lap["epsilon"] * lap["gamma"] / 0.2), rel=1e-12)


def test_headline_panel_says_where_the_numbers_come_from_and_shows_the_range():
    at = open_page("r2dp.py", {"view": "reproduce", "part": "Headlines"})
    assert not at.exception and not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "PINQ" in text and "for some pair" in text and "6.99" in text
    from app.compute import r2dp as compute

    rng = compute.headline_range()
    assert rng.low == pytest.approx(1.0, abs=1e-3) and (rng.high_epsilon, rng.high_gamma) == (10.0, 0.01)
    assert rng.high == pytest.approx(6.994, abs=2e-3)


def test_fig4_panel_shows_the_global_optimum_and_the_cap_at_eps_2():
    at = open_page("r2dp.py", {"view": "reproduce", "part": "Figures"})
    assert not at.exception and not at.error
    table = next(df.value for df in at.dataframe if "best of all laws / Laplace" in df.value.columns)
    assert float(table["best of all laws / Laplace"].max()) == pytest.approx(1.1935, abs=1e-3)
    cap = next(c for c in table.columns if c.startswith("cap "))  # its e^(ε−1) is typeset on screen
    assert float(table[cap].iloc[0]) == pytest.approx(1.3728, abs=1e-3)
