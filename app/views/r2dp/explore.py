"""The explore view of the R²DP page: your law (noise, privacy loss, the MGF, releases), the best law of every
family, and three explorers. One part per tab (``?part=…``); a tab's panels run only when it is open."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go
import streamlit as st

from app import background, decks, instant, params, ui
from app.catalogue.r2dp import FAMILY
from app.compute import r2dp as compute
from app.figures import r2dp as figs
from app.notation import number
from app.views._metrics import metric_row
from app.views.r2dp._common import fmt, mixing_law_figure

if TYPE_CHECKING:
    from app.views.r2dp import Settings

BIG = "r2dp_big_sample"  # session state: the noise panel shows 10⁵ draws
EXTRA = "r2dp_extra_releases"  # session state: releases added by the simulator's "release" button


def render(s: Settings, head: compute.Headline | None) -> None:
    """The three parts as URL-bound tabs."""
    tabs = params.parts(list(PARTS))
    for tab, panels in zip(tabs, PARTS.values(), strict=True):
        if tab.open:
            with tab:
                for draw in panels:
                    draw(s, head)


def _paused(head: compute.Headline | None) -> bool:
    if head is None:
        st.caption("Paused until the law's parameters are valid (see the message above).")
    return head is None


def _flip(name: str) -> None:
    st.session_state[name] = not st.session_state.get(name, False)


def _one_more(name: str) -> None:
    st.session_state[name] = st.session_state.get(name, 0) + 1


# ------------------------------------------------------------------------------------------------------- your law


def noise(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Noise density",
        "R²DP noise is a mixture of Laplace densities: a sharper peak and heavier tails "
        "than Laplace. The shaded band's mass is the usefulness U(γ); with 10⁵ draws the histogram hugs the "
        "density. On the log axis R²DP is convex; the staircase (the best noise of all) is not.",
    ):
        if _paused(head):
            return
        log_y = bool(params.control("logf", container=st))
        big = st.session_state.get(BIG, False)
        samples = compute.BIG_SAMPLES if big else compute.MC_SAMPLES
        st.button(
            "back to 2·10⁴ draws" if big else "sample 10⁵",
            key="r2dp_few" if big else "r2dp_many",
            on_click=_flip,
            args=(BIG,),
            icon=":material/casino:",
            help="Redraw the histogram from 100 000 noise draws (same seed).",
        )
        view = compute.noise(s.key, s.eps, s.gamma, s.sens, s.seed, samples)
        ui.chart(
            ui.memo_figure(_noise_figure, s.key, s.eps, s.gamma, s.sens, s.seed, samples, head.usefulness, log_y),
            view.densities,
            name="noise density",
            alt="Noise density of the chosen R²DP law with a sampled histogram, Laplace and staircase densities, "
            "and the band of noise within plus or minus gamma.",
        )
        sampled = view.sampled
        st.metric(
            f"sampled share within ±γ ({samples:,} draws)",
            f"{sampled:.4f}",
            help=f"The share of simulated releases within ±γ; it estimates U(γ) = {head.usefulness:.4f}.",
        )


def _law_chart(
    head: compute.Headline | None,
    title: str,
    idea: str,
    build: Callable[..., go.Figure],
    args: tuple[Hashable, ...],
    data: Callable[[], Any],
    *,
    name: str,
    alt: str,
) -> None:
    """A panel of the sidebar's law with its one chart, ``build(*args)`` (memoised), under its idea; nothing but the
    idea while the law's parameters are not valid (``head`` None)."""
    with ui.panel(title, idea):
        if _paused(head):
            return
        ui.chart(ui.memo_figure(build, *args), data, name=name, alt=alt)


def scale_law(s: Settings, head: compute.Headline | None) -> None:
    _law_chart(
        head,
        "The same law, as noise scales",
        "R²DP is a random mix of Laplace mechanisms: each release uses "
        "the noise scale b = 1/u it drew. Laplace uses the single scale b* = Δ/ε.",
        mixing_law_figure,
        (s.key, s.eps, s.sens, s.seed, True),
        lambda: compute.mixing_law(s.key, s.eps, s.sens, s.seed, True),
        name="scale law",
        alt="Density or probabilities of the Laplace noise scale b = 1/u, with b* marked.",
    )


