"""Cached tables of the BR-DP page and lesson (Jiang et al. 2024): scalar arguments in, dpcore results / frames out.

Every function evaluates :mod:`dpcore.brdp` on the grid a chart needs; ``@cached`` keys on the scalars (one bounded
process-wide cache, :mod:`app.compute._cache`, in the app, a lesson or a worker alike). The heavy panels' functions
(:func:`composition`, :func:`subsampling`, :func:`experiment`, :func:`experiment_acceptance`, seconds on a new
setting) are plain functions that the page runs as background jobs through :mod:`app.background` (which caches and
bounds them itself). A *plan key* is the tuple of scalars that fixes the BR-DP configuration shown on the page (see
:func:`plan`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.notation import number
from dpcore import brdp

Accountant = Literal["exact", "paper"]
Calibration = Literal["analytic", "classic"]
Query = Literal["sum", "average", "count"]
Mode = Literal["paper", "corrected"]  # subsampling: Alg. 4 as printed, or with the sensitivity Δ_f/p

COMPOSITION_INTERVAL = 5e-4  # PLD loss grid of the drawn exact composition curve (ε_T within ~T·h/2)
RECYCLER_SHOWN = 40  # releases drawn in the recycler stream
#: At most this many draws in the stream: when nearly every draw is recycled (q → 1, a tiny p_θ) 40 releases take
#: tens of thousands of draws, which a browser cannot animate; the stream then shows the first releases only.
RECYCLER_MAX_DRAWS = 2_000
RECYCLER_COUNTED = 20_000  # releases behind the live counters
DENSITY_SAMPLES = 20_000
# the exact optimiser is slow per ε (bench/results-where-time-goes.md)
EXACT_ACCEPTANCE_EPS = (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
SIGMA_X, MU_X, P_C = 10.0, 5.0, 0.1  # synthetic records x_i ~ N(μ, σ_x²); counting predicate share p_c (Fig. 6)


class PlanKey(NamedTuple):
    """The scalars that fix the page's BR-DP configuration.

    ``share`` (ε_y / ε) and ``q`` are None unless the reader sets them: then ε_y comes from the optimiser and q
    from the optimiser (share None) or Alg. 1 (share set). ``delta_y`` is the kernel's own δ (Alg. 1's input δ_y);
    None uses δ_y = δ, as the paper's figures do.
    """

    epsilon: float
    delta: float
    sensitivity: float
    theta: float
    kernel: brdp.Kernel
    accountant: Accountant = "exact"
    calibration: Calibration = "analytic"
    share: float | None = None
    q: float | None = None
    delta_y: float | None = None


# ------------------------------------------------------------------------------------------------ plans


@cached(show_spinner="Optimising the budget split …")
def optimal_plan(
    epsilon: float, delta: float, sensitivity: float, theta: float, kernel: brdp.Kernel, accountant: Accountant,
    calibration: Calibration, delta_y: float | None = None,
) -> brdp.BRDPPlan:
    """The optimiser's plan: Alg. 2 + Alg. 1 (paper) or the exact optimiser, the kernel at δ_y (δ when None)."""
    return brdp.optimize(epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta, kernel=kernel,
                         accountant=accountant, calibration=calibration, delta_y=delta_y)


def build_plan(key: PlanKey, optimum: Callable[..., brdp.BRDPPlan] = optimal_plan.__wrapped__) -> brdp.BRDPPlan:
    """The plan the page shows: the optimum, or ε_y = share·ε and/or a hand-set q (``make_plan``).

    ``optimum`` computes Alg. 2 / the exact optimiser: uncached by default (background jobs run outside Streamlit),
    the cached :func:`optimal_plan` in :func:`plan`.
    """
    k = PlanKey(*key)
    opt = (k.epsilon, k.delta, k.sensitivity, k.theta, k.kernel, k.accountant, k.calibration, k.delta_y)
    if k.share is None and k.q is None:
        return optimum(*opt)
    ey = optimum(*opt).epsilon_y if k.share is None else k.share * k.epsilon
    return brdp.make_plan(epsilon=k.epsilon, delta=k.delta, sensitivity=k.sensitivity, theta=k.theta,
                          kernel=k.kernel, epsilon_y=ey, q=k.q, calibration=k.calibration, delta_y=k.delta_y)


