"""The paper's worked examples 1–3 (Pan 2023, Sec. 1.1 / 3.3 Example 1, Sec. 3.3 Example 2, Sec. 4.2 Example 3).

Example 1: balanced randomized-response outputs leak nothing (Eq. 9).  Example 2: the running example's outputs
(1, 0, 1) give a ratio of 1.5 (Eq. 11).  Example 3: the Bayesian filter on the same queries with budget ln 2.25.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.ldp.beliefs import posterior
from dpcore.ldp.interaction import TranscriptTree, enumerate_interaction
from dpcore.ldp.likelihood import MAX_EXAMPLE_LENGTH, _ratio, realized_loss, transcript_log_likelihood
from dpcore.ldp.mechanisms import randomized_response, running_example_query
from dpcore.ldp.privacy_filter import BayesianPrivacyFilter, SimplifiedBayesianFilter


@dataclass(frozen=True)
class Example1:
    """Example 1 (Eq. 9): 2n RR outputs, n ones and n zeros, leak nothing."""

    epsilon: float
    n: int
    likelihood_0: float
    likelihood_1: float
    closed_form: float  # e^{nε}/(1+e^ε)^{2n}
    loss_balanced: float
    loss_all_ones: float
    basic_composition: float  # 2nε


def example1(epsilon: float = 0.7, n: int = 3) -> Example1:
    """Example 1 / Eq. 9 : balanced binary RR outputs give Λ(0) = Λ(1), ℓ = 0."""
    eps = _v.positive("epsilon", epsilon)
    nn = _v.integer("n", n, low=1, high=MAX_EXAMPLE_LENGTH // 2)
    rr = randomized_response(eps)
    bal = transcript_log_likelihood([rr] * (2 * nn), [0, 1] * nn)
    ones = transcript_log_likelihood([rr] * (2 * nn), [1] * (2 * nn))
    softplus = math.log1p(math.exp(eps)) if eps < 700.0 else eps + math.log1p(math.exp(-eps))  # ln(1 + e^ε)
    closed = _ratio(nn * eps - 2 * nn * softplus)
    return Example1(
        eps,
        nn,
        float(np.exp(bal[0])),
        float(np.exp(bal[1])),
        closed,
        float(realized_loss(bal)),
        float(realized_loss(ones)),
        2 * nn * eps,
    )


@dataclass(frozen=True)
class Example2:
    """Example 2: running example with outputs (1, 0, 1)."""

    table: pd.DataFrame  # x, likelihood, paper, posterior_uniform
    loss: float
    ratio: float
    basic_composition: float
    note: str


_EX2_PAPER = {0: 0.096, 1: 0.101, 2: 0.109, 10: 0.144}


def example2(outputs: Sequence[int] = (1, 0, 1), *, epsilon: float = math.log(1.5)) -> Example2:
    """Example 2 (Eq. 11): Λ(x) over D = {0..10}, ratio 0.144/0.096 = 1.5 (ℓ = ln 1.5).

    Erratum: the paper prints 0.109 at x = 2; the model gives 0.1046 (0.109 is the x = 3 value).
    """
    outs = [_v.integer("outputs", y, low=0, high=1) for y in _v.sequence("outputs", outputs)]
    if not outs:
        raise ValueError("outputs must contain at least one output")
    tabs = [running_example_query(i + 1, epsilon=epsilon) for i in range(len(outs))]
    ll = transcript_log_likelihood(tabs, outs)
    lik = np.exp(ll)
    post = posterior(np.full(11, 1 / 11), ll)
    df = pd.DataFrame(
        {
            "x": np.arange(11),
            "likelihood": lik,
            "paper": [_EX2_PAPER.get(i, math.nan) for i in range(11)],
            "posterior_uniform": post,
        }
    )
    loss = float(realized_loss(ll))
    note = (
        "The paper prints Λ(2) = 0.109; the reconstructed queries give 0.1046 (0.109 ≈ Λ(3) = 0.1085), "
        "a misprint with no effect on the max, min or the 1.5 result."
    )
    return Example2(df, loss, _ratio(loss), float(sum(t.epsilon for t in tabs)), note)


def example3(
    outputs: Sequence[int] = (1, 0, 1, 1),
    *,
    n_queries: int = 6,
    budget: float = math.log(2.25),
    epsilon: float = math.log(1.5),
) -> pd.DataFrame:
    """Example 3: the BPF trace on q_i = X^i with ε_G = ln 2.25; later queries are probes.

    Columns: step, loss_if_0, loss_if_1, ratio_if_0, ratio_if_1, accepted, observed, loss_after,
    ratio_after, argmax, argmin (tuples of maximisers/minimisers of Λ).
    """
    outs = [_v.integer("outputs", y, low=0, high=1) for y in _v.sequence("outputs", outputs)]
    nq = _v.integer("n_queries", n_queries, low=1, high=MAX_EXAMPLE_LENGTH)
    filt = BayesianPrivacyFilter(budget, domain_size=11)
    rows = []
    k = 0
    for i in range(1, nq + 1):
        tab = running_example_query(i, epsilon=epsilon)
        la = filt.look_ahead(tab)
        acc = filt.would_accept(tab) and k < len(outs)
        row = {
            "step": i,
            "loss_if_0": la[0],
            "loss_if_1": la[1],
            "ratio_if_0": _ratio(la[0]),
            "ratio_if_1": _ratio(la[1]),
            "accepted": bool(filt.would_accept(tab)),
            "observed": math.nan,
            "loss_after": math.nan,
            "ratio_after": math.nan,
            "argmax": (),
            "argmin": (),
        }
        if acc:
            filt.submit(tab, outs[k])
            ll = filt.log_likelihood
            row.update(
                observed=outs[k],
                loss_after=filt.loss,
                ratio_after=_ratio(filt.loss),
                argmax=tuple(np.flatnonzero(np.isclose(ll, ll.max(), rtol=0, atol=1e-12))),
                argmin=tuple(np.flatnonzero(np.isclose(ll, ll.min(), rtol=0, atol=1e-12))),
            )
            k += 1
        rows.append(row)
    return pd.DataFrame(rows)


def example3_transcripts(
    *, budget: float = math.log(2.25), epsilon: float = math.log(1.5), filter: str = "bayesian"
) -> TranscriptTree:  # noqa: A002
    """Every transcript of the Example-3 interaction (send q1, q2, …, stop at the first rejection)."""
    kind = _v.choice("filter", filter, ("bayesian", "simplified"))
    cls = BayesianPrivacyFilter if kind == "bayesian" else SimplifiedBayesianFilter
    return enumerate_interaction(
        lambda h: running_example_query(len(h) + 1, epsilon=epsilon), cls(budget, domain_size=11)
    )
