"""The BR-DP mechanism (Jiang et al. 2024, Sec. 3, Fig. 1, Prop. 1): a DP kernel draws a noisy answer, and a
recycler discards an out-of-bound draw (|n| > θ) with probability q and draws again.

Output density (Eq. 3), CDF, variance, acceptance p_θ/(1 - p̄_θ q) (Eq. 9), the geometric number of draws, and two
samplers: a direct one and a step-by-step recycler that records every draw.  The number of draws does not depend
on the true answer (the kernel is translation-invariant), so the iteration count leaks nothing.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore.brdp._common import MAX_SAMPLES, Kernel, _delta, _kernel, _q, _scale, _sens, _theta
from dpcore.brdp.calibration import _calibrate
from dpcore.brdp.kernels import _acc, _cdf, _den, _mass, _p_theta, _pdf, _profile


def kernel_scale(
    epsilon_y: float,
    delta: float,
    *,
    sensitivity: float = 1.0,
    kernel: Kernel = "gaussian",
    calibration: Literal["analytic", "classic"] = "analytic",
) -> float:
    """Kernel scale (sigma or b) for the sub-budget (epsilon_y, delta).

    The paper leaves calibration open.  Gaussian "analytic" (Balle & Wang) or "classic" (D sqrt(2 ln(1.25/delta))/eps);
    Laplace "analytic" = tight b = D/eps', eps' = eps - 2 ln(1 - delta), "classic" = pure b = D/eps.
    Delegates to :mod:`dpcore.accounting`.
    """
    kernel = _kernel(kernel)
    e = _v.bounded("epsilon_y", epsilon_y, low=0.0, low_open=True, cap=_acct.MAX_CALIBRATION_EPSILON)
    dl = _delta(delta)
    d = _sens(sensitivity)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    return float(_calibrate(kernel, e, dl, d, calibration))


def success_probability(*, kernel: Kernel, scale: float, theta: float) -> float:
    """p_theta = Pr(|N| <= theta) of the kernel (eqs. 4-5)."""
    return _p_theta(_kernel(kernel), _scale(scale), _theta(theta))


def kernel_delta(
    epsilon: Any, *, kernel: Kernel, scale: float, sensitivity: float = 1.0, compositions: int = 1
) -> np.ndarray | float:
    """Kernel privacy profile delta_Z^T(epsilon) for every real epsilon incl. +-inf (closed forms)."""
    kernel = _kernel(kernel)
    s = _scale(scale)
    d = _sens(sensitivity)
    t = _v.integer("compositions", compositions, low=1)
    eps = _v.real_array("epsilon", epsilon)
    out = _profile(kernel, eps, s, d, t)
    return float(out) if out.ndim == 0 else out


def acceptance_rate(*, kernel: Kernel, scale: float, theta: float, q: float) -> float:
    """Acceptance Pr(|N_brdp| <= theta) = p_theta / (1 - pbar_theta q) (eq. 9)."""
    p = _p_theta(_kernel(kernel), _scale(scale), _theta(theta))
    q = _q(q)
    return _acc(p, q)


def expected_draws(*, kernel: Kernel, scale: float, theta: float, q: float) -> float:
    """E[K] = 1/(1 - pbar_theta q): mean number of kernel draws per release (geometric number of draws)."""
    p = _p_theta(_kernel(kernel), _scale(scale), _theta(theta))
    q = _q(q)
    den = _den(p, q)
    return math.inf if den <= 0 else 1.0 / den


def output_density(
    x: Any, *, kernel: Kernel, scale: float, theta: float, q: float, center: float = 0.0
) -> np.ndarray | float:
    """BR-DP output density f_brdp(x | y=center) (Prop. 1, eq. 3; App. A's series omits q in
    intermediate terms, its final form is right)."""
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    xs = _v.real_array("x", x)
    p = _p_theta(kernel, s, th)
    den = _den(p, q)
    n = xs - c
    f = _pdf(kernel, n, s) * np.where(np.abs(n) <= th, 1.0, 1.0 - q) / den
    return float(f) if f.ndim == 0 else f


def output_cdf(
    x: Any, *, kernel: Kernel, scale: float, theta: float, q: float, center: float = 0.0
) -> np.ndarray | float:
    """BR-DP output CDF (integral of Prop. 1's density).

    F(t) = [(1-q)F_N(t) + q max(0, F_N(min(t, theta)) - F_N(-theta))] / (1 - pbar q).
    """
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    t = _v.real_array("x", x) - c
    p = _p_theta(kernel, s, th)
    den = _den(p, q)
    inner = _mass(kernel, np.full_like(t, -th), np.clip(t, -th, th), s)
    out = np.clip(((1 - q) * _cdf(kernel, t, s) + q * inner) / den, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def output_variance(*, kernel: Kernel, scale: float, theta: float, q: float) -> float:
    """Var of the BR-DP noise: (Var_N - q E[N^2; |N| > theta]) / (1 - pbar q)."""
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    p = _p_theta(kernel, s, th)
    # E[N^2; |N| <= theta] = Var_N P(X <= x) with X ~ Gamma(3/2) (N^2/2s^2, Gaussian) or Gamma(3) (|N|/b,
    # Laplace): the numerator Var_N - q E[N^2; |N| > theta] = Var_N ((1 - q) + q P(X <= x)), free of the
    # cancellation of the difference form when q -> 1 and theta << scale
    z = th / s
    a, x, var = (1.5, z * z / 2, s * s) if kernel == "gaussian" else (3.0, z, 2 * s * s)
    return var * ((1.0 - q) + q * float(special.gammainc(a, x))) / _den(p, q)


def _draw_kernel(kernel: str, s: float, size: int, gen: np.random.Generator) -> np.ndarray:
    if kernel == "gaussian":
        return gen.normal(0.0, s, size)
    return gen.laplace(0.0, s, size)


def sample_outputs(
    n: int,
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    center: float = 0.0,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """n independent BR-DP releases around ``center`` by the direct sampler.

    Same law as the recycling loop: with probability p_theta/(1 - pbar q) the noise is the kernel truncated to
    [-theta, theta], otherwise the kernel truncated to |n| > theta (inverse CDF; exact even when q -> 1).
    """
    n = _v.integer("n", n, low=0, high=MAX_SAMPLES)
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    gen = _v.rng(rng)
    p = _p_theta(kernel, s, th)
    a = _acc(p, q)
    u = gen.random(n)
    w = 2.0 * gen.random(n) - 1.0  # sign(w) and |w| are independent; |w| ~ U(0, 1)
    v = np.abs(w)
    inside = u < a
    if kernel == "gaussian":
        # |N| given in-bound: Phi^{-1}(1/2 + V p/2); given out-of-bound: -Phi^{-1}(V Phi(-theta/s))
        with np.errstate(divide="ignore"):
            r = special.ndtri(np.where(inside, 0.5 + v * (0.5 * p), v * float(special.ndtr(-th / s))))
        out = np.where(inside, np.minimum(r * s, th), np.maximum(-r * s, th))
    else:
        # in-bound: exponential truncated to [0, theta]; out-of-bound: theta + Exp(s) (memoryless tail)
        lg = np.log1p(np.where(inside, -v * p, -v))
        out = np.where(inside, np.minimum(-s * lg, th), th - s * lg)
    return c + np.copysign(out, w)


_OUTCOMES = np.array(["recycled", "released out-of-bound", "released in-bound"], dtype=object)  # code 0, 1, 2


def simulate_recycler(
    n_releases: int,
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    center: float = 0.0,
    rng: np.random.Generator | int | None = None,
    max_draws: int = 1_000_000,
) -> pd.DataFrame:
    """Step-by-step recycler of Fig. 1 recording every kernel draw (for the animation).

    Columns: ``draw`` (0-based), ``release`` (index of the release the draw belongs to), ``noise``,
    ``output``, ``in_bound``, ``outcome`` in {"released in-bound", "released out-of-bound", "recycled"}.
    Stops after ``n_releases`` releases or ``max_draws`` draws (q = 1 with tiny p_theta).
    """
    n_rel = _v.integer("n_releases", n_releases, low=0, high=MAX_SAMPLES)
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    c = _v.real("center", center)
    cap = _v.integer("max_draws", max_draws, low=1, high=MAX_SAMPLES)
    gen = _v.rng(rng)
    noises: list[np.ndarray] = []
    coins: list[np.ndarray] = []
    released = 0
    total = 0
    chunk = max(16, 2 * n_rel)
    while released < n_rel and total < cap:
        m = min(chunk, cap - total)
        nz = _draw_kernel(kernel, s, m, gen)
        cn = gen.random(m)
        noises.append(nz)
        coins.append(cn)
        released += int(np.count_nonzero((np.abs(nz) <= th) | (cn >= q)))
        total += m
    noise = np.concatenate(noises) if noises else np.empty(0)
    coin = np.concatenate(coins) if coins else np.empty(0)
    inb = np.abs(noise) <= th
    rel = inb | (coin >= q)
    if n_rel == 0:
        keep = 0
    elif released >= n_rel:
        keep = int(np.flatnonzero(rel)[n_rel - 1]) + 1
    else:
        keep = len(noise)
    noise, inb, rel = noise[:keep], inb[:keep], rel[:keep]
    release_idx = np.concatenate(([0], np.cumsum(rel)[:-1])) if keep else np.empty(0, dtype=int)
    # label by code through an object array: ~5x faster than np.where on strings and pandas' U -> str conversion
    outcome = _OUTCOMES[rel.astype(np.int8) + (rel & inb)] if keep else np.empty(0, dtype=str)
    return pd.DataFrame(
        {
            "draw": np.arange(keep),
            "release": release_idx.astype(int),
            "noise": noise,
            "output": c + noise,
            "in_bound": inb,
            "outcome": outcome,
        }
    )
