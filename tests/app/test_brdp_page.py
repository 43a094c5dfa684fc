"""AppTest of the BR-DP page (Jiang et al. 2024): renders, every control moves the numbers, numbers match dpcore,
the paper-under-reports warning appears where the paper's model is not a bound, the idea comes before the numbers,
the reproduce view follows no control and renders every part."""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pytest

from app import params
from app.exercises import brdp as brdp_exercises
from app.notation import number
from dpcore import brdp
from tests.app.conftest import COUNTEREXAMPLE_B, open_page, page_ok, shown_metrics, shown_numbers

PAGE = "brdp.py"


def _other(options, current):
    return options[0] if current != options[0] else options[-1]


def test_renders_at_defaults_with_sound_plan():
    at = open_page(PAGE)
    page_ok(at)
    values = shown_metrics(at)
    assert values["δ at ε = 1 — exact"] == "10⁻⁵"
    assert not any("under-reports" in w.value for w in at.warning), "no under-reports warning at the sound defaults"
    # the idea's picture, then the Mechanism tab only (lazy tabs)
    assert [c.key for c in at.get("plotly_chart")] == [
        "chart-recycling-picture",
        "chart-recycler-stream",
        "chart-output-density",
    ]


@pytest.mark.parametrize(
    "key,options",
    [
        ("eps", params.EPSILON_OPTIONS),
        ("delta", params.DELTA_OPTIONS),
        ("theta", params.log_grid(0.1, 100.0)),
        ("sens", params.SENSITIVITY_OPTIONS),
    ],
)
def test_each_budget_slider_changes_the_numbers(key, options):
    at = open_page(PAGE, {"acct": "paper"})  # the paper's optimiser is fast: keep the test quick
    before = shown_numbers(at)
    slider = at.select_slider(key=key)
    slider.set_value(_other(options, slider.value)).run()
    page_ok(at)
    assert shown_numbers(at) != before


