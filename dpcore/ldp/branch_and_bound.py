"""Certified bounds of the realized loss on a continuous box (Pan 2023, Sec. 5.1–5.2, App. C–D, Algorithm 6).

Branch-and-bound over DC relaxations (the convex part minus the secant of the concave part) gives certified
bounds ``U ≥ max ln Λ`` and ``Lo ≤ min ln Λ``, hence ``ℓ ≤ U − Lo`` (Eq. 17); grouping queries adds the group
losses (App. C, Eq. 26).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize

from dpcore import _validate as _v
from dpcore.ldp.likelihood import MAX_GRID, realized_loss
from dpcore.ldp.mechanisms import _interval
from dpcore.ldp.regression import RegressionTerm, _Stack

_SUBSOLVER = "TNC"  # robust to OpenBLAS thread contention on small problems (L-BFGS-B is not)

try:  # the C core behind optimize.minimize(method="TNC"); see _tnc_box
    from scipy.optimize import _moduleTNC as _TNC_CORE
except ImportError:  # pragma: no cover - a SciPy without it falls back to optimize.minimize
    _TNC_CORE = None
_NO_SCALING = np.array([])


@dataclass(frozen=True)
class DCMinimum:
    """Certified bounds on ``min_{x ∈ box} sign·ln Λ(x)`` from :func:`minimize_dc` (Algorithm 6)."""

    lower: float
    upper: float  # value at ``argmin`` (attained)
    argmin: np.ndarray
    n_nodes: int
    converged: bool
    trace: pd.DataFrame  # iteration, lower, upper


def _z_range(A: np.ndarray, c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zl = c + np.minimum(A * lo, A * hi).sum(axis=1)
    zu = c + np.maximum(A * lo, A * hi).sum(axis=1)
    return zl, zu


def _box(lower: Any, upper: Any) -> tuple[np.ndarray, np.ndarray]:
    lo = _v.real_array("lower", lower, allow_inf=False)
    hi = _v.real_array("upper", upper, allow_inf=False)
    if lo.ndim != 1 or lo.size == 0 or lo.shape != hi.shape:
        raise ValueError("lower and upper must be non-empty 1-D arrays of the same length (the box)")
    if np.any(hi < lo):
        raise ValueError("upper must be ≥ lower in every coordinate")
    return lo, hi


def _terms(terms: Sequence[RegressionTerm], d: int) -> list[RegressionTerm]:
    ts = list(terms)
    if not ts:
        raise ValueError("terms must contain at least one regression term")
    for t in ts:
        if not isinstance(t, RegressionTerm):
            raise ValueError("terms must be RegressionTerm objects (use RegressionQuery.term(output))")
        if t.a.shape != (d,):
            raise ValueError(f"terms must have {d} weights to match the box, got {t.a.shape}")
    return ts


def secant_relaxation(
    term: RegressionTerm, z_low: float, z_high: float, *, sign: int = 1, n: int = 101
) -> pd.DataFrame:
    """The DC relaxation of one term on ``[z_low, z_high]`` (Sec. 5.2, App. D).

    ``sign·f = C − V`` with C, V convex; V is replaced by its secant ``V̂ ≥ V`` so ``C − V̂ ≤ sign·f``.
    Columns: z, f (= ln Pr[y|z]), C, V, V_secant, relaxed (= C − V_secant).
    """
    if not isinstance(term, RegressionTerm):
        raise ValueError("term must be a RegressionTerm")
    zl, zu = _interval(z_low, z_high, "z_low", "z_high")
    sg = _v.integer("sign", sign, low=-1, high=1)
    if sg == 0:
        raise ValueError("sign must be +1 or -1")
    m = _v.integer("n", n, low=2, high=MAX_GRID)
    if term.kind == "linear" and zl <= 0:
        raise ValueError("z_low must be > 0 for a linear term (z is a probability)")
    st = _Stack([term])
    z = np.linspace(zl, zu, m)
    cc, _, vv = st.parts(z[:, None], sg)
    _, _, ve = st.parts(np.array([[zl], [zu]]), sg)
    sec = ve[0, 0] + (ve[1, 0] - ve[0, 0]) * (z - zl) / (zu - zl)
    return pd.DataFrame(
        {
            "z": z,
            "f": term.log_prob_z(z),
            "C": cc[:, 0],
            "V": vv[:, 0],
            "V_secant": sec,
            "relaxed": cc[:, 0] - sec,
        }
    )


def _branch_coordinate(st: _Stack, sg: int, lo: np.ndarray, hi: np.ndarray, xh: np.ndarray, weight: np.ndarray) -> int:
    """Coordinate to bisect: the widest (weighted) edge for the term with the largest secant gap at x̂."""
    zl, zu = _z_range(st.A, st.c, lo, hi)
    z = st.A @ xh + st.c
    vl = st.concave_part(zl, sg)
    vu = st.concave_part(zu, sg)
    vz = st.concave_part(z, sg)
    dz = zu - zl
    with np.errstate(divide="ignore", invalid="ignore"):
        sec = np.where(dz > 1e-14, vl + (vu - vl) * (z - zl) / np.where(dz > 1e-14, dz, 1.0), vz)
    gap = sec - vz
    width = hi - lo
    if np.max(gap) > 0:
        i = int(np.argmax(gap))
        score = np.abs(st.A[i]) * width
        if np.max(score) > 0:
            return int(np.argmax(score))
    return int(np.argmax(width * weight))


def single_term_loss(term: RegressionTerm, lower: Any, upper: Any) -> float:
    """Exact realized loss of one regression output over a box: f is monotone in z, z affine (Sec. 5.3)."""
    lo, hi = _box(lower, upper)
    (t,) = _terms([term], lo.size)
    zl, zu = _z_range(t.a[None, :], np.array([t.c]), lo, hi)
    vals = t.log_prob_z(np.array([zl[0], zu[0]]))
    return float(abs(vals[1] - vals[0]))


def _tnc_box(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    maxfun: int,
    ftol: float,
    gtol: float,
) -> np.ndarray:
    """``optimize.minimize(fun, x0, jac=True, method="TNC", bounds=Bounds(lo, hi), options=…).x``, same iterates.

    Calls SciPy's TNC core with the arguments ``optimize.minimize`` passes it, without the per-call wrapping
    (bounds standardisation, ScalarFunction, MemoizeJac: most of a B&B node's cost, bench/results-where-time-goes.md).
    Falls back to ``optimize.minimize`` when a variable is fixed (lo = hi: minimize then removes it) or the core
    is unavailable.  Equivalence: tests/dpcore/test_ldp_fastpaths.py.
    """
    if _TNC_CORE is None or np.any(lo >= hi):
        res = optimize.minimize(
            fun,
            x0,
            jac=True,
            method=_SUBSOLVER,
            bounds=optimize.Bounds(lo, hi),
            options={"maxfun": maxfun, "ftol": ftol, "gtol": gtol},
        )
        return res.x

    def fg(x: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = fun(x.copy())
        return float(f), np.asarray(g, dtype=float)

    # (func_and_grad, x0, low, up, scale, offset, messages=MSG_NONE, maxCGit, maxfun, eta, stepmx, accuracy,
    #  fmin, ftol, xtol, pgtol, rescale, callback): minimize's defaults for everything but maxfun/ftol/gtol
    out = _TNC_CORE.tnc_minimize(
        fg,
        np.array(x0, dtype=float),
        np.array(lo, dtype=float),
        np.array(hi, dtype=float),
        _NO_SCALING,
        _NO_SCALING,
        0,
        -1,
        maxfun,
        -1,
        0,
        0,
        0,
        ftol,
        -1,
        gtol,
        -1,
        None,
    )
    return out[3]


def minimize_dc(
    terms: Sequence[RegressionTerm],
    lower: Any,
    upper: Any,
    *,
    sign: int = 1,
    tol: float = 1e-6,
    max_nodes: int = 20_000,
) -> DCMinimum:
    """Certified branch-and-bound for ``min_{x∈box} sign·Σ_i ln Pr[y_i|x]`` (Sec. 5.2, App. D, Algorithm 6).

    Each node is an x-sub-box; on it every convex V_i is replaced by its secant over the node's z-range
    (an affine overestimator of V on the node, the 1-D concave envelope the paper names), the convex relaxation is
    minimised with L-BFGS-B, and the
    node's lower bound is certified by the Frank–Wolfe linearisation ``R(x̂) + min_box ∇R(x̂)·(x−x̂)``
    (a Frank–Wolfe bound), so solver inaccuracy never overstates it.  Deviation from the paper: branching is on x
    (longest weighted edge), not z; sound for any dimension, efficient for small d.
    """
    lo0, hi0 = _box(lower, upper)
    ts = _terms(terms, lo0.size)
    sg = _v.integer("sign", sign, low=-1, high=1)
    if sg == 0:
        raise ValueError("sign must be +1 (minimise ln Λ) or -1 (maximise ln Λ)")
    tl = _v.positive("tol", tol)
    cap = _v.integer("max_nodes", max_nodes, low=1)
    st = _Stack(ts)
    zl0, zu0 = _z_range(st.A, st.c, lo0, hi0)
    if np.any(zl0[st.lin] <= 0):
        raise ValueError("terms: a linear term's probability leaves (0, 1] on the box; use a truncated query")
    # work in unit coordinates u ∈ [0,1]^d (x = lo + (hi − lo) u) for a well-conditioned subproblem
    scale = hi0 - lo0
    st.c = st.c + st.A @ lo0
    st.A = st.A * scale
    orig_lo = lo0
    lo0, hi0 = np.zeros_like(lo0), (scale > 0).astype(float)
    weight = np.abs(st.A).sum(axis=0)

    def phi(x: np.ndarray) -> float:
        return float(sg * st.f(st.A @ x + st.c).sum())

    def solve(lo: np.ndarray, hi: np.ndarray, x0: np.ndarray) -> tuple[float, float, np.ndarray]:
        zl, zu = _z_range(st.A, st.c, lo, hi)
        vl = st.concave_part(zl, sg)
        vu = st.concave_part(zu, sg)
        dz = zu - zl
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(dz > 1e-14, (vu - vl) / np.where(dz > 1e-14, dz, 1.0), 0.0)

        def rfun(x: np.ndarray) -> tuple[float, np.ndarray]:
            z = st.A @ x + st.c
            cc, dc = st.convex(z, sg)
            sec = vl + slope * (z - zl)
            return float((cc - sec).sum()), st.A.T @ (dc - slope)

        free = hi > lo
        if np.any(free):
            xh = np.clip(_tnc_box(rfun, np.clip(x0, lo, hi), lo, hi, maxfun=100, ftol=1e-13, gtol=1e-10), lo, hi)
        else:
            xh = lo.copy()
        rv, gr = rfun(xh)
        lb = rv + float(np.sum(np.minimum(gr * (lo - xh), gr * (hi - xh))))
        ub = phi(xh)
        return lb, ub, xh

    x_c = (lo0 + hi0) / 2
    lb, ub, xh = solve(lo0, hi0, x_c)
    best_ub, best_x = ub, xh
    uc = phi(x_c)
    if uc < best_ub:
        best_ub, best_x = uc, x_c
    heap: list[tuple[float, int, np.ndarray, np.ndarray, np.ndarray]] = [(lb, 0, lo0, hi0, xh)]
    counter = 1
    trace = [(1, min(lb, best_ub), best_ub)]
    converged = False
    pruned_lb = math.inf  # smallest lower bound among discarded nodes (each ≥ UB − tol when discarded)
    idx = np.arange(lo0.size)
    while True:
        global_lb = min(heap[0][0] if heap else math.inf, pruned_lb, best_ub)
        if best_ub - global_lb <= tl:
            converged = True
            break
        if counter >= cap:
            break
        nlb, _, lo, hi, xh = heapq.heappop(heap)
        if nlb >= best_ub - tl:
            pruned_lb = min(pruned_lb, nlb)
            continue
        j = _branch_coordinate(st, sg, lo, hi, xh, weight)
        mid = 0.5 * (lo[j] + hi[j])
        for clo, chi in ((lo, np.where(idx == j, mid, hi)), (np.where(idx == j, mid, lo), hi)):
            clb, cub, cx = solve(clo, chi, xh)
            counter += 1
            if cub < best_ub:
                best_ub, best_x = cub, cx
            if clb < best_ub - tl:
                heapq.heappush(heap, (clb, counter, clo, chi, cx))
            else:
                pruned_lb = min(pruned_lb, clb)
        trace.append((counter, min(heap[0][0] if heap else math.inf, pruned_lb, best_ub), best_ub))
    lower_bound = global_lb
    tr = pd.DataFrame(trace, columns=["nodes", "lower", "upper"])
    return DCMinimum(float(lower_bound), float(best_ub), orig_lo + scale * best_x, counter, converged, tr)


@dataclass(frozen=True)
class LikelihoodBounds:
    """Certified bounds of the extreme log-likelihoods over a box (Eq. 17, Algorithm 6)."""

    min_lower: float  # ≤ min ln Λ
    min_upper: float  # ≥ min ln Λ (attained at argmin)
    max_lower: float  # ≤ max ln Λ (attained at argmax)
    max_upper: float  # ≥ max ln Λ
    argmin: np.ndarray
    argmax: np.ndarray
    n_nodes: int
    converged: bool

    @property
    def certified_loss(self) -> float:
        """``U − Lo ≥ ℓ`` (Eq. 17): use this in filters and odometers."""
        return self.max_upper - self.min_lower

    @property
    def attained_loss(self) -> float:
        """Loss between two concrete points (≤ the true ℓ)."""
        return self.max_lower - self.min_upper


def log_likelihood_bounds(
    terms: Sequence[RegressionTerm],
    lower: Any,
    upper: Any,
    *,
    tol: float = 1e-6,
    binary: Sequence[int] = (),
    max_nodes: int = 20_000,
) -> LikelihoodBounds:
    """Certified lower/upper bounds of ``min_x ln Λ(x)`` and ``max_x ln Λ(x)`` over a box (Algorithm 6).

    ``binary`` lists coordinates taking only the values lower/upper (enumerated; relaxing them to the
    interval is also valid but looser).  ``certified_loss`` is U − Lo (Eq. 17).  Each extreme is solved
    to ``tol/2``, so on convergence ``certified_loss − attained_loss ≤ tol``.
    """
    lo, hi = _box(lower, upper)
    _terms(terms, lo.size)
    tol = _v.positive("tol", tol)
    bins = sorted({_v.integer("binary", b, low=0, high=lo.size - 1) for b in _v.sequence("binary", binary)})
    best: list[Any] | None = None
    n_nodes = 0
    conv = True
    for combo in itertools.product(*[(lo[b], hi[b]) for b in bins]):
        l2, h2 = lo.copy(), hi.copy()
        for b, val in zip(bins, combo, strict=True):
            l2[b] = h2[b] = val
        mn = minimize_dc(terms, l2, h2, sign=1, tol=tol / 2, max_nodes=max_nodes)
        mx = minimize_dc(terms, l2, h2, sign=-1, tol=tol / 2, max_nodes=max_nodes)
        n_nodes += mn.n_nodes + mx.n_nodes
        conv = conv and mn.converged and mx.converged
        cand = (mn.lower, mn.upper, -mx.upper, -mx.lower, mn.argmin, mx.argmin)
        if best is None:
            best = list(cand)
        else:
            if cand[0] < best[0]:
                best[0] = cand[0]
            if cand[1] < best[1]:
                best[1], best[4] = cand[1], cand[4]
            if cand[2] > best[2]:
                best[2], best[5] = cand[2], cand[5]
            if cand[3] > best[3]:
                best[3] = cand[3]
    assert best is not None
    return LikelihoodBounds(best[0], best[1], best[2], best[3], best[4], best[5], n_nodes, conv)


def grouped_realized_loss(log_likelihoods: Any, *, group_size: int) -> float:
    """App. C / Eq. 26 bound ``Σ_j ℓ(r_{G_j})`` for a discrete transcript, rows = per-query ln Pr[y_i|x]."""
    arr = _v.real_array("log_likelihoods", log_likelihoods)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError("log_likelihoods must be a non-empty (k, |D|) array (one row per query)")
    m = _v.integer("group_size", group_size, low=1)
    k = arr.shape[0]
    return float(sum(realized_loss(arr[s : s + m].sum(axis=0)) for s in range(0, k, m)))


def grouped_loss_bound(
    terms: Sequence[RegressionTerm],
    lower: Any,
    upper: Any,
    *,
    group_size: int,
    tol: float = 1e-6,
    binary: Sequence[int] = (),
) -> float:
    """Certified App.-C bound ``Σ_j min(U_j − Lo_j, Σ_{i∈G_j} ε_i)`` over consecutive groups (Eq. 26)."""
    lo, hi = _box(lower, upper)
    ts = _terms(terms, lo.size)
    m = _v.integer("group_size", group_size, low=1)
    total = 0.0
    for s in range(0, len(ts), m):
        grp = ts[s : s + m]
        b = log_likelihood_bounds(grp, lo, hi, tol=tol, binary=binary)
        total += min(b.certified_loss, float(sum(t.epsilon for t in grp)))
    return total
