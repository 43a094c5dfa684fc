"""AppTest: the Accuracy-first page (Rogers et al. 2023) renders, reacts to every control, matches dpcore.

Every number checked here is recomputed from dpcore (or by hand) in the test, never copied from the page.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

from app import catalogue
from app.compute.noise_reduction.paper import costs
from app.notation import number, tex
from app.typeset import column_words
from dpcore import filters as fl
from dpcore import noise_reduction as nr
from tests.app.conftest import open_page, shown_metrics, shown_numbers


def open_nr(query: dict[str, str] | None = None) -> AppTest:
    """Open the noise-reduction page (open_page checks that AppTest really landed on it)."""
    return open_page("noise_reduction.py", query)


def ledger(at: AppTest):
    return next(df.value for df in at.dataframe if {"mechanism", "label"} <= set(df.value.columns))


def _other(options, current):
    return options[0] if current != options[0] else options[-1]


def test_renders_at_defaults_idea_first():
    at = open_nr()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value.startswith("Accuracy first")
    assert at.header[0].value.startswith("The idea")  # one picture of the idea before any number
    charts = [c.key for c in at.get("plotly_chart")]
    assert charts[0] == "chart-idea"
    m = shown_metrics(at)
    rho = (1.0 / (math.sqrt(math.log(1e6) + 1.0) + math.sqrt(math.log(1e6)))) ** 2  # ε = 1 (catalogue), δ = 1e-6
    assert m["zCDP budget ρ*"] == number(rho) == "0.0174689"
    assert set(charts) == {"chart-idea", "chart-noise-paths", "chart-stopping-charges"}  # part "paths"


@pytest.mark.parametrize(
    "key,part",
    [
        ("eps", "paths"),
        ("delta", "paths"),
        ("eta", "paths"),
        ("y", "paths"),
        ("K", "paths"),
        ("m", "paths"),
        ("lam", "martingale"),
        ("zipf", "costs"),
        ("users", "costs"),
        ("items", "costs"),
        ("mix", "filter"),
        ("stop", "filter"),
        ("epspost", "filter"),
    ],
)
def test_each_slider_changes_the_numbers(key, part):
    at = open_nr({"part": part})
    before = shown_numbers(at)
    slider = at.select_slider(key=key)
    options = catalogue.get(key).grid
    slider.set_value(_other(options[-6:] if key == "eps" else options, slider.value)).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert shown_numbers(at) != before


@pytest.mark.parametrize(
    "key,value,part",
    [
        ("spacing", "linear", "paths"),
        ("process", "laplace", "paths"),
        ("const", "printed", "paths"),
        ("nb", "down", "structure"),
    ],
)
def test_each_choice_changes_the_numbers(key, value, part):
    at = open_nr({"part": part})
    before = shown_numbers(at)
    at.radio(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert shown_numbers(at) != before


def test_seed_changes_the_numbers():
    at = open_nr()
    before = shown_numbers(at)
    at.number_input(key="seed").set_value(12345).run()
    assert not at.exception
    assert shown_numbers(at) != before


@pytest.mark.parametrize("const,variant", [("corrected", "corrected"), ("printed", "as_printed")])
def test_metrics_match_dpcore(const, variant):
    q = {"eps": "5", "delta": "1e-08", "y": "200", "K": "200", "eta": "0.2", "seed": "7", "const": const}
    m = shown_metrics(open_nr(q))
    lg = math.log(1e8) * (2 if const == "printed" else 1)
    rho = (5.0 / (math.sqrt(lg + 5.0) + math.sqrt(lg))) ** 2  # largest ρ with ρ + 2√(cρ ln(1/δ)) ≤ ε, by hand
    assert m["zCDP budget ρ*"] == number(rho) == number(fl.rho_budget(5.0, 1e-8, variant=variant))
    # independent recomputation of the stopping distribution: geometric grid from 0.01 to √(2ρ*), 2000 runs
    grid = np.geomspace(0.01, math.sqrt(2 * rho), 200)
    runs = nr.release_many(200.0, epsilons=grid, alpha=0.2, n_runs=2000, rng=7)
    assert m[tex("Typical cost of one count, ρ_T")] == number(runs["charge"].median(), 4)
    assert m[tex("Cost if it never stopped, ρ_T")] == number(grid[-1] ** 2 / 2, 4)


def test_erratum_warnings_only_where_the_paper_under_reports():
    at = open_nr()
    assert not at.warning, [w.value for w in at.warning]  # sound defaults: nothing to warn about
    at = open_nr({"view": "reproduce", "part": "errata"})
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    assert any("ex-post ε (Theorem 5)" in w for w in warnings), warnings  # the printed bound drops the drift
    assert any("worst-case total ex-post" in w for w in warnings), warnings  # Lemma 5.2's admission rule
    assert not any("ρ*" in w for w in warnings), warnings  # the printed constant is loose, not an under-report
    m = shown_metrics(at)
    v = 0.01 * 20
    assert m["ex-post ε (Theorem 5) — exact"] == number(nr.brownian_expost_bound(v, gamma=0.01, delta=1e-6), 4)
    assert m["ex-post ε (Theorem 5) — paper's accountant"] == (
        number(nr.brownian_expost_bound(v, gamma=0.01, delta=1e-6, variant="as_printed"), 4)
    )


def test_reproduce_budget_is_the_papers():
    m = shown_metrics(open_nr({"view": "reproduce"}))
    assert m["ρ*(ε = 10, δ = 10⁻⁶)"] == "1.353015"
    assert m["Σε² budget 2ρ* (paper: ≈ 2.705)"] == "2.706029"  # the paper's "roughly 2.705"
    assert m["2ρ* with the printed constant"] == "1.541386"


def test_reproduce_view_runs_figure3_only_on_request():
    at = open_nr({"view": "reproduce", "fig3": "20"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    charts = len(at.get("plotly_chart"))
    assert any("about 2 s" in b.label for b in at.button), [b.label for b in at.button]  # the cost, before it runs
    at.button(key="fig3_run").click().run()
    assert not at.exception, at.exception
    assert len(at.get("plotly_chart")) == charts + 2
    fig3 = [df.value for df in at.dataframe if "reference results" in df.value.columns]
    assert fig3 and len(fig3[0]) == 10
    nr_rows = fig3[0][fig3[0]["method"] == "noise reduction"].set_index("n")
    db_rows = fig3[0][fig3[0]["method"] == "doubling"].set_index("n")
    # Figure 3: noise reduction returns more
    assert (nr_rows[column_words("results_mean")] > db_rows[column_words("results_mean")]).all()
    at.run()  # still shown on a plain rerun, without pressing the button again
    assert len(at.get("plotly_chart")) == charts + 2


def test_figure3_trials_are_capped():
    assert max(catalogue.get("fig3").grid) * 0.08 <= 60  # ≤ 60 s of computing per request at 0.08 s a trial
    at = open_nr({"view": "reproduce", "fig3": "1000"})  # an old link asking for the paper's 1000 trials
    assert at.select_slider(key="fig3").value in catalogue.get("fig3").grid  # never the 1000 asked for
    assert any("fig3=" in e.value for e in at.error), [e.value for e in at.error]  # and the link is explained


def test_reddit_standin_is_labelled_and_noise_reduction_wins():
    at = open_nr({"view": "reproduce", "part": "reddit", "fig3": "20"})
    assert not at.exception, at.exception
    assert any("Stand-in data" in w.value for w in at.warning)
    at.button(key="reddit_run").click().run()
    assert not at.exception, at.exception
    df = next(d.value for d in at.dataframe if column_words("paper_results") in d.value.columns).set_index("method")
    assert df.loc["noise reduction", column_words("results_mean")] > df.loc["doubling", column_words("results_mean")]
    assert (df[column_words("paper_results")].to_dict()) == {"noise reduction": 152.0, "doubling": 109.0}  # Section 7.2


def test_live_ledger_accepts_refuses_and_resets():
    # ε = 10 and a queue 10, 6, 4, …: one-shot Gaussians for these counts are expensive
    at = open_nr({"eps": "10", "y": "10", "part": "filter"})
    at.button(key="led_nr").click().run()
    assert not at.exception, at.exception
    assert any("Noise reduction of count 1" in i.value for i in at.info)
    table = ledger(at)
    assert list(table["status"]) == ["started", "accepted"]
    for _ in range(4):
        at.button(key="led_zcdp").click().run()
    assert any(w.value.startswith("Refused") for w in at.warning), [w.value for w in at.warning]
    table = ledger(at)
    assert "refused" in set(table["status"])
    assert table["spent"].max() <= fl.rho_budget(10.0, 1e-6) * (1 + 1e-15)
    at.button(key="led_reset").click().run()
    assert ledger(at).empty


def test_concurrent_filter_promise_is_the_sum():
    at = open_nr({"part": "filter", "epspost": "2"})
    assert not at.exception, at.exception
    m = shown_metrics(at)
    assert m["Promise of the pair (ε + ε′, δ)"] == "(3, 10⁻⁶)"  # Theorem 3: (ε + ε′, δ'' + δ′) with δ′ = 0
    # the first count (y = 1000) is a one-shot Gaussian at ε = (2 + η)/(η·y): it fits ρ*(1, 1e-6) and is released
    assert int(m["Gaussian releases (zCDP part)"]) >= 1


def test_budget_too_small_for_any_level_is_explained():
    """A valid but infeasible budget: one warning (not errors) saying what ε would work."""
    at = open_nr({"eps": "0.05"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.warning) == 1 and "No count can be released" in at.warning[0].value
    need = 5e-5 + 2 * math.sqrt(5e-5 * math.log(1e6))  # ρ = ε²_min/2 through ρ + 2√(ρ ln 1/δ), by hand
    assert f"Raise ε above {need:.3g}" in at.warning[0].value


@pytest.mark.parametrize(
    "query",
    [{"eta": "-1"}, {"K": "abc"}, {"m": "1e9"}, {"spacing": "<b>"}, {"view": "x"}, {"part": "zzz"}, {"nb": "left"}],
)
def test_bad_links_show_a_message(query):
    at = open_nr({**query, "part": "structure"} if "nb" in query else query)
    assert not at.exception, at.exception
    key = next(iter(query))
    assert any(f"{key}=" in e.value for e in at.error), [e.value for e in at.error]
    assert "zCDP budget ρ*" in shown_metrics(at)


PART_CHARTS = {
    "paths": {"chart-noise-paths", "chart-stopping-charges"},
    "structure": {
        "chart-time-inversion",
        "chart-correlation-heatmap",
        "chart-correlation-heatmap-laplace",
        "chart-laplace-process",
    },
    "filter": {"chart-odometer", "chart-concurrent-filter", "chart-filter-loss-distribution"},
    "costs": {"chart-cost-per-count", "chart-zipf-counts"},
    "martingale": {"chart-backward-martingale"},
}


@pytest.mark.parametrize("part", list(PART_CHARTS))
def test_each_part_renders_its_panels(part):
    at = open_nr({"part": part})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    keys = {c.key for c in at.get("plotly_chart")}
    assert PART_CHARTS[part] <= keys, keys
    others = set().union(*(v for k, v in PART_CHARTS.items() if k != part))
    assert not keys & others  # one part per rerun
    assert len(at.caption) >= len(PART_CHARTS[part])  # "what to notice" captions


def test_time_inversion_loss_matches_dpcore():
    q = {"eps": "5", "y": "50", "eta": "0.2", "K": "50", "seed": "3", "nb": "down", "part": "structure"}
    m = shown_metrics(open_nr(q))
    rho = fl.rho_budget(5.0, 1e-6)
    grid = np.geomspace(0.01, math.sqrt(2 * rho), 50)
    z = nr.brownian_path(grid, n_paths=5, rng=3)[0]  # path 1 of the path panel
    stop = nr.relative_error_stop(50.0 + z, grid, alpha=0.2)
    k = int(np.argmax(stop)) if stop.any() else grid.size - 1
    assert m[tex("Path 1 stops at ε_T")] == number(grid[k], 4)
    assert m[tex("Its charge ρ_T = ε_T²/2 (the average loss)")] == number(grid[k] ** 2 / 2, 4)
    # neighbour above (u = −1): ℒ = ε²/2 − ε²·Z
    assert m["Loss ℒ it actually realised"] == number(grid[k] ** 2 / 2 - grid[k] ** 2 * z[k], 4)


def test_correlation_heatmap_matches_closed_form():
    at = open_nr({"K": "10", "spacing": "linear", "part": "structure"})
    m = shown_metrics(at)
    grid = np.sqrt(np.linspace(1e-4, 2 * fl.rho_budget(1.0, 1e-6), 10))
    for label in ("Brownian", "Laplace"):  # both processes, side by side
        assert m[f"Mean correlation of neighbouring levels ({label})"] == f"{np.mean(grid[:-1] / grid[1:]):.3f}"
        assert float(m[f"Largest |sampled − theory| ({label})"]) < 0.1  # 2000 paths: sampling error ≲ 0.045


def _filter_runs_match(query: dict[str, str], alpha: float, zcdp_share: float):
    """The filter part at ε = 2, y = 50, seed 5 (and ``query``): its average and variance of the total loss are those
    of dpcore's 1000 runs. Returns the shown metrics, ρ* and the runs."""
    at = open_nr({"part": "filter", "eps": "2", "y": "50", "seed": "5"} | query)
    assert not at.exception, at.exception
    m = shown_metrics(at)
    rho = fl.rho_budget(2.0, 1e-6)
    runs = nr.filter_losses(rho, n_runs=1000, value=50.0, alpha=alpha, zcdp_share=zcdp_share, levels=50, rng=5)
    assert m["Average total loss (theory ρ*)"] == number(runs["loss"].mean(), 4)
    assert m["Variance of the total loss (theory 2ρ*)"] == number(runs["loss"].var(ddof=1), 4)
    return m, rho, runs


