"""Shared checks and size limits of the noise-reduction package (Rogers et al. 2023)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore import _validate as _v

#: Most sample paths / runs simulated at once (arrays of this many rows; the app uses ≤ 10⁴).
MAX_PATHS = 10_000_000
#: Largest Zipf support (one probability per item).
MAX_SUPPORT = 10_000_000


def _grid(name: str, epsilons: Any) -> np.ndarray:
    """A strictly increasing, positive, finite 1-d grid of noise levels (ValueError naming ``name`` otherwise)."""
    arr = _v.real_array(name, epsilons, allow_inf=False)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of noise levels > 0, got shape {arr.shape}")
    if arr[0] <= 0:
        raise ValueError(f"{name} must be > 0 (noise levels), got min {arr[0]:g}")
    if arr.size > 1 and not np.all(np.diff(arr) > 0):
        raise ValueError(f"{name} must be strictly increasing (noise is reduced level by level)")
    return arr


def _variant(variant: str) -> str:
    """``"corrected"`` (the sound statement, default) or ``"as_printed"`` (the paper's printed one)."""
    return _v.choice("variant", variant, ("corrected", "as_printed"))


__all__: list[str] = []
