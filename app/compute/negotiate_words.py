"""The negotiation in words a director can sign: the total with its δ beside the plain sum, the leading alternatives
with one plain reason each, the assumptions (what is and is not covered), the release the "Run it" script performs,
and the budget split of several statistics. The page and its report both read these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import pandas as pd

from app.compute import negotiate as compute
from app.compute._cache import cached
from app.notation import delta as delta_text
from app.notation import number
from dpcore import negotiate_split as _split
from dpcore import release as _release
from dpcore.mechanisms import display_name

#: How many alternatives the summary names (the appendix lists them all).
TOP = 3


def app_version() -> str:
    """The installed DP Explorer version ("unknown" when run from a copy that was never installed)."""
    try:
        return metadata.version("dp-explorer")
    except metadata.PackageNotFoundError:
        return "unknown"


def total_words(comp: compute.Composition) -> str:
    """ "ε = 0.683 with δ = 10⁻⁵ (0.72 added up, with δ = 0)": the exact total beside the plain sum, each with its δ."""
    return (
        f"ε = {number(comp.total_epsilon, 3)} with δ = {delta_text(comp.total_delta)} "
        f"({number(comp.basic_epsilon, 3)} added up, with δ = {delta_text(comp.releases * comp.delta)})"
    )


def split_total(best: _split.Option) -> str:
    """A split's total with its δ beside the plain sum ("ε = 0.152 with δ = 0, the plain sum of the statistics' own
    ε" when they are the same)."""
    head = f"ε = {number(best.epsilon, 4)} with δ = {delta_text(best.delta)}"
    if best.added_up <= best.epsilon * (1 + 1e-12):
        return f"{head}, the plain sum of the statistics' own ε"
    return f"{head} ({number(best.added_up, 4)} added up)"


def requirement_words(req: compute.Requirement) -> str:
    """The requirement as a sentence a manager would say."""
    p = f"{number(100 * req.confidence, 4)} %"
    if req.kind == "error":
        what = f"Each released number within ±{number(req.theta)} of the truth in {p} of releases"
    elif req.kind == "relative":
        what = (
            f"Each released number within {number(100 * req.eta, 3)} % of a true value of about "
            f"{number(req.size)} (±{number(req.bound)}) in {p} of releases"
        )
    else:
        return (
            f"Of {req.below} queries {number(req.theta)} below a threshold, none is picked, and the next one "
            f"{number(req.theta)} above it is, in {p} of runs (top-{req.cutoff} selection)."
        )
    return f"{what}; one person changes the true number by at most Δ = {number(req.sensitivity)}."


def meaning_words(epsilon: float) -> str:
    """What ε means in one sentence, with its number."""
    return (
        f"ε = {compute.fmt_epsilon(epsilon)} means: whatever anyone knew before, one release can change the odds "
        f"of any conclusion about one person by at most a factor e^ε = {number(math.exp(epsilon), 4)}."
    )


@dataclass(frozen=True)
class Alternative:
    """A mechanism not recommended: its name, its smallest ε as text, and one plain reason."""

    name: str
    epsilon: str
    reason: str


def _plain(r: pd.Series, best: float, best_name: str) -> str:
    eps = float(r["epsilon"])
    if math.isinf(eps):
        return f"It cannot meet the requirement at any ε up to {number(compute.CAP)}."
    if math.isnan(eps):
        return "No answer could be computed for it at these settings."
    if r["mechanism"] == "brdp_paper":
        return (
            "Its budget rests on the paper's own accountant, which can under-report the privacy loss; only the "
            "exact accountant's figure can be signed."
        )
    if r["mechanism"] == "noise_reduction":
        return "Its stopping rule is a heuristic: its ε is an average over runs, not a promise for each release."
    if not bool(r["meets"]):
        return f"Even at its best it is accurate only {number(100 * float(r['accuracy']), 3)} % of the time."
    if not bool(r["sound"]):
        return "Its stated δ does not hold under the exact accountant."
    chance = (
        f", and it accepts a δ = {delta_text(float(r['delta']))} chance that the promise fails"
        if float(r["delta"]) > 0
        else ""
    )
    if eps <= best * (1 + compute.TIE):
        return f"It needs the same budget (within 1 %){chance}; {best_name} is simpler to explain and to deploy."
    return f"It needs {number(100 * (eps / best - 1), 2)} % more budget for the same accuracy{chance}."


def alternatives(neg: compute.Negotiation, top: int = TOP) -> tuple[Alternative, ...]:
    """The ``top`` leading alternatives to the answer, cheapest sound ones first, each with one plain reason."""
    df = neg.table
    ans = neg.answer
    rows = df[df["applicable"] & (df["mechanism"] != ans.mechanism)].copy()
    if rows.empty:
        return ()
    rows["eligible"] = rows["meets"] & rows["sound"] & (rows["mechanism"] != "brdp_paper")
    rows["order"] = rows["epsilon"].astype(float).fillna(math.inf)
    rows = rows.sort_values(["eligible", "order"], ascending=[False, True], kind="stable").head(top)
    best = ans.smallest if ans.mechanism and ans.smallest > 0 else math.nan
    return tuple(
        Alternative(
            str(r["label"]),
            compute._alternative_text(r),
            _plain(r, best, ans.name)
            if math.isfinite(best)
            else "No mechanism meets the requirement; this one comes closest.",
        )
        for _, r in rows.iterrows()
    )


