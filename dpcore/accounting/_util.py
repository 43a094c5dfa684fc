"""Small helpers shared by the accounting modules."""

from __future__ import annotations

import numpy as np

FloatOrArray = float | np.ndarray


def out_value(arr: np.ndarray) -> FloatOrArray:
    """Return a Python float for 0-d results, the array otherwise."""
    return float(arr) if arr.ndim == 0 else arr
