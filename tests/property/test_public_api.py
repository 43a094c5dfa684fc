"""Hostile input over the whole public dpcore API: invalid input raises ValueError only, valid input is clean.

One table, ``CASES``, lists every public function (``dpcore.__all__`` and each paper module's ``__all__``) and the
public methods of its filter / sampler classes with one valid call. From it:

* ``test_invalid_argument`` (b): each argument in turn is replaced by a hostile value (NaN, ±inf, negatives, zero,
  strings, None, lists, booleans, non-integers, probabilities out of range). The call must either raise
  ``ValueError`` (naming nothing in particular: any ValueError) or, where the value happens to be valid, return a
  result with no NaN. TypeError, ZeroDivisionError, OverflowError, IndexError, RuntimeWarning … are failures.
* ``test_valid_inputs`` (a): hypothesis redraws the arguments from strategies keyed by parameter name (ε log-uniform
  in [1e-3, 50], δ log-uniform in [1e-300, 0.5], T up to 10⁴ where cheap, sensitivities, scales, probabilities) and
  requires a clean result: no NaN anywhere, no RuntimeWarning (pyproject turns dpcore's into errors), every
  probability-like field in [0, 1] and every scale-like field > 0.
* a few theory properties (monotonicity, δ ∈ [0, 1] at extreme δ and T) on the central functions.

Deliberately excluded: ``dpcore.ledger``, ``dpcore.negotiate``, ``dpcore.audit`` (new modules, covered by their own
helpers' tests); dataclass result types (``BRDPPlan``, ``SVTRun``, ``Metrics`` … are outputs, not inputs);
``ldp.enumerate_interaction`` takes a user callback (its inputs are the callback's); ``pld_profile`` takes a
``dp_accounting`` PLD object (checked through ``laplace_delta``/``brdp.composed_delta`` which build one);
``ldp.healthcare_losses`` (its only inputs are tol and ε; one call takes minutes);
``noise_reduction.zipf_experiment`` forwards ``**kwargs`` to ``zipf_trials`` (covered there); the paper-reproduction
drivers with no numeric inputs worth fuzzing beyond ``n_runs``/``rng`` are called once with small sizes.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpcore
from dpcore import brdp, filters, ldp, r2dp, svt
from dpcore import noise_reduction as nr

# ---------------------------------------------------------------------------------------------------------------
# Valid fixtures (built once: a BR-DP plan, likelihood tables, regression terms, mixing laws)

PLAN = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian")
RR = ldp.randomized_response(1.0)
LIN = ldp.linear_regression_query([0.1, 0.2], epsilon=1.0)
TERM = LIN.term(1.0)
GAMMA = r2dp.Gamma(2.0, 1.0)


def _filter_zcdp():
    return filters.PrivacyFilter(1.0, 1e-6)


def _filter_expost():
    return filters.ExPostFilter(1.0, 1e-6)


def _bayes():
    return ldp.BayesianPrivacyFilter(2.0, domain_size=2)


def _simplified():
    return ldp.SimplifiedBayesianFilter(2.0, domain_size=2)


def _approx():
    return ldp.ApproximateBayesianFilter(2.0, 1e-6, domain_size=2)


def _regfilter():
    return ldp.RegressionFilter(5.0, lower=[-1.0], upper=[1.0], group_size=1)


def _method(factory: Callable[[], Any], name: str) -> Callable[..., Any]:
    def call(*args, **kwargs):
        return getattr(factory(), name)(*args, **kwargs)

    call.__name__ = name
    call.__signature__ = inspect.signature(getattr(factory(), name))  # type: ignore[attr-defined]
    return call


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[..., Any]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    fixed: tuple[str, ...] = ()  # arguments not fuzzed (objects, callbacks)
    slow: bool = False  # expensive: fuzzed in the slow test only

    def params(self) -> list[str]:
        names = [f"#{i}" for i in range(len(self.args))] + list(self.kwargs)
        return [n for n in names if n not in self.fixed and n != "rng"]

    def call(self, **override: Any) -> Any:
        args = [override.get(f"#{i}", a) for i, a in enumerate(self.args)]
        kwargs = {k: override.get(k, v) for k, v in self.kwargs.items()}
        return self.fn(*args, **kwargs)


def C(
    qualname: str, /, *args: Any, fixed: tuple[str, ...] = (), slow: bool = False, label: str = "", **kwargs: Any
) -> Case:
    mod, _, attr = qualname.rpartition(".")
    obj = getattr(getattr(dpcore, mod) if mod else dpcore, attr)
    return Case(qualname + label, obj, args, kwargs, fixed, slow)


def M(
    qualname: str, factory: Callable[[], Any], method: str, /, *args: Any, fixed: tuple[str, ...] = (), **kwargs: Any
) -> Case:
    return Case(qualname, _method(factory, method), args, kwargs, fixed)


G = dict(kernel="gaussian")
BR = dict(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0)  # the BR-DP calls' reference setting
#: SVT's success probability of one correction r (Eq. 8, and exact with a shared threshold noise)
SUCCESS = dict(
    k=10, alpha=0.0, threshold_scale=1.0, query_scale=2.0, query_noise="exponential", threshold_noise="laplace"
)
#: the regression evaluations' small setting (two runs of a greedy adversary in two dimensions)
REGRESSION = dict(n_runs=2, dimension=2, epsilon=1.0, group_size=2, true_value=0.0, method=None, max_queries=20, rng=0)
CASES: list[Case] = [
    # accounting + baseline (dpcore.__all__)
    C("gaussian_sigma", 1.0, 1e-5, sensitivity=1.0, method="analytic"),
    C("laplace_scale", 1.0, sensitivity=1.0, delta=1e-6),
    C("gaussian_delta", 1.0, sigma=2.0, sensitivity=1.0, compositions=3),
    C("laplace_delta", 1.0, scale=1.0, sensitivity=1.0, compositions=1),
    C("laplace_delta", 2.0, scale=1.0, sensitivity=1.0, compositions=3, discretization=1e-3, label="[T=3]", slow=True),
    C("gaussian_epsilon", 1e-5, sigma=2.0, sensitivity=1.0, compositions=3),
    C("laplace_epsilon", 1e-5, scale=1.0, sensitivity=1.0, compositions=1),
    C("epsilon_for_delta", lambda e: float(dpcore.gaussian_delta(e, sigma=2.0)), 1e-5, fixed=("#0",)),
    C(
        "pld_delta",
        0.5,
        losses=np.array([-1.0, 1.0]),
        probabilities=np.array([0.3, 0.7]),
        compositions=2,
        infinity_mass=0.0,
        discretization=1e-3,
    ),
    C("zcdp_to_dp", 0.5, 1e-6),
    C("dp_to_zcdp", 1.0, 1e-6),
    C("gaussian_rho", 2.0, sensitivity=1.0),
    C("posterior_bound", 0.5, 1.0),
    C("calibrate", 1.0, 1e-5, sensitivity=1.0, method="analytic"),
    C("noise_density", 0.3, mechanism="laplace", scale=1.0),
    C("within_probability", 1.0, mechanism="gaussian", scale=1.0),
    C("error_bound", 0.95, mechanism="gaussian", scale=1.0),
    C("sample_noise", 5, mechanism="laplace", scale=1.0, rng=0),
    # brdp
    C("brdp.kernel_scale", 0.8, 1e-5, sensitivity=1.0, kernel="gaussian", calibration="analytic"),
    C("brdp.success_probability", scale=1.0, theta=1.0, **G),
    C("brdp.kernel_delta", 1.0, scale=1.0, sensitivity=1.0, compositions=1, **G),
    C("brdp.acceptance_rate", scale=1.0, theta=1.0, q=0.5, **G),
    C("brdp.expected_draws", scale=1.0, theta=1.0, q=0.5, **G),
    C("brdp.output_density", 0.3, scale=1.0, theta=1.0, q=0.5, center=0.0, **G),
    C("brdp.output_cdf", 0.3, scale=1.0, theta=1.0, q=0.5, center=0.0, **G),
    C("brdp.output_variance", scale=1.0, theta=1.0, q=0.5, **G),
    C("brdp.sample_outputs", 5, scale=1.0, theta=1.0, q=0.5, center=0.0, rng=0, **G),
    C("brdp.simulate_recycler", 5, scale=1.0, theta=1.0, q=0.5, center=0.0, rng=0, max_draws=1000, **G),
    C("brdp.baseline_q", 1.0, 0.8),
    C("brdp.recycling_loss", 0.5),
    C("brdp.paper_w", scale=1.0, theta=1.0, sensitivity=1.0, **G),
    C("brdp.paper_delta", 1.0, scale=1.0, theta=1.0, q=0.5, sensitivity=1.0, **G),
    C(
        "brdp.paper_q",
        epsilon=1.0,
        delta=1e-5,
        epsilon_y=0.8,
        sensitivity=1.0,
        theta=1.0,
        calibration="analytic",
        tol=1e-10,
        **G,
    ),
    C("brdp.objective", 0.6, 0.5, variant="corrected"),
    C("brdp.exact_delta", 1.0, scale=1.0, theta=1.0, q=0.5, sensitivity=1.0, shifts=50, method="closed_form", **G),
    C(
        "brdp.exact_pld",
        scale=2.0,
        theta=1.0,
        q=0.5,
        sensitivity=1.0,
        value_discretization_interval=1e-3,
        tail_mass_truncation=1e-15,
        **G,
    ),
    C(
        "brdp.optimize",
        **BR,
        accountant="exact",
        objective="corrected",
        calibration="analytic",
        **G,
    ),
    C(
        "brdp.composed_delta",
        1.0,
        compositions=3,
        plan=PLAN,
        accountant="paper",
        variant="corrected",
        value_discretization_interval=1e-3,
        kernel_composition="exact",
        fixed=("plan",),
    ),
    C("brdp.basic_composition", 1.0, 1e-6, compositions=3),
    C("brdp.advanced_composition", 0.1, 1e-7, compositions=10, delta_slack=1e-6, variant="corrected"),
    C(
        "brdp.composed_epsilon",
        1e-5,
        compositions=3,
        plan=PLAN,
        accountant="paper",
        value_discretization_interval=1e-3,
        kernel_composition="exact",
        fixed=("plan",),
    ),
    C("brdp.composition_interval", PLAN, 100, 1e-3, fixed=("#0",)),
    C("brdp.amplify", 1.0, 1e-5, rate=0.3),
    C("brdp.deamplify", 0.5, 1e-6, rate=0.3),
    C("brdp.sampling_error_std", "sum", rate=0.3, n_records=100, sigma_x=1.0, p_c=0.5),
    C("brdp.subsampled_acceptance", scale=1.0, theta=1.0, q=0.5, sigma_e=0.5, kernel="gaussian", variant="true"),
    C(
        "brdp.optimal_sampling_rate",
        **BR,
        n_records=1000,
        query="count",
        sigma_x=10.0,
        p_c=0.1,
        mode="paper",
        tol=1e-3,
        slow=True,
    ),
    C(
        "brdp.budget_split_landscape",
        **BR,
        calibration="analytic",
        n=5,
        exact=False,
        **G,
    ),
    C(
        "brdp.acceptance_curve",
        [0.5, 1.0],
        delta=1e-5,
        sensitivity=1.0,
        theta=1.0,
        calibration="analytic",
        exact=False,
        **G,
    ),
    C("brdp.privacy_profile", [0.5, 1.0], plan=PLAN, fixed=("plan",)),
    C(
        "brdp.composition_curve",
        [1, 2],
        plan=PLAN,
        delta=1e-5,
        exact=False,
        value_discretization_interval=1e-3,
        fixed=("plan",),
    ),
    C("brdp.loss_distribution", PLAN, n=50, fixed=("#0",)),
    C(
        "brdp.make_plan",
        **BR,
        epsilon_y=0.8,
        q=0.5,
        calibration="analytic",
        **G,
    ),
    C(
        "brdp.experiment_releases",
        [1.0, 2.0, 3.0],
        query="sum",
        **BR,
        n_releases=5,
        accountant="paper",
        subsampling_mode="paper",
        mechanisms=("Lap-DP", "Gau-BRDP"),
        rng=0,
        slow=True,
    ),
    C(
        "brdp.compare_accountants",
        **BR,
        calibration="analytic",
        **G,
        slow=True,
    ),
    # svt
    C(
        "svt.acceptance_probability",
        1.0,
        r=0.5,
        threshold_scale=1.0,
        query_scale=2.0,
        query_noise="exponential",
        threshold_noise="laplace",
    ),
    C("svt.accuracy_alpha", 0.1, k=10, r=0.5, threshold_scale=1.0, query_scale=2.0, query_noise="exponential"),
    C("svt.accuracy_bound", 10, 0.1, 1.0, variant="corrected"),
    C("svt.appending_probability", 1.0, r=0.5, traverses=3, threshold_scale=1.0, query_scale=2.0, variant="shared"),
    C(
        "svt.comparison_cdf",
        0.5,
        threshold_scale=1.0,
        query_scale=2.0,
        query_noise="exponential",
        threshold_noise="laplace",
        log=False,
    ),
    C("svt.comparison_pdf", 0.5, threshold_scale=1.0, query_scale=2.0),
    C(
        "svt.comparison_sf",
        0.5,
        threshold_scale=1.0,
        query_scale=2.0,
        query_noise="exponential",
        threshold_noise="laplace",
        log=False,
    ),
    C(
        "svt.correction_term",
        1.0,
        2.0,
        k=10,
        alpha=0.0,
        method="analytic",
        model="independent",
        query_noise="exponential",
        threshold_noise="laplace",
        n_bins=101,
        tail_mass=1e-8,
    ),
    C(
        "svt.discretise_comparison",
        1.0,
        2.0,
        n_bins=101,
        tail_mass=1e-8,
        query_noise="exponential",
        threshold_noise="laplace",
    ),
    C(
        "svt.optimal_correction",
        1.0,
        c=5,
        k=10,
        alpha=0.0,
        sensitivity=1.0,
        monotonic=False,
        method="analytic",
        model="independent",
        noise="exponential",
        delta=1e-5,
        n_bins=101,
        tail_mass=1e-8,
    ),
    C(
        "svt.pattern_probability",
        [1.0, 5.0],
        [False, True],
        threshold=3.0,
        threshold_scale=1.0,
        query_scale=2.0,
        correction=0.0,
        query_noise="exponential",
        threshold_noise="laplace",
    ),
    C("svt.query_loss_profile", 0.5, noise="laplace", scale=1.0, shift=2.0),
    C("svt.threshold_loss_profile", 0.5, noise="laplace", scale=1.0, shift=1.0),
    C(
        "svt.run_experiment",
        [1.0, 50.0, 100.0, 5.0],
        threshold=20.0,
        epsilons=[1.0],
        c=1,
        methods=None,
        n_runs=2,
        traverses=1,
        append=True,
        alpha=0.0,
        k=None,
        monotonic=False,
        resample=False,
        delta=None,
        rng=0,
        slow=True,
    ),
    C(
        "svt.run_method",
        "SVT-Exp (optimal)",
        [1.0, 50.0, 100.0],
        threshold=20.0,
        epsilon=1.0,
        c=1,
        k=None,
        alpha=0.0,
        append=True,
        traverses=1,
        resample=False,
        monotonic=False,
        delta=1e-5,
        rng=0,
    ),
    C(
        "svt.run_svt",
        [1.0, 50.0, 100.0],
        threshold=20.0,
        epsilon=1.0,
        c=1,
        noise="exponential",
        correction="optimal",
        append=False,
        resample=False,
        rng=0,
        k=None,
        alpha=0.0,
        traverses=None,
        k_max=None,
        monotonic=False,
        sensitivity=1.0,
        delta=1e-5,
        threshold_noise=None,
        w=None,
    ),
    C("svt.sample_noise", "laplace", 1.0, 3, rng=0),
    C("svt.selection_metrics", [0, 2], [1.0, 50.0, 100.0], threshold=20.0, c=2),
    C(
        "svt.shared_success_probability",
        0.5,
        **SUCCESS,
    ),
    C(
        "svt.split_budget",
        1.0,
        c=5,
        noise="exponential",
        monotonic=False,
        sensitivity=1.0,
        w=None,
        threshold_noise=None,
        delta=1e-5,
    ),
    C(
        "svt.success_probability",
        0.5,
        **SUCCESS,
        log=False,
    ),
    C("svt.upper_bound_topc", [1.0, 50.0, 100.0], epsilon=1.0, c=1, sensitivity=1.0, monotonic=False, rng=0),
    # noise reduction
    M("noise_reduction.BrownianSampler.step", lambda: nr.BrownianSampler(n_paths=2, rng=0), "step", 0.5),
    M("noise_reduction.LaplaceSampler.step", lambda: nr.LaplaceSampler(n_paths=2, rng=0), "step", 0.5),
    C("noise_reduction.BrownianSampler", n_paths=2, sensitivity=1.0, form="increment", rng=0),
    C("noise_reduction.LaplaceSampler", n_paths=2, sensitivity=1.0, rng=0),
    C("noise_reduction.brownian_path", [0.1, 0.5, 1.0], n_paths=2, sensitivity=1.0, rng=0),
    C("noise_reduction.laplace_path", [0.1, 0.5, 1.0], n_paths=2, sensitivity=1.0, method="fixed", rng=0),
    C("noise_reduction.brownian_loss", 0.3, epsilon=1.0, value=0.0, neighbour=1.0, sensitivity=1.0),
    C(
        "noise_reduction.brownian_loss_vector",
        [0.3, 0.1],
        epsilon=1.0,
        value=[0.0, 0.0],
        neighbour=[1.0, 0.0],
        sensitivity=1.0,
    ),
    C("noise_reduction.laplace_loss", 0.3, epsilon=1.0, value=0.0, neighbour=1.0, sensitivity=1.0),
    C("noise_reduction.psi", 1.0, gamma=0.5, delta=1e-6),
    C("noise_reduction.brownian_expost_bound", 1.0, gamma=0.5, delta=1e-6, variant="corrected"),
    C("noise_reduction.backward_martingale", [[0.1, 0.2, 0.3]], [0.1, 0.5, 1.0], lam=0.5, sensitivity=1.0),
    C(
        "noise_reduction.filter_losses",
        0.5,
        n_runs=2,
        value=100.0,
        alpha=0.1,
        zcdp_share=0.4,
        rho_round=(0.01, 0.1),
        levels=10,
        epsilon2_min=1e-4,
        max_rounds=20,
        rng=0,
        slow=True,
    ),
    C("noise_reduction.relative_error_stop", 100.0, 1.0, alpha=0.1, sensitivity=1.0),
    C(
        "noise_reduction.release_with_stopping",
        100.0,
        epsilons=[0.1, 0.5, 1.0],
        alpha=0.1,
        mechanism="brownian",
        sensitivity=1.0,
        neighbour=None,
        stop=None,
        rng=0,
    ),
    C(
        "noise_reduction.release_many",
        100.0,
        epsilons=[0.1, 0.5, 1.0],
        alpha=0.1,
        n_runs=3,
        mechanism="brownian",
        sensitivity=1.0,
        neighbour=None,
        rng=0,
    ),
    C(
        "noise_reduction.cost_comparison",
        [100.0, 500.0],
        alpha=0.1,
        epsilon2_min=1e-4,
        epsilon2_max=2.706029,
        grid_size=20,
        draws=10,
        rng=0,
        slow=True,
    ),
    C("noise_reduction.doubling_levels", 0.1, 2.0),
    C(
        "noise_reduction.doubling_release",
        100.0,
        alpha=0.1,
        epsilon_start=0.1,
        epsilon_max=2.0,
        sensitivity=1.0,
        rho_budget=None,
        rng=0,
    ),
    C("noise_reduction.em_rho", 1.0, neighbours="add_remove"),
    C("noise_reduction.exponential_mechanism", [1.0, 2.0, 3.0], epsilon=1.0, sensitivity=1.0, candidates=None, rng=0),
    C("noise_reduction.zipf_probabilities", 0.75, 30),
    C(
        "noise_reduction.zipf_trials",
        sample_sizes=(1000,),
        trials=2,
        alpha=0.1,
        epsilon=10.0,
        delta=1e-6,
        epsilon_em=0.1,
        epsilon2_min=1e-4,
        grid_size=20,
        a=0.75,
        support=30,
        em_neighbours="add_remove",
        variant="corrected",
        methods=("noise_reduction", "doubling"),
        rng=0,
        slow=True,
    ),
    # filters
    C("filters.rho_budget", 1.0, 1e-6, variant="corrected"),
    C("filters.zcdp_epsilon", 0.1, 1e-6, variant="corrected"),
    C("filters.largest_level", 0.5),
    C("filters.PrivacyFilter", 1.0, 1e-6, delta_mechanisms=0.0, variant="corrected", tol=1e-12, record=True),
    C("filters.ZCDPFilter", 1.0, 1e-6, delta_mechanisms=0.0, variant="corrected", tol=1e-12, record=True),
    C("filters.ExPostFilter", 1.0, 1e-6, tol=1e-12, record=True),
    C("filters.ConcurrentFilter", 1.0, 1e-6, 0.5, delta_expost=0.0, delta_mechanisms=0.0, record=True),
    M("filters.PrivacyFilter.exhausted", _filter_zcdp, "exhausted", 0.001),
    M("filters.PrivacyFilter.can_start", _filter_zcdp, "can_start", rho=0.001, epsilon_max=None, delta=0.0),
    M("filters.PrivacyFilter.charge_zcdp", _filter_zcdp, "charge_zcdp", 0.001, delta=0.0, label="q"),
    M("filters.PrivacyFilter.start_noise_reduction", _filter_zcdp, "start_noise_reduction", 0.05, label="nr"),
    M(
        "filters.PrivacyFilter.run_noise_reduction",
        _filter_zcdp,
        "run_noise_reduction",
        100.0,
        epsilons=[0.01, 0.05],
        alpha=0.1,
        sensitivity=1.0,
    ),
    M("filters.ExPostFilter.can_start", _filter_expost, "can_start", epsilon_max=0.5, delta=0.0),
    M("filters.ExPostFilter.start", _filter_expost, "start", 0.5, delta=0.0, label="x"),
    # ldp
    C("ldp.likelihood_table", [[0.7, 0.3], [0.3, 0.7]], outputs=None, name="t"),
    C("ldp.realized_loss", [0.0, -1.0, -0.5]),
    C("ldp.fully_utilizes", [[0.75, 0.25], [0.25, 0.75]], epsilon=None),
    C("ldp.transcript_log_likelihood", [RR, RR], [1, 0], fixed=("#0",)),
    C("ldp.randomized_response", 1.0, domain_size=3),
    C("ldp.generalized_randomized_response", 1.0, categories=[0, 1, 1], n_categories=None, name=""),
    C("ldp.two_point", 1.0, [0.0, 0.5, 1.0], low=0.0, high=1.0, name=""),
    C("ldp.two_point_sample", [0.2, 0.8], epsilon=1.0, low=0.0, high=1.0, rng=0),
    C("ldp.mean_estimate", [0.0, 1.0, 1.0], epsilon=1.0, low=0.0, high=1.0),
    C("ldp.running_example_query", 2, epsilon=0.4, domain_size=11),
    C("ldp.posterior", [0.5, 0.5], [-0.1, -2.0]),
    C("ldp.knowledge_gain", [True, False], [0.5, 0.5], [-0.1, -2.0]),
    C("ldp.lemma32_construction", [-0.1, -2.0, -1.0], alpha=1e-6, direction="sup"),
    C("ldp.g_leakage", [[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [-0.1, -2.0]),
    C("ldp.BayesianPrivacyFilter", 2.0, domain_size=2, tolerance=1e-12, log_likelihood=None),
    C("ldp.SimplifiedBayesianFilter", 2.0, domain_size=2, tolerance=1e-12, log_likelihood=None),
    C("ldp.ApproximateBayesianFilter", 2.0, 1e-6, domain_size=2, tolerance=1e-12),
    M("ldp.BayesianPrivacyFilter.look_ahead", _bayes, "look_ahead", RR, fixed=("#0",)),
    M("ldp.BayesianPrivacyFilter.would_accept", _bayes, "would_accept", RR),
    M("ldp.BayesianPrivacyFilter.submit", _bayes, "submit", RR, 1),
    M("ldp.SimplifiedBayesianFilter.would_accept", _simplified, "would_accept", RR, epsilon=None),
    M("ldp.ApproximateBayesianFilter.would_accept", _approx, "would_accept", RR, delta=0.0),
    M("ldp.RegressionFilter.would_accept", _regfilter, "would_accept", LIN),
    M("ldp.RegressionFilter.submit", _regfilter, "submit", LIN, 1.0),
    C("ldp.composition_output_losses", [RR, RR], true_value=None, max_patterns=64, fixed=("#0",)),
    C(
        "ldp.acceptance_regions",
        [-0.1, -2.0],
        2.0,
        epsilons=[0.5, 1.0],
        slopes=[0.5, 1.0],
        intercept=0.0,
        tolerance=1e-12,
    ),
    C(
        "ldp.simulate_accepted_counts",
        [RR],
        2.0,
        true_value=0,
        n_runs=3,
        method="bayesian",
        max_queries=50,
        rng=0,
        fixed=("#0",),
    ),
    C("ldp.filter_timeline", [RR, RR, RR], 2.0, true_value=0, outputs=None, rng=0, fixed=("#0",)),
    C("ldp.rr_expected_accepted", 1.0, 3.0),
    C("ldp.rr_accepted_pmf", 1.0, 3.0, max_count=50),
    C("ldp.example1", 0.7, 3),
    C("ldp.example2", (1, 0, 1), epsilon=0.4),
    C("ldp.example3", (1, 0, 1, 1), n_queries=6, budget=0.8, epsilon=0.4),
    C("ldp.example3_transcripts", budget=0.8, epsilon=0.4, filter="bayesian", fixed=("budget", "epsilon")),
    C("ldp.linear_regression_query", [0.1, 0.2], epsilon=1.0, low=-1.0, high=1.0),
    C("ldp.truncated_regression_query", [0.1, 0.2], epsilon=1.0, low=-1.0, high=1.0),
    C("ldp.logistic_regression_query", [0.1, 0.2], epsilon=1.0),
    C("ldp.minimize_dc", [TERM], [-1.0], [1.0], sign=1, tol=1e-6, max_nodes=2000, fixed=("#0",)),
    C("ldp.log_likelihood_bounds", [TERM], [-1.0], [1.0], tol=1e-6, binary=(), max_nodes=2000, fixed=("#0",)),
    C("ldp.single_term_loss", TERM, [-1.0], [1.0], fixed=("#0",)),
    C("ldp.secant_relaxation", TERM, 0.2, 0.8, sign=1, n=11, fixed=("#0",)),
    C("ldp.grouped_loss_bound", [TERM, TERM], [-1.0], [1.0], group_size=1, tol=1e-6, binary=(), fixed=("#0",)),
    C("ldp.grouped_realized_loss", [[0.0, -1.0], [-0.5, 0.0]], group_size=1),
    C(
        "ldp.RegressionFilter",
        5.0,
        lower=[-1.0],
        upper=[1.0],
        group_size=2,
        tol=1e-4,
        method="bnb",
        tolerance=1e-12,
        rng=0,
    ),
    C(
        "ldp.regression_experiment",
        "linear",
        budgets=(2.0,),
        **REGRESSION,
        slow=True,
    ),
    C(
        "ldp.regression_loss_paths",
        "linear",
        budget=2.0,
        **REGRESSION,
        slow=True,
    ),
    C("ldp.logistic_median_reproduction", n_runs=2, budget=2.0, rng=0, slow=True),
    C("ldp.linear_median_mismatch", n_runs=2, budget=2.0, group_size=2, rng=0, slow=True),
    C("ldp.healthcare_queries", 1.0),
    # r2dp
    C("r2dp.Dirac", 1.0),
    C("r2dp.TwoPoint", 0.5, 2.0, 0.3),
    C("r2dp.Gamma", 2.0, 1.0),
    C("r2dp.Uniform", 0.5, 2.0),
    C("r2dp.TruncatedNormal", 1.0, 0.5, 0.0),
    C("r2dp.Combination", (GAMMA, r2dp.Dirac(1.0)), (0.5, 0.5), fixed=("#0",)),
    C("r2dp.epsilon", GAMMA, sensitivity=1.0, variant="exact", fixed=("#0",)),
    C("r2dp.usefulness", GAMMA, gamma=1.0, fixed=("#0",)),
    C("r2dp.necessary_condition", GAMMA, sensitivity=1.0, fixed=("#0",)),
    C("r2dp.reuse_epsilon", GAMMA, sensitivity=1.0, queries=2, fixed=("#0",)),
    C("r2dp.noise_density", 0.3, GAMMA, fixed=("#1",)),
    C("r2dp.noise_cdf", 0.3, GAMMA, fixed=("#1",)),
    C("r2dp.sample_noise", 5, GAMMA, 0, fixed=("#1", "#2")),
    C("r2dp.release", 1.0, GAMMA, 0, fixed=("#1", "#2")),
    C("r2dp.privacy_loss", 0.3, GAMMA, sensitivity=1.0, fixed=("#1",)),
    C("r2dp.mean_abs_noise", GAMMA, fixed=("#0",)),
    C("r2dp.rms_noise", GAMMA, variant="exact", fixed=("#0",)),
    C("r2dp.entropy", GAMMA, variant="exact", fixed=("#0",)),
    C("r2dp.entropy_both", GAMMA, fixed=("#0",)),
    C("r2dp.scale_pdf", GAMMA, 1.0, fixed=("#0",)),
    C("r2dp.metrics", GAMMA, gamma=1.0, sensitivity=1.0, fixed=("#0",)),
    C("r2dp.laplace_usefulness", 1.0, gamma=1.0, sensitivity=1.0, variant="exact"),
    C("r2dp.staircase_usefulness", 1.0, gamma=1.0, sensitivity=1.0, r=None),
    C("r2dp.staircase_density", 0.3, 1.0, sensitivity=1.0, r=0.5),
    C("r2dp.sample_staircase", 5, 1.0, sensitivity=1.0, r=0.5, rng=0),
    C("r2dp.staircase_optimal_r", 1.0, gamma=1.0, sensitivity=1.0, cost="usefulness"),
    C("r2dp.laplace_threshold", 1.0),
    C("r2dp.universal_cap", 1.0, gamma=1.0, sensitivity=1.0),
    C("r2dp.two_point_for_epsilon", 0.5, 2.0, epsilon=1.0, sensitivity=1.0),
    C("r2dp.scale_for_epsilon", GAMMA, 1.0, sensitivity=1.0, fixed=("#0",)),
    C("r2dp.optimize", epsilon=1.0, gamma=1.0, sensitivity=1.0, family="gamma", slow=True),
    C("r2dp.two_point_lp", epsilon=1.0, gamma=1.0, sensitivity=1.0, atoms=50),
    C("r2dp.gamma_theta_for_epsilon", 2.0, epsilon=1.0, sensitivity=1.0),
    C("r2dp.usefulness_curves", [0.5, 1.0], gamma=1.0, sensitivity=1.0, families=("laplace", "gamma"), slow=True),
    C("r2dp.improvement_map", [0.5, 1.0], [0.5, 1.0], family="gamma", sensitivity=1.0, slow=True),
    C("r2dp.gamma_landscape", [1.0, 2.0], [0.5, 1.0], gamma=1.0, sensitivity=1.0),
    C("r2dp.lemma_4_10", variant="exact"),
    C("r2dp.gaussian_kappa", 1.0, 1e-5),
    C("r2dp.gaussian_usefulness", [1.0, 2.0], gamma=1.0, weights=None),
    C("r2dp.gaussian_mixture_delta", 1.0, sigmas=[1.0, 2.0], weights=None, sensitivity=1.0, variant="exact"),
    # data
    C("data.binary_scores", 100, n_positive=5, high=1000.0, low=0.0),
    C("data.item_supports", n_records=1000, n_items=50, threshold=100.0, avg_length=5.0, top_support=0.5, n_above=5),
    C("data.svt_dataset", "Zipf", 0, fixed=("#1",)),
    C(
        "data.transaction_scores",
        n_records=1000,
        n_items=50,
        threshold=100.0,
        avg_length=5.0,
        top_support=0.5,
        n_above=5,
        rng=0,
    ),
    C("data.zipf_scores", 100, scale=1000.0, exponent=1.0),
    # the mechanism registry and the deployments table
    C("mechanisms.canonical", "laplace"),
    C("mechanisms.display_name", "brdp"),
    C("mechanisms.get", "gaussian"),
    C("mechanisms.ids_for", "negotiate"),
    C(
        "mechanisms.make_requirement",
        requirement="error",
        theta=50.0,
        confidence=0.95,
        sensitivity=1.0,
        delta=1e-5,
        alpha=0.1,
        value=100.0,
        c=1,
        k=50,
        kernel="gaussian",
        cap=50.0,
    ),
    C("mechanisms.release", "laplace", 0.5, delta=0.0, sensitivity=1.0, compositions=2, cap=50.0, source="negotiate"),
    C("deployments.deployments_table", prior=0.5),
]

#: Public names not in CASES, and why.
EXCLUDED = {
    "pld_profile": "takes a dp_accounting PLD object; exercised through laplace_delta and brdp.composed_delta",
    "PLD_DISCRETIZATION": "a constant",
    "ldp.enumerate_interaction": "takes a user callback choosing queries; exercised through example3_transcripts",
    "ldp.healthcare_losses": "inputs tol and ε only, and one call takes minutes (the ldp page caches it)",
    "noise_reduction.zipf_experiment": "forwards **kwargs to zipf_trials (fuzzed) and summarises its table",
    "r2dp.MixingLaw": "the abstract base of the laws (each law is fuzzed)",
    "filters.filter_from_dict": "restores a filter from its own to_dict(); exercised by tests/dpcore/test_filters.py",
    "mechanisms.display_names": "takes no input (the id → display name table)",
}


def _public_names() -> set[str]:
    names = set()
    for name in dpcore.__all__:
        if name in ("ledger", "negotiate", "audit"):
            continue  # new modules, fuzzed by their own helpers' tests
        obj = getattr(dpcore, name)
        if inspect.ismodule(obj):
            for sub in obj.__all__:
                names.add(f"{name}.{sub}")
        else:
            names.add(name)
    return names


def _is_input_free(qualname: str) -> bool:
    """Constants, exception types and result dataclasses (outputs, not inputs)."""
    mod, _, attr = qualname.rpartition(".")
    obj = getattr(getattr(dpcore, mod) if mod else dpcore, attr)
    if not callable(obj) or (inspect.isclass(obj) and issubclass(obj, Exception)):
        return True
    laws = (r2dp.Dirac, r2dp.TwoPoint, r2dp.Gamma, r2dp.Uniform, r2dp.TruncatedNormal, r2dp.Combination)
    return inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or inspect.isabstract(obj)) and obj not in laws


def test_every_public_function_is_fuzzed():
    covered = {c.name.split("[")[0] for c in CASES} | {c.name.rsplit(".", 1)[0] for c in CASES}
    missing = sorted(n for n in _public_names() if n not in covered and n not in EXCLUDED and not _is_input_free(n))
    assert not missing, f"public dpcore names with no fuzz case: {missing}"


# ---------------------------------------------------------------------------------------------------------------
# (b) invalid input → ValueError only

NAN, INF = math.nan, math.inf
HOSTILE: list[Any] = [
    NAN,
    INF,
    -INF,
    -1.0,
    0.0,
    -0.0,
    1.5,
    2.0,
    "abc",
    "",
    None,
    True,
    [1.0, 2.0],
    [],
    [NAN],
    {"a": 1},
    1 + 2j,
]
#: Beyond the float range: must read as ±inf or be refused. Not for counts (a loop of 10**400 runs is a hang, not a
#: bug). Finite magnitudes near 1e308 are not fuzzed: see the module docstring.
HUGE: list[Any] = [10**400, -(10**400)]


def _annotation(case: Case, param: str) -> str:
    try:
        sig = inspect.signature(case.fn)
    except (TypeError, ValueError):
        return ""
    if param.startswith("#"):
        positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if inspect.isclass(case.fn):
            positional = positional  # signature of a class already omits self
        i = int(param[1:])
        return str(positional[i].annotation) if i < len(positional) else ""
    p = sig.parameters.get(param)
    return str(p.annotation) if p is not None else ""


def _values_for(case: Case, param: str) -> list[Any]:
    ann = _annotation(case, param)
    if ann == "bool" or param in ("name", "label"):
        return []  # flags (Python truthiness) and free-text labels
    counts = "int" in ann and "float" not in ann
    return HOSTILE + ([] if counts else HUGE)


def nan_free(obj: Any, path: str = "result", depth: int = 0) -> list[str]:
    """Paths of NaN values anywhere in a result (floats, arrays, frames, dataclasses, containers)."""
    if depth > 4:
        return []
    if isinstance(obj, bool | str | type(None)):
        return []
    if isinstance(obj, float | np.floating):
        return [path] if math.isnan(obj) else []
    if isinstance(obj, complex):
        return [path] if math.isnan(obj.real) or math.isnan(obj.imag) else []
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            return [path] if np.isnan(obj).any() else []
        return []
    if isinstance(obj, pd.DataFrame | pd.Series):
        return []  # NaN is pandas' "missing" (no output yet, no paper value): tables are checked in (a) by column
    if isinstance(obj, pd.Series):
        return [path] if obj.dtype.kind in "fc" and obj.isna().any() else []
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = []
        for f in dataclasses.fields(obj):
            out += nan_free(getattr(obj, f.name), f"{path}.{f.name}", depth + 1)
        return out
    if isinstance(obj, tuple | list):
        return [p for i, x in enumerate(obj[:1000]) for p in nan_free(x, f"{path}[{i}]", depth + 1)]
    if isinstance(obj, dict):
        return [p for k, x in obj.items() for p in nan_free(x, f"{path}[{k!r}]", depth + 1)]
    return []


def _call_hostile(case: Case, param: str, value: Any) -> str | None:
    """None when the call is acceptable (ValueError, or a NaN-free result), else a description of the failure."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            result = case.call(**{param: value})
    except ValueError:
        return None
    except Exception as exc:  # noqa: BLE001 — the point of the test
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    bad = nan_free(result)
    return f"returned NaN at {bad[:3]}" if bad else None