def test_filter_loss_distribution_matches_dpcore():
    m, rho, runs = _filter_runs_match({}, alpha=0.1, zcdp_share=0.4)
    assert abs(runs["loss"].mean() - rho) < 4 * math.sqrt(2 * rho / 1000)  # N(ρ*, 2ρ*) (Thm 6)
    assert m["Normal tail above ε"] == number(stats.norm.sf(2.0, loc=rho, scale=math.sqrt(2 * rho)), 2)
    assert stats.norm.sf(2.0, loc=rho, scale=math.sqrt(2 * rho)) <= 1e-6  # the conversion is conservative


def test_filter_mix_and_aggressiveness_match_dpcore():
    _filter_runs_match({"mix": "0.8", "stop": "2"}, alpha=0.2, zcdp_share=0.8)


def test_zipf_panel_matches_dpcore():
    m = shown_metrics(open_nr({"part": "costs", "zipf": "0.75", "users": "16000", "seed": "2"}))
    assert m[tex("Normaliser Σ k^(−a)")] == f"{sum(k**-0.75 for k in range(1, 301)):.6f}" == "13.212814"
    counts = np.random.default_rng([2, 3]).multinomial(16000, nr.zipf_probabilities(0.75, 300))
    assert m["Largest count"] == f"{counts.max():,}"


