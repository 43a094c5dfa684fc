"""A stakeholder's accuracy requirement: what "accurate enough" means, in one validated object.

Three kinds:

* ``"error"``: P(|output − true| ≤ θ) ≥ p, an absolute error bound θ with confidence p;
* ``"relative"``: the same with θ = α·|x| for a true value x (relative error α);
* ``"topc"``: the sparse vector technique's success probability (Liu et al. 2024, Eq. 8, with one shared
  threshold noise): k queries θ below the threshold are all rejected and the next one θ above it is accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dpcore import _validate as _v

__all__ = ["REQUIREMENTS", "Requirement", "make_requirement"]

REQUIREMENTS = ("error", "relative", "topc")


@dataclass(frozen=True)
class Requirement:
    """A stakeholder's accuracy requirement (validated by :func:`make_requirement`)."""

    kind: str
    theta: float  # error bound (kind "error"), SVT margin (kind "topc")
    confidence: float  # p: probability the bound must hold with / SVT success probability
    sensitivity: float
    delta: float  # δ for the Gaussian and BR-DP rows
    alpha: float  # relative error (kind "relative")
    value: float  # |x|, the true value the relative error refers to
    c: int  # SVT cutoff
    k: int  # SVT: queries below the threshold before each one above
    kernel: Literal["gaussian", "laplace"]  # BR-DP kernel
    cap: float  # largest ε considered

    @property
    def bound(self) -> float:
        """The absolute error bound the noise-adding mechanisms must meet: θ, or α|x| for a relative error."""
        return self.alpha * self.value if self.kind == "relative" else self.theta

    @property
    def bound_text(self) -> str:
        """The bound in words: "±2" or "±2 (= 0.1·20)" for a relative error."""
        extra = f" (= {self.alpha:g}·{self.value:g})" if self.kind == "relative" else ""
        return f"±{self.bound:.4g}{extra}"


def make_requirement(
    *,
    requirement: str = "error",
    theta: float = 1.0,
    confidence: float = 0.95,
    sensitivity: float = 1.0,
    delta: float = 1e-5,
    alpha: float = 0.1,
    value: float = 100.0,
    c: int = 1,
    k: int = 50,
    kernel: str = "gaussian",
    cap: float = 50.0,
) -> Requirement:
    """Validate and bundle a requirement (see the module docstring for the three kinds)."""
    return Requirement(
        kind=_v.choice("requirement", requirement, REQUIREMENTS),
        theta=_v.scale("theta", theta, low=1e-6, high=1e6),
        confidence=_v.probability("confidence", confidence, low_open=True, high_open=True),
        sensitivity=_v.scale("sensitivity", sensitivity, low=1e-6, high=1e6),
        delta=_v.real("delta", delta, low=1e-300, high=1.0, high_open=True),
        alpha=_v.real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True),
        value=_v.scale("value", value, low=1e-6, high=1e12),
        c=_v.integer("c", c, low=1, high=10_000),
        k=_v.integer("k", k, low=1, high=1_000_000),
        kernel=_v.choice("kernel", kernel, ("gaussian", "laplace")),
        cap=_v.real("cap", cap, low=1e-3, high=1000.0),
    )
