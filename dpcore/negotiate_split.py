"""Several statistics at once: the budget split that meets every accuracy requirement at the smallest total ε.

Statistic i must land within ±θ_i of the truth with probability p_i; one person moves it by at most Δ_i. Its
accuracy depends on its own noise only, and more noise never costs privacy, so every statistic gets the most noise
its requirement allows: Laplace scale b_i = θ_i / ln(1/(1 − p_i)) (own ε_i = Δ_i/b_i), Gaussian
σ_i = θ_i / Φ⁻¹((1 + p_i)/2). What is left to choose is which noise each statistic gets, and how the releases
compose:

* Laplace (pure ε): the ε's add up, so the smallest pure total is Σ ε_i (basic composition of ε-DP releases), and
  no other split of a pure budget does better;
* Gaussian: the releases compose in ρ (zero-concentrated DP, Bun & Steinke 2016, Prop. 1.6), ρ_i = Δ_i²/(2σ_i²),
  and exactly as one Gaussian mechanism with Δ/σ = μ = √(Σ Δ_i²/σ_i²) (Dong, Roth & Su 2022, Cor. 3.3): the
  total ε at δ is the analytic Gaussian's (Balle & Wang 2018, Thm 8) at μ. It is not the sum of the statistics' own
  ε's: a statistic's share of the budget is its share ρ_i/ρ;
* a mixture: privacy-loss distributions composed (:func:`dpcore.ledger.pld`);
* other pure mechanisms (the staircase, R²DP): each statistic's smallest ε by search (:mod:`dpcore.negotiate`),
  added up.

:func:`split` tries every assignment of Laplace or Gaussian noise (2^k for k statistics) and the best pure
mechanisms, and returns the one with the smallest total ε at δ.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore import negotiate as _ng
from dpcore.ledger_accountants import pld as _pld
from dpcore.ledger_releases import gaussian_release, laplace_release
from dpcore.mechanisms import display_name as _display_name

__all__ = [
    "MAX_STATISTICS",
    "Statistic",
    "statistic",
    "Share",
    "Option",
    "Split",
    "split",
    "laplace_scale",
    "gaussian_sigma",
]

#: At most this many statistics (2^6 = 64 assignments, each a PLD composition).
MAX_STATISTICS = 6
#: δ at which a Gaussian release quotes its own ε in the ledger (the PLD composes it by its σ, not by this figure)
_QUOTE_DELTA = 1e-9
#: Pure mechanisms searched per statistic (besides Laplace's closed form).
SEARCHED = ("staircase", "r2dp")


@dataclass(frozen=True)
class Statistic:
    """One requirement: ``name`` within ±``bound`` with probability ``confidence``; one person moves it by at most
    ``sensitivity``."""

    name: str
    bound: float
    confidence: float
    sensitivity: float


def statistic(name: str, bound: float, confidence: float, sensitivity: float = 1.0) -> Statistic:
    """A validated :class:`Statistic`."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty text, got {name!r}")
    return Statistic(
        name.strip(),
        _v.scale("bound", bound, low=1e-9, high=1e15),
        _v.probability("confidence", confidence, low_open=True, high_open=True),
        _v.scale("sensitivity", sensitivity, low=1e-9, high=1e15),
    )


def laplace_scale(s: Statistic) -> float:
    """The largest Laplace scale with P(|noise| ≤ θ) ≥ p: b = θ / ln(1/(1 − p))."""
    return s.bound / -math.log1p(-s.confidence)


def gaussian_sigma(s: Statistic) -> float:
    """The largest Gaussian σ with P(|noise| ≤ θ) ≥ p: σ = θ / Φ⁻¹((1 + p)/2)."""
    return s.bound / float(stats.norm.ppf((1.0 + s.confidence) / 2.0))


@dataclass(frozen=True)
class Share:
    """One statistic's part of a split: its noise and what it costs alone."""

    name: str
    mechanism: str  # "laplace", "gaussian", or a searched pure mechanism
    scale: float  # Laplace b or Gaussian σ (nan for a searched mechanism)
    epsilon: float  # its own ε (Gaussian: at δ alone)
    rho: float  # its zCDP ρ (Laplace and pure: ε²/2)
    share: float  # its part of the total: ε_i/Σε (pure) or ρ_i/ρ (with Gaussian noise)


