"""The paper's misprints in numbers (Rogers et al. 2023, Thm 5, Thm 6, Lemma 5.2; docs/errata.md): the printed
and corrected constants and what composing many noise reductions certifies under each bound."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore import filters as fl
from dpcore import noise_reduction as nr


@cached
def constants(epsilon: float, delta: float) -> pd.DataFrame:
    """ε(ρ) certified by Thm 6 with the corrected constant 2√(ρ log(1/δ'')) and the printed 2√(2ρ log(1/δ''))."""
    top = 1.5 * float(fl.rho_budget(epsilon, delta))
    rho = np.linspace(0.0, top, 200)
    return pd.DataFrame(
        {
            "rho": rho,
            "corrected": fl.zcdp_epsilon(rho, delta),
            "as_printed": fl.zcdp_epsilon(rho, delta, variant="as_printed"),
        }
    )


@dataclass(frozen=True)
class Errata:
    """Printed vs correct numbers for the paper's three misprints that change a number (see :func:`errata`)."""

    rho_corrected: float
    rho_printed: float
    thm5_v: float
    thm5_printed: float
    thm5_corrected: float
    thm6_for_same_v: float
    lemma52_spent: float
    lemma52_printed_worst: float
    lemma52_admits_corrected: bool
    lemma52_corrected_max: float


@cached
def errata(epsilon: float, delta: float, count: int, levels: int) -> Errata:
    """Numbers for the misprints: Thm 6's constant, Thm 5's missing drift and Lemma 5.2's admission rule.

    Thm 5: ``count`` Brownian reductions each stopped at ε² = 0.01 (V = 0.01·count, γ = 0.01), printed ψ(V) vs
    V/2 + ψ(V). Lemma 5.2: after 90 % of an ex-post budget ε is spent, the printed rule (Σ_{i<n} ℰ_i ≤ ε) still
    admits a Laplace noise reduction whose grid tops at ε, so the worst-case total is 1.9ε, not ε.
    """
    v = 0.01 * count
    ex = fl.ExPostFilter(epsilon)
    ex.start(0.9 * epsilon, label="earlier releases")
    ex.charge(0.9 * epsilon)
    return Errata(
        rho_corrected=float(fl.rho_budget(epsilon, delta)),
        rho_printed=float(fl.rho_budget(epsilon, delta, variant="as_printed")),
        thm5_v=v,
        thm5_printed=float(nr.brownian_expost_bound(v, gamma=0.01, delta=delta, variant="as_printed")),
        thm5_corrected=float(nr.brownian_expost_bound(v, gamma=0.01, delta=delta)),
        thm6_for_same_v=float(fl.zcdp_epsilon(v / 2.0, delta)),
        lemma52_spent=ex.epsilon_spent,
        lemma52_printed_worst=ex.epsilon_spent + epsilon,
        lemma52_admits_corrected=bool(ex.can_start(epsilon_max=epsilon)),
        lemma52_corrected_max=ex.remaining_epsilon,
    )


@cached
def composition_curves(delta: float, eps2: float = 0.01, gamma: float = 0.01) -> pd.DataFrame:
    """ε after m Brownian noise reductions each stopped at ε² = ``eps2``, m = 1 … 1000.

    Thm 6: zcdp_epsilon(m·ε²/2, δ); Thm 5 with its drift restored: V/2 + ψ(V; γ, δ) with V = m·ε²; basic
    ex-post composition (Lemma 5.1): m·(ε²/2 + ψ(ε²; γ, δ/m)).
    """
    m = np.unique(np.append(np.round(np.geomspace(1, 1000, 60)), [10.0, 100.0]))
    single = eps2 / 2.0 + np.array([nr.psi(eps2, gamma=gamma, delta=delta / k) for k in m])
    return pd.DataFrame(
        {
            "m": m,
            "thm6": fl.zcdp_epsilon(m * eps2 / 2.0, delta),
            "thm5": nr.brownian_expost_bound(m * eps2, gamma=gamma, delta=delta),
            "basic": m * single,
        }
    )
