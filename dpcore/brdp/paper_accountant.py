"""The paper's BR-DP accountant (Jiang et al. 2024, Sec. 4: Thm. 1, Prop. 2, Thm. 2, Alg. 1).

The paper models the BR-DP privacy loss as the kernel's loss Z plus an independent extra loss L = -ln(1 - q)
that occurs with probability W (Eq. 7), giving δ_Γ(ε) of Eq. (8), and finds q by bisection (Alg. 1).  That
mixture is **not** a valid bound in general: it ignores that the extra loss happens exactly where Z is moderate,
measures W under the kernel's law instead of BR-DP's, and ignores the region where the loss is -L.  It can
under-report δ by orders of magnitude (see :mod:`dpcore.brdp.exact_accountant` and ``docs/errata.md``).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from dpcore import _validate as _v
from dpcore.brdp._common import Kernel, _delta, _eps_pos, _eps_y, _kernel, _q, _scale, _sens, _theta
from dpcore.brdp.calibration import _calibrate, _kernel_eps_for_delta
from dpcore.brdp.kernels import _profile, _profile_s, _profile_scales, _w


def baseline_q(epsilon: float, epsilon_y: float) -> float:
    """Baseline recycling probability q_base = 1 - exp(-(epsilon - epsilon_y)) (Thm. 2 / Remark 1).

    The paper's proof of Thm. 2 has one inequality reversed and holds for probabilistic DP only; the rigorous
    guarantee of the kernel at (eps_y, delta) with q_base is (eps, delta/(1 - pbar q))-DP.
    """
    e = _v.positive("epsilon", epsilon)  # no calibration here: any finite epsilon
    ey = _eps_y(epsilon_y, e)
    return float(-math.expm1(-(e - ey)))


def recycling_loss(q: float) -> float:
    """Extra privacy loss L = -ln(1 - q) of the recycler (eq. 6); inf at q = 1."""
    q = _q(q)
    return math.inf if q >= 1 else -math.log1p(-q)


def paper_w(*, kernel: Kernel, scale: float, theta: float, sensitivity: float) -> float:
    """W of eq. (7): kernel probability of being in-bound for X and out-of-bound for X' (Thm. 1).

    With tau = +-theta, (7) and (14) agree and W = F(min(D - theta, theta)) - F(-theta).
    """
    return _w(_kernel(kernel), _scale(scale), _theta(theta), _sens(sensitivity))


def _paper_delta(kernel: str, eps: Any, s: float, theta: float, q: float, d: float) -> np.ndarray:
    w = _w(kernel, s, theta, d)
    big_l = math.inf if q >= 1 else -math.log1p(-q)
    return np.clip((1 - w) * _profile(kernel, eps, s, d) + w * _profile(kernel, eps - big_l, s, d), 0.0, 1.0)


def _paper_delta_scales(kernel: str, eps: float, s: np.ndarray, theta: float, q: np.ndarray, d: float) -> np.ndarray:
    """:func:`_paper_delta` at one eps for many (scale, q) pairs at once (Prop. 2, eq. 8): W and L per pair as
    there, the two kernel profiles in one vectorised call each (the same floating-point operations)."""
    w = np.array([_w(kernel, float(si), theta, d) for si in s])
    big_l = np.array([math.inf if qi >= 1 else -math.log1p(-qi) for qi in q])
    e = np.float64(eps)
    mixture = (1 - w) * _profile_scales(kernel, e, s, d) + w * _profile_scales(kernel, e - big_l, s, d)
    return np.clip(mixture, 0.0, 1.0)


def paper_delta(
    epsilon: Any, *, kernel: Kernel, scale: float, theta: float, q: float, sensitivity: float
) -> np.ndarray | float:
    """The paper's BR-DP privacy profile (Prop. 2, eq. 8): (1 - W) delta_Z(eps) + W delta_Z(eps - L).

    Printed with ">=", used as the accountant's value (the profile itself).
    NOT a valid bound in general (see :mod:`dpcore.brdp.exact_accountant`).
    """
    kernel = _kernel(kernel)
    s, th, q, d = _scale(scale), _theta(theta), _q(q), _sens(sensitivity)
    eps = _v.real_array("epsilon", epsilon)
    out = _paper_delta(kernel, eps, s, th, q, d)
    return float(out) if out.ndim == 0 else out


def _alg1(
    kernel: str, eps: float, delta: float, s: float, d: float, theta: float, tol: float, dz: float | None = None
) -> float:
    """Alg. 1 solved in closed form / by one root-find: the largest q with (8) <= delta.

    ``dz``: the kernel's delta_Z(eps), if the caller already has it."""
    w = _w(kernel, s, theta, d)
    if dz is None:
        dz = _profile_s(kernel, eps, s, d)
    if w <= 0:
        return 1.0 if dz <= delta else 0.0
    t = (delta - (1 - w) * dz) / w  # needed delta_Z(eps - L)
    if t >= 1:
        return 1.0
    if t < 0:
        return 0.0
    x = _kernel_eps_for_delta(kernel, t, s, d)
    big_l = eps - x
    if big_l <= 0:
        return 0.0
    q = float(-math.expm1(-big_l))

    def d_of(qq: float) -> float:  # the value paper_delta reports (its outward-rounded kernel profile)
        return float(_paper_delta(kernel, np.float64(eps), s, theta, qq, d))

    step = max(tol, 1e-15)
    while q > 0 and d_of(q) > delta:  # stay on the feasible side, as Alg. 1 returns q_lo
        q = max(0.0, q - step)
        step *= 2
    return q


def paper_q(
    *,
    epsilon: float,
    delta: float,
    epsilon_y: float,
    sensitivity: float,
    theta: float,
    kernel: Kernel,
    calibration: Literal["analytic", "classic"] = "analytic",
    tol: float = 1e-10,
    delta_y: float | None = None,
) -> float:
    """Alg. 1: largest q with the paper's delta_Gamma(epsilon) <= delta for a kernel at (epsilon_y, delta_y).

    delta_Gamma is nondecreasing in q, so Alg. 1's bisection and this root-find agree; the returned q
    is on the feasible side (q_lo).  ``delta_y`` (Alg. 1's input δ_y) defaults to delta, the choice of the paper's
    figures; q = 1 is allowed (L = inf, delta_Z(-inf) = 1).
    """
    kernel = _kernel(kernel)
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    ey = _eps_y(epsilon_y, e)
    d, th = _sens(sensitivity), _theta(theta)
    calibration = _v.choice("calibration", calibration, ("analytic", "classic"))
    tol = _v.positive("tol", tol)
    dy = dl if delta_y is None else _v.probability("delta_y", delta_y, low_open=True, high_open=True)
    s = _calibrate(kernel, ey, dy, d, calibration)
    return _alg1(kernel, e, dl, s, d, th, tol)


def objective(p_theta: float, q: float, *, variant: Literal["corrected", "as_printed"] = "corrected") -> float:
    """Alg. 2 objective: corrected O = q + (1 - q)/p_theta = 1/acceptance; printed eq. (10)
    O = 1 - q + q/p_theta only with ``variant="as_printed"`` (an algebra error)."""
    p = _v.probability("p_theta", p_theta, low_open=True)
    q = _q(q)
    variant = _v.choice("variant", variant, ("corrected", "as_printed"))
    return q + (1 - q) / p if variant == "corrected" else 1 - q + q / p