@dataclass(frozen=True)
class Option:
    """One way to add noise to every statistic, and its total."""

    mechanisms: tuple[str, ...]
    epsilon: float  # total ε at ``delta`` (0 delta: pure)
    delta: float
    added_up: float  # Σ of the statistics' own ε (Gaussians each at δ / number of Gaussians)
    how: str


@dataclass(frozen=True)
class Split:
    """The best option, its shares, every option tried, and the reasoning in plain sentences."""

    best: Option
    shares: tuple[Share, ...]
    options: tuple[Option, ...]
    rho: float  # total ρ of the best option (zCDP view)
    reasoning: tuple[str, ...]


def _pure_eps(s: Statistic) -> float:
    return s.sensitivity / laplace_scale(s)


def _gauss_eps(sigma: float, sensitivity: float, delta: float) -> float:
    return max(float(_acct.gaussian_epsilon(delta, sigma=sigma, sensitivity=sensitivity)), 0.0)


def _option(sts: Sequence[Statistic], mechs: tuple[str, ...], delta: float) -> Option:
    n_gauss = mechs.count("gaussian")
    own = [
        (_pure_eps(s) if m == "laplace" else _gauss_eps(gaussian_sigma(s), s.sensitivity, delta / n_gauss))
        for s, m in zip(sts, mechs, strict=True)
    ]
    added = float(sum(own))
    if n_gauss == 0:
        total = float(
            _pld(
                [laplace_release(laplace_scale(s), sensitivity=s.sensitivity, label=s.name) for s in sts], 1e6, delta
            ).epsilon
        )
        if total < added:
            return Option(mechs, total, delta, added, "Laplace releases composed exactly (PLD)")
        return Option(mechs, added, 0.0, added, "pure ε added up")
    if n_gauss == len(sts):
        mu = math.sqrt(sum((s.sensitivity / gaussian_sigma(s)) ** 2 for s in sts))
        return Option(
            mechs,
            _gauss_eps(1.0 / mu, 1.0, delta),
            delta,
            added,
            "Gaussian releases composed exactly: one Gaussian with μ = √(Σ Δ_i²/σ_i²)",
        )
    rel = [
        laplace_release(laplace_scale(s), sensitivity=s.sensitivity, label=s.name)
        if m == "laplace"
        else gaussian_release(gaussian_sigma(s), sensitivity=s.sensitivity, delta=_QUOTE_DELTA, label=s.name)
        for s, m in zip(sts, mechs, strict=True)
    ]
    return Option(mechs, float(_pld(rel, 1e6, delta).epsilon), delta, added, "composed exactly (PLD)")


def _searched(sts: Sequence[Statistic]) -> Option:
    """Each statistic's best pure mechanism by search (staircase, R²DP; Laplace when none beats it), added up."""
    mechs, eps = [], []
    for s in sts:
        best, name = _pure_eps(s), "laplace"
        df = _ng.epsilon_for_accuracy(
            theta=s.bound, confidence=s.confidence, sensitivity=s.sensitivity, mechanisms=list(SEARCHED), cap=1000.0
        )
        for _, r in df.iterrows():
            e = float(r["epsilon"])
            if bool(r["meets"]) and math.isfinite(e) and 0 < e < best * (1 - 1e-9):
                best, name = e, str(r["mechanism"])
        mechs.append(name)
        eps.append(best)
    total = float(sum(eps))
    return Option(tuple(mechs), total, 0.0, total, "pure ε added up (the best ε-DP noise of each, found by search)")


