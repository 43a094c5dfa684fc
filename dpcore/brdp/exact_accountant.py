"""The exact BR-DP accountant (a correction of Jiang et al. 2024, Thm. 1 / Prop. 2).

Both BR-DP output laws share the normaliser 1 - p̄_θ q, so the exact privacy loss is Γ(x) = Z_d(x) + ℓ(x), with
ℓ = +L on S(0) ∖ S(d), -L on S(d) ∖ S(0) and 0 elsewhere (S(m) = [m - θ, m + θ], L = -ln(1 - q)).  Cut at
{±θ, d ± θ} the hockey-stick divergence has a closed form on every piece; δ(ε) is its sup over shifts
d in (0, Δ_f].  :func:`exact_pld` builds the matching privacy-loss distribution for exact composition.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Literal

import numpy as np
from scipy import integrate, special
from scipy import optimize as _opt

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore._exact import U
from dpcore.brdp._common import (
    _SQRT2,
    MAX_PLD_POINTS,
    MAX_SHIFTS,
    MIN_TAIL_MASS,
    Kernel,
    _kernel,
    _q,
    _scale,
    _sens,
    _theta,
)
from dpcore.brdp.kernels import _cdf, _den, _p_theta, _pdf, _profile_scales


def _threshold(kernel: str, s: Any, d: Any, level: Any) -> np.ndarray:
    """sup{x : Z_d(x) > level} for the kernel loss Z_d(x) = ln f(x)/f(x - d) (nonincreasing in x)."""
    with np.errstate(all="ignore"):
        if kernel == "gaussian":
            t = d / 2 - s * s * level / d
            t = np.where(level == np.inf, -np.inf, np.where(level == -np.inf, np.inf, t))
        else:
            e0 = d / s
            t = np.where(level >= e0, -np.inf, np.where(level < -e0, np.inf, (d - s * level) / 2))
    return t


def _cuts(theta: float, d: np.ndarray):
    """Pieces [l, r] of the line cut at {-theta, theta, d - theta, d + theta}, with a finite point inside each.

    Returns lo, hi, mid with a last axis of length 5 (shape of d + (5,)); read-only, memoised for small d arrays
    (the optimisers' shift grids are evaluated hundreds of times).
    """
    d = np.asarray(d, dtype=float)
    if d.size <= 256:
        return _cuts_cached(float(theta), d.tobytes(), d.shape)
    return _cuts_new(theta, d)


@functools.lru_cache(maxsize=256)
def _cuts_cached(theta: float, d_bytes: bytes, shape: tuple):
    out = _cuts_new(theta, np.frombuffer(d_bytes, dtype=float).reshape(shape))
    for arr in out:
        arr.setflags(write=False)
    return out


def _cuts_new(theta: float, d: np.ndarray):
    parts = [np.full(d.shape, -theta), np.full(d.shape, theta), d - theta, d + theta]
    cuts = np.sort(np.stack(parts, -1), -1)
    inf = np.full(d.shape + (1,), np.inf)
    lo = np.concatenate([-inf, cuts], -1)
    hi = np.concatenate([cuts, inf], -1)
    mid = np.where(np.isinf(lo), hi - 1.0, np.where(np.isinf(hi), lo + 1.0, (lo + hi) / 2))
    return lo, hi, mid


def _pieces(theta: float, d: Any, q: Any):
    """Pieces [l, r] of the line where c_0 and c_d are constant.

    Returns l, r, a, b, c = ln(a/b), each with a last axis of length 5.
    """
    d = np.asarray(d, dtype=float)
    q = np.asarray(q, dtype=float)
    d, q = np.broadcast_arrays(d, q)
    lo, hi, mid = _cuts(theta, d)
    qq = q[..., None]
    a = np.where(np.abs(mid) <= theta, 1.0, 1.0 - qq)
    b = np.where(np.abs(mid - d[..., None]) <= theta, 1.0, 1.0 - qq)
    with np.errstate(divide="ignore"):
        big_l = np.where(qq >= 1, np.inf, -np.log1p(-np.minimum(qq, 1.0)))
    c = np.where(a == b, 0.0, np.where(a > b, big_l, -big_l))
    return lo, hi, a, b, c


def _piece_masses(kernel: str, s: Any, lo: np.ndarray, hi: np.ndarray, dd: np.ndarray, t: np.ndarray):
    """u = clip(t, lo, hi) and the kernel masses P(lo < N <= u), P(lo - d < N <= u - d), each from its accurate
    tail (CDF differences left of 0, survival differences right of it, as :func:`_mass`); the CDF at the piece
    boundaries depends on (s, d) only and is evaluated on that smaller array."""
    u = np.clip(t, lo, hi)
    lo_d, u_d = lo - dd, u - dd
    pos, pos_d = lo >= 0, lo_d >= 0
    bp = _cdf(kernel, np.where(pos, -lo, lo), s)
    up = _cdf(kernel, np.where(pos, -u, u), s)
    mp = np.maximum(np.where(pos, bp - up, up - bp), 0.0)
    bq = _cdf(kernel, np.where(pos_d, -lo_d, lo_d), s)
    uq = _cdf(kernel, np.where(pos_d, -u_d, u_d), s)
    mq = np.maximum(np.where(pos_d, bq - uq, uq - bq), 0.0)
    return u, mp, mq


def _piece_contrib(e, lo, u, a, b, mp, mq) -> np.ndarray:
    """max(0, P - e^eps Q) on each piece: a·mass_P − e^eps·b·mass_Q where the piece is not empty."""
    qpart = np.where((b == 0) | (mq == 0), 0.0, np.exp(e) * b * mq)
    qpart = np.where(np.isnan(qpart), 0.0, qpart)
    return np.where((u > lo) & (a > 0), a * mp - qpart, 0.0)


_Q_FREE, _Q_DEP = [0, 2, 4], [1, 3]  # pieces outside or inside both S(0) and S(d) / inside exactly one of them


def _norm(p: Any, q: Any) -> np.ndarray:
    """Release probability 1 - (1 - p_theta) q; where that rounds to <= 0 (p_theta below the float spacing of 1,
    q near 1) its exact equal p_theta + (1 - p_theta)(1 - q) > 0 (so no 0/0 at a tiny theta/scale)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    norm = 1.0 - (1.0 - p) * q
    return np.where(norm > 0, norm, p + (1.0 - p) * (1.0 - q))


def _exact_core(kernel: str, s: Any, theta: float, eps: Any, q: Any, d: Any, p: Any = None) -> np.ndarray:
    """Hockey-stick H_{e^eps}(f_brdp(.|0) || f_brdp(.|d)) in closed form on pieces (broadcast s, eps, q, d).

    On the pieces inside or outside both S(0) and S(d) (pieces 0, 2, 4 for every d > 0) the loss shift is 0,
    so the threshold and the kernel masses do not depend on q: they are computed without the q axis, and only
    the two pieces S(0)\\S(d), S(d)\\S(0) run on the whole (s, eps, q, d) array (same values as piece by piece).
    ``p``: p_theta of each scale (eq. 4) if the caller has it (shape of ``s``); computed from ``s`` otherwise.
    """
    eps, q = np.asarray(eps, float), np.asarray(q, float)
    d0 = np.asarray(d, float)
    shape = np.broadcast_shapes(eps.shape, q.shape, d0.shape)
    if np.ndim(s):  # several kernel scales at once (the exact optimiser's eps_y grid); pieces do not depend on s
        s = np.asarray(s, float)
        if p is None:
            with np.errstate(all="ignore"):
                p = special.erf(theta / (s * _SQRT2)) if kernel == "gaussian" else -np.expm1(-theta / s)
        s = s[..., None]
    elif p is None:
        p = _p_theta(kernel, s, theta)
    lo, hi, mid = _cuts(theta, d0)  # d0.shape + (5,)
    dd = d0[..., None]
    qq = q[..., None]
    inside_0 = np.abs(mid) <= theta
    inside_d = np.abs(mid - dd) <= theta
    e = eps[..., None]
    with np.errstate(all="ignore"):
        big_l = np.where(qq >= 1, np.inf, -np.log1p(-np.minimum(qq, 1.0)))
        one_minus_q = 1.0 - qq
        split = inside_0 != inside_d
        if np.all(split == np.array([False, True, False, True, False])):
            # q-free pieces: a = b, c = 0, level = eps (where b = 0, i.e. q = 1 outside, a = 0 drops the piece)
            lo_f, hi_f, in_f = lo[..., _Q_FREE], hi[..., _Q_FREE], inside_0[..., _Q_FREE]
            u_f, mp_f, mq_f = _piece_masses(kernel, s, lo_f, hi_f, dd, _threshold(kernel, s, dd, e))
            a_f = np.where(in_f, 1.0, one_minus_q)
            contrib_f = _piece_contrib(e, lo_f, u_f, a_f, a_f, mp_f, mq_f)
            lo_v, hi_v = lo[..., _Q_DEP], hi[..., _Q_DEP]
            a_v = np.where(inside_0[..., _Q_DEP], 1.0, one_minus_q)
            b_v = np.where(inside_d[..., _Q_DEP], 1.0, one_minus_q)
            c_v = np.where(a_v == b_v, 0.0, np.where(a_v > b_v, big_l, -big_l))
            t_v = np.where(b_v == 0, np.inf, _threshold(kernel, s, dd, e - c_v))
            u_v, mp_v, mq_v = _piece_masses(kernel, s, lo_v, hi_v, dd, t_v)
            contrib_v = _piece_contrib(e, lo_v, u_v, a_v, b_v, mp_v, mq_v)
            full = np.broadcast_shapes(contrib_f.shape[:-1], contrib_v.shape[:-1])
            contrib = np.empty(full + (5,))
            contrib[..., _Q_FREE] = contrib_f
            contrib[..., _Q_DEP] = contrib_v
        else:  # generic layout (not reached for d > 0; kept for safety)
            a = np.where(inside_0, 1.0, one_minus_q)
            b = np.where(inside_d, 1.0, one_minus_q)
            c = np.where(a == b, 0.0, np.where(a > b, big_l, -big_l))
            t = np.where(b == 0, np.inf, _threshold(kernel, s, dd, e - c))
            u, mp, mq = _piece_masses(kernel, s, lo, hi, dd, t)
            contrib = _piece_contrib(e, lo, u, a, b, mp, mq)
    norm = _norm(p, np.broadcast_to(q, shape))
    return np.clip(np.maximum(contrib, 0.0).sum(-1) / norm, 0.0, 1.0)


#: Round-off of the closed form in units of U per unit of the magnitudes it cancels, with room to spare: each piece is
#: a·(F(u) − F(lo)) − e^ε·b·(F(u − d) − F(lo − d)) with CDFs from the accurate tail (a few U each, relative), and a
#: δ of 10⁻¹⁰ can be the difference of masses near 0.1 (measured against 50-digit mpmath: up to ~2·10⁻⁶ relative).
_ROUND_OFF_ULPS = 16.0


def _round_off(kernel: str, s: float, theta: float, eps: np.ndarray, q: float, d: np.ndarray) -> np.ndarray:
    """An upper bound on the absolute round-off of :func:`_exact_core` (same broadcasting of eps and d): 16 U times
    the sum, over the pieces with a positive part, of the magnitudes that cancel there,
    a·(|F(lo)| + |F(u)|) + e^ε·b·(|F(lo − d)| + |F(u − d)|), over the release probability."""
    eps, d0 = np.asarray(eps, float), np.asarray(d, float)
    p = _p_theta(kernel, s, theta)
    lo, hi, mid = _cuts(theta, d0)
    dd = d0[..., None]
    e = eps[..., None]
    with np.errstate(all="ignore"):
        one_minus_q = 1.0 - q
        big_l = math.inf if q >= 1 else -math.log1p(-q)
        a = np.where(np.abs(mid) <= theta, 1.0, one_minus_q)
        b = np.where(np.abs(mid - dd) <= theta, 1.0, one_minus_q)
        c = np.where(a == b, 0.0, np.where(a > b, big_l, -big_l))
        t = np.where(b == 0, np.inf, _threshold(kernel, s, dd, e - c))
        u = np.clip(t, lo, hi)
        pos, pos_d = lo >= 0, lo - dd >= 0
        mag_p = _cdf(kernel, np.where(pos, -lo, lo), s) + _cdf(kernel, np.where(pos, -u, u), s)
        mag_q = _cdf(kernel, np.where(pos_d, -(lo - dd), lo - dd), s) + _cdf(
            kernel, np.where(pos_d, -(u - dd), u - dd), s
        )
        ee = np.exp(e)
        # only pieces with a positive part carry round-off (elsewhere the closed form is exactly 0); at the crossing
        # point t the integrand is 0, so t's own rounding moves the result only to second order
        mag = np.where(a > 0, a * mag_p, 0.0) + np.where((b > 0) & (mag_q > 0), ee * b * mag_q, 0.0)
        mag = np.where((u > lo) & (a > 0), mag, 0.0)
        mag = np.where(np.isnan(mag), np.inf, mag)
    return _ROUND_OFF_ULPS * U * mag.sum(-1) / _norm(p, q)


def _exact_q_fn(kernel: str, ss: np.ndarray, theta: float, eps: float, dgrid: np.ndarray):
    """``qs -> max_d exact delta`` for fixed scales ``ss`` (n,), one eps and a shift grid: :func:`_exact_core`
    with everything that does not depend on q computed once (thresholds and kernel masses of the q-free
    pieces, CDFs at the piece ends), for the grid search and bisections of :func:`_largest_exact_q`. ``qs``
    has shape (n or 1, m), the result (n, m); ``rows`` selects a subset of the scales (then qs has len(rows)
    or 1 rows). Same floating-point operations as :func:`_exact_core`, so the same values (tested bit for
    bit). ``None`` when the piece layout is not the generic one (then use :func:`_exact_core`).
    """
    ss = np.asarray(ss, dtype=float).reshape(-1)
    d0 = np.asarray(dgrid, dtype=float).reshape(1, 1, -1)
    lo, hi, mid = _cuts(theta, d0)  # (1, 1, nd, 5)
    inside_0 = np.abs(mid) <= theta
    inside_d = np.abs(mid - d0[..., None]) <= theta
    if not np.all((inside_0 != inside_d) == np.array([False, True, False, True, False])):
        return None
    with np.errstate(all="ignore"):
        p = special.erf(theta / (ss * _SQRT2)) if kernel == "gaussian" else -np.expm1(-theta / ss)
    s = ss[:, None, None, None]  # (n, 1, 1, 1)
    dd = d0[..., None]
    e = np.float64(eps)
    with np.errstate(all="ignore"):
        ee = np.exp(e)  # inf for eps > ~709: the e^eps-weighted masses then only cancel where they are 0
        lo_f, hi_f, in_f = lo[..., _Q_FREE], hi[..., _Q_FREE], inside_0[..., _Q_FREE]
        thr_f = _threshold(kernel, s, dd, e)
        u_f, mp_f, mq_f = _piece_masses(kernel, s, lo_f, hi_f, dd, thr_f)  # (n, 1, nd, 3)
        nonempty_f = u_f > lo_f
        lo_v, hi_v = lo[..., _Q_DEP], hi[..., _Q_DEP]
        in0_v, ind_v = inside_0[..., _Q_DEP], inside_d[..., _Q_DEP]
        lo_d = lo_v - dd
        pos, pos_d = lo_v >= 0, lo_d >= 0
        bp = _cdf(kernel, np.where(pos, -lo_v, lo_v), s)  # (n, 1, nd, 2): CDF at the piece's left end
        bq = _cdf(kernel, np.where(pos_d, -lo_d, lo_d), s)

    def fn(qs: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        qs = np.asarray(qs, dtype=float)
        if rows is None:
            s_, p_, mp_f_, mq_f_, ne_f, bp_, bq_ = s, p, mp_f, mq_f, nonempty_f, bp, bq
        else:
            s_, p_, mp_f_, mq_f_, ne_f = s[rows], p[rows], mp_f[rows], mq_f[rows], nonempty_f[rows]
            bp_, bq_ = bp[rows], bq[rows]
        qq = qs[..., None, None]  # (n|1, m, 1, 1)
        with np.errstate(all="ignore"):
            big_l = np.where(qq >= 1, np.inf, -np.log1p(-np.minimum(qq, 1.0)))
            one_minus_q = 1.0 - qq
            a_f = np.where(in_f, 1.0, one_minus_q)
            qpart = np.where((a_f == 0) | (mq_f_ == 0), 0.0, ee * a_f * mq_f_)
            qpart = np.where(np.isnan(qpart), 0.0, qpart)
            contrib_f = np.where(ne_f & (a_f > 0), a_f * mp_f_ - qpart, 0.0)
            a_v = np.where(in0_v, 1.0, one_minus_q)
            b_v = np.where(ind_v, 1.0, one_minus_q)
            c_v = np.where(a_v == b_v, 0.0, np.where(a_v > b_v, big_l, -big_l))
            t_v = np.where(b_v == 0, np.inf, _threshold(kernel, s_, dd, e - c_v))
            u = np.clip(t_v, lo_v, hi_v)
            u_d = u - dd
            up = _cdf(kernel, np.where(pos, -u, u), s_)
            mp = np.maximum(np.where(pos, bp_ - up, up - bp_), 0.0)
            uq = _cdf(kernel, np.where(pos_d, -u_d, u_d), s_)
            mq = np.maximum(np.where(pos_d, bq_ - uq, uq - bq_), 0.0)
            qpart = np.where((b_v == 0) | (mq == 0), 0.0, ee * b_v * mq)
            qpart = np.where(np.isnan(qpart), 0.0, qpart)
            contrib_v = np.where((u > lo_v) & (a_v > 0), a_v * mp - qpart, 0.0)
        full = np.broadcast_shapes(contrib_f.shape[:-1], contrib_v.shape[:-1])
        contrib = np.empty(full + (5,))
        contrib[..., _Q_FREE] = contrib_f
        contrib[..., _Q_DEP] = contrib_v
        norm = _norm(p_[:, None, None], qs[..., None])  # (n, m, 1)
        out = np.clip(np.maximum(contrib, 0.0).sum(-1) / norm, 0.0, 1.0)  # (n, m, nd)
        return out.max(-1)

    return fn


def _exact_quad(kernel: str, s: float, theta: float, eps: float, q: float, d: float) -> float:
    """Same quantity by adaptive quadrature of max(0, P - e^eps Q) on every sub-piece (a check of the closed form)."""
    p = _p_theta(kernel, s, theta)
    norm = float(_norm(p, q))
    ee = math.exp(eps) if eps < 700 else math.inf

    def f(x: float) -> float:
        px = float(_pdf(kernel, x, s)) * (1.0 if abs(x) <= theta else 1 - q)
        qx = float(_pdf(kernel, x - d, s)) * (1.0 if abs(x - d) <= theta else 1 - q)
        return max(0.0, px - (ee * qx if qx > 0 else 0.0))

    span = 40 * s + theta + d
    cuts = sorted({-span, -theta, theta, d - theta, d + theta, 0.0, d, span})
    total = 0.0
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        if hi > lo:
            total += integrate.quad(f, lo, hi, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    return min(1.0, total / norm)


def exact_delta(
    epsilon: Any,
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    sensitivity: float,
    shifts: int = 200,
    method: Literal["closed_form", "quadrature"] = "closed_form",
) -> np.ndarray | float:
    """Exact BR-DP privacy profile: sup over d in (0, Delta_f] of H_{e^eps}(f_brdp(.|0) || f_brdp(.|d)).

    The loss is Z_d + ell with ell = +-L on S(0)\\S(d) / S(d)\\S(0); on each piece cut at
    {+-theta, d +- theta} the integrand is positive on x < t, giving a closed form for both kernels (Laplace
    loss is clipped-linear).  ``method="quadrature"`` integrates each sub-piece with scipy.quad instead.
    The sup uses ``shifts`` equally spaced d (d = Delta_f included; in every test d = Delta_f was worst); when the
    grid maximum is interior, a bounded scalar search between its neighbours refines it, so the sup is not
    under-reported between grid points. Both directions are equal by symmetry. The closed form is rounded up by a
    bound on its round-off (the masses it subtracts can be 10⁹ times the δ they leave), so it is never below the
    exact δ.
    """
    kernel = _kernel(kernel)
    s, th, q, dd = _scale(scale), _theta(theta), _q(q), _sens(sensitivity)
    k = _v.integer("shifts", shifts, low=1, high=MAX_SHIFTS)
    method = _v.choice("method", method, ("closed_form", "quadrature"))
    eps = _v.real_array("epsilon", epsilon)
    dgrid = dd * np.arange(1, k + 1) / k
    if method == "closed_form" and q == 0.0:
        # no redraws: BR-DP is the kernel, its δ largest at d = Δ_f; accounting's well-conditioned, outward forms
        kernel_delta = (
            _acct.gaussian_delta(eps, sigma=s, sensitivity=dd)
            if kernel == "gaussian"
            else _profile_scales(kernel, eps, np.asarray(s, dtype=float), dd)
        )
        out = np.minimum(kernel_delta, 1.0)
    elif method == "closed_form":
        # each shift's closed form raised by a bound on its round-off: the reported δ is never below the exact one
        vals = _exact_core(kernel, s, th, eps[..., None], q, dgrid) + _round_off(
            kernel, s, th, eps[..., None], q, dgrid
        )
        out = np.array(np.minimum(vals.max(-1), 1.0), dtype=float)  # a writable array, also when 0-d
        _refine_interior_sup(
            out,
            vals.argmax(-1),
            eps,
            dgrid,
            lambda e, x: float(
                np.ravel(
                    _exact_core(kernel, s, th, np.array([e]), q, np.array([x]))
                    + _round_off(kernel, s, th, np.array([e]), q, np.array([x]))
                )[0]
            ),
        )
        out = np.minimum(out, 1.0)
    else:
        flat = np.array([max(_exact_quad(kernel, s, th, float(e), q, float(x)) for x in dgrid) for e in eps.ravel()])
        out = flat.reshape(eps.shape)
    return float(out) if np.ndim(out) == 0 else out


def _refine_interior_sup(out: np.ndarray, idx: np.ndarray, eps: np.ndarray, dgrid: np.ndarray, h) -> None:
    """Raise ``out`` in place to the bounded-search maximum of h(ε, d) around each interior grid argmax."""
    last = len(dgrid) - 1
    for j in np.flatnonzero(np.ravel(idx) < last):
        i = int(np.ravel(idx)[j])
        e = float(np.ravel(eps)[j])
        lo = dgrid[i - 1] if i > 0 else dgrid[0] * 1e-9
        res = _opt.minimize_scalar(
            lambda x, e=e: -h(e, x), bounds=(lo, dgrid[i + 1]), method="bounded", options={"xatol": 1e-12 * dgrid[-1]}
        )
        if np.ndim(out) == 0:
            out[()] = max(float(out), -res.fun)
        else:
            out.flat[j] = max(out.flat[j], -res.fun)


def _loss_range(kernel: str, s: float, q: float, d: float, tail: float) -> tuple[float, float]:
    """Finite loss range [lower, upper] of :func:`exact_pld` (validated arguments): the kernel's loss Z_D
    (Gaussian: up to the -Φ⁻¹(tail/4) quantiles; Laplace: ±D/b) widened by ±L = ∓ln(1 - q) (0 at q = 1, where
    the +L region is an infinite loss)."""
    mu = d / s
    if kernel == "gaussian":
        zq = float(-special.ndtri(tail / 4))
        zlo, zhi = mu * mu / 2 - zq * mu, mu * mu / 2 + zq * mu
    else:
        zlo, zhi = -mu, mu
    lf = 0.0 if q >= 1 else -math.log1p(-q)
    return zlo - lf, zhi + lf


def exact_pld(
    *,
    kernel: Kernel,
    scale: float,
    theta: float,
    q: float,
    sensitivity: float,
    value_discretization_interval: float = 1e-4,
    tail_mass_truncation: float = 1e-15,
):
    """Exact BR-DP privacy-loss distribution (pessimistic, shift d = Delta_f), built with
    :func:`dpcore.accounting.pld_from_dense_pmf`.

    The loss Gamma(x) = Z_D(x) + ell(x) is nonincreasing on each piece, so P(Gamma > g) is a sum of kernel
    masses; losses are rounded *up* to the grid (pessimistic), mass beyond the upper truncation and the
    +L region at q = 1 go to the infinity mass.  Symmetric (remove = add).
    """
    kernel = _kernel(kernel)
    s, th, q, d = _scale(scale), _theta(theta), _q(q), _sens(sensitivity)
    h = _v.positive("value_discretization_interval", value_discretization_interval)
    tail = _v.real("tail_mass_truncation", tail_mass_truncation, low=MIN_TAIL_MASS, high=1.0, high_open=True)
    mu = d / s
    glo, ghi = _loss_range(kernel, s, q, d, tail)
    points = (ghi - glo) / h  # nan or inf when mu^2 overflows
    if not points <= MAX_PLD_POINTS:
        raise ValueError(
            f"sensitivity/scale = {mu:g} with value_discretization_interval = {h:g} needs {points:.3g} "
            f"loss-grid points, more than {MAX_PLD_POINTS:g}: use a smaller sensitivity/scale or a larger "
            f"value_discretization_interval"
        )
    kmin = math.floor(glo / h) - 1
    kmax = math.ceil(ghi / h) + 1
    grid = np.arange(kmin, kmax + 1) * h
    surv = _loss_survival(kernel, s, th, q, d, grid)  # P(Gamma > g) incl. infinite mass
    p_inf = _loss_survival(kernel, s, th, q, d, np.array([np.inf]))[0]
    # pessimistic: mass in (g_{k-1}, g_k] -> g_k ; below g_kmin -> g_kmin ; above g_kmax -> infinity
    probs = np.empty(len(grid))
    probs[0] = 1.0 - surv[0]
    probs[1:] = surv[:-1] - surv[1:]
    probs = np.maximum(probs, 0.0)
    inf_mass = float(min(max(surv[-1], p_inf), 1.0 - 1e-15))  # a PLD needs infinity_mass < 1
    return _acct.pld_from_dense_pmf(h, int(kmin), probs, inf_mass, pessimistic=True)


def _loss_survival(kernel: str, s: float, theta: float, q: float, d: float, g: np.ndarray) -> np.ndarray:
    """P_{x ~ f_brdp(.|0)}(Gamma(x) > g), Gamma = ln f_brdp(x|0)/f_brdp(x|d).

    g may be +inf: then the result is the mass of the infinite loss.
    """
    g = np.asarray(g, dtype=float)
    # the pieces depend on (d, q) only: computed once (shape (5,)) and broadcast against the loss grid
    lo, hi, a, b, c = _pieces(theta, np.float64(d), np.float64(q))
    with np.errstate(all="ignore"):
        t = _threshold(kernel, s, np.float64(d), g[..., None] - c)
        t = np.where(b == 0, np.inf, t)  # Q = 0 there: infinite loss, counted for every g incl. +inf
        t = np.where((b > 0) & np.isposinf(g[..., None]), -np.inf, t)
    u = np.clip(t, lo, hi)
    # _mass(kernel, lo, u, s), evaluating only the accurate tail of each piece (lo is one row of 5 here)
    pos = lo >= 0
    mass = np.empty(u.shape)
    mass[..., pos] = _cdf(kernel, -lo[pos], s) - _cdf(kernel, -u[..., pos], s)
    mass[..., ~pos] = _cdf(kernel, u[..., ~pos], s) - _cdf(kernel, lo[~pos], s)
    m = np.where((u > lo) & (a > 0), a * np.maximum(mass, 0.0), 0.0)
    p = _p_theta(kernel, s, theta)
    return np.clip(m.sum(-1) / _den(p, q), 0.0, 1.0)
