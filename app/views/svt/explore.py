"""The explore view of the SVT page: five parts at the sidebar's settings (noise, correction, a live run, the top-c
experiment, the numerics and the budget), one function per panel; the run part is :mod:`app.views.svt.live`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import background, decks, instant, params, ui
from app.compute import svt as csvt
from app.figures import svt as figs
from app.notation import number, percent
from app.views._metrics import metric_row
from app.views._parts import open_part
from app.views.svt.live import run_tab

if TYPE_CHECKING:
    from app.views.svt import Settings
    from dpcore.data import Dataset


def _named(table: pd.DataFrame) -> pd.DataFrame:
    """A table whose "query noise" column names the families as the charts do (Exponential, Laplace, …)."""
    return table.assign(**{"query noise": table["query noise"].map(figs.NOISE_LABELS)})


def render(s: Settings) -> None:
    """The explore parts as tabs (``?part=``); only the open one runs."""
    open_part(PARTS, s, aliases=OLD_PART_NAMES)


#: Names the parts had in older links (``?tab=Live run``), still understood.
OLD_PART_NAMES = {"Live run": "Run", "Experiment": "Top-c", "Numerics & accountant": "Numerics"}


def noise_tab(s: Settings) -> None:
    """Panels 1–3: the noises, the split, and why exponential query noise is private."""
    with ui.panel(
        "Noise zoo",
        "the exponential is one-sided with the same tail as a Laplace of equal scale but half its variance; "
        "raising c widens every query noise linearly, the monotonic toggle halves it.",
        key="svt-noise-zoo",
    ):
        ui.chart(
            ui.memo_figure(_noise_zoo_figure, s.eps, s.c, s.noise, s.monotonic),
            lambda: csvt.noise_zoo(s.eps, s.c, s.noise, s.monotonic).densities,
            name="noise zoo",
            alt="Densities of the threshold noise and of the four query noises at their calibrated scales.",
        )
        st.dataframe(
            ui.memo_figure(_noise_zoo_table, s.eps, s.c, s.noise, s.monotonic), hide_index=True, width="stretch"
        )

    with ui.panel(
        "Splitting ε between the threshold and the counts",
        "the best split w* grows like c^(2/3): with many yes-answers nearly all the budget goes to the counts; the "
        "exponential reaches the lowest variance (the paper's Tables 4 and 6). The table shows what your own split "
        "costs.",
        paper="Tables 4 and 6",
    ):
        w = float(params.control("wsplit", container=st))
        left, right = st.columns([2, 1])
        with left:
            ui.chart(
                ui.memo_figure(_budget_split_figure, s.eps, s.c, s.monotonic, w),
                lambda: csvt.budget_split(s.eps, s.c, s.monotonic).curves,
                name="budget split",
                alt="Comparison variance against the split ratio w for four query-noise families.",
            )
        with right:
            ui.chart(
                ui.memo_figure(_split_bars_figure, s.eps, s.c, s.monotonic),
                lambda: csvt.budget_split(s.eps, s.c, s.monotonic).optima,
                name="split at optimum",
                alt="Stacked bars of epsilon1 and epsilon2 at the optimal split per family.",
            )
        st.dataframe(ui.memo_figure(_manual_split_table, s.eps, s.c, s.monotonic, w), hide_index=True, width="stretch")

    with ui.panel(
        "Why exponential noise is allowed: the privacy-loss profile",
        "the exponential's loss rises to exactly ε₂/c and stays flat (tight); Laplace and Gumbel stay below "
        "it; the Gaussian crosses it and grows without bound (no pure DP). Laplace threshold noise stays "
        "within ±ε₁. The dotted exponential threshold noise is beyond the paper: its one-sided bound holds "
        "(the proof of Theorem 2 needs only that), although the paper's Table 1 marks it as not allowed.",
        paper="Theorem 2 and Table 1",
    ):
        left, right = st.columns(2)
        with left:
            ui.chart(
                ui.memo_figure(_query_loss_figure, s.eps, s.c, s.monotonic),
                lambda: csvt.loss_profiles(s.eps, s.c, s.monotonic).query,
                name="query loss profile",
                alt="Per-positive privacy loss of each query noise against x with the allowance line.",
            )
        with right:
            ui.chart(
                ui.memo_figure(_threshold_loss_figure, s.eps, s.c, s.monotonic),
                lambda: csvt.loss_profiles(s.eps, s.c, s.monotonic).threshold,
                name="threshold loss profile",
                alt="Privacy loss of threshold noises against u with lines at plus and minus epsilon1.",
            )


# The noise part's charts, memoised by the settings they depend on (ui.memo_figure).


def _noise_zoo_table(eps: float, c: int, noise: str, monotonic: bool) -> pd.DataFrame:
    return _named(csvt.noise_zoo(eps, c, noise, monotonic).table)


def _manual_split_table(eps: float, c: int, monotonic: bool, w: float) -> pd.DataFrame:
    return _named(csvt.manual_split(eps, c, monotonic, w).round(4))


def _noise_zoo_figure(eps: float, c: int, noise: str, monotonic: bool) -> go.Figure:
    return figs.noise_zoo(csvt.noise_zoo(eps, c, noise, monotonic).densities, selected=noise)


def _budget_split_figure(eps: float, c: int, monotonic: bool, w: float) -> go.Figure:
    return figs.budget_split(*csvt.budget_split(eps, c, monotonic), w=w)


def _split_bars_figure(eps: float, c: int, monotonic: bool) -> go.Figure:
    return figs.split_bars(csvt.budget_split(eps, c, monotonic).optima, epsilon=eps)


def _query_loss_figure(eps: float, c: int, monotonic: bool) -> go.Figure:
    q, _, info = csvt.loss_profiles(eps, c, monotonic)
    return figs.query_loss(q, per_positive=info.per_positive)


def _threshold_loss_figure(eps: float, c: int, monotonic: bool) -> go.Figure:
    _, t, info = csvt.loss_profiles(eps, c, monotonic)
    return figs.threshold_loss(t, epsilon1=info.epsilon1)


def correction_tab(s: Settings) -> None:
    """Panels 4–7: the comparison, p(r), r^op and (α, β)-accuracy."""
    with ui.panel(
        "The comparison and the correction",
        "exponential noise pushes every noisy count up, by 1/λ on average; r^op sits far in the right tail, at the "
        "k/(k+1) quantile of Z, so a count exactly at τ is accepted with probability only 1/(k+1).",
        key="svt-correction",
    ):
        picture = st.container()  # the chart first, its gap control under it
        d = float(params.control("gap", container=st))
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        df, acc = csvt.comparison(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic)
        with picture:
            ui.chart(
                instant.figure(
                    decks.threshold_comparison,
                    "neg",
                    s.k,
                    s.eps,
                    s.c,
                    s.alpha,
                    s.noise,
                    s.monotonic,
                    s.rule,
                    d,
                    slot="svt-correction",
                    play=True,
                    shown="k = ",
                ),
                df,
                name="comparison density",
                alt="Density of Z, query noise minus threshold noise, with lines at 0, the mean and r-op.",
            )
        pa = csvt.acceptance_at(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule, d)
        metric_row(
            (
                f"P[yes] at τ − {number(d)}",
                number(pa.below, 4),
                f"A count {number(d)} below the threshold is wrongly reported as above it this "
                f"often (correction r = {number(pa.r, 4)}).",
            ),
            ("P[yes] at τ", number(pa.at, 4), "A count exactly at the threshold."),
            (
                f"P[yes] at τ + {number(d)}",
                number(pa.above, 4),
                f"A count {number(d)} above the threshold is rightly reported as above it this often.",
            ),
        )
        st.dataframe(acc, hide_index=True, width="stretch")

    with ui.panel(
        "The chance of success for each correction",
        "larger k moves the peak right and down; ε scales everything by 1/ε with the same peak height at "
        "α = 0 (k^k/(k+1)^(k+1) for every noise); the exact shared-ρ curve lies below Eq. 8.",
        paper="Eq. 8",
    ):
        log_y = bool(params.control("logp", container=st))
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        df = csvt.success_curve(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic)
        ui.chart(
            figs.success(df, r_op=sm.r_op, mean=sm.mean, p_floor=sm.p_floor, log_y=log_y),
            df,
            name="success probability",
            alt="Success probability against the correction r, Eq. 8 and exact.",
        )
        _eq8_vs_exact(sm)

    with ui.panel(
        "The best correction against k, ε and α",
        "r^op grows like ln k, scales exactly as 1/ε at α = 0 (flat line), and is V-shaped in α: the "
        "paper's “larger α ⇒ smaller r^op” holds only for small α.",
    ):
        cols = st.columns(3)
        df = csvt.rop_vs_k(s.eps, s.c, s.alpha, s.monotonic)
        with cols[0]:
            ui.chart(figs.rop_vs_k(df), df, name="rop vs k", alt="Optimal correction against k for three epsilons.")
        df = csvt.rop_vs_epsilon(s.c, s.k, s.alpha, s.monotonic)
        with cols[1]:
            ui.chart(
                figs.rop_vs_epsilon(df, epsilon=s.eps),
                df,
                name="rop vs epsilon",
                alt="Optimal correction times epsilon against epsilon.",
            )
        df = csvt.rop_vs_alpha(s.eps, s.c, s.k, s.monotonic)
        with cols[2]:
            ui.chart(figs.rop_vs_alpha(df), df, name="rop vs alpha", alt="Optimal correction against alpha.")

    with ui.panel(
        "Accuracy guarantees: the (α, β) curves",
        "all curves start at β = 1 − k^k/(k+1)^(k+1) at α = 0; SVT-Exp with r^op drops first. The exact "
        "curves (one shared ρ, what Algorithm 2 does) sit slightly above Eq. 8 for the corrected methods.",
        paper="Eq. 8 and Theorem 4",
    ):
        done = background.result(
            csvt.accuracy_panel,
            s.eps,
            s.c,
            s.k,
            s.monotonic,
            slot="alpha-beta",
            label="The (α, β) curves and Theorem 4's α",
        )
        if done is not None:
            _accuracy_curves(s, *done)


def _accuracy_curves(s: Settings, df: pd.DataFrame, th: csvt.Theorem4) -> None:
    """Panel 7's charts, β against α by Eq. 8 and exactly, and Theorem 4's α."""
    charts = (
        ("beta_eq8", "Eq. 8 (paper's model)", "alpha beta", "for six methods, Eq. 8"),
        ("beta_exact", "exact, shared threshold noise", "alpha beta exact", "exact shared rho"),
    )
    for col, (column, title, name, how) in zip(st.columns(2), charts, strict=True):
        with col:
            ui.chart(
                figs.alpha_beta(df, column=column, title=title, alpha=s.alpha),
                df,
                name=name,
                alt=f"Failure probability beta against alpha, {how}.",
            )
    _theorem4(s, th)


def experiment_tab(s: Settings) -> None:
    """Panel 10: the top-c experiment."""
    with ui.panel(
        "Top-c experiment",
        "SVT-Exp with the optimal correction is far above the other private methods on Zipf; with one pass on "
        "Binary its high bar costs recall, and asking rejected queries again (t > 1) wins it back. The upper bound "
        "is not private: it is a ceiling.",
        key="svt-top-c",
    ):
        _experiment(s)


def numerics_tab(s: Settings) -> None:
    """Panels 11–12: the numerical framework and the privacy accountant."""
    with ui.panel(
        "Computing the best correction numerically",
        "the framework converges fast: at about 1000 bins per side its correction is within 0.01 % of the closed "
        "form and it still runs in milliseconds (Fig. 17). Bins and tail mass are under “Advanced” in the sidebar.",
        paper="Algorithms 3 and 4, Fig. 17",
    ):
        pmf, acc, info = csvt.numeric_framework(s.eps, s.c, s.k, s.alpha, s.monotonic, s.n_bins, s.tail)
        row = acc[acc["n_bins"] == s.n_bins].iloc[0]
        metric_row(
            ("r^op, closed form", number(info.r_op)),
            (f"r̄^op, {s.n_bins} bins", number(row["r_op_numeric"])),
            ("|r̄^op − r^op|", number(row["abs_error"], 3)),
            ("RMS error of p̄", number(row["rms_error_p"], 3)),
            ("grid half-width B", number(info.B, 5), f"bin width u = {number(info.u, 4)}"),
            ("runtime", f"{row['runtime_ms']:.2f} ms"),
        )
        left, right = st.columns(2)
        with left:
            ui.chart(
                figs.numeric_density(pmf, n_bins=s.n_bins),
                pmf,
                name="numeric density",
                alt="Discretised density of Z from the FFT framework against the closed form.",
            )
        with right:
            ui.chart(
                figs.numeric_accuracy(acc),
                acc,
                name="numeric accuracy",
                alt="Error of the numerical optimum and runtime against the number of bins.",
            )

    with ui.panel("What a run spends", paper="Theorem 3"):
        _accountant(s)


def _eq8_vs_exact(sm: csvt.Summary) -> None:
    """The paper's Eq. 7/8 treats the threshold noise as fresh for every comparison; Algorithm 2 shares one ρ."""
    metric_row(
        (
            "p(r) — paper's Eq. 8",
            number(sm.p_eq8, 4),
            "The chance of rejecting k counts below τ and then accepting one above it, as the paper "
            "computes it: a fresh threshold noise for every comparison.",
        ),
        (
            "p(r) — exact, shared ρ",
            number(sm.p_shared, 4),
            "The same chance for the algorithm as run: one threshold noise shared by all comparisons.",
        ),
    )
    gap = sm.p_eq8 / sm.p_shared - 1 if sm.p_shared > 0 else float("inf")
    if gap > 0.05:
        st.warning(
            (
                "Eq. 8 gives a chance of success where the algorithm as run has none"
                if math.isinf(gap)
                else f"Eq. 8 over-states the success probability by {percent(gap, 0)} here"
            )
            + ": it treats the threshold noise as "
            "fresh for every comparison, but Algorithm 2 shares one ρ. The exact value is the dashed curve.",
            icon=":material/warning:",
        )


