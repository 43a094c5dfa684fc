"""The Privacy audit page: Monte-Carlo lower bounds on ε and δ for every mechanism the app calibrates.

Page shape: :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls from the parameter
catalogue, :func:`render` draws the page, one function per panel. Numbers from :mod:`app.compute.audit`, charts from
:mod:`app.figures.audit`; users only ever see the mechanisms' display names.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import params, ui
from app.compute import audit as compute
from app.figures import audit as figs
from app.notation import number, percent
from app.views._metrics import metric_row
from dpcore import audit as dpaudit

TITLE = "Privacy audit: try to catch a mechanism leaking"
IDEA = (
    "Run a mechanism many times on two data sets that differ in one person; if some outcome is far likelier on one "
    "than on the other, more likely than its ε and δ allow, the privacy claim is false."
)
CE = dpaudit.COUNTEREXAMPLE
PRESET = {
    "mech": "brdp_paper",
    "eps": CE["epsilon"],
    "delta": CE["delta"],
    "sens": CE["sensitivity"],
    "atheta": CE["theta"],
    "ratio": round(CE["epsilon_y"] / CE["epsilon"], 6),
}
BRDP = ("brdp", "brdp_paper")


@dataclass(frozen=True)
class Settings:
    """The sidebar's values."""

    mech: str
    eps: float
    delta: float
    sens: float
    theta: float
    ratio: float
    n: int
    level: float
    seed: int
    curve: bool

    @property
    def name(self) -> str:
        return compute.NAMES[self.mech]


def _apply_preset(values: dict) -> None:
    """on_click: move the URL-bound controls to the preset (runs before the widgets exist)."""
    for key, value in values.items():
        st.session_state[key] = value


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        st.header("Controls")
        mech = str(params.control("mech"))
        eps = float(params.control("eps"))
        delta = float(params.control("delta"))
        sens = float(params.control("sens"))
        theta = float(params.control("atheta")) if mech in BRDP else 1.0
        ratio = float(params.control("ratio")) if mech == "brdp_paper" else 0.6
        n = int(params.control("draws"))
        level = float(params.control("level"))
        seed = int(params.control("seed"))
        curve = bool(params.control("curve"))
        st.button(
            "Load the BR-DP counterexample",
            key="preset",
            on_click=_apply_preset,
            args=(PRESET,),
            width="stretch",
            help="ε = 0.1, δ = 0.001, tolerance 0.1, Δ = 5, share 0.6: the paper's "
            "accountant certifies δ = 0.00067, but the two output laws do not even overlap.",
        )
        ui.share_hint()
    return Settings(mech, eps, delta, sens, theta, ratio, n, level, seed, curve)


def render(s: Settings) -> None:
    """The page: the idea first, the verdict, then the evidence and the audit of every mechanism."""
    ui.header(
        TITLE,
        f"{IDEA} An **audit** tests the claim from the outside, with exact (Clopper–Pearson) confidence bounds, so a "
        "reported violation is real with the confidence you choose. An audit can only prove that a mechanism is "
        "**not** private enough; passing is evidence, not proof: the leak may hide in outcomes too rare to sample.",
    )
    view = None
    with ui.panel(
        "1 · The two output laws",
        "where the two histograms differ most, one person's data shows. The "
        "shaded outcome is the one the audit picked (on half of the outputs) to bound ε; it was then "
        "counted on the other half only.",
    ):
        view = compute.run(s.mech, s.eps, s.delta, s.sens, s.n, s.seed, s.level, s.theta, s.ratio, s.curve)
        output_laws(s, view)
    if view is not None:
        verdict(s, view)
        privacy_loss(s, view)
        more_outputs(s, view)
    every_mechanism(s)


def verdict(s: Settings, view: compute.AuditView) -> None:
    """The claim, the two lower bounds and the verdict."""
    with ui.panel("The verdict"):
        res = view.result
        st.caption(f"**{s.name}**: {res.setting}.")
        metric_row(
            (
                "claimed ε",
                number(res.claimed_epsilon, 4),
                f"The privacy the mechanism promises (claimed δ = {number(res.claimed_delta, 3)}).",
            ),
            (
                f"ε lower bound ({percent(s.level)} conf.)",
                number(res.epsilon_lb, 4),
                f"The true ε is at least this, with {percent(s.level)} confidence. It comes from the outcome "
                f"{res.epsilon_bound.event}: {res.epsilon_bound.k:,} of {res.epsilon_bound.n:,} vs "
                f"{res.epsilon_bound.k_prime:,} of {res.epsilon_bound.n_prime:,} held-out outputs.",
            ),
            (
                f"δ lower bound at ε = {number(res.claimed_epsilon, 3)}",
                number(res.delta_lb, 4),
                f"The true δ at the claimed ε is at least this (claimed δ = {number(res.claimed_delta, 3)}).",
            ),
            (
                "verdict",
                "VIOLATION" if res.caught else "consistent",
                "VIOLATION when a lower bound beats the claim: then the claim is false.",
            ),
        )
        if res.caught:
            st.error(
                f"**The claim is beaten.** With {percent(s.level)} confidence the true privacy loss exceeds the "
                f"claim (ε ≥ {number(res.epsilon_lb, 4)} vs {number(res.claimed_epsilon, 3)} claimed; δ "
                f"≥ {number(res.delta_lb, 4)} at the claimed ε vs "
                f"{number(res.claimed_delta, 3)}).",
                icon=":material/gpp_bad:",
            )
        else:
            st.success(
                "**Consistent**: no outcome beats the claim at this number of outputs. Evidence, not proof.",
                icon=":material/verified_user:",
            )
        if s.mech == "brdp_paper":
            ui.paper_vs_exact(
                "δ at the claimed ε",
                res.paper_delta,
                res.exact_delta,
                digits=3,
                help="The paper's accountant (Prop. 2) against the exact δ of the BR-DP pair.",
            )


