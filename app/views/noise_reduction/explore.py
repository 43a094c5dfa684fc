"""The explore view's paper in depth on the Accuracy-first page: five parts, each a URL-bound tab computed only when
open.

paths (where a noise reduction stops and what it pays), structure (why only the last release costs privacy),
filter (one budget for many releases: the unified filter of Thm 6, Thm 3's concurrent filter, the loss of whole
filter runs), costs (noise reduction against doubling; the Zipf data) and martingale (Lemma 6.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import background, params, ui
from app.compute import noise_reduction as compute
from app.figures import noise_reduction as figs
from app.notation import number, percent
from app.views._metrics import metric_row

if TYPE_CHECKING:
    import pandas as pd

    from app.views.noise_reduction import Settings

NEIGHBOUR = {"up": 1, "down": -1}  # neighbour direction → u = f(x) − f(x')
GRIDLESS = ("Filter", "Costs")  # parts that still work when no noise level fits the budget


def render(s: Settings, *, feasible: bool) -> None:
    """The five parts as lazy tabs (``?part=``); parts needing a noise level are skipped when none fits."""
    drawers = {"Paths": paths, "Structure": structure, "Filter": filters, "Costs": costs, "Martingale": martingale}
    tabs = params.parts(list(drawers))
    for (name, draw), tab in zip(drawers.items(), tabs, strict=True):
        if tab.open:
            with tab:
                if feasible or name in GRIDLESS:
                    draw(s)
                else:
                    st.info(
                        "This part needs a noise level that fits the budget: raise ε (see the note above).",
                        icon=":material/info:",
                    )


# ---- paths ----------------------------------------------------------------------------------------------------


def paths(s: Settings) -> None:
    """Coupled paths and where they stop; the distribution of the stopping charge over many runs."""
    with ui.panel(
        "The noise path shrinks",
        "each path starts very noisy (left) and homes in on y as the noise level ε grows; neighbouring levels are "
        "strongly correlated (Brownian: one smooth path; Laplace: flat stretches then jumps). A path stops at the "
        "first point above the black boundary: the stopping rule sees only ŷ and ε, never y.",
    ):
        ui.chart(
            ui.memo_figure(_paths_figure, s.grid_args(), s.y, s.eta, s.process, s.seed),
            lambda: compute.paths(*s.grid_args(), s.y, s.eta, s.process, s.seed).frame,
            name="noise paths",
            alt="Released values of five coupled noise-reduction paths against the noise level, with the "
            "noise band, the acceptance boundary and each path's stopping point.",
        )
        st.dataframe(
            ui.memo_figure(_stops_table, s.grid_args(), s.y, s.eta, s.process, s.seed, s.unit),
            hide_index=True,
            width="stretch",
        )

    with ui.panel(
        f"Where it stops, and what it paid ({compute.N_RUNS} runs)",
        "almost every run stops far left of the worst case: you pay for the accuracy you needed, not for the "
        "budget you reserved. A larger y or a looser η stops earlier (cheaper).",
    ):
        hist, summ = compute.stopping(*s.grid_args(), s.y, s.eta, s.process, s.seed)
        metric_row(
            (
                "Runs that reached the tolerance",
                percent(summ.accepted),
                "The share of runs whose stopping rule fired before the last level; the others are "
                "discarded (and still paid for).",
            ),
            (
                "Really within η, of those",
                percent(summ.precision),
                "The share of accepted answers with |ŷ/y − 1| < η: the rule only sees ŷ, so a few slip.",
            ),
            (
                "Median stopping level ε_T",
                number(summ.median_epsilon_stop, 4),
                "The noise level at which half the runs had stopped; the noise there is about 1/ε_T.",
            ),
            (
                "DP ε: median run vs worst case",
                f"{number(summ.dp_epsilon_median, 3)} vs {number(summ.dp_epsilon_worst, 3)}",
                "What one release alone would cost in (ε, δ) terms: Brownian ρ_T + 2√(ρ_T ln(1/δ)); "
                "Laplace ε_T itself.",
            ),
        )
        ui.chart(
            ui.memo_figure(_stopping_figure, s.grid_args(), s.y, s.eta, s.process, s.seed),
            hist,
            name="stopping charges",
            alt="Bar chart of the share of runs stopping at each charge, with the ex-ante worst case marked.",
        )


# ---- structure --------------------------------------------------------------------------------------------------


def structure(s: Settings) -> None:
    """Time inversion, correlation across levels, the Laplace process."""
    direction = NEIGHBOUR[str(params.control("nb", container=st))]
    with ui.panel(
        "Time inversion: the privacy loss is a Brownian motion with drift",
        "on the precision clock s = ε² the rescaled noise W(s) = s·(Y − y) is an ordinary Brownian motion (spread "
        "±√s). The privacy loss ℒ(s) = s/2 + u·W(s) wanders around the drift line s/2 with variance s: exactly the "
        "loss of a Gaussian mechanism with ρ = s/2, however the stop was chosen (Thm 4). Flipping the neighbour "
        "mirrors W, not the drift.",
        paper="Theorem 4",
    ):
        inv, summ = compute.inversion(*s.grid_args(), s.y, s.eta, direction, s.seed)
        metric_row(
            (
                "Path 1 stops at ε_T",
                number(summ.epsilon_stop, 4),
                "The first level at which path 1 of the first part looked accurate enough.",
            ),
            (
                "Its charge ρ_T = ε_T²/2 (the average loss)",
                number(summ.rho_stop, 4),
                "What the filter charges: the mean of the loss at the stop.",
            ),
            (
                "Loss ℒ it actually realised",
                number(summ.loss_stop, 4),
                "(ε_T²/2)·((ŷ − f(x'))² − (ŷ − f(x))²): how much more likely this answer is with the "
                "person than without, in log terms, for this one path.",
            ),
        )
        ui.chart(
            figs.inversion(inv, direction=direction),
            inv,
            name="time inversion",
            alt="The Brownian paths of the first part rescaled as W(s) and the loss process against s = ε², "
            "with the drift line s/2.",
        )
        if s.process != "brownian":
            st.caption("This panel always shows Brownian paths: the Laplace process has no such time inversion.")

    with ui.panel(
        "Correlation of the noise across levels",
        "neighbouring levels are almost perfectly correlated and far-apart levels hardly at all; the empirical "
        "matrix (below the diagonal) matches min ε / max ε (above) for Brownian and Laplace noise alike. A geometric "
        "grid has the same correlation between every pair of neighbours.",
    ):
        for col, mech in zip(st.columns(2), ("brownian", "laplace"), strict=True):
            with col:
                correlation(s, mech)

    with ui.panel(
        "The Laplace process: flat stretches and jumps",
        "Laplace noise reduction (Appendix A) moves in jumps: between two adjacent levels the noise stays exactly "
        "flat with probability (ε_k/ε_(k+1))², otherwise it jumps. Its loss at any level, stopped or not, is "
        "bounded: |ℒ| ≤ ε_T (plain DP, no δ).",
    ):
        shown, pairs, ls = compute.laplace_process(*s.grid_args(), s.y, s.eta, s.seed)
        metric_row(
            (
                "Share of flat steps (sampled)",
                f"{ls.flat_empirical:.4f}",
                f"Over {compute.N_LAPLACE} paths and all adjacent levels; the largest gap to theory is "
                f"{ls.flat_gap:.3f}.",
            ),
            (
                "Share of flat steps (theory)",
                f"{ls.flat_theory:.4f}",
                "The average of (b_fine/b_coarse)² over adjacent levels, b = 1/ε the noise scale.",
            ),
            (
                "Loss ℒ at the stop (path 1)",
                number(ls.loss_stop, 4),
                f"Stopped at ε_T = {number(ls.epsilon_stop, 4)} by the relative-error rule; neighbour y − 1.",
            ),
            (
                "Largest |ℒ| / ε over all paths and levels",
                f"{ls.max_ratio:.4f}",
                "Lemma A.1: |ℒ| ≤ ε, so this never exceeds 1.",
            ),
        )
        ui.chart(
            figs.laplace_process(shown, value=s.y),
            shown,
            name="laplace process",
            alt="Three Laplace noise-reduction paths X(b) against the noise scale b on a log axis, piecewise "
            "constant, with the flat stretches drawn thick.",
        )


def correlation(s: Settings, mech: str) -> None:
    """The correlation heatmap of one noise process with its two numbers."""
    ce, emp, theory, summ = compute.correlation(*s.grid_args(), mech, s.seed)
    label = figs.MECH_LABELS[mech]
    metric_row(
        (
            f"Largest |sampled − theory| ({label})",
            f"{summ.max_gap:.3f}",
            f"{compute.N_CORR} coupled paths; the sampling error is about 2/√{compute.N_CORR} ≈ "
            f"{2 / compute.N_CORR**0.5:.3f}.",
        ),
        (
            f"Mean correlation of neighbouring levels ({label})",
            f"{summ.adjacent:.3f}",
            "min ε / max ε for adjacent levels of the grid: how much of the noise two steps share.",
        ),
    )
    ui.chart(
        figs.correlation(ce, emp, theory, mechanism=mech),
        compute.correlation_frame(ce, emp, theory),
        name="correlation heatmap" + ("" if mech == "brownian" else " laplace"),
        alt=f"Heatmap of the correlation between the {label} noise at {len(ce)} levels, sampled below the "
        "diagonal and the closed form min ε / max ε above.",
    )


# ---- filter -----------------------------------------------------------------------------------------------------


def filters(s: Settings) -> None:
    """The live filter, the queue of counts, Thm 3's concurrent filter, the loss of whole runs, the constant."""
    with ui.panel(
        "A live privacy filter",
        "the filter admits a request only if its worst case fits what is left (a noise reduction reserves the "
        "whole remainder, then is charged only ε_T²/2 once stopped). A one-shot Gaussian release of a small count "
        "needs a large ε and is refused. Nothing ever takes the spend past ρ*.",
    ):
        live_ledger(s)

    with ui.panel(
        f"A queue of {s.m} counts under one budget",
        "noise reduction climbs more slowly per returned count, so more counts fit. When a count is too small for "
        "what is left, its noise reduction fails and uses up the remainder; everything after it is refused.",
    ):
        odo = compute.odometer(*s.grid_args(), s.y, s.eta, s.m, s.seed)
        ui.chart(
            ui.memo_figure(_odometer_figure, s.grid_args(), s.y, s.eta, s.m, s.seed, s.eps, s.delta, s.variant),
            odo,
            name="odometer",
            alt="Cumulative zCDP budget spent after each count for noise reduction and doubling.",
        )
        st.dataframe(odo, hide_index=True, width="stretch", height=220)

    eps_post = float(params.control("epspost", container=st))
    with ui.panel(
        "Two filters side by side",
        "a Laplace noise reduction's cost is a plain ε, not a zCDP ρ, so it cannot join the unified filter. Theorem 3 "
        "runs a zCDP filter (budget from ε, δ) and an ex-post filter (budget ε′) next to each other, in any order the "
        "analyst likes; together they promise (ε + ε′, δ). Each part refuses what would overrun its own budget.",
        paper="Theorem 3",
    ):
        df, cs = compute.concurrent(s.eps, s.delta, eps_post, s.y, s.eta, s.m, s.K, s.seed)
        metric_row(
            (
                "Promise of the pair (ε + ε′, δ)",
                f"({number(cs.epsilon_total, 3)}, {number(cs.delta_total)})",
                "By concurrent composition (the paper's Theorem 1) the interleaved releases of both "
                "filters are together (ε + ε′, δ)-DP.",
            ),
            (
                "Gaussian releases (zCDP part)",
                f"{cs.zcdp_returned}",
                f"Odd counts of the queue, each a one-shot Gaussian at ε = (2+η)/(η·y); the part spent "
                f"ρ = {number(cs.rho_spent, 4)} of ρ* = {number(cs.rho_budget, 4)}.",
            ),
            (
                "Laplace noise reductions returned (ex-post part)",
                f"{cs.expost_returned}",
                "Even counts, each charged the ε_T where it stopped; the part spent "
                f"{number(cs.expost_spent, 4)} of ε′ = {number(cs.expost_budget)}.",
            ),
        )
        ui.chart(
            figs.concurrent(df, rho_budget=cs.rho_budget, expost_budget=cs.expost_budget),
            df,
            name="concurrent filter",
            alt="Share of each filter's budget used after each count of the queue.",
        )

    mix = float(params.control("mix", container=st))
    aggr = float(params.control("stop", container=st))
    with ui.panel(
        f"The privacy loss of whole filter runs ({compute.N_FILTER_RUNS} runs)",
        f"the filter mixes Gaussian releases ({percent(mix, 0)}) with noise reductions of y "
        f"({percent(1 - mix, 0)}) that stop adaptively, until the budget is used up; yet the total loss against a "
        "worst-case neighbour is just N(ρ*, 2ρ*), the loss of one Gaussian mechanism with zCDP ρ* (Thm 6). Runs "
        "beyond ε are far rarer than δ allows: the conversion to (ε, δ) is conservative.",
        paper="Theorem 6",
    ):
        done = background.result(
            compute.filter_runs,
            s.eps,
            s.delta,
            s.variant,
            s.y,
            s.eta * aggr,
            s.seed,
            mix,
            slot="filter-runs",
            wait=compute.FILTER_RUNS_WAIT,
            label=f"Running the filter {compute.N_FILTER_RUNS} times",
        )
        if done is not None:
            _filter_losses(s, aggr, *done)

    with ui.panel(
        "Which constant turns ε and δ into the budget: as proved or as printed",
        "the proof of Theorem 6 shows ρ-zCDP, i.e. ε = ρ + 2√(ρ ln(1/δ)); the printed 2√(2ρ ln(1/δ)) is also safe "
        "but loose, and budgets about 40 % less ρ for the same ε. The paper's own experiments (Σε² ≈ 2.705) use "
        "the proof's constant.",
        paper="Theorem 6",
    ):
        err = compute.errata(s.eps, s.delta, s.m, s.K)
        ui.paper_vs_exact(
            "ρ* for this (ε, δ)",
            err.rho_printed,
            err.rho_corrected,
            digits=6,
            paper_underreports=False,
            help="Printed constant: ρ* = (√(2L+ε) − √(2L))², L = ln(1/δ). Proof's: (√(L+ε) − √L)².",
        )
        if s.variant == "as_printed":
            st.info(
                "The page is using the printed constant: safe, but the budget ρ* is smaller than the proof "
                "allows, so fewer counts fit.",
                icon=":material/info:",
            )