@cached
def plan(key: PlanKey) -> brdp.BRDPPlan:
    """:func:`build_plan` with the optimum from the shared cache."""
    return build_plan(key, optimal_plan)


def audit(key: PlanKey) -> pd.DataFrame:
    """"Paper vs exact" audit: the paper's Alg. 2 plan, the exact optimum, plain DP and the
    page's plan, each with its δ under both accountants and its status against the target δ.

    Two optimisations and two plans (too slow for a rerun on a new setting; bench/results-where-time-goes.md): the
    page runs it as a background job. The
    page's plan reuses whichever optimum it is built on (each optimisation runs once)."""
    k = PlanKey(*key)
    args = (k.epsilon, k.delta, k.sensitivity, k.theta, k.kernel)
    optima: dict[tuple, brdp.BRDPPlan] = {}

    def optimum(*a) -> brdp.BRDPPlan:
        if a not in optima:
            optima[a] = optimal_plan.__wrapped__(*a)
        return optima[a]

    plans = {
        "paper (Alg. 2 + Alg. 1)": optimum(*args, "paper", k.calibration, k.delta_y),
        "exact optimum": optimum(*args, "exact", k.calibration, k.delta_y),
        "plain DP kernel (q = 0)": build_plan(PlanKey(*args, calibration=k.calibration, share=1.0, q=0.0)),
        "this page's plan": build_plan(k, optimum),
    }
    return pd.DataFrame([
        {"plan": name, "ε_y": p.epsilon_y, "q": p.q, "acceptance": p.acceptance, "paper δ(ε)": p.paper_delta,
         "exact δ(ε)": p.exact_delta, "exact δ / target": p.exact_delta / p.delta,
         "status": "sound" if p.sound else "NOT (ε, δ)-DP"}
        for name, p in plans.items()
    ])


# ------------------------------------------------------------------------------------------------ mechanism


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
    counters = pd.DataFrame({
        "quantity": ["acceptance Pr(|error| ≤ θ)", "mean kernel draws per release", "share of draws recycled"],
        "simulated": [released_in.mean() if len(released_in) else math.nan, len(draws) / n_rel, recycled.mean()],
        "formula": [p.acceptance, brdp.expected_draws(**kw), (1 - p.p_theta) * p.q],
    })
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
    return pd.DataFrame({
        "counter": ["released in-bound", "released out-of-bound", "recycled", "mean draws per release"],
        "so far": [float(counts.get("released in-bound", 0)), float(counts.get("released out-of-bound", 0)),
                   float(counts.get("recycled", 0)), len(shown) / r if r else math.nan],
        "formula (expected)": [r * p.acceptance, r * (1 - p.acceptance), r * (e_k - 1), e_k],
    })


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
    x = np.linspace(-half, half, 401)
    x = np.sort(np.concatenate([x, [-p.theta, p.theta]]))  # the jumps at ±θ are drawn sharp
    kw = {"kernel": p.kernel, "theta": p.theta}
    curves = pd.DataFrame({
        "x": x,
        "kernel": brdp.output_density(x, scale=p.scale, q=0.0, **kw),
        "brdp": brdp.output_density(x, scale=p.scale, q=p.q, **kw),
        "dp": brdp.output_density(x, scale=p.dp_scale, q=0.0, **kw),
    })
    draws = brdp.sample_outputs(n, scale=p.scale, q=p.q, rng=seed, **kw)
    edges = np.linspace(-half, half, 81)
    counts, _ = np.histogram(draws, bins=edges)
    hist = pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "samples": n, "count": counts,
                         "empirical_density": counts / (n * np.diff(edges))})
    return OutputDensity(curves, hist)


# ------------------------------------------------------------------------------------------------ budget split