def assumptions(
    req: compute.Requirement, answer: compute.Answer, comp: compute.Composition | None, page_delta: float
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(what the budget covers, what it does not), in plain sentences."""
    covered = [
        f"One person changes each released number by at most Δ = {number(req.sensitivity)} (a count: each person "
        "is counted once, in one category).",
        "The released numbers, and anything anyone later computes from them alone.",
    ]
    if comp is not None:
        covered.append(
            f"{comp.releases} releases of this kind: {total_words(comp)} in total, counted exactly "
            "(privacy-loss distributions)."
        )
    if req.kind != "topc":
        covered.append(
            f"Accuracy per number: each is within ±{number(req.bound)} of the truth with probability "
            f"{number(100 * req.confidence, 4)} %; in a table of many numbers about "
            f"{number(100 * (1 - req.confidence), 3)} % of them fall further out."
        )
    not_covered = [
        "Other releases from the same people (by this team or anyone else): their budgets add to this one.",
        "More releases than planned: every further release spends the budget again.",
        "The list of categories: it must be public knowledge (e.g. every county), never read off the data.",
        "The computer's arithmetic: the guarantee is proven for exact noise; the script's notes say how its "
        "floating-point noise is handled and when to use exact samplers instead.",
    ]
    if answer.delta > 0 or page_delta > 0:
        not_covered.append(
            f"With probability δ (here at most {delta_text(max(answer.delta, page_delta))}) the "
            "promise may fail; keep δ far below 1 / (number of people)."
        )
    return tuple(covered), tuple(not_covered)


def recommended_plan(req: compute.Requirement, answer: compute.Answer) -> _release.Plan | None:
    """The release the script performs: counts per category of the example's column with the recommended noise
    (None for top-c selection or when nothing meets the requirement)."""
    if req.kind not in ("error", "relative") or answer.mechanism not in _release.NOISES or not answer.epsilon > 0:
        return None
    return _release.plan(
        "counts",
        _release.EXAMPLE_COLUMNS["counts"],
        answer.mechanism,
        answer.epsilon,
        delta=answer.delta,
        bound=req.bound,
        confidence=req.confidence,
        sensitivity=req.sensitivity,
        kernel=req.kernel,
    )


# ------------------------------------------------------------------------------------------------------------------
# several statistics at once
# ------------------------------------------------------------------------------------------------------------------

#: The statistics a split row can be.
KINDS = ("counts", "sum", "mean")


@dataclass(frozen=True)
class StatRow:
    """One row of the split's table, as plain scalars (hashable: the cache key)."""

    name: str
    kind: str
    bound: float
    confidence: float
    lower: float = 0.0
    upper: float = 1.0
    rows: int = 1
    sensitivity: float = 1.0  # counts only

    @property
    def delta_of(self) -> float:
        """Δ of the released number: a count's Δ; max(|lower|, |upper|) for a sum; that over the rows for a mean."""
        if self.kind == "counts":
            return self.sensitivity
        widest = max(abs(self.lower), abs(self.upper))
        return widest / self.rows if self.kind == "mean" else widest

    def words(self) -> str:
        extra = ""
        if self.kind != "counts":
            extra = f", values clipped to [{number(self.lower)}, {number(self.upper)}]"
            if self.kind == "mean":
                extra += f" over {number(self.rows)} rows"
        return f"{self.name}: within ±{number(self.bound)} with probability {number(100 * self.confidence, 4)} %{extra}"


#: The example of several statistics the panel starts from.
EXAMPLE_ROWS = (
    StatRow("counts per county", "counts", 50.0, 0.95),
    StatRow("mean income", "mean", 500.0, 0.90, 0.0, 200_000.0, 10_000),
)


@cached(show_spinner="Splitting the budget …")
def split(rows: tuple[StatRow, ...], delta: float) -> _split.Split:
    """The split with the smallest total ε at δ (dpcore.negotiate_split)."""
    return _split.split([_split.statistic(r.name, r.bound, r.confidence, r.delta_of) for r in rows], delta=delta)


def split_plans(rows: tuple[StatRow, ...], result: _split.Split) -> tuple[_release.Plan, ...]:
    """The releases of a split, for the script: each statistic's noise at its exact scale."""
    out = []
    for r, sh in zip(rows, result.shares, strict=True):
        column = _release.EXAMPLE_COLUMNS[r.kind]
        delta = result.best.delta if sh.mechanism == "gaussian" else 0.0
        eps = sh.epsilon if sh.epsilon > 0 else 1e-9
        scale = sh.scale if sh.mechanism in ("laplace", "gaussian") else None
        kw: dict[str, Any] = (
            {"sensitivity": r.sensitivity}
            if r.kind == "counts"
            else {"lower": r.lower, "upper": r.upper, **({"rows": r.rows} if r.kind == "mean" else {})}
        )
        out.append(
            _release.plan(
                r.kind,
                column,
                sh.mechanism,
                eps,
                delta=delta,
                bound=r.bound,
                confidence=r.confidence,
                scale=scale,
                **kw,
            )
        )
    return tuple(out)


def split_table(result: _split.Split) -> pd.DataFrame:
    """The split as shown: statistic, noise, its own ε, its share of the total."""
    return pd.DataFrame(
        {
            "statistic": [s.name for s in result.shares],
            "noise": [display_name(s.mechanism).split(" (")[0] for s in result.shares],
            "noise scale": [number(s.scale, 4) if math.isfinite(s.scale) else "—" for s in result.shares],
            "its own ε": [number(s.epsilon, 4) for s in result.shares],
            "share of the total": [f"{number(100 * s.share, 3)} %" for s in result.shares],
        }
    )