def _filter_losses(
    s: Settings, aggr: float, hist: pd.DataFrame, curve: pd.DataFrame, summ: compute.LossSummary
) -> None:
    """Panel 9's numbers and histogram: the total loss of whole filter runs against N(ρ*, 2ρ*)."""
    metric_row(
        (
            "Average total loss (theory ρ*)",
            number(summ.mean, 4),
            f"Mean over the runs; each spent ρ = {number(summ.spent, 4)} on average of ρ* = {number(summ.rho, 4)}.",
        ),
        (
            "Variance of the total loss (theory 2ρ*)",
            number(summ.var, 4),
            "How much the total loss varies from run to run.",
        ),
        ("Runs whose loss exceeded ε", number(summ.tail, 3), "The sampled share."),
        (
            "Normal tail above ε",
            number(summ.tail_gauss, 2),
            f"P[N(ρ*, 2ρ*) > ε], to compare with δ = {number(s.delta)}: the filter promises at most δ.",
        ),
    )
    ui.chart(
        figs.loss_distribution(hist, curve, epsilon=s.eps, rho=summ.rho),
        hist,
        name="filter loss distribution",
        alt="Histogram of the total privacy loss of simulated filter "
        "runs with the normal density N(rho, 2 rho) and a vertical line at epsilon.",
    )
    st.caption(
        f"Each run: requests until less than ε²_min/2 is left or 200 requests are done (on average "
        f"{summ.rounds:.1f}, {summ.bm_rounds:.1f} of them noise reductions stopped at relative error "
        f"{number(s.eta * aggr)}); Gaussian requests cost ρ_i between 0.01 and 0.1, noise reductions "
        "use a 50-level grid even in ε² up to the remaining budget and cost ε_T²/2."
    )


