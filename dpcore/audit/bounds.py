"""Statistically valid lower bounds on ε and δ from two samples: Clopper–Pearson intervals and the held-out event
search (the package docstring)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from dpcore import _validate as _v

_SIDES: tuple[Literal["two-sided", "lower", "upper"], ...] = ("two-sided", "lower", "upper")


def clopper_pearson(
    k: int | np.ndarray,
    n: int | np.ndarray,
    *,
    alpha: float = 0.05,
    side: Literal["two-sided", "lower", "upper"] = "two-sided",
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Exact (Clopper–Pearson 1934) confidence bounds (lo, hi) for a binomial proportion from k successes in n.

    Beta quantiles: lo = B⁻¹(a; k, n−k+1), hi = B⁻¹(1−a; k+1, n−k) with a = α/2 (two-sided) or α (one-sided;
    the other end is then 0 or 1). Vectorised over k and n; coverage ≥ 1 − α for every true p.
    """
    a = _v.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    side = _v.choice("side", side, _SIDES)
    kk = _v.real_array("k", k, low=0.0, allow_inf=False)
    nn = _v.real_array("n", n, low=1.0, allow_inf=False)
    if np.any(kk != np.round(kk)) or np.any(nn != np.round(nn)):
        raise ValueError("k and n must be whole numbers")
    if np.any(kk > nn):
        raise ValueError("k must be ≤ n")
    kk, nn = np.broadcast_arrays(kk, nn)
    tail = a / 2 if side == "two-sided" else a
    with np.errstate(invalid="ignore"):
        lo = np.where(kk > 0, stats.beta.ppf(tail, kk, nn - kk + 1), 0.0)
        hi = np.where(kk < nn, stats.beta.ppf(1 - tail, kk + 1, nn - kk), 1.0)
    if side == "lower":
        hi = np.ones_like(hi)
    elif side == "upper":
        lo = np.zeros_like(lo)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


# ---------------------------------------------------------------------------------------------------------------
# event search
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EventBound:
    """A Monte-Carlo lower bound on ε (at ``delta``) or δ (at ``epsilon``) from one event S, with its evidence.

    ``k``, ``k_prime`` are the counts of S among the ``n``, ``n_prime`` held-out outputs of the first and second
    input of ``direction``; ``p_lo``, ``p_prime_hi`` their one-sided Clopper–Pearson bounds (each at α/2).
    ``outcomes`` are the bins (continuous outputs, cut at ``edges``) or categories (discrete outputs) making S.
    """

    target: str  # "epsilon" or "delta": what the event was chosen to maximise
    epsilon_lb: float  # max(0, ln((p_lo − delta)/p_prime_hi)); valid with probability ≥ 1 − alpha
    delta_lb: float  # max(0, p_lo − e^epsilon p_prime_hi); nan when no epsilon was given
    epsilon: float
    delta: float
    event: str
    outcomes: tuple[int, ...]
    edges: tuple[float, ...] | None
    direction: str  # "D vs D′" (S likelier under D) or "D′ vs D"
    k: int
    k_prime: int
    n: int
    n_prime: int
    p_lo: float
    p_prime_hi: float
    alpha: float
    method: str = "selection split (half the samples choose S, the other half bound it)"


def _codes(x: np.ndarray, y: np.ndarray, *, bins: int, discrete: bool, sel: int, sel_y: int):
    """Bin/category codes of both samples; edges from pooled quantiles of the selection halves (continuous)."""
    if discrete:
        if np.any(x != np.round(x)) or np.any(y != np.round(y)):
            raise ValueError("discrete outputs must be whole numbers (category codes)")
        cats = np.unique(np.concatenate([x[:sel], y[:sel_y]]))  # categories seen while selecting
        nb = cats.size

        def code(v: np.ndarray) -> np.ndarray:  # unseen categories get code nb: in no candidate event
            i = np.minimum(np.searchsorted(cats, v), nb - 1)
            return np.where(cats[i] == v, i, nb)

        return code(x), code(y), None, cats
    cap = 50_000  # quantiles of (a prefix of) the selection halves: ample for bin edges, and fast
    pooled = np.concatenate([x[: min(sel, cap)], y[: min(sel_y, cap)]])
    pooled = pooled[np.isfinite(pooled)]
    if pooled.size == 0:
        inner = np.empty(0)
    else:
        inner = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, bins + 1)[1:-1], method="linear"))
    cx = np.searchsorted(inner, x, side="right")
    cy = np.searchsorted(inner, y, side="right")
    edges = np.concatenate([[-np.inf], inner, [np.inf]])
    return cx, cy, edges, None


