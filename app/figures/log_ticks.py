"""Log axes labelled in full: 1, 2, 5, 10 … across a few decades, the powers of ten across more (Plotly would
abbreviate the labels between powers of ten to their first digit)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app import notation


def decades(traces: list[dict], key: str) -> dict[str, Any]:
    """Tick labels for a log axis over the traces' ``key`` values, written in full. Plotly abbreviates the labels
    between powers of ten to their first digit ("0.01 2 5 0.1 2 5", read as "5, 10, 2"). Across one to
    :data:`_FEW_DECADES` decades: 1, 2, 5, 10, 20, 50 …; across more: the powers of ten, with unlabelled ticks
    between them on an x axis up to :data:`_MINOR_DECADES`; under one decade Plotly's own labels (0.06 0.08 0.1)."""
    values = []
    for t in traces:
        try:
            v = np.asarray(t.get(key, ()), dtype=float).ravel()
        except (TypeError, ValueError):
            continue
        values.append(v[np.isfinite(v) & (v > 0)])
    v = np.concatenate(values) if values else np.array([])
    if v.size == 0 or v.max() < 10 * v.min() or v.max() > 1e12 * v.min():  # beyond 12 decades: Plotly thins them
        return {}
    lo, hi = float(v.min()), float(v.max())
    span = math.log10(hi / lo)
    if span <= _FEW_DECADES:
        ticks = [
            m * 10.0**k
            for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            for m in (1, 2, 5)
            if lo / 1.5 <= m * 10.0**k <= hi * 1.5
        ]
        return {"tickmode": "array", "tickvals": ticks, "ticktext": [notation.number(t) for t in ticks]}
    minor = {"minor": {"dtick": "D1", "ticks": "outside", "ticklen": 4, "showgrid": False}}
    return {"dtick": 1, **(minor if key == "x" and span <= _MINOR_DECADES else {})}  # beside y labels, a comb


#: A log axis over at most this many decades is labelled 1, 2, 5, 10 …; a longer one at the powers of ten.
_FEW_DECADES = 2.5
#: Unlabelled ticks between the powers of ten up to this many decades (beyond, they crowd the axis).
_MINOR_DECADES = 5.0
