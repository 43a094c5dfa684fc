"""Local DP: realized privacy loss and the Bayesian privacy filter (paper 003, spec ldp_bayesian_filter.md §7)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import background, ledger, params, ui
from app.compute import ldp as C
from app.figures import ldp as F
from dpcore import ledger as dl

ui.header(
    "Local DP: what did the answers *actually* reveal?",
    "In **local** differential privacy each person randomizes their own answer before sending it. An ε-LDP answer "
    "can move anyone's belief about you by at most a factor e^ε — but that is the *worst* answer. Mingen Pan's paper "
    "measures the **realized privacy loss** ℓ of the answers that really came out: the largest factor by which they "
    "move *any* belief about you (ℓ = ln max Λ − ln min Λ, where Λ(x) is how likely the answers are if your true "
    "value is x). A **Bayesian privacy filter** keeps answering while ℓ stays within a budget ε_G, checking every "
    "possible answer *before* a query runs — and so answers far more queries than adding up ε's.",
)

with st.sidebar:
    view = params.choice(
        "view",
        "View",
        ("explore", "reproduce"),
        "explore",
        name="the view",
        help="explore: the panels below; reproduce: the paper's examples and evaluation.",
    )
    part = (
        params.choice(
            "part",
            "Part",
            C.PARTS,
            "beliefs",
            name="the part of the explore view",
            help="beliefs: panels 1–4 (what answers reveal); filter: panels 5–8 (the Bayesian filter); "
            "continuous: panel 9 (regressions on a box, branch-and-bound).",
        )
        if view == "explore"
        else ""
    )
    st.header("Controls")
    eps = params.epsilon(label="ε — LDP level of each query")
    budget = float(
        params.select_number(
            "budget",
            "ε_G — the person's total budget",
            C.BUDGETS,
            4.0,
            name="the budget ε_G",
            help="The filter keeps the realized loss of everything answered at or below ε_G.",
        )
    )
    k = int(
        params.select_number(
            "k",
            "k — number of queries",
            C.QUERY_COUNTS,
            25,
            name="the number of queries k",
            help="How many queries the analyst sends (the stream the filter sees).",
        )
    )
    n = int(
        params.select_number(
            "n",
            "|D| — number of possible values",
            C.DOMAIN_SIZES,
            11,
            name="the domain size |D|",
            help="The secret X is one of 0, 1, …, |D| − 1.",
        )
    )
    x_raw = int(
        params.select_number(
            "x",
            "x* — the person's true value",
            C.TRUE_VALUES,
            7,
            name="the true value x*",
            help="Only the random answers depend on it; the filter never looks at it.",
        )
    )
    family = params.choice(
        "query",
        "Queries",
        C.FAMILIES,
        "powers",
        name="the query family",
        help="powers: query i releases (x/(|D|−1))^i through the two-point mechanism (the paper's running example, "
        "Eq. 11); rr: |D|-ary randomized response, which always uses its full ε.",
    )
    prior = params.choice(
        "prior",
        "Prior belief about X",
        C.PRIORS,
        "uniform",
        name="the prior",
        help="What the observer believes before seeing any answer.",
    )
    stmt = params.choice(
        "stmt",
        "Statement φ",
        C.STATEMENTS,
        "above",
        name="the statement",
        help="equal: X = x*; above: X ≥ x*; even: X is even.",
    )
    alpha = float(
        params.select_number(
            "alpha",
            "α — weight of the adversarial prior",
            C.ALPHAS,
            0.01,
            name="α",
            help="Lemma 3.2: a prior with weight α on one value.",
        )
    )
    seed = params.seed()
    ratio = params.toggle(
        "ratio",
        "Show losses as ratios e^ℓ",
        help="Display only: the paper's examples print e^ℓ "
        '("the loss is 1.5"); budgets are always compared as ℓ ≤ ε_G (spec §0).',
    )
    ui.share_hint()

ledger.offer(  # the Bayesian filter keeps the realized loss of the whole session ≤ ε_G: an ε_G-LDP session
    dl.pure_release(budget, label=f"LDP filter session ε_G={budget:g}", source="ldp"))

x = min(x_raw, n - 1)
unit = "e^ℓ" if ratio else "ℓ"


def _explore() -> None:
    """Headline numbers, then one part of spec §7's panels (one part per rerun keeps the page fast)."""
    if x_raw != x:
        st.warning(
            f"x* = {x_raw} is outside the domain {{0, …, {n - 1}}}; the page uses x* = {x}.",
            icon=":material/info:",
        )
    if budget < eps:
        st.info(
            f"ε_G = {budget:g} is below the per-query ε = {eps:g}: basic composition answers nothing, and the "
            "Bayesian filter only answers queries whose every possible output stays within ε_G."
        )
    df_b, s_b = C.beliefs(family, eps, n, k, x, seed, prior)
    df_t, s_t = C.timeline(family, eps, budget, n, k, x, seed)
    c = st.columns(4)
    c[0].metric(
        f"Realized loss {unit} of the {k} answers",
        C.show_loss(s_b["loss"], ratio),
        help="Unfiltered: all k queries answered. ℓ = ln max Λ − ln min Λ (Def. 3.2, Eq. 10).",
    )
    c[1].metric(
        f"LDP bound Σε of the {k} answers ({unit})",
        C.show_loss(s_b["basic"], ratio),
        help="Basic composition: the worst case over all possible answers.",
    )
    c[2].metric(
        "Answered by the Bayesian filter",
        f"{s_t['accepted']} of {k}",
        help=f"Budget ε_G = {budget:g}; each query is checked against every possible output first.",
    )
    c[3].metric("Answered under basic composition", f"{s_t['basic_accepted']} of {k}")
    if part == "filter":
        _filter(df_t, s_t)
    elif part == "continuous":
        _continuous()
    else:
        _beliefs(df_b, s_b)


