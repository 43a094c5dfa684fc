"""The first course's pictures: for a chapter and the value of its one control, the figure (from ``app.figures``),
the data behind it, a text alternative and the sentence under it that says what its numbers mean.

Numbers come from ``app.compute`` (which calls ``dpcore``); nothing is computed here but the choice of what to show.
The app's course page and the course lessons both call :func:`picture`, so they show the same figure and words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from app import catalogue, compute, slides
from app.compute import brdp as cbrdp
from app.compute import course as ccourse
from app.compute import ldp as cldp
from app.compute import noise_reduction as cnr
from app.compute import r2dp as cr2dp
from app.compute import svt as csvt
from app.course.chapters import chapter as course_chapter
from app.figures import baselines as fbase
from app.figures import brdp as fbrdp
from app.figures import course as fcourse
from app.figures import ldp as fldp
from app.figures import noise_reduction as fnr
from app.figures import svt as fsvt
from app.notation import number, percent

DELTA, SENS, THETA = ccourse.DELTA, ccourse.SENSITIVITY, ccourse.THETA
#: The noise-reduction chapter's fixed settings: the page's defaults (ε = 1, δ = 10⁻⁶, a count of 1000, 100 levels).
NR_GRID = (1.0, 1e-6, "corrected", 100, "geometric")
NR_COUNT = 1000.0
#: The local-DP chapter: the page's running example (25 questions about a value in 0 … 10, true value 7).
LDP = ("powers", 11, 25, 7, 0)
#: The R²DP chapter's error tolerance (the page's default γ, as a share of Δ).
R2DP_TOLERANCE = 0.1


@dataclass(frozen=True)
class Picture:
    """A chapter's picture: the figure, the data behind it (its CSV), a text alternative, and the sentence that
    says what its numbers mean at the control's value."""

    figure: go.Figure
    data: pd.DataFrame
    alt: str
    reading: str


def _promise(eps: float) -> Picture:
    table, factor = compute.belief_table(eps)
    half = table.loc[table["prior"] == 0.5, "largest_posterior"].item()
    df = compute.belief_curve(eps)
    return Picture(
        fbase.belief(df, epsilon=eps),
        df,
        "For every belief an observer holds before an answer, the lowest and highest belief she can hold after one "
        "answer at this epsilon: a band around the diagonal that widens as epsilon grows.",
        f"At ε = {number(eps)}, a sceptic who gave 50 % to “Alice is in the data” can end at most at "
        f"**{percent(half, 1)}** after one answer: her odds grow by at most ×{number(factor, 3)}.",
    )


def _noise(eps: float) -> Picture:
    lap = ccourse.laplace_noise(eps, THETA)
    return Picture(
        fcourse.laplace_noise(lap.frame, epsilon=eps, theta=THETA),
        lap.frame,
        "The density of the Laplace noise added to a count at this epsilon, sharply peaked at zero, with the band "
        "of answers within one of the truth shaded.",
        f"At ε = {number(eps)} the noise scale is b = {number(lap.scale, 3)}: a released count is within ±1 of the "
        f"true count in **{percent(lap.within, 0)}** of releases.",
    )


def _delta(delta: float) -> Picture:
    df = ccourse.two_noises(delta, 1.0, widest_delta=min(catalogue.get("delta").grid))
    _, summary = compute.sampled_outputs(1.0, delta, SENS, "analytic", THETA, 0)
    within = dict(zip(summary["mechanism"], summary["exact_within_theta"], strict=True))
    return Picture(
        fcourse.two_noises(df, epsilon=1.0, theta=THETA),
        df,
        "The bell-shaped Gaussian noise and the sharp-peaked Laplace noise that keep the promise at epsilon 1, "
        "with the band of answers within one of the truth shaded.",
        f"At ε = 1 and δ = {number(delta)}, the Gaussian lands within ±1 of the truth in "
        f"**{percent(within['gaussian'], 0)}** of releases, Laplace noise in **{percent(within['laplace'], 0)}**.",
    )


