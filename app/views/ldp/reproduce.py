"""Local DP page, reproduce view: the paper's examples, its evaluation (Fig. 1) and its healthcare table."""

from __future__ import annotations

import streamlit as st

from app import background, params, ui
from app.compute import ldp as C
from app.figures import ldp as F
from app.notation import number
from app.views._metrics import metric_row
from app.views._parts import open_part
from app.views.ldp._settings import Settings


def render(s: Settings) -> None:
    """Three URL-bound parts; the heavy runs start on a button press."""
    open_part(PARTS, s)


def examples(s: Settings) -> None:
    """Examples 1–3, Example 3's transcripts, the two refuted claims, the randomized-response closed form."""
    ex = C.examples()
    example1(ex)
    example2(ex)
    example3(ex)
    counterexamples(ex)
    closed_form()


def example1(ex: C.Examples) -> None:
    with ui.panel(
        "Example 1 · Balanced randomized-response answers reveal nothing (Eq. 9)",
        "Λ(0) = Λ(1): the answers are equally likely whatever the secret, so ℓ = 0 although basic composition "
        "charges 2nε = 4.2 — and six 1's really would cost 4.2.",
    ):
        e1 = ex.ex1
        metric_row(
            (
                "Λ(0) = Λ(1)",
                f"{e1.likelihood_0:.7f}",
                f"Closed form e^(nε)/(1 + e^ε)^(2n) = {e1.closed_form:.7f} (ε = {number(e1.epsilon)}, n = {e1.n}).",
            ),
            ("ℓ of the balanced pattern", f"{e1.loss_balanced:.4f}", "What the balanced answers reveal: nothing."),
            ("ℓ of six 1's", f"{e1.loss_all_ones:.4f}", "The most lopsided answers reveal the full 6ε."),
            ("Basic composition 2nε", f"{e1.basic_composition:.4f}", "Charged whatever the answers."),
        )
        st.caption(
            "Reproduces exactly. The paper's ε = 0.7 and n = 3 are read from its text, whose formulas were "
            "partly lost; they match every number it prints."
        )


def example2(ex: C.Examples) -> None:
    with ui.panel(
        "Example 2 · Three queries X, X², X³ answered (1, 0, 1) (Eq. 11)",
        "the realized loss is ln 1.5 = 0.405 (the paper prints the ratio 1.5), a third of the LDP bound "
        "3 ln 1.5 = 1.216.",
    ):
        e2 = ex.ex2
        c = st.columns(3)
        c[0].metric("e^ℓ (paper: 1.5)", f"{e2.ratio:.4f}", help="max Λ / min Λ = 0.144 / 0.096.")
        c[1].metric("ℓ (ε units)", f"{e2.loss:.6f}", help="ln 1.5.")
        c[2].metric("Basic composition 3ε", f"{e2.basic_composition:.6f}", help="3 ln 1.5.")
        metric_row(
            ("Λ(2) as printed in the paper", "0.109"),
            (
                "Λ(2) from the queries of Eq. 11",
                f"{e2.table.loc[2, 'likelihood']:.4f}",
                "A misprint of the likelihood table, not a privacy claim: max, min and 1.5 are unaffected.",
            ),
        )
        ui.chart(
            F.example2(e2.table),
            e2.table,
            name="example 2 likelihood",
            alt="Bars of the likelihood of each value with the paper's printed values as markers.",
        )
        st.caption(f"Erratum: {e2.note}")


def example3(ex: C.Examples) -> None:
    with ui.panel(
        "Example 3 · The Bayesian filter on X, X², X³, … with ε_G = ln 2.25",
        "q₂ is answered although its answer 1 would land exactly on the budget (equality is allowed); the odometer "
        "goes *down* after q₂ (1.5 → 1.15); 4 queries are answered where basic composition allows 2.",
    ):
        shown = ex.ex3[
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
                "step": "query",
                "ratio_if_0": "ratio if the answer is 0",
                "ratio_if_1": "ratio if the answer is 1",
                "accepted": "answered",
                "observed": "answer",
                "ratio_after": "ratio after",
                "paper_ratio": "paper",
                "loss_after": "ℓ after",
                "argmax": "most likely x",
                "argmin": "least likely x",
            }
        )
        formats = {"answer": "{:.0f}", "ratio after": "{:.6g}", "paper": "{:.2f}", "ℓ after": "{:.6f}"}
        for col, fmt in formats.items():  # a refused query has no answer: a dash, not an empty number
            shown[col] = [
                fmt.format(v) if ok and v == v else "—" for v, ok in zip(shown[col], shown["answered"], strict=True)
            ]
        st.dataframe(shown, hide_index=True, width="stretch")
        metric_row(
            (
                "Transcripts of the interaction",
                ex.transcripts,
                f"Every possible run of 'send X, X², … until refused': lengths {ex.min_length}–"
                f"{ex.max_length}; their probabilities sum to 1 for every secret.",
            ),
            (
                "Worst transcript ratio (Eq. 12)",
                C.show_loss(ex.max_loss, True),
                "The largest Pr[transcript | x] / Pr[transcript | x′]: exactly e^(ε_G) = 2.25 (Thm 4.1).",
            ),
            ("Expected answered when x* = 0 or 10", f"{ex.expected_0:.3f}"),
            ("Expected answered when x* = 5", f"{ex.expected_5:.3f}"),
        )
        st.caption(
            "The ratio columns show e^ℓ, the realized loss ℓ as a likelihood ratio. Reproduces exactly: the "
            "paper prints e^ℓ rounded (1.15 is 0.275/0.24 = 1.145833). Its queries (Eq. 11) and "
            "budget ln 2.25 are the only ones that fit every printed number."
        )