def _sweep(case: Case) -> list[str]:
    failures = []
    for param in case.params():
        for value in _values_for(case, param):
            if (msg := _call_hostile(case, param, value)) is not None:
                failures.append(f"{case.name}({param}={value!r:.40}): {msg}")
    return failures


FAST = [c for c in CASES if not c.slow]
SLOW = [c for c in CASES if c.slow]


@pytest.mark.parametrize("case", FAST, ids=[c.name for c in FAST])
def test_invalid_argument(case):
    case.call()  # the valid call itself works (an exception fails the test)
    failures = _sweep(case)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[c.name for c in SLOW])
def test_invalid_argument_expensive(case):
    failures = _sweep(case)
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------------------------------------
# (a) valid input → clean output


def log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(math.log(low), math.log(high)).map(math.exp)


#: Valid values by parameter name (every function using the name accepts the whole range).
VALID: dict[str, st.SearchStrategy] = {
    "epsilon": log_uniform(1e-3, 50.0),
    "delta": log_uniform(1e-300, 0.5),
    "sensitivity": log_uniform(0.1, 10.0),
    "scale": log_uniform(0.05, 50.0),
    "sigma": log_uniform(0.05, 50.0),
    "theta": log_uniform(0.1, 100.0),
    "threshold_scale": log_uniform(0.1, 100.0),
    "query_scale": log_uniform(0.1, 100.0),
    "q": st.floats(0.0, 0.99),
    "rate": st.floats(0.01, 1.0),
    "compositions": st.integers(1, 10_000),
    "gamma": log_uniform(0.01, 100.0),
    "rho": log_uniform(1e-4, 10.0),
    "k": st.integers(1, 10_000),
    "c": st.integers(1, 100),
}
#: Names whose VALID range does not fit a function (a relation with another argument, or a different meaning).
NOT_FREE: dict[str, set[str]] = {
    "laplace_delta": {"compositions"},  # T > 1 is a PLD composition: the slow test covers T up to 10⁴
    "laplace_epsilon": {"compositions"},
    "brdp.kernel_delta": {"compositions"},
    "brdp.composed_delta": {"compositions"},
    "brdp.composed_epsilon": {"compositions"},
    "pld_delta": {"compositions"},
    "brdp.kernel_scale": {"epsilon"},  # ε_y of a plan, below ε
    "brdp.baseline_q": {"epsilon"},  # needs ε ≥ ε_y
    "brdp.paper_q": {"epsilon", "delta"},
    "brdp.make_plan": {"epsilon", "delta"},
    "brdp.optimize": {"delta"},  # δ must leave room for recycling: tested below from 1e-12
    "svt.accuracy_bound": {"k"},
    "svt.run_method": {"k", "c"},
    "svt.run_svt": {"k", "c"},
    "svt.upper_bound_topc": {"c"},
    "svt.selection_metrics": {"c"},
    "ldp.example3": {"epsilon"},
    "ldp.example2": {"epsilon"},
    "noise_reduction.psi": {"gamma", "delta"},
    "noise_reduction.brownian_expost_bound": {"gamma", "delta"},
    "noise_reduction.em_rho": {"epsilon"},
    "brdp.deamplify": {"delta"},  # needs rate > δ
    "r2dp.two_point_for_epsilon": {"epsilon", "sensitivity"},  # needs u1 > ε/Δ
    "filters.PrivacyFilter.charge_zcdp": {"rho", "delta"},  # within the filter's budget
    "filters.ExPostFilter.start": {"delta"},
    "ldp.SimplifiedBayesianFilter.would_accept": {"epsilon"},  # ≥ the query's own LDP level
    "ldp.linear_regression_query": {"theta"},  # a coefficient vector here
    "ldp.truncated_regression_query": {"theta"},
    "ldp.logistic_regression_query": {"theta"},
}
UNIT_INTERVAL = re.compile(r"(^|_)(delta|probability|acceptance|p_theta|success|usefulness|recall|precision|f1)(_|$)")
POSITIVE = re.compile(r"(^|_)(sigma|scale)$")
#: Scalar results that are probabilities.
UNIT_RESULT = {
    "gaussian_delta",
    "laplace_delta",
    "within_probability",
    "brdp.success_probability",
    "brdp.kernel_delta",
    "brdp.acceptance_rate",
    "brdp.output_cdf",
    "brdp.exact_delta",
    "svt.acceptance_probability",
    "svt.comparison_cdf",
    "svt.comparison_sf",
    "svt.success_probability",
    "svt.shared_success_probability",
    "r2dp.usefulness",
    "r2dp.laplace_usefulness",
    "r2dp.staircase_usefulness",
    "r2dp.noise_cdf",
    "brdp.composed_delta",
    "r2dp.gaussian_mixture_delta",
    "noise_reduction.zipf_probabilities",
}
POSITIVE_RESULT = {
    "gaussian_sigma",
    "laplace_scale",
    "brdp.kernel_scale",
    "brdp.composition_interval",
    "gaussian_rho",
    "error_bound",
}