@cached
def landscape(epsilon: float, delta: float, sensitivity: float, theta: float, kernel: brdp.Kernel,
              calibration: Calibration) -> pd.DataFrame:
    """Alg. 2 landscape over ε_y ∈ (0, ε]: acceptance, q (Alg. 1), q_base, p_θ, δ's."""
    return brdp.budget_split_landscape(epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta,
                                       kernel=kernel, calibration=calibration, n=80)


@cached
def q_curves(epsilon: float, deltas: tuple[float, ...], sensitivity: float, theta: float, kernel: brdp.Kernel,
             calibration: Calibration) -> pd.DataFrame:
    """q against ε_y (Fig. 3): Alg. 1 for each δ and the baseline 1 − e^{−(ε − ε_y)}.

    Long form: epsilon_y, curve ("baseline" or "δ = …"), delta, q.
    """
    frames = []
    for i, dl in enumerate(deltas):
        df = brdp.budget_split_landscape(epsilon=epsilon, delta=dl, sensitivity=sensitivity, theta=theta,
                                         kernel=kernel, calibration=calibration, n=60, exact=False)
        if i == 0:
            frames.append(pd.DataFrame({"epsilon_y": df["epsilon_y"], "curve": "baseline", "delta": np.nan,
                                        "q": df["q_base"]}))
        frames.append(pd.DataFrame({"epsilon_y": df["epsilon_y"], "curve": f"Alg. 1, δ = {number(dl)}",
                                    "delta": dl, "q": df["q"]}))
    return pd.concat(frames, ignore_index=True)


@cached(show_spinner="Optimising the split at every ε …")
def acceptance(delta: float, sensitivity: float, theta: float, kernel: brdp.Kernel, calibration: Calibration,
               exact: bool = True) -> pd.DataFrame:
    """Acceptance against total ε (Fig. 4): DP and BR-DP (paper) on 24 ε from 0.25 to 6, and
    BR-DP with the exact optimiser at :data:`EXACT_ACCEPTANCE_EPS` (NaN elsewhere; NaN throughout if not exact)."""
    grid = np.round(np.linspace(0.25, 6.0, 24), 4)
    df = brdp.acceptance_curve(grid, delta=delta, sensitivity=sensitivity, theta=theta, kernel=kernel,
                               calibration=calibration)
    if exact:
        ex = brdp.acceptance_curve(list(EXACT_ACCEPTANCE_EPS), delta=delta, sensitivity=sensitivity,
                                   theta=theta, kernel=kernel, calibration=calibration, exact=True)
        df = pd.concat([df.drop(columns="brdp_exact"), ex[["epsilon", "brdp_exact"]]]).groupby(
            "epsilon", as_index=False).first()
    return df


# ------------------------------------------------------------------------------------------------ privacy


def profile_grid(epsilon: float) -> np.ndarray:
    """ε′ grid of the privacy-profile chart: −0.25 … max(2ε, ε + 1.5), the region around the target ε."""
    return np.linspace(-0.25, max(2.0 * epsilon, epsilon + 1.5), 160)


@cached
def profile(key: PlanKey) -> pd.DataFrame:
    """Privacy profiles δ(ε′) of the plan: kernel, paper (Prop. 2), exact BR-DP, plain DP."""
    return brdp.privacy_profile(profile_grid(key[0]), plan=plan(key))


class LossPicture(NamedTuple):
    """The privacy loss's density per unit loss for each model, and the exact loss's mass at +∞."""

    bins: pd.DataFrame  # loss_left, loss_right, kernel, paper, exact
    mass_at_infinity: float


@cached
def loss(key: PlanKey) -> LossPicture:
    """Privacy-loss picture (Thm. 1): probability of each loss bin for the kernel Z, the
    paper's mixture (1 − W) Z + W (Z + L) and the exact BR-DP loss Γ (density per unit loss, from the CDFs by
    differencing); and the
    exact loss's mass at +∞."""
    cdf = brdp.loss_distribution(plan(key), n=301)
    g = cdf["loss"].to_numpy()
    out = pd.DataFrame({"loss_left": g[:-1], "loss_right": g[1:]})
    for col in ("kernel", "paper", "exact"):
        out[col] = np.maximum(np.diff(cdf[f"{col}_cdf"].to_numpy()), 0.0) / np.diff(g)
    return LossPicture(out, float(cdf["exact_inf"].iloc[0]))


