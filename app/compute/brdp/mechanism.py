"""The BR-DP mechanism at work (Jiang et al. 2024): the recycler's stream of draws (Fig. 1) with live counters
against the formulas (Eq. 9), and the output density (Prop. 1, Fig. 2)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.brdp.plans import PlanKey, plan
from dpcore import brdp

RECYCLER_SHOWN = 40  # releases drawn in the recycler stream
#: At most this many draws in the stream: when nearly every draw is recycled (q → 1, a tiny p_θ) 40 releases take
#: tens of thousands of draws, which a browser cannot animate; the stream then shows the first releases only.
RECYCLER_MAX_DRAWS = 2_000
RECYCLER_COUNTED = 20_000  # releases behind the live counters
DENSITY_SAMPLES = 20_000
#: Points of each density curve across the picture: smooth at a chart's width (a lesson's in-figure slider sends
#: every stop's curves to the browser, so each point is paid for on every move).
DENSITY_POINTS = 201


class Recycler(NamedTuple):
    """The recycler stream: the draws shown, and the live counters against the formulas."""

    draws: pd.DataFrame  # every draw of the first RECYCLER_SHOWN releases
    counters: pd.DataFrame  # quantity, simulated, formula


@cached
def recycler(key: PlanKey, seed: int) -> Recycler:
    """Recycler stream (Fig. 1): every draw of the first releases, and live counters over
    :data:`RECYCLER_COUNTED` releases against the formulas (acceptance eq. 9, E[K] = 1/(1 − p̄q), p̄q)."""
    p = plan(key)
    kw = {"kernel": p.kernel, "scale": p.scale, "theta": p.theta, "q": p.q}
    draws = brdp.simulate_recycler(RECYCLER_COUNTED, rng=seed, max_draws=200_000, **kw)
    recycled = (draws["outcome"] == "recycled").to_numpy()
    released_in = draws["in_bound"].to_numpy()[~recycled]  # numpy: a 35 000-row frame copy costs more
    n_rel = max(len(released_in), 1)
    counters = pd.DataFrame(
        {
            "quantity": ["acceptance Pr(|error| ≤ θ)", "mean kernel draws per release", "share of draws recycled"],
            "simulated": [released_in.mean() if len(released_in) else math.nan, len(draws) / n_rel, recycled.mean()],
            "formula": [p.acceptance, brdp.expected_draws(**kw), (1 - p.p_theta) * p.q],
        }
    )
    shown = draws[draws["release"] < RECYCLER_SHOWN].reset_index(drop=True)
    if len(shown) > RECYCLER_MAX_DRAWS:  # whole releases only, but never more than the cap
        ends = shown.groupby("release").size().cumsum()
        last = int(ends.index[ends <= RECYCLER_MAX_DRAWS].max()) if (ends <= RECYCLER_MAX_DRAWS).any() else 0
        shown = shown[shown["release"] <= last].iloc[:RECYCLER_MAX_DRAWS].reset_index(drop=True)
    return Recycler(shown, counters)


def live_counters(draws: pd.DataFrame, step: int, key: PlanKey) -> pd.DataFrame:
    """Counters over the first ``step`` recorded draws of the stream beside what the
    formulas expect for the releases completed so far: r·acceptance in-bound, r·(1 − acceptance) out-of-bound,
    r·(E[K] − 1) recycled (eq. 9, E[K] = 1/(1 − p̄q)) and E[K] draws per release."""
    p = plan(key)
    shown = draws.iloc[: max(int(step), 0)]
    counts = shown["outcome"].value_counts()
    r = int(len(shown) - counts.get("recycled", 0))
    e_k = brdp.expected_draws(kernel=p.kernel, scale=p.scale, theta=p.theta, q=p.q)
    return pd.DataFrame(
        {
            "counter": ["released in-bound", "released out-of-bound", "recycled", "mean draws per release"],
            "so far": [
                float(counts.get("released in-bound", 0)),
                float(counts.get("released out-of-bound", 0)),
                float(counts.get("recycled", 0)),
                len(shown) / r if r else math.nan,
            ],
            "formula (expected)": [r * p.acceptance, r * (1 - p.acceptance), r * (e_k - 1), e_k],
        }
    )


class OutputDensity(NamedTuple):
    """The output densities, and a histogram of seeded releases."""

    curves: pd.DataFrame  # x, kernel, brdp, dp
    histogram: pd.DataFrame  # bin_left, bin_right, samples, count, empirical_density


@cached
def density(key: PlanKey, seed: int, n: int = DENSITY_SAMPLES) -> OutputDensity:
    """Output densities (Prop. 1, Fig. 2): kernel at ε_y, BR-DP, DP at the full ε; and a
    seeded Monte-Carlo histogram of n BR-DP releases (direct sampler)."""
    p = plan(key)
    half = max(4.0 * p.scale, 7.0 * p.scale if p.kernel == "laplace" else 0.0, 1.5 * p.theta)
    x = np.linspace(-half, half, DENSITY_POINTS)
    # the jumps at ±θ drawn upright: the last point inside the band (|x| ≤ θ) and the first one outside it
    out = np.nextafter(p.theta, np.inf)
    x = np.sort(np.concatenate([x, [-out, -p.theta, p.theta, out]]))
    kw = {"kernel": p.kernel, "theta": p.theta}
    curves = pd.DataFrame(
        {
            "x": x,
            "kernel": brdp.output_density(x, scale=p.scale, q=0.0, **kw),
            "brdp": brdp.output_density(x, scale=p.scale, q=p.q, **kw),
            "dp": brdp.output_density(x, scale=p.dp_scale, q=0.0, **kw),
        }
    )
    draws = brdp.sample_outputs(n, scale=p.scale, q=p.q, rng=seed, **kw)
    edges = np.linspace(-half, half, 81)
    counts, _ = np.histogram(draws, bins=edges)
    hist = pd.DataFrame(
        {
            "bin_left": edges[:-1],
            "bin_right": edges[1:],
            "samples": n,
            "count": counts,
            "empirical_density": counts / (n * np.diff(edges)),
        }
    )
    return OutputDensity(curves, hist)
