"""Gaussian & Laplace: the baseline mechanisms every paper compares against (narrative page)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import compute, ledger, params, ui
from app.figures import baselines as figs
from dpcore import ledger as dl

ui.header(
    "Gaussian & Laplace: the two classic mechanisms",
    "Every paper in this app is measured against two baselines: add **Gaussian** noise N(0, σ²) or **Laplace** "
    "noise Lap(b) to the true answer. Both are *calibrated*: the noise scale is the smallest that keeps the "
    "release (ε, δ)-differentially private for a query whose answer one person can change by at most Δ. "
    "Set the privacy budget on the left and follow the panels from noise to accuracy to privacy to composition.",
)

with st.sidebar:
    st.header("Controls")
    eps = params.epsilon()
    delta = params.delta()
    sens = params.sensitivity()
    theta = params.select_number(
        "theta", "θ — error you can tolerate", params.log_grid(0.1, 100.0), 1.0, name="the error tolerance θ",
        help="An answer is 'accurate' if the noise is at most θ in size.",
    )
    t = params.compositions()
    method = params.choice(
        "calib", "Gaussian calibration", ("analytic", "classic"), "analytic", name="the calibration",
        help="analytic (tight): the smallest σ that is (ε, δ)-DP (Balle & Wang 2018). Classic: σ = Δ√(2 ln(1.25/δ))/ε, "
        "proven only for ε < 1 and always noisier.",
    )
    seed = params.seed()
    ui.share_hint()

with ui.panel("Calibrated noise"):
    cal = compute.calibration(eps, delta, sens, method)
    _, summary = compute.sampled_outputs(eps, delta, sens, method, theta, seed)
    total = compute.composed_epsilons(eps, delta, sens, method, t)
    scale_help = {
        "gaussian": f"{method} calibration for (ε, δ) = ({eps:g}, {delta:g})",
        "laplace": "b = Δ/ε′ with ε′ = ε − 2 ln(1 − δ)",
    }
    total_help = {"gaussian": "exact", "laplace": "privacy-loss distribution (dp_accounting)"}
    for row, mech in enumerate(compute.MECHS):
        name = mech.capitalize()
        c = st.columns(3)
        c[0].metric(f"{name} {'σ' if mech == 'gaussian' else 'b'}", f"{cal.scale(mech):.4g}", help=scale_help[mech])
        c[1].metric(f"{name} P(|noise| ≤ θ)", f"{summary.loc[row, 'exact_within_theta']:.4f}")
        c[2].metric(f"{name} total ε after T = {t}", f"{total[mech]:.4g}", help=f"{total_help[mech]}, at δ = {delta:g}")
    ledger.offer(  # the two calibrated mechanisms at the page's settings, T-fold
        dl.gaussian_release(cal.sigma, sensitivity=sens, delta=delta, compositions=t,
                            label=f"Gaussian σ={cal.sigma:.3g}", source="baselines"),
        dl.laplace_release(cal.laplace_scale, sensitivity=sens, compositions=t,
                           label=f"Laplace b={cal.laplace_scale:.3g}", source="baselines"),
    )

with ui.panel(
    "1 · How much noise?",
    "Laplace noise is peaked with heavier tails; Gaussian noise is flatter near zero. Lower ε and both widen; "
    "raise δ and only the Gaussian narrows (Laplace barely uses δ).",
):
    df = compute.densities(eps, delta, sens, method)
    ui.chart(figs.densities(df, theta=theta), df, name="noise densities",
             alt="Line chart of the Gaussian and Laplace noise densities at the calibrated scales.")

with ui.panel(
    "2 · How accurate, for each ε?",
    "accuracy rises steeply over a narrow range of ε. At small ε Laplace is usually more accurate for the same "
    "(ε, δ); Gaussian catches up only at large ε or large δ.",
):
    df = compute.accuracy_curve(theta, delta, sens, method)
    ui.chart(figs.accuracy(df, epsilon=eps, theta=theta), df, name="accuracy vs epsilon",
             alt="Probability that the noise is within plus or minus theta, against epsilon, for both mechanisms.")

with ui.panel(
    "3 · Privacy profiles δ(ε′)",
    "one mechanism satisfies a whole curve of (ε′, δ) guarantees. Both curves pass through (or below) the target "
    "marker — that is what calibration means. Laplace reaches δ = 0 at ε′ = Δ/b (pure DP); the Gaussian never does.",
):
    df = compute.profiles(eps, delta, sens, method)
    ui.chart(figs.profiles(df, epsilon=eps, delta=delta), df, name="privacy profiles",
             alt="Privacy profile delta as a function of epsilon on a log axis for both mechanisms.")

with ui.panel(
    "4 · Composition: many releases",
    "the exact total grows roughly like √T, far below the naive T·ε; the Gaussian composes especially well, "
    "which is why large systems favour it.",
):
    df = compute.composition(eps, delta, sens, method, compute.composition_range(t))
    ui.chart(figs.composition(df, compositions=t, delta=delta), df, name="composition",
             alt="Total epsilon after T releases for Gaussian, Laplace and basic composition.")

with ui.panel(
    "5 · 100 000 sampled outputs",
    "the histograms of seeded draws sit on the exact densities; the empirical share within ±θ matches the exact "
    "probability within a few standard errors. Change the seed to redraw.",
):
    hist, summary = compute.sampled_outputs(eps, delta, sens, method, theta, seed)
    ui.chart(figs.histogram(hist), hist, name="sampled outputs",
             alt="Histogram of 100000 sampled noise values per mechanism over their densities.")
    shown = summary.rename(columns={
        "mechanism": "mechanism", "samples": "samples", "empirical_within_theta": "share within ±θ (sampled)",
        "standard_error": "standard error", "exact_within_theta": "P(|noise| ≤ θ) exact"})
    st.dataframe(pd.DataFrame(shown), hide_index=True, width="stretch")
