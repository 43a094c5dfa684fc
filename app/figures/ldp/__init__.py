"""Figures of the Local DP page and lesson (Pan 2023). Pure builders: results of ``app.compute.ldp`` in, Figures out.

One module per concern: the shared colours and loss scale (:mod:`~app.figures.ldp.palette`), beliefs, the
filter, the continuous part and the paper's results; every builder is re-exported here
(``from app.figures import ldp as F; F.timeline(...)``)."""

from app.figures.ldp.continuous import (
    bnb_trace,
    landscape_2d,
    secant,
)
from app.figures.ldp.palette import (
    BASIC,
    BAYES,
    BUDGET,
    GOOD,
    LIKE,
    MAXC,
    MINC,
    PRIOR,
    SIMPLE,
)
from app.figures.ldp.posterior import (
    beliefs,
    landscape,
    lemma_curve,
    output_losses,
    statement_band,
)
from app.figures.ldp.privacy_filter import (
    accepted_hist,
    idea,
    regions,
    rr_curve,
    timeline,
)
from app.figures.ldp.reproduce import (
    evaluation,
    example2,
    healthcare,
    loss_paths,
)

__all__ = [
    "BAYES",
    "SIMPLE",
    "BASIC",
    "PRIOR",
    "LIKE",
    "BUDGET",
    "GOOD",
    "MAXC",
    "MINC",
    "beliefs",
    "statement_band",
    "lemma_curve",
    "output_losses",
    "landscape",
    "idea",
    "timeline",
    "accepted_hist",
    "rr_curve",
    "regions",
    "landscape_2d",
    "bnb_trace",
    "secant",
    "example2",
    "evaluation",
    "loss_paths",
    "healthcare",
]