def composition_range(compositions: int) -> int:
    """The composition chart spans T = 1 … max(100, 10·T), capped at 1000 (as on the baselines page)."""
    return int(min(1000, max(100, 10 * compositions)))


class Composition(NamedTuple):
    """ε after T releases under each accountant, and ε_T against T."""

    totals: dict[str, float]  # accountant ("paper", "exact", "dp") → ε
    curve: pd.DataFrame


def composition(key: PlanKey, compositions: int, plan: brdp.BRDPPlan | None = None) -> Composition:
    """Panel 8 (Fig. 5 at your settings), a background job (:mod:`app.background`): ε after exactly T releases at the
    plan's δ under each accountant (exact PLD on the default grid), and ε_T against T = 1 … composition_range(T)
    on :data:`COMPOSITION_INTERVAL` (Thm. 3 (paper), exact BR-DP PLD, plain DP). ``plan``: the plan of ``key``
    (:func:`plan`) when the caller has it, so the job does not optimise it again."""
    p = build_plan(key) if plan is None else plan
    totals = {acct: brdp.composed_epsilon(p.delta, compositions=compositions, plan=p, accountant=acct)
              for acct in ("paper", "exact", "dp")}
    ts = np.unique(np.round(np.geomspace(1, composition_range(compositions), 12)).astype(int))
    curve = brdp.composition_curve(ts, plan=p, value_discretization_interval=COMPOSITION_INTERVAL)
    return Composition(totals, curve)


def remarks(key: PlanKey, compositions: int, totals: dict[str, float]) -> pd.DataFrame:
    """Remarks 3–4 (basic and advanced composition) beside the exact composition after T releases. Basic (Remark 3)
    adds up each release's (ε, δ₁), δ₁ the plan's exact δ at ε. Advanced (Remark 4, with the total δ it really
    spends) needs each release's δ small against the target: it takes each release at (ε′, δ/(2T)), ε′ from the
    plan's exact privacy profile, and spends δ/2 as its slack δ′, so its total δ is the target δ. Columns:
    accountant, ε after T, total δ."""
    p = plan(key)
    basic = brdp.basic_composition(p.epsilon, p.exact_delta, compositions=compositions)
    d_each = p.delta / (2 * compositions)
    e_each = brdp.composed_epsilon(d_each, compositions=1, plan=p)  # exact (pessimistic) PLD of one release
    if math.isfinite(e_each):
        adv = brdp.advanced_composition(e_each, d_each, compositions=compositions, delta_slack=p.delta / 2)
    else:  # no finite ε reaches δ/(2T) for one release (a plan that is not private at its δ): no bound at all
        adv = (math.inf, p.delta)
    return pd.DataFrame([
        {"accountant": "exact (PLD of the whole mechanism)", "ε after T": totals["exact"], "total δ": p.delta},
        {"accountant": "Thm 3 (the paper's accountant)", "ε after T": totals["paper"], "total δ": p.delta},
        {"accountant": "Remark 3: basic, T·ε", "ε after T": basic[0], "total δ": basic[1]},
        {"accountant": "Remark 4: advanced", "ε after T": adv[0], "total δ": adv[1]},
    ])


# ------------------------------------------------------------------------------------------------ subsampling


def _rates(n_records: int, delta: float) -> np.ndarray:
    low = max(1.0 / n_records, 2.0 * delta, 1e-3)
    return np.geomspace(low, 1.0, 22) if low < 1 else np.array([1.0])


