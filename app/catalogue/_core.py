"""The catalogue's core: the ``Param`` record, the registry and the shared entries (see
``app/catalogue/__init__.py``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.catalogue.glossary import GLOSSARY
from app.notation import number

Kind = Literal["slider", "choice", "toggle", "seed"]

#: The largest random seed a control takes (numpy's seeds go further; an address keeps it short).
SEED_MAX = 2**31 - 1
_E_SERIES = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def log_grid(low: float, high: float, mantissas: Sequence[float] = _E_SERIES) -> tuple[float, ...]:
    """Human-friendly log-spaced values m·10^k (m from an E-series) in [low, high], each appearing once."""
    out = []
    for k in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        for m in mantissas:
            v = float(f"{m * 10.0**k:.6g}")
            if low * (1 - 1e-12) <= v <= high * (1 + 1e-12):
                out.append(v)
    return tuple(sorted(set(out)))


def int_log_grid(low: int, high: int, mantissas: Sequence[float] = _E_SERIES) -> tuple[int, ...]:
    """Log-spaced whole numbers in [low, high] with no repeated stop (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20 …)."""
    return tuple(sorted({int(round(v)) for v in log_grid(low, high, mantissas)}))


def fmt_number(v: Any) -> str:
    """The URL value of a grid value: 0.01, 1.5, 20, 1e-05 (the reader sees :meth:`Param.words`: 10⁻⁵)."""
    return f"{v:g}" if isinstance(v, int | float) and not isinstance(v, bool) else str(v)


@dataclass(frozen=True)
class Param:
    """One user-facing parameter.

    ``key`` is its URL key (``?eps=2``); ``symbol`` the letter used on screen and in the lessons ("" for plain
    controls such as the random seed); ``grid`` the values a slider stops at, or the option ids of a choice, whose
    on-screen words are ``labels``; ``help`` says what the quantity means; ``glossary`` names a :data:`GLOSSARY` term.
    """

    key: str
    symbol: str
    name: str
    help: str
    default: Any
    grid: tuple[Any, ...] = ()
    kind: Kind = "slider"
    unit: str = ""
    labels: Mapping[Any, str] = field(default_factory=dict)
    glossary: str | None = None
    same_idea_as: tuple[str, ...] = ()
    ends: tuple[str, str] | None = None  # words under a slider's two ends ("← more private", "more accurate →")
    topic: str = "shared"

    @property
    def label(self) -> str:
        """The control's label: "ε — privacy-loss budget", or the name alone when there is no symbol."""
        words = f"{self.name} ({self.unit})" if self.unit else self.name
        return f"{self.symbol} — {words}" if self.symbol else words[:1].upper() + words[1:]

    def fmt(self, value: Any) -> str:
        """The URL form of a value (``1e-05``)."""
        if self.kind == "toggle":
            return "true" if value else "false"
        return fmt_number(value)

    def words(self, value: Any) -> str:
        """What the learner reads for a value: the option's label for a choice, a number as people write it
        (``10⁻⁵``; also the slider's stop labels), else the URL form."""
        if self.kind == "choice":
            return self.labels.get(value, self.fmt(value))
        if isinstance(value, int | float) and not isinstance(value, bool):
            return number(value)
        return self.fmt(value)

    @property
    def numeric(self) -> bool:
        return self.kind == "slider" and all(isinstance(v, int | float) for v in self.grid)


def choice(key: str, name: str, help: str, labels: Mapping[Any, str], *, default: Any = None, **more: Any) -> Param:
    """A choice without a symbol between the options of ``labels`` (option id → its words, in the order shown); the
    first option is the default unless ``default`` names another."""
    options = tuple(labels)
    first = options[0] if default is None else default
    return Param(key, "", name, help, first, options, kind="choice", labels=labels, **more)


CATALOGUE: dict[str, Param] = {}


def register(*params: Param) -> None:
    """Add entries; a URL key may be defined once only."""
    for p in params:
        if p.key in CATALOGUE:
            raise ValueError(f"parameter {p.key!r} is defined twice in the catalogue")
        if p.kind in ("slider", "choice") and p.default not in p.grid:
            raise ValueError(f"parameter {p.key!r}: default {p.default!r} is not one of its values")
        if p.glossary is not None and p.glossary not in GLOSSARY:
            raise ValueError(f"parameter {p.key!r}: no glossary entry {p.glossary!r}")
        CATALOGUE[p.key] = p


def get(key: str) -> Param:
    """The catalogue entry of a URL key."""
    try:
        return CATALOGUE[key]
    except KeyError:
        raise KeyError(f"{key!r} is not in the parameter catalogue (app/catalogue)") from None


# ------------------------------------------------------------------------------------------------------------------
# Shared parameters: used by several pages and lessons
# ------------------------------------------------------------------------------------------------------------------

#: The default privacy-loss budget of every page (a page that needs another one says why on screen).
DEFAULT_EPSILON = 1.0

register(
    Param(
        "eps",
        "ε",
        "privacy-loss budget",
        "How much one person's data may change what the output reveals: every output is at most e^ε times as likely "
        "with that person as without. Smaller ε: more private, more noise. The slider is logarithmic.",
        DEFAULT_EPSILON,
        log_grid(0.01, 20.0),
        glossary="ε (epsilon)",
        ends=("← more private", "more accurate →"),
    ),
    Param(
        "delta",
        "δ",
        "failure probability",
        "The small probability with which the e^ε promise may fail. Keep it far below 1 / (number of people).",
        1e-5,
        log_grid(1e-12, 0.1, (1.0, 2.0, 5.0)),
        glossary="δ (delta)",
    ),
    Param(
        "sens",
        "Δ",
        "sensitivity",
        "The most one person can change the true answer (1 for a count). The noise needed grows in proportion.",
        1.0,
        log_grid(0.1, 10.0),
        glossary="sensitivity Δ",
    ),
    Param(
        "theta",
        "θ",
        "error tolerance",
        "How far from the truth an answer may be and still count as accurate: a release is accurate when its noise "
        "is at most θ in size.",
        1.0,
        log_grid(0.1, 100.0),
        glossary="error tolerance",
        same_idea_as=("gamma", "alpha", "eta"),
    ),
    Param(
        "T",
        "T",
        "number of releases",
        "How many times a mechanism is run on the same data. Privacy losses add up over the releases.",
        10,
        int_log_grid(1, 1000),
        glossary="composition",
    ),
    choice(
        "calib",
        "Gaussian calibration",
        "How σ is chosen for a given (ε, δ). Analytic: the smallest σ that is (ε, δ)-DP (Balle & Wang 2018). "
        "Classic: the textbook σ = Δ√(2 ln(1.25/δ))/ε, proven only for ε < 1 and always noisier.",
        {"analytic": "analytic (tight)", "classic": "classic (textbook)"},
        glossary="Gaussian mechanism",
    ),
    Param(
        "seed",
        "",
        "random seed",
        "Same seed, same random draws: share the link and others see exactly your samples. Any whole number from 0 "
        f"to {SEED_MAX:,}.",
        0,
        kind="seed",
    ),
    choice(
        "view",
        "view",
        "Explore the ideas with your own settings, or reproduce the paper's figures at the paper's settings.",
        {"explore": "Explore", "reproduce": "Reproduce the paper"},
    ),
)
