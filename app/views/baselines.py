"""The Gaussian & Laplace page: the two classic mechanisms every paper compares against.

Page shape (the same on every page): :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls
from the parameter catalogue and returns them, :func:`render` draws the page, one function per panel. Numbers come from
:mod:`app.compute`, charts from :mod:`app.figures.baselines`; nothing here computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import dpcore
from app import compute, decks, instant, ledger, params, ui
from app.figures import baselines as figs
from app.notation import number, odds_factor, percent
from app.views._metrics import metric_row
from dpcore import ledger as dl

TITLE = "Gaussian & Laplace: the two classic mechanisms"
IDEA = (
    "A differentially private answer is the true answer plus random noise, scaled so that no single person's data "
    "can change what the answer reveals by more than the budget ε allows."
)


@dataclass(frozen=True)
class Settings:
    """The sidebar's values."""

    eps: float
    delta: float
    sens: float
    theta: float
    T: int
    calib: str
    seed: int


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        st.header("Controls")
        s = Settings(
            eps=float(params.control("eps")),
            delta=float(params.control("delta")),
            sens=float(params.control("sens")),
            theta=float(params.control("theta")),
            T=int(params.control("T")),
            calib=str(params.control("calib")),
            seed=int(params.control("seed")),
        )
        ui.share_hint()
    return s


def render(s: Settings) -> None:
    """The page: the idea and its picture first, then accuracy, privacy profiles, composition and samples."""
    ui.header(
        TITLE,
        f"{IDEA} Every paper in this app is measured against two ways of doing it: add **Gaussian** noise N(0, σ²) or "
        "**Laplace** noise Lap(b). Both are *calibrated*: the noise scale is the smallest that keeps the release "
        "(ε, δ)-differentially private for a query whose answer one person can change by at most Δ.",
    )
    noise(s)
    headline(s)
    accuracy(s)
    profiles(s)
    composition(s)
    samples(s)


def noise(s: Settings) -> None:
    """1 · The picture of the idea: the two calibrated noise densities with the accuracy band."""
    with ui.panel(
        "How much noise?",
        "Laplace noise is peaked with heavier tails; Gaussian noise is flatter near zero. Lower ε and both widen; "
        "raise δ and only the Gaussian narrows (Laplace barely uses δ).",
        key="classic-noise",
    ):
        ui.chart(
            instant.figure(decks.densities, "eps", s.eps, s.delta, s.sens, s.calib, s.theta, slot="classic-noise"),
            lambda: compute.densities(s.eps, s.delta, s.sens, s.calib),
            name="noise densities",
            alt="Line chart of the Gaussian and Laplace noise densities at the calibrated scales, with the band "
            "of answers within the error tolerance shaded.",
        )


def headline(s: Settings) -> None:
    """The numbers behind the picture, each with what it means."""
    with ui.panel("What these settings buy"):
        cal = compute.calibration(s.eps, s.delta, s.sens, s.calib)
        _, summary = compute.sampled_outputs(s.eps, s.delta, s.sens, s.calib, s.theta, s.seed)
        total = compute.composed_epsilons(s.eps, s.delta, s.sens, s.calib, s.T)
        st.markdown(_buys(s, cal, summary, total))
        for row, mech in enumerate(compute.MECHS):
            name = mech.capitalize()
            symbol = "σ" if mech == "gaussian" else "b"
            metric_row(
                (
                    f"{name} noise scale {symbol}",
                    number(cal.scale(mech), 4),
                    f"The typical size of the {name} noise added to the true answer: the smallest scale that keeps "
                    f"one release ({number(s.eps)}, {number(s.delta)})-DP when one person moves the answer "
                    f"by up to {number(s.sens)}.",
                ),
                (
                    f"{name}: chance of landing within ±θ",
                    f"{summary.loc[row, 'exact_within_theta']:.4f}",
                    f"The share of releases whose noise is at most θ = {number(s.theta)} in size: how often "
                    "the answer counts as accurate.",
                ),
                (
                    f"{name}: total ε after T = {s.T} releases",
                    number(total.of(mech), 4),
                    f"The privacy budget actually spent by {s.T} releases at δ = {number(s.delta)}, counted "
                    f"exactly; far below the naive {s.T} × {number(s.eps)}.",
                ),
            )
        ledger.offer(  # the two calibrated mechanisms at the page's settings, T-fold
            dl.gaussian_release(
                cal.sigma,
                sensitivity=s.sens,
                delta=s.delta,
                compositions=s.T,
                label=f"Gaussian σ={number(cal.sigma, 3)}",
                source="baselines",
            ),
            dl.laplace_release(
                cal.laplace_scale,
                sensitivity=s.sens,
                compositions=s.T,
                label=f"Laplace b={number(cal.laplace_scale, 3)}",
                source="baselines",
            ),
        )