def loss(s: Settings, head: compute.Headline | None) -> None:
    _law_chart(
        head,
        "Where the privacy is spent",
        "R²DP spends its full ε only at outputs equal to the true answer "
        "(y = 0 here) and less elsewhere; Laplace spends ε on a whole half-line. The curve is "
        "antisymmetric about Δ/2.",
        _loss_figure,
        (s.key, s.eps, s.sens, head.epsilon if head else math.nan),  # (not drawn while paused)
        lambda: compute.loss_profile(s.key, s.eps, s.sens),
        name="privacy loss",
        alt="Privacy loss of the law and of Laplace against the output y.",
    )


def mgf(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Everything from one curve: the moment generating function",
        "usefulness is read at t = −γ, the "
        "exact ε from M′ at 0 and at −Δ, and the paper's necessary condition for beating Laplace at +Δ.",
        paper="Theorem 4.2 (the necessary condition)",
    ):
        if _paused(head):
            return
        st.markdown(
            r"With $M(t) = \mathbb{E}\left[e^{t u}\right]$, the law of $u$ gives the noise density "
            r"$f(w) = \tfrac12 M'(-|w|)$, the usefulness $U(\gamma) = 1 - M(-\gamma)$ and the exact privacy "
            r"loss $\varepsilon = \ln\dfrac{\mathbb{E}[u]}{M'(-\Delta)}$."
        )
        ui.chart(
            ui.memo_figure(_mgf_figure, s.key, s.gamma, s.sens),
            lambda: compute.mgf_view(s.key, s.gamma, s.sens),
            name="mgf",
            alt="The moment generating function of u and its derivative on a log axis.",
        )
        holds = head.necessary > head.epsilon
        st.caption(
            f"ln M(+Δ) = {fmt(head.necessary)} against the exact ε = {fmt(head.epsilon)}: "
            + (
                "the necessary condition holds — this law may beat Laplace."
                if holds
                else "the necessary condition fails — this law cannot beat Laplace at its own ε (Thm 4.2)."
            )
        )


def simulator(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Release simulator",
        "each release draws a fresh secret u, then Laplace noise of scale 1/u; the "
        "running share of answers within ±γ settles on U(γ). Publishing u would reduce the guarantee to "
        "that of Laplace(1/u), whose ε = Δ·u can be huge.",
    ):
        if _paused(head):
            return
        cols = st.columns(2)
        n = int(params.control("nrel", container=cols[0]))
        reveal = bool(params.control("reveal", container=cols[1]))
        st.button(
            "release",
            key="r2dp_release",
            on_click=_one_more,
            args=(EXTRA,),
            icon=":material/send:",
            help="Release the true answer once more: a fresh secret u, then Laplace(1/u) noise.",
        )
        extra = st.session_state.get(EXTRA, 0)
        df, exact = compute.releases(s.key, s.gamma, s.sens, n, s.seed, extra)
        ui.chart(
            ui.memo_figure(_releases_figure, s.key, s.gamma, s.sens, n, s.seed, extra),
            df,
            name="releases",
            alt="Histogram of released values and the running share within gamma against the exact value.",
        )
        total = len(df)
        secrets = compute.secret_draws(s.key, s.sens, n, s.seed, extra)
        metric_row(
            (
                "latest release",
                f"{df['released'].iloc[-1]:.4f}",
                f"Release {total}: {n} simulated" + (f" + {extra} by the button" if extra else ""),
            ),
            (f"share within ±γ after {total} releases", f"{df['running_share'].iloc[-1]:.4f}"),
            ("exact U(γ)", f"{exact:.4f}"),
            ("secret u of the latest release", f"{secrets['secret u'].iloc[-1]:.4f}" if reveal else "hidden"),
        )
        if reveal:
            st.warning(
                "Revealing u breaks R²DP: given u the release is plain Laplace(1/u), whose ε is Δ·u. Never "
                "publish or reuse the draws.",
                icon=":material/visibility:",
            )
            st.dataframe(secrets, hide_index=True, width="stretch")


