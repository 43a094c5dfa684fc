"""The paper's experiments (Section VI, Figs. 6–9) re-run on synthetic stand-in data.

Mohammady et al. 2020 (R²DP), Section VI: a PINQ-like layer of noisy counts with a pluggable noise — Laplace(Δq/ε),
R²DP with a usefulness-optimal law for (ε, Δq, γ), or the optimal staircase — feeds statistical queries (Fig. 6),
a naive Bayes classifier (Figs. 7–8, Adult and KDD Cup 99) and a Jaccard friend recommender (Fig. 9, DBLP). Every
query gets its own budget ε, as in the paper ("the privacy budget for each PINQ query"); the total spent is the
sum over the queries. The paper's data are not available here, so the data below are synthetic stand-ins, made to
have the same shape (categorical records with a binary class; a co-authorship-like graph of small groups). Their
numbers show the same comparison, not the paper's values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore.r2dp.baselines import (
    laplace_usefulness,
    sample_staircase,
    staircase_optimal_r,
    staircase_usefulness,
)
from dpcore.r2dp.mechanism import sample_noise, usefulness
from dpcore.r2dp.optimal import FAMILIES, optimize

#: Noise mechanisms of the experiments, in legend order.
MECHANISMS = ("laplace", "r2dp", "staircase")
#: Most records / trials / nodes in one stand-in experiment.
MAX_RECORDS = 1_000_000
Sampler = Callable[[int, np.random.Generator], np.ndarray]


def noise_sampler(
    mechanism: str, *, epsilon: float, gamma: float, sensitivity: float = 1.0, family: str = "two_point"
) -> Sampler:
    """``draw(n, rng)``: n independent noise values of an ε-DP additive mechanism for a query of sensitivity Δq.

    ``"laplace"``: Laplace(Δq/ε); ``"r2dp"``: the usefulness-optimal law of ``family`` for (ε, Δq, γ) (Algorithm 1;
    Laplace itself where no law of the family beats it), a fresh secret u per value; ``"staircase"``: the optimal
    staircase with r* = frac(γ/Δq) (Geng & Viswanath 2016).
    """
    mechanism = _v.choice("mechanism", mechanism, MECHANISMS)
    eps = _v.positive("epsilon", epsilon)
    gam = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    family = _v.choice("family", family, FAMILIES)
    if mechanism == "laplace":
        return lambda n, rng: rng.laplace(0.0, dq / eps, n)
    if mechanism == "staircase":
        r = staircase_optimal_r(eps, gamma=gam, sensitivity=dq)
        return lambda n, rng: sample_staircase(n, eps, sensitivity=dq, r=r, rng=rng)
    law = optimize(epsilon=eps, gamma=gam, sensitivity=dq, family=family).law
    return lambda n, rng: sample_noise(n, law, rng)


def _epsilons(epsilons: Any) -> np.ndarray:
    e = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if e.size == 0 or np.any(e <= 0):
        raise ValueError("epsilons must be a non-empty array of values > 0")
    return e


def _mechanisms(mechanisms: Sequence[str]) -> tuple[str, ...]:
    return tuple(_v.choice("mechanisms", m, MECHANISMS) for m in _v.sequence("mechanisms", mechanisms))


# ------------------------------------------------------------------------------------------ Fig. 6: statistical queries


def query_accuracy(
    epsilons: Any,
    *,
    gamma: float,
    sensitivity: float = 1.0,
    trials: int = 10_000,
    mechanisms: Sequence[str] = MECHANISMS,
    family: str = "two_point",
    rng: Any = None,
) -> pd.DataFrame:
    """Fig. 6: accuracy of a statistical query = share of ``trials`` noisy answers within γ of the true answer.

    A count has Δq = 1; the paper's average query has Δq = 0.2. Columns: epsilon, mechanism, accuracy (Monte
    Carlo), exact (the analytic P(|W| <= γ), which the accuracy estimates), standard_error.
    """
    e = _epsilons(epsilons)
    gam = _v.positive("gamma", gamma)
    dq = _v.positive("sensitivity", sensitivity)
    n = _v.integer("trials", trials, low=1, high=MAX_RECORDS)
    mechs = _mechanisms(mechanisms)
    g = _v.rng(rng)
    rows = []
    for ei in e:
        for mech in mechs:
            w = noise_sampler(mech, epsilon=float(ei), gamma=gam, sensitivity=dq, family=family)(n, g)
            acc = float(np.mean(np.abs(w) <= gam))
            rows.append(
                (
                    float(ei),
                    mech,
                    acc,
                    _exact_accuracy(mech, float(ei), gam, dq, family),
                    math.sqrt(max(acc * (1 - acc), 1e-300) / n),
                )
            )
    return pd.DataFrame(rows, columns=["epsilon", "mechanism", "accuracy", "exact", "standard_error"])


def _exact_accuracy(mechanism: str, eps: float, gam: float, dq: float, family: str) -> float:
    if mechanism == "laplace":
        return float(laplace_usefulness(eps, gamma=gam, sensitivity=dq))
    if mechanism == "staircase":
        return float(staircase_usefulness(eps, gamma=gam, sensitivity=dq))
    return float(usefulness(optimize(epsilon=eps, gamma=gam, sensitivity=dq, family=family).law, gamma=gam))


# ------------------------------------------------------------------------------------------ Figs. 7–8: naive Bayes


@dataclass(frozen=True)
class Records:
    """A categorical data set with a binary class (a stand-in for UCI Adult or KDD Cup 99)."""

    features: np.ndarray  # (records, attributes) integer codes 0 .. values-1
    labels: np.ndarray  # 0/1, 1 = the positive class
    values: int


def categorical_records(
    n_records: int = 5_000,
    *,
    attributes: int = 8,
    values: int = 6,
    positive_share: float = 0.4,
    separation: float = 0.45,
    rng: Any = None,
) -> Records:
    """Synthetic categorical records with a binary class: each attribute's value law is
    (1 - separation) · (a law shared by both classes) + separation · (a law of the record's class), all drawn from a
    flat Dirichlet — so a naive Bayes classifier is right most, not all, of the time, as on the paper's data."""
    n = _v.integer("n_records", n_records, low=2, high=MAX_RECORDS)
    m = _v.integer("attributes", attributes, low=1, high=200)
    k = _v.integer("values", values, low=2, high=100)
    share = _v.probability("positive_share", positive_share, low_open=True, high_open=True)
    sep = _v.probability("separation", separation)
    g = _v.rng(rng)
    labels = (g.random(n) < share).astype(int)
    probs = (1 - sep) * g.dirichlet(np.ones(k), size=(m, 1)) + sep * g.dirichlet(np.ones(k), size=(m, 2))
    cum = np.cumsum(probs, axis=-1)  # (m, 2, k)
    u = g.random((n, m))
    feats = (u[:, :, None] > cum[np.arange(m)[None, :], labels[:, None], :]).sum(axis=-1)
    return Records(np.minimum(feats, k - 1), labels, k)


def _counts(rec: Records) -> tuple[np.ndarray, np.ndarray]:
    """Class counts (2,) and (attribute, value, class) counts — the histogram queries of the classifier."""
    n, m = rec.features.shape
    joint = np.zeros((m, rec.values, 2))
    for j in range(m):
        np.add.at(joint[j], (rec.features[:, j], rec.labels), 1.0)
    return np.bincount(rec.labels, minlength=2).astype(float), joint


def _predict(classes: np.ndarray, joint: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """Naive Bayes with add-one smoothing on (possibly noisy, clipped at 0) counts."""
    c = np.maximum(classes, 0.0) + 1.0
    jt = np.maximum(joint, 0.0) + 1.0
    logp = np.log(jt / jt.sum(axis=1, keepdims=True))  # (m, k, 2)
    score = np.log(c / c.sum())[None, :] + sum(logp[j, feats[:, j], :] for j in range(feats.shape[1]))
    return (score[:, 1] > score[:, 0]).astype(int)


def _precision_recall(pred: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    tp = float(np.sum((pred == 1) & (truth == 1)))
    return (tp / max(float(np.sum(pred == 1)), 1.0)), (tp / max(float(np.sum(truth == 1)), 1.0))


def naive_bayes(
    train: Records,
    test: Records,
    epsilons: Any,
    *,
    gamma: float,
    mechanisms: Sequence[str] = MECHANISMS,
    family: str = "two_point",
    repeats: int = 5,
    rng: Any = None,
) -> pd.DataFrame:
    """Figs. 7–8: precision and recall of the positive class of a naive Bayes classifier whose counts are noisy
    counts (Δq = 1, budget ε per count query), averaged over ``repeats`` noise draws; mechanism "none" is the
    non-private baseline. Columns: epsilon, mechanism, precision, recall."""
    e = _epsilons(epsilons)
    gam = _v.positive("gamma", gamma)
    mechs = _mechanisms(mechanisms)
    reps = _v.integer("repeats", repeats, low=1, high=1000)
    g = _v.rng(rng)
    classes, joint = _counts(train)
    base = _precision_recall(_predict(classes, joint, test.features), test.labels)
    rows = [(float(ei), "none", *base) for ei in e]
    for ei in e:
        for mech in mechs:
            draw = noise_sampler(mech, epsilon=float(ei), gamma=gam, sensitivity=1.0, family=family)
            pr = [
                _precision_recall(
                    _predict(classes + draw(2, g), joint + draw(joint.size, g).reshape(joint.shape), test.features),
                    test.labels,
                )
                for _ in range(reps)
            ]
            rows.append((float(ei), mech, *np.mean(pr, axis=0)))
    return pd.DataFrame(rows, columns=["epsilon", "mechanism", "precision", "recall"])


# ------------------------------------------------------------------------------------------ Fig. 9: recommendation


def coauthor_graph(
    n_groups: int = 60, *, group_size: int = 8, inside: float = 0.7, outside: float = 0.002, rng: Any = None
) -> np.ndarray:
    """Adjacency matrix (bool, symmetric) of a co-authorship-like stand-in for DBLP: small research groups, dense
    inside (edge probability ``inside``), sparse between groups."""
    k = _v.integer("n_groups", n_groups, low=1, high=5000)
    s = _v.integer("group_size", group_size, low=2, high=1000)
    if k * s > 20_000:
        raise ValueError(f"n_groups * group_size must be at most 20000 nodes, got {k * s}")
    pin = _v.probability("inside", inside)
    pout = _v.probability("outside", outside)
    g = _v.rng(rng)
    group = np.repeat(np.arange(k), s)
    prob = np.where(group[:, None] == group[None, :], pin, pout)
    upper = np.triu(g.random(prob.shape) < prob, 1)
    return upper | upper.T


def recommendation(
    adjacency: np.ndarray,
    epsilons: Any,
    *,
    gamma: float,
    threshold: float = 0.5,
    mechanisms: Sequence[str] = MECHANISMS,
    family: str = "two_point",
    repeats: int = 5,
    rng: Any = None,
) -> pd.DataFrame:
    """Fig. 9: recommend an unlinked pair (x, y) with a common neighbour when its Jaccard similarity
    |N(x) ∩ N(y)| / |N(x) ∪ N(y)| (Eq. 10) exceeds ``threshold``, computed from noisy counts (common neighbours and
    degrees, Δq = 1, budget ε each). Precision and recall against the non-private recommendations, averaged
    over ``repeats`` noise draws. Columns: epsilon, mechanism, precision, recall, pairs (non-private set size)."""
    a = np.asarray(adjacency, dtype=bool)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or not np.array_equal(a, a.T):
        raise ValueError("adjacency must be a square symmetric boolean matrix")
    e = _epsilons(epsilons)
    gam = _v.positive("gamma", gamma)
    tau = _v.probability("threshold", threshold)
    mechs = _mechanisms(mechanisms)
    reps = _v.integer("repeats", repeats, low=1, high=1000)
    g = _v.rng(rng)
    ai = a.astype(np.int64)
    common = ai @ ai
    deg = ai.sum(axis=1)
    iu, ju = np.triu_indices(a.shape[0], 1)
    keep = (~a[iu, ju]) & (common[iu, ju] > 0)
    iu, ju = iu[keep], ju[keep]
    c = common[iu, ju].astype(float)
    truth = c / (deg[iu] + deg[ju] - c) > tau
    rows = []
    for ei in e:
        for mech in mechs:
            draw = noise_sampler(mech, epsilon=float(ei), gamma=gam, sensitivity=1.0, family=family)
            pr = []
            for _ in range(reps):
                nd = deg + draw(deg.size, g)  # one noisy degree per node, one noisy common count per pair
                nc, nx, ny = c + draw(c.size, g), nd[iu], nd[ju]
                with np.errstate(divide="ignore", invalid="ignore"):
                    pred = nc / (nx + ny - nc) > tau
                pred &= (nx + ny - nc) > 0
                pr.append(_precision_recall(pred.astype(int), truth.astype(int)))
            rows.append((float(ei), mech, *np.mean(pr, axis=0), int(truth.sum())))
    return pd.DataFrame(rows, columns=["epsilon", "mechanism", "precision", "recall", "pairs"])
