"""Auditing a mechanism's claim: its outputs on neighbouring inputs, the lower bounds against the claimed (ε, δ) and
the verdict, for one mechanism or every one (with BR-DP calibrated by the paper's accountant where it fails)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore import mechanisms as _reg
from dpcore.audit.bounds import EventBound, _alpha, _bound, _prepare
from dpcore.mechanisms import sampling as _s

#: Every mechanism with an audit sampler (ids of :mod:`dpcore.mechanisms`; "brdp_exact" is accepted for "brdp").
MECHANISMS = _reg.ids_for("audit")

#: BR-DP calibrated by the paper's accountant where it fails (docs/errata.md): Alg. 1 returns q = 1, the paper's
#: δ is 6.7e-4, the exact δ is 1 (θ = 0.1 < Δ/2 and q = 1: the two output laws have disjoint supports). Gaussian
#: kernel.
COUNTEREXAMPLE = {"epsilon": 0.1, "delta": 1e-3, "theta": 0.1, "sensitivity": 5.0, "epsilon_y": 0.06}
#: A second one: q = 0.9855, exact δ = 7.5e-6 against the claimed 1e-8.
SECOND_COUNTEREXAMPLE = {"epsilon": 5.0, "delta": 1e-8, "theta": 3.0, "sensitivity": 0.2, "epsilon_y": 1.5}
#: How the extra row of :func:`audit_table` is labelled.
COUNTEREXAMPLE_SETTINGS = "the paper's accountant where it fails"


@dataclass(frozen=True)
class MechanismPair:
    """n outputs of one mechanism on D and on D′, with the privacy it claims and what is known exactly."""

    mechanism: str
    out_d: np.ndarray = field(repr=False)
    out_dprime: np.ndarray = field(repr=False)
    claimed_epsilon: float
    claimed_delta: float
    discrete: bool
    labels: tuple[str, ...] | None  # category names of discrete outputs
    setting: str  # plain-language description of the neighbouring inputs and calibration
    exact_delta: float  # exact δ at the claimed ε where the app knows it (nan otherwise)
    paper_delta: float  # the paper accountant's δ at the claimed ε (BR-DP paper plan only; nan otherwise)


_svt_setup = _s.svt_setup  # (split, correction, answers on D, answers on D′) of the SVT audit


def sample_pair(
    mechanism: str,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    n: int,
    rng: np.random.Generator | int | None = None,
    theta: float = 1.0,
    epsilon_y_ratio: float = 0.6,
) -> MechanismPair:
    """n outputs per side of a calibrated mechanism on neighbouring inputs (vectorised).

    laplace / gaussian: 0 vs Δ with b = laplace_scale, σ = gaussian_sigma (analytic); brdp / brdp_paper:
    BR-DP with a Gaussian kernel (brdp.optimize with the exact accountant / Alg. 1's q at ε_y = ratio·ε), centre
    0 vs Δ; svt_exp: SVT with exponential noise (c = 1, Alg. 2 calibration) on the stress pair SVT_OFFSETS;
    r2dp: Gamma(k = 2) mixing law at exact ε; rr: binary randomized response, x = 0 vs x = 1. The samplers live
    in :mod:`dpcore.mechanisms.sampling`.
    """
    m = _reg.get(_reg.canonical(mechanism, among=MECHANISMS))
    settings = _s.AuditSettings(
        epsilon=_v.positive("epsilon", epsilon),
        delta=_v.probability("delta", delta, high_open=True),
        sensitivity=_v.positive("sensitivity", sensitivity),
        n=_v.integer("n", n, low=4, high=50_000_000),
        theta=_v.positive("theta", theta),
        epsilon_y_ratio=_v.real("epsilon_y_ratio", epsilon_y_ratio, low=0.0, high=1.0, low_open=True),
    )
    assert m.sample is not None  # the audit's mechanisms are those with a sampler
    out = m.sample(settings, _v.rng(rng))
    return MechanismPair(
        m.id,
        np.asarray(out.out_d, float),
        np.asarray(out.out_dprime, float),
        float(out.claimed_epsilon),
        float(out.claimed_delta),
        out.discrete,
        out.labels,
        out.setting,
        float(out.exact_delta),
        float(out.paper_delta),
    )


@dataclass(frozen=True)
class AuditResult:
    """Claim, Monte-Carlo lower bounds and verdict of one audit (false-alarm probability ≤ ``alpha``)."""

    mechanism: str
    claimed_epsilon: float
    claimed_delta: float
    epsilon_bound: EventBound  # ε_lb at the claimed δ (level α/2)
    delta_bound: EventBound  # δ_lb at the claimed ε (level α/2)
    alpha: float
    n: int
    setting: str
    exact_delta: float
    paper_delta: float

    @property
    def epsilon_lb(self) -> float:
        return self.epsilon_bound.epsilon_lb

    @property
    def delta_lb(self) -> float:
        return self.delta_bound.delta_lb

    @property
    def caught(self) -> bool:
        """True when either bound beats the claim (relative tolerance 1e-9)."""
        return (
            self.epsilon_lb > self.claimed_epsilon * (1 + 1e-9)
            or self.delta_lb > self.claimed_delta * (1 + 1e-9) + 1e-15
        )

    @property
    def verdict(self) -> str:
        return "VIOLATION: the claim is beaten" if self.caught else "consistent"


def audit_pair(pair: MechanismPair, *, alpha: float = 0.05, bins: int = 100) -> AuditResult:
    """Audit sampled outputs: ε_lb at the claimed δ and δ_lb at the claimed ε, each at level α/2 (Bonferroni)."""
    a = _alpha(alpha)
    prep = _prepare(pair.out_d, pair.out_dprime, bins=bins, discrete=pair.discrete)
    eb = _bound(prep, target="epsilon", epsilon=math.nan, delta=pair.claimed_delta, alpha=a / 2, labels=pair.labels)
    db = _bound(prep, target="delta", epsilon=pair.claimed_epsilon, delta=0.0, alpha=a / 2, labels=pair.labels)
    return AuditResult(
        pair.mechanism,
        pair.claimed_epsilon,
        pair.claimed_delta,
        eb,
        db,
        a,
        int(pair.out_d.size),
        pair.setting,
        pair.exact_delta,
        pair.paper_delta,
    )


def audit(
    mechanism: str,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    n: int,
    rng: np.random.Generator | int | None = None,
    alpha: float = 0.05,
    bins: int = 100,
    theta: float = 1.0,
    epsilon_y_ratio: float = 0.6,
) -> AuditResult:
    """Audit one mechanism calibrated at (ε, δ, Δ): n outputs per neighbouring input, lower bounds, verdict.

    The verdict is "VIOLATION" only if ε_lb > claimed ε or δ_lb > claimed δ; for a mechanism that keeps its
    claim this happens with probability ≤ α (each bound at α/2).
    """
    pair = sample_pair(
        mechanism,
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        n=n,
        rng=rng,
        theta=theta,
        epsilon_y_ratio=epsilon_y_ratio,
    )
    return audit_pair(pair, alpha=alpha, bins=bins)


def audit_table(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    n: int,
    rng: np.random.Generator | int | None = None,
    alpha: float = 0.05,
    bins: int = 100,
    theta: float = 1.0,
    epsilon_y_ratio: float = 0.6,
    counterexample: bool = True,
) -> pd.DataFrame:
    """Every mechanism audited at the given settings (+ BR-DP calibrated by the paper's accountant at
    :data:`COUNTEREXAMPLE`, where its δ is wrong). Columns include ``mechanism`` (id) and ``name`` (display)."""
    g = _v.rng(rng)
    runs = [
        (
            m,
            dict(epsilon=epsilon, delta=delta, sensitivity=sensitivity, theta=theta, epsilon_y_ratio=epsilon_y_ratio),
            "these settings",
        )
        for m in MECHANISMS
    ]
    if counterexample:
        ce = COUNTEREXAMPLE
        runs.append(
            (
                "brdp_paper",
                dict(
                    epsilon=ce["epsilon"],
                    delta=ce["delta"],
                    sensitivity=ce["sensitivity"],
                    theta=ce["theta"],
                    epsilon_y_ratio=ce["epsilon_y"] / ce["epsilon"],
                ),
                COUNTEREXAMPLE_SETTINGS,
            )
        )
    rows = []
    for mech, kw, where in runs:
        res = audit(mech, n=n, rng=g, alpha=alpha, bins=bins, **kw)
        rows.append(
            {
                "mechanism": res.mechanism,
                "name": _reg.display_name(res.mechanism),
                "settings": where,
                "claimed_epsilon": res.claimed_epsilon,
                "claimed_delta": res.claimed_delta,
                "epsilon_lb": res.epsilon_lb,
                "delta_lb": res.delta_lb,
                "exact_delta": res.exact_delta,
                "paper_delta": res.paper_delta,
                "epsilon_event": res.epsilon_bound.event,
                "verdict": res.verdict,
                "caught": res.caught,
                "n": res.n,
                "confidence": 1 - res.alpha,
            }
        )
    return pd.DataFrame(rows)
