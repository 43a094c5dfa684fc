"""The experiments of Mohammady et al. (2020), Figs. 6–9, on stand-in data: query accuracy, a noisy naive Bayes
classifier and co-author recommendations."""

from __future__ import annotations

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore import r2dp

EXPERIMENT_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0)
EXPERIMENT_GAMMAS = (0.05, 0.1)
#: Sensitivity of the two statistical queries of Fig. 6: a count and the paper's average (Δq = 0.2).
QUERY_SENSITIVITY = {"count": 1.0, "average": 0.2}


@cached(show_spinner="Simulating 10⁴ answers per point …")
def fig6(query: str, seed: int) -> pd.DataFrame:
    """Fig. 6 on a stand-in query: share of 10⁴ noisy answers within γ of the true answer (Laplace, R²DP's two-point
    optimum, staircase) for γ = 0.05 and 0.1. Columns: gamma, epsilon, mechanism, accuracy, exact, standard_error."""
    frames = [
        r2dp.applications.query_accuracy(
            EXPERIMENT_EPSILONS,
            gamma=g,
            sensitivity=QUERY_SENSITIVITY[query],
            trials=10_000,
            rng=np.random.default_rng([seed, i]),
        ).assign(gamma=g)
        for i, g in enumerate(EXPERIMENT_GAMMAS)
    ]
    return pd.concat(frames, ignore_index=True)


#: Stand-ins for Figs. 7–8: (records, attributes, values per attribute) — synthetic, NOT the paper's data sets.
CLASSIFIER_STANDINS = {"adult": (1_500, 14, 6), "kdd": (1_500, 20, 4)}


@cached(show_spinner="Training noisy naive Bayes classifiers …")
def classifier(dataset: str, seed: int) -> pd.DataFrame:
    """Figs. 7–8 on a synthetic stand-in: precision and recall of a naive Bayes classifier built from noisy counts
    (two thirds of the records train, one third test). Columns: gamma, epsilon, mechanism, precision, recall."""
    n, attributes, values = CLASSIFIER_STANDINS[dataset]
    rec = r2dp.applications.categorical_records(
        n, attributes=attributes, values=values, rng=np.random.default_rng([seed, 7])
    )
    cut = 2 * n // 3
    train = r2dp.applications.Records(rec.features[:cut], rec.labels[:cut], values)
    test = r2dp.applications.Records(rec.features[cut:], rec.labels[cut:], values)
    frames = [
        r2dp.applications.naive_bayes(
            train, test, EXPERIMENT_EPSILONS, gamma=g, rng=np.random.default_rng([seed, i])
        ).assign(gamma=g)
        for i, g in enumerate(EXPERIMENT_GAMMAS)
    ]
    return pd.concat(frames, ignore_index=True)


@cached(show_spinner="Recommending co-authors from noisy counts …")
def recommender(threshold: float, seed: int) -> pd.DataFrame:
    """Fig. 9 on a synthetic co-authorship stand-in (60 groups of 8 authors): precision and recall of Jaccard
    recommendations from noisy counts against the non-private ones. Columns: gamma, epsilon, mechanism, precision,
    recall, pairs."""
    graph = r2dp.applications.coauthor_graph(rng=np.random.default_rng([seed, 9]))
    frames = [
        r2dp.applications.recommendation(
            graph, EXPERIMENT_EPSILONS, gamma=g, threshold=threshold, rng=np.random.default_rng([seed, i])
        ).assign(gamma=g)
        for i, g in enumerate(EXPERIMENT_GAMMAS)
    ]
    return pd.concat(frames, ignore_index=True)
