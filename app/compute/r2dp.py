"""Cached tables for the R²DP page and lesson (Mohammady et al. 2020), all by calling :mod:`dpcore.r2dp`.

A mixing law is passed between cached functions as a *law key*: a tuple of scalars (family, lock, ε, Δq and the
family's own parameters) built by :func:`law_key`, so the cache keys on scalars only. Panels whose content depends
only on (ε, γ/Δq) use Δq = 1 and γ/Δq (scaling u by c and Δq, γ by 1/c changes neither ε nor U), so moving Δq and γ
together re-uses them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.notation import number
from dpcore import r2dp

#: Sidebar family value → dpcore family used by :func:`dpcore.r2dp.optimize` (combo = Algorithm 1's Gamma + truncated
#: normal).
OPT_FAMILY = {"laplace": "laplace", "two_point": "two_point", "gamma": "gamma", "uniform": "uniform",
              "truncnorm": "truncated_normal", "combo": "gamma+truncated_normal"}
#: Families drawn in the usefulness curves , in legend order (Algorithm 1's Gamma + truncated normal is the slowest
#: optimum, bench/results-where-time-goes.md).
CURVE_FAMILIES = ("two_point", "gamma", "uniform", "truncated_normal", "gamma+truncated_normal")
MC_SAMPLES = 20_000
#: Draws behind the noise histogram after the "sample 10⁵" button .
BIG_SAMPLES = 100_000
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
class PaperVsExact:
    """A number as the paper prints it and the exact one (and, where computed, a brute-force check)."""

    as_printed: float
    exact: float
    brute_force: float = math.nan


@dataclass(frozen=True)
class LemmaCheck:
    """Lemma 4.10 as printed and exact."""

    eps_printed: float
    eps_exact: float
    lnM_printed: float
    lnM_exact: float


@dataclass(frozen=True)
class HeadlinePercentages:
    """The paper's two headline numbers at ε = 10, Δq = 1, γ = 0.05."""

    uniform_of_laplace: float  # Uniform optimum as % of Laplace (the abstract's "230 %")
    gamma_improvement: float  # Gamma optimum's gain over Laplace in % (Fig. 5's "up to 125 %")
    laplace: float


@dataclass(frozen=True)
class GammaPoint:
    """Shape ν (``k``) and scale s (``theta``) of a Gamma mixing law."""

    k: float
    theta: float


@dataclass(frozen=True)
class GaussianCalibration:
    """Thm A.2–A.3 at one (ε, δ), Δq = 1."""

    kappa: float  # σ = κ Δq
    delta_printed: float  # the δ the calibration claims
    delta_exact: float  # the exact δ of the Gaussian at that σ
    usefulness: float  # 1 − 2Q(γ/σ)


# --------------------------------------------------------------------------------------------------------------
# the current law
# --------------------------------------------------------------------------------------------------------------


def law_key(family: str, *, lock: bool, epsilon: float, sensitivity: float, k: float, theta: float, a: float,
            b: float, mu: float, sigma: float, low: float, u0: float, u1: float, p: float) -> LawKey:
    """The scalars that define the sidebar's law (only those that matter, so unrelated sliders keep cache hits)."""
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
        return (f"two-point: u₀ = {number(law.u0, 4)} with probability p₀ = {number(law.p, 4)}, u₁ = "
                f"{number(law.u1, 4)} with probability {number(1 - law.p, 4)}")
    if isinstance(law, r2dp.Gamma):
        return f"Gamma: shape ν = {number(law.k, 4)}, scale s = {number(law.theta, 4)}"
    if isinstance(law, r2dp.Uniform):
        return f"Uniform: u from uₗ = {number(law.a, 4)} to uₕ = {number(law.b, 4)}"
    if isinstance(law, r2dp.TruncatedNormal):
        return (f"truncated normal: μₙ = {number(law.mu, 4)}, σₙ = {number(law.sigma, 4)}, cut at "
                f"ℓ = {number(law.low, 4)}")
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
    """Algorithm 1 for one dpcore family: the law used, its U, Laplace's U and whether Laplace is optimal."""
    res = r2dp.optimize(epsilon=epsilon, gamma=gamma, sensitivity=sensitivity, family=family)
    return Optimum(law=res.law, family_law=res.family_law, usefulness=res.usefulness, laplace=res.laplace_usefulness,
                   laplace_optimal=res.laplace_optimal, ratio=res.ratio, epsilon=res.epsilon)


@cached
def staircase(epsilon: float, gamma: float, sensitivity: float) -> float:
    """U of the optimal staircase (r* = frac(γ/Δq), Geng & Viswanath 2016): the best any ε-DP additive noise can do."""
    return float(r2dp.staircase_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity))


