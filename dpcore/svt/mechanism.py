"""The SVT mechanism itself: Algorithm 1 (classic SVT), Algorithm 2 (SVT-Exp) and Algorithm 5 (SVT-Gum)
(Liu et al. 2024, §2.2, §4.1, §4.4, App. F), with the budget of Theorems 3 and 9.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.svt.calibration import BudgetSplit, split_budget
from dpcore.svt.correction import correction_term
from dpcore.svt.noise import sample_noise

__all__ = ["SVTRun", "run_svt"]


@dataclass(frozen=True)
class SVTRun:
    """Transcript of one SVT run: selections, every comparison (one row each) and the budget spent."""

    selected: np.ndarray  # query indices answered ⊤, in order
    comparisons: pd.DataFrame  # step, index, pass, answer, threshold, query_noise, threshold_noise, ...
    calibration: BudgetSplit
    correction: float  # r added to the noisy threshold
    k: int  # k used for r^op
    n_comparisons: int
    n_positive: int
    n_threshold_draws: int
    halted: str  # "cutoff" | "k_max" | "exhausted"
    resample: bool
    append: bool
    traverses: int | None
    k_max: int
    epsilon_spent: float  # ε₁ + ε₂, or c·ε₁ + ε₂ with RESAMPLE (corrected Thm 3)
    delta_spent: float  # nominal δ of the Gaussian calibration (0 for pure-DP pairs)


def _resolve_correction(correction, sp: BudgetSplit, *, k: int, alpha: float) -> float:
    if isinstance(correction, str):
        correction = _v.choice("correction", correction, ("optimal", "mean", "none"))
        if correction == "none":
            return 0.0
        if correction == "mean":
            return sp.mean_correction
        return correction_term(
            sp.threshold_scale,
            sp.query_scale,
            k=k,
            alpha=alpha,
            query_noise=sp.noise,
            threshold_noise=sp.threshold_noise,
        ).r
    return _v.real("correction", correction)


def run_svt(
    answers,
    *,
    threshold,
    epsilon: float,
    c: int,
    noise: str = "exponential",
    correction: str | float = "optimal",
    append: bool = False,
    resample: bool = False,
    rng=None,
    k: int | None = None,
    alpha: float = 0.0,
    traverses: int | None = None,
    k_max: int | None = None,
    monotonic: bool = False,
    sensitivity: float = 1.0,
    delta: float = 1e-5,
    threshold_noise: str | None = None,
    w: float | None = None,
) -> SVTRun:
    """Run SVT on a queue of answers: Alg. 1 (any calibrated pair) / Alg. 2 (SVT-Exp) / Alg. 5 (SVT-Gum).

    A query is ⊤ iff q + v ≥ T + ρ + r. Halts after c ⊤'s, after ``k_max`` comparisons (checked after every
    comparison — Alg. 2 tests k_max only after a ⊤ and loops forever when nothing passes), or when the queue is empty.
    With ``append`` a ⊥ query goes to the back of the queue until it has been compared ``traverses`` times
    (default: unlimited, bounded by k_max; k_max defaults to n·traverses, or 100·n if unlimited).
    ``correction``: "optimal" (r^op of Eq. 9 with k = ⌊n/c⌋ unless given), "mean" (E[v]), "none" or a number.
    Budget: ε₁ + ε₂, or c·ε₁ + ε₂ with ``resample`` (Theorem 3, read as pure (cε₁ + ε₂)-DP as its proof gives).
    Pass-by-pass vectorised; equivalent in law to the sequential loop of Alg. 2.
    """
    q = _v.real_array("answers", answers)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("answers must be a non-empty one-dimensional array")
    n = q.size
    T = _v.real_array("threshold", threshold, allow_inf=False)
    if T.ndim == 0:
        T = np.full(n, float(T))
    elif T.shape != (n,):
        raise ValueError("threshold must be a scalar or have the same length as answers")
    sp = split_budget(
        epsilon,
        c=c,
        noise=noise,
        monotonic=monotonic,
        sensitivity=sensitivity,
        w=w,
        threshold_noise=threshold_noise,
        delta=delta,
    )
    c = sp.c
    a = _v.nonnegative("alpha", alpha)
    k_ = max(n // c, 1) if k is None else _v.integer("k", k, low=1)
    t_cap = None if traverses is None else _v.integer("traverses", traverses, low=1)
    if not append:
        t_cap = 1
    if k_max is None:
        k_max_ = n * (t_cap if t_cap is not None else 100)
    else:
        k_max_ = _v.integer("k_max", k_max, low=1)
    r = _resolve_correction(correction, sp, k=k_, alpha=a)
    g = _v.rng(rng)

    def draw_rho():
        return float(sample_noise(sp.threshold_noise, sp.threshold_scale, 1, g)[0])

    rho = draw_rho()
    n_draws = 1
    n_c = n_a = 0
    halted = "exhausted"
    rec_idx, rec_pass, rec_v, rec_rho, rec_top = [], [], [], [], []
    selected: list[int] = []
    queue = np.arange(n)
    pass_no = 0
    while queue.size and halted == "exhausted":
        pass_no += 1
        v_all = sample_noise(sp.noise, sp.query_scale, queue.size, g)
        pos = 0
        negatives = []
        while pos < queue.size:
            if n_a >= k_max_:  # checked before every comparison (Alg. 2 checks only after a ⊤)
                halted = "k_max"
                break
            idx = queue[pos:]
            v = v_all[pos:]
            top = q[idx] + v >= T[idx] + rho + r
            # truncate at the first of: the ⊤ that reaches c (or the first ⊤ with RESAMPLE), or k_max
            need = 1 if resample else c - n_c
            top_pos = np.flatnonzero(top)
            stop = idx.size  # exclusive end of the processed segment
            reason = None
            if top_pos.size >= need:
                stop = int(top_pos[need - 1]) + 1
                reason = "resample" if resample else "cutoff"
            if stop > k_max_ - n_a:
                stop, reason = k_max_ - n_a, None
            seg_top = top[:stop]
            rec_idx.append(idx[:stop])
            rec_pass.append(np.full(stop, pass_no))
            rec_v.append(v[:stop])
            rec_rho.append(np.full(stop, rho))
            rec_top.append(seg_top)
            n_a += stop
            new_pos = idx[:stop][seg_top]
            selected.extend(int(i) for i in new_pos)
            n_c += int(seg_top.sum())
            negatives.append(idx[:stop][~seg_top])
            pos += stop
            if reason == "resample":  # Alg. 1 line 7 / Alg. 2 line 10: redraw after every ⊤
                rho = draw_rho()
                n_draws += 1
                if n_c >= c:
                    halted = "cutoff"
            elif reason == "cutoff":
                halted = "cutoff"
            if halted != "exhausted":
                break
        if halted != "exhausted":
            break
        neg = np.concatenate(negatives) if negatives else np.empty(0, int)
        if t_cap is not None and pass_no >= t_cap:
            break
        queue = neg

    idx = np.concatenate(rec_idx) if rec_idx else np.empty(0, int)
    v = np.concatenate(rec_v) if rec_v else np.empty(0)
    rho_arr = np.concatenate(rec_rho) if rec_rho else np.empty(0)
    top = np.concatenate(rec_top) if rec_top else np.empty(0, bool)
    comp = pd.DataFrame(
        {
            "step": np.arange(1, idx.size + 1),
            "index": idx,
            "pass": np.concatenate(rec_pass) if rec_pass else np.empty(0, int),
            "answer": q[idx],
            "threshold": T[idx],
            "query_noise": v,
            "threshold_noise": rho_arr,
            "correction": np.full(idx.size, r),
            "noisy_answer": q[idx] + v,
            "noisy_threshold": T[idx] + rho_arr + r,
            "positive": top,
            "n_positive": np.cumsum(top),
        }
    )
    return SVTRun(
        selected=np.asarray(selected, dtype=int),
        comparisons=comp,
        calibration=sp,
        correction=float(r),
        k=k_,
        n_comparisons=int(n_a),
        n_positive=int(n_c),
        n_threshold_draws=n_draws,
        halted=halted,
        resample=bool(resample),
        append=bool(append),
        traverses=t_cap,
        k_max=k_max_,
        epsilon_spent=sp.total_epsilon(resample),
        delta_spent=sp.delta,
    )