def _shares(sts: Sequence[Statistic], opt: Option, searched: Option, delta: float) -> tuple[tuple[Share, ...], float]:
    out = []
    for s, m in zip(sts, opt.mechanisms, strict=True):
        if m == "gaussian":
            sigma = gaussian_sigma(s)
            out.append(
                Share(
                    s.name,
                    m,
                    sigma,
                    _gauss_eps(sigma, s.sensitivity, delta),
                    s.sensitivity**2 / (2 * sigma**2),
                    math.nan,
                )
            )
        elif m == "laplace":
            b = laplace_scale(s)
            out.append(Share(s.name, m, b, s.sensitivity / b, (s.sensitivity / b) ** 2 / 2, math.nan))
        else:
            e = searched.added_up if len(sts) == 1 else _searched([s]).epsilon
            out.append(Share(s.name, m, math.nan, e, e * e / 2, math.nan))
    rho = sum(x.rho for x in out)
    gauss = "gaussian" in opt.mechanisms
    weight = [x.rho / rho if gauss else x.epsilon / sum(y.epsilon for y in out) for x in out]
    return tuple(
        Share(x.name, x.mechanism, x.scale, x.epsilon, x.rho, w) for x, w in zip(out, weight, strict=True)
    ), rho


def split(statistics: Sequence[Statistic], *, delta: float = 1e-5, search: bool = True) -> Split:
    """The split with the smallest total ε at ``delta`` (see the module docstring); ``search``: also try each
    statistic's best pure mechanism (staircase, R²DP) found by search."""
    sts = _v.sequence("statistics", statistics)
    if not 1 <= len(sts) <= MAX_STATISTICS:
        raise ValueError(f"statistics must hold 1 to {MAX_STATISTICS} requirements, got {len(sts)}")
    if not all(isinstance(s, Statistic) for s in sts):
        raise ValueError("statistics must be Statistic values (dpcore.negotiate_split.statistic)")
    dl = _v.probability("delta", delta, low_open=True, high_open=True)
    options = [_option(sts, mechs, dl) for mechs in itertools.product(("laplace", "gaussian"), repeat=len(sts))]
    searched = _searched(sts) if search else None
    if searched is not None and searched.mechanisms != ("laplace",) * len(sts):
        options.append(searched)
    best = min(options, key=lambda o: (o.epsilon, o.mechanisms.count("gaussian")))
    shares, rho = _shares(sts, best, searched or best, dl)
    return Split(best, shares, tuple(options), rho, _reasoning(sts, best, options, rho, dl))


def _name(mechanism: str) -> str:
    return _display_name(mechanism).split(" (")[0]


def _g(x: float) -> str:
    return f"{x:.4g}"


def _reasoning(
    sts: Sequence[Statistic], best: Option, options: list[Option], rho: float, delta: float
) -> tuple[str, ...]:
    lap = options[0]
    gauss = options[(1 << len(sts)) - 1]
    lines = [
        "Each statistic gets the most noise its own accuracy allows: its accuracy depends on its own noise only, "
        "and more noise never costs privacy. So the split gives every statistic its own smallest budget; what is "
        "left to choose is the kind of noise.",
        f"Laplace noise on every statistic: the ε's add up to {_g(lap.added_up)} (δ = 0), the smallest pure total "
        "for Laplace noise"
        + (
            f"; composed exactly they are ε = {_g(lap.epsilon)} at δ = {delta:g}."
            if lap.delta > 0
            else "; at this δ composing them exactly gives nothing smaller."
        ),
        f"Gaussian noise on every statistic: privacy losses add up in ρ (zero-concentrated DP), not in ε; composed "
        f"exactly the total is ε = {_g(gauss.epsilon)} at δ = {delta:g}, while adding up each one's own ε (each at "
        f"δ = {delta / len(sts):g}) would give {_g(gauss.added_up)}.",
    ]
    searched = [o for o in options[1 << len(sts) :]]
    if searched:
        names = ", ".join(_name(m) for m in searched[0].mechanisms)
        lines.append(
            f"The best pure noise of each statistic, found by search ({names}), "
            f"adds up to ε = {_g(searched[0].epsilon)} with δ = 0."
        )
    words = ", ".join(f"{s.name}: {_name(m)} noise" for s, m in zip(sts, best.mechanisms, strict=True))
    lines.append(
        f"Smallest total among the {len(options)} ways tried: {words}, ε = {_g(best.epsilon)}"
        + (f" at δ = {delta:g}" if best.delta > 0 else " with δ = 0")
        + f" ({best.how})."
    )
    if "gaussian" in best.mechanisms:
        lines.append(f"Its total ρ = {_g(rho)}; a statistic's share of the budget is its share of ρ.")
    return tuple(lines)
