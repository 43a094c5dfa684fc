"""Cached tables for the "Negotiate a budget" page and lesson, all by calling :mod:`dpcore.negotiate` with scalars.

The heavy rows (BR-DP optimisations inside a bisection, R²DP family optima, the noise-reduction Monte Carlo) take
a few seconds cold; every function is cached by its scalars, so a warm rerun only reads the caches. The one
recommendation the page opens with (:func:`answer`), the composition of several releases (:func:`composition`) and
the deployments table are here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

import dpcore
from app.compute._cache import cached
from app.notation import delta as delta_text
from app.notation import deltas_in, number, numbers_in
from dpcore import deployments as _deployments
from dpcore import ledger as _ledger
from dpcore import mechanisms as _mechanisms
from dpcore import negotiate as ng

MECHS = ng.MECHANISMS
LABELS = ng.LABELS
N_RUNS = 2000  # noise-reduction Monte-Carlo runs (standard error shown in the table)
CURVE_POINTS = 16  # ε grid of the accuracy-vs-ε chart (each BR-DP point is one optimisation)
CAP = 50.0
#: The order in which equally cheap answers are preferred: the simplest mechanism to explain and deploy first.
#: BR-DP with the paper's accountant and noise reduction (a heuristic stopping rule) are never recommended.
PREFERENCE = ("laplace", "gaussian", "staircase", "r2dp", "r2dp_two_point", "brdp", "svt_exp", "svt_laplace")
TIE = 0.01  # answers within 1 % of the smallest ε count as equally cheap
#: How the recommendation names a mechanism in a sentence.
PHRASE = {
    "laplace": "Laplace noise",
    "gaussian": "Gaussian noise",
    "staircase": "staircase noise",
    "r2dp": "R²DP noise (a Laplace noise with a random scale)",
    "r2dp_two_point": "R²DP noise with a two-point random scale",
    "brdp": "budget recycling (BR-DP, exact accountant)",
    "svt_exp": "the sparse vector technique with exponential noise",
    "svt_laplace": "the sparse vector technique with Laplace noise",
}


@dataclass(frozen=True)
class Requirement:
    """The page's requirement as plain scalars (hashable: the cache key of every table)."""

    kind: str = "error"
    theta: float = 1.0
    confidence: float = 0.95
    sensitivity: float = 1.0
    delta: float = 1e-5
    eta: float = 0.1
    size: float = 100.0
    cutoff: int = 1
    below: int = 50
    kernel: str = "gaussian"

    @property
    def bound(self) -> float:
        return self.eta * self.size if self.kind == "relative" else self.theta

    def args(self) -> dict:
        """Only the arguments of :func:`dpcore.negotiate.epsilon_for_accuracy` this kind uses."""
        base = {"requirement": self.kind, "confidence": self.confidence, "sensitivity": self.sensitivity}
        if self.kind == "error":
            return base | {"theta": self.theta, "delta": self.delta, "kernel": self.kernel}
        if self.kind == "relative":
            return base | {"alpha": self.eta, "value": self.size, "delta": self.delta, "kernel": self.kernel}
        return base | {"theta": self.theta, "c": int(self.cutoff), "k": int(self.below)}

    def words(self) -> str:
        """The requirement in one phrase."""
        if self.kind == "error":
            return f"|answer − truth| ≤ {number(self.theta)}"
        if self.kind == "relative":
            return f"|answer − x| ≤ {number(self.eta)}·{number(self.size)} = {number(self.bound)}"
        return (
            f"{self.below} queries {number(self.theta)} below the threshold rejected and the next one "
            f"{number(self.theta)} above accepted"
        )


#: Requirement arguments a mechanism does not use: dropped from its cache key, so e.g. moving δ does not redo R²DP.
_UNUSED: dict[str, tuple[str, ...]] = {
    m.id: (() if m.uses_delta else ("delta", "kernel")) for m in _mechanisms.REGISTRY
}
_UNUSED["gaussian"] = ("kernel",)


def _key(mech: str, args: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in args.items() if k not in _UNUSED.get(mech, ())))


@cached(show_spinner="Searching the smallest ε …")
def _forward_row(mech: str, key: tuple, seed: int) -> pd.DataFrame:
    return ng.epsilon_for_accuracy(**dict(key), mechanisms=[mech], cap=CAP, n_runs=N_RUNS, seed=seed)


@cached
def epsilons(req: Requirement, seed: int = 0) -> pd.DataFrame:
    """One row per mechanism: the smallest ε (and δ) meeting the requirement (see dpcore.negotiate)."""
    args = req.args()
    return pd.concat(
        [_forward_row(m, _key(m, args), seed if m == "noise_reduction" else 0) for m in MECHS], ignore_index=True
    )


@cached(show_spinner="Evaluating every mechanism at this ε …")
def _reverse_row(epsilon: float, mech: str, key: tuple, seed: int) -> pd.DataFrame:
    return ng.accuracy_for_epsilon(epsilon, **dict(key), mechanisms=[mech], n_runs=N_RUNS, seed=seed)


