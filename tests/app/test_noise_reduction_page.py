"""AppTest: the "Accuracy first: noise reduction" page (paper 001) renders, reacts to every control, matches dpcore."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

from app import params
from dpcore import filters as fl
from dpcore import noise_reduction as nr
from tests.app.conftest import open_page, shown_numbers


def open_nr(query: dict[str, str] | None = None) -> AppTest:
    """Open the noise-reduction page (open_page checks that AppTest really landed on it)."""
    return open_page("noise_reduction.py", query)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_renders_at_defaults_without_errors():
    at = open_nr()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value.startswith("Accuracy first")
    m = metrics(at)
    assert m["zCDP budget ρ*"] == "1.35301"  # spec R2 at the page defaults ε = 10, δ = 1e-6
    assert len(at.get("plotly_chart")) == 2  # part "paths": panels 1–2 (panels 3–4b are the "structure" part)


def ledger(at: AppTest):
    return next(df.value for df in at.dataframe if {"mechanism", "label"} <= set(df.value.columns))


def _other(options, current):
    return options[0] if current != options[0] else options[-1]


@pytest.mark.parametrize(
    "key,options,part",
    [
        ("eps", params.EPSILON_OPTIONS[-8:], "paths"),
        ("delta", params.DELTA_OPTIONS, "paths"),
        ("alpha", (0.01, 0.5), "paths"),
        ("y", (30.0, 1000.0), "paths"),
        ("K", (10, 1000), "paths"),
        ("m", (1, 300), "paths"),
        ("lam", (0.25, 2.0), "martingale"),
        ("a", (0.5, 1.5), "costs"),
        ("n", (8000, 128000), "costs"),
        ("kmax", (50, 3000), "costs"),
        ("mix", (0.0, 1.0), "filter"),
        ("stop", (0.25, 4.0), "filter"),
    ],
)
def test_each_slider_changes_the_numbers(key, options, part):
    at = open_nr({"part": part})
    before = shown_numbers(at)
    slider = at.select_slider(key=key)
    slider.set_value(_other(options, slider.value)).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert shown_numbers(at) != before


@pytest.mark.parametrize("key,value", [("grid", "linear"), ("noise", "laplace"), ("const", "printed"), ("nb", "down"),
                                       ("part", "filter")])
def test_each_choice_changes_the_numbers(key, value):
    at = open_nr({"part": "structure"} if key == "nb" else None)
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
    q = {"eps": "5", "delta": "1e-08", "y": "200", "K": "200", "alpha": "0.2", "seed": "7", "const": const}
    m = metrics(open_nr(q))
    rho = fl.rho_budget(5.0, 1e-8, variant=variant)
    assert m["zCDP budget ρ*"] == f"{rho:.6g}"
    # independent recomputation of the stopping distribution: geometric grid from 0.01 to √(2ρ*), 2000 runs
    grid = np.geomspace(0.01, math.sqrt(2 * rho), 200)
    runs = nr.release_many(200.0, epsilons=grid, alpha=0.2, n_runs=2000, rng=7)
    assert m["Median ex-post charge ρ_T"] == f"{runs['charge'].median():.4g}"
    assert m["Ex-ante worst case ρ_T"] == f"{grid[-1] ** 2 / 2:.4g}"


def test_erratum_warnings_only_where_the_paper_under_reports():
    at = open_nr()
    assert not at.warning, [w.value for w in at.warning]  # sound defaults, corrected constant: nothing to warn
    at = open_nr({"view": "reproduce"})
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    assert any("Thm 5" in w for w in warnings), warnings  # E3: the printed bound drops the drift V/2
    assert any("worst-case total ex-post" in w for w in warnings), warnings  # E6: admissibility index
    assert not any("ρ*" in w for w in warnings), warnings  # E1: printed constant is loose, not an under-report
    m = metrics(at)
    assert m["ρ*(ε = 10, δ'' = 1e-6)"] == "1.353015"
    assert m["Σε² budget 2ρ* (paper: ≈ 2.705)"] == "2.706029"
    assert m["2ρ* with the printed constant"] == "1.541386"
    v = 0.01 * 20
    assert m["ex-post ε (Thm 5) — exact"] == f"{nr.brownian_expost_bound(v, gamma=0.01, delta=1e-6):.4g}"
    assert m["ex-post ε (Thm 5) — paper's accountant"] == (
        f"{nr.brownian_expost_bound(v, gamma=0.01, delta=1e-6, variant='as_printed'):.4g}")


def test_reproduce_view_runs_figure3_only_on_request():
    at = open_nr({"view": "reproduce", "trials": "20"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    charts = len(at.get("plotly_chart"))
    at.button(key="fig3_run").click().run()
    assert not at.exception, at.exception
    assert len(at.get("plotly_chart")) == charts + 2
    fig3 = [df.value for df in at.dataframe if "spec results" in df.value.columns]
    assert fig3 and len(fig3[0]) == 10
    nr_rows = fig3[0][fig3[0]["method"] == "noise_reduction"].set_index("n")
    db_rows = fig3[0][fig3[0]["method"] == "doubling"].set_index("n")
    assert (nr_rows["results_mean"] > db_rows["results_mean"]).all()  # Figure 3: noise reduction returns more
    at.run()  # still shown on a plain rerun (cached), without pressing the button again
    assert len(at.get("plotly_chart")) == charts + 2


def test_live_ledger_accepts_refuses_and_resets():
    # queue 10, 6, 4, ...: one-shot Gaussians for these counts are expensive
    at = open_nr({"y": "10", "part": "filter"})
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
    assert table["spent"].max() <= fl.rho_budget(10.0, 1e-6) * (1 + 1e-12)
    at.button(key="led_reset").click().run()
    assert ledger(at).empty


def test_budget_too_small_for_any_level_is_explained():
    """A valid but infeasible budget: one warning (not errors) saying what ε would work."""
    at = open_nr({"eps": "0.05"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.warning) == 1 and "No count can be released" in at.warning[0].value
    need = 5e-5 + 2 * math.sqrt(5e-5 * math.log(1e6))  # ρ = ε²_min/2 through ρ + 2√(ρ ln 1/δ), by hand
    assert f"Raise ε above {need:.3g}" in at.warning[0].value
    assert "zCDP budget ρ*" in metrics(at)  # the headline still shows the budget


@pytest.mark.parametrize(
    "query",
    [{"alpha": "-1"}, {"K": "abc"}, {"m": "1e9"}, {"grid": "<b>"}, {"view": "x"}, {"part": "zzz"}, {"nb": "left"}],
)
def test_bad_links_show_a_message(query):
    at = open_nr({**query, "part": "structure"} if "nb" in query else query)
    assert not at.exception, at.exception
    key = next(iter(query))
    assert any(f"{key}=" in e.value for e in at.error), [e.value for e in at.error]
    assert "zCDP budget ρ*" in metrics(at)


PART_CHARTS = {
    "paths": {"chart-noise-paths", "chart-stopping-charges"},
    "structure": {"chart-time-inversion", "chart-correlation-heatmap", "chart-correlation-heatmap-laplace",
                  "chart-laplace-process"},
    "filter": {"chart-odometer", "chart-filter-loss-distribution"},
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
    q = {"eps": "5", "y": "50", "alpha": "0.2", "K": "50", "seed": "3", "nb": "down", "part": "structure"}
    m = metrics(open_nr(q))
    rho = fl.rho_budget(5.0, 1e-6)
    grid = np.geomspace(0.01, math.sqrt(2 * rho), 50)
    z = nr.brownian_path(grid, n_paths=5, rng=3)[0]  # path 1 of panel 1
    stop = nr.relative_error_stop(50.0 + z, grid, alpha=0.2)
    k = int(np.argmax(stop)) if stop.any() else grid.size - 1
    assert m["Path 1 stops at ε_T"] == f"{grid[k]:.4g}"
    assert m["Charge ρ_T = ε_T²/2 (mean of ℒ)"] == f"{grid[k] ** 2 / 2:.4g}"
    # neighbour above (u = −1): ℒ = ε²/2 − ε²·Z
    assert m["Realised loss ℒ at the stop (path 1)"] == f"{grid[k] ** 2 / 2 - grid[k] ** 2 * z[k]:.4g}"


def test_correlation_heatmap_matches_closed_form():
    at = open_nr({"K": "10", "grid": "linear", "part": "structure"})
    m = metrics(at)
    grid = np.sqrt(np.linspace(1e-4, 2 * fl.rho_budget(10.0, 1e-6), 10))
    for label in ("Brownian", "Laplace"):  # V3: both processes, side by side
        assert m[f"Mean neighbour correlation ({label})"] == f"{np.mean(grid[:-1] / grid[1:]):.3f}"
        assert float(m[f"Largest |empirical − theory| ({label})"]) < 0.1  # 2000 paths: sampling error ≲ 0.045


def test_filter_loss_distribution_matches_dpcore():
    at = open_nr({"part": "filter", "eps": "2", "y": "50", "seed": "5"})
    assert not at.exception, at.exception
    m = metrics(at)
    rho = fl.rho_budget(2.0, 1e-6)
    runs = nr.filter_losses(rho, n_runs=1000, value=50.0, alpha=0.1, zcdp_share=0.4, levels=50, rng=5)
    assert m["Mean loss (theory ρ*)"] == f"{runs['loss'].mean():.4g}"
    assert m["Variance (theory 2ρ*)"] == f"{runs['loss'].var(ddof=1):.4g}"
    assert abs(runs["loss"].mean() - rho) < 4 * math.sqrt(2 * rho / 1000)  # N(ρ*, 2ρ*) (spec §2.12)
    assert m["Normal tail above ε"] == f"{stats.norm.sf(2.0, loc=rho, scale=math.sqrt(2 * rho)):.2g}"
    assert stats.norm.sf(2.0, loc=rho, scale=math.sqrt(2 * rho)) <= 1e-6  # the conversion is conservative


def test_zipf_panel_matches_dpcore():
    m = metrics(open_nr({"part": "costs", "a": "0.75", "n": "16000", "seed": "2"}))
    assert m["Normaliser Σ k^(−a)"] == "13.212814"  # spec R13
    counts = np.random.default_rng([2, 3]).multinomial(16000, nr.zipf_probabilities(0.75, 300))
    assert m["Largest count"] == f"{counts.max():,}"


def test_backward_martingale_mean_at_stopping_time_is_one():
    at = open_nr({"part": "martingale", "y": "100", "lam": "1", "seed": "4"})
    assert not at.exception, at.exception
    m = metrics(at)
    mean, band = (float(v) for v in m["Mean of M at the stopping time"].split(" ± "))
    assert abs(mean - 1.0) <= band + 0.01  # Lemma 6.1: E[M(τ)] = 1 on a finite grid (E16), within 2 se
    rho = fl.rho_budget(10.0, 1e-6)
    grid = np.geomspace(0.01, math.sqrt(2 * rho), 100)
    z = nr.brownian_path(grid, n_paths=4000, rng=np.random.default_rng([4, 4]))
    stop = np.asarray(nr.relative_error_stop(100.0 + z, grid[None, :], alpha=0.1))
    idx = np.where(stop.any(axis=1), stop.argmax(axis=1), grid.size - 1)
    mm = nr.backward_martingale(z, grid, lam=1.0)[np.arange(4000), idx]
    assert m["Mean of M at the stopping time"].startswith(f"{mm.mean():.3f}")


def test_filter_mix_and_aggressiveness_match_dpcore():
    at = open_nr({"part": "filter", "eps": "2", "y": "50", "seed": "5", "mix": "0.8", "stop": "2"})
    assert not at.exception, at.exception
    m = metrics(at)
    rho = fl.rho_budget(2.0, 1e-6)
    runs = nr.filter_losses(rho, n_runs=1000, value=50.0, alpha=0.2, zcdp_share=0.8, levels=50, rng=5)
    assert m["Mean loss (theory ρ*)"] == f"{runs['loss'].mean():.4g}"
    assert m["Variance (theory 2ρ*)"] == f"{runs['loss'].var(ddof=1):.4g}"


def test_zipf_support_size_matches_dpcore():
    m = metrics(open_nr({"part": "costs", "a": "0.75", "n": "16000", "seed": "2", "kmax": "1000"}))
    counts = np.random.default_rng([2, 3]).multinomial(16000, nr.zipf_probabilities(0.75, 1000))
    assert m["Largest count"] == f"{counts.max():,}"
    assert m["Normaliser Σ k^(−a)"] == f"{(np.arange(1, 1001) ** -0.75).sum():.6f}"


def test_laplace_process_matches_dpcore():
    at = open_nr({"K": "20", "y": "30", "alpha": "0.2", "seed": "6", "part": "structure"})
    assert not at.exception, at.exception
    m = metrics(at)
    grid = np.geomspace(0.01, math.sqrt(2 * fl.rho_budget(10.0, 1e-6)), 20)
    x = nr.laplace_path(grid, n_paths=2000, rng=np.random.default_rng([6, 10]))
    flat = (x[:, :-1] == x[:, 1:]).mean(axis=0)
    theory = (grid[:-1] / grid[1:]) ** 2  # (b_fine / b_coarse)²
    assert m["Empirical P(flat), mean over adjacent levels"] == f"{flat.mean():.4f}"
    assert m["Theory (b_fine/b_coarse)², mean"] == f"{theory.mean():.4f}"
    assert np.abs(flat - theory).max() < 0.05  # 2000 paths
    stop = nr.relative_error_stop(30.0 + x[0], grid, alpha=0.2)
    k = int(np.argmax(stop)) if stop.any() else grid.size - 1
    loss = nr.laplace_loss(30.0 + x[0, k], epsilon=grid[k], value=30.0, neighbour=29.0)
    assert m["Ex-post loss ℒ at the stop (path 1)"] == f"{loss:.4g}"
    assert abs(loss) <= grid[k] + 1e-12  # Lemma A.1: within ±ε_T
    assert float(m["Largest |ℒ| / ε over all paths and levels"]) <= 1.0
