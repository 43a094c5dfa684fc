"""Accuracy-first mechanisms: Brownian and Laplace noise reduction, ex-post loss, doubling, Figure 3.

Rogers, Samorodnitsky, Wu, Ramdas, "Adaptive Privacy Composition for Accuracy-first Mechanisms"
(NeurIPS 2023). One module per idea of the paper:

* :mod:`~dpcore.noise_reduction.paths` — Brownian (Def. 4.4) and Laplace (Appendix A) noise paths;
* :mod:`~dpcore.noise_reduction.stopping_rule` — the relative-error rule of Section 7.2;
* :mod:`~dpcore.noise_reduction.release` — one release with stopping, many releases, cost against doubling;
* :mod:`~dpcore.noise_reduction.expost_loss` — realised loss and ex-post bounds (Thm 4, Lemma 6.1, Thm 5);
* :mod:`~dpcore.noise_reduction.doubling` — the doubling baseline (Section 7.1);
* :mod:`~dpcore.noise_reduction.exponential` — the exponential mechanism of the experiments;
* :mod:`~dpcore.noise_reduction.filter_budget`, :mod:`~dpcore.noise_reduction.unified_filter`,
  :mod:`~dpcore.noise_reduction.expost_filter` — the privacy filters (Thm 2, Lemma 5.2, Thm 3, Thm 6),
  gathered in :mod:`dpcore.filters`;
* :mod:`~dpcore.noise_reduction.zipf` — the Figure 3 experiment (Section 7.2).

Conventions: noise levels ``epsilons`` form a strictly increasing grid (most noisy first); the Brownian
noise at level ε has variance Δ²/ε², so a Brownian noise reduction stopped at ε_T is charged
ρ = ε_T²/2 whatever the sensitivity Δ (the paper's Theorems 5–6 assume Δ = 1); the Laplace noise at
level ε has scale b = Δ/ε and is charged ε_T (pure ex-post).
"""

from dpcore.noise_reduction._checks import MAX_PATHS, MAX_SUPPORT, _grid, _variant
from dpcore.noise_reduction.doubling import DoublingRelease, _doubling_run, doubling_levels, doubling_release
from dpcore.noise_reduction.exponential import em_rho, exponential_mechanism
from dpcore.noise_reduction.expost_loss import (
    backward_martingale,
    brownian_expost_bound,
    brownian_loss,
    brownian_loss_vector,
    filter_losses,
    laplace_loss,
    psi,
)
from dpcore.noise_reduction.paths import BrownianSampler, LaplaceSampler, brownian_path, laplace_path
from dpcore.noise_reduction.release import (
    NoiseReductionRelease,
    _bm_many,
    _bm_run,
    _bm_run_linear,
    cost_comparison,
    release_many,
    release_with_stopping,
)
from dpcore.noise_reduction.stopping_rule import _stop_mask, _stop_scalar, relative_error_stop
from dpcore.noise_reduction.zipf import _zipf_trial, zipf_experiment, zipf_probabilities, zipf_trials

__all__ = [
    "BrownianSampler",
    "LaplaceSampler",
    "brownian_path",
    "laplace_path",
    "brownian_loss",
    "brownian_loss_vector",
    "laplace_loss",
    "psi",
    "brownian_expost_bound",
    "backward_martingale",
    "filter_losses",
    "relative_error_stop",
    "NoiseReductionRelease",
    "release_with_stopping",
    "release_many",
    "cost_comparison",
    "DoublingRelease",
    "doubling_levels",
    "doubling_release",
    "em_rho",
    "exponential_mechanism",
    "zipf_probabilities",
    "zipf_trials",
    "zipf_experiment",
    # size limits: bad input beyond them is a ValueError naming the parameter
    "MAX_PATHS",
    "MAX_SUPPORT",
]

_PRIVATE = (_grid, _variant, _doubling_run, _bm_many, _bm_run, _bm_run_linear, _stop_mask, _stop_scalar, _zipf_trial)
