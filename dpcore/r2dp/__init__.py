"""R²DP: randomising the Laplace scale (Mohammady et al. 2020, "R²DP: A Universally Utility-driven Framework
via Randomizing the Randomization Mechanism of Differential Privacy").

The mechanism releases ``q(d) + W`` with ``W | u ~ Laplace(0, 1/u)`` and the inverse scale ``u = 1/b`` drawn
fresh (and kept secret) from a *mixing law* G for every release. Everything follows from the moment generating
function ``M(t) = E[e^{t u}]`` of u (Def. 3.2):

* noise density ``f(w) = M'(-|w|)/2``, tail ``P(|W| > x) = M(-x)`` (Thm 3.1);
* usefulness ``U(γ) = P(|W| <= γ) = 1 - M(-γ)`` (Cor. 4.1, with M evaluated at -γ);
* exact privacy ``ε = ln(E[u] / M'(-Δq))`` (Cor. 3.3; tight, the worst output is the true answer).

Modules, following the paper: :mod:`.laws` (mixing laws, Section IV-B/C), :mod:`.mechanism` (privacy,
usefulness, noise, Section III), :mod:`.utility_metrics` (Table I, corrected), :mod:`.baselines` (Laplace,
staircase, caps), :mod:`.optimal` (Algorithm 1 and the two-point global optimum), :mod:`.experiments` (curves
of the figures, Lemma 4.10), :mod:`.gaussian` (the appendix's R²DP Gaussian mechanism), :mod:`.applications`
(the experiments of Section VI on synthetic stand-in data).

Infinite ε. An atom at ``u = inf`` (``Dirac(math.inf)`` or ``TwoPoint(u0, math.inf, p)`` with ``p < 1``:
"release the exact answer with probability 1 - p", the limit b → 0 of the paper's remark on randomized
response) is accepted; such laws have ``epsilon(...) == math.inf`` — the honest answer — instead of raising.
Every other valid law has a finite ε.
"""

from __future__ import annotations

from dpcore.r2dp.baselines import (
    laplace_threshold,
    laplace_usefulness,
    sample_staircase,
    staircase_density,
    staircase_optimal_r,
    staircase_usefulness,
    universal_cap,
)
from dpcore.r2dp.experiments import Lemma410, gamma_landscape, improvement_map, lemma_4_10, usefulness_curves
from dpcore.r2dp.gaussian import gaussian_kappa, gaussian_mixture_delta, gaussian_usefulness
from dpcore.r2dp.laws import Combination, Dirac, Gamma, MixingLaw, TruncatedNormal, TwoPoint, Uniform
from dpcore.r2dp.mechanism import (
    MAX_SAMPLES,
    epsilon,
    necessary_condition,
    noise_cdf,
    noise_density,
    privacy_loss,
    release,
    reuse_epsilon,
    sample_noise,
    usefulness,
)
from dpcore.r2dp.optimal import (  # noqa: F401 — _two_point_grid: app.compute.r2dp's two-point reproduction
    FAMILIES,
    FAMILY_WORDS,
    MAX_LP_ATOMS,
    OptimizationResult,
    _two_point_grid,
    gamma_theta_for_epsilon,
    optimize,
    scale_for_epsilon,
    two_point_for_epsilon,
    two_point_lp,
)
from dpcore.r2dp.utility_metrics import (
    Metrics,
    entropy,
    entropy_both,
    mean_abs_noise,
    metrics,
    rms_noise,
    scale_pdf,
)

# isort: split
from dpcore.r2dp import applications  # noqa: E402,F401  (the Section VI experiments on stand-in data)

__all__ = [
    "MixingLaw",
    "Dirac",
    "TwoPoint",
    "Gamma",
    "Uniform",
    "TruncatedNormal",
    "Combination",
    "epsilon",
    "usefulness",
    "necessary_condition",
    "reuse_epsilon",
    "noise_density",
    "noise_cdf",
    "sample_noise",
    "release",
    "privacy_loss",
    "mean_abs_noise",
    "rms_noise",
    "entropy",
    "entropy_both",
    "scale_pdf",
    "Metrics",
    "metrics",
    "laplace_usefulness",
    "staircase_usefulness",
    "staircase_density",
    "sample_staircase",
    "staircase_optimal_r",
    "laplace_threshold",
    "universal_cap",
    "two_point_for_epsilon",
    "scale_for_epsilon",
    "OptimizationResult",
    "FAMILIES",
    "FAMILY_WORDS",
    "optimize",
    "two_point_lp",
    "gamma_theta_for_epsilon",
    "usefulness_curves",
    "improvement_map",
    "gamma_landscape",
    "lemma_4_10",
    "Lemma410",
    "gaussian_kappa",
    "gaussian_usefulness",
    "gaussian_mixture_delta",
    # size limits: bad input beyond them is a ValueError naming the parameter
    "MAX_SAMPLES",
]
