"""The Local DP page's beliefs (Pan 2023): the posterior after k answers (Eq. 3), the realized privacy loss on its
path, the gain on a statement about x* (Lemma 1), the quantitative information flow, and the loss of every output
pattern."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.ldp.queries import _extremes, _sampled, _statement, _tables, add_ratio, prior
from dpcore import ldp

MAX_PATTERNS = 256  # the pattern panel enumerates at most this many output patterns


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
    top, bottom = _extremes(ll)
    return Beliefs(
        add_ratio(df, ("log_likelihood_rel",)),
        float(ldp.realized_loss(ll)),
        float(sum(t.epsilon for t in tabs)),
        tuple(outs),
        top,
        bottom,
        float(post[x]),
        float(b[x]),
    )


@cached
def realized_path(family: str, epsilon: float, n: int, k: int, x: int, seed: int) -> pd.DataFrame:
    """ℓ of the first j answers (those of :func:`beliefs`) for j = 1..k, next to basic composition's Σε.

    Columns: answers, realized, basic (+ *_ratio)."""
    tabs, outs, _ = _sampled(family, epsilon, n, k, x, seed)
    ll = np.cumsum([t.column(y) for t, y in zip(tabs, outs, strict=True)], axis=0)
    df = pd.DataFrame(
        {
            "answers": np.arange(1, k + 1),
            "realized": np.atleast_1d(ldp.realized_loss(ll)),
            "basic": np.cumsum([t.epsilon for t in tabs]),
        }
    )
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
def statement(
    family: str, epsilon: float, n: int, k: int, x: int, seed: int, prior_kind: str, kind: str, weight: float
) -> Statement:
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
    curve = add_ratio(
        pd.DataFrame(
            {
                "weight": weights,
                "lemma_gain": [c.gain for c in constructions],  # ratio for display (inf beyond e^709)
                "lemma_log_gain": [c.log_gain for c in constructions],
                "bound": loss,
            }
        ),
        ("bound",),
    )
    log_gain = math.log(gain) if gain > 0 else -math.inf
    bands = add_ratio(
        pd.DataFrame(
            {
                "item": ["basic-composition LDP band", "realized band (Lemma 3.1)", "statement gain", "Lemma 3.2 gain"],
                "low": [-basic, -loss, log_gain, lemma.log_gain],
                "high": [basic, loss, log_gain, lemma.log_gain],
            }
        ),
        ("low", "high"),
    )
    return Statement(
        bands,
        curve,
        float(phi @ b),
        float(phi @ ldp.posterior(b, ll)),
        gain,
        loss,
        lemma.gain,
        lemma.bound,
        lemma.x_a,
        lemma.x_b,
    )


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
        rows.append(
            {
                "what the adversary wants": name,
                "chance of success before": r.prior_vulnerability,
                "chance of success after": r.posterior_vulnerability,
                "g-leakage (ln of the ratio)": r.leakage,
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
    return OutputLosses(
        df,
        m,
        k,
        len(df),
        float((df["loss"] * df["probability"]).sum()),
        float(df["basic"].iloc[0]),
        float(df.loc[at_bound, "probability"].sum()),
        float(at_bound.mean()),
    )
