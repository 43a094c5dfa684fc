"""Privacy loss and ex-post bounds of noise reductions, and the loss of a whole unified-filter run.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Section 6 (Thm 4: the loss of a stopped Brownian
noise reduction depends on its last release only; Lemma 6.1: the backward martingale; Thm 5: the
ex-post bound for many Brownian noise reductions) and Appendix A (Lemma A.1: the Laplace loss).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.noise_reduction._checks import MAX_PATHS, _grid, _variant
from dpcore.noise_reduction.stopping_rule import _stop_mask

__all__ = [
    "brownian_loss",
    "laplace_loss",
    "psi",
    "brownian_expost_bound",
    "backward_martingale",
    "filter_losses",
]


def brownian_loss(
    release: Any, *, epsilon: Any, value: Any, neighbour: Any, sensitivity: float = 1.0
) -> np.ndarray | float:
    """Realised privacy loss of a Brownian noise reduction stopped at ``epsilon`` (scalar statistic).

    Thm 4 written without its sign (the paper's sign of the Brownian term is flipped, which does not change the
    law): ℒ = (ε²/(2Δ²))·((Y − f(x'))² − (Y − f(x))²).
    Only the last release enters (Lemma 4.1). For f(x) − f(x') = Δ this is ε²/2 + ε²·Z/Δ.
    """
    big = _v.MAX_MAGNITUDE
    y = _v.real_array("release", release, low=-big, high=big, allow_inf=False)
    eps = _v.real_array("epsilon", epsilon, low=0.0, high=big, allow_inf=False)
    fx = _v.real_array("value", value, low=-big, high=big, allow_inf=False)
    fxp = _v.real_array("neighbour", neighbour, low=-big, high=big, allow_inf=False)
    sens = _v.scale("sensitivity", sensitivity)
    with np.errstate(over="ignore", invalid="ignore"):
        out = (eps**2 / (2 * sens**2)) * ((y - fxp) ** 2 - (y - fx) ** 2)
        # where a square overflowed: (Y − f')² − (Y − f)² = (f − f')(2Y − f − f'), scaled factor by factor, so a
        # loss beyond the float range reads as ±inf (never inf − inf)
        r = eps / sens
        out = np.where(np.isfinite(out), out, (r * (fx - fxp)) * (r * (2 * y - fx - fxp)) / 2)
    return out if out.ndim else float(out)


def brownian_loss_vector(
    release: Any, *, epsilon: Any, value: Any, neighbour: Any, sensitivity: float = 1.0
) -> np.ndarray | float:
    """Realised privacy loss of a d-dimensional Brownian noise reduction stopped at ``epsilon`` (Remark 3).

    Each coordinate carries its own independent Brownian motion, and Δ is the ℓ₂-sensitivity:
    ℒ = (ε²/(2Δ²))·(‖Y − f(x')‖² − ‖Y − f(x)‖²). Projected onto f(x) − f(x') the noise is one standard Brownian
    motion, so the loss has the law of the scalar case (:func:`brownian_loss` with |f(x) − f(x')| = ‖f(x) − f(x')‖)
    and a filter charges ε_T²/2 as for a scalar. ``release`` has the coordinates on its last axis.
    """
    big = _v.MAX_MAGNITUDE
    y = _v.real_array("release", release, low=-big, high=big, allow_inf=False)
    fx = _v.real_array("value", value, low=-big, high=big, allow_inf=False)
    fxp = _v.real_array("neighbour", neighbour, low=-big, high=big, allow_inf=False)
    if fx.ndim != 1 or fxp.shape != fx.shape or y.shape[-1:] != fx.shape:
        raise ValueError(
            f"value and neighbour must be vectors of the release's last dimension, got {fx.shape}, "
            f"{fxp.shape} and {y.shape}"
        )
    eps = _v.real_array("epsilon", epsilon, low=0.0, high=big, allow_inf=False)
    sens = _v.scale("sensitivity", sensitivity)
    r = eps / sens
    # ‖Y − f'‖² − ‖Y − f‖² = ⟨f − f', 2Y − f − f'⟩, free of the squares' overflow and cancellation
    out = (r * r / 2) * np.sum((fx - fxp) * (2 * y - fx - fxp), axis=-1)
    return out if np.ndim(out) else float(out)


def laplace_loss(
    release: Any, *, epsilon: Any, value: Any, neighbour: Any, sensitivity: float = 1.0
) -> np.ndarray | float:
    """Realised privacy loss of a Laplace noise reduction stopped at ``epsilon`` (scalar statistic).

    Lemma A.1 (with |f(x) − f(x')| in place of the printed Δ₁(f)): ℒ = (|Y − f(x')| − |Y − f(x)|)/b with b = Δ/ε, so
    |ℒ| ≤ ε·|f(x)−f(x')|/Δ.
    """
    y = _v.real_array("release", release, allow_inf=False)
    eps = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    fx = _v.real_array("value", value, allow_inf=False)
    fxp = _v.real_array("neighbour", neighbour, allow_inf=False)
    sens = _v.scale("sensitivity", sensitivity)
    out = (eps / sens) * (np.abs(y - fxp) - np.abs(y - fx))
    return out if out.ndim else float(out)


def psi(v: Any, *, gamma: float, delta: float) -> np.ndarray | float:
    """Gaussian-mixture boundary ψ(v; γ, δ) = √((v+γ)·log((v+γ)/(δ²γ))) (Section 6.1, after Howard et al. 2021)."""
    vv = _v.real_array("v", v, low=0.0, allow_inf=False)
    g = _v.scale("gamma", gamma)
    d = _v.probability("delta", delta, low_open=True, high_open=True)
    out = np.sqrt((vv + g) * (np.log((vv + g) / g) - 2.0 * math.log(d)))
    return out if out.ndim else float(out)


def brownian_expost_bound(v: Any, *, gamma: float, delta: float, variant: str = "corrected") -> np.ndarray | float:
    """Ex-post loss bound for Brownian noise reductions with V = Σ ε_{i,T_i}² (Thm 5).

    The printed Thm 5 omits the drift, ℰ = ψ(V) (``variant="as_printed"``, unsound); the sound bound (default) is
    ℰ = V/2 + ψ(V; γ, δ), valid with probability ≥ 1 − δ uniformly over the number of mechanisms.
    """
    var = _variant(variant)
    vv = _v.real_array("v", v, low=0.0, allow_inf=False)
    p = np.asarray(psi(vv, gamma=gamma, delta=delta))
    out = p if var == "as_printed" else vv / 2.0 + p
    return out if out.ndim else float(out)


def backward_martingale(noise: Any, epsilons: Any, *, lam: float, sensitivity: float = 1.0) -> np.ndarray:
    """Lemma 6.1: M(t) = exp(λ·B(t)/t − λ²/(2t)) at t = 1/ε² for Brownian noise Z = Δ·B(t) on an ε grid.

    ``noise`` has shape (..., len(epsilons)); B(t)/t = ε²·Z/Δ = W(ε²) (time inversion), so M is the
    exponential martingale of W run forward in s = ε²: E[M] = 1 at every level and E[M(τ)] ≤ 1 at stopping times.
    """
    z = _v.real_array("noise", noise, allow_inf=False)
    eps = _grid("epsilons", epsilons)
    lm = _v.real("lam", lam)
    sens = _v.scale("sensitivity", sensitivity)
    if z.shape[-1:] != eps.shape:
        raise ValueError(f"noise must have last axis of length len(epsilons) = {eps.size}, got shape {z.shape}")
    s = eps * eps
    with np.errstate(over="ignore"):  # M beyond the float range reads as +inf
        return np.exp(lm * s * z / sens - lm * lm * s / 2.0)


def filter_losses(
    rho: float,
    *,
    n_runs: int,
    value: float = 100.0,
    alpha: float = 0.1,
    zcdp_share: float = 0.4,
    rho_round: tuple[float, float] = (0.01, 0.1),
    levels: int = 50,
    epsilon2_min: float = 1e-4,
    max_rounds: int = 200,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Realised total privacy loss of ``n_runs`` unified-filter runs against a worst-case neighbour (Thm 6).

    Each round is, with probability ``zcdp_share``, a Gaussian zCDP release with ρ_i ~ U(rho_round) capped at the
    remainder (loss ρ_i + √(2ρ_i)·ξ), otherwise a Brownian noise reduction of ``value`` on ``levels`` levels linear
    in ε² from ``epsilon2_min`` to twice the remainder (condition (4)), stopped by the relative-error rule and
    charged ε_T²/2 (loss ε_T²/2 + ε_T²·Z_T). A run ends when less than ε²_min/2 is left or after ``max_rounds``.
    In the precision clock s = ε² every loss is Gaussian given its charge, so the total loss is N(S/2, S) given
    the spend S/2. Columns: loss, spent, rounds, bm_rounds.
    """
    r = _v.positive("rho", rho)
    n = _v.integer("n_runs", n_runs, low=1, high=MAX_PATHS)
    y = _v.real("value", value)
    a = _v.positive("alpha", alpha)
    share = _v.probability("zcdp_share", zcdp_share)
    rr = _v.sequence("rho_round", rho_round)
    if len(rr) != 2:
        raise ValueError(f"rho_round must be an interval (low, high), got {rho_round!r}")
    lo, hi = (_v.positive("rho_round", x) for x in rr)
    if hi < lo:
        raise ValueError(f"rho_round must be an interval (low, high) with low <= high, got {rho_round}")
    k = _v.integer("levels", levels, low=1)
    s0 = _v.positive("epsilon2_min", epsilon2_min)
    rounds_max = _v.integer("max_rounds", max_rounds, low=1)
    gen = _v.rng(rng)
    rem = np.full(n, r)
    loss = np.zeros(n)
    rounds = np.zeros(n, dtype=int)
    bm_rounds = np.zeros(n, dtype=int)
    u = np.linspace(0.0, 1.0, k) if k > 1 else np.ones(1)
    for _ in range(rounds_max):
        rows = np.flatnonzero(rem >= s0 / 2.0)
        if not rows.size:
            break
        is_z = gen.random(rows.size) < share
        zr, br = rows[is_z], rows[~is_z]
        if zr.size:
            rho_i = np.minimum(gen.uniform(lo, hi, zr.size), rem[zr])
            loss[zr] += rho_i + np.sqrt(2.0 * rho_i) * gen.standard_normal(zr.size)
            rem[zr] = np.maximum(rem[zr] - rho_i, 0.0)
        if br.size:
            top = 2.0 * rem[br]
            s_t, z_t = _first_stops(y, a, s0, top, u, gen.standard_normal((br.size, k)))
            loss[br] += s_t / 2.0 + s_t * z_t
            rem[br] = np.maximum(rem[br] - s_t / 2.0, 0.0)
            bm_rounds[br] += 1
        rounds[rows] += 1
    return pd.DataFrame({"loss": loss, "spent": r - rem, "rounds": rounds, "bm_rounds": bm_rounds})


def _first_stops(
    y: float, alpha: float, s0: float, top: np.ndarray, u: np.ndarray, xi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Level s_T and noise Z_T where each of the rounds' Brownian noise reductions stops (Def. 4.4, the
    relative-error rule of Section 7; the last level if it never fires), for :func:`filter_losses`.

    Row i has levels s = s0 + (top_i − s0)·u, the last one top_i (linear in ε²), and noise Z(s) = W(s)/s with
    W = cumsum(√Δs · ξ_i). Computed in growing blocks of levels for the rows that have not stopped yet, each
    block continuing the running sum from the last value of the previous one: the same floating-point
    operations, and so the same values, as on the whole grid (most rounds stop within the first levels).
    """
    n, k = xi.shape
    s_t, z_t = np.empty(n), np.empty(n)
    rows = np.arange(n)
    s_prev, w_prev = np.zeros(n), np.zeros(n)
    start, width = 0, 4
    while rows.size:
        end = min(k, start + width)
        t = top[rows]
        s = s0 + (t - s0)[:, None] * u[start:end] if k > 1 else t[:, None].copy()
        if end == k:
            s[:, -1] = t
        inc = np.sqrt(np.diff(s, axis=1, prepend=s_prev[rows][:, None])) * xi[rows, start:end]
        if start:
            w = np.cumsum(np.concatenate((w_prev[rows][:, None], inc), axis=1), axis=1)[:, 1:]
        else:
            w = np.cumsum(inc, axis=1)
        z = w / s
        stop = _stop_mask(y + z, 1.0 / np.sqrt(s), alpha)
        hit = stop.any(axis=1)
        done = hit | (end == k)
        j = np.where(hit, stop.argmax(axis=1), end - start - 1)[done]
        s_t[rows[done]], z_t[rows[done]] = s[done, j], z[done, j]
        s_prev[rows], w_prev[rows] = s[:, -1], w[:, -1]
        rows = rows[~done]
        start, width = end, 2 * width
    return s_t, z_t
