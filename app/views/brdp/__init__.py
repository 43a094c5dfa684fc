"""The BR-DP page: budget recycling differential privacy (Jiang, Du, Sharma & Yan 2024).

Page shape (the same on every page): :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls
from the parameter catalogue and returns them, :func:`render` draws the page. The explore view's panels are in
:mod:`app.views.brdp.explore`, the paper's figures in :mod:`app.views.brdp.reproduce`; numbers come from
:mod:`app.compute.brdp`, charts from :mod:`app.figures.brdp`; nothing here computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app import ledger, params, ui
from app.compute import brdp as compute
from app.notation import number, odds_factor, percent, times
from app.views.brdp import explore, reproduce
from dpcore import ledger as dl
from dpcore.brdp import BRDPPlan

TITLE = "BR-DP: redraw the noisy answers that miss"
IDEA = (
    "**Budget recycling** (BR-DP) adds noise as usual, but when the noisy answer misses the truth by more than θ it "
    "throws the answer away with probability q and draws again, so that more answers land within ±θ for the same "
    "privacy budget."
)
#: Below this redraw probability a plan redraws nothing a reader could see (the optimiser's q for a Laplace kernel
#: at θ = Δ is ~10⁻¹¹): the page says it redraws nothing.
NO_REDRAW = 1e-6
#: What "The paper in depth" holds on this page.
IN_DEPTH = (
    "Jiang, Du, Sharma & Yan (2024) in detail: the recycler step by step, how the budget is split between the noise "
    "and the redraws, the paper's privacy accountant beside the exact one, many releases, and sampling."
)

#: One-click example settings (widget key → value): two settings where the paper's accountant approves a plan that
#: is not private, the paper's own example, and the app's defaults.
PRESETS: dict[str, dict] = {
    "Paper approves, truly not private: disjoint outputs": {
        "eps": 0.1,
        "delta": 1e-3,
        "theta": 0.1,
        "sens": 5.0,
        "kernel": "gaussian",
        "acct": "paper",
        "split": True,
        "share": 0.6,
        "qov": False,
    },
    "Paper approves, truly 750× the target δ": {
        "eps": 5.0,
        "delta": 1e-8,
        "theta": 3.0,
        "sens": 0.2,
        "kernel": "gaussian",
        "acct": "paper",
        "split": True,
        "share": 0.3,
        "qov": False,
    },
    "The paper's own example (ε = 1, θ = Δ = 1)": {
        "eps": 1.0,
        "delta": 1e-5,
        "theta": 1.0,
        "sens": 1.0,
        "kernel": "gaussian",
        "acct": "paper",
        "split": False,
        "qov": False,
    },
    "Back to the sound defaults": {
        "eps": 1.0,
        "delta": 1e-5,
        "theta": 1.0,
        "sens": 1.0,
        "kernel": "gaussian",
        "acct": "exact",
        "split": False,
        "qov": False,
        "calib": "analytic",
        "dyov": False,
    },
}


@dataclass(frozen=True)
class Settings:
    """The sidebar's values."""

    view: str
    eps: float
    delta: float
    theta: float
    sens: float
    kernel: str
    acct: str
    calib: str
    share: float | None
    q: float | None
    T: int
    rate: float
    query: str
    n_records: int
    seed: int
    delta_y: float | None = None  # the kernel's own δ_y (None: δ_y = δ, as the paper's figures)
    sigma_x: float = compute.SIGMA_X
    p_c: float = compute.P_C

    @property
    def sample(self) -> compute.SampleKey:
        """The subsampled release the page shows (Sec. 7)."""
        return compute.SampleKey(
            self.eps, self.delta, self.sens, self.theta, self.query, self.n_records, self.sigma_x, self.p_c
        )

    @property
    def key(self) -> compute.PlanKey:
        """The plan the page shows."""
        return compute.PlanKey(
            self.eps,
            self.delta,
            self.sens,
            self.theta,
            self.kernel,
            self.acct,
            self.calib,
            self.share,
            self.q,
            self.delta_y,
        )


