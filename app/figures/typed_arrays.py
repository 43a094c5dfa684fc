"""Numeric arrays in the typed-array form Plotly sends them to the browser in (a dtype and base64 bytes), made without
Plotly's checks of what it was given."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

#: Plotly's short names of the array types it sends as base64 (``_plotly_utils.utils.plotlyjsShortTypes``).
_SHORT_TYPES = {
    "int8": "i1",
    "uint8": "u1",
    "int16": "i2",
    "uint16": "u2",
    "int32": "i4",
    "uint32": "u4",
    "float32": "f4",
    "float64": "f8",
}


def _narrowest(v: np.ndarray) -> np.ndarray | None:
    """A 64-bit integer array in the narrowest type that holds its values, as Plotly narrows it (plotly.js has no
    64-bit integers); None when none does (Plotly then sends the numbers as a list)."""
    lo, hi = v.min(), v.max()
    kinds = ("int8", "int16", "int32") if v.dtype.kind == "i" else ("uint8", "uint16", "uint32")
    for kind in kinds:
        info = np.iinfo(kind)
        if info.min <= lo and hi <= info.max:
            return v.astype(kind)
    return None


def typed_array(v: Any) -> dict[str, str] | None:
    """A numeric array (numpy, or a pandas Series of a numpy type) as the typed-array spec Plotly's ``to_dict`` would
    make of it (``{"dtype": "f8", "bdata": <base64>}``, with ``"shape"`` for a table); None for anything else, which
    Plotly then converts itself. The same result as ``_plotly_utils.utils.to_typed_array_spec`` without its checks of
    what kind of object it was given, which cost more than the conversion itself (tests/app/test_figures.py compares
    the two)."""
    if hasattr(v, "to_numpy") and isinstance(getattr(v, "dtype", None), np.dtype) and getattr(v, "ndim", 0) == 1:
        v = v.to_numpy()  # a pandas Series of a numpy type (not a nullable or Arrow-backed one)
    if not isinstance(v, np.ndarray) or v.dtype.kind not in "uif" or v.size == 0:
        return None
    if v.dtype in (np.int64, np.uint64):
        v = _narrowest(v)
        if v is None:
            return None
    name = str(v.dtype)
    if name not in _SHORT_TYPES:
        return None
    v = np.ascontiguousarray(v)
    spec = {"dtype": _SHORT_TYPES[name], "bdata": base64.b64encode(v).decode("ascii")}
    if v.ndim > 1:
        spec["shape"] = str(v.shape)[1:-1]
    return spec