def live_ledger(s: Settings) -> None:
    """Buttons acting on a unified filter kept in the session (as a plain dict), a gauge and the ledger table."""
    state = st.session_state.get("nr_ledger")
    if not isinstance(state, compute.LedgerState) or state.config != (s.eps, s.delta, s.variant):
        state = compute.ledger_new(s.eps, s.delta, s.variant)
    c = st.columns(3)
    msg = None
    kw = {"value": s.y, "count": s.m, "alpha": s.eta, "levels": s.K, "spacing": s.spacing, "seed": s.seed}
    if c[0].button("Add a one-shot Gaussian release", key="led_zcdp", icon=":material/add:"):
        state, msg = compute.ledger_add(state, "zcdp", **kw)
    if c[1].button("Add a noise-reduction release", key="led_nr", icon=":material/trending_down:"):
        state, msg = compute.ledger_add(state, "noise_reduction", **kw)
    if c[2].button("Reset", key="led_reset", icon=":material/restart_alt:"):
        state, msg = compute.ledger_new(s.eps, s.delta, s.variant), "The filter was reset: the whole budget is back."
    st.session_state["nr_ledger"] = state
    if msg:
        (st.warning if msg.startswith("Refused") else st.info)(msg)
    table, g = compute.ledger_view(state)
    table = table.assign(mechanism=table["mechanism"].map(lambda m: compute.METHOD_WORDS.get(m, m)))
    left, right = st.columns((1, 2))
    with left:
        st.plotly_chart(
            figs.gauge(remaining=g.remaining, budget=g.budget), key="chart-ledger-gauge", config={"displaylogo": False}
        )
        st.metric(
            "DP ε spent so far",
            f"{number(g.epsilon_spent, 4)} of {number(s.eps)}",
            help="The (ε, δ) cost of everything accepted so far, if the analyst stopped now.",
        )
        st.caption(
            f"{g.accepted} accepted, {g.refused} refused. Each button takes the next count of the queue "
            "(y·j^−0.75). A one-shot Gaussian release uses ε = (2+η)/(η·y), the level at which the rule would "
            "just accept ŷ = y."
        )
    with right:
        st.dataframe(table, hide_index=True, width="stretch", height=300)


