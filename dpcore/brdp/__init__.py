"""Budget Recycling Differential Privacy (BR-DP): Jiang, Du, Sharma & Yan 2024 (step 1 of the split: the
module moved as is; the next commit splits it along the paper's sections)."""

from dpcore.brdp.exact_accountant import *  # noqa: F401,F403
from dpcore.brdp.exact_accountant import (  # noqa: F401
    Kernel, MAX_GRID, MAX_PLD_POINTS, MAX_SAMPLES, MAX_SHIFTS, MIN_TAIL_MASS, __all__,
    _alg2, _analytic_mu_s, _calibrate, _exact_core, _exact_opt, _exact_q_fn, _kernel_eps_for_delta,
    _largest_exact_q, _loss_survival, _mass, _pieces, _pld_epsilon, _threshold,
)
