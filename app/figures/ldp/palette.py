"""The Local DP charts' shared look (Pan 2023): one colour per filter, belief and bound, and a loss drawn on the
display scale the reader picked (``ratio=False``: ℓ in ε units; ``ratio=True``: e^ℓ on a log axis, so the picture
keeps its shape and only the tick labels change)."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures.style import COLORS, line

BAYES = "#0072B2"  # Bayesian privacy filter / posterior
SIMPLE = "#56B4E9"  # Simplified filter
BASIC = COLORS["reference"]  # basic composition
PRIOR = "#9E9E9E"
LIKE = "#E69F00"  # likelihood
BUDGET = "#D55E00"  # ε_G
GOOD = "#009E73"
MAXC, MINC = "#CC79A7", "#009E73"  # argmax / argmin of Λ


def _col(name: str, ratio: bool) -> str:
    return f"{name}_ratio" if ratio else name


def _loss_axis(ratio: bool) -> dict[str, Any]:
    return {"log_y": True} if ratio else {}


def _step(x: Any, y: Any, **kw: Any) -> dict:
    """A step line (value holds until the next query)."""
    tr = line(x, y, **kw)
    tr["line"]["shape"] = "hv"
    return tr


def _corners(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """The corners of an "hv" step line: the first and last points and every point whose y differs from the one
    before (a point that repeats its predecessor's y draws nothing new), so long flat runs cost the browser nothing."""
    x, y = np.asarray(x), np.asarray(y, dtype=float)
    if y.size <= 2:
        return x, y
    keep = np.r_[True, ~((y[1:] == y[:-1]) | (np.isnan(y[1:]) & np.isnan(y[:-1])))]
    keep[-1] = True
    return x[keep], y[keep]
