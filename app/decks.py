"""The pictures that carry an in-figure slider, each drawn at one stop of its slider.

The pages (``app.instant``), the lessons (``app.lessons.slide``) and the handouts draw the same pictures with the same
builders, so a picture and its slider look the same everywhere. Each builder is a module-level function of hashable
arguments, the stop's value first: a worker process can build the picture at every stop (``app.slides.deck``) by
importing it by name. Numbers come from ``app.compute``; the figures from ``app.figures``.
"""

from __future__ import annotations

import plotly.graph_objects as go

from app import catalogue, compute
from app.compute import brdp as cbrdp
from app.compute import ldp as cldp
from app.compute import noise_reduction as cnr
from app.compute import r2dp as cr2dp
from app.compute import svt as csvt
from app.figures import baselines as fbase
from app.figures import brdp as fbrdp
from app.figures import ldp as fldp
from app.figures import noise_reduction as fnr
from app.figures import r2dp as fr2dp
from app.figures import svt as fsvt

#: The stops of R²DP's usefulness picture: ε inside its curves' range (0.1 … 20), so the axis stays put.
USEFULNESS_STOPS = tuple(e for e in catalogue.get("eps").grid if e >= 0.1)


def belief(eps: float) -> go.Figure:
    """What ε promises: how far an observer's belief can move at this ε."""
    return fbase.belief(compute.belief_curve(eps), epsilon=eps)


def densities(eps: float, delta: float, sens: float, calib: str, theta: float) -> go.Figure:
    """The Gaussian and Laplace noise densities at ε, with the error tolerance θ marked."""
    return fbase.densities(compute.densities(eps, delta, sens, calib), theta=theta)


def accuracy(eps: float, theta: float, delta: float, sens: float, calib: str) -> go.Figure:
    """The chance of an answer within θ against ε, with this ε marked."""
    return fbase.accuracy(compute.accuracy_curve(theta, delta, sens, calib), epsilon=eps, theta=theta)


def recycling_density(theta: float, key: cbrdp.PlanKey, seed: int) -> go.Figure:
    """BR-DP's output density at the error tolerance θ (``key`` holds the other settings; its θ is ignored)."""
    curves, hist = cbrdp.density(key._replace(theta=theta), seed)
    return fbrdp.density(curves, hist, kernel=key.kernel, theta=theta, same_traces=True)


def posterior(nq: int, family: str, eps: float, dsize: int, x: int, seed: int, prior: str) -> go.Figure:
    """The prior and the posterior after ``nq`` locally private answers."""
    return fldp.beliefs(cldp.beliefs(family, eps, dsize, nq, x, seed, prior).table)


def usefulness(eps: float, g: float) -> go.Figure:
    """R²DP's usefulness against ε for the normalised γ ``g``, with this ε marked."""
    return fr2dp.usefulness_vs_epsilon(cr2dp.usefulness_vs_epsilon(g), epsilon=eps)


def threshold_comparison(
    k: int, eps: float, c: int, alpha: float, noise: str, monotonic: bool, rule: str, d: float
) -> go.Figure:
    """SVT's threshold correction at ``k`` negative queries: the comparison of the corrected and plain thresholds."""
    sm = csvt.summary(eps, c, k, alpha, noise, monotonic, rule)
    df, _ = csvt.comparison(eps, c, k, alpha, noise, monotonic)
    return fsvt.comparison(df, mean=sm.mean, r_op=sm.r_op, r=sm.r, d=d)


def noise_reduction_idea(eta: float, grid: tuple, y: float, seed: int) -> go.Figure:
    """Noise reduction's idea at step size η: the noisy answers' path down to the true value."""
    df, stops = cnr.paths(*grid, y, eta, "brownian", seed)
    return fnr.idea(df, stops, cnr.bands(*grid, y, eta), value=y)