def reuse(s: Settings, head: compute.Headline | None) -> None:
    _law_chart(
        head,
        "Many releases: fresh draws or one reused draw",
        "with a fresh secret u per release the ε's add "
        "up (n·ε). Reusing one draw of u for all n releases changes the total to "
        "ln(M⁽ⁿ⁾(0)/M⁽ⁿ⁾(−nΔ)) — sometimes less, sometimes more than n·ε, depending on the law.",
        _reuse_figure,
        (s.key, s.sens),
        lambda: compute.reuse(s.key, s.sens),
        name="reuse",
        alt="Total epsilon of n releases with fresh draws and with one reused draw of u.",
    )


def metrics(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Other measures of error",
        "usefulness-optimal laws often have heavy tails: "
        "the mean absolute error or the RMS can exceed Laplace's — or be infinite (Gamma ν ≤ 1 or ≤ 2, "
        "Uniform with uₗ = 0). The paper's RMS formula diverges as printed and its entropy misses "
        "ln(2/E[u]).",
        paper="Table I, corrected",
    ):
        if _paused(head):
            return
        st.dataframe(compute.metrics_table(s.key, s.eps, s.gamma, s.sens), hide_index=True, width="stretch")


# ------------------------------------------------------------------------------------------------------- families


def optima(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "The best law of every family at your settings",
        "the two-point law is the best "
        "R²DP law of all and the staircase beats every R²DP law; Gamma + truncated normal is never worse "
        "than its two parts. The best laws often pay in mean error or RMS (∞ for Gamma ν ≤ 1).",
        paper="Algorithm 1",
    ):
        df = background.result(
            compute.family_optima,
            s.eps,
            s.gamma,
            s.sens,
            slot="family-optima",
            label="Optimising each family under the exact ε (Algorithm 1)",
        )
        if df is None:
            return
        mine = df.set_index("family").loc[s.family]
        st.metric(
            f"best {FAMILY[s.family].words} U(γ) (Alg. 1)",
            fmt(mine["U(γ)"]),
            help="No law of this family beats Laplace here."
            if s.family != "laplace" and not mine["beats Laplace"]
            else f"The best law of the family: {mine['optimal law']}",
        )
        st.dataframe(
            df.drop(columns="family"),
            hide_index=True,
            width="stretch",
            column_config={
                "U(γ)": st.column_config.NumberColumn(format="%.4f"),
                "ratio to Laplace": st.column_config.NumberColumn(format="%.3f×"),
            },
        )


def vs_epsilon(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Usefulness against ε",
        "no family beats Laplace for ε ≤ 1; Gamma and Uniform only above "
        "ε = 2/(1 − γ/Δ). Gains grow with ε and with small γ/Δ. The two-point law bounds every family and "
        "the staircase is always on top.",
    ):
        ui.chart(
            instant.figure(decks.usefulness, "eps", s.eps, s.g, slot="r2dp-usefulness", stops=decks.USEFULNESS_STOPS),
            lambda: compute.usefulness_vs_epsilon(s.g),
            name="usefulness vs epsilon",
            alt="Optimised usefulness of each family, Laplace and the staircase against epsilon, with ratios.",
        )


#: The stops of the in-figure ε slider: those inside the curves' range (0.1 … 20), so the axis stays put.


def vs_gamma(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Usefulness against γ",
        "at γ a whole multiple of Δ Laplace is optimal among all ε-DP noises (the "
        "curves touch); for γ ≥ Δ R²DP cannot help; the staircase has kinks at whole γ/Δ.",
    ):
        df = background.result(
            compute.usefulness_vs_g_frame, s.eps, slot="usefulness-vs-g", label="Optimising every family over γ/Δ"
        )
        if df is not None:
            ui.chart(
                figs.usefulness_vs_g(df, g=s.g),
                df,
                name="usefulness vs gamma",
                alt="Optimised usefulness of each family against gamma over the sensitivity, at the chosen epsilon.",
            )
        st.caption(
            "Gamma + truncated normal (up to about 1 s an optimum) is optimised at fewer points: γ/Δ = "
            + ", ".join(number(g) for g in compute.COMBO_CURVE_GS)
            + "."
        )


