"""dpcore: the differential-privacy maths behind DP Explorer (pure numpy/scipy, no drawing).

Modules: :mod:`~dpcore.accounting` (calibration, δ(ε), composition, zCDP), :mod:`~dpcore.baseline`
(Gaussian and Laplace noise), one subpackage per paper (brdp, noise_reduction, svt, ldp, r2dp) with
:mod:`~dpcore.filters` and :mod:`~dpcore.data`, and across papers :mod:`~dpcore.mechanisms` (one registry of the
mechanisms), :mod:`~dpcore.negotiate` (accuracy ↔ ε for every mechanism), :mod:`~dpcore.ledger` (a session's releases
under five accountants; releases in ``ledger_releases``, accountants in ``ledger_accountants``),
:mod:`~dpcore.audit` (Monte-Carlo lower bounds on ε) and :mod:`~dpcore.deployments` (published budgets).
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

# isort: split
# One module per paper idea; their names overlap (each has an ``optimize``), so they stay namespaced:
# ``dpcore.brdp.optimize``, ``dpcore.r2dp.optimize`` …
from dpcore import (  # noqa: E402  (after the accountant)
    audit,
    brdp,
    data,
    deployments,
    filters,
    ldp,
    ledger,
    mechanisms,
    negotiate,
    noise_reduction,
    r2dp,
    svt,
)

__all__ = [
    "audit",
    "deployments",
    "mechanisms",
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
