"""The run part of the SVT page's explore view: one seeded run stepped through comparison by comparison (Liu et al.
2024, Algorithm 2), and what asking rejected queries again does to the chance of being selected."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import ui
from app.compute import svt as csvt
from app.figures import svt as figs
from app.notation import number
from app.views import _player as player
from app.views._metrics import metric_row

if TYPE_CHECKING:
    from app.views.svt import Settings

#: How a run ended (LiveRun.halted), in words.
HALTED = {
    "cutoff": "at its c-th yes-answer",
    "k_max": "at its limit on comparisons",
    "exhausted": "with the queue used up",
}


def run_tab(s: Settings) -> None:
    """Panels 8–9: a live run and the effect of appending."""
    with ui.panel(
        "A live SVT run",
        "SVT halts after c yes-answers; orange bars below the pink line are counts truly above τ it may still miss; "
        "grey bars above it are counts below τ that would waste a slot. With “ask rejected queries again” on, the "
        "queries answered no come back in later passes.",
        key="svt-live-run",
    ):
        comp, info = csvt.live_run(*s.run)
        st.caption(
            f"Queue: {info.n_items} items with Zipf-like counts τ·c/i (exactly c items reach τ), shuffled with the "
            f"seed; correction r = {number(info.correction, 4)}; at most kₘₐₓ = {number(s.kmax)} comparisons."
        )
        _live(s, comp, info)

    with ui.panel(
        "Appending: more passes, more chances",
        "counts far above τ (large d) pull away from those below it as the number of passes t grows. The paper's "
        "t·p (dashed) is a first-order guess that passes 1; the exact chance is 1 − (1 − p)^t with a fresh ρ per "
        "pass and E_ρ[1 − F(ρ + r − d)^t] with the one shared ρ of Algorithm 2.",
    ):
        df, worst = csvt.appending(s.eps, s.c, s.k, s.alpha, s.monotonic, s.trav_eff)
        ui.chart(
            figs.appending(df, traverses=s.trav_eff),
            df,
            name="appending",
            alt="Probability of selection within t passes against the count minus tau, exact and the paper's t·p.",
        )
        _appending_erratum(s, worst)


def _live(s: Settings, comp: pd.DataFrame, info: csvt.LiveRun) -> None:
    """Step / next yes / play / reset over the recorded comparisons of one seeded run (session state only)."""
    n = len(comp)
    player.start("svt", s, n)  # new settings: show the whole new run

    def next_yes(now: int) -> int:
        after = comp.index[(comp["positive"]) & (comp["step"] > now)]
        return int(comp.loc[after[0], "step"]) if len(after) else n

    @st.fragment(run_every=player.tick("svt", 0.35))
    def play() -> None:
        step = player.controls("svt", n, per_tick=max(1, n // 100), jump=("Next yes", next_yes), end=True)
        last = comp.iloc[step - 1] if step else None
        metric_row(
            ("comparisons so far", f"{step} / {n}"),
            ("yes-answers / c", f"{int(last['n_positive']) if step else 0} / {s.c}"),
            ("yes-answers truly above τ", f"{int(last['n_true_selected']) if step else 0}"),
            ("pass", f"{int(last['pass']) if step else 0}"),
            (
                "threshold noises drawn",
                f"{info.threshold_draws}",
                "1, unless a new threshold noise is drawn after each yes.",
            ),
        )
        ui.chart(
            figs.live_run(comp, step=step, threshold=s.threshold),
            comp.iloc[:step],
            name="live run",
            alt="Bars of true answers in queue order with noisy answers and the noisy threshold line.",
        )
        st.caption(
            f"The full run stopped {HALTED[info.halted]} after {info.n_comparisons} comparisons with "
            f"{info.n_positive} yes-answers ({info.true_positives_selected} of them truly above τ)."
        )

    play()


def _appending_erratum(s: Settings, worst: csvt.AppendingGap) -> None:
    """The paper's t·p against the exact chance of being selected within t passes."""
    if not s.append:
        st.info(
            "“Ask rejected queries again” is off: every query is compared once (t = 1), where t·p is exact. Turn it "
            "on in the sidebar to see the paper's approximation at your t.",
            icon=":material/info:",
        )
    st.markdown(f"At d = count − τ = {number(worst.d, 4)}, t = {s.trav_eff}:")
    metric_row(
        ("P[selected] — paper's t·p", number(worst.paper, 4)),
        ("P[selected] — exact (shared ρ)", number(worst.exact, 4)),
        ("fresh ρ per pass, 1 − (1 − p)^t", number(worst.independent, 4)),
    )
    if worst.paper > worst.exact + 0.01:
        st.warning(
            f"The paper's t·p = {number(worst.paper, 3)} is wrong here (not even a probability once it "
            f"passes 1); the exact chance is {number(worst.exact, 3)}.",
            icon=":material/warning:",
        )
