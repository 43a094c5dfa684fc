"""Exact budget decisions and outward rounding: a privacy number is never on the unsafe side, not even by an ulp.

Every float is an exact rational (a multiple of 2⁻¹⁰⁷⁴), so a sum of floats has an exact value, and ``math.fsum``
returns it correctly rounded. A correctly rounded non-zero multiple of 2⁻¹⁰⁷⁴ is never 0 and keeps its sign, so the
sign of one ``fsum`` decides "spent + charge ≤ budget" exactly, whatever the number and size of the terms
(:func:`at_most`, :class:`ExactSum`).

A reported privacy parameter computed with round-off (σ, δ, ε, ρ, a total) is moved outward by :func:`up` or
:func:`down`: a relative margin of a few units of round-off that bounds the computation's error, then one more
float in the same direction, so that the returned value is never on the unsafe side of the exact one (a δ, ε or ρ
never too low, a σ never too small, a budget never too large).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "U",
    "ExactSum",
    "at_most",
    "count_within",
    "div_up",
    "down",
    "frac_down",
    "frac_up",
    "half_square_terms",
    "half_square_up",
    "sum_up",
    "up",
]

#: Unit round-off of a double: |fl(x ∘ y) − x ∘ y| ≤ U·|x ∘ y| for every basic operation (round to nearest).
U = 2.0**-53


def at_most(terms: Iterable[float], bound: float) -> bool:
    """Whether the exact sum of the float ``terms`` is ≤ ``bound`` (exact: the sign of one correctly rounded sum)."""
    return math.fsum([*terms, -bound]) <= 0.0


def frac_up(q: Fraction) -> float:
    """The smallest float ≥ the exact rational ``q``."""
    v = float(q)
    return math.nextafter(v, math.inf) if Fraction(v) < q else v


def frac_down(q: Fraction) -> float:
    """The largest float ≤ the exact rational ``q``."""
    v = float(q)
    return math.nextafter(v, -math.inf) if Fraction(v) > q else v


def half_square_terms(x: float) -> tuple[float, ...]:
    """Floats whose exact sum is x²/2 (Dekker's exact product: x·x = p + e, both floats), or, where that needs bits
    below the smallest float (|x| < 2⁻⁴⁸⁰ ≈ 3e-145, x² < 1e-289) or x² overflows, the single float just above it. A
    filter adds these terms, so ε²/2 is charged exactly (for |x| < 3e-145 up to 1e-300 too much)."""
    x = float(x)
    p = x * x
    if math.isfinite(p) and 2.0**-480 <= abs(x) < 1e140:
        c = 134217729.0 * x  # Veltkamp split of x into two 26-bit halves
        xh = c - (c - x)
        xl = x - xh
        err = ((xh * xh - p) + 2.0 * xh * xl) + xl * xl
        return (p / 2.0, err / 2.0) if err else (p / 2.0,)  # halving is exact: p ≥ 2^-960, err a normal float
    if x == 0 or not math.isfinite(x):
        return (abs(x) * x if x == 0 else math.inf,)
    half = Fraction(x) ** 2 / 2
    return (frac_up(half) if half <= Fraction(1.7976931348623157e308) else math.inf,)


def half_square_up(x: float) -> float:
    """The smallest float ≥ x²/2 (the zCDP cost ε²/2 of a charge, never rounded down; inf beyond the float range)."""
    terms = half_square_terms(x)
    return math.inf if math.inf in terms else ExactSum(*terms).upper


def _two_prod(a: float, b: float) -> tuple[float, float]:
    """(p, e) with p = fl(a·b) and a·b = p + e exactly (Dekker/Veltkamp; |a|, |b| within 1e±140)."""
    p = a * b
    c = 134217729.0 * a
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def div_up(a: float, b: float) -> float:
    """The smallest float ≥ a/b for a ≥ 0, b > 0 (a scale that is never too small; exact check of the quotient)."""
    q = a / b
    if not (math.isfinite(q) and 1e-140 < abs(q) < 1e140 and 1e-140 < abs(b) < 1e140):
        return frac_up(Fraction(a) / Fraction(b)) if math.isfinite(q) else q
    p, e = _two_prod(q, b)
    return math.nextafter(q, math.inf) if math.fsum([p, e, -a]) < 0 else q


def sum_up(*terms: float) -> float:
    """The smallest float ≥ the exact sum of the float ``terms`` (a total that is never too low)."""
    return ExactSum(*terms).upper


def count_within(step: float | Fraction, bound: float) -> int:
    """The largest integer m ≥ 0 with m·step ≤ bound exactly (step > 0, bound ≥ 0 finite): ⌊bound/step⌋ without the
    rounding of the division (0.3/0.1 is 2.9999999999999996, and 3·0.1 > 0.3 in floats taken exactly)."""
    m = int(math.floor(bound / step))
    s, b = Fraction(step), Fraction(bound)
    while (m + 1) * s <= b:
        m += 1
    while m > 0 and m * s > b:
        m -= 1
    return m


class ExactSum:
    """An exact running sum of floats, kept as non-overlapping partials (Shewchuk 1997, the partials of ``fsum``).

    ``value`` is the sum correctly rounded, ``upper``/``lower`` the nearest floats above/below the exact sum, and
    :meth:`excess` the correctly rounded value of sum + x − bound, whose sign is exact.
    """

    __slots__ = ("partials",)

    def __init__(self, *values: float) -> None:
        self.partials: list[float] = []
        for v in values:
            self.add(v)

    def add(self, x: float) -> None:
        """Add the float ``x`` exactly (finite values only: an inf or nan would poison the partials)."""
        x = float(x)
        if not math.isfinite(x):
            raise ValueError(f"x must be finite to be added exactly, got {x!r}")
        i = 0
        partials = self.partials
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)  # exact error of hi = x + y (|x| ≥ |y|: Dekker's Fast2Sum)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        partials[i:] = [x]

    def copy(self) -> ExactSum:
        new = ExactSum()
        new.partials = list(self.partials)
        return new

    @property
    def value(self) -> float:
        """The exact sum rounded to the nearest float."""
        return math.fsum(self.partials)

    @property
    def upper(self) -> float:
        """The smallest float ≥ the exact sum."""
        v = math.fsum(self.partials)
        return math.nextafter(v, math.inf) if math.fsum([*self.partials, -v]) > 0 else v

    @property
    def lower(self) -> float:
        """The largest float ≤ the exact sum."""
        v = math.fsum(self.partials)
        return math.nextafter(v, -math.inf) if math.fsum([*self.partials, -v]) < 0 else v

    def excess(self, x: float, bound: float) -> float:
        """sum + x − bound, correctly rounded (its sign is exact)."""
        return math.fsum([*self.partials, x, -bound])

    def fits(self, x: float, bound: float) -> bool:
        """Exactly: sum + x ≤ bound."""
        return self.excess(x, bound) <= 0.0


def _move(x: Any, ulps: float, direction: float) -> Any:
    arr = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        moved = arr + direction * np.abs(arr) * (ulps * U)
        moved = np.nextafter(moved, direction * np.inf)
    keep = (arr == 0) | ~np.isfinite(arr)  # 0, ±inf and nan are kept: a computed 0 or inf is exact where it arises
    out = np.where(keep, arr, moved)
    return float(out) if out.ndim == 0 else out


def up(x: Any, ulps: float = 0.0) -> Any:
    """x moved up by at least ``ulps`` units of round-off (relative) and one float more; 0, ±inf and nan unchanged.

    For a quantity computed with a relative error of at most ``ulps``·U, the result is ≥ the exact value.
    """
    return _move(x, ulps, 1.0)


def down(x: Any, ulps: float = 0.0) -> Any:
    """x moved down by at least ``ulps`` units of round-off (relative) and one float more; 0, ±inf and nan unchanged."""
    return _move(x, ulps, -1.0)