def gamma_point(key: LawKey) -> GammaPoint | None:
    """Shape and scale of the law when it is a Gamma law (the marker of the landscape), else None."""
    law = make_law(key)
    return GammaPoint(law.k, law.theta) if isinstance(law, r2dp.Gamma) else None


def relative_atoms(law: r2dp.MixingLaw, epsilon: float, sensitivity: float) -> tuple[float, float] | None:
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


def relative(u0: float, u1: float, epsilon: float, sensitivity: float) -> tuple[float, float]:
    """(u0/u*, u1/u*) with u* = ε/Δq, the Laplace inverse scale."""
    return u0 / ustar(epsilon, sensitivity), u1 / ustar(epsilon, sensitivity)


# --------------------------------------------------------------------------------------------------------------
# panels 1–4: the law, its noise, its privacy loss, its MGF
# --------------------------------------------------------------------------------------------------------------


@cached
def mixing_law(key: LawKey, epsilon: float, sensitivity: float, seed: int, as_scale: bool = False) -> pd.DataFrame:
    """Density (or pmf) of u = 1/b — or, with ``as_scale``, of the Laplace scale b = 1/u — on a grid covering
    99.5 % (b: 99 %) of the law and the Laplace value u* = ε/Δq (b* = Δq/ε).

    Columns: x (u or b), density, kind ("pdf", "pmf" or "histogram" — the Gamma+TN density is a sampled histogram,
    its convolution integral being too slow for an interactive page).
    """
    law = make_law(key)
    if law.discrete:
        atoms, probs = law.atoms
        x = 1.0 / np.asarray(atoms) if as_scale else np.asarray(atoms)
        return pd.DataFrame({"x": x, "density": probs, "kind": "pmf"})
    draws = law.sample(MC_SAMPLES, np.random.default_rng(seed))
    if as_scale:
        draws = 1.0 / draws
        top = max(float(np.quantile(draws, 0.99)), 1.5 * sensitivity / epsilon)
    else:
        top = max(float(np.quantile(draws, 0.995)), 1.5 * epsilon / sensitivity)
    if isinstance(law, r2dp.Combination):
        counts, edges = np.histogram(draws, bins=80, range=(0.0, top))
        return pd.DataFrame({"x": (edges[:-1] + edges[1:]) / 2, "density": counts / (draws.size * np.diff(edges)),
                             "kind": "histogram"})
    x = np.linspace(top / 200, top, 200)
    return pd.DataFrame({"x": x, "density": r2dp.scale_pdf(law, x) if as_scale else law.pdf(x), "kind": "pdf"})


@cached
def noise(key: LawKey, epsilon: float, gamma: float, sensitivity: float, seed: int,
          samples: int = MC_SAMPLES) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """Noise densities (R²DP, Laplace(Δq/ε), optimal staircase), a seeded histogram of ``samples`` draws and the
    sampled share within ±γ ("sample 10⁵" sets ``samples`` = :data:`BIG_SAMPLES`).

    Window: |w| ≤ min(5Δq, max(3γ, 8Δq/ε)) — ±5Δq, narrowed at large ε where all the mass is near 0.

    The histogram's densities are normalised by all draws, so bars outside the window are simply not shown.
    """
    law = make_law(key)
    half = min(5.0, max(3 * gamma / sensitivity, 8.0 / epsilon)) * sensitivity
    w = np.linspace(-half, half, 401)
    r_star = r2dp.staircase_optimal_r(epsilon, gamma=gamma, sensitivity=sensitivity)
    dens = pd.DataFrame({
        "w": w,
        "r2dp": r2dp.noise_density(w, law),
        "laplace": r2dp.noise_density(w, r2dp.Dirac(epsilon / sensitivity)),
        "staircase": r2dp.staircase_density(w, epsilon, sensitivity=sensitivity, r=r_star),
    })
    draws = r2dp.sample_noise(samples, law, np.random.default_rng(seed))
    counts, edges = np.histogram(draws, bins=100, range=(-half, half))
    hist = pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "count": counts,
                         "empirical_density": counts / (draws.size * np.diff(edges))})
    return dens, hist, float(np.mean(np.abs(draws) <= gamma))


@cached
def loss_profile(key: LawKey, epsilon: float, sensitivity: float) -> pd.DataFrame:
    """Privacy-loss profile L(y) = ln f(y) − ln f(y − Δq) of the law and of Laplace at ε (Thm 3.2, Cor. 3.3)."""
    law = make_law(key)
    y = np.linspace(-3 * sensitivity, 4 * sensitivity, 351)
    return pd.DataFrame({
        "y": y,
        "r2dp": r2dp.privacy_loss(y, law, sensitivity=sensitivity),
        "laplace": r2dp.privacy_loss(y, r2dp.Dirac(epsilon / sensitivity), sensitivity=sensitivity),
    })