def _apply_preset(values: dict) -> None:
    """on_click: move the URL-bound controls to the preset's values (they run before the widgets exist)."""
    for key, value in values.items():
        st.session_state[key] = value


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values.

    In the reproduce view nothing on the page follows them, so they are folded away (still in the address)."""
    with st.sidebar:
        view = params.view()
        box = (
            st.sidebar.expander("Your settings (used by the explore view only)", expanded=False)
            if view == "reproduce"
            else st.sidebar
        )
        with box:
            st.header("Controls")
            c = params.control
            eps, delta, theta, sens = float(c("eps")), float(c("delta")), float(c("theta")), float(c("sens"))
            kernel, acct, calib = str(c("kernel")), str(c("acct")), str(c("calib"))
            share = float(c("share")) if c("split") else None
            q = float(c("q")) if c("qov") else None
            delta_y = float(c("dy")) if c("dyov") else None
            t = int(c("T"))
            st.subheader("Subsampling & experiment")
            rate, query, n_records, seed = float(c("p")), str(c("query")), int(c("n")), int(c("seed"))
            sigma_x, p_c = float(c("sigx")), float(c("pc"))
            st.subheader("Example settings")
            for i, (label, values) in enumerate(PRESETS.items()):
                st.button(label, key=f"preset{i}", on_click=_apply_preset, args=(values,), width="stretch")
        ui.share_hint()
    return Settings(
        view,
        eps,
        delta,
        theta,
        sens,
        kernel,
        acct,
        calib,
        share,
        q,
        t,
        rate,
        query,
        n_records,
        seed,
        delta_y,
        sigma_x,
        p_c,
    )


def render(s: Settings) -> None:
    """The newcomer layer (the idea in one sentence and one picture, then what the plan buys and costs in sentences),
    then "The paper in depth": the plan by both accountants and the explore tabs (or the paper's figures in the
    reproduce view, which follows none of the controls)."""
    ui.header(TITLE, IDEA)
    if s.view == "reproduce":
        reproduce.render()
        return
    picture(s)
    headline(s)
    try:  # the plan the page shows, as an (ε, δ) release with δ from the exact accountant (never the paper's)
        plan = compute.plan(s.key)
        ledger.offer(
            dl.approx_release(
                s.eps, plan.exact_delta, label=f"BR-DP plan, {s.kernel.capitalize()} kernel", source="brdp"
            )
        )
    except Exception:  # noqa: BLE001 — the ledger offer never takes the page down
        pass  # the plan's own panel already shows the error
    ui.paper_in_depth(IN_DEPTH)
    numbers(s)
    explore.render(s)


def picture(s: Settings) -> None:
    """The idea as a picture: successive noise draws, coloured released / redrawn, with the ±θ band."""
    with ui.panel(
        "The idea: draw, check, maybe draw again",
        "every grey dot is a draw that missed ±θ and was thrown away; the next draw replaces it. Orange "
        "dots missed too but were released anyway (probability 1 − q). Green dots are on target.",
        key="recycling-idea",
    ):
        draws, _ = compute.recycler(s.key, s.seed)
        ui.chart(
            explore.recycler_figure(s.key, s.seed, s.theta),
            draws,
            name="recycling picture",
            alt="Scatter of successive noise draws of 40 releases, coloured released within the tolerance, "
            "released outside it, or thrown away and redrawn, with the band of accurate answers shaded.",
        )


def headline(s: Settings) -> None:
    """What this plan buys and what it costs, in sentences, each number with what it means; where the paper's
    accountant and the exact one disagree, one sentence says which to believe (the exact one) and why."""
    with ui.panel("What this plan buys, and its price"):
        plan = compute.plan(s.key)
        st.markdown(_buys(s, plan))
        if not plan.sound:
            st.warning(
                f"**This plan is not private at ε = {number(s.eps)}, δ = {number(s.delta)}.** Counted exactly, from "
                "the two output distributions (with and without one person), its δ is "
                f"{number(plan.exact_delta, 3)}, {times(plan.exact_delta / s.delta)} the δ allowed; the paper's "
                f"formula for the cost of recycling says δ = {number(plan.paper_delta, 3)} and approves it. Believe "
                "the exact count: it is computed from what is released, the paper's formula is a model that errs "
                "both ways.",
                icon=":material/gpp_bad:",
            )
        else:
            st.markdown(_price(s, plan))


def _buys(s: Settings, plan: BRDPPlan) -> str:
    """What the plan buys: accurate answers, and how often it redraws to get them."""
    noise = f"plain {s.kernel.capitalize()} noise"
    draws = number(plan.expected_draws, 3)
    if plan.q < NO_REDRAW:
        zero = "q = 0" if plan.q == 0 else "q ≈ 0"
        return (
            f"Here the best plan redraws nothing ({zero}): it is {noise}, whose answers land within ±θ = "
            f"{number(s.theta)} of the truth in **{percent(plan.acceptance)}** of releases."
        )
    return (
        f"**{percent(plan.acceptance)}** of the released answers land within ±θ = {number(s.theta)} of the "
        f"truth, against {percent(plan.dp_acceptance)} with {noise} at the same budget and no redraws. To get "
        f"there, a missed answer is thrown away and drawn again with probability q = {number(plan.q, 3)}: an "
        f"answer takes {draws} draw{'' if draws == '1' else 's'} on average."
    )


def _price(s: Settings, plan: BRDPPlan) -> str:
    """The price of a sound plan: what ε and δ promise, where the redraws' cost comes from, and which δ to believe."""
    text = (
        f"The price is your budget, ε = {number(s.eps)} and δ = {number(s.delta)}: one person's data can change "
        f"the odds of any answer by at most {odds_factor(s.eps)} (e^ε), except with a chance of at most δ."
    )
    if plan.q >= NO_REDRAW and plan.epsilon_y < s.eps * (1 - 1e-9):
        text += (
            f" The noise itself uses ε_y = {number(plan.epsilon_y, 3)} of that ε (a little more noise than "
            "plain noise needs); the rest pays for the redraws."
        )
    elif plan.q >= NO_REDRAW:
        text += (
            " For a single release the redraws cost nothing extra here: where a redraw changes the odds, the "
            "noise alone leaks less than ε."
        )
    exact, paper = plan.exact_delta, plan.paper_delta
    why = "computed from the two output distributions (with and without one person) themselves"
    if paper > exact * 1.01:
        text += (
            f"\n\nWhich δ to believe? The exact one, {number(exact, 3)}, {why}; the paper's own formula for "
            f"the cost of recycling over-charges here ({number(paper, 3)}, {times(paper / exact)} too much), "
            "and at other settings it approves plans that are not private (the example settings in the "
            "sidebar)."
        )
    elif exact > paper * 1.01:
        text += (
            f"\n\nWhich δ to believe? The exact one, {number(exact, 3)}, {why}; the paper's own formula for "
            f"the cost of recycling under-reports it here ({number(paper, 3)}), although this plan still "
            "keeps its promise."
        )
    else:
        text += (
            f" Counted exactly from the two output distributions (with and without one person), its δ is "
            f"{number(exact, 3)}, as the paper's own formula also finds."
        )
    return text