def _param_names(case: Case) -> dict[str, str]:
    """Fuzz key (``#i`` or name) → real parameter name."""
    out = {k: k for k in case.kwargs}
    try:
        sig = inspect.signature(case.fn)
    except (TypeError, ValueError):
        return out
    positional = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i in range(len(case.args)):
        if i < len(positional):
            out[f"#{i}"] = positional[i]
    return out


def _drawable(case: Case) -> dict[str, str]:
    skip = NOT_FREE.get(case.name, set())
    return {
        key: name
        for key, name in _param_names(case).items()
        if name in VALID and name not in skip and key not in case.fixed
    }


def range_problems(obj: Any, path: str = "result", depth: int = 0) -> list[str]:
    """NaN anywhere; probability-named fields outside [0, 1]; scale-named fields ≤ 0."""
    out = [p for p in nan_free(obj, path, depth)]
    if depth > 3:
        return out

    def check(name: str, values: Any, where: str) -> None:
        arr = np.asarray(values, dtype=float) if np.ndim(values) or isinstance(values, float | int) else None
        if arr is None or arr.size == 0:
            return
        if UNIT_INTERVAL.search(name) and not (np.all(arr >= -1e-12) and np.all(arr <= 1 + 1e-9)):
            out.append(f"{where} outside [0, 1]: {arr.ravel()[:5]}")
        if POSITIVE.search(name) and not np.all(arr > 0):
            out.append(f"{where} not > 0: {arr.ravel()[:5]}")

    if isinstance(obj, pd.DataFrame):
        for col in obj.select_dtypes("number").columns:
            vals = obj[col].to_numpy(dtype=float)
            if np.isnan(vals).any() and not np.isnan(vals).all():
                out.append(f"{path}[{col!r}] has NaN")
            check(str(col), vals[~np.isnan(vals)], f"{path}[{col!r}]")
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if isinstance(v, bool):
                continue
            if isinstance(v, float | int | np.ndarray):
                check(f.name, v, f"{path}.{f.name}")
            elif dataclasses.is_dataclass(v) or isinstance(v, pd.DataFrame):
                out += [p for p in range_problems(v, f"{path}.{f.name}", depth + 1) if p not in out]
    return out