@cached
def mgf_view(key: LawKey, gamma: float, sensitivity: float) -> pd.DataFrame:
    """M(t) and M′(t) on t ∈ [min(−3γ, −1.5Δq), Δq]; +inf where the MGF diverges is left blank."""
    law = make_law(key)
    t = np.linspace(min(-3 * gamma, -1.5 * sensitivity), sensitivity, 200)
    with np.errstate(over="ignore"):
        m = np.asarray(law.mgf(t), dtype=float)
        mp = np.asarray(law.mgf_prime(t), dtype=float)
    return pd.DataFrame({"t": t, "M": np.where(np.isfinite(m), m, np.nan),
                         "M_prime": np.where(np.isfinite(mp), mp, np.nan)})


# --------------------------------------------------------------------------------------------------------------
# panels 5–8: optimised usefulness, improvement map, Gamma landscape
# --------------------------------------------------------------------------------------------------------------


CURVE_EPSILONS = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)
CURVE_GS = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


@cached(show_spinner="Optimising every family over ε (Gamma + TN takes a few s) …")
def usefulness_vs_epsilon(g: float) -> pd.DataFrame:
    """U of Laplace, each optimised family (Algorithm 1's Gamma + truncated normal included), the staircase and the cap
    over ε.

    Δq = 1 and γ = g = γ/Δq (scale invariance). Long form: epsilon, family, usefulness, ratio (to Laplace). The
    optima go through :func:`optimum`, so they are shared with the γ curve and the family table.
    """
    opt = pd.DataFrame([(e, fam, *_curve_point(e, g, fam)) for e in CURVE_EPSILONS for fam in CURVE_FAMILIES],
                       columns=["epsilon", "family", "usefulness", "ratio"])
    eps = np.geomspace(0.1, 20.0, 120)
    lap = r2dp.laplace_usefulness(eps, gamma=g)
    fine = pd.concat([
        pd.DataFrame({"epsilon": eps, "family": "laplace", "usefulness": lap, "ratio": 1.0}),
        pd.DataFrame({"epsilon": eps, "family": "staircase", "usefulness": r2dp.staircase_usefulness(eps, gamma=g)}),
        pd.DataFrame({"epsilon": eps, "family": "cap", "usefulness": r2dp.universal_cap(eps, gamma=g)}),
    ], ignore_index=True)
    fine["ratio"] = fine["usefulness"] / np.tile(lap, 3)
    return pd.concat([fine, opt], ignore_index=True)


def _u_ratio(res: Optimum) -> tuple[float, float]:
    return res.usefulness, res.ratio


#: γ/Δq points of the Gamma + TN curve against γ (each is one of Algorithm 1's slowest optima, so fewer points; the
#: whole
#: multiples of Δq are free, see :func:`_curve_point`; 1.5 is left out — for γ ≥ Δq no R²DP law was found to beat
#: Laplace).
COMBO_CURVE_GS = (0.01, 0.05, 0.1, 0.3, 0.75, 1.0, 2.0, 3.0)


def _curve_point(epsilon: float, g: float, family: str) -> tuple[float, float]:
    """(U, ratio to Laplace) of the family optimum at (ε, γ/Δq = g, Δq = 1), as :func:`optimum` reports it.

    Where the optimal staircase is no better than Laplace (g a whole number: then Laplace is optimal
    among all ε-DP additive noises) every family optimum is Laplace itself (ties count as Laplace in
    :func:`dpcore.r2dp.optimize`), so its U is returned without running Algorithm 1.
    """
    lap = float(r2dp.usefulness(r2dp.Dirac(epsilon), gamma=g))
    if staircase.__wrapped__(epsilon, g, 1.0) <= lap:
        return lap, 1.0
    return _u_ratio(optimum.__wrapped__(epsilon, g, 1.0, family))


def usefulness_vs_g_frame(epsilon: float) -> pd.DataFrame:
    """U against g = γ/Δq ∈ (0, 3] at fixed ε (Δq = 1). Long form: g, family, usefulness, ratio.

    Algorithm 1 for every family at 11 γ (seconds on a new ε): the page runs it as a background job."""
    opt = pd.DataFrame([(g, fam, *_curve_point(epsilon, g, fam)) for g in CURVE_GS for fam in CURVE_FAMILIES
                        if fam != "gamma+truncated_normal" or g in COMBO_CURVE_GS],
                       columns=["g", "family", "usefulness", "ratio"])
    gs = np.linspace(0.005, 3.0, 300)
    lap = np.array([r2dp.laplace_usefulness(epsilon, gamma=x) for x in gs])
    stair = np.array([r2dp.staircase_usefulness(epsilon, gamma=x) for x in gs])
    fine = pd.concat([
        pd.DataFrame({"g": gs, "family": "laplace", "usefulness": lap, "ratio": 1.0}),
        pd.DataFrame({"g": gs, "family": "staircase", "usefulness": stair, "ratio": stair / lap}),
    ], ignore_index=True)
    return pd.concat([fine, opt], ignore_index=True)


