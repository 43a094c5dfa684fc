"""Negotiate a budget: the smallest ε every mechanism needs for a stated accuracy, the reverse, and what ε means."""

from __future__ import annotations

import math

import streamlit as st

from app import params, ui
from app.compute import negotiate as compute
from app.figures import negotiate as figs

CONFIDENCE_OPTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999)
ALPHA_OPTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
VALUE_OPTIONS = params.log_grid(1.0, 1e5, (1.0, 2.0, 5.0))
C_OPTIONS = (1, 2, 5, 10, 20, 50, 100)
K_OPTIONS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
KINDS = ("error", "relative", "topc")
KIND_TEXT = {"error": "an error bound ±θ with confidence p", "relative": "a relative error α with confidence p",
             "topc": "top-c selection: SVT's success probability p"}

ui.header(
    "Negotiate a budget",
    "Say how accurate the answer must be; the table lists the **smallest ε** (and δ) each mechanism of the app "
    "needs to deliver it, with a one-line reason. Then turn it round: fix ε and read the accuracy each one delivers. "
    "Where the BR-DP paper's own accountant under-reports δ, both numbers are shown and the sound one is the default.",
)

with st.sidebar:
    st.header("Requirement")
    kind = params.choice(
        "req", "Kind of requirement", KINDS, "error", name="the requirement",
        help="error: |answer − truth| ≤ θ with probability ≥ p. relative: |answer − x| ≤ α·|x| with probability ≥ p. "
        "topc: the sparse vector technique rejects k queries θ below the threshold and accepts the next one θ above "
        "it, with probability ≥ p.",
    )
    st.caption(f"Now: {KIND_TEXT[kind]}.")
    theta = alpha = value = 1.0
    c, k = 1, 50
    if kind == "error":
        theta = params.select_number("theta", "θ — error bound (±)", params.log_grid(0.1, 100.0), 1.0,
                                     name="the error bound θ", help="The answer counts as accurate within ±θ.")
    elif kind == "relative":
        alpha = params.select_number("alpha", "α — relative error", ALPHA_OPTIONS, 0.1, name="the relative error α",
                                     help="Accurate means within α·|x| of the true value x.")
        value = params.select_number("x", "|x| — size of the true value", VALUE_OPTIONS, 100.0,
                                     name="the true value |x|",
                                     help="A relative error needs a scale: the same α is a looser bound on a big count.")
    else:
        theta = params.select_number("margin", "θ — margin around the threshold", params.log_grid(0.1, 100.0), 5.0,
                                     name="the margin θ",
                                     help="Queries within ±θ of the threshold may go either way (Def. 3, (α, β)-accuracy).")
        c = int(params.select_number("c", "c — queries to select", C_OPTIONS, 1, name="the cutoff c",
                                     help="SVT stops after c queries above the threshold; its noise grows with c."))
        k = int(params.select_number("k", "k — queries below the threshold before each one above", K_OPTIONS, 50,
                                     name="k", help="More rejections to get right makes success harder."))
    conf = params.select_number("conf", "p — confidence", CONFIDENCE_OPTIONS, 0.95, name="the confidence p",
                                help="How often the requirement must hold.")
    sens = params.sensitivity()
    delta = 1e-5
    kernel = "gaussian"
    seed = 0
    if kind != "topc":
        delta = params.delta()
        kernel = params.choice("kernel", "BR-DP kernel", ("gaussian", "laplace"), "gaussian", name="the BR-DP kernel",
                               help="The noise BR-DP recycles.")
    if kind == "relative":
        seed = params.seed()
    ui.share_hint()

req = (kind, float(theta), float(conf), sens, delta, float(alpha), float(value), c, k, kernel)
need = (f"|answer − truth| ≤ {theta:g}" if kind == "error" else
        f"|answer − x| ≤ {alpha:g}·{value:g} = {alpha * value:g}" if kind == "relative" else
        f"{k} queries {theta:g} below the threshold rejected and the next one {theta:g} above accepted")

@st.cache_resource(max_entries=compute.MAX_ENTRIES, show_spinner=False)
def _dots(req: tuple, seed: int):
    """Panel 1's chart, built once per requirement (it does not depend on the ε of panel 2; st.plotly_chart only
    reads the Figure)."""
    return figs.epsilon_dots(compute.epsilons(*req, seed), title="Smallest ε that meets the requirement")