def _buys(s: Settings, cal: dpcore.Calibration, summary: pd.DataFrame, total: compute.ComposedEpsilons) -> str:
    """What the settings buy, in sentences: what ε and δ promise, how often each noise is accurate, and what many
    releases cost (the metrics under them give the exact values)."""
    within = dict(zip(summary["mechanism"], summary["exact_within_theta"], strict=True))
    return (
        f"At ε = {number(s.eps)} and δ = {number(s.delta)}, one person's data can change the odds of any answer by at "
        f"most {odds_factor(s.eps)} (e^ε), except with a chance δ. Laplace noise, of typical size b = "
        f"{number(cal.laplace_scale, 3)}, lands within ±θ = {number(s.theta)} of the true answer in "
        f"**{percent(within['laplace'])}** of releases; Gaussian noise, of typical size σ = {number(cal.sigma, 3)}, "
        f"in **{percent(within['gaussian'])}**.\n\n"
        f"After T = {s.T} such releases, counted exactly, Gaussian noise has spent ε = "
        f"{number(total.of('gaussian'), 3)} and Laplace noise ε = {number(total.of('laplace'), 3)} in total (with "
        f"δ = {number(s.delta)}), against the simple sum {number(s.T * s.eps)}."
    )


def accuracy(s: Settings) -> None:
    """2 · Accuracy against ε for both mechanisms."""
    with ui.panel(
        "How accurate, for each ε?",
        "accuracy rises steeply over a narrow range of ε. At small ε Laplace is usually more accurate for the same "
        "(ε, δ); Gaussian catches up only at large ε or large δ.",
        key="classic-accuracy",
    ):
        ui.chart(
            instant.figure(decks.accuracy, "eps", s.eps, s.theta, s.delta, s.sens, s.calib, slot="classic-accuracy"),
            lambda: compute.accuracy_curve(s.theta, s.delta, s.sens, s.calib),
            name="accuracy vs epsilon",
            alt="Probability that the noise is within plus or minus theta, against epsilon, for both mechanisms.",
        )


def profiles(s: Settings) -> None:
    """3 · Privacy profiles δ(ε′) with the calibration target."""
    with ui.panel(
        "Every guarantee one mechanism gives: its privacy profile",
        "one mechanism satisfies a whole curve of (ε′, δ) guarantees. Both curves pass through (or below) the target "
        "marker — that is what calibration means. Laplace reaches δ = 0 at ε′ = Δ/b (pure DP); the Gaussian never "
        "does.",
        key="classic-profiles",
    ):
        ui.chart(
            ui.memo_figure(_profiles_figure, s.eps, s.delta, s.sens, s.calib),
            lambda: compute.profiles(s.eps, s.delta, s.sens, s.calib),
            name="privacy profiles",
            alt="Privacy profile delta as a function of epsilon on a log axis for both mechanisms, with the "
            "calibration target marked.",
        )


def composition(s: Settings) -> None:
    """4 · Total ε after T releases."""
    with ui.panel(
        "Many releases: composition",
        "the exact total grows roughly like √T, far below the naive T·ε; the Gaussian composes especially well, "
        "which is why large systems favour it.",
        key="classic-composition",
    ):
        ui.chart(
            ui.memo_figure(_composition_figure, s.eps, s.delta, s.sens, s.calib, s.T),
            lambda: compute.composition(s.eps, s.delta, s.sens, s.calib, compute.composition_range(s.T)),
            name="composition",
            alt="Total epsilon after T releases for Gaussian, Laplace and basic composition.",
        )


def samples(s: Settings) -> None:
    """5 · Seeded samples over the exact densities."""
    with ui.panel(
        "100 000 sampled outputs",
        "the histograms of seeded draws sit on the exact densities; the empirical share within ±θ matches the exact "
        "probability within a few standard errors. Change the seed to redraw.",
    ):
        ui.chart(
            ui.memo_figure(_histogram_figure, s.eps, s.delta, s.sens, s.calib, s.theta, s.seed),
            lambda: compute.sampled_outputs(s.eps, s.delta, s.sens, s.calib, s.theta, s.seed).histogram,
            name="sampled outputs",
            alt="Histogram of 100000 sampled noise values per mechanism over their densities.",
        )
        st.dataframe(
            ui.memo_figure(_samples_table, s.eps, s.delta, s.sens, s.calib, s.theta, s.seed),
            hide_index=True,
            width="stretch",
        )


# The charts, memoised by the settings they depend on (ui.memo_figure).


def _profiles_figure(eps: float, delta: float, sens: float, calib: str) -> go.Figure:
    return figs.profiles(compute.profiles(eps, delta, sens, calib), epsilon=eps, delta=delta)


def _composition_figure(eps: float, delta: float, sens: float, calib: str, compositions: int) -> go.Figure:
    df = compute.composition(eps, delta, sens, calib, compute.composition_range(compositions))
    return figs.composition(df, compositions=compositions, delta=delta)


def _histogram_figure(eps: float, delta: float, sens: float, calib: str, theta: float, seed: int) -> go.Figure:
    hist, summary = compute.sampled_outputs(eps, delta, sens, calib, theta, seed)
    return figs.histogram(hist, total=int(summary["samples"].iloc[0]))


def _samples_table(eps: float, delta: float, sens: float, calib: str, theta: float, seed: int) -> pd.DataFrame:
    """The sampled-versus-exact table under the histogram, in the reader's words."""
    _, summary = compute.sampled_outputs(eps, delta, sens, calib, theta, seed)
    return summary.assign(mechanism=summary["mechanism"].str.capitalize()).rename(
        columns={
            "mechanism": "mechanism",
            "samples": "samples",
            "empirical_within_theta": "share within ±θ (sampled)",
            "standard_error": "standard error",
            "exact_within_theta": "share within ±θ (exact)",
        }
    )
