"""The sidebar's mixing law (Mohammady et al. 2020): its key of scalars, the law itself, its exact ε (Cor. 3.3)
and usefulness next to the baselines, and the best law of one family (Algorithm 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from app.catalogue import get
from app.compute._cache import cached
from app.notation import number
from dpcore import r2dp

LawKey = tuple[Any, ...]


@dataclass(frozen=True)
class Headline:
    """The sidebar law's numbers next to the baselines at the same ε (:func:`headline`)."""

    law: str  # a short description of the law's parameters
    epsilon: float  # its exact ε (Cor. 3.3)
    usefulness: float  # its U(γ) = 1 − M(−γ)
    ratio: float  # U / U_Laplace at the budget ε
    over_budget: bool  # exact ε above the budget (lock ε off)
    necessary: float  # ln M(+Δq): beating Laplace needs ε below it (Thm 4.2)
    laplace: float
    two_point: float  # the best R²DP law of all
    staircase: float  # the best ε-DP additive noise of all
    cap: float  # γ e^(ε−1)/Δq, above every R²DP law


@dataclass(frozen=True)
class Optimum:
    """Algorithm 1 for one family (:func:`optimum`)."""

    law: r2dp.MixingLaw  # the law to use: the family optimum or Laplace, whichever is better
    family_law: r2dp.MixingLaw  # the best law inside the family
    usefulness: float
    laplace: float
    laplace_optimal: bool
    ratio: float
    epsilon: float


@dataclass(frozen=True)
class GammaPoint:
    """Shape ν (``k``) and scale s (``theta``) of a Gamma mixing law."""

    k: float
    theta: float


#: The family controls' defaults (app.catalogue): a law's parameters where a caller leaves them out.
_DEFAULT = {
    key: float(get(key).default) for key in ("shape", "gscale", "ulo", "uhi", "nmu", "nsigma", "ncut", "u0", "u1", "p0")
}


def law_key(
    family: str,
    *,
    lock: bool,
    epsilon: float,
    sensitivity: float,
    k: float = _DEFAULT["shape"],
    theta: float = _DEFAULT["gscale"],
    a: float = _DEFAULT["ulo"],
    b: float = _DEFAULT["uhi"],
    mu: float = _DEFAULT["nmu"],
    sigma: float = _DEFAULT["nsigma"],
    low: float = _DEFAULT["ncut"],
    u0: float = _DEFAULT["u0"],
    u1: float = _DEFAULT["u1"],
    p: float = _DEFAULT["p0"],
) -> LawKey:
    """The scalars that define the sidebar's law (only those that matter, so unrelated sliders keep cache hits); a
    family parameter not given is at its control's default."""
    budget = (epsilon, sensitivity) if lock else (None, None)
    shape: dict[str, tuple] = {
        "laplace": () if lock else (u0,),
        "two_point": (u0, u1) if lock else (u0, u1, p),
        "gamma": (k,) if lock else (k, theta),
        "uniform": (a, b),
        "truncnorm": (mu, sigma, low),
        "combo": (k, theta, mu, sigma, low),
    }
    return (family, lock, *budget, *shape[family])


@cached
def make_law(key: LawKey) -> r2dp.MixingLaw:
    """The mixing law of a :func:`law_key`; with lock ε on, its scale (or p) is solved so the exact ε = slider ε.

    Locking: Laplace u = ε/Δq; two-point p from :func:`dpcore.r2dp.two_point_for_epsilon`; Gamma θ from
    :func:`dpcore.r2dp.gamma_theta_for_epsilon`; Uniform, truncated normal and Gamma+TN keep their shape and are
    rescaled (:func:`dpcore.r2dp.scale_for_epsilon`). Invalid parameters raise dpcore's ``ValueError`` (never cached).
    """
    family, lock, eps, sens, *par = key
    if family == "laplace":
        return r2dp.Dirac(eps / sens) if lock else r2dp.Dirac(par[0])
    if family == "two_point":
        if lock:
            return r2dp.two_point_for_epsilon(par[0], par[1], epsilon=eps, sensitivity=sens)
        return r2dp.TwoPoint(*par)
    if family == "gamma":
        if lock:
            return r2dp.Gamma(par[0], float(r2dp.gamma_theta_for_epsilon(par[0], epsilon=eps, sensitivity=sens)))
        return r2dp.Gamma(*par)
    if family == "uniform":
        law: r2dp.MixingLaw = r2dp.Uniform(*par)
    elif family == "truncnorm":
        law = r2dp.TruncatedNormal(*par)
    else:
        law = r2dp.Combination((r2dp.Gamma(par[0], par[1]), r2dp.TruncatedNormal(*par[2:])))
    return r2dp.scale_for_epsilon(law, eps, sensitivity=sens) if lock else law