@pytest.mark.parametrize("key,value", [("kernel", "laplace"), ("acct", "paper"), ("calib", "classic")])
def test_each_choice_changes_the_numbers(key, value):
    at = open_page(PAGE)
    before = shown_numbers(at)
    at.radio(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert shown_numbers(at) != before


def test_manual_split_and_q_override_change_the_numbers():
    at = open_page(PAGE, {"acct": "paper"})
    before = shown_numbers(at)
    at.toggle(key="split").set_value(True).run()
    on = shown_numbers(at)
    assert on != before
    at.select_slider(key="share").set_value(0.5).run()
    shared = shown_numbers(at)
    assert shared != on
    at.toggle(key="qov").set_value(True).run()
    assert shown_numbers(at) != shared
    at.select_slider(key="q").set_value(0.9).run()
    assert not at.exception
    assert "q = 0.9" in " ".join(m.value for m in at.markdown)


def test_seed_changes_the_simulated_counters():
    at = open_page(PAGE)
    before = shown_numbers(at)
    at.number_input(key="seed").set_value(7).run()
    page_ok(at)
    assert shown_numbers(at) != before


def test_compositions_change_the_privacy_tab():
    at = open_page(PAGE, {"part": "Privacy"})
    page_ok(at)
    before = shown_numbers(at)
    at.select_slider(key="T").set_value(100).run()
    page_ok(at)
    assert shown_numbers(at) != before
    assert "ε after T = 100, exact" in shown_metrics(at)


@pytest.mark.parametrize(
    "key,value,query",
    [
        ("p", 0.1, "count"),
        ("query", "sum", "count"),
        ("n", 10_000.0, "count"),
        ("sigx", 1.0, "sum"),
        ("pc", 0.5, "count"),
    ],
)
def test_subsampling_controls_change_the_subsampling_tab(key, value, query):
    at = open_page(PAGE, {"part": "Subsampling", "acct": "paper", "query": query})
    page_ok(at)
    before = shown_numbers(at)
    widget = at.radio(key=key) if key == "query" else at.select_slider(key=key)
    widget.set_value(value).run()
    page_ok(at)
    assert shown_numbers(at) != before


def test_metrics_match_dpcore():
    at = open_page(PAGE, {"eps": "2", "delta": "1e-05", "acct": "paper", "theta": "1", "sens": "1"})
    page_ok(at)
    plan = brdp.optimize(epsilon=2.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="paper")
    values = shown_metrics(at)
    assert values["BR-DP: chance within ±θ"] == f"{plan.acceptance:.4f}" == "0.4663"  # Fig. 2(b)
    assert values["noise's share of ε"] == number(plan.epsilon_y / 2.0, 3)
    assert values["δ at ε = 2 — exact"] == number(plan.exact_delta, 3)
    assert values["plain DP: chance within ±θ"] == f"{plan.dp_acceptance:.4f}"
    assert f"q = {plan.q:.3g}" in " ".join(m.value for m in at.markdown)


def test_counterexample_shows_the_paper_underreports_warning():
    at = open_page(PAGE, COUNTEREXAMPLE_B)
    assert not at.exception, at.exception
    plan = brdp.make_plan(epsilon=5.0, delta=1e-8, sensitivity=0.2, theta=3.0, kernel="gaussian", epsilon_y=1.5)
    assert plan.exact_delta > 100 * 1e-8  # 7.5e-6, 750 times the target
    values = shown_metrics(at)
    assert values["δ at ε = 5 — exact"] == number(plan.exact_delta, 3)
    assert values["δ at ε = 5 — paper's accountant"] == number(plan.paper_delta, 3)
    assert any("under-reports" in w.value for w in at.warning)


def test_preset_button_loads_counterexample_a():
    at = open_page(PAGE)
    at.button(key="preset0").click().run()
    assert not at.exception, at.exception
    assert at.select_slider(key="eps").value == 0.1
    assert at.select_slider(key="sens").value == 5.0
    assert shown_metrics(at)["δ at ε = 0.1 — exact"] == "1"  # disjoint output ranges: exact δ = 1
    assert any("under-reports" in w.value for w in at.warning)
    at.button(key="preset3").click().run()  # back to the sound defaults
    assert not at.exception
    assert not any("under-reports" in w.value for w in at.warning)


@pytest.mark.parametrize("part", [None, "Figs 5-6", "Fig 7", "Table I"])
def test_reproduce_view_renders(part):
    query = {"view": "reproduce"} | ({"part": part} if part else {})
    at = open_page(PAGE, query)
    page_ok(at)
    assert at.get("plotly_chart") or at.dataframe
    assert not at.metric, "the reproduce view shows no number that follows the sidebar"


def test_reproduce_view_ignores_the_sidebar():
    at = open_page(PAGE, {"view": "reproduce", "part": "Table I", "eps": "3"})
    page_ok(at)
    table = at.dataframe[0].value.set_index("mechanism")
    assert list(table.loc["SMP-Lap-BRDP"]).count("not reproduced") == 2  # said in words, not left blank
    at.select_slider(key="eps").set_value(0.5).run()
    page_ok(at)
    assert at.dataframe[0].value.set_index("mechanism").equals(table)


def test_table1_caption_explains_the_laplace_gap():
    at = open_page(PAGE, {"view": "reproduce", "part": "Table I"})
    page_ok(at)
    caption = " ".join(c.value for c in at.caption)
    # the printed Lap-BRDP row (16.8 / 22.23) is the Laplace kernel alone at ε_y = 0.088 composed by RDP
    p = brdp.make_plan(epsilon=0.1, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="laplace", epsilon_y=0.088, q=0.0)
    e10 = brdp.composed_epsilon(1e-10, compositions=1000, plan=p, accountant="paper", kernel_composition="rdp")
    assert abs(e10 - 22.23) < 0.01 and f"{e10:.2f}" in caption and "19.71" in caption


def _chart(at, name: str) -> dict:
    """The Plotly figure (JSON) of the chart ui.chart drew under ``name``."""
    slug = "chart-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    found = [c for c in at.get("plotly_chart") if c.key == slug]
    assert found, f"no chart {name!r} among {[c.key for c in at.get('plotly_chart')]}"
    return json.loads(found[0].proto.spec)


def _arr(v) -> np.ndarray:
    """A trace's x or y: a list, or Plotly's base64 typed array {dtype, bdata}."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v if v is not None else [])


def test_recycler_player_reveals_the_draws_one_by_one():
    at = open_page(PAGE, {"acct": "paper"})
    page_ok(at)
    total = int(shown_metrics(at)["draws revealed"].split("/")[1])
    assert shown_metrics(at)["draws revealed"] == f"{total} / {total}"  # new settings: the whole run is shown
    at.button(key="rc_reset").click().run()
    page_ok(at)
    assert shown_metrics(at)["draws revealed"] == f"0 / {total}"
    at.button(key="rc_one").click().run()
    assert shown_metrics(at)["draws revealed"] == f"1 / {total}"
    at.button(key="rc_ten").click().run()
    values = shown_metrics(at)
    assert values["draws revealed"] == f"11 / {total}"
    counted = sum(int(values[k]) for k in ("released in-bound", "released out-of-bound", "recycled"))
    assert counted == 11
    shown = sum(len(_arr(t.get("x"))) for t in _chart(at, "recycler stream")["data"] if t.get("name") != "newest draw")
    assert shown == 11
    # the formula column: E[K] = 1 / (1 − (1 − p_θ) q) of the page's plan
    plan = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="paper")
    live = at.table[0].value.set_index("counter")
    assert live.loc["mean draws per release", "formula (expected)"] == pytest.approx(plan.expected_draws)
    at.button(key="rc_playbtn").click().run()  # play: every fragment run reveals one more draw
    page_ok(at)
    assert at.button(key="rc_playbtn").label == "Pause"
    first = int(shown_metrics(at)["draws revealed"].split("/")[0])
    at.run()
    assert int(shown_metrics(at)["draws revealed"].split("/")[0]) == first + 1
    at.button(key="rc_playbtn").click().run()
    assert at.button(key="rc_playbtn").label == "Play"


def test_subsampling_tab_draws_p_star_against_size_and_acceptance_against_eps():
    at = open_page(PAGE, {"part": "Subsampling", "acct": "paper", "query": "count"})
    page_ok(at)
    sizes = _chart(at, "p* vs size")
    names = {t["name"] for t in sizes["data"]}
    assert names == {"count, paper", "count, corrected"}
    corrected = next(t for t in sizes["data"] if t["name"] == "count, corrected")
    xs, ys = list(_arr(corrected["x"])), _arr(corrected["y"])
    assert 1000 in xs  # the sidebar's |X| is on the curve
    sp = brdp.optimal_sampling_rate(
        epsilon=1.0,
        delta=1e-5,
        sensitivity=1.0,
        theta=1.0,
        n_records=1000,
        query="count",
        sigma_x=10.0,
        p_c=0.1,
        mode="corrected",
    )
    assert ys[xs.index(1000)] == pytest.approx(sp.rate)
    acc = _chart(at, "experiment acceptance")
    mechs = {t["name"] for t in acc["data"]}
    assert {"Lap-DP", "Gau-DP", "Lap-BRDP", "Gau-BRDP"} <= mechs
    assert all(0 <= y <= 1 for t in acc["data"] for y in _arr(t["y"]))
    at.radio(key="query").set_value("sum").run()
    page_ok(at)
    assert {t["name"] for t in _chart(at, "p* vs size")["data"]} == {"sum, paper", "sum, corrected"}


def test_recycler_stream_stays_drawable_when_nearly_every_draw_is_recycled():
    """The paper's counterexample (ε = 0.1, θ = 0.1, Δ = 5, paper's accountant): q = 1 and p_θ ≈ 7e-4, so 40
    releases take ~55 000 draws; the stream shows whole releases up to 2 000 draws, the counters still use all."""
    settings = next(e.settings for e in brdp_exercises.EXERCISES if e.id == "brdp-counterexample-a")
    assert settings["eps"] == "0.1" and settings["sens"] == "5" and settings["share"] == "0.6"  # the case above
    at = open_page("brdp.py", dict(settings))
    assert not at.exception, at.exception
    revealed = next(m.value for m in at.metric if m.label == "draws revealed")
    total = int(revealed.split("/")[1])
    assert 0 < total <= 2_000, revealed


def test_the_experiment_charts_take_the_full_width():
    """Side by side, the sandbox's box chart (six boxes with their acceptance figures) and its six curves were
    squeezed into half the width each: one is drawn under the other."""
    at = open_page("brdp.py", {"part": "Subsampling"})
    assert not at.exception, at.exception
    inside: dict[str, bool] = {}

    def walk(node, in_column: bool) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", None) == "plotly_chart":
                inside[json.loads(child.proto.spec)["layout"]["title"]["text"]] = in_column
            walk(child, in_column or getattr(child, "type", None) == "column")

    walk(at.main, False)
    sandbox = {t: c for t, c in inside.items() if "synthetic records" in t or t.startswith("Acceptance against ε")}
    assert len(sandbox) == 2 and not any(sandbox.values()), inside


def test_kernel_delta_y_is_a_control_that_recalibrates_the_kernel():
    """Alg. 1's δ_y, separate from δ: off by default (δ_y = δ), in the address when on, and the plan follows it."""
    at = open_page(PAGE, {"acct": "paper"})
    page_ok(at)
    before = shown_numbers(at)
    at.toggle(key="dyov").set_value(True).run()
    at.select_slider(key="dy").set_value(1e-8).run()
    page_ok(at)
    assert shown_numbers(at) != before
    plan = brdp.optimize(
        epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="paper", delta_y=1e-8
    )
    assert f"{plan.acceptance:.4f}" in shown_metrics(at).values()
    assert at.query_params["dy"] in ("1e-08", ["1e-08"]) and at.query_params["dyov"] in ("true", ["true"])


