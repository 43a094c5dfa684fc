"""The BR-DP budget split (Jiang et al. 2024, Alg. 2, Figs. 3–4): the landscape over the kernel's share of ε, the
recycling probability q against it, and the acceptance the optimum reaches at every ε."""

from __future__ import annotations

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.brdp.plans import Calibration
from app.notation import number
from dpcore import brdp

# the exact optimiser is slow per ε (bench/results-where-time-goes.md)
EXACT_ACCEPTANCE_EPS = (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0)


@cached
def landscape(
    epsilon: float, delta: float, sensitivity: float, theta: float, kernel: brdp.Kernel, calibration: Calibration
) -> pd.DataFrame:
    """Alg. 2 landscape over ε_y ∈ (0, ε]: acceptance, q (Alg. 1), q_base, p_θ, δ's."""
    return brdp.budget_split_landscape(
        epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta, kernel=kernel, calibration=calibration, n=80
    )


@cached
def q_curves(
    epsilon: float,
    deltas: tuple[float, ...],
    sensitivity: float,
    theta: float,
    kernel: brdp.Kernel,
    calibration: Calibration,
) -> pd.DataFrame:
    """q against ε_y (Fig. 3): Alg. 1 for each δ and the baseline 1 − e^{−(ε − ε_y)}.

    Long form: epsilon_y, curve ("baseline" or "δ = …"), delta, q.
    """
    frames = []
    for i, dl in enumerate(deltas):
        df = brdp.budget_split_landscape(
            epsilon=epsilon,
            delta=dl,
            sensitivity=sensitivity,
            theta=theta,
            kernel=kernel,
            calibration=calibration,
            n=60,
            exact=False,
        )
        if i == 0:
            frames.append(
                pd.DataFrame({"epsilon_y": df["epsilon_y"], "curve": "baseline", "delta": np.nan, "q": df["q_base"]})
            )
        frames.append(
            pd.DataFrame(
                {"epsilon_y": df["epsilon_y"], "curve": f"Alg. 1, δ = {number(dl)}", "delta": dl, "q": df["q"]}
            )
        )
    return pd.concat(frames, ignore_index=True)


@cached(show_spinner="Optimising the split at every ε …")
def acceptance(
    delta: float, sensitivity: float, theta: float, kernel: brdp.Kernel, calibration: Calibration, exact: bool = True
) -> pd.DataFrame:
    """Acceptance against total ε (Fig. 4): DP and BR-DP (paper) on 24 ε from 0.25 to 6, and
    BR-DP with the exact optimiser at :data:`EXACT_ACCEPTANCE_EPS` (NaN elsewhere; NaN throughout if not exact)."""
    grid = np.round(np.linspace(0.25, 6.0, 24), 4)
    df = brdp.acceptance_curve(
        grid, delta=delta, sensitivity=sensitivity, theta=theta, kernel=kernel, calibration=calibration
    )
    if exact:
        ex = brdp.acceptance_curve(
            list(EXACT_ACCEPTANCE_EPS),
            delta=delta,
            sensitivity=sensitivity,
            theta=theta,
            kernel=kernel,
            calibration=calibration,
            exact=True,
        )
        df = (
            pd.concat([df.drop(columns="brdp_exact"), ex[["epsilon", "brdp_exact"]]])
            .groupby("epsilon", as_index=False)
            .first()
        )
    return df
