"""Local DP accounting by realized privacy loss: the Bayesian privacy filter and odometer.

Mingen Pan, *Actual Knowledge Gain as Privacy Loss in Local Privacy Accounting*, arXiv 2307.08159 (2023).
Every loss is stored and compared on the **log scale** (ε units), ``ℓ = ln max_x Λ(x) − ln min_x Λ(x)``
(Def. 3.2, Eq. 10); ``exp(ℓ)`` is for display only (the paper's Examples 2–3 print that ratio).

Conventions
-----------
* A *likelihood table* has one row per true value ``x`` of the protected object and one column per
  output ``y`` of the query; it stores ``ln Pr[q(x) = y]`` (:class:`LikelihoodTable`).
* A *log-likelihood* is an array of ``ln Λ(x)`` over the domain.
* Budget tests accept equality within a tolerance (Example 3 lands exactly on its budget ln 2.25) and look
  ahead over **every** possible output of the query before it runs (Cor. 4.1, Eq. 15).

Modules, in the paper's order: :mod:`~dpcore.ldp.likelihood` (tables, realized loss),
:mod:`~dpcore.ldp.mechanisms` (randomized response, two-point mechanism), :mod:`~dpcore.ldp.beliefs`
(knowledge gain, Lemma 3.2, g-leakage), :mod:`~dpcore.ldp.privacy_filter` (filters, odometer),
:mod:`~dpcore.ldp.interaction` (transcripts, simulations), :mod:`~dpcore.ldp.worked_examples` (Examples 1–3),
:mod:`~dpcore.ldp.regression` (regression queries as DC functions), :mod:`~dpcore.ldp.branch_and_bound`
(certified bounds), :mod:`~dpcore.ldp.regression_filter` (grouped filter on a box) and
:mod:`~dpcore.ldp.evaluation` (Sec. 6 and the healthcare example).
"""

from __future__ import annotations

from dpcore.ldp.beliefs import GLeakage, Lemma32, g_leakage, knowledge_gain, lemma32_construction, posterior
from dpcore.ldp.branch_and_bound import (
    DCMinimum,
    LikelihoodBounds,
    grouped_loss_bound,
    grouped_realized_loss,
    log_likelihood_bounds,
    minimize_dc,
    secant_relaxation,
    single_term_loss,
)
from dpcore.ldp.evaluation import (
    PaperComparison,
    healthcare_losses,
    healthcare_queries,
    linear_median_mismatch,
    logistic_median_reproduction,
    regression_experiment,
    regression_loss_paths,
)
from dpcore.ldp.interaction import (
    TranscriptTree,
    acceptance_regions,
    composition_output_losses,
    enumerate_interaction,
    filter_timeline,
    rr_accepted_pmf,
    rr_expected_accepted,
    simulate_accepted_counts,
)
from dpcore.ldp.likelihood import (
    MAX_DOMAIN_SIZE,
    MAX_EXAMPLE_LENGTH,
    MAX_GRID,
    MAX_QUERIES,
    MAX_RR_DOMAIN,
    MAX_RR_THRESHOLD,
    MAX_RUNS,
    MAX_TABLE_CELLS,
    TOLERANCE,
    LikelihoodTable,
    QueryRejected,
    fully_utilizes,
    likelihood_table,
    realized_loss,
    transcript_log_likelihood,
)
from dpcore.ldp.mechanisms import (
    generalized_randomized_response,
    mean_estimate,
    randomized_response,
    running_example_query,
    two_point,
    two_point_sample,
)
from dpcore.ldp.privacy_filter import ApproximateBayesianFilter, BayesianPrivacyFilter, SimplifiedBayesianFilter
from dpcore.ldp.regression import (
    RegressionQuery,
    RegressionTerm,
    linear_regression_query,
    logistic_regression_query,
    truncated_regression_query,
)
from dpcore.ldp.regression_filter import RegressionFilter
from dpcore.ldp.worked_examples import Example1, Example2, example1, example2, example3, example3_transcripts

__all__ = [
    "TOLERANCE",
    "LikelihoodTable",
    "QueryRejected",
    "fully_utilizes",
    "likelihood_table",
    "realized_loss",
    "transcript_log_likelihood",
    "randomized_response",
    "generalized_randomized_response",
    "two_point",
    "two_point_sample",
    "mean_estimate",
    "running_example_query",
    "posterior",
    "knowledge_gain",
    "Lemma32",
    "lemma32_construction",
    "GLeakage",
    "g_leakage",
    "BayesianPrivacyFilter",
    "SimplifiedBayesianFilter",
    "ApproximateBayesianFilter",
    "TranscriptTree",
    "enumerate_interaction",
    "composition_output_losses",
    "acceptance_regions",
    "simulate_accepted_counts",
    "filter_timeline",
    "rr_expected_accepted",
    "rr_accepted_pmf",
    "Example1",
    "example1",
    "Example2",
    "example2",
    "example3",
    "example3_transcripts",
    "RegressionTerm",
    "RegressionQuery",
    "linear_regression_query",
    "truncated_regression_query",
    "logistic_regression_query",
    "DCMinimum",
    "minimize_dc",
    "LikelihoodBounds",
    "log_likelihood_bounds",
    "single_term_loss",
    "secant_relaxation",
    "grouped_loss_bound",
    "grouped_realized_loss",
    "RegressionFilter",
    "regression_experiment",
    "regression_loss_paths",
    "PaperComparison",
    "logistic_median_reproduction",
    "linear_median_mismatch",
    "healthcare_queries",
    "healthcare_losses",
    # size limits: bad input beyond them is a ValueError naming the parameter
    "MAX_DOMAIN_SIZE",
    "MAX_EXAMPLE_LENGTH",
    "MAX_GRID",
    "MAX_QUERIES",
    "MAX_RR_DOMAIN",
    "MAX_RR_THRESHOLD",
    "MAX_RUNS",
    "MAX_TABLE_CELLS",
]
