"""Cached numbers of the Local DP page and lesson (Pan 2023): scalars in, frozen results or frames out.

Every loss is stored on the log scale (ε units); each frame also carries a ``*_ratio`` column (``e^ℓ``) so the page
can switch the *display* scale without recomputing. No figures here, and no formulas beyond evaluating
:mod:`dpcore.ldp` on the grids the charts need.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore import ldp

FAMILIES = ("powers", "rr")  # running-example queries X^i (Eq. 11) or k-ary randomized response on the domain
PRIORS = ("uniform", "skewed", "peaked", "bimodal")
STATEMENTS = ("equal", "above", "even")
STATEMENT_TEXT = {"equal": "X = x*", "above": "X ≥ x*", "even": "X is even"}
REGRESSIONS = ("logistic", "truncated")  # the continuous part's query kind (Sec. 5.3 (c) and (b))

MAX_PATTERNS = 256  # the pattern panel enumerates at most this many output patterns
SIM_RUNS = 100  # Monte Carlo runs per filter of the answered-counts panel (seeded)
SIM_CAP = 200  # a run stops after this many accepted queries (stated on the page)
RR_MULTIPLES = tuple(range(1, 13))  # the closed-form curve: ε_G = j·ε
RR_MC_MULTIPLES = (2, 4, 8, 12)
RR_MC_RUNS = 80
RR_CLOSED_FORM_MAX_M = 300  # ⌊ε_G/ε⌋ above this: the linear system is too slow for a rerun
BNB_MAX_QUERIES = 10  # the continuous part: at most this many 2-D regression queries
BNB_TOL = 1e-6
BNB_WAIT = 0.06  # s the continuous part waits for its branch-and-bound before showing a placeholder
REGION_MAX_EPSILON = 100.0  # the acceptance panel's candidate ε range stops at 2·ε_G, and never above this
LOOSE_GAP = 0.15  # the paper's App. E values sit 0.100–0.149 above the certified optimum
#: Expected answered binary randomized-response queries, (ε, ε_G, value) computed independently of this project's
#: closed form (a ±1 walk's hitting time of ⌊ε_G/ε⌋ solved as a linear system); the page shows both.
RR_REFERENCE = ((1.0, 4.0, 8.344), (1.0, 10.0, 21.638), (0.5, 4.0, 31.489), (0.1, 1.0, 92.500))
#: The (ε, δ) filter's δ for the pure-ε queries of the page (Algorithm 4 spends no δ on them).
APPROX_DELTA = 1e-6
PATH_RUNS = 10  # Fig. 1(a)/(c) draw 10 runs


# --- small pure helpers --------------------------------------------------------------------------


def show_loss(value: float | None, ratio: bool, digits: int = 4) -> str:
    """Format a log-scale loss for display: ``ℓ`` or ``e^ℓ`` (display only; comparisons stay on the log scale)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == math.inf:
        return "∞"
    v = math.exp(value) if ratio and value < 700 else (math.inf if ratio else value)
    return f"{v:.{digits}g}" if ratio else f"{v:.{digits}f}"


def add_ratio(df: pd.DataFrame, cols: tuple[str, ...]) -> pd.DataFrame:
    """Append ``<col>_ratio = e^<col>`` for each log-scale loss column (overflow → inf)."""
    with np.errstate(over="ignore"):
        for c in cols:
            df[f"{c}_ratio"] = np.exp(df[c].astype(float))
    return df


def prior(preset: str, n: int) -> np.ndarray:
    """Prior presets over D = {0..n−1}: uniform, skewed (linearly decreasing), peaked (middle), bimodal (ends)."""
    x = np.arange(n, dtype=float)
    if preset == "uniform":
        w = np.ones(n)
    elif preset == "skewed":
        w = n - x
    elif preset == "peaked":
        w = np.exp(-0.5 * ((x - (n - 1) / 2) / max(0.12 * n, 0.5)) ** 2) + 1e-3
    elif preset == "bimodal":
        s = max(0.1 * n, 0.5)
        w = np.exp(-0.5 * (x / s) ** 2) + np.exp(-0.5 * ((x - n + 1) / s) ** 2) + 1e-3
    else:
        raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {preset!r}")
    return w / w.sum()