def test_zipf_support_size_matches_dpcore():
    m = shown_metrics(open_nr({"part": "costs", "zipf": "0.75", "users": "16000", "seed": "2", "items": "1000"}))
    counts = np.random.default_rng([2, 3]).multinomial(16000, nr.zipf_probabilities(0.75, 1000))
    assert m["Largest count"] == f"{counts.max():,}"
    assert m[tex("Normaliser Σ k^(−a)")] == f"{(np.arange(1, 1001) ** -0.75).sum():.6f}"


def test_backward_martingale_mean_at_stopping_time_is_one():
    at = open_nr({"part": "martingale", "y": "1000", "lam": "1", "seed": "4"})
    assert not at.exception, at.exception
    m = shown_metrics(at)
    mean, band = (float(v) for v in m["Average of M at the stopping time"].split(" ± "))
    assert abs(mean - 1.0) <= band + 0.01  # Lemma 6.1: E[M(τ)] = 1 on a finite grid, within 2 se
    rho = fl.rho_budget(1.0, 1e-6)
    grid = np.geomspace(0.01, math.sqrt(2 * rho), 100)
    z = nr.brownian_path(grid, n_paths=4000, rng=np.random.default_rng([4, 4]))
    stop = np.asarray(nr.relative_error_stop(1000.0 + z, grid[None, :], alpha=0.1))
    idx = np.where(stop.any(axis=1), stop.argmax(axis=1), grid.size - 1)
    mm = nr.backward_martingale(z, grid, lam=1.0)[np.arange(4000), idx]
    assert m["Average of M at the stopping time"].startswith(f"{mm.mean():.3f}")