NOTICE_1 = {
    "error": "the optimal noise (staircase) and R²DP never need more than Laplace, and equal it when θ is a multiple "
    "of Δ; the Gaussian pays for its light tails with a larger ε unless δ is generous; BR-DP gains most for small θ. "
    "A row marked unsound meets the requirement only on paper: its exact δ is larger than stated.",
    "relative": "a relative error is an absolute one, θ = α·|x|: large counts are cheap. Noise reduction pays only "
    "where it stops (ex-post), usually well below the fixed-noise ε, but its stopping rule is a heuristic that is not "
    "always right (open dot).",
    "topc": "exponential noise with the optimal threshold correction reaches the same success probability at a "
    "smaller ε than Laplace-noise SVT; without a margin θ no ε is enough.",
}

with ui.panel("1 · The smallest ε for your requirement", NOTICE_1[kind]):
    st.markdown(f"**Requirement:** {need}, with probability at least **{conf:g}** (sensitivity Δ = {sens:g}).")
    df = compute.epsilons(*req, seed)
    rows = df.set_index("mechanism")
    if kind != "topc" and rows.loc["brdp", "applicable"]:
        paper, exact = float(rows.loc["brdp_paper", "epsilon"]), float(rows.loc["brdp", "epsilon"])
        if math.isfinite(paper) and math.isfinite(exact):
            ui.paper_vs_exact(
                "BR-DP smallest ε", paper, exact, fmt="{:.5g}", paper_underreports=bool(paper < exact * (1 - 1e-4)),
                help="The same search with the paper's accountant (Alg. 1–2, Prop. 2).")
            if not rows.loc["brdp_paper", "sound"]:
                ex = float(rows.loc["brdp_paper", "exact_delta"])
                st.warning(f"The paper's accountant under-reports the privacy loss here: at its ε its BR-DP plan has "
                           f"exact δ = {ex:.3g}, not {delta:g} ({ex / delta:.3g}×). Use the exact row.",
                           icon=":material/warning:")
    st.dataframe(compute.table_view(df, direction="forward"), hide_index=True, width="stretch", key="eps-table")
    ui.chart(_dots(req, seed), df, name="smallest epsilon",
             alt="Dot chart of the smallest epsilon each mechanism needs, on a log axis.")

with ui.panel(
    "2 · Or fix ε: the accuracy each mechanism delivers",
    "every curve rises with ε; where a curve crosses the dotted confidence line is the ε in the table above.",
):
    eps = params.epsilon("eps", 1.0, label="ε — privacy-loss budget", container=st)
    rev = compute.accuracies(eps, *req, seed)
    st.dataframe(compute.table_view(rev, direction="reverse"), hide_index=True, width="stretch", key="acc-table")
    cur = compute.curves(*req)
    y_title = "success probability" if kind == "topc" else "P(|output − truth| ≤ bound)"
    ui.chart(figs.accuracy_curves(cur, epsilon=eps, confidence=conf, y_title=y_title), cur, name="accuracy vs epsilon",
             alt="Accuracy of every mechanism against epsilon on a log axis, with the chosen epsilon marked.")

with ui.panel(
    "3 · What does this ε mean?",
    "ε bounds how far any single output can move anyone's beliefs about you: the odds change by at most a factor "
    "e^ε, whatever they knew before. Small ε: barely; ε = 10: a 1 % suspicion can become near-certainty.",
):
    m = compute.meaning(eps)
    c1, c2 = st.columns(2)
    c1.metric("Largest factor on an observer's odds, e^ε", f"{m['odds']:.4g}", help=f"at ε = {eps:g} (the slider above)")
    c2.metric(f"Largest posterior from a {100 * m['prior']:g} % prior", f"{100 * m['posterior']:.3g} %")
    st.markdown(
        f"**Worked example.** An observer thinks there is a {100 * m['prior']:g} % chance you are in the data set "
        f"(odds 1 : 99). After seeing one ε = {eps:g} output their odds can grow at most e^ε = {m['odds']:.4g} times, "
        f"to {m['odds']:.4g} : 99, i.e. a probability of at most {100 * m['posterior']:.3g} %."
    )
    st.markdown("**Budgets of real deployments** (each as published by the organisation named):")
    st.dataframe(compute.deployments_meaning(), hide_index=True, width="stretch", key="deploy-table")
    st.caption("Per-day budgets add up over days; the Census budgets cover the whole redistricting release. "
               "Budgets from different definitions (local vs central DP, zCDP conversions) are not directly "
               "comparable; they give a sense of scale.")