def output_laws(s: Settings, view: compute.AuditView) -> None:
    """1 · Histograms of the outputs on both data sets, with the audit's outcome shaded (inside the caller's panel)."""
    ui.chart(
        figs.outputs(view.histogram, view.event, mechanism=s.mech, discrete=view.discrete),
        view.histogram,
        name="audit output laws",
        alt="Histograms of the mechanism's outputs on D and on the neighbour D', with the audit's outcome shaded.",
    )


def privacy_loss(s: Settings, view: compute.AuditView) -> None:
    """2 · Per-bin log-likelihood ratios against the ±ε band."""
    with ui.panel(
        "2 · Privacy loss of each output",
        "a private mechanism keeps every bin's privacy loss inside the ±ε band (pure DP); the whiskers are "
        "confidence intervals. Bins far in the tails have few outputs and wide whiskers; δ > 0 allows rare bins "
        "outside the band.",
    ):
        ui.chart(
            figs.ratios(view.ratios, epsilon=view.result.claimed_epsilon, discrete=view.discrete),
            view.ratios,
            name="audit likelihood ratios",
            alt="Per-bin empirical log-likelihood ratios with confidence whiskers against the claimed epsilon band.",
        )


def more_outputs(s: Settings, view: compute.AuditView) -> None:
    """3 · The lower bound against the number of outputs."""
    with ui.panel(
        "3 · More outputs, tighter bound",
        "the lower bound climbs towards the true ε as the number of outputs grows, but never above the claim for an "
        "honest mechanism. A tight audit of a large ε needs many outputs: only a share e^−ε of them lands in the "
        "telling outcome on the second data set.",
    ):
        if view.curve is None:
            st.caption(
                ":material/toggle_off: Switch on **Show how the bound tightens with more outputs** in the "
                "sidebar to re-audit growing shares of the outputs."
            )
        else:
            ui.chart(
                figs.curve(view.curve, epsilon=view.result.claimed_epsilon),
                view.curve,
                name="audit bound vs n",
                alt="Epsilon lower bound against the number of outputs, with the claimed epsilon as a line.",
            )


def every_mechanism(s: Settings) -> None:
    """4 · Every mechanism audited at the sidebar's settings, plus the BR-DP counterexample."""
    with ui.panel(
        "4 · Audit every mechanism",
        "every honest mechanism passes; BR-DP calibrated by the paper's accountant where that accountant fails is "
        "caught with a δ lower bound near 1, against the 0.00067 the paper's accountant prints.",
    ):
        st.caption(
            f"All {len(compute.MECHANISMS)} mechanisms at the sidebar's ε, δ, Δ, {s.n:,} outputs and seed, "
            "plus BR-DP (paper's accountant) at its counterexample."
        )
        if st.button("Audit every mechanism", key="all", icon=":material/play_arrow:"):
            st.session_state["audit_all"] = True
        if not st.session_state.get("audit_all"):
            return
        df = compute.table(s.eps, s.delta, s.sens, s.n, s.seed, s.level, s.theta, s.ratio)
        where = {dpaudit.COUNTEREXAMPLE_SETTINGS: "at its counterexample", "these settings": "at these settings"}
        shown = pd.DataFrame(
            {
                "mechanism": df["name"],
                "settings": df["settings"],
                "claimed ε": df["claimed_epsilon"],
                "ε lower bound": df["epsilon_lb"],
                # δ as text, so that it reads 10⁻⁵ (the grid's number formats would write 1e-5)
                "claimed δ": [number(d, 4) for d in df["claimed_delta"]],
                "δ lower bound": [number(d, 4) for d in df["delta_lb"]],
                "paper's δ": [number(d, 4) for d in df["paper_delta"]],
                "exact δ": [number(d, 4) for d in df["exact_delta"]],
                "verdict": ["VIOLATION" if c else "consistent" for c in df["caught"]],
            }
        )
        st.dataframe(
            shown,
            hide_index=True,
            width="stretch",
            column_config={c: st.column_config.NumberColumn(format="%.4g") for c in ("claimed ε", "ε lower bound")},
        )
        for row in df[df["caught"]].itertuples():
            st.error(
                f"**{row.name}** {where.get(row.settings, row.settings)} is caught: the audit proves "
                f"δ ≥ {number(row.delta_lb, 4)} at ε = {number(row.claimed_epsilon, 3)}, while it "
                f"claims δ = {number(row.claimed_delta, 3)} (paper's accountant as printed: "
                f"{number(row.paper_delta, 3)}; exact: "
                f"{number(row.exact_delta, 3)}).",
                icon=":material/gpp_bad:",
            )
        csv_df = shown
        st.download_button(
            "Download the table (CSV)",
            lambda: csv_df.to_csv(index=False).encode(),
            file_name="audit-every-mechanism.csv",
            mime="text/csv",
            key="csv-audit-all",
            on_click="ignore",
            icon=":material/download:",
        )
