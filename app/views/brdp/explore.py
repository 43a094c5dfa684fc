"""The explore view's paper in depth on the BR-DP page: four tabs of panels that follow the sidebar (Jiang et al.
2024), under the newcomer layer of :mod:`app.views.brdp`.

Mechanism (the recycler, Fig. 1; the output density, Prop. 1), Budget (Alg. 2, Figs. 3-4), Privacy (Thm. 1, the
privacy profile, composition as in Fig. 5, the paper-vs-exact audit) and Subsampling (Sec. 7, Figs. 6-8 at your
settings). Heavy panels run through :func:`app.background.result`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import background, decks, instant, ui
from app.compute import brdp as compute
from app.figures import brdp as figs
from app.notation import number
from app.views import _player as player
from app.views._metrics import metric_row
from app.views._parts import open_part

if TYPE_CHECKING:
    from app.views.brdp import Settings

OTHER_DELTAS = (1e-2, 1e-8)  # extra δ curves of the q-against-ε_y panel (Fig. 3)


def recycler_figure(key: compute.PlanKey, seed: int, theta: float, step: int | None = None) -> go.Figure:
    """The recycler stream's figure (Fig. 1), memoised by its settings (ui.memo_figure): the picture and the player
    draw it on every run."""
    return ui.memo_figure(_recycler_figure, key, seed, theta, step)


def _recycler_figure(key: compute.PlanKey, seed: int, theta: float, step: int | None) -> go.Figure:
    draws, _ = compute.recycler(key, seed)
    return figs.recycler(draws, theta=theta, step=step)


def recycler_player(s: Settings, draws: pd.DataFrame) -> None:
    """Reset / Step / +10 / Play over the recorded draws of one seeded run, with live counters beside the formulas.
    The step lives in session state; new settings show the whole new run."""
    n = len(draws)
    player.start("rc", (s.key, s.seed), n)

    @st.fragment(run_every=player.tick("rc", 0.4))
    def play() -> None:
        # one draw a tick; long runs end in ~50 s
        step = player.controls("rc", n, per_tick=max(1, n // 120), width="stretch")
        live = ui.memo_figure(_live_counters, s.key, s.seed, step)
        left, right = st.columns([3, 2])
        with left:
            ui.chart(
                recycler_figure(s.key, s.seed, s.theta, step),
                lambda: draws.iloc[:step],
                name="recycler stream",
                alt="Scatter of successive kernel draws coloured released within ±θ, released outside it, "
                "or thrown away and redrawn, with the acceptable band; the player reveals them one by one.",
            )
        with right:
            st.metric("draws revealed", f"{step} / {n}")
            m = st.columns(2, vertical_alignment="bottom")
            for i, row in enumerate(live.itertuples()):
                fmt = "{:.3f}" if i == 3 else "{:.0f}"
                m[i % 2].metric(
                    row.counter,
                    fmt.format(row[2]) if row[2] == row[2] else "–",
                    help=f"the formula expects {number(row[3], 3)}",
                )
            # a plain table (in this narrow column the data grid cut the formula column off): counts as whole
            # numbers like the metrics above, their expected values to one decimal, mean draws to three
            counts, mean = live.index[:3], live.index[3:]
            st.table(
                live.style.format("{:.0f}", subset=(counts, "so far"), na_rep="–")
                .format("{:.1f}", subset=(counts, "formula (expected)"), na_rep="–")
                .format("{:.3f}", subset=(mean, ["so far", "formula (expected)"]), na_rep="–"),
                hide_index=True,
            )

    play()


def _live_counters(key: compute.PlanKey, seed: int, step: int) -> pd.DataFrame:
    """The player's counters after ``step`` draws of the seeded run (shared: the styled table is made per run)."""
    return compute.live_counters(compute.recycler(key, seed).draws, step, key)


