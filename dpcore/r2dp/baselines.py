"""What R²DP is compared with: the Laplace mechanism, the staircase mechanism and two caps.

Mohammady et al. 2020 (R²DP), Thm 2.2 (Laplace usefulness) and Sections IV-C/V (comparison with the optimal
noise, "Laplace for small ε, staircase for large ε"); the staircase is Geng & Viswanath 2016 ("The optimal
noise-adding mechanism in differential privacy"). Two bounds are derived here, not in the paper: every ε-DP
R²DP Laplace law has E[u] <= e^ε E[u e^{-Δq u}] <= e^{ε-1}/Δq, hence U(γ) <= γ e^{ε-1}/Δq
(:func:`universal_cap`); and Laplace is a local optimum among mixing laws exactly when ε (1 - γ/Δq) <= 2
(:func:`laplace_threshold`).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from dpcore import _validate as _v
from dpcore.r2dp.laws import _out
from dpcore.r2dp.mechanism import MAX_SAMPLES


def _eps_array(epsilon: Any) -> np.ndarray:
    e = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    if np.any(e <= 0):
        raise ValueError("epsilon must be > 0")
    return e


def laplace_usefulness(
    epsilon: Any, *, gamma: float, sensitivity: float = 1.0, variant: Literal["exact", "as_printed"] = "exact"
) -> np.ndarray | float:
    """U_Lap = 1 - exp(-ε γ/Δq) (Thm 2.2, corrected; vectorised over ε).

    ``variant="as_printed"``: the failure probability ``e^{+γ/b(ε)}`` of the appendix's proof of
    Thm 4.2 (a sign error),
    i.e. ``1 - exp(+ε γ/Δq)`` — negative, not a probability.
    """
    e = _eps_array(epsilon)
    g = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    with np.errstate(over="ignore"):
        out = -np.expm1(-e * g / dq) if variant == "exact" else -np.expm1(e * g / dq)
    return _out(out, epsilon)


def staircase_usefulness(
    epsilon: Any, *, gamma: float, sensitivity: float = 1.0, r: float | None = None
) -> np.ndarray | float:
    """Usefulness of the Geng–Viswanath staircase (Geng & Viswanath 2016); r=None → optimal r* = frac(γ/Δq).

    U*(ε) = 1 - e^{-mε} + e^{-mε} (e^ε - 1) g / ((e^ε - 1) g + 1), m = ⌊γ/Δq⌋, g = frac(γ/Δq).
    """
    e = _eps_array(epsilon)
    gam = _v.scale("gamma", gamma)
    dq = _v.scale("sensitivity", sensitivity)
    ratio = gam / dq
    m = float(math.floor(ratio))
    rho = ratio - m
    with np.errstate(all="ignore"):
        emeps = np.exp(-m * e)
        if r is None:
            em1g = np.expm1(e) * rho
            inner = np.where(rho > 0, 1.0 / (1.0 + 1.0 / np.where(em1g > 0, em1g, 1.0)), 0.0)
        else:
            rr = _v.probability("r", r)
            a2 = -np.expm1(-e) / (rr + (1 - rr) * np.exp(-e))  # 2 Δq a(r)
            inner = a2 * (min(rho, rr) + np.exp(-e) * max(0.0, rho - rr))
        out = -np.expm1(-m * e) + emeps * inner
    return _out(out, epsilon)


def staircase_optimal_r(
    epsilon: float, *, gamma: float | None = None, sensitivity: float = 1.0, cost: str = "usefulness"
) -> float:
    """Optimal staircase fraction r: usefulness → frac(γ/Δq); ``cost="l1"`` → 1/(1+e^{ε/2});
    ``cost="l2"`` → Geng–Viswanath r2*(ε)."""
    e = _v.positive("epsilon", epsilon)
    cost = _v.choice("cost", cost, ("usefulness", "l1", "l2"))
    if cost == "usefulness":
        g = _v.scale("gamma", gamma) / _v.scale("sensitivity", sensitivity)
        return g - math.floor(g)
    if cost == "l1":
        return 1.0 / (1.0 + math.exp(e / 2))
    b = math.exp(-e)
    return -b / (1 - b) + (b - 2 * b**2 + 2 * b**4 - b**5) ** (1 / 3) / (2 ** (1 / 3) * (1 - b) ** 2)


def staircase_density(x: Any, epsilon: float, *, sensitivity: float = 1.0, r: float = 0.5) -> np.ndarray | float:
    """Staircase noise density f_r(x) (Geng & Viswanath 2016)."""
    e = _v.positive("epsilon", epsilon)
    dq = _v.scale("sensitivity", sensitivity)
    rr = _v.probability("r", r)
    arr = _v.real_array("x", x)
    ax = np.abs(arr) / dq
    with np.errstate(all="ignore"):
        j = np.floor(ax)
        a = -math.expm1(-e) / (2 * dq * (rr + (1 - rr) * math.exp(-e)))
        out = np.where(ax - j < rr, a * np.exp(-j * e), a * np.exp(-(j + 1) * e))
        out = np.where(np.isinf(ax), 0.0, out)
    return _out(out, x)


def sample_staircase(
    n: int, epsilon: float, *, sensitivity: float = 1.0, r: float = 0.5, rng: Any = None
) -> np.ndarray:
    """n draws of staircase noise (geometric × uniform construction of Geng & Viswanath 2016)."""
    n = _v.integer("n", n, low=0, high=MAX_SAMPLES)
    e = _v.positive("epsilon", epsilon)
    dq = _v.scale("sensitivity", sensitivity)
    rr = _v.probability("r", r)
    g = _v.rng(rng)
    G = g.geometric(-math.expm1(-e), n) - 1  # P(G = i) = (1 - e^-ε) e^{-iε}
    U = g.random(n)
    pb = (1 - rr) * math.exp(-e) / (rr + (1 - rr) * math.exp(-e))
    B = g.random(n) < pb
    S = np.where(g.random(n) < 0.5, -1.0, 1.0)
    return S * dq * np.where(B, G + rr + (1 - rr) * U, G + rr * U)


def laplace_threshold(g: Any) -> np.ndarray | float:
    """Local-optimality threshold ε = 2/(1 - γ/Δq): Gamma/Uniform beat Laplace iff ε above it.

    Laplace (a point mass at u* = ε/Δq) is a local optimum among mixing laws iff ε (1 - γ/Δq) <= 2 (the
    second-order condition of the Lagrangian of Eq. 5 at u*); every family that contains laws concentrating on u*
    beats it above the threshold.
    """
    arr = _v.real_array("g", g, low=0.0)
    with np.errstate(divide="ignore"):
        out = np.where(arr < 1, 2.0 / (1.0 - np.minimum(arr, 1.0 - 1e-300)), np.inf)
    return _out(out, g)


def universal_cap(epsilon: Any, *, gamma: float, sensitivity: float = 1.0) -> np.ndarray | float:
    """min(1, γ e^{ε-1}/Δq): upper bound on the usefulness of every ε-DP R²DP-Laplace mechanism.

    E[u] <= e^ε E[u e^{-Δq u}] <= e^ε max_u u e^{-Δq u} = e^{ε-1}/Δq bounds the peak density f(0) = E[u]/2,
    hence U(γ) <= 2γ f(0).
    """
    e = _eps_array(epsilon)
    g = _v.positive("gamma", gamma) / _v.positive("sensitivity", sensitivity)
    with np.errstate(over="ignore"):
        return _out(np.minimum(1.0, g * np.exp(e - 1.0)), epsilon)
