"""Local DP page, part "Beliefs": what the answers reveal — posterior, statements, every answer pattern, QIF."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app import decks, instant, ui
from app.compute import ldp as C
from app.figures import ldp as F
from app.notation import number
from app.views._metrics import metric_row
from app.views.ldp._settings import Settings


def render(s: Settings) -> None:
    """The part's panels, in the order of the paper's Sec. 2–3."""
    posterior(s)
    statement(s)
    patterns(s)
    landscape(s)
    leakage(s)


def posterior(s: Settings) -> None:
    """1 · Prior → posterior (Bayes' rule, Eq. 2)."""
    with ui.panel(
        "From prior to posterior",
        "the posterior moves with the *ratio* of likelihoods, not with the number of answers: flat stretches of Λ "
        "leave the belief where it was. With randomized response on 2 values, answers that balance out (as many 1s "
        "as 0s, Example 1) leave the posterior exactly equal to the prior.",
    ):
        b = C.beliefs(s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior)
        st.caption(f"The {s.nq} answers drawn for x* = {s.x} (seed {s.seed}): {' '.join(str(v) for v in b.outputs)}")
        metric_row(
            (
                "Prior belief in x*",
                f"{b.prior_true:.4f}",
                "How sure the observer is of the true value before any answer.",
            ),
            ("Posterior belief in x*", f"{b.posterior_true:.4f}", "How sure she is after the answers (Bayes' rule)."),
            (
                "Most likely value",
                ", ".join(str(v) for v in b.argmax[:5]),
                "The value(s) under which the answers were most likely: the top of Λ.",
            ),
        )
        fig = instant.figure(
            decks.posterior, "nq", s.nq, s.family, s.eps, s.dsize, s.x, s.seed, s.prior, slot="ldp-posterior", play=True
        )
        ui.chart(
            fig,
            b.table,
            name="prior and posterior",
            alt="Bars of the prior and posterior belief over the values of X with the likelihood as a line.",
        )


def statement(s: Settings) -> None:
    """2 · A statement's knowledge gain inside the realized band (Lemma 3.1); the Lemma 3.2 construction."""
    with ui.panel(
        "A statement's confidence and the band it cannot leave",
        "no statement, under any prior, gains more than the realized loss allows (Lemma 3.1), and that band is "
        "usually far inside the LDP band. The adversarial prior of Lemma 3.2 reaches the band's edge as its weight "
        "w → 0: the realized loss is the *least* upper bound on what anyone learns.",
    ):
        r = C.statement(s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior, s.stmt, s.weight)
        text = C.STATEMENT_TEXT[s.stmt]
        metric_row(
            (
                f"Confidence in “{text}” before",
                f"{r.prior_conf:.4f}",
                "b(φ): the observer's confidence in the statement under her prior.",
            ),
            ("… after the answers", f"{r.posterior_conf:.4f}", "b(φ | answers), by Bayes' rule."),
            (
                "Knowledge gain",
                f"{r.gain:.4f}",
                f"b(φ | answers) / b(φ): how many times more (or less) sure she became. It always lies in "
                f"[{C.show_loss(-r.loss, True)}, {C.show_loss(r.loss, True)}] = [e^(−ℓ), e^ℓ].",
            ),
            (
                f"Lemma 3.2 gain at w = {number(s.weight)}",
                f"{r.lemma_gain:.4f}",
                f"Statement X = {r.lemma_x_a}, prior w on {r.lemma_x_a} and 1 − w on {r.lemma_x_b}: the gain "
                f"approaches e^ℓ = {r.lemma_bound:.4f} as w → 0.",
            ),
        )
        key = (s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior, s.stmt, s.weight, s.ratio)
        ui.chart(
            ui.memo_figure(_statement_figure, *key),
            r.bands,
            name="statement gain band",
            alt="The statement's knowledge gain inside the realized band, itself inside the LDP band.",
        )
        ui.chart(
            ui.memo_figure(_lemma_figure, *key),
            r.curve,
            name="lemma 3.2 construction",
            alt="Gain of the Lemma 3.2 construction rising towards the realized loss as the weight decreases.",
        )


def patterns(s: Settings) -> None:
    """3 · The realized loss of every possible answer pattern against the LDP bound (Eq. 10, Def. 3.3)."""
    with ui.panel(
        "Realized loss of every possible answer pattern",
        "most patterns realize far less than the LDP bound; only a few (the most lopsided) touch it. Randomized "
        "response with k = 1 is the exception where every bar touches the line: it *fully utilises* its budget "
        "(Def. 3.3).",
    ):
        o = C.output_losses(s.family, s.eps, s.dsize, s.nq, s.x)
        if o.m < s.nq:
            st.caption(
                f"Showing every pattern of the first {o.m} of the {s.nq} queries ({o.patterns} patterns; at "
                f"most {C.MAX_PATTERNS})."
            )
        metric_row(
            (
                f"Average realized loss ({s.unit})",
                C.show_loss(o.expected_loss, s.ratio),
                "The realized loss averaged over the patterns, each weighted by its chance when the secret "
                "is x*: what these queries typically reveal.",
            ),
            (
                f"LDP bound Σε of the {o.m} queries ({s.unit})",
                C.show_loss(o.basic, s.ratio),
                "The worst case, charged whatever the answers.",
            ),
            (
                "Chance the answers reach the bound",
                number(o.p_at_bound, 3),
                "How likely (when the secret is x*) a pattern is that reveals the full Σε.",
            ),
        )
        ui.chart(
            ui.memo_figure(_patterns_figure, s.family, s.eps, s.dsize, s.nq, s.x, s.ratio),
            o.table,
            name="loss per answer pattern",
            alt="Bars of the realized loss of each answer pattern, coloured by its probability, under the bound.",
        )


def landscape(s: Settings) -> None:
    """4 · ln Λ over the domain with its extremes: ℓ is the gap."""
    with ui.panel(
        "The likelihood landscape and its extremes",
        "ℓ is the range (max − min) of ln Λ over the *whole* domain: it depends neither on the prior nor on which "
        "value is true. On a continuous domain the extremes must be searched for (part Continuous).",
    ):
        b = C.beliefs(s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior)
        metric_row(
            ("Most likely value(s)", ", ".join(str(v) for v in b.argmax[:5]), "Where Λ is largest."),
            ("Least likely value(s)", ", ".join(str(v) for v in b.argmin[:5]), "Where Λ is smallest."),
            (
                f"Gap = realized loss ({s.unit})",
                C.show_loss(b.loss, s.ratio),
                "ln max Λ − ln min Λ (Eq. 10): how far apart the answers set the two extreme values.",
            ),
        )
        ui.chart(
            ui.memo_figure(_landscape_figure, s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior, s.ratio),
            b.table,
            name="likelihood landscape",
            alt="Bars of the log-likelihood over the domain with its maximum and minimum marked.",
        )


def leakage(s: Settings) -> None:
    """5 · Quantitative information flow: realized g-leakage ≤ ℓ ≤ Σε (Thm 3.3, Cor. 3.1)."""
    with ui.panel(
        "Whatever the observer wants to guess",
        "however the observer profits from the answers — guessing the exact value or a value within ±1 — her gain "
        "in chance of success (the realized g-leakage) is at most the realized loss ℓ, which is at most the LDP "
        "bound (Thm 3.3, Cor. 3.1).",
    ):
        st.dataframe(
            C.qif(s.family, s.eps, s.dsize, s.nq, s.x, s.seed, s.prior),
            hide_index=True,
            width="stretch",
            column_config=_QIF_COLUMNS,
        )


#: The guessing table's columns under names short enough for all six to fit a laptop's column (the last one was cut
#: off), with what each means on hover.
_QIF_COLUMNS = {
    "what the adversary wants": st.column_config.TextColumn("the observer wants to"),
    "chance of success before": st.column_config.NumberColumn(
        "success before", help="Her chance of guessing right from her prior belief alone."
    ),
    "chance of success after": st.column_config.NumberColumn(
        "success after", help="Her chance of guessing right once she has seen the answers."
    ),
    "g-leakage (ln of the ratio)": st.column_config.NumberColumn(
        "g-leakage", help="ln(success after / success before): how much the answers raised her chance, in ε units."
    ),
    "realized loss ℓ": st.column_config.NumberColumn(
        "realized loss ℓ", help="What these answers revealed at most, for any guess and any prior."
    ),
    "LDP bound Σε": st.column_config.NumberColumn(
        "LDP bound Σε", help="What adding up the answers' ε charges, whatever they were."
    ),
}


# The part's charts, memoised by the settings they depend on (ui.memo_figure).


def _statement_figure(
    family: str, eps: float, dsize: int, nq: int, x: int, seed: int, prior: str, stmt: str, weight: float, ratio: bool
) -> go.Figure:
    r = C.statement(family, eps, dsize, nq, x, seed, prior, stmt, weight)
    return F.statement_band(r.bands, ratio=ratio, text=C.STATEMENT_TEXT[stmt])


def _lemma_figure(
    family: str, eps: float, dsize: int, nq: int, x: int, seed: int, prior: str, stmt: str, weight: float, ratio: bool
) -> go.Figure:
    r = C.statement(family, eps, dsize, nq, x, seed, prior, stmt, weight)
    return F.lemma_curve(r.curve, ratio=ratio, weight=weight)


def _patterns_figure(family: str, eps: float, dsize: int, nq: int, x: int, ratio: bool) -> go.Figure:
    return F.output_losses(C.output_losses(family, eps, dsize, nq, x).table, ratio=ratio)


def _landscape_figure(
    family: str, eps: float, dsize: int, nq: int, x: int, seed: int, prior: str, ratio: bool
) -> go.Figure:
    b = C.beliefs(family, eps, dsize, nq, x, seed, prior)
    return F.landscape(b.table, b, ratio=ratio)
