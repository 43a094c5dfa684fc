"""Panel renderers of the SVT page (paper 002): Streamlit layout for the explore tabs and the reproduce view.

pages/svt.py stays a thin script (sidebar → ``render``); this module lays the panels out with ``app.ui``, calls the
cached tables of ``app.compute.svt`` and the pure builders of ``app.figures.svt``. It is a module rather than part
of the page script because AppTest recompiles the page script on every rerun (~40 ms for a script this size).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import pandas as pd
import streamlit as st

from app import params, ui
from app.compute import MAX_ENTRIES
from app.compute import svt as csvt
from app.figures import svt as figs

T = TypeVar("T")

#: Grids of the in-panel controls (spec §6 items 2, 4, 11).
W_GRID = params.log_grid(0.1, 1000.0)
D_GRID = (0.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0)
TAIL_GRID = (1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2)


# ==========================================================================================================
@dataclass(frozen=True)
class Settings:
    """The sidebar's values (all URL-bound in pages/svt.py)."""

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
    seed: int

    @property
    def trav_eff(self) -> int:
        """Traverses actually used: t with APPEND, one pass without."""
        return self.traverses if self.append else 1


def render(s: Settings, view: str) -> None:
    """The explore view (tabs of panels 1–12) or the reproduce view."""
    (reproduce if view == "reproduce" else explore)(s)


def explore(s: Settings) -> None:
    """The twelve panels of spec §6 at the sidebar's settings."""
    with ui.panel("Headline numbers"):
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        acct = csvt.accountant(s.eps, s.c, s.noise, s.monotonic)
        m = st.columns(5)
        m[0].metric("threshold noise scale b", f"{sm['b']:.4g}", help="Lap(Δ/ε₁) (Gaussian σ₁ for SVT-Gau)")
        m[1].metric("query noise scale θ", f"{sm['theta']:.4g}", help="f·cΔ/ε₂, f = 2 (non-monotonic) or 1")
        m[2].metric("correction r in use", f"{sm['r']:.4g}", help=f"rule: {s.rule}; r^op = {sm['r_op']:.6g}")
        m[3].metric(
            "success p(r), Eq. 8",
            f"{sm['p_eq8']:.4g}",
            help="k negatives at T rejected, then one at T accepted",
        )
        m[4].metric(
            "ε spent",
            f"{acct['on'] if s.resample else acct['off']:.4g}",
            help="ε₁ + ε₂, or c·ε₁ + ε₂ with RESAMPLE (corrected Theorem 3)",
        )

    tabs = params.tabs("tab", TABS, name="the tab")
    for tab, render in zip(tabs, TABS.values(), strict=True):
        if tab.open:
            with tab:
                render(s)


def noise_tab(s: Settings) -> None:
    """Panels 1–3: the noises, the split, and why exponential query noise is private."""
    with ui.panel(
        "1 · Noise zoo",
        "the exponential is one-sided with the same tail as a Laplace of equal scale but half its variance; "
        "raising c widens every query noise linearly, the monotonic toggle halves it.",
    ):
        df, table = csvt.noise_zoo(s.eps, s.c, s.noise, s.monotonic)
        ui.chart(
            figs.noise_zoo(df, selected=s.noise),
            df,
            name="noise zoo",
            alt="Densities of the threshold noise and of the four query noises at their calibrated scales.",
        )
        st.dataframe(table, hide_index=True, width="stretch")

    with ui.panel(
        "2 · Budget split",
        "w* grows like c^(2/3): with many positives nearly all the budget goes to the queries; the "
        "exponential reaches the lowest variance (Tables 4 and 6).",
    ):
        w = float(
            params.select_number(
                "w",
                "w = ε₂/ε₁ — try your own split (this panel only)",
                W_GRID,
                1.0,
                name="the split w",
                help="w = 1 is the classic equal split; the table shows what it costs against w*.",
                container=st,
            )
        )
        curves, opt = csvt.budget_split(s.eps, s.c, s.monotonic)
        left, right = st.columns([2, 1])
        with left:
            ui.chart(
                figs.budget_split(curves, opt, w=w),
                curves,
                name="budget split",
                alt="Comparison variance against the split ratio w for four query-noise families.",
            )
        with right:
            ui.chart(
                figs.split_bars(opt, epsilon=s.eps),
                opt,
                name="split at optimum",
                alt="Stacked bars of epsilon1 and epsilon2 at the optimal split per family.",
            )
        manual = csvt.manual_split(s.eps, s.c, s.monotonic, w)
        st.dataframe(manual.round(4), hide_index=True, width="stretch")

    with ui.panel(
        "3 · Why exponential noise is allowed (privacy-loss profile)",
        "the exponential's loss rises to exactly ε₂/c and stays flat (tight); Laplace and Gumbel stay below "
        "it; the Gaussian crosses it and grows without bound (no pure DP). Laplace threshold noise stays "
        "within ±ε₁. The dotted exponential threshold noise is beyond the paper: its one-sided bound holds "
        "(spec §7 item 2) although Table 1 marks it ×.",
    ):
        q, t, info = csvt.loss_profiles(s.eps, s.c, s.monotonic)
        left, right = st.columns(2)
        with left:
            ui.chart(
                figs.query_loss(q, per_positive=info["per_positive"]),
                q,
                name="query loss profile",
                alt="Per-positive privacy loss of each query noise against x with the allowance line.",
            )
        with right:
            ui.chart(
                figs.threshold_loss(t, epsilon1=info["epsilon1"]),
                t,
                name="threshold loss profile",
                alt="Privacy loss of threshold noises against u with lines at plus and minus epsilon1.",
            )


