"""Calibration, privacy profiles δ(ε), composition and conversions: the sound accountants every paper page
compares against.

Modules, one idea each (everything is re-exported here, so ``from dpcore.accounting import gaussian_delta`` works):

* :mod:`~dpcore.accounting.gaussian`: the Gaussian mechanism; exact δ(ε) (Balle & Wang 2018, Thm 8), analytic
  and classic calibration, closed-form T-fold composition, its zCDP parameter.
* :mod:`~dpcore.accounting.laplace`: the Laplace mechanism; calibration with the tight ε′ = ε − 2 ln(1 − δ),
  exact δ(ε) of one release, T-fold composition through a privacy-loss distribution on an adaptive grid.
* :mod:`~dpcore.accounting.pld`: privacy-loss distributions; fast vectorised profiles, their inversion, T-fold
  self-composition, generic PLD composition (:func:`pld_delta`) and PLD constructors.
* :mod:`~dpcore.accounting.zcdp`: zCDP ↔ (ε, δ), tight (Canonne, Kamath & Steinke 2020, Cor. 13) and
  Bun & Steinke 2016 (Prop. 1.3).
* :mod:`~dpcore.accounting.posterior`: the largest posterior an ε-DP answer allows.

Google's ``dp_accounting`` is imported in one place only (:mod:`dpcore.accounting._dp_accounting`), behind a
version check.
"""

from dpcore.accounting.gaussian import (
    MAX_CALIBRATION_EPSILON,
    analytic_mu,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_log_delta,
    gaussian_log_delta_scalar,
    gaussian_rho,
    gaussian_sigma,
)
from dpcore.accounting.laplace import (
    MAX_PLD_EPSILON0,
    laplace_delta,
    laplace_delta_single,
    laplace_discretization,
    laplace_eps0,
    laplace_epsilon,
    laplace_scale,
)
from dpcore.accounting.pld import (
    MAX_PLD_COMPOSITIONS,
    PLD_DISCRETIZATION,
    PrivacyLossDistribution,
    epsilon_for_delta,
    invert_profile,
    pld_delta,
    pld_from_dense_pmf,
    pld_from_epsilon_delta,
    pld_gaussian,
    pld_laplace,
    pld_profile,
    self_compose,
)
from dpcore.accounting.posterior import posterior_bound
from dpcore.accounting.zcdp import dp_to_zcdp, dp_to_zcdp_bun_steinke, zcdp_to_dp, zcdp_to_dp_bun_steinke

__all__ = [
    "MAX_CALIBRATION_EPSILON",
    "MAX_PLD_COMPOSITIONS",
    "MAX_PLD_EPSILON0",
    "PLD_DISCRETIZATION",
    "PrivacyLossDistribution",
    "analytic_mu",
    "dp_to_zcdp_bun_steinke",
    "gaussian_log_delta",
    "gaussian_log_delta_scalar",
    "invert_profile",
    "laplace_delta_single",
    "laplace_eps0",
    "laplace_discretization",
    "pld_from_dense_pmf",
    "pld_from_epsilon_delta",
    "pld_gaussian",
    "pld_laplace",
    "self_compose",
    "zcdp_to_dp_bun_steinke",
    "gaussian_sigma",
    "laplace_scale",
    "gaussian_delta",
    "laplace_delta",
    "gaussian_epsilon",
    "laplace_epsilon",
    "epsilon_for_delta",
    "pld_delta",
    "pld_profile",
    "zcdp_to_dp",
    "dp_to_zcdp",
    "gaussian_rho",
    "posterior_bound",
]
