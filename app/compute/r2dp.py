"""Cached tables for the R²DP page (paper 004, spec ``specs/r2dp.md`` §9–§11), all by calling :mod:`dpcore.r2dp`.

A mixing law is passed between cached functions as a *law key*: a tuple of scalars (family, lock, ε, Δq and the
family's own parameters) built by :func:`law_key`, so ``st.cache_data`` keys on scalars only. Panels whose content
depends only on (ε, γ/Δq) use Δq = 1 and γ/Δq (spec §1, scale invariance), so moving Δq and γ together re-uses them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from scipy import optimize as _opt

from app.compute import MAX_ENTRIES
from dpcore import r2dp

#: Sidebar family value → dpcore family used by :func:`dpcore.r2dp.optimize` (combo = Alg. 1's Gamma+TN).
OPT_FAMILY = {"laplace": "laplace", "two_point": "two_point", "gamma": "gamma", "uniform": "uniform",
              "truncnorm": "truncated_normal", "combo": "gamma+truncated_normal"}
#: Families drawn in the usefulness curves (panels 5–6), in legend order.
CURVE_FAMILIES = ("two_point", "gamma", "uniform", "truncated_normal")
MC_SAMPLES = 20_000
LawKey = tuple[Any, ...]


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


def _scale_for_epsilon(law: r2dp.MixingLaw, epsilon: float, sensitivity: float) -> r2dp.MixingLaw:
    """law.scaled(s) with s solving exact ε(s) = ε (ε is increasing in s from 0 to ∞, spec §3.3, §6.2)."""

    def gap(log_s: float) -> float:
        return r2dp.epsilon(law.scaled(math.exp(log_s)), sensitivity=sensitivity) - epsilon

    centre = math.log(epsilon / sensitivity / law.mean)
    lo, hi = centre - 2.0, centre + 2.0
    while gap(lo) > 0:
        lo -= 4.0
    while gap(hi) < 0:
        hi += 4.0
    return law.scaled(math.exp(_opt.brentq(gap, lo, hi, xtol=1e-13, rtol=1e-13)))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def make_law(key: LawKey) -> r2dp.MixingLaw:
    """The mixing law of a :func:`law_key`; with lock ε on, its scale (or p) is solved so the exact ε = slider ε.

    Locking: Laplace u = ε/Δq; two-point p from :func:`dpcore.r2dp.two_point_for_epsilon`; Gamma θ from
    :func:`dpcore.r2dp.gamma_theta_for_epsilon`; Uniform, truncated normal and Gamma+TN keep their shape and are
    rescaled. Invalid parameters raise dpcore's ``ValueError`` (never cached).
    """
    family, lock, eps, sens, *par = key
    if family == "laplace":
        return r2dp.Dirac(eps / sens) if lock else r2dp.Dirac(par[0])
    if family == "two_point":
        return r2dp.two_point_for_epsilon(par[0], par[1], epsilon=eps, sensitivity=sens) if lock else r2dp.TwoPoint(*par)
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
    return _scale_for_epsilon(law, eps, sens) if lock else law


def describe(law: r2dp.MixingLaw) -> str:
    """A short text of the law's parameters (shown under the headline numbers)."""
    if isinstance(law, r2dp.Dirac):
        return f"Dirac: u = {law.u:.4g} (Laplace with b = {1 / law.u:.4g})"
    if isinstance(law, r2dp.TwoPoint):
        return f"two-point: u0 = {law.u0:.4g} w.p. p = {law.p:.4g}, u1 = {law.u1:.4g} w.p. {1 - law.p:.4g}"
    if isinstance(law, r2dp.Gamma):
        return f"Gamma: shape k = {law.k:.4g}, scale θ = {law.theta:.4g}"
    if isinstance(law, r2dp.Uniform):
        return f"Uniform: a = {law.a:.4g}, b = {law.b:.4g}"
    if isinstance(law, r2dp.TruncatedNormal):
        return f"truncated normal: μ = {law.mu:.4g}, σ = {law.sigma:.4g}, lower cut = {law.low:.4g}"
    parts = " + ".join(f"{c:.4g}·[{describe(x)}]" for x, c in zip(law.laws, law.coefficients))
    return f"combination: {parts}"


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def headline(key: LawKey, epsilon: float, gamma: float, sensitivity: float) -> dict[str, Any]:
    """Exact ε and U(γ) of the law, ln M(Δq) (Thm 4.2), and the Laplace / two-point optimum / staircase / cap at ε."""
    law = make_law(key)
    best = optimum(epsilon, gamma, sensitivity, "two_point")
    useful = float(r2dp.usefulness(law, gamma=gamma))
    eps_law = r2dp.epsilon(law, sensitivity=sensitivity)
    return {
        "law": describe(law),
        "epsilon": eps_law,
        "usefulness": useful,
        "ratio": useful / best["laplace"],
        "over_budget": eps_law > epsilon * (1 + 1e-9),
        "necessary": r2dp.necessary_condition(law, sensitivity=sensitivity),
        "laplace": best["laplace"],
        "two_point": best["usefulness"],
        "staircase": float(r2dp.staircase_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity)),
        "cap": float(r2dp.universal_cap(epsilon, gamma=gamma, sensitivity=sensitivity)),
    }


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def optimum(epsilon: float, gamma: float, sensitivity: float, family: str) -> dict[str, Any]:
    """Alg. 1 for one dpcore family: the law used, its U, Laplace's U and whether Laplace is optimal."""
    res = r2dp.optimize(epsilon=epsilon, gamma=gamma, sensitivity=sensitivity, family=family)
    return {"law": res.law, "family_law": res.family_law, "usefulness": res.usefulness,
            "laplace": res.laplace_usefulness, "laplace_optimal": res.laplace_optimal, "ratio": res.ratio,
            "epsilon": res.epsilon}


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def staircase(epsilon: float, gamma: float, sensitivity: float) -> float:
    """U of the optimal staircase (r* = frac(γ/Δq), spec §7): the best any ε-DP additive noise can do."""
    return float(r2dp.staircase_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity))