def describe(law: r2dp.MixingLaw) -> str:
    """A short text of the law's parameters (shown under the headline numbers)."""
    if isinstance(law, r2dp.Dirac):
        return f"no randomness: u = {number(law.u, 4)} always (plain Laplace with b = {number(1 / law.u, 4)})"
    if isinstance(law, r2dp.TwoPoint):
        return (
            f"two-point: u₀ = {number(law.u0, 4)} with probability p₀ = {number(law.p, 4)}, u₁ = "
            f"{number(law.u1, 4)} with probability {number(1 - law.p, 4)}"
        )
    if isinstance(law, r2dp.Gamma):
        return f"Gamma: shape ν = {number(law.k, 4)}, scale s = {number(law.theta, 4)}"
    if isinstance(law, r2dp.Uniform):
        return f"Uniform: u from uₗ = {number(law.a, 4)} to uₕ = {number(law.b, 4)}"
    if isinstance(law, r2dp.TruncatedNormal):
        return (
            f"truncated normal: μₙ = {number(law.mu, 4)}, σₙ = {number(law.sigma, 4)}, cut at ℓ = {number(law.low, 4)}"
        )
    assert isinstance(law, r2dp.Combination)  # the only family left
    parts = " + ".join(f"{number(c, 4)}·[{describe(x)}]" for x, c in zip(law.laws, law.coefficients, strict=True))
    return f"sum: {parts}"


@cached
def headline(key: LawKey, epsilon: float, gamma: float, sensitivity: float) -> Headline:
    """Exact ε and U(γ) of the law, ln M(Δq) (Thm 4.2), and the Laplace / two-point optimum / staircase / cap at ε."""
    law = make_law(key)
    best = optimum(epsilon, gamma, sensitivity, "two_point")
    useful = float(r2dp.usefulness(law, gamma=gamma))
    eps_law = r2dp.epsilon(law, sensitivity=sensitivity)
    return Headline(
        law=describe(law),
        epsilon=eps_law,
        usefulness=useful,
        ratio=useful / best.laplace,
        over_budget=eps_law > epsilon * (1 + 1e-9),
        necessary=r2dp.necessary_condition(law, sensitivity=sensitivity),
        laplace=best.laplace,
        two_point=best.usefulness,
        staircase=float(r2dp.staircase_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity)),
        cap=float(r2dp.universal_cap(epsilon, gamma=gamma, sensitivity=sensitivity)),
    )


@cached
def optimum(epsilon: float, gamma: float, sensitivity: float, family: str) -> Optimum:
    """Algorithm 1 for one family (an id of :data:`app.catalogue.r2dp.FAMILY`): the law used, its U, Laplace's U and
    whether Laplace is optimal."""
    res = r2dp.optimize(epsilon=epsilon, gamma=gamma, sensitivity=sensitivity, family=family)
    return Optimum(
        law=res.law,
        family_law=res.family_law,
        usefulness=res.usefulness,
        laplace=res.laplace_usefulness,
        laplace_optimal=res.laplace_optimal,
        ratio=res.ratio,
        epsilon=res.epsilon,
    )


@cached
def staircase(epsilon: float, gamma: float, sensitivity: float) -> float:
    """U of the optimal staircase (r* = frac(γ/Δq), Geng & Viswanath 2016): the best any ε-DP additive noise can do."""
    return float(r2dp.staircase_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity))


def gamma_point(key: LawKey) -> GammaPoint | None:
    """Shape and scale of the law when it is a Gamma law (the marker of the landscape), else None."""
    law = make_law(key)
    return GammaPoint(law.k, law.theta) if isinstance(law, r2dp.Gamma) else None


class RelativeAtoms(NamedTuple):
    """Two values of u as multiples of u* = ε/Δq (the Laplace inverse scale)."""

    u0: float
    u1: float


def relative_atoms(law: r2dp.MixingLaw, epsilon: float, sensitivity: float) -> RelativeAtoms | None:
    """Atoms (smaller, larger) of a two-point law divided by u* = ε/Δq, None for a Dirac law."""
    if not isinstance(law, r2dp.TwoPoint):
        return None
    return relative(min(law.u0, law.u1), max(law.u0, law.u1), epsilon, sensitivity)


def normalised(gamma: float, sensitivity: float) -> float:
    """g = γ/Δq, the normalised tolerance every result depends on (scaling u by c and Δq, γ by 1/c changes neither ε
    nor U)."""
    return gamma / sensitivity


def ustar(epsilon: float, sensitivity: float) -> float:
    """u* = ε/Δq, the inverse scale of the ε-DP Laplace baseline."""
    return epsilon / sensitivity


def relative(u0: float, u1: float, epsilon: float, sensitivity: float) -> RelativeAtoms:
    """u0/u* and u1/u* with u* = ε/Δq, the Laplace inverse scale."""
    return RelativeAtoms(u0 / ustar(epsilon, sensitivity), u1 / ustar(epsilon, sensitivity))