def _beliefs(df_b: pd.DataFrame, s_b: dict) -> None:
    """Panels 1–4 (discrete): posterior, statement band, loss per output pattern, likelihood landscape."""
    with ui.panel(
        "1 · From prior to posterior",
        "the posterior moves with the *likelihood ratio*, not with the number of answers: flat stretches of "
        "Λ leave the belief as it was. With randomized response on 2 values, answers that balance out "
        "(as many 1s as 0s, Example 1) leave the posterior exactly equal to the prior.",
    ):
        outs = " ".join(str(v) for v in s_b["outputs"])
        st.caption(f"The {k} answers drawn for x* = {x} (seed {seed}): `{outs}`")
        c = st.columns(3)
        c[0].metric("Prior belief in x*", f"{s_b['prior_true']:.4f}")
        c[1].metric("Posterior belief in x*", f"{s_b['posterior_true']:.4f}")
        c[2].metric("Most likely value (argmax Λ)", ", ".join(str(v) for v in s_b["argmax"][:5]))
        ui.chart(
            F.beliefs(df_b),
            df_b,
            name="prior and posterior",
            alt="Bars of the prior and posterior belief over the values of X with the likelihood as a line.",
        )

    with ui.panel(
        "2 · A statement's confidence and the Lemma 3.1 band",
        "no statement, under any prior, gains more than the realized loss allows (Lemma 3.1), and that band "
        "is usually far inside the LDP band. The adversarial prior of Lemma 3.2 reaches the band's edge as "
        "α → 0: the realized loss is the *least* upper bound on knowledge gain.",
    ):
        bands, curve, s_s = C.statement(family, eps, n, k, x, seed, prior, stmt, alpha)
        c = st.columns(4)
        c[0].metric(f"b(φ) for “{C.STATEMENT_TEXT[stmt]}”", f"{s_s['prior_conf']:.4f}")
        c[1].metric("b(φ | answers)", f"{s_s['posterior_conf']:.4f}")
        c[2].metric(
            "Knowledge gain b(φ|y)/b(φ)",
            f"{s_s['gain']:.4f}",
            help=f"Realized band [{C.show_loss(-s_s['loss'], True)}, {C.show_loss(s_s['loss'], True)}]",
        )
        c[3].metric(
            f"Lemma 3.2 gain at α = {alpha:g}",
            f"{s_s['lemma_gain']:.4f}",
            help=f"Statement X = {s_s['lemma_x_a']}, prior on {{{s_s['lemma_x_a']}, {s_s['lemma_x_b']}}}; "
            f"supremum e^ℓ = {s_s['lemma_bound']:.4f}",
        )
        ui.chart(
            F.statement_band(bands, ratio=ratio, text=C.STATEMENT_TEXT[stmt]),
            bands,
            name="statement gain band",
            alt="The statement's knowledge gain inside the realized band, itself inside the LDP band.",
        )
        ui.chart(
            F.lemma_curve(curve, ratio=ratio, alpha=alpha),
            curve,
            name="lemma 3.2 construction",
            alt="Gain of the Lemma 3.2 construction rising towards the realized loss as alpha decreases.",
        )

    with ui.panel(
        "3 · Realized loss of every possible answer pattern",
        "most patterns realize far less than the LDP bound; only a few (the most lopsided) touch it. "
        "Randomized response with k = 1 is the exception where every bar touches the line ('full "
        "utilisation', Def. 3.3).",
    ):
        df_o, s_o = C.output_losses(family, eps, n, k, x)
        if s_o["m"] < k:
            st.caption(
                f"Showing every pattern of the first {s_o['m']} of the {k} queries "
                f"({s_o['patterns']} patterns; at most {C.MAX_PATTERNS})."
            )
        c = st.columns(3)
        c[0].metric(f"Expected realized loss under x* ({unit})", C.show_loss(s_o["expected_loss"], ratio))
        c[1].metric(f"LDP bound Σε of the {s_o['m']} queries shown ({unit})", C.show_loss(s_o["basic"], ratio))
        c[2].metric("Chance the answers reach the bound", f"{s_o['p_at_bound']:.3g}")
        ui.chart(
            F.output_losses(df_o, ratio=ratio),
            df_o,
            name="loss per output pattern",
            alt="Bars of the realized loss of each output pattern, coloured by its probability, under the bound.",
        )

    with ui.panel(
        "4 · The likelihood landscape and its extremes",
        "ℓ is the range (max − min) of ln Λ over the *whole* domain: it depends neither on the prior nor on "
        "which value is true. On a continuous domain the extremes must be searched for (part continuous).",
    ):
        c = st.columns(3)
        c[0].metric("argmax Λ", ", ".join(str(v) for v in s_b["argmax"][:5]))
        c[1].metric("argmin Λ", ", ".join(str(v) for v in s_b["argmin"][:5]))
        c[2].metric(f"Gap = realized loss ({unit})", C.show_loss(s_b["loss"], ratio))
        ui.chart(
            F.landscape(df_b, s_b, ratio=ratio),
            df_b,
            name="likelihood landscape",
            alt="Bars of the log-likelihood over the domain with its maximum and minimum marked.",
        )

    with ui.panel(
        "10 · Quantitative information flow: g-leakage",
        "whatever the adversary wants to guess, the realized g-leakage is at most the realized loss ℓ, which "
        "is at most the LDP bound (Theorem 3.3, Corollary 3.1): ℓ caps every way of profiting from the "
        "answers.",
    ):
        st.dataframe(C.qif(family, eps, n, k, x, seed, prior), hide_index=True, width="stretch")