#: The budget chapter's picture spans every T of its control (its axes stay put while T moves).
BUDGET_SPAN = compute.composition_range(max(catalogue.get("T").grid))


def _budget(t: int) -> Picture:
    df = compute.composition(1.0, DELTA, SENS, "analytic", BUDGET_SPAN)
    total = compute.composed_epsilons(1.0, DELTA, SENS, "analytic", t)
    return Picture(
        fcourse.composition(df, compositions=t),
        df,
        "Total epsilon after T releases on log scales: the simple sum T times epsilon as a dotted line, the exact "
        "totals of Gaussian and Laplace noise below it.",
        f"After T = {t} releases at ε = 1 each, the simple sum is {t}; counted exactly, Gaussian noise spends "
        f"ε = **{number(total.gaussian, 3)}** in total and Laplace noise ε = {number(total.laplace, 3)} "
        "(each with δ = 10⁻⁵).",
    )


def _choose(theta: float) -> Picture:
    df = compute.accuracy_curve(theta, DELTA, SENS, "analytic")
    need = ccourse.epsilon_needed(theta)
    return Picture(
        fcourse.accuracy_needed(df, theta=theta, confidence=ccourse.CONFIDENCE, epsilon=need.laplace),
        df,
        "How often Gaussian and Laplace noise land within the tolerance, against epsilon on a log scale, with the "
        "95 percent target and the epsilon Laplace needs marked.",
        f"Within ±{number(theta)} in 95 % of releases: Laplace noise needs ε = **{number(need.laplace, 3)}**, "
        f"Gaussian noise ε = {number(need.gaussian, 3)} (with δ = 10⁻⁵).",
    )


def _brdp_key(eps: float) -> cbrdp.PlanKey:
    return cbrdp.PlanKey(eps, DELTA, SENS, THETA, "gaussian", "exact", "analytic")


def _redraw(eps: float) -> Picture:
    key = _brdp_key(eps)
    plan = cbrdp.plan(key)
    draws, _ = cbrdp.recycler(key, 0)
    return Picture(
        fbrdp.recycler(
            draws,
            theta=THETA,
            title=f"{int(draws['release'].max()) + 1} releases, the misses redrawn",
            x="noise draw (in order)",
        ),
        draws,
        "Successive noise draws of 40 releases, coloured released within the tolerance, released outside it, or "
        "thrown away and redrawn, with the band of accurate answers shaded.",
        f"At ε = {number(eps)} (δ = 10⁻⁵, exact cost), **{percent(plan.acceptance, 1)}** of BR-DP releases land "
        f"within ±1 of the truth; plain Gaussian noise, same guarantee: {percent(plan.dp_acceptance, 1)}.",
    )


def _svt_settings(eps: float) -> tuple:
    d = {
        k: catalogue.get(k).default
        for k in ("c", "neg", "alpha", "thr", "noise", "mono", "append", "trav", "resample", "corr", "seed")
    }
    return (
        eps,
        d["c"],
        d["neg"],
        d["alpha"],
        d["thr"],
        d["noise"],
        d["mono"],
        d["append"],
        d["trav"],
        d["resample"],
        d["corr"],
        d["seed"],
    )


def _sparse(eps: float) -> Picture:
    args = _svt_settings(eps)
    comp, _ = csvt.live_run(*args)
    acct = csvt.accountant(eps, args[1], args[5], args[6])
    above, shown = int(comp["positive"].sum()), int(comp.head(fsvt.FIRST_LOOK)["positive"].sum())
    return Picture(
        fcourse.screening(comp, shown=fsvt.FIRST_LOOK, threshold=args[4]),
        comp.head(fsvt.FIRST_LOOK),
        "The first counts of one run as dots against the noisy threshold as a line: the few dots above it are "
        "answered above, all others below.",
        f"One run at ε = {number(eps)} spends ε = **{number(acct.off, 3)}** in total, however many counts it "
        f"screens. It stops at {args[1]} “above” answers; this run gave {above} in {len(comp)} counts "
        f"({shown} shown).",
    )


