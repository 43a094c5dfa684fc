"""Curves behind the paper's figures and the numbers of its worked examples.

Mohammady et al. 2020 (R²DP): usefulness against ε and γ for every family (Figs. 3–6), the
region-of-improvement map (the Fig. 10 the text refers to but does not contain), the Gamma constraint
landscape of Eq. 5, and Lemma 4.10's truncated-normal example (whose printed ε is not the exact one; see
``docs/errata.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.r2dp._mgf import _gamma_logd
from dpcore.r2dp.baselines import _eps_array, laplace_usefulness, staircase_usefulness
from dpcore.r2dp.laws import MixingLaw, TruncatedNormal
from dpcore.r2dp.mechanism import epsilon, necessary_condition
from dpcore.r2dp.optimal import FAMILIES, optimize


def usefulness_curves(
    epsilons: Any, *, gamma: float, sensitivity: float = 1.0, families: tuple[str, ...] = FAMILIES[:5]
) -> pd.DataFrame:
    """Long table (epsilon, family, usefulness, ratio) over an ε grid: each optimised family,
    plus "staircase" (the curves of Figs. 3–6)."""
    e = _eps_array(epsilons).ravel()
    rows = []
    families = tuple(_v.sequence("families", families))
    for fam in families:
        _v.choice("family", fam, FAMILIES)
    for ei in e:
        lap = float(laplace_usefulness(ei, gamma=gamma, sensitivity=sensitivity))
        for fam in families:
            res = optimize(epsilon=float(ei), gamma=gamma, sensitivity=sensitivity, family=fam)
            rows.append((float(ei), fam, res.usefulness, res.usefulness / lap))
        st = float(staircase_usefulness(ei, gamma=gamma, sensitivity=sensitivity))
        rows.append((float(ei), "staircase", st, st / lap))
    return pd.DataFrame(rows, columns=["epsilon", "family", "usefulness", "ratio"])


def improvement_map(epsilons: Any, g_values: Any, *, family: str = "gamma", sensitivity: float = 1.0) -> pd.DataFrame:
    """Region-of-improvement grid (the Fig. 10 the paper refers to but omits): ratio U*_family / U_Lap over
    (ε, γ/Δq)."""
    e = _eps_array(epsilons).ravel()
    gv = _v.real_array("g_values", g_values, low=0.0, allow_inf=False).ravel()
    if np.any(gv <= 0):
        raise ValueError("g_values must be > 0")
    family = _v.choice("family", family, FAMILIES)
    dq = _v.positive("sensitivity", sensitivity)
    rows = []
    for ei in e:
        for gi in gv:
            res = optimize(epsilon=float(ei), gamma=float(gi * dq), sensitivity=dq, family=family)
            rows.append((float(ei), float(gi), res.usefulness, res.laplace_usefulness, res.ratio))
    return pd.DataFrame(rows, columns=["epsilon", "g", "usefulness", "laplace_usefulness", "ratio"])


def gamma_landscape(k: Any, theta: Any, *, gamma: float, sensitivity: float = 1.0) -> dict[str, np.ndarray]:
    """Gamma-family constraint landscape on a (k, θ) mesh (the search of Eq. 5): usefulness, exact ε
    ((k+1) ln(1+Δqθ)) and the necessary-condition value ln M(Δq) (inf where Δqθ >= 1)."""
    kk = _v.real_array("k", k, low=0.0, allow_inf=False)
    tt = _v.real_array("theta", theta, low=0.0, allow_inf=False)
    if np.any(kk <= 0):
        raise ValueError("k must be > 0")
    if np.any(tt <= 0):
        raise ValueError("theta must be > 0")
    gam = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    K, T = np.meshgrid(kk, tt, indexing="ij")
    return {
        "k": K,
        "theta": T,
        "usefulness": -np.expm1(-K * np.log1p(T * gam)),
        "epsilon": (K + 1) * np.log1p(dq * T),
        "necessary_condition": _gamma_logd(dq, 0, K, T),
    }


@dataclass(frozen=True)
class Lemma410:
    """Lemma 4.10 numbers: TN(μ=0.5223, σ=1.5454, low=0.5223), Δq = 0.6."""

    epsilon: float
    log_mgf_at_sensitivity: float
    law: MixingLaw


def lemma_4_10(*, variant: Literal["exact", "as_printed"] = "exact") -> Lemma410:
    """Lemma 4.10: exact ε = 1.180112, ln M(+Δq) = 1.241735; as printed ε = 1.1703 (the
    paper's ε is 0.0098 below the exact value for its own parameters; its ln M(Δq) = 1.2417 is right)."""
    variant = _v.choice("variant", variant, ("exact", "as_printed"))
    law = TruncatedNormal(0.5223, 1.5454, 0.5223)
    if variant == "as_printed":
        return Lemma410(1.1703, 1.2417, law)
    return Lemma410(epsilon(law, sensitivity=0.6), necessary_condition(law, sensitivity=0.6), law)