def _filter(df_t: pd.DataFrame, s_t: dict) -> None:
    """Panels 5–8: timeline, remaining budget, accepted counts, acceptance regions."""
    with ui.panel(
        "5 · Filter timeline: Bayesian filter vs basic composition",
        "the Bayesian filter runs well past the basic-composition stop; the odometer can go *down* (an "
        "answer that favours the middle values narrows the gap); and the look-ahead over every possible "
        "answer — not the answer that came out — decides acceptance, so the decision reveals nothing.",
    ):
        c = st.columns(3)
        c[0].metric(f"Odometer after the stream ({unit})", C.show_loss(s_t["loss"], ratio))
        c[1].metric("Times the odometer went down", s_t["decreases"])
        c[2].metric(
            "First rejection", "none" if s_t["first_rejection"] is None else f"query {s_t['first_rejection']}"
        )
        ui.chart(
            F.timeline(df_t, s_t, ratio=ratio),
            df_t,
            name="filter timeline",
            alt="Odometer, look-ahead, budget and basic composition against the query number.",
        )

    with ui.panel(
        "6 · Remaining budget",
        "the remaining budget is a capacity for *new* queries and it can grow back; basic composition only "
        "ever spends. The Simplified filter accepts a next query exactly when its ε fits in what remains.",
    ):
        c = st.columns(3)
        c[0].metric("Remaining, Bayesian: ε_G − ℓ(r)", f"{s_t['remaining']:.4f}")
        c[1].metric("Remaining, basic: ε_G − Σε", f"{s_t['basic_remaining']:.4f}")
        c[2].metric("Largest ε the Simplified filter accepts now", f"{s_t['simplified_max_epsilon']:.4f}")
        st.progress(s_t["remaining_share"], text=f"Bayesian filter: {s_t['remaining_share']:.0%} of ε_G left")
        st.progress(
            s_t["basic_remaining_share"],
            text=f"Basic composition: {s_t['basic_remaining_share']:.0%} of ε_G left",
        )

    with ui.panel(
        "7 · How many queries get answered?",
        "answered counts spread out but sit well above basic composition's fixed count, and grow roughly "
        "linearly in ε_G with a steeper slope. The Simplified filter sits in between.",
    ):
        simulate = params.toggle(
            "sim",
            "simulate the adversary (Monte Carlo)",
            False,
            help=f"{C.SIM_RUNS} seeded adversary streams per filter and the randomized-response check: "
            "0.1–0.5 s for each new setting, so it is off until you ask for it.",
            container=st,
        )
        rr = C.rr_expected(eps, budget)
        rr_metric = (
            "E[# answered], binary RR stream (closed form)",
            "—" if rr is None else f"{rr:.3f}",
            "Spec §5.5: the hitting time of |n₁ − n₀| = ⌊ε_G/ε⌋."
            if rr is not None
            else f"⌊ε_G/ε⌋ > {C.RR_CLOSED_FORM_MAX_M}: too large to solve on every rerun.",
        )
        if simulate:
            df_a, s_a = C.accepted_counts(family, eps, budget, n, x, seed)
            c = st.columns(4)
            c[0].metric(
                "Bayesian filter: mean answered",
                f"{s_a['bayesian']['mean']:.2f}",
                help=f"{C.SIM_RUNS} seeded runs; each stops at the first rejection (Algorithm 5).",
            )
            c[1].metric("Simplified filter: mean answered", f"{s_a['simplified']['mean']:.2f}")
            c[2].metric("Basic composition", s_a["basic"])
            c[3].metric(rr_metric[0], rr_metric[1], help=rr_metric[2])
            if max(s_a["bayesian"]["capped"], s_a["simplified"]["capped"]):
                st.caption(
                    f"Some runs reached the cap of {C.SIM_CAP} answered queries; their counts are cut there."
                )
            ui.chart(
                F.accepted_hist(df_a, basic=s_a["basic"]),
                df_a,
                name="accepted counts",
                alt="Histogram of answered queries per run for the Bayesian and Simplified filters.",
            )
        else:
            st.metric(rr_metric[0], rr_metric[1], help=rr_metric[2])
            st.caption(
                "Turn on **simulate the adversary** for the answered counts of the Bayesian and Simplified filters "
                f"({C.SIM_RUNS} seeded runs each) and Monte-Carlo points on the curve below."
            )
        df_r = C.rr_curve(eps, min(x, 1), seed) if simulate else C.rr_closed_form(eps)
        ui.chart(
            F.rr_curve(df_r, budget=budget),
            df_r,
            name="rr expected accepted",
            alt="Expected answered queries against the budget for randomized response, closed form and simulation.",
        )

    with ui.panel(
        "8 · Simplified vs full filter: acceptance regions",
        "from the state the timeline left, the full look-ahead accepts every query the Simplified rule "
        "accepts and more — e.g. flat queries (slope ≈ 0) that cannot separate any two values, whatever "
        "their declared ε.",
    ):
        df_g, s_g = C.regions(family, eps, budget, n, k, x, seed)
        c = st.columns(3)
        c[0].metric("Candidates accepted by the full filter", f"{s_g['bayesian']} of {s_g['candidates']}")
        c[1].metric("… by the Simplified filter", f"{s_g['simplified']} of {s_g['candidates']}")
        c[2].metric("Full ⊇ Simplified", "yes" if s_g["superset"] else "NO")
        ui.chart(
            F.regions(df_g, remaining=s_t["remaining"]),
            df_g,
            name="acceptance regions",
            alt="Grid of candidate queries by slope and epsilon, coloured by which filter accepts them.",
        )


