"""The sparse vector technique page (Liu, Wang, Liu, Li and Chen 2024): exponential noise and the optimal correction.

Page shape (as on every page): :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls from
the parameter catalogue and returns them, :func:`render` draws the page — the idea in one sentence and one picture
first, then the explore parts (:mod:`app.views.svt.explore`) or the paper's figures (:mod:`app.views.svt.reproduce`).
Numbers come from :mod:`app.compute.svt`, charts from :mod:`app.figures.svt`; nothing here computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from app import ledger, params, ui
from app.compute import svt as csvt
from app.figures import svt as figs
from app.notation import number, odds_factor, percent
from app.views._metrics import metric_row
from app.views.svt.live import HALTED
from dpcore import ledger as dl

TITLE = "Sparse vector technique: exponential noise and the optimal threshold correction"
IDEA = (
    "The **sparse vector technique (SVT)** screens a long stream of counts — *“is this item's count above the "
    "threshold τ?”* — by comparing each noisy count with one noisy threshold, and pays privacy only for the at most "
    "**c** counts it reports as above."
)
MORE = (
    "Liu et al. (2024) show that the noise on the counts may be **exponential** (it only pushes counts up, with half "
    "the variance of a Laplace noise of the same scale), and that raising the noisy threshold by a **correction r** "
    "lets SVT reject the many counts below τ and still catch the ones above it. Counts change by at most 1 when one "
    "person joins or leaves (Δ = 1)."
)
#: What "The paper in depth" holds on this page.
IN_DEPTH = (
    "Liu, Wang, Liu, Li & Chen (2024) in detail: the noises and why exponential noise is allowed, the comparison and "
    "the best correction, a run step by step, the top-c experiment, and the numerical method."
)


@dataclass(frozen=True)
class Settings:
    """The sidebar's values."""

    view: str
    eps: float
    c: int
    k: int
    alpha: float
    threshold: float
    noise: str
    rule: str
    monotonic: bool
    resample: bool
    append: bool
    traverses: int
    data: str
    metric: str
    n_runs: int
    n_bins: int
    tail: float
    seed: int
    kmax: int = 10_000

    @property
    def run(self) -> tuple:
        """The seeded run's settings, in the order of ``csvt.live_run`` (the run pictured, played and described)."""
        return (
            self.eps,
            self.c,
            self.k,
            self.alpha,
            self.threshold,
            self.noise,
            self.monotonic,
            self.append,
            self.traverses,
            self.resample,
            self.rule,
            self.seed,
            self.kmax,
        )

    @property
    def trav_eff(self) -> int:
        """Passes actually used: the slider's value when rejected queries are asked again, one pass otherwise."""
        return self.traverses if self.append else 1


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        view = params.view()
        st.header("Budget and stream")
        eps = float(params.control("eps"))
        c = int(params.control("c"))
        k = int(params.control("neg"))
        alpha = float(params.control("alpha"))
        threshold = float(params.control("thr"))
        st.header("Mechanism")
        noise = str(params.control("noise"))
        rule = str(params.control("corr"))
        monotonic = bool(params.control("mono"))
        resample = bool(params.control("resample"))
        append = bool(params.control("append"))
        traverses = int(params.control("trav"))
        kmax = int(params.control("kmax"))
        st.header("Experiment")
        data = str(params.control("dataset"))
        metric = str(params.control("metric"))
        n_runs = int(params.control("runs"))
        seed = int(params.control("seed"))
        with st.expander("Advanced: numerical method"):
            n_bins = int(params.control("bins", container=st))
            tail = float(params.control("tail", container=st))
        ui.share_hint()
    return Settings(
        view,
        eps,
        c,
        k,
        alpha,
        threshold,
        noise,
        rule,
        monotonic,
        resample,
        append,
        traverses,
        data,
        metric,
        n_runs,
        n_bins,
        tail,
        seed,
        kmax,
    )


def render(s: Settings) -> None:
    """The newcomer layer (the idea and its picture, then what a run spends and finds, in sentences), then "The paper
    in depth": the paper's noise and correction, the run's numbers and the chosen view's parts."""
    ui.header(TITLE, IDEA)
    picture(s)
    headline(s)
    _offer_to_ledger(s)
    from app.views.svt import explore, reproduce  # noqa: PLC0415 — the parts import Settings from here

    if s.view == "reproduce":
        reproduce.render(s)
        return
    ui.paper_in_depth(IN_DEPTH)
    st.markdown(MORE)
    numbers(s)
    explore.render(s)


def picture(s: Settings) -> None:
    """The idea in one picture: the first comparisons of one seeded run, noisy counts against the noisy threshold."""
    with ui.panel(
        "SVT at work",
        "most counts stay under the pink line (noisy threshold) and are answered no, for free; SVT stops after c "
        "yes-answers. Green dots above the line are the yes-answers.",
        key="svt-idea",
    ):
        comp, info = csvt.live_run(*s.run)
        ui.chart(
            ui.memo_figure(_first_look_figure, s.threshold, *s.run),
            comp.head(figs.FIRST_LOOK),
            name="svt at work",
            alt="The first comparisons of one SVT run: bars of true counts, dots of noisy counts, and the noisy "
            "threshold as a line; dots above the line are answered yes.",
        )


