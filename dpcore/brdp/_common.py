"""Shared constants and argument checks of the BR-DP package (Jiang, Du, Sharma & Yan 2024, "Budget Recycling
Differential Privacy", arXiv:2403.11445).

Notation throughout the package: ``scale`` is the kernel's σ (Gaussian) or b (Laplace), ``sensitivity`` is Δ_f,
and an output is acceptable when ``|y_n - y| <= theta`` (the paper's τ_u = θ, τ_l = -θ).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from dpcore import _validate as _v
from dpcore import accounting as _acct

Kernel = Literal["gaussian", "laplace"]
_KERNELS: tuple[Kernel, ...] = ("gaussian", "laplace")
_SQRT2 = math.sqrt(2.0)
#: Size limits, far above what the app uses (≤ 2·10⁵ draws, 200 shifts, T ≤ 1000, landscapes of ≤ 100 points,
#: loss pictures of ~300 points, PLD grids of ~10⁵ points): explicit ValueErrors instead of MemoryErrors.
MAX_SAMPLES = 100_000_000
MAX_SHIFTS = 100_000
MAX_GRID = 1_000_000
#: Most loss-grid points of :func:`exact_pld` ((upper - lower loss)/h; 10⁷ float64 = 80 MB per array).
MAX_PLD_POINTS = 10_000_000
#: Smallest tail_mass_truncation of :func:`exact_pld` (its quantile -Φ⁻¹(t/4) must stay finite).
MIN_TAIL_MASS = 1e-300
#: Most points of the T-fold loss grid of an exact composition (2^22: FFT arrays of ~64 MB each).  Beyond it the
#: single-release loss grid is coarsened (see :func:`dpcore.brdp.composition.composition_interval`).
MAX_COMPOSED_POINTS = 2**22
#: Relative margin of the exact optimiser's budget test, which could only ever refuse more: a plan is accepted iff
#: its reported exact δ (rounded up by a bound on its round-off, :func:`dpcore.brdp.exact_delta`) is
#: ≤ δ·(1 − _BUDGET_MARGIN). Zero: the comparison is exact.
_BUDGET_MARGIN = 0.0


def _kernel(kernel: Any) -> Kernel:
    return _v.choice("kernel", kernel, _KERNELS)


def _scale(scale: Any) -> float:
    return _v.scale("scale", scale)


def _theta(theta: Any) -> float:
    return _v.scale("theta", theta)


def _q(q: Any) -> float:
    return _v.probability("q", q)


def _sens(sensitivity: Any) -> float:
    return _v.scale("sensitivity", sensitivity)


def _delta(delta: Any) -> float:
    return _v.probability("delta", delta, low_open=True, high_open=True)


def _eps_pos(epsilon: Any) -> float:
    # every caller calibrates a kernel at epsilon (or eps_y <= epsilon): accounting's calibration limit
    return _v.bounded("epsilon", epsilon, low=0.0, low_open=True, cap=_acct.MAX_CALIBRATION_EPSILON)


def _eps_y(epsilon_y: Any, epsilon: float) -> float:
    e = _v.positive("epsilon_y", epsilon_y)
    if e > epsilon * (1 + 1e-12):
        raise ValueError(f"epsilon_y must be in (0, epsilon] = (0, {epsilon:g}], got {epsilon_y!r}")
    return min(e, epsilon)