def gamma_point(key: LawKey) -> tuple[float, float] | None:
    """(k, θ) of the law when it is a Gamma law (the marker of panel 8), else None."""
    law = make_law(key)
    return (law.k, law.theta) if isinstance(law, r2dp.Gamma) else None


def relative_atoms(law: r2dp.MixingLaw, epsilon: float, sensitivity: float) -> tuple[float, float] | None:
    """Atoms (smaller, larger) of a two-point law divided by u* = ε/Δq (panel 9), None for a Dirac law."""
    if not isinstance(law, r2dp.TwoPoint):
        return None
    return relative(min(law.u0, law.u1), max(law.u0, law.u1), epsilon, sensitivity)


def normalised(gamma: float, sensitivity: float) -> float:
    """g = γ/Δq, the normalised tolerance every result depends on (spec §1, scale invariance)."""
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


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def mixing_law(key: LawKey, epsilon: float, sensitivity: float, seed: int) -> pd.DataFrame:
    """Density (or pmf) of u = 1/b on a grid covering 99.5 % of the law and u* = ε/Δq (panel 1).

    Columns: u, density, kind ("pdf", "pmf" or "histogram" — the Gamma+TN density is a sampled histogram,
    its convolution integral being too slow for an interactive page).
    """
    law = make_law(key)
    if law.discrete:
        atoms, probs = law.atoms
        return pd.DataFrame({"u": atoms, "density": probs, "kind": "pmf"})
    draws = law.sample(MC_SAMPLES, np.random.default_rng(seed))
    top = max(float(np.quantile(draws, 0.995)), 1.5 * epsilon / sensitivity)
    if isinstance(law, r2dp.Combination):
        counts, edges = np.histogram(draws, bins=80, range=(0.0, top))
        return pd.DataFrame({"u": (edges[:-1] + edges[1:]) / 2, "density": counts / (draws.size * np.diff(edges)),
                             "kind": "histogram"})
    u = np.linspace(top / 200, top, 200)
    return pd.DataFrame({"u": u, "density": law.pdf(u), "kind": "pdf"})


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def noise(key: LawKey, epsilon: float, gamma: float, sensitivity: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Noise densities (R²DP, Laplace(Δq/ε), optimal staircase) and a seeded histogram (panel 2).

    Window: |w| ≤ min(5Δq, max(3γ, 8Δq/ε)) — spec §11's ±5Δq, narrowed at large ε where all the mass is near 0.

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
    draws = r2dp.sample_noise(MC_SAMPLES, law, np.random.default_rng(seed))
    counts, edges = np.histogram(draws, bins=100, range=(-half, half))
    hist = pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "count": counts,
                         "empirical_density": counts / (draws.size * np.diff(edges))})
    return dens, hist


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def loss_profile(key: LawKey, epsilon: float, sensitivity: float) -> pd.DataFrame:
    """Privacy-loss profile L(y) = ln f(y) − ln f(y − Δq) of the law and of Laplace at ε (panel 3, Cor. 3.3)."""
    law = make_law(key)
    y = np.linspace(-3 * sensitivity, 4 * sensitivity, 351)
    return pd.DataFrame({
        "y": y,
        "r2dp": r2dp.privacy_loss(y, law, sensitivity=sensitivity),
        "laplace": r2dp.privacy_loss(y, r2dp.Dirac(epsilon / sensitivity), sensitivity=sensitivity),
    })


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def mgf_view(key: LawKey, gamma: float, sensitivity: float) -> pd.DataFrame:
    """M(t) and M′(t) on t ∈ [min(−3γ, −1.5Δq), Δq] (panel 4); +inf where the MGF diverges is left blank."""
    law = make_law(key)
    t = np.linspace(min(-3 * gamma, -1.5 * sensitivity), sensitivity, 200)
    with np.errstate(over="ignore"):
        m = np.asarray(law.mgf(t), dtype=float)
        mp = np.asarray(law.mgf_prime(t), dtype=float)
    return pd.DataFrame({"t": t, "M": np.where(np.isfinite(m), m, np.nan), "M_prime": np.where(np.isfinite(mp), mp, np.nan)})


