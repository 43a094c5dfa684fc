"""The exponential mechanism used to pick the next count in the paper's experiments.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Section 7.2: Gumbel noise of scale 1/ε_EM on every
count, take the arg-max; charged ε_EM²/8 in zCDP (Cesar & Rogers 2021, bounded-range analysis).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore import _validate as _v

__all__ = ["em_rho", "exponential_mechanism"]


def em_rho(epsilon: Any, *, neighbours: str = "add_remove") -> np.ndarray | float:
    """zCDP cost of the exponential mechanism P(j) ∝ exp(ε·u_j/Δ) (Cesar–Rogers bounded range).

    ε²/8 for monotone utilities (add/remove neighbours, the paper's choice), ε²/2 if counts can move
    in both directions (replace-one neighbours): the paper's ε²/8 needs the utility range to be ε, which holds
    for monotone counts only.
    """
    e = _v.real_array("epsilon", epsilon, low=0.0, high=_v.MAX_MAGNITUDE, allow_inf=False)
    nb = _v.choice("neighbours", neighbours, ("add_remove", "replace"))
    out = e**2 / (8.0 if nb == "add_remove" else 2.0)
    return out if out.ndim else float(out)


def exponential_mechanism(
    scores: Any,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    candidates: Any = None,
    rng: np.random.Generator | int | None = None,
) -> int | np.ndarray:
    """Exponential mechanism by the Gumbel-max trick: argmax of score + Gumbel(Δ/ε) (Section 7.2).

    Selects j with probability ∝ exp(ε·score_j/Δ) among ``candidates`` (a boolean mask, default all).
    ``scores`` may be 2-d (one selection per row). Charge: :func:`em_rho`.
    """
    sc = _v.real_array("scores", scores, allow_inf=False)
    if sc.ndim not in (1, 2) or sc.shape[-1] == 0:
        raise ValueError("scores must be a non-empty 1-d or 2-d array")
    e = _v.positive("epsilon", epsilon)
    sens = _v.scale("sensitivity", sensitivity)
    gen = _v.rng(rng)
    noisy = sc + gen.gumbel(0.0, sens / e, sc.shape)
    if candidates is not None:
        mask = np.asarray(candidates, dtype=bool)
        if mask.shape != sc.shape[-1:] or not mask.any():
            raise ValueError("candidates must be a boolean mask of length scores.shape[-1] with a True entry")
        noisy = np.where(mask, noisy, -np.inf)
    idx = np.argmax(noisy, axis=-1)
    return int(idx) if np.ndim(idx) == 0 else idx
