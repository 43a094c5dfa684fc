"""Negotiate a budget: the smallest ε each mechanism of the app needs for a stated accuracy, and back.

A requirement (:class:`Requirement`) is an absolute error bound θ with confidence p, a relative error α of a true
value x (θ = α|x|; noise reduction answers it with its own relative-error stopping rule, Rogers et al. 2023, §7,
and is charged its expected ex-post ε), or SVT's success probability for top-c selection (Liu et al. 2024, Eq. 8).
Every per-mechanism fact (its accuracy at ε, how its smallest ε is searched, its reason) comes from
:mod:`dpcore.mechanisms`. Every row of every table holds a number, or "not applicable" / "cannot reach" with a
reason: no combination of the inputs raises.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpcore import _validate as _v
from dpcore import mechanisms as _reg
from dpcore.mechanisms.answers import (
    NR_LEVELS,
    TINY_EPSILON,
    NoiseReductionCost,
    noise_reduction_cost,
)
from dpcore.mechanisms.requirement import REQUIREMENTS, Requirement, make_requirement

__all__ = [
    "MECHANISMS",
    "LABELS",
    "REQUIREMENTS",
    "NR_LEVELS",
    "Requirement",
    "make_requirement",
    "accuracy",
    "epsilon_for_accuracy",
    "accuracy_for_epsilon",
    "accuracy_curves",
    "NoiseReductionCost",
    "noise_reduction_cost",
]

#: Every mechanism with a row in the tables, in table order (ids of :mod:`dpcore.mechanisms`).
MECHANISMS = _reg.ids_for("negotiate")
#: id → the name users see.
LABELS = {m: _reg.display_name(m) for m in MECHANISMS}
_FIXED_EPS = tuple(m for m in MECHANISMS if _reg.get(m).accuracy is not None)
_FAILURES = (ValueError, ArithmeticError)


def _row(m: _reg.Mechanism, **kw) -> dict:
    base = {
        "mechanism": m.id,
        "label": m.name,
        "variant": "—",
        "applicable": True,
        "epsilon": math.nan,
        "delta": 0.0,
        "accuracy": math.nan,
        "target": math.nan,
        "meets": False,
        "sound": True,
        "exact_delta": math.nan,
        "reason": "",
        "note": "",
    }
    base.update(kw)
    return base


def _safe_acc(m: _reg.Mechanism, eps: float, req: Requirement) -> float:
    if m.accuracy is None:  # no fixed-ε accuracy (noise reduction)
        return math.nan
    try:
        return float(m.accuracy(eps, req))
    except _FAILURES:
        return math.nan


def _details(m: _reg.Mechanism, eps: float, req: Requirement, forward: bool) -> dict:
    if m.details is None:
        return {}
    try:
        return m.details(eps, req, forward)
    except _FAILURES as exc:
        return {"note": f"details not available at ε = {eps:.4g} ({exc})"}


def _not_applicable(m: _reg.Mechanism, req: Requirement) -> dict | None:
    return None if req.kind in m.answers else _row(m, applicable=False, reason=m.elsewhere)


def _guarded(build, m: _reg.Mechanism, req: Requirement) -> dict:
    """A row, or (never expected on the app's controls) an honest "no answer" row instead of an exception."""
    try:
        return build()
    except _FAILURES as exc:
        return _row(
            m,
            variant=m.accountant,
            epsilon=math.nan,
            target=req.confidence,
            reason=f"No answer could be computed at these settings ({type(exc).__name__}: {exc}).",
        )


def _nr_forward(m: _reg.Mechanism, req: Requirement, n_runs: int, seed: int) -> dict:
    p = req.confidence
    cost = noise_reduction_cost(
        alpha=req.alpha, value=req.value, sensitivity=req.sensitivity, cap=req.cap, n_runs=n_runs, rng=seed
    )
    meets = cost.success >= p
    return _row(
        m,
        variant="exact",
        epsilon=cost.expected_epsilon,
        delta=0.0,
        accuracy=cost.success,
        target=p,
        meets=meets,
        sound=True,
        reason=(
            f"Starts very private and removes noise until the answer looks within {req.alpha:g} relative "
            f"error; you pay the ex-post ε where it stops, on average {cost.expected_epsilon:.4g} "
            f"± {cost.standard_error:.2g} (s.e., {cost.runs} seeded runs)."
        ),
        note=(
            f"The stopping rule is a heuristic: right {100 * cost.success:.1f} % ± {100 * cost.success_se:.1f} "
            f"% of the time here{'' if meets else ', below the requested confidence'}; worst case "
            f"(ex-ante) ε = {cost.cap:g}."
        ),
    )


def _why_never(m: _reg.Mechanism) -> str:
    if "topc" in m.answers:
        return "even at that ε the noisy comparisons near the threshold fail too often."
    return "it still adds too much noise at that budget."


def _forward_row(m: _reg.Mechanism, req: Requirement, n_runs: int, seed: int) -> dict:
    na = _not_applicable(m, req)
    if na is not None:
        return na
    if m.solve is None:  # no fixed-ε accuracy: Monte Carlo of its stopping rule
        return _nr_forward(m, req, n_runs, seed)
    p = req.confidence
    delta = req.delta if m.uses_delta else 0.0
    accuracy, reason = m.accuracy, m.reason
    assert accuracy is not None and reason is not None  # every mechanism that solves for ε has both (the registry)
    eps = m.solve(req, lambda e: accuracy(e, req))
    if not math.isfinite(eps) or eps > req.cap:
        return _row(
            m,
            variant=m.accountant,
            epsilon=math.inf,
            delta=delta,
            target=p,
            meets=False,
            accuracy=_safe_acc(m, req.cap, req),
            reason=f"Cannot reach {p:g} at any ε ≤ {req.cap:g}: {_why_never(m)}",
        )
    acc = p if m.closed_form else _safe_acc(m, eps, req)
    row = _row(
        m,
        variant=m.accountant,
        epsilon=eps,
        delta=delta,
        target=p,
        reason=reason(req),
        accuracy=acc,
        meets=bool(acc >= p * (1 - 1e-9)),
    )
    row.update(_details(m, eps, req, True))
    if m.uses_delta and eps <= TINY_EPSILON:  # δ alone pays for the accuracy: say so instead of printing 1e-10
        row["epsilon"] = 0.0
        row["note"] = (
            f"δ = {req.delta:g} is so generous that ε → 0 suffices (the δ allows any answer to be "
            "revealed with that probability); choose a smaller δ. " + row["note"]
        ).strip()
    return row


def epsilon_for_accuracy(
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
    mechanisms: Sequence[str] | None = None,
    n_runs: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """The smallest ε (and δ) at which each mechanism meets the requirement, one row per mechanism.

    Columns: mechanism (id), label (display name), variant (exact/paper), applicable, epsilon (inf: not reachable
    at ε ≤ cap; 0: any ε > 0 meets it), delta, accuracy (at that ε), target, meets, sound (False where the paper's
    accountant under-reports δ), exact_delta (BR-DP rows), reason (one line), note. Noise reduction: its expected
    ex-post ε (Monte Carlo, ``n_runs`` runs seeded by ``seed``).
    """
    req = make_requirement(
        requirement=requirement,
        theta=theta,
        confidence=confidence,
        sensitivity=sensitivity,
        delta=delta,
        alpha=alpha,
        value=value,
        c=c,
        k=k,
        kernel=kernel,
        cap=cap,
    )
    mechs = _mechs(mechanisms)
    n = _v.integer("n_runs", n_runs, low=2, high=10_000_000)
    s = _v.integer("seed", seed, low=0)
    rows = []
    for mid in mechs:
        m = _reg.get(mid)
        rows.append(_guarded(lambda m=m: _forward_row(m, req, n, s), m, req))
    return pd.DataFrame(rows)


def _mechs(mechanisms: Sequence[str] | None) -> tuple[str, ...]:
    if mechanisms is None:
        return MECHANISMS
    if isinstance(mechanisms, str):
        mechanisms = (mechanisms,)
    return tuple(_reg.canonical(m, name="mechanisms", among=MECHANISMS) for m in mechanisms)


def accuracy(mechanism: str, epsilon: float, **kwargs) -> float:
    """Accuracy one mechanism delivers at ε for a requirement (keyword arguments of :func:`make_requirement`).

    P(|noise| ≤ θ) for the noise-adding mechanisms, SVT's exact success probability for ``"topc"``.
    Noise reduction has no fixed-ε accuracy: use :func:`noise_reduction_cost`.
    """
    m = _reg.get(_reg.canonical(mechanism, among=_FIXED_EPS))
    eps = _v.positive("epsilon", epsilon)
    assert m.accuracy is not None  # the fixed-ε mechanisms are those with an accuracy
    return float(m.accuracy(eps, make_requirement(**kwargs)))


# ----------------------------------------------------------------------------------------------------------
# accuracy for an ε
# ----------------------------------------------------------------------------------------------------------


def _reverse_row(m: _reg.Mechanism, eps: float, req: Requirement, n_runs: int, seed: int) -> dict:
    na = _not_applicable(m, req)
    if na is not None:
        return na
    p = req.confidence
    if m.accuracy is None:  # noise reduction: ε is its ex-ante cap
        cost = noise_reduction_cost(
            alpha=req.alpha, value=req.value, sensitivity=req.sensitivity, cap=eps, n_runs=n_runs, rng=seed
        )
        return _row(
            m,
            variant="exact",
            epsilon=cost.expected_epsilon,
            delta=0.0,
            accuracy=cost.success,
            target=p,
            meets=cost.success >= p,
            reason=f"With ε = {eps:g} as the worst case it spends {cost.expected_epsilon:.4g} on average "
            f"(ex-post, ± {cost.standard_error:.2g}); the rule fired in {100 * cost.fired:.1f} % of "
            "runs.",
            note=f"Monte Carlo, {cost.runs} seeded runs; accuracy ± {cost.success_se:.2g} (s.e.).",
        )
    acc = _safe_acc(m, eps, req)
    row = _row(
        m,
        variant=m.accountant,
        epsilon=eps,
        delta=req.delta if m.uses_delta else 0.0,
        accuracy=acc,
        target=p,
        meets=bool(acc >= p),
        reason=_reverse_reason(m, req),
    )
    if math.isnan(acc):
        row["reason"] = f"Its accuracy cannot be computed at ε = {eps:g} (no valid calibration there)."
        return row
    row.update(_details(m, eps, req, False))
    return row


def _reverse_reason(m: _reg.Mechanism, req: Requirement) -> str:
    if "topc" in m.answers:
        return f"P(all {req.k} queries {req.theta:g} below rejected and the next {req.theta:g} above accepted)"
    return f"P(|output − true| ≤ {req.bound:.4g})"


def accuracy_for_epsilon(
    epsilon: float,
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
    mechanisms: Sequence[str] | None = None,
    n_runs: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """The accuracy each mechanism delivers at budget ε (same columns as :func:`epsilon_for_accuracy`).

    ``accuracy`` is P(|output − true| ≤ θ) (θ = α|x| for a relative error) or SVT's success probability;
    ``meets`` compares it with ``confidence``. Noise reduction treats ε as its ex-ante cap and reports its
    expected ex-post ε in ``epsilon``.
    """
    eps = _v.real("epsilon", epsilon, low=0.0, high=1000.0, low_open=True)
    req = make_requirement(
        requirement=requirement,
        theta=theta,
        confidence=confidence,
        sensitivity=sensitivity,
        delta=delta,
        alpha=alpha,
        value=value,
        c=c,
        k=k,
        kernel=kernel,
        cap=min(max(eps, 1e-3), 1000.0),
    )
    n = _v.integer("n_runs", n_runs, low=2, high=10_000_000)
    s = _v.integer("seed", seed, low=0)
    rows = []
    for mid in _mechs(mechanisms):
        m = _reg.get(mid)
        rows.append(_guarded(lambda m=m: _reverse_row(m, eps, req, n, s), m, req))
    return pd.DataFrame(rows)


def accuracy_curves(epsilons: Sequence[float], *, mechanisms: Sequence[str] | None = None, **kwargs) -> pd.DataFrame:
    """Accuracy of each applicable fixed-ε mechanism on an ε grid, long form (epsilon, mechanism, accuracy)."""
    eps = _v.real_array("epsilons", epsilons, low=0.0, allow_inf=False).ravel()
    if eps.size == 0 or eps.min() <= 0:
        raise ValueError("epsilons must be a non-empty list of numbers > 0")
    req = make_requirement(**kwargs)
    rows = []
    for mid in _mechs(mechanisms):
        m = _reg.get(mid)
        if m.accuracy is None or req.kind not in m.answers:
            continue
        vals = np.array([_safe_acc(m, float(e), req) for e in eps])
        rows.append(pd.DataFrame({"epsilon": eps, "mechanism": m.id, "accuracy": vals}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["epsilon", "mechanism", "accuracy"])
