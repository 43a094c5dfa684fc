"""The R²DP page: draw the Laplace noise scale at random (Mohammady et al. 2020).

Page shape (the same on every page): :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls
from the parameter catalogue and returns them, :func:`render` draws the page — the idea and its picture first, then
the headline numbers, then the parts of the explore view (:mod:`.explore`) or of the reproduce view
(:mod:`.reproduce`). Numbers come from :mod:`app.compute.r2dp`, charts from :mod:`app.figures.r2dp`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app import ledger, params, ui
from app.catalogue.r2dp import FAMILY
from app.compute import r2dp as compute
from app.notation import number, odds_factor, percent
from app.views._metrics import metric_row
from app.views.r2dp import explore, reproduce
from app.views.r2dp._common import fmt, mixing_law_figure
from dpcore import ledger as dl

TITLE = "R²DP: draw the noise scale at random"
IDEA = (
    "The Laplace mechanism adds noise of one fixed scale b = Δ/ε, where Δ is how far one person can move the true "
    "answer; **R²DP** first draws the inverse scale u = 1/b at random — fresh and secret for every release — and "
    "then adds Laplace noise of scale 1/u."
)
#: What "The paper in depth" holds on this page.
IN_DEPTH = (
    "Mohammady et al. (2020) in detail: your law's noise and where its privacy is spent, the best law of every "
    "family, and explorers of the Gamma and two-point laws."
)
#: This page starts at ε = 5: below ε ≈ 2 no law of the paper's families beats Laplace (a lesson of the page).
PAGE_EPSILON = 5.0


@dataclass(frozen=True)
class Settings:
    """The sidebar's values (the panels' own controls are drawn inside their panels)."""

    view: str
    eps: float
    gamma: float
    sens: float
    family: str
    lock: bool
    shape: float = 1.0
    gscale: float = 1.0
    ulo: float = 1.0
    uhi: float = 1.0
    nmu: float = 1.0
    nsigma: float = 1.0
    ncut: float = 1.0
    u0: float = 0.5
    u1: float = 50.0
    p0: float = 0.3
    seed: int = 0
    drawn: frozenset[str] = frozenset()  # keys of the family controls drawn in the sidebar

    @property
    def g(self) -> float:
        """γ/Δ: every usefulness curve depends on γ and Δ only through it."""
        return compute.normalised(self.gamma, self.sens)

    @property
    def key(self) -> compute.LawKey:
        """The law key of the sidebar's law (see :func:`app.compute.r2dp.law_key`)."""
        return compute.law_key(
            self.family,
            lock=self.lock,
            epsilon=self.eps,
            sensitivity=self.sens,
            k=self.shape,
            theta=self.gscale,
            a=self.ulo,
            b=self.uhi,
            mu=self.nmu,
            sigma=self.nsigma,
            low=self.ncut,
            u0=self.u0,
            u1=self.u1,
            p=self.p0,
        )


def _family_controls(family: str, lock: bool) -> dict[str, float]:
    """The chosen family's own parameters (only those that matter with or without lock ε)."""
    keys: list[str] = []
    if family in ("gamma", "combo"):
        keys.append("shape")
        if not (family == "gamma" and lock):
            keys.append("gscale")
    if family == "uniform":
        keys += ["ulo", "uhi"]
    if family in ("truncnorm", "combo"):
        keys += ["nmu", "nsigma", "ncut"]
    if family == "two_point":
        keys += ["u0", "u1"] + ([] if lock else ["p0"])
    if family == "laplace" and not lock:
        keys.append("u0")
    return {k: float(params.control(k)) for k in keys}


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        st.header("Controls")
        view = params.view()
        eps = float(params.control("eps", default=PAGE_EPSILON))
        gamma = float(params.control("gamma"))
        sens = float(params.control("sens"))
        family = str(params.control("fam"))
        lock = bool(params.control("lock"))
        values = _family_controls(family, lock)
        with st.expander("Advanced"):
            seed = int(params.control("seed", container=st))
        ui.share_hint()
    return Settings(
        view=view,
        eps=eps,
        gamma=gamma,
        sens=sens,
        family=family,
        lock=lock,
        seed=seed,
        drawn=frozenset(values),
        **values,
    )


def render(s: Settings) -> None:
    """The newcomer layer (the idea in one sentence and one picture, then what this law buys, in sentences), then
    "The paper in depth": the law's numbers and the parts of the view (or the reproduce view's parts)."""
    ui.header(TITLE, IDEA)
    picture(s)
    head = headline(s)
    if s.view == "reproduce":
        reproduce.render(s)
    else:
        ui.paper_in_depth(IN_DEPTH)
        numbers(s, head)
        explore.render(s, head)
    if head is not None:  # the law of the sidebar: one release at its exact ε
        try:
            ledger.offer(dl.pure_release(head.epsilon, label=f"R²DP {FAMILY[s.family].words} release", source="r2dp"))
        except Exception:  # noqa: BLE001 — the ledger offer never takes the page down
            pass  # e.g. an infinite ε: nothing sound to add