def _theorem4(s: Settings, th: csvt.Theorem4) -> None:
    """Theorem 4: the printed constant, the union bound of its proof done right, and the exact α."""
    st.markdown(f"**Theorem 4** (c = 1, ε₁ = ε₂ = ε/2, β = {number(th.beta)}, k = {s.k}): the α needed.")
    metric_row(
        ("as printed 4(ln k + ln 2/β)/ε", number(th.printed, 4)),
        ("proof done right 8(…)/ε", number(th.corrected, 4)),
        ("exact: SVT-Exp + r^op", number(th.exp_rop, 4)),
        ("exact: SVT-Exp, r = 0", number(th.exp_r0, 4)),
        ("exact: SVT-Lap", number(th.lap_r0, 4)),
    )
    st.caption(
        "The written proof only supports 8(…)/ε, the same as Laplace SVT; the printed 4(…)/ε still holds "
        "numerically, and the gain over Laplace comes from r^op, not from the union bound."
    )


def _experiment(s: Settings) -> None:
    """Panel 10: the quality of every Table-3 method against ε and against passes, computed in the worker pool."""
    ds = csvt.dataset(s.data)
    t_exp = s.threshold if s.data in ("zipf", "binary") else ds.threshold
    n_above = int((ds.scores >= t_exp).sum())
    if ds.synthetic_stand_in:
        st.info(
            f"The real {ds.name} data set cannot be downloaded here: this is an imitation generated to match the "
            "paper's Table 2 (records, items and threshold, with assumed transaction lengths). Its numbers are not "
            "the paper's.",
            icon=":material/info:",
        )
    plan = csvt.explore_plan(len(csvt.EXPERIMENT_EPSILONS), s.trav_eff)
    runs = experiment_runs(
        s,
        ds,
        plan,
        f"{ds.n_items} items, τ = {number(t_exp)} ({n_above} items reach τ), c = {s.c}, "
        f"k = items / c = {ds.n_items // s.c}, α = 0, "
        f"{'a new threshold noise after each yes, ' if s.resample else ''}"
        f"{f'up to {s.trav_eff} passes' if s.append else 'one pass'}",
    )
    out = background.result(
        csvt.explore_experiment,
        s.data,
        float(t_exp),
        s.c,
        s.eps,
        s.trav_eff,
        s.append,
        s.resample,
        s.monotonic,
        runs,
        s.seed,
        slot="svt-experiment",
        label=f"The top-c experiment ({runs} runs per point)",
    )
    if out is None:
        return
    df, trav = out
    label = figs.METRIC_LABELS[s.metric]
    left, right = st.columns(2)
    with left:
        ui.chart(
            figs.experiment(df, metric=s.metric, epsilon=s.eps, title=f"(a) {label} against ε"),
            df,
            name="experiment",
            alt="Selection quality against epsilon for all Table 3 methods with 95 percent intervals.",
        )
    with right:
        ui.chart(
            figs.experiment(trav, metric=s.metric, x="traverses", title=f"(b) against passes (ε = {number(s.eps)})"),
            trav,
            name="experiment traverses",
            alt="Selection quality against the number of passes at the chosen epsilon for all methods.",
        )
    best = df[df["epsilon"] == max(csvt.EXPERIMENT_EPSILONS)].set_index("method")[s.metric]
    st.dataframe(best.rename(f"{label} at ε = {number(max(csvt.EXPERIMENT_EPSILONS))}").reset_index(), hide_index=True)