def _continuous() -> None:
    """Panel 4 on a box and panel 9: 2-D logistic likelihood landscape and the branch-and-bound explorer."""
    b = background.result(C.bnb, eps, k, x, n, seed, slot="bnb", label="Branch-and-bound over the box",
                          wait=C.BNB_WAIT)
    if b is None:
        return
    with ui.panel(
        "4b · The likelihood landscape on a continuous domain",
        "with regression answers the object's value ranges over a box; ln Λ is smooth and its extremes sit "
        "on the boundary or inside, far from x*. The realized loss is again max − min, found by the search "
        "below.",
    ):
        ui.chart(
            F.landscape_2d(b["grid"], b),
            b["grid"],
            name="likelihood landscape 2d",
            alt="Heatmap of the log-likelihood of logistic-regression answers over a square, extremes marked.",
        )

    with ui.panel(
        "9 · Branch-and-bound on a continuous domain",
        "on a box the extremes of ln Λ are found by branch-and-bound: each node's lower bound replaces the "
        "convex part V by its secant, so it is certified; the upper bound is a real point. Stopping early "
        "leaves a conservative gap — the likely reason the paper's App. E values are 0.10–0.15 too high.",
    ):
        c = st.columns(4)
        c[0].metric("Certified loss U − Lo", f"{b['certified']:.5f}", help="Eq. 17: valid for the filter.")
        c[1].metric("Attained loss (two real points)", f"{b['attained']:.5f}")
        c[2].metric("LDP bound Σε", f"{b['basic']:.4f}")
        c[3].metric(
            "Nodes explored", b["nodes"], help=f"tolerance {C.BNB_TOL:g}; converged: {b['converged']}"
        )
        st.caption(
            f"{b['k']} logistic regressions on [−1, 1]² (θ ~ U[−1, 1]³) answered at x* = "
            f"({b['x_star'][0]:.2f}, {b['x_star'][1]:.2f}); a gap of {C.LOOSE_GAP:g} is reached after "
            f"{b['loose_nodes']['min ln Λ']} (min) and {b['loose_nodes']['max ln Λ']} (max) nodes."
        )
        ui.chart(
            F.bnb_trace(b["trace"], loose_gap=C.LOOSE_GAP),
            b["trace"],
            name="branch and bound trace",
            alt="Lower and upper bounds of the minimum and maximum log-likelihood against the nodes explored.",
        )
        if len(b["secant"]):
            ui.chart(
                F.secant(b["secant"], z_range=b["z_range"]),
                b["secant"],
                name="secant relaxation",
                alt="A logistic log-likelihood term, its convex part and the secant over-estimator.",
            )


