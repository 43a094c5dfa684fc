"""Data behind the paper's figures and Table I (Jiang et al. 2024, Figs. 3-8, Sec. 8), as pure functions returning
DataFrames: the budget-split landscape, acceptance against ε, privacy profiles, ε_T against T, the privacy-loss
picture, the repeated-release experiment and the paper-versus-exact audit.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore.brdp._common import MAX_GRID, Kernel, _delta, _eps_pos, _kernel, _sens, _theta
from dpcore.brdp.budget_split import BRDPPlan, _alg2, _exact_opt, make_plan, optimize
from dpcore.brdp.calibration import _calibrate
from dpcore.brdp.composition import _composed_epsilon_analytic, _plan, _plan_pld, _pld_epsilon
from dpcore.brdp.exact_accountant import _exact_core, _loss_survival
from dpcore.brdp.kernels import _acc, _p_theta, _profile, _w
from dpcore.brdp.mechanism import _draw_kernel, sample_outputs
from dpcore.brdp.paper_accountant import _alg1, _paper_delta, _paper_delta_scales
from dpcore.brdp.subsampling import SubsamplingPlan, optimal_sampling_rate


def budget_split_landscape(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
    n: int = 100,
    exact: bool = True,
) -> pd.DataFrame:
    """Alg. 2 landscape over eps_y in (0, eps] (Fig. 3).

    Columns: epsilon_y, scale, p_theta, w, q (Alg. 1), q_base (Remark 1), acceptance (= 1/O corrected),
    objective_corrected, objective_as_printed, paper_delta (at eps), exact_delta (at eps, if ``exact``).
    """
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    k = _v.integer("n", n, low=2, high=MAX_GRID)
    eys = e * np.arange(1, k + 1) / k
    s, q, p = np.empty(k), np.empty(k), np.empty(k)
    for i, ey in enumerate(eys):  # calibration and Alg. 1: scalar root-finds; the deltas below: vectorised
        s[i] = _calibrate(kernel, float(ey), dl, d, calibration)
        q[i] = _alg1(kernel, e, dl, float(s[i]), d, th, 1e-12)
        p[i] = _p_theta(kernel, float(s[i]), th)
    if exact:
        dgrid = d * np.arange(1, 41) / 40
        exact_delta = _exact_core(kernel, s[:, None], th, e, q[:, None], dgrid[None, :], p=p[:, None]).max(-1)
    else:
        exact_delta = np.full(k, math.nan)
    return pd.DataFrame(
        {
            "epsilon_y": eys,
            "scale": s,
            "p_theta": p,
            "w": [_w(kernel, float(si), th, d) for si in s],
            "q": q,
            "q_base": [float(-math.expm1(-(e - ey))) for ey in eys],
            "acceptance": [_acc(float(pi), float(qi)) for pi, qi in zip(p, q, strict=True)],
            "objective_corrected": q + (1 - q) / p,
            "objective_as_printed": 1 - q + q / p,
            "paper_delta": _paper_delta_scales(kernel, e, s, th, q, d),
            "exact_delta": exact_delta,
        }
    )


def acceptance_curve(
    epsilons: Any,
    *,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
    exact: bool = False,
) -> pd.DataFrame:
    """Acceptance against total eps (Fig. 4): DP, BR-DP (paper Alg. 2) and optionally
    BR-DP with the exact optimiser.  Columns: epsilon, dp, brdp_paper, brdp_exact, epsilon_y, q."""
    kernel = _kernel(kernel)
    eps = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if (eps <= 0).any():
        raise ValueError("epsilons must all be > 0")
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    rows = []
    for e in eps:
        e = float(e)
        ey, s, q, _ = _alg2(kernel, e, dl, d, th, calibration, "corrected")
        row = {
            "epsilon": e,
            "dp": _p_theta(kernel, _calibrate(kernel, e, dl, d, calibration), th),
            "brdp_paper": _acc(_p_theta(kernel, s, th), q),
            "epsilon_y": ey,
            "q": q,
            "brdp_exact": math.nan,
        }
        if exact:
            _, s2, q2 = _exact_opt(kernel, e, dl, d, th, calibration)
            row["brdp_exact"] = _acc(_p_theta(kernel, s2, th), q2)
        rows.append(row)
    return pd.DataFrame(rows)


def privacy_profile(epsilons: Any, *, plan: BRDPPlan) -> pd.DataFrame:
    """Privacy profiles of a plan: kernel, the paper's Prop. 2 and the exact profile.

    Columns: kernel delta_Z, paper delta_Gamma (Prop. 2), exact BR-DP delta, plain DP (kernel at the full
    budget) and ``under_reported`` (exact > paper).
    """
    pl = _plan(plan)
    eps = _v.real_array("epsilons", epsilons).ravel()
    paper = _paper_delta(pl.kernel, eps, pl.scale, pl.theta, pl.q, pl.sensitivity)
    dgrid = pl.sensitivity * np.arange(1, 201) / 200
    exact = _exact_core(pl.kernel, pl.scale, pl.theta, eps[:, None], pl.q, dgrid[None, :]).max(-1)
    return pd.DataFrame(
        {
            "epsilon": eps,
            "kernel": _profile(pl.kernel, eps, pl.scale, pl.sensitivity),
            "paper": paper,
            "exact": exact,
            "dp": _profile(pl.kernel, eps, pl.dp_scale, pl.sensitivity),
            "under_reported": exact > paper * (1 + 1e-9) + 1e-300,
        }
    )


def _thm3_epsilons_gauss(d: float, s: float, w: float, big_l: float, ts: list[int], delta: float) -> np.ndarray:
    """eps_T = min{eps : Thm. 3 delta^T(eps) <= delta} of a Gaussian kernel for several T at once (w = 0: the
    plain kernel, delta_G at mu = sqrt(T) D/s).  Thm. 3's sum (as :func:`_thm3`, weights padded with zeros) in
    one array per step; the bracket of :func:`dpcore.accounting.epsilon_for_delta`, then alternating log-space
    false-position and bisection steps to a bracket of 1e-12 (1 + |eps|); returns its sound (upper) end.
    """
    rows_w, rows_s = [], []
    for t in ts:
        j = np.arange(t + 1)
        wts = stats.binom.pmf(j, t, w)
        keep = wts > 1e-300
        j, wts = j[keep], wts[keep]
        with np.errstate(invalid="ignore"):
            rows_w.append(wts)
            rows_s.append(np.where(j == 0, 0.0, j * big_l))
    width = max(len(r) for r in rows_w)
    wm = np.zeros((len(ts), width))
    sm = np.zeros((len(ts), width))
    for i, (a, b) in enumerate(zip(rows_w, rows_s, strict=True)):
        wm[i, : len(a)] = a
        sm[i, : len(b)] = b
    mu = np.array([math.sqrt(t) * d / s for t in ts])[:, None]

    def dlt(e: np.ndarray, idx: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            args = e[:, None] - sm[idx]
        args = np.where(np.isnan(args), -np.inf, args)
        log_d = _acct.gaussian_log_delta(args, np.broadcast_to(mu[idx], args.shape))
        val = (np.exp(log_d) * wm[idx]).sum(-1)
        return np.clip(val, 0.0, 1.0)

    n = len(ts)
    every = np.arange(n)
    out = np.full(n, np.nan)
    at_inf = dlt(np.full(n, np.inf), every) > delta
    out[at_inf] = np.inf
    at_minf = dlt(np.full(n, -np.inf), every) <= delta
    out[at_minf & ~at_inf] = -np.inf
    idx = np.flatnonzero(~at_inf & ~at_minf)
    if idx.size == 0:
        return out
    hi = np.ones(idx.size)
    grow = dlt(hi, idx) > delta
    while grow.any():
        hi[grow] *= 2.0
        grow[grow] = dlt(hi[grow], idx[grow]) > delta
    lo = np.where(dlt(np.zeros(idx.size), idx) > delta, 0.0, -1.0)
    shrink = dlt(lo, idx) <= delta
    while shrink.any():
        lo[shrink] *= 2.0
        shrink[shrink] = dlt(lo[shrink], idx[shrink]) <= delta
    log_t = math.log(delta)
    with np.errstate(divide="ignore"):
        f_lo, f_hi = np.log(dlt(lo, idx)) - log_t, np.log(dlt(hi, idx)) - log_t  # f_lo > 0 >= f_hi
    act = np.arange(idx.size)
    for it in range(200):
        width_ok = hi[act] - lo[act] <= 1e-12 * (1.0 + np.abs(hi[act]))
        act = act[~width_ok]
        if act.size == 0:
            break
        a, b, fa, fb = lo[act], hi[act], f_lo[act], f_hi[act]
        with np.errstate(all="ignore"):
            x = b - fb * (b - a) / (fb - fa) if it % 2 == 0 else 0.5 * (a + b)
        x = np.where(np.isfinite(x) & (x > a) & (x < b), x, 0.5 * (a + b))
        with np.errstate(divide="ignore"):
            fx = np.log(dlt(x, idx[act])) - log_t
        pos = fx > 0
        lo[act[pos]], f_lo[act[pos]] = x[pos], fx[pos]
        hi[act[~pos]], f_hi[act[~pos]] = x[~pos], fx[~pos]
    out[idx] = hi
    return out


def composition_curve(
    compositions: Any,
    *,
    plan: BRDPPlan,
    delta: float | None = None,
    exact: bool = True,
    value_discretization_interval: float = 1e-4,
) -> pd.DataFrame:
    """eps_T against T (Fig. 5): BR-DP via Thm. 3 (paper), BR-DP exact PLD, plain DP.

    delta defaults to the plan's delta.  The exact curve composes the BR-DP PLD once per T
    (one loss grid for all T, coarsened for the largest T by :func:`~dpcore.brdp.composition.composition_interval`).
    """
    pl = _plan(plan)
    ts = np.atleast_1d(np.asarray(compositions))
    tt = [_v.integer("compositions", t, low=1, high=_acct.MAX_PLD_COMPOSITIONS) for t in ts]
    dl = pl.delta if delta is None else _delta(delta)
    rows = []
    base = None
    if exact:
        base = _plan_pld(pl, max(tt, default=1), value_discretization_interval)
    if pl.kernel == "gaussian" and tt:  # all T at once (same quantities as composed_epsilon, to ~1e-12)
        paper = _thm3_epsilons_gauss(pl.sensitivity, pl.scale, pl.w, pl.loss, tt, dl)
        dp = _thm3_epsilons_gauss(pl.sensitivity, pl.dp_scale, 0.0, 0.0, tt, dl)
    else:
        paper = np.array([_composed_epsilon_analytic(pl, dl, t, "paper", "exact") for t in tt])
        dp = np.array([_composed_epsilon_analytic(pl, dl, t, "dp", "exact") for t in tt])
    for t, e_paper, e_dp in zip(tt, paper, dp, strict=True):
        row = {"compositions": t, "paper": float(e_paper), "dp": float(e_dp), "exact": math.nan}
        if base is not None:  # accounting's faster self-composition (same pmf) and closed-form inversion
            row["exact"] = _pld_epsilon(_acct.self_compose(base, t) if t > 1 else base, dl)
        rows.append(row)
    return pd.DataFrame(rows)


def loss_distribution(plan: BRDPPlan, *, n: int = 400) -> pd.DataFrame:
    """Privacy-loss picture (Thm. 1) on a loss grid: CDFs P(loss <= g) of the kernel Z,
    the paper's mixture (1-W) Z + W (Z + L), and the exact BR-DP loss Gamma (shift D); plus the mass at +inf
    of the exact loss in ``exact_inf``.  Densities follow by differencing (Gamma has atoms for Laplace)."""
    pl = _plan(plan)
    k = _v.integer("n", n, low=2, high=MAX_GRID)
    s, d, th, q = pl.scale, pl.sensitivity, pl.theta, pl.q
    mu = d / s
    big_l = pl.loss if math.isfinite(pl.loss) else 0.0
    if pl.kernel == "gaussian":
        lo, hi = mu * mu / 2 - 5 * mu - big_l, mu * mu / 2 + 5 * mu + big_l
    else:
        lo, hi = -mu - big_l - 0.1 * mu, mu + big_l + 0.1 * mu
    g = np.linspace(lo, hi, k)
    zero_q = _loss_survival(pl.kernel, s, th, 0.0, d, g)  # kernel loss survival (q = 0)
    shifted = _loss_survival(pl.kernel, s, th, 0.0, d, g - pl.loss) if math.isfinite(pl.loss) else np.ones(k)
    exact = _loss_survival(pl.kernel, s, th, q, d, g)
    return pd.DataFrame(
        {
            "loss": g,
            "kernel_cdf": 1 - zero_q,
            "paper_cdf": 1 - ((1 - pl.w) * zero_q + pl.w * shifted),
            "exact_cdf": 1 - exact,
            "exact_inf": float(_loss_survival(pl.kernel, s, th, q, d, np.array([np.inf]))[0]),
        }
    )


_MECHANISMS = ("Lap-DP", "Gau-DP", "Lap-BRDP", "Gau-BRDP", "SMP-Lap-BRDP", "SMP-Gau-BRDP")


def experiment_releases(
    values: Any,
    *,
    query: Literal["sum", "average", "count"],
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    n_releases: int = 1000,
    accountant: Literal["exact", "paper"] = "exact",
    subsampling_mode: Literal["paper", "corrected"] = "paper",
    mechanisms: tuple[str, ...] = _MECHANISMS,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Experiment sandbox (Sec. 8, Figs. 7/8): repeated releases of one query.

    ``values``: one number per record (for ``query="count"`` pass 0/1 indicators of the predicate C).
    Mechanisms: Lap-DP, Gau-DP, Lap-BRDP, Gau-BRDP (plans from :func:`optimize` with ``accountant``) and the
    subsampled SMP-*-BRDP (rate from Alg. 4 with sigma_x / p_c estimated from ``values``; a fresh fixed-size
    subsample per release; Laplace reuses the Gaussian rate, as Alg. 4 is stated for the Gaussian kernel only;
    the SMP rate and the SMP-Gau kernel always come from Alg. 4, i.e. the paper's accountant).  Returns a long
    DataFrame with columns mechanism, release, output, error (output - true answer, the paper's "centred"
    output), in_bound.
    """
    x = _v.real_array("values", values, allow_inf=False).ravel()
    if x.size < 1:
        raise ValueError("values must contain at least one record")
    query = _v.choice("query", query, ("sum", "average", "count"))
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    n_rel = _v.integer("n_releases", n_releases, low=1)
    accountant = _v.choice("accountant", accountant, ("exact", "paper"))
    mode: Literal["paper", "corrected"] = _v.choice("subsampling_mode", subsampling_mode, ("paper", "corrected"))
    mechanisms = tuple(_v.sequence("mechanisms", mechanisms))
    for m in mechanisms:
        _v.choice("mechanisms", m, _MECHANISMS)
    gen = _v.rng(rng)
    n = x.size
    if query == "count":
        x = (x != 0).astype(float)

    def answer(v: np.ndarray) -> float:
        return float(v.mean()) if query == "average" else float(v.sum())

    truth = answer(x)
    frames = []
    sp: SubsamplingPlan | None = None
    for mech in mechanisms:
        kernel: Kernel = "laplace" if "Lap" in mech else "gaussian"
        if mech.endswith("-DP"):
            s = _calibrate(kernel, e, dl, d, "analytic")
            noise = _draw_kernel(kernel, s, n_rel, gen)
            est = np.full(n_rel, truth)
        elif not mech.startswith("SMP"):
            pl = optimize(epsilon=e, delta=dl, sensitivity=d, theta=th, kernel=kernel, accountant=accountant)
            noise = sample_outputs(n_rel, kernel=kernel, scale=pl.scale, theta=th, q=pl.q, rng=gen)
            est = np.full(n_rel, truth)
        else:
            if sp is None:  # the same Alg. 4 plan for both SMP mechanisms: search once
                sp = optimal_sampling_rate(
                    epsilon=e,
                    delta=dl,
                    sensitivity=d,
                    theta=th,
                    n_records=n,
                    query=query,
                    sigma_x=float(np.std(x)),
                    p_c=float(np.mean(x)) if query == "count" else 0.5,
                    mode=mode,
                )
            m_sub = max(1, round(sp.rate * n))
            est = np.empty(n_rel)
            for i in range(n_rel):
                sub = x[gen.choice(n, m_sub, replace=False)] if m_sub < n else x
                est[i] = float(sub.mean()) if query == "average" else float(sub.sum()) * n / m_sub
            if kernel == "gaussian":
                noise = sample_outputs(n_rel, kernel=kernel, scale=sp.sigma_y, theta=th, q=sp.q, rng=gen)
            else:
                pl = optimize(
                    epsilon=sp.epsilon_in,
                    delta=sp.delta_in,
                    sensitivity=sp.kernel_sensitivity,
                    theta=th,
                    kernel="laplace",
                    accountant=accountant,
                )
                noise = sample_outputs(n_rel, kernel=kernel, scale=pl.scale, theta=th, q=pl.q, rng=gen)
        out = est + noise
        frames.append(
            pd.DataFrame(
                {
                    "mechanism": mech,
                    "release": np.arange(n_rel),
                    "output": out,
                    "error": out - truth,
                    "in_bound": np.abs(out - truth) <= th,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def compare_accountants(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
) -> pd.DataFrame:
    """ "Paper vs exact" audit: one row per plan (paper Alg. 2, exact optimum, plain DP).

    Columns: plan, epsilon_y, q, acceptance, paper_delta, exact_delta, ratio (exact / target delta) and status
    ("sound" if exact delta <= target, else "anti-conservative").
    """
    kw: dict[str, Any] = dict(
        epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta, kernel=kernel, calibration=calibration
    )
    paper = optimize(accountant="paper", **kw)
    exact = optimize(accountant="exact", **kw)
    dp = make_plan(epsilon_y=epsilon, q=0.0, **kw)
    rows = []
    for name, pl in (("paper (Alg. 2 + Alg. 1)", paper), ("exact optimum", exact), ("plain DP kernel", dp)):
        rows.append(
            {
                "plan": name,
                "epsilon_y": pl.epsilon_y,
                "q": pl.q,
                "acceptance": pl.acceptance,
                "paper_delta": pl.paper_delta,
                "exact_delta": pl.exact_delta,
                "ratio": pl.exact_delta / pl.delta,
                "status": "sound" if pl.sound else "anti-conservative",
            }
        )
    return pd.DataFrame(rows)
