"""Figures of the SVT page (Liu, Wang, Liu, Li and Chen 2024): frames from ``app.compute.svt`` in, Figures out.

One module per concern: the shared colours and labels (:mod:`~app.figures.svt.palette`), the noises, the
correction, runs and experiments, the numerical framework and the paper's figures; every builder is re-exported
here (``from app.figures import svt as figs; figs.comparison(...)``)."""

from app.figures.svt.correction import (
    alpha_beta,
    comparison,
    rop_vs_alpha,
    rop_vs_epsilon,
    rop_vs_k,
    success,
)
from app.figures.svt.framework import (
    numeric_accuracy,
    numeric_density,
)
from app.figures.svt.noises import (
    budget_split,
    noise_zoo,
    query_loss,
    split_bars,
    threshold_loss,
)
from app.figures.svt.palette import (
    METHOD_COLORS,
    METRIC_LABELS,
    NOISE_COLORS,
    NOISE_LABELS,
    figure,
)
from app.figures.svt.reproduce import (
    fig5_curves,
    fig5_density,
    fig9,
    fig16,
    scores,
    variance_vs_epsilon,
)
from app.figures.svt.runs import (
    FIRST_LOOK,
    appending,
    experiment,
    first_look,
    live_run,
)

__all__ = [
    "NOISE_COLORS",
    "NOISE_LABELS",
    "METHOD_COLORS",
    "figure",
    "METRIC_LABELS",
    "noise_zoo",
    "budget_split",
    "split_bars",
    "query_loss",
    "threshold_loss",
    "comparison",
    "success",
    "rop_vs_k",
    "rop_vs_epsilon",
    "rop_vs_alpha",
    "alpha_beta",
    "FIRST_LOOK",
    "first_look",
    "live_run",
    "appending",
    "experiment",
    "numeric_density",
    "numeric_accuracy",
    "variance_vs_epsilon",
    "fig5_density",
    "fig5_curves",
    "fig9",
    "scores",
    "fig16",
]
