"""Shared argument checks: one place for "epsilon must be > 0, got -1".

Every public ``dpcore`` function validates its inputs through these helpers, so that
bad input always raises :class:`ValueError` naming the parameter and its valid range.
Each helper returns the value converted to the canonical type (``float``, ``int``,
``numpy.ndarray`` …) so callers can write ``eps = _v.positive("epsilon", epsilon)``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "real",
    "positive",
    "nonnegative",
    "probability",
    "integer",
    "real_array",
    "choice",
    "rng",
    "sequence",
    "MIN_SCALE",
    "MAX_SCALE",
    "MAX_MAGNITUDE",
    "scale",
    "bounded",
]

#: Supported range of scale-like inputs (noise scales σ, b, θ, sensitivities Δ): beyond it a ratio such as Δ/σ or
#: (Δ/σ)² over- or underflows a double, so results could not be computed soundly; these limits are ~1e90 away from
#: anything the paper or the app uses.
MIN_SCALE = 1e-100
MAX_SCALE = 1e100
#: Largest supported finite magnitude of unbounded real inputs (ε, values, exponents) where an intermediate such as
#: ε², e^{ε·…} or value² would overflow: ±inf stays accepted where a function documents it.
MAX_MAGNITUDE = 1e100


def _fmt(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return f"{x:g}"


def _range_text(low: float, high: float, low_open: bool, high_open: bool) -> str:
    return f"{'(' if low_open else '['}{_fmt(low)}, {_fmt(high)}{')' if high_open else ']'}"


def _to_float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.floating | np.integer):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return _to_float(name, value.item())
        raise ValueError(f"{name} must be a real number, got {value!r}")
    try:
        return float(value)
    except OverflowError:  # an int beyond the float range (10**400): ±inf, judged like any infinity
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]  # numbers.Real's stub has no <


def real(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """A real scalar in the interval low..high (closed unless ``*_open``); NaN never passes."""
    x = _to_float(name, value)
    if allow_inf:  # an infinite end of the interval is then attainable
        low_open = low_open and math.isfinite(low)
        high_open = high_open and math.isfinite(high)
    rng_txt = _range_text(low, high, low_open, high_open)
    if math.isnan(x):
        raise ValueError(f"{name} must be a number in {rng_txt}, got nan")
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be finite and in {rng_txt}, got {_fmt(x)}")
    too_low = x <= low if low_open else x < low
    too_high = x >= high if high_open else x > high
    if too_low or too_high:
        raise ValueError(f"{name} must be in {rng_txt}, got {value!r}")
    return x


def positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """A real scalar > 0."""
    return real(name, value, low=0.0, low_open=True, high_open=True, allow_inf=allow_inf)


def nonnegative(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """A real scalar >= 0."""
    return real(name, value, low=0.0, high_open=True, allow_inf=allow_inf)


def probability(name: str, value: Any, *, low_open: bool = False, high_open: bool = False) -> float:
    """A probability in [0, 1], optionally with open ends (e.g. delta in (0, 1))."""
    return real(name, value, low=0.0, high=1.0, low_open=low_open, high_open=high_open)


def integer(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (Python or numpy, or an integral float) in [low, high]."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral | np.integer):
        n = int(value)
    elif isinstance(value, numbers.Real | np.floating) and math.isfinite(value) and float(value).is_integer():
        n = int(value)  # type: ignore[arg-type]  # numbers.Real's stub lacks __int__; exact for any integral value
    else:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    lo_txt = "-inf" if low is None else str(low)
    hi_txt = "inf" if high is None else str(high)
    if (low is not None and n < low) or (high is not None and n > high):
        raise ValueError(f"{name} must be an integer in [{lo_txt}, {hi_txt}], got {value!r}")
    return n


def _all_real(arr: np.ndarray) -> bool:
    return all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in arr.ravel())


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def real_array(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    allow_inf: bool = True,
) -> np.ndarray:
    """A float array (any shape, scalars become 0-d) with no NaN and every entry in [low, high]."""
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in "biuf" and not (raw.dtype.kind == "O" and _all_real(raw)):
            raise TypeError  # complex, strings, None, dates …
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be real numbers, got {_short(value)}") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain nan")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite")
    if arr.size and (arr.min() < low or arr.max() > high):
        raise ValueError(f"{name} must lie in [{_fmt(low)}, {_fmt(high)}]")
    return arr


_Choice = TypeVar("_Choice", bound=str)


def choice(name: str, value: Any, options: Iterable[_Choice]) -> _Choice:
    """One of a fixed set of strings (typed as the options are: a ``Literal`` stays one)."""
    opts = tuple(options)
    if not isinstance(value, str) or value not in opts:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, opts))}; got {value!r}")
    return value


def rng(value: Any) -> np.random.Generator:
    """``numpy.random.Generator`` from a Generator, a non-negative int seed, or None (fresh entropy)."""
    if isinstance(value, np.random.Generator):
        return value
    if value is None:
        return np.random.default_rng()
    return np.random.default_rng(integer("rng", value, low=0))


def sequence(name: str, value: Any) -> list:
    """A finite sequence (list, tuple, 1-D array, range …) as a list; a string or a scalar is refused."""
    if isinstance(value, str | bytes | dict) or np.ndim(value) == 0 or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a sequence (a list or tuple), got {_short(value)}")
    return list(value)


def scale(name: str, value: Any, *, low: float = MIN_SCALE, high: float = MAX_SCALE) -> float:
    """A positive scale-like real (noise scale, sensitivity …) in [MIN_SCALE, MAX_SCALE] = [1e-100, 1e100]."""
    return real(name, value, low=low, high=high)


def bounded(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    low_open: bool = False,
    high: float = math.inf,
    high_open: bool = False,
    allow_inf: bool = False,
    cap: float = MAX_MAGNITUDE,
) -> float:
    """:func:`real`, with finite values further limited to |x| ≤ cap (±inf still pass when ``allow_inf``)."""
    x = real(name, value, low=low, low_open=low_open, high=high, high_open=high_open, allow_inf=allow_inf)
    if math.isfinite(x) and abs(x) > cap:
        lo, hi = max(low, -cap), min(high, cap)
        extra = " (or inf)" if allow_inf else ""
        raise ValueError(
            f"{name} must be in {_range_text(lo, hi, low_open and lo == low, False)}{extra}, got {value!r}"
        )
    return x