def counterexamples(ex: C.Examples) -> None:
    with ui.panel(
        "Sec. 4.2 · Two claims about the odometer that do not hold",
        "the paper says the odometer goes down when the next answer is less likely at the most likely value than at "
        "the least likely one, and that nothing with ε > 0 can be answered at full budget. Both fail on small cases.",
    ):
        c = ex.counter
        st.markdown(
            "**(a)** Λ = (1, 1.5, 2), ε_G = ln 2 (already spent). A query with ε_q = "
            f"{c.full_budget_query_epsilon:.4f} "
            f"that only separates the middle value: every answer leaves ℓ = {c.full_budget_look_ahead.max():.4f} = "
            f"ε_G, so the full filter **{'answers' if c.full_budget_bayesian else 'refuses'}** it (the Simplified "
            f"filter {'answers' if c.full_budget_simplified else 'refuses'} it)."
        )
        st.markdown(
            f"**(b)** Λ = (1, 1.9, 2) and an answer with probability {c.p_at_max:.4f} at the most likely value, less "
            f"than {c.p_at_min:.4f} at the least likely: the paper's rule predicts that the loss goes down from "
            f"{c.decrease_before:.4f}, but it rises:"
        )
        ui.paper_vs_exact(
            "ℓ after the answer",
            c.decrease_before,
            c.decrease_after,
            fmt="{:.4f}",
            paper_underreports=True,
            help="The paper's rule predicts no increase: at most the loss before the answer.",
        )
        st.caption(
            "Errata: the decrease condition is necessary, not sufficient; at full budget a query is refused "
            "only if its answers are distributed differently at some most likely and some least likely value."
        )