def region(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Where R²DP helps",
        "Gamma and Uniform beat Laplace exactly right of "
        "the red threshold ε = 2/(1 − γ/Δ); the truncated normal, Gamma + truncated normal and the two-point "
        "optimum (dashed white) start earlier.",
        paper="Fig. 10, which the paper cites but omits",
    ):
        family = str(params.control("mapfam", container=st))
        ui.chart(
            ui.memo_figure(_region_figure, family, s.eps, s.g),
            lambda: compute.improvement_maps(family).family,
            name="region of improvement",
            alt="Heat map of the usefulness ratio over Laplace across epsilon and "
            "gamma over the sensitivity, with the analytic threshold.",
        )


# ------------------------------------------------------------------------------------------------------- explorers


def landscape(s: Settings, head: compute.Headline | None) -> None:
    with ui.panel(
        "Constraint landscape of the Gamma law",
        "usefulness grows towards large s, but only the black "
        "curve has the exact ε; the optimum is where that curve reaches the best colour — often ν ≤ 1, "
        "where the mean error is infinite.",
    ):
        current = compute.gamma_point(s.key) if head else None
        ui.chart(
            ui.memo_figure(_landscape_figure, s.eps, s.gamma, s.sens, current),
            lambda: compute.landscape(s.eps, s.gamma, s.sens).grid,
            name="gamma landscape",
            alt="Contours of usefulness over the Gamma shape and scale, the exact-epsilon curve and the optimum.",
        )


def _two_point_values(s: Settings) -> tuple[float, float, float]:
    """u₀, u₁, p₀ of the explorers: the sidebar's when it drew them, else the panel's own controls."""
    cols = st.columns(3)
    u0 = s.u0 if "u0" in s.drawn else float(params.control("u0", container=cols[0]))
    u1 = s.u1 if "u1" in s.drawn else float(params.control("u1", container=cols[1]))
    p0 = s.p0 if "p0" in s.drawn else float(params.control("p0", container=cols[2]))
    return u0, u1, p0


def explorers(s: Settings, head: compute.Headline | None) -> None:
    """The two-point explorer and the check of the paper's two-point formula share the values u₀, u₁, p₀."""
    st.markdown("**Your two-point law** (used by the next two panels)")
    values = _two_point_values(s)
    two_point(s, *values)
    bernoulli(s, *values)


def two_point(s: Settings, u0: float, u1: float, p0: float) -> None:
    with ui.panel(
        "Two-point explorer",
        "mixing a too-private Laplace (u₀ below u* = ε/Δ) with a not-private-enough "
        "one (u₁ above), p₀ set so that the exact ε is met, beats Laplace inside the orange contour — and "
        "the best two-point law is the best R²DP law of all.",
    ):
        mine = compute.relative(u0, u1, s.eps, s.sens)
        ui.chart(
            ui.memo_figure(_two_point_figure, s.eps, s.gamma, s.sens, mine),
            lambda: compute.two_point_map(s.eps, s.gamma, s.sens),
            name="two-point explorer",
            alt="Usefulness of two-point laws with exact epsilon over both values of u.",
        )
        if not mine.u0 < 1 < mine.u1:
            st.info(
                f"Your values u₀ = {number(u0)}, u₁ = {number(u1)} do not straddle u* = ε/Δ = "
                f"{number(compute.ustar(s.eps, s.sens))}: no probability p₀ gives the exact ε. Choose u₀ "
                "below u* and u₁ above it.",
                icon=":material/info:",
            )
            return
        key = compute.law_key("two_point", lock=True, epsilon=s.eps, sensitivity=s.sens, u0=u0, u1=u1, p=p0)
        mh = compute.headline(key, s.eps, s.gamma, s.sens)
        metric_row(
            ("your values: p₀ = P(u = u₀) solved", f"{compute.make_law(key).p:.4f}"),
            ("U(γ) of your two-point law", fmt(mh.usefulness)),
            ("its ratio to Laplace", f"{mh.ratio:.3f}×"),
        )


