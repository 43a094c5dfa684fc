"""Figure 3 of the paper: how many Zipf counts each method returns within the relative error.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Section 7.2 and Figure 3: select an unused item by
the exponential mechanism, release its count by Brownian noise reduction (unified filter, Thm 6) or by
doubling (zCDP filter, Thm 2), until the budget is spent. The paper leaves some loop details open; the
choices made here are listed in :func:`zipf_trials`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dpcore import _validate as _v
from dpcore.noise_reduction._checks import MAX_SUPPORT
from dpcore.noise_reduction.doubling import _doubling_run
from dpcore.noise_reduction.exponential import em_rho
from dpcore.noise_reduction.filter_budget import rho_budget
from dpcore.noise_reduction.release import _bm_run_linear
from dpcore.noise_reduction.unified_filter import PrivacyFilter, ZCDPFilter

__all__ = ["zipf_probabilities", "zipf_trials", "zipf_experiment"]


def zipf_probabilities(a: float = 0.75, support: int = 300) -> np.ndarray:
    """Zipf probabilities p_k ∝ k^(−a) on {1..support} (a may be < 1; Section 7.2, Figure 2)."""
    aa = _v.nonnegative("a", a)
    m = _v.integer("support", support, low=1, high=MAX_SUPPORT)
    w = np.arange(1, m + 1, dtype=float) ** (-aa)
    return w / w.sum()


def _zipf_trial(
    counts: np.ndarray,
    method: str,
    *,
    alpha: float,
    rho_total: float,
    rho_em: float,
    epsilon_em: float,
    s_min: float,
    grid_size: int,
    gen: np.random.Generator,
) -> tuple[int, float, float]:
    """One trial of the Figure 3 experiment for one method; returns (results, precision, rho spent)."""
    flt: PrivacyFilter
    if method == "noise_reduction":
        flt = PrivacyFilter.from_rho(rho_total, record=False)
    else:
        flt = ZCDPFilter.from_rho(rho_total, record=False)
    k = counts.size
    left = k
    scores = counts.astype(float)  # removed candidates get -inf
    gumbel = gen.gumbel(0.0, 1.0 / epsilon_em, (16, k))
    row = 0
    returned = good = 0
    while left and flt.remaining_rho - rho_em >= s_min / 2.0:
        if row == gumbel.shape[0]:
            gumbel = gen.gumbel(0.0, 1.0 / epsilon_em, (64, k))
            row = 0
        j = int(np.argmax(scores + gumbel[row]))
        row += 1
        flt.charge_zcdp(rho_em)
        y = float(counts[j])
        scores[j] = -np.inf
        left -= 1
        if method == "noise_reduction":
            e_max = flt.remaining_epsilon_max  # the grid runs to the remaining budget (ε_max²/2 fits exactly)
            s_max = e_max * e_max
            flt.start_noise_reduction(e_max)
            if s_max <= s_min * (1 + 1e-9):
                s_t, yhat, ok = _bm_run_linear(y, s_max, s_max, 1, alpha, gen)
            else:
                s_t, yhat, ok = _bm_run_linear(y, s_min, s_max, grid_size, alpha, gen)
            flt.charge_noise_reduction(math.sqrt(s_t))
        else:
            _, ok, _, draws = _doubling_run(
                y,
                alpha,
                s_min,
                math.inf,
                flt.remaining_rho,
                1.0,
                gen,
                charge=flt.charge_zcdp,
                left=lambda: flt.remaining_rho,
            )
            yhat = draws[-1] if draws else math.nan
        if ok:
            returned += 1
            good += abs(abs(yhat) - abs(y)) < alpha * abs(y)
    precision = good / returned if returned else 1.0
    return returned, precision, flt.rho_spent


def zipf_trials(
    *,
    sample_sizes: Any = (8000, 16000, 32000, 64000, 128000),
    trials: int = 200,
    alpha: float = 0.1,
    epsilon: float = 10.0,
    delta: float = 1e-6,
    epsilon_em: float = 0.1,
    epsilon2_min: float = 1e-4,
    grid_size: int = 1000,
    a: float = 0.75,
    support: int = 300,
    em_neighbours: str = "add_remove",
    variant: str = "corrected",
    methods: Any = ("noise_reduction", "doubling"),
    rng: np.random.Generator | int | None = None,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """Per-trial results of the Figure 3 experiment (Section 7.2).

    Each trial draws n i.i.d. Zipf(a) values on {1..support}, then repeatedly selects an unused item
    by the exponential mechanism (charged :func:`em_rho`) and releases its count by Brownian noise
    reduction (grid of ``grid_size`` points equally spaced in ε² from ``epsilon2_min`` to the whole
    remaining budget, unified filter, Thm 6) or by doubling (Thm 2 filter), until the budget
    ρ* = rho_budget(ε, δ, variant) is used up. Columns: n, trial, method, results, precision, rho_spent.

    Details the paper leaves open, as chosen here: an item once selected is never selected again (else the
    top item would be picked forever); the exponential mechanism is charged ε_EM²/8 in zCDP units (ε_EM²/4
    in the paper's "sum of squared ε" units); the largest noise-reduction level uses all that is left after
    paying for the selection; doubling's last level is capped at what is left and a failure there is
    discarded; a trial stops when the items run out or less than ε²_min/2 would be left after a selection;
    "results" counts accepted releases and precision is the fraction of them within relative error α
    (1 when none); fresh data are drawn for every trial.
    """
    ns = _v.real_array("sample_sizes", sample_sizes, low=1, allow_inf=False)
    if ns.ndim != 1 or ns.size == 0 or np.any(ns != np.round(ns)):
        raise ValueError("sample_sizes must be a non-empty list of positive integers")
    t = _v.integer("trials", trials, low=1)
    al = _v.positive("alpha", alpha)
    eps = _v.positive("epsilon", epsilon)
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    e_em = _v.positive("epsilon_em", epsilon_em)
    s_min = _v.positive("epsilon2_min", epsilon2_min)
    g = _v.integer("grid_size", grid_size, low=2)
    p = zipf_probabilities(a, support)
    rho_em = float(em_rho(e_em, neighbours=em_neighbours))
    rho_total = float(rho_budget(eps, dl, variant=variant))
    if isinstance(methods, str):
        methods = (methods,)
    meths = [_v.choice("methods", m, ("noise_reduction", "doubling")) for m in _v.sequence("methods", methods)]
    if not meths:
        raise ValueError("methods must name at least one of 'noise_reduction', 'doubling'")
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable progress(fraction) or None")
    gen = _v.rng(rng)
    rows = []
    total = ns.size * t
    done = 0
    for n in ns.astype(int):
        for trial in range(t):
            counts = gen.multinomial(int(n), p)
            for m in meths:
                r, prec, spent = _zipf_trial(
                    counts,
                    m,
                    alpha=al,
                    rho_total=rho_total,
                    rho_em=rho_em,
                    epsilon_em=e_em,
                    s_min=s_min,
                    grid_size=g,
                    gen=gen,
                )
                rows.append((int(n), trial, m, r, prec, spent))
            done += 1
            if progress is not None:
                progress(done / total)
    return pd.DataFrame(rows, columns=["n", "trial", "method", "results", "precision", "rho_spent"])


def zipf_experiment(
    *,
    sample_sizes: Any = (8000, 16000, 32000, 64000, 128000),
    trials: int = 200,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[float], None] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Figure 3 summary: mean, sd and a ``confidence`` interval for the mean of results and precision.

    Section 7.2. One row per (n, method); intervals are Student-t intervals for
    the mean over trials (the paper's error bars are ± sd, also given). Other keyword arguments are
    passed to :func:`zipf_trials`.
    """
    conf = _v.probability("confidence", confidence, low_open=True, high_open=True)
    df = zipf_trials(sample_sizes=sample_sizes, trials=trials, rng=rng, progress=progress, **kwargs)
    out = []
    for (n, m), grp in df.groupby(["n", "method"], sort=True):
        row: dict[str, Any] = {"n": int(n), "method": m, "trials": len(grp)}
        k = len(grp)
        q = float(stats.t.ppf(0.5 + conf / 2, k - 1)) if k > 1 else math.nan
        for col in ("results", "precision", "rho_spent"):
            x = grp[col].to_numpy(dtype=float)
            mu = float(x.mean())
            sd = float(x.std(ddof=1)) if k > 1 else 0.0
            half = q * sd / math.sqrt(k) if k > 1 else math.nan
            row[f"{col}_mean"] = mu
            row[f"{col}_sd"] = sd
            row[f"{col}_ci_low"] = mu - half
            row[f"{col}_ci_high"] = mu + half
        out.append(row)
    return pd.DataFrame(out)