def _check_valid(case: Case, draw: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"dpcore(\.|$)")
        result = case.call(**draw)
    problems = range_problems(result)
    base = case.name.split("[")[0]
    if not isinstance(result, bool) and isinstance(result, float | int | np.ndarray | np.floating):
        arr = np.asarray(result, dtype=float)
        if base in UNIT_RESULT and not (np.all(arr >= 0) and np.all(arr <= 1 + 1e-9)):
            problems.append(f"result outside [0, 1]: {arr.ravel()[:5]}")
        if base in POSITIVE_RESULT and not (np.all(arr > 0) and np.all(np.isfinite(arr))):
            problems.append(f"result not a finite positive: {arr.ravel()[:5]}")
    assert not problems, f"{case.name}({draw}): {problems}"


VALID_CASES = [c for c in FAST if _drawable(c)]


@pytest.mark.parametrize("case", VALID_CASES, ids=[c.name for c in VALID_CASES])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_valid_inputs(case, data):
    keys = _drawable(case)
    draw = {key: data.draw(VALID[name], label=name) for key, name in keys.items()}
    _check_valid(case, draw)


# ---------------------------------------------------------------------------------------------------------------
# Stability at the extremes the issue names: ε ∈ [1e-3, 50], δ down to 1e-300, T up to 10⁴

