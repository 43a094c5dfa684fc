"""The BR-DP page's plan (Jiang et al. 2024): the scalars that fix a configuration, its budget split and recycling
probability from the optimiser (Alg. 2) or as set, and the audit of the optimum under both accountants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

import pandas as pd

from app.compute._cache import cached
from dpcore import brdp

Accountant = Literal["exact", "paper"]
Calibration = Literal["analytic", "classic"]
Query = Literal["sum", "average", "count"]
Mode = Literal["paper", "corrected"]  # subsampling: Alg. 4 as printed, or with the sensitivity Δ_f/p


class PlanKey(NamedTuple):
    """The scalars that fix the page's BR-DP configuration.

    ``share`` (ε_y / ε) and ``q`` are None unless the reader sets them: then ε_y comes from the optimiser and q
    from the optimiser (share None) or Alg. 1 (share set). ``delta_y`` is the kernel's own δ (Alg. 1's input δ_y);
    None uses δ_y = δ, as the paper's figures do.
    """

    epsilon: float
    delta: float
    sensitivity: float
    theta: float
    kernel: brdp.Kernel
    accountant: Accountant = "exact"
    calibration: Calibration = "analytic"
    share: float | None = None
    q: float | None = None
    delta_y: float | None = None


@cached(show_spinner="Optimising the budget split …")
def optimal_plan(
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    kernel: brdp.Kernel,
    accountant: Accountant,
    calibration: Calibration,
    delta_y: float | None = None,
) -> brdp.BRDPPlan:
    """The optimiser's plan: Alg. 2 + Alg. 1 (paper) or the exact optimiser, the kernel at δ_y (δ when None)."""
    return brdp.optimize(
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        theta=theta,
        kernel=kernel,
        accountant=accountant,
        calibration=calibration,
        delta_y=delta_y,
    )


def build_plan(key: PlanKey, optimum: Callable[..., brdp.BRDPPlan] = optimal_plan.__wrapped__) -> brdp.BRDPPlan:
    """The plan the page shows: the optimum, or ε_y = share·ε and/or a hand-set q (``make_plan``).

    ``optimum`` computes Alg. 2 / the exact optimiser: uncached by default (background jobs run outside Streamlit),
    the cached :func:`optimal_plan` in :func:`plan`.
    """
    k = PlanKey(*key)
    opt = (k.epsilon, k.delta, k.sensitivity, k.theta, k.kernel, k.accountant, k.calibration, k.delta_y)
    if k.share is None and k.q is None:
        return optimum(*opt)
    ey = optimum(*opt).epsilon_y if k.share is None else k.share * k.epsilon
    return brdp.make_plan(
        epsilon=k.epsilon,
        delta=k.delta,
        sensitivity=k.sensitivity,
        theta=k.theta,
        kernel=k.kernel,
        epsilon_y=ey,
        q=k.q,
        calibration=k.calibration,
        delta_y=k.delta_y,
    )


@cached
def plan(key: PlanKey) -> brdp.BRDPPlan:
    """:func:`build_plan` with the optimum from the shared cache."""
    return build_plan(key, optimal_plan)


def audit(key: PlanKey) -> pd.DataFrame:
    """ "Paper vs exact" audit: the paper's Alg. 2 plan, the exact optimum, plain DP and the
    page's plan, each with its δ under both accountants and its status against the target δ.

    Two optimisations and two plans (too slow for a rerun on a new setting; bench/results-where-time-goes.md): the
    page runs it as a background job. The
    page's plan reuses whichever optimum it is built on (each optimisation runs once)."""
    k = PlanKey(*key)
    args = (k.epsilon, k.delta, k.sensitivity, k.theta, k.kernel)
    optima: dict[tuple, brdp.BRDPPlan] = {}

    def optimum(*a) -> brdp.BRDPPlan:
        if a not in optima:
            optima[a] = optimal_plan.__wrapped__(*a)
        return optima[a]

    plans = {
        "paper (Alg. 2 + Alg. 1)": optimum(*args, "paper", k.calibration, k.delta_y),
        "exact optimum": optimum(*args, "exact", k.calibration, k.delta_y),
        "plain DP kernel (q = 0)": build_plan(PlanKey(*args, calibration=k.calibration, share=1.0, q=0.0)),
        "this page's plan": build_plan(k, optimum),
    }
    return pd.DataFrame(
        [
            {
                "plan": name,
                "ε_y": p.epsilon_y,
                "q": p.q,
                "acceptance": p.acceptance,
                "paper δ(ε)": p.paper_delta,
                "exact δ(ε)": p.exact_delta,
                "exact δ / target": p.exact_delta / p.delta,
                "status": "sound" if p.sound else "NOT (ε, δ)-DP",
            }
            for name, p in plans.items()
        ]
    )