def _reproduce() -> None:
    """Examples 1–3, the Section-8 counterexamples, RC13 and the evaluation of Sec. 6 (spec §4–§6)."""
    st.info(
        "The reproduce view uses the paper's own settings; the sidebar controls drive the explore view.",
        icon=":material/info:",
    )
    ex = C.examples()

    with ui.panel(
        "Example 1 · Balanced randomized-response answers leak nothing (Eq. 9)",
        "Λ(0) = Λ(1): the answers are equally likely whatever the secret, so ℓ = 0 although basic "
        "composition charges 2nε = 4.2, and the all-ones pattern really does cost 4.2.",
    ):
        e1 = ex["ex1"]
        c = st.columns(4)
        c[0].metric(
            "Λ(0) = Λ(1)",
            f"{e1.likelihood_0:.7f}",
            help=f"closed form e^(nε)/(1+e^ε)^(2n) = {e1.closed_form:.7f} (ε = {e1.epsilon:g}, n = {e1.n})",
        )
        c[1].metric("ℓ of the balanced pattern", f"{e1.loss_balanced:.4f}")
        c[2].metric("ℓ of the all-ones pattern", f"{e1.loss_all_ones:.4f}")
        c[3].metric("Basic composition 2nε", f"{e1.basic_composition:.4f}")
        st.caption(
            "Deviation: none — the example reproduces exactly (its ε = 0.7 and n = 3 are reconstructed, "
            "spec §4.1)."
        )

    with ui.panel(
        "Example 2 · Three queries X, X², X³ with answers (1, 0, 1) (Eq. 11)",
        "the realized loss is ln 1.5 = 0.405 (the paper prints the ratio 1.5), a third of the LDP bound "
        "3 ln 1.5 = 1.216.",
    ):
        e2 = ex["ex2"]
        c = st.columns(3)
        c[0].metric("e^ℓ (paper: 1.5)", f"{e2.ratio:.4f}")
        c[1].metric("ℓ (ε units)", f"{e2.loss:.6f}")
        c[2].metric("Basic composition 3ε", f"{e2.basic_composition:.6f}")
        c = st.columns(2)
        c[0].metric("Λ(2) as printed in the paper", "0.109")
        c[1].metric(
            "Λ(2) from the reconstructed queries",
            f"{e2.table.loc[2, 'likelihood']:.4f}",
            help="A misprint of the likelihood table, not a privacy claim: max, min and 1.5 are unaffected.",
        )
        ui.chart(
            F.example2(e2.table),
            e2.table,
            name="example 2 likelihood",
            alt="Bars of the likelihood of each value with the paper's printed values as markers.",
        )
        st.caption(f"Deviation: {e2.note} (spec §8.3)")

    with ui.panel(
        "Example 3 · The Bayesian filter on X, X², X³, … with ε_G = ln 2.25",
        "q2 is accepted although its y = 1 branch lands exactly on the budget (equality is allowed); the "
        "odometer goes *down* after q2 (1.5 → 1.15); 4 queries are answered where basic composition "
        "allows 2.",
    ):
        e3 = ex["ex3"]
        shown = e3[
            [
                "step",
                "ratio_if_0",
                "ratio_if_1",
                "accepted",
                "observed",
                "ratio_after",
                "paper_ratio",
                "loss_after",
                "argmax",
                "argmin",
            ]
        ].rename(
            columns={
                "ratio_if_0": "e^ℓ if y = 0",
                "ratio_if_1": "e^ℓ if y = 1",
                "ratio_after": "e^ℓ after",
                "paper_ratio": "paper",
                "loss_after": "ℓ after",
            }
        )
        st.dataframe(shown, hide_index=True, width="stretch")
        t = ex["tree"]
        c = st.columns(4)
        c[0].metric(
            "Transcripts of the interaction",
            t["transcripts"],
            help=f"lengths {t['min_length']}–{t['max_length']}; probabilities sum to 1 for every x",
        )
        c[1].metric("Worst transcript ratio (Eq. 12)", C.show_loss(t["max_loss"], True))
        c[2].metric("E[# answered] at x* = 0 or 10", f"{t['expected'][0]:.3f}")
        c[3].metric("E[# answered] at x* = 5", f"{t['expected'][5]:.3f}")
        st.caption(
            "Deviation: none — the paper prints e^ℓ rounded (1.15 is 0.275/0.24 = 1.145833); the query "
            "family and ε_G = ln 2.25 are reconstructed (spec §4.3)."
        )

    with ui.panel(
        "Section 8 · Two claims about the odometer that do not hold",
        "the paper says the odometer decreases when the next answer is less likely at argmax Λ than at "
        "argmin Λ, and that nothing with ε > 0 can be accepted at full budget. Both fail on small cases.",
    ):
        a, bb = ex["rc15a"], ex["rc15b"]
        st.markdown(
            f"**(a)** Λ = (1, 1.5, 2), ε_G = ln 2 (already spent). A query with ε_q = {a['query_epsilon']:.4f} "
            f"that only separates the middle value: every answer leaves ℓ = "
            f"{a['look_ahead'].max():.4f} = ε_G, so the full filter **{'accepts' if a['bayesian'] else 'rejects'}"
            f"** it (the Simplified filter {'accepts' if a['simplified'] else 'rejects'})."
        )
        st.markdown(
            f"**(b)** Λ = (1, 1.9, 2) and an answer with p(y|x_max) = {bb['p_xmax']:.4f} < p(y|x_min) = "
            f"{bb['p_xmin']:.4f}: the paper's rule predicts the loss goes down from {bb['before']:.4f}, but it "
            "rises:"
        )
        ui.paper_vs_exact(
            "ℓ after the answer",
            bb["before"],
            bb["after"],
            fmt="{:.4f}",
            paper_underreports=True,
            help="The paper's condition predicts no increase: at most the loss before the answer.",
        )
        st.caption("Deviation: the paper's condition is necessary, not sufficient (spec §8.7, §8.8).")

    with ui.panel(
        "Closed form · Expected answered randomized-response queries (spec §5.5, RC13)",
        "the Bayesian filter answers 2–9× as many binary randomized-response queries as basic composition; "
        "the closed form and the seeded simulation agree within their standard error.",
    ):
        df = C.rr_reference()
        st.dataframe(
            df.rename(
                columns={
                    "epsilon": "ε",
                    "budget": "ε_G",
                    "spec": "spec value",
                    "closed_form": "closed form",
                    "mc_mean": "Monte Carlo mean",
                    "mc_se": "standard error",
                    "basic": "basic composition",
                }
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption("Deviation: not in the paper — a benchmark the spec adds to test the filter end to end.")

    with ui.panel(
        "Fig. 1(d) · Logistic regressions: median answered at ε_G = 10 (paper: 21)",
        "the median matches the paper's 21 within the run-to-run spread of ±2 (basic composition: 10); counts grow "
        "roughly linearly in ε_G.",
    ):
        if st.button("Run the logistic evaluation (50 runs, about 15 s)", key="run_logistic"):
            st.session_state["ldp_run_logistic"] = True
        if st.session_state.get("ldp_run_logistic"):
            with st.spinner("Running 50 logistic streams …"):
                bands, s = C.evaluation("logistic", 10)
            c = st.columns(2)
            c[0].metric("Median answered at ε_G = 10 — paper", f"{s['paper']:g}")
            c[1].metric("Median answered at ε_G = 10 — reproduced", f"{s['median']:g}")
            ui.chart(
                F.evaluation(bands, paper=s["paper"], title="Logistic regressions in 9-D, groups of 10"),
                bands,
                name="logistic evaluation",
                alt="Percentile band of answered logistic queries against the budget.",
            )
            st.caption(
                "Deviation: the group extremes come from multi-start local search (the spec's shortcut, not "
                "certified); the domain [−1, 1]⁹, x* = 0 and ε = 1 are reconstructed (spec §5.1, §5.3). The paper "
                "words this result and the linear one as 'a factor of one to four', 'five times and two times' and "
                "'2–5 times': all mean 21/10 and 47/10, i.e. 2.1×–4.7× as many queries as basic composition (§8.11)."
            )

    with ui.panel(
        "Fig. 1(b) · Linear regressions: median answered at ε_G = 10 (paper: 47)",
        "under the literal setup (groups of 10) the median is well below the paper's 47; groups of 20 land "
        "near it. The qualitative claims hold: linear growth and always at least basic composition.",
    ):
        m = int(
            params.choice(
                "group",
                "Group size m (linear evaluation)",
                ("10", "20"),
                "10",
                name="the group size m",
                help="App. C: the filter bounds the loss group by group.",
            )
        )
        if st.button(f"Run the linear evaluation, groups of {m} (50 runs, about 5 s)", key="run_linear"):
            st.session_state[f"ldp_run_linear_{m}"] = True
        if st.session_state.get(f"ldp_run_linear_{m}"):
            with st.spinner("Running 50 linear streams …"):
                bands, s = C.evaluation("linear", m)
            c = st.columns(2)
            c[0].metric("Median answered at ε_G = 10 — paper", f"{s['paper']:g}")
            c[1].metric(
                f"Median answered at ε_G = 10 — reproduced (groups of {m})",
                f"{s['median']:g}",
                help=f"{s['runs']} runs, seed 0, exact per-group losses",
            )
            ui.chart(
                F.evaluation(bands, paper=s["paper"], title=f"Linear regressions in 9-D, groups of {m}"),
                bands,
                name="linear evaluation",
                alt="Percentile band of answered linear queries against the budget.",
            )
            st.warning(
                "The paper's 47 is not reproducible under the literal reading (groups of 10, L1-normalised θ, "
                "domain [−1, 1]⁹, Eq. 5 on [−1, 1], ε = 1): exact per-group losses give a median in the mid "
                "30s (spec: 34.5). Groups of 20 give about 48.5, so the paper probably used a different group "
                "size or normalisation, which did not survive in the text (spec §5.2, §8.10).",
                icon=":material/difference:",
            )

    with ui.panel(
        "App. E · Healthcare example: 4 regressions, budget 4",
        "the same four queries cost 1.59–3.60 of the budget 4 depending on the answers; every value the "
        "paper prints sits 0.10–0.15 *above* the certified optimum (a loose B&B stop — safe, but not the "
        "realized loss itself).",
    ):
        if st.button("Run the 16 branch-and-bound searches (1–2 min)", key="run_health"):
            st.session_state["ldp_run_health"] = True
        if st.session_state.get("ldp_run_health"):
            with st.spinner("Certifying 16 × 2 extremes …"):
                df, s = C.healthcare()
            ui.paper_vs_exact("worst-case loss", s["paper_worst"], s["exact_worst"], fmt="{:.4f}")
            ui.paper_vs_exact(
                "median loss over the 16 patterns", s["paper_median"], s["exact_median"], fmt="{:.4f}"
            )
            ui.chart(
                F.healthcare(df, s),
                df,
                name="healthcare losses",
                alt="Sorted bars of the exact realized loss of the 16 answer patterns with the paper's values.",
            )
            st.caption(
                f"Deviation: the paper's values are {s['min_excess']:.3f}–{s['max_excess']:.3f} above the "
                "certified optimum (spec §8.4); the Table I column order and the domain are reconstructed. "
                "The paper's median is over 16 equally weighted patterns, not a population median (§8.5)."
            )


if view == "reproduce":
    _reproduce()
else:
    _explore()
