"""The R²DP Laplace mechanism: exact privacy, usefulness, noise law and releases.

Mohammady et al. 2020 (R²DP), Section III (Def. 3.1, Thm 3.1, Thm 3.2, Cor. 3.3) and Section IV-A (Cor. 4.1,
Thm 4.2). The mechanism releases q(d) + W with W | u ~ Laplace(0, 1/u) and u ~ G drawn fresh and kept secret
for every release. With M(t) = E[e^{tu}]: noise density f(w) = M'(-|w|)/2, tail P(|W| > x) = M(-x), usefulness
U(γ) = 1 - M(-γ), exact ε = ln(E[u] / M'(-Δq)) (tight: the worst output is the true answer).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from dpcore import _validate as _v
from dpcore.r2dp.laws import Dirac, MixingLaw, TwoPoint, _has_infinite_atom, _law, _out

#: Most draws in one sampling call (the app draws ≤ 10⁶).
MAX_SAMPLES = 100_000_000


def epsilon(law: MixingLaw, *, sensitivity: float = 1.0, variant: Literal["exact", "as_printed"] = "exact") -> float:
    """Exact ε of the R²DP Laplace mechanism: ln(E[u] / M'(-Δq)) (Cor. 3.3; tight).

    Returns ``math.inf`` for laws with an atom at u = ∞ (exact answer released with positive
    probability). ``variant="as_printed"``: the paper's Theorem 4.4 for two-point laws,
    ``ln(p e^{Δq u0} + (1-p) e^{Δq u1}) = ln M(+Δq)`` — wrong (its proof drops the weights u_i of the
    mixture density), neither an upper nor a lower bound; only defined for Dirac/TwoPoint.
    """
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    if variant == "as_printed":
        if not isinstance(law, Dirac | TwoPoint):
            raise ValueError("variant='as_printed' (Thm 4.4) is only defined for Dirac/TwoPoint laws")
        return float(law.log_mgf_derivative(dq, 0))
    if _has_infinite_atom(law):
        return math.inf
    val = math.log(law.mean) - float(law.log_mgf_derivative(-dq, 1))
    return max(val, 0.0)


def usefulness(law: MixingLaw, *, gamma: Any) -> np.ndarray | float:
    """U(γ) = P(|W| <= γ) = 1 - M(-γ) (Thm 3.1 / Cor. 4.1; the MGF is evaluated at -γ, not
    at γ as Cor. 4.1's text says); vectorised over γ."""
    law = _law(law)
    g = _v.real_array("gamma", gamma, low=0.0, allow_inf=False)
    if np.any(g <= 0):
        raise ValueError("gamma must be > 0")
    with np.errstate(all="ignore"):
        out = -np.expm1(law.log_mgf_derivative(-g, 0))
    return _out(out, gamma)


def necessary_condition(law: MixingLaw, *, sensitivity: float = 1.0) -> float:
    """ln M(+Δq) = ln E[e^{Δq u}] (Thm 4.2, Eq. 6): R²DP can beat Laplace only if ε < this (may be inf)."""
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    return float(law.log_mgf_derivative(dq, 0))


def reuse_epsilon(law: MixingLaw, *, sensitivity: float = 1.0, queries: int = 2) -> float:
    """Exact joint ε when ONE draw of u is reused for n queries: ln(M^{(n)}(0)/M^{(n)}(-n Δq)).

    The joint density of n outputs is 2^{-n} E[u^n e^{-u Σ|w_i|}]; the worst case is every output at its true
    answer with every neighbour shifted by Δq. (The paper assumes fresh draws, where ε adds up; this is the price
    of reuse.)
    """
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    n = _v.integer("queries", queries, low=1)
    if _has_infinite_atom(law):
        return math.inf
    return float(law.log_mgf_derivative(0.0, n) - law.log_mgf_derivative(-n * dq, n))


def noise_density(w: Any, law: MixingLaw) -> np.ndarray | float:
    """Density of W: f(w) = M'(-|w|)/2 (Thm 3.1; mixture of Laplace densities)."""
    law = _law(law)
    arr = _v.real_array("w", w)
    with np.errstate(all="ignore"):
        out = 0.5 * np.exp(law.log_mgf_derivative(-np.abs(arr), 1))
    return _out(out, w)


def noise_cdf(w: Any, law: MixingLaw) -> np.ndarray | float:
    """CDF of W: M(w)/2 for w < 0, 1 - M(-w)/2 for w >= 0 (Thm 3.1)."""
    law = _law(law)
    arr = _v.real_array("w", w)
    with np.errstate(all="ignore"):
        half_tail = 0.5 * np.exp(law.log_mgf_derivative(-np.abs(arr), 0))
    return _out(np.where(arr < 0, half_tail, 1.0 - half_tail), w)


def sample_noise(n: int, law: MixingLaw, rng: Any = None) -> np.ndarray:
    """n draws of W: fresh secret u ~ G per draw, then Laplace(0, 1/u) (Def. 3.1; Algorithm 1, lines 3–5)."""
    law = _law(law)
    n = _v.integer("n", n, low=0, high=MAX_SAMPLES)
    g = _v.rng(rng)
    u = law.sample(n, g)
    return g.laplace(0.0, 1.0, n) / u


def release(value: Any, law: MixingLaw, rng: Any = None) -> np.ndarray | float:
    """q(d) + W for each entry of value (independent u per release; u is never returned)."""
    arr = _v.real_array("value", value, allow_inf=False)
    w = sample_noise(int(arr.size), _law(law), rng).reshape(arr.shape)
    return _out(arr + w, value)


def privacy_loss(x: Any, law: MixingLaw, *, sensitivity: float = 1.0) -> np.ndarray | float:
    """Privacy-loss profile L(x) = ln f(x) - ln f(x - Δq) (q(d) = 0, q(d') = Δq; Thm 3.2).

    Max ε at x = 0, min -ε at x = Δq, antisymmetric about Δq/2, → Δq·essinf(u) as x → -∞.
    """
    law = _law(law)
    dq = _v.positive("sensitivity", sensitivity)
    arr = _v.real_array("x", x, allow_inf=False)
    out = law.log_mgf_derivative(-np.abs(arr), 1) - law.log_mgf_derivative(-np.abs(arr - dq), 1)
    return _out(out, x)
