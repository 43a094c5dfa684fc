"""What each mechanism of the registry (:mod:`dpcore.mechanisms`) is called on screen: a table of names, no maths.

``full`` is what every table, sentence and ledger line shows; ``short`` is a chart legend's name, where the full one
would crowd the legend (the same unless given). :class:`dpcore.mechanisms.Mechanism` reads its ``name`` and
``short`` here, and so does the app's chart style (``app.figures.style``, which may import this module and no other
of ``dpcore``), so a mechanism is called one thing everywhere.
"""

from __future__ import annotations

from typing import NamedTuple


class Name(NamedTuple):
    """A mechanism's names: in full, and short for a chart's legend."""

    full: str
    short: str


def _name(full: str, short: str | None = None) -> Name:
    return Name(full, full if short is None else short)


#: Registry id → its names, in the registry's order.
NAMES: dict[str, Name] = {
    "laplace": _name("Laplace"),
    "gaussian": _name("Gaussian"),
    "brdp": _name("BR-DP (exact accountant)", "BR-DP (exact)"),
    "brdp_paper": _name("BR-DP (paper's accountant)"),
    "r2dp": _name("R²DP (best paper family)", "R²DP"),
    "r2dp_two_point": _name("R²DP (two-point optimum)"),
    "staircase": _name("Staircase"),
    "noise_reduction": _name("Laplace noise reduction (expected ex-post ε)"),
    "svt_exp": _name("SVT, exponential noise + optimal correction"),
    "svt_laplace": _name("SVT, Laplace noise (no correction)"),
    "rr": _name("Randomized response"),
}


def short_names() -> dict[str, str]:
    """Every id → its chart legend's name."""
    return {mechanism: n.short for mechanism, n in NAMES.items()}