MAP_EPSILONS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)
MAP_GS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5)
COMBO_MAP_EPSILONS = (0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0, 20.0)
COMBO_MAP_GS = (0.01, 0.05, 0.1, 0.3, 0.75, 1.5)


@cached(show_spinner="Computing the region of improvement (one optimisation per cell; "
               "Gamma + TN ≈ 0.15 s a cell) …")
def improvement(family: str) -> pd.DataFrame:
    """Ratio U*_family / U_Lap over (ε, γ/Δq) (the paper's missing Fig. 10), with the local threshold 2/(1 − g).

    Gamma + TN (the slowest optimum, bench/results-where-time-goes.md) uses the coarser :data:`COMBO_MAP_EPSILONS` ×
    :data:`COMBO_MAP_GS` grid.
    """
    eps, gs = (COMBO_MAP_EPSILONS, COMBO_MAP_GS) if family == "combo" else (MAP_EPSILONS, MAP_GS)
    df = r2dp.improvement_map(np.array(eps), np.array(gs), family=OPT_FAMILY[family])
    df["threshold_epsilon"] = r2dp.laplace_threshold(df["g"].to_numpy())
    return df


def improvement_maps(family: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The family's improvement map and the two-point one (whose boundary the map draws)."""
    return improvement(family), improvement("two_point")


@cached
def landscape(epsilon: float, gamma: float, sensitivity: float) -> tuple[pd.DataFrame, GammaPoint]:
    """Gamma-family (k, θ) landscape: U(γ), exact ε, ln M(Δq) on a log mesh, and the constrained optimum."""
    k = np.geomspace(0.1, 100.0, 32)
    theta = np.geomspace(1e-3, 1e3, 32) / sensitivity
    grid = r2dp.gamma_landscape(k, theta, gamma=gamma, sensitivity=sensitivity)
    df = pd.DataFrame({name: np.ravel(v) for name, v in grid.items()})
    best = optimum(epsilon, gamma, sensitivity, "gamma").family_law
    return df, GammaPoint(best.k, best.theta)


# --------------------------------------------------------------------------------------------------------------
# panels 9–12: two-point explorer, Bernoulli erratum, release simulator, metrics
# --------------------------------------------------------------------------------------------------------------


@cached
def two_point_map(epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """U of the ε-exact two-point law over (u0/u*, u1/u*): p set so the exact ε is met."""
    ustar = epsilon / sensitivity
    r0 = np.geomspace(0.01, 0.98, 24)
    r1 = np.geomspace(1.02, 100.0, 28)
    x1, x0 = (a.ravel() for a in np.meshgrid(r1, r0, indexing="ij"))  # rows: u1 outer, u0 inner
    p, useful = r2dp._two_point_grid(x0 * ustar, x1 * ustar, epsilon=epsilon, gamma=gamma, sensitivity=sensitivity)
    return pd.DataFrame({"u0_over_ustar": x0, "u1_over_ustar": x1, "p": p, "usefulness": useful})


@cached
def bernoulli(u0: float, u1: float, p: float, sensitivity: float) -> PaperVsExact:
    """Thm 4.4 as printed, exact ε (Cor. 3.3) and the brute-force sup of the privacy loss (the paper's Thm 4.4 drops
    the weights u_i of the mixture)."""
    law = r2dp.TwoPoint(u0, u1, p)
    x = np.linspace(-3 * sensitivity, 4 * sensitivity, 1401)
    shifts = np.linspace(sensitivity / 40, sensitivity, 40)
    brute = max(float(np.max(r2dp.privacy_loss(x, law, sensitivity=s))) for s in shifts)
    return PaperVsExact(as_printed=r2dp.epsilon(law, sensitivity=sensitivity, variant="as_printed"),
                        exact=r2dp.epsilon(law, sensitivity=sensitivity), brute_force=brute)


TRUE_ANSWER = 100.0


@cached
def releases(key: LawKey, gamma: float, sensitivity: float, n: int, seed: int,
             extra: int = 0) -> tuple[pd.DataFrame, float]:
    """n seeded releases q(D) + W of the true answer 100, then ``extra`` one-at-a-time releases (the "release"
    button; release n + i uses the generator seeded (seed, i), so earlier releases never change), and the analytic
    U(γ).

    Columns: release, released, within (|error| ≤ γ), running share and its standard error. The secret draws of u
    are not in this table (see :func:`secret_draws`).
    """
    law = make_law(key)
    w = _noise_draws(law, n, seed, extra)
    within = np.abs(w) <= gamma
    count = np.arange(1, w.size + 1)
    share = np.cumsum(within) / count
    df = pd.DataFrame({"release": count, "released": TRUE_ANSWER + w, "within": within, "running_share": share,
                       "standard_error": np.sqrt(share * (1 - share) / count)})
    return df, float(r2dp.usefulness(law, gamma=gamma))


def _release_rng(seed: int, i: int) -> np.random.Generator:
    """The generator of the i-th release added by the "release" button."""
    return np.random.default_rng([seed, i])


def _noise_draws(law: r2dp.MixingLaw, n: int, seed: int, extra: int) -> np.ndarray:
    """The noise of the n seeded releases and the ``extra`` button releases."""
    return np.concatenate([r2dp.sample_noise(n, law, np.random.default_rng(seed)),
                           *(r2dp.sample_noise(1, law, _release_rng(seed, i)) for i in range(1, extra + 1))])


@cached
def secret_draws(key: LawKey, sensitivity: float, n: int, seed: int, extra: int = 0, shown: int = 10) -> pd.DataFrame:
    """The secret draws u of the last ``shown`` releases of :func:`releases` (each from the generator stream that
    :func:`dpcore.r2dp.sample_noise` consumes first) with the ε of Laplace(1/u) — what the guarantee collapses to if
    u is published."""
    law = make_law(key)
    u = np.concatenate([law.sample(n, np.random.default_rng(seed)),
                        *(law.sample(1, _release_rng(seed, i)) for i in range(1, extra + 1))])
    released = TRUE_ANSWER + _noise_draws(law, n, seed, extra)
    last = slice(max(0, u.size - shown), u.size)
    return pd.DataFrame({"release": np.arange(1, u.size + 1)[last], "secret u": u[last], "released": released[last],
                         "ε if u were published": [r2dp.epsilon(r2dp.Dirac(x), sensitivity=sensitivity)
                                                   for x in u[last]]})


def _fmt(x: float) -> str:
    return "∞" if math.isinf(x) else number(x, 4)


@cached
def metrics_table(key: LawKey, epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """Table I for the law and Laplace at the same ε (with the corrected ℓ2 and entropy formulas).

    The usefulness-optimal laws of every family are in :func:`family_optima` (part "Families"): the two-point
    optimum's entropy integral alone would cost a rerun time on every new ε here (bench/results-where-time-goes.md).
    """
    laws = {"this law": make_law(key), "Laplace at ε": r2dp.Dirac(epsilon / sensitivity)}
    rows = []
    for name, law in laws.items():
        exact_entropy, printed_entropy = r2dp.entropy_both(law)
        rows.append({
            "mechanism": name,
            "exact ε": _fmt(r2dp.epsilon(law, sensitivity=sensitivity)),
            "U(γ)": f"{float(r2dp.usefulness(law, gamma=gamma)):.4f}",
            "E|W| (ℓ1)": _fmt(r2dp.mean_abs_noise(law)), "RMS (ℓ2, corrected)": _fmt(r2dp.rms_noise(law)),
            "RMS as printed": _fmt(r2dp.rms_noise(law, variant="as_printed")),
            "entropy (corrected)": _fmt(exact_entropy), "entropy as printed": _fmt(printed_entropy),
            "ln M(Δq)": _fmt(r2dp.necessary_condition(law, sensitivity=sensitivity)),
        })
    return pd.DataFrame(rows)


#: Rows of the family table (part "Families"): dpcore family → label.
TABLE_FAMILIES = {"gamma": "Gamma", "uniform": "Uniform", "truncated_normal": "truncated normal",
                  "gamma+truncated_normal": "Gamma + truncated normal (Algorithm 1)", "two_point": "two-point (global)"}


def family_optima(epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """Algorithm 1 for every family at (ε, γ, Δq), with Laplace and the staircase (Table I columns ℓ1, ℓ2).

    Up to seconds on a new setting (Gamma + TN): the page runs it as a background job (:mod:`app.background`).

    Columns: mechanism, family (dpcore name, "" for the baselines), U(γ), ratio to Laplace, beats Laplace,
    E|W|, RMS and the optimal law.
    """
    lap_law = r2dp.Dirac(epsilon / sensitivity)
    lap = float(r2dp.usefulness(lap_law, gamma=gamma))
    rows = [("Laplace", "laplace", lap, 1.0, False, lap_law)]
    for fam, label in TABLE_FAMILIES.items():
        res = optimum.__wrapped__(epsilon, gamma, sensitivity, fam)
        rows.append((label, fam, res.usefulness, res.ratio, not res.laplace_optimal, res.law))
    out = pd.DataFrame([{
        "mechanism": label, "family": fam, "U(γ)": u, "ratio to Laplace": ratio, "beats Laplace": beats,
        "E|W| (ℓ1)": _fmt(r2dp.mean_abs_noise(law)), "RMS (ℓ2)": _fmt(r2dp.rms_noise(law)),
        "optimal law": describe(law),
    } for label, fam, u, ratio, beats, law in rows])
    stair = staircase.__wrapped__(epsilon, gamma, sensitivity)
    staircase_row = {"mechanism": "optimal staircase (not R²DP)", "family": "staircase", "U(γ)": stair,
                     "ratio to Laplace": stair / lap, "beats Laplace": stair > lap * (1 + 1e-12), "E|W| (ℓ1)": "",
                     "RMS (ℓ2)": "", "optimal law": "staircase noise, r* = frac(γ/Δ)"}
    return pd.concat([out, pd.DataFrame([staircase_row])], ignore_index=True)


# --------------------------------------------------------------------------------------------------------------
# "Reproduce the paper"
# --------------------------------------------------------------------------------------------------------------


HEADLINE_FAMILIES = ("gamma", "uniform", "truncated_normal", "two_point")


@cached(show_spinner="Optimising the headline point ε = 10, γ = 0.05 …")
def headline_points() -> pd.DataFrame:
    """The abstract's "230 %" and Fig. 5's "125 %" at ε = 10, Δq = 1, γ = 0.05 ."""
    rows = []
    for fam in HEADLINE_FAMILIES:
        res = optimum(10.0, 0.05, 1.0, fam)
        rows.append({"mechanism": TABLE_FAMILIES[fam], "U": res.usefulness, "U_laplace": res.laplace,
                     "ratio": res.ratio})
    st_u = float(r2dp.staircase_usefulness(10.0, gamma=0.05))
    lap = rows[0]["U_laplace"]
    rows.append({"mechanism": "optimal staircase (not R²DP)", "U": st_u, "U_laplace": lap, "ratio": st_u / lap})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class HeadlineRange:
    """The best Gamma law's ratio to Laplace over Fig. 5's grid: smallest, largest and where, and the whole table."""

    low: float
    high: float
    high_epsilon: float
    high_gamma: float
    table: pd.DataFrame  # rows ε, columns γ


def headline_range() -> HeadlineRange:
    """How the headline ratio depends on (ε, γ): Fig. 5's grid (:func:`fig5`, the best Gamma law)."""
    df = fig5()
    best = df.loc[df["ratio"].idxmax()]
    table = df.pivot(index="epsilon", columns="g", values="ratio").round(3)
    table.index = [f"ε = {number(e)}" for e in table.index]
    table.columns = [f"γ = {number(g)}" for g in table.columns]
    return HeadlineRange(low=float(df["ratio"].min()), high=float(best["ratio"]), high_epsilon=float(best["epsilon"]),
                         high_gamma=float(best["g"]), table=table)


def headline_percentages(df: pd.DataFrame) -> HeadlinePercentages:
    """The paper's two headline numbers from :func:`headline_points`: Uniform as % of Laplace, Gamma's gain in %."""
    rows = df.set_index("mechanism")
    uniform, gamma = rows.loc[TABLE_FAMILIES["uniform"]], rows.loc[TABLE_FAMILIES["gamma"]]
    return HeadlinePercentages(uniform_of_laplace=100 * uniform["ratio"], gamma_improvement=100 * (gamma["ratio"] - 1),
                               laplace=gamma["U_laplace"])


@cached
def lemma() -> LemmaCheck:
    """Lemma 4.10 as printed and exact ."""
    exact, printed = r2dp.lemma_4_10(), r2dp.lemma_4_10(variant="as_printed")
    return LemmaCheck(eps_printed=printed.epsilon, eps_exact=exact.epsilon, lnM_printed=printed.log_mgf_at_sensitivity,
                      lnM_exact=exact.log_mgf_at_sensitivity)


BERNOULLI_TABLE = ((1.0, 2.0, 0.5), (0.2, 0.8, 0.5), (0.5, 5.0, 0.9))


@cached
def bernoulli_table() -> pd.DataFrame:
    """Thm 4.4 as printed vs exact vs brute force (Δq = 1)."""
    rows = []
    for u0, u1, p in BERNOULLI_TABLE:
        b = bernoulli(u0, u1, p, 1.0)
        rows.append({"u0": u0, "u1": u1, "p": p, "Thm 4.4 as printed": round(b.as_printed, 6),
                     "exact (Cor. 3.3)": round(b.exact, 6), "brute-force sup": round(b.brute_force, 6),
                     "paper under-states ε": b.exact > b.as_printed})
    return pd.DataFrame(rows)


FIG3_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
FIG3_SENSITIVITIES = (0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)


@cached(show_spinner="Optimising the Fig. 3 grid …")
def fig3(gamma: float, family: str) -> pd.DataFrame:
    """Fig. 3 re-implemented (the paper states neither its axes nor its γ): U_Lap and U*_family over (ε, Δq) at one γ,
    and their ratio."""
    gs = np.array([gamma / s for s in FIG3_SENSITIVITIES])
    df = r2dp.improvement_map(np.array(FIG3_EPSILONS), gs, family=family)
    df["sensitivity"] = gamma / df["g"]
    return df


FIG4_EPSILONS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)
FIG4_GS = (0.01, 0.05, 0.1, 0.25)


@cached(show_spinner="Optimising the truncated normal for Fig. 4 …")
def fig4() -> pd.DataFrame:
    """Fig. 4 re-implemented: truncated-normal optimum / Laplace for ε < 2 at four γ/Δq; beside it the best of all
    R²DP-Laplace laws (two atoms, the global optimum: ``global_ratio``), the cap γe^{ε−1}/Δ as a ratio to Laplace at
    that γ (``cap_ratio``) and its small-γ limit e^{ε−1}/ε (``cap_ratio_small_g``)."""
    df = r2dp.improvement_map(np.array(FIG4_EPSILONS), np.array(FIG4_GS), family="truncated_normal")
    best = r2dp.improvement_map(np.array(FIG4_EPSILONS), np.array(FIG4_GS), family="two_point")
    df["global_ratio"] = best["ratio"].to_numpy()
    eps, g = df["epsilon"].to_numpy(), df["g"].to_numpy()
    df["cap_ratio"] = [float(r2dp.universal_cap(e, gamma=gg) / r2dp.laplace_usefulness(e, gamma=gg))
                       for e, gg in zip(eps, g, strict=True)]
    df["cap_ratio_small_g"] = r2dp.universal_cap(eps, gamma=1e-9) / r2dp.laplace_usefulness(eps, gamma=1e-9)
    return df


def laplace_thm22(epsilon: float, gamma: float, sensitivity: float) -> PaperVsExact:
    """Thm 2.2: Laplace usefulness corrected vs the appendix's sign error (a sign error in the proof of Thm 4.2)."""
    return PaperVsExact(exact=float(r2dp.laplace_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity)),
                        as_printed=float(r2dp.laplace_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity,
                                                                 variant="as_printed")))


# --------------------------------------------------------------------------------------------------------------
# Fig. 5, the experiments of Figs. 6–9 (stand-in data), the Gaussian appendix, reuse of u
# --------------------------------------------------------------------------------------------------------------


FIG5_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
FIG5_GAMMAS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)


