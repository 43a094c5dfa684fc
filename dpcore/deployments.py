"""Privacy budgets of real deployments, each with its unit of privacy and a source a reader can open.

The table answers "what does this ε mean?" by comparison. Numbers are as published; where only a zCDP ρ is
published, ε at δ = :data:`COMPARISON_DELTA` is computed with :func:`dpcore.zcdp_to_dp` and marked as converted.
A budget only means something with its *unit*: ε per person for a whole census release is not ε per device per
day, which accumulates every day a device keeps reporting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from dpcore import _validate as _v
from dpcore import accounting as _acc

__all__ = ["COMPARISON_DELTA", "Deployment", "DEPLOYMENTS", "deployments_table"]

#: δ at which a published ρ is converted to ε for the comparison column (the Census Bureau's own choice).
COMPARISON_DELTA = 1e-10

_APPLE_OVERVIEW = (
    "Apple, “Differential Privacy Overview”",
    "https://www.apple.com/privacy/docs/Differential_Privacy_Overview.pdf",
)
_APPLE_SCALE = (
    "Apple Differential Privacy Team (2017), “Learning with Privacy at Scale”, Apple Machine Learning Research",
    "https://machinelearning.apple.com/research/learning-with-privacy-at-scale",
)
_CENSUS_PL = (
    "U.S. Census Bureau (2021), “Census Bureau Sets Key Parameters to Protect Privacy in 2020 Census "
    "Results” (redistricting data production settings)",
    "https://www.census.gov/newsroom/press-releases/2021/2020-census-key-parameters.html",
)
_CENSUS_DHC = (
    "Cumings-Menon et al. (2023), “Disclosure Avoidance for the 2020 Census Demographic and Housing "
    "Characteristics File”, arXiv:2312.10863",
    "https://arxiv.org/abs/2312.10863",
)
_APPLE_UNIT = "per device per day"
_APPLE_NOTE = (
    "Local model. A daily budget with no lifetime cap: a device that reports every day spends it again "
    "each day (Tang et al. 2017, arXiv:1709.02753, measured the budgets on macOS)."
)


@dataclass(frozen=True)
class Deployment:
    """One published budget: ε (and δ) or zCDP ρ, its unit of privacy, the model, a source and any dispute."""

    organisation: str
    name: str
    unit: str  # the unit of privacy the budget protects
    model: str  # "central" (a curator adds noise) or "local" (each device randomises its own data)
    source: str  # document title
    url: str
    epsilon: float | None = None  # as published
    delta: float = 0.0  # as published
    rho: float | None = None  # zCDP ρ as published
    note: str = ""  # disputes, rounding, how the number accumulates

    @property
    def comparable_epsilon(self) -> float:
        """ε for the comparison: as published, or ρ converted at δ = COMPARISON_DELTA."""
        if self.epsilon is not None:
            return self.epsilon
        assert self.rho is not None  # every entry publishes ε or ρ
        return float(_acc.zcdp_to_dp(self.rho, COMPARISON_DELTA))

    @property
    def converted(self) -> bool:
        """True when :attr:`comparable_epsilon` was computed here from ρ, not published."""
        return self.epsilon is None


def _apple(name: str, eps: float, unit: str = _APPLE_UNIT, note: str = "") -> Deployment:
    return Deployment(
        "Apple", name, unit, "local", *_APPLE_OVERVIEW, epsilon=eps, note=(note + " " + _APPLE_NOTE).strip()
    )


DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment(
        "U.S. Census Bureau",
        "2020 Census redistricting data (P.L. 94-171), persons",
        "per person, whole release",
        "central",
        *_CENSUS_PL,
        epsilon=17.14,
        delta=1e-10,
        rho=2.56,
        note="ρ is rounded in the announcement: ε = 17.14 corresponds to ρ ≈ 2.555 under the tight "
        "conversion of Canonne, Kamath & Steinke 2020. Counts declared invariant (state "
        "populations, housing units per block) are outside the budget.",
    ),
    Deployment(
        "U.S. Census Bureau",
        "2020 Census redistricting data (P.L. 94-171), housing units",
        "per housing unit, whole release",
        "central",
        *_CENSUS_PL,
        epsilon=2.47,
        delta=1e-10,
        rho=0.07,
        note="ρ is rounded in the announcement: ε = 2.47 corresponds to ρ ≈ 0.075 under the tight conversion "
        "(ρ = 0.07 exactly would give ε ≈ 2.39).",
    ),
    Deployment(
        "U.S. Census Bureau",
        "2020 Census Demographic and Housing Characteristics File, persons",
        "per person, whole release",
        "central",
        *_CENSUS_DHC,
        rho=4.96,
        note="Published as zCDP ρ; ε here is converted at δ = 1e-10 for comparison.",
    ),
    Deployment(
        "U.S. Census Bureau",
        "2020 Census Demographic and Housing Characteristics File, housing units",
        "per housing unit, whole release",
        "central",
        *_CENSUS_DHC,
        rho=7.70,
        note="Published as zCDP ρ; ε here is converted at δ = 1e-10 for comparison.",
    ),
    _apple(
        "QuickType keyboard suggestions", 16.0, note="Apple's overview gives ε = 16; some secondary sources quote 8."
    ),
    _apple("Emoji suggestions", 4.0),
    _apple("Lookup Hints", 4.0, unit="per donation (one report from a device)"),
    _apple("Health type usage", 2.0),
    _apple("Safari", 8.0),
    Deployment(
        "Google",
        "COVID-19 Community Mobility Reports",
        "per user per day",
        "central",
        "Aktay et al. (2020), “Google COVID-19 Community Mobility Reports: Anonymization Process "
        "Description”, arXiv:2004.04145",
        "https://arxiv.org/abs/2004.04145",
        epsilon=2.64,
        note="ε = 0.44 for each of six place categories per day; reports over many days add up.",
    ),
    Deployment(
        "Microsoft",
        "Windows telemetry (app usage)",
        "per device per 6 hours",
        "local",
        "Ding, Kulkarni & Yekhanin (2017), “Collecting Telemetry Data Privately”, NeurIPS, arXiv:1712.01524",
        "https://arxiv.org/abs/1712.01524",
        epsilon=1.672,
        note="Collected every 6 hours; memoisation stops repeated reports of an unchanged value from "
        "adding up, but changing values do.",
    ),
    Deployment(
        "LinkedIn",
        "Audience Engagements API",
        "per member per month",
        "central",
        "Rogers et al. (2020), “LinkedIn's Audience Engagements API: A Privacy Preserving Data Analytics "
        "System at Scale”, arXiv:2002.05839",
        "https://arxiv.org/abs/2002.05839",
        epsilon=34.9,
        delta=7e-9,
        note="A monthly budget per member for an analyst's queries.",
    ),
    Deployment(
        "Wikimedia Foundation",
        "Pageviews by country and project",
        "per device per day",
        "central",
        "Wikimedia Foundation, “Differential privacy” (documentation of the published datasets)",
        "https://meta.wikimedia.org/wiki/Differential_privacy",
        rho=0.015,
        note="Published as zCDP ρ; ε here is converted at δ = 1e-10 for comparison. The parameters have "
        "changed between versions of the dataset.",
    ),
)


def deployments_table(prior: float | None = None) -> pd.DataFrame:
    """The deployments as a table: organisation, deployment, ε (comparable), δ, ρ, converted, unit, model,
    source, url, note; with ``prior`` also the largest posterior an ε-DP release allows from that prior."""
    if prior is not None:
        prior = _v.probability("prior", prior)
    rows = []
    for d in DEPLOYMENTS:
        eps = d.comparable_epsilon
        row = {
            "organisation": d.organisation,
            "deployment": d.name,
            "epsilon": eps,
            "delta": d.delta if not d.converted else COMPARISON_DELTA,
            "rho": math.nan if d.rho is None else d.rho,
            "converted": d.converted,
            "unit": d.unit,
            "model": d.model,
            "source": d.source,
            "url": d.url,
            "note": d.note,
        }
        if prior is not None:
            row["posterior"] = float(_acc.posterior_bound(prior, eps))
        rows.append(row)
    return pd.DataFrame(rows)


def markdown() -> str:
    """The table as Markdown (what docs/deployments.md shows; a test keeps the two identical)."""
    lines = [
        "| Organisation | Deployment | ε | δ | ρ (zCDP) | Unit of privacy | Model | Source | Note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d in DEPLOYMENTS:
        eps = f"{d.comparable_epsilon:.3g} (converted)" if d.converted else f"{d.epsilon:g}"
        delta = f"{COMPARISON_DELTA:g}" if d.converted else (f"{d.delta:g}" if d.delta else "0")
        rho = "" if d.rho is None else f"{d.rho:g}"
        lines.append(
            f"| {d.organisation} | {d.name} | {eps} | {delta} | {rho} | {d.unit} | {d.model} | "
            f"[{d.source}]({d.url}) | {d.note} |"
        )
    return "\n".join(lines) + "\n"
