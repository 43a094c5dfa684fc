"""Cached tables for the "Accuracy first: noise reduction" page (Rogers, Samorodnitsky, Wu & Ramdas 2023).

Scalar arguments in, small DataFrames, frozen dataclasses and named tuples out; every cache is bounded by
:data:`app.compute._cache.MAX_ENTRIES` (``@cached`` works inside and outside Streamlit).
The maths lives in :mod:`dpcore.noise_reduction` and :mod:`dpcore.filters`; this package only evaluates it on the
grids the charts need, one module per idea: :mod:`.grid` (the budget and the ε grid), :mod:`.paths` (coupled paths
and where they stop), :mod:`.processes` (correlation, martingale, the Laplace process), :mod:`.releases` (a queue of
counts under one budget), :mod:`.ledger` (the session's live ledger), :mod:`.filter_loss` (the loss of filter runs),
:mod:`.errata` (the misprints in numbers) and :mod:`.paper` (the paper's reproductions).
"""

from app.compute.noise_reduction.errata import Errata, composition_curves, constants, errata
from app.compute.noise_reduction.filter_loss import (
    FILTER_LEVELS,
    FILTER_RUNS_WAIT,
    N_FILTER_RUNS,
    LossDistribution,
    LossSummary,
    filter_runs,
    loss_distribution,
)
from app.compute.noise_reduction.grid import EPS2_MIN, Budget, Shortfall, budget, grid, make_grid, shortfall
from app.compute.noise_reduction.ledger import (
    Gauge,
    LedgerState,
    LedgerStep,
    LedgerView,
    ledger_add,
    ledger_new,
    ledger_view,
)
from app.compute.noise_reduction.paper import (
    COST_DRAWS,
    FIG3_MAX_TRIALS,
    FIG3_SECONDS_PER_TRIAL,
    METHOD_WORDS,
    PAPER,
    PAPER_SIZES,
    REDDIT,
    REDDIT_PAPER,
    REDDIT_SECONDS_PER_TRIAL,
    REDDIT_STANDIN,
    ZipfCounts,
    ZipfSummary,
    costs,
    figure3,
    figure3_reference,
    figure3_seconds,
    paper_costs,
    reddit_standin,
    zipf_counts,
)
from app.compute.noise_reduction.paths import (
    N_PATHS,
    N_RUNS,
    Inversion,
    InversionSummary,
    Paths,
    Stopping,
    StoppingSummary,
    bands,
    inversion,
    paths,
    stopping,
)
from app.compute.noise_reduction.processes import (
    CORR_LEVELS,
    LAPLACE_SHOWN,
    MART_SHOWN,
    N_CORR,
    N_LAPLACE,
    N_MART,
    Correlation,
    CorrelationSummary,
    LaplaceProcess,
    LaplaceSummary,
    Martingale,
    MartingaleSummary,
    correlation,
    correlation_frame,
    laplace_process,
    martingale,
)
from app.compute.noise_reduction.releases import (
    REFUSED,
    ZIPF_A,
    Concurrent,
    ConcurrentSummary,
    Outcome,
    Returned,
    concurrent,
    odometer,
    odometer_summary,
    queue,
)

__all__ = [
    "CORR_LEVELS", "COST_DRAWS", "EPS2_MIN", "FIG3_MAX_TRIALS", "FIG3_SECONDS_PER_TRIAL", "FILTER_LEVELS",
    "FILTER_RUNS_WAIT", "LAPLACE_SHOWN", "MART_SHOWN", "METHOD_WORDS", "N_CORR", "N_FILTER_RUNS", "N_LAPLACE",
    "N_MART", "N_PATHS", "N_RUNS", "PAPER", "PAPER_SIZES", "REDDIT", "REDDIT_PAPER", "REDDIT_SECONDS_PER_TRIAL",
    "REDDIT_STANDIN", "REFUSED", "ZIPF_A",
    "Budget", "Concurrent", "ConcurrentSummary", "Correlation", "CorrelationSummary", "Errata", "Gauge", "Inversion",
    "InversionSummary", "LaplaceProcess", "LaplaceSummary", "LedgerState", "LedgerStep", "LedgerView",
    "LossDistribution", "LossSummary", "Martingale", "MartingaleSummary", "Outcome", "Paths", "Returned",
    "Shortfall", "Stopping", "StoppingSummary", "ZipfCounts", "ZipfSummary",
    "bands", "budget", "composition_curves", "concurrent", "constants", "correlation", "correlation_frame", "costs",
    "errata", "figure3", "figure3_reference", "figure3_seconds", "filter_runs", "grid", "inversion",
    "laplace_process", "ledger_add", "ledger_new", "ledger_view", "loss_distribution", "make_grid", "martingale",
    "odometer", "odometer_summary", "paper_costs", "paths", "queue", "reddit_standin", "shortfall", "stopping",
    "zipf_counts",
]
