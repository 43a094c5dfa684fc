"""Budget Recycling Differential Privacy (BR-DP): Jiang, Du, Sharma & Yan 2024, arXiv:2403.11445.

A kernel (Gaussian or Laplace noise calibrated to a sub-budget ``epsilon_y``) is wrapped in a *recycler*: an
out-of-bound draw (``|n| > theta``) is discarded with probability ``q`` and drawn again.

One module per part of the paper:

* :mod:`~dpcore.brdp.mechanism` — the mechanism, its output law and samplers (Sec. 3, Prop. 1);
* :mod:`~dpcore.brdp.paper_accountant` — the paper's accountant (Sec. 4: Thm. 1, Prop. 2, Thm. 2, Alg. 1);
* :mod:`~dpcore.brdp.exact_accountant` — the exact hockey-stick divergence and privacy-loss distribution;
* :mod:`~dpcore.brdp.budget_split` — the optimal split of ε between kernel and recycler (Sec. 5, Alg. 2);
* :mod:`~dpcore.brdp.composition` — T releases (Sec. 6, Thm. 3, Alg. 3) and exact PLD composition;
* :mod:`~dpcore.brdp.subsampling` — amplification by subsampling and the optimal rate (Sec. 7, Alg. 4);
* :mod:`~dpcore.brdp.experiments` — the data behind the paper's figures and Table I (Sec. 8);
* :mod:`~dpcore.brdp.kernels`, :mod:`~dpcore.brdp.calibration` — kernel primitives and calibration.

Two accountants: ``"paper"`` (the mixture model of Thm. 1 / Prop. 2 / Thm. 3, **not** a valid bound in general:
it can under-report δ by orders of magnitude, see ``docs/errata.md``) and ``"exact"`` (the default).
"""

from dpcore.brdp._common import (
    MAX_COMPOSED_POINTS,
    MAX_GRID,
    MAX_PLD_POINTS,
    MAX_SAMPLES,
    MAX_SHIFTS,
    MIN_TAIL_MASS,
    Kernel,  # noqa: F401 — the kernel names' type, for callers' annotations
)
from dpcore.brdp.budget_split import BRDPPlan, make_plan, optimize
from dpcore.brdp.composition import (
    advanced_composition,
    basic_composition,
    composed_delta,
    composed_epsilon,
    composition_interval,
)
from dpcore.brdp.exact_accountant import exact_delta, exact_pld
from dpcore.brdp.experiments import (
    acceptance_curve,
    budget_split_landscape,
    compare_accountants,
    composition_curve,
    experiment_releases,
    loss_distribution,
    privacy_profile,
)
from dpcore.brdp.mechanism import (
    acceptance_rate,
    expected_draws,
    kernel_delta,
    kernel_scale,
    output_cdf,
    output_density,
    output_variance,
    sample_outputs,
    simulate_recycler,
    success_probability,
)
from dpcore.brdp.paper_accountant import baseline_q, objective, paper_delta, paper_q, paper_w, recycling_loss
from dpcore.brdp.subsampling import (
    SubsamplingPlan,
    amplify,
    deamplify,
    optimal_sampling_rate,
    sampling_error_std,
    subsampled_acceptance,
)

__all__ = [
    "BRDPPlan",
    "SubsamplingPlan",
    "kernel_scale",
    "success_probability",
    "kernel_delta",
    "acceptance_rate",
    "expected_draws",
    "output_density",
    "output_cdf",
    "output_variance",
    "sample_outputs",
    "simulate_recycler",
    "baseline_q",
    "recycling_loss",
    "paper_w",
    "paper_delta",
    "paper_q",
    "objective",
    "exact_delta",
    "exact_pld",
    "optimize",
    "advanced_composition",
    "basic_composition",
    "composed_delta",
    "composed_epsilon",
    "composition_interval",
    "amplify",
    "deamplify",
    "sampling_error_std",
    "subsampled_acceptance",
    "optimal_sampling_rate",
    "budget_split_landscape",
    "acceptance_curve",
    "privacy_profile",
    "composition_curve",
    "loss_distribution",
    "make_plan",
    "experiment_releases",
    "compare_accountants",
    # size limits: bad input beyond them is a ValueError naming the parameter
    "MAX_COMPOSED_POINTS",
    "MAX_GRID",
    "MAX_PLD_POINTS",
    "MAX_SAMPLES",
    "MAX_SHIFTS",
    "MIN_TAIL_MASS",
]
