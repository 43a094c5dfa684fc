"""The Local DP page (Pan 2023): what the answers actually revealed, and the Bayesian privacy filter.

Page shape (the same on every page): :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls
from the parameter catalogue and returns them, :func:`render` draws the page, one function per panel. The explore
view has three URL-bound parts (``?part=``): :mod:`.beliefs`, :mod:`.filter` and :mod:`.continuous`; the reproduce
view (:mod:`.reproduce`) has its own. Numbers come from :mod:`app.compute.ldp`, charts from :mod:`app.figures.ldp`.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

from app import ledger, params, ui
from app.compute import ldp as C
from app.figures import ldp as F
from app.notation import number, odds_factor
from app.views._metrics import metric_row
from app.views._parts import open_part
from app.views.ldp import beliefs, continuous, privacy_filter, reproduce
from app.views.ldp._settings import Settings
from dpcore import ledger as dl

TITLE = "Local DP: what did the answers actually reveal?"
IDEA = (
    "In **local** differential privacy each person randomizes their own answer before sending it; an answer at budget "
    "ε *could* move anyone's belief about the person by a factor e^ε, but the answers that really came out usually "
    "move it much less, so a filter that charges only what was actually revealed can answer many more questions."
)
#: What "The paper in depth" holds on this page.
IN_DEPTH = (
    "Mingen Pan (2023) in detail: beliefs before and after the answers, the realized loss of every answer pattern, "
    "the Bayesian privacy filter step by step, and continuous domains."
)
EXPLORE_PARTS = {"Beliefs": beliefs.render, "Filter": privacy_filter.render, "Continuous": continuous.render}

__all__ = ["EXPLORE_PARTS", "IDEA", "TITLE", "Settings", "render", "sidebar"]


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        view = params.view()
        st.header("Controls")
        s = Settings(
            view=view,
            eps=float(params.control("eps")),
            epsg=float(params.control("epsg")),
            nq=int(params.control("nq")),
            dsize=int(params.control("dsize")),
            xtrue=int(params.control("xtrue")),
            family=str(params.control("family")),
            prior=str(params.control("prior")),
            stmt=str(params.control("stmt")),
            weight=float(params.control("weight")),
            regkind=str(params.control("regkind")),
            seed=int(params.control("seed")),
            ratio=bool(params.control("showratio")),
        )
        if view == "reproduce":
            st.caption("The reproduce view uses the paper's own settings; these controls drive the explore view.")
        ui.share_hint()
    return s


def render(s: Settings) -> None:
    """The newcomer layer (the idea and its picture, then what the answers revealed and how many queries the filter
    answers, in sentences), then "The paper in depth": the numbers in the paper's terms and one part at a time."""
    ui.header(TITLE, IDEA)
    ledger.offer(  # the filter keeps the realized loss of the whole session ≤ ε_G: an ε_G-LDP session
        dl.pure_release(s.epsg, label=f"Local DP filter session, budget {number(s.epsg)} per person", source="ldp")
    )
    if s.view == "reproduce":
        reproduce.render(s)
        return
    idea(s)
    headline(s)
    ui.paper_in_depth(IN_DEPTH)
    numbers(s)
    open_part(EXPLORE_PARTS, s)


def idea(s: Settings) -> None:
    """The picture of the idea: what k answers actually revealed against what basic composition charges."""
    if s.x != s.xtrue:
        st.info(
            f"x* = {s.xtrue} is outside the values {{0, …, {s.dsize - 1}}}; the page uses x* = {s.x}.",
            icon=":material/info:",
        )
    with ui.panel(
        "The idea in one picture",
        "the blue line (what the answers revealed) stays far below the dotted one (what adding up ε charges). It "
        "can even go down: an answer that makes the extreme values look alike takes knowledge back. The dashed "
        "line is a budget ε_G per person: a filter that charges what was revealed keeps answering below it.",
    ):
        ui.chart(
            ui.memo_figure(_idea_figure, s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.epsg, s.ratio),
            lambda: C.realized_path(s.family, s.eps, s.dsize, s.nq, s.x, s.seed),
            name="realized loss vs basic composition",
            alt="Step lines of the realized privacy loss after each answer and of the sum of epsilons, with the "
            "budget as a dashed line.",
        )


def _idea_figure(
    family: str, eps: float, dsize: int, nq: int, x: int, seed: int, budget: float, ratio: bool
) -> go.Figure:
    """The idea's chart, memoised by the settings it depends on (ui.memo_figure)."""
    return F.idea(C.realized_path(family, eps, dsize, nq, x, seed), budget=budget, ratio=ratio)


def headline(s: Settings) -> None:
    """What the answers revealed and what the filter answers, in sentences, each number with what it means."""
    with ui.panel("What the answers revealed"):
        b = C.beliefs(s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior)
        t = C.timeline(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        text = (
            f"After k = {s.nq} answers at ε = {number(s.eps)} each, adding up the ε's charges "
            f"{number(b.basic, 4)}: the answers could have moved an observer's odds about the person by up to "
            f"{odds_factor(b.basic)}."
        )
        if b.loss is not None and math.isfinite(b.loss):
            text += (
                f" What these answers actually revealed, their **realized privacy loss** ℓ, is "
                f"**{number(b.loss, 3)}**: they can have moved anyone's odds about the person by at most "
                f"{odds_factor(b.loss)}, whatever she believed before."
            )
        text += (
            f"\n\nWith a budget of ε_G = {number(s.epsg)} per person, a **Bayesian privacy filter**, which "
            "answers a query only if every answer it could give keeps ℓ within the budget, answers "
            f"**{t.accepted}** of the {s.nq} queries; adding up the ε's answers {t.basic_accepted}."
        )
        st.markdown(text)
        if s.epsg < s.eps:
            st.info(
                f"ε_G = {number(s.epsg)} is below the per-query ε = {number(s.eps)}: adding up ε answers "
                "nothing, and the Bayesian filter only answers queries whose every possible answer stays "
                "within ε_G."
            )


def numbers(s: Settings) -> None:
    """The same numbers in the paper's terms (on the log scale ℓ or as the factor e^ℓ), each with its help."""
    with ui.panel("The answers' loss and the filter, in numbers"):
        b = C.beliefs(s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior)
        t = C.timeline(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        unit = "e^ℓ" if s.ratio else "ℓ"
        metric_row(  # two rows of two: the names are long
            (
                f"Realized loss {unit} of the {s.nq} answers",
                C.show_loss(b.loss, s.ratio),
                "What the k answers, all answered, actually revealed: the largest factor (on the log "
                "scale) by which they can have moved any observer's belief about the person.",
            ),
            (
                f"LDP bound Σε of the {s.nq} answers ({unit})",
                C.show_loss(b.basic, s.ratio),
                "Basic composition Σε: the worst case over every answer the queries could have given.",
            ),
        )
        metric_row(
            (
                "Answered by the Bayesian filter",
                f"{t.accepted} of {s.nq}",
                f"With budget ε_G = {number(s.epsg)}: a query is answered only if every answer it could "
                "give keeps the realized loss within ε_G.",
            ),
            (
                "Answered under basic composition",
                f"{t.basic_accepted} of {s.nq}",
                "Basic composition answers while Σε ≤ ε_G, whatever the answers were.",
            ),
        )
