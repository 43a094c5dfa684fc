"""Table I of Mohammady et al. (2020) for the sidebar's law and for every family's best law: usefulness, noise
sizes (the corrected ℓ2 and entropy) and the laws."""

from __future__ import annotations

import math

import pandas as pd

from app.catalogue.r2dp import FAMILY
from app.compute._cache import cached
from app.compute.r2dp.law import LawKey, describe, make_law, optimum, staircase
from app.notation import number
from dpcore import r2dp


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
        rows.append(
            {
                "mechanism": name,
                "exact ε": _fmt(r2dp.epsilon(law, sensitivity=sensitivity)),
                "U(γ)": f"{float(r2dp.usefulness(law, gamma=gamma)):.4f}",
                "E|W| (ℓ1)": _fmt(r2dp.mean_abs_noise(law)),
                "RMS (ℓ2, corrected)": _fmt(r2dp.rms_noise(law)),
                "RMS as printed": _fmt(r2dp.rms_noise(law, variant="as_printed")),
                "entropy (corrected)": _fmt(exact_entropy),
                "entropy as printed": _fmt(printed_entropy),
                "ln M(Δq)": _fmt(r2dp.necessary_condition(law, sensitivity=sensitivity)),
            }
        )
    return pd.DataFrame(rows)


#: Rows of the family table (part "Families"), in order; their words are :data:`app.catalogue.r2dp.FAMILY`'s.
TABLE_FAMILIES = ("gamma", "uniform", "truncnorm", "combo", "two_point")


def family_optima(epsilon: float, gamma: float, sensitivity: float) -> pd.DataFrame:
    """Algorithm 1 for every family at (ε, γ, Δq), with Laplace and the staircase (Table I columns ℓ1, ℓ2).

    Up to seconds on a new setting (Gamma + TN): the page runs it as a background job (:mod:`app.background`).

    Columns: mechanism, family (the family's id, "laplace" and "staircase" for the baselines), U(γ), ratio to
    Laplace, beats Laplace, E|W|, RMS and the optimal law.
    """
    lap_law = r2dp.Dirac(epsilon / sensitivity)
    lap = float(r2dp.usefulness(lap_law, gamma=gamma))
    rows = [("Laplace", "laplace", lap, 1.0, False, lap_law)]
    for fam in TABLE_FAMILIES:
        res = optimum.__wrapped__(epsilon, gamma, sensitivity, fam)
        rows.append((FAMILY[fam].table, fam, res.usefulness, res.ratio, not res.laplace_optimal, res.law))
    out = pd.DataFrame(
        [
            {
                "mechanism": label,
                "family": fam,
                "U(γ)": u,
                "ratio to Laplace": ratio,
                "beats Laplace": beats,
                "E|W| (ℓ1)": _fmt(r2dp.mean_abs_noise(law)),
                "RMS (ℓ2)": _fmt(r2dp.rms_noise(law)),
                "optimal law": describe(law),
            }
            for label, fam, u, ratio, beats, law in rows
        ]
    )
    stair = staircase.__wrapped__(epsilon, gamma, sensitivity)
    staircase_row = {
        "mechanism": "optimal staircase (not R²DP)",
        "family": "staircase",
        "U(γ)": stair,
        "ratio to Laplace": stair / lap,
        "beats Laplace": stair > lap * (1 + 1e-12),
        "E|W| (ℓ1)": "",
        "RMS (ℓ2)": "",
        "optimal law": "staircase noise, r* = frac(γ/Δ)",
    }
    return pd.concat([out, pd.DataFrame([staircase_row])], ignore_index=True)
