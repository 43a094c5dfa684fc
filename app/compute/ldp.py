"""Cached tables of the Local-DP page (paper 003, spec ``ldp_bayesian_filter.md``): scalars in, frames out.

Everything is stored on the log scale (ε units, spec §0); each frame also carries a ``*_ratio`` column
(``e^ℓ``) so the page can switch the *display* scale without recomputing. No figures here, and no formulas
beyond evaluating :mod:`dpcore.ldp` on the grids the charts need.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from app.compute import MAX_ENTRIES
from dpcore import ldp

PARTS = ("beliefs", "filter", "continuous")  # the explore view renders one part per rerun
FAMILIES = ("powers", "rr")  # running-example queries X^i (Eq. 11) or k-ary randomized response on the domain
PRIORS = ("uniform", "skewed", "peaked", "bimodal")
STATEMENTS = ("equal", "above", "even")
STATEMENT_TEXT = {"equal": "X = x*", "above": "X ≥ x*", "even": "X is even"}
DOMAIN_SIZES = (2, 3, 4, 5, 6, 8, 11, 16, 21, 31, 51, 101)
QUERY_COUNTS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60)
TRUE_VALUES = tuple(range(101))
BUDGETS = (0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0, 50.0)
ALPHAS = (1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.5)

MAX_PATTERNS = 256  # panel 3 enumerates at most this many output patterns
SIM_RUNS = 100  # Monte Carlo runs per method in panel 7 (seeded)
SIM_CAP = 200  # a run stops after this many accepted queries (stated on the page)
RR_MULTIPLES = tuple(range(1, 13))  # panel 7 closed-form curve: ε_G = j·ε
RR_MC_MULTIPLES = (2, 4, 8, 12)
RR_MC_RUNS = 80
RR_CLOSED_FORM_MAX_M = 300  # ⌊ε_G/ε⌋ above this: the dense linear system is too slow for a rerun
BNB_MAX_QUERIES = 10  # panel 4/9: at most this many 2-D logistic queries
BNB_TOL = 1e-6
REGION_MAX_EPSILON = 2.0 * max(BUDGETS)  # panel 8's full range ε_q ≤ 2·ε_G (relative budget tolerance)
LOOSE_GAP = 0.15  # the paper's App. E values sit 0.100–0.149 above the optimum (spec §8.4)
RR_REFERENCE = ((1.0, 4.0, 8.344), (1.0, 10.0, 21.638), (0.5, 4.0, 31.489), (0.1, 1.0, 92.500))  # spec §5.5


# --- small pure helpers --------------------------------------------------------------------------


def show_loss(value: float, ratio: bool, digits: int = 4) -> str:
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


def _prior(preset: str, n: int) -> np.ndarray:
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
    """Query i (1-based) of a family: X^i through Eq. 5 (spec §4.2) or k-ary RR on the whole domain.

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


def _extremes(ll: np.ndarray) -> tuple[list[int], list[int]]:
    top = np.flatnonzero(np.isclose(ll, ll.max(), rtol=0, atol=1e-12)).tolist()
    bottom = np.flatnonzero(np.isclose(ll, ll.min(), rtol=0, atol=1e-12)).tolist()
    return top, bottom