@cached(show_spinner="Optimising the Fig. 5 grid …")
def fig5() -> pd.DataFrame:
    """Fig. 5 re-implemented: counting queries (Δq = 1), usefulness of Laplace and of the best Gamma law over (ε, γ).

    Columns: epsilon, g (= γ, since Δq = 1), usefulness (Gamma optimum), laplace_usefulness, ratio."""
    return r2dp.improvement_map(np.array(FIG5_EPSILONS), np.array(FIG5_GAMMAS), family="gamma")


EXPERIMENT_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0)
EXPERIMENT_GAMMAS = (0.05, 0.1)
#: Sensitivity of the two statistical queries of Fig. 6: a count and the paper's average (Δq = 0.2).
QUERY_SENSITIVITY = {"count": 1.0, "average": 0.2}


@cached(show_spinner="Simulating 10⁴ answers per point …")
def fig6(query: str, seed: int) -> pd.DataFrame:
    """Fig. 6 on a stand-in query: share of 10⁴ noisy answers within γ of the true answer (Laplace, R²DP's two-point
    optimum, staircase) for γ = 0.05 and 0.1. Columns: gamma, epsilon, mechanism, accuracy, exact, standard_error."""
    frames = [r2dp.applications.query_accuracy(EXPERIMENT_EPSILONS, gamma=g, sensitivity=QUERY_SENSITIVITY[query],
                                               trials=10_000, rng=np.random.default_rng([seed, i]))
              .assign(gamma=g) for i, g in enumerate(EXPERIMENT_GAMMAS)]
    return pd.concat(frames, ignore_index=True)


