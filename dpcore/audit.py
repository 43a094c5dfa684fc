"""Monte-Carlo privacy audits: statistically valid lower bounds on ε and δ from neighbouring inputs.

Run a mechanism many times on neighbouring inputs D and D′, bin the outputs and look for an event S with
P(S) > e^ε P′(S) + δ. With one-sided Clopper–Pearson bounds P_lo(S) ≤ P(S) and P′_hi(S) ≥ P′(S) (each at level
α/2), every (ε, δ)-DP mechanism satisfies, with probability ≥ 1 − α,

    ε_lb = ln((P_lo(S) − δ) / P′_hi(S)) ≤ ε        and        δ_lb = P_lo(S) − e^ε P′_hi(S) ≤ δ

(Jagielski, Ullman, Oprea 2020, "Auditing differentially private machine learning"; Ding et al. 2018,
"Detecting violations of differential privacy"). The event is chosen on one half of the samples (the *selection
split*) among threshold sets {x ≤ t}, {x > t}, single bins and likelihood-ratio-ordered unions of bins, in both
directions (D vs D′ and D′ vs D); the bounds are computed on the other half only, so the choice costs no
multiple-testing correction. An audit can only show that a claim is *false*; passing is evidence, not proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from dpcore import _validate as _v
from dpcore import mechanisms as _reg
from dpcore.mechanisms import sampling as _s
from dpcore.mechanisms.sampling import SVT_OFFSETS, svt_outputs

__all__ = [
    "COUNTEREXAMPLE",
    "MECHANISMS",
    "SECOND_COUNTEREXAMPLE",
    "AuditResult",
    "EventBound",
    "MechanismPair",
    "audit",
    "audit_table",
    "bound_vs_n",
    "clopper_pearson",
    "delta_lower_bound",
    "epsilon_lower_bound",
    "histogram",
    "likelihood_ratios",
    "sample_pair",
    "svt_outputs",
    "SVT_OFFSETS",
]

#: Every mechanism with an audit sampler (ids of :mod:`dpcore.mechanisms`; "brdp_exact" is accepted for "brdp").
MECHANISMS = _reg.ids_for("audit")

#: BR-DP calibrated by the paper's accountant where it fails (docs/errata.md): Alg. 1 returns q = 1, the paper's
#: δ is 6.7e-4, the exact δ is 1 (θ = 0.1 < Δ/2 and q = 1: the two output laws have disjoint supports). Gaussian
#: kernel.
COUNTEREXAMPLE = {"epsilon": 0.1, "delta": 1e-3, "theta": 0.1, "sensitivity": 5.0, "epsilon_y": 0.06}
#: A second one: q = 0.9855, exact δ = 7.5e-6 against the claimed 1e-8.
SECOND_COUNTEREXAMPLE = {"epsilon": 5.0, "delta": 1e-8, "theta": 3.0, "sensitivity": 0.2, "epsilon_y": 1.5}
#: How the extra row of :func:`audit_table` is labelled.
COUNTEREXAMPLE_SETTINGS = "the paper's accountant where it fails"

_SIDES: tuple[Literal["two-sided", "lower", "upper"], ...] = ("two-sided", "lower", "upper")


# ---------------------------------------------------------------------------------------------------------------
# Clopper–Pearson
# ---------------------------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------------------------
# mechanisms on neighbouring inputs
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MechanismPair:
    """n outputs of one mechanism on D and on D′, with the privacy it claims and what is known exactly."""

    mechanism: str
    out_d: np.ndarray = field(repr=False)
    out_dprime: np.ndarray = field(repr=False)
    claimed_epsilon: float
    claimed_delta: float
    discrete: bool
    labels: tuple[str, ...] | None  # category names of discrete outputs
    setting: str  # plain-language description of the neighbouring inputs and calibration
    exact_delta: float  # exact δ at the claimed ε where the app knows it (nan otherwise)
    paper_delta: float  # the paper accountant's δ at the claimed ε (BR-DP paper plan only; nan otherwise)


_svt_setup = _s.svt_setup  # (split, correction, answers on D, answers on D′) of the SVT audit


def sample_pair(
    mechanism: str,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    n: int,
    rng: np.random.Generator | int | None = None,
    theta: float = 1.0,
    epsilon_y_ratio: float = 0.6,
) -> MechanismPair:
    """n outputs per side of a calibrated mechanism on neighbouring inputs (vectorised).

    laplace / gaussian: 0 vs Δ with b = laplace_scale, σ = gaussian_sigma (analytic); brdp / brdp_paper:
    BR-DP with a Gaussian kernel (brdp.optimize with the exact accountant / Alg. 1's q at ε_y = ratio·ε), centre
    0 vs Δ; svt_exp: SVT with exponential noise (c = 1, Alg. 2 calibration) on the stress pair SVT_OFFSETS;
    r2dp: Gamma(k = 2) mixing law at exact ε; rr: binary randomized response, x = 0 vs x = 1. The samplers live
    in :mod:`dpcore.mechanisms.sampling`.
    """
    m = _reg.get(_reg.canonical(mechanism, among=MECHANISMS))
    settings = _s.AuditSettings(
        epsilon=_v.positive("epsilon", epsilon),
        delta=_v.probability("delta", delta, high_open=True),
        sensitivity=_v.positive("sensitivity", sensitivity),
        n=_v.integer("n", n, low=4, high=50_000_000),
        theta=_v.positive("theta", theta),
        epsilon_y_ratio=_v.real("epsilon_y_ratio", epsilon_y_ratio, low=0.0, high=1.0, low_open=True),
    )
    assert m.sample is not None  # the audit's mechanisms are those with a sampler
    out = m.sample(settings, _v.rng(rng))
    return MechanismPair(
        m.id,
        np.asarray(out.out_d, float),
        np.asarray(out.out_dprime, float),
        float(out.claimed_epsilon),
        float(out.claimed_delta),
        out.discrete,
        out.labels,
        out.setting,
        float(out.exact_delta),
        float(out.paper_delta),
    )


@dataclass(frozen=True)
class AuditResult:
    """Claim, Monte-Carlo lower bounds and verdict of one audit (false-alarm probability ≤ ``alpha``)."""

    mechanism: str
    claimed_epsilon: float
    claimed_delta: float
    epsilon_bound: EventBound  # ε_lb at the claimed δ (level α/2)
    delta_bound: EventBound  # δ_lb at the claimed ε (level α/2)
    alpha: float
    n: int
    setting: str
    exact_delta: float
    paper_delta: float

    @property
    def epsilon_lb(self) -> float:
        return self.epsilon_bound.epsilon_lb

    @property
    def delta_lb(self) -> float:
        return self.delta_bound.delta_lb

    @property
    def caught(self) -> bool:
        """True when either bound beats the claim (relative tolerance 1e-9)."""
        return (
            self.epsilon_lb > self.claimed_epsilon * (1 + 1e-9)
            or self.delta_lb > self.claimed_delta * (1 + 1e-9) + 1e-15
        )

    @property
    def verdict(self) -> str:
        return "VIOLATION: the claim is beaten" if self.caught else "consistent"


def audit_pair(pair: MechanismPair, *, alpha: float = 0.05, bins: int = 100) -> AuditResult:
    """Audit sampled outputs: ε_lb at the claimed δ and δ_lb at the claimed ε, each at level α/2 (Bonferroni)."""
    a = _alpha(alpha)
    prep = _prepare(pair.out_d, pair.out_dprime, bins=bins, discrete=pair.discrete)
    eb = _bound(prep, target="epsilon", epsilon=math.nan, delta=pair.claimed_delta, alpha=a / 2, labels=pair.labels)
    db = _bound(prep, target="delta", epsilon=pair.claimed_epsilon, delta=0.0, alpha=a / 2, labels=pair.labels)
    return AuditResult(
        pair.mechanism,
        pair.claimed_epsilon,
        pair.claimed_delta,
        eb,
        db,
        a,
        int(pair.out_d.size),
        pair.setting,
        pair.exact_delta,
        pair.paper_delta,
    )


def audit(
    mechanism: str,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    n: int,
    rng: np.random.Generator | int | None = None,
    alpha: float = 0.05,
    bins: int = 100,
    theta: float = 1.0,
    epsilon_y_ratio: float = 0.6,
) -> AuditResult:
    """Audit one mechanism calibrated at (ε, δ, Δ): n outputs per neighbouring input, lower bounds, verdict.

    The verdict is "VIOLATION" only if ε_lb > claimed ε or δ_lb > claimed δ; for a mechanism that keeps its
    claim this happens with probability ≤ α (each bound at α/2).
    """
    pair = sample_pair(
        mechanism,
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        n=n,
        rng=rng,
        theta=theta,
        epsilon_y_ratio=epsilon_y_ratio,
    )
    return audit_pair(pair, alpha=alpha, bins=bins)


def audit_table(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    n: int,
    rng: np.random.Generator | int | None = None,
    alpha: float = 0.05,
    bins: int = 100,
    theta: float = 1.0,
    epsilon_y_ratio: float = 0.6,
    counterexample: bool = True,
) -> pd.DataFrame:
    """Every mechanism audited at the given settings (+ BR-DP calibrated by the paper's accountant at
    :data:`COUNTEREXAMPLE`, where its δ is wrong). Columns include ``mechanism`` (id) and ``name`` (display)."""
    g = _v.rng(rng)
    runs = [
        (
            m,
            dict(epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta, epsilon_y_ratio=epsilon_y_ratio),
            "these settings",
        )
        for m in MECHANISMS
    ]
    if counterexample:
        ce = COUNTEREXAMPLE
        runs.append(
            (
                "brdp_paper",
                dict(
                    epsilon=ce["epsilon"],
                    delta=ce["delta"],
                    sensitivity=ce["sensitivity"],
                    theta=ce["theta"],
                    epsilon_y_ratio=ce["epsilon_y"] / ce["epsilon"],
                ),
                COUNTEREXAMPLE_SETTINGS,
            )
        )
    rows = []
    for mech, kw, where in runs:
        res = audit(mech, n=n, rng=g, alpha=alpha, bins=bins, **kw)
        rows.append(
            {
                "mechanism": res.mechanism,
                "name": _reg.display_name(res.mechanism),
                "settings": where,
                "claimed_epsilon": res.claimed_epsilon,
                "claimed_delta": res.claimed_delta,
                "epsilon_lb": res.epsilon_lb,
                "delta_lb": res.delta_lb,
                "exact_delta": res.exact_delta,
                "paper_delta": res.paper_delta,
                "epsilon_event": res.epsilon_bound.event,
                "verdict": res.verdict,
                "caught": res.caught,
                "n": res.n,
                "confidence": 1 - res.alpha,
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------------------
# pictures' data
# ---------------------------------------------------------------------------------------------------------------
def likelihood_ratios(
    out_d, out_dprime, *, alpha: float = 0.05, bins: int = 40, discrete: bool = False, labels=None
) -> pd.DataFrame:
    """Per-bin output frequencies of both inputs and the empirical log-likelihood ratio ln(p/p′) with a
    conservative CI [ln(p_lo/p′_hi), ln(p_hi/p′_lo)] from two-sided Clopper–Pearson bounds (each at level α/2)."""
    a = _alpha(alpha)
    x = _v.real_array("out_d", out_d).ravel()
    y = _v.real_array("out_dprime", out_dprime).ravel()
    bins = _v.integer("bins", bins, low=2, high=10_000)
    cx, cy, edges, cats = _codes(x, y, bins=bins, discrete=discrete, sel=x.size, sel_y=y.size)
    nb = (edges.size - 1) if edges is not None else cats.size
    kx, ky = np.bincount(cx, minlength=nb + 1)[:nb], np.bincount(cy, minlength=nb + 1)[:nb]
    lo_x, hi_x = clopper_pearson(kx, x.size, alpha=a / 2)
    lo_y, hi_y = clopper_pearson(ky, y.size, alpha=a / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame: dict[str, Any] = {
            "count_d": kx,
            "count_dprime": ky,
            "p_d": kx / x.size,
            "p_dprime": ky / y.size,
            "llr": np.log(kx / x.size) - np.log(ky / y.size),
            "llr_lo": np.log(lo_x) - np.log(hi_y),
            "llr_hi": np.log(hi_x) - np.log(lo_y),
        }
    if edges is None:
        frame = {"outcome": cats.astype(int), "label": [labels[int(c)] if labels else f"{c:g}" for c in cats], **frame}
    else:
        finite = np.concatenate([x[np.isfinite(x)], y[np.isfinite(y)]])
        left, right = edges[:-1].copy(), edges[1:].copy()
        left[0] = min(finite.min(), right[0]) if np.isinf(left[0]) else left[0]
        right[-1] = max(finite.max(), left[-1]) if np.isinf(right[-1]) else right[-1]
        frame = {"bin": np.arange(nb), "bin_left": left, "bin_right": right, **frame}
    return pd.DataFrame(frame)


def histogram(out_d, out_dprime, *, bins: int = 40, coverage: float = 0.998) -> pd.DataFrame:
    """Equal-width histogram of both samples over the central ``coverage`` of the pooled outputs (for display):
    bin_left, bin_right, p_d, p_dprime (shares of all samples) and density_d, density_dprime."""
    x = _v.real_array("out_d", out_d, allow_inf=False).ravel()
    y = _v.real_array("out_dprime", out_dprime, allow_inf=False).ravel()
    bins = _v.integer("bins", bins, low=2, high=10_000)
    cov = _v.real("coverage", coverage, low=0.0, high=1.0, low_open=True)
    pooled = np.concatenate([x, y])
    lo, hi = np.quantile(pooled, [(1 - cov) / 2, (1 + cov) / 2])
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    kx, _ = np.histogram(x, bins=edges)
    ky, _ = np.histogram(y, bins=edges)
    w = np.diff(edges)
    return pd.DataFrame(
        {
            "bin_left": edges[:-1],
            "bin_right": edges[1:],
            "p_d": kx / x.size,
            "p_dprime": ky / y.size,
            "density_d": kx / (x.size * w),
            "density_dprime": ky / (y.size * w),
        }
    )


def bound_vs_n(
    out_d,
    out_dprime,
    *,
    sizes,
    target: Literal["epsilon", "delta"] = "epsilon",
    epsilon: float = 0.0,
    delta: float = 0.0,
    alpha: float = 0.05,
    bins: int = 100,
    discrete: bool = False,
) -> pd.DataFrame:
    """The bound from the first m samples per side, for each m in ``sizes`` (how the audit tightens with n)."""
    x = _v.real_array("out_d", out_d).ravel()
    y = _v.real_array("out_dprime", out_dprime).ravel()
    target = _v.choice("target", target, ("epsilon", "delta"))
    rows = []
    for m in np.asarray(sizes, dtype=int):
        m = _v.integer("sizes", int(m), low=4, high=min(x.size, y.size))
        if target == "epsilon":
            b = epsilon_lower_bound(x[:m], y[:m], delta=delta, alpha=alpha, bins=bins, discrete=discrete)
        else:
            b = delta_lower_bound(x[:m], y[:m], epsilon=epsilon, alpha=alpha, bins=bins, discrete=discrete)
        rows.append({"n": m, "epsilon_lb": b.epsilon_lb, "delta_lb": b.delta_lb, "event": b.event})
    return pd.DataFrame(rows)
