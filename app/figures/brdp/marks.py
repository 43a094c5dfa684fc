"""The BR-DP charts' colours and names (outcomes, mechanisms, queries, accountants), the ±θ band, reference lines."""

from __future__ import annotations

import numpy as np
import pandas as pd

from app.figures import style
from app.figures.style import COLORS, LABELS

OUTCOME_COLORS = {"released in-bound": "#009E73", "released out-of-bound": "#E69F00", "recycled": "#BBBBBB"}
#: What a draw's outcome means, as its legend says it (the simulator's outcome names are the paper's terms).
OUTCOME_WORDS = {
    "released in-bound": "released, within ±θ",
    "released out-of-bound": "released, outside ±θ",
    "recycled": "thrown away and redrawn",
}
MECH_COLORS = {
    "Lap-DP": "#D55E00",
    "Gau-DP": "#0072B2",
    "Lap-BRDP": "#E69F00",
    "Gau-BRDP": "#009E73",
    "SMP-Lap-BRDP": "#CC79A7",
    "SMP-Gau-BRDP": "#56B4E9",
}
QUERY_COLORS = {"sum": "#0072B2", "average": "#D55E00", "count": "#009E73"}
ACCOUNTANT_NAMES = {
    "paper": "BR-DP, paper's accountant (Thm. 3)",
    "exact": "BR-DP, exact PLD",
    "dp": "plain DP kernel at the full ε",
}


def hband(y0: float, y1: float, text: str) -> tuple[dict, dict]:
    """A shaded horizontal band and its label (shape, annotation): the acceptable set ±θ."""
    return style.band("y", y0, y1, text, color=COLORS["brdp"], opacity=0.10)


def hline(y: float, text: str) -> tuple[dict, dict]:
    """A dotted horizontal reference line, labelled at its right end."""
    return style.hline(y, text, side="right")


def _same(a: pd.Series, b: pd.Series) -> bool:
    """Two curves that would be drawn on top of each other (the kernel at ε_y = ε is plain DP)."""
    return bool(
        np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9, atol=0.0, equal_nan=True)
    )


def _dp_name(kernel: str) -> str:
    return f"{LABELS[kernel]} DP at the full ε"