#: Stand-ins for Figs. 7–8: (records, attributes, values per attribute) — synthetic, NOT the paper's data sets.
CLASSIFIER_STANDINS = {"adult": (1_500, 14, 6), "kdd": (1_500, 20, 4)}


@cached(show_spinner="Training noisy naive Bayes classifiers …")
def classifier(dataset: str, seed: int) -> pd.DataFrame:
    """Figs. 7–8 on a synthetic stand-in: precision and recall of a naive Bayes classifier built from noisy counts
    (two thirds of the records train, one third test). Columns: gamma, epsilon, mechanism, precision, recall."""
    n, attributes, values = CLASSIFIER_STANDINS[dataset]
    rec = r2dp.applications.categorical_records(n, attributes=attributes, values=values,
                                                rng=np.random.default_rng([seed, 7]))
    cut = 2 * n // 3
    train = r2dp.applications.Records(rec.features[:cut], rec.labels[:cut], values)
    test = r2dp.applications.Records(rec.features[cut:], rec.labels[cut:], values)
    frames = [r2dp.applications.naive_bayes(train, test, EXPERIMENT_EPSILONS, gamma=g,
                                            rng=np.random.default_rng([seed, i])).assign(gamma=g)
              for i, g in enumerate(EXPERIMENT_GAMMAS)]
    return pd.concat(frames, ignore_index=True)


