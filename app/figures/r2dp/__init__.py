"""Figures of the R²DP page and lesson (Mohammady et al. 2020) and its re-implemented Figs. 3–9: frames in,
``go.Figure`` out.

One module per concern: colours and shared marks (:mod:`~app.figures.r2dp.marks`), the law and its noise
(:mod:`~app.figures.r2dp.densities`), usefulness against Laplace (:mod:`~app.figures.r2dp.usefulness`), repeated
releases (:mod:`~app.figures.r2dp.repeated`) and the paper's figures (:mod:`~app.figures.r2dp.reproduced`); every
builder is re-exported here (``from app.figures import r2dp as figs; figs.noise(...)``)."""

from app.figures.r2dp.densities import loss_profile, mgf, mixing_law, noise
from app.figures.r2dp.marks import FAMILY_COLORS, FAMILY_LABELS, hline
from app.figures.r2dp.repeated import releases, reuse
from app.figures.r2dp.reproduced import MECHANISM_STYLE, experiment, fig3, fig4, fig5
from app.figures.r2dp.usefulness import (
    improvement_map,
    landscape,
    two_point_map,
    usefulness_vs_epsilon,
    usefulness_vs_g,
)

__all__ = [
    "mixing_law",
    "noise",
    "loss_profile",
    "mgf",
    "usefulness_vs_epsilon",
    "usefulness_vs_g",
    "improvement_map",
    "landscape",
    "two_point_map",
    "releases",
    "fig3",
    "fig4",
    "fig5",
    "experiment",
    "reuse",
    "hline",
    "FAMILY_COLORS",
    "FAMILY_LABELS",
    "MECHANISM_STYLE",
]
