"""Other utility metrics of an R²DP law (Table I, with its corrected formulas).

Mohammady et al. 2020 (R²DP), Section IV-A-2 and Table I: mean absolute noise E|W| = ∫₀^∞ M(-x) dx, RMS noise
and differential entropy. Two of the printed formulas are wrong (see ``docs/errata.md``): the ℓ2 double
integral needs inner limits [x, ∞) (as printed it diverges) and the entropy misses the constant ln(2/E[u]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import integrate

from dpcore import _validate as _v
from dpcore.r2dp.laws import Dirac, Gamma, MixingLaw, _has_infinite_atom, _law, _out
from dpcore.r2dp.mechanism import epsilon, necessary_condition, usefulness


def mean_abs_noise(law: MixingLaw) -> float:
    """E|W| = ∫_0^∞ M(-x) dx = E[1/u] (Table I ℓ1, correct); inf when it diverges (e.g. Gamma k <= 1)."""
    return float(_law(law)._inverse_moment(1))


def rms_noise(law: MixingLaw, *, variant: Literal["exact", "as_printed"] = "exact") -> float:
    """RMS of W = sqrt(2 E[1/u²]) = sqrt(2 ∫_0^∞ x M(-x) dx) (Table I ℓ2 with corrected limits: the inner
    integral runs over [x, ∞), not [0, ∞)).

    ``variant="as_printed"``: the printed double integral over [0, ∞)² diverges → inf.
    """
    law = _law(law)
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    if variant == "as_printed":
        return math.inf
    return math.sqrt(2 * law._inverse_moment(2))


def entropy(law: MixingLaw, *, variant: Literal["exact", "as_printed"] = "exact") -> float:
    """Differential entropy of W: ln(2/E[u]) + ∫_0^∞ M(-x) M''(-x)/M'(-x) dx (Table I, corrected:
    the paper omits the constant ln(2/E[u])).

    ``variant="as_printed"``: the paper's integral alone (missing ``+ ln(2/E[u])``).
    """
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    exact, printed = entropy_both(law)
    return printed if variant == "as_printed" else exact


def entropy_both(law: MixingLaw) -> tuple[float, float]:
    """(exact, as printed) entropy of W from one evaluation of the integral (see :func:`entropy`).

    Closed forms: Gamma (k+1)/k; Dirac 1 (M''/M' = u, so ∫ u e^{-xu} dx = 1: Laplace's 1 + ln 2b).
    """
    law = _law(law)
    if _has_infinite_atom(law):
        return -math.inf, -math.inf  # an atom of W at 0 (exact answer released): differential entropy -∞
    if isinstance(law, Gamma):
        integral = (law.k + 1) / law.k
    elif isinstance(law, Dirac):
        integral = 1.0
    else:

        def f(x: float) -> float:
            t = -x
            return math.exp(
                float(law.log_mgf_derivative(t, 0) + law.log_mgf_derivative(t, 2) - law.log_mgf_derivative(t, 1))
            )

        s = 1.0 / law.mean
        integral = 0.0
        edges = [0.0, s, 10 * s, 100 * s, math.inf]
        for lo_, hi_ in zip(edges[:-1], edges[1:], strict=True):
            integral += integrate.quad(f, lo_, hi_, limit=200)[0]
    return math.log(2 / law.mean) + integral, integral


def scale_pdf(law: MixingLaw, b: Any) -> np.ndarray | float:
    """Density of the Laplace scale b = 1/u: f_u(1/b)/b² (continuous laws only)."""
    law = _law(law)
    if law.discrete:
        raise ValueError("law must be continuous (a discrete law has atoms 1/u_i, not a density)")
    arr = _v.real_array("b", b, low=0.0, allow_inf=False)
    with np.errstate(over="ignore", invalid="ignore"):  # b → 0 (u = 1/b beyond the float range): density → f_u(inf) = 0
        inv = 1.0 / np.where(arr > 0, arr, 1.0)  # b = 0 (u = ∞) has density 0
        dens = np.asarray(law.pdf(inv), dtype=np.float64)  # type: ignore[attr-defined]  # a continuous law
        out = np.where((arr > 0) & (dens > 0), dens * inv**2, 0.0)
    return _out(out, b)


@dataclass(frozen=True)
class Metrics:
    """Table I numbers of one law (corrected formulas)."""

    epsilon: float
    usefulness: float
    mean_abs: float
    rms: float
    entropy: float
    necessary_condition: float


def metrics(law: MixingLaw, *, gamma: float, sensitivity: float = 1.0) -> Metrics:
    """ε, U(γ), E|W|, RMS, entropy and ln M(Δq) of a law (Table I with the corrected formulas)."""
    law = _law(law)
    return Metrics(
        epsilon=epsilon(law, sensitivity=sensitivity),
        usefulness=float(usefulness(law, gamma=_v.positive("gamma", gamma))),
        mean_abs=mean_abs_noise(law),
        rms=rms_noise(law),
        entropy=entropy(law),
        necessary_condition=necessary_condition(law, sensitivity=sensitivity),
    )