def bernoulli(s: Settings, u0: float, u1: float, p0: float) -> None:
    with ui.panel(
        "The paper's two-point formula against the exact ε",
        "the printed formula "
        "ε = ln M(+Δ) drops the weights u of the mixture: it is neither an upper nor a lower bound. Try "
        "u₀ = 0.2, u₁ = 0.8, p₀ = 0.5, where it under-states ε.",
        paper="Theorem 4.4",
    ):
        bern = compute.bernoulli(u0, u1, p0, s.sens)
        st.markdown(
            f"Law: u₀ = {number(u0)} with probability p₀ = {number(p0)}, u₁ = {number(u1)} otherwise "
            f"(p₀ as set, not solved), Δ = {number(s.sens)}."
        )
        ui.paper_vs_exact(
            "ε (Thm 4.4)",
            bern.as_printed,
            bern.exact,
            fmt="{:.6f}",
            help="Thm 4.4 as printed: ln(p₀·exp(Δ·u₀) + (1 − p₀)·exp(Δ·u₁))",
        )
        st.metric(
            "brute-force sup of the privacy-loss profile",
            f"{bern.brute_force:.6f}",
            help="The largest privacy loss over 1401 outputs and 40 shifts up to Δ; it equals the exact ε, "
            "attained at the true answer.",
        )


# ------------------------------------------------------------------------------------------------------- charts
# Each chart's figure, memoised by the settings it depends on (ui.memo_figure): the compute layer's seeded data and a
# figure builder, nothing else.


def _noise_figure(
    key: compute.LawKey, eps: float, gamma: float, sens: float, seed: int, samples: int, mass: float, log_y: bool
) -> go.Figure:
    return figs.noise(
        *compute.noise(key, eps, gamma, sens, seed, samples), gamma=gamma, mass=mass, log_y=log_y, draws=samples
    )


def _loss_figure(key: compute.LawKey, eps: float, sens: float, eps_law: float) -> go.Figure:
    return figs.loss_profile(compute.loss_profile(key, eps, sens), eps_law=eps_law, epsilon=eps, sensitivity=sens)


def _mgf_figure(key: compute.LawKey, gamma: float, sens: float) -> go.Figure:
    return figs.mgf(compute.mgf_view(key, gamma, sens), gamma=gamma, sensitivity=sens)


def _releases_figure(key: compute.LawKey, gamma: float, sens: float, n: int, seed: int, extra: int) -> go.Figure:
    return figs.releases(
        *compute.releases(key, gamma, sens, n, seed, extra), true_answer=compute.TRUE_ANSWER, gamma=gamma
    )


def _reuse_figure(key: compute.LawKey, sens: float) -> go.Figure:
    return figs.reuse(compute.reuse(key, sens))


def _region_figure(family: str, eps: float, g: float) -> go.Figure:
    return figs.improvement_map(*compute.improvement_maps(family), family=family, epsilon=eps, g=g)


def _landscape_figure(eps: float, gamma: float, sens: float, current: compute.GammaPoint | None) -> go.Figure:
    return figs.landscape(*compute.landscape(eps, gamma, sens), current=current, epsilon=eps)


def _two_point_figure(eps: float, gamma: float, sens: float, current: compute.RelativeAtoms) -> go.Figure:
    best = compute.optimum(eps, gamma, sens, "two_point")
    return figs.two_point_map(
        compute.two_point_map(eps, gamma, sens),
        current=current,
        laplace=best.laplace,
        best=compute.relative_atoms(best.family_law, eps, sens),
    )


PARTS = {
    "Law": (noise, loss, mgf, scale_law, simulator, reuse, metrics),
    "Families": (optima, vs_epsilon, vs_gamma, region),
    "Explorers": (landscape, explorers),
}