def correction_tab(s: Settings) -> None:
    """Panels 4–7: the comparison, p(r), r^op and (α, β)-accuracy."""
    with ui.panel(
        "4 · The comparison and the correction",
        "exponential noise biases every noisy answer upwards by θ; r^op sits far in the right tail, at the "
        "k/(k+1) quantile of Z, so a query exactly at T is accepted with probability only 1/(k+1).",
    ):
        d = float(
            params.select_number(
                "d",
                "d = q − T — how far the query is from the threshold",
                D_GRID,
                100.0,
                name="the score gap d",
                help="The shaded area is P[⊤] for a query at T + d.",
                container=st,
            )
        )
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        df, acc = csvt.comparison(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic)
        ui.chart(
            figs.comparison(df, mean=sm["mean"], r_op=sm["r_op"], r=sm["r"], d=d),
            df,
            name="comparison density",
            alt="Density of Z, query noise minus threshold noise, with lines at 0, the mean and r-op.",
        )
        pa = csvt.acceptance_at(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule, d)
        m = st.columns(3)
        m[0].metric(f"P[⊤] at T − {d:g}", f"{pa['below']:.4g}", help=f"correction r = {pa['r']:.4g}")
        m[1].metric("P[⊤] at T", f"{pa['at']:.4g}")
        m[2].metric(f"P[⊤] at T + {d:g}", f"{pa['above']:.4g}")
        st.dataframe(acc, hide_index=True, width="stretch")

    with ui.panel(
        "5 · Success probability p(r)",
        "larger k moves the peak right and down; ε scales everything by 1/ε with the same peak height at "
        "α = 0 (k^k/(k+1)^(k+1) for every noise); the exact shared-ρ curve lies below Eq. 8.",
    ):
        log_y = params.toggle(
            "logp",
            "log scale for p(r)",
            help="Shows the tails, where Eq. 8 and the exact curve part.",
            container=st,
        )
        sm = csvt.summary(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic, s.rule)
        df = csvt.success_curve(s.eps, s.c, s.k, s.alpha, s.noise, s.monotonic)
        ui.chart(
            figs.success(df, r_op=sm["r_op"], mean=sm["mean"], p_floor=sm["p_floor"], log_y=log_y),
            df,
            name="success probability",
            alt="Success probability against the correction r, Eq. 8 and exact.",
        )
        _eq8_vs_exact(sm)

    with ui.panel(
        "6 · r^op explorer (SVT-Exp)",
        "r^op grows like θ·ln k, scales exactly as 1/ε at α = 0 (flat line), and is V-shaped in α: the "
        "paper's “larger α ⇒ smaller r^op” holds only for small α (spec §7 item 7).",
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
        "7 · (α, β)-accuracy curves",
        "all curves start at β = 1 − k^k/(k+1)^(k+1) at α = 0; SVT-Exp with r^op drops first. The exact "
        "curves (one shared ρ, what Algorithm 2 does) sit slightly above Eq. 8 for the corrected methods.",
    ):
        df = csvt.alpha_beta(s.eps, s.c, s.k, s.monotonic)
        left, right = st.columns(2)
        with left:
            ui.chart(
                figs.alpha_beta(df, column="beta_eq8", title="Eq. 8 (paper's model)", alpha=s.alpha),
                df,
                name="alpha beta",
                alt="Failure probability beta against alpha for six methods, Eq. 8.",
            )
        with right:
            ui.chart(
                figs.alpha_beta(df, column="beta_exact", title="exact, shared threshold noise", alpha=s.alpha),
                df,
                name="alpha beta exact",
                alt="Failure probability beta against alpha, exact shared rho.",
            )
        _theorem4(s)


