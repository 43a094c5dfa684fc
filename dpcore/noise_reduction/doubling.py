"""The doubling baseline: fresh Gaussian releases with the squared level doubled each time, all paid.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Section 7.1 (after Ligett et al. 2017): levels
ε_{i+1} = √2·ε_i, each attempt charged ρ_i = ε_i²/2 by the zCDP filter of Thm 2, so the total
Σ ε_i² is at most 4·ε*² where ε* is the level an oracle would have stopped at.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpcore import _validate as _v
from dpcore._exact import _two_prod
from dpcore.noise_reduction.stopping_rule import _stop_scalar

__all__ = ["DoublingRelease", "doubling_levels", "doubling_release"]


@dataclass(frozen=True)
class DoublingRelease:
    """Outcome of the doubling baseline: every attempt is an independent Gaussian release, all paid.

    ``epsilons`` are the levels tried (ε² doubles, the last one possibly capped), ``releases`` the
    independent draws, ``charge`` = Σ ε_i²/2 (zCDP ρ of all attempts), ``accepted`` whether the
    relative-error rule fired (else the last draw is discarded).
    """

    release: float
    epsilon_stop: float
    attempts: int
    accepted: bool
    charge: float
    epsilons: np.ndarray
    releases: np.ndarray


def doubling_levels(epsilon_start: float, epsilon_max: float) -> np.ndarray:
    """Doubling schedule ε_{i+1} = √2·ε_i from ``epsilon_start``, the last level capped at ``epsilon_max``.

    Section 7.1 ("doubling the square"); the final level is min(next, ε_max) (the paper leaves the cap open).
    """
    e0 = _v.scale("epsilon_start", epsilon_start)
    em = _v.scale("epsilon_max", epsilon_max)
    if em < e0:
        raise ValueError(f"epsilon_max must be >= epsilon_start = {e0:g}, got {em:g}")
    s0, sm = e0 * e0, em * em
    levels = []
    s = s0
    while s < sm * (1 - 1e-12):
        levels.append(s)
        s *= 2.0
    levels.append(sm)
    return np.sqrt(np.asarray(levels))


def _level_within(use: float) -> float:
    """The largest float ε with ε² ≤ ``use`` exactly: the attempt is charged ``use``/2, and a correctly rounded
    √use can be an ulp above the real root, so its cost ε²/2 would exceed the charge."""
    e = math.sqrt(use)
    while True:  # e·e = p + err exactly (Dekker): e² > use iff p > use, or p = use and err > 0
        p, err = _two_prod(e, e)
        if p < use or (p == use and err <= 0.0):
            return e
        e = math.nextafter(e, 0.0)


def _doubling_run(
    y: float,
    alpha: float,
    s_start: float,
    s_cap: float,
    rho_avail: float,
    sens: float,
    gen: np.random.Generator,
    charge: Callable[[float], object] | None = None,
    left: Callable[[], float] | None = None,
) -> tuple[float, bool, list[float], list[float]]:
    """Doubling loop (Section 7.1): attempt levels until the rule fires, the cap or the budget is hit.

    ``left``: what the charging filter has left (rounded down); the last level is then sized from it, so its charge
    fits the filter exactly (``rho_avail − spent`` in floats can be an ulp over)."""
    s = s_start
    spent = 0.0
    levels: list[float] = []
    draws: list[float] = []
    ok = False
    while True:
        cap = min(s_cap, 2.0 * (rho_avail - spent if left is None else min(rho_avail - spent, left())))
        if cap <= 1e-15 * max(1.0, s_cap if math.isfinite(s_cap) else 1.0):
            break
        last = s >= cap * (1 - 1e-12)
        use = min(s, cap)
        if charge is not None:
            charge(use / 2.0)
        spent += use / 2.0
        e = _level_within(use)
        yhat = y + sens * float(gen.standard_normal()) / e
        levels.append(e)
        draws.append(yhat)
        if _stop_scalar(yhat, sens / e, alpha):
            ok = True
            break
        if last:
            break
        s *= 2.0
    return spent, ok, levels, draws


def doubling_release(
    value: float,
    *,
    alpha: float,
    epsilon_start: float,
    epsilon_max: float,
    sensitivity: float = 1.0,
    rho_budget: float | None = None,
    rng: np.random.Generator | int | None = None,
) -> DoublingRelease:
    """Doubling baseline (Section 7.1): fresh Gaussian N(y, Δ²/ε_i²) with ε_i² doubling, all paid.

    Stops at the first attempt satisfying :func:`relative_error_stop`; the last level is capped at
    ``epsilon_max`` and a failure there is discarded. If ``rho_budget`` is given, each attempt is also
    capped so that the total charge Σ ε_i²/2 never exceeds it (a failure at the cap is discarded). Total
    Σ ε_i² < 2 ε_m² ≤ 4 ε*² when uncapped.
    """
    y = _v.real("value", value)
    a = _v.positive("alpha", alpha)
    e0 = _v.scale("epsilon_start", epsilon_start)
    em = _v.scale("epsilon_max", epsilon_max)
    if em < e0:
        raise ValueError(f"epsilon_max must be >= epsilon_start = {e0:g}, got {em:g}")
    sens = _v.scale("sensitivity", sensitivity)
    rb = math.inf if rho_budget is None else _v.positive("rho_budget", rho_budget)
    gen = _v.rng(rng)
    spent, ok, levels, draws = _doubling_run(y, a, e0 * e0, em * em, rb, sens, gen)
    if not levels:  # pragma: no cover - rho_budget > 0 always allows one attempt
        raise ValueError("rho_budget is too small for a single attempt")
    return DoublingRelease(
        release=draws[-1],
        epsilon_stop=levels[-1],
        attempts=len(levels),
        accepted=ok,
        charge=spent,
        epsilons=np.asarray(levels),
        releases=np.asarray(draws),
    )