@cached(show_spinner="Recommending co-authors from noisy counts …")
def recommender(threshold: float, seed: int) -> pd.DataFrame:
    """Fig. 9 on a synthetic co-authorship stand-in (60 groups of 8 authors): precision and recall of Jaccard
    recommendations from noisy counts against the non-private ones. Columns: gamma, epsilon, mechanism, precision,
    recall, pairs."""
    graph = r2dp.applications.coauthor_graph(rng=np.random.default_rng([seed, 9]))
    frames = [r2dp.applications.recommendation(graph, EXPERIMENT_EPSILONS, gamma=g, threshold=threshold,
                                               rng=np.random.default_rng([seed, i])).assign(gamma=g)
              for i, g in enumerate(EXPERIMENT_GAMMAS)]
    return pd.concat(frames, ignore_index=True)


@cached
def gaussian_appendix(epsilon: float, delta: float, gamma: float) -> GaussianCalibration:
    """Thm A.2–A.3 and Cor. A.4 at (ε, δ) with Δq = 1: κ, the δ the paper's calibration claims, the exact δ of the
    Gaussian at σ = κ (analytic, Balle & Wang 2018) and the usefulness 1 − 2Q(γ/σ)."""
    kappa = r2dp.gaussian_kappa(epsilon, delta)
    return GaussianCalibration(
        kappa=kappa, delta_printed=r2dp.gaussian_mixture_delta(epsilon, sigmas=[kappa], variant="as_printed"),
        delta_exact=r2dp.gaussian_mixture_delta(epsilon, sigmas=[kappa]),
        usefulness=r2dp.gaussian_usefulness([kappa], gamma=gamma))


