"""AppTest of the SVT page (Liu et al. 2024): renders, controls move the numbers, metrics match dpcore, errata."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from app.notation import number, tex
from dpcore import svt
from tests.app.conftest import open_page, page_ok, shown_metrics, shown_numbers

PAGE = "svt.py"
FAST = {"runs": "10"}  # keep the experiment small in tests


def test_renders_at_defaults():
    at = open_page(PAGE)
    page_ok(at)
    assert at.title
    assert {"threshold noise scale b", "query noise scale 1/λ", "correction r in use"} <= set(shown_metrics(at))
    assert not at.warning, [w.value for w in at.warning]  # no erratum warning at the sound defaults
    assert at.header[0].value == "SVT at work"  # the picture of the idea comes before any number


@pytest.mark.parametrize("part", ["Correction", "Run", "Top-c", "Numerics"])
def test_every_part_renders_at_defaults(part):
    at = open_page(PAGE, {"part": part, **FAST})
    page_ok(at)
    assert not at.warning, [w.value for w in at.warning]


# (widget kind, key, new value, URL query that opens the tab where the control shows)
CONTROLS = [
    ("select_slider", "eps", 0.5, {}),
    ("select_slider", "c", 5, {}),
    ("select_slider", "neg", 50, {}),
    ("select_slider", "alpha", 10, {}),
    ("select_slider", "thr", 500.0, {"part": "Run"}),
    ("radio", "noise", "laplace", {}),
    ("radio", "corr", "mean", {}),
    ("toggle", "mono", True, {}),
    ("toggle", "resample", True, {}),
    ("toggle", "append", True, {"part": "Run"}),
    ("select_slider", "trav", 2, {"part": "Run", "append": "true"}),
    ("radio", "dataset", "adult", {"part": "Top-c", **FAST}),
    ("radio", "metric", "f1", {"part": "Top-c", **FAST}),
    ("select_slider", "runs", 20, {"part": "Top-c", **FAST}),
    ("select_slider", "bins", 1001, {"part": "Numerics"}),
    ("number_input", "seed", 7, {"part": "Run"}),
    # in-panel controls (split, distance from the threshold) and the advanced numerics
    ("select_slider", "wsplit", 10.0, {}),
    ("select_slider", "gap", 500.0, {"part": "Correction"}),
    ("select_slider", "tail", 1e-4, {"part": "Numerics"}),
]


@pytest.mark.parametrize("kind,key,value,query", CONTROLS, ids=[c[1] for c in CONTROLS])
def test_each_control_changes_the_numbers(kind, key, value, query):
    at = open_page(PAGE, query)
    page_ok(at)
    before = shown_numbers(at)
    getattr(at, kind)(key=key).set_value(value).run()
    page_ok(at)
    assert shown_numbers(at) != before


def test_view_switches_to_the_reproduction():
    at = open_page(PAGE, FAST)
    at.radio(key="view").set_value("reproduce").run()
    page_ok(at)
    assert any("Fig. 3" in h.value for h in at.header)
    assert len(at.get("plotly_chart")) <= 8  # one part at a time, not the whole paper on one page


def test_metrics_match_dpcore():
    at = open_page(PAGE, {"eps": "0.5", "c": "1", "neg": "10", "alpha": "5"})
    page_ok(at)
    m = shown_metrics(at)
    sp = svt.split_budget(0.5, c=1)
    corr = svt.optimal_correction(0.5, c=1, k=10, alpha=5.0)
    assert m["threshold noise scale b"] == number(sp.threshold_scale, 4)
    assert m["query noise scale 1/λ"] == number(sp.query_scale, 4)
    assert m["correction r in use"] == number(corr.r, 4)
    kw = dict(r=corr.r, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale)
    assert m["P[yes] for a count at τ"] == number(svt.acceptance_probability(0.0, **kw), 4)


def test_reference_values_at_the_paper_setting():
    # ε = 1, c = 50, k = 200: r^op = 564.4856 (independent computation); at α = 0 a count at the threshold is
    # accepted with probability exactly 1/(k + 1) = 1/201 (r^op solves S(r) = 1/(k + 1), Eq. 9)
    m = shown_metrics(open_page(PAGE))
    assert m["correction r in use"] == "564.5"
    assert m["P[yes] for a count at τ"] == number(1 / 201, 4)


def test_resample_erratum_warning():
    at = open_page(PAGE, {"part": "Numerics"})
    assert not at.warning
    at = open_page(PAGE, {"part": "Numerics", "resample": "true"})
    page_ok(at)
    m = shown_metrics(at)
    sp = svt.split_budget(1.0, c=50)
    assert m["ε with a new threshold noise after each yes — exact"] == number(50 * sp.epsilon1 + sp.epsilon2, 4)
    assert m["ε with a new threshold noise after each yes — paper's accountant"] == number(50 * sp.epsilon1, 4)
    assert any("under-reports" in w.value for w in at.warning)


def test_eq8_erratum_warning_for_small_c():
    # c = 1, k = 10: Eq. 8 gives 0.03505, the exact shared-ρ value 0.02669 (both from an independent computation)
    at = open_page(PAGE, {"part": "Correction", "c": "1", "neg": "10"})
    page_ok(at)
    m = shown_metrics(at)
    assert m["p(r) — paper's Eq. 8"] == "0.03505"
    assert m["p(r) — exact, shared ρ"] == "0.02669"
    assert any("Eq. 8 over-states" in w.value for w in at.warning)


def test_appending_erratum_warning_only_with_append():
    assert not open_page(PAGE, {"part": "Run"}).warning
    at = open_page(PAGE, {"part": "Run", "append": "true"})
    page_ok(at)
    assert any("t·p" in w.value for w in at.warning)


def test_live_run_step_and_reset():
    at = open_page(PAGE, {"part": "Run"})
    full = shown_metrics(at)["comparisons so far"]
    n = full.split(" / ")[1]
    at.button(key="svt_reset").click().run()
    assert shown_metrics(at)["comparisons so far"] == f"0 / {n}"
    at.button(key="svt_one").click().run()
    assert shown_metrics(at)["comparisons so far"] == f"1 / {n}"
    at.button(key="svt_next").click().run()
    assert shown_metrics(at)["yes-answers / c"].startswith("1 /")
    at.button(key="svt_end").click().run()
    assert shown_metrics(at)["comparisons so far"] == full
    page_ok(at)


#: The reproduce view's parts and the figures each one shows.
REPRODUCE_PARTS = {
    "Figs. 3–5": ("Fig. 3", "Fig. 4", "Fig. 5", "Table 5"),
    "Figs. 6–11": ("Fig. 6", "Figs. 7/10"),
    "Fig. 16": ("Fig. 16",),
    "Figs. 9, 17": ("Figs. 9 and 17",),
}


@pytest.mark.parametrize("part", list(REPRODUCE_PARTS))
def test_reproduce_parts_render(part):
    at = open_page(PAGE, {"view": "reproduce", "part": part, **FAST})
    page_ok(at)
    titles = " ".join(h.value for h in at.header)
    for fig in REPRODUCE_PARTS[part]:
        assert fig in titles
    assert any("cannot be downloaded" in i.value for i in at.info)
    if part == "Fig. 16":
        fig16 = next(df.value for df in at.dataframe if "rank score, α = 500" in df.value.columns)
        assert list(fig16["epsilon"]) == [round(0.1 * i, 1) for i in range(1, 11)]
    if part == "Figs. 9, 17":
        assert any("Figs. 12–15" in i.value and "Rényi-DP accountant" in i.value for i in at.info)


def test_experiment_caps_the_runs_below_a_minute():
    """The slow link of old (Kosarak, 200 runs, 20 passes: 240 s in the server) is capped to a few runs."""
    from app.compute import svt as csvt

    plan = csvt.explore_plan(len(csvt.EXPERIMENT_EPSILONS), 20)
    runs = csvt.capped_runs("kosarak", 200, plan)
    assert 2 <= runs < 200 and csvt.experiment_seconds("kosarak", runs, plan) <= csvt.MAX_EXPERIMENT_SECONDS
    assert csvt.fig16_runs(200) * csvt.FIG16_SECONDS_PER_RUN <= csvt.MAX_EXPERIMENT_SECONDS


def test_experiment_states_its_cost_before_it_runs():
    at = open_page(PAGE, {"part": "Top-c", **FAST})
    page_ok(at)
    assert any("10 runs per point" in c.value and "of computing" in c.value for c in at.caption)


def _chart_spec(at, title_start: str) -> dict:
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return next(sp for sp in specs if sp["layout"]["title"]["text"].startswith(title_start))


def test_log_scale_toggle_of_panel_5():
    at = open_page(PAGE, {"part": "Correction"})
    assert _chart_spec(at, "Success probability")["layout"]["yaxis"].get("type") != "log"
    at.toggle(key="logp").set_value(True).run()
    page_ok(at)
    assert _chart_spec(at, "Success probability")["layout"]["yaxis"]["type"] == "log"


def test_score_gap_readouts_match_dpcore():
    at = open_page(PAGE, {"part": "Correction", "gap": "200"})
    page_ok(at)
    m = shown_metrics(at)
    sp = svt.split_budget(1.0, c=50)
    r = svt.optimal_correction(1.0, c=50, k=200).r
    kw = dict(r=r, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale)
    assert m["P[yes] at τ − 200"] == number(float(svt.acceptance_probability(-200.0, **kw)), 4)
    assert m["P[yes] at τ"] == number(float(svt.acceptance_probability(0.0, **kw)), 4)
    assert m["P[yes] at τ + 200"] == number(float(svt.acceptance_probability(200.0, **kw)), 4)


def test_manual_split_costs_variance():
    at = open_page(PAGE, {"wsplit": "1"})
    page_ok(at)
    table = next(df.value for df in at.dataframe if "V(w)/V*" in df.value.columns)
    exp = table.set_index("query noise").loc["Exponential"]
    sp = svt.split_budget(1.0, c=50, w=1.0)
    assert exp["ε₁"] == pytest.approx(sp.epsilon1, abs=1e-4)
    assert exp["V(w)/V*"] == pytest.approx(sp.variance / sp.variance_optimal, abs=1e-4)
    assert (table["V(w)/V*"] >= 1 - 1e-9).all()  # w* minimises V (Eq. 6)


def test_tail_mass_sets_the_grid():
    at = open_page(PAGE, {"part": "Numerics", "tail": "0.001"})
    page_ok(at)
    m = shown_metrics(at)
    sp = svt.split_budget(1.0, c=50)
    disc = svt.discretise_comparison(sp.threshold_scale, sp.query_scale, n_bins=101, tail_mass=1e-3)
    b, th = sp.threshold_scale, sp.query_scale
    num = svt.correction_term(b, th, k=200, method="numeric", n_bins=101, tail_mass=1e-3)
    assert m["grid half-width B"] == number(disc.bound, 5)
    assert m[tex("r̄^op, 101 bins")] == number(num.r)


def test_extreme_gumbel_setting_stays_fast_and_clean():
    # α ≫ the noise scales: dpcore's Gumbel quadrature optimiser takes minutes; the page uses Alg. 3 (FFT)
    at = open_page(PAGE, {"eps": "20", "c": "1", "neg": "1", "alpha": "500", "noise": "gumbel", "part": "Correction"})
    page_ok(at)
    assert shown_metrics(at)["p(r) — paper's Eq. 8"]


@pytest.mark.parametrize("threshold", [200.0, 5_000.0])
def test_the_run_chart_marks_tau_at_tau_and_shows_it(threshold):
    """The τ label sits on the τ line (a log axis: Plotly takes log10 of annotation y) and the axis reaches τ even when
    every count lies below it; the axis does not run below 0.5 (no "600μ" ticks)."""
    from app.figures import svt as fsvt

    rng = np.random.default_rng(4)
    n = 40
    answers = rng.integers(1, 150, n).astype(float)
    comp = pd.DataFrame(
        {
            "step": np.arange(1, n + 1),
            "answer": answers,
            "noisy_answer": answers + rng.normal(0, 30, n),
            "true_positive": answers >= threshold,
            "positive": np.zeros(n, bool),
            "noisy_threshold": np.full(n, threshold * 0.97),
            "pass": np.ones(n, int),
        }
    )
    fig = fsvt.live_run(comp, step=n, threshold=threshold, window=n, title="t").to_plotly_json()["layout"]
    tau = next(a for a in fig["annotations"] if a["text"].startswith("τ"))
    assert tau["y"] == pytest.approx(math.log10(threshold))
    low, high = fig["yaxis"]["range"]
    assert low >= math.log10(0.5) - 1e-12 and high > math.log10(threshold)


def test_k_max_control_stops_the_live_run():
    """Algorithm 2's k_max: a run stops after that many comparisons, whatever it found; the address keeps it."""
    at = open_page("svt.py", {"part": "Run", "kmax": "20"})
    assert not at.exception and not at.error
    assert any("at most kₘₐₓ = 20 comparisons" in c.value for c in at.caption)
    from app.compute import svt as csvt

    comp, info = csvt.live_run(1.0, 50, 200, 0.0, 200.0, "exponential", False, False, 10, False, "optimal", 0, 20)
    assert info.n_comparisons == 20 and info.halted == "k_max" and len(comp) == 20
