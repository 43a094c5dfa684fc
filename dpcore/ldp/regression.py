"""Regression queries released through the two-point mechanism, as DC functions (Pan 2023, Sec. 5.3, Eq. 20).

Linear, truncated linear and logistic regressions; each output's ``ln Pr[y|x]`` is a scalar function of an affine
score ``z = a·x + c`` written as a difference of convex functions ``g − h`` (Sec. 5.2–5.3, App. D).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dpcore import _validate as _v
from dpcore.ldp.mechanisms import _interval, _two_point_high

_KINDS = ("linear", "truncated", "logistic")


def _softplus(u: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, u)


@dataclass(frozen=True, eq=False)
class RegressionTerm:
    """One accepted regression output as a function of x: ``ln Pr[y|x] = f(z)``, ``z = a·x + c`` (Sec. 5.3).

    * linear: z = Pr[y|x] (affine in x), f = ln z; DC: g = 0, h = −ln z.
    * truncated: z as linear, f = ln clip(z, c1, c2); DC: g = max(0, z/c1 − 1), h = g − f (the paper states
      only that a convex split exists; this one has h' = 0, then 1/c1 − 1/z, then 1/c1: non-decreasing).
    * logistic: z = θ·x̃, f = sp(z + c_y) − sp(z) + d_y; DC: g = sp(z + c_y) + d_y, h = sp(z).
    """

    kind: str
    a: np.ndarray
    c: float
    epsilon: float
    output: int  # 0 = low output, 1 = high output

    @property
    def c1(self) -> float:
        return float(special.expit(-self.epsilon))

    @property
    def c2(self) -> float:
        return float(special.expit(self.epsilon))

    @property
    def cy(self) -> float:
        return self.epsilon if self.output == 1 else -self.epsilon

    @property
    def dy(self) -> float:
        base = -float(np.logaddexp(0.0, self.epsilon))
        return base if self.output == 1 else self.epsilon + base

    def z(self, x: Any) -> np.ndarray:
        return np.asarray(x, dtype=float) @ self.a + self.c

    def log_prob_z(self, z: Any) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        if self.kind == "logistic":
            return _softplus(z + self.cy) - _softplus(z) + self.dy
        if self.kind == "truncated":
            return np.log(np.clip(z, self.c1, self.c2))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(z > 0, np.log(np.where(z > 0, z, 1.0)), -np.inf)

    def log_prob(self, x: Any) -> np.ndarray:
        """``ln Pr[y | x]`` at points x (shape (..., d))."""
        return self.log_prob_z(self.z(x))

    def dc_g(self, z: Any) -> np.ndarray:
        """Convex g of the DC split f = g − h (Sec. 5.3)."""
        z = np.asarray(z, dtype=float)
        if self.kind == "logistic":
            return _softplus(z + self.cy) + self.dy
        if self.kind == "truncated":
            return np.maximum(0.0, z / self.c1 - 1.0)
        return np.zeros_like(z)

    def dc_h(self, z: Any) -> np.ndarray:
        """Convex h of the DC split f = g − h (Sec. 5.3)."""
        z = np.asarray(z, dtype=float)
        if self.kind == "logistic":
            return _softplus(z)
        return self.dc_g(z) - self.log_prob_z(z)


@dataclass(frozen=True, eq=False)
class RegressionQuery:
    """A regression released through Eq. 5: v(x) = θ₀ + θ_{1:}·x (linear), clipped (truncated) or σ(·)."""

    kind: str
    theta: np.ndarray
    epsilon: float
    low: float
    high: float

    @property
    def outputs(self) -> tuple[float, float]:
        return (self.low, self.high)

    @property
    def dimension(self) -> int:
        return int(self.theta.size - 1)

    def value(self, x: Any) -> np.ndarray:
        t = np.asarray(x, dtype=float) @ self.theta[1:] + self.theta[0]
        if self.kind == "logistic":
            return special.expit(t)
        if self.kind == "truncated":
            return np.clip(t, self.low, self.high)
        return t

    def term(self, output: Any) -> RegressionTerm:
        """The log-likelihood term of one output (0/``low`` or 1/``high``)."""
        if output == self.high:
            j = 1
        elif output == self.low:
            j = 0
        elif output in (0, 1):
            j = int(output)
        else:
            raise ValueError(f"output must be 0, 1, {self.low} or {self.high}, got {output!r}")
        if self.kind == "logistic":
            return RegressionTerm("logistic", self.theta[1:].copy(), float(self.theta[0]), self.epsilon, j)
        kappa = math.tanh(self.epsilon / 2) / (self.high - self.low)
        c1 = float(special.expit(-self.epsilon))
        if j == 1:
            a, c = kappa * self.theta[1:], c1 + kappa * (self.theta[0] - self.low)
        else:
            a, c = -kappa * self.theta[1:], (1 - c1) - kappa * (self.theta[0] - self.low)
        return RegressionTerm(self.kind, np.asarray(a, dtype=float), float(c), self.epsilon, j)

    def sample(self, x: Any, rng: np.random.Generator | int | None = None) -> int:
        """Run the query on x; returns the output index (0 = low, 1 = high)."""
        gen = _v.rng(rng)
        v = float(self.value(np.asarray(x, dtype=float)))
        return int(gen.random() < _two_point_high(np.asarray(v), self.low, self.high, self.epsilon))


def _regression_query(kind: str, theta: Any, epsilon: float, low: float, high: float) -> RegressionQuery:
    th = _v.real_array("theta", theta, allow_inf=False)
    if th.ndim != 1 or th.size < 2:
        raise ValueError("theta must be a 1-D array (intercept, weights…) with at least 2 entries")
    eps = _v.positive("epsilon", epsilon)
    lo, hi = _interval(low, high)
    th = th.copy()
    th.setflags(write=False)
    return RegressionQuery(kind, th, eps, lo, hi)


def linear_regression_query(theta: Any, *, epsilon: float, low: float = -1.0, high: float = 1.0) -> RegressionQuery:
    """Linear regression ``v = θ₀ + θ_{1:}·x`` through Eq. 5 on [low, high] (Sec. 5.3 (a))."""
    return _regression_query("linear", theta, epsilon, low, high)


def truncated_regression_query(theta: Any, *, epsilon: float, low: float, high: float) -> RegressionQuery:
    """Truncated linear regression ``v = clip(θ·x̃, low, high)`` through Eq. 5 (Sec. 5.3 (b), Eq. 20)."""
    return _regression_query("truncated", theta, epsilon, low, high)


def logistic_regression_query(theta: Any, *, epsilon: float) -> RegressionQuery:
    """Logistic regression ``v = σ(θ·x̃)`` through Eq. 5 on [0, 1] (Sec. 5.3 (c))."""
    return _regression_query("logistic", theta, epsilon, 0.0, 1.0)


class _Stack:
    """Vectorised evaluation of k regression terms (internal)."""

    def __init__(self, terms: Sequence[RegressionTerm]) -> None:
        self.A = np.array([t.a for t in terms], dtype=float)
        self.c = np.array([t.c for t in terms], dtype=float)
        kinds = np.array([_KINDS.index(t.kind) for t in terms])
        self.lin = kinds == 0
        self.tru = kinds == 1
        self.log = kinds == 2
        eps = np.array([t.epsilon for t in terms])
        self.c1 = special.expit(-eps)
        self.c2 = special.expit(eps)
        out = np.array([t.output for t in terms])
        self.cy = np.where(out == 1, eps, -eps)
        self.dy = -np.logaddexp(0.0, eps) + np.where(out == 1, 0.0, eps)
        self.eps = eps
        self.any_lin, self.any_tru, self.any_log = (
            bool(self.lin.any()),
            bool(self.tru.any()),
            bool(self.log.any()),
        )
        self.only_logistic = bool(self.log.all())

    def f(self, z: np.ndarray) -> np.ndarray:
        """ln Pr per term, z shape (..., k)."""
        if self.only_logistic:  # fast path: the logistic branch below on every column
            return _softplus(z + self.cy) - _softplus(z) + self.dy
        out = np.empty_like(z)
        zl = z[..., self.lin]
        with np.errstate(divide="ignore", invalid="ignore"):
            out[..., self.lin] = np.where(zl > 0, np.log(np.where(zl > 0, zl, 1.0)), -np.inf)
        out[..., self.tru] = np.log(np.clip(z[..., self.tru], self.c1[self.tru], self.c2[self.tru]))
        zg = z[..., self.log]
        out[..., self.log] = _softplus(zg + self.cy[self.log]) - _softplus(zg) + self.dy[self.log]
        return out

    def concave_part(self, z: np.ndarray, sign: int) -> np.ndarray:
        """V of :meth:`parts` alone (the same values; branching needs only V)."""
        if self.only_logistic:
            return np.logaddexp(0.0, z) if sign > 0 else np.logaddexp(0.0, z + self.cy) + self.dy
        return self.parts(z, sign)[2]

    def convex(self, z: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray]:
        """(C, C') of :meth:`parts` without V (the same values; the B&B subproblem needs only these)."""
        if self.only_logistic:
            if sign > 0:
                u = z + self.cy
                return np.logaddexp(0.0, u) + self.dy, special.expit(u)
            return np.logaddexp(0.0, z), special.expit(z)
        cc, dc, _ = self.parts(z, sign)
        return cc, dc

    def parts(self, z: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(C, C', V) of ``sign·f = C − V`` with C, V convex (Sec. 5.2: g, h swapped for sign −1); z shape (k,) or (n,
        k)."""
        if self.only_logistic:  # fast path: g = sp(z + c_y) + d_y, h = sp(z)
            u = z + self.cy
            g = np.logaddexp(0.0, u) + self.dy
            dg = special.expit(u)
            h = np.logaddexp(0.0, z)
            if sign > 0:
                return g, dg, h
            return h, special.expit(z), g
        g = np.zeros_like(z)
        dg = np.zeros_like(z)
        h = np.zeros_like(z)
        dh = np.zeros_like(z)
        if self.any_lin:  # linear: g = 0, h = -ln z (z > 0 is checked by the caller)
            zl = z[..., self.lin]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # subnormal z: −1/z = −inf
                h[..., self.lin] = -np.log(zl)
                dh[..., self.lin] = -1.0 / zl
        if self.any_tru:  # truncated: g = max(0, z/c1 - 1), h = g - ln clip(z, c1, c2)
            zt = z[..., self.tru]
            c1, c2 = self.c1[self.tru], self.c2[self.tru]
            gt = np.maximum(0.0, zt / c1 - 1.0)
            g[..., self.tru] = gt
            dgt = (zt > c1) / c1
            dg[..., self.tru] = dgt
            h[..., self.tru] = gt - np.log(np.clip(zt, c1, c2))
            inside = (zt > c1) & (zt < c2)
            dh[..., self.tru] = dgt - np.where(inside, 1.0 / np.where(inside, zt, 1.0), 0.0)
        if self.any_log:  # logistic
            zg = z[..., self.log]
            cy = self.cy[self.log]
            g[..., self.log] = _softplus(zg + cy) + self.dy[self.log]
            dg[..., self.log] = special.expit(zg + cy)
            h[..., self.log] = _softplus(zg)
            dh[..., self.log] = special.expit(zg)
        if sign > 0:
            return g, dg, h
        return h, dh, g
