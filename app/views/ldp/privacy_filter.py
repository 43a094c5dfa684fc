"""Local DP page, part "Filter": the Bayesian privacy filter at work (Pan 2023, Sec. 4)."""

from __future__ import annotations

import streamlit as st

from app import params, ui
from app.compute import ldp as C
from app.figures import ldp as F
from app.notation import number, percent
from app.views._metrics import metric_row
from app.views.ldp._settings import Settings


def render(s: Settings) -> None:
    """The part's panels: timeline, remaining budget, answered counts, the two rules, the (ε, δ) variant."""
    timeline(s)
    remaining(s)
    counts(s)
    regions(s)
    approximate(s)


def timeline(s: Settings) -> None:
    """1 · The filter query by query next to basic composition (Algorithm 2, Eq. 15)."""
    with ui.panel(
        "Filter timeline: the Bayesian filter against adding up ε",
        "the Bayesian filter runs well past the point where adding up ε stops; the odometer can go *down*; and the "
        "look-ahead over every possible answer — not the answer that came out — decides, so the decision itself "
        "reveals nothing.",
    ):
        t = C.timeline(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        metric_row(
            (
                f"Odometer after the stream ({s.unit})",
                C.show_loss(t.loss, s.ratio),
                "The realized loss of everything answered (Def. 4.5): never above ε_G.",
            ),
            (
                "Times the odometer went down",
                t.decreases,
                "Answers that made the most and least likely values look more alike.",
            ),
            (
                "First refused query",
                "none" if t.first_rejection is None else f"query {t.first_rejection}",
                "A refused query is not run: some answer it could give would exceed ε_G.",
            ),
        )
        ui.chart(
            F.timeline(t.table, t, ratio=s.ratio),
            t.table,
            name="filter timeline",
            alt="Odometer, look-ahead, budget and basic composition against the query number.",
        )


def remaining(s: Settings) -> None:
    """2 · Remaining budget: it can grow back."""
    with ui.panel(
        "Remaining budget",
        "the remaining budget is a capacity for *new* queries and it can grow back; adding up ε only ever spends. "
        "The Simplified filter (Algorithm 3) answers a next query exactly when its ε fits in what remains.",
    ):
        t = C.timeline(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        metric_row(
            ("Remaining, Bayesian: ε_G − ℓ", f"{t.remaining:.4f}", "Budget minus the odometer."),
            (
                "Remaining, adding up ε: ε_G − Σε",
                f"{t.basic_remaining:.4f}",
                "Budget minus the ε of every query basic composition answered.",
            ),
            (
                "Largest ε the Simplified filter answers now",
                f"{t.simplified_max_epsilon:.4f}",
                "The Simplified filter answers a query of level ε_q when ℓ + ε_q ≤ ε_G.",
            ),
        )
        st.progress(t.remaining_share, text=f"Bayesian filter: {percent(t.remaining_share, 0)} of ε_G left")
        st.progress(t.basic_remaining_share, text=f"Adding up ε: {percent(t.basic_remaining_share, 0)} of ε_G left")


def counts(s: Settings) -> None:
    """3 · Answered counts of a greedy analyst; the randomized-response closed form."""
    with ui.panel(
        "How many queries get answered?",
        "answered counts spread out but sit well above basic composition's fixed count, and grow roughly linearly "
        "in ε_G with a steeper slope. The Simplified filter sits in between.",
    ):
        simulate = bool(params.control("mc", container=st))
        rr = C.rr_expected(s.eps, s.epsg)
        rr_label = "Expected answered, binary randomized response"
        rr_value = "—" if rr is None else f"{rr:.3f}"
        rr_help = (
            "The expected number a ±1 random walk needs to reach ⌊ε_G/ε⌋ (closed form; this project's own benchmark)."
            if rr is not None
            else f"⌊ε_G/ε⌋ > {C.RR_CLOSED_FORM_MAX_M}: too long a walk to solve on every change."
        )
        if simulate:
            a = C.accepted_counts(s.family, s.eps, s.epsg, s.dsize, s.x, s.seed)
            metric_row(
                (
                    "Bayesian filter: mean answered",
                    f"{a.bayesian_mean:.2f}",
                    f"{C.SIM_RUNS} seeded runs; each stops at the first refusal (Algorithm 5).",
                ),
                (
                    "Simplified filter: mean answered",
                    f"{a.simplified_mean:.2f}",
                    "Answers while ℓ + ε_q ≤ ε_G (Algorithm 3).",
                ),
                ("Adding up ε", a.basic, "⌊ε_G/ε⌋-style: the same count in every run."),
                (rr_label, rr_value, rr_help),
            )
            if a.capped:
                st.caption(f"Some runs reached the cap of {C.SIM_CAP} answered queries; their counts are cut there.")
            ui.chart(
                F.accepted_hist(a.table, basic=a.basic),
                a.table,
                name="answered counts",
                alt="Histogram of answered queries per run for the Bayesian and Simplified filters.",
            )
        else:
            st.metric(rr_label, rr_value, help=rr_help)
            st.caption(
                f"Switch on **simulate the analyst** for the answered counts of both filters ({C.SIM_RUNS} "
                "seeded runs each) and simulated points on the curve below."
            )
        df = C.rr_curve(s.eps, min(s.x, 1), s.seed) if simulate else C.rr_closed_form(s.eps)
        ui.chart(
            F.rr_curve(df, budget=s.epsg),
            df,
            name="randomized response expected answered",
            alt="Expected answered queries against the budget for randomized response, closed form and simulation.",
        )


def regions(s: Settings) -> None:
    """4 · The full look-ahead accepts a superset of the Simplified rule (Eq. 15 vs Algorithm 3)."""
    with ui.panel(
        "Simplified rule against the full look-ahead",
        "from the state the timeline left, the full look-ahead accepts every query the Simplified rule accepts and "
        "more — for example flat queries (slope ≈ 0) that cannot separate any two values, whatever their ε.",
    ):
        r = C.regions(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        t = C.timeline(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        metric_row(
            (
                "Candidates the full filter accepts",
                f"{r.bayesian} of {r.candidates}",
                "Each candidate reports a line a + slope·x through the two-point mechanism at level ε_q.",
            ),
            ("… the Simplified filter accepts", f"{r.simplified} of {r.candidates}", "Those with ℓ + ε_q ≤ ε_G."),
            (
                "Every Simplified acceptance also a full one",
                "yes" if r.superset else "no",
                "Thm 4.2: the Simplified filter is a cautious version of the full one.",
            ),
        )
        ui.chart(
            F.regions(r.table, remaining=t.remaining),
            r.table,
            name="acceptance regions",
            alt="Grid of candidate queries by slope and epsilon, coloured by which filter accepts them.",
        )


def approximate(s: Settings) -> None:
    """5 · The (ε, δ) variant of Algorithm 4 (experimental: the paper gives no proof)."""
    with ui.panel(
        "The (ε, δ) variant (experimental)",
        "Algorithm 4 first spends by adding up ε (and δ) — as an ordinary privacy filter would — and only when that "
        "would stop does it look at what was actually revealed and continue with the Bayesian look-ahead. On these "
        "pure-ε queries it ends up answering about as many as the Bayesian filter. The paper gives no proof of its "
        "(ε, δ) guarantee, so the app shows it for comparison only.",
    ):
        a = C.approximate_run(s.family, s.eps, s.epsg, s.dsize, s.nq, s.x, s.seed)
        metric_row(
            (
                "Answered by the (ε, δ) variant",
                f"{a.accepted} of {s.nq}",
                f"Algorithm 4 with δ_G = {number(C.APPROX_DELTA)}; the queries spend no δ.",
            ),
            ("Answered by the Bayesian filter", f"{a.bayesian_accepted} of {s.nq}"),
            (
                "Switches to the look-ahead at",
                "never" if a.switch_step is None else f"query {a.switch_step}",
                "The first query that adding up ε would refuse.",
            ),
        )
        st.dataframe(
            a.table.rename(
                columns={
                    "step": "query",
                    "mode": "rule in use",
                    "accepted": "answered",
                    "loss": "realized loss ℓ",
                    "spent": "Σε spent while adding up",
                }
            ),
            hide_index=True,
            width="stretch",
            height=240,
        )