def test_composition_tab_shows_remarks_3_and_4_beside_the_exact_composition():
    at = open_page(PAGE, {"part": "Privacy", "T": "100", "delta": "0.001"})
    page_ok(at)
    table = next(
        df.value for df in at.dataframe if "accountant" in df.value.columns and "ε after T" in df.value.columns
    )
    rows = table.set_index("accountant")
    exact = rows.loc["exact (PLD of the whole mechanism)", "ε after T"]
    basic = rows.loc["Remark 3: basic, T·ε", "ε after T"]
    adv = rows.loc["Remark 4: advanced", "ε after T"]
    assert basic == pytest.approx(100 * 1.0)
    assert exact <= adv and exact <= basic  # neither remark beats the exact composition at the same total δ
    assert rows.loc["Remark 4: advanced", "total δ"] == pytest.approx(1e-3, rel=1e-9)
    plan = brdp.optimize(epsilon=1.0, delta=1e-3, sensitivity=1.0, theta=1.0, kernel="gaussian")
    e_each = brdp.composed_epsilon(1e-3 / 200, compositions=1, plan=plan)
    assert adv == pytest.approx(
        brdp.advanced_composition(e_each, 1e-3 / 200, compositions=100, delta_slack=5e-4)[0], rel=1e-12
    )


