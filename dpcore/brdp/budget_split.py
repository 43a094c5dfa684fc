"""The budget split of BR-DP (Jiang et al. 2024, Sec. 5, Alg. 2): how much of ε goes to the kernel (ε_y) and how
much to the recycler (q), maximising the acceptance p_θ/(1 - p̄_θ q).

Alg. 2 minimises the objective q + (1 - q)/p_θ = 1/acceptance (the printed Eq. (10), 1 - q + q/p_θ, has q and
1 - q swapped; it is available as ``objective="as_printed"``) over ε_y with q from Alg. 1; the exact optimiser
does the same under the exact accountant.  :class:`BRDPPlan` holds the result and what each accountant says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import optimize as _opt

from dpcore import _validate as _v
from dpcore.brdp._common import _BUDGET_MARGIN, Kernel, _delta, _eps_pos, _eps_y, _kernel, _q, _sens, _theta
from dpcore.brdp.calibration import _calibrate
from dpcore.brdp.exact_accountant import _exact_core, _exact_q_fn, exact_delta
from dpcore.brdp.kernels import _acc, _den, _p_theta, _profile_s, _w
from dpcore.brdp.paper_accountant import _alg1, _paper_delta


@dataclass(frozen=True)
class BRDPPlan:
    """A BR-DP configuration for one release and what each accountant says about it.

    ``acceptance`` is always the true acceptance p_theta/(1 - pbar q) of eq. (9); ``objective_value`` is the
    objective Alg. 2 minimised (1/acceptance for the corrected objective; the printed eq. (10) otherwise).
    ``paper_delta`` is Prop. 2 at ``epsilon``, ``exact_delta`` the exact hockey-stick divergence
    (:mod:`dpcore.brdp.exact_accountant`).
    """

    epsilon: float
    delta: float
    sensitivity: float
    theta: float
    kernel: Kernel
    accountant: Literal["exact", "paper"]
    objective: Literal["corrected", "as_printed"]
    calibration: Literal["analytic", "classic"]
    epsilon_y: float
    q: float
    scale: float
    p_theta: float
    w: float
    loss: float
    acceptance: float
    expected_draws: float
    baseline_q: float
    objective_value: float
    dp_scale: float
    dp_acceptance: float
    paper_delta: float
    exact_delta: float
    delta_y: float | None = None  # the kernel's own δ_y (Alg. 1's input); None: δ_y = δ, the paper's choice

    @property
    def kernel_delta(self) -> float:
        """δ_y: the δ at which the kernel is calibrated for ε_y (Alg. 1's input; the paper's figures use δ_y = δ)."""
        return self.delta if self.delta_y is None else self.delta_y

    @property
    def sound(self) -> bool:
        """True when the exact delta at epsilon is within the target delta (compared exactly, no tolerance)."""
        return self.exact_delta <= self.delta

    @property
    def gain(self) -> float:
        """Acceptance of BR-DP minus acceptance of the plain kernel at the full budget (Prop. 4)."""
        return self.acceptance - self.dp_acceptance


def _alg2(
    kernel: str,
    eps: float,
    delta: float,
    d: float,
    theta: float,
    calibration: str,
    variant: str,
    p_fn=None,
    n_grid: int = 40,
    delta_y: float | None = None,
) -> tuple[float, float, float, float]:
    """Alg. 2 (coarse grid + bounded Brent refine of the ternary search): returns (eps_y, scale, q, O); the kernel
    is calibrated at (eps_y, delta_y) (delta_y = delta when None, as the paper's figures)."""
    cache: dict[float, tuple[float, float, float]] = {}
    dy = delta if delta_y is None else delta_y

    def ev(ey: float) -> float:
        if ey not in cache:
            s = _calibrate(kernel, ey, dy, d, calibration)
            dz = _profile_s(kernel, eps, s, d)
            q = _alg1(kernel, eps, delta, s, d, theta, 1e-12, dz)
            p = _p_theta(kernel, s, theta) if p_fn is None else p_fn(s)
            # infeasible even at q = 0 (classic Gaussian calibration is not (eps_y, delta)-DP for eps_y >~ 1)
            infeasible = dz > delta * (1 + 1e-6)
            if p <= 0 or infeasible:
                o = math.inf
            else:
                o = q + (1 - q) / p if variant == "corrected" else 1 - q + q / p
            cache[ey] = (s, q, o)
        return cache[ey][2]

    lo_eps = 1e-6 * eps
    grid = eps * np.arange(1, n_grid + 1) / n_grid
    vals = np.array([ev(float(g)) for g in grid])
    i = int(np.argmin(vals))
    a = float(grid[i - 1]) if i > 0 else lo_eps
    b = float(grid[min(i + 1, len(grid) - 1)])
    if b > a:
        res = _opt.minimize_scalar(ev, bounds=(a, b), method="bounded", options={"xatol": 1e-9 * eps})
        ev(float(res.x))
    best = min(cache, key=lambda k: (cache[k][2], -k))
    s, q, o = cache[best]
    return best, s, q, o


def _acc_arr(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Vectorised :func:`_acc` (-1 where q < 0, i.e. no feasible q)."""
    with np.errstate(all="ignore"):
        den = 1.0 - (1.0 - p) * q
        acc = np.where(den <= 0, 1.0, np.minimum(1.0, p / den))
    return np.where(q < 0, -1.0, acc)


_QGRID = np.unique(np.concatenate((np.linspace(0.0, 1.0, 121), 1.0 - np.logspace(-3, -12, 10))))
_QGRID.setflags(write=False)
# the q grid searched top down (q = 1 and 1 - 1e-k first) in these index ranges
_QGRID_CHUNKS = (
    (len(_QGRID) - 16, len(_QGRID)),
    (len(_QGRID) - 46, len(_QGRID) - 16),
    (len(_QGRID) - 86, len(_QGRID) - 46),
    (0, len(_QGRID) - 86),
)


def _largest_exact_q(
    kernel: Kernel, s: Any, theta: float, eps: float, delta: float, dgrid: np.ndarray, prune_p: Any = None
) -> Any:
    """Largest q with max_d exact delta(eps) <= delta (-1 if none), for one scale s or an array of scales.

    delta is not monotone in q: a 131-point q grid, then a vectorised 32-way bisection of the last feasible
    cell (about 6 calls instead of about 27 halvings), all scales in lockstep.

    ``prune_p`` (p_theta of each scale): branch and bound for the exact optimiser, which only needs the
    scale of largest acceptance p/(1 - (1-p) q) (nondecreasing in q): the q grid is searched from the top in
    chunks, and a scale whose acceptance at the upper end of what is left of its range is below the best
    lower end found so far is no longer searched or bisected. Returns (q, exact) then: ``exact`` marks the
    scales searched to the end (the others' q is a feasible lower bound, or -1, and their true acceptance is
    below the best).
    """
    ss = np.atleast_1d(np.asarray(s, dtype=float))
    budget = delta * (1 - _BUDGET_MARGIN)  # refuses a hair early: never over the target (see _common)
    qgrid = _QGRID
    nq = len(qgrid)
    fn = _exact_q_fn(kernel, ss, theta, eps, dgrid)
    pp = None if prune_p is None else np.atleast_1d(np.asarray(prune_p, dtype=float))
    pruned = np.zeros(ss.shape, dtype=bool)
    if fn is None:
        ok = _exact_core(kernel, ss[:, None, None], theta, eps, qgrid[None, :, None], dgrid[None, None, :])
        ok = ok.max(-1) <= budget
        any_ok = ok.any(-1)
        k = np.where(any_ok, nq - 1 - np.argmax(ok[:, ::-1], -1), 0)
    elif pp is None:  # same values as _exact_core, with the q-free work done once
        ok = fn(qgrid[None, :]) <= budget
        any_ok = ok.any(-1)
        k = np.where(any_ok, nq - 1 - np.argmax(ok[:, ::-1], -1), 0)
    else:  # the last feasible grid point, searched from the top in chunks; branch and bound between chunks
        any_ok = np.zeros(ss.shape, dtype=bool)
        k = np.zeros(ss.shape, dtype=int)
        searching = np.ones(ss.shape, dtype=bool)
        for i0, i1 in _QGRID_CHUNKS:
            rows = np.flatnonzero(searching)
            ok = fn(qgrid[None, i0:i1], None if rows.size == ss.size else rows) <= budget
            hit = ok.any(-1)
            k[rows[hit]] = i0 + (i1 - i0) - 1 - np.argmax(ok[hit, ::-1], -1)
            any_ok[rows[hit]] = True
            searching[rows[hit]] = False
            if not searching.any() or i0 == 0:
                break
            if any_ok.any():  # a scale still searching has q < qgrid[i0]: drop it if even that cannot win
                best = _acc_arr(pp[any_ok], qgrid[k[any_ok]]).max()
                drop = searching & (_acc_arr(pp, np.full(ss.shape, qgrid[i0])) < best * (1 - 1e-12))
                pruned |= drop
                searching &= ~drop
                if not searching.any():
                    break
    top = k == nq - 1
    lo = np.where(any_ok, qgrid[k], -1.0)
    hi = np.where(any_ok & ~top, qgrid[np.minimum(k + 1, nq - 1)], lo)
    frac = np.linspace(0.0, 1.0, 34)[1:-1]
    active = any_ok & ~top & (hi - lo > 1e-10) & ~pruned
    while True:
        if pp is not None and active.any():
            best = _acc_arr(pp, lo).max()
            drop = active & (_acc_arr(pp, hi) < best * (1 - 1e-12))
            pruned |= drop
            active &= ~drop
        if not active.any():
            break
        a_lo, a_hi = lo[active], hi[active]
        qs = a_lo[:, None] + (a_hi - a_lo)[:, None] * frac[None, :]
        if fn is not None:  # same values as _exact_core, with the q-free work done once
            ok = fn(qs, None if active.all() else np.flatnonzero(active)) <= budget
        else:
            ok = (
                _exact_core(kernel, ss[active][:, None, None], theta, eps, qs[..., None], dgrid[None, None, :]).max(-1)
                <= budget
            )
        j = np.where(ok.any(-1), len(frac) - 1 - np.argmax(ok[:, ::-1], -1), -1)
        rows = np.arange(len(j))
        new_lo = np.where(j >= 0, qs[rows, np.maximum(j, 0)], a_lo)
        new_hi = np.where(j + 1 < len(frac), qs[rows, np.minimum(j + 1, len(frac) - 1)], a_hi)
        lo[active], hi[active] = new_lo, new_hi
        active = any_ok & ~top & (hi - lo > 1e-10) & ~pruned
    if pp is not None:
        return lo, ~pruned
    return float(lo[0]) if np.ndim(s) == 0 else lo


def _exact_opt(
    kernel: Kernel,
    eps: float,
    delta: float,
    d: float,
    theta: float,
    calibration: str,
    n_grid: int = 32,
    delta_y: float | None = None,
) -> tuple[float, float, float]:
    """Largest acceptance with exact delta(eps) <= delta over (eps_y, q): grid over eps_y, zoom twice; the kernel at
    (eps_y, delta_y)."""
    dy = delta if delta_y is None else delta_y
    coarse_d = d * np.arange(1, 5) / 4  # search on 4 shifts; the chosen plan is verified on 200 below
    full_d = d * np.arange(1, 201) / 200
    cache: dict[float, tuple[float, float, float]] = {}
    inexact: set[float] = set()  # pruned eps_y: q is a feasible lower bound, acceptance below the best (B&B)

    def ev(eys: list[float]) -> np.ndarray:
        new = [ey for ey in dict.fromkeys(eys) if ey not in cache]
        if new:
            ss = np.array([_calibrate(kernel, ey, dy, d, calibration) for ey in new])
            ps = np.array([_p_theta(kernel, float(s), theta) for s in ss])
            qs, exact = _largest_exact_q(kernel, ss, theta, eps, delta, coarse_d, prune_p=ps)
            # q = 0 is the plain kernel, whose δ exact_delta takes from accounting's well-conditioned forms: the
            # pieces' closed form can put it a few ulp over a target it meets
            qs = np.array(
                [
                    0.0 if q < 0 and _within(kernel, float(s), theta, eps, 0.0, d, delta) else q
                    for s, q in zip(ss, qs, strict=True)
                ]
            )
            for ey, s, p, q, ex in zip(new, ss, ps, qs, exact, strict=True):
                cache[ey] = (float(s), float(q), -1.0 if q < 0 else _acc(float(p), float(q)))
                if not ex:
                    inexact.add(ey)
        return np.array([cache[ey][2] for ey in eys])

    def settle() -> None:  # bisect the pruned eps_y to the end (only if the best plans all fail below)
        for ey in list(inexact):
            s = cache[ey][0]
            q = _largest_exact_q(kernel, s, theta, eps, delta, coarse_d)
            cache[ey] = (s, q, -1.0 if q < 0 else _acc(_p_theta(kernel, s, theta), q))
        inexact.clear()

    grid = eps * np.arange(1, n_grid + 1) / n_grid
    for _ in range(3):
        vals = ev([float(g) for g in grid])
        i = int(np.argmax(vals))
        a = float(grid[max(i - 1, 0)])
        b = float(grid[min(i + 1, len(grid) - 1)])
        grid = np.linspace(a, b, 9)
    order = sorted(cache, key=lambda k: (-cache[k][2], -k))
    tried: set[float] = set()
    while order:
        ey = order.pop(0)
        if ey in inexact:  # every better plan failed: finish the pruned bisections and sort again
            settle()
            order = sorted((k for k in cache if k not in tried), key=lambda k: (-cache[k][2], -k))
            continue
        tried.add(ey)
        s, q, acc = cache[ey]  # verify on the fine shift grid; repair q if a finer shift is worse
        if q < 0:
            continue
        if _within(kernel, s, theta, eps, q, d, delta):
            return ey, s, q
        q2 = _shrink_q(kernel, s, theta, eps, _largest_exact_q(kernel, s, theta, eps, delta, full_d), d, delta)
        if q2 >= 0:
            return ey, s, q2
    # no redraw fits: the plain kernel, its scale nudged up if the round-off bound leaves its exact δ over
    s, step = _calibrate(kernel, eps, min(dy, delta), d, calibration), 1e-9
    for _ in range(64):
        if _within(kernel, s, theta, eps, 0.0, d, delta):
            break
        s, step = s * (1 + step), 2 * step
    return eps, s, 0.0


def _within(kernel: Kernel, s: float, theta: float, eps: float, q: float, d: float, delta: float) -> bool:
    """The plan's reported exact δ (:func:`exact_delta`, rounded up by its round-off bound) is within the target."""
    reported = exact_delta(eps, kernel=kernel, scale=s, theta=theta, q=q, sensitivity=d)
    return bool(reported <= delta * (1 - _BUDGET_MARGIN))


def _shrink_q(kernel: Kernel, s: float, theta: float, eps: float, q: float, d: float, delta: float) -> float:
    """``q`` if the reported exact δ meets the target, else the largest q' in [0, q) that does by bisection (the grid
    search compares the closed form without its round-off bound); -1 if not even q = 0 does."""
    if q < 0 or _within(kernel, s, theta, eps, q, d, delta):
        return q
    if not _within(kernel, s, theta, eps, 0.0, d, delta):
        return -1.0
    lo, hi = 0.0, q
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _within(kernel, s, theta, eps, mid, d, delta) else (lo, mid)
    return lo


def optimize(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    accountant: Literal["exact", "paper"] = "exact",
    objective: Literal["corrected", "as_printed"] = "corrected",
    calibration: Literal["analytic", "classic"] = "analytic",
    delta_y: float | None = None,
) -> BRDPPlan:
    """Budget split (epsilon_y, q) for one (epsilon, delta) BR-DP release.

    ``accountant="paper"``: Alg. 2 (ternary search over eps_y; here a 40-point grid + bounded Brent refine,
    which does not assume unimodality) with q from Alg. 1, minimising the corrected objective
    q + (1-q)/p_theta (= 1/acceptance); the printed eq. (10) only with ``objective="as_printed"``.  Its
    guarantee is the paper's mixture model, which can be unsound (check ``plan.exact_delta`` / ``plan.sound``).
    ``accountant="exact"`` (default): largest acceptance subject to the exact delta(epsilon) <= delta over
    eps_y in (0, eps] and q in [0, 1] (exact delta is not monotone in q: grid + bisection).
    ``delta_y``: the kernel's own δ (Alg. 1 takes it as an input); None uses δ_y = δ, as the paper's figures do.
    """
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    dy = None if delta_y is None else _delta_y(delta_y)
    d, th = _sens(sensitivity), _theta(theta)
    accountant = _v.choice("accountant", accountant, ("exact", "paper"))
    objective = _v.choice("objective", objective, ("corrected", "as_printed"))
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    if accountant == "exact" and objective != "corrected":
        raise ValueError("objective must be 'corrected' with accountant='exact'; 'as_printed' is paper-only")
    if accountant == "paper":
        ey, s, q, o = _alg2(kernel, e, dl, d, th, calibration, objective, delta_y=dy)
    else:
        ey, s, q = _exact_opt(kernel, e, dl, d, th, calibration, delta_y=dy)
        o = math.nan
    return _make_plan(kernel, e, dl, d, th, calibration, accountant, objective, ey, s, q, o, dy)


def _delta_y(delta_y: float) -> float:
    return _v.probability("delta_y", delta_y, low_open=True, high_open=True)


def _make_plan(kernel, e, dl, d, th, calibration, accountant, objective, ey, s, q, o, dy=None) -> BRDPPlan:
    p = _p_theta(kernel, s, th)
    acc = _acc(p, q)
    if math.isnan(o):
        o = 1 / acc
    dp_s = _calibrate(kernel, e, dl, d, calibration)
    den = _den(p, q)
    return BRDPPlan(
        epsilon=e,
        delta=dl,
        sensitivity=d,
        theta=th,
        kernel=kernel,
        accountant=accountant,
        objective=objective,
        calibration=calibration,
        epsilon_y=float(ey),
        q=float(q),
        scale=float(s),
        p_theta=p,
        w=_w(kernel, s, th, d),
        loss=math.inf if q >= 1 else -math.log1p(-q),
        acceptance=acc,
        expected_draws=math.inf if den <= 0 else 1 / den,
        baseline_q=float(-math.expm1(-(e - ey))),
        objective_value=o,
        dp_scale=dp_s,
        dp_acceptance=_p_theta(kernel, dp_s, th),
        paper_delta=float(_paper_delta(kernel, np.float64(e), s, th, q, d)),
        exact_delta=float(exact_delta(e, kernel=kernel, scale=s, theta=th, q=q, sensitivity=d)),
        delta_y=dy,
    )


def make_plan(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    epsilon_y: float,
    q: float | None = None,
    calibration: Literal["analytic", "classic"] = "analytic",
    delta_y: float | None = None,
) -> BRDPPlan:
    """A plan for a user-chosen eps_y and q (q = None: Alg. 1's q) — the app's "q override"; the kernel is
    calibrated at (eps_y, delta_y) (delta_y = delta when None)."""
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    dy = None if delta_y is None else _delta_y(delta_y)
    d, th = _sens(sensitivity), _theta(theta)
    ey = _eps_y(epsilon_y, e)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    s = _calibrate(kernel, ey, dl if dy is None else dy, d, calibration)
    qq = _alg1(kernel, e, dl, s, d, th, 1e-12) if q is None else _q(q)
    acc_name = "paper" if q is None else "manual"
    return _make_plan(kernel, e, dl, d, th, calibration, acc_name, "corrected", ey, s, qq, math.nan, dy)
