"""One registry of the mechanisms of the app: what each is called, how accurate it is at a budget ε, the smallest
ε that meets a requirement, how to sample it for a privacy audit, and how the privacy ledger accounts for it.

Adding a mechanism is one :class:`Mechanism` entry in :data:`REGISTRY`; :mod:`dpcore.negotiate`,
:mod:`dpcore.audit` and :mod:`dpcore.ledger` read every per-mechanism fact from here. Users only ever see
:attr:`Mechanism.name` (:func:`display_name`), or :attr:`Mechanism.short` in a chart's legend, both from the table
of names :mod:`dpcore.mechanisms.names`; the ids are for code and links.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpcore import _validate as _v
from dpcore import accounting as _acct
from dpcore.ledger_releases import Release, approx_release, gaussian_release, laplace_release, pure_release
from dpcore.mechanisms import answers as _a
from dpcore.mechanisms import sampling as _s
from dpcore.mechanisms.names import NAMES
from dpcore.mechanisms.requirement import REQUIREMENTS, Requirement, make_requirement

__all__ = [
    "REGISTRY",
    "IDS",
    "ALIASES",
    "REQUIREMENTS",
    "Mechanism",
    "Requirement",
    "make_requirement",
    "get",
    "canonical",
    "display_name",
    "display_names",
    "ids_for",
    "release",
]

Accuracy = Callable[[float, Requirement], float]
Solver = Callable[[Requirement, Callable[[float], float]], float]


@dataclass(frozen=True)
class Mechanism:
    """Everything the app knows about one mechanism (see the module docstring)."""

    id: str  # its names are in dpcore.mechanisms.names
    summary: str  # one plain sentence: how it adds noise
    answers: tuple[str, ...] = ()  # requirement kinds it can meet ("error", "relative", "topc")
    elsewhere: str = ""  # why it cannot meet the other kinds (shown as the reason of an "n/a" row)
    accountant: str = "exact"  # "exact", or "paper" where the paper's accountant is used as printed
    uses_delta: bool = False  # (ε, δ)-DP rather than ε-DP
    accuracy: Accuracy | None = None  # accuracy at a fixed ε (None: no fixed-ε accuracy)
    solve: Solver | None = None  # smallest ε ≤ cap meeting the requirement (inf: none)
    reason: Callable[[Requirement], str] | None = None  # how the smallest ε is found, one line
    closed_form: bool = False  # the smallest ε meets the confidence exactly (no search)
    details: Callable[[float, Requirement, bool], dict] | None = None  # extra row fields at ε (forward: bool)
    sample: Callable[[_s.AuditSettings, np.random.Generator], _s.Sample] | None = None  # audit draws
    ledger: Callable[[float, float, Requirement], tuple[str, float, float]] | None = None  # (kind, ε, δ) per run

    @property
    def name(self) -> str:
        """What users see."""
        return NAMES[self.id].full

    @property
    def short(self) -> str:
        """A chart legend's name (the full one unless it would crowd the legend)."""
        return NAMES[self.id].short

    @property
    def negotiable(self) -> bool:
        """Has a row in the negotiate tables."""
        return bool(self.answers)


def _noise_reason(text: str) -> Callable[[Requirement], str]:
    return lambda req: text.format(bound=req.bound_text, k=req.k, theta=f"{req.theta:g}")


_NOT_SELECTION = "Not a selection mechanism: it releases a number, not which queries are above a threshold."
_NUMBERS = ("error", "relative")


def _pure(eps: float, delta: float, req: Requirement) -> tuple[str, float, float]:
    return "pure", eps, 0.0


def _approx(eps: float, delta: float, req: Requirement) -> tuple[str, float, float]:
    return "approx", eps, delta