# --- panels 1, 2, 4: beliefs, statements, likelihood landscape ------------------------------------


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def beliefs(
    family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior: str
) -> tuple[pd.DataFrame, dict]:
    """Panel 1/4: prior, likelihood Λ(x) (rescaled to the posterior's peak), posterior (Eq. 2) over D.

    Summary: realized loss ℓ (Eq. 10), basic composition Σε, the outputs, argmax/argmin of Λ.
    """
    tabs, outs, ll = _sampled(family, epsilon, n, k, x, seed)
    b = _prior(prior, n)
    post = ldp.posterior(b, ll)
    lik = np.exp(ll - ll.max())
    df = pd.DataFrame(
        {
            "x": np.arange(n),
            "prior": b,
            "likelihood_scaled": lik * max(post.max(), b.max()),
            "log_likelihood": ll,
            "log_likelihood_rel": ll - ll.min(),
            "posterior": post,
        }
    )
    df = add_ratio(df, ("log_likelihood_rel",))
    top, bottom = _extremes(ll)
    loss = ldp.realized_loss(ll)
    summary = {
        "loss": loss,
        "basic": float(sum(t.epsilon for t in tabs)),
        "outputs": outs,
        "argmax": top,
        "argmin": bottom,
        "posterior_true": float(post[x]),
        "prior_true": float(b[x]),
        "max_log": float(ll.max()),
        "min_log": float(ll.min()),
    }
    return df, summary


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def statement(
    family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior: str, kind: str, alpha: float
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Panel 2: b(φ), b(φ|y), the gain (Eq. 3) against the realized band [1/L, L] (Lemma 3.1) and the LDP band
    [e^{−Σε}, e^{Σε}]; the Lemma 3.2 construction's gain over a grid of α (App. A.3) approaching L from below.

    Frames: bands (item, low, high in ln-gain units, + *_ratio) and the α curve (alpha, lemma_gain (ratio),
    lemma_log_gain, bound (ℓ), bound_ratio).
    """
    tabs, _, ll = _sampled(family, epsilon, n, k, x, seed)
    b = _prior(prior, n)
    phi = _statement(kind, n, x)
    loss = ldp.realized_loss(ll)
    basic = float(sum(t.epsilon for t in tabs))
    gain = ldp.knowledge_gain(phi, b, ll)
    lemma = ldp.lemma32_construction(ll, alpha=alpha)
    alphas = np.geomspace(1e-8, 0.5, 40)
    constructions = [ldp.lemma32_construction(ll, alpha=float(a)) for a in alphas]
    curve = add_ratio(
        pd.DataFrame(
            {
                "alpha": alphas,
                "lemma_gain": [c.gain for c in constructions],  # ratio for display (inf beyond e^709)
                "lemma_log_gain": [c.log_gain for c in constructions],
                "bound": loss,
            }
        ),
        ("bound",),
    )
    log_gain = math.log(gain) if gain > 0 else -math.inf
    lemma_log = lemma.log_gain
    bands = add_ratio(
        pd.DataFrame(
            {
                "item": [
                    "basic-composition LDP band",
                    "realized band (Lemma 3.1)",
                    "statement gain",
                    "Lemma 3.2 gain",
                ],
                "low": [-basic, -loss, log_gain, lemma_log],
                "high": [basic, loss, log_gain, lemma_log],
            }
        ),
        ("low", "high"),
    )
    summary = {
        "prior_conf": float(phi @ b),
        "posterior_conf": float(phi @ ldp.posterior(b, ll)),
        "gain": gain,
        "loss": loss,
        "lemma_gain": lemma.gain,
        "lemma_bound": lemma.bound,
        "lemma_x_a": lemma.x_a,
        "lemma_x_b": lemma.x_b,
    }
    return bands, curve, summary


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def qif(family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior: str) -> pd.DataFrame:
    """Spec §7 panel 11 (Thm 3.3, Cor. 3.1): realized g-leakage ln(V_g(b,y)/V_g(b)) of the k answers for two gain
    functions, against the realized loss ℓ and the LDP bound Σε (g-leakage ≤ ℓ ≤ Σε)."""
    tabs, _, ll = _sampled(family, epsilon, n, k, x, seed)
    b = _prior(prior, n)
    v = np.arange(n)
    gains = {
        "guess the exact value (Bayes vulnerability)": np.eye(n),
        "guess within ±1": (np.abs(v[:, None] - v[None, :]) <= 1).astype(float),
    }
    basic = float(sum(t.epsilon for t in tabs))
    rows = []
    for name, g in gains.items():
        r = ldp.g_leakage(g, b, ll)
        rows.append(
            {
                "gain function": name,
                "prior vulnerability": r.prior_vulnerability,
                "posterior vulnerability": r.posterior_vulnerability,
                "g-leakage": r.leakage,
                "realized loss ℓ": r.bound,
                "LDP bound Σε": basic,
            }
        )
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


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def output_losses(family: str, epsilon: float, n: int, k: int, x: int) -> tuple[pd.DataFrame, dict]:
    """Panel 3: ℓ(y) of every output pattern of the first m ≤ k queries against Σε (Eq. 10, RC4), sorted.

    Frame: rank, pattern (text), loss, basic, probability (under x*), *_ratio. Summary: m, expected loss,
    share of probability at the bound ("full utilisation").
    """
    tabs = _tables(family, epsilon, n, k)
    m = _pattern_count(tabs)
    df = ldp.composition_output_losses(tabs[:m], true_value=x, max_patterns=MAX_PATTERNS)
    df["pattern"] = [
        "".join(str(v) for v in p) if n <= 10 else "·".join(str(v) for v in p) for p in df["pattern"]
    ]
    df = df.drop(columns="ratio").sort_values("loss", kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    df = add_ratio(df, ("loss", "basic"))
    at_bound = df["loss"] >= df["basic"] - 1e-9
    summary = {
        "m": m,
        "k": k,
        "patterns": len(df),
        "expected_loss": float((df["loss"] * df["probability"]).sum()),
        "basic": float(df["basic"].iloc[0]),
        "p_at_bound": float(df.loc[at_bound, "probability"].sum()),
        "share_at_bound": float(at_bound.mean()),
    }
    return df, summary


# --- panels 5, 6, 8: the filter -------------------------------------------------------------------


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def timeline(
    family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int
) -> tuple[pd.DataFrame, dict]:
    """Panels 5/6: the BPF on a stream of k queries (Algorithm 2, look-ahead over every output) next to basic
    composition; rejected queries are probes and are not run (spec §7 panel 5).

    Frame: step, epsilon, worst_case, accepted, output, loss, basic_spent, basic_accepted, budget (+ *_ratio).
    Summary: accepted counts, final odometer, remaining budgets, the accepted transcript's ln Λ.
    """
    tabs = _tables(family, epsilon, n, k)
    df = ldp.filter_timeline(tabs, budget, true_value=x, rng=np.random.default_rng(seed))
    df["output"] = df["output"].astype(object).where(df["accepted"], None)
    df["budget"] = budget
    acc = df["accepted"].to_numpy()
    ll = (
        ldp.transcript_log_likelihood(
            [t for t, a in zip(tabs, acc, strict=True) if a], df.loc[acc, "output"].tolist()
        )
        if acc.any()
        else np.zeros(n)
    )
    df = add_ratio(df, ("worst_case", "loss", "basic_spent", "budget"))
    decreases = int((np.diff(np.r_[0.0, df["loss"].to_numpy()]) < -1e-12).sum())
    summary = {
        "accepted": int(acc.sum()),
        "basic_accepted": int(df["basic_accepted"].sum()),
        "first_rejection": int(df.loc[~df["accepted"], "step"].min()) if (~acc).any() else None,
        "basic_stop": int(df.loc[~df["basic_accepted"], "step"].min())
        if (~df["basic_accepted"]).any()
        else None,
        "loss": float(df["loss"].iloc[-1]),
        "remaining": budget - float(df["loss"].iloc[-1]),
        "basic_remaining": budget - float(df["basic_spent"].iloc[-1]),
        "simplified_max_epsilon": max(budget - float(df["loss"].iloc[-1]), 0.0),
        "remaining_share": min(max(1.0 - float(df["loss"].iloc[-1]) / budget, 0.0), 1.0),
        "basic_remaining_share": min(max(1.0 - float(df["basic_spent"].iloc[-1]) / budget, 0.0), 1.0),
        "decreases": decreases,
        "log_likelihood": ll,
    }
    return df, summary


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def regions(
    family: str, epsilon: float, budget: float, n: int, k: int, x: int, seed: int
) -> tuple[pd.DataFrame, dict]:
    """Panel 8: acceptance of candidate Eq.-5 queries (ε_q, slope) by the Simplified rule (ℓ + ε_q ≤ ε_G,
    Algorithm 3) and the full look-ahead (Eq. 15) from the state the timeline left (spec §7 panel 8)."""
    _, tl = timeline(family, epsilon, budget, n, k, x, seed)
    eps_grid = np.geomspace(0.02, min(max(2.0 * budget, 0.1), REGION_MAX_EPSILON), 24)
    slopes = np.linspace(0.0, 1.0, 21)
    df = ldp.acceptance_regions(tl["log_likelihood"], budget, epsilons=eps_grid, slopes=slopes)
    df["region"] = np.select(
        [df["simplified"] & df["bayesian"], df["bayesian"]],
        ["both accept", "only the full BPF"],
        "both reject",
    )
    summary = {
        "bayesian": int(df["bayesian"].sum()),
        "simplified": int(df["simplified"].sum()),
        "candidates": len(df),
        "loss": tl["loss"],
        "superset": bool((df["bayesian"] | ~df["simplified"]).all()),
    }
    return df, summary


# --- panel 7: accepted-query counts -------------------------------------------------------------


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Simulating the filter …")
def accepted_counts(
    family: str, epsilon: float, budget: float, n: int, x: int, seed: int
) -> tuple[pd.DataFrame, dict]:
    """Panel 7: accepted counts of a greedy adversary (Algorithm 5) under the BPF and the Simplified filter,
    :data:`SIM_RUNS` seeded runs each, stream capped at :data:`SIM_CAP`; basic composition's single count.

    Frame: accepted, method, runs. Summary: means, medians, the basic count, whether the cap was hit.
    """
    stream = [_query(family, epsilon, n, 1)] if family == "rr" else _tables(family, epsilon, n, SIM_CAP)
    frames, stats = [], {}
    for i, method in enumerate(("bayesian", "simplified")):
        sim = ldp.simulate_accepted_counts(
            stream,
            budget,
            true_value=x,
            n_runs=SIM_RUNS,
            method=method,
            max_queries=SIM_CAP,
            rng=np.random.default_rng([seed, i]),
        )
        counts = sim["accepted"].value_counts().sort_index()
        frames.append(pd.DataFrame({"accepted": counts.index, "method": method, "runs": counts.to_numpy()}))
        stats[method] = {
            "mean": float(sim["accepted"].mean()),
            "median": float(sim["accepted"].median()),
            "capped": int((sim["accepted"] >= SIM_CAP).sum()),
        }
        stats["basic"] = int(sim["basic_composition"].iloc[0])
    return pd.concat(frames, ignore_index=True), stats


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Simulating the randomized-response stream …")
def rr_curve(epsilon: float, x: int, seed: int) -> pd.DataFrame:
    """Panel 7: E[#accepted] of the BPF on a binary RR stream against ε_G = j·ε (closed form, spec §5.5, RC13)
    with seeded Monte Carlo means ± standard errors at a few j; basic composition ⌊ε_G/ε⌋ = j.

    Columns: budget, multiple, closed_form, basic, mc_mean, mc_se (nan where not simulated).
    """
    rr = ldp.randomized_response(epsilon)
    df = rr_closed_form(epsilon).copy()
    for i, j in enumerate(RR_MULTIPLES):
        if j in RR_MC_MULTIPLES:
            sim = ldp.simulate_accepted_counts(
                rr, j * epsilon, true_value=min(x, 1), n_runs=RR_MC_RUNS, rng=np.random.default_rng([seed, j])
            )
            df.loc[i, "mc_mean"] = float(sim["accepted"].mean())
            df.loc[i, "mc_se"] = float(sim["accepted"].std(ddof=1) / math.sqrt(RR_MC_RUNS))
    return df


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def rr_closed_form(epsilon: float) -> pd.DataFrame:
    """The closed-form part of :func:`rr_curve` (no simulation: mc_mean and mc_se are nan)."""
    return pd.DataFrame([
        {"budget": j * epsilon, "multiple": j, "closed_form": ldp.rr_expected_accepted(epsilon, j * epsilon),
         "basic": j, "mc_mean": math.nan, "mc_se": math.nan}
        for j in RR_MULTIPLES
    ])


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def rr_expected(epsilon: float, budget: float) -> float | None:
    """Closed-form E[#accepted] at the slider's (ε, ε_G) (spec §5.5); None when ⌊ε_G/ε⌋ is too large to solve."""
    if math.floor(budget / epsilon + 1e-9) > RR_CLOSED_FORM_MAX_M:
        return None
    return ldp.rr_expected_accepted(epsilon, budget)


# --- panels 4 (continuous) and 9: 2-D logistic queries and branch-and-bound ------------------------


def _logistic_2d(epsilon: float, k: int, x: int, n: int, seed: int):
    """k ≤ 10 random logistic regressions on [−1, 1]² (θ ~ U[−1,1]³, Sec. 6.2) answered at x*_c = (s, s) with
    s = −1 + 2x*/(|D|−1); returns (terms, x_star)."""
    gen = np.random.default_rng([seed, 2])
    s = -1.0 + 2.0 * x / max(n - 1, 1)
    x_star = np.array([s, s])
    terms = []
    for _ in range(min(k, BNB_MAX_QUERIES)):
        q = ldp.logistic_regression_query(gen.uniform(-1.0, 1.0, 3), epsilon=epsilon)
        terms.append(q.term(q.sample(x_star, gen)))
    return terms, x_star


BNB_WAIT = 0.06  # s the continuous part waits for its branch-and-bound before showing a placeholder


def bnb(epsilon: float, k: int, x: int, n: int, seed: int) -> dict[str, Any]:
    """Panels 4/9: ln Λ(x₁, x₂) on a 31×31 grid, certified B&B bounds of its extremes (Algorithm 6, Eq. 17) with the
    per-node trace of both searches, and the secant relaxation of the widest term on its root interval (Sec. 5.2, App. D).

    10–40 ms at ε ≥ 0.2, up to ~300 ms at ε = 0.01 (thousands of nodes to the fixed tolerance): the page runs it as a
    background job (:mod:`app.background`) and waits up to :data:`BNB_WAIT` for it."""
    terms, x_star = _logistic_2d(epsilon, k, x, n, seed)
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
    widths = [float(np.abs(t.a).sum()) for t in terms]
    t0 = terms[int(np.argmax(widths))]  # the term whose score z varies most over the box
    z_lo = float(t0.c + np.minimum(t0.a * lo, t0.a * hi).sum())
    z_hi = float(t0.c + np.maximum(t0.a * lo, t0.a * hi).sum())
    secant = ldp.secant_relaxation(t0, z_lo, z_hi, sign=1) if z_hi > z_lo else pd.DataFrame()
    certified = (-mx.lower) - mn.lower
    attained = (-mx.upper) - mn.upper
    loose = {}
    for name in ("min ln Λ", "max ln Λ"):
        hit = trace.loc[(trace["search"] == name) & (trace["gap"] <= LOOSE_GAP / 2), "nodes"]
        loose[name] = int(hit.min()) if len(hit) else None
    return {
        "grid": grid,
        "trace": trace,
        "secant": secant,
        "k": len(terms),
        "x_star": x_star,
        "argmin": mn.argmin,
        "argmax": mx.argmin,
        "certified": certified,
        "attained": attained,
        "grid_loss": float(ll.max() - ll.min()),
        "basic": float(sum(t.epsilon for t in terms)),
        "nodes": mn.n_nodes + mx.n_nodes,
        "converged": mn.converged and mx.converged,
        "loose_nodes": loose,
        "z_range": (z_lo, z_hi),
    }


# --- the "Reproduce the paper" view ---------------------------------------------------------------


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def examples() -> dict[str, Any]:
    """Examples 1–3 exactly (spec §4.1–4.3, RC8–RC11) and the Section-8 counterexamples (RC15)."""
    ex1 = ldp.example1()
    ex2 = ldp.example2()
    ex3 = ldp.example3()
    ex3["paper_ratio"] = [1.50, 1.15, 1.50, 2.25, math.nan, math.nan]
    for c in ("argmax", "argmin"):
        ex3[c] = [", ".join(str(int(v)) for v in t) for t in ex3[c]]
    tree = ldp.example3_transcripts()
    # RC15(a): at full budget a query that only separates interior values is still accepted
    qa = ldp.likelihood_table(np.array([[0.5, 0.4, 0.5], [0.5, 0.6, 0.5]]).T)
    fa = ldp.BayesianPrivacyFilter(math.log(2), domain_size=3, log_likelihood=np.log([1, 1.5, 2]))
    sa = ldp.SimplifiedBayesianFilter(math.log(2), domain_size=3, log_likelihood=np.log([1, 1.5, 2]))
    # RC15(b): the paper's "decrease" condition p(y|x_max) < p(y|x_min) holds, yet ℓ rises
    ll_b = np.log([1, 1.9, 2])
    p_b = np.array([1, 10, 0.5]) / 10.5
    return {
        "ex1": ex1,
        "ex2": ex2,
        "ex3": ex3,
        "tree": {
            "transcripts": len(tree.outputs),
            "min_length": int(tree.lengths.min()),
            "max_length": int(tree.lengths.max()),
            "max_loss": tree.max_loss,
            "total_probability": tree.total_probability,
            "expected": {v: tree.expected_length(v) for v in (0, 5, 10)},
        },
        "rc15a": {
            "loss": fa.loss,
            "query_epsilon": qa.epsilon,
            "look_ahead": fa.look_ahead(qa),
            "bayesian": fa.would_accept(qa),
            "simplified": sa.would_accept(qa),
        },
        "rc15b": {
            "before": ldp.realized_loss(ll_b),
            "after": ldp.realized_loss(ll_b + np.log(p_b)),
            "p_xmax": float(p_b[2]),
            "p_xmin": float(p_b[0]),
        },
    }


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Simulating the four randomized-response streams …")
def rr_reference(n_runs: int = 400, seed: int = 0) -> pd.DataFrame:
    """RC13: closed-form E[#accepted] vs the spec's value vs a seeded Monte Carlo mean ± SE, four (ε, ε_G)."""
    rows = []
    for i, (eps, b, spec) in enumerate(RR_REFERENCE):
        sim = ldp.simulate_accepted_counts(
            ldp.randomized_response(eps), b, true_value=1, n_runs=n_runs, rng=np.random.default_rng([seed, i])
        )
        rows.append(
            {
                "epsilon": eps,
                "budget": b,
                "spec": spec,
                "closed_form": ldp.rr_expected_accepted(eps, b),
                "mc_mean": float(sim["accepted"].mean()),
                "mc_se": float(sim["accepted"].std(ddof=1) / math.sqrt(n_runs)),
                "basic": math.floor(b / eps + 1e-9),
                "runs": n_runs,
            }
        )
    return pd.DataFrame(rows)


@st.cache_data(max_entries=8, show_spinner=False)
def evaluation(kind: str, group_size: int, n_runs: int = 50) -> tuple[pd.DataFrame, dict]:
    """Sec. 6 / Fig. 1(b),(d): accepted counts for ε_G = 1..10 (one stream per run gives every budget, spec §3.10),
    seed 0 as in :func:`dpcore.ldp.logistic_median_reproduction` / :func:`~dpcore.ldp.linear_median_mismatch`.

    Frame: budget, p10, median, p90, basic. Summary: the median at ε_G = 10 and the paper's number.
    """
    df = ldp.regression_experiment(kind, budgets=range(1, 11), n_runs=n_runs, group_size=group_size, rng=0)
    bands = df.groupby("budget")["accepted"].quantile([0.1, 0.5, 0.9]).unstack()
    bands.columns = ["p10", "median", "p90"]
    bands = bands.reset_index()
    bands["basic"] = df.groupby("budget")["basic"].first().to_numpy()
    med = float(bands.loc[bands["budget"] == 10.0, "median"].iloc[0])
    paper = 21.0 if kind == "logistic" else 47.0
    return bands, {"median": med, "paper": paper, "runs": n_runs, "group_size": group_size}


@st.cache_data(max_entries=2, show_spinner=False)
def healthcare(tol: float = 1e-5) -> tuple[pd.DataFrame, dict]:
    """App. E: the 16 healthcare output patterns, paper vs certified exact (spec §4.4, §8.4); ~1 min."""
    df = ldp.healthcare_losses(tol=tol)
    df["pattern"] = [
        f"{h}{s}{d}/{sl}" for h, s, d, sl in df[["heart", "stroke", "diabetes", "sleep"]].to_numpy()
    ]
    df["paper_minus_exact"] = df["paper"] - df["certified"]
    summary = {
        "paper_worst": float(df["paper"].max()),
        "exact_worst": float(df["certified"].max()),
        "paper_median": float(df["paper"].median()),
        "exact_median": float(df["certified"].median()),
        "min_excess": float(df["paper_minus_exact"].min()),
        "max_excess": float(df["paper_minus_exact"].max()),
    }
    return df, summary
