"""One noise-reduction release with a stopping rule, many of them at once, and its cost against doubling.

Rogers, Samorodnitsky, Wu, Ramdas (NeurIPS 2023), Def. 4.2–4.4 (noise reduction with a stopping
function) and Section 7 (the relative-error rule and the comparison with the doubling method).
A Brownian release stopped at ε_T is charged ρ = ε_T²/2 (zCDP units) whatever the sensitivity, because
the noise at level ε has variance Δ²/ε²; a Laplace release is charged ε_T (pure ex-post ε).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.noise_reduction._checks import MAX_PATHS, _grid
from dpcore.noise_reduction.doubling import _doubling_run
from dpcore.noise_reduction.paths import (
    BrownianSampler,
    LaplaceSampler,
    _laplace_reverse_step_one,
    laplace_path,
)
from dpcore.noise_reduction.stopping_rule import _stop_mask, _stop_scalar

__all__ = ["NoiseReductionRelease", "release_with_stopping", "release_many", "cost_comparison"]


@dataclass(frozen=True)
class NoiseReductionRelease:
    """Outcome of one noise-reduction release (Brownian or Laplace) with a stopping rule.

    ``release`` is the last released value (the answer if ``accepted``; the paper discards it
    otherwise); ``epsilon_stop``/``index`` its level; ``charge`` what a filter is charged:
    ρ = ε_T²/2 for Brownian (zCDP units), ε_T for Laplace (ex-post ε); ``charge_max`` the ex-ante
    worst case (the last grid level); ``loss`` the realised privacy loss against ``neighbour``;
    ``epsilons``/``releases`` the levels and values released up to and including the stop.
    """

    release: float
    epsilon_stop: float
    index: int
    accepted: bool
    mechanism: str
    charge: float
    charge_max: float
    loss: float
    neighbour: float
    epsilons: np.ndarray
    releases: np.ndarray


def _bm_run(
    y: float, s: np.ndarray, alpha: float, sens: float, gen: np.random.Generator, keep_path: bool = False
) -> tuple[int, float, bool, np.ndarray | None]:
    """Lazy Brownian path on the ε² grid ``s`` until the relative-error rule fires (chunked)."""
    k = s.size
    w_prev, s_prev, start, chunk = 0.0, 0.0, 0, 32
    pieces = []
    yhat = np.empty(0)
    while start < k:
        end = min(k, start + chunk)
        ss = s[start:end]
        inc = np.sqrt(np.diff(ss, prepend=s_prev)) * gen.standard_normal(end - start)
        w = w_prev + np.cumsum(inc)
        yhat = y + sens * w / ss
        ok = np.flatnonzero(_stop_mask(yhat, sens / np.sqrt(ss), alpha))
        if ok.size:
            i = int(ok[0])
            if keep_path:
                pieces.append(yhat[: i + 1])
            return start + i, float(yhat[i]), True, (np.concatenate(pieces) if keep_path else None)
        if keep_path:
            pieces.append(yhat)
        w_prev, s_prev, start, chunk = float(w[-1]), float(ss[-1]), end, chunk * 2
    return k - 1, float(yhat[-1]), False, (np.concatenate(pieces) if keep_path else None)


def _bm_run_linear(
    y: float, s0: float, s1: float, k: int, alpha: float, gen: np.random.Generator
) -> tuple[float, float, bool]:
    """:func:`_bm_run` on the grid linspace(s0, s1, k) in ε² (the experiments' grid), without building the grid.

    Returns (ε_T², ŷ_T, accepted). All increments but the first have variance h = (s1 − s0)/(k − 1).
    """
    h = (s1 - s0) / (k - 1) if k > 1 else 0.0
    rh = math.sqrt(h)
    w_prev, start, chunk = 0.0, 0, 32
    ss: np.ndarray = np.empty(0)
    yhat = np.empty(0)
    while start < k:
        end = min(k, start + chunk)
        ss = s0 + np.arange(start, end) * h
        if end == k:
            ss[-1] = s1
        scale = np.full(end - start, rh)
        if start == 0:
            scale[0] = math.sqrt(s0)  # W(s0) ~ N(0, s0)
        w = np.cumsum(gen.standard_normal(end - start) * scale)
        w += w_prev
        yhat = y + w / ss
        ok = np.flatnonzero(_stop_mask(yhat, 1.0 / np.sqrt(ss), alpha))
        if ok.size:
            i = int(ok[0])
            return float(ss[i]), float(yhat[i]), True
        w_prev, start, chunk = float(w[-1]), end, chunk * 2
    return float(ss[-1]), float(yhat[-1]), False


def release_with_stopping(
    value: float,
    *,
    epsilons: Any,
    alpha: float,
    mechanism: str = "brownian",
    sensitivity: float = 1.0,
    neighbour: float | None = None,
    stop: Callable[[np.ndarray, np.ndarray], bool] | None = None,
    rng: np.random.Generator | int | None = None,
) -> NoiseReductionRelease:
    """Release ``value`` by noise reduction over ``epsilons``, stopping by the relative-error rule.

    Def 4.4 (Brownian) or Def A.1 (Laplace) with a stopping function (Def 4.3). The
    default rule is :func:`relative_error_stop` with ``alpha``; a custom ``stop(epsilons, releases)``
    sees only the levels and values released so far (never ``value``). If the rule never fires, the
    last level is reached and ``accepted`` is False. ``neighbour`` defaults to the worst case
    value − sensitivity; the loss is then ε_T²/2 + ε_T²·Z_T/Δ (Brownian) or in [−ε_T, ε_T] (Laplace).
    """
    y = _v.real("value", value)
    eps = _grid("epsilons", epsilons)
    a = _v.positive("alpha", alpha)
    mech = _v.choice("mechanism", mechanism, ("brownian", "laplace"))
    sens = _v.scale("sensitivity", sensitivity)
    nb = y - sens if neighbour is None else _v.real("neighbour", neighbour)
    gen = _v.rng(rng)
    if stop is not None and not callable(stop):
        raise ValueError("stop must be a callable stop(epsilons, releases) -> bool or None")
    if stop is None and mech == "brownian":
        idx, yhat, ok, path = _bm_run(y, eps * eps, a, sens, gen, keep_path=True)
        assert path is not None
    elif stop is None and eps[0] >= _v.MIN_SCALE and eps[-1] <= _v.MAX_SCALE:  # Laplace, every level valid
        idx, ok, path = _laplace_run(y, eps, a, sens, gen)
        yhat = float(path[-1])
    else:
        sampler: BrownianSampler | LaplaceSampler
        if mech == "brownian":
            sampler = BrownianSampler(sensitivity=sens, rng=gen)
        else:
            sampler = LaplaceSampler(sensitivity=sens, rng=gen)
        vals: list[float] = []
        ok = False
        idx = eps.size - 1
        for j, e in enumerate(eps):
            vals.append(y + float(sampler.step(float(e))[0]))
            if stop is None:
                ok = bool(_stop_scalar(vals[-1], sens / float(e), a))
            else:
                ok = bool(stop(eps[: j + 1].copy(), np.asarray(vals)))
            if ok:
                idx = j
                break
        path = np.asarray(vals)
        yhat = float(path[-1])
    e_t = float(eps[idx])
    if mech == "brownian":
        charge, charge_max = e_t**2 / 2.0, float(eps[-1]) ** 2 / 2.0
        loss = (e_t**2 / (2 * sens**2)) * ((yhat - nb) ** 2 - (yhat - y) ** 2)
    else:
        charge, charge_max = e_t, float(eps[-1])
        loss = (e_t / sens) * (abs(yhat - nb) - abs(yhat - y))
    return NoiseReductionRelease(
        release=yhat,
        epsilon_stop=e_t,
        index=int(idx),
        accepted=bool(ok),
        mechanism=mech,
        charge=float(charge),
        charge_max=float(charge_max),
        loss=float(loss),
        neighbour=float(nb),
        epsilons=eps[: idx + 1].copy(),
        releases=np.asarray(path, dtype=float),
    )


def _laplace_run(
    y: float, eps: np.ndarray, alpha: float, sens: float, gen: np.random.Generator
) -> tuple[int, bool, np.ndarray]:
    """One Laplace noise reduction (Def. A.1) with the relative-error rule, level by level: what
    :class:`LaplaceSampler` with one path draws, step for step (:func:`_laplace_reverse_step_one`). Returns
    (stopping index, accepted, releases up to the stop)."""
    vals: list[float] = []
    x, b = 0.0, math.inf
    for j, e in enumerate(eps):
        e = float(e)
        b2 = sens / e
        x = float(gen.laplace(0.0, b2)) if math.isinf(b) else _laplace_reverse_step_one(x, b, b2, gen)
        b = b2
        vals.append(y + x)
        if _stop_scalar(vals[-1], sens / e, alpha):
            return j, True, np.asarray(vals)
    return eps.size - 1, False, np.asarray(vals)


def _bm_many(
    y: float, eps: np.ndarray, alpha: float, sens: float, n: int, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Brownian runs with the relative-error rule, drawn level-chunk by level-chunk and only for
    the runs that have not stopped yet. Returns (stopping index, release at the stop)."""
    s = eps * eps
    k = s.size
    w = np.zeros(n)
    idx = np.full(n, k - 1)
    rel = np.empty(n)
    found = np.zeros(n, dtype=bool)
    start, chunk = 0, 32
    while start < k and not found.all():
        end = min(k, start + chunk)
        steps = np.sqrt(np.diff(s[start:end], prepend=s[start - 1] if start else 0.0))
        rows = np.flatnonzero(~found)
        big_w = w[rows, None] + np.cumsum(gen.standard_normal((rows.size, end - start)) * steps, axis=1)
        yh = y + sens * big_w / s[start:end]
        st = _stop_mask(yh, sens / eps[start:end], alpha)
        hit = st.any(axis=1)
        j = st.argmax(axis=1)
        r_hit = rows[hit]
        idx[r_hit] = start + j[hit]
        rel[r_hit] = yh[hit, j[hit]]
        found[r_hit] = True
        w[rows] = big_w[:, -1]
        if end == k:
            rel[rows[~hit]] = yh[~hit, -1]
        start, chunk = end, chunk * 2
    return idx, rel


def release_many(
    value: float,
    *,
    epsilons: Any,
    alpha: float,
    n_runs: int,
    mechanism: str = "brownian",
    sensitivity: float = 1.0,
    neighbour: float | None = None,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """``n_runs`` independent :func:`release_with_stopping` runs (default rule), vectorised.

    Same law as repeated calls (the rule only looks at released values, so drawing whole paths
    first is equivalent). Columns: release, epsilon_stop, index, accepted, charge, loss — the
    distribution of the stopping level and of the ex-post loss against the ex-ante worst case
    ``charge_max`` (= last level).
    """
    y = _v.real("value", value)
    eps = _grid("epsilons", epsilons)
    a = _v.positive("alpha", alpha)
    n = _v.integer("n_runs", n_runs, low=1, high=MAX_PATHS)
    mech = _v.choice("mechanism", mechanism, ("brownian", "laplace"))
    sens = _v.scale("sensitivity", sensitivity)
    nb = y - sens if neighbour is None else _v.real("neighbour", neighbour)
    gen = _v.rng(rng)
    k = eps.size
    if mech == "brownian":
        idx, yhat = _bm_many(y, eps, a, sens, n, gen)
    else:
        block = max(1, min(n, 2_000_000 // k))
        idx_l, rel_l = [], []
        done = 0
        while done < n:
            m = min(block, n - done)
            yh = y + laplace_path(eps, n_paths=m, sensitivity=sens, rng=gen)
            stop = _stop_mask(yh, sens / eps, a)
            ii = np.where(stop.any(axis=1), stop.argmax(axis=1), k - 1)
            idx_l.append(ii)
            rel_l.append(yh[np.arange(m), ii])
            done += m
        idx = np.concatenate(idx_l)
        yhat = np.concatenate(rel_l)
    e_t = eps[idx]
    accepted = _stop_mask(yhat, sens / e_t, a)
    if mech == "brownian":
        charge = e_t**2 / 2.0
        loss = (e_t**2 / (2 * sens**2)) * ((yhat - nb) ** 2 - (yhat - y) ** 2)
    else:
        charge = e_t.copy()
        loss = (e_t / sens) * (np.abs(yhat - nb) - np.abs(yhat - y))
    return pd.DataFrame(
        {
            "release": yhat,
            "epsilon_stop": e_t,
            "index": idx,
            "accepted": accepted,
            "charge": charge,
            "loss": loss,
        }
    )


def cost_comparison(
    values: Any,
    *,
    alpha: float = 0.1,
    epsilon2_min: float = 1e-4,
    epsilon2_max: float = 2.706029,
    grid_size: int = 1000,
    draws: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Expected ε² spent per count, Brownian noise reduction vs doubling vs the oracle (Section 7).

    For each true count y: BM on linspace(ε²_min, ε²_max, grid_size) charged ε_T² (i.e. 2ρ), and
    doubling from ε²_min capped at ε²_max charged Σ ε_i²; oracle ((2+α)/α / y)². Columns: value,
    bm_cost, bm_cost_se, doubling_cost, doubling_cost_se, ratio, oracle, bm_precision,
    doubling_precision (fraction of accepted releases within relative error α).
    """
    ys = _v.real_array("values", values, allow_inf=False)
    if ys.ndim > 1 or ys.size == 0:
        raise ValueError("values must be a non-empty 1-d list of true counts")
    ys = np.atleast_1d(ys)
    a = _v.positive("alpha", alpha)
    s0 = _v.positive("epsilon2_min", epsilon2_min)
    s1 = _v.positive("epsilon2_max", epsilon2_max)
    if s1 < s0:
        raise ValueError(f"epsilon2_max must be >= epsilon2_min = {s0:g}, got {s1:g}")
    g = _v.integer("grid_size", grid_size, low=1)
    nd = _v.integer("draws", draws, low=2)
    gen = _v.rng(rng)
    rows = []
    for y in ys:
        yv = float(y)
        bm = np.empty(nd)
        db = np.empty(nd)
        bm_ok = bm_good = db_ok = db_good = 0
        for i in range(nd):
            if g == 1 or s1 <= s0:
                s_t, yh, ok = _bm_run_linear(yv, s1, s1, 1, a, gen)
            else:
                s_t, yh, ok = _bm_run_linear(yv, s0, s1, g, a, gen)
            bm[i] = s_t
            bm_ok += ok
            bm_good += ok and abs(abs(yh) - abs(yv)) < a * abs(yv)
            spent, ok2, _, draws_ = _doubling_run(yv, a, s0, s1, math.inf, 1.0, gen)
            db[i] = 2.0 * spent
            db_ok += ok2
            db_good += ok2 and abs(abs(draws_[-1]) - abs(yv)) < a * abs(yv)
        rows.append(
            {
                "value": yv,
                "bm_cost": bm.mean(),
                "bm_cost_se": bm.std(ddof=1) / math.sqrt(nd),
                "doubling_cost": db.mean(),
                "doubling_cost_se": db.std(ddof=1) / math.sqrt(nd),
                "ratio": db.mean() / bm.mean(),
                "oracle": ((2 + a) / a / yv) ** 2 if yv != 0 else math.inf,
                "bm_precision": bm_good / bm_ok if bm_ok else 1.0,
                "doubling_precision": db_good / db_ok if db_ok else 1.0,
            }
        )
    return pd.DataFrame(rows)