def _statement(kind: str, n: int, x: int) -> np.ndarray:
    v = np.arange(n)
    if kind == "equal":
        return (v == x).astype(float)
    if kind == "above":
        return (v >= x).astype(float)
    if kind == "even":
        return (v % 2 == 0).astype(float)
    raise ValueError(f"statement must be one of {', '.join(STATEMENTS)}, got {kind!r}")


@functools.lru_cache(maxsize=4096)
def _query(family: str, epsilon: float, n: int, i: int) -> ldp.LikelihoodTable:
    """Query i (1-based) of a family: X^i through Eq. 5 (the running example, Eq. 11) or k-ary RR on the domain.

    Memoised (the tables are frozen): the panels of one rerun ask for the same k tables several times."""
    if family == "powers":
        return ldp.running_example_query(i, epsilon=epsilon, domain_size=n)
    if family == "rr":
        return ldp.randomized_response(epsilon, domain_size=n)
    raise ValueError(f"query family must be one of {', '.join(FAMILIES)}, got {family!r}")


def _tables(family: str, epsilon: float, n: int, k: int) -> list[ldp.LikelihoodTable]:
    return [_query(family, epsilon, n, i) for i in range(1, k + 1)]


def _sampled(family: str, epsilon: float, n: int, k: int, x: int, seed: int):
    """k queries run on x* (no filter) with seeded outputs; returns (tables, outputs, ln Λ)."""
    tabs = _tables(family, epsilon, n, k)
    gen = np.random.default_rng(seed)
    outs = [t.sample(x, gen) for t in tabs]
    return tabs, outs, ldp.transcript_log_likelihood(tabs, outs)