def test_fig6_panel_says_fig6b_does_not_reproduce():
    at = open_page(PAGE, {"view": "reproduce", "part": "Figs 5-6"})
    page_ok(at)
    text = " ".join(w.value for w in at.warning)
    assert "Fig. 6(b) does not reproduce" in text and "0.4749" in text and "0.0786" in text


def test_the_default_plan_meets_its_target_delta_exactly():
    """The page's plan at ε = 1, δ = 10⁻⁵ (the defaults, which the course also uses): its exact δ, the number the page
    reports, is at most the target with no tolerance (a relative tolerance of 10⁻⁶ once let 1.0000009949·10⁻⁵
    through), and the plain kernel it is compared with is within it too."""
    from app.compute import brdp as compute

    plan = compute.plan(compute.PlanKey(1.0, 1e-5, 1.0, 1.0, "gaussian"))
    assert plan.exact_delta <= 1e-5 and plan.sound
    plain = compute.build_plan(compute.PlanKey(1.0, 1e-5, 1.0, 1.0, "gaussian", share=1.0, q=0.0))
    assert plain.exact_delta <= 1e-5 and plain.sound
    table = compute.audit(compute.PlanKey(1.0, 1e-5, 1.0, 1.0, "gaussian"))
    assert (table["status"] == "sound").sum() >= 3, table  # the exact optimum, the plain kernel and this plan


