"""dpcore: the differential-privacy maths behind DP Explorer (pure numpy/scipy, no drawing).

Modules: :mod:`~dpcore.accounting` (calibration, δ(ε), composition, zCDP), :mod:`~dpcore.baseline`
(Gaussian and Laplace noise), one module per paper idea (brdp, noise_reduction, filters, svt, ldp, r2dp), and
:mod:`~dpcore.audit` (Monte-Carlo lower bounds on ε), :mod:`~dpcore.ledger` (a session's releases under five accountants), :mod:`~dpcore.negotiate` (accuracy ↔ ε for
every mechanism).
"""

from dpcore.accounting import (
    PLD_DISCRETIZATION,
    dp_to_zcdp,
    epsilon_for_delta,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_rho,
    gaussian_sigma,
    laplace_delta,
    laplace_epsilon,
    laplace_scale,
    pld_delta,
    pld_profile,
    posterior_bound,
    zcdp_to_dp,
)
from dpcore.baseline import Calibration, calibrate, error_bound, noise_density, sample_noise, within_probability

# One module per paper idea; their names overlap (each has an ``optimize``), so they stay namespaced:
# ``dpcore.brdp.optimize``, ``dpcore.r2dp.optimize`` …
from dpcore import audit, brdp, data, filters, ldp, ledger, negotiate, noise_reduction, r2dp, svt  # noqa: E402  (after the accountant)

__all__ = [
    "audit",
    "brdp",
    "data",
    "filters",
    "ldp",
    "ledger",
    "negotiate",
    "noise_reduction",
    "r2dp",
    "svt",
    "PLD_DISCRETIZATION",
    "Calibration",
    "calibrate",
    "dp_to_zcdp",
    "epsilon_for_delta",
    "error_bound",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_rho",
    "gaussian_sigma",
    "laplace_delta",
    "laplace_epsilon",
    "laplace_scale",
    "noise_density",
    "pld_delta",
    "pld_profile",
    "posterior_bound",
    "sample_noise",
    "within_probability",
    "zcdp_to_dp",
]