GAUSSIAN_MIXTURES = (((1.0, 4.0), (0.5, 0.5)), ((2.0,), (1.0,)), ((0.5, 2.0, 8.0), (0.25, 0.5, 0.25)))


@cached
def gaussian_mixtures(epsilon: float, gamma: float) -> pd.DataFrame:
    """Cor. A.4 for a few σ laws (Δq = 1): exact δ(ε) of the mixture, the sound average of per-σ δ, the paper's
    form, and the usefulness. Columns: σ law, exact δ, averaged δ, paper's δ, U(γ)."""
    rows = []
    for sigmas, weights in GAUSSIAN_MIXTURES:
        law = ", ".join(f"σ = {number(s)} w.p. {number(w)}" for s, w in zip(sigmas, weights, strict=True))
        rows.append({"σ law": law,
                     "exact δ": r2dp.gaussian_mixture_delta(epsilon, sigmas=sigmas, weights=weights),
                     "averaged δ (sound)": r2dp.gaussian_mixture_delta(epsilon, sigmas=sigmas, weights=weights,
                                                                       variant="averaged"),
                     "paper's δ": r2dp.gaussian_mixture_delta(epsilon, sigmas=sigmas, weights=weights,
                                                              variant="as_printed"),
                     "U(γ)": r2dp.gaussian_usefulness(sigmas, gamma=gamma, weights=weights)})
    return pd.DataFrame(rows)


@cached
def reuse(key: LawKey, sensitivity: float, queries: int = 6) -> pd.DataFrame:
    """Composition: total ε of n releases with a fresh secret u each (n·ε) against reusing one draw of u for all n
    (exact joint ε ln(M⁽ⁿ⁾(0)/M⁽ⁿ⁾(−nΔq))). Columns: queries, fresh draws, one reused draw."""
    law = make_law(key)
    one = r2dp.epsilon(law, sensitivity=sensitivity)
    return pd.DataFrame([{"queries": n, "fresh draws": n * one,
                          "one reused draw": r2dp.reuse_epsilon(law, sensitivity=sensitivity, queries=n)}
                         for n in range(1, queries + 1)])
