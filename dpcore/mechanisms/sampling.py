"""Outputs of each calibrated mechanism on two neighbouring inputs D and D′, for the privacy audit.

Every sampler draws n outputs per side through one ``numpy.random.Generator`` (vectorised) and says what the
mechanism claims (ε, δ) and what is known exactly about it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import _validate as _v
from dpcore import accounting, brdp, ldp, r2dp, svt

#: SVT-Exp stress pair (c = 1, two queries, threshold 0): D answers (6, 6)·Δ/ε, D′ = D + (Δ, −Δ). Found by exact
#: quadrature (svt.pattern_probability): the pattern (⊥, ⊤) has loss exactly ε₁ + ε₂ = ε with P ≈ 0.05.
SVT_OFFSETS = (6.0, 6.0)


@dataclass(frozen=True)
class AuditSettings:
    """The calibration an audit asks for (validated by the caller)."""

    epsilon: float
    delta: float
    sensitivity: float
    n: int
    theta: float  # BR-DP acceptance region
    epsilon_y_ratio: float  # BR-DP paper plan: ε_y = ratio·ε


@dataclass(frozen=True)
class Sample:
    """n outputs on D and on D′ with the claim and what the app knows exactly."""

    out_d: np.ndarray
    out_dprime: np.ndarray
    claimed_epsilon: float
    claimed_delta: float
    discrete: bool
    labels: tuple[str, ...] | None
    setting: str
    exact_delta: float = math.nan
    paper_delta: float = math.nan


def _at_the_claim(s: AuditSettings, out_d: np.ndarray, out_dprime: np.ndarray, setting: str, **known: float) -> Sample:
    """Real-valued outputs of a mechanism calibrated to the audit's own (ε, δ), which it therefore claims;
    ``known``: what is known exactly about it (``exact_delta``, ``paper_delta``)."""
    return Sample(out_d, out_dprime, s.epsilon, s.delta, False, None, setting, **known)


def sample_laplace(s: AuditSettings, g: np.random.Generator) -> Sample:
    b = accounting.laplace_scale(s.epsilon, sensitivity=s.sensitivity, delta=s.delta)
    return _at_the_claim(
        s,
        g.laplace(0.0, b, s.n),
        g.laplace(s.sensitivity, b, s.n),
        f"Laplace noise b = {b:.4g} on a true answer 0 vs Δ = {s.sensitivity:g}",
        exact_delta=float(accounting.laplace_delta(s.epsilon, scale=b, sensitivity=s.sensitivity)),
    )


def _need_delta(s: AuditSettings, what: str) -> None:
    if s.delta <= 0:
        raise ValueError(f"delta must be in (0, 1) for {what}, got 0")


def sample_gaussian(s: AuditSettings, g: np.random.Generator) -> Sample:
    _need_delta(s, "the Gaussian mechanism")
    sd = accounting.gaussian_sigma(s.epsilon, s.delta, sensitivity=s.sensitivity)
    return _at_the_claim(
        s,
        g.normal(0.0, sd, s.n),
        g.normal(s.sensitivity, sd, s.n),
        f"Gaussian noise σ = {sd:.4g} (analytic) on 0 vs Δ = {s.sensitivity:g}",
        exact_delta=float(accounting.gaussian_delta(s.epsilon, sigma=sd, sensitivity=s.sensitivity)),
    )


def _sample_brdp(s: AuditSettings, g: np.random.Generator, plan: brdp.BRDPPlan, who: str, paper: bool) -> Sample:
    kw: dict[str, Any] = dict(kernel="gaussian", scale=plan.scale, theta=s.theta, q=plan.q)
    x = brdp.sample_outputs(s.n, center=0.0, rng=g, **kw)
    y = brdp.sample_outputs(s.n, center=s.sensitivity, rng=g, **kw)
    setting = (
        f"BR-DP, Gaussian kernel σ = {plan.scale:.4g}, θ = {s.theta:g}, q = {plan.q:.4g} from {who}; "
        f"centre 0 vs Δ = {s.sensitivity:g}"
    )
    return _at_the_claim(
        s, x, y, setting, exact_delta=plan.exact_delta, paper_delta=plan.paper_delta if paper else math.nan
    )


def _brdp_calibration(s: AuditSettings) -> dict[str, Any]:
    """What a BR-DP plan of the audit is calibrated to: the setting's (ε, δ, Δ, θ), Gaussian kernel (δ > 0 checked)."""
    _need_delta(s, "BR-DP")
    return dict(epsilon=s.epsilon, delta=s.delta, sensitivity=s.sensitivity, theta=s.theta, kernel="gaussian")