def test_laplace_process_matches_dpcore():
    at = open_nr({"eps": "10", "K": "20", "y": "30", "eta": "0.2", "seed": "6", "part": "structure"})
    assert not at.exception, at.exception
    m = shown_metrics(at)
    grid = np.geomspace(0.01, math.sqrt(2 * fl.rho_budget(10.0, 1e-6)), 20)
    x = nr.laplace_path(grid, n_paths=2000, rng=np.random.default_rng([6, 10]))
    flat = (x[:, :-1] == x[:, 1:]).mean(axis=0)
    theory = (grid[:-1] / grid[1:]) ** 2  # (b_fine / b_coarse)²
    assert m["Share of flat steps (sampled)"] == f"{flat.mean():.4f}"
    assert m["Share of flat steps (theory)"] == f"{theory.mean():.4f}"
    assert np.abs(flat - theory).max() < 0.05  # 2000 paths
    stop = nr.relative_error_stop(30.0 + x[0], grid, alpha=0.2)
    k = int(np.argmax(stop)) if stop.any() else grid.size - 1
    loss = nr.laplace_loss(30.0 + x[0, k], epsilon=grid[k], value=30.0, neighbour=29.0)
    assert m["Loss ℒ at the stop (path 1)"] == number(loss, 4)
    assert abs(loss) <= grid[k] + 1e-12  # Lemma A.1: within ±ε_T
    assert float(m["Largest |ℒ| / ε over all paths and levels"]) <= 1.0