REGISTRY: tuple[Mechanism, ...] = (
    Mechanism(
        "laplace",
        "adds Laplace noise of scale Δ/ε",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        accuracy=_a.laplace_accuracy,
        solve=_a.solve_laplace,
        closed_form=True,
        reason=_noise_reason("Laplace noise lands within {bound} with probability 1 − e^(−εθ/Δ); solved exactly."),
        sample=_s.sample_laplace,
        ledger=lambda eps, delta, req: ("laplace", eps, 0.0),
    ),
    Mechanism(
        "gaussian",
        "adds Gaussian noise calibrated exactly to (ε, δ)",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        uses_delta=True,
        accuracy=_a.gaussian_accuracy,
        solve=_a.solve_gaussian,
        closed_form=True,
        reason=lambda req: (
            f"Needs σ = θ/z (z the {(1 + req.confidence) / 2:.4g}-quantile of the standard normal); "
            f"the smallest ε with δ(ε) ≤ {req.delta:g} for that σ (analytic Gaussian)."
        ),
        sample=_s.sample_gaussian,
        ledger=lambda eps, delta, req: ("gaussian", eps, delta),
    ),
    Mechanism(
        "brdp",
        "redraws answers that land too far from the truth (budget recycling)",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        uses_delta=True,
        accuracy=_a.brdp_accuracy("exact"),
        solve=_a.solve_brdp_exact,
        details=_a.brdp_details("exact"),
        reason=_noise_reason(
            "Redraws answers outside {bound} (budget recycling); the smallest ε whose best plan "
            "reaches the confidence with δ checked by the exact accountant."
        ),
        sample=_s.sample_brdp_exact,
        ledger=_approx,
    ),
    Mechanism(
        "brdp_paper",
        "budget recycling calibrated with the paper's own accountant",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        accountant="paper",
        uses_delta=True,
        accuracy=_a.brdp_accuracy("paper"),
        solve=_a.solve_brdp_paper,
        details=_a.brdp_details("paper"),
        reason=_noise_reason(
            "The same search with the paper's accountant (Jiang et al. 2024, Alg. 1–2, Prop. 2), "
            "which can under-report δ."
        ),
        sample=_s.sample_brdp_paper,
        ledger=_approx,
    ),
    Mechanism(
        "r2dp",
        "Laplace noise whose scale is itself drawn at random",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        accuracy=_a.r2dp_accuracy(_a.R2DP_FAMILIES),
        details=_a.r2dp_details,
        solve=_a.solve_dominating_laplace(staircase_floor=True),
        reason=_noise_reason(
            "Laplace noise with a random scale: best of the paper's Gamma, uniform, "
            "truncated-normal laws and their combination (Laplace when none beats it)."
        ),
        sample=_s.sample_r2dp,
        ledger=_pure,
    ),
    Mechanism(
        "r2dp_two_point",
        "Laplace noise with one of two scales, chosen at random",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        accuracy=_a.r2dp_accuracy(("two_point",)),
        solve=_a.solve_dominating_laplace(staircase_floor=True),
        reason=_noise_reason("The best random Laplace scale of all: a law on two points."),
        ledger=_pure,
    ),
    Mechanism(
        "staircase",
        "the optimal ε-DP additive noise (Geng & Viswanath)",
        answers=_NUMBERS,
        elsewhere=_NOT_SELECTION,
        accuracy=_a.staircase_accuracy,
        solve=_a.solve_dominating_laplace(False),
        reason=_noise_reason("The optimal ε-DP additive noise for this target (Geng–Viswanath staircase)."),
        ledger=_pure,
    ),
    Mechanism(
        "noise_reduction",
        "starts very noisy and removes noise until the answer is accurate enough",
        answers=("relative",),
        elsewhere="Noise reduction stops by a relative-error rule; choose the relative-error requirement.",
        ledger=lambda eps, delta, req: ("pure", req.cap, 0.0),
    ),
    Mechanism(
        "svt_exp",
        "sparse vector technique: exponential noise on the queries, threshold raised by the optimal correction",
        answers=("topc",),
        elsewhere="SVT only says which queries are above a threshold; choose the top-c requirement.",
        accuracy=_a.svt_accuracy("exponential"),
        solve=_a.solve_svt,
        details=_a.svt_details("exponential"),
        reason=_noise_reason(
            "Exponential query noise, threshold raised by the optimal correction; {k} queries "
            "{theta} below are all rejected and the next one {theta} above is accepted."
        ),
        sample=_s.sample_svt_exp,
        ledger=_pure,
    ),
    Mechanism(
        "svt_laplace",
        "sparse vector technique with Laplace noise",
        answers=("topc",),
        elsewhere="SVT only says which queries are above a threshold; choose the top-c requirement.",
        accuracy=_a.svt_accuracy("laplace"),
        solve=_a.solve_svt,
        details=_a.svt_details("laplace"),
        reason=_noise_reason("Laplace query noise and no correction (Lyu et al. 2017), same success event."),
        ledger=_pure,
    ),
    Mechanism("rr", "each person reports the truth or a coin flip (local model)", sample=_s.sample_rr, ledger=_pure),
)