def sample_brdp_exact(s: AuditSettings, g: np.random.Generator) -> Sample:
    plan = brdp.optimize(**_brdp_calibration(s), accountant="exact")
    return _sample_brdp(s, g, plan, "the exact accountant", paper=False)


def sample_brdp_paper(s: AuditSettings, g: np.random.Generator) -> Sample:
    plan = brdp.make_plan(**_brdp_calibration(s), epsilon_y=s.epsilon_y_ratio * s.epsilon)
    return _sample_brdp(s, g, plan, "the paper's accountant (Alg. 1)", paper=True)


def svt_outputs(answers, *, split: svt.BudgetSplit, correction: float, n: int, rng) -> np.ndarray:
    """n vectorised runs of SVT with cutoff c = 1 (no resampling, no appended answers, threshold 0): index of the
    first ⊤, or len(answers) when every query is ⊥ (the same law as ``svt.run_svt``, Liu et al. 2024, Alg. 2)."""
    q = _v.real_array("answers", answers, allow_inf=False)
    g = _v.rng(rng)
    rho = svt.sample_noise(split.threshold_noise, split.threshold_scale, n, g)
    v = svt.sample_noise(split.noise, split.query_scale, (n, q.size), g)
    top = q[None, :] + v >= rho[:, None] + correction
    return np.where(top.any(axis=1), top.argmax(axis=1), q.size)


def svt_setup(eps: float, sens: float) -> tuple[svt.BudgetSplit, float, np.ndarray, np.ndarray]:
    """Budget split, correction r and the stress pair of answers (D, D′) of the SVT audit at ε and Δ."""
    sp = svt.split_budget(eps, c=1, noise="exponential", sensitivity=sens)
    r = svt.correction_term(sp.threshold_scale, sp.query_scale, k=2).r  # run_svt's default k = ⌊n/c⌋ = 2
    a = np.asarray(SVT_OFFSETS) * sens / eps
    return sp, r, a, a + sens * np.array([1.0, -1.0])


def sample_svt_exp(s: AuditSettings, g: np.random.Generator) -> Sample:
    sp, r, a, a2 = svt_setup(s.epsilon, s.sensitivity)
    x = svt_outputs(a, split=sp, correction=r, n=s.n, rng=g)
    y = svt_outputs(a2, split=sp, correction=r, n=s.n, rng=g)
    setting = (
        f"SVT with exponential noise, c = 1, threshold 0, correction r = {r:.3g}; answers D = ({a[0]:.3g}, "
        f"{a[1]:.3g}) vs D′ = ({a2[0]:.3g}, {a2[1]:.3g}) (one up, one down: the non-monotonic worst case)"
    )
    return Sample(x, y, sp.total_epsilon(), 0.0, True, ("⊤ at query 1", "⊤ at query 2", "no ⊤"), setting)


def sample_r2dp(s: AuditSettings, g: np.random.Generator) -> Sample:
    law = r2dp.Gamma(2.0, float(r2dp.gamma_theta_for_epsilon(2.0, epsilon=s.epsilon, sensitivity=s.sensitivity)))
    x = r2dp.sample_noise(s.n, law, g)
    y = s.sensitivity + r2dp.sample_noise(s.n, law, g)
    setting = (
        f"R²DP, inverse Laplace scale 1/b ~ Gamma(k = 2, θ = {law.theta:.4g}), noise on 0 vs Δ = {s.sensitivity:g}"
    )
    return Sample(x, y, r2dp.epsilon(law, sensitivity=s.sensitivity), 0.0, False, None, setting)


def sample_rr(s: AuditSettings, g: np.random.Generator) -> Sample:
    table = ldp.randomized_response(s.epsilon)
    p = table.probabilities
    x = (g.random(s.n) < p[0, 1]).astype(float)
    y = (g.random(s.n) < p[1, 1]).astype(float)
    return Sample(
        x,
        y,
        table.epsilon,
        0.0,
        True,
        ("report 0", "report 1"),
        f"binary randomized response, keep the truth w.p. {p[0, 0]:.4g}; x = 0 vs x = 1",
    )
