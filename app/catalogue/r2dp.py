"""Catalogue entries of the R²DP page and lesson (see app/catalogue/__init__.py for what an entry holds).

R²DP draws the inverse Laplace scale u = 1/b at random from a *mixing law* before adding Laplace noise. The laws'
parameters get symbols of their own (ν, s for the Gamma law; uₗ, uₕ for the Uniform law; μₙ, σₙ, ℓ for the truncated
normal; u₀, u₁, p₀ for the two-point law), so none of them clashes with a symbol that means something else elsewhere
in the app (θ is the error tolerance, k is SVT's count, σ the Gaussian noise scale).
"""

from __future__ import annotations

from typing import NamedTuple

from app.catalogue._core import Param, choice, log_grid, register
from dpcore.r2dp import FAMILY_WORDS


class Family(NamedTuple):
    """A mixing-law family of the R²DP page in the words each place shows it in."""

    label: str  # a choice of the sidebar and of the maps' selectors
    words: str  # inside a sentence: "this gamma law", "R²DP gamma release", "best gamma U(γ)"
    legend: str  # its best law's curve in a chart's legend, and a map's title ("*": the family's optimum)
    table: str  # its best law's row in a table


#: The mixing-law families of the page, by the id the address bar carries (``fam=truncnorm``) and
#: :func:`dpcore.r2dp.optimize` takes (:data:`dpcore.r2dp.FAMILIES`), in the sidebar's order: the one table of their
#: words, which the page, its charts, its tables and the lesson read.
FAMILY = {
    "laplace": Family("none (plain Laplace)", FAMILY_WORDS["laplace"], "Laplace", "Laplace"),
    "two_point": Family(
        "two-point", FAMILY_WORDS["two_point"], "two-point (global R²DP optimum)", "two-point (global)"
    ),
    "gamma": Family("Gamma", FAMILY_WORDS["gamma"], "Gamma*", "Gamma"),
    "uniform": Family("Uniform", FAMILY_WORDS["uniform"], "Uniform*", "Uniform"),
    "truncnorm": Family("truncated normal", FAMILY_WORDS["truncnorm"], "truncated normal*", "truncated normal"),
    "combo": Family(
        "Gamma + truncated normal",
        FAMILY_WORDS["combo"],
        "Gamma + truncated normal* (Algorithm 1)",
        "Gamma + truncated normal (Algorithm 1)",
    ),
}
FAMILIES = tuple(FAMILY)


def _labels(ids: tuple[str, ...]) -> dict[str, str]:
    """The sidebar's words for these families."""
    return {k: FAMILY[k].label for k in ids}


_NONNEG = (0.0, *log_grid(0.01, 100.0))