def picture(s: Settings) -> None:
    """The picture of the idea: the law of u next to the one value Laplace uses."""
    with ui.panel(
        "The idea in one picture",
        f"Laplace uses the single value u* = ε/Δ = {number(compute.ustar(s.eps, s.sens), 3)} (dotted line). "
        "R²DP spreads u around it: draws below u* add more noise than Laplace, draws above add less. This "
        "page starts at ε = 5 because below ε ≈ 2 none of the paper's laws beats Laplace — try ε = 1.",
    ):
        ui.chart(
            ui.memo_figure(mixing_law_figure, s.key, s.eps, s.sens, s.seed, False),
            lambda: compute.mixing_law(s.key, s.eps, s.sens, s.seed, False),
            name="mixing law",
            alt="Density or probabilities of the inverse Laplace scale u, with the Laplace value u* marked.",
        )


def headline(s: Settings) -> compute.Headline | None:
    """What this law buys at your ε, in sentences, each number with what it means; the law's numbers, or None when
    its parameters are not valid (the error is shown)."""
    head = None
    with ui.panel("What a random noise scale buys at your ε"):
        best = compute.optimum(s.eps, s.gamma, s.sens, "two_point")
        try:
            head = compute.headline(s.key, s.eps, s.gamma, s.sens)
        except ValueError as exc:
            ui.show_error(exc)
        text = (
            f"Your budget ε = {number(s.eps)} means that one person's data can change the odds of any "
            f"release by at most {odds_factor(s.eps)} (e^ε).\n\nWith it, plain Laplace noise lands within "
            f"±γ = {number(s.gamma)} of the true answer in **{percent(best.laplace)}** of releases."
        )
        if head is not None:
            spends = (
                ", rescaled so that its exact ε is your budget,"
                if s.lock
                else f", which spends ε = {fmt(head.epsilon, 3)} counted exactly,"
            )
            often = (
                "as often as Laplace"
                if abs(head.ratio - 1) < 5e-4
                else f"{number(head.ratio, 3)} times as often as Laplace"
            )
            text += (
                f" This {FAMILY[s.family].words} law (set in the sidebar){spends} lands there in "
                f"**{percent(head.usefulness)}**, {often}."
            )
        text += (
            f" The best random scale of all, a law with just two values of u, lands there in "
            f"{percent(best.usefulness)}."
        )
        st.markdown(text)
        if head is not None and head.over_budget:
            st.warning(
                f"This law spends ε = {fmt(head.epsilon)}, more than your budget ε = "
                f"{number(s.eps)}: counted exactly, one person's data can change the odds by up to "
                f"{odds_factor(head.epsilon)}. Turn on **lock ε** to rescale it to the budget.",
                icon=":material/warning:",
            )
    return head


def numbers(s: Settings, head: compute.Headline | None) -> None:
    """The law's numbers in the paper's terms, beside the best laws and the best noise of all."""
    with ui.panel("This law against the best noises, in numbers", paper="Corollary 3.3 (the exact ε)"):
        best = compute.optimum(s.eps, s.gamma, s.sens, "two_point")
        if head is not None:
            st.markdown(f"**{head.law}**" + (" — rescaled so that its exact ε equals your budget." if s.lock else ""))
            metric_row(
                (
                    "exact ε — this law",
                    fmt(head.epsilon),
                    "The privacy loss this law really spends: its worst case is an output exactly at the "
                    "true answer (Cor. 3.3).",
                ),
                ("U(γ) — this law", fmt(head.usefulness), "The chance that a release is within ±γ of the true answer."),
                (
                    "ratio to Laplace at ε",
                    f"{head.ratio:.3f}×",
                    "How many times more often this law is within ±γ than Laplace noise at the same ε.",
                ),
            )
        metric_row(
            (
                "Laplace U(γ) at ε",
                fmt(best.laplace),
                "The chance that plain Laplace noise of scale Δ/ε is within ±γ: the baseline to beat.",
            ),
            (
                "best R²DP law (two-point) U(γ)",
                fmt(best.usefulness),
                "No mixing law does better at this ε: the best one always has just two values of u, "
                f"here {compute.describe(best.law)}.",
            ),
            (
                "optimal staircase U(γ)",
                fmt(compute.staircase(s.eps, s.gamma, s.sens)),
                "The best any ε-DP additive noise can do (a staircase-shaped density, not an R²DP law).",
            ),
        )