def subsampling_curve(epsilon: float, delta: float, sensitivity: float, theta: float, query: Query,
                      n_records: int, sigma_x: float = SIGMA_X, p_c: float = P_C) -> pd.DataFrame:
    """Sampling vs perturbation noise against the rate p (Sec. 7), Gaussian kernel.

    For each p: inner budget from Thm. 4 inverted, σ_E from Prop. 6, kernel (σ_y, q) from Alg. 2 at the inner
    budget, in both modes: ``paper`` (sensitivity Δ_f, eq. 13 corrected) and ``corrected`` (Δ_f/p, true
    acceptance). Long form: mode, rate, sigma_e, sigma_y, total, acceptance.
    """
    rows = []
    for p in _rates(n_records, delta):
        p = float(p)
        ei, di = (epsilon, delta) if p >= 1 else brdp.deamplify(epsilon, delta, rate=p)
        se = brdp.sampling_error_std(query, rate=p, n_records=n_records, sigma_x=sigma_x, p_c=p_c) if p < 1 else 0.0
        for mode, dk in (("paper", sensitivity), ("corrected", sensitivity / p)):
            pl = brdp.optimize(epsilon=ei, delta=di, sensitivity=dk, theta=theta, kernel="gaussian",
                               accountant="paper")
            variant: Literal["corrected", "true"] = "corrected" if mode == "paper" else "true"
            acc = brdp.subsampled_acceptance(scale=pl.scale, theta=theta, q=pl.q, sigma_e=se, variant=variant)
            rows.append({"mode": mode, "rate": p, "epsilon_in": ei, "sigma_e": se, "sigma_y": pl.scale,
                         "q": pl.q, "total": math.hypot(se, pl.scale), "acceptance": acc})
    return pd.DataFrame(rows)


def sampling_plan(epsilon: float, delta: float, sensitivity: float, theta: float, query: Query, n_records: int,
                  mode: Mode, sigma_x: float = SIGMA_X, p_c: float = P_C) -> brdp.SubsamplingPlan:
    """Alg. 4's optimal sampling rate in ``paper`` or ``corrected`` mode."""
    return brdp.optimal_sampling_rate(epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta,
                                      n_records=n_records, query=query, sigma_x=sigma_x, p_c=p_c, mode=mode)


@cached
def at_rate(epsilon: float, delta: float, sensitivity: float, theta: float, query: Query, n_records: int,
            rate: float, sigma_x: float = SIGMA_X, p_c: float = P_C) -> pd.DataFrame:
    """The subsampled BR-DP at the sidebar's rate p, in both modes: inner ε, σ_E, σ_y, q, acceptance as the
    paper computes it (eq. 13 corrected) and the true acceptance Pr(|E + N_brdp| ≤ θ)."""
    ei, di = (epsilon, delta) if rate >= 1 else brdp.deamplify(epsilon, delta, rate=rate)
    se = brdp.sampling_error_std(query, rate=rate, n_records=n_records, sigma_x=sigma_x, p_c=p_c) if rate < 1 else 0.0
    rows = []
    for mode, dk in (("paper: sensitivity Δ", sensitivity), ("corrected: sensitivity Δ / p", sensitivity / rate)):
        pl = brdp.optimize(epsilon=ei, delta=di, sensitivity=dk, theta=theta, kernel="gaussian", accountant="paper")
        rows.append({"mode": mode, "inner ε": ei, "inner δ": di, "σ_E": se, "σ_y": pl.scale, "q": pl.q,
                     "acceptance, eq. (13) corrected": brdp.subsampled_acceptance(
                         scale=pl.scale, theta=theta, q=pl.q, sigma_e=se, variant="corrected"),
                     "true acceptance": brdp.subsampled_acceptance(scale=pl.scale, theta=theta, q=pl.q, sigma_e=se)})
    return pd.DataFrame(rows)


SIZE_GRID = (100, 1000, 10_000, 100_000)  # |X| of the p*-against-|X| chart (Fig. 6 at the sidebar's settings)


def rate_vs_size(epsilon: float, delta: float, sensitivity: float, theta: float, query: Query,
                 n_records: int, sigma_x: float = SIGMA_X, p_c: float = P_C) -> pd.DataFrame:
    """Alg. 4's p* and acceptance against |X| at the sidebar's settings, paper mode and corrected mode
    (Fig. 6); |X| = :data:`SIZE_GRID` and the sidebar's |X|."""
    rows = []
    for n in sorted({*SIZE_GRID, int(n_records)}):
        for mode in ("paper", "corrected"):
            sp = sampling_plan(epsilon, delta, sensitivity, theta, query, n, mode, sigma_x, p_c)
            rows.append({"query": query, "mode": mode, "n_records": n, "rate": sp.rate,
                         "acceptance": sp.acceptance, "true_acceptance": sp.true_acceptance})
    return pd.DataFrame(rows)