def closed_form() -> None:
    with ui.panel(
        "Closed form · Expected answered randomized-response queries",
        "the Bayesian filter answers 2–9× as many binary randomized-response queries as basic composition; the "
        "closed form, the reference values and the seeded simulation agree.",
    ):
        df = C.rr_reference()
        sim = background.result(C.rr_simulated, slot="rr_simulated", label="Simulating 4 × 200 analyst streams")
        if sim is not None:
            df = df.merge(sim, on=["epsilon", "budget"])
        st.dataframe(
            df.rename(
                columns={
                    "epsilon": "ε",
                    "budget": "ε_G",
                    "reference": "reference value",
                    "closed_form": "closed form",
                    "mc_mean": "simulated mean",
                    "mc_se": "standard error",
                    "basic": "adding up ε",
                    "runs": "runs",
                }
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "Not in the paper: this project's benchmark of the filter end to end (a ±1 random walk's hitting "
            "time, solved as a linear system); the reference values were computed independently."
        )


def regressions(s: Settings) -> None:
    """Sec. 6, Fig. 1: answered regressions against ε_G, and the loss paths of ten runs."""
    with ui.panel(
        "Fig. 1(c, d) · Logistic regressions: median answered at ε_G = 10 (paper: 21)",
        "the median of 50 runs depends on the seed: 20.6 on average over 30 seeds, between 20 and 21 (this seed gives "
        "its own), so the "
        "paper's 21 is reproduced within that spread, not to the digit (basic composition: 10); counts grow roughly "
        "linearly in ε_G, and every run's realized loss grows more slowly than k·ε.",
    ):
        if st.button("Run the logistic evaluation (50 runs, about 20 s)", key="run_logistic"):
            st.session_state["ldp_run_logistic"] = True
        if st.session_state.get("ldp_run_logistic"):
            with st.spinner("Running 50 logistic streams …"):
                ev = C.evaluation("logistic", 10)
                paths = C.loss_paths("logistic", 10)
            _evaluation(ev, paths, "Logistic regressions in 9-D, groups of 10", "logistic")
            st.caption(
                "Group extremes come from a multi-start local search (fast, not certified); the domain [−1, 1]⁹, "
                "x* = 0 and ε = 1 are read from the paper's text, whose formulas were partly lost. The paper words "
                "this result and the linear one as 'a factor of one to four', 'five times and two times' and "
                "'2–5 times': all mean 21/10 and 47/10, i.e. 2.1×–4.7× as many queries as basic composition."
            )

    with ui.panel(
        "Fig. 1(a, b) · Linear regressions: median answered at ε_G = 10 (paper: 47)",
        "under the literal setup (groups of 10) the median of 50 runs is 36.6 on average over 40 seeds (35.0 to "
        "40.0, depending on the seed), well below the paper's 47; groups of 20 give 49.3 (47.5 to 51.5). The "
        "qualitative claims hold: linear growth, and always at least basic composition.",
    ):
        m = int(params.control("group", container=st))
        if st.button(f"Run the linear evaluation, groups of {m} (50 runs, about 5 s)", key="run_linear"):
            st.session_state[f"ldp_run_linear_{m}"] = True
        if st.session_state.get(f"ldp_run_linear_{m}"):
            with st.spinner("Running 50 linear streams …"):
                ev = C.evaluation("linear", m)
                paths = C.loss_paths("linear", m)
            _evaluation(ev, paths, f"Linear regressions in 9-D, groups of {m}", "linear")
            st.warning(
                "Erratum: the paper's 47 is not reproducible under the literal reading (groups of 10, θ normalised to "
                "‖θ‖₁ = 1, domain [−1, 1]⁹, Eq. 5 on [−1, 1], ε = 1): exact per-group losses give a median of "
                "35.0 to 40.0 over 40 seeds (36.6 on average). Groups of 20 give 47.5 to 51.5, so the paper probably "
                "used another group size or normalisation, which its text does not keep.",
                icon=":material/difference:",
            )


def _evaluation(ev: C.Evaluation, paths, title: str, kind: str) -> None:
    metric_row(
        ("Median answered at ε_G = 10 — paper", number(ev.paper)),
        (
            f"Median answered at ε_G = 10 — reproduced (groups of {ev.group_size})",
            number(ev.median),
            f"{ev.runs} seeded runs (seed 0); the group losses are added (App. C).",
        ),
    )
    ui.chart(
        F.evaluation(ev.bands, paper=ev.paper, title=title),
        ev.bands,
        name=f"{kind} evaluation",
        alt=f"Percentile band of answered {kind} queries against the budget.",
    )
    ui.chart(
        F.loss_paths(paths, budget=10.0, title=f"{title}: realized loss of {C.PATH_RUNS} runs"),
        paths,
        name=f"{kind} loss paths",
        alt=f"The realized loss of ten {kind} runs against the number of answered queries, below the line k·ε.",
    )


def healthcare(s: Settings) -> None:
    """Sec. 6.3 / App. E: four regressions on a patient record, budget 4."""
    with ui.panel(
        "App. E · Healthcare example: 4 regressions, budget 4",
        "the same four queries cost 1.59–3.60 of the budget 4 depending on the answers; every value the paper "
        "prints sits 0.10–0.15 *above* the certified optimum (a loose search stop — safe, but not the realized loss "
        "itself).",
    ):
        st.caption(
            "Heart disease, stroke and diabetes are logistic regressions answered 0 or 1; sleep hours is a "
            "truncated linear regression answered 0 or 12. Patients range over age 10–100, sex 0/1, blood "
            "pressure 50–200 and BMI 10–50 (Table I)."
        )
        if st.button("Run the 16 branch-and-bound searches (1–2 min)", key="run_health"):
            st.session_state["ldp_run_health"] = True
        if st.session_state.get("ldp_run_health"):
            with st.spinner("Certifying 16 × 2 extremes …"):
                h = C.healthcare()
            ui.paper_vs_exact("worst-case loss", h.paper_worst, h.exact_worst, fmt="{:.4f}")
            ui.paper_vs_exact("median loss over the 16 patterns", h.paper_median, h.exact_median, fmt="{:.4f}")
            ui.chart(
                F.healthcare(h.table, h),
                h.table,
                name="healthcare losses",
                alt="Sorted bars of the exact realized loss of the 16 answer patterns with the paper's values.",
            )
            st.caption(
                f"Erratum: the paper's values are {h.min_excess:.3f}–{h.max_excess:.3f} above the certified optimum. "
                "Table I's column order and the domain are read from the text. The paper's median is over 16 "
                "equally weighted patterns, not over a population."
            )


PARTS = {"Examples": examples, "Regressions": regressions, "Healthcare": healthcare}
