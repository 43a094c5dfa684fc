"""The Accuracy-first page: noise reduction that stops once accurate, and privacy filters that keep the total.

Rogers, Samorodnitsky, Wu & Ramdas (NeurIPS 2023). Page shape as everywhere: :class:`Settings` holds the sidebar's
values, :func:`sidebar` draws them from the catalogue, :func:`render` draws the idea first, then the headline numbers,
then the explore parts (:mod:`.explore`) or the paper's results (:mod:`.reproduce`). Numbers come from
:mod:`app.compute.noise_reduction`, charts from :mod:`app.figures.noise_reduction`; nothing here computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app import decks, instant, ledger, params, ui
from app.compute import noise_reduction as compute
from app.notation import number, odds_factor, percent
from app.views._metrics import metric_row
from app.views.noise_reduction import explore, reproduce
from dpcore import ledger as dl

TITLE = "Accuracy first: noise reduction and privacy filters"
IDEA = (
    "Instead of fixing the privacy budget and living with the noise it gives, release a very noisy answer, remove "
    "noise step by step, and stop as soon as the answer is accurate enough: you pay only for the noise level where "
    "you stopped."
)
#: What "The paper in depth" holds on this page.
IN_DEPTH = (
    "Rogers, Samorodnitsky, Wu & Ramdas (NeurIPS 2023) in detail: the budget in zCDP terms, where the noise paths "
    "stop, why only the last release costs privacy, the privacy filters, the cost against doubling, and the "
    "martingale behind the proof."
)
#: URL word of the filter constant → dpcore's variant
VARIANTS = {"corrected": "corrected", "printed": "as_printed"}
PAPER_DELTA = 1e-6  # δ'' of the paper's experiments (Section 7.2), the page's default δ


@dataclass(frozen=True)
class Settings:
    """The sidebar's values (the controls of one part are drawn at the top of that part)."""

    view: str
    eps: float
    delta: float
    eta: float
    y: float
    K: int
    spacing: str
    process: str
    m: int
    const: str
    seed: int

    @property
    def variant(self) -> str:
        """dpcore's name of the filter constant."""
        return VARIANTS[self.const]

    @property
    def unit(self) -> str:
        """What one release is charged in: ρ_T (Brownian, zCDP) or ε_T (Laplace, plain DP)."""
        return "ρ_T" if self.process == "brownian" else "ε_T"

    def grid_args(self) -> tuple[float, float, str, int, str]:
        """(ε, δ, variant, K, spacing): the arguments that fix the grid of noise levels."""
        return self.eps, self.delta, self.variant, self.K, self.spacing


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        st.header("Controls")
        view = params.view()
        s = Settings(
            view=view,
            eps=float(params.control("eps")),
            delta=float(params.control("delta", default=PAPER_DELTA)),
            eta=float(params.control("eta")),
            y=float(params.control("y")),
            K=int(params.control("K")),
            spacing=str(params.control("spacing")),
            process=str(params.control("process")),
            m=int(params.control("m")),
            const=str(params.control("const")),
            seed=int(params.control("seed")),
        )
        ui.share_hint()
    return s


def render(s: Settings) -> None:
    """The newcomer layer (the idea and its picture, then what it buys in sentences), then "The paper in depth": the
    budget in the paper's terms and one explore part, or the paper's results in the reproduce view."""
    ui.header(TITLE, IDEA)
    short = shortfall(s)
    if short is None:
        idea(s)
        headline(s)
        offer(s)
    if s.view == "reproduce":
        reproduce.render(s)
        return
    ui.paper_in_depth(IN_DEPTH)
    if short is None:
        numbers(s)
    explore.render(s, feasible=short is None)


def idea(s: Settings) -> None:
    """The picture of the idea: one noise path shrinking onto y, stopping once it is accurate enough."""
    with ui.panel(
        "The idea: remove noise until the answer is good enough",
        "the released value (green) starts far from the true count and homes in on it as the noise level ε grows. "
        "The release stops at ×, the first level where it can tell it is within the tolerance η; everything to the "
        "right is never released, so its privacy is never spent.",
    ):
        df, _ = compute.paths(*s.grid_args(), s.y, s.eta, "brownian", s.seed)
        ui.chart(
            instant.figure(
                decks.noise_reduction_idea,
                "eta",
                s.eta,
                s.grid_args(),
                s.y,
                s.seed,
                slot="noise-reduction-idea",
                play=True,
            ),
            df[df["path"] == 1],
            name="idea",
            alt="One Brownian noise-reduction path: the released value against the noise level, converging on "
            "the true count, with the point where it stopped marked.",
        )