def _extremes(ll: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    top = tuple(int(v) for v in np.flatnonzero(np.isclose(ll, ll.max(), rtol=0, atol=1e-12)))
    bottom = tuple(int(v) for v in np.flatnonzero(np.isclose(ll, ll.min(), rtol=0, atol=1e-12)))
    return top, bottom


# --- beliefs: posterior, statements, loss per output pattern, likelihood landscape ------------------------


@dataclass(frozen=True)
class Beliefs:
    """Prior, likelihood and posterior of k answers drawn at x* (no filter), and the realized loss."""

    table: pd.DataFrame  # x, prior, likelihood_scaled, log_likelihood, log_likelihood_rel(+_ratio), posterior
    loss: float  # ℓ = ln max Λ − ln min Λ (Eq. 10)
    basic: float  # Σε of the k queries
    outputs: tuple
    argmax: tuple[int, ...]
    argmin: tuple[int, ...]
    posterior_true: float
    prior_true: float


@cached
def beliefs(family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior_kind: str) -> Beliefs:
    """Prior, likelihood Λ(x) (rescaled to the plot's peak) and posterior (Eq. 2) over D; ℓ (Eq. 10) and Σε."""
    tabs, outs, ll = _sampled(family, epsilon, n, k, x, seed)
    b = prior(prior_kind, n)
    post = ldp.posterior(b, ll)
    lik = np.exp(ll - ll.max())
    df = pd.DataFrame({
        "x": np.arange(n),
        "prior": b,
        "likelihood_scaled": lik * max(post.max(), b.max()),
        "log_likelihood": ll,
        "log_likelihood_rel": ll - ll.min(),
        "posterior": post,
    })
    top, bottom = _extremes(ll)
    return Beliefs(add_ratio(df, ("log_likelihood_rel",)), float(ldp.realized_loss(ll)),
                   float(sum(t.epsilon for t in tabs)), tuple(outs), top, bottom, float(post[x]), float(b[x]))


@cached
def realized_path(family: str, epsilon: float, n: int, k: int, x: int, seed: int) -> pd.DataFrame:
    """ℓ of the first j answers (those of :func:`beliefs`) for j = 1..k, next to basic composition's Σε.

    Columns: answers, realized, basic (+ *_ratio)."""
    tabs, outs, _ = _sampled(family, epsilon, n, k, x, seed)
    ll = np.cumsum([t.column(y) for t, y in zip(tabs, outs, strict=True)], axis=0)
    df = pd.DataFrame({"answers": np.arange(1, k + 1), "realized": np.atleast_1d(ldp.realized_loss(ll)),
                       "basic": np.cumsum([t.epsilon for t in tabs])})
    return add_ratio(df, ("realized", "basic"))


@dataclass(frozen=True)
class Statement:
    """A statement's confidence before and after the answers, its knowledge gain and the bands around it."""

    bands: pd.DataFrame  # item, low, high (ln-gain units, + *_ratio)
    curve: pd.DataFrame  # weight, lemma_gain (ratio), lemma_log_gain, bound (ℓ), bound_ratio
    prior_conf: float
    posterior_conf: float
    gain: float
    loss: float
    lemma_gain: float
    lemma_bound: float
    lemma_x_a: int
    lemma_x_b: int


@cached
def statement(family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior_kind: str, kind: str,
              weight: float) -> Statement:
    """b(φ), b(φ|y) and the gain (Eq. 3) against the realized band [1/L, L] (Lemma 3.1) and the LDP band
    [e^(−Σε), e^(Σε)]; the Lemma 3.2 construction (App. A.3) at ``weight`` and over a grid of weights, approaching
    L from below."""
    tabs, _, ll = _sampled(family, epsilon, n, k, x, seed)
    b = prior(prior_kind, n)
    phi = _statement(kind, n, x)
    loss = float(ldp.realized_loss(ll))
    basic = float(sum(t.epsilon for t in tabs))
    gain = ldp.knowledge_gain(phi, b, ll)
    lemma = ldp.lemma32_construction(ll, alpha=weight)
    weights = np.geomspace(1e-8, 0.5, 40)
    constructions = [ldp.lemma32_construction(ll, alpha=float(a)) for a in weights]
    curve = add_ratio(pd.DataFrame({
        "weight": weights,
        "lemma_gain": [c.gain for c in constructions],  # ratio for display (inf beyond e^709)
        "lemma_log_gain": [c.log_gain for c in constructions],
        "bound": loss,
    }), ("bound",))
    log_gain = math.log(gain) if gain > 0 else -math.inf
    bands = add_ratio(pd.DataFrame({
        "item": ["basic-composition LDP band", "realized band (Lemma 3.1)", "statement gain", "Lemma 3.2 gain"],
        "low": [-basic, -loss, log_gain, lemma.log_gain],
        "high": [basic, loss, log_gain, lemma.log_gain],
    }), ("low", "high"))
    return Statement(bands, curve, float(phi @ b), float(phi @ ldp.posterior(b, ll)), gain, loss, lemma.gain,
                     lemma.bound, lemma.x_a, lemma.x_b)


@cached
def qif(family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior_kind: str) -> pd.DataFrame:
    """Realized g-leakage ln(V_g(b,y)/V_g(b)) of the k answers for two gain functions (Thm 3.3, Cor. 3.1), next to
    the realized loss ℓ and the LDP bound Σε (g-leakage ≤ ℓ ≤ Σε)."""
    tabs, _, ll = _sampled(family, epsilon, n, k, x, seed)
    b = prior(prior_kind, n)
    v = np.arange(n)
    gains = {
        "guess the exact value": np.eye(n),
        "guess within ±1": (np.abs(v[:, None] - v[None, :]) <= 1).astype(float),
    }
    basic = float(sum(t.epsilon for t in tabs))
    rows = []
    for name, g in gains.items():
        r = ldp.g_leakage(g, b, ll)
        rows.append({
            "what the adversary wants": name,
            "chance of success before": r.prior_vulnerability,
            "chance of success after": r.posterior_vulnerability,
            "g-leakage (ln of the ratio)": r.leakage,
            "realized loss ℓ": r.bound,
            "LDP bound Σε": basic,
        })
    return pd.DataFrame(rows)


def _pattern_count(tabs: list[ldp.LikelihoodTable]) -> int:
    """How many leading queries fit into :data:`MAX_PATTERNS` output patterns (at least 1)."""
    m, total = 0, 1
    for t in tabs:
        if total * t.n_outputs > MAX_PATTERNS:
            break
        total *= t.n_outputs
        m += 1
    return max(m, 1)


@dataclass(frozen=True)
class OutputLosses:
    """ℓ of every output pattern of the first m queries, sorted, with its probability under x*."""

    table: pd.DataFrame  # rank, pattern (text), loss, basic, probability, loss_ratio, basic_ratio
    m: int
    k: int
    patterns: int
    expected_loss: float
    basic: float
    p_at_bound: float
    share_at_bound: float


@cached
def output_losses(family: str, epsilon: float, n: int, k: int, x: int) -> OutputLosses:
    """ℓ(y) of every output pattern of the first m ≤ k queries against Σε (Eq. 10), sorted; the expected loss under
    x* and the chance of a pattern at the bound (full utilisation, Def. 3.3)."""
    tabs = _tables(family, epsilon, n, k)
    m = _pattern_count(tabs)
    df = ldp.composition_output_losses(tabs[:m], true_value=x, max_patterns=MAX_PATTERNS)
    df["pattern"] = ["".join(str(v) for v in p) if n <= 10 else "·".join(str(v) for v in p) for p in df["pattern"]]
    df = df.drop(columns="ratio").sort_values("loss", kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    df = add_ratio(df, ("loss", "basic"))
    at_bound = df["loss"] >= df["basic"] - 1e-9
    return OutputLosses(df, m, k, len(df), float((df["loss"] * df["probability"]).sum()), float(df["basic"].iloc[0]),
                        float(df.loc[at_bound, "probability"].sum()), float(at_bound.mean()))


# --- the filter: timeline, remaining budget, regions, the (ε, δ) variant -----------------------------------


@dataclass(frozen=True)
class Timeline:
    """The Bayesian filter on a stream of k queries next to basic composition."""

    #: step, epsilon, worst_case, accepted, output, loss, basic_spent, basic_accepted, budget (+_ratio)
    table: pd.DataFrame
    accepted: int
    basic_accepted: int
    first_rejection: int | None
    basic_stop: int | None
    loss: float
    remaining: float
    basic_remaining: float
    simplified_max_epsilon: float
    remaining_share: float
    basic_remaining_share: float
    decreases: int
    log_likelihood: np.ndarray  # ln Λ of the accepted transcript


@cached
def timeline(family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int) -> Timeline:
    """The filter on k queries (Algorithm 2: look-ahead over every output); rejected queries are probes, not run."""
    tabs = _tables(family, epsilon, n, k)
    df = ldp.filter_timeline(tabs, budget, true_value=x, rng=np.random.default_rng(seed))
    df["output"] = df["output"].astype(object).where(df["accepted"], None)
    df["budget"] = budget
    acc = df["accepted"].to_numpy()
    ll = (ldp.transcript_log_likelihood([t for t, a in zip(tabs, acc, strict=True) if a],
                                        df.loc[acc, "output"].tolist()) if acc.any() else np.zeros(n))
    df = add_ratio(df, ("worst_case", "loss", "basic_spent", "budget"))
    loss = float(df["loss"].iloc[-1])
    spent = float(df["basic_spent"].iloc[-1])
    return Timeline(
        df, int(acc.sum()), int(df["basic_accepted"].sum()),
        int(df.loc[~df["accepted"], "step"].min()) if (~acc).any() else None,
        int(df.loc[~df["basic_accepted"], "step"].min()) if (~df["basic_accepted"]).any() else None,
        loss, budget - loss, budget - spent, max(budget - loss, 0.0),
        min(max(1.0 - loss / budget, 0.0), 1.0), min(max(1.0 - spent / budget, 0.0), 1.0),
        int((np.diff(np.r_[0.0, df["loss"].to_numpy()]) < -1e-12).sum()), ll,
    )


@dataclass(frozen=True)
class Regions:
    """Which candidate queries the full and the Simplified filter accept from the timeline's state."""

    table: pd.DataFrame  # epsilon, slope, query_loss, worst_case, bayesian, simplified, region
    bayesian: int
    simplified: int
    candidates: int
    loss: float
    superset: bool


@cached
def regions(family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int) -> Regions:
    """Acceptance of candidate Eq.-5 queries (ε_q, slope) by the Simplified rule ℓ + ε_q ≤ ε_G (Algorithm 3) and the
    full look-ahead (Eq. 15) from the state the timeline left."""
    tl = timeline(family, epsilon, budget, n, k, x, seed)
    eps_grid = np.geomspace(0.02, min(max(2.0 * budget, 0.1), REGION_MAX_EPSILON), 24)
    df = ldp.acceptance_regions(tl.log_likelihood, budget, epsilons=eps_grid, slopes=np.linspace(0.0, 1.0, 21))
    df["region"] = np.select([df["simplified"] & df["bayesian"], df["bayesian"]],
                             ["both accept", "only the full filter"], "both reject")
    return Regions(df, int(df["bayesian"].sum()), int(df["simplified"].sum()), len(df), tl.loss,
                   bool((df["bayesian"] | ~df["simplified"]).all()))


@dataclass(frozen=True)
class ApproximateRun:
    """The (ε, δ) filter of Algorithm 4 on the timeline's stream: when it leaves basic composition."""

    table: pd.DataFrame  # step, mode (words), accepted, loss, spent
    accepted: int
    bayesian_accepted: int
    switch_step: int | None  # first query judged in Bayesian mode
    halted: bool


_MODE_WORDS = {"OI": "adding up ε (basic composition)", "BAYES": "Bayesian look-ahead", "HALT": "halted"}


@cached
def approximate_run(family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int) -> ApproximateRun:
    """Algorithm 4 (experimental, no proof in the paper): spend ε by basic composition until it would stop, then
    switch to the Bayesian look-ahead if ℓ ≤ ε_G. The answers are drawn as in :func:`timeline`."""
    tabs = _tables(family, epsilon, n, k)
    gen = np.random.default_rng(seed)
    filt = ldp.ApproximateBayesianFilter(budget, APPROX_DELTA, domain_size=n)
    rows, switch = [], None
    for i, t in enumerate(tabs, start=1):
        ok = filt.would_accept(t)
        if switch is None and filt.mode != "OI":
            switch = i
        if ok:
            filt.submit(t, t.sample(x, gen))
        rows.append({"step": i, "mode": _MODE_WORDS[filt.mode], "accepted": ok, "loss": filt.loss,
                     "spent": filt.spent[0]})
    df = pd.DataFrame(rows)
    return ApproximateRun(df, int(df["accepted"].sum()), timeline(family, epsilon, budget, n, k, x, seed).accepted,
                          switch, filt.mode == "HALT")


# --- accepted-query counts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AcceptedCounts:
    """Answered counts of a greedy adversary over seeded runs, per filter."""

    table: pd.DataFrame  # accepted, method, runs
    bayesian_mean: float
    simplified_mean: float
    bayesian_median: float
    simplified_median: float
    capped: int  # runs (either filter) that reached SIM_CAP
    basic: int


@cached(show_spinner="Simulating the filter …")
def accepted_counts(family: str, epsilon: float, budget: float, n: int, x: int, seed: int) -> AcceptedCounts:
    """Answered counts of a greedy adversary (Algorithm 5) under the full and the Simplified filter,
    :data:`SIM_RUNS` seeded runs each, stream capped at :data:`SIM_CAP`; basic composition's single count."""
    stream = [_query(family, epsilon, n, 1)] if family == "rr" else _tables(family, epsilon, n, SIM_CAP)
    frames, stats = [], {}
    basic = 0
    for i, method in enumerate(("bayesian", "simplified")):
        sim = ldp.simulate_accepted_counts(stream, budget, true_value=x, n_runs=SIM_RUNS, method=method,
                                           max_queries=SIM_CAP, rng=np.random.default_rng([seed, i]))
        counts = sim["accepted"].value_counts().sort_index()
        frames.append(pd.DataFrame({"accepted": counts.index, "method": method, "runs": counts.to_numpy()}))
        stats[method] = (float(sim["accepted"].mean()), float(sim["accepted"].median()),
                         int((sim["accepted"] >= SIM_CAP).sum()))
        basic = int(sim["basic_composition"].iloc[0])
    return AcceptedCounts(pd.concat(frames, ignore_index=True), stats["bayesian"][0], stats["simplified"][0],
                          stats["bayesian"][1], stats["simplified"][1],
                          stats["bayesian"][2] + stats["simplified"][2], basic)


@cached(show_spinner="Simulating the randomized-response stream …")
def rr_curve(epsilon: float, x: int, seed: int) -> pd.DataFrame:
    """E[# answered] of the filter on a binary RR stream against ε_G = j·ε (closed form: a ±1 walk's hitting time)
    with seeded Monte Carlo means ± standard errors at a few j; basic composition ⌊ε_G/ε⌋ = j.

    Columns: budget, multiple, closed_form, basic, mc_mean, mc_se (nan where not simulated).
    """
    rr = ldp.randomized_response(epsilon)
    df = rr_closed_form(epsilon)
    for i, j in enumerate(RR_MULTIPLES):
        if j in RR_MC_MULTIPLES:
            sim = ldp.simulate_accepted_counts(rr, j * epsilon, true_value=min(x, 1), n_runs=RR_MC_RUNS,
                                               rng=np.random.default_rng([seed, j]))
            df.loc[i, "mc_mean"] = float(sim["accepted"].mean())
            df.loc[i, "mc_se"] = float(sim["accepted"].std(ddof=1) / math.sqrt(RR_MC_RUNS))
    return df


@cached
def rr_closed_form(epsilon: float) -> pd.DataFrame:
    """The closed-form part of :func:`rr_curve` (no simulation: mc_mean and mc_se are nan)."""
    return pd.DataFrame([
        {"budget": j * epsilon, "multiple": j, "closed_form": ldp.rr_expected_accepted(epsilon, j * epsilon),
         "basic": j, "mc_mean": math.nan, "mc_se": math.nan}
        for j in RR_MULTIPLES
    ])


@cached
def rr_expected(epsilon: float, budget: float) -> float | None:
    """Closed-form E[# answered] at (ε, ε_G); None when ⌊ε_G/ε⌋ is too large to solve on a rerun."""
    if math.floor(budget / epsilon + 1e-9) > RR_CLOSED_FORM_MAX_M:
        return None
    return ldp.rr_expected_accepted(epsilon, budget)


# --- the continuous part: 2-D regressions and branch-and-bound --------------------------------------------


def _regressions_2d(kind: str, epsilon: float, k: int, x: int, n: int, seed: int):
    """k ≤ 10 random regressions on [−1, 1]² answered at x*_c = (s, s), s = −1 + 2x*/(|D|−1): logistic with
    θ ~ U[−1, 1]³ (Sec. 6.2), or truncated linear v = clip(θ·x̃, −½, ½) with the same θ (Sec. 5.3 (b), Eq. 20)."""
    if kind not in REGRESSIONS:
        raise ValueError(f"regression kind must be one of {', '.join(REGRESSIONS)}, got {kind!r}")
    gen = np.random.default_rng([seed, 2])
    s = -1.0 + 2.0 * x / max(n - 1, 1)
    x_star = np.array([s, s])
    terms = []
    for _ in range(min(k, BNB_MAX_QUERIES)):
        theta = gen.uniform(-1.0, 1.0, 3)
        q = (ldp.logistic_regression_query(theta, epsilon=epsilon) if kind == "logistic"
             else ldp.truncated_regression_query(theta, epsilon=epsilon, low=-0.5, high=0.5))
        terms.append(q.term(q.sample(x_star, gen)))
    return terms, x_star


@dataclass(frozen=True)
class BranchAndBound:
    """ln Λ over the box, certified bounds of its extremes and the search's trace."""

    kind: str
    grid: pd.DataFrame  # x1, x2, log_likelihood
    trace: pd.DataFrame  # search, nodes, lower_bound, upper_bound, gap
    secant: pd.DataFrame  # z, f, C, V, V_secant, relaxed (empty when the widest term is constant on the box)
    k: int
    x_star: np.ndarray
    argmin: np.ndarray
    argmax: np.ndarray
    certified: float
    attained: float
    grid_loss: float
    single_sum: float  # Σ of the single-answer losses (App. C with groups of one)
    basic: float
    nodes: int
    converged: bool
    loose_nodes_min: int | None
    loose_nodes_max: int | None
    z_range: tuple[float, float]


def bnb(kind: str, epsilon: float, k: int, x: int, n: int, seed: int) -> BranchAndBound:
    """ln Λ(x₁, x₂) on a 31×31 grid, certified B&B bounds of its extremes (Algorithm 6, Eq. 17) with the per-node trace
    of both searches, and the secant relaxation of the widest term on its root interval (Sec. 5.2, App. D).

    Slower the smaller ε (thousands of nodes to the fixed tolerance at ε = 0.01; bench/results-where-time-goes.md):
    the page runs it as a
    background job (:mod:`app.background`)."""
    terms, x_star = _regressions_2d(kind, epsilon, k, x, n, seed)
    lo, hi = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    g = np.linspace(-1.0, 1.0, 31)
    xx, yy = np.meshgrid(g, g)
    pts = np.column_stack([xx.ravel(), yy.ravel()])
    ll = np.sum([t.log_prob(pts) for t in terms], axis=0)
    grid = pd.DataFrame({"x1": pts[:, 0], "x2": pts[:, 1], "log_likelihood": ll})
    mn = ldp.minimize_dc(terms, lo, hi, sign=1, tol=BNB_TOL / 2)
    mx = ldp.minimize_dc(terms, lo, hi, sign=-1, tol=BNB_TOL / 2)
    t_min = mn.trace.assign(search="min ln Λ", lower_bound=mn.trace["lower"], upper_bound=mn.trace["upper"])
    t_max = mx.trace.assign(search="max ln Λ", lower_bound=-mx.trace["upper"], upper_bound=-mx.trace["lower"])
    trace = pd.concat([t_min, t_max], ignore_index=True)[["search", "nodes", "lower_bound", "upper_bound"]]
    trace["gap"] = trace["upper_bound"] - trace["lower_bound"]
    t0 = terms[int(np.argmax([float(np.abs(t.a).sum()) for t in terms]))]  # the term whose score varies most
    z_lo = float(t0.c + np.minimum(t0.a * lo, t0.a * hi).sum())
    z_hi = float(t0.c + np.maximum(t0.a * lo, t0.a * hi).sum())
    secant = ldp.secant_relaxation(t0, z_lo, z_hi, sign=1) if z_hi > z_lo else pd.DataFrame()
    loose = []
    for name in ("min ln Λ", "max ln Λ"):
        hit = trace.loc[(trace["search"] == name) & (trace["gap"] <= LOOSE_GAP / 2), "nodes"]
        loose.append(int(hit.min()) if len(hit) else None)
    return BranchAndBound(
        kind, grid, trace, secant, len(terms), x_star, mn.argmin, mx.argmin, (-mx.lower) - mn.lower,
        (-mx.upper) - mn.upper, float(ll.max() - ll.min()), float(sum(ldp.single_term_loss(t, lo, hi) for t in terms)),
        float(sum(t.epsilon for t in terms)), mn.n_nodes + mx.n_nodes, mn.converged and mx.converged, loose[0],
        loose[1], (z_lo, z_hi),
    )


# --- "Reproduce the paper" ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counterexamples:
    """Two small cases where the paper's claims about the odometer (Sec. 4.2) fail."""

    full_budget_query_epsilon: float  # a query with ε_q > 0 …
    full_budget_look_ahead: np.ndarray  # … whose every answer leaves ℓ = ε_G …
    full_budget_bayesian: bool  # … is accepted by the full filter at full budget
    full_budget_simplified: bool
    decrease_before: float  # ℓ before an answer that the paper's rule says cannot raise it
    decrease_after: float
    p_at_max: float
    p_at_min: float


@dataclass(frozen=True)
class Examples:
    """Examples 1–3 exactly, the exhaustive check of Example 3's interaction, and the two counterexamples."""

    ex1: ldp.Example1
    ex2: ldp.Example2
    ex3: pd.DataFrame
    transcripts: int
    min_length: int
    max_length: int
    max_loss: float
    total_probability: np.ndarray
    expected_0: float
    expected_5: float
    counter: Counterexamples


EX3_PAPER = (1.50, 1.15, 1.50, 2.25)  # the ratio e^ℓ Example 3 prints after each accepted query


@cached
def examples() -> Examples:
    """Examples 1–3 (Eq. 9, Eq. 11, Example 3), every transcript of Example 3's interaction (Thm 4.1), and the two
    claims of Sec. 4.2 that small cases refute."""
    ex3 = ldp.example3()
    ex3["paper_ratio"] = list(EX3_PAPER) + [math.nan] * (len(ex3) - len(EX3_PAPER))
    for c in ("argmax", "argmin"):
        ex3[c] = [", ".join(str(int(v)) for v in t) for t in ex3[c]]
    tree = ldp.example3_transcripts()
    # at full budget a query that only separates the middle value is still accepted
    qa = ldp.likelihood_table(np.array([[0.5, 0.4, 0.5], [0.5, 0.6, 0.5]]).T)
    state = np.log([1, 1.5, 2])
    fa = ldp.BayesianPrivacyFilter(math.log(2), domain_size=3, log_likelihood=state)
    sa = ldp.SimplifiedBayesianFilter(math.log(2), domain_size=3, log_likelihood=state)
    # p(y|x_max) < p(y|x_min), the paper's "decrease" condition, holds; yet ℓ rises
    ll_b = np.log([1, 1.9, 2])
    p_b = np.array([1, 10, 0.5]) / 10.5
    counter = Counterexamples(qa.epsilon, fa.look_ahead(qa), fa.would_accept(qa), sa.would_accept(qa),
                              float(ldp.realized_loss(ll_b)), float(ldp.realized_loss(ll_b + np.log(p_b))),
                              float(p_b[2]), float(p_b[0]))
    return Examples(ldp.example1(), ldp.example2(), ex3, len(tree.outputs), int(tree.lengths.min()),
                    int(tree.lengths.max()), tree.max_loss, tree.total_probability, tree.expected_length(0),
                    tree.expected_length(5), counter)


@cached
def rr_reference() -> pd.DataFrame:
    """Closed-form E[# answered] of the four reference settings next to the independent reference values."""
    return pd.DataFrame([
        {"epsilon": eps, "budget": b, "reference": ref, "closed_form": ldp.rr_expected_accepted(eps, b),
         "basic": math.floor(b / eps + 1e-9)}
        for eps, b, ref in RR_REFERENCE
    ])


def rr_simulated(n_runs: int = 200, seed: int = 0) -> pd.DataFrame:
    """Seeded Monte Carlo means ± standard errors of the four reference settings (seconds to tens of seconds: the page
    runs it as a background job). Columns: epsilon, budget, mc_mean, mc_se, runs."""
    rows = []
    for i, (eps, b, _) in enumerate(RR_REFERENCE):
        sim = ldp.simulate_accepted_counts(ldp.randomized_response(eps), b, true_value=1, n_runs=n_runs,
                                           rng=np.random.default_rng([seed, i]))
        rows.append({"epsilon": eps, "budget": b, "mc_mean": float(sim["accepted"].mean()),
                     "mc_se": float(sim["accepted"].std(ddof=1) / math.sqrt(n_runs)), "runs": n_runs})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Evaluation:
    """Percentile bands of answered regressions against ε_G (Fig. 1(b), 1(d)) and the median at ε_G = 10."""

    bands: pd.DataFrame  # budget, p10, median, p90, basic
    median: float
    paper: float
    runs: int
    group_size: int


PAPER_MEDIAN = {"logistic": 21.0, "linear": 47.0}  # Sec. 6.1–6.2: median answered at ε_G = 10


@cached(max_entries=8)
def evaluation(kind: str, group_size: int, n_runs: int = 50) -> Evaluation:
    """Sec. 6, Fig. 1(b)/(d): answered counts for ε_G = 1..10 (one stream per run gives every budget), seed 0 as in
    :func:`dpcore.ldp.logistic_median_reproduction` and :func:`dpcore.ldp.linear_median_mismatch`."""
    df = ldp.regression_experiment(kind, budgets=range(1, 11), n_runs=n_runs, group_size=group_size, rng=0)
    bands = df.groupby("budget")["accepted"].quantile([0.1, 0.5, 0.9]).unstack()
    bands.columns = ["p10", "median", "p90"]
    bands = bands.reset_index()
    bands["basic"] = df.groupby("budget")["basic"].first().to_numpy()
    med = float(bands.loc[bands["budget"] == 10.0, "median"].iloc[0])
    return Evaluation(bands, med, PAPER_MEDIAN[kind], n_runs, group_size)


@cached(max_entries=8)
def loss_paths(kind: str, group_size: int, seed: int = 0) -> pd.DataFrame:
    """Sec. 6, Fig. 1(a)/(c): the realized loss of :data:`PATH_RUNS` runs against the number of answered
    regressions at ε_G = 10, next to basic composition's line k·ε. Columns: run, accepted, loss, basic."""
    return ldp.regression_loss_paths(kind, budget=10.0, n_runs=PATH_RUNS, group_size=group_size, rng=seed)


@dataclass(frozen=True)
class Healthcare:
    """The 16 answer patterns of the healthcare example: the paper's losses against the certified optimum."""

    table: pd.DataFrame  # heart, stroke, diabetes, sleep, paper, certified, attained, single_sum, pattern, …
    paper_worst: float
    exact_worst: float
    paper_median: float
    exact_median: float
    min_excess: float
    max_excess: float


@cached(max_entries=2)
def healthcare(tol: float = 1e-5) -> Healthcare:
    """Sec. 6.3 / App. E: the 16 healthcare answer patterns, the paper's value vs the certified optimum; ~1 min."""
    df = ldp.healthcare_losses(tol=tol)
    df["pattern"] = [f"{h}{s}{d}/{sl}" for h, s, d, sl in df[["heart", "stroke", "diabetes", "sleep"]].to_numpy()]
    df["paper_minus_exact"] = df["paper"] - df["certified"]
    return Healthcare(df, float(df["paper"].max()), float(df["certified"].max()), float(df["paper"].median()),
                      float(df["certified"].median()), float(df["paper_minus_exact"].min()),
                      float(df["paper_minus_exact"].max()))
