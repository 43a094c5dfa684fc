"""The noise levels every chart of the noise-reduction page uses: the unified filter's budget ρ* (Rogers et al.
2023, Thm 6), why no count can be released when it is too small, and the ε grid up to √(2ρ*) (Section 7.2)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.compute._cache import cached
from app.notation import number
from dpcore import filters as fl

EPS2_MIN = 1e-4  # smallest noise level ε²_min of every grid (Section 7.2: (ε^(1))² = 0.0001)


@dataclass(frozen=True)
class Budget:
    """The unified filter's zCDP budget ρ*, its Σε² form 2ρ*, the top noise level √(2ρ*), both constants' ρ*."""

    rho: float
    eps2_budget: float
    epsilon_max: float
    corrected: float
    as_printed: float


@cached
def budget(epsilon: float, delta: float, variant: str) -> Budget:
    """ρ* of the unified filter (Thm 6; ``variant`` picks the constant its proof gives or the printed one)."""
    rho = float(fl.rho_budget(epsilon, delta, variant=variant))
    return Budget(
        rho=rho,
        eps2_budget=2.0 * rho,
        epsilon_max=math.sqrt(2.0 * rho),
        corrected=float(fl.rho_budget(epsilon, delta)),
        as_printed=float(fl.rho_budget(epsilon, delta, variant="as_printed")),
    )


@dataclass(frozen=True)
class Shortfall:
    """Why no count can be released: the top level ε_max is below the grid's first level ε_min; the ε that suffices."""

    epsilon_max: float
    epsilon_min: float
    epsilon_needed: float


@cached
def shortfall(epsilon: float, delta: float, variant: str) -> Shortfall | None:
    """None when the budget reaches the grid's first level ε_min; else why not and the smallest ε that does.

    A valid but infeasible combination (e.g. ε = 0.025 at δ = 1e-6): ε_max = √(2ρ*) < ε_min, no count can be released.
    The smallest sufficient ε is the filter's ε for ρ = ε²_min/2 (Thm 6, ``fl.zcdp_epsilon``).
    """
    top = budget(epsilon, delta, variant).epsilon_max
    eps_min = math.sqrt(EPS2_MIN)
    if top > eps_min * (1 + 1e-9):
        return None
    need = float(fl.zcdp_epsilon(EPS2_MIN / 2.0, delta, variant=variant))
    return Shortfall(epsilon_max=top, epsilon_min=eps_min, epsilon_needed=need)


def make_grid(epsilon_max: float, levels: int, spacing: str) -> np.ndarray:
    """Noise levels from ε_min = √EPS2_MIN to ``epsilon_max``, evenly spaced in ε² ("linear", Sec. 7.2) or geometric."""
    eps_min = math.sqrt(EPS2_MIN)
    if not epsilon_max > eps_min * (1 + 1e-9):
        raise ValueError(
            f"epsilon: the budget allows noise levels up to ε = {number(epsilon_max, 3)} only, not above the "
            f"first level ε_min = {number(eps_min)} (ε²_min = {number(EPS2_MIN)}, Section 7.2): no count can "
            "be released. Raise ε or δ."
        )
    if levels < 2:
        return np.array([epsilon_max])
    if spacing == "linear":
        return np.sqrt(np.linspace(EPS2_MIN, epsilon_max**2, levels))
    return np.geomspace(eps_min, epsilon_max, levels)


@cached
def grid(epsilon: float, delta: float, variant: str, levels: int, spacing: str) -> np.ndarray:
    """The page's ε grid: its top level uses the whole budget, ε_max²/2 = ρ*."""
    return make_grid(budget(epsilon, delta, variant).epsilon_max, levels, spacing)
