"""Accuracy-first mechanisms: Brownian and Laplace noise reduction, ex-post loss, doubling (paper 001).

Rogers, Samorodnitsky, Wu, Ramdas, "Adaptive Privacy Composition for Accuracy-first Mechanisms"
(NeurIPS 2023). Spec: ``shared/specs/noise_reduction.md``. Conventions:

* noise levels ``epsilons`` form a strictly increasing grid (most noisy first); the Brownian noise at
  level ε has variance Δ²/ε² (spec §3.2, E19), so a Brownian noise reduction stopped at ε_T is
  charged ρ = ε_T²/2 whatever the sensitivity Δ;
* the Laplace noise at level ε has scale b = Δ/ε (spec §3.4, E14 iv) and is charged ε_T (pure ex-post);
* internally the "precision clock" s = ε² is used (spec §2.12).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dpcore import _validate as _v

__all__ = [
    "BrownianSampler",
    "LaplaceSampler",
    "brownian_path",
    "laplace_path",
    "brownian_loss",
    "laplace_loss",
    "psi",
    "brownian_expost_bound",
    "backward_martingale",
    "filter_losses",
    "relative_error_stop",
    "NoiseReductionRelease",
    "release_with_stopping",
    "release_many",
    "cost_comparison",
    "DoublingRelease",
    "doubling_levels",
    "doubling_release",
    "em_rho",
    "exponential_mechanism",
    "zipf_probabilities",
    "zipf_trials",
    "zipf_experiment",
]


#: Most sample paths / runs simulated at once (arrays of this many rows; the app uses ≤ 10⁴).
MAX_PATHS = 10_000_000
#: Largest Zipf support (one probability per item).
MAX_SUPPORT = 10_000_000

# --------------------------------------------------------------------------------------------------
# validation helpers


def _grid(name: str, epsilons: Any) -> np.ndarray:
    arr = _v.real_array(name, epsilons, allow_inf=False)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of noise levels > 0, got shape {arr.shape}")
    if arr[0] <= 0:
        raise ValueError(f"{name} must be > 0 (noise levels), got min {arr[0]:g}")
    if arr.size > 1 and not np.all(np.diff(arr) > 0):
        raise ValueError(f"{name} must be strictly increasing (noise is reduced level by level)")
    return arr


def _variant(variant: str) -> str:
    return _v.choice("variant", variant, ("corrected", "as_printed"))


# --------------------------------------------------------------------------------------------------
# path samplers (spec §3.2, §3.4)


class BrownianSampler:
    """Brownian noise reduction sampled one level at a time, for grids chosen while running (spec §3.2a).

    Def 4.4 / Lemma 4.1. ``step(epsilon)`` returns the noise Z = Δ·B(1/ε²) at the next (larger) level,
    for ``n_paths`` independent paths. ``form="increment"`` uses W(s) = s·B(1/s) (a forward BM in
    s = ε²); ``form="bridge"`` uses the equivalent reverse-time step
    Z' = (s/s')·Z + √(s'−s)/s'·ξ. Both give exactly the same law.
    """

    def __init__(
        self,
        *,
        n_paths: int = 1,
        sensitivity: float = 1.0,
        form: str = "increment",
        rng: np.random.Generator | int | None = None,
    ) -> None:
        self.n_paths = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
        self.sensitivity = _v.scale("sensitivity", sensitivity)
        self.form = _v.choice("form", form, ("increment", "bridge"))
        self._rng = _v.rng(rng)
        self._s = 0.0
        self._eps = 0.0
        self._w = np.zeros(self.n_paths)  # W(s) = s * B(1/s) in unit-sensitivity units
        self._z = np.zeros(self.n_paths)  # B(1/s) in unit-sensitivity units
        self.epsilons: list[float] = []

    @property
    def epsilon(self) -> float:
        """Current noise level (0 before the first step)."""
        return self._eps

    @property
    def noise(self) -> np.ndarray:
        """Noise at the current level, shape (n_paths,)."""
        return self.sensitivity * self._z.copy()

    def step(self, epsilon: float) -> np.ndarray:
        """Noise at the next level ``epsilon`` (> the current one), shape (n_paths,)."""
        eps = _v.scale("epsilon", epsilon)
        if not eps > self._eps:
            raise ValueError(f"epsilon must be > the current level {self._eps:g}, got {eps:g}")
        s_next = eps * eps
        ds = max(s_next - self._s, 0.0)
        xi = self._rng.standard_normal(self.n_paths)
        if self.form == "increment":
            self._w = self._w + math.sqrt(ds) * xi
            self._z = self._w / s_next
        else:
            self._z = (self._s / s_next) * self._z + math.sqrt(ds) / s_next * xi
            self._w = s_next * self._z
        self._s = s_next
        self._eps = eps
        self.epsilons.append(eps)
        return self.sensitivity * self._z.copy()


def brownian_path(
    epsilons: Any,
    *,
    n_paths: int = 1,
    sensitivity: float = 1.0,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Coupled Brownian noise at every level of an increasing ε grid, shape (n_paths, len(epsilons)).

    Def 4.4; Z_k = Δ·B(1/ε_k²) for one standard BM B per row, computed as W(s_k)/s_k with
    W a BM in s = ε² (spec §3.2a, vectorised form). Marginals N(0, Δ²/ε_k²), Corr = min ε / max ε.
    """
    eps = _grid("epsilons", epsilons)
    n = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
    sens = _v.scale("sensitivity", sensitivity)
    gen = _v.rng(rng)
    s = eps * eps
    steps = np.sqrt(np.diff(s, prepend=0.0))
    w = np.cumsum(gen.standard_normal((n, s.size)) * steps, axis=1)
    return (sens / s) * w


def _laplace_reverse_step(x1: np.ndarray, b1: float, b2: float, gen: np.random.Generator) -> np.ndarray:
    """Exact draw of X(b2) given X(b1) = x1 for the Laplace process, b2 < b1 (spec §3.4b)."""
    a = np.abs(x1)
    sgn = np.where(x1 < 0, -1.0, 1.0)
    c = 1.0 / b2 + 1.0 / b1
    d = 1.0 / b2 - 1.0 / b1
    n = a.shape[0]
    if not d > 0:  # b2 == b1 in floating point: the path cannot move
        return np.array(x1, dtype=float, copy=True)
    stay = np.log1p(-gen.random(n)) < math.log(b2 / b1) - a * d
    pos = a > 0
    lm1 = -a / b1 - math.log(c)
    lm2 = np.where(pos, -a / b1 + np.log(np.where(pos, -np.expm1(-d * a), 1.0)) - math.log(d), -np.inf)
    lm3 = -a / b2 - math.log(c)
    top = np.maximum(np.maximum(lm1, lm2), lm3)
    p1, p2, p3 = np.exp(lm1 - top), np.exp(lm2 - top), np.exp(lm3 - top)
    tot = p1 + p2 + p3
    u = gen.random(n) * tot
    e = gen.standard_exponential(n)
    v = gen.random(n)
    x_mid = -np.log1p(v * np.expm1(-d * a)) / d
    x = np.where(u < p1, -e / c, np.where(u < p1 + p2, x_mid, a + e / c))
    return np.where(stay, x1, sgn * x)


class LaplaceSampler:
    """Laplace noise reduction sampled one level at a time with the exact reverse step (spec §3.4b).

    Appendix A, Def A.1 (Koufogiannis et al.). The noise at level ε is X(b), b = Δ/ε, where X is the
    Laplace process (X(b) ~ Lap(b), independent increments). Given X(b1) = x1 the next value stays
    at x1 with probability (b2/b1)·exp(−|x1|(1/b2 − 1/b1)), otherwise it is drawn from the density
    ∝ exp(−|x|/b2 − |x1 − x|/b1) by the three-piece exact sampler.
    """

    def __init__(
        self,
        *,
        n_paths: int = 1,
        sensitivity: float = 1.0,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        self.n_paths = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
        self.sensitivity = _v.scale("sensitivity", sensitivity)
        self._rng = _v.rng(rng)
        self._b = math.inf
        self._eps = 0.0
        self._x = np.zeros(self.n_paths)
        self.epsilons: list[float] = []

    @property
    def epsilon(self) -> float:
        """Current noise level (0 before the first step)."""
        return self._eps

    @property
    def noise(self) -> np.ndarray:
        """Noise at the current level, shape (n_paths,)."""
        return self._x.copy()

    def step(self, epsilon: float) -> np.ndarray:
        """Noise at the next level ``epsilon`` (> the current one), shape (n_paths,)."""
        eps = _v.scale("epsilon", epsilon)
        if not eps > self.epsilon:
            raise ValueError(f"epsilon must be > the current level {self.epsilon:g}, got {eps:g}")
        b2 = self.sensitivity / eps
        if math.isinf(self._b):
            self._x = self._rng.laplace(0.0, b2, self.n_paths)
        else:
            self._x = _laplace_reverse_step(self._x, self._b, b2, self._rng)
        self._b = b2
        self._eps = eps
        self.epsilons.append(eps)
        return self._x.copy()


def laplace_path(
    epsilons: Any,
    *,
    n_paths: int = 1,
    sensitivity: float = 1.0,
    method: str = "fixed",
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Coupled Laplace-process noise at every level of an increasing ε grid, shape (n_paths, len).

    Appendix A / spec §3.4. Scales b_k = Δ/ε_k. ``method="fixed"`` samples the least noisy level
    first, X(b_K) ~ Lap(b_K), then adds increments that are 0 with probability (ε_k/ε_{k+1})² and
    Lap(b_k) otherwise (§3.4a); ``method="reverse"`` runs the exact reverse step from the noisiest
    level (§3.4b). Both are exact; marginals Lap(b_k), Corr = min ε / max ε.
    """
    eps = _grid("epsilons", epsilons)
    n = _v.integer("n_paths", n_paths, low=1, high=MAX_PATHS)
    sens = _v.scale("sensitivity", sensitivity)
    meth = _v.choice("method", method, ("fixed", "reverse"))
    gen = _v.rng(rng)
    b = sens / eps
    k = eps.size
    out = np.empty((n, k))
    if meth == "fixed":
        out[:, -1] = gen.laplace(0.0, b[-1], n)
        if k > 1:
            keep = (eps[:-1] / eps[1:]) ** 2  # P(flat between b_{k+1} and b_k)
            jump = gen.random((n, k - 1)) >= keep
            inc = np.where(jump, gen.laplace(0.0, 1.0, (n, k - 1)) * b[:-1], 0.0)
            out[:, :-1] = out[:, -1:] + np.cumsum(inc[:, ::-1], axis=1)[:, ::-1]
    else:
        out[:, 0] = gen.laplace(0.0, b[0], n)
        for j in range(1, k):
            out[:, j] = _laplace_reverse_step(out[:, j - 1], b[j - 1], b[j], gen)
    return out


# --------------------------------------------------------------------------------------------------
# privacy loss and ex-post bounds (spec §2.7, §2.8, §3.2c, §3.4c)


def brownian_loss(
    release: Any, *, epsilon: Any, value: Any, neighbour: Any, sensitivity: float = 1.0
) -> np.ndarray | float:
    """Realised privacy loss of a Brownian noise reduction stopped at ``epsilon`` (scalar statistic).

    Thm 4 in the sign-free form of spec §2.7 (erratum E4): ℒ = (ε²/(2Δ²))·((Y − f(x'))² − (Y − f(x))²).
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


def laplace_loss(
    release: Any, *, epsilon: Any, value: Any, neighbour: Any, sensitivity: float = 1.0
) -> np.ndarray | float:
    """Realised privacy loss of a Laplace noise reduction stopped at ``epsilon`` (scalar statistic).

    Lemma A.1 (spec §3.4c, E14 iii): ℒ = (|Y − f(x')| − |Y − f(x)|)/b with b = Δ/ε, so |ℒ| ≤ ε·|f(x)−f(x')|/Δ.
    """
    y = _v.real_array("release", release, allow_inf=False)
    eps = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    fx = _v.real_array("value", value, allow_inf=False)
    fxp = _v.real_array("neighbour", neighbour, allow_inf=False)
    sens = _v.scale("sensitivity", sensitivity)
    out = (eps / sens) * (np.abs(y - fxp) - np.abs(y - fx))
    return out if out.ndim else float(out)


def psi(v: Any, *, gamma: float, delta: float) -> np.ndarray | float:
    """Gaussian-mixture boundary ψ(v; γ, δ) = √((v+γ)·log((v+γ)/(δ²γ))) (spec §2.8, Howard et al.)."""
    vv = _v.real_array("v", v, low=0.0, allow_inf=False)
    g = _v.scale("gamma", gamma)
    d = _v.probability("delta", delta, low_open=True, high_open=True)
    out = np.sqrt((vv + g) * (np.log((vv + g) / g) - 2.0 * math.log(d)))
    return out if out.ndim else float(out)


def brownian_expost_bound(
    v: Any, *, gamma: float, delta: float, variant: str = "corrected"
) -> np.ndarray | float:
    """Ex-post loss bound for Brownian noise reductions with V = Σ ε_{i,T_i}² (Thm 5).

    Erratum E3: the printed Thm 5 omits the drift, ℰ = ψ(V); the sound bound (default) is
    ℰ = V/2 + ψ(V; γ, δ), valid with probability ≥ 1 − δ uniformly over the number of mechanisms.
    """
    var = _variant(variant)
    vv = _v.real_array("v", v, low=0.0, allow_inf=False)
    p = np.asarray(psi(vv, gamma=gamma, delta=delta))
    out = p if var == "as_printed" else vv / 2.0 + p
    return out if out.ndim else float(out)


def backward_martingale(noise: Any, epsilons: Any, *, lam: float, sensitivity: float = 1.0) -> np.ndarray:
    """Lemma 6.1: M(t) = exp(λ·B(t)/t − λ²/(2t)) at t = 1/ε² for Brownian noise Z = Δ·B(t) on an ε grid.

    ``noise`` has shape (..., len(epsilons)); B(t)/t = ε²·Z/Δ = W(ε²) (time inversion, spec §2.8), so M is the
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
    """Realised total privacy loss of ``n_runs`` unified-filter runs against a worst-case neighbour (Thm 6, V6, C10).

    Each round is, with probability ``zcdp_share``, a Gaussian zCDP release with ρ_i ~ U(rho_round) capped at the
    remainder (loss ρ_i + √(2ρ_i)·ξ), otherwise a Brownian noise reduction of ``value`` on ``levels`` levels linear
    in ε² from ``epsilon2_min`` to twice the remainder (condition (4)), stopped by the relative-error rule and
    charged ε_T²/2 (loss ε_T²/2 + ε_T²·Z_T). A run ends when less than ε²_min/2 is left or after ``max_rounds``.
    By spec §2.12 the total loss is N(S/2, S) given the spend S/2. Columns: loss, spent, rounds, bm_rounds.
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
            s = s0 + (top - s0)[:, None] * u if k > 1 else top[:, None].copy()
            s[:, -1] = top
            w = np.cumsum(np.sqrt(np.diff(s, axis=1, prepend=0.0)) * gen.standard_normal(s.shape), axis=1)
            z = w / s
            stop = _stop_mask(y + z, 1.0 / np.sqrt(s), a)
            idx = np.where(stop.any(axis=1), stop.argmax(axis=1), k - 1)
            pick = np.arange(br.size)
            s_t, z_t = s[pick, idx], z[pick, idx]
            loss[br] += s_t / 2.0 + s_t * z_t
            rem[br] = np.maximum(rem[br] - s_t / 2.0, 0.0)
            bm_rounds[br] += 1
        rounds[rows] += 1
    return pd.DataFrame({"loss": loss, "spent": r - rem, "rounds": rounds, "bm_rounds": bm_rounds})


# --------------------------------------------------------------------------------------------------
# relative-error stopping rule (spec §2.11)


def _stop_mask(yhat: np.ndarray, sigma: np.ndarray, alpha: float) -> np.ndarray:
    """1−α < |(ŷ+σ)/(ŷ−σ)| ≤ 1+α and |ŷ| > σ, written without division (|ŷ−σ| > 0 there)."""
    num = np.abs(yhat + sigma)
    den = np.abs(yhat - sigma)
    ok = np.abs(yhat) > sigma
    ok &= (1.0 - alpha) * den < num
    ok &= num <= (1.0 + alpha) * den
    return ok


def _stop_scalar(yhat: float, sigma: float, alpha: float) -> bool:
    num = abs(yhat + sigma)
    den = abs(yhat - sigma)
    return abs(yhat) > sigma and (1.0 - alpha) * den < num <= (1.0 + alpha) * den


def relative_error_stop(
    release: Any, epsilon: Any, *, alpha: float, sensitivity: float = 1.0
) -> np.ndarray | bool:
    """Relative-error stopping rule of Section 7: stop once 1−α < |(ŷ+σ)/(ŷ−σ)| ≤ 1+α and |ŷ| > σ.

    σ = Δ/ε is the noise std at the current level. It uses only the released value and its level
    (never the true count). For ŷ > σ it is equivalent to ŷ·ε/Δ ≥ (2+α)/α (spec §2.11, E12).
    """
    y = _v.real_array("release", release, allow_inf=False)
    eps = _v.real_array("epsilon", epsilon, allow_inf=False)
    if eps.size and eps.min() <= 0:
        raise ValueError("epsilon must be > 0")
    a = _v.positive("alpha", alpha)
    sens = _v.scale("sensitivity", sensitivity)
    with np.errstate(over="ignore", invalid="ignore"):  # σ = Δ/ε → inf: never stop
        out = _stop_mask(y, sens / eps, a)
    return out if out.ndim else bool(out)


# --------------------------------------------------------------------------------------------------
# one release with stopping (spec §3.2b, §3.9)


@dataclass(frozen=True)
class NoiseReductionRelease:
    """Outcome of one noise-reduction release (Brownian or Laplace) with a stopping rule.

    ``release`` is the last released value (the answer if ``accepted``; the paper discards it
    otherwise); ``epsilon_stop``/``index`` its level; ``charge`` what a filter is charged:
    ρ = ε_T²/2 for Brownian (zCDP units), ε_T for Laplace (ex-post ε); ``charge_max`` the ex-ante
    worst case (the last grid level); ``loss`` the realised privacy loss against ``neighbour``;
    ``epsilons``/``releases`` the levels and values released up to and including the stop.
    """

    release: float
    epsilon_stop: float
    index: int
    accepted: bool
    mechanism: str
    charge: float
    charge_max: float
    loss: float
    neighbour: float
    epsilons: np.ndarray
    releases: np.ndarray


def _bm_run(
    y: float, s: np.ndarray, alpha: float, sens: float, gen: np.random.Generator, keep_path: bool = False
) -> tuple[int, float, bool, np.ndarray | None]:
    """Lazy Brownian path on the ε² grid ``s`` until the relative-error rule fires (chunked)."""
    k = s.size
    w_prev, s_prev, start, chunk = 0.0, 0.0, 0, 32
    pieces = []
    yhat = np.empty(0)
    while start < k:
        end = min(k, start + chunk)
        ss = s[start:end]
        inc = np.sqrt(np.diff(ss, prepend=s_prev)) * gen.standard_normal(end - start)
        w = w_prev + np.cumsum(inc)
        yhat = y + sens * w / ss
        ok = np.flatnonzero(_stop_mask(yhat, sens / np.sqrt(ss), alpha))
        if ok.size:
            i = int(ok[0])
            if keep_path:
                pieces.append(yhat[: i + 1])
            return start + i, float(yhat[i]), True, (np.concatenate(pieces) if keep_path else None)
        if keep_path:
            pieces.append(yhat)
        w_prev, s_prev, start, chunk = float(w[-1]), float(ss[-1]), end, chunk * 2
    return k - 1, float(yhat[-1]), False, (np.concatenate(pieces) if keep_path else None)


def _bm_run_linear(
    y: float, s0: float, s1: float, k: int, alpha: float, gen: np.random.Generator
) -> tuple[float, float, bool]:
    """:func:`_bm_run` on the grid linspace(s0, s1, k) in ε² (spec §3.9), without building the grid.

    Returns (ε_T², ŷ_T, accepted). All increments but the first have variance h = (s1 − s0)/(k − 1).
    """
    h = (s1 - s0) / (k - 1) if k > 1 else 0.0
    rh = math.sqrt(h)
    w_prev, start, chunk = 0.0, 0, 32
    ss = np.empty(0)
    yhat = np.empty(0)
    while start < k:
        end = min(k, start + chunk)
        ss = s0 + np.arange(start, end) * h
        if end == k:
            ss[-1] = s1
        scale = np.full(end - start, rh)
        if start == 0:
            scale[0] = math.sqrt(s0)  # W(s0) ~ N(0, s0)
        w = np.cumsum(gen.standard_normal(end - start) * scale)
        w += w_prev
        yhat = y + w / ss
        ok = np.flatnonzero(_stop_mask(yhat, 1.0 / np.sqrt(ss), alpha))
        if ok.size:
            i = int(ok[0])
            return float(ss[i]), float(yhat[i]), True
        w_prev, start, chunk = float(w[-1]), end, chunk * 2
    return float(ss[-1]), float(yhat[-1]), False


def release_with_stopping(
    value: float,
    *,
    epsilons: Any,
    alpha: float,
    mechanism: str = "brownian",
    sensitivity: float = 1.0,
    neighbour: float | None = None,
    stop: Callable[[np.ndarray, np.ndarray], bool] | None = None,
    rng: np.random.Generator | int | None = None,
) -> NoiseReductionRelease:
    """Release ``value`` by noise reduction over ``epsilons``, stopping by the relative-error rule.

    Def 4.4 (Brownian) or Def A.1 (Laplace) with a stopping function (Def 4.3, spec §3.2b). The
    default rule is :func:`relative_error_stop` with ``alpha``; a custom ``stop(epsilons, releases)``
    sees only the levels and values released so far (never ``value``). If the rule never fires, the
    last level is reached and ``accepted`` is False. ``neighbour`` defaults to the worst case
    value − sensitivity; the loss is then ε_T²/2 + ε_T²·Z_T/Δ (Brownian) or in [−ε_T, ε_T] (Laplace).
    """
    y = _v.real("value", value)
    eps = _grid("epsilons", epsilons)
    a = _v.positive("alpha", alpha)
    mech = _v.choice("mechanism", mechanism, ("brownian", "laplace"))
    sens = _v.scale("sensitivity", sensitivity)
    nb = y - sens if neighbour is None else _v.real("neighbour", neighbour)
    gen = _v.rng(rng)
    if stop is not None and not callable(stop):
        raise ValueError("stop must be a callable stop(epsilons, releases) -> bool or None")
    if stop is None and mech == "brownian":
        idx, yhat, ok, path = _bm_run(y, eps * eps, a, sens, gen, keep_path=True)
        assert path is not None
    else:
        sampler: BrownianSampler | LaplaceSampler
        if mech == "brownian":
            sampler = BrownianSampler(sensitivity=sens, rng=gen)
        else:
            sampler = LaplaceSampler(sensitivity=sens, rng=gen)
        vals: list[float] = []
        ok = False
        idx = eps.size - 1
        for j, e in enumerate(eps):
            vals.append(y + float(sampler.step(float(e))[0]))
            if stop is None:
                ok = bool(_stop_scalar(vals[-1], sens / float(e), a))
            else:
                ok = bool(stop(eps[: j + 1].copy(), np.asarray(vals)))
            if ok:
                idx = j
                break
        path = np.asarray(vals)
        yhat = float(path[-1])
    e_t = float(eps[idx])
    if mech == "brownian":
        charge, charge_max = e_t**2 / 2.0, float(eps[-1]) ** 2 / 2.0
        loss = (e_t**2 / (2 * sens**2)) * ((yhat - nb) ** 2 - (yhat - y) ** 2)
    else:
        charge, charge_max = e_t, float(eps[-1])
        loss = (e_t / sens) * (abs(yhat - nb) - abs(yhat - y))
    return NoiseReductionRelease(
        release=yhat,
        epsilon_stop=e_t,
        index=int(idx),
        accepted=bool(ok),
        mechanism=mech,
        charge=float(charge),
        charge_max=float(charge_max),
        loss=float(loss),
        neighbour=float(nb),
        epsilons=eps[: idx + 1].copy(),
        releases=np.asarray(path, dtype=float),
    )


def _bm_many(
    y: float, eps: np.ndarray, alpha: float, sens: float, n: int, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Brownian runs with the relative-error rule, drawn level-chunk by level-chunk and only for
    the runs that have not stopped yet. Returns (stopping index, release at the stop)."""
    s = eps * eps
    k = s.size
    w = np.zeros(n)
    idx = np.full(n, k - 1)
    rel = np.empty(n)
    found = np.zeros(n, dtype=bool)
    start, chunk = 0, 32
    while start < k and not found.all():
        end = min(k, start + chunk)
        steps = np.sqrt(np.diff(s[start:end], prepend=s[start - 1] if start else 0.0))
        rows = np.flatnonzero(~found)
        big_w = w[rows, None] + np.cumsum(gen.standard_normal((rows.size, end - start)) * steps, axis=1)
        yh = y + sens * big_w / s[start:end]
        st = _stop_mask(yh, sens / eps[start:end], alpha)
        hit = st.any(axis=1)
        j = st.argmax(axis=1)
        r_hit = rows[hit]
        idx[r_hit] = start + j[hit]
        rel[r_hit] = yh[hit, j[hit]]
        found[r_hit] = True
        w[rows] = big_w[:, -1]
        if end == k:
            rel[rows[~hit]] = yh[~hit, -1]
        start, chunk = end, chunk * 2
    return idx, rel


def release_many(
    value: float,
    *,
    epsilons: Any,
    alpha: float,
    n_runs: int,
    mechanism: str = "brownian",
    sensitivity: float = 1.0,
    neighbour: float | None = None,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """``n_runs`` independent :func:`release_with_stopping` runs (default rule), vectorised.

    Same law as repeated calls (the rule only looks at released values, so drawing whole paths
    first is equivalent). Columns: release, epsilon_stop, index, accepted, charge, loss — the
    distribution of the stopping level and of the ex-post loss against the ex-ante worst case
    ``charge_max`` (= last level) shown by the app (spec §7 V1).
    """
    y = _v.real("value", value)
    eps = _grid("epsilons", epsilons)
    a = _v.positive("alpha", alpha)
    n = _v.integer("n_runs", n_runs, low=1, high=MAX_PATHS)
    mech = _v.choice("mechanism", mechanism, ("brownian", "laplace"))
    sens = _v.scale("sensitivity", sensitivity)
    nb = y - sens if neighbour is None else _v.real("neighbour", neighbour)
    gen = _v.rng(rng)
    k = eps.size
    if mech == "brownian":
        idx, yhat = _bm_many(y, eps, a, sens, n, gen)
    else:
        block = max(1, min(n, 2_000_000 // k))
        idx_l, rel_l = [], []
        done = 0
        while done < n:
            m = min(block, n - done)
            yh = y + laplace_path(eps, n_paths=m, sensitivity=sens, rng=gen)
            stop = _stop_mask(yh, sens / eps, a)
            ii = np.where(stop.any(axis=1), stop.argmax(axis=1), k - 1)
            idx_l.append(ii)
            rel_l.append(yh[np.arange(m), ii])
            done += m
        idx = np.concatenate(idx_l)
        yhat = np.concatenate(rel_l)
    e_t = eps[idx]
    accepted = _stop_mask(yhat, sens / e_t, a)
    if mech == "brownian":
        charge = e_t**2 / 2.0
        loss = (e_t**2 / (2 * sens**2)) * ((yhat - nb) ** 2 - (yhat - y) ** 2)
    else:
        charge = e_t.copy()
        loss = (e_t / sens) * (np.abs(yhat - nb) - np.abs(yhat - y))
    return pd.DataFrame(
        {
            "release": yhat,
            "epsilon_stop": e_t,
            "index": idx,
            "accepted": accepted,
            "charge": charge,
            "loss": loss,
        }
    )


def cost_comparison(
    values: Any,
    *,
    alpha: float = 0.1,
    epsilon2_min: float = 1e-4,
    epsilon2_max: float = 2.706029,
    grid_size: int = 1000,
    draws: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Expected ε² spent per count, Brownian noise reduction vs doubling vs the oracle (spec §4.4, V7).

    For each true count y: BM on linspace(ε²_min, ε²_max, grid_size) charged ε_T² (i.e. 2ρ), and
    doubling from ε²_min capped at ε²_max charged Σ ε_i²; oracle ((2+α)/α / y)². Columns: value,
    bm_cost, bm_cost_se, doubling_cost, doubling_cost_se, ratio, oracle, bm_precision,
    doubling_precision (fraction of accepted releases within relative error α).
    """
    ys = _v.real_array("values", values, allow_inf=False)
    if ys.ndim > 1 or ys.size == 0:
        raise ValueError("values must be a non-empty 1-d list of true counts")
    ys = np.atleast_1d(ys)
    a = _v.positive("alpha", alpha)
    s0 = _v.positive("epsilon2_min", epsilon2_min)
    s1 = _v.positive("epsilon2_max", epsilon2_max)
    if s1 < s0:
        raise ValueError(f"epsilon2_max must be >= epsilon2_min = {s0:g}, got {s1:g}")
    g = _v.integer("grid_size", grid_size, low=1)
    nd = _v.integer("draws", draws, low=2)
    gen = _v.rng(rng)
    rows = []
    for y in ys:
        yv = float(y)
        bm = np.empty(nd)
        db = np.empty(nd)
        bm_ok = bm_good = db_ok = db_good = 0
        for i in range(nd):
            if g == 1 or s1 <= s0:
                s_t, yh, ok = _bm_run_linear(yv, s1, s1, 1, a, gen)
            else:
                s_t, yh, ok = _bm_run_linear(yv, s0, s1, g, a, gen)
            bm[i] = s_t
            bm_ok += ok
            bm_good += ok and abs(abs(yh) - abs(yv)) < a * abs(yv)
            spent, ok2, _, draws_ = _doubling_run(yv, a, s0, s1, math.inf, 1.0, gen)
            db[i] = 2.0 * spent
            db_ok += ok2
            db_good += ok2 and abs(abs(draws_[-1]) - abs(yv)) < a * abs(yv)
        rows.append(
            {
                "value": yv,
                "bm_cost": bm.mean(),
                "bm_cost_se": bm.std(ddof=1) / math.sqrt(nd),
                "doubling_cost": db.mean(),
                "doubling_cost_se": db.std(ddof=1) / math.sqrt(nd),
                "ratio": db.mean() / bm.mean(),
                "oracle": ((2 + a) / a / yv) ** 2 if yv != 0 else math.inf,
                "bm_precision": bm_good / bm_ok if bm_ok else 1.0,
                "doubling_precision": db_good / db_ok if db_ok else 1.0,
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------
# doubling baseline (spec §2.11 / §3.8)


@dataclass(frozen=True)
class DoublingRelease:
    """Outcome of the doubling baseline: every attempt is an independent Gaussian release, all paid.

    ``epsilons`` are the levels tried (ε² doubles, the last one possibly capped), ``releases`` the
    independent draws, ``charge`` = Σ ε_i²/2 (zCDP ρ of all attempts), ``accepted`` whether the
    relative-error rule fired (else the last draw is discarded).
    """

    release: float
    epsilon_stop: float
    attempts: int
    accepted: bool
    charge: float
    epsilons: np.ndarray
    releases: np.ndarray


def doubling_levels(epsilon_start: float, epsilon_max: float) -> np.ndarray:
    """Doubling schedule ε_{i+1} = √2·ε_i from ``epsilon_start``, the last level capped at ``epsilon_max``.

    Section 7.1 ("doubling the square"); the final level is min(next, ε_max) (spec E11 d).
    """
    e0 = _v.scale("epsilon_start", epsilon_start)
    em = _v.scale("epsilon_max", epsilon_max)
    if em < e0:
        raise ValueError(f"epsilon_max must be >= epsilon_start = {e0:g}, got {em:g}")
    s0, sm = e0 * e0, em * em
    levels = []
    s = s0
    while s < sm * (1 - 1e-12):
        levels.append(s)
        s *= 2.0
    levels.append(sm)
    return np.sqrt(np.asarray(levels))


def _doubling_run(
    y: float,
    alpha: float,
    s_start: float,
    s_cap: float,
    rho_avail: float,
    sens: float,
    gen: np.random.Generator,
    charge: Callable[[float], None] | None = None,
) -> tuple[float, bool, list[float], list[float]]:
    """Core loop of spec §3.8: attempt levels until the rule fires, the cap or the budget is hit."""
    s = s_start
    spent = 0.0
    levels: list[float] = []
    draws: list[float] = []
    ok = False
    while True:
        cap = min(s_cap, 2.0 * (rho_avail - spent))
        if cap <= 1e-15 * max(1.0, s_cap if math.isfinite(s_cap) else 1.0):
            break
        last = s >= cap * (1 - 1e-12)
        use = min(s, cap)
        if charge is not None:
            charge(use / 2.0)
        spent += use / 2.0
        e = math.sqrt(use)
        yhat = y + sens * float(gen.standard_normal()) / e
        levels.append(e)
        draws.append(yhat)
        if _stop_scalar(yhat, sens / e, alpha):
            ok = True
            break
        if last:
            break
        s *= 2.0
    return spent, ok, levels, draws


def doubling_release(
    value: float,
    *,
    alpha: float,
    epsilon_start: float,
    epsilon_max: float,
    sensitivity: float = 1.0,
    rho_budget: float | None = None,
    rng: np.random.Generator | int | None = None,
) -> DoublingRelease:
    """Doubling baseline (Section 7.1): fresh Gaussian N(y, Δ²/ε_i²) with ε_i² doubling, all paid.

    Stops at the first attempt satisfying :func:`relative_error_stop`; the last level is capped at
    ``epsilon_max`` and a failure there is discarded. If ``rho_budget`` is given, each attempt is also
    capped so that the total charge Σ ε_i²/2 never exceeds it (spec §3.8, E11 d). Total
    Σ ε_i² < 2 ε_m² ≤ 4 ε*² when uncapped.
    """
    y = _v.real("value", value)
    a = _v.positive("alpha", alpha)
    e0 = _v.scale("epsilon_start", epsilon_start)
    em = _v.scale("epsilon_max", epsilon_max)
    if em < e0:
        raise ValueError(f"epsilon_max must be >= epsilon_start = {e0:g}, got {em:g}")
    sens = _v.scale("sensitivity", sensitivity)
    rb = math.inf if rho_budget is None else _v.positive("rho_budget", rho_budget)
    gen = _v.rng(rng)
    spent, ok, levels, draws = _doubling_run(y, a, e0 * e0, em * em, rb, sens, gen)
    if not levels:  # pragma: no cover - rho_budget > 0 always allows one attempt
        raise ValueError("rho_budget is too small for a single attempt")
    return DoublingRelease(
        release=draws[-1],
        epsilon_stop=levels[-1],
        attempts=len(levels),
        accepted=ok,
        charge=spent,
        epsilons=np.asarray(levels),
        releases=np.asarray(draws),
    )


# --------------------------------------------------------------------------------------------------
# exponential mechanism (spec §3.5, E10)


def em_rho(epsilon: Any, *, neighbours: str = "add_remove") -> np.ndarray | float:
    """zCDP cost of the exponential mechanism P(j) ∝ exp(ε·u_j/Δ) (Cesar–Rogers bounded range).

    ε²/8 for monotone utilities (add/remove neighbours, the paper's choice), ε²/2 if counts can move
    in both directions (replace-one neighbours), spec E10.
    """
    e = _v.real_array("epsilon", epsilon, low=0.0, high=_v.MAX_MAGNITUDE, allow_inf=False)
    nb = _v.choice("neighbours", neighbours, ("add_remove", "replace"))
    out = e**2 / (8.0 if nb == "add_remove" else 2.0)
    return out if out.ndim else float(out)


def exponential_mechanism(
    scores: Any,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    candidates: Any = None,
    rng: np.random.Generator | int | None = None,
) -> int | np.ndarray:
    """Exponential mechanism by the Gumbel-max trick: argmax of score + Gumbel(Δ/ε) (spec §3.5).

    Selects j with probability ∝ exp(ε·score_j/Δ) among ``candidates`` (a boolean mask, default all).
    ``scores`` may be 2-d (one selection per row). Charge: :func:`em_rho`.
    """
    sc = _v.real_array("scores", scores, allow_inf=False)
    if sc.ndim not in (1, 2) or sc.shape[-1] == 0:
        raise ValueError("scores must be a non-empty 1-d or 2-d array")
    e = _v.positive("epsilon", epsilon)
    sens = _v.scale("sensitivity", sensitivity)
    gen = _v.rng(rng)
    noisy = sc + gen.gumbel(0.0, sens / e, sc.shape)
    if candidates is not None:
        mask = np.asarray(candidates, dtype=bool)
        if mask.shape != sc.shape[-1:] or not mask.any():
            raise ValueError("candidates must be a boolean mask of length scores.shape[-1] with a True entry")
        noisy = np.where(mask, noisy, -np.inf)
    idx = np.argmax(noisy, axis=-1)
    return int(idx) if np.ndim(idx) == 0 else idx


# --------------------------------------------------------------------------------------------------
# Figure 3: Zipf experiment (spec §3.10, E11)


def zipf_probabilities(a: float = 0.75, support: int = 300) -> np.ndarray:
    """Zipf probabilities p_k ∝ k^(−a) on {1..support} (a may be < 1; spec §3.10, R13)."""
    aa = _v.nonnegative("a", a)
    m = _v.integer("support", support, low=1, high=MAX_SUPPORT)
    w = np.arange(1, m + 1, dtype=float) ** (-aa)
    return w / w.sum()


def _zipf_trial(
    counts: np.ndarray,
    method: str,
    *,
    alpha: float,
    rho_total: float,
    rho_em: float,
    epsilon_em: float,
    s_min: float,
    grid_size: int,
    gen: np.random.Generator,
) -> tuple[int, float, float]:
    """One trial of spec §3.10 for one method; returns (results, precision, rho spent)."""
    from dpcore.filters import PrivacyFilter, ZCDPFilter

    flt: PrivacyFilter
    if method == "noise_reduction":
        flt = PrivacyFilter.from_rho(rho_total, record=False)
    else:
        flt = ZCDPFilter.from_rho(rho_total, record=False)
    k = counts.size
    left = k
    scores = counts.astype(float)  # removed candidates get -inf
    gumbel = gen.gumbel(0.0, 1.0 / epsilon_em, (16, k))
    row = 0
    returned = good = 0
    while left and flt.remaining_rho - rho_em >= s_min / 2.0:
        if row == gumbel.shape[0]:
            gumbel = gen.gumbel(0.0, 1.0 / epsilon_em, (64, k))
            row = 0
        j = int(np.argmax(scores + gumbel[row]))
        row += 1
        flt.charge_zcdp(rho_em)
        y = float(counts[j])
        scores[j] = -np.inf
        left -= 1
        if method == "noise_reduction":
            s_max = 2.0 * flt.remaining_rho
            flt.start_noise_reduction(math.sqrt(s_max))
            if s_max <= s_min * (1 + 1e-9):
                s_t, yhat, ok = _bm_run_linear(y, s_max, s_max, 1, alpha, gen)
            else:
                s_t, yhat, ok = _bm_run_linear(y, s_min, s_max, grid_size, alpha, gen)
            flt.charge_noise_reduction(math.sqrt(s_t))
        else:
            _, ok, _, draws = _doubling_run(
                y, alpha, s_min, math.inf, flt.remaining_rho, 1.0, gen, charge=flt.charge_zcdp
            )
            yhat = draws[-1] if draws else math.nan
        if ok:
            returned += 1
            good += abs(abs(yhat) - abs(y)) < alpha * abs(y)
    precision = good / returned if returned else 1.0
    return returned, precision, flt.rho_spent


def zipf_trials(
    *,
    sample_sizes: Any = (8000, 16000, 32000, 64000, 128000),
    trials: int = 200,
    alpha: float = 0.1,
    epsilon: float = 10.0,
    delta: float = 1e-6,
    epsilon_em: float = 0.1,
    epsilon2_min: float = 1e-4,
    grid_size: int = 1000,
    a: float = 0.75,
    support: int = 300,
    em_neighbours: str = "add_remove",
    variant: str = "corrected",
    methods: Any = ("noise_reduction", "doubling"),
    rng: np.random.Generator | int | None = None,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """Per-trial results of the Figure 3 experiment (Section 7.2, spec §3.10 with the E11 choices).

    Each trial draws n i.i.d. Zipf(a) values on {1..support}, then repeatedly selects an unused item
    by the exponential mechanism (charged :func:`em_rho`) and releases its count by Brownian noise
    reduction (grid of ``grid_size`` points equally spaced in ε² from ``epsilon2_min`` to the whole
    remaining budget, unified filter, Thm 6) or by doubling (Thm 2 filter), until the budget
    ρ* = rho_budget(ε, δ, variant) is used up. Columns: n, trial, method, results, precision, rho_spent.
    """
    from dpcore.filters import rho_budget

    ns = _v.real_array("sample_sizes", sample_sizes, low=1, allow_inf=False)
    if ns.ndim != 1 or ns.size == 0 or np.any(ns != np.round(ns)):
        raise ValueError("sample_sizes must be a non-empty list of positive integers")
    t = _v.integer("trials", trials, low=1)
    al = _v.positive("alpha", alpha)
    eps = _v.positive("epsilon", epsilon)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    e_em = _v.positive("epsilon_em", epsilon_em)
    s_min = _v.positive("epsilon2_min", epsilon2_min)
    g = _v.integer("grid_size", grid_size, low=2)
    p = zipf_probabilities(a, support)
    rho_em = float(em_rho(e_em, neighbours=em_neighbours))
    rho_total = float(rho_budget(eps, dl, variant=variant))
    if isinstance(methods, str):
        methods = (methods,)
    meths = [_v.choice("methods", m, ("noise_reduction", "doubling")) for m in _v.sequence("methods", methods)]
    if not meths:
        raise ValueError("methods must name at least one of 'noise_reduction', 'doubling'")
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable progress(fraction) or None")
    gen = _v.rng(rng)
    rows = []
    total = ns.size * t
    done = 0
    for n in ns.astype(int):
        for trial in range(t):
            counts = gen.multinomial(int(n), p)
            for m in meths:
                r, prec, spent = _zipf_trial(
                    counts,
                    m,
                    alpha=al,
                    rho_total=rho_total,
                    rho_em=rho_em,
                    epsilon_em=e_em,
                    s_min=s_min,
                    grid_size=g,
                    gen=gen,
                )
                rows.append((int(n), trial, m, r, prec, spent))
            done += 1
            if progress is not None:
                progress(done / total)
    return pd.DataFrame(rows, columns=["n", "trial", "method", "results", "precision", "rho_spent"])


def zipf_experiment(
    *,
    sample_sizes: Any = (8000, 16000, 32000, 64000, 128000),
    trials: int = 200,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[float], None] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Figure 3 summary: mean, sd and a ``confidence`` interval for the mean of results and precision.

    Section 7.2 / spec §3.10, §4.3. One row per (n, method); intervals are Student-t intervals for
    the mean over trials (the paper's error bars are ± sd, also given). Other keyword arguments are
    passed to :func:`zipf_trials`.
    """
    conf = _v.probability("confidence", confidence, low_open=True, high_open=True)
    df = zipf_trials(sample_sizes=sample_sizes, trials=trials, rng=rng, progress=progress, **kwargs)
    out = []
    for (n, m), grp in df.groupby(["n", "method"], sort=True):
        row: dict[str, Any] = {"n": int(n), "method": m, "trials": len(grp)}
        k = len(grp)
        q = float(stats.t.ppf(0.5 + conf / 2, k - 1)) if k > 1 else math.nan
        for col in ("results", "precision", "rho_spent"):
            x = grp[col].to_numpy(dtype=float)
            mu = float(x.mean())
            sd = float(x.std(ddof=1)) if k > 1 else 0.0
            half = q * sd / math.sqrt(k) if k > 1 else math.nan
            row[f"{col}_mean"] = mu
            row[f"{col}_sd"] = sd
            row[f"{col}_ci_low"] = mu - half
            row[f"{col}_ci_high"] = mu + half
        out.append(row)
    return pd.DataFrame(out)