def mechanism_panels(s: Settings) -> None:
    """The recycler stream (Fig. 1) and the output density (Prop. 1)."""
    with ui.panel(
        "The recycler at work, step by step",
        "draws within ±θ (green) are always released; draws that miss are thrown away (grey) with "
        "probability q, otherwise released (orange). Press Reset, then Play or Step, and watch the "
        "counters approach the formulas. Raise q and orange turns grey: acceptance → 1, mean draws → 1/p_θ.",
        paper="Fig. 1",
    ):
        recycler_player(s, compute.recycler(s.key, s.seed).draws)
        st.caption(f"Over {compute.RECYCLER_COUNTED:,} releases of the same seeded recycler:")
        st.dataframe(ui.memo_figure(_counters_table, s.key, s.seed), hide_index=True, width="stretch")

    plan = compute.plan(s.key)
    wider = "wider" if plan.scale > plan.dp_scale * (1 + 1e-9) else "no wider"
    with ui.panel(
        "Where the answers land",
        f"inside ±θ the kernel's density is lifted by 1/(1 − p̄q), outside it is scaled down by "
        f"(1 − q)/(1 − p̄q): a jump at ±θ. Here the kernel is {wider} than plain DP's noise "
        f"(ε_y = {number(plan.epsilon_y, 3)} of ε = {number(s.eps)}), and BR-DP releases an answer "
        f"outside ±θ with probability {1 - plan.acceptance:.3f} against "
        f"{1 - plan.dp_acceptance:.3f} for plain DP.",
        paper="Proposition 1",
    ):
        ui.chart(
            instant.figure(
                decks.recycling_density, "theta", s.theta, s.key._replace(theta=None), s.seed, slot="recycling-density"
            ),
            lambda: compute.density(s.key, s.seed).curves,
            name="output density",
            alt="Densities of the kernel at eps_y, plain DP and BR-DP, with a histogram of sampled outputs.",
        )


def _counters_table(key: compute.PlanKey, seed: int) -> pd.DataFrame:
    counters = compute.recycler(key, seed).counters
    return counters.rename(columns={"simulated": f"simulated ({compute.RECYCLER_COUNTED} releases)"})


def budget_panels(s: Settings) -> None:
    """Budget split (Alg. 2), q against ε_y (Fig. 3), acceptance against ε (Fig. 4)."""
    with ui.panel(
        "Splitting ε between the noise and the redraws",
        "a sharper kernel (larger ε_y) leaves less for recycling (smaller q). Red crosses: ε_y whose "
        "Alg.-1 q is not (ε, δ)-DP under the exact accountant. Click the dotted legend entry for the "
        "printed eq. (10), whose algebra error makes Alg. 2 pick ε_y = ε and report a meaningless ~1.",
        key="recycling-budget-split",
        paper="Algorithm 2, with Algorithm 1 for q",
    ):
        df = compute.landscape(s.eps, s.delta, s.sens, s.theta, s.kernel, s.calib)
        plan = compute.plan(s.key)
        ui.chart(
            figs.landscape(df, epsilon=s.eps, delta=s.delta, chosen_eps_y=plan.epsilon_y),
            df,
            name="budget split",
            alt="Acceptance, q and p_theta against eps_y with the optimum marked.",
        )

    with ui.panel(
        "How often to redraw, for each split",
        "Alg. 1's q is never below the baseline 1 − e^{−(ε − ε_y)}; a larger δ allows a larger q.",
        paper="Fig. 3 and Algorithm 1",
    ):
        deltas = tuple(sorted({s.delta, *OTHER_DELTAS}, reverse=True))
        df = compute.q_curves(s.eps, deltas, s.sens, s.theta, s.kernel, s.calib)
        ui.chart(
            figs.q_curves(df, epsilon=s.eps),
            df,
            name="q vs eps_y",
            alt="Recycling probability q against eps_y for the baseline and Alg. 1 at several deltas.",
        )

    with ui.panel(
        "Accurate answers against ε",
        "BR-DP is never below DP (Prop. 4) and the gain grows with ε. The exact optimum goes further: "
        "at small ε it can keep ε_y = ε and still recycle: at one release some recycling is free.",
        paper="Fig. 4 and Proposition 4",
    ):
        df = compute.acceptance(s.delta, s.sens, s.theta, s.kernel, s.calib)
        ui.chart(
            figs.acceptance(df, kernel=s.kernel, epsilon=s.eps),
            df,
            name="acceptance vs eps",
            alt="Acceptance against total epsilon for DP, BR-DP with the paper's plan and with the exact optimum.",
        )