def run_tab(s: Settings) -> None:
    """Panels 8–9: a live run and the effect of appending."""
    with ui.panel(
        "8 · A live SVT run",
        "SVT halts after c ⊤'s; orange bars below the pink line are true positives it may still miss; "
        "grey bars above it are false positives that would waste a slot. With APPEND the ⊥ queries come "
        "back in later passes.",
    ):
        comp, info = csvt.live_run(
            s.eps,
            s.c,
            s.k,
            s.alpha,
            s.threshold,
            s.noise,
            s.monotonic,
            s.append,
            s.traverses,
            s.resample,
            s.rule,
            s.seed,
        )
        st.caption(
            f"Queue: {info['n_items']} items with Zipf scores T·c/i (exactly c items ≥ T), shuffled with the "
            f"seed; correction r = {info['correction']:.4g}."
        )
        _live(s, comp, info)

    with ui.panel(
        "9 · Appending: more passes, more chances",
        "true positives (large d) pull away from negatives as t grows. The paper's t·p (dashed) is a "
        "first-order guess that passes 1; the exact chance is 1 − (1 − p)^t with fresh ρ and "
        "E_ρ[1 − F(ρ + r − d)^t] with the shared ρ of Algorithm 2.",
    ):
        df, worst = csvt.appending(s.eps, s.c, s.k, s.alpha, s.monotonic, s.trav_eff)
        ui.chart(
            figs.appending(df, traverses=s.trav_eff),
            df,
            name="appending",
            alt="Probability of selection within t passes against q minus T, exact and the paper's t·p.",
        )
        _appending_erratum(s, worst)


def experiment_tab(s: Settings) -> None:
    """Panel 10: the top-c experiment."""
    with ui.panel(
        "10 · Top-c experiment",
        "SVT-Exp with r^op is far above the other private methods on Zipf; with one pass on Binary its "
        "high bar costs recall, and APPEND (t > 1) wins it back. The upper bound is not private.",
    ):
        _experiment(s)


def numerics_tab(s: Settings) -> None:
    """Panels 11–12: the numerical framework and the privacy accountant."""
    with ui.panel(
        "11 · Numerical framework (Algorithms 3/4)",
        "the FFT framework converges fast: at m ≈ 1000 bins r̄^op is within 0.01 % of the closed form and "
        "it still runs in milliseconds (Fig. 17).",
    ):
        tail = float(
            params.select_number(
                "tail",
                "e — tail mass left outside the grid [−B, B]",
                TAIL_GRID,
                1e-8,
                name="the tail mass e",
                help="Smaller e: a wider grid B (fewer lost tails) but coarser bins u = B/(m − 1).",
                container=st,
            )
        )
        pmf, acc, info = csvt.numeric_framework(s.eps, s.c, s.k, s.alpha, s.monotonic, s.n_bins, tail)
        row = acc[acc["n_bins"] == s.n_bins].iloc[0]
        m = st.columns(6)
        m[0].metric("r^op, closed form", f"{info['r_op']:.6g}")
        m[1].metric(f"r̄^op, m = {s.n_bins}", f"{row['r_op_numeric']:.6g}")
        m[2].metric("|r̄^op − r^op|", f"{row['abs_error']:.3g}")
        m[3].metric("RMS error of p̄", f"{row['rms_error_p']:.3g}")
        m[4].metric("grid half-width B", f"{info['B']:.5g}", help=f"bin width u = {info['u']:.4g}")
        m[5].metric("runtime", f"{row['runtime_ms']:.2f} ms")
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

    with ui.panel("12 · Privacy accountant"):
        _accountant(s)


def _eq8_vs_exact(sm: dict) -> None:
    """Erratum (spec §7 item 5): Eq. 7/8 treats ρ as fresh per comparison; Algorithm 2 shares it."""
    cols = st.columns(2)
    cols[0].metric("p(r) — paper's Eq. 8", f"{sm['p_eq8']:.4g}")
    cols[1].metric("p(r) — exact, shared ρ", f"{sm['p_shared']:.4g}")
    gap = sm["p_eq8"] / sm["p_shared"] - 1 if sm["p_shared"] > 0 else float("inf")
    if gap > 0.05:
        st.warning(
            f"Eq. 8 over-states the success probability by {gap:.0%} here: it treats the threshold noise as "
            "fresh for every comparison, but Algorithm 2 shares one ρ. The exact value is the dashed curve.",
            icon=":material/warning:",
        )


def _theorem4(s: Settings) -> None:
    """Theorem 4 (spec §1.12, §7 item 4): printed constant vs the corrected union bound vs the exact α."""
    th = csvt.theorem4(s.eps, s.k)
    st.markdown(f"**Theorem 4** (c = 1, ε₁ = ε₂ = ε/2, β = {th['beta']:g}, k = {s.k}): the α needed.")
    cols = st.columns(5)
    cols[0].metric("as printed 4(ln k + ln 2/β)/ε", f"{th['printed']:.4g}")
    cols[1].metric("proof done right 8(…)/ε", f"{th['corrected']:.4g}")
    cols[2].metric("exact: SVT-Exp + r^op", f"{th['exp_rop']:.4g}")
    cols[3].metric("exact: SVT-Exp, r = 0", f"{th['exp_r0']:.4g}")
    cols[4].metric("exact: SVT-Lap", f"{th['lap_r0']:.4g}")
    st.caption(
        "The written proof only supports 8(…)/ε, the same as Laplace SVT; the printed 4(…)/ε still holds "
        "numerically, and the gain over Laplace comes from r^op, not from the union bound."
    )


