"""Figures of the BR-DP page (Jiang et al. 2024). Each builder takes a frame from ``app.compute.brdp`` → go.Figure.

One module per concern: colours and marks (:mod:`~app.figures.brdp.marks`), recycling itself
(:mod:`~app.figures.brdp.recycling`), its privacy and acceptance (:mod:`~app.figures.brdp.privacy`), subsampling and
the experiments (:mod:`~app.figures.brdp.experiments`); every builder is re-exported here."""

from app.figures.brdp.experiments import (
    experiment,
    experiment_acceptance,
    fig6,
    subsampling_acceptance,
    subsampling_noise,
)
from app.figures.brdp.marks import hband, hline
from app.figures.brdp.privacy import acceptance, composition, loss, profile, q_curves
from app.figures.brdp.recycling import density, landscape, recycler

__all__ = [
    "acceptance",
    "composition",
    "density",
    "experiment",
    "experiment_acceptance",
    "fig6",
    "hband",
    "hline",
    "landscape",
    "loss",
    "profile",
    "q_curves",
    "recycler",
    "subsampling_acceptance",
    "subsampling_noise",
]
