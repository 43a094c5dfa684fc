"""Cached tables for the SVT page (Liu, Wang, Liu, Li and Chen 2024), one module per concern: the calibrated method
(:mod:`~app.compute.svt.method`), the explore view's panels (:mod:`~app.compute.svt.noises`,
:mod:`~app.compute.svt.correction`, :mod:`~app.compute.svt.accuracy`, :mod:`~app.compute.svt.runs`,
:mod:`~app.compute.svt.framework`), the top-c experiments (worker-pool jobs, :mod:`~app.compute.svt.experiments`)
and the paper's own figures and tables (:mod:`~app.compute.svt.reproduce`); every public name is re-exported here
(``from app.compute import svt as csvt; csvt.summary(...)``)."""

from app.compute.svt.accuracy import AB_METHODS, AccuracyPanel, Theorem4, accuracy_panel, alpha_beta, theorem4
from app.compute.svt.correction import (
    Acceptance,
    Comparison,
    Summary,
    acceptance_at,
    comparison,
    rop_vs_alpha,
    rop_vs_epsilon,
    rop_vs_k,
    success_curve,
    summary,
)
from app.compute.svt.experiments import (
    DATASETS,
    EXPERIMENT_EPSILONS,
    MAX_EXPERIMENT_SECONDS,
    TRAVERSE_GRID,
    ExperimentTables,
    capped_runs,
    dataset,
    experiment,
    experiment_seconds,
    explore_experiment,
    explore_plan,
)
from app.compute.svt.framework import BIN_GRID, Framework, Grid, numeric_framework
from app.compute.svt.method import NOISES, RULES, Accountant, accountant, calibration
from app.compute.svt.noises import (
    LossLimits,
    LossProfiles,
    NoiseZoo,
    SplitTables,
    budget_split,
    loss_profiles,
    manual_split,
    noise_zoo,
    variance_curves,
)
from app.compute.svt.reproduce import (
    FIG3_REFERENCE,
    FIG16_ALPHAS,
    FIG16_EPSILONS,
    FIG16_SECONDS_PER_RUN,
    FIG16_TRAVERSES,
    REFERENCE_NCR,
    REPRODUCE_TRAVERSES,
    Fig5,
    Fig6,
    Fig9,
    Fig9Curves,
    NearestK,
    fig3,
    fig4,
    fig5,
    fig6,
    fig9,
    fig16,
    fig16_runs,
    fig16_seconds,
    reproduce_experiment,
    reproduce_plan,
    table5,
    table5_nearest_k,
)
from app.compute.svt.runs import (
    LIVE_MAX_ITEMS,
    Appending,
    AppendingGap,
    LiveRun,
    LiveTrace,
    appending,
    live_queue_size,
    live_run,
)

__all__ = [
    "AB_METHODS", "AccuracyPanel", "Theorem4", "accuracy_panel", "alpha_beta", "theorem4",
    "NOISES", "RULES", "Accountant", "accountant", "calibration",
    "Acceptance", "Comparison", "Summary", "acceptance_at", "comparison", "rop_vs_alpha", "rop_vs_epsilon",
    "rop_vs_k", "success_curve", "summary",
    "DATASETS", "EXPERIMENT_EPSILONS", "MAX_EXPERIMENT_SECONDS", "TRAVERSE_GRID", "ExperimentTables", "capped_runs",
    "dataset", "experiment", "experiment_seconds", "explore_experiment", "explore_plan",
    "BIN_GRID", "Framework", "Grid", "numeric_framework",
    "LossLimits", "LossProfiles", "NoiseZoo", "SplitTables", "budget_split", "loss_profiles", "manual_split",
    "noise_zoo", "variance_curves",
    "FIG3_REFERENCE", "FIG16_ALPHAS", "FIG16_EPSILONS", "FIG16_SECONDS_PER_RUN", "FIG16_TRAVERSES", "REFERENCE_NCR",
    "REPRODUCE_TRAVERSES", "Fig5", "Fig6", "Fig9", "Fig9Curves", "NearestK", "fig3", "fig4", "fig5", "fig6", "fig9",
    "fig16", "fig16_runs", "fig16_seconds", "reproduce_experiment", "reproduce_plan", "table5", "table5_nearest_k",
    "LIVE_MAX_ITEMS", "Appending", "AppendingGap", "LiveRun", "LiveTrace", "appending", "live_queue_size", "live_run",
]