def test_reddit_panel_exposes_the_selection_budget_and_the_smallest_level():
    at = open_page("noise_reduction.py", {"view": "reproduce", "part": "Reddit", "eem": "0.05", "emin": "0.01"})
    assert not at.exception and not at.error
    assert at.select_slider(key="eem").value == 0.05 and at.select_slider(key="emin").value == 0.01
    assert any(tex("ε_EM") + " = 0.05" in c.value and tex("ε_min") + " = 0.01" in c.value for c in at.caption)


@pytest.mark.parametrize("levels", [20, 100, 1000])
def test_a_large_count_pays_the_grids_first_step_and_doubling_wins_there(levels):
    """The cost panel's reading: on a grid even in ε² from ε²_min = 10⁻⁴ to 2ρ*(10, 10⁻⁶), a count that the first
    level cannot release at relative error η but the second can pays exactly the second level, ε²_min + (2ρ* −
    ε²_min)/(K − 1); doubling, which starts at ε²_min and doubles, pays less for such a count."""
    top = 2.0 * float(fl.rho_budget(10.0, 1e-6))
    eta = 0.05
    step = 1e-4 + (top - 1e-4) / (levels - 1)
    # a count the second level releases almost surely and the first almost never: (2 + η)/(η·y) ≈ √step / 3
    y = float(round(3.0 * (2.0 + eta) / eta / math.sqrt(step)))
    row = costs(levels, eta, y, 0).set_index("value").loc[y]
    assert row["bm_cost"] == pytest.approx(step, rel=0.02)
    assert row["doubling_cost"] < row["bm_cost"]