def privacy_panels(s: Settings) -> None:
    """Privacy loss (Thm. 1), profile, composition (Fig. 5), paper-vs-exact audit."""
    with ui.panel(
        "What one answer can give away, by the paper's model and exactly",
        "the paper shifts a share W of the kernel's loss by L = −ln(1 − q) everywhere; the exact loss is "
        "shifted only where an output would be redrawn for one data set and not for the other (by +L, or "
        "by −L the other way round), so the two pictures differ.",
        paper="Theorem 1",
    ):
        df, inf_mass = compute.loss(s.key)
        ui.chart(
            figs.loss(df, epsilon=s.eps, inf_mass=inf_mass),
            df,
            name="privacy loss",
            alt="Densities of the kernel privacy loss, the paper's mixture and the exact BR-DP loss.",
        )

    with ui.panel(
        "Every guarantee the plan gives: its privacy profile",
        "a plan is (ε, δ)-DP exactly when the green curve passes through or below the ×. "
        "Try the example settings "
        '"Paper approves …" in the sidebar: the paper\'s pink curve stays under the target while the '
        "true δ is far above it — so the paper's claim that Algorithm 1's q always gives (ε, δ)-DP does "
        "not hold in general.",
        paper="Proposition 2 (Eq. 8) and Proposition 3",
        key="recycling-privacy-profile",
    ):
        plan = compute.plan(s.key)
        df = compute.profile(s.key)
        if not plan.sound:
            st.badge(
                "paper under-reports δ" if plan.exact_delta > plan.paper_delta else "not (ε, δ)-DP",
                color="red",
                icon=":material/warning:",
            )
        ui.chart(
            figs.profile(df, epsilon=s.eps, delta=s.delta, kernel=s.kernel),
            df,
            name="privacy profile",
            alt="Privacy profiles delta(eps) of the kernel, plain DP, the paper's BR-DP and the exact BR-DP.",
        )

    with ui.panel(
        "Many releases: the total cost",
        "BR-DP and DP are close and which is lower depends on T and the accountant; a plan that recycles "
        '"for free" at T = 1 (the exact optimum at small ε) composes badly: at the defaults, compare '
        "T = 100.",
        paper="Theorem 3 and Fig. 5",
    ):
        done = background.result(
            compute.composition,
            s.key,
            s.T,
            compute.plan(s.key),
            slot="composition",
            label="Composing privacy-loss distributions",
        )
        if done is not None:
            totals, df = done
            metric_row(
                (f"ε after T = {s.T}, exact", number(totals["exact"], 4), f"exact BR-DP PLD, at δ = {number(s.delta)}"),
                (f"ε after T = {s.T}, paper (Thm. 3)", number(totals["paper"], 4)),
                (f"ε after T = {s.T}, plain DP", number(totals["dp"], 4)),
            )
            ui.chart(
                figs.composition(df, delta=s.delta, compositions=s.T),
                df,
                name="composition",
                alt="Total epsilon after T releases: BR-DP under Thm 3, exact BR-DP and plain DP.",
            )
            st.dataframe(compute.remarks(s.key, s.T, totals), hide_index=True, width="stretch")
            st.caption(
                "The paper's Remarks 3–4 compose each release's own (ε, δ) numbers: basic composition adds them "
                "up (δ₁ is one release's exact δ); advanced composition (Dwork, Rothblum & Vadhan) grows like "
                "√T but spends T·δ₁ + δ′ — the paper's Remark 4 prints the total as δ′ alone — so here each "
                "release is taken at the ε′ where its exact δ is δ/(2T), and δ′ = δ/2. "
                "Both are sound bounds; at the same total δ neither can go below the exact composition of the "
                "mechanism itself."
            )

    with ui.panel(
        "The paper's plan and the exact best plan, each judged both ways",
        "the paper's plan and the exact optimum side by side, each judged by both accountants.",
        paper="Algorithms 1 and 2",
    ):
        table = background.result(compute.audit, s.key, slot="audit", label="Optimising under both accountants")
        if table is not None:
            st.dataframe(table, hide_index=True, width="stretch")