def _candidates(nb: int, ordered: bool, order_xy: np.ndarray, order_yx: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Boolean matrix (candidates × bins) for one direction family; kinds say how each was built."""
    rows, kinds = [], []
    eye = np.eye(nb, dtype=bool)
    rows.append(eye)
    kinds += ["single"] * nb
    if ordered and nb > 1:
        tri = np.tril(np.ones((nb, nb), dtype=bool))  # row j: bins 0..j
        rows += [tri[:-1], ~tri[:-1]]
        kinds += ["below"] * (nb - 1) + ["above"] * (nb - 1)
    for order, tag in ((order_xy, "lr"), (order_yx, "lr_rev")):
        m = np.zeros((nb, nb), dtype=bool)
        ranks = np.empty(nb, dtype=int)
        ranks[order] = np.arange(nb)
        m[:, :] = ranks[None, :] <= np.arange(nb)[:, None]
        rows.append(m[:-1] if nb > 1 else m)
        kinds += [tag] * (nb - 1 if nb > 1 else 1)
    return np.vstack(rows), kinds


def _score(kind: str, c1, n1, c2, n2, *, alpha: float, epsilon: float, delta: float) -> np.ndarray:
    lo, _ = clopper_pearson(c1, n1, alpha=alpha / 2, side="lower")
    _, hi = clopper_pearson(c2, n2, alpha=alpha / 2, side="upper")
    lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
    if kind == "epsilon":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300)) - np.log(hi), -np.inf)
    return lo - math.exp(epsilon) * hi


def _describe(outs: np.ndarray, edges: np.ndarray | None, cats: np.ndarray | None, labels) -> str:
    if edges is None:
        assert cats is not None  # an event without bin edges is a set of categories
        names = [labels[int(cats[i])] if labels is not None else f"{cats[i]:g}" for i in outs]
        return "output ∈ {" + ", ".join(names) + "}"
    nb = edges.size - 1
    if outs.size and np.all(np.diff(outs) == 1):
        lo, hi = edges[outs[0]], edges[outs[-1] + 1]
        if outs[0] == 0:
            return f"x ≤ {hi:.4g}"
        if outs[-1] == nb - 1:
            return f"x > {lo:.4g}"
        return f"{lo:.4g} < x ≤ {hi:.4g}"
    return f"x in {outs.size} of {nb} bins (those with the largest likelihood ratio)"


def _prepare(out_d, out_dprime, *, bins: int, discrete: bool) -> tuple:
    """Validated samples cut into codes once (shared by the ε and δ searches of one audit)."""
    x = _v.real_array("out_d", out_d, allow_inf=True).ravel()
    y = _v.real_array("out_dprime", out_dprime, allow_inf=True).ravel()
    if x.size < 4 or y.size < 4:
        raise ValueError("out_d and out_dprime must each hold at least 4 samples")
    bins = _v.integer("bins", bins, low=2, high=10_000)
    sx, sy = x.size // 2, y.size // 2
    cx, cy, edges, cats = _codes(x, y, bins=bins, discrete=bool(discrete), sel=sx, sel_y=sy)
    return x.size, y.size, sx, sy, cx, cy, edges, cats


def _bound(prep: tuple, *, target: str, epsilon: float, delta: float, alpha: float, labels=None) -> EventBound:
    nx, ny, sx, sy, cx, cy, edges, cats = prep
    nb = (edges.size - 1) if edges is not None else cats.size
    sel_x = np.bincount(cx[:sx], minlength=nb + 1)[:nb]
    sel_y = np.bincount(cy[:sy], minlength=nb + 1)[:nb]
    ev_x = np.bincount(cx[sx:], minlength=nb + 1)[:nb]
    ev_y = np.bincount(cy[sy:], minlength=nb + 1)[:nb]
    # likelihood-ratio order from the first half of the selection half (smoothed so empty bins sort sensibly);
    # ordering and scoring on the same samples would over-fit the ratio-ordered unions
    ox = np.bincount(cx[: sx // 2], minlength=nb + 1)[:nb]
    oy = np.bincount(cy[: sy // 2], minlength=nb + 1)[:nb]
    lr = np.log((ox + 0.5) / (sx // 2 + 0.5)) - np.log((oy + 0.5) / (sy // 2 + 0.5))
    order_xy = np.argsort(-lr, kind="stable")
    order_yx = order_xy[::-1]
    mat, kinds = _candidates(nb, edges is not None, order_xy, order_yx)
    mi = mat.astype(np.int64)
    best, pick = -np.inf, None
    for d_name, (c1, n1, c2, n2) in (("D vs D′", (sel_x, sx, sel_y, sy)), ("D′ vs D", (sel_y, sy, sel_x, sx))):
        s = _score(target, mi @ c1, n1, mi @ c2, n2, alpha=alpha, epsilon=epsilon, delta=delta)
        j = int(np.argmax(s))
        if pick is None or s[j] > best:
            best, pick = s[j], (d_name, j)
    assert pick is not None  # both directions were scored
    d_name, j = pick
    outs = np.flatnonzero(mat[j])
    if d_name == "D vs D′":
        k1, n1, k2, n2 = int(ev_x[outs].sum()), nx - sx, int(ev_y[outs].sum()), ny - sy
    else:
        k1, n1, k2, n2 = int(ev_y[outs].sum()), ny - sy, int(ev_x[outs].sum()), nx - sx
    p_lo, _ = clopper_pearson(k1, n1, alpha=alpha / 2, side="lower")
    _, p_hi = clopper_pearson(k2, n2, alpha=alpha / 2, side="upper")
    eps_lb = math.log((p_lo - delta) / p_hi) if p_lo > delta else 0.0
    dl_lb = max(0.0, p_lo - math.exp(epsilon) * p_hi) if math.isfinite(epsilon) else math.nan
    return EventBound(
        target=target,
        epsilon_lb=max(0.0, eps_lb),
        delta_lb=float(dl_lb),
        epsilon=epsilon,
        delta=delta,
        event=_describe(outs, edges, cats, labels),
        outcomes=tuple(int(c) if cats is None else int(cats[c]) for c in outs),
        edges=None if edges is None else tuple(float(e) for e in edges),
        direction=d_name,
        k=k1,
        k_prime=k2,
        n=n1,
        n_prime=n2,
        p_lo=float(p_lo),
        p_prime_hi=float(p_hi),
        alpha=alpha,
    )


def _alpha(alpha: float) -> float:
    return _v.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)


def epsilon_lower_bound(
    out_d,
    out_dprime,
    *,
    delta: float = 0.0,
    alpha: float = 0.05,
    bins: int = 100,
    discrete: bool = False,
    labels=None,
) -> EventBound:
    """Lower bound on ε valid with probability ≥ 1 − α: ln((P_lo(S) − δ)/P′_hi(S)) for the best held-out event S.

    ``discrete=True`` treats the outputs as category codes (SVT patterns, randomized response) and searches single
    categories and likelihood-ratio-ordered unions; otherwise outputs are cut into ``bins`` pooled-quantile bins
    and threshold sets {x ≤ t}, {x > t}, single bins and ratio-ordered unions are searched (module docstring).
    """
    dl = _v.probability("delta", delta, high_open=True)
    a = _alpha(alpha)
    return _bound(
        _prepare(out_d, out_dprime, bins=bins, discrete=discrete),
        target="epsilon",
        epsilon=math.nan,
        delta=dl,
        alpha=a,
        labels=labels,
    )


def delta_lower_bound(
    out_d, out_dprime, *, epsilon: float, alpha: float = 0.05, bins: int = 100, discrete: bool = False, labels=None
) -> EventBound:
    """Lower bound on δ at ``epsilon`` valid with probability ≥ 1 − α: max_S P_lo(S) − e^ε P′_hi(S) (held-out S).

    Catches an under-reported δ (e.g. BR-DP calibrated by the paper's accountant at :data:`COUNTEREXAMPLE`).
    """
    e = _v.nonnegative("epsilon", epsilon)
    a = _alpha(alpha)
    return _bound(
        _prepare(out_d, out_dprime, bins=bins, discrete=discrete),
        target="delta",
        epsilon=e,
        delta=0.0,
        alpha=a,
        labels=labels,
    )