def accuracies(epsilon: float, req: Requirement, seed: int = 0) -> pd.DataFrame:
    """One row per mechanism: the accuracy it delivers at ε."""
    args = req.args()
    return pd.concat(
        [_reverse_row(epsilon, m, _key(m, args), seed if m == "noise_reduction" else 0) for m in MECHS],
        ignore_index=True,
    )


@cached(show_spinner="Drawing accuracy against ε …")
def _curve(mech: str, key: tuple) -> pd.DataFrame:
    args = {k: v for k, v in key if k != "confidence"}
    eps = np.geomspace(0.01, CAP, CURVE_POINTS)
    df = ng.accuracy_curves(eps.tolist(), mechanisms=[mech], **args)
    df["label"] = df["mechanism"].map(LABELS)
    return df


def curves(req: Requirement) -> pd.DataFrame:
    """Accuracy of each fixed-ε mechanism on a log ε grid 0.01 … 50 (long form); the confidence only marks the chart."""
    args = req.args() | {"confidence": 0.5}
    return pd.concat([_curve(m, _key(m, args)) for m in MECHS], ignore_index=True)


# ------------------------------------------------------------------------------------------------------------------
# the answer first
# ------------------------------------------------------------------------------------------------------------------


def round_up(x: float, digits: int = 2) -> float:
    """x rounded UP to ``digits`` significant digits (a stated ε a little above the smallest still meets it)."""
    if not (x > 0 and math.isfinite(x)):
        return x
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(x / scale * (1 - 1e-12)) * scale


def fmt_epsilon(x: float, digits: int = 2) -> str:
    """ε as the recommendation states it: rounded up to two significant digits, trailing zero kept (0.060)."""
    if x == 0:
        return "0"
    v = round_up(x, digits)
    decimals = max(0, digits - 1 - math.floor(math.log10(v)))
    return f"{v:.{decimals}f}"


@dataclass(frozen=True)
class Answer:
    """The recommendation: which mechanism, at which (ε, δ), and the sentence that says so."""

    mechanism: str  # registry id ("" when nothing meets the requirement)
    name: str  # display name
    epsilon: float  # the stated ε (rounded up: still meets the requirement)
    smallest: float  # the exact smallest ε
    delta: float
    sentence: str
    reasons: tuple[tuple[str, str, str], ...]  # (display name, ε as text, why) of every alternative, in order


def _percent(p: float) -> str:
    return f"{number(100 * p, 4)} %"


def _sentence(mech: str, eps: float, delta: float, req: Requirement) -> str:
    head = f"Use {PHRASE[mech]} with ε = {fmt_epsilon(eps)}, δ = {delta_text(delta)}"
    if req.kind == "error":
        what = f"each count is within ±{number(req.theta)} of the truth in {_percent(req.confidence)} of releases"
    elif req.kind == "relative":
        what = (
            f"each answer is within {_percent(req.eta)} of a true value of {number(req.size)} "
            f"(±{number(req.bound)}) in {_percent(req.confidence)} of releases"
        )
    else:
        what = (
            f"{req.below} queries {number(req.theta)} below the threshold are all rejected and the next "
            f"one {number(req.theta)} above it is accepted in {_percent(req.confidence)} of runs"
        )
    return f"{head}: {what}."


def _alternative_text(row: pd.Series) -> str:
    if not row["applicable"]:
        return "n/a"
    eps = float(row["epsilon"])
    if math.isinf(eps):
        return "not reachable"
    if math.isnan(eps):
        return "no answer"
    return fmt_epsilon(eps)


def answer(req: Requirement, seed: int = 0) -> Answer:
    """The cheapest sound answer: smallest ε among the rows that meet the requirement, equally cheap ones (within
    1 %) broken by :data:`PREFERENCE`; then every other row with its reason in full."""
    df = epsilons(req, seed)
    rows = df.set_index("mechanism")
    ok = [
        m
        for m in PREFERENCE
        if m in rows.index
        and bool(rows.loc[m, "applicable"])
        and bool(rows.loc[m, "meets"])
        and bool(rows.loc[m, "sound"])
        and math.isfinite(float(rows.loc[m, "epsilon"]))
    ]
    reasons = []
    if ok:
        best = min(float(rows.loc[m, "epsilon"]) for m in ok)
        pick = next(m for m in ok if float(rows.loc[m, "epsilon"]) <= best * (1 + TIE) + 1e-15)
        eps, delta = float(rows.loc[pick, "epsilon"]), float(rows.loc[pick, "delta"])
        stated = round_up(eps) if eps > 0 else 0.0
        sentence = _sentence(pick, eps, delta, req)
    else:
        pick, eps, delta, stated = "", math.inf, 0.0, math.inf
        sentence = (
            f"No mechanism meets this requirement at any ε ≤ {number(CAP)}: loosen the error bound "
            "or lower the confidence."
        )
    for m in MECHS:
        if m == pick:
            continue
        r = rows.loc[m]
        why = str(r["reason"]) + (f" {r['note']}" if isinstance(r["note"], str) and r["note"] else "")
        reasons.append((LABELS[m], _alternative_text(r), why.strip()))
    return Answer(pick, LABELS.get(pick, ""), stated, eps, delta, sentence, tuple(reasons))


