"""The top-c experiments of the SVT page (Liu, Wang, Liu, Li and Chen 2024, §5.2, Table 3, Figs. 7/8/10/11).

Plain functions with hashable scalar arguments and no Streamlit: the page runs them in the worker pool of
:mod:`app.background`, which keeps the finished tables. :func:`experiment_seconds` estimates a request's CPU time
before it starts and :func:`capped_runs` keeps any request under :data:`MAX_EXPERIMENT_SECONDS`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached_resource
from dpcore import data as dpdata
from dpcore import svt

__all__ = [
    "DATASETS",
    "EXPERIMENT_EPSILONS",
    "ExperimentTables",
    "MAX_EXPERIMENT_SECONDS",
    "TRAVERSE_GRID",
    "capped_runs",
    "dataset",
    "experiment",
    "experiment_seconds",
    "explore_experiment",
    "explore_plan",
]

#: Data sets of Table 2 by their short URL value.
DATASETS = {
    "zipf": "Zipf",
    "binary": "Binary",
    "t40": "T40I10D100K",
    "bmspos": "BMS-POS",
    "kosarak": "Kosarak",
    "adult": "Adult",
}
EXPERIMENT_EPSILONS = (0.05, 0.1, 0.5, 1.0, 2.0)  # Fig. 7: the paper does not state its ε grid


class ExperimentTables(NamedTuple):
    """Every method's NCR against ε and against the number of passes (means and 95 % CIs over runs)."""

    by_epsilon: pd.DataFrame
    by_traverses: pd.DataFrame


@cached_resource(max_entries=8)
def dataset(name: str, seed: int = 2024) -> dpdata.Dataset:
    """A Table-2 data set (Zipf and Binary exact; the other four generated stand-ins, seeded)."""
    return dpdata.svt_dataset(DATASETS[name], rng=seed)


def _experiment_method(
    method: str,
    data: str,
    threshold: float,
    c: int,
    epsilons: tuple[float, ...],
    traverses: tuple[int, ...],
    append: bool,
    resample: bool,
    monotonic: bool,
    alpha: float,
    n_runs: int,
    seed: int,
) -> pd.DataFrame:
    ds = dataset(data)
    rng = np.random.default_rng([seed, list(svt.METHODS).index(method)])
    return svt.run_experiment(
        ds.scores,
        threshold=threshold,
        epsilons=list(epsilons),
        c=c,
        methods=[method],
        n_runs=n_runs,
        traverses=list(traverses),
        append=append,
        alpha=alpha,
        monotonic=monotonic,
        resample=resample,
        rng=rng,
    )


def experiment(
    data: str,
    threshold: float,
    c: int,
    epsilons: tuple[float, ...] = EXPERIMENT_EPSILONS,
    traverses: tuple[int, ...] = (1,),
    append: bool = True,
    resample: bool = False,
    monotonic: bool = False,
    alpha: float = 0.0,
    n_runs: int = 20,
    seed: int = 0,
) -> pd.DataFrame:
    """Panel 10 / Figs. 7, 8, 10, 11: every Table-3 method, means and 95 % CIs over runs (§5.2); k = ⌊n_items/c⌋.

    A plain function (hashable scalar arguments, no Streamlit): the page runs it in the worker pool of
    :mod:`app.background`, which keeps the finished tables; :func:`experiment_seconds` estimates its cost first."""
    out = [
        _experiment_method(
            m,
            data,
            float(threshold),
            int(c),
            tuple(epsilons),
            tuple(traverses),
            bool(append),
            bool(resample),
            bool(monotonic),
            float(alpha),
            int(n_runs),
            int(seed),
        )
        for m in svt.METHODS
    ]
    return pd.concat(out, ignore_index=True)


def explore_experiment(
    data: str,
    threshold: float,
    c: int,
    epsilon: float,
    traverses: int,
    append: bool,
    resample: bool,
    monotonic: bool,
    n_runs: int,
    seed: int,
) -> ExperimentTables:
    """Panel 10: (a) every method against ε at the chosen traverses, (b) against traverses 1, 2, 5, 10 at ε."""
    by_eps = experiment(
        data, threshold, c, EXPERIMENT_EPSILONS, (traverses,), append, resample, monotonic, 0.0, n_runs, seed
    )
    by_trav = experiment(data, threshold, c, (epsilon,), TRAVERSE_GRID, True, resample, monotonic, 0.0, n_runs, seed)
    return ExperimentTables(by_eps, by_trav)


#: Traverse counts of the experiment's second chart (Fig. 8 style).
TRAVERSE_GRID = (1, 2, 5, 10)
#: Seconds of CPU one experiment request may take; the number of runs is capped to stay under it.
MAX_EXPERIMENT_SECONDS = 45.0
# Measured cost of one run of all seven methods, per ε: a fixed part, a part per item and one per extra pass
_COST_FIXED, _COST_ITEM, _COST_PASS = 0.05, 6e-6, 1.5e-6


def experiment_seconds(data: str, n_runs: int, plan: tuple[tuple[int, int], ...]) -> float:
    """Estimated CPU seconds of ``n_runs`` runs of every method, ``plan`` = ((number of ε, traverses), …)."""
    n = dataset(data).n_items
    per_run = sum(n_eps * (_COST_FIXED + n * (_COST_ITEM + _COST_PASS * (t - 1))) for n_eps, t in plan)
    return n_runs * per_run


def explore_plan(epsilon_count: int, traverses: int) -> tuple[tuple[int, int], ...]:
    """The (number of ε, traverses) pairs :func:`explore_experiment` computes."""
    return ((epsilon_count, traverses), *((1, t) for t in TRAVERSE_GRID))


def capped_runs(data: str, n_runs: int, plan: tuple[tuple[int, int], ...]) -> int:
    """``n_runs``, lowered (to at least 2) so that :func:`experiment_seconds` stays under the cap."""
    per_run = experiment_seconds(data, 1, plan)
    return int(max(2, min(n_runs, MAX_EXPERIMENT_SECONDS // per_run)))