def numbers(s: Settings) -> None:
    """The plan in the paper's terms: the noise's share of ε and the δ by both accountants, side by side."""
    with ui.panel("The plan in numbers, by both accountants", paper="Theorem 1 (the paper's accountant)"):
        plan = compute.plan(s.key)
        st.markdown(
            "An **accountant** turns a plan into its privacy cost, the δ with which the e^ε promise may "
            "fail. The paper's accountant is a formula for what a redraw adds; the exact one computes δ "
            "from the two output distributions, with and without one person."
        )
        c = st.columns(4)
        c[0].metric(
            "BR-DP: chance within ±θ",
            f"{plan.acceptance:.4f}",
            f"{plan.gain:+.4f} vs plain DP",
            help=f"The share of released answers whose error is at most θ = {number(s.theta)}: how "
            "often an answer is accurate.",
        )
        c[1].metric(
            "plain DP: chance within ±θ",
            f"{plan.dp_acceptance:.4f}",
            help=f"The same noise at the full ({number(s.eps)}, {number(s.delta)}) budget, never redrawn.",
        )
        c[2].metric(
            "draws per release (mean)",
            f"{plan.expected_draws:.3f}",
            help="How many times the noise is drawn on average before an answer is released.",
        )
        c[3].metric(
            "noise's share of ε",
            number(plan.epsilon_y / s.eps, 3),
            help="ε_y / ε: the part of ε spent on the noise itself; the rest pays for the redraws. The noise "
            f"is calibrated at δ_y = {number(plan.kernel_delta)}"
            + (" (your choice)." if s.delta_y is not None else " (= δ, as in the paper's figures)."),
        )
        ui.paper_vs_exact(
            f"δ at ε = {number(s.eps)}",
            plan.paper_delta,
            plan.exact_delta,
            digits=3,
            help="The probability with which the e^ε promise may fail, by the paper's model of "
            "recycling (left) and computed exactly from the two output distributions (right).",
        )
        if plan.sound and plan.paper_delta > s.delta * (1 + 1e-6):
            st.info(
                f"The paper's model would reject this plan (its δ = {number(plan.paper_delta, 3)} > "
                f"{number(s.delta)}), but the exact δ is within the target: for these settings the "
                "paper's model is over-cautious. The example settings in the sidebar show the opposite, "
                "dangerous case.",
                icon=":material/info:",
            )


__all__ = ["IDEA", "IN_DEPTH", "PRESETS", "Settings", "TITLE", "headline", "numbers", "picture", "render", "sidebar"]