class Subsampling(NamedTuple):
    """Panel 9: the sampling rate's effect at the sidebar's |X|, and the best rate against |X|."""

    by_rate: pd.DataFrame  # :func:`subsampling_curve`
    by_size: pd.DataFrame  # :func:`rate_vs_size`


def subsampling(epsilon: float, delta: float, sensitivity: float, theta: float, query: Query,
                n_records: int, sigma_x: float = SIGMA_X, p_c: float = P_C) -> Subsampling:
    """Panel 9 as one background job (:mod:`app.background`): :func:`subsampling_curve` and :func:`rate_vs_size`
    (whose rows at the sidebar's |X| are Alg. 4's optima in both modes), for records of spread σ_x (sum, average)
    or a counted share p_c (count)."""
    return Subsampling(subsampling_curve(epsilon, delta, sensitivity, theta, query, n_records, sigma_x, p_c),
                       rate_vs_size(epsilon, delta, sensitivity, theta, query, n_records, sigma_x, p_c))


# ------------------------------------------------------------------------------------------------ experiments


def synthetic_records(query: Query, n_records: int, seed: int) -> np.ndarray:
    """Synthetic data: x_i ~ N(μ, σ_x²); for counting, the indicators of x_i > q_{0.9}
    (so Pr(x_i ∈ C) ≈ p_c = 0.1)."""
    x = np.random.default_rng(seed).normal(MU_X, SIGMA_X, n_records)
    return (x > np.quantile(x, 1 - P_C)).astype(float) if query == "count" else x


def experiment(epsilon: float, delta: float, sensitivity: float, theta: float, query: Query, n_records: int,
               accountant: Accountant, seed: int, n_releases: int = 1000) -> pd.DataFrame:
    """Experiment sandbox (Figs. 7/8): box-plot statistics of the centred releases of the six
    mechanisms (IQR box, whiskers 2.5 %–97.5 %) and the acceptance share within ±θ."""
    rel = brdp.experiment_releases(synthetic_records(query, n_records, seed), query=query, epsilon=epsilon,
                                   delta=delta, sensitivity=sensitivity, theta=theta, n_releases=n_releases,
                                   accountant=accountant, rng=seed)
    g = rel.groupby("mechanism", sort=False)["error"]
    stats = pd.DataFrame({
        "q025": g.quantile(0.025), "q25": g.quantile(0.25), "median": g.median(), "q75": g.quantile(0.75),
        "q975": g.quantile(0.975), "mean": g.mean(),
        "acceptance": rel.groupby("mechanism", sort=False)["in_bound"].mean(),
    }).reset_index()
    stats.insert(1, "releases", n_releases)
    return stats


SANDBOX_EPS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)  # ε grid of the acceptance-against-ε chart (sandbox)
SANDBOX_RELEASES = 300  # releases per mechanism and ε behind that chart


def experiment_acceptance(delta: float, sensitivity: float, theta: float, query: Query, n_records: int,
                          accountant: Accountant, seed: int) -> pd.DataFrame:
    """Acceptance share within ±θ of each sandbox mechanism against ε (Figs. 7/8, right column):
    :data:`SANDBOX_RELEASES` seeded releases per mechanism at each ε of :data:`SANDBOX_EPS`.
    Long form: epsilon, mechanism, acceptance."""
    x = synthetic_records(query, n_records, seed)
    frames = []
    for e in SANDBOX_EPS:
        rel = brdp.experiment_releases(x, query=query, epsilon=e, delta=delta, sensitivity=sensitivity,
                                       theta=theta, n_releases=SANDBOX_RELEASES, accountant=accountant, rng=seed)
        acc = rel.groupby("mechanism", sort=False)["in_bound"].mean().reset_index(name="acceptance")
        frames.append(acc.assign(epsilon=e))
    return pd.concat(frames, ignore_index=True)[["epsilon", "mechanism", "acceptance"]]