def test_privacy_profile_panel_names_prop_3_and_says_it_fails():
    at = open_page(PAGE, {"part": "Privacy"})
    page_ok(at)
    assert any("Proposition 3" in c.value and "does not hold in general" in c.value for c in at.caption)


def test_remark_4_has_no_bound_where_one_release_cannot_reach_its_share_of_delta():
    """The paper's accountant approves a plan whose exact δ per release never comes down to δ/(2T): advanced
    composition has no finite ε there, and the table says ∞ instead of the panel failing."""
    query = {
        "part": "Privacy",
        "eps": "0.1",
        "delta": "0.001",
        "theta": "0.1",
        "sens": "5",
        "acct": "paper",
        "split": "true",
        "share": "0.6",
    }
    at = open_page(PAGE, query)
    page_ok(at)
    table = next(
        df.value for df in at.dataframe if "accountant" in df.value.columns and "ε after T" in df.value.columns
    )
    plan = brdp.make_plan(epsilon=0.1, delta=1e-3, sensitivity=5.0, theta=0.1, kernel="gaussian", epsilon_y=0.06)
    assert math.isinf(brdp.composed_epsilon(1e-3 / 20, compositions=1, plan=plan))  # δ/(2T) at T = 10
    assert math.isinf(table.set_index("accountant").loc["Remark 4: advanced", "ε after T"])


@pytest.mark.parametrize("kernel", ["gaussian", "laplace"])
def test_the_drawn_output_density_follows_prop_1_and_jumps_upright_at_the_tolerance(kernel):
    """The curves of the output-density picture: BR-DP's density is the kernel's, times 1 − q outside ±θ, over
    1 − (1 − p_θ) q (Prop. 1, with the kernel's density and p_θ from scipy), and at ±θ the curve holds a point inside
    the band and one a hair outside it, so the step is drawn upright however few points the curve has."""
    from scipy import stats

    from app.compute import brdp as cbrdp
    from app.figures.brdp import recycling

    key = cbrdp.PlanKey(1.0, 1e-5, 1.0, 1.0, kernel, "exact")
    plan = cbrdp.plan(key)
    curves, hist = cbrdp.density(key, 0)
    law = (stats.norm if kernel == "gaussian" else stats.laplace)(scale=plan.scale)
    p_theta = law.cdf(1.0) - law.cdf(-1.0)
    x = curves["x"].to_numpy()
    expected = law.pdf(x) * np.where(np.abs(x) <= 1.0, 1.0, 1.0 - plan.q) / (1.0 - (1.0 - p_theta) * plan.q)
    np.testing.assert_allclose(curves["brdp"], expected, rtol=1e-9)
    for edge in (-1.0, 1.0):
        inside, outside = edge, np.nextafter(edge, math.copysign(np.inf, edge))
        assert inside in x and outside in x
        step = curves["brdp"][x == outside].iloc[0] / curves["brdp"][x == inside].iloc[0]
        assert step == pytest.approx(1.0 - plan.q, rel=1e-9)
    # equal bins: the bars carry one width, the bins' own
    bars = recycling.density(curves, hist, kernel=kernel, theta=1.0).data[0]
    assert bars.type == "bar" and bars.width == pytest.approx(hist["bin_right"][0] - hist["bin_left"][0])