def _live(s: Settings, comp: pd.DataFrame, info: dict) -> None:
    """Step / next ⊤ / play / reset over the recorded comparisons of one seeded run (session state only)."""
    ss = st.session_state
    n = len(comp)
    if ss.get("svt_sig") != s:  # new settings: show the whole new run
        ss["svt_sig"], ss["svt_step"], ss["svt_play"] = s, n, False

    @st.fragment(run_every=0.35 if ss.get("svt_play") else None)
    def player() -> None:
        cols = st.columns(6)
        if cols[0].button("Reset", key="svt_reset", icon=":material/first_page:"):
            ss["svt_step"], ss["svt_play"] = 0, False
        if cols[1].button("Step", key="svt_one", icon=":material/skip_next:"):
            ss["svt_step"] = min(ss["svt_step"] + 1, n)
        if cols[2].button("+10", key="svt_ten"):
            ss["svt_step"] = min(ss["svt_step"] + 10, n)
        if cols[3].button("Next ⊤", key="svt_next"):
            after = comp.index[(comp["positive"]) & (comp["step"] > ss["svt_step"])]
            ss["svt_step"] = int(comp.loc[after[0], "step"]) if len(after) else n
        playing = ss.get("svt_play", False)
        if cols[4].button(
            "Pause" if playing else "Play",
            key="svt_playbtn",
            icon=":material/pause:" if playing else ":material/play_arrow:",
        ):
            ss["svt_play"] = not playing
            if not playing and ss["svt_step"] >= n:
                ss["svt_step"] = 0
            st.rerun()
        if cols[5].button("End", key="svt_end", icon=":material/last_page:"):
            ss["svt_step"], ss["svt_play"] = n, False
        if playing:
            ss["svt_step"] = min(ss["svt_step"] + max(1, n // 100), n)
            if ss["svt_step"] >= n:
                ss["svt_play"] = False
                st.rerun()
        step = int(min(ss["svt_step"], n))
        last = comp.iloc[step - 1] if step else None
        m = st.columns(5)
        m[0].metric("comparisons n_a", f"{step} / {n}")
        m[1].metric("⊤ answers n_c / c", f"{int(last['n_positive']) if step else 0} / {s.c}")
        m[2].metric("true positives among ⊤", f"{int(last['n_true_selected']) if step else 0}")
        m[3].metric("pass", f"{int(last['pass']) if step else 0}")
        m[4].metric("threshold draws", f"{info['threshold_draws']}", help="1 unless RESAMPLE")
        ui.chart(
            figs.live_run(comp, step=step, threshold=s.threshold),
            comp.iloc[:step],
            name="live run",
            alt="Bars of true answers in queue order with noisy answers and the noisy threshold line.",
        )
        st.caption(
            f"The full run halted by **{info['halted']}** after {info['n_comparisons']} comparisons with "
            f"{info['n_positive']} ⊤ ({info['true_positives_selected']} of them true positives)."
        )

    player()


def _appending_erratum(s: Settings, worst: dict) -> None:
    """Erratum (spec §7 item 8): the paper's t·p vs the exact appending probability."""
    if not s.append:
        st.info(
            "APPEND is off: every query is compared once (t = 1), where t·p is exact. Turn APPEND on in the "
            "sidebar to see the paper's approximation at your t.",
            icon=":material/info:",
        )
    st.markdown(f"At d = q − T = {worst['d']:.4g}, t = {s.trav_eff}:")
    cols = st.columns(3)
    cols[0].metric("P[selected] — paper's t·p", f"{worst['paper']:.4g}")
    cols[1].metric("P[selected] — exact (shared ρ)", f"{worst['exact']:.4g}")
    cols[2].metric("fresh ρ per pass, 1 − (1 − p)^t", f"{worst['independent']:.4g}")
    if worst["paper"] > worst["exact"] + 0.01:
        st.warning(
            f"The paper's t·p = {worst['paper']:.3g} is wrong here (not even a probability once it passes "
            "1); "
            f"the exact chance is {worst['exact']:.3g}.",
            icon=":material/warning:",
        )


def _experiment(s: Settings) -> None:
    """Panel 10: NCR / F1 / precision / recall vs ε for all Table-3 methods, 95 % CIs, cached per method."""
    ds = csvt.dataset(s.data)
    t_exp = s.threshold if s.data in ("zipf", "binary") else ds.threshold
    n_above = int((ds.scores >= t_exp).sum())
    if ds.synthetic_stand_in:
        st.info(
            f"The real {ds.name} data set cannot be downloaded here: this is a transaction-style stand-in "
            "generated to match Table 2's records, items and threshold (with assumed transaction lengths). "
            "Its numbers are not the paper's.",
            icon=":material/info:",
        )
    st.caption(
        f"{ds.name}: {ds.n_items} items, T = {t_exp:g} ({n_above} items ≥ T), c = {s.c}, "
        f"k = ⌊items/c⌋ = {ds.n_items // s.c}, α = 0, RESAMPLE = {s.resample}, "
        f"{'APPEND with t = ' + str(s.trav_eff) if s.append else 'one pass'}, {s.n_runs} runs per point, "
        f"seed {s.seed}."
    )
    bar = st.progress(0.0, text="Running the experiment …")
    df = csvt.experiment(
        s.data,
        t_exp,
        s.c,
        traverses=(s.trav_eff,),
        resample=s.resample,
        monotonic=s.monotonic,
        n_runs=s.n_runs,
        seed=s.seed,
        progress=lambda f: bar.progress(f, text="Running the experiment …"),
    )
    bar.progress(0.0, text=f"(b) traverses at ε = {s.eps:g} …")
    trav = csvt.experiment(
        s.data,
        t_exp,
        s.c,
        epsilons=(s.eps,),
        traverses=(1, 2, 5, 10),
        resample=s.resample,
        monotonic=s.monotonic,
        n_runs=s.n_runs,
        seed=s.seed,
        progress=lambda f: bar.progress(f, text=f"(b) traverses at ε = {s.eps:g} …"),
    )
    bar.empty()
    left, right = st.columns(2)
    with left:
        ui.chart(
            figs.experiment(df, metric=s.metric, epsilon=s.eps, title="(a) against ε"),
            df,
            name="experiment",
            alt="Selection quality against epsilon for all Table 3 methods with 95 percent intervals.",
        )
    with right:
        ui.chart(
            figs.experiment(
                trav, metric=s.metric, x="traverses", title=f"(b) against traverses (APPEND, ε = {s.eps:g})"
            ),
            trav,
            name="experiment traverses",
            alt="Selection quality against the number of traverses at the chosen epsilon for all methods.",
        )
    best = df[df["epsilon"] == max(csvt.EXPERIMENT_EPSILONS)].set_index("method")[s.metric]
    st.dataframe(
        best.rename(f"{s.metric} at ε = {max(csvt.EXPERIMENT_EPSILONS):g}").reset_index(), hide_index=True
    )


def _accountant(s: Settings) -> None:
    """Panel 12: what the run spends; RESAMPLE as printed vs corrected (spec §7 item 1); monotonic misuse."""
    a = csvt.accountant(s.eps, s.c, s.noise, s.monotonic)
    m = st.columns(5)
    m[0].metric("ε₁ (threshold)", f"{a['epsilon1']:.4g}")
    m[1].metric("ε₂ (queries)", f"{a['epsilon2']:.4g}")
    m[2].metric("w = ε₂/ε₁", f"{a['w']:.4g}")
    m[3].metric("ε, RESAMPLE off", f"{a['off']:.4g}")
    m[4].metric("ε, RESAMPLE on", f"{a['on']:.4g}", help="c·ε₁ + ε₂ (corrected Theorem 3)")
    if s.resample:
        ui.paper_vs_exact(
            "ε with RESAMPLE",
            a["on_as_printed"],
            a["on"],
            help="Theorem 3 prints “(cε₁, ε₂)-DP”; read as (ε, δ) that is ε = c·ε₁. Its proof "
            "gives pure (c·ε₁ + ε₂)-DP.",
        )
    else:
        ui.paper_vs_exact("ε with RESAMPLE off", a["off"], a["off"])
    if not a["pure"]:
        st.info(
            f"SVT-Gau is only (ε, δ)-DP: δ = {a['delta']:g} (classic Gaussian calibration).",
            icon=":material/info:",
        )
    if s.monotonic:
        st.warning(
            f"The monotonic calibration is only private for monotonic queries (item counts are). On "
            f"non-monotonic queries the loss can reach ε₁ + 2ε₂ = {a['mono_misuse']:.4g} (spec §5 R14).",
            icon=":material/warning:",
        )
    st.caption(
        "⊥ answers, the number of comparisons, APPEND and the correction r (computed from public "
        "parameters) cost nothing extra."
    )


@st.cache_resource(max_entries=MAX_ENTRIES, show_spinner=False)
def _slot(key: tuple) -> dict:
    """A shared slot per ``key`` (bounded like every cache) for what the reproduce view assembles."""
    return {}


def _once(key: tuple, build: Callable[[], T]) -> T:
    """``build()`` the first time ``key`` (a name and the scalars that fix the value) is seen, then reuse it.

    The reproduce view does not follow ε, so a slider move would otherwise re-read ~40 cached tables and rebuild
    fourteen unchanged Plotly figures (~100 ms). ``build`` runs outside any cached function, so its progress bars
    are shown normally on a miss. The values are shared between sessions and never mutated.
    """
    slot = _slot(key)
    if "value" not in slot:
        slot["value"] = build()
    return slot["value"]


def reproduce(s: Settings) -> None:
    """Figs. 3–11, 16, 17 and Table 5 at the spec's parameters, each with its deviation (12–15 out of scope)."""
    st.info(
        "The plots themselves are not in the paper's text; the reference values come from the "
        "specification's "
        "reproductions. Zipf and Binary are exactly the paper's synthetic data; the real data sets of "
        "Table 2 "
        "(BMS-POS, Kosarak, Adult, and the IBM-generated T40I10D100K) cannot be downloaded here, so "
        "transaction-style stand-ins generated to match their statistics are used.",
        icon=":material/info:",
    )
    with ui.panel(
        "Fig. 3 · (α, β) curves",
        "SVT-Exp with r^op has the lowest β for every α > 0; at α = 0 every "
        "optimally corrected noise gives β = 1 − k^k/(k+1)^(k+1) = 0.99272.",
    ):
        df = _once(("fig3 data",), csvt.fig3)
        ui.chart(
            _once(
                ("fig3",),
                lambda: figs.alpha_beta(
                    df, column="beta_eq8", title="Fig. 3 · β vs α (k = 50, ε = 1, c = 1, ε₁ = ε₂)"
                ),
            ),
            df,
            name="fig3",
            alt="Failure probability against alpha for the methods of Fig. 3.",
        )

        def fig3_table() -> pd.DataFrame:
            rows = [
                {
                    "method": m,
                    **{
                        f"α = {a}: ours": float(
                            df[(df["method"] == m) & (df["alpha"] == a)]["beta_eq8"].iloc[0]
                        )
                        for a in (0, 10, 20, 30)
                    },
                    **{f"α = {a}: spec": v for a, v in zip((0, 10, 20, 30), vals, strict=True)},
                }
                for m, vals in csvt.FIG3_SPEC.items()
            ]
            return pd.DataFrame(rows).round(4)

        st.dataframe(_once(("fig3 table",), fig3_table), hide_index=True)
        st.caption(
            "Deviation: the figure's data are not in the text; Eq. 8 with b = 2, θ = 4 as in §4.1, and "
            "SVT-Gau "
            "with the assumed δ = 1e-5 (σ = √(2 ln(1.25/δ))·Δ/ε), which the paper does not state."
        )
    with ui.panel(
        "Fig. 4 · minimal comparison variance", "four parallel lines: V* ∝ 1/ε²; Exp lowest, Lap ≈ 1.93× Exp."
    ):
        df = _once(("fig4 data",), csvt.fig4)
        ui.chart(
            _once(("fig4",), lambda: figs.variance_vs_epsilon(df)),
            df,
            name="fig4",
            alt="Minimal variance against epsilon, four noises.",
        )
        st.caption("Deviation: SVT-Gau needs a δ the paper does not give; δ = 1e-5 assumed.")
    with ui.panel(
        "Fig. 5 · p(r) (monotonic scales, c = 1, Table-6 split)",
        "r^op grows with k, falls with ε (∝ 1/ε, same peak height), and first falls then rises with α.",
    ):
        f5 = _once(("fig5 data",), csvt.fig5)
        cols = st.columns(2)
        with cols[0]:
            ui.chart(
                _once(("fig5a",), lambda: figs.fig5_density(f5["a"])),
                f5["a"],
                name="fig5a",
                alt="Density of Z at epsilon 0.1.",
            )
            ui.chart(
                _once(
                    ("fig5c",),
                    lambda: figs.fig5_curves(f5["c"], param="alpha", title="Fig. 5(c) · several α (ε = 0.1, k = 10)"),
                ),
                f5["c"],
                name="fig5c",
                alt="p(r) for several alpha.",
            )
        with cols[1]:
            ui.chart(
                _once(
                    ("fig5b",),
                    lambda: figs.fig5_curves(f5["b"], param="k", title="Fig. 5(b) · several k (ε = 0.1, α = 0)"),
                ),
                f5["b"],
                name="fig5b",
                alt="p(r) for several k.",
            )
            ui.chart(
                _once(
                    ("fig5d",),
                    lambda: figs.fig5_curves(f5["d"], param="epsilon", title="Fig. 5(d) · several ε (k = 10, α = 0)"),
                ),
                f5["d"],
                name="fig5d",
                alt="p(r) for several epsilon.",
            )
        st.caption(
            "Deviation: the k, α and ε lists and the split are not stated; the captions' Lap(1/ε₁), "
            "Exp(1/ε₂) "
            "suggest Δ = 1, monotonic scales, c = 1 and the Table-6 split w = 0.7937 (spec §4). Fig. 5(a)'s "
            "caption swaps the roles of the two noises; Z = v − ρ is used."
        )
    with ui.panel("Table 5 · correction terms (c = 50, α = 0)", None):
        st.dataframe(_once(("table5",), lambda: csvt.table5().round(4)), hide_index=True)
        st.caption(
            "Deviation: the printed Mean row is θ = cΔ/ε₂ with w = (2c)^(2/3) (the last column; 5332.08 is a "
            "typo for 5232.08), not Algorithm 2's 2cΔ/ε₂; the printed Optimal row is not ∝ 1/ε and its k is "
            "unstated. Reproduced qualitatively: r^op ≈ 5× the mean, decreasing in ε."
        )
    with ui.panel("Fig. 6 · the data sets", None):
        curves, info = _once(("fig6 data",), csvt.fig6)
        ui.chart(
            _once(("fig6",), lambda: figs.scores(curves, info)),
            curves,
            name="fig6",
            alt="Sorted item scores of six data sets.",
        )
        st.dataframe(info, hide_index=True)
        st.caption(
            "Deviation: four of the six curves are generated stand-ins (see the note above); Binary "
            "assumes 50 "
            "positives (not stated)."
        )
    with ui.panel(
        "Figs. 7/10 and 8/11 · top-c experiments",
        f"on {csvt.DATASETS[s.data]} (change the data set in the sidebar): SVT-Exp with r^op beats the other "
        "private methods, and more traverses raise it most.",
    ):
        _reproduce_experiments(s)
    with ui.panel(
        "Fig. 16 · robustness to α (Binary, c = 50, APPEND)",
        "with APPEND the curves for α up to the score gap 500 stay close together (a rejected positive gets "
        "more chances), α = 500 being at or near the top; an α beyond the gap (1000) sets the bar too low "
        "and lets negatives in.",
    ):
        _fig16(s)
    st.info(
        "Figs. 12–15 (the RDP-composition variants) are not reproduced: they need an RDP accountant for "
        "SVT-Exp, which the paper does not specify (spec §4: out of scope).",
        icon=":material/info:",
    )
    with ui.panel(
        "Figs. 9 and 17 · the numerical framework",
        "the FFT curve lies on the closed form; the error falls "
        "fast with m while the runtime grows about linearly.",
    ):
        df, info = _once(("fig9 data",), csvt.fig9)
        ui.chart(
            _once(("fig9",), lambda: figs.fig9(df)),
            df,
            name="fig9",
            alt="Numerical and analytic success probability against r.",
        )
        st.caption(
            f"b = {info['b']:.5g}, θ = {info['theta']:.5g}; r^op = {info['r_op']:.6g} (closed form), "
            f"{info['r_op_numeric']:.6g} (m = 20 001). Deviation: split and c not stated — c = 1, Table-4 "
            "split."
        )
        _, acc, _ = _once(("fig17 data",), lambda: csvt.numeric_framework(0.03, 1, 10, 0.0, False, 101))
        ui.chart(
            _once(("fig17",), lambda: figs.numeric_accuracy(acc)),
            acc,
            name="fig17",
            alt="Error and runtime against the number of bins.",
        )
        st.dataframe(acc, hide_index=True)
        st.caption(
            "Spec §5 R9: r̄^op = 338.870 (m = 51), 335.676 (101), 334.707 (1001). Runtimes are this machine's."
        )


def _fig16(s: Settings) -> None:
    """Fig. 16: NCR of Algorithm 2 vs ε on Binary for several α, cached per α with a progress bar."""
    def frame() -> pd.DataFrame:
        bar = st.progress(0.0, text="Fig. 16: NCR against ε for several α …")
        df = csvt.fig16(s.n_runs, s.seed, progress=lambda f: bar.progress(f, text="Fig. 16: NCR against ε …"))
        bar.empty()
        return df

    df = _once(("fig16 data", s.n_runs, s.seed), frame)
    ui.chart(
        _once(("fig16", s.n_runs, s.seed), lambda: figs.fig16(df)),
        df,
        name="fig16",
        alt="NCR of Algorithm 2 against epsilon, one line per alpha.",
    )
    def ncr_table() -> pd.DataFrame:
        table = df.pivot(index="epsilon", columns="alpha", values="ncr")
        table.columns = [f"NCR, α = {a:g}" for a in table.columns]
        return table.reset_index().round(3)

    st.dataframe(_once(("fig16 table", s.n_runs, s.seed), ncr_table), hide_index=True)
    st.caption(
        f"Deviation: the α list and the traverse count are not stated (α ∈ {{0, 100, 250, 500, 1000}}, t = "
        f"{csvt.FIG16_TRAVERSES} used), Binary's 50 positives are assumed, and {s.n_runs} runs per point "
        "(sidebar) give the 95 % CIs shown; r^op is recomputed for each α (Eq. 9) as Algorithm 2 does."
    )


def _experiment_frames(s: Settings, ds) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figs. 7/10 (NCR, F1 against ε) and 8/11 (against traverses) tables, with a progress bar while computing."""
    bar = st.progress(0.0, text="Fig. 7: NCR against ε …")
    fig7 = csvt.experiment(
        s.data,
        ds.threshold,
        ds.c,
        traverses=(1, 10),
        n_runs=s.n_runs,
        seed=s.seed,
        progress=lambda f: bar.progress(f, text="Fig. 7: NCR against ε …"),
    )
    bar.progress(0.0, text="Fig. 8: NCR against traverses …")
    fig8 = csvt.experiment(
        s.data,
        ds.threshold,
        ds.c,
        epsilons=(1.0,),
        traverses=(1, 2, 3, 5, 10),
        n_runs=s.n_runs,
        seed=s.seed,
        progress=lambda f: bar.progress(f, text="Fig. 8: NCR against traverses …"),
    )
    bar.empty()
    return fig7, fig8


def _reference_table(ds, fig7: pd.DataFrame) -> pd.DataFrame:
    """The spec's R20 sanity band beside our NCR (Zipf and Binary only)."""
    ref = csvt.R20[csvt.R20["data"] == ds.name].copy()
    ours = fig7.set_index(["method", "traverses", "epsilon"])["ncr"]
    ref["ours Exp-opt"] = [
        ours.get(("SVT-Exp (optimal)", t, e)) for t, e in zip(ref["traverses"], ref["epsilon"], strict=True)
    ]
    pairs = list(zip(ref["traverses"], ref["epsilon"], strict=True))
    ref["ours Lap"] = [ours.get(("SVT-Lap", t, e)) for t, e in pairs]
    return ref.round(4)


def _reproduce_experiments(s: Settings) -> None:
    run = (s.data, s.n_runs, s.seed)  # what fixes the experiment tables and their four figures
    ds = _once(("dataset", s.data), lambda: csvt.dataset(s.data))
    st.caption(
        f"{ds.name}: Table 2's T = {ds.threshold:g}, c = {ds.c}, k = {ds.k}; α = 0, RESAMPLE off, APPEND on, "
        f"non-monotonic calibration, {s.n_runs} runs per point (sidebar), seed {s.seed}."
    )
    fig7, fig8 = _once(("fig7/8 data", *run), lambda: _experiment_frames(s, ds))
    ten = _once(("fig7 t=10", *run), lambda: fig7[fig7["traverses"] == 10])
    charts = (
        (0, "fig7", ten, dict(metric="ncr", title="Fig. 7 · NCR against ε (t = 10)"),
         "NCR against epsilon for all methods."),
        (0, "fig8", fig8, dict(metric="ncr", x="traverses", title="Fig. 8 · NCR against traverses (ε = 1)"),
         "NCR against the number of traverses for all methods."),
        (1, "fig10", ten, dict(metric="f1", title="Fig. 10 · F1 against ε (t = 10)"),
         "F1 against epsilon for all methods."),
        (1, "fig11", fig8, dict(metric="f1", x="traverses", title="Fig. 11 · F1 against traverses (ε = 1)"),
         "F1 against the number of traverses for all methods."),
    )
    cols = st.columns(2)
    for col, name, data, kw, alt in charts:
        with cols[col]:
            fig = _once((name, *run), lambda data=data, kw=kw: figs.experiment(data, **kw))
            ui.chart(fig, data, name=name, alt=alt)
    if ds.name in ("Zipf", "Binary"):
        st.dataframe(_once(("R20 table", *run), lambda: _reference_table(ds, fig7)), hide_index=True)
    st.caption(
        "Deviations: the ε grid, the traverse count of Fig. 7 and Fig. 8's ε are not stated (ε ∈ {0.05, 0.1, "
        "0.5, 1, 2}, t = 10 and ε = 1 used); RESAMPLE off as every caption says (spec §7 item 11); fewer "
        "runs "
        "than a paper figure, hence the CIs; the upper bound is a non-private ceiling (spec §7 item 16). The "
        "spec's reference values (R20, 40 runs) are a sanity band of ±0.05, not paper numbers."
    )


#: Explore-view tabs (lazy: only the open tab runs; the open tab is in the URL as ?tab=…).
TABS = {
    "Noise": noise_tab,
    "Correction": correction_tab,
    "Live run": run_tab,
    "Experiment": experiment_tab,
    "Numerics & accountant": numerics_tab,
}