# --------------------------------------------------------------------------------------------------------------
# panels 5–8: optimised usefulness, improvement map, Gamma landscape
# --------------------------------------------------------------------------------------------------------------


CURVE_EPSILONS = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)
CURVE_GS = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Optimising every family over ε …")
def usefulness_vs_epsilon(g: float) -> pd.DataFrame:
    """U of Laplace, each optimised family, the two-point optimum, the staircase and the cap over ε (panel 5).

    Δq = 1 and γ = g = γ/Δq (scale invariance). Long form: epsilon, family, usefulness, ratio (to Laplace).
    """
    df = r2dp.usefulness_curves(np.array(CURVE_EPSILONS), gamma=g, sensitivity=1.0, families=("laplace", *CURVE_FAMILIES))
    eps = np.geomspace(0.1, 20.0, 120)
    lap = r2dp.laplace_usefulness(eps, gamma=g)
    fine = pd.concat([
        pd.DataFrame({"epsilon": eps, "family": "laplace", "usefulness": lap, "ratio": 1.0}),
        pd.DataFrame({"epsilon": eps, "family": "staircase", "usefulness": r2dp.staircase_usefulness(eps, gamma=g)}),
        pd.DataFrame({"epsilon": eps, "family": "cap", "usefulness": r2dp.universal_cap(eps, gamma=g)}),
    ], ignore_index=True)
    fine["ratio"] = fine["usefulness"] / np.tile(lap, 3)
    coarse = df[~df["family"].isin(("laplace", "staircase"))]
    return pd.concat([fine, coarse], ignore_index=True)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Optimising every family over γ/Δq …")
def usefulness_vs_g(epsilon: float) -> pd.DataFrame:
    """U against g = γ/Δq ∈ (0, 3] at fixed ε (panel 6; Δq = 1). Long form: g, family, usefulness, ratio."""
    rows = []
    for g in CURVE_GS:
        for fam in CURVE_FAMILIES:
            res = r2dp.optimize(epsilon=epsilon, gamma=g, sensitivity=1.0, family=fam)
            rows.append((g, fam, res.usefulness, res.ratio))
    opt = pd.DataFrame(rows, columns=["g", "family", "usefulness", "ratio"])
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


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Computing the region of improvement (one optimisation per cell) …")
def improvement(family: str) -> pd.DataFrame:
    """Ratio U*_family / U_Lap over (ε, γ/Δq) (panel 7, the missing Fig. 10), with the local threshold 2/(1 − g)."""
    df = r2dp.improvement_map(np.array(MAP_EPSILONS), np.array(MAP_GS), family=OPT_FAMILY[family])
    df["threshold_epsilon"] = r2dp.laplace_threshold(df["g"].to_numpy())
    return df