@dataclass(frozen=True)
class Negotiation:
    """Everything the page draws from one requirement: the answer, every mechanism's smallest ε, and what every
    mechanism delivers at the answer's ε (or at ε = 1 when there is no answer)."""

    answer: Answer
    table: pd.DataFrame  # :func:`epsilons`
    at_answer: pd.DataFrame  # :func:`accuracies` at :attr:`epsilon`
    epsilon: float


def negotiation(req: Requirement, seed: int = 0) -> Negotiation:
    """One requirement's answer, table and accuracies at the answer, computed together: a new requirement costs
    about twenty BR-DP plan optimisations (bench/results-where-time-goes.md), so the page asks a background worker for
    this (``app.background``)."""
    ans = answer(req, seed)
    eps = ans.epsilon if ans.mechanism and ans.epsilon > 0 else 1.0
    return Negotiation(ans, epsilons(req, seed), accuracies(eps, req, seed), eps)


@dataclass(frozen=True)
class Composition:
    """T releases of the chosen answer: per release and in total (tight PLD accountant, and basic composition)."""

    releases: int
    epsilon: float  # per release
    delta: float  # per release
    total_epsilon: float  # tight, at total_delta
    total_delta: float
    basic_epsilon: float  # T·ε
    how: str


@cached
def composition(
    mechanism: str, epsilon: float, delta: float, sensitivity: float, releases: int, page_delta: float
) -> Composition:
    """Total (ε, δ) of ``releases`` runs: the ledger's PLD accountant at δ_total = T·δ + the page's δ."""
    rel = _mechanisms.release(
        mechanism,
        max(epsilon, 1e-12),
        delta=delta,
        sensitivity=sensitivity,
        compositions=releases,
        cap=CAP,
        label="answer",
    )
    total_delta = min(releases * delta + page_delta, 0.5)
    res = _ledger.pld([rel], 1e6, total_delta)
    basic = releases * rel.dp_epsilon
    return Composition(
        releases,
        epsilon,
        delta,
        float(res.epsilon),
        total_delta,
        float(basic),
        "the tight accountant: privacy-loss distributions composed" if "PLD" in res.note else res.note,
    )


# ------------------------------------------------------------------------------------------------------------------
# what this ε means
# ------------------------------------------------------------------------------------------------------------------


@cached
def meaning(epsilon: float, prior: float = 0.01) -> dict[str, float]:
    """e^ε (largest factor on an observer's odds) and the largest posterior from a prior (dpcore.posterior_bound)."""
    return {"odds": float(np.exp(epsilon)), "prior": prior, "posterior": float(dpcore.posterior_bound(prior, epsilon))}


@cached
def deployments_meaning(prior: float = 0.01) -> pd.DataFrame:
    """The sourced deployments table as shown: number, unit, what it allows, and the source with its link."""
    df = _deployments.deployments_table(prior)
    return pd.DataFrame(
        {
            "who": df["organisation"],
            "deployment": df["deployment"],
            "ε": [
                number(e, 3) + (" (from ρ)" if c else "") for e, c in zip(df["epsilon"], df["converted"], strict=True)
            ],
            "δ": [number(d) for d in df["delta"]],
            "unit of privacy": df["unit"],
            f"largest posterior from {number(100 * prior)} %": [f"{number(100 * q, 3)} %" for q in df["posterior"]],
            "source": df["url"],
            "note": df["note"],
        }
    )


def _fmt_eps(eps: float, applicable: bool, cap: float = CAP) -> str:
    if not applicable:
        return "n/a"
    if math.isnan(eps):
        return "no answer"
    if not np.isfinite(eps):
        return f"not reachable (ε ≤ {number(cap)})"
    return number(eps, 5)


def table_view(df: pd.DataFrame, *, direction: str) -> pd.DataFrame:
    """The table as shown: applicable rows first, ε formatted (n/a, not reachable), accuracy in %, display names;
    a dash where a column does not apply to the row (the reason says why)."""
    df = df.sort_values("applicable", ascending=False, kind="stable")
    return pd.DataFrame(
        {
            "mechanism": df["label"],
            "accountant": df["variant"].map({"exact": "exact", "paper": "paper (as printed)", "—": "—"}).fillna("—"),
            ("smallest ε" if direction == "forward" else "ε spent"): [
                _fmt_eps(float(e), bool(a)) for e, a in zip(df["epsilon"], df["applicable"], strict=True)
            ],
            "δ": [delta_text(d) if a else "—" for d, a in zip(df["delta"], df["applicable"], strict=True)],
            "accuracy": [f"{100 * x:.2f} %" if np.isfinite(x) else "—" for x in df["accuracy"].astype(float)],
            "meets": [("yes" if m else "no") if a else "—" for m, a in zip(df["meets"], df["applicable"], strict=True)],
            "privacy sound": [
                ("yes" if s else "NO: exact δ too large") if a else "—"
                for s, a in zip(df["sound"], df["applicable"], strict=True)
            ],
            "why": [deltas_in(numbers_in(str(t))) for t in df["reason"]],
            "note": [deltas_in(numbers_in(str(t))) for t in df["note"]],
        }
    )
