"""BR-DP's privacy (Jiang et al. 2024): the privacy profile δ(ε) (Prop. 3), the privacy-loss picture (Thm. 1) and
composition over T releases (Thm. 3, Fig. 5) under the paper's and the exact accountant."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.brdp.plans import PlanKey, build_plan, plan
from dpcore import brdp

COMPOSITION_INTERVAL = 5e-4  # PLD loss grid of the drawn exact composition curve (ε_T within ~T·h/2)


def profile_grid(epsilon: float) -> np.ndarray:
    """ε′ grid of the privacy-profile chart: −0.25 … max(2ε, ε + 1.5), the region around the target ε."""
    return np.linspace(-0.25, max(2.0 * epsilon, epsilon + 1.5), 160)


@cached
def profile(key: PlanKey) -> pd.DataFrame:
    """Privacy profiles δ(ε′) of the plan: kernel, paper (Prop. 2), exact BR-DP, plain DP."""
    return brdp.privacy_profile(profile_grid(key[0]), plan=plan(key))


class LossPicture(NamedTuple):
    """The privacy loss's density per unit loss for each model, and the exact loss's mass at +∞."""

    bins: pd.DataFrame  # loss_left, loss_right, kernel, paper, exact
    mass_at_infinity: float


@cached
def loss(key: PlanKey) -> LossPicture:
    """Privacy-loss picture (Thm. 1): probability of each loss bin for the kernel Z, the
    paper's mixture (1 − W) Z + W (Z + L) and the exact BR-DP loss Γ (density per unit loss, from the CDFs by
    differencing); and the
    exact loss's mass at +∞."""
    cdf = brdp.loss_distribution(plan(key), n=301)
    g = cdf["loss"].to_numpy()
    out = pd.DataFrame({"loss_left": g[:-1], "loss_right": g[1:]})
    for col in ("kernel", "paper", "exact"):
        out[col] = np.maximum(np.diff(cdf[f"{col}_cdf"].to_numpy()), 0.0) / np.diff(g)
    return LossPicture(out, float(cdf["exact_inf"].iloc[0]))


def composition_range(compositions: int) -> int:
    """The composition chart spans T = 1 … max(100, 10·T), capped at 1000 (as on the baselines page)."""
    return int(min(1000, max(100, 10 * compositions)))


class Composition(NamedTuple):
    """ε after T releases under each accountant, and ε_T against T."""

    totals: dict[str, float]  # accountant ("paper", "exact", "dp") → ε
    curve: pd.DataFrame


def composition(key: PlanKey, compositions: int, plan: brdp.BRDPPlan | None = None) -> Composition:
    """Panel 8 (Fig. 5 at your settings), a background job (:mod:`app.background`): ε after exactly T releases at the
    plan's δ under each accountant (exact PLD on the default grid), and ε_T against T = 1 … composition_range(T)
    on :data:`COMPOSITION_INTERVAL` (Thm. 3 (paper), exact BR-DP PLD, plain DP). ``plan``: the plan of ``key``
    (:func:`plan`) when the caller has it, so the job does not optimise it again."""
    p = build_plan(key) if plan is None else plan
    totals = {
        acct: brdp.composed_epsilon(p.delta, compositions=compositions, plan=p, accountant=acct)
        for acct in ("paper", "exact", "dp")
    }
    ts = np.unique(np.round(np.geomspace(1, composition_range(compositions), 12)).astype(int))
    curve = brdp.composition_curve(ts, plan=p, value_discretization_interval=COMPOSITION_INTERVAL)
    return Composition(totals, curve)


def remarks(key: PlanKey, compositions: int, totals: dict[str, float]) -> pd.DataFrame:
    """Remarks 3–4 (basic and advanced composition) beside the exact composition after T releases. Basic (Remark 3)
    adds up each release's (ε, δ₁), δ₁ the plan's exact δ at ε. Advanced (Remark 4, with the total δ it really
    spends) needs each release's δ small against the target: it takes each release at (ε′, δ/(2T)), ε′ from the
    plan's exact privacy profile, and spends δ/2 as its slack δ′, so its total δ is the target δ. Columns:
    accountant, ε after T, total δ."""
    p = plan(key)
    basic = brdp.basic_composition(p.epsilon, p.exact_delta, compositions=compositions)
    d_each = p.delta / (2 * compositions)
    e_each = brdp.composed_epsilon(d_each, compositions=1, plan=p)  # exact (pessimistic) PLD of one release
    if math.isfinite(e_each):
        adv = brdp.advanced_composition(e_each, d_each, compositions=compositions, delta_slack=p.delta / 2)
    else:  # no finite ε reaches δ/(2T) for one release (a plan that is not private at its δ): no bound at all
        adv = (math.inf, p.delta)
    return pd.DataFrame(
        [
            {"accountant": "exact (PLD of the whole mechanism)", "ε after T": totals["exact"], "total δ": p.delta},
            {"accountant": "Thm 3 (the paper's accountant)", "ε after T": totals["paper"], "total δ": p.delta},
            {"accountant": "Remark 3: basic, T·ε", "ε after T": basic[0], "total δ": basic[1]},
            {"accountant": "Remark 4: advanced", "ε after T": adv[0], "total δ": adv[1]},
        ]
    )