# ---- costs ------------------------------------------------------------------------------------------------------


def costs(s: Settings) -> None:
    """Cost per count against doubling; the Zipf data of the experiments."""
    with ui.panel(
        "Cost per count: noise reduction vs doubling",
        "noise reduction tracks the oracle cost ((2+η)/η/y)² for the counts its grid can tell apart; doubling pays "
        "every failed attempt and costs about 2–3× more there. The grid here is even in ε² with K levels up to the "
        "paper's budget Σε² ≤ 2.706 (so the sidebar's ε does not enter). A count that needs less than the grid's "
        "first step, about 2.7/K, still pays that step, while doubling, which starts at ε² = 10⁻⁴, pays less: the "
        "larger the count and the coarser the grid, the more doubling wins (the paper uses K = 1000, and most of "
        "its Zipf counts are small).",
    ):
        df = compute.costs(s.K, s.eta, s.y, s.seed)
        ui.chart(
            figs.costs(df, value=s.y),
            df,
            name="cost per count",
            alt="Expected epsilon squared spent per count against the true count, log-log.",
        )

    c = st.columns(3)
    zipf_a = float(params.control("zipf", container=c[0]))
    users = int(params.control("users", container=c[1]))
    items = int(params.control("items", container=c[2]))
    with ui.panel(
        f"The Zipf data of the experiments ({users:,} draws, a = {number(zipf_a)}, items 1–{items:,})",
        "a handful of items hold most of the draws and the long tail has counts of a few or none: the relative-error "
        "rule needs ŷ·ε ≥ (2+η)/η, so only the large counts near the head can ever be released, and noise reduction "
        "wins by spending less on each of them. More draws lift the whole curve, which is why Figure 3 returns more "
        "results as n grows; a larger a makes the head steeper.",
    ):
        zdf, zs = compute.zipf_counts(zipf_a, users, s.seed, items)
        metric_row(
            ("Largest count", f"{zs.largest:,}", "The count of the most common item."),
            (
                "Items that could ever be released",
                f"{zs.releasable}",
                f"Counts of at least {zs.need:.1f}: below that, even the whole paper budget (ε = 10) cannot "
                "reach relative error 0.1.",
            ),
            (
                "Normaliser Σ k^(−a)",
                f"{zs.normaliser:.6f}",
                "Turns k^(−a) into probabilities; 13.212814 for a = 0.75 on items 1–300.",
            ),
        )
        ui.chart(
            figs.zipf(zdf, a=zipf_a, n=users),
            zdf,
            name="zipf counts",
            alt="Counts of Zipf draws per item on log-log axes with the expected counts.",
        )