def improvement_maps(family: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The family's improvement map and the two-point one (whose boundary panel 7 draws)."""
    return improvement(family), improvement("two_point")


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def landscape(epsilon: float, gamma: float, sensitivity: float) -> tuple[pd.DataFrame, dict[str, float]]:
    """Gamma-family (k, θ) landscape (panel 8): U(γ), exact ε, ln M(Δq) on a log mesh, and the constrained optimum."""
    k = np.geomspace(0.1, 100.0, 32)
    theta = np.geomspace(1e-3, 1e3, 32) / sensitivity
    grid = r2dp.gamma_landscape(k, theta, gamma=gamma, sensitivity=sensitivity)
    df = pd.DataFrame({name: np.ravel(v) for name, v in grid.items()})
    best = optimum(epsilon, gamma, sensitivity, "gamma")["family_law"]
    return df, {"k": best.k, "theta": best.theta}


# --------------------------------------------------------------------------------------------------------------
# panels 9–12: two-point explorer, Bernoulli erratum, release simulator, metrics
# --------------------------------------------------------------------------------------------------------------


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def two_point_map(epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """U of the ε-exact two-point law over (u0/u*, u1/u*) (panel 9): p set by the active constraint (§4.5)."""
    ustar = epsilon / sensitivity
    r0 = np.geomspace(0.01, 0.98, 24)
    r1 = np.geomspace(1.02, 100.0, 28)
    rows = []
    for x1 in r1:
        for x0 in r0:
            law = r2dp.two_point_for_epsilon(x0 * ustar, x1 * ustar, epsilon=epsilon, sensitivity=sensitivity)
            rows.append((x0, x1, law.p, float(r2dp.usefulness(law, gamma=gamma))))
    return pd.DataFrame(rows, columns=["u0_over_ustar", "u1_over_ustar", "p", "usefulness"])


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def bernoulli(u0: float, u1: float, p: float, sensitivity: float) -> dict[str, float]:
    """Thm 4.4 as printed, exact ε (Cor. 3.3) and the brute-force sup of the privacy loss (panel 10, erratum E6)."""
    law = r2dp.TwoPoint(u0, u1, p)
    x = np.linspace(-3 * sensitivity, 4 * sensitivity, 1401)
    shifts = np.linspace(sensitivity / 40, sensitivity, 40)
    brute = max(float(np.max(r2dp.privacy_loss(x, law, sensitivity=s))) for s in shifts)
    return {"as_printed": r2dp.epsilon(law, sensitivity=sensitivity, variant="as_printed"),
            "exact": r2dp.epsilon(law, sensitivity=sensitivity), "brute_force": brute}


TRUE_ANSWER = 100.0


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def releases(key: LawKey, gamma: float, sensitivity: float, n: int, seed: int) -> tuple[pd.DataFrame, float]:
    """n seeded releases q(D) + W of the true answer 100 (panel 11) and the analytic U(γ).

    Columns: release, released, within (|error| ≤ γ), running share and its standard error. The secret draws of u
    are not in this table (see :func:`secret_draws`).
    """
    law = make_law(key)
    w = r2dp.sample_noise(n, law, np.random.default_rng(seed))
    within = np.abs(w) <= gamma
    count = np.arange(1, n + 1)
    share = np.cumsum(within) / count
    df = pd.DataFrame({"release": count, "released": TRUE_ANSWER + w, "within": within, "running_share": share,
                       "standard_error": np.sqrt(share * (1 - share) / count)})
    return df, float(r2dp.usefulness(law, gamma=gamma))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def secret_draws(key: LawKey, sensitivity: float, n: int, seed: int, shown: int = 10) -> pd.DataFrame:
    """The first secret draws u of :func:`releases` (the same generator stream :func:`dpcore.r2dp.sample_noise`
    consumes first) with the ε of Laplace(1/u) — what the guarantee collapses to if u is published."""
    law = make_law(key)
    u = law.sample(n, np.random.default_rng(seed))[:shown]
    released = TRUE_ANSWER + r2dp.sample_noise(n, law, np.random.default_rng(seed))[:shown]
    return pd.DataFrame({"release": np.arange(1, u.size + 1), "secret u": u, "released": released,
                         "ε if u were published": [r2dp.epsilon(r2dp.Dirac(x), sensitivity=sensitivity) for x in u]})


def _fmt(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.4g}"


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def metrics_table(key: LawKey, epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """Table I for the law, Laplace at ε and the two-point optimum (panel 12; corrected ℓ2 and entropy, E3)."""
    laws = {"this law": make_law(key), "Laplace at ε": r2dp.Dirac(epsilon / sensitivity),
            "two-point optimum at ε": optimum(epsilon, gamma, sensitivity, "two_point")["law"]}
    rows = []
    for name, law in laws.items():
        m = r2dp.metrics(law, gamma=gamma, sensitivity=sensitivity)
        rows.append({
            "mechanism": name, "exact ε": _fmt(m.epsilon), "U(γ)": f"{m.usefulness:.4f}",
            "E|W| (ℓ1)": _fmt(m.mean_abs), "RMS (ℓ2, corrected)": _fmt(m.rms),
            "RMS as printed": _fmt(r2dp.rms_noise(law, variant="as_printed")),
            "entropy (corrected)": _fmt(m.entropy),
            "entropy as printed": _fmt(r2dp.entropy(law, variant="as_printed")),
            "ln M(Δq)": _fmt(m.necessary_condition),
        })
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------------------
# "Reproduce the paper"
# --------------------------------------------------------------------------------------------------------------


HEADLINE_FAMILIES = ("gamma", "uniform", "truncated_normal", "two_point")


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Optimising the headline point ε = 10, γ = 0.05 …")
def headline_points() -> pd.DataFrame:
    """The abstract's "230 %" and Fig. 5's "125 %" at ε = 10, Δq = 1, γ = 0.05 (spec §9, R14)."""
    rows = []
    for fam in HEADLINE_FAMILIES:
        res = optimum(10.0, 0.05, 1.0, fam)
        rows.append({"mechanism": fam, "U": res["usefulness"], "U_laplace": res["laplace"], "ratio": res["ratio"]})
    st_u = float(r2dp.staircase_usefulness(10.0, gamma=0.05))
    lap = rows[0]["U_laplace"]
    rows.append({"mechanism": "staircase", "U": st_u, "U_laplace": lap, "ratio": st_u / lap})
    return pd.DataFrame(rows)


def headline_percentages(df: pd.DataFrame) -> dict[str, float]:
    """The paper's two headline numbers from :func:`headline_points`: Uniform as % of Laplace, Gamma's gain in %."""
    rows = df.set_index("mechanism")
    return {"uniform_of_laplace": 100 * rows.loc["uniform", "ratio"],
            "gamma_improvement": 100 * (rows.loc["gamma", "ratio"] - 1), "laplace": rows.loc["gamma", "U_laplace"]}


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def lemma() -> dict[str, float]:
    """Lemma 4.10 as printed and exact (erratum E13)."""
    exact, printed = r2dp.lemma_4_10(), r2dp.lemma_4_10(variant="as_printed")
    return {"eps_printed": printed.epsilon, "eps_exact": exact.epsilon,
            "lnM_printed": printed.log_mgf_at_sensitivity, "lnM_exact": exact.log_mgf_at_sensitivity}


BERNOULLI_TABLE = ((1.0, 2.0, 0.5), (0.2, 0.8, 0.5), (0.5, 5.0, 0.9))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def bernoulli_table() -> pd.DataFrame:
    """Spec §5.2 table: Thm 4.4 as printed vs exact vs brute force (Δq = 1)."""
    rows = []
    for u0, u1, p in BERNOULLI_TABLE:
        b = bernoulli(u0, u1, p, 1.0)
        rows.append({"u0": u0, "u1": u1, "p": p, "Thm 4.4 as printed": round(b["as_printed"], 6),
                     "exact (Cor. 3.3)": round(b["exact"], 6), "brute-force sup": round(b["brute_force"], 6),
                     "paper under-states ε": b["exact"] > b["as_printed"]})
    return pd.DataFrame(rows)


FIG3_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
FIG3_SENSITIVITIES = (0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Optimising the Fig. 3 grid …")
def fig3(gamma: float, family: str) -> pd.DataFrame:
    """Fig. 3 re-implemented (spec §9): U_Lap and U*_family over (ε, Δq) at one γ, and their ratio."""
    gs = np.array([gamma / s for s in FIG3_SENSITIVITIES])
    df = r2dp.improvement_map(np.array(FIG3_EPSILONS), gs, family=family)
    df["sensitivity"] = gamma / df["g"]
    return df


FIG4_EPSILONS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)
FIG4_GS = (0.01, 0.05, 0.1, 0.25)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Optimising the truncated normal for Fig. 4 …")
def fig4() -> pd.DataFrame:
    """Fig. 4 re-implemented: truncated-normal optimum / Laplace for ε < 2 at four γ/Δq, with the cap e^{ε−1}/ε."""
    df = r2dp.improvement_map(np.array(FIG4_EPSILONS), np.array(FIG4_GS), family="truncated_normal")
    eps = df["epsilon"].to_numpy()
    df["cap_ratio_small_g"] = r2dp.universal_cap(eps, gamma=1e-9) / r2dp.laplace_usefulness(eps, gamma=1e-9)
    return df


def laplace_thm22(epsilon: float, gamma: float, sensitivity: float) -> dict[str, float]:
    """Thm 2.2: Laplace usefulness corrected vs the appendix's sign error (erratum E1)."""
    return {"exact": float(r2dp.laplace_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity)),
            "as_printed": float(r2dp.laplace_usefulness(epsilon, gamma=gamma, sensitivity=sensitivity,
                                                        variant="as_printed"))}