def headline(s: Settings) -> None:
    """What one run spends and what it finds, in sentences, each number with what it means."""
    with ui.panel("What one run spends, and what it finds"):
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        acct = csvt.accountant(s.eps, s.c, s.noise, s.monotonic)
        _, info = csvt.live_run(*s.run)  # the run pictured
        spent = acct.on if s.resample else acct.off
        chance = "" if acct.pure else f", except with a chance δ = {number(acct.delta, 3)}"
        text = (
            f"One run spends **ε = {number(spent, 3)}** in total, however many counts it screens: one person's "
            f"data can change the odds of what it reports by at most {odds_factor(spent)} (e^ε){chance}. Only "
            f"the at most c = {s.c} yes-answers (“above the threshold”) are paid for; every no is free."
        )
        if s.resample:
            text += (
                f" (A new threshold noise after each yes costs ε₁ = {number(acct.epsilon1, 3)} again each "
                f"time; the paper's statement as printed says ε = {number(acct.on_as_printed, 3)}, but its own "
                f"proof gives the {number(acct.on, 3)} shown, the one to believe.)"
            )
        run = (
            f"\n\nIn the run pictured (the picture shows its first comparisons), SVT screened "
            f"{info.n_comparisons} counts"
        )
        if info.n_positive == 0:
            run += f" against the threshold τ = {number(s.threshold)} and answered no to every one"
        else:
            right = "none" if info.true_positives_selected == 0 else f"**{info.true_positives_selected}**"
            run += (
                f" and answered yes {info.n_positive} time{'' if info.n_positive == 1 else 's'}, {right} of them "
                f"for a count truly above the threshold τ = {number(s.threshold)}"
            )
        text += f"{run}; it stopped {HALTED[info.halted]}."
        if sm.r > 0:
            text += (
                f"\n\nTo keep wrong yes-answers rare, the noisy threshold is raised by a correction "
                f"r = {number(sm.r, 3)} ({_RULE_WORDS[s.rule]}): a count exactly at τ is answered yes in "
                f"only {percent(sm.p_at_threshold, 2)} of runs."
            )
        else:
            text += (
                f"\n\nThe noisy threshold is not raised (no correction): a count exactly at τ is answered "
                f"yes in {percent(sm.p_at_threshold, 1)} of runs."
            )
        st.markdown(text)


def numbers(s: Settings) -> None:
    """Five numbers in the paper's terms: the two noises, the correction and what it does to a count at the
    threshold, and what one run spends."""
    with ui.panel("The run's noises and correction, in numbers"):
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        acct = csvt.accountant(s.eps, s.c, s.noise, s.monotonic)
        metric_row(
            (
                "threshold noise scale b",
                number(sm.b, 4),
                "The typical size of the one noise ρ added to the threshold (Laplace, b = Δ/ε₁). It is drawn once "
                "and shared by every comparison.",
            ),
            (
                "query noise scale 1/λ",
                number(sm.scale, 4),
                "The typical size of the noise added to each count (its mean, for exponential noise; the paper "
                "writes Exp(1/λ)). It grows with c: the budget ε₂ is shared by up to c yes-answers.",
            ),
            (
                "correction r in use",
                number(sm.r, 4),
                f"How far the noisy threshold is raised ({_RULE_WORDS[s.rule]}). The optimal r = "
                f"{number(sm.r_op, 4)} rejects k = {s.k} counts below τ before accepting one above it with "
                "the highest chance.",
            ),
            (
                "P[yes] for a count at τ",
                number(sm.p_at_threshold, 4),
                "The chance that a count sitting exactly at the threshold is reported as above it. With the optimal "
                "correction and α = 0 it is 1/(k + 1), whatever the noise.",
            ),
            (
                "ε one run spends",
                number(acct.on if s.resample else acct.off, 4),
                f"ε₁ = {number(acct.epsilon1, 4)} for the threshold plus ε₂ = {number(acct.epsilon2, 4)} "
                "for the counts, however many queries are asked; a new threshold noise after each yes costs "
                "c·ε₁ + ε₂.",
            ),
        )


_RULE_WORDS = {
    "optimal": "the optimal correction",
    "mean": "by the mean of the query noise",
    "none": "not at all",
}


def _offer_to_ledger(s: Settings) -> None:
    """One SVT run at the sidebar's settings, as the privacy ledger records it."""
    try:
        acct = csvt.accountant(s.eps, s.c, s.noise, s.monotonic)
        ledger.offer(
            dl.approx_release(
                acct.on if s.resample else acct.off,
                0.0 if acct.pure else acct.delta,
                label=f"SVT run, c = {s.c}, {s.noise.capitalize()} noise",
                source="svt",
            )
        )
    except Exception:  # noqa: BLE001 — the ledger offer never takes the page down
        pass  # the headline panel shows the error


def _first_look_figure(threshold: float, *run: object) -> go.Figure:
    """The picture's chart, memoised by the run's settings (``Settings.run``; ui.memo_figure)."""
    comp, _ = csvt.live_run(*run)
    return figs.first_look(comp, threshold=threshold)
