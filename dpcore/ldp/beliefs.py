"""Beliefs and knowledge gain (Pan 2023, Sec. 2–3: Eq. 2–3, Lemma 3.1–3.2, Thm 3.3).

Bayes update of a prior, the knowledge gain ``b(φ|y)/b(φ)`` of a statement, the adversarial statement and prior of
Lemma 3.2 (App. A.3) that makes the gain approach the realized loss, and the realized g-leakage bound of Thm 3.3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dpcore import _validate as _v
from dpcore.ldp.likelihood import _ROW_SUM_TOL, _ratio, _safe_log, realized_loss


def _prior(prior: Any, n: int | None = None) -> np.ndarray:
    b = _v.real_array("prior", prior, low=0.0, high=1.0, allow_inf=False)
    if b.ndim != 1 or b.size == 0:
        raise ValueError("prior must be a non-empty 1-D array of probabilities over the domain")
    if abs(b.sum() - 1.0) > _ROW_SUM_TOL:
        raise ValueError(f"prior must sum to 1, got {b.sum():.6g}")
    if n is not None and b.size != n:
        raise ValueError(f"prior must have one entry per domain value ({n}), got {b.size}")
    return b


def _loglik(log_likelihood: Any) -> np.ndarray:
    ll = _v.real_array("log_likelihood", log_likelihood)
    if ll.ndim != 1 or ll.size == 0:
        raise ValueError("log_likelihood must be a non-empty 1-D array of ln Λ(x)")
    if np.any(ll == np.inf):
        raise ValueError("log_likelihood must not contain +inf")
    return ll


def posterior(prior: Any, log_likelihood: Any) -> np.ndarray:
    """Bayes update ``b(x|y) ∝ Λ(x) b(x)`` (Eq. 2), computed in log space."""
    ll = _loglik(log_likelihood)
    b = _prior(prior, ll.size)
    w = _safe_log(b) + ll
    if np.all(w == -np.inf):
        raise ValueError("log_likelihood: the output has zero probability under the prior (b(y) = 0)")
    return np.exp(w - special.logsumexp(w))


def knowledge_gain(statement: Any, prior: Any, log_likelihood: Any) -> float:
    """Knowledge gain ``b(φ|y)/b(φ)`` of a statement φ: D → [0, 1] (Sec. 2.2, Eq. 3; a ratio)."""
    ll = _loglik(log_likelihood)
    b = _prior(prior, ll.size)
    phi = _v.real_array("statement", statement, low=0.0, high=1.0, allow_inf=False)
    if phi.shape != b.shape:
        raise ValueError(f"statement must have one entry per domain value ({b.size}), got shape {phi.shape}")
    prior_conf = float(phi @ b)
    if prior_conf <= 0:
        raise ValueError(
            "statement must have positive prior confidence b(φ) > 0 (the learning limit, Def. 3.1, needs it)"
        )
    return float(phi @ posterior(b, ll)) / prior_conf


@dataclass(frozen=True)
class Lemma32:
    """Adversarial statement and prior of Lemma 3.2 (App. A.3) and the gain they achieve."""

    statement: np.ndarray
    prior: np.ndarray
    gain: float  # ratio scale, display only (+inf / 0 where e^log_gain leaves the float range)
    bound: float  # L(y) = e^ℓ for "sup", 1/L(y) for "inf" (ratio scale, display only; +inf / 0 likewise)
    x_a: int
    x_b: int
    log_gain: float  # ln of the gain, exact for any ℓ
    log_bound: float  # ℓ for "sup", −ℓ for "inf" (log scale)


def lemma32_construction(log_likelihood: Any, *, alpha: float = 1e-6, direction: str = "sup") -> Lemma32:
    """Statement ``φ = 1[x = x_a]`` and prior ``α δ_{x_a} + (1−α) δ_{x_b}`` whose gain → L(y) as α → 0.

    Lemma 3.2, Eq. 8/23, App. A.3.  ``direction="inf"`` swaps x_a and x_b, giving gain → 1/L.
    Computed in log space: ``ln gain = ln p_a − ln(α p_a + (1−α) p_b)``; ``log_gain``/``log_bound`` are
    exact for any ℓ, the ratio fields ``gain``/``bound`` saturate to +inf (or 0) outside the float range.
    """
    ll = _loglik(log_likelihood)
    if np.all(ll == -np.inf):
        raise ValueError("log_likelihood: impossible output (every entry is -inf)")
    a = _v.probability("alpha", alpha, low_open=True, high_open=True)
    d = _v.choice("direction", direction, ("sup", "inf"))
    i_max, i_min = int(np.argmax(ll)), int(np.argmin(ll))
    x_a, x_b = (i_max, i_min) if d == "sup" else (i_min, i_max)
    phi = np.zeros(ll.size)
    phi[x_a] = 1.0
    prior = np.zeros(ll.size)
    prior[x_a] += a
    prior[x_b] += 1.0 - a
    if x_a == x_b:
        return Lemma32(phi, prior, 1.0, 1.0, x_a, x_b, 0.0, 0.0)
    loss = float(realized_loss(ll))
    log_bound = loss if d == "sup" else -loss
    # ll[x_a] and ll[x_b] are not both -inf (checked above), so no -inf - -inf
    log_gain = float(ll[x_a] - np.logaddexp(math.log(a) + ll[x_a], math.log1p(-a) + ll[x_b]))
    return Lemma32(phi, prior, _ratio(log_gain), _ratio(log_bound), x_a, x_b, log_gain, log_bound)


@dataclass(frozen=True)
class GLeakage:
    """Realized g-leakage of one output and its bound (Sec. 2.3, Thm 3.3)."""

    prior_vulnerability: float
    posterior_vulnerability: float
    leakage: float  # ln(V_g(b,y)/V_g(b)), natural log
    bound: float  # realized loss ℓ(y) ≥ |leakage|


def g_leakage(gain: Any, prior: Any, log_likelihood: Any) -> GLeakage:
    """Realized g-leakage ``ln(V_g(b,y)/V_g(b))`` for a gain matrix ``gain[w, x] ≥ 0`` (Thm 3.3, Cor. 3.1).

    The bound ``−ℓ(y) ≤ leakage ≤ ℓ(y)`` needs g ≥ 0 (the proof maps g to statements φ_w = g(w, ·)/max g; App. B).
    """
    ll = _loglik(log_likelihood)
    b = _prior(prior, ll.size)
    g = _v.real_array("gain", gain, low=0.0, allow_inf=False)
    if g.ndim != 2 or g.shape[1] != ll.size or g.shape[0] == 0:
        raise ValueError(f"gain must be a (|W|, |D|={ll.size}) matrix of non-negative gains, got shape {g.shape}")
    v0 = float(np.max(g @ b))
    if v0 <= 0:
        raise ValueError("gain must give positive prior vulnerability V_g(b) > 0")
    v1 = float(np.max(g @ posterior(b, ll)))
    leak = math.log(v1 / v0) if v1 > 0 else -math.inf
    return GLeakage(v0, v1, leak, float(realized_loss(ll)))