EPS = log_uniform(1e-3, 50.0)
DELTA = log_uniform(1e-300, 0.5)


@settings(max_examples=40, deadline=None)
@given(rho=log_uniform(1e-6, 1e3), delta=DELTA)
def test_zcdp_conversion_round_trip_down_to_tiny_delta(rho, delta):
    """ρ → ε(ρ, δ) → ρ: finite, at most Bun & Steinke's ρ + 2√(ρ ln(1/δ)), and the inverse recovers ρ (δ down to
    1e-300). ε is 0 where the tight bound falls below 0 (small ρ, δ near ½): then ρ is at most the inverse of 0."""
    eps = float(dpcore.zcdp_to_dp(rho, delta))
    assert math.isfinite(eps) and eps >= 0
    bun_steinke = rho + 2 * math.sqrt(rho * math.log(1 / delta))  # Bun & Steinke 2016, Prop. 1.3
    assert float(dpcore.accounting.zcdp_to_dp_bun_steinke(rho, delta)) == pytest.approx(bun_steinke, rel=1e-12)
    assert eps <= bun_steinke * (1 + 1e-12)
    if eps > 0:
        assert float(dpcore.dp_to_zcdp(eps, delta)) == pytest.approx(rho, rel=1e-6)
    else:
        assert float(dpcore.dp_to_zcdp(0.0, delta)) >= rho


