"""The data of an audit's pictures: per-bin likelihood ratios with their intervals, a histogram of both samples and
how the bound tightens with the number of samples."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.audit.bounds import _alpha, _codes, clopper_pearson, delta_lower_bound, epsilon_lower_bound


def likelihood_ratios(
    out_d, out_dprime, *, alpha: float = 0.05, bins: int = 40, discrete: bool = False, labels=None
) -> pd.DataFrame:
    """Per-bin output frequencies of both inputs and the empirical log-likelihood ratio ln(p/p′) with a
    conservative CI [ln(p_lo/p′_hi), ln(p_hi/p′_lo)] from two-sided Clopper–Pearson bounds (each at level α/2)."""
    a = _alpha(alpha)
    x = _v.real_array("out_d", out_d).ravel()
    y = _v.real_array("out_dprime", out_dprime).ravel()
    bins = _v.integer("bins", bins, low=2, high=10_000)
    cx, cy, edges, cats = _codes(x, y, bins=bins, discrete=discrete, sel=x.size, sel_y=y.size)
    nb = (edges.size - 1) if edges is not None else cats.size
    kx, ky = np.bincount(cx, minlength=nb + 1)[:nb], np.bincount(cy, minlength=nb + 1)[:nb]
    lo_x, hi_x = clopper_pearson(kx, x.size, alpha=a / 2)
    lo_y, hi_y = clopper_pearson(ky, y.size, alpha=a / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame: dict[str, Any] = {
            "count_d": kx,
            "count_dprime": ky,
            "p_d": kx / x.size,
            "p_dprime": ky / y.size,
            "llr": np.log(kx / x.size) - np.log(ky / y.size),
            "llr_lo": np.log(lo_x) - np.log(hi_y),
            "llr_hi": np.log(hi_x) - np.log(lo_y),
        }
    if edges is None:
        frame = {"outcome": cats.astype(int), "label": [labels[int(c)] if labels else f"{c:g}" for c in cats], **frame}
    else:
        finite = np.concatenate([x[np.isfinite(x)], y[np.isfinite(y)]])
        left, right = edges[:-1].copy(), edges[1:].copy()
        left[0] = min(finite.min(), right[0]) if np.isinf(left[0]) else left[0]
        right[-1] = max(finite.max(), left[-1]) if np.isinf(right[-1]) else right[-1]
        frame = {"bin": np.arange(nb), "bin_left": left, "bin_right": right, **frame}
    return pd.DataFrame(frame)


def histogram(out_d, out_dprime, *, bins: int = 40, coverage: float = 0.998) -> pd.DataFrame:
    """Equal-width histogram of both samples over the central ``coverage`` of the pooled outputs (for display):
    bin_left, bin_right, p_d, p_dprime (shares of all samples) and density_d, density_dprime."""
    x = _v.real_array("out_d", out_d, allow_inf=False).ravel()
    y = _v.real_array("out_dprime", out_dprime, allow_inf=False).ravel()
    bins = _v.integer("bins", bins, low=2, high=10_000)
    cov = _v.real("coverage", coverage, low=0.0, high=1.0, low_open=True)
    pooled = np.concatenate([x, y])
    lo, hi = np.quantile(pooled, [(1 - cov) / 2, (1 + cov) / 2])
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    kx, _ = np.histogram(x, bins=edges)
    ky, _ = np.histogram(y, bins=edges)
    w = np.diff(edges)
    return pd.DataFrame(
        {
            "bin_left": edges[:-1],
            "bin_right": edges[1:],
            "p_d": kx / x.size,
            "p_dprime": ky / y.size,
            "density_d": kx / (x.size * w),
            "density_dprime": ky / (y.size * w),
        }
    )


def bound_vs_n(
    out_d,
    out_dprime,
    *,
    sizes,
    target: Literal["epsilon", "delta"] = "epsilon",
    epsilon: float = 0.0,
    delta: float = 0.0,
    alpha: float = 0.05,
    bins: int = 100,
    discrete: bool = False,
) -> pd.DataFrame:
    """The bound from the first m samples per side, for each m in ``sizes`` (how the audit tightens with n)."""
    x = _v.real_array("out_d", out_d).ravel()
    y = _v.real_array("out_dprime", out_dprime).ravel()
    target = _v.choice("target", target, ("epsilon", "delta"))
    rows = []
    for m in np.asarray(sizes, dtype=int):
        m = _v.integer("sizes", int(m), low=4, high=min(x.size, y.size))
        if target == "epsilon":
            b = epsilon_lower_bound(x[:m], y[:m], delta=delta, alpha=alpha, bins=bins, discrete=discrete)
        else:
            b = delta_lower_bound(x[:m], y[:m], epsilon=epsilon, alpha=alpha, bins=bins, discrete=discrete)
        rows.append({"n": m, "epsilon_lb": b.epsilon_lb, "delta_lb": b.delta_lb, "event": b.event})
    return pd.DataFrame(rows)