register(
    Param(
        "gamma",
        "γ",
        "error tolerance",
        "How far from the truth an answer may be and still count as useful: the page's score is the chance U(γ) "
        "that the noise is at most γ in size (the paper's (γ, ζ)-usefulness asks for U(γ) ≥ 1 − ζ). The same idea "
        "as the error tolerance θ of the other pages, in the R²DP paper's own letter.",
        0.1,
        log_grid(0.01, 5.0),
        glossary="error tolerance",
        same_idea_as=("theta",),
        topic="r2dp",
    ),
    Param(
        "fam",
        "",
        "mixing law of u = 1/b",
        "The law from which the inverse noise scale u = 1/b is drawn, fresh and secret, before each release. "
        "None: u is fixed, plain Laplace noise. Gamma + truncated normal: the sum of the two (the paper's "
        "Algorithm 1).",
        "gamma",
        FAMILIES,
        kind="choice",
        labels=_labels(FAMILIES),
        glossary="Laplace mechanism",
        topic="r2dp",
    ),
    Param(
        "lock",
        "",
        "lock ε",
        "On: the law is rescaled so that its exact ε equals the budget ε. Off: the law's parameters are free and "
        "its own exact ε is reported (it may exceed the budget).",
        True,
        kind="toggle",
        glossary="ε (epsilon)",
        topic="r2dp",
    ),
    Param(
        "shape",
        "ν",
        "shape of the Gamma law",
        "How concentrated the Gamma law of u is: large ν puts u close to its mean (nearly plain Laplace), small ν "
        "spreads it out and gives the noise heavy tails.",
        2.0,
        log_grid(0.1, 100.0),
        topic="r2dp",
    ),
    Param(
        "gscale",
        "s",
        "scale of the Gamma law",
        "The typical size of u under the Gamma law (its mean is ν·s). With lock ε on it is solved from the budget.",
        1.0,
        log_grid(0.01, 100.0),
        topic="r2dp",
    ),
    Param(
        "ulo",
        "uₗ",
        "lower end of u (Uniform law)",
        "The smallest inverse scale the Uniform law can draw, i.e. the largest noise scale 1/uₗ it can use. "
        "At 0 the noise can be arbitrarily large.",
        0.5,
        _NONNEG,
        topic="r2dp",
    ),
    Param(
        "uhi",
        "uₕ",
        "upper end of u (Uniform law)",
        "The largest inverse scale the Uniform law can draw, i.e. the smallest noise scale 1/uₕ it can use.",
        10.0,
        log_grid(0.01, 100.0),
        topic="r2dp",
    ),
    Param(
        "nmu",
        "μₙ",
        "centre of the normal law",
        "Where the normal law of u is centred before it is cut at ℓ; far below ℓ the cut law looks like ℓ plus an "
        "exponential.",
        2.0,
        tuple(i / 2 for i in range(-40, 41)),
        topic="r2dp",
    ),
    Param(
        "nsigma",
        "σₙ",
        "spread of the normal law",
        "How widely the normal law of u spreads around its centre before it is cut at ℓ.",
        2.0,
        log_grid(0.01, 100.0),
        topic="r2dp",
    ),
    Param(
        "ncut",
        "ℓ",
        "lower cut of the normal law",
        "The smallest value u can take under the truncated normal law: the noise scale is never above 1/ℓ.",
        0.5,
        _NONNEG,
        topic="r2dp",
    ),
    Param(
        "u0",
        "u₀",
        "first value of u (two-point law)",
        "The two-point law draws u₀ with probability p₀, else u₁. Below ε/Δ it adds more noise than Laplace, above "
        "it less.",
        0.5,
        log_grid(0.01, 1000.0),
        topic="r2dp",
    ),
    Param(
        "u1",
        "u₁",
        "second value of u (two-point law)",
        "The other value of the two-point law. Mixing one value below ε/Δ with one above can meet the budget exactly "
        "and be more often within γ than Laplace.",
        50.0,
        log_grid(0.01, 1000.0),
        topic="r2dp",
    ),
    Param(
        "p0",
        "p₀",
        "chance of the first value",
        "The probability that the two-point law draws u₀. With lock ε on it is solved from the budget.",
        0.3,
        tuple(round(i / 100, 2) for i in range(101)),
        topic="r2dp",
    ),
    Param(
        "logf",
        "",
        "log density axis",
        "A logarithmic density axis shows the tails: R²DP noise decays more slowly than Laplace noise.",
        False,
        kind="toggle",
        topic="r2dp",
    ),
    Param(
        "nrel",
        "",
        "releases to simulate",
        "How many independent releases of the same true answer the simulator draws.",
        1000,
        (10, 30, 100, 300, 1000, 3000, 10000),
        topic="r2dp",
    ),
    Param(
        "reveal",
        "",
        "reveal the secret u",
        "For teaching only: shows the secret draws of u. Publishing u breaks the privacy guarantee.",
        False,
        kind="toggle",
        topic="r2dp",
    ),
    Param(
        "mapfam",
        "",
        "family of the region map",
        "Which family's best law is compared with Laplace across ε and γ/Δ.",
        "gamma",
        ("gamma", "uniform", "truncnorm", "combo", "two_point"),
        kind="choice",
        labels=_labels(("gamma", "uniform", "truncnorm", "combo", "two_point")),
        topic="r2dp",
    ),
    Param(
        "f3g",
        "",
        "error tolerance of the Fig. 3 maps",
        "The error tolerance γ at which the Fig. 3 maps compare Laplace with R²DP (the paper does not say which).",
        "0.1",
        ("0.05", "0.1", "0.5", "1"),
        kind="choice",
        topic="r2dp",
    ),
    Param(
        "f3f",
        "",
        "family of the Fig. 3 maps",
        "Which family's best law the Fig. 3 maps show.",
        "gamma",
        ("gamma", "uniform", "truncnorm"),
        kind="choice",
        labels=_labels(("gamma", "uniform", "truncnorm")),
        topic="r2dp",
    ),
    choice(
        "squery",
        "statistical query",
        "A count (one person changes it by at most 1) or an average (by at most 0.2, as in the paper).",
        {"count": "count (Δ = 1)", "average": "average (Δ = 0.2)"},
        topic="r2dp",
    ),
    choice(
        "data",
        "classification data",
        "Stand-ins with the shape of the paper's data sets (made-up records, not the real ones).",
        {"adult": "census-like (Adult stand-in)", "kdd": "network-log-like (KDD Cup 99 stand-in)"},
        topic="r2dp",
    ),
    Param(
        "simthr",
        "",
        "similarity threshold",
        "Two authors who have not written together are recommended to each other when the share of their "
        "co-authors they have in common is above this threshold.",
        0.5,
        (0.5, 0.6, 0.7, 0.8, 0.9),
        topic="r2dp",
    ),
)