def _stop(eta: float) -> Picture:
    df, stops = cnr.paths(*NR_GRID, NR_COUNT, eta, "brownian", 0)
    top = cnr.budget(*NR_GRID[:3]).epsilon_max
    first = stops.iloc[0]
    return Picture(
        fnr.idea(df, stops, cnr.bands(*NR_GRID, NR_COUNT, eta), value=NR_COUNT, plain=True),
        df[df["path"] == 1],
        "One noise-reduction path: the released value against the noise level, converging on the true count, with "
        "the point where it stopped marked.",
        f"With η = {number(eta)}, this count of {number(NR_COUNT)} stopped at the noise level "
        f"ε = **{number(first['epsilon_stop'], 2)}** and pays for that level only, not for the ε = "
        f"{number(top, 2)} it was allowed.",
    )


def _revealed(eps: float) -> Picture:
    family, dsize, nq, x, seed = LDP
    df = cldp.realized_path(family, eps, dsize, nq, x, seed)
    b = cldp.beliefs(family, eps, dsize, nq, x, seed, "uniform")
    return Picture(
        fldp.idea(df, budget=None, ratio=False),
        df,
        "Step lines of the realized privacy loss after each answer and of the sum of epsilons.",
        f"After {nq} answers at ε = {number(eps)} each, the simple sum charges {number(nq * eps)}; what these "
        f"answers actually revealed is ℓ = **{number(b.loss, 3)}**.",
    )


def _random_scale(eps: float) -> Picture:
    df = cr2dp.usefulness_vs_epsilon(R2DP_TOLERANCE)
    best = cr2dp.optimum(eps, R2DP_TOLERANCE, SENS, "two_point")
    return Picture(
        fcourse.random_scale_gain(df, epsilon=eps, theta=R2DP_TOLERANCE),
        df,
        "How often a release lands within 0.1 of the truth against epsilon: Laplace noise and the best random noise "
        "scale, which pulls ahead only at larger epsilon.",
        f"At ε = {number(eps)}, a release is within ±0.1 of the truth in **{percent(best.laplace, 1)}** of releases "
        f"with Laplace noise and in {percent(best.usefulness, 1)} with the best random scale.",
    )


_PICTURES: dict[str, Callable[[Any], Picture]] = {
    "promise": _promise,
    "noise": _noise,
    "delta": _delta,
    "budget": _budget,
    "choose": _choose,
    "redraw": _redraw,
    "sparse": _sparse,
    "stop": _stop,
    "revealed": _revealed,
    "random_scale": _random_scale,
}


def picture(slug: str, value: Any) -> Picture:
    """The picture of chapter ``slug`` at the value of its one control."""
    return _PICTURES[slug](value)


def figure_at(value: Any, slug: str) -> go.Figure:
    """The figure of chapter ``slug`` at one value of its control (a stop of its in-figure slider)."""
    return picture(slug, value).figure


#: Chapters whose in-figure slider stops at some of its control's stops only: the random scale's curves start at
#: ε = 0.1 (below, the marker would stretch the axis).
STOPS: dict[str, tuple[Any, ...]] = {"random_scale": tuple(e for e in catalogue.get("eps").grid if e >= 0.1)}


#: Under a chapter's picture in a lesson, where the page does not follow the picture's own slider (the app's does).
LESSON_SLIDER_NOTE = (
    "The slider under the picture moves the picture only. The sentence below it and the check follow the slider "
    "above the picture."
)


def slide(slug: str, value: Any) -> go.Figure:
    """The figure of chapter ``slug`` at ``value`` carrying every stop of its control, with an in-figure slider and
    a play button (``app.slides``; the app builds the same figure through ``app.instant``)."""
    return slides.figure(figure_at, course_chapter(slug).control, value, slug, play=True, stops=STOPS.get(slug))