def sampling_panels(s: Settings) -> None:
    """Subsampling (Sec. 7, Alg. 4) and the experiment sandbox (Figs. 7/8)."""
    with ui.panel(
        "Answering from a random sample of the data",
        "smaller p amplifies privacy (larger inner ε) but adds sampling error. The paper keeps the "
        "sensitivity Δ and lets the recycler bound E + N (eq. 13); with the rescaled estimator's "
        "sensitivity Δ/p and the true acceptance the gain disappears. The curves use Alg. 2's "
        "kernel at each p; Alg. 4 itself maximises eq. (13), which can pick a degenerate q = 1 corner. "
        "Bottom (Fig. 6 at your settings): paper mode can pick p* < 1 (often at small |X|) where "
        "corrected mode keeps p* = 1.",
        paper="Section 7, Algorithm 4 and Fig. 6",
    ):
        done = background.result(
            compute.subsampling,
            s.sample,
            slot="subsampling",
            label="Running Alg. 2 at every sampling rate and Alg. 4 at every data-set size",
        )
        if done is not None:
            df, sizes = done
            optima = {
                m: sizes[(sizes["mode"] == m) & (sizes["n_records"] == s.n_records)].iloc[0]
                for m in ("paper", "corrected")
            }
            metric_row(
                (
                    "Alg. 4 p*, paper mode",
                    number(optima["paper"].rate, 3),
                    f"reported acceptance {optima['paper'].acceptance:.3f}; true {optima['paper'].true_acceptance:.3f}",
                ),
                (
                    "p*, corrected (Δ / p, true acceptance)",
                    number(optima["corrected"].rate, 3),
                    f"true acceptance {optima['corrected'].true_acceptance:.3f}",
                ),
            )
            ui.chart(
                figs.subsampling_noise(df, rate=s.rate, query=s.query),
                df,
                name="subsampling noise",
                alt="Sampling error and kernel standard deviations against the sampling rate.",
            )
            ui.chart(
                figs.subsampling_acceptance(df, rate=s.rate, optima={m: o.rate for m, o in optima.items()}),
                df,
                name="subsampling acceptance",
                alt="Acceptance of subsampled BR-DP against the sampling rate.",
            )
        st.dataframe(
            compute.at_rate(s.sample, s.rate),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            f"Records spread σ_x = {number(s.sigma_x)} (sum, average) and counted share "
            f"p_C = {number(s.p_c)} (count), both set in the sidebar; the paper's Fig. 6 uses 10 and 0.1."
        )
        if done is not None:
            left, right = st.columns(2)
            with left:
                ui.chart(
                    figs.fig6(
                        sizes,
                        column="rate",
                        title=f"Best sampling rate p* against |X| ({s.query})",
                        y="p*",
                        n_records=s.n_records,
                    ),
                    sizes,
                    name="p* vs size",
                    alt="Alg. 4's optimal sampling rate against the data-set size, paper mode and corrected mode.",
                )
            with right:
                ui.chart(
                    figs.fig6(
                        sizes,
                        column="true_acceptance",
                        title="True acceptance at p* against |X|",
                        y="acceptance",
                        n_records=s.n_records,
                    ),
                    sizes,
                    name="acceptance vs size",
                    alt="True acceptance at Alg. 4's sampling rate against the data-set size, both modes.",
                )

    with ui.panel(
        "Six mechanisms on synthetic data",
        "Laplace beats Gaussian at the same budget; BR-DP helps most where θ is small against the noise. "
        "Subsampling at the rate Alg. 4 picks can collapse the answer (a handful of records). Below: "
        "acceptance of every mechanism against ε (BR-DP on or above its DP line, up to Monte-Carlo noise).",
        paper="Figs. 7 and 8",
    ):
        # one chart under the other: side by side, six boxes with their acceptance figures and six named curves
        # were squeezed into half the width
        sandbox = (s.delta, s.sens, s.theta, s.query, s.n_records, s.acct, s.seed)  # both charts' records and plan
        stats = background.result(
            compute.experiment, s.eps, *sandbox, slot="experiment", label="Releasing 1 000 answers per mechanism"
        )
        if stats is not None:
            ui.chart(
                figs.experiment(
                    stats, theta=s.theta, title=f"1 000 releases of the {s.query} of {s.n_records} synthetic records"
                ),
                stats,
                name="experiment",
                alt="Box plots of 1000 centred releases for six mechanisms with the theta band.",
            )
        curves = background.result(
            compute.experiment_acceptance, *sandbox, slot="experiment-acceptance", label="Releasing answers at every ε"
        )
        if curves is not None:
            ui.chart(
                figs.experiment_acceptance(
                    curves, epsilon=s.eps, title=f"Acceptance against ε ({compute.SANDBOX_RELEASES} releases per point)"
                ),
                curves,
                name="experiment acceptance",
                alt="Share of releases within theta against epsilon, one line per mechanism.",
            )
        if stats is not None:
            st.dataframe(stats, hide_index=True, width="stretch")


EXPLORE_TABS = {
    "Mechanism": mechanism_panels,
    "Budget": budget_panels,
    "Privacy": privacy_panels,
    "Subsampling": sampling_panels,
}


def render(s: Settings) -> None:
    """Four lazy, URL-bound tabs (``?part=``): only the open tab is computed and drawn."""
    open_part(EXPLORE_TABS, s)