_BY_ID = {m.id: m for m in REGISTRY}
IDS = tuple(_BY_ID)
#: Older ids still accepted as input (links and notebooks written before the registry).
ALIASES = {"brdp_exact": "brdp"}


def canonical(mechanism: str, *, name: str = "mechanism", among: tuple[str, ...] = IDS) -> str:
    """The registry id of ``mechanism`` (an id or an older alias); ValueError naming ``name`` otherwise."""
    if isinstance(mechanism, str) and mechanism in ALIASES and ALIASES[mechanism] in among:
        return ALIASES[mechanism]
    return _v.choice(name, mechanism, among)


def get(mechanism: str) -> Mechanism:
    """The registry entry of a mechanism id (or alias)."""
    return _BY_ID[canonical(mechanism)]


def display_name(mechanism: str) -> str:
    """What users see for a mechanism id (or alias): "brdp" → "BR-DP (exact accountant)"."""
    return get(mechanism).name


def display_names() -> dict[str, str]:
    """Every id (and alias) → display name, e.g. for ``pandas.Series.map``."""
    out = {m.id: m.name for m in REGISTRY}
    out.update({old: _BY_ID[new].name for old, new in ALIASES.items()})
    return out


def ids_for(use: str) -> tuple[str, ...]:
    """Ids of the mechanisms with a role: "negotiate" (a row in the budget tables), "audit" (a sampler),
    "ledger" (a release for the privacy ledger)."""
    use = _v.choice("use", use, ("negotiate", "audit", "ledger"))
    has = {
        "negotiate": lambda m: m.negotiable,
        "audit": lambda m: m.sample is not None,
        "ledger": lambda m: m.ledger is not None,
    }[use]
    return tuple(m.id for m in REGISTRY if has(m))


def release(
    mechanism: str,
    epsilon: float,
    *,
    delta: float = 0.0,
    sensitivity: float = 1.0,
    compositions: int = 1,
    cap: float = 50.0,
    label: str | None = None,
    source: str = "",
) -> Release:
    """The ledger release of ``compositions`` runs of a mechanism calibrated at (ε, δ) for sensitivity Δ.

    The Gaussian is recorded by its σ (so its releases compose exactly); BR-DP at the δ given (pass the exact δ
    of its plan: the paper's accountant can under-report it);
    Laplace noise reduction is charged its ex-ante ε = ``cap`` (the ledger cannot use its ex-post ε).
    """
    m = get(mechanism)
    if m.ledger is None:
        raise ValueError(f"mechanism {m.id!r} has no ledger release")
    eps = _v.real("epsilon", epsilon, low=1e-50, high=1e50)  # the noise scale Δ/ε stays a representable scale
    dl = _v.probability("delta", delta, high_open=True)
    d = _v.positive("sensitivity", sensitivity)
    req = make_requirement(sensitivity=d, delta=dl if dl > 0 else 1e-5, cap=cap)
    kind, e, dd = m.ledger(eps, dl, req)
    text = label if label is not None else m.name
    build = {
        "laplace": lambda: laplace_release(d / e, sensitivity=d, compositions=compositions, label=text, source=source),
        "approx": lambda: approx_release(e, dd, compositions=compositions, label=text, source=source),
        "gaussian": lambda: gaussian_release(
            _acct.gaussian_sigma(e, dd, sensitivity=d),
            sensitivity=d,
            delta=dd,
            compositions=compositions,
            label=text,
            source=source,
        ),
        "pure": lambda: pure_release(e, compositions=compositions, label=text, source=source),
    }[kind]
    return build()
