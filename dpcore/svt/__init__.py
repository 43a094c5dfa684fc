"""Sparse Vector Technique with exponential noise and optimal threshold correction.

Liu, Wang, Liu, Li and Chen (2024), "Unleash the Power of Ellipsis: Accuracy-enhanced Sparse Vector Technique
with Exponential Noise". SVT answers a stream of queries with one bit each (⊤: the noisy answer q + v passes the
noisy threshold T + ρ + r; ⊥: it does not) and halts after c ⊤'s. The modules follow the paper:

- :mod:`~dpcore.svt.noise` — the noise families and their parameterisation (§2.2, Table 1);
- :mod:`~dpcore.svt.calibration` — budget split ε₁/ε₂ and noise scales of every method (§4.2 Eq. 6, App. G);
- :mod:`~dpcore.svt.comparison` — the distribution Γ of Z = v − ρ (§4.3.2, App. D);
- :mod:`~dpcore.svt.discretisation` — the numerical framework, Algorithms 3 and 4 (§4.3.3);
- :mod:`~dpcore.svt.correction` — success probability p(r) and the optimal correction r^op (Eqs. 7–9);
- :mod:`~dpcore.svt.accuracy` — Theorem 4's (α, β) bound and the appending strategy (§4.1, §4.4);
- :mod:`~dpcore.svt.privacy` — privacy-loss profiles and exact output probabilities (Theorem 2, App. A);
- :mod:`~dpcore.svt.mechanism` — the runner, Algorithms 1, 2 and 5;
- :mod:`~dpcore.svt.experiments` — the top-c experiments of §5 (Table 3).

Conventions: ``Lap(b)`` has scale b, ``Exp(θ)`` has scale (mean) θ = 1/λ, ``Gum(s)`` is the right-skewed Gumbel
with scale s, Gaussians are given by σ. Z = v − ρ is query noise minus threshold noise; a query is answered ⊤
iff ``q + v ≥ T + ρ + r``, i.e. iff Z ≥ r − (q − T).
"""

from __future__ import annotations

from dpcore.svt.accuracy import accuracy_alpha, accuracy_bound, appending_probability
from dpcore.svt.calibration import BudgetSplit, split_budget
from dpcore.svt.comparison import acceptance_probability, comparison_cdf, comparison_pdf, comparison_sf
from dpcore.svt.correction import (
    Correction,
    correction_term,
    optimal_correction,
    shared_success_probability,
    success_probability,
)
from dpcore.svt.discretisation import MAX_BINS, DiscretisedComparison, discretise_comparison
from dpcore.svt.experiments import METHODS, run_experiment, run_method, selection_metrics, upper_bound_topc
from dpcore.svt.mechanism import SVTRun, run_svt
from dpcore.svt.noise import EULER_GAMMA, MAX_SAMPLES, NOISES, THRESHOLD_NOISES, sample_noise
from dpcore.svt.privacy import pattern_probability, query_loss_profile, threshold_loss_profile

__all__ = [
    "EULER_GAMMA",
    "METHODS",
    "NOISES",
    "BudgetSplit",
    "Correction",
    "DiscretisedComparison",
    "SVTRun",
    "acceptance_probability",
    "accuracy_alpha",
    "accuracy_bound",
    "appending_probability",
    "comparison_cdf",
    "comparison_pdf",
    "comparison_sf",
    "correction_term",
    "discretise_comparison",
    "optimal_correction",
    "pattern_probability",
    "query_loss_profile",
    "run_experiment",
    "run_method",
    "run_svt",
    "sample_noise",
    "selection_metrics",
    "shared_success_probability",
    "split_budget",
    "success_probability",
    "threshold_loss_profile",
    "upper_bound_topc",
    "THRESHOLD_NOISES",
    # size limits: bad input beyond them is a ValueError naming the parameter
    "MAX_BINS",
    "MAX_SAMPLES",
]