def experiment_runs(
    s: Settings, ds: Dataset, plan: tuple[tuple[int, int], ...], setting: str, runs_from: str = ""
) -> int:
    """The runs per point of a top-c experiment (the sidebar's, fewer where they would pass the time limit), stated
    under ``setting`` with the seed and the first view's cost; a note says when they are fewer."""
    runs = csvt.capped_runs(s.data, s.n_runs, plan)
    cost = csvt.experiment_seconds(s.data, runs, plan)
    st.caption(
        f"{ds.name}: {setting}, {runs} runs per point{runs_from}, seed {s.seed}. "
        f"About {max(1, round(cost))} s of computing on first view (then kept)."
    )
    if runs < s.n_runs:
        st.info(
            f"{s.n_runs} runs on {ds.n_items} items would take over "
            f"{number(csvt.MAX_EXPERIMENT_SECONDS)} s: {runs} runs are used.",
            icon=":material/speed:",
        )
    return runs


def _accountant(s: Settings) -> None:
    """Panel 12: what one run spends; Theorem 3 as printed vs as its proof gives; the monotonic calibration misused."""
    a = csvt.accountant(s.eps, s.c, s.noise, s.monotonic)
    metric_row(
        ("ε₁ (threshold)", number(a.epsilon1, 4), "The budget spent on the one threshold noise."),
        ("ε₂ (counts)", number(a.epsilon2, 4), "The budget shared by the at most c yes-answers."),
        ("split ε₂/ε₁", number(a.w, 4)),
        ("ε, one threshold noise", number(a.off, 4), "ε₁ + ε₂: what one run spends."),
        (
            "ε, new threshold noise after each yes",
            number(a.on, 4),
            "c·ε₁ + ε₂: each redrawn threshold noise costs ε₁ again (Theorem 3, as its proof gives).",
        ),
    )
    if s.resample:
        ui.paper_vs_exact(
            "ε with a new threshold noise after each yes",
            a.on_as_printed,
            a.on,
            help="Theorem 3 prints “(cε₁, ε₂)-DP”; read as (ε, δ) that is ε = c·ε₁. Its proof gives pure "
            "(c·ε₁ + ε₂)-DP.",
        )
    if not a.pure:
        st.info(
            f"SVT-Gau is only (ε, δ)-DP: δ = {number(a.delta)} (classic Gaussian calibration).", icon=":material/info:"
        )
    if s.monotonic:
        st.warning(
            "The monotonic calibration is only private for monotonic queries (item counts are). On other queries "
            f"the loss can reach ε₁ + 2ε₂ = {number(a.mono_misuse, 4)}.",
            icon=":material/warning:",
        )
    st.caption(
        "No-answers, the number of comparisons, asking rejected queries again and the correction r (computed from "
        "public parameters) cost nothing extra."
    )


#: The explore view's parts (lazy: only the open one runs; the open part is in the address as ?part=…).
PARTS = {
    "Noise": noise_tab,
    "Correction": correction_tab,
    "Run": run_tab,
    "Top-c": experiment_tab,
    "Numerics": numerics_tab,
}
