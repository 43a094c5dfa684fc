"""What an ε-DP answer can teach an observer: the largest posterior belief reachable from a prior."""

from __future__ import annotations

import numpy as np
from scipy import special

from dpcore import _validate as _v
from dpcore.accounting._util import FloatOrArray
from dpcore.accounting._util import out_value as _out

__all__ = ["posterior_bound"]


def posterior_bound(prior: FloatOrArray, epsilon: float) -> FloatOrArray:
    """Largest posterior an observer can reach from ``prior`` after seeing any output of an ε-DP mechanism.

    ε-DP bounds the likelihood ratio of any output by e^ε, so posterior odds ≤ e^ε · prior odds:
    p′ ≤ p e^ε / (p e^ε + 1 − p). Computed as a logistic function of log-odds for stability; vectorised over p.
    """
    p = _v.real_array("prior", prior, low=0.0, high=1.0)
    e = _v.nonnegative("epsilon", epsilon, allow_inf=True)
    with np.errstate(divide="ignore"):
        log_odds = np.log(p) - np.log1p(-p)
    return _out(special.expit(log_odds + e))