@settings(max_examples=25, deadline=None)
@given(eps=EPS, delta=DELTA, t=st.integers(1, 10_000))
def test_gaussian_composition_epsilon_stable(eps, delta, t):
    """σ calibrated for one release; after T releases ε_T(δ) is finite, ≥ ε, and δ(ε_T) = δ (dp_accounting-free)."""
    sigma = dpcore.gaussian_sigma(eps, delta)
    assert math.isfinite(sigma) and sigma > 0
    e_t = float(dpcore.gaussian_epsilon(delta, sigma=sigma, compositions=t))
    assert math.isfinite(e_t) and e_t >= eps * (1 - 1e-6)
    # T Gaussian releases = one with σ/√T; its δ(ε) in closed form (Balle & Wang 2018, Thm 8), in 50-digit mpmath
    import mpmath

    with mpmath.workdps(50):
        mu = mpmath.sqrt(t) / mpmath.mpf(sigma)
        e = mpmath.mpf(e_t)
        closed = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        assert float(closed / delta) == pytest.approx(1.0, rel=1e-4)


@settings(max_examples=20, deadline=None)
@given(eps=EPS, c=st.integers(1, 100), k=st.integers(1, 10_000))
def test_svt_optimal_correction_stable_and_optimal(eps, c, k):
    """r^op is finite and no nearby correction succeeds more often; its success probability is in [0, 1]."""
    corr = svt.optimal_correction(eps, c=c, k=k)
    assert math.isfinite(corr.r) and 0 <= corr.success_probability <= 1
    step = 1e-3 * (corr.threshold_scale + corr.query_scale)
    for r in (corr.r - step, corr.r + step):
        p = svt.success_probability(r, k=k, threshold_scale=corr.threshold_scale, query_scale=corr.query_scale)
        assert p <= corr.success_probability + 1e-9