# ---- martingale -------------------------------------------------------------------------------------------------


def martingale(s: Settings) -> None:
    """Lemma 6.1: the backward martingale keeps mean 1, even at the adaptive stopping time."""
    lam = float(params.control("lam", container=st))
    with ui.panel(
        "The backward martingale: its mean stays at 1, even when stopped adaptively",
        "each path of M(t) = exp(λB(t)/t − λ²/(2t)) swings up and down, but their average stays at 1 at every "
        "level (the band is ± 2 standard errors), and so does their average at the data-dependent stopping time of "
        "the relative-error rule (×). This is why a noise reduction stopped at ε_T costs no more than a Gaussian "
        "mechanism at ε_T (Lemma 6.1). Large λ makes M heavy-tailed: the band widens, but the average is still 1.",
        paper="Lemma 6.1",
    ):
        shown, mean, summ = compute.martingale(*s.grid_args(), s.y, s.eta, lam, s.seed)
        metric_row(
            (
                "Average of M at the stopping time",
                f"{summ.stopped_mean:.3f} ± {2 * summ.stopped_se:.3f}",
                f"{compute.N_MART} Brownian runs of y = {number(s.y)}, ± 2 standard errors; Lemma "
                "6.1 says ≤ 1 (= 1 on a finite grid).",
            ),
            (
                "Runs stopped before the last level",
                percent(summ.stopped_share),
                "The share of runs whose stopping rule fired somewhere inside the grid.",
            ),
            (
                "Median stopping time t_T = 1/ε_T²",
                number(summ.median_t_stop, 4),
                "Time runs backwards: the noise variance at the stop.",
            ),
        )
        ui.chart(
            figs.martingale(
                shown, mean, lam=lam, stopped=summ.stopped_mean, stopped_se=summ.stopped_se, t_stop=summ.median_t_stop
            ),
            mean,
            name="backward martingale",
            alt="Sample paths of the backward martingale against t on a reversed log axis, their mean with a "
            "band, and the mean at the stopping time.",
        )
        if s.process != "brownian":
            st.caption("The martingale belongs to Brownian noise; this part ignores the Laplace choice.")