# ------------------------------------------------------------------------------------------------ reproduce


@cached(show_spinner="Reproducing the paper's figures …")
def fig4(sensitivity: float) -> pd.DataFrame:
    """Fig. 4 at θ = 1, δ = 10⁻⁵: acceptance against ε, Gaussian, analytic calibration."""
    return acceptance(1e-5, sensitivity, 1.0, "gaussian", "analytic", False)


@cached(show_spinner="Composing privacy-loss distributions …")
def fig5(kernel: brdp.Kernel) -> pd.DataFrame:
    """Fig. 5 at ε = 1, θ = Δ_f = 1, δ = 10⁻⁵, paper plan (Alg. 2 + 1), T = 1 … 100.

    Gaussian: Thm. 3 with the exact kernel composition; Laplace: Thm. 3 with the kernel composed by RDP
    (Mironov), as in the paper; DP likewise; plus the exact BR-DP PLD.
    """
    p = optimal_plan(1.0, 1e-5, 1.0, 1.0, kernel, "paper", "analytic")
    kc: Literal["exact", "rdp"] = "exact" if kernel == "gaussian" else "rdp"
    ts = [1, 2, 5, 10, 20, 50, 100]
    rows = []
    for t in ts:
        rows.append({
            "compositions": t,
            "paper": brdp.composed_epsilon(1e-5, compositions=t, plan=p, accountant="paper", kernel_composition=kc),
            "dp": brdp.composed_epsilon(1e-5, compositions=t, plan=p, accountant="dp", kernel_composition=kc),
            "exact": brdp.composed_epsilon(1e-5, compositions=t, plan=p, accountant="exact",
                                           value_discretization_interval=COMPOSITION_INTERVAL),
        })
    return pd.DataFrame(rows)


#: (Δ_f, θ) of each query in Fig. 6: the paper does not give them.
FIG6_SETTINGS: dict[Query, tuple[float, float]] = {"sum": (1.0, 30.0), "average": (0.01, 1.0), "count": (1.0, 3.0)}
FIG6_SIZES = (100, 1000, 10_000, 100_000)


@cached(show_spinner="Alg. 4 for three queries and four data-set sizes …")
def fig6() -> pd.DataFrame:
    """Fig. 6: Alg. 4's p* and acceptance against |X| at ε = 0.1, δ = 10⁻⁵, σ_x = 10, p_c = 0.1,
    in paper mode and corrected mode (Δ_f/p, true acceptance)."""
    rows = []
    for query, (d, th) in FIG6_SETTINGS.items():
        for n in FIG6_SIZES:
            for mode in ("paper", "corrected"):
                sp = sampling_plan(0.1, 1e-5, d, th, query, n, mode)
                rows.append({"query": query, "mode": mode, "n_records": n, "rate": sp.rate,
                             "acceptance": sp.acceptance, "true_acceptance": sp.true_acceptance})
    return pd.DataFrame(rows)


FIG7_SETTINGS = {"sum": (0.5, 22.0, 5.0), "average": (0.05, 0.0017, 1.0), "count": (0.1, 1.0, 3.0)}  # (ε, Δ_f, θ)
#: Fig. 7's right column (b, d, f): (Δ_f, θ) of each query as its caption prints them; ε is the x axis.
FIG7_RIGHT = {"sum": (12.0, 10.0), "average": (0.0012, 1.0), "count": (1.0, 3.0)}


@cached
def fig7(query: Query) -> pd.DataFrame:
    """Fig. 7 left column with synthetic data (|X| = 1000, seed 0) at the captions' (ε, Δ_f, θ), δ = 10⁻⁵,
    the paper's accountant."""
    e, d, th = FIG7_SETTINGS[query]
    return experiment(e, 1e-5, d, th, query, 1000, "paper", 0)