@settings(max_examples=15, deadline=None)
@given(eps=log_uniform(1e-2, 20.0), delta=log_uniform(1e-12, 0.1), kernel=st.sampled_from(["gaussian", "laplace"]))
def test_brdp_plan_in_range(eps, delta, kernel):
    """Alg. 2's plan: probabilities in [0, 1], a positive scale, and its exact δ within the budget."""
    plan = brdp.optimize(epsilon=eps, delta=delta, sensitivity=1.0, theta=1.0, kernel=kernel)
    assert not range_problems(plan), range_problems(plan)
    assert 0 <= plan.q < 1 and plan.scale > 0
    assert plan.exact_delta <= delta * (1 + 1e-6)


@pytest.mark.parametrize("t", [1000, 10_000])
def test_laplace_composition_at_large_t(t):
    """Laplace PLD composed T = 10³, 10⁴ times: δ(ε) in [0, 1], non-increasing in ε, and non-decreasing in T."""
    eps = np.linspace(0.0, t * 0.1, 25)  # per release ε₀ = Δ/b = 0.1
    d_t = np.asarray(dpcore.laplace_delta(eps, scale=10.0, compositions=t))
    assert np.all(np.isfinite(d_t)) and np.all((d_t >= 0) & (d_t <= 1))
    assert np.all(np.diff(d_t) <= 1e-12)
    d_half = np.asarray(dpcore.laplace_delta(eps, scale=10.0, compositions=t // 2))
    assert np.all(d_t >= d_half - 1e-9)
    # basic composition: T releases of an ε₀-DP mechanism are (T·ε₀, 0)-DP
    assert d_t[-1] <= 1e-9


# ---------------------------------------------------------------------------------------------------------------
# Regressions: the bugs this fuzz found (each raised something other than ValueError, or warned)

RR_TABLE = ldp.randomized_response(1.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: dpcore.gaussian_sigma(10**400, 1e-5),  # OverflowError converting the int
        lambda: dpcore.laplace_delta(1.0, scale=10**400),
        lambda: dpcore.gaussian_epsilon(1e-5, sigma=1.0, compositions=1 + 2j),  # ComplexWarning
        lambda: dpcore.gaussian_epsilon(1e-5, sigma=1.0, compositions=math.inf),
        lambda: svt.sample_noise("laplace", 1.0, 1.5),  # TypeError from numpy
        lambda: svt.sample_noise("laplace", 1.0, "abc"),
        lambda: svt.selection_metrics([math.inf], [1.0, 2.0], threshold=1.0, c=1),  # OverflowError
        lambda: svt.selection_metrics(None, [1.0, 2.0], threshold=1.0, c=1),  # TypeError
        lambda: ldp.likelihood_table([[0.5, 0.5], [0.5, 0.5]], outputs=2.0),  # TypeError: no len()
        lambda: ldp.transcript_log_likelihood([RR_TABLE], 1),
        lambda: ldp.filter_timeline([RR_TABLE], 2.0, true_value=0, outputs=1.0),
        lambda: ldp.example2(1.0),
        lambda: ldp.example3(None),
        lambda: ldp.log_likelihood_bounds([TERM], [-1.0], [1.0], tol="abc"),  # TypeError in tol / 2
        lambda: ldp.grouped_loss_bound([TERM], [-1.0], [1.0], group_size=1, tol=None),
        lambda: r2dp.Combination((GAMMA,), 1.5),  # TypeError: not iterable
    ],
)
def test_regression_hostile_input_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_regression_appending_probability_at_infinite_distance():
    """d = ±inf was a RuntimeWarning (inf − inf); the limits are 1 and 0 (t for the first-order as_printed)."""
    kw = dict(r=0.5, traverses=3, threshold_scale=1.0, query_scale=2.0)
    got = svt.appending_probability([math.inf, -math.inf, 1.0], **kw)
    assert got[0] == 1.0 and got[1] == 0.0
    assert got[2] == pytest.approx(svt.appending_probability(1.0, **kw))
    assert svt.appending_probability(1e6, **kw) == pytest.approx(1.0)  # the limit, approached by finite d
    assert svt.appending_probability(-1e6, **kw) == pytest.approx(0.0, abs=1e-12)
    assert svt.appending_probability(math.inf, variant="as_printed", **kw) == 3.0
    assert svt.sample_noise("laplace", 1.0, (2, 3), rng=0).shape == (2, 3)