def headline(s: Settings) -> None:
    """What the budget buys, in sentences, each number with what it means (meaning first: ε, then the cost of one
    count, then many counts under one filter)."""
    with ui.panel("What this budget buys"):
        _, summ = compute.stopping(*s.grid_args(), s.y, s.eta, s.process, s.seed)
        got = compute.odometer_summary(compute.odometer(*s.grid_args(), s.y, s.eta, s.m, s.seed))
        paper = " (the paper's choice)" if s.delta == PAPER_DELTA else ""
        how = "Brownian" if s.process == "brownian" else "Laplace"
        whole = " (the whole budget)" if s.process == "brownian" else ""
        st.markdown(
            f"Your budget is ε = {number(s.eps)} with δ = {number(s.delta)}{paper}: whatever is released, one "
            f"person's data can change its odds by at most {odds_factor(s.eps)} (e^ε), except with a chance δ.\n\n"
            f"A count of y = {number(s.y)}, released by removing {how} noise step by step, was accurate enough "
            f"(within η = {percent(s.eta, 0)} of the truth) early: in the median of {compute.N_RUNS} runs it paid "
            f"**{percent(summ.median_charge / summ.worst_charge)}** of what its least noisy level costs{whole}. It "
            "pays only for the level where it stopped (the × in the picture). The stopping rule sees only the noisy "
            f"answer, so a few slip: {percent(summ.precision)} of the accepted answers were truly within "
            f"{percent(s.eta, 0)}.\n\n"
            "A **privacy filter** lets many releases share one budget and refuses any release that could overrun "
            f"it: under it, a queue of m = {s.m} counts gets **{got.noise_reduction}** released this way, against "
            f"{got.doubling} by doubling (trying again with twice the budget after each failure, and paying for "
            "every try)."
        )


def numbers(s: Settings) -> None:
    """The numbers in the paper's terms (zCDP ρ, the stopping level's charge), each with its help."""
    with ui.panel("The budget and the cost of one count, in the paper's terms", paper="Theorem 6"):
        b = compute.budget(s.eps, s.delta, s.variant)
        _, summ = compute.stopping(*s.grid_args(), s.y, s.eta, s.process, s.seed)
        got = compute.odometer_summary(compute.odometer(*s.grid_args(), s.y, s.eta, s.m, s.seed))
        metric_row(
            (
                "zCDP budget ρ*",
                number(b.rho),
                f"What the filter may spend over all releases together: the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε = "
                f"{number(s.eps)} at δ = {number(s.delta)}. A release that stops at level ε_T uses ε_T²/2 "
                "of it.",
            ),
            (
                f"Typical cost of one count, {s.unit}",
                number(summ.median_charge, 4),
                f"What one noise reduction of y = {number(s.y)} actually paid in the median of "
                f"{compute.N_RUNS} runs: the cost of the level where it stopped.",
            ),
            (
                f"Cost if it never stopped, {s.unit}",
                number(summ.worst_charge, 4),
                "What the same release would cost at the least noisy level it was allowed: the price a mechanism "
                "with a fixed noise level would have to declare in advance.",
            ),
            (
                "Counts returned, vs doubling",
                f"{got.noise_reduction} vs {got.doubling}",
                f"Of a queue of m = {s.m} counts (largest y), how many each method releases within η under this "
                "one budget. Doubling retries with twice the ε² and pays for every failed try.",
            ),
        )


def offer(s: Settings) -> None:
    """Offer this page's release of y to the cross-page privacy ledger (never takes the page down)."""
    try:
        top = compute.budget(s.eps, s.delta, s.variant).epsilon_max
        _, summ = compute.stopping(*s.grid_args(), s.y, s.eta, s.process, s.seed)
        if s.process == "brownian":
            ledger.offer(
                dl.noise_reduction_release(
                    summ.median_epsilon_stop,
                    epsilon_max=top,
                    delta=s.delta,
                    label=f"noise reduction of y = {number(s.y)}",
                    source="noise_reduction",
                )
            )
        else:  # a Laplace noise reduction cannot join the zCDP filter: its declared pure ε is the top level
            ledger.offer(
                dl.pure_release(top, label=f"Laplace noise reduction of y = {number(s.y)}", source="noise_reduction")
            )
    except Exception:  # noqa: BLE001 — the ledger offer is a convenience; the panels show any error
        pass


def shortfall(s: Settings) -> compute.Shortfall | None:
    """One page-level warning when the budget is valid but reaches no noise level (e.g. ε ≤ 0.05 at δ = 10⁻⁶)."""
    try:
        short = compute.shortfall(s.eps, s.delta, s.variant)
    except ValueError as exc:
        ui.show_error(exc)
        return None
    if short is not None:
        after = (
            " The paper's results below use its own ε = 10."
            if s.view == "reproduce"
            else " Only the filter and cost parts work without a noise level."
        )
        st.warning(
            f"**No count can be released at ε = {number(s.eps)}, δ = {number(s.delta)}.** The combination is "
            "valid, but the filter's budget allows noise levels up to ε_max = √(2ρ*) = "
            f"{number(short.epsilon_max, 3)} only, below the first level of every grid, ε_min = "
            f"{number(short.epsilon_min)} (the paper's smallest level, ε² = 10⁻⁴).{after} Raise ε above "
            f"{number(short.epsilon_needed, 3)} (or raise δ) to release counts.",
            icon=":material/info:",
        )
    return short