# Charts memoised by the settings they depend on (ui.memo_figure).


def _paths_figure(grid: tuple, y: float, eta: float, process: str, seed: int) -> go.Figure:
    df, stops = compute.paths(*grid, y, eta, process, seed)
    return figs.paths(df, stops, compute.bands(*grid, y, eta), value=y, mechanism=process)


def _stops_table(grid: tuple, y: float, eta: float, process: str, seed: int, unit: str) -> pd.DataFrame:
    """Where each drawn path stopped, in the reader's words."""
    stops = compute.paths(*grid, y, eta, process, seed).stops
    return stops.rename(
        columns={
            "path": "path",
            "epsilon_stop": "stopped at level ε",
            "release": "released ŷ",
            "charge": f"charged {unit.split('_')[0]}",
            "accepted": "accurate enough?",
        }
    )


def _stopping_figure(grid: tuple, y: float, eta: float, process: str, seed: int) -> go.Figure:
    hist, summ = compute.stopping(*grid, y, eta, process, seed)
    return figs.stopping(hist, worst=summ.worst_charge, mechanism=process)


def _odometer_figure(
    grid: tuple, y: float, eta: float, m: int, seed: int, eps: float, delta: float, variant: str
) -> go.Figure:
    return figs.odometer(compute.odometer(*grid, y, eta, m, seed), budget=compute.budget(eps, delta, variant).rho)