PAPER_TABLE1 = {  # Table I as printed: ε_T after 1000 compositions at ε = 0.1
    "Lap-DP": (18.98, 25.38), "Gau-DP": (4.77, 7.17), "Lap-BRDP": (16.8, 22.23), "Gau-BRDP": (4.72, 6.93),
    "SMP-Lap-BRDP": (49.37, 65.6), "SMP-Gau-BRDP": (13.13, 19.6),
}


def fig7_acceptance(query: Query) -> pd.DataFrame:
    """Fig. 7(b, d, f): acceptance of the six mechanisms against ε at the caption's (Δ_f, θ), δ = 10⁻⁵, synthetic
    records (|X| = 1000, seed 0), the paper's accountant. A background job (seconds)."""
    d, th = FIG7_RIGHT[query]
    return experiment_acceptance(1e-5, d, th, query, 1000, "paper", 0)


#: The kernel share at which the Laplace kernel *alone* composes to the printed Lap-BRDP row of Table I.
TABLE1_LAPLACE_EPS_Y = 0.088


class KernelAlone(NamedTuple):
    """ε after 1000 releases of the Laplace kernel alone, at two δ."""

    epsilon_at_delta_1e5: float  # δ = 10⁻⁵
    epsilon_at_delta_1e10: float  # δ = 10⁻¹⁰


@cached
def table1_laplace_kernel_alone(epsilon_y: float = TABLE1_LAPLACE_EPS_Y) -> KernelAlone:
    """ε after 1000 releases of the Laplace kernel alone at ``epsilon_y`` (q = 0: no recycling loss), composed by
    RDP (Mironov) as the paper does, at δ = 10⁻⁵ and 10⁻¹⁰: what the printed Lap-BRDP row (16.8, 22.23) matches."""
    p = brdp.make_plan(epsilon=0.1, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="laplace", epsilon_y=epsilon_y,
                       q=0.0)
    e5, e10 = (brdp.composed_epsilon(dl, compositions=1000, plan=p, accountant="paper", kernel_composition="rdp")
               for dl in (1e-5, 1e-10))
    return KernelAlone(float(e5), float(e10))


@cached(show_spinner="Composing 1 000 releases …")
def table1() -> pd.DataFrame:
    """Table I: ε after T = 1000 releases at ε = 0.1, θ = Δ_f = 1, kernels calibrated at δ = 10⁻⁵
    and ε_T reported at δ ∈ {10⁻⁵, 10⁻¹⁰}; paper's plans (Alg. 2 + 1), Thm. 3 with the kernel composed exactly
    (Gaussian) or by RDP (Laplace, as the paper). The SMP columns are not reproduced (recipe unrecoverable)."""
    rows = []
    for kernel, short in (("laplace", "Lap"), ("gaussian", "Gau")):
        p = optimal_plan(0.1, 1e-5, 1.0, 1.0, kernel, "paper", "analytic")
        kc: Literal["exact", "rdp"] = "exact" if kernel == "gaussian" else "rdp"
        for mech, acct in ((f"{short}-DP", "dp"), (f"{short}-BRDP", "paper")):
            ours = [brdp.composed_epsilon(dl, compositions=1000, plan=p, accountant=acct,  # type: ignore[arg-type]
                                          kernel_composition=kc)
                    for dl in (1e-5, 1e-10)]
            rows.append({"mechanism": mech, "printed, δ = 10⁻⁵": PAPER_TABLE1[mech][0], "this app, δ = 10⁻⁵": ours[0],
                         "printed, δ = 10⁻¹⁰": PAPER_TABLE1[mech][1], "this app, δ = 10⁻¹⁰": ours[1]})
    for mech in ("SMP-Lap-BRDP", "SMP-Gau-BRDP"):
        rows.append({"mechanism": mech, "printed, δ = 10⁻⁵": PAPER_TABLE1[mech][0], "this app, δ = 10⁻⁵": math.nan,
                     "printed, δ = 10⁻¹⁰": PAPER_TABLE1[mech][1], "this app, δ = 10⁻¹⁰": math.nan})
    return pd.DataFrame(rows)
