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
from app.views.brdp import explore, reproduce
from app.notation import number
from dpcore import ledger as dl

TITLE = "BR-DP: redraw the noisy answers that miss"
IDEA = (
    "**Budget recycling** (BR-DP) adds noise as usual, but when the noisy answer misses the truth by more than θ it "
    "throws the answer away with probability q and draws again — so more answers land within ±θ, and every redraw "
    "costs a little privacy."
)

#: One-click example settings (widget key → value): two settings where the paper's accountant approves a plan that
#: is not private, the paper's own example, and the app's defaults.
PRESETS: dict[str, dict] = {
    "Paper approves, truly not private: disjoint outputs": {
        "eps": 0.1, "delta": 1e-3, "theta": 0.1, "sens": 5.0, "kernel": "gaussian", "acct": "paper",
        "split": True, "share": 0.6, "qov": False,
    },
    "Paper approves, truly 750× the target δ": {
        "eps": 5.0, "delta": 1e-8, "theta": 3.0, "sens": 0.2, "kernel": "gaussian", "acct": "paper",
        "split": True, "share": 0.3, "qov": False,
    },
    "The paper's own example (ε = 1, θ = Δ = 1)": {
        "eps": 1.0, "delta": 1e-5, "theta": 1.0, "sens": 1.0, "kernel": "gaussian", "acct": "paper",
        "split": False, "qov": False,
    },
    "Back to the sound defaults": {
        "eps": 1.0, "delta": 1e-5, "theta": 1.0, "sens": 1.0, "kernel": "gaussian", "acct": "exact",
        "split": False, "qov": False, "calib": "analytic", "dyov": False,
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
    def key(self) -> compute.PlanKey:
        """The plan the page shows."""
        return compute.PlanKey(self.eps, self.delta, self.sens, self.theta, self.kernel, self.acct, self.calib,
                               self.share, self.q, self.delta_y)


def _apply_preset(values: dict) -> None:
    """on_click: move the URL-bound controls to the preset's values (they run before the widgets exist)."""
    for key, value in values.items():
        st.session_state[key] = value


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values.

    In the reproduce view nothing on the page follows them, so they are folded away (still in the address)."""
    with st.sidebar:
        view = params.view()
        box = st.sidebar.expander("Your settings (used by the explore view only)", expanded=False) \
            if view == "reproduce" else st.sidebar
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
    return Settings(view, eps, delta, theta, sens, kernel, acct, calib, share, q, t, rate, query, n_records, seed,
                    delta_y, sigma_x, p_c)


def render(s: Settings) -> None:
    """The idea in one sentence and one picture, then the plan's numbers, then the explore tabs (or the paper's
    figures in the reproduce view, which follows none of the controls)."""
    ui.header(TITLE, IDEA, lesson="brdp")
    if s.view == "reproduce":
        reproduce.render()
        return
    picture(s)
    headline(s)
    try:  # the plan the page shows, as an (ε, δ) release with δ from the exact accountant (never the paper's)
        plan = compute.plan(s.key)
        ledger.offer(dl.approx_release(s.eps, plan.exact_delta, label=f"BR-DP plan, {s.kernel.capitalize()} kernel",
                                       source="brdp"))
    except Exception:  # noqa: BLE001 — the ledger offer never takes the page down
        pass  # the plan's own panel already shows the error
    explore.render(s)


def picture(s: Settings) -> None:
    """The idea as a picture: successive noise draws, coloured released / redrawn, with the ±θ band."""
    with ui.panel("The idea: draw, check, maybe draw again",
                  "every grey dot is a draw that missed ±θ and was thrown away; the next draw replaces it. Orange "
                  "dots missed too but were released anyway (probability 1 − q). Green dots are on target."):
        draws, _ = compute.recycler(s.key, s.seed)
        ui.chart(explore.recycler_figure(s.key, s.seed, s.theta), draws, name="recycling picture",
                 alt="Scatter of successive noise draws of 40 releases, coloured released within the tolerance, "
                     "released outside it, or thrown away and redrawn, with the band of accurate answers shaded.")


def headline(s: Settings) -> None:
    """What this plan buys and what it costs, each number with what it means."""
    with ui.panel("What this plan buys"):
        plan = compute.plan(s.key)
        held = plan.epsilon_y < s.eps * (1 - 1e-9)
        if held:
            st.markdown(f"The noise runs at **ε_y = {number(plan.epsilon_y, 3)}** of your ε = "
                        f"{number(s.eps)}; the rest pays for redrawing a missed answer with probability "
                        f"**q = {number(plan.q, 3)}**.")
        else:
            st.markdown(f"Here the noise runs at the **full ε = {number(s.eps)}** (ε_y = ε) and still "
                        f"redraws a missed answer with probability **q = {number(plan.q, 3)}**: at one "
                        "release the exact accountant finds this recycling free, because where a redraw "
                        "changes the odds the noise alone leaks less than ε." if plan.q > 0 else
                        f"Here the best plan is plain DP: the noise runs at the full ε = {number(s.eps)} and "
                        "nothing is redrawn (q = 0).")
        c = st.columns(4)
        c[0].metric("BR-DP: chance within ±θ", f"{plan.acceptance:.4f}", f"{plan.gain:+.4f} vs plain DP",
                    help=f"The share of released answers whose error is at most θ = {number(s.theta)}: how "
                         "often an answer is accurate.")
        c[1].metric("plain DP: chance within ±θ", f"{plan.dp_acceptance:.4f}",
                    help=f"The same noise at the full ({number(s.eps)}, {number(s.delta)}) budget, never "
                         "redrawn.")
        c[2].metric("draws per release (mean)", f"{plan.expected_draws:.3f}",
                    help="How many times the noise is drawn on average before an answer is released.")
        c[3].metric("kernel's share ε_y / ε", number(plan.epsilon_y / s.eps, 3),
                    help="The part of ε spent on the noise itself; the rest pays for the redraws. The kernel is "
                         f"calibrated at δ_y = {number(plan.kernel_delta)}"
                         + (" (your choice)." if s.delta_y is not None else " (= δ, as in the paper's figures)."))
        ui.paper_vs_exact(f"δ at ε = {number(s.eps)}", plan.paper_delta, plan.exact_delta, digits=3,
                          help="The probability with which the e^ε promise may fail, by the paper's model of "
                               "recycling (left) and computed exactly from the two output distributions (right).")
        if not plan.sound:
            st.warning(f"This plan is NOT ({number(s.eps)}, {number(s.delta)})-DP: its exact δ is "
                       f"{number(plan.exact_delta, 3)}, above the target {number(s.delta)}.",
                       icon=":material/gpp_bad:")
        elif plan.paper_delta > s.delta * (1 + 1e-6):
            st.info(f"The paper's model would reject this plan (its δ = {number(plan.paper_delta, 3)} > "
                    f"{number(s.delta)}), but the exact δ is within the target: for these settings the "
                    "paper's model is over-cautious. The example settings in the sidebar show the opposite, "
                    "dangerous case.", icon=":material/info:")


__all__ = ["IDEA", "PRESETS", "Settings", "TITLE", "headline", "picture", "render", "sidebar"]
