"""A yes/no survey through binary randomized response: the coin, the unbiased share of Yes, its interval, replays.

Each person reports the true answer with probability ``p = e^ε/(1 + e^ε)`` and the opposite otherwise (Warner 1965,
*Randomized response: a survey technique for eliminating evasive answer bias*, JASA 60; with this ``p`` it is the
ε-LDP binary randomized response of Pan 2023, Def. 3.3). If ``λ`` is the share of Yes among ``n`` reports, its
expectation is ``(1 − p) + (2p − 1)π`` for a true share ``π``, so

* ``π̂ = (λ − (1 − p)) / (2p − 1)`` is unbiased (Warner's estimator), with variance ``λ(1 − λ) / (n (2p − 1)²)``;
* a confidence interval for ``λ`` (Wilson's score interval, Wilson 1927, JASA 22) maps through the same increasing
  line to one for ``π``, clipped to [0, 1]: it covers ``π`` exactly when Wilson's interval covers ``λ``;
* one report's realized privacy loss (Pan 2023, Def. 3.2, Eq. 10) is ``ℓ(Yes) = ℓ(No) = ε``: either output is
  ``e^ε`` times likelier under one true answer than under the other.

``2p − 1 = tanh(ε/2)`` and ``1 − p = 1/(1 + e^ε)`` are computed as such, so large ε loses no digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from dpcore import _validate as _v
from dpcore.ldp.likelihood import MAX_RUNS
from dpcore.ldp.mechanisms import randomized_response

__all__ = [
    "MAX_ANSWERS",
    "ShareEstimate",
    "answer_losses",
    "coin_variance",
    "estimate",
    "expected_share",
    "randomize",
    "share_interval",
    "share_variance",
    "simulate_reports",
    "truth_probability",
    "unbiased_share",
    "wilson_interval",
]

#: Most reports a survey may hold (a class, a lecture hall, a city: far below; keeps n·variance finite).
MAX_ANSWERS = 10**9


def _epsilon(epsilon: Any) -> float:
    return _v.positive("epsilon", epsilon)


def truth_probability(epsilon: float) -> float:
    """``p = e^ε/(1 + e^ε)``: the probability that a report is the true answer."""
    return float(special.expit(_epsilon(epsilon)))


def _flip_and_slope(eps: float) -> tuple[float, float]:
    """``(1 − p, 2p − 1)`` without cancellation: ``1/(1 + e^ε)`` and ``tanh(ε/2)``."""
    return float(special.expit(-eps)), math.tanh(eps / 2)


def randomize(truth: bool, epsilon: float, rng: np.random.Generator) -> bool:
    """The report of one person whose true answer is ``truth``: the truth with probability ``p``, else the opposite.

    ``rng`` is required (a survey's coin is never implicit): the class poll seeds it from the operating system's
    cryptographic source for every answer."""
    if not isinstance(truth, bool | np.bool_):
        raise ValueError(f"truth must be True (Yes) or False (No), got {truth!r}")
    eps = _epsilon(epsilon)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    keep = rng.random() < truth_probability(eps)
    return bool(truth) if keep else not bool(truth)


def _share_array(name: str, value: Any) -> np.ndarray:
    return _v.real_array(name, value, low=0.0, high=1.0, allow_inf=False)


def _out(arr: np.ndarray) -> float | np.ndarray:
    return float(arr) if arr.ndim == 0 else arr


def expected_share(share: Any, epsilon: float) -> float | np.ndarray:
    """``E[λ] = (1 − p) + (2p − 1)π``: the expected share of Yes reports when a share ``π`` truly says Yes."""
    q, slope = _flip_and_slope(_epsilon(epsilon))
    return _out(q + slope * _share_array("share", share))


def unbiased_share(observed: Any, epsilon: float) -> float | np.ndarray:
    """``π̂ = (λ − (1 − p))/(2p − 1)``: Warner's unbiased estimate of the true share from the observed share ``λ``.

    It can fall below 0 or above 1 (by chance, most often for small ε or few reports); it is not clipped, so that it
    stays unbiased."""
    q, slope = _flip_and_slope(_epsilon(epsilon))
    lam = _share_array("observed", observed)
    with np.errstate(over="ignore"):
        return _out((lam - q) / slope)


def share_variance(share: Any, n: int, epsilon: float) -> float | np.ndarray:
    """``Var(π̂) = λ(1 − λ)/(n (2p − 1)²)`` with ``λ = E[λ]`` at the true share ``π``: exact for ``n`` people drawn
    from a population where a share ``π`` says Yes (Warner's setting; :func:`coin_variance` keeps one class fixed).

    With the observed share in place of ``π``'s ``λ`` it is the usual plug-in estimate (:func:`estimate`)."""
    nn = _v.integer("n", n, low=1, high=MAX_ANSWERS)
    q, slope = _flip_and_slope(_epsilon(epsilon))
    lam = q + slope * _share_array("share", share)
    with np.errstate(over="ignore"):
        return _out(lam * (1 - lam) / nn / slope**2)


def coin_variance(n: int, epsilon: float) -> float:
    """``Var(π̂) = p(1 − p)/(n (2p − 1)²) = e^ε/(n (e^ε − 1)²)`` for one fixed class of ``n`` people answering again:
    only the coins are drawn afresh, so the truths' own spread (in :func:`share_variance`) drops out, whatever the
    class's share."""
    nn = _v.integer("n", n, low=1, high=MAX_ANSWERS)
    q, slope = _flip_and_slope(_epsilon(epsilon))
    with np.errstate(over="ignore"):
        return float(q * (1 - q) / nn / slope**2)


def _counts(yes: Any, n: int) -> tuple[np.ndarray, int]:
    nn = _v.integer("n", n, low=1, high=MAX_ANSWERS)
    if isinstance(yes, bool | np.bool_) or np.asarray(yes).dtype == bool:
        raise ValueError(f"yes must be whole numbers of Yes reports in [0, n] = [0, {nn}], got {yes!r}")
    k = _v.real_array("yes", yes, low=0.0, high=float(nn), allow_inf=False)
    if np.any(k != np.round(k)):
        raise ValueError(f"yes must be whole numbers of Yes reports in [0, n] = [0, {nn}]")
    return k, nn


def _z(confidence: Any) -> float:
    c = _v.real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    return float(stats.norm.isf((1 - c) / 2))


def wilson_interval(yes: Any, n: int, confidence: float = 0.95) -> tuple[Any, Any]:
    """Wilson's score interval for a binomial share from ``yes`` successes in ``n`` trials (no continuity
    correction): ``(λ + z²/2n ± z √(λ(1 − λ)/n + z²/4n²)) / (1 + z²/n)``, z the normal quantile of the level.

    Vectorised over ``yes`` (the replays of a survey need thousands at once)."""
    k, nn = _counts(yes, n)
    z = _z(confidence)
    lam, z2n = k / nn, z * z / nn
    centre = (lam + z2n / 2) / (1 + z2n)
    half = z * np.sqrt(lam * (1 - lam) / nn + z2n / (4 * nn)) / (1 + z2n)
    # the interval holds λ and reaches 0 at k = 0 and 1 at k = n: exactly, not to within rounding
    low = np.where(k == 0, 0.0, np.clip(np.minimum(centre - half, lam), 0.0, 1.0))
    high = np.where(k == nn, 1.0, np.clip(np.maximum(centre + half, lam), 0.0, 1.0))
    return _out(low), _out(high)


@dataclass(frozen=True)
class ShareEstimate:
    """What ``yes`` Yes reports out of ``answers`` say about the true share of Yes at ``epsilon``.

    ``observed`` is the raw share of Yes reports ``λ``; ``unbiased`` Warner's ``π̂`` (may leave [0, 1]); ``share``
    the same clipped to [0, 1] (what to quote); ``low``–``high`` the Wilson interval of ``λ`` at ``confidence``
    mapped through ``π = (λ − (1 − p))/(2p − 1)`` and clipped to [0, 1]; ``std_error`` the plug-in
    ``√(λ(1 − λ)/n)/(2p − 1)``."""

    answers: int
    yes: int
    epsilon: float
    confidence: float
    observed: float
    unbiased: float
    share: float
    std_error: float
    low: float
    high: float

    @property
    def truth_probability(self) -> float:
        return truth_probability(self.epsilon)


def _mapped(lam: np.ndarray, q: float, slope: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.clip((lam - q) / slope, 0.0, 1.0)


def share_interval(yes: Any, n: int, epsilon: float, confidence: float = 0.95) -> tuple[Any, Any]:
    """The interval for the true share from ``yes`` Yes reports among ``n``: Wilson's interval of the observed share
    mapped through ``π = (λ − (1 − p))/(2p − 1)`` and clipped to [0, 1]. Vectorised over ``yes``."""
    eps = _epsilon(epsilon)
    q, slope = _flip_and_slope(eps)
    lo, hi = wilson_interval(yes, n, confidence)
    return _out(_mapped(np.asarray(lo), q, slope)), _out(_mapped(np.asarray(hi), q, slope))


def estimate(yes: int, n: int, epsilon: float, confidence: float = 0.95) -> ShareEstimate:
    """The estimate of the true share of Yes from ``yes`` Yes reports among ``n`` (see :class:`ShareEstimate`)."""
    k, nn = _counts(yes, n)
    if k.ndim != 0:
        raise ValueError("yes must be one count (use wilson_interval for many)")
    eps = _epsilon(epsilon)
    q, slope = _flip_and_slope(eps)
    lo, hi = share_interval(k, nn, eps, confidence)
    lam = float(k) / nn
    with np.errstate(over="ignore"):
        unbiased = (lam - q) / slope
        se = math.sqrt(lam * (1 - lam) / nn) / slope if slope > 0 else math.inf
    return ShareEstimate(
        nn,
        int(k),
        eps,
        float(confidence),
        lam,
        float(unbiased),
        float(np.clip(unbiased, 0.0, 1.0)),
        float(se),
        float(lo),
        float(hi),
    )


def simulate_reports(true_yes: int, n: int, epsilon: float, runs: int, rng: np.random.Generator | int) -> np.ndarray:
    """Yes reports of ``runs`` replays of one class: ``n`` people of whom ``true_yes`` truly say Yes, each report
    drawn afresh at ``epsilon``: ``Binomial(true_yes, p) + Binomial(n − true_yes, 1 − p)`` per replay."""
    nn = _v.integer("n", n, low=1, high=MAX_ANSWERS)
    k = _v.integer("true_yes", true_yes, low=0, high=nn)
    r = _v.integer("runs", runs, low=1, high=MAX_RUNS)
    p = truth_probability(epsilon)
    gen = _v.rng(rng)
    return gen.binomial(k, p, size=r) + gen.binomial(nn - k, 1 - p, size=r)


def answer_losses(epsilon: float) -> tuple[float, float]:
    """``(ℓ(Yes), ℓ(No))``: the realized privacy loss of one Yes report and of one No report (Pan 2023, Eq. 10, on
    the log scale), read from randomized response's likelihood table. Both equal ε: binary randomized response
    spends its whole budget on every answer (Def. 3.3)."""
    losses = randomized_response(_epsilon(epsilon)).output_losses  # outputs (0, 1): No, Yes
    return float(losses[1]), float(losses[0])
